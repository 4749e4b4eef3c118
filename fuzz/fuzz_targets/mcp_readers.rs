//! Fuzz target `mcp_readers`: the body lives in `tests/fuzz_bodies/mcp_readers.rs`, shared with the
//! corpus replay of a plain `cargo test` (`tests/fuzz_corpus.rs`).
#![no_main]

#[path = "../../tests/fuzz_bodies/mod.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::mcp_readers::mcp_readers(data));
