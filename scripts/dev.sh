#!/usr/bin/env bash
# Set up a virtual environment and run larkc's demo or its tests.
#   bash scripts/dev.sh demo   # set up, then parse, run and verify a bundled example
#   bash scripts/dev.sh test   # set up, then lint, type-check and run the test suite
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${LARKC_VENV:-.venv}
PY=${PYTHON:-python3}

setup() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  # torch first, pinned: a bare or newer torch requirement would pull a multi-GB CUDA build.
  if ! "$VENV/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '2.13.0')" 2>/dev/null; then
    "$VENV/bin/pip" install --quiet --disable-pip-version-check torch==2.13.0
  fi
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -e '.[dev,triton,agent,mcp]'
}

case "${1:-}" in
  setup)
    setup
    ;;
  demo)
    setup
    example=${2:-examples/cuda/softmax_online}
    echo "== larkc parse $example"
    "$VENV/bin/larkc" parse "$example"
    echo "== larkc run $example"
    "$VENV/bin/larkc" run "$example"
    echo "== larkc verify $example"
    "$VENV/bin/larkc" verify "$example"
    ;;
  test)
    setup
    "$VENV/bin/ruff" check
    "$VENV/bin/mypy"
    shift
    "$VENV/bin/python" -m pytest -q "$@"
    ;;
  *)
    echo "usage: bash scripts/dev.sh {setup|demo [EXAMPLE]|test [PYTEST ARGS]}" >&2
    exit 2
    ;;
esac
