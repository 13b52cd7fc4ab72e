import Larkc.Machine

/-!
# CUDA operations in exact arithmetic

The helpers translated thread code uses besides plain `ℤ` and `ℝ` arithmetic. Integers are
mathematical integers and floating-point values are reals: the lowering states what this rests on
(no integer overflow, which larkc's z3 prover checks; rounding outside the model) in the generated
theorems' docstrings and in `docs/trusted-base.md`. Lean's `/` on `ℤ` is Euclidean division (it
floors for a positive divisor); C's truncating division is `Larkc.Cuda.tdiv`.
-/

noncomputable section

namespace Larkc.Cuda

/-- The number of iterations of `for (i = start; i < stop; i += step)` when `0 < step`. -/
def tripUp (start stop step : ℤ) : ℕ :=
  if start < stop then ((stop - start + step - 1) / step).toNat else 0

/-- The number of iterations of `for (i = start; i > stop; i -= step)` when `0 < step`. -/
def tripDown (start stop step : ℤ) : ℕ :=
  if stop < start then ((start - stop + step - 1) / step).toNat else 0

/-- How often `x` can be halved (rounding down) before it reaches `0`, with at most `fuel` steps. -/
def halvingsAux : ℕ → ℕ → ℕ
  | 0, _ => 0
  | fuel + 1, x => if x = 0 then 0 else halvingsAux fuel (x / 2) + 1

/-- The number of iterations of `for (i = start; i > 0; i >>= 1)`: `⌊log₂ start⌋ + 1` for a positive
`start`, `0` otherwise (the fuel `start` always suffices). -/
def halvings (start : ℤ) : ℕ := halvingsAux start.toNat start.toNat

/-- A counted loop: `body` runs for `i = start, start + step, …`, `count` times, threading a state of
type `σ` (the loop-carried variables and the thread's `TState`). -/
def forLoop {σ : Type} (start step : ℤ) (count : ℕ) (init : σ) (body : ℤ → σ → σ) : σ :=
  (List.range count).foldl (fun (s : σ) (k : ℕ) => body (start + (k : ℤ) * step) s) init

/-- C's integer division of `a` by `b`, truncating toward zero (`0` when `b = 0`, where C is
undefined and the simulator reports it). -/
def tdiv (a b : ℤ) : ℤ :=
  if 0 ≤ a then (if 0 ≤ b then a / b else -(a / -b))
  else (if 0 ≤ b then -((-a) / b) else (-a) / (-b))

/-- C's `%`: the remainder of `tdiv`, which has the sign of the dividend. -/
def trem (a b : ℤ) : ℤ := a - b * tdiv a b

/-- `a << k`: `a * 2^k` (overflow is outside the model and checked by larkc's prover). -/
def shl (a k : ℤ) : ℤ := a * 2 ^ k.toNat

/-- `a >> k` for a signed `a`: an arithmetic shift, which floors `a / 2^k`. -/
def shr (a k : ℤ) : ℤ := a / 2 ^ k.toNat

/-- `a ^ b` of two non-negative integers (the lowering uses it for lane numbers only). -/
def bxor (a b : ℤ) : ℤ := (Nat.xor a.toNat b.toNat : ℤ)

/-- Lane `k` of a vector given by the list of its lanes (`0` past the end). -/
def lane : List ℝ → ℕ → ℝ
  | [], _ => 0
  | x :: _, 0 => x
  | _ :: xs, k + 1 => lane xs k

/-- The vector `xs` with lane `k` replaced by `v` (unchanged past the end). -/
def setLane : List ℝ → ℕ → ℝ → List ℝ
  | [], _, _ => []
  | _ :: xs, 0, v => v :: xs
  | x :: xs, k + 1, v => x :: setLane xs k v

/-- `rsqrtf(x)`: `1 / √x`. In ℝ, `Real.sqrt x = 0` for `x ≤ 0` and `1 / 0 = 0`, where IEEE gives
`+inf` or NaN: a proof that needs `rsqrt` must establish `0 < x`. -/
def rsqrt (x : ℝ) : ℝ := 1 / Real.sqrt x

/-- `fmaf(a, b, c)`: `a * b + c` (one rounding on the GPU; exact here). -/
def fma (a b c : ℝ) : ℝ := a * b + c

end Larkc.Cuda
