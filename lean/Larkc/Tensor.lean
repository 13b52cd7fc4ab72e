import Mathlib

/-!
# Tensors as functions of multi-indices

A `Larkc.Tensor` is a function from a multi-index (a list of coordinates, outermost first) to
its real entry. Ranks and shapes are not part of the type: an operation that needs a shape takes it
as an explicit `List ℕ` argument, and only the entries at indices inside the shape (`InShape`)
carry meaning; entries outside it are whatever the defining formula gives. Bool tensors hold
`0`/`1` and integer tensors hold integer-valued reals.

This file holds the index arithmetic the spec operations of `Larkc.Torch` are written with: the
row-major offset (`flatIndex`, defined by structural recursion so that `simp [flatIndex,
flatIndexAux]` turns `flatIndex [M, N] [i, j]` into `i * N + j`), coordinate access and update
(`coord`, `setAt`, `insertAt`, `eraseAt`), broadcasting (`bcastIndex`), the index maps of reductions
(`reduceIndex`, `fiber`), and sums, maxima and arg-maxima over boxes of coordinates (`boxSum`,
`boxMax`, `rangeArgMax`). All recursion is structural (on a list, or on an explicit fuel argument),
and every helper is defined by non-overlapping patterns so that its equation lemmas carry no side
conditions.

The library was written where no Lean toolchain was available; see `docs/trusted-base.md`.
-/

noncomputable section

namespace Larkc

/-- A tensor: its entry at every multi-index (coordinates outermost first). The rank is implicit;
bool tensors hold `0`/`1`, integer tensors hold integer-valued reals. -/
abbrev Tensor := List ℕ → ℝ

/-! ## Shapes and flat buffers -/

/-- Horner's scheme for the row-major offset: `acc` is the offset of the coordinates read so far.
Stops at the end of the shorter list. -/
def flatIndexAux : ℕ → List ℕ → List ℕ → ℕ
  | acc, [], _ => acc
  | acc, _ :: _, [] => acc
  | acc, s :: shape, i :: idx => flatIndexAux (acc * s + i) shape idx

/-- The row-major offset of the multi-index `idx` in a tensor of shape `shape`: for shape
`[M, N]` and index `[i, j]` it is `(0 * M + i) * N + j`, that is `i * N + j`. -/
def flatIndex (shape idx : List ℕ) : ℕ :=
  flatIndexAux 0 shape idx

/-- `InShape shape idx`: `idx` has as many coordinates as `shape` and each is below its size. -/
def InShape : List ℕ → List ℕ → Prop
  | [], [] => True
  | [], _ :: _ => False
  | _ :: _, [] => False
  | s :: shape, i :: idx => i < s ∧ InShape shape idx

/-- The search behind `nextPow2`: the first of `p, 2 * p, 4 * p, …` that is at least `n`, trying
at most `fuel` doublings (and returning the last candidate when the fuel runs out). -/
def nextPow2Aux : ℕ → ℕ → ℕ → ℕ
  | 0, _, p => p
  | fuel + 1, n, p => if n ≤ p then p else nextPow2Aux fuel n (2 * p)

/-- The least power of two that is at least `n` (`1` for `n = 0`), as `triton.next_power_of_2`.
`n` doublings of `1` always suffice, since `n ≤ 2 ^ n`. -/
def nextPow2 (n : ℕ) : ℕ :=
  nextPow2Aux n n 1

/-- The tensor of shape `shape` read from a flat buffer `f` in row-major order. The buffer is
indexed by `ℤ` because kernel memory locations use integer offsets. -/
def ofFlat (shape : List ℕ) (f : ℤ → ℝ) : Tensor :=
  fun idx => f (flatIndex shape idx : ℤ)

/-- The number of coordinates of a multi-index (the length of the list). -/
def listLength : List ℕ → ℕ
  | [] => 0
  | _ :: t => listLength t + 1

/-- The number of entries of a box of the given sizes: their product (`1` for no sizes). -/
def boxCount : List ℕ → ℕ
  | [] => 1
  | n :: sizes => n * boxCount sizes

/-- The multi-index of row-major offset `k` in a tensor of shape `shape` (inverse of `flatIndex`
for `k` below `boxCount shape`). -/
def unflatIndex : List ℕ → ℕ → List ℕ
  | [], _ => []
  | _ :: shape, k => (k / boxCount shape) :: unflatIndex shape (k % boxCount shape)

/-! ## Coordinates -/

/-- Coordinate `n` of `idx` (outermost is `0`); `0` past the end. -/
def coord : List ℕ → ℕ → ℕ
  | [], _ => 0
  | i :: _, 0 => i
  | _ :: t, n + 1 => coord t n

/-- `idx` with coordinate `n` replaced by `v` (unchanged when `n` is past the end). -/
def setAt : ℕ → ℕ → List ℕ → List ℕ
  | _, _, [] => []
  | 0, v, _ :: t => v :: t
  | n + 1, v, i :: t => i :: setAt n v t

/-- `idx` with `v` inserted as coordinate `n`, moving the later ones up (appended when `n` is past
the end). -/
def insertAt : ℕ → ℕ → List ℕ → List ℕ
  | 0, v, l => v :: l
  | _ + 1, v, [] => [v]
  | n + 1, v, i :: t => i :: insertAt n v t

/-- `idx` without coordinate `n` (unchanged when `n` is past the end). -/
def eraseAt : ℕ → List ℕ → List ℕ
  | _, [] => []
  | 0, _ :: t => t
  | n + 1, i :: t => i :: eraseAt n t

/-- The first `n` coordinates of `idx` (all of them if there are fewer). -/
def takeFront : ℕ → List ℕ → List ℕ
  | 0, _ => []
  | _ + 1, [] => []
  | n + 1, i :: t => i :: takeFront n t

/-- `idx` without its first `n` coordinates. -/
def dropFront : ℕ → List ℕ → List ℕ
  | 0, l => l
  | _ + 1, [] => []
  | n + 1, _ :: t => dropFront n t

/-- The coordinates of `idx` at the positions `positions`, in that order (a permutation's index
map). -/
def pickCoords (idx : List ℕ) : List ℕ → List ℕ
  | [] => []
  | m :: ms => coord idx m :: pickCoords idx ms

/-- `idx` with a `0` coordinate inserted at each of `positions`, which must be ascending: the index
map of `squeeze`. -/
def insertZeros : List ℕ → List ℕ → List ℕ
  | [], idx => idx
  | d :: positions, idx => insertZeros positions (insertAt d 0 idx)

/-- Whether `p` is one of `dims`. -/
def memIdx (p : ℕ) : List ℕ → Bool
  | [] => false
  | d :: dims => (p == d) || memIdx p dims

/-- The index that an operand of shape `shape` is read at under broadcasting, given coordinates
already aligned to the right (`bcastIndex` drops the extra leading ones): a coordinate of a size-`1`
dim reads `0`, any other is kept. -/
def bcastAux : List ℕ → List ℕ → List ℕ
  | [], _ => []
  | _ :: _, [] => []
  | s :: shape, i :: idx => (if s = 1 then 0 else i) :: bcastAux shape idx

/-- Broadcasting: the index of an operand of shape `shape` read for result index `idx` (torch's
rules: align on the right, drop the result's extra leading coordinates, read size-`1` dims at `0`).
-/
def bcastIndex (shape idx : List ℕ) : List ℕ :=
  bcastAux shape (dropFront (listLength idx - listLength shape) idx)

/-- The walk behind `reduceIndex`: position `p` of the input index is the next reduced coordinate
when `p ∈ dims`, else the next coordinate of the result index (skipping the result's size-`1`
placeholder of a reduced dim when `keep`). `fuel` is the number of positions left. -/
def reduceIndexAux : ℕ → ℕ → List ℕ → Bool → List ℕ → List ℕ → List ℕ
  | 0, _, _, _, _, _ => []
  | fuel + 1, p, dims, keep, idx, red =>
    if memIdx p dims then
      coord red 0 ::
        reduceIndexAux fuel (p + 1) dims keep (if keep then dropFront 1 idx else idx)
          (dropFront 1 red)
    else
      coord idx 0 :: reduceIndexAux fuel (p + 1) dims keep (dropFront 1 idx) red

/-- The input index of a reduction over the ascending positions `dims` of a rank-`rank` input: the
result index `idx` (with size-`1` placeholders at `dims` when `keep`, as torch's `keepdim`) merged
with the reduced coordinates `red` (one per entry of `dims`, in order). -/
def reduceIndex (rank : ℕ) (dims : List ℕ) (keep : Bool) (idx red : List ℕ) : List ℕ :=
  reduceIndexAux rank 0 dims keep idx red

/-- The entries of `x` that a reduction over `dims` combines into its result entry `idx`, as a
function of the reduced coordinates. -/
def fiber (rank : ℕ) (dims : List ℕ) (keep : Bool) (x : Tensor) (idx : List ℕ) :
    List ℕ → ℝ :=
  fun red => x (reduceIndex rank dims keep idx red)

/-- The entries of `x` that share the first `lead` coordinates of `idx`, as a function of the
trailing coordinates (the row that `layer_norm` and `rms_norm` normalise). -/
def trailing (lead : ℕ) (x : Tensor) (idx : List ℕ) : List ℕ → ℝ :=
  fun t => x (takeFront lead idx ++ t)

/-- A tensor index read from a tensor entry: the floor of `v` as a natural number (`0` for negative
`v`). Index tensors hold integer-valued reals, so this is the index itself when it is non-negative;
torch raises an error on negative or out-of-range indices, which the task's value ranges exclude. -/
def toIndex (v : ℝ) : ℕ :=
  Nat.floor v

/-! ## Sums, means and extrema over boxes -/

/-- `∑` of `f r` over all `r` in the box `sizes` (`r` has one coordinate per size, each below it);
`f []` for the empty list of sizes. -/
def boxSum : List ℕ → (List ℕ → ℝ) → ℝ
  | [], f => f []
  | n :: sizes, f => ∑ k ∈ Finset.range n, boxSum sizes (fun r => f (k :: r))

/-- The arithmetic mean of `f` over the box `sizes`. An empty box gives `0` (`x / 0 = 0` in `ℝ`;
torch gives NaN). -/
def boxMean (sizes : List ℕ) (f : List ℕ → ℝ) : ℝ :=
  boxSum sizes f / (boxCount sizes : ℝ)

/-- The biased variance (divisor `boxCount sizes`) of `f` over the box `sizes`. -/
def boxVar (sizes : List ℕ) (f : List ℕ → ℝ) : ℝ :=
  boxMean sizes (fun r => (f r - boxMean sizes f) ^ 2)

/-- The maximum of `f 0, …, f (n - 1)`; `f 0` for `n = 0` (a junk value: torch raises an error on
an empty reduction). -/
def rangeMax (f : ℕ → ℝ) : ℕ → ℝ
  | 0 => f 0
  | 1 => f 0
  | n + 2 => max (rangeMax f (n + 1)) (f (n + 1))

/-- The minimum of `f 0, …, f (n - 1)`; `f 0` for `n = 0` (junk, as for `rangeMax`). -/
def rangeMin (f : ℕ → ℝ) : ℕ → ℝ
  | 0 => f 0
  | 1 => f 0
  | n + 2 => min (rangeMin f (n + 1)) (f (n + 1))

/-- The maximum of `f` over the box `sizes`, dim by dim. -/
def boxMax : List ℕ → (List ℕ → ℝ) → ℝ
  | [], f => f []
  | n :: sizes, f => rangeMax (fun k => boxMax sizes (fun r => f (k :: r))) n

/-- The minimum of `f` over the box `sizes`, dim by dim. -/
def boxMin : List ℕ → (List ℕ → ℝ) → ℝ
  | [], f => f []
  | n :: sizes, f => rangeMin (fun k => boxMin sizes (fun r => f (k :: r))) n

/-- The first `k < n` at which `f k` is maximal (`0` for `n = 0`): a later index wins only when it
is strictly greater, as torch's `argmax` returns the first maximum. -/
def rangeArgMax (f : ℕ → ℝ) : ℕ → ℕ
  | 0 => 0
  | 1 => 0
  | n + 2 =>
    let k := rangeArgMax f (n + 1)
    if f k < f (n + 1) then n + 1 else k

/-- The first `k < n` at which `f k` is minimal (`0` for `n = 0`), as torch's `argmin`. -/
def rangeArgMin (f : ℕ → ℝ) : ℕ → ℕ
  | 0 => 0
  | 1 => 0
  | n + 2 =>
    let k := rangeArgMin f (n + 1)
    if f (n + 1) < f k then n + 1 else k

/-- The tensor entry at `idx` of a concatenation: the part that coordinate `c` (along `dim`) falls
in, read at `c` minus the sizes of the parts before it. `parts` pairs each part's size along `dim`
with the part; `0` past the last part. -/
def catAt (dim : ℕ) (idx : List ℕ) : ℕ → List (ℕ × Tensor) → ℝ
  | _, [] => 0
  | c, (n, x) :: rest => if c < n then x (setAt dim c idx) else catAt dim idx (c - n) rest

/-- Entry `idx` of part `c` of a stack (`0` past the last part). -/
def stackAt (idx : List ℕ) : ℕ → List Tensor → ℝ
  | _, [] => 0
  | 0, x :: _ => x idx
  | c + 1, _ :: rest => stackAt idx c rest

end Larkc

end
