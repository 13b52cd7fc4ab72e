"""``larkc mcp``: serve larkc's tools over the Model Context Protocol (docs/mcp.md).

::

    larkc mcp                 # stdio: the client starts it and speaks MCP on its standard input and output
    larkc mcp --http 8765     # streamable HTTP on 127.0.0.1:8765/mcp (loopback only)

Tools ``verify``, ``run``, ``emit`` and ``explain_counterexample``. Needs the MCP Python SDK, an optional
dependency (``pip install 'larkc[mcp]'``); without it the command says so and exits 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from larkc.cli import EXIT_OK
from larkc.errors import LarkcError, Stage

__all__ = ["register"]

#: What to install when the SDK is missing (pyproject.toml's ``mcp`` extra).
INSTALL = "pip install 'larkc[mcp]' (or pip install 'mcp>=2.3')"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``mcp`` subcommand."""
    p = subparsers.add_parser(
        "mcp",
        help="serve verify, run, emit and explain_counterexample as Model Context Protocol tools",
        description="Serve larkc's tools to coding agents over the Model Context Protocol: over standard input and "
        "output (the default), or streamable HTTP on 127.0.0.1 with --http PORT. Needs the MCP Python SDK "
        f"({INSTALL}).",
    )
    p.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT (path /mcp)")
    p.set_defaults(func=_command)


def _command(args: argparse.Namespace) -> int:
    if args.http is not None and not 1 <= args.http <= 65535:
        raise LarkcError(f"--http {args.http}: expected a port number from 1 to 65535", stage=Stage.CLI)
    try:
        from larkc.mcp.server import serve
    except ModuleNotFoundError as err:
        if err.name is None or err.name.split(".")[0] != "mcp":
            raise
        raise LarkcError(
            f"larkc mcp needs the MCP Python SDK, which is not installed: {INSTALL}", stage=Stage.CLI
        ) from None
    serve(http_port=args.http)
    return EXIT_OK
