"""The official Python SDK's client, in its default mode, through `rpcwire proxy` in front of
the TypeScript reference `server-everything`, which speaks no MCP 2026-07-28: the client's
`server/discover` probe is refused (-32601) and it falls back to `initialize` (2025-11-25),
after which the server's requests (`roots/list`) are allowed.

    python against_everything.py RPCWIRE_BINARY SERVER_EVERYTHING_JS OUT_DIR

OUT_DIR gets both sides of the proxy (`recorded.proxied`). Any failed expectation, or an
exception, exits non-zero."""

import sys

import anyio
import recorded
from mcp import Client
from mcp_types import ListRootsResult, Root
from recorded import check

rpcwire, everything, out_dir = sys.argv[1:4]

roots_asked = anyio.Event()


async def roots(ctx):
    roots_asked.set()
    return ListRootsResult(roots=[Root(uri="file:///srv/project", name="project")])


async def main():
    params = recorded.proxied(rpcwire, out_dir, ["node", everything, "stdio"])
    async with Client(params, list_roots_callback=roots) as client:
        check(client.protocol_version == "2025-11-25", f"fell back to {client.protocol_version}")
        tools = await client.list_tools()
        names = {t.name for t in tools.tools}
        check({"echo", "get-sum", "trigger-long-running-operation"} <= names, "tools/list")

        result = await client.call_tool("echo", {"message": "h\u00e9llo \"w\u00f6rld\""})
        check(result.content[0].text == "Echo: h\u00e9llo \"w\u00f6rld\"", f"echo: {result.content}")

        result = await client.call_tool("get-sum", {"a": 2, "b": 40})
        check("42" in result.content[0].text, f"get-sum: {result.content}")

        progress = []

        async def on_progress(p, total, message):
            progress.append(p)

        args = {"duration": 0.3, "steps": 3}
        result = await client.call_tool("trigger-long-running-operation", args, progress_callback=on_progress)
        check(not result.is_error and len(progress) == 3, f"progress: {progress}")

        # The server asks for the roots once the session is initialized: answered through
        # the proxy before the session ends.
        with anyio.fail_after(20):
            await roots_asked.wait()
        check(roots_asked.is_set(), "roots/list asked and answered")
        await client.call_tool("echo", {"message": "after roots"})


anyio.run(main)
sys.exit(1 if recorded.failures else 0)
