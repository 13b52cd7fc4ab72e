import Larkc.Tensor

/-!
# The machine model

A GPU launch as larkc's Lean lowering sees it: a list of *phases*, each the code every thread runs
between two synchronisation points (a block barrier, or a warp-synchronous exchange such as a
shuffle, which the lowering turns into a phase of its own).

* Memory is `Mem := Loc → ℝ`: global buffers, per-block shared arrays, per-thread local arrays and
  per-thread registers (values that live across a phase boundary). Values are exact reals: floating
  point rounding is outside the model (see `docs/trusted-base.md`). Offsets are integers, so a
  negative offset is a location too, and the in-bounds predicate rejects it.
* Within a phase every thread starts from the memory before the phase (snapshot semantics) and runs
  its code sequentially on a `TState`: its view of memory (the snapshot with its own writes applied),
  the locations it wrote, read and updated atomically, and its atomic contributions.
* `Phase.run` merges the threads' final states: a written location takes its writer's value, an
  unwritten one keeps its value, and atomic contributions of all threads are added.
* When a phase is race free (`Phase.RaceFree`: no thread writes what another reads or writes, and
  locations updated atomically are only updated atomically), snapshot semantics computes what every
  interleaving of the threads computes; this is the standard footprint argument, and the reason the
  race-freedom theorems are part of every verdict.

`runAll (a ++ b) = runAll b ∘ runAll a` (`runAll_append`) is the composition lemma the segmentation
lemmas of `Larkc.Segment` build on; `Phase.run_of_writer` and `Phase.run_of_unwritten` say what a phase
does to one location.
-/

noncomputable section

open scoped Classical

namespace Larkc

/-- A memory location. Buffer, array and register numbers are assigned by the generated code, which
documents them. -/
inductive Loc where
  /-- Element `i` of global buffer `buf`, counted in elements of the buffer's scalar type. -/
  | glob (buf : ℕ) (i : ℤ)
  /-- Element `i` of shared array `arr` of block `blk`. -/
  | shr (blk : ℕ) (arr : ℕ) (i : ℤ)
  /-- Element `i` of local array `arr` of thread `tid` of block `blk`. -/
  | lcl (blk : ℕ) (tid : ℕ) (arr : ℕ) (i : ℤ)
  /-- Register `r` of thread `tid` of block `blk` (a value kept across a phase boundary). -/
  | reg (blk : ℕ) (tid : ℕ) (r : ℕ)
  deriving DecidableEq

/-- The memory: a real value at every location. -/
abbrev Mem := Loc → ℝ

/-- A thread's state while it runs its code in one phase. -/
structure TState where
  /-- What the thread sees: the memory before the phase with the thread's own writes applied. -/
  view : Mem
  /-- The locations the thread has written in this phase. -/
  wrote : Set Loc
  /-- The locations the thread has read in this phase. -/
  read : Set Loc
  /-- The locations the thread has updated atomically in this phase. -/
  atom : Set Loc
  /-- The total the thread has added atomically to each location in this phase. -/
  adds : Loc → ℝ
  /-- The locations the thread has updated with an atomic maximum in this phase. -/
  maxed : Set Loc
  /-- The largest value the thread has offered to each location in `maxed`. -/
  mx : Loc → ℝ
  /-- Every assertion the thread has checked in this phase held (a failing one traps the launch). -/
  ok : Prop

/-- The state a thread starts a phase in: it sees `m` and has touched nothing. -/
def TState.init (m : Mem) : TState :=
  { view := m, wrote := ∅, read := ∅, atom := ∅, adds := fun _ => 0, maxed := ∅, mx := fun _ => 0,
    ok := True }

/-- The value the thread sees at `l` (pair it with `TState.note` to record the read). -/
def TState.get (s : TState) (l : Loc) : ℝ := s.view l

/-- Record that the thread read `l`. -/
def TState.note (s : TState) (l : Loc) : TState :=
  { s with read := insert l s.read }

/-- The thread writes `v` to `l`: its view changes at `l` and `l` joins its written set. -/
def TState.put (s : TState) (l : Loc) (v : ℝ) : TState :=
  { s with view := Function.update s.view l v, wrote := insert l s.wrote }

/-- The thread adds `v` to `l` atomically (`atomicAdd` whose old value is not used). The addition
takes effect at the end of the phase, summed over all threads. -/
def TState.add (s : TState) (l : Loc) (v : ℝ) : TState :=
  { s with atom := insert l s.atom, adds := Function.update s.adds l (s.adds l + v) }

/-- The thread offers `v` to `l` with an atomic maximum (`atomicMax` whose old value is not used): at
the end of the phase `l` holds the largest of its value and every offer. -/
def TState.amax (s : TState) (l : Loc) (v : ℝ) : TState :=
  { s with
    atom := insert l s.atom,
    maxed := insert l s.maxed,
    mx := Function.update s.mx l (if l ∈ s.maxed then max (s.mx l) v else v) }

/-- The thread checks the assertion `c` (`assert(c)`, a Triton `tl.device_assert`, a tensor descriptor's
alignment check): the run stays the same, and `ok` records whether `c` held. The `asserts` theorem of
a kernel with assertions says every check holds, so the launch does not trap. -/
def TState.check (s : TState) (c : Prop) : TState :=
  { s with ok := s.ok ∧ c }

/-- One phase: the threads taking part and the code each runs. -/
structure Phase where
  /-- The threads taking part, as (block, thread) pairs (thread numbers are linear within a block). -/
  threads : List (ℕ × ℕ)
  /-- The code of thread `t` of block `b`: from its initial state to its final state. -/
  prog : ℕ → ℕ → TState → TState

/-- The final state of thread `t` of block `b` when phase `p` runs from memory `m`. -/
def Phase.final (p : Phase) (m : Mem) (b t : ℕ) : TState :=
  p.prog b t (TState.init m)

/-- The sum of all threads' atomic contributions to `l` when `p` runs from `m`. -/
def Phase.addsAt (p : Phase) (m : Mem) (l : Loc) : ℝ :=
  (p.threads.map (fun (bt : ℕ × ℕ) => (p.final m bt.1 bt.2).adds l)).sum

/-- `a` raised to every atomic maximum the threads of `p` run from `m` offer to `l` (`a` itself when
none does). -/
def Phase.maxAt (p : Phase) (m : Mem) (l : Loc) (a : ℝ) : ℝ :=
  p.threads.foldl
    (fun (acc : ℝ) (bt : ℕ × ℕ) =>
      if l ∈ (p.final m bt.1 bt.2).maxed then max acc ((p.final m bt.1 bt.2).mx l) else acc)
    a

/-- A fold that skips every element does nothing. -/
theorem foldl_ite_skip {α : Type} (P : α → Prop) (g : ℝ → α → ℝ) (ts : List α) (a : ℝ)
    (h : ∀ x ∈ ts, ¬ P x) : ts.foldl (fun (acc : ℝ) (x : α) => if P x then g acc x else acc) a = a := by
  induction ts generalizing a with
  | nil => rfl
  | cons x xs ih =>
    have hx : ¬ P x := h x (by simp)
    simp only [List.foldl_cons, if_neg hx]
    exact ih a (fun y hy => h y (by simp [hy]))

/-- No atomic maximum at `l`: `maxAt` leaves the value alone. -/
theorem Phase.maxAt_of_none (p : Phase) (m : Mem) (l : Loc) (a : ℝ)
    (h : ∀ bt ∈ p.threads, l ∉ (p.final m bt.1 bt.2).maxed) : p.maxAt m l a = a :=
  foldl_ite_skip (α := ℕ × ℕ) (fun bt => l ∈ (p.final m bt.1 bt.2).maxed)
    (fun acc bt => max acc ((p.final m bt.1 bt.2).mx l)) p.threads a h

/-- The memory after phase `p` runs from `m`: a location some thread wrote takes that thread's value
(race freedom makes the writer unique), any other keeps its value; atomic contributions are added,
then atomic maxima applied. -/
def Phase.run (p : Phase) (m : Mem) : Mem := fun l =>
  p.maxAt m l
    ((if h : ∃ bt ∈ p.threads, l ∈ (p.final m bt.1 bt.2).wrote then
        (p.final m (Classical.choose h).1 (Classical.choose h).2).view l
      else m l) + p.addsAt m l)

/-- A location no thread of the phase writes (or raises atomically) keeps its value, plus the atomic
contributions. -/
theorem Phase.run_of_unwritten (p : Phase) (m : Mem) (l : Loc)
    (hw : ∀ bt ∈ p.threads, l ∉ (p.final m bt.1 bt.2).wrote)
    (hmax : ∀ bt ∈ p.threads, l ∉ (p.final m bt.1 bt.2).maxed) :
    p.run m l = m l + p.addsAt m l := by
  have h : ¬ ∃ bt ∈ p.threads, l ∈ (p.final m bt.1 bt.2).wrote :=
    fun ⟨bt, hbt, hl⟩ => hw bt hbt hl
  have hm := p.maxAt_of_none m l (m l + p.addsAt m l) hmax
  first
    | (simp only [Phase.run, dif_neg h]; exact hm)
    | (simp only [Phase.run, dif_neg h, hm]; done)
    | simp [Phase.run, h, hm]

/-- A location written by exactly one thread of the phase (and raised atomically by none) takes that
thread's value, plus the atomic contributions. -/
theorem Phase.run_of_writer (p : Phase) (m : Mem) (l : Loc) (b t : ℕ)
    (hbt : (b, t) ∈ p.threads) (hl : l ∈ (p.final m b t).wrote)
    (huniq : ∀ bt ∈ p.threads, l ∈ (p.final m bt.1 bt.2).wrote → bt = (b, t))
    (hmax : ∀ bt ∈ p.threads, l ∉ (p.final m bt.1 bt.2).maxed) :
    p.run m l = (p.final m b t).view l + p.addsAt m l := by
  have h : ∃ bt ∈ p.threads, l ∈ (p.final m bt.1 bt.2).wrote := ⟨(b, t), hbt, hl⟩
  have hc := Classical.choose_spec h
  have heq : Classical.choose h = (b, t) := huniq _ hc.1 hc.2
  rw [← p.maxAt_of_none m l ((p.final m b t).view l + p.addsAt m l) hmax]
  first
    | (simp only [Phase.run, dif_pos h, heq]; done)
    | simp [Phase.run, h, heq]
    | (simp only [Phase.run]; rw [dif_pos h, heq])

/-- Threads `x` and `y` of phase `p` run from `m` do not conflict: neither writes a location the other
reads, writes or updates atomically, and neither reads a location the other updates atomically. -/
def Phase.Disjoint (p : Phase) (m : Mem) (x y : ℕ × ℕ) : Prop :=
  (∀ l ∈ (p.final m x.1 x.2).wrote,
      l ∉ (p.final m y.1 y.2).wrote ∧ l ∉ (p.final m y.1 y.2).read ∧ l ∉ (p.final m y.1 y.2).atom) ∧
  (∀ l ∈ (p.final m y.1 y.2).wrote, l ∉ (p.final m x.1 x.2).read ∧ l ∉ (p.final m x.1 x.2).atom) ∧
  (∀ l ∈ (p.final m x.1 x.2).atom, l ∉ (p.final m y.1 y.2).read) ∧
  (∀ l ∈ (p.final m y.1 y.2).atom, l ∉ (p.final m x.1 x.2).read)

/-- No two distinct threads of the same block conflict in phase `p` run from `m`. -/
def Phase.RaceFreeWithinBlocks (p : Phase) (m : Mem) : Prop :=
  ∀ x ∈ p.threads, ∀ y ∈ p.threads, x ≠ y → x.1 = y.1 → p.Disjoint m x y

/-- No two threads of different blocks conflict in phase `p` run from `m`. -/
def Phase.RaceFreeAcrossBlocks (p : Phase) (m : Mem) : Prop :=
  ∀ x ∈ p.threads, ∀ y ∈ p.threads, x.1 ≠ y.1 → p.Disjoint m x y

/-- Phase `p` run from `m` is race free: each thread takes part once and no two threads conflict. -/
def Phase.RaceFree (p : Phase) (m : Mem) : Prop :=
  p.threads.Nodup ∧ p.RaceFreeWithinBlocks m ∧ p.RaceFreeAcrossBlocks m

/-- Every location a thread of `p` reads, writes or updates atomically when run from `m` is `valid`
(the generated `valid` says which offsets of each buffer and array exist). -/
def Phase.InBounds (p : Phase) (m : Mem) (valid : Loc → Prop) : Prop :=
  ∀ x ∈ p.threads,
    (∀ l ∈ (p.final m x.1 x.2).read, valid l) ∧
    (∀ l ∈ (p.final m x.1 x.2).wrote, valid l) ∧
    (∀ l ∈ (p.final m x.1 x.2).atom, valid l)

/-- Every thread of `p` run from `m` passes every assertion it checks. -/
def Phase.AssertsHold (p : Phase) (m : Mem) : Prop :=
  ∀ x ∈ p.threads, (p.final m x.1 x.2).ok

/-- Run phases one after another. -/
def runAll (ps : List Phase) (m : Mem) : Mem :=
  ps.foldl (fun (acc : Mem) (p : Phase) => p.run acc) m

/-- No phases: nothing changes. -/
theorem runAll_nil (m : Mem) : runAll [] m = m := rfl

/-- Running `p :: ps` runs `p`, then `ps`. -/
theorem runAll_cons (p : Phase) (ps : List Phase) (m : Mem) :
    runAll (p :: ps) m = runAll ps (p.run m) := rfl

/-- The composition lemma: running `a ++ b` runs `a`, then `b`. -/
theorem runAll_append (a b : List Phase) (m : Mem) : runAll (a ++ b) m = runAll b (runAll a m) := by
  simp only [runAll, List.foldl_append]

/-- Every phase of `ps`, run from the memory its predecessors leave, is race free. -/
def RaceFreeRun : List Phase → Mem → Prop
  | [], _ => True
  | p :: ps, m => p.RaceFree m ∧ RaceFreeRun ps (p.run m)

/-- Every phase of `ps`, run from the memory its predecessors leave, accesses only valid locations. -/
def InBoundsRun (valid : Loc → Prop) : List Phase → Mem → Prop
  | [], _ => True
  | p :: ps, m => p.InBounds m valid ∧ InBoundsRun valid ps (p.run m)

/-- Every phase of `ps`, run from the memory its predecessors leave, passes its assertions. -/
def AssertsRun : List Phase → Mem → Prop
  | [], _ => True
  | p :: ps, m => p.AssertsHold m ∧ AssertsRun ps (p.run m)

/-- Race freedom of `a ++ b` is race freedom of `a`, then of `b` from where `a` leaves memory. -/
theorem raceFreeRun_append (a b : List Phase) (m : Mem) :
    RaceFreeRun (a ++ b) m ↔ RaceFreeRun a m ∧ RaceFreeRun b (runAll a m) := by
  induction a generalizing m with
  | nil => simp [RaceFreeRun, runAll]
  | cons p ps ih => simp [RaceFreeRun, runAll_cons, ih, and_assoc]

/-- In-bounds access of `a ++ b` is in-bounds access of `a`, then of `b` from where `a` leaves memory. -/
theorem inBoundsRun_append (valid : Loc → Prop) (a b : List Phase) (m : Mem) :
    InBoundsRun valid (a ++ b) m ↔ InBoundsRun valid a m ∧ InBoundsRun valid b (runAll a m) := by
  induction a generalizing m with
  | nil => simp [InBoundsRun, runAll]
  | cons p ps ih => simp [InBoundsRun, runAll_cons, ih, and_assoc]

/-- The locations the threads of block `b` write in any phase of `ps`, each phase run from the memory
its predecessors leave. -/
def blockWrites : List Phase → Mem → ℕ → Set Loc
  | [], _, _ => ∅
  | p :: ps, m, b =>
    {l | ∃ t, (b, t) ∈ p.threads ∧ l ∈ (p.final m b t).wrote} ∪ blockWrites ps (p.run m) b

/-- The locations the threads of block `b` read in any phase of `ps`. -/
def blockReads : List Phase → Mem → ℕ → Set Loc
  | [], _, _ => ∅
  | p :: ps, m, b =>
    {l | ∃ t, (b, t) ∈ p.threads ∧ l ∈ (p.final m b t).read} ∪ blockReads ps (p.run m) b

/-- The locations the threads of block `b` update atomically in any phase of `ps`. -/
def blockAtoms : List Phase → Mem → ℕ → Set Loc
  | [], _, _ => ∅
  | p :: ps, m, b =>
    {l | ∃ t, (b, t) ∈ p.threads ∧ l ∈ (p.final m b t).atom} ∪ blockAtoms ps (p.run m) b

/-- Blocks do not conflict over the whole run: barriers order the phases of one block only, so a
location one block writes may not be read, written or updated atomically by another block in any
phase, and a location one block updates atomically may not be read by another. (Shared arrays and
registers belong to one block, so only global memory can conflict.) With `RaceFreeRun` for the
threads of each block, this makes the model's phase-by-phase schedule of the whole grid compute
what every schedule of the blocks computes. -/
def RaceFreeAcrossBlocksRun (ps : List Phase) (m : Mem) : Prop :=
  ∀ b₁ b₂ : ℕ, b₁ ≠ b₂ →
    (∀ l ∈ blockWrites ps m b₁,
      l ∉ blockWrites ps m b₂ ∧ l ∉ blockReads ps m b₂ ∧ l ∉ blockAtoms ps m b₂) ∧
    (∀ l ∈ blockAtoms ps m b₁, l ∉ blockReads ps m b₂)

/-- The threads of a launch of `g` blocks of `n` threads, as (block, thread) pairs, block-major. -/
def launch (g n : ℕ) : List (ℕ × ℕ) :=
  ((List.range g).map (fun b => (List.range n).map (fun t => (b, t)))).flatten

/-- Global buffer `buf` read as a flat array: the function from offsets to values a kernel sees. -/
def globBuf (m : Mem) (buf : ℕ) : ℤ → ℝ := fun i => m (Loc.glob buf i)

end Larkc
