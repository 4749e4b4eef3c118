"""An MCP session through `rpcwire proxy` with the official Python SDK on both sides.

    python client.py RPCWIRE_BINARY OUT_DIR MODE

MODE is the SDK client's `mode`: `auto` probes `server/discover` and speaks MCP 2026-07-28
(every request names its version in `_meta`; no `initialize`), `legacy` does the `initialize`
handshake (2025-11-25). OUT_DIR gets both sides of the proxy (`recorded.proxied`). Any failed
expectation, or an exception, exits non-zero."""

import os
import sys

import anyio
import recorded
from mcp import Client
from mcp_types import CreateMessageResult, TextContent
from recorded import check

rpcwire, out_dir, mode = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))

sampled = []


async def sampling(ctx, params):
    sampled.append(params)
    text = TextContent(type="text", text="old pond / a frog jumps in")
    return CreateMessageResult(role="assistant", content=text, model="stub-model")


async def main():
    params = recorded.proxied(rpcwire, out_dir, [sys.executable, os.path.join(here, "server.py")])
    async with Client(params, mode=mode, sampling_callback=sampling) as client:
        expected_version = "2026-07-28" if mode == "auto" else "2025-11-25"
        check(client.protocol_version == expected_version, f"protocol version {client.protocol_version}")
        tools = await client.list_tools()
        check(sorted(t.name for t in tools.tools) == ["add", "count", "grow", "haiku"], "tools/list")

        result = await client.call_tool("add", {"a": 2, "b": 40})
        check(result.structured_content == {"result": 42}, f"add: {result.structured_content}")

        progress = []

        async def on_progress(p, total, message):
            progress.append((p, total, message))

        result = await client.call_tool("count", {"n": 3}, progress_callback=on_progress)
        check(result.structured_content == {"result": "counted to 3"}, "count")
        check(progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")], f"progress: {progress}")

        result = await client.call_tool("haiku", {"topic": "rust"})
        text = "stub-model wrote: old pond / a frog jumps in"
        check(result.structured_content == {"result": text}, f"haiku: {result.structured_content}")
        check(len(sampled) == 1 and sampled[0].messages[0].content.text == "a haiku on rust", "sampled once")

        result = await client.read_resource("text://greeting")
        greeting = 'hello \u00e9\u4e16\u754c "quoted" \\ back\nline two'
        check(result.contents[0].text == greeting, f"resources/read: {result.contents[0].text!r}")

        result = await client.get_prompt("review", {"code": "x = 1"})
        check(result.messages[0].content.text == "Review this code:\nx = 1", "prompts/get")

        if mode == "auto":
            # A 2026-07-28 change stream: acknowledged, one event, closed by the client.
            async with client.listen(tools_list_changed=True) as stream:
                result = await client.call_tool("grow", {})
                async for event in stream:
                    check(type(event).__name__ == "ToolsListChanged", f"listen: {event}")
                    break
        else:
            result = await client.call_tool("grow", {})
            check(result.structured_content == {"result": "grown"}, "grow")

        result = await client.call_tool("no-such-tool", {})
        check(result.is_error and "no-such-tool" in result.content[0].text, f"an unknown tool: {result}")


anyio.run(main)
sys.exit(1 if recorded.failures else 0)
