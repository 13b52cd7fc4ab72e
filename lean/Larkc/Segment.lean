import Larkc.Machine

/-!
# Segments and their composition

A kernel is a concatenation of segments, `K = seg₁ ++ seg₂ ++ seg₃`, which holds by `rfl` for the
generated phase lists. A proof of equivalence gives each segment a Hoare-style lemma from invariant
`Inv_{k-1}` to `Inv_k` (each relating buffers to an intermediate of the reference's graph);
`Hoare.seq` and `Hoare.loop` compose them into a statement about the whole kernel. Safety (race
freedom, bounds) composes phase by phase with `raceFreeRun_append` and `inBoundsRun_append`.
-/

noncomputable section

namespace Larkc

/-- Running `seg` from any memory satisfying `pre` leaves a memory satisfying `post`. -/
def Hoare (pre : Mem → Prop) (seg : List Phase) (post : Mem → Prop) : Prop :=
  ∀ m, pre m → post (runAll seg m)

/-- Sequential composition: a segment from `P` to `Q` followed by one from `Q` to `R` goes from `P`
to `R`. -/
theorem Hoare.seq {P Q R : Mem → Prop} {a b : List Phase} (h₁ : Hoare P a Q) (h₂ : Hoare Q b R) :
    Hoare P (a ++ b) R := by
  intro m hm
  rw [runAll_append]
  exact h₂ _ (h₁ m hm)

/-- Weakening: a stronger precondition and a weaker postcondition. -/
theorem Hoare.mono {P P' Q Q' : Mem → Prop} {a : List Phase} (h : Hoare P a Q)
    (hp : ∀ m, P' m → P m) (hq : ∀ m, Q m → Q' m) : Hoare P' a Q' := by
  intro m hm
  exact hq _ (h m (hp m hm))

/-- The phases of a loop whose body (a list of phases) depends on the iteration number:
`body 0 ++ body 1 ++ … ++ body (n - 1)`. -/
def loopPhases (body : ℕ → List Phase) : ℕ → List Phase
  | 0 => []
  | n + 1 => loopPhases body n ++ body n

/-- The loop rule: if iteration `k` takes `inv k` to `inv (k + 1)` for every `k < n`, the `n`
iterations take `inv 0` to `inv n`. -/
theorem Hoare.loop (inv : ℕ → Mem → Prop) (body : ℕ → List Phase) (n : ℕ)
    (h : ∀ k, k < n → Hoare (inv k) (body k) (inv (k + 1))) :
    Hoare (inv 0) (loopPhases body n) (inv n) := by
  induction n with
  | zero =>
    intro m hm
    exact hm
  | succ n ih =>
    have h₁ : Hoare (inv 0) (loopPhases body n) (inv n) :=
      ih (fun k hk => h k (Nat.lt_succ_of_lt hk))
    exact Hoare.seq h₁ (h n (Nat.lt_succ_self n))

/-- The phases of a loop run one iteration at a time. -/
theorem loopPhases_succ (body : ℕ → List Phase) (n : ℕ) :
    loopPhases body (n + 1) = loopPhases body n ++ body n := rfl

end Larkc
