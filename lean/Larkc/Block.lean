import Larkc.Machine

/-!
# Blocks: the values of Triton programs

A block-level (Triton) kernel runs one *program* per grid point, and its values may be blocks:
tensors of a static shape. larkc's lowering runs every program as one thread of a block of its own
(thread `0` of block `pid`, `Larkc.launch G 1`), in a single phase: nothing in a program waits for
another, so the phase machinery of `Larkc.Machine` (snapshot semantics, footprints, race freedom)
applies unchanged, with blocks of programs in place of blocks of threads.

A block is a function from the row-major (flat) index of an element to its value (`Blk α := ℕ → α`).
The shape is static and lives in the generated code, which passes the sizes each operation needs:

* `reshape` keeps the row-major order, so it is the identity on `Blk` and the lowering prints none;
* `bcast n inner` stretches one axis of size 1 to `n`, `inner` being the product of the sizes after it
  (a broadcast over several axes is a composition);
* `reduceSum n inner` (and `Prod`, `Max`, `Min`) folds the axis of size `n` away, `along` naming the
  `r`-th element along it; `scanSum n inner` (and the others, `…Rev` from the end) keeps the axis,
  `lineAt` naming the elements of an element's line; `dot k n` is the matrix product of an `m × k`
  and a `k × n` block; `reindex f` moves elements (a permutation of the axes);
* elementwise operations are `map`, `map2` and `map3` of the scalar operation;
* a reduction or scan with a user's combine function (`tl.reduce`, `tl.associative_scan`) is generated
  in place as a `List.foldl` of the function's body over `along`/`lineAt`, in the order the simulator
  and Triton's interpreter use (a left fold from the first element).

Indices past a block's size carry values no generated code reads. Memory is accessed through blocks
of locations (`globs`): a masked load (`load`) reads the enabled elements and takes `other` elsewhere,
and `noteAll` records the reads it makes; `putAll`, `addAll` and `amaxAll` write, add atomically or
raise atomically, element by element in row-major order (a later element wins a location two elements
of one store name, as in the simulator). All of them are folds of the thread operations of
`Larkc.TState`, so every lemma about a phase applies to them.
-/

noncomputable section

open scoped Classical

namespace Larkc.Block

/-- A block of values of type `α`: element `i` in row-major order is the value at `i`. -/
abbrev Blk (α : Type) : Type := ℕ → α

/-- `tl.arange(start, end)`: element `i` is `start + i` (the generated code reads `i < end - start`). -/
def arange (start : ℤ) : Blk ℤ := fun i => start + (i : ℤ)

/-- Every element is `v` (a scalar splat to a block). -/
def splat {α : Type} (v : α) : Blk α := fun _ => v

/-- An elementwise operation of one operand. -/
def map {α β : Type} (f : α → β) (x : Blk α) : Blk β := fun i => f (x i)

/-- An elementwise operation of two operands of one shape. -/
def map2 {α β γ : Type} (f : α → β → γ) (x : Blk α) (y : Blk β) : Blk γ := fun i => f (x i) (y i)

/-- An elementwise operation of three operands of one shape (`tl.where`, `fma`). -/
def map3 {α β γ δ : Type} (f : α → β → γ → δ) (x : Blk α) (y : Blk β) (z : Blk γ) : Blk δ :=
  fun i => f (x i) (y i) (z i)

/-- Axis of size 1 stretched to size `n`, where `inner` is the product of the sizes after the axis:
element `i` of the result is the element of `x` with the same coordinates, the stretched one `0`. -/
def bcast {α : Type} (n inner : ℕ) (x : Blk α) : Blk α := fun i => x (i / (n * inner) * inner + i % inner)

/-- The elements of `x` rearranged: element `i` of the result is element `f i` of `x` (a permutation of
the axes, with `f` computed from the shapes by the lowering). -/
def reindex {α : Type} (f : ℕ → ℕ) (x : Blk α) : Blk α := fun i => x (f i)

/-- For a reduction over an axis of size `n` with `inner` elements after it: the `r`-th element along
the axis of the line that element `o` of the result (the shape without the axis) stands for. -/
def along {α : Type} (n inner : ℕ) (x : Blk α) (o r : ℕ) : α :=
  x (o / inner * (n * inner) + r * inner + o % inner)

/-- `tl.sum` along an axis of size `n` (`inner` elements after it). -/
def reduceSum {α : Type} [AddCommMonoid α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => ∑ r ∈ Finset.range n, along n inner x o r

/-- The product along an axis of size `n` (`inner` elements after it). -/
def reduceProd {α : Type} [CommMonoid α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => ∏ r ∈ Finset.range n, along n inner x o r

/-- `tl.max` along an axis of size `n ≥ 1` (`inner` elements after it): a left fold of `max` from the
first element. -/
def reduceMax {α : Type} [Max α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => (List.range n).foldl (fun (acc : α) (r : ℕ) => max acc (along n inner x o r)) (along n inner x o 0)

/-- `tl.min` along an axis of size `n ≥ 1` (`inner` elements after it). -/
def reduceMin {α : Type} [Min α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => (List.range n).foldl (fun (acc : α) (r : ℕ) => min acc (along n inner x o r)) (along n inner x o 0)

/-- For a scan along an axis of size `n` with `inner` elements after it: the position of element `o`
along the axis. -/
def pos (n inner o : ℕ) : ℕ := o / inner % n

/-- For a scan along an axis of size `n` with `inner` elements after it: the `r`-th element along the
axis of the line element `o` (of the same shape) lies on. -/
def lineAt {α : Type} (n inner : ℕ) (x : Blk α) (o r : ℕ) : α :=
  x (o / (n * inner) * (n * inner) + r * inner + o % inner)

/-- `tl.cumsum`: element `o` is the sum of its line up to its position. -/
def scanSum {α : Type} [AddCommMonoid α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => ∑ r ∈ Finset.range (pos n inner o + 1), lineAt n inner x o r

/-- `tl.cumsum(reverse=True)`: element `o` is the sum of its line from its position to the end. -/
def scanSumRev {α : Type} [AddCommMonoid α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => ∑ r ∈ Finset.range (n - pos n inner o), lineAt n inner x o (pos n inner o + r)

/-- `tl.cumprod`: element `o` is the product of its line up to its position. -/
def scanProd {α : Type} [CommMonoid α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => ∏ r ∈ Finset.range (pos n inner o + 1), lineAt n inner x o r

/-- `tl.cumprod(reverse=True)`: element `o` is the product of its line from its position to the end. -/
def scanProdRev {α : Type} [CommMonoid α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => ∏ r ∈ Finset.range (n - pos n inner o), lineAt n inner x o (pos n inner o + r)

/-- The running maximum along an axis (from its start). -/
def scanMax {α : Type} [Max α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => (List.range (pos n inner o + 1)).foldl
    (fun (acc : α) (r : ℕ) => max acc (lineAt n inner x o r)) (lineAt n inner x o 0)

/-- The running maximum along an axis, from its end. -/
def scanMaxRev {α : Type} [Max α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => (List.range (n - pos n inner o)).foldl
    (fun (acc : α) (r : ℕ) => max acc (lineAt n inner x o (pos n inner o + r))) (lineAt n inner x o (pos n inner o))

/-- The running minimum along an axis (from its start). -/
def scanMin {α : Type} [Min α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => (List.range (pos n inner o + 1)).foldl
    (fun (acc : α) (r : ℕ) => min acc (lineAt n inner x o r)) (lineAt n inner x o 0)

/-- The running minimum along an axis, from its end. -/
def scanMinRev {α : Type} [Min α] (n inner : ℕ) (x : Blk α) : Blk α :=
  fun o => (List.range (n - pos n inner o)).foldl
    (fun (acc : α) (r : ℕ) => min acc (lineAt n inner x o (pos n inner o + r))) (lineAt n inner x o (pos n inner o))

/-- `tl.dot` of an `m × k` block `a` and a `k × n` block `b` (exact: the accumulation order and the
precision of the inputs are outside the model). -/
def dot (k n : ℕ) (a b : Blk ℝ) : Blk ℝ :=
  fun o => ∑ j ∈ Finset.range k, a (o / n * k + j) * b (j * n + o % n)

/-- The locations of a block of element offsets into global buffer `buf`. -/
def globs (buf : ℕ) (off : Blk ℤ) : Blk Loc := fun i => Loc.glob buf (off i)

/-- A masked load as the thread in state `s` sees memory: an enabled element reads its location, a
masked-off one takes `other` (and touches no memory). -/
def load (s : TState) (mask : Blk Prop) (loc : Blk Loc) (other : Blk ℝ) : Blk ℝ :=
  fun i => if mask i then s.get (loc i) else other i

/-- Record the reads of the enabled elements `ids` (a fold of `TState.note`). -/
def noteList (s : TState) (ids : List ℕ) (mask : Blk Prop) (loc : Blk Loc) : TState :=
  ids.foldl (fun (acc : TState) (i : ℕ) => if mask i then acc.note (loc i) else acc) s

/-- Record the reads of a masked load of `n` elements. -/
def noteAll (s : TState) (n : ℕ) (mask : Blk Prop) (loc : Blk Loc) : TState :=
  noteList s (List.range n) mask loc

/-- Store the enabled elements `ids` of `v`, in order (a fold of `TState.put`). -/
def putList (s : TState) (ids : List ℕ) (mask : Blk Prop) (loc : Blk Loc) (v : Blk ℝ) : TState :=
  ids.foldl (fun (acc : TState) (i : ℕ) => if mask i then acc.put (loc i) (v i) else acc) s

/-- A masked store of `n` elements. -/
def putAll (s : TState) (n : ℕ) (mask : Blk Prop) (loc : Blk Loc) (v : Blk ℝ) : TState :=
  putList s (List.range n) mask loc v

/-- Atomic additions of the enabled elements `ids` of `v` (a fold of `TState.add`). -/
def addList (s : TState) (ids : List ℕ) (mask : Blk Prop) (loc : Blk Loc) (v : Blk ℝ) : TState :=
  ids.foldl (fun (acc : TState) (i : ℕ) => if mask i then acc.add (loc i) (v i) else acc) s

/-- A masked `tl.atomic_add` of `n` elements whose old values are not used. -/
def addAll (s : TState) (n : ℕ) (mask : Blk Prop) (loc : Blk Loc) (v : Blk ℝ) : TState :=
  addList s (List.range n) mask loc v

/-- Atomic maxima of the enabled elements `ids` of `v` (a fold of `TState.amax`). -/
def amaxList (s : TState) (ids : List ℕ) (mask : Blk Prop) (loc : Blk Loc) (v : Blk ℝ) : TState :=
  ids.foldl (fun (acc : TState) (i : ℕ) => if mask i then acc.amax (loc i) (v i) else acc) s

/-- A masked `tl.atomic_max` of `n` elements whose old values are not used. -/
def amaxAll (s : TState) (n : ℕ) (mask : Blk Prop) (loc : Blk Loc) (v : Blk ℝ) : TState :=
  amaxList s (List.range n) mask loc v

theorem arange_apply (start : ℤ) (i : ℕ) : arange start i = start + (i : ℤ) := rfl

theorem splat_apply {α : Type} (v : α) (i : ℕ) : splat v i = v := rfl

theorem map_apply {α β : Type} (f : α → β) (x : Blk α) (i : ℕ) : map f x i = f (x i) := rfl

theorem map2_apply {α β γ : Type} (f : α → β → γ) (x : Blk α) (y : Blk β) (i : ℕ) :
    map2 f x y i = f (x i) (y i) := rfl

theorem map3_apply {α β γ δ : Type} (f : α → β → γ → δ) (x : Blk α) (y : Blk β) (z : Blk γ) (i : ℕ) :
    map3 f x y z i = f (x i) (y i) (z i) := rfl

theorem bcast_apply {α : Type} (n inner : ℕ) (x : Blk α) (i : ℕ) :
    bcast n inner x i = x (i / (n * inner) * inner + i % inner) := rfl

theorem reduceSum_apply {α : Type} [AddCommMonoid α] (n inner : ℕ) (x : Blk α) (o : ℕ) :
    reduceSum n inner x o = ∑ r ∈ Finset.range n, along n inner x o r := rfl

theorem dot_apply (k n : ℕ) (a b : Blk ℝ) (o : ℕ) :
    dot k n a b o = ∑ j ∈ Finset.range k, a (o / n * k + j) * b (j * n + o % n) := rfl

theorem globs_apply (buf : ℕ) (off : Blk ℤ) (i : ℕ) : globs buf off i = Loc.glob buf (off i) := rfl

theorem load_apply (s : TState) (mask : Blk Prop) (loc : Blk Loc) (other : Blk ℝ) (i : ℕ) :
    load s mask loc other i = if mask i then s.get (loc i) else other i := rfl

theorem noteList_nil (s : TState) (mask : Blk Prop) (loc : Blk Loc) : noteList s [] mask loc = s := rfl

theorem noteList_cons (s : TState) (i : ℕ) (ids : List ℕ) (mask : Blk Prop) (loc : Blk Loc) :
    noteList s (i :: ids) mask loc = noteList (if mask i then s.note (loc i) else s) ids mask loc := rfl

theorem putList_nil (s : TState) (mask : Blk Prop) (loc : Blk Loc) (v : Blk ℝ) :
    putList s [] mask loc v = s := rfl

theorem putList_cons (s : TState) (i : ℕ) (ids : List ℕ) (mask : Blk Prop) (loc : Blk Loc) (v : Blk ℝ) :
    putList s (i :: ids) mask loc v = putList (if mask i then s.put (loc i) (v i) else s) ids mask loc v := rfl

/-- Recording reads changes nothing the thread sees. -/
theorem noteList_view (s : TState) (ids : List ℕ) (mask : Blk Prop) (loc : Blk Loc) :
    (noteList s ids mask loc).view = s.view := by
  induction ids generalizing s with
  | nil => rfl
  | cons i ids ih =>
    rw [noteList_cons, ih]
    split_ifs <;> rfl

/-- Recording reads writes nothing. -/
theorem noteList_wrote (s : TState) (ids : List ℕ) (mask : Blk Prop) (loc : Blk Loc) :
    (noteList s ids mask loc).wrote = s.wrote := by
  induction ids generalizing s with
  | nil => rfl
  | cons i ids ih =>
    rw [noteList_cons, ih]
    split_ifs <;> rfl

end Larkc.Block
