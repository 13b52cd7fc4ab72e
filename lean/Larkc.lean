import Larkc.Tensor
import Larkc.Torch
import Larkc.Machine
import Larkc.Cuda
import Larkc.Block
import Larkc.Segment

/-!
# larkc's Lean library

The operator semantics larkc's generated Lean builds on: tensors as index functions
(`Larkc.Tensor`), the PyTorch operations of the spec IR (`Larkc.Torch`), the GPU machine model
(`Larkc.Machine`), the CUDA operations used by translated thread code (`Larkc.Cuda`), the blocks
of values of translated Triton programs (`Larkc.Block`) and the
segmentation lemmas that compose per-segment proofs into whole-kernel theorems (`Larkc.Segment`).
-/
