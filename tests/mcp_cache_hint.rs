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
        r#"{"ttlMs":-0,"cacheScope":"public"}"#,
        r#"{"ttlMs":+5,"cacheScope":"public"}"#,
        r#"{"ttlMs":5.0,"cacheScope":"public"}"#,
        r#"{"ttlMs":5e0,"cacheScope":"public"}"#,
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

#[test]
fn a_discover_result_s_hint_is_the_same_one() {
    let result = r#"{"resultType":"complete","supportedVersions":[],"capabilities":{},"ttlMs":42,"cacheScope":"public"}"#;
    let raw = RawJson::new(result.as_bytes()).unwrap();
    let discover = DiscoverResult::from_result(raw).unwrap();
    assert_eq!(Some(discover.cache), CacheHint::from_result(raw));
}
