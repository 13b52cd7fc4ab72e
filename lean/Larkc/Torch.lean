import Larkc.Tensor

/-!
# The spec operations of larkc over exact reals

One definition per operation of larkc's spec IR (`larkc.reference.spec.SpecOp`), with the meaning
that `larkc.reference.numeric` and `larkc.reference.symbolic` give it, read over `ℝ`:

* Arithmetic is exact. Floating-point rounding is outside the model, so every cast between
  floating-point formats, and from integers to floats, is the identity (`castReal`); the tolerance
  of a task is what absorbs rounding (see `docs/trusted-base.md`).
* `ℝ` has junk values where torch has `inf` or NaN: `x / 0 = 0`, `Real.sqrt` of a negative number
  is `0`, `Real.log 0 = 0` and `Real.log x = Real.log |x|`, `Real.rpow` of a negative base is
  `exp (log x * y) * cos (y * π)`. Each definition's docstring says which it meets; the lowering of
  a spec (`larkc.lower.spec`) records the side conditions under which the spec means what torch
  computes.
* Composite operations are the mathematical formulas: softmax and log-softmax without the max
  shift (equal in `ℝ`; the shift invariance follows from `Real.exp_sub` and `Finset.sum_div`),
  layer norm with the biased variance, GELU with `erf` or with the tanh approximation.
* Broadcasting is explicit: the lowering wraps an operand whose shape differs from the result's in
  `bcast` with the operand's shape, so that every elementwise operation below reads its operands at
  the result's index. Python scalars are constant tensors (`scalar`).
* Shapes, dims and sizes are explicit `ℕ` arguments; reductions take the list of reduced positions
  (ascending) and their sizes. Comparisons and logical operations give `0`/`1` and read a bool
  operand as true when it is nonzero. Index tensors are read with `Larkc.toIndex`.

The names follow torch's except where a torch name is a Lean keyword or a root-level Lean name
that the body would need (`whereCond`, `absolute`, `logicalAnd`, `logicalOr`, `logicalNot`,
`vectorNorm`).
-/

noncomputable section

namespace Larkc

namespace Torch

/-! ## Operands -/

/-- A constant tensor: every entry is `c`. A Python scalar operand of the reference. -/
def scalar (c : ℝ) : Tensor :=
  fun _ => c

/-- Broadcasting (torch's implicit broadcasting, `torch.broadcast_to`): operand `x`, of shape
`shape`, read at a result index: aligned on the right, size-`1` dims read at `0`. -/
def bcast (shape : List ℕ) (x : Tensor) : Tensor :=
  fun idx => x (bcastIndex shape idx)

/-! ## Elementwise arithmetic -/

/-- `torch.add` (`a + b`). -/
def add (a b : Tensor) : Tensor :=
  fun idx => a idx + b idx

/-- `torch.sub` (`a - b`). -/
def sub (a b : Tensor) : Tensor :=
  fun idx => a idx - b idx

/-- `torch.mul` (`a * b`). -/
def mul (a b : Tensor) : Tensor :=
  fun idx => a idx * b idx

/-- `torch.div` (`a / b`, true division). Junk: `x / 0 = 0` in `ℝ` (torch: `±inf` or NaN). -/
def div (a b : Tensor) : Tensor :=
  fun idx => a idx / b idx

/-- `torch.floor_divide` (`a // b`, `torch.div(a, b, rounding_mode="floor")`): `⌊a / b⌋`, rounding
toward `-∞` as Python does (not toward `0` as C's `/` on integers). Junk: `⌊x / 0⌋ = 0` in `ℝ`
(torch: `±inf` or NaN for floats, an error for integers). -/
def floorDivide (a b : Tensor) : Tensor :=
  fun idx => ((Int.floor (a idx / b idx) : ℤ) : ℝ)

/-- `torch.pow` (`a ** b`) with a tensor or non-integer exponent: `Real.rpow`. Junk: for a negative
base `Real.rpow x y = exp (log x * y) * cos (y * π)` (torch: NaN unless `y` is an integer), and
`0 ^ y = 0` for `y < 0` (torch: `inf`). `0 ^ 0 = 1` in both. -/
def pow (a b : Tensor) : Tensor :=
  fun idx => Real.rpow (a idx) (b idx)

/-- `torch.pow` (`a ** n`) with a non-negative integer exponent `n`: the monoid power, exact for
every base. -/
def powNat (n : ℕ) (a : Tensor) : Tensor :=
  fun idx => a idx ^ n

/-- `torch.pow` (`a ** n`) with a negative integer exponent `n`: the group power `(a ^ (-n))⁻¹`.
Junk: `0 ^ n = 0` for `n < 0` (torch: `inf`). -/
def powInt (n : ℤ) (a : Tensor) : Tensor :=
  fun idx => a idx ^ n

/-- `torch.maximum` (elementwise `max a b`; NaN propagation is outside the model). -/
def maximum (a b : Tensor) : Tensor :=
  fun idx => max (a idx) (b idx)

/-- `torch.minimum` (elementwise `min a b`). -/
def minimum (a b : Tensor) : Tensor :=
  fun idx => min (a idx) (b idx)

/-! ## Comparisons and logic (results `0`/`1`) -/

/-- `torch.eq` (`a == b`): `1` where equal, else `0`. -/
def eq (a b : Tensor) : Tensor :=
  fun idx => if a idx = b idx then 1 else 0

/-- `torch.ne` (`a != b`): `1` where different, else `0`. -/
def ne (a b : Tensor) : Tensor :=
  fun idx => if a idx ≠ b idx then 1 else 0

/-- `torch.lt` (`a < b`): `1` or `0`. -/
def lt (a b : Tensor) : Tensor :=
  fun idx => if a idx < b idx then 1 else 0

/-- `torch.le` (`a <= b`): `1` or `0`. -/
def le (a b : Tensor) : Tensor :=
  fun idx => if a idx ≤ b idx then 1 else 0

/-- `torch.gt` (`a > b`): `1` or `0`. -/
def gt (a b : Tensor) : Tensor :=
  fun idx => if b idx < a idx then 1 else 0

/-- `torch.ge` (`a >= b`): `1` or `0`. -/
def ge (a b : Tensor) : Tensor :=
  fun idx => if b idx ≤ a idx then 1 else 0

/-- `torch.logical_and` (`&` on bool tensors): `1` where both are nonzero, else `0`. -/
def logicalAnd (a b : Tensor) : Tensor :=
  fun idx => if a idx ≠ 0 ∧ b idx ≠ 0 then 1 else 0

/-- `torch.logical_or` (`|` on bool tensors): `1` where either is nonzero, else `0`. -/
def logicalOr (a b : Tensor) : Tensor :=
  fun idx => if a idx ≠ 0 ∨ b idx ≠ 0 then 1 else 0

/-- `torch.logical_not` (`~` on a bool tensor): `1` where `x` is zero, else `0`. -/
def logicalNot (x : Tensor) : Tensor :=
  fun idx => if x idx = 0 then 1 else 0

/-! ## Floating-point classification (results `0`/`1`)

Every entry of a tensor here is a real number: the lowering refuses infinities and NaN (a spec whose
values are not all real has no Lean form), so these are constant. Junk: where torch computes an
infinity or NaN from finite operands (`x / 0`, `Real.log 0`), `ℝ` has a finite junk value and these
say finite, while torch says otherwise. -/

/-- `torch.isinf`: `0`, since no real number is infinite. -/
def isinf (_x : Tensor) : Tensor :=
  fun _ => 0

/-- `torch.isnan`: `0`, since no real number is NaN. -/
def isnan (_x : Tensor) : Tensor :=
  fun _ => 0

/-- `torch.isfinite`: `1`, since every real number is finite. -/
def isfinite (_x : Tensor) : Tensor :=
  fun _ => 1

/-! ## Selection -/

/-- `torch.where(cond, a, b)`: `a` where `cond` is nonzero (true), else `b`. -/
def whereCond (cond a b : Tensor) : Tensor :=
  fun idx => if cond idx ≠ 0 then a idx else b idx

/-- `torch.clamp(x, lo, hi)`: `min (max x lo) hi` (so `hi` wins when `lo > hi`, as in torch). -/
def clamp (x lo hi : Tensor) : Tensor :=
  fun idx => min (max (x idx) (lo idx)) (hi idx)

/-- `torch.clamp(x, min=lo)`: `max x lo`. -/
def clampMin (x lo : Tensor) : Tensor :=
  fun idx => max (x idx) (lo idx)

/-- `torch.clamp(x, max=hi)`: `min x hi`. -/
def clampMax (x hi : Tensor) : Tensor :=
  fun idx => min (x idx) (hi idx)

/-! ## Elementwise functions -/

/-- `torch.neg` (`-x`). -/
def neg (x : Tensor) : Tensor :=
  fun idx => -(x idx)

/-- `torch.abs` (`|x|`). -/
def absolute (x : Tensor) : Tensor :=
  fun idx => abs (x idx)

/-- `torch.reciprocal` (`1 / x`). Junk: `1 / 0 = 0` in `ℝ` (torch: `inf`). -/
def reciprocal (x : Tensor) : Tensor :=
  fun idx => 1 / x idx

/-- `torch.exp`: `Real.exp`. -/
def exp (x : Tensor) : Tensor :=
  fun idx => Real.exp (x idx)

/-- `torch.log` (natural logarithm): `Real.log`. Junk: `Real.log 0 = 0` (torch: `-inf`) and
`Real.log x = Real.log |x|` for `x < 0` (torch: NaN). -/
def log (x : Tensor) : Tensor :=
  fun idx => Real.log (x idx)

/-- `torch.sqrt`: `Real.sqrt`. Junk: `Real.sqrt x = 0` for `x < 0` (torch: NaN). -/
def sqrt (x : Tensor) : Tensor :=
  fun idx => Real.sqrt (x idx)

/-- `torch.rsqrt`: `1 / Real.sqrt x`. Junk: `0` for `x ≤ 0` (torch: `inf` at `0`, NaN below). -/
def rsqrt (x : Tensor) : Tensor :=
  fun idx => 1 / Real.sqrt (x idx)

/-- `torch.tanh`: `Real.tanh`. -/
def tanh (x : Tensor) : Tensor :=
  fun idx => Real.tanh (x idx)

/-- `torch.erf`: `Real.erf`. -/
def erf (x : Tensor) : Tensor :=
  fun idx => Real.erf (x idx)

/-- `torch.sin`: `Real.sin`. -/
def sin (x : Tensor) : Tensor :=
  fun idx => Real.sin (x idx)

/-- `torch.cos`: `Real.cos`. -/
def cos (x : Tensor) : Tensor :=
  fun idx => Real.cos (x idx)

/-- `torch.sigmoid`: `1 / (1 + exp (-x))`. -/
def sigmoid (x : Tensor) : Tensor :=
  fun idx => 1 / (1 + Real.exp (-(x idx)))

/-- `torch.relu`: `max x 0`. -/
def relu (x : Tensor) : Tensor :=
  fun idx => max (x idx) 0

/-- `torch.nn.functional.gelu(x, approximate="none")`: `x / 2 * (1 + erf (x / √2))`, written as
`1 / 2 * x * (1 + erf (x * (1 / √2)))` like larkc's numeric rule. -/
def gelu (x : Tensor) : Tensor :=
  fun idx => (1 / 2 : ℝ) * x idx * (1 + Real.erf (x idx * (1 / Real.sqrt 2)))

/-- `torch.nn.functional.gelu(x, approximate="tanh")`:
`1 / 2 * x * (1 + tanh (√(2 / π) * (x + 0.044715 * x ^ 3)))`, with `0.044715` the decimal
`44715 / 1000000` that torch's source writes. -/
def geluTanh (x : Tensor) : Tensor :=
  fun idx =>
    (1 / 2 : ℝ) * x idx *
      (1 + Real.tanh (Real.sqrt (2 / Real.pi) * (x idx + (44715 / 1000000 : ℝ) * (x idx) ^ 3)))

/-- `torch.nn.functional.silu`: `x * sigmoid x`, written `x / (1 + exp (-x))` (equal in `ℝ`). -/
def silu (x : Tensor) : Tensor :=
  fun idx => x idx / (1 + Real.exp (-(x idx)))

/-- `torch.nn.functional.softplus(x, beta, threshold)`: `x` where `beta * x > threshold`, else
`log (1 + exp (beta * x)) / beta`. Junk: `beta = 0` divides by zero (`0` in `ℝ`); the lowering
records `beta ≠ 0` as a side condition. -/
def softplus (beta threshold : ℝ) (x : Tensor) : Tensor :=
  fun idx =>
    if threshold < beta * x idx then x idx else Real.log (1 + Real.exp (beta * x idx)) / beta

/-- A cast between floating-point formats or from an integer or bool type to a floating-point one
(`.float()`, `.half()`, `.to(dtype)`): the identity, since arithmetic is exact and rounding to the
target format is outside the model. -/
def castReal (x : Tensor) : Tensor :=
  x

/-- A cast to `bool` (`.bool()`, `.to(torch.bool)`): `1` where `x` is nonzero, else `0`. -/
def castBool (x : Tensor) : Tensor :=
  fun idx => if x idx ≠ 0 then 1 else 0

/-- A cast from a floating-point to an integer type (`.long()`, `.int()`): truncation toward zero.
Overflow of the integer type is outside the model. -/
def castTrunc (x : Tensor) : Tensor :=
  fun idx => if 0 ≤ x idx then (Nat.floor (x idx) : ℝ) else -(Nat.floor (-(x idx)) : ℝ)

/-! ## Reductions

A reduction of a rank-`rank` tensor over the ascending positions `dims`, of sizes `sizes`, with
`keep` as torch's `keepdim`. With no dims it is the identity (larkc's convention; torch would reduce
over every dim). -/

/-- `torch.sum(x, dims, keepdim)`. -/
def sum (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => boxSum sizes (fiber rank dims keep x idx)

/-- `torch.mean(x, dims, keepdim)`: the sum divided by the number of reduced entries. Junk: an empty
reduction gives `0` (torch: NaN). -/
def mean (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => boxMean sizes (fiber rank dims keep x idx)

/-- `torch.amax(x, dims, keepdim)` (also the values of `torch.max(x, dim)`). Junk: an empty
reduction gives an entry of `x` (torch raises an error). -/
def amax (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => boxMax sizes (fiber rank dims keep x idx)

/-- `torch.amin(x, dims, keepdim)` (also the values of `torch.min(x, dim)`). Junk as `amax`. -/
def amin (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => boxMin sizes (fiber rank dims keep x idx)

/-- `torch.argmax(x, dim, keepdim)`: the first index of a maximum along `dim` (of size `size`), as a
real. -/
def argmax (rank dim size : ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => (rangeArgMax (fun k => x (reduceIndex rank [dim] keep idx [k])) size : ℝ)

/-- `torch.argmin(x, dim, keepdim)`: the first index of a minimum along `dim`, as a real. -/
def argmin (rank dim size : ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => (rangeArgMin (fun k => x (reduceIndex rank [dim] keep idx [k])) size : ℝ)

/-- `torch.argmax(x)` (no dim): the first row-major offset of a maximum of `x`, of shape `shape`,
at every index (so with or without `keepdim`). -/
def argmaxAll (shape : List ℕ) (x : Tensor) : Tensor :=
  fun _ => (rangeArgMax (fun k => x (unflatIndex shape k)) (boxCount shape) : ℝ)

/-- `torch.argmin(x)` (no dim): the first row-major offset of a minimum of `x`. -/
def argminAll (shape : List ℕ) (x : Tensor) : Tensor :=
  fun _ => (rangeArgMin (fun k => x (unflatIndex shape k)) (boxCount shape) : ℝ)

/-- `torch.var(x, dims, correction, keepdim)`: `∑ (x - mean) ^ 2 / (N - correction)` with `N` the
number of reduced entries. Junk: `N = correction` divides by zero (`0`; torch: `inf` or NaN). -/
def var (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (correction : ℝ) (x : Tensor) :
    Tensor :=
  fun idx =>
    boxSum sizes (fun r => (fiber rank dims keep x idx r -
        boxMean sizes (fiber rank dims keep x idx)) ^ 2) /
      ((boxCount sizes : ℝ) - correction)

/-- `torch.std(x, dims, correction, keepdim)`: `Real.sqrt` of `var`. -/
def std (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (correction : ℝ) (x : Tensor) :
    Tensor :=
  fun idx => Real.sqrt (Larkc.Torch.var rank dims sizes keep correction x idx)

/-- `torch.linalg.vector_norm(x, ord, dims, keepdim)` for a finite `ord` other than `0`, `1`, `2`:
`(∑ |x| ^ ord) ^ (1 / ord)` with `Real.rpow` (the sum is non-negative, so no junk for `ord > 0`;
for `ord < 0` a zero entry gives `0 ^ ord = 0` where torch has `inf`). -/
def vectorNorm (ord : ℝ) (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) :
    Tensor :=
  fun idx =>
    Real.rpow (boxSum sizes (fun r => Real.rpow (abs (fiber rank dims keep x idx r)) ord)) (1 / ord)

/-- `torch.linalg.vector_norm` with `ord = 2`: `Real.sqrt (∑ x * x)`. -/
def vectorNorm2 (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx =>
    Real.sqrt (boxSum sizes (fun r => fiber rank dims keep x idx r * fiber rank dims keep x idx r))

/-- `torch.linalg.vector_norm` with `ord = 1`: `∑ |x|`. -/
def vectorNorm1 (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => boxSum sizes (fun r => abs (fiber rank dims keep x idx r))

/-- `torch.linalg.vector_norm` with `ord = inf`: the maximum of `|x|`. -/
def vectorNormInf (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => boxMax sizes (fun r => abs (fiber rank dims keep x idx r))

/-- `torch.linalg.vector_norm` with `ord = -inf`: the minimum of `|x|`. -/
def vectorNormNegInf (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => boxMin sizes (fun r => abs (fiber rank dims keep x idx r))

/-- `torch.linalg.vector_norm` with `ord = 0`: the number of nonzero entries. -/
def vectorNormZero (rank : ℕ) (dims sizes : List ℕ) (keep : Bool) (x : Tensor) : Tensor :=
  fun idx => boxSum sizes (fun r => if fiber rank dims keep x idx r ≠ 0 then 1 else 0)

/-! ## Normalisations -/

/-- `torch.softmax(x, dim)` along `dim` (of size `size`): `exp x / ∑ exp x`, without torch's max
shift (equal in `ℝ`). The denominator is positive for `size > 0`. -/
def softmax (dim size : ℕ) (x : Tensor) : Tensor :=
  fun idx => Real.exp (x idx) / (∑ k ∈ Finset.range size, Real.exp (x (setAt dim k idx)))

/-- `torch.log_softmax(x, dim)`: `x - log (∑ exp x)`, without the max shift (equal in `ℝ`). -/
def logSoftmax (dim size : ℕ) (x : Tensor) : Tensor :=
  fun idx => x idx - Real.log (∑ k ∈ Finset.range size, Real.exp (x (setAt dim k idx)))

/-- `torch.nn.functional.layer_norm(x, normShape, weight, bias, eps)` over the trailing dims
`normShape` (after the first `lead` dims): `(x - mean) / sqrt (var + eps) * weight + bias` with the
biased variance; `weight` and `bias` have shape `normShape` (the lowering passes `scalar 1` and
`scalar 0` for absent ones). Junk: `var + eps ≤ 0` gives `0`; the lowering records `0 < eps`. -/
def layerNorm (lead : ℕ) (normShape : List ℕ) (eps : ℝ) (x weight bias : Tensor) : Tensor :=
  fun idx =>
    (x idx - boxMean normShape (trailing lead x idx)) /
        Real.sqrt (boxVar normShape (trailing lead x idx) + eps) * weight (dropFront lead idx) +
      bias (dropFront lead idx)

/-- `torch.nn.functional.rms_norm(x, normShape, weight, eps)`: `x / sqrt (mean (x ^ 2) + eps) *
weight` over the trailing dims `normShape` (`scalar 1` for an absent weight). The lowering records
`0 < eps`. -/
def rmsNorm (lead : ℕ) (normShape : List ℕ) (eps : ℝ) (x weight : Tensor) : Tensor :=
  fun idx =>
    x idx / Real.sqrt (boxMean normShape (fun t => (trailing lead x idx t) ^ 2) + eps) *
      weight (dropFront lead idx)

/-! ## Linear algebra -/

/-- `torch.matmul` of two vectors of size `k`: their dot product, at every index (a 0-d result). -/
def dot (k : ℕ) (a b : Tensor) : Tensor :=
  fun _ => ∑ j ∈ Finset.range k, a [j] * b [j]

/-- `torch.mm` (also `torch.matmul` of two matrices): `[m, k] @ [k, n]`. -/
def mm (k : ℕ) (a b : Tensor) : Tensor :=
  fun idx => ∑ j ∈ Finset.range k, a [coord idx 0, j] * b [j, coord idx 1]

/-- `torch.bmm`: `[batch, m, k] @ [batch, k, n]`. -/
def bmm (k : ℕ) (a b : Tensor) : Tensor :=
  fun idx =>
    ∑ j ∈ Finset.range k, a [coord idx 0, coord idx 1, j] * b [coord idx 0, j, coord idx 2]

/-- `torch.matmul` of batched matrices: the result has `batch` batch coordinates, broadcast to the
operands' batch shapes `batchA` and `batchB`, then a row and a column; `k` is the inner size. -/
def matmul (batch k : ℕ) (batchA batchB : List ℕ) (a b : Tensor) : Tensor :=
  fun idx =>
    ∑ j ∈ Finset.range k,
      a (bcastIndex batchA (takeFront batch idx) ++ [coord idx batch, j]) *
        b (bcastIndex batchB (takeFront batch idx) ++ [j, coord idx (batch + 1)])

/-- `torch.matmul` of (batched) matrices `a` and a vector `b` of size `k`: the result has `batch`
batch coordinates and a row. -/
def matmulVec (batch k : ℕ) (batchA : List ℕ) (a b : Tensor) : Tensor :=
  fun idx =>
    ∑ j ∈ Finset.range k,
      a (bcastIndex batchA (takeFront batch idx) ++ [coord idx batch, j]) * b [j]

/-- `torch.matmul` of a vector `a` of size `k` and (batched) matrices `b`: the result has `batch`
batch coordinates and a column. -/
def vecMatmul (batch k : ℕ) (batchB : List ℕ) (a b : Tensor) : Tensor :=
  fun idx =>
    ∑ j ∈ Finset.range k,
      a [j] * b (bcastIndex batchB (takeFront batch idx) ++ [j, coord idx batch])

/-- `torch.nn.functional.linear(x, weight, bias)`: `x @ weight.T + bias`, for `x` with `lead`
leading dims and `k` input features, `weight` of shape `[out, k]` and `bias` of shape `[out]`. -/
def linear (lead k : ℕ) (x weight bias : Tensor) : Tensor :=
  fun idx =>
    (∑ j ∈ Finset.range k, x (takeFront lead idx ++ [j]) * weight [coord idx lead, j]) +
      bias [coord idx lead]

/-- `torch.nn.functional.linear(x, weight)` without a bias: `x @ weight.T`. -/
def linearNoBias (lead k : ℕ) (x weight : Tensor) : Tensor :=
  fun idx => ∑ j ∈ Finset.range k, x (takeFront lead idx ++ [j]) * weight [coord idx lead, j]

/-! ## Layout (values, not views) -/

/-- `torch.transpose(x, dim0, dim1)`: coordinates `dim0` and `dim1` swapped. -/
def transpose (dim0 dim1 : ℕ) (x : Tensor) : Tensor :=
  fun idx => x (setAt dim0 (coord idx dim1) (setAt dim1 (coord idx dim0) idx))

/-- `torch.permute(x, dims)`, given the inverse permutation `inv` (`inv[dims[j]] = j`): input
coordinate `m` is result coordinate `inv[m]`. -/
def permute (inv : List ℕ) (x : Tensor) : Tensor :=
  fun idx => x (pickCoords idx inv)

/-- `torch.reshape` (and `view`, `flatten`, `unflatten`) from shape `src` to shape `dst`: the entry
at the same row-major offset. -/
def reshape (src dst : List ℕ) (x : Tensor) : Tensor :=
  fun idx => x (unflatIndex src (flatIndex dst idx))

/-- `torch.unsqueeze(x, dim)`: a size-`1` dim inserted at `dim`. -/
def unsqueeze (dim : ℕ) (x : Tensor) : Tensor :=
  fun idx => x (eraseAt dim idx)

/-- `torch.squeeze(x, dims)`: the size-`1` dims at the ascending positions `dims` removed. -/
def squeeze (dims : List ℕ) (x : Tensor) : Tensor :=
  fun idx => x (insertZeros dims idx)

/-- `Tensor.expand(shape)` (and implicit broadcasting) of an `x` of shape `shape` to a larger
shape. -/
def expand (shape : List ℕ) (x : Tensor) : Tensor :=
  fun idx => x (bcastIndex shape idx)

/-- `x[..., start:end:step, ...]` along `dim` (`narrow`, `split`, `chunk`): result coordinate `c`
reads `start + step * c`. The end only bounds the result's shape. -/
def slice (dim start step : ℕ) (x : Tensor) : Tensor :=
  fun idx => x (setAt dim (start + step * coord idx dim) idx)

/-- `torch.select(x, dim, index)` (`x[index]`, `unbind`): the sub-tensor at `index` along `dim`,
which is removed. -/
def select (dim index : ℕ) (x : Tensor) : Tensor :=
  fun idx => x (insertAt dim index idx)

/-- `torch.cat(parts, dim)`: `parts` pairs each operand's size along `dim` with the operand. -/
def cat (dim : ℕ) (parts : List (ℕ × Tensor)) : Tensor :=
  fun idx => catAt dim idx (coord idx dim) parts

/-- `torch.stack(parts, dim)`: the operands along a new dim `dim`. -/
def stack (dim : ℕ) (parts : List Tensor) : Tensor :=
  fun idx => stackAt (eraseAt dim idx) (coord idx dim) parts

/-! ## Indexing by tensors of indices -/

/-- `torch.index_select(x, dim, index)` for a 1-D `index`: result coordinate `c` along `dim` reads
`x` at `index[c]`. Out-of-range indices (a torch error) read outside `x`'s shape. -/
def indexSelect (dim : ℕ) (x index : Tensor) : Tensor :=
  fun idx => x (setAt dim (toIndex (index [coord idx dim])) idx)

/-- `torch.gather(x, dim, index)`: `out[i] = x[i with coordinate dim replaced by index[i]]`. -/
def gather (dim : ℕ) (x index : Tensor) : Tensor :=
  fun idx => x (setAt dim (toIndex (index idx)) idx)

/-- `torch.scatter_add(x, dim, index, src)` (also `index_add`, with `index` laid along `dim`): `x` plus,
for every position `p` of `index` (of shape `ishape`), `src p` added where `p` with coordinate `dim`
replaced by `index p` is the result index. Junk: an out-of-range or negative index (a torch error)
lands outside the shape or at `0` (`toIndex`). -/
def scatterAdd (dim : ℕ) (ishape : List ℕ) (x index src : Tensor) : Tensor :=
  fun idx => x idx + boxSum ishape (fun p => if setAt dim (toIndex (index p)) p = idx then src p else 0)

/-- `torch.nn.functional.embedding(indices, weight)` for `indices` of rank `rank`: one row of the
2-D `weight` per index. -/
def embedding (rank : ℕ) (weight indices : Tensor) : Tensor :=
  fun idx => weight [toIndex (indices (takeFront rank idx)), coord idx rank]

/-! ## Scans and losses -/

/-- `torch.cumsum(x, dim)`: the inclusive prefix sum along `dim`. -/
def cumsum (dim : ℕ) (x : Tensor) : Tensor :=
  fun idx => ∑ k ∈ Finset.range (coord idx dim + 1), x (setAt dim k idx)

/-- `torch.nn.functional.cross_entropy(logits, target, reduction="none", ignore_index)` with class
indices: at each target index, `0` where the target is `ignore`, else
`log (∑ exp logits) - logits[target]` (the negated log-softmax at the target class, without the
max shift). The classes are along `classDim` (`0` for 1-D logits, else `1`), `classes` of them. -/
def crossEntropyLoss (classDim classes : ℕ) (ignore : ℝ) (logits target : Tensor) : Tensor :=
  fun idx =>
    if target idx = ignore then 0
    else
      Real.log (∑ k ∈ Finset.range classes, Real.exp (logits (insertAt classDim k idx))) -
        logits (insertAt classDim (toIndex (target idx)) idx)

/-- `cross_entropy(..., reduction="sum")`: the sum of `crossEntropyLoss` over the target's shape
`targetShape` (a 0-d result). -/
def crossEntropySum (classDim classes : ℕ) (ignore : ℝ) (targetShape : List ℕ)
    (logits target : Tensor) : Tensor :=
  fun _ => boxSum targetShape (crossEntropyLoss classDim classes ignore logits target)

/-- `cross_entropy(..., reduction="mean")`: the sum of the losses divided by the number of targets
that are not `ignore`. Junk: all targets ignored gives `0` (torch: NaN). -/
def crossEntropyMean (classDim classes : ℕ) (ignore : ℝ) (targetShape : List ℕ)
    (logits target : Tensor) : Tensor :=
  fun _ =>
    boxSum targetShape (crossEntropyLoss classDim classes ignore logits target) /
      boxSum targetShape (fun t => if target t = ignore then 0 else 1)

/-! ## Creation and masks -/

/-- `torch.full(shape, value)` (`zeros`, `ones`, `*_like`): `value` everywhere; the shape is the
node's. -/
def full (value : ℝ) : Tensor :=
  fun _ => value

/-- `torch.arange(start, end, step)`: entry `c` is `start + step * c`; the end only bounds the
shape. -/
def arange (start step : ℝ) : Tensor :=
  fun idx => start + step * (coord idx 0 : ℝ)

/-- `torch.tril(x, diagonal)` of a tensor whose last two dims are at positions `row` and `row + 1`:
`x` where `col - row ≤ diagonal`, else `0`. -/
def tril (row : ℕ) (diagonal : ℤ) (x : Tensor) : Tensor :=
  fun idx => if (coord idx (row + 1) : ℤ) - (coord idx row : ℤ) ≤ diagonal then x idx else 0

/-- `torch.triu(x, diagonal)`: `x` where `col - row ≥ diagonal`, else `0`. -/
def triu (row : ℕ) (diagonal : ℤ) (x : Tensor) : Tensor :=
  fun idx => if diagonal ≤ (coord idx (row + 1) : ℤ) - (coord idx row : ℤ) then x idx else 0

end Torch

end Larkc

end
