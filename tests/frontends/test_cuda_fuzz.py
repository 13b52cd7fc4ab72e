"""Mutated real kernels never crash the frontend: the result is an IR module or a located LarkcError.

Mutations delete, insert or replace tokens of the example kernels (seeded, so failures reproduce);
whatever the frontend accepts must also pass the IR verifier.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from larkc import load_task
from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import verify_module

ROOT = Path(__file__).resolve().parents[2]
TASKS = [load_task(p) for p in sorted((ROOT / "examples" / "cuda").glob("*/task.py"))]
TOKEN = re.compile(r"\w+|[^\w\s]")


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 3)):
        spans = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
        a, b = rng.choice(spans)
        c, d = rng.choice(spans)
        match rng.randrange(3):
            case 0:
                text = text[:a] + text[b:]  # delete a token
            case 1:
                text = text[:a] + text[c:d] + " " + text[a:]  # insert a copy of another token
            case _:
                text = text[:a] + text[c:d] + text[b:]  # replace a token by another
    return text


@pytest.mark.parametrize("seed", range(4))
def test_mutated_kernels_parse_or_fail_cleanly(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(60):
        task = rng.choice(TASKS)
        text = mutate(task.source.read_text(), rng)
        try:
            module = parse_cuda(
                text=text,
                file=str(task.source.with_name("mutated_kernel.cu")),  # keeps the real file out of the cache
                kernel=task.kernel,
                template_args=task.template_args,
                defines=task.defines,
            )
        except LarkcError as e:
            assert e.message and "\n" not in e.message
            continue
        verify_module(module)
