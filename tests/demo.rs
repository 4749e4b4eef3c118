//! `examples/rpc_demo.rs` prints the primer's lines: replies in completion order matched to
//! their requests, then the four bad inputs' replies.

use std::process::Command;

#[test]
fn rpc_demo_prints_the_primer_lines() {
    // `cargo test` builds the examples next to the test binaries' directory.
    let exe = std::env::current_exe().unwrap();
    let demo = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join("rpc_demo");
    let out = Command::new(&demo)
        .output()
        .unwrap_or_else(|e| panic!("run {} (built by `cargo test`): {e}", demo.display()));
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            r#"arrived: {"jsonrpc":"2.0","id":3,"result":"14:05"} -> answers get_time"#,
            r#"arrived: {"jsonrpc":"2.0","id":2,"result":12.7} -> answers convert"#,
            r#"arrived: {"jsonrpc":"2.0","id":1,"result":{"city": "Oslo", "temp_c": 11}} -> answers lookup_weather"#,
            "",
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params","data":"convert needs a numeric argument \"inches\""}}"#,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found","data":"teleport"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            "None",
        ]
    );
}
