"""GPUVerify's param_values/value_causing_race as a larkc task: x is a symbol, bound by the kernel's preconditions."""

from larkc import ShapeArg, Task

task = Task(
    name="value_causing_race",
    source="kernel.cu",
    kernel="example",
    reference=None,
    outputs={"A": "f32[1024]"},
    bindings={"x": ShapeArg("x")},
    symbols=["x"],
    instances=[{"x": 1}],
    grid=[1],
    block=[512],
)
