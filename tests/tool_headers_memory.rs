//! What `ToolHeaders` keeps of a tool's `inputSchema`: each property name on the way to its
//! parameters once, whatever the number of annotations below it. A server controls the
//! schemas of the tools it lists, and `rpcwire proxy` reads every one of a `tools/list` result
//! (MCP 2026-07-28).

mod held_bytes;

use held_bytes::{held, peak, reset_peak};
use rpcwire::RawJson;
use rpcwire::headers::ToolHeaders;

#[global_allocator]
static GLOBAL: held_bytes::HeldBytes = held_bytes::HeldBytes;

/// 1,000 annotations below a chain of 32 properties whose names take 4 KiB each: the tool
/// keeps the 128 KiB of names once, and a few hundred bytes per annotation. Each parameter
/// kept its own copy of its path, 128 MiB in all for a schema of 180 KB (a server's
/// `tools/list` of 0.7 MB took the proxy 1.9 GB and seconds to read).
/// A schema of `annotations` string parameters below a chain of `depth` properties whose
/// names take `name_len` bytes each.
fn deep_schema(depth: usize, name_len: usize, annotations: usize) -> String {
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
    schema
}

#[test]
fn a_long_chain_of_properties_is_kept_once_for_all_the_annotations_below_it() {
    let (depth, name_len, annotations) = (32, 4 << 10, 1_000);
    let schema = deep_schema(depth, name_len, annotations);
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

/// Validation alone (what `rpcwire proxy` does with each tool a server lists) keeps no
/// parameter: its peak is the same for the same annotations below a chain of 8 properties or
/// of 48, where keeping the parameters costs each annotation its path (4 bytes a level), and
/// it holds nothing once it has answered.
#[test]
fn validation_alone_keeps_no_path() {
    let annotations = 2_000;
    let peak_of = |depth: usize, keep: bool| {
        let schema = deep_schema(depth, 16, annotations);
        let schema = RawJson::new(schema.as_bytes()).unwrap();
        let before = held();
        reset_peak();
        if keep {
            drop(ToolHeaders::from_input_schema(schema).unwrap());
        } else {
            ToolHeaders::validate_input_schema(schema).unwrap();
        }
        assert!(held() - before < 64, "{} bytes held", held() - before);
        peak() - before
    };
    let (shallow, deep) = (peak_of(8, false), peak_of(48, false));
    let (kept_shallow, kept_deep) = (peak_of(8, true), peak_of(48, true));
    // 40 more links and names, a few kilobytes, whatever the number of annotations.
    assert!(
        deep - shallow < 16 << 10,
        "validation: {shallow} then {deep} bytes"
    );
    // Keeping them: the paths' 40 more levels for each annotation.
    assert!(
        kept_deep - kept_shallow >= annotations as isize * 40 * 4,
        "kept: {kept_shallow} then {kept_deep} bytes"
    );
}
