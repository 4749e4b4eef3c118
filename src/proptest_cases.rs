//! The case count of a property: its own, unless `PROPTEST_CASES` is set, for a longer run
//! (`PROPTEST_CASES=100000 cargo test --release --test remap_model`). A property's own
//! `cases` would otherwise hide the variable, which proptest's default configuration reads.
//! The library's unit tests, the CLI's and the integration tests (`tests/common`) all take
//! this file as a module of their own.

/// `cases` runs, or as many as `PROPTEST_CASES` says when it is set.
pub(crate) fn cases(cases: u32) -> proptest::test_runner::Config {
    let default = proptest::test_runner::Config::default();
    if std::env::var_os("PROPTEST_CASES").is_some() {
        default
    } else {
        proptest::test_runner::Config { cases, ..default }
    }
}
