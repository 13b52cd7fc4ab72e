"""Kernels named as tasks name them: short, qualified, with template arguments; ambiguity is an error.

``kernel_name_cases/serving.cu`` has a template kernel in ``namespace vllm``, a kernel in an anonymous
namespace, and ``add_kernel`` in both ``vllm`` and ``sglang``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch

import larkc
from larkc.errors import TaskError
from larkc.frontends import parse_cuda, parse_task
from larkc.pipeline.emit import emit_task
from larkc.pipeline.inputs import kernel_function
from larkc.provers import Budget, Obligation, ObligationKind, Status, Verdict
from larkc.provers.parametric import prove_parametric
from larkc.tasks import KernelName, Task, canonical_template_arg, choose_kernel, resolve_kernel

SOURCE = Path(__file__).parent / "kernel_name_cases" / "serving.cu"
KERNELS = "vllm::scale_kernel, vllm::add_kernel, sglang::add_kernel, copy_kernel"


def times_three(x: torch.Tensor) -> torch.Tensor:
    return x * 3.0


def scale_task(kernel: str, **changes: object) -> Task:
    fields: dict[str, object] = {
        "source": SOURCE,
        "kernel": kernel,
        "reference": times_three,
        "inputs": {"x": "f32[n]"},
        "outputs": {"out": "f32[n]"},
        "bindings": {"factor": 3.0},
        "symbols": ["n"],
        "constraints": ["n <= 65536"],
        "instances": [{"n": 5}, {"n": 700}],
        "grid": ["cdiv(n, 512)"],
        "block": [128],
    }
    return Task(**{**fields, **changes})  # type: ignore[arg-type]  # the fields above have Task's types


def copy_task(kernel: str) -> Task:
    return Task(source=SOURCE, kernel=kernel, inputs={"x": "f32[n]"}, outputs={"out": "f32[n]"}, symbols=["n"],
                instances=[{"n": 40}], grid=["cdiv(n, 32)"], block=[32])  # fmt: skip


# --------------------------------------------------------------------------------------------------
# The syntax


def test_kernel_names_split_into_their_parts() -> None:
    assert KernelName.parse(" ::vllm :: act< float , Pack<half, 2> >(f32*, i32)") == KernelName(
        ("vllm", "act"), ("float", "Pack<half, 2>"), "(f32*,i32)", True
    )
    assert KernelName.parse("act") == KernelName(("act",), None, "", False)
    assert KernelName.parse("k<(A > B), 4>") == KernelName(("k",), ("(A > B)", "4"), "", False)
    assert KernelName.parse("k<>") == KernelName(("k",), (), "", False)


@pytest.mark.parametrize("text", ["not a name", "3k", "k<float", "k>", "ns::", "k<float)>", ""])
def test_what_is_not_a_kernel_name(text: str) -> None:
    assert KernelName.parse(text) is None
    with pytest.raises(TaskError, match=r"kernel must be the kernel's name \(k, ns::k or k<float, 128>\)"):
        copy_task(text)


# --------------------------------------------------------------------------------------------------
# Tasks naming a kernel each way


@pytest.mark.parametrize(
    ("kernel", "template_args"),
    [
        ("scale_kernel", ("float", 4)),
        ("vllm::scale_kernel", ("float", 4)),
        ("::vllm::scale_kernel", {"T": "float", "VEC": 4}),
        ("scale_kernel<float, 4>", ()),
        ("vllm::scale_kernel< float ,4 >", ()),
        ("vllm::scale_kernel<float,4>", ()),
    ],
)
def test_a_template_kernel_in_a_namespace_by_any_of_its_names(
    kernel: str, template_args: tuple[str | int, ...] | dict[str, str | int]
) -> None:
    task = scale_task(kernel, template_args=template_args)
    module = parse_task(task)
    assert [f.name for f in module.kernels] == ["vllm::scale_kernel<float, 4>"]
    assert kernel_function(task, module).name == "vllm::scale_kernel<float, 4>"


def test_template_arguments_are_compared_as_instance_names_spell_them() -> None:
    task = scale_task("scale_kernel<__half, true>", inputs={"x": "f16[n]"}, outputs={"out": "f16[n]"})
    module = parse_task(task)
    assert [f.name for f in module.kernels] == ["vllm::scale_kernel<half, 1>"]
    assert kernel_function(task, module) is module.kernels[0]


def test_a_kernel_in_an_anonymous_namespace() -> None:
    for kernel in ("copy_kernel", "::copy_kernel"):
        task = copy_task(kernel)
        assert kernel_function(task, parse_task(task)).name == "copy_kernel"


def test_an_ambiguous_short_name_lists_the_kernels_it_names() -> None:
    with pytest.raises(TaskError) as info:
        parse_task(copy_task("add_kernel"))
    assert str(info.value) == (
        f"error: kernel name add_kernel is ambiguous in {SOURCE}: it names vllm::add_kernel, sglang::add_kernel"
        " (write one of them)"
    )
    task = copy_task("sglang::add_kernel")
    assert kernel_function(task, parse_task(task)).name == "sglang::add_kernel"


def test_a_name_that_names_no_kernel_lists_the_kernels() -> None:
    for kernel in ("nope", "cuda::copy_kernel", "::add_kernel"):
        with pytest.raises(TaskError) as info:
            parse_task(copy_task(kernel))
        assert str(info.value) == f"error: no kernel {kernel} in {SOURCE} (kernels: {KERNELS})"


def test_template_arguments_given_twice_are_an_error() -> None:
    with pytest.raises(TaskError, match="template arguments are given both in the name and separately"):
        parse_task(scale_task("scale_kernel<float, 4>", template_args=("float", 4)))
    with pytest.raises(TaskError) as info:
        parse_task(copy_task("copy_kernel<float>"))
    assert info.value.message == "kernel copy_kernel<float> is not a template but template arguments were given"


# --------------------------------------------------------------------------------------------------
# The one resolution function, on modules


def test_resolve_kernel_in_a_module_of_several_kernels() -> None:
    module = parse_cuda(SOURCE)
    assert [f.name for f in module.kernels] == ["vllm::add_kernel", "sglang::add_kernel", "copy_kernel"]
    assert resolve_kernel(module, "vllm::add_kernel").name == "vllm::add_kernel"
    assert resolve_kernel(module, " sglang :: add_kernel ").name == "sglang::add_kernel"
    with pytest.raises(TaskError) as info:
        resolve_kernel(module, "add_kernel", "serving.cu")
    assert info.value.message == (
        "kernel name add_kernel is ambiguous in serving.cu: it names vllm::add_kernel, sglang::add_kernel"
        " (write one of them)"
    )


@pytest.mark.parametrize(
    ("spellings", "canonical"),
    [
        (["half", "__half", "c10::Half", " at :: Half "], "f16"),
        (["__nv_bfloat16", "nv_bfloat16", "c10::BFloat16"], "bf16"),
        (["unsigned", "unsigned int", "uint32_t", "std::uint32_t", "::uint32_t"], "u32"),
        (["int64_t", "long", "long long int"], "i64"),
        (["true", " true "], "1"),
        (["Pack<float, 4>", "Pack< float,4 >"], "Pack<float,4>"),
    ],
)
def test_spellings_of_one_template_argument_are_equal(spellings: list[str], canonical: str) -> None:
    assert {canonical_template_arg(s) for s in spellings} == {canonical}


def test_choose_among_template_instances() -> None:
    names = ["vllm::k<float, 128>", "vllm::k<half, 128>", "vllm::detail::k<float, 64>", "k"]
    assert choose_kernel("k", names, "m") == "k"  # the exact name wins over the short names of others
    assert choose_kernel("k<float,128>", names, "m") == "vllm::k<float, 128>"
    assert choose_kernel("vllm::k<c10::Half, 128>", names, "m") == "vllm::k<half, 128>"
    assert choose_kernel("detail::k", names, "m") == "vllm::detail::k<float, 64>"
    listed = ", ".join(names)
    for name, message in [
        ("vllm::k", "kernel name vllm::k is ambiguous in m: it names vllm::k<float, 128>, vllm::k<half, 128>"
         " (write one of them)"),
        ("k<float>", f"no kernel k<float> in m (kernels: {listed})"),
        ("vllm::k<float, 64>", f"no kernel vllm::k<float, 64> in m (kernels: {listed})"),
    ]:  # fmt: skip
        with pytest.raises(TaskError) as info:
            choose_kernel(name, names, "m")
        assert info.value.message == message


def test_the_parametric_prover_finds_the_kernel_by_its_short_name() -> None:
    task = scale_task("scale_kernel<float, 4>")
    module = parse_task(task)
    bounds = Obligation(ObligationKind.BOUNDS)
    (r,) = prove_parametric(module, "scale_kernel", task, [bounds], Budget(seconds=60.0))
    assert r.status is Status.PROVED
    other = dataclasses.replace(task, kernel="add_kernel")
    (r,) = prove_parametric(module, "vllm::add_kernel", other, [bounds], Budget(seconds=60.0))
    assert r.status is Status.UNKNOWN
    assert r.detail == "no kernel vllm::add_kernel in the module (kernels: vllm::scale_kernel<float, 4>)"


# --------------------------------------------------------------------------------------------------
# Run, verify and emit by a namespaced template kernel's name


def test_run_verify_and_emit_a_namespaced_template_kernel() -> None:
    task = scale_task("vllm::scale_kernel<float, 4>")
    report = larkc.run(task)
    assert report.ok, report.render()
    assert larkc.verify(task, budget=Budget(seconds=60.0)).verdict is Verdict.VERIFIED
    project = emit_task(task)
    assert "The phases of `vllm::scale_kernel<float, 4>`" in "\n".join(text for _, text in project.files)
