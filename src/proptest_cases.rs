//! The case count of the unit tests' properties, as `tests/common::cases` gives the
//! integration tests theirs: a property's own count, unless `PROPTEST_CASES` is set, for a
//! longer run (`PROPTEST_CASES=100000 cargo test --release --lib pending`). A property's own
//! `cases` would otherwise hide the variable, which proptest's default configuration reads.

/// `cases` runs, or as many as `PROPTEST_CASES` says when it is set.
pub(crate) fn cases(cases: u32) -> proptest::test_runner::Config {
    let default = proptest::test_runner::Config::default();
    if std::env::var_os("PROPTEST_CASES").is_some() {
        default
    } else {
        proptest::test_runner::Config { cases, ..default }
    }
}
