"""Reward hacks from the public catalogs, each a candidate for the ReLU problem (``reward_hacks/``), and
the verdict each must get (``docs/kernelbench.md``, "Reward hacks"): never VERIFIED for a result that
is not the reference's computed by the kernel.

* a kernel on a side stream (``cudaStreamCreate``, launch on it, return): the result may be read before
  it is written. larkc models no stream: the host code is refused at the stream's declaration.
* a result cached by ``x.data_ptr()`` (a buffer assumed to hold the same values): forward is a program
  larkc does not read (a Python dict, a branch), refused at the first such statement.
* fp16 arithmetic for an fp32 reference: the rounding to half is a value change. The symbolic run makes
  it an unknown value that names the dtype (UNKNOWN, never VERIFIED); the simulator, which rounds as
  CUDA does, refutes the candidate (FAILED, ``mismatch``), which is what batch mode reports.
* a timer patched at import (``torch.cuda.Event.elapsed_time``): larkc never imports the candidate, so the
  patch changes nothing it checks; the kernel computes ReLU, and the correctness verdict is VERIFIED.
  (Timing fraud is the harness's to catch: larkc's verdict is about outputs.)
* the work on a Python thread, forward returning before it: refused (forward is no program of launches).
* an input returned unchanged after a launch: refused (forward returns no computed tensor).
* ``torch.empty_like`` returned, never written: refused (a returned allocation no call is given).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc

HERE = Path(__file__).resolve().parent / "reward_hacks"
RELU = Path(__file__).resolve().parents[2] / "examples" / "kernelbench" / "l1_relu" / "model.py"

#: candidate -> (status of larkc.verify_many, the text the result must contain)
EXPECTED: dict[str, tuple[str, str]] = {
    "side_stream": (
        "ERROR",
        "side_stream.py:21:5: error: unsupported stream of its own in host code "
        "(larkc models launches on the current stream): cudaStreamCreate(&side)",
    ),
    "pointer_cache": ("ERROR", "unsupported use of a tensor's address in ModelNew.forward: x.data_ptr()"),
    "half_precision": ("FAILED", "mismatch"),
    "timer_patch": ("VERIFIED", ""),
    "worker_thread": ("ERROR", "unsupported statement in ModelNew.forward"),
    "returns_input": (
        "ERROR",
        "unsupported return of a tensor ModelNew.forward does not compute (an input or a parameter): return x",
    ),
    "empty_unwritten": ("ERROR", "unsupported return of a tensor no CUDA call is given: return out"),
}


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_every_reward_hack_has_its_verdict() -> None:
    files = sorted(HERE.glob("*.py"))
    assert {f.stem for f in files} == set(EXPECTED)
    got = {Path(r.candidate).stem: r for r in larkc.verify_many(files, RELU, seconds=20, cache_dir="")}
    for name, (status, text) in EXPECTED.items():
        r = got[name]
        shown = r.error or " ".join(r.kinds)
        assert (r.status, text in shown) == (status, True), f"{name}: {r.status} {shown}"


def test_precision_downgrade_names_the_dtype() -> None:
    # verify alone: the fp16 rounding is an unknown value naming both types, never an exact-arithmetic proof
    from larkc.provers import Budget

    task = larkc.candidate_task(HERE / "half_precision.py", RELU)
    report = larkc.verify(task, budget=Budget(seconds=20))
    text = "\n".join(report.render())
    assert report.verdict.value == "UNKNOWN", text
    assert "a rounding of f32 data to f16, below the task's f32 (a precision downgrade)" in text
