//! MCP 2026-07-28's `x-mcp-header` annotations of the tools a server lists, checked.

use std::fmt::Write as _;

use rpcwire::headers::ToolHeaders;
use rpcwire::{Message, mcp};

/// How many invalid tools [`invalid_tool_headers`] names; the rest are counted.
const NAMED_INVALID_TOOLS: usize = 8;

/// The tools of a success response's `result.tools` whose `inputSchema`'s `x-mcp-header`
/// annotations are invalid (MCP 2026-07-28, "Custom Headers from Tool Parameters":
/// [`ToolHeaders::from_input_schema`]), each named with why, as one line: `None` when there
/// is none. A result without an array of tools, a tool that is no object or has no
/// `inputSchema`, has nothing to say here: the shape of a result is not the session's to
/// check. The first [`NAMED_INVALID_TOOLS`] are named, the rest counted (a server listing
/// thousands must not make a report line of megabytes).
pub fn invalid_tool_headers(msg: &Message<'_>) -> Option<String> {
    let Message::Response(response) = msg else {
        return None;
    };
    let tools = response.result.get("tools")?;
    let mut out = String::new();
    let mut invalid = 0usize;
    for tool in tools.elements() {
        let Some(schema) = tool.get("inputSchema") else {
            continue;
        };
        let Err(why) = ToolHeaders::validate_input_schema(schema) else {
            continue;
        };
        invalid += 1;
        if invalid > NAMED_INVALID_TOOLS {
            continue;
        }
        if !out.is_empty() {
            out.push_str("; ");
        }
        let name = tool
            .get("name")
            .and_then(|n| n.as_str())
            .map(|n| n.decode());
        // `write!` into a `String` cannot fail.
        let _ = match name {
            Some(name) => write!(out, "tool {name:?}: {why}"),
            None => write!(out, "a tool without a name: {why}"),
        };
    }
    if invalid > NAMED_INVALID_TOOLS {
        let _ = write!(out, "; {} more", invalid - NAMED_INVALID_TOOLS);
    }
    (invalid > 0).then_some(out)
}

/// Whether a session of protocol `version` has `x-mcp-header` annotations (MCP 2026-07-28 on;
/// before, the keyword means nothing; an unknown version: no, see
/// [`Session::reads_tool_headers`](super::Session::reads_tool_headers)).
pub(super) fn has_tool_headers(version: Option<&str>) -> bool {
    version.is_some_and(|v| mcp::versions::is_at_least(v, mcp::versions::V2026_07_28))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpcwire::Dialect;

    /// What `invalid_tool_headers` reads of a `tools/list` result: each invalid tool named
    /// with why, in order (one without a name said so), the first eight only and the rest
    /// counted; a valid tool, one without `inputSchema` and a `tools` that is no array say
    /// nothing.
    #[test]
    fn invalid_tools_are_named_with_why() {
        let decoder = rpcwire::Decoder::new(rpcwire::DecodeOptions::new(Dialect::Mcp));
        let read = |tools: &str| {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":{tools}}}}}"#);
            invalid_tool_headers(&decoder.decode(frame.as_bytes()).unwrap())
        };
        let tool = |name: &str, header: &str| {
            format!(
                r#"{{{name}"inputSchema":{{"properties":{{"p":{{"type":"string","x-mcp-header":"{header}"}}}}}}}}"#
            )
        };
        let bad = |n: usize| tool(&format!(r#""name":"t{n}","#), "a b");
        let why =
            r#"x-mcp-header is not an HTTP field-name token (x-mcp-header "a b" on property "p")"#;
        assert_eq!(read("[]"), None);
        assert_eq!(read(&format!("[{}]", tool(r#""name":"ok","#, "Ok"))), None);
        assert_eq!(read(r#"[{"name":"no schema"},1]"#), None);
        assert_eq!(read(&format!(r#"{{"t":{}}}"#, bad(0))), None, "no array");
        assert_eq!(
            read(&format!("[{},{}]", tool("", "a b"), bad(1))),
            Some(format!("a tool without a name: {why}; tool \"t1\": {why}"))
        );
        let many: Vec<String> = (0..11).map(bad).collect();
        let named: Vec<String> = (0..8).map(|n| format!("tool \"t{n}\": {why}")).collect();
        assert_eq!(
            read(&format!("[{}]", many.join(","))),
            Some(format!("{}; 3 more", named.join("; ")))
        );
        let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#;
        assert_eq!(invalid_tool_headers(&decoder.decode(error).unwrap()), None);
    }
}
