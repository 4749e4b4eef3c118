//! `CacheHint::from_result`: the `ttlMs` and `cacheScope` of any cacheable result of MCP
//! 2026-07-28, as a gateway keeping results reads them.

use rpcwire::RawJson;
use rpcwire::mcp::{CacheHint, CacheScope, DiscoverResult};

fn hint(result: &str) -> Option<CacheHint> {
    CacheHint::from_result(RawJson::new(result.as_bytes()).unwrap())
}

#[test]
fn both_members_make_the_hint_in_any_order_and_spelling() {
    let public = |ttl_ms| {
        Some(CacheHint {
            ttl_ms,
            scope: CacheScope::Public,
        })
    };
    assert_eq!(
        hint(r#"{"resultType":"complete","resources":[],"ttlMs":0,"cacheScope":"public"}"#),
        public(0)
    );
    assert_eq!(
        hint(r#"{"cacheScope":"p\u0075blic","contents":[],"ttlMs":18446744073709551615}"#),
        public(u64::MAX)
    );
    assert_eq!(
        hint(r#"{"ttlMs":5,"cacheScope":"private"}"#),
        Some(CacheHint {
            ttl_ms: 5,
            scope: CacheScope::Private
        })
    );
}

#[test]
fn a_missing_duplicated_or_mistyped_member_gives_no_hint() {
    for result in [
        r#"{"tools":[]}"#,
        r#"{"ttlMs":5}"#,
        r#"{"cacheScope":"public"}"#,
        r#"{"ttlMs":5,"ttlMs":5,"cacheScope":"public"}"#,
        r#"{"ttlMs":5,"cacheScope":"public","cacheScope":"private"}"#,
        r#"{"ttlMs":-5,"cacheScope":"public"}"#,
        r#"{"ttlMs":+5,"cacheScope":"public"}"#,
        r#"{"ttlMs":5.5,"cacheScope":"public"}"#,
        r#"{"ttlMs":5e-1,"cacheScope":"public"}"#,
        r#"{"ttlMs":-5e0,"cacheScope":"public"}"#,
        r#"{"ttlMs":1.8446744073709551616e19,"cacheScope":"public"}"#,
        r#"{"ttlMs":1e20,"cacheScope":"public"}"#,
        r#"{"ttlMs":05,"cacheScope":"public"}"#,
        r#"{"ttlMs":5.,"cacheScope":"public"}"#,
        r#"{"ttlMs":"5","cacheScope":"public"}"#,
        r#"{"ttlMs":18446744073709551616,"cacheScope":"public"}"#,
        r#"{"ttlMs":5,"cacheScope":"shared"}"#,
        r#"{"ttlMs":5,"cacheScope":"PUBLIC"}"#,
        r#"{"ttlMs":5,"cacheScope":true}"#,
        r#"{"_meta":{"ttlMs":5,"cacheScope":"public"}}"#,
        r#"{"ttlMs":5,"cacheScope":"public","tools" []}"#,
        r#"[{"ttlMs":5,"cacheScope":"public"}]"#,
        "null",
    ] {
        assert_eq!(hint(result), None, "{result}");
    }
}

/// `ttlMs` is JSON Schema's `integer`, "a number with a zero fractional part": every spelling
/// of one is read, exactly, up to `u64::MAX`; a fraction, a negative number or one past
/// `u64` is none.
#[test]
fn ttl_ms_is_an_integer_in_any_spelling() {
    let ttl = |token: &str| {
        hint(&format!(r#"{{"ttlMs":{token},"cacheScope":"public"}}"#)).map(|h| h.ttl_ms)
    };
    for (token, value) in [
        ("5.0", 5),
        ("5e0", 5),
        ("5E+0", 5),
        ("-0", 0),
        ("-0.0e-7", 0),
        ("0e999999999999999999999", 0),
        ("1e3", 1000),
        ("1.5e3", 1500),
        ("150e-1", 15),
        ("3600000.000", 3_600_000),
        ("36000000000e-4", 3_600_000),
        ("0.0001e4", 1),
        ("1.8446744073709551615e19", u64::MAX),
        ("18446744073709551615.0", u64::MAX),
        ("184467440737095516150e-1", u64::MAX),
        ("1e19", 10_000_000_000_000_000_000),
    ] {
        assert_eq!(ttl(token), Some(value), "{token}");
    }
    for token in [
        "1.5",
        "15e-1",
        "1e-1",
        "0.5e0",
        "-1",
        "-1e0",
        "-0.5",
        "1.8446744073709551616e19",
        "18446744073709551616",
        "1e20",
        "1e999999999999999999999",
        "1e-999999999999999999999",
        "2e19",
    ] {
        assert_eq!(ttl(token), None, "{token}");
    }
}

#[test]
fn a_discover_result_s_hint_is_the_same_one() {
    let result = r#"{"resultType":"complete","supportedVersions":[],"capabilities":{},"ttlMs":42,"cacheScope":"public"}"#;
    let raw = RawJson::new(result.as_bytes()).unwrap();
    let discover = DiscoverResult::from_result(raw).unwrap();
    assert_eq!(Some(discover.cache), CacheHint::from_result(raw));
}

proptest::proptest! {
    /// Any `u64`, spelled with extra zeros and a compensating exponent, with a point
    /// anywhere in its digits, reads as itself; divided by ten when its last digit is not
    /// zero, it is a fraction and reads as none.
    #[test]
    fn every_spelling_of_an_integer_reads_as_itself(
        n in proptest::num::u64::ANY,
        zeros in 0usize..25,
        point in proptest::prelude::any::<proptest::sample::Index>(),
    ) {
        let ttl = |token: &str| {
            hint(&format!(r#"{{"ttlMs":{token},"cacheScope":"public"}}"#)).map(|h| h.ttl_ms)
        };
        let digits = format!("{n}{}", "0".repeat(zeros));
        proptest::prop_assert_eq!(ttl(&format!("{digits}e-{zeros}")), Some(n));
        // A point `after` digits from the end (the integer part never empty).
        let after = point.index(digits.len());
        let (int, frac) = digits.split_at(digits.len() - after);
        let exponent = after as i64 - zeros as i64;
        let spelled = match frac {
            "" => format!("{int}e{exponent}"),
            frac => format!("{int}.{frac}e{exponent}"),
        };
        proptest::prop_assert_eq!(ttl(&spelled), Some(n), "{}", spelled);
        if n % 10 != 0 {
            proptest::prop_assert_eq!(ttl(&format!("{n}e-1")), None);
        }
    }
}
