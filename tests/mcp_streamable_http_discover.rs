//! `examples/streamable_http.rs`'s answer to `server/discover` under MCP 2026-07-28: the
//! schema's `DiscoverResult`, and the server's identity in the result's `_meta`.

#[allow(dead_code)]
#[path = "../examples/streamable_http.rs"]
mod streamable_http;

use serde_json::json;
use streamable_http::{Field, Server};

/// "Servers MUST implement server/discover"; its result requires `resultType`,
/// `supportedVersions`, `capabilities`, `ttlMs` and `cacheScope`, and "Servers SHOULD include
/// ... `io.modelcontextprotocol/serverInfo` in every result's `_meta`". (The example's result
/// named no server.)
#[test]
fn streamable_http_discovers_its_versions_capabilities_and_identity() {
    let mut server = Server::new(&[]);
    let headers: &[Field] = &[
        ("MCP-Protocol-Version", b"2026-07-28"),
        ("Mcp-Method", b"server/discover"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let body = br#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let answered = server.post(headers, body);
    assert_eq!(answered.status, 200);
    let reply: serde_json::Value = serde_json::from_slice(&answered.body).unwrap();
    assert_eq!(
        reply,
        json!({
            "jsonrpc": "2.0",
            "id": "d",
            "result": {
                "resultType": "complete",
                "supportedVersions": ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
                "capabilities": {"tools": {}},
                "ttlMs": 60000,
                "cacheScope": "public",
                "_meta": {
                    "io.modelcontextprotocol/serverInfo": {"name": "streamable_http example", "version": "1"}
                }
            }
        })
    );
}
