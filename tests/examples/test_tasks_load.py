"""The example corpus (examples/cuda/*/task.py and examples/pipelines/*/task.py) is well formed.

Every task loads, names a kernel that exists in its source with a binding for each parameter, has
launches that fit a GPU block for every shape instance, and a reference that, run on random inputs of
the first instance's shapes, returns tensors of the declared output shapes and dtypes. Seeded-bug
examples (folders named ``<example>_bug_<what>``) say which failure they expect; correct ones do not.
The pipelines (several launches, in-place tensors, null pointers) are checked launch by launch.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch
from torch import nn

from larkc import BufferArg, Task, load_task
from larkc.pipeline.compare import task_outputs
from larkc.tasks import FAILURE_KINDS, NullArg, TensorSpec
from larkc.tasks.shape_expr import ShapeSym

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cuda"
TASK_DIRS = sorted(p.parent for p in EXAMPLES.glob("*/task.py"))
IDS = [p.name for p in TASK_DIRS]
PIPELINES = Path(__file__).resolve().parents[2] / "examples" / "pipelines"
PIPELINE_DIRS = sorted(p.parent for p in PIPELINES.glob("*/task.py"))
PIPELINE_IDS = [p.name for p in PIPELINE_DIRS]
ALL_DIRS = TASK_DIRS + PIPELINE_DIRS
ALL_IDS = IDS + [f"pipelines/{name}" for name in PIPELINE_IDS]

#: Kernel families the corpus must cover, one folder each.
REQUIRED = {
    "vector_add", "saxpy", "relu", "gelu_tanh", "silu", "silu_and_mul", "grid_stride",
    "vector_add_float4", "half_relu", "half_scale", "row_sum_shared", "row_sum_warp",
    "softmax_three_pass", "softmax_online", "layer_norm", "rms_norm", "rms_norm_bf16",
    "matmul_naive", "matmul_tiled", "transpose_shared", "rotary_embedding", "block_scan",
    "dot_product", "abs_max",
}  # fmt: skip

TORCH_DTYPES = {
    "bool": torch.bool,
    "i8": torch.int8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "u8": torch.uint8,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f32": torch.float32,
    "f64": torch.float64,
}

MAX_THREADS_PER_BLOCK = 1024
#: Dynamic shared memory a launch may ask for without opting in to more (bytes).
MAX_DYNAMIC_SHARED_BYTES = 48 * 1024
#: A simulator runs every instance, so the largest tensor of an instance stays small (elements).
MAX_INSTANCE_ELEMENTS = 64 * 1024
#: A pipeline may need more (two_pass_sum: more partial sums than one block of its second pass holds).
MAX_PIPELINE_ELEMENTS = 128 * 1024
#: Every task has a tiny instance: no tensor above this many elements.
TINY_ELEMENTS = 256


# ---------------------------------------------------------------------------------------------------
# Reading kernel signatures from the source text (enough for the corpus: no macros in signatures)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", " ", text)


def split_top_level(text: str) -> list[str]:
    """Split on commas outside (), <> and []."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        depth += ch in "(<["
        depth -= ch in ")>]"
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _template_param_name(param: str) -> str:
    """``typename T`` -> T, ``int N = 4`` -> N, ``T (*ACT)(const T&)`` -> ACT (a function parameter)."""
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", param)
    if m is not None:
        return m.group(1)
    return re.findall(r"\w+", param.split("=", maxsplit=1)[0])[-1]


def kernel_signature(source: str, kernel: str) -> tuple[list[str], list[tuple[str, bool]]]:
    """Template parameter names and ``(name, is_pointer)`` of each parameter of ``__global__ kernel``."""
    text = strip_comments(source)
    m = re.search(r"(template\s*<([^>]*)>\s*)?__global__\b[^;{}]*?\b" + re.escape(kernel) + r"\s*\(", text)
    assert m is not None, f"no __global__ function {kernel} in the source"
    template_params = [_template_param_name(p) for p in split_top_level(m.group(2) or "")]
    depth, end = 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    params = []
    for p in split_top_level(text[m.end() : end - 1]):
        if p == "void":
            continue
        params.append((re.findall(r"[A-Za-z_]\w*", p)[-1], "*" in p))
    return template_params, params


# ---------------------------------------------------------------------------------------------------
# Running references


def random_inputs(task: Task, env: dict[str, int], seed: int = 0) -> list[torch.Tensor]:
    """Random tensors for the reference's inputs: normal floats, and integers in [0, smallest symbol).

    Integer inputs are usually indices (positions into a cache); the smallest symbol of the instance
    is a bound every such index tensor of the corpus respects.
    """
    gen = torch.Generator().manual_seed(seed)
    index_bound = min(env.values(), default=1)
    out = []
    for spec in task.inputs.values():
        shape = spec.concrete_shape(env)
        dtype = TORCH_DTYPES[str(spec.dtype)]
        if dtype.is_floating_point:
            out.append(torch.randn(shape, generator=gen).to(dtype))
        else:
            out.append(torch.randint(0, index_bound, shape, generator=gen, dtype=dtype))
    return out


def load_module(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"larkc_kb_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_callable(task: Task) -> Any:
    """The reference as something to call with the input tensors."""
    ref = task.reference
    if isinstance(ref, str):
        module = load_module(ref)
        return module.Model(*module.get_init_inputs())
    if isinstance(ref, type):
        assert issubclass(ref, nn.Module), "a class reference must be an nn.Module"
        return ref(*task.init_inputs)
    return ref


def positional_names(fn: Any) -> list[str]:
    target = fn.forward if isinstance(fn, nn.Module) else fn
    return list(inspect.signature(target).parameters)


def as_tuple(value: object) -> tuple[object, ...]:
    return tuple(value) if isinstance(value, tuple | list) else (value,)


# ---------------------------------------------------------------------------------------------------
# The corpus as a whole


def test_corpus_has_the_required_examples() -> None:
    names = {p.name for p in TASK_DIRS}
    assert names >= REQUIRED, f"missing examples: {sorted(REQUIRED - names)}"


def test_every_example_folder_has_a_kernel_and_a_task() -> None:
    for folder in sorted(EXAMPLES.iterdir()):
        if folder.is_dir() and folder.name != "common":
            assert (folder / "task.py").is_file(), folder
            assert (folder / "kernel.cu").is_file(), folder


def test_seeded_bugs_cover_every_failure_kind() -> None:
    kinds = {load_task(p).expected_failure for p in TASK_DIRS if "_bug_" in p.name}
    assert {"race", "oob", "mismatch", "divergence"} <= kinds
    assert sum("_bug_" in p.name for p in TASK_DIRS) >= 6


# ---------------------------------------------------------------------------------------------------
# Each task


@pytest.mark.parametrize("example", TASK_DIRS, ids=IDS)
def test_task_is_consistent_with_its_kernel(example: Path) -> None:
    task = load_task(example)
    assert task.name == example.name
    assert task.task_file == example / "task.py"
    assert task.language == "cuda"
    assert task.source == example / "kernel.cu" and task.source.is_file()
    assert task.inputs and task.outputs

    source = task.source.read_text(encoding="utf-8")
    template_params, params = kernel_signature(source, task.kernel)
    args = task.template_args
    if isinstance(args, Mapping):
        assert list(args) == template_params, "template_args must name the template parameters in order"
    else:
        assert len(args) == len(template_params)

    bound_tensors = set()
    for name, is_pointer in params:
        binding = task.binding(name)
        assert binding is not None, f"kernel parameter {name} has no binding"
        assert isinstance(binding, BufferArg) == is_pointer, f"parameter {name} bound to {binding}"
        if isinstance(binding, BufferArg):
            bound_tensors.add(binding.name)
    assert bound_tensors == set(task.tensors), "every tensor is passed to the kernel, and only those"

    for define in task.defines:
        assert re.search(rf"#\s*(ifdef|ifndef|if|elif)\b.*\b{define}\b", source), f"{define} is not tested"


@pytest.mark.parametrize("example", ALL_DIRS, ids=ALL_IDS)
def test_instances_have_valid_launches_and_moderate_sizes(example: Path) -> None:
    task = load_task(example)
    most = MAX_PIPELINE_ELEMENTS if example.parent == PIPELINES else MAX_INSTANCE_ELEMENTS
    smallest = math.inf
    for instance in task.instances:
        env = task.shape_env(instance)
        for k in range(len(task.launches)):
            grid, block, shared_bytes = task.launch_task(k).launch.concrete(env)
            where = f"{instance}, {task.launch_label(k) or 'the launch'}"
            assert min(grid) >= 1 and min(block) >= 1, f"{where}: empty launch {grid} {block}"
            assert math.prod(block) <= MAX_THREADS_PER_BLOCK, f"{where}: block {block} too large"
            assert 0 <= shared_bytes <= MAX_DYNAMIC_SHARED_BYTES
        sizes = [math.prod(spec.concrete_shape(env)) for spec in task.tensors.values()]
        assert min(sizes) >= 1
        assert max(sizes) <= most, f"{instance}: {max(sizes)} elements is too many to simulate"
        smallest = min(smallest, max(sizes))
    assert smallest <= TINY_ELEMENTS, "every task needs one tiny instance"


@pytest.mark.parametrize("example", ALL_DIRS, ids=ALL_IDS)
def test_reference_returns_the_declared_outputs(example: Path) -> None:
    """On random inputs of every instance (the first is the tiny one; the others catch transposed or
    swapped dimensions that coincide when sizes are 1). The declared outputs are what the reference
    returns, or leaves in an in-place argument; only in-place inputs may change."""
    task = load_task(example)
    if task.reference is None:
        pytest.skip("reference-free task")
    fn = reference_callable(task)
    assert positional_names(fn) == list(task.inputs), "reference parameters must be the task's inputs, in order"

    for instance in task.instances:
        env = task.shape_env(instance)
        inputs = random_inputs(task, env)
        before = [t.clone() for t in inputs]
        with torch.no_grad():
            results = task_outputs(task, inputs, fn(*inputs))
        for (name, spec), result in zip(task.outputs.items(), results, strict=True):
            where = f"{instance}, output {name}"
            assert isinstance(result, torch.Tensor), f"{where} is a {type(result).__name__}"
            assert tuple(result.shape) == spec.concrete_shape(env), f"{where}: shape {tuple(result.shape)}"
            assert result.dtype == TORCH_DTYPES[str(spec.dtype)], f"{where}: dtype {result.dtype}"
            assert torch.isfinite(result.float()).all(), f"{where} is not finite on random inputs"
        for name, old, new in zip(task.inputs, before, inputs, strict=True):
            assert name in task.inplace or torch.equal(old, new), f"the reference modified its input {name}"


def kernelbench_tasks() -> Sequence[Path]:
    return [p for p in TASK_DIRS if isinstance(load_task(p).reference, str)]


@pytest.mark.parametrize("example", kernelbench_tasks(), ids=lambda p: p.name)
def test_kernelbench_reference_file(example: Path) -> None:
    """The file's own ``get_inputs()`` sizes are an instance of the task, and its model runs on them."""
    task = load_task(example)
    assert isinstance(task.reference, str)
    module = load_module(task.reference)
    assert issubclass(module.Model, nn.Module)
    model = module.Model(*module.get_init_inputs())
    inputs = module.get_inputs()
    assert len(inputs) == len(task.inputs)
    env: dict[str, int] = {}
    for (name, spec), tensor in zip(task.inputs.items(), inputs, strict=True):
        assert tensor.dtype == TORCH_DTYPES[str(spec.dtype)], name
        assert tensor.dim() == len(spec.shape), name
        for dim, size in zip(spec.shape, tensor.shape, strict=True):
            if isinstance(dim, ShapeSym):
                assert env.setdefault(dim.name, size) == size, f"{name}: {dim.name} is {env[dim.name]} and {size}"
    env = task.shape_env(env)
    for (name, spec), tensor in zip(task.inputs.items(), inputs, strict=True):
        assert tuple(tensor.shape) == spec.concrete_shape(env), name
    with torch.no_grad():
        results = as_tuple(model(*inputs))
    for (name, spec), result in zip(task.outputs.items(), results, strict=True):
        assert isinstance(result, torch.Tensor), name
        assert tuple(result.shape) == spec.concrete_shape(env), name


@pytest.mark.parametrize("example", TASK_DIRS, ids=IDS)
def test_seeded_bugs_declare_their_failure(example: Path) -> None:
    task = load_task(example)
    if "_bug_" not in example.name:
        assert task.expected_failure is None
        assert "BUG" not in task.source.read_text(encoding="utf-8")
        return
    assert task.expected_failure in FAILURE_KINDS
    base = EXAMPLES / example.name.split("_bug_")[0]
    assert (base / "task.py").is_file(), f"a seeded bug is a copy of an example; {base.name} is missing"
    base_task = load_task(base)
    assert task.kernel == base_task.kernel
    bug_source = task.source.read_text(encoding="utf-8")
    assert "BUG:" in bug_source, "mark the seeded mistake with a `// BUG: ...` comment"
    base_code = strip_comments(base_task.source.read_text(encoding="utf-8")).split()
    assert strip_comments(bug_source).split() != base_code, "the seeded bug must change the code"


def test_tensor_spec_forms_used_by_the_corpus() -> None:
    # The tuple form of an atomically accumulated output keeps its "zeros" initialisation.
    spec = load_task(EXAMPLES / "dot_product").outputs["out"]
    assert spec == TensorSpec.of((("1",), "f32", "zeros"), "out")
    assert spec.init == "zeros"


# ---------------------------------------------------------------------------------------------------
# The pipelines: several launches, in-place tensors, null pointers


def test_the_pipelines_corpus() -> None:
    tasks = [load_task(p) for p in PIPELINE_DIRS]
    assert len(tasks) >= 5
    assert any(len(t.launches) > 1 for t in tasks) and any(t.inplace for t in tasks)
    assert any(
        isinstance(t.binding(p, k), NullArg) for t in tasks for k, x in enumerate(t.launches) for p in x.bindings
    )


@pytest.mark.parametrize("example", PIPELINE_DIRS, ids=PIPELINE_IDS)
def test_pipeline_is_consistent_with_its_kernels(example: Path) -> None:
    task = load_task(example)
    assert task.name == example.name and task.task_file == example / "task.py"
    assert task.language == "cuda" and task.source.is_file()
    assert task.outputs
    source = task.source.read_text(encoding="utf-8")
    bound_tensors = set()
    for k in range(len(task.launches)):
        view = task.launch_task(k)
        template_params, params = kernel_signature(source, view.kernel)
        args = view.template_args
        assert (list(args) if isinstance(args, Mapping) else len(args)) == (
            template_params if isinstance(args, Mapping) else len(template_params)
        )
        for name, is_pointer in params:
            binding = view.binding(name)
            where = f"{task.launch_label(k) or 'the launch'}: kernel parameter {name}"
            assert binding is not None, f"{where} has no binding"
            assert isinstance(binding, BufferArg | NullArg) == is_pointer, f"{where} bound to {binding}"
            if isinstance(binding, BufferArg):
                bound_tensors.add(binding.name)
    assert bound_tensors == set(task.tensors), "every tensor is passed to some launch, and only those"


@pytest.mark.parametrize("example", PIPELINE_DIRS, ids=PIPELINE_IDS)
def test_pipeline_seeded_bugs_declare_their_failure(example: Path) -> None:
    task = load_task(example)
    if "_bug_" not in example.name:
        assert task.expected_failure is None
        return
    assert task.expected_failure in FAILURE_KINDS
    assert "BUG:" in task.source.read_text(encoding="utf-8"), "mark the seeded mistake with a `// BUG: ...` comment"
