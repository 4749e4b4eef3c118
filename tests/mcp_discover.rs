//! `write_discover_result`: a server's answer to `server/discover` (MCP 2026-07-28), checked
//! against serde_json's reading of the line and the schema's required members.

use bytes::BytesMut;
use rpcwire::mcp::{self, CacheHint, CacheScope, DiscoverWriteError, meta_keys, versions};
use rpcwire::{Id, RawJson};
use serde_json::{Value, json};

fn raw(text: &str) -> RawJson<'_> {
    RawJson::new(text.as_bytes()).unwrap()
}

/// The line written for `(versions, capabilities, server_info, instructions, cache)`, as
/// serde_json reads it; the line ends with one line break, and holds no other.
fn written(
    versions: &[&str],
    capabilities: &str,
    server_info: Option<&str>,
    instructions: Option<&str>,
    cache: CacheHint,
) -> Result<Value, DiscoverWriteError> {
    let mut out = BytesMut::new();
    let id = Id::from_token(b"7").unwrap();
    let server_info = server_info.map(raw);
    let result = mcp::write_discover_result(
        &mut out,
        id,
        versions,
        raw(capabilities),
        server_info,
        instructions,
        cache,
    );
    if result.is_err() {
        assert!(out.is_empty(), "wrote on an error: {out:?}");
    }
    result?;
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
    assert!(out.ends_with(b"\n"));
    Ok(serde_json::from_slice(&out).unwrap())
}

#[test]
fn the_result_holds_every_required_member_and_the_identity_in_meta() {
    let line = written(
        &[versions::V2025_11_25, versions::V2026_07_28],
        r#"{"tools":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
        Some(r#"{"name":"s","version":"2"}"#),
        Some("Line one.\nA \"quoted\" \u{1F600} line."),
        CacheHint {
            ttl_ms: u64::MAX,
            scope: CacheScope::Public,
        },
    )
    .unwrap();
    assert_eq!(
        line,
        json!({
            "jsonrpc": "2.0",
            "id": 7,
            "result": {
                "resultType": "complete",
                "supportedVersions": ["2025-11-25", "2026-07-28"],
                "capabilities": {"tools": {"listChanged": true}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
                "instructions": "Line one.\nA \"quoted\" \u{1F600} line.",
                "ttlMs": u64::MAX,
                "cacheScope": "public",
                "_meta": {meta_keys::SERVER_INFO: {"name": "s", "version": "2"}},
            }
        })
    );
}

#[test]
fn optional_members_are_left_out_when_not_given() {
    let line = written(&["2026-07-28"], "{}", None, None, CacheHint::NONE).unwrap();
    assert_eq!(
        line["result"],
        json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {},
            "ttlMs": 0,
            "cacheScope": "private",
        })
    );
    // An empty list is written as it is: the caller's list.
    let line = written(&[], "{}", None, None, CacheHint::NONE).unwrap();
    assert_eq!(line["result"]["supportedVersions"], json!([]));
    // A version is escaped as any string.
    let line = written(&["a\"b\\c\n"], "{}", None, None, CacheHint::NONE).unwrap();
    assert_eq!(line["result"]["supportedVersions"], json!(["a\"b\\c\n"]));
}

#[test]
fn capabilities_and_identity_must_be_objects() {
    for capabilities in ["[]", "null", r#""tools""#, "1"] {
        assert_eq!(
            written(&["2026-07-28"], capabilities, None, None, CacheHint::NONE),
            Err(DiscoverWriteError::CapabilitiesNotAnObject),
            "{capabilities}"
        );
    }
    for info in ["[]", "null", r#""s""#] {
        assert_eq!(
            written(&["2026-07-28"], "{}", Some(info), None, CacheHint::NONE),
            Err(DiscoverWriteError::ServerInfoNotAnObject),
            "{info}"
        );
    }
    assert_eq!(
        DiscoverWriteError::CapabilitiesNotAnObject.to_string(),
        "capabilities must be an object"
    );
    assert_eq!(
        DiscoverWriteError::ServerInfoNotAnObject.to_string(),
        "serverInfo must be an object"
    );
}

#[test]
fn multi_line_values_are_written_on_one_line() {
    let capabilities = "{\n  \"tools\": {}\n}";
    let info = "{\"name\":\n\"s\",\"version\":\"1\"}";
    let line = written(
        &["2026-07-28"],
        capabilities,
        Some(info),
        None,
        CacheHint::NONE,
    )
    .unwrap();
    assert_eq!(line["result"]["capabilities"], json!({"tools": {}}));
    assert_eq!(line["result"]["_meta"][meta_keys::SERVER_INFO]["name"], "s");
}

#[test]
fn scopes_are_named_as_the_schema_spells_them() {
    assert_eq!(CacheScope::Public.as_str(), "public");
    assert_eq!(CacheScope::Private.as_str(), "private");
    assert_eq!(
        CacheHint::NONE,
        CacheHint {
            ttl_ms: 0,
            scope: CacheScope::Private
        }
    );
}
