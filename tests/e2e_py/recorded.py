"""What the Python SDK client scripts share: their checks, and a stdio transport that runs the
server behind `rpcwire proxy` with both sides recorded:

    tee CLIENT_OUT | rpcwire proxy --log LOG -- sh -c 'tee SERVER_IN | SERVER... | tee SERVER_OUT' | tee CLIENT_IN

so the output directory gets what the client wrote (client-out), what the server read
(server-in), what the server wrote (server-out), what the client read (client-in) and the
proxy's log (proxy.log)."""

import os
import shlex

from mcp.client.stdio import StdioServerParameters

failures = 0


def check(ok, what):
    """Prints one expectation's outcome; the script exits non-zero if any failed."""
    global failures
    print(("ok - " if ok else "not ok - ") + what, flush=True)
    failures += 0 if ok else 1


def proxied(rpcwire, out_dir, server):
    """The transport to `server` (its command line, a list) behind the proxy, recorded into
    `out_dir`."""
    os.makedirs(out_dir, exist_ok=True)
    out = lambda name: os.path.join(out_dir, name)
    return StdioServerParameters(
        command="sh",
        args=[
            "-c",
            'tee "$CLIENT_OUT" | "$RPCWIRE" proxy --log "$PROXY_LOG" -- '
            "sh -c 'tee \"$SERVER_IN\" | eval \"$SERVER\" | tee \"$SERVER_OUT\"' "
            '| tee "$CLIENT_IN"',
        ],
        env={
            **os.environ,
            "RPCWIRE": os.path.abspath(rpcwire),
            "SERVER": shlex.join(server),
            "CLIENT_OUT": out("client-out"),
            "SERVER_IN": out("server-in"),
            "SERVER_OUT": out("server-out"),
            "CLIENT_IN": out("client-in"),
            "PROXY_LOG": out("proxy.log"),
        },
    )
