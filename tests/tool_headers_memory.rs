//! What `ToolHeaders` keeps of a tool's `inputSchema`: each property name on the way to its
//! parameters once, whatever the number of annotations below it. A server controls the
//! schemas of the tools it lists, and `rpcwire proxy` reads every one of a `tools/list` result
//! (MCP 2026-07-28).

mod held_bytes;

use held_bytes::held;
use rpcwire::RawJson;
use rpcwire::headers::ToolHeaders;

#[global_allocator]
static GLOBAL: held_bytes::HeldBytes = held_bytes::HeldBytes;

/// 1,000 annotations below a chain of 32 properties whose names take 4 KiB each: the tool
/// keeps the 128 KiB of names once, and a few hundred bytes per annotation. Each parameter
/// kept its own copy of its path, 128 MiB in all for a schema of 180 KB (a server's
/// `tools/list` of 0.7 MB took the proxy 1.9 GB and seconds to read).
#[test]
fn a_long_chain_of_properties_is_kept_once_for_all_the_annotations_below_it() {
    let (depth, name_len, annotations) = (32, 4 << 10, 1_000);
    let mut schema = String::new();
    for d in 0..depth {
        let name = char::from(b'a' + d as u8 % 26).to_string().repeat(name_len);
        schema.push_str(&format!(r#"{{"properties":{{"{name}":"#));
    }
    let leaves: Vec<String> = (0..annotations)
        .map(|i| format!(r#""p{i}":{{"type":"string","x-mcp-header":"H{i}"}}"#))
        .collect();
    schema.push_str(&format!(r#"{{"properties":{{{}}}}}"#, leaves.join(",")));
    schema.push_str(&"}}".repeat(depth));
    let schema = RawJson::new(schema.as_bytes()).unwrap();

    let before = held();
    let tool = ToolHeaders::from_input_schema(schema).unwrap();
    let kept = held() - before;

    assert_eq!(tool.len(), annotations);
    let last = tool.iter().last().unwrap();
    assert_eq!(last.path().len(), depth + 1);
    assert_eq!(last.path().last(), Some("p999"));
    assert_eq!(last.path().next().unwrap().len(), name_len);
    let names = (depth * name_len) as isize;
    let per_annotation = 256 + 8 * (depth as isize + 1);
    assert!(
        kept < names + annotations as isize * per_annotation,
        "{kept} bytes kept for {annotations} annotations below {names} bytes of names"
    );
}
