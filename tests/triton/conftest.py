"""Triton tests: Triton's interpreter (``TRITON_INTERPRET=1``, set before Triton is imported) is the
reference the frontend and simulator must agree with; without Triton these tests skip."""

from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")
