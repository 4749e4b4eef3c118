//! The header half of MCP 2026-07-28 over Streamable HTTP, without I/O: what a bridge between
//! a stdio client and an HTTP server does with `x-mcp-header` tools, and what the server
//! checks.
//!
//! 1. The server's `tools/list` result comes back. The bridge reads each tool's annotations
//!    (`ToolHeaders`), keeps the valid tools by name, and hands its client the result without
//!    the invalid ones, with a warning naming each and why: clients "MUST exclude the invalid
//!    tool from the result of `tools/list`" and "SHOULD log a warning … including the tool
//!    name and the reason for rejection".
//! 2. The client calls a tool. The bridge POSTs the body as it came, with the headers that
//!    mirror it (`mirror_headers`): the protocol version, the method, the tool's name and its
//!    annotated arguments.
//! 3. The server checks the headers against the body (`HeaderCheck::with_tool`): they agree.
//!    When an intermediary has changed one, it answers -32020 with status 400.
//!
//! `cargo run --example http_headers` prints each step.

use std::collections::HashMap;

use bytes::BytesMut;
use rpcwire::headers::{HeaderCheck, ToolHeaders, mirror_headers};
use rpcwire::{Decoder, JsonKind, Message, RawJson, ReplyId, encode, mcp};

const VERSION: &str = "2026-07-28";

/// What the server answers to `tools/list`: one valid annotated tool, one whose annotation is
/// on a `number` (which the specification forbids), one without annotations, and one without
/// a schema.
const TOOLS_LIST_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[
{"name":"execute_sql","inputSchema":{"type":"object","properties":{"query":{"type":"string"},"region":{"type":"string","x-mcp-header":"Region"}},"required":["query"]}},
{"name":"set_price","inputSchema":{"type":"object","properties":{"price":{"type":"number","x-mcp-header":"Price"}}}},
{"name":"get_weather","inputSchema":{"type":"object","properties":{"location":{"type":"string"}}}},
{"name":"legacy"}
],"nextCursor":"page-2"}}"#;

/// The client's call.
const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_sql","arguments":{"query":"SELECT 1","region":"eu-west-1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;

/// Step 1: the server's reply to the client's `tools/list`, as the bridge hands it on: the
/// valid tools kept (their annotations put in `tools`, by name), the others dropped.
pub fn filter_tools_list(reply: &[u8], tools: &mut HashMap<String, ToolHeaders>) -> BytesMut {
    // The bridge reads what a server sends: `mcp_client`, not `mcp` (which reads a client).
    let as_it_came = || {
        let mut to_client = BytesMut::from(reply);
        to_client.extend_from_slice(b"\n");
        to_client
    };
    let success = match Decoder::mcp_client().decode(reply) {
        Ok(Message::Response(success)) => success,
        // An error reply, or a line the bridge cannot read: nothing to filter, and the
        // client's to judge, as it came.
        _ => return as_it_came(),
    };
    let result = success.result;
    // No one list of tools (absent, not an array, or `tools` twice, which readers take
    // differently): nothing the bridge can filter, so nothing it drops either.
    let Some(listed) = result.get("tools").filter(|t| t.kind() == JsonKind::Array) else {
        return as_it_came();
    };
    let mut kept: Vec<RawJson<'_>> = Vec::new();
    for tool in listed.elements() {
        let name = tool.get("name").and_then(|n| n.as_str());
        let schema = tool.get("inputSchema");
        match (name, schema.map(ToolHeaders::from_input_schema)) {
            (Some(name), Some(Ok(headers))) => {
                println!(
                    "tools/list: {} mirrors {:?}",
                    name.decode(),
                    headers
                        .iter()
                        .map(|p| p.header().to_string())
                        .collect::<Vec<_>>()
                );
                tools.insert(name.decode().into_owned(), headers);
                kept.push(tool);
            }
            // A tool listed again without valid annotations (after
            // `notifications/tools/list_changed`) has none to mirror: its old ones go.
            (name, Some(Err(invalid))) => {
                if let Some(name) = name {
                    tools.remove(&*name.decode());
                }
                println!(
                    "tools/list: warning: tool {:?} dropped: {invalid}",
                    name.map_or("(unnamed)".into(), |n| n.decode())
                );
            }
            (name, _) => {
                if let Some(name) = name {
                    tools.remove(&*name.decode());
                }
                println!("tools/list: a tool without a name or schema kept as it is");
                kept.push(tool);
            }
        }
    }
    // The result the client gets: the kept tools, and the other members as they came.
    let mut filtered = BytesMut::from(&b"{\"tools\":["[..]);
    for (i, tool) in kept.iter().enumerate() {
        if i > 0 {
            filtered.extend_from_slice(b",");
        }
        encode::write_raw_json(&mut filtered, *tool);
    }
    filtered.extend_from_slice(b"]");
    for (key, value) in result.members().filter(|(k, _)| !k.eq_str("tools")) {
        // The key's escaped bytes as they came: decoding and escaping it again would turn a
        // lone surrogate escape (`\ud800`), which has no UTF-8 form, into U+FFFD.
        filtered.extend_from_slice(b",\"");
        filtered.extend_from_slice(key.raw());
        filtered.extend_from_slice(b"\":");
        encode::write_raw_json(&mut filtered, value);
    }
    filtered.extend_from_slice(b"}");
    let filtered = RawJson::new(&filtered).expect("valid JSON");
    let mut to_client = BytesMut::new();
    encode::write_response(&mut to_client, success.id, filtered);
    to_client
}

/// Step 3: the server's check of a POST, whose headers must agree with its body. The error
/// reply to send with status 400 if not.
pub fn server_check(
    tools: &HashMap<String, ToolHeaders>,
    headers: &[(String, Vec<u8>)],
    body: &[u8],
) -> Result<(), BytesMut> {
    let mut reply = BytesMut::new();
    let received = match Decoder::mcp().decode(body) {
        Ok(received) => received,
        Err(rejection) => {
            // (`None` only for a malformed response: 400 without a body.)
            if let Some(error) = rejection.reply() {
                encode::write_reply(&mut reply, &error, None);
            }
            return Err(reply);
        }
    };
    // The annotations of the tool the body calls, if it calls one.
    let calls = received
        .method()
        .is_some_and(|m| m.eq_str(mcp::methods::TOOLS_CALL));
    let called = calls
        .then(|| received.params()?.get("name")?.as_str())
        .flatten();
    let check = match called.and_then(|name| tools.get(&*name.decode())) {
        Some(tool) => HeaderCheck::new(&[VERSION]).with_tool(tool),
        None => HeaderCheck::new(&[VERSION]),
    };
    let headers = headers.iter().map(|(n, v)| (n.as_str(), v.as_slice()));
    check.check(headers, &received).map_err(|e| {
        // A notification's error reply has no id (MCP's form; not `"id":null`).
        let id = received.id().map_or(ReplyId::Absent, ReplyId::Id);
        e.write_reply(&mut reply, id, &[VERSION]);
        reply
    })
}

fn main() {
    let decoder = Decoder::mcp();

    // 1. tools/list: keep the valid tools, drop the others from what the client sees.
    let mut tools: HashMap<String, ToolHeaders> = HashMap::new();
    let to_client = filter_tools_list(TOOLS_LIST_RESULT.as_bytes(), &mut tools);
    print!("to the client: {}", String::from_utf8_lossy(&to_client));

    // 2. The client's call, as the bridge POSTs it.
    let call = decoder.decode(CALL.as_bytes()).expect("a valid request");
    let tool = call
        .params()
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .and_then(|name| tools.get(&*name.decode()));
    let mirrored = match mirror_headers(&call, None, tool) {
        Ok(headers) => headers,
        Err(e) => {
            // A method or version no header can carry: refuse it to the client.
            println!("cannot be sent: {e}");
            return;
        }
    };
    println!("POST /mcp");
    let mut sent: Vec<(String, Vec<u8>)> = Vec::new();
    for (header, value) in &mirrored {
        println!("{header}: {value}");
        sent.push((header.to_string(), value.as_bytes().to_vec()));
    }
    println!("\n{CALL}");

    // 3. The server: the headers must agree with the body.
    let check = |headers: &[(String, Vec<u8>)]| match server_check(&tools, headers, CALL.as_bytes())
    {
        Ok(()) => println!("server: the headers agree with the body"),
        Err(reply) => print!("server: 400 {}", String::from_utf8_lossy(&reply)),
    };
    check(&sent);
    // An intermediary routed on another region than the body names.
    let tampered: Vec<(String, Vec<u8>)> = sent
        .iter()
        .map(|(n, v)| match n.as_str() {
            "Mcp-Param-Region" => (n.clone(), b"us-east-1".to_vec()),
            _ => (n.clone(), v.clone()),
        })
        .collect();
    check(&tampered);
}
