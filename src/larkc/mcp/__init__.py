"""larkc as a Model Context Protocol server (``larkc mcp``; docs/mcp.md).

:mod:`larkc.mcp.server` holds the tools and the transports and is the only module that imports the MCP SDK
(an optional dependency: ``pip install 'larkc[mcp]'``); :mod:`larkc.mcp.worker` does one tool call's work in
a process of its own; :mod:`larkc.mcp.requests` is what passes between them; :mod:`larkc.mcp.explain` puts a
verify report's counterexample into words. Nothing else in larkc imports this package.
"""
