"""Triton ``ModelNew`` candidates: the task from the launch ``ModelNew.forward`` makes.

A Triton candidate launches its ``@triton.jit`` kernel from Python (``kernel[grid](x, out, n,
BLOCK_SIZE=1024)`` in a wrapper that forward calls). Unlike a ``load_inline`` candidate, whose host code
is C++ that larkc reads, this host code is Python that only running explains; and running it needs no
compiler or GPU: launches are intercepted, recorded and not run (:mod:`larkc.frontends.triton.launcher`).
So the candidate file is imported (its module-level code runs: ``@triton.jit`` compiles nothing until a
launch), ``ModelNew`` is built for each shape instance (``get_init_inputs()`` with its sizes scaled as the
inputs are) and its forward is called on CPU tensors of that instance; the recorded launches are
generalised to shape expressions by ``task_from_launcher``.

During that call the tensors say they are on a CUDA device (``x.is_cuda``, ``x.device.type == "cuda"``,
``.cuda()`` and ``.to("cuda")`` are the tensor itself, ``device="cuda"`` allocates on the CPU), as they
are when KernelBench's harness calls forward; nothing of this outlives the call (a torch function mode).
The mode also watches what forward computes with PyTorch: the task describes the Triton launch only,
so a tensor PyTorch computes in forward (``x = self.linear(x)``, a cast or a transposed copy) would be
read by the kernel as unwritten scratch; forward doing so is refused at its line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from larkc.errors import InternalError, LarkcError, Span, Stage
from larkc.frontends.triton.launcher import task_from_launcher
from larkc.tasks import Task, shape_expr
from larkc.tasks.user_code import USER_CODE_ERRORS, describe_user_exception

__all__ = ["is_triton_candidate", "triton_candidate_task"]


def is_triton_candidate(source: str) -> bool:
    """Whether a candidate's text launches Triton kernels rather than a ``load_inline`` extension."""
    return "@triton.jit" in source and "load_inline" not in source


def _import(path: Path) -> Any:
    name = f"larkc_candidate_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LarkcError(f"cannot load {path}", stage=Stage.FRONTEND)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except USER_CODE_ERRORS as e:
        raise _located(e, path, "importing the candidate") from None
    return module


def _located(e: BaseException, path: Path, what: str) -> LarkcError:
    tb = e.__traceback__
    line = 0
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    if isinstance(e, LarkcError):
        return e
    span = Span(str(path), line, 1, line, 2) if line else None
    return LarkcError(f"{what} {describe_user_exception(e)}", span, stage=Stage.FRONTEND)


#: torch functions that allocate a tensor whose contents the kernel writes (the task's outputs and scratch)
_ALLOCATIONS = frozenset(
    {"empty", "empty_like", "zeros", "zeros_like", "empty_strided", "new_empty", "new_zeros", "new_empty_strided"}
)


def _is_cuda_device(device: object) -> bool:
    import torch

    try:
        return isinstance(device, str | torch.device | int) and (
            isinstance(device, int) or torch.device(device).type == "cuda"
        )
    except (RuntimeError, ValueError):
        return False


@contextlib.contextmanager
def _cuda_like(path: Path) -> Iterator[None]:
    """Within it, CPU tensors pass for CUDA ones, and a tensor computed by PyTorch (not allocated, not a
    view) is a located error: see the module's docstring."""
    import torch
    from torch.overrides import TorchFunctionMode

    base = torch._C.TensorBase.__dict__
    is_cuda, device = base["is_cuda"], base["device"]
    fake = torch.device("cuda", 0)
    owned = path.resolve()

    def storages(values: Any) -> set[int]:
        out = set()
        for v in values:
            if isinstance(v, torch.Tensor):
                out.add(v.untyped_storage().data_ptr())
            elif isinstance(v, list | tuple):
                out |= storages(v)
        return out

    def refuse(func: Any) -> LarkcError:
        line = 0
        for frame in traceback.extract_stack():
            if Path(frame.filename).resolve() == owned and frame.lineno is not None:
                line = frame.lineno
        name = getattr(func, "__name__", str(func))
        return LarkcError(
            f"ModelNew.forward computes {name} with PyTorch besides its Triton launch: not supported for Triton"
            " candidates yet (the task describes the kernel's launch only)",
            Span(str(path), line, 1, line, 2) if line else None,
            stage=Stage.FRONTEND,
        )

    class CudaLike(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None
        ) -> Any:
            owner = getattr(func, "__self__", None)
            if owner is is_cuda:
                return True
            if owner is device:
                return fake
            kw = dict(kwargs or {})
            if _is_cuda_device(kw.get("device")):
                kw["device"] = "cpu"
            if func is torch.Tensor.cuda:
                return args[0]
            if func is torch.Tensor.to:
                args = tuple("cpu" if _is_cuda_device(a) and not isinstance(a, int) else a for a in args)
            name = getattr(func, "__name__", "")
            if name == "__setitem__" or (name.endswith("_") and not name.startswith("_") and name != "requires_grad_"):
                raise refuse(func)  # x.mul_(2), out.copy_(x), x[i] = v: PyTorch writing a tensor the kernel reads
            result = func(*args, **kw)
            if isinstance(result, torch.Tensor) and name not in _ALLOCATIONS and result.numel() > 0:
                given = storages(args) | storages(kw.values())
                if result.untyped_storage().data_ptr() not in given:
                    raise refuse(func)
            return result

    available = torch.cuda.is_available
    torch.cuda.is_available = lambda: True
    try:
        with CudaLike():
            yield
    finally:
        torch.cuda.is_available = available


def triton_candidate_task(
    path: Path,
    reference: Path,
    inputs: dict[str, str],
    symbols: Sequence[str],
    instances: Sequence[dict[str, int]],
    constraints: Sequence[str],
    init_args: Sequence[object] | Callable[[Mapping[str, int]], Sequence[object]],
    *,
    weights: Mapping[str, str] | None = None,
    bound: Mapping[str, str] | None = None,
    param_paths: Mapping[str, str] | None = None,
) -> Task:
    """The task of the one kernel launch that ``ModelNew.forward`` of the Triton candidate ``path`` makes.

    ``inputs`` are forward's tensors as task tensors (``"f32[batch_size, dim]"``), in order. ``init_args``
    are ``ModelNew``'s arguments, or for a shape instance, its arguments at that instance (its sizes
    scaled as the inputs are). ``weights`` are the task inputs standing for ``Model``'s parameters (after
    ``inputs``; ``param_paths`` gives each one's path in ``Model``), and ``bound`` the one each parameter
    of ``ModelNew`` equals (its path to the input's name): forward runs with those parameters set to the
    inputs' tensors, so that the kernel's weight arguments are found to be these inputs.
    """
    import torch

    from larkc.tasks import TensorSpec
    from larkc.tasks.shape_expr import evaluate

    module = _import(path)
    model_new = getattr(module, "ModelNew", None)
    if model_new is None:
        raise LarkcError("no class ModelNew in the candidate file", Span(str(path), 1, 1, 1, 2), stage=Stage.FRONTEND)
    weights, bound = dict(weights or {}), dict(bound or {})
    specs = {k: TensorSpec.of(v, f"input {k!r}") for k, v in {**inputs, **weights}.items()}
    name = path.parent.name if path.stem == "model_new" else path.stem
    # the launch's integers are explained by the simplest shape expression that fits every instance it is
    # recorded on: a few instances fit wrong ones by chance (cdiv(b, 4) for cdiv(b * d, 1024) on three),
    # so it is recorded on more, sizes apart from each other, and the task keeps the instances asked for
    probes = [*instances]
    for k, factor in enumerate((2, 3, 5)):
        probes.append({s: v * factor + 2 * k + 1 for s, v in instances[0].items()})
    probes.append({s: 3 + 2 * i for i, s in enumerate(symbols)})

    def shapes(inst: Mapping[str, int]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(int(evaluate(d, dict(inst))) for d in spec.shape) for spec in specs.values())

    models: dict[tuple[tuple[int, ...], ...], Any] = {}

    def construct(inst: Mapping[str, int]) -> Any:
        key = shapes(inst)
        if key not in models:
            arguments = init_args(inst) if callable(init_args) else init_args
            try:
                with torch.no_grad():
                    models[key] = model_new(*arguments)
            except (LarkcError, InternalError):
                raise
            except USER_CODE_ERRORS as e:
                raise _located(e, path, "constructing ModelNew") from None
            # every tensor ModelNew holds must be a task input (a kernel reading another would read a buffer
            # the task does not describe); batch norm's step count is read by no kernel
            held = {p for p, _ in models[key].named_parameters()}
            held |= {b for b, _ in models[key].named_buffers() if not b.endswith("num_batches_tracked")}
            if not held <= set(bound):
                unread = ", ".join(sorted(held - set(bound)))
                raise LarkcError(
                    f"ModelNew's parameters and buffers as constructed ({', '.join(sorted(held))}) are not those"
                    f" read from its __init__ (unread: {unread})",
                    Span(str(path), 1, 1, 1, 2),
                    stage=Stage.FRONTEND,
                )
        return models[key]

    by_shapes = {shapes(p): p for p in reversed(probes)}
    n_inputs = len(inputs)

    def forward(*args: Any) -> Any:
        inst = by_shapes.get(tuple(tuple(int(d) for d in a.shape) for a in args))
        model = construct(inst if inst is not None else probes[0])
        with torch.no_grad():  # ModelNew's parameters are the task's inputs standing for Model's
            for param_path, input_name in bound.items():
                tensor = args[n_inputs + list(weights).index(input_name)]
                buffers = dict(model.named_buffers())
                if param_path in buffers:
                    buffers[param_path].data = tensor
                else:
                    model.get_parameter(param_path).data = tensor
        try:
            with _cuda_like(path):
                return model(*args[:n_inputs])
        except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
            raise
        except USER_CODE_ERRORS as e:
            raise _located(e, path, "ModelNew.forward") from None

    task: Task = task_from_launcher(
        forward,
        inputs={**inputs, **weights},
        symbols=symbols,
        instances=probes,
        reference=str(reference),
        name=name,
        probe=False,  # its own probes above; ModelNew is built for each instance's sizes, not the launcher's
    )
    limits = tuple(shape_expr(c, "constraint") for c in constraints)
    return dataclasses.replace(
        task, constraints=limits, instances=tuple(dict(i) for i in instances), params=dict(param_paths or {})
    )
