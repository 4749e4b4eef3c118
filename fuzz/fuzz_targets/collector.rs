//! Fuzz target `collector`: the body lives in `tests/fuzz_bodies/collector.rs`, shared with the
//! corpus replay of a plain `cargo test` (`tests/fuzz_corpus.rs`).
#![no_main]

#[path = "../../tests/fuzz_bodies/mod.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::collector::collector(data));
