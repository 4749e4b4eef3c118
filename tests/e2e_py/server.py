"""An MCP server written with the official Python SDK (MCPServer), for tests/e2e_python.rs.

A tool, one that reports progress, one that samples the client's model (in a 2026-07-28
session an `input_required` result that the client answers by calling again; before, a
`sampling/createMessage` request to the client in the middle of the call), one that adds a tool
and says so to `subscriptions/listen` streams, a resource whose text holds escapes and
non-ASCII, and a prompt."""

from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer, Resolve, Sample
from mcp_types import CreateMessageResult, SamplingMessage, TextContent

mcp = MCPServer("rpcwire-e2e-py")

GREETING = 'hello \u00e9\u4e16\u754c "quoted" \\ back\nline two'


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool()
async def count(n: int, ctx: Context) -> str:
    """Counts to n, reporting progress at each step."""
    for i in range(n):
        await ctx.report_progress(i + 1, n, f"step {i + 1}")
    return f"counted to {n}"


def ask(topic: str) -> Sample:
    prompt = TextContent(type="text", text=f"a haiku on {topic}")
    return Sample([SamplingMessage(role="user", content=prompt)], max_tokens=50)


@mcp.tool()
def haiku(topic: str, sampled: Annotated[CreateMessageResult, Resolve(ask)]) -> str:
    """Asks the client's model for a haiku."""
    return f"{sampled.model} wrote: {sampled.content.text}"


@mcp.tool()
async def grow(ctx: Context) -> str:
    """Adds a tool, and says so on `subscriptions/listen` streams (2026-07-28)."""
    mcp.add_tool(lambda: "grown", name="grown")
    await ctx.notify_tools_changed()
    return "grown"


@mcp.resource("text://greeting")
def greeting() -> str:
    return GREETING


@mcp.prompt()
def review(code: str) -> str:
    return f"Review this code:\n{code}"


if __name__ == "__main__":
    mcp.run("stdio")
