//! The CLI's reference, docs/cli.md, read by the tests that hold it to the code
//! (`tests/cli.rs`, `tests/proxy.rs`).

/// The part of docs/cli.md under `heading`, up to the next heading of its level.
pub fn section(heading: &str) -> String {
    let reference =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md")).unwrap();
    let at = reference
        .find(&format!("\n{heading}\n"))
        .expect("the heading");
    let rest = &reference[at + heading.len() + 2..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
}
