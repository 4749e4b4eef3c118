//! `DiscoverResult`: a client's reading of a `server/discover` result (MCP 2026-07-28), against
//! what `write_discover_result` writes and against results that break the schema.

use bytes::BytesMut;
use rpcwire::mcp::{
    self, CacheHint, CacheScope, DiscoverMember as M, DiscoverReadError as E, DiscoverResult,
    versions,
};
use rpcwire::{Decoder, Id, Message, RawJson};

fn raw(text: &str) -> RawJson<'_> {
    RawJson::new(text.as_bytes()).unwrap()
}

/// A result with every required member, `members` appended (or overriding nothing: a key
/// given here and in the base is given twice).
fn result_with(members: &str) -> String {
    format!(
        r#"{{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{}},"ttlMs":0,"cacheScope":"private"{members}}}"#
    )
}

/// `result_with`'s base, with the member `drop` left out.
fn result_without(drop: &str) -> String {
    let members = [
        (r#""resultType""#, r#""complete""#),
        (r#""supportedVersions""#, r#"["2026-07-28"]"#),
        (r#""capabilities""#, "{}"),
        (r#""ttlMs""#, "0"),
        (r#""cacheScope""#, r#""private""#),
    ];
    let kept: Vec<String> = members
        .iter()
        .filter(|(k, _)| k.trim_matches('"') != drop)
        .map(|(k, v)| format!("{k}:{v}"))
        .collect();
    format!("{{{}}}", kept.join(","))
}

/// `result_without(drop)` with `member` (`"name":value`) appended as its last member.
fn result_replacing(drop: &str, member: &str) -> String {
    let base = result_without(drop);
    format!("{},{member}}}", base.strip_suffix('}').unwrap())
}

fn read(result: &str) -> Result<DiscoverResult<'_>, E> {
    DiscoverResult::from_result(raw(result))
}

#[test]
fn what_write_discover_result_writes_reads_back() {
    let mut out = BytesMut::new();
    let id = Id::from_token(b"3").unwrap();
    let cache = CacheHint {
        ttl_ms: u64::MAX,
        scope: CacheScope::Public,
    };
    mcp::write_discover_result(
        &mut out,
        id,
        &[versions::V2025_11_25, "a\"b", versions::V2026_07_28],
        raw(r#"{"tools":{"listChanged":true}}"#),
        Some(raw(r#"{"name":"s","version":"2"}"#)),
        Some("Line one.\nA \"quoted\" line."),
        cache,
    )
    .unwrap();
    let Ok(Message::Response(r)) = Decoder::mcp_client().decode(&out[..out.len() - 1]) else {
        panic!("not a response: {out:?}")
    };
    let read = DiscoverResult::from_result(r.result).unwrap();
    let offered: Vec<String> = read
        .supported_versions()
        .map(|v| v.decode().into())
        .collect();
    assert_eq!(offered, ["2025-11-25", "a\"b", "2026-07-28"]);
    assert_eq!(read.capabilities, raw(r#"{"tools":{"listChanged":true}}"#));
    assert_eq!(
        read.instructions.unwrap().decode(),
        "Line one.\nA \"quoted\" line."
    );
    assert_eq!(read.cache, cache);
    assert_eq!(read.server_info, Some(raw(r#"{"name":"s","version":"2"}"#)));
    assert_eq!(
        read.choose(&[versions::V2025_11_25, versions::V2026_07_28]),
        Some(versions::V2026_07_28)
    );
    assert_eq!(
        read.choose(&[versions::V2025_11_25]),
        Some(versions::V2025_11_25)
    );
    assert_eq!(read.choose(&["2024-11-05"]), None);

    // Without the optional members.
    out.clear();
    let id = Id::from_token(b"4").unwrap();
    let caps = RawJson::EMPTY_OBJECT;
    mcp::write_discover_result(&mut out, id, &[], caps, None, None, CacheHint::NONE).unwrap();
    let Ok(Message::Response(r)) = Decoder::mcp_client().decode(&out[..out.len() - 1]) else {
        panic!("not a response: {out:?}")
    };
    let read = DiscoverResult::from_result(r.result).unwrap();
    assert_eq!(read.supported_versions().count(), 0);
    assert_eq!(read.cache, CacheHint::NONE);
    assert_eq!((read.instructions, read.server_info), (None, None));
    assert_eq!(read.choose(versions::KNOWN), None);
}

#[test]
fn each_required_member_is_required() {
    assert!(read(&result_without("")).is_ok());
    for member in [
        M::ResultType,
        M::SupportedVersions,
        M::Capabilities,
        M::TtlMs,
        M::CacheScope,
    ] {
        let result = result_without(member.name());
        assert_eq!(read(&result), Err(E::Missing(member)), "{result}");
    }
}

#[test]
fn members_of_another_type_are_refused() {
    let cases: &[(&str, M)] = &[
        (r#""resultType":1"#, M::ResultType),
        (r#""supportedVersions":"2026-07-28""#, M::SupportedVersions),
        (
            r#""supportedVersions":["2026-07-28",1]"#,
            M::SupportedVersions,
        ),
        (r#""capabilities":[]"#, M::Capabilities),
        (r#""instructions":{}"#, M::Instructions),
        (r#""ttlMs":-1"#, M::TtlMs),
        (r#""ttlMs":1.5"#, M::TtlMs),
        (r#""ttlMs":15e-1"#, M::TtlMs),
        (r#""ttlMs":-1e0"#, M::TtlMs),
        (r#""ttlMs":"60000""#, M::TtlMs),
        (r#""ttlMs":18446744073709551616"#, M::TtlMs),
        (r#""cacheScope":"shared""#, M::CacheScope),
        (r#""cacheScope":"Public""#, M::CacheScope),
        (r#""cacheScope":null"#, M::CacheScope),
        (r#""_meta":[]"#, M::Meta),
        (
            r#""_meta":{"io.modelcontextprotocol/serverInfo":"s"}"#,
            M::ServerInfo,
        ),
    ];
    for &(member, expected) in cases {
        let name = member.split(':').next().unwrap().trim_matches('"');
        let result = result_replacing(name, member);
        assert_eq!(read(&result), Err(E::WrongType(expected)), "{result}");
    }
}

#[test]
fn a_member_given_twice_is_refused() {
    for (member, expected) in [
        (r#","ttlMs":1"#, M::TtlMs),
        (r#","cacheScope":"public""#, M::CacheScope),
        (r#","instructions":"a","instructions":"b""#, M::Instructions),
        (r#","_meta":{},"_meta":{}"#, M::Meta),
        (
            r#","_meta":{"io.modelcontextprotocol/serverInfo":{},"io.modelcontextprotocol/serverInfo":{}}"#,
            M::ServerInfo,
        ),
    ] {
        let result = result_with(member);
        assert_eq!(read(&result), Err(E::Duplicated(expected)), "{result}");
    }
}

#[test]
fn the_edges_of_ttl_and_the_spellings_of_scope_are_read() {
    let result = result_replacing("ttlMs", r#""ttlMs":18446744073709551615"#);
    assert_eq!(read(&result).unwrap().cache.ttl_ms, u64::MAX);
    // JSON Schema's `integer`: any number whose fraction is zero.
    for (token, ttl) in [("1e3", 1000), ("3600000.0", 3_600_000), ("-0", 0)] {
        let result = result_replacing("ttlMs", &format!(r#""ttlMs":{token}"#));
        assert_eq!(read(&result).unwrap().cache.ttl_ms, ttl, "{token}");
    }
    // An escaped name is the name.
    let result = result_replacing("cacheScope", r#""cacheScope":"publi\u0063""#);
    assert_eq!(read(&result).unwrap().cache.scope, CacheScope::Public);
    // A `_meta` without the identity, and members this reader does not know, are fine.
    let result = result_with(r#","_meta":{"other":1},"future":[]"#);
    assert_eq!(read(&result).unwrap().server_info, None);
}

#[test]
fn what_is_not_a_readable_object_is_refused() {
    for result in ["[]", "null", r#""complete""#] {
        assert_eq!(read(result), Err(E::NotAnObject), "{result}");
    }
    // Delimited but not JSON: a missing colon, in the result and in its `_meta`.
    assert_eq!(
        read(&result_with(r#","instructions" "a""#)),
        Err(E::Malformed)
    );
    let result = result_with(r#","_meta":{"io.modelcontextprotocol/serverInfo" {}}"#);
    assert_eq!(read(&result), Err(E::Malformed));
    // An array of versions cut off inside is not one of strings.
    let result = result_replacing(
        "supportedVersions",
        r#""supportedVersions":["2026-07-28" "x"]"#,
    );
    assert_eq!(read(&result), Err(E::WrongType(M::SupportedVersions)));
}

#[test]
fn errors_name_the_member_and_its_type() {
    assert_eq!(E::Missing(M::TtlMs).to_string(), "ttlMs is required");
    assert_eq!(
        E::WrongType(M::CacheScope).to_string(),
        r#"cacheScope must be "public" or "private""#
    );
    assert_eq!(
        E::Duplicated(M::ServerInfo).to_string(),
        "io.modelcontextprotocol/serverInfo is given twice"
    );
    assert_eq!(
        E::WrongType(M::SupportedVersions).to_string(),
        "supportedVersions must be an array of strings"
    );
    assert_eq!(E::WrongType(M::Meta).member(), Some(M::Meta));
    assert_eq!(E::Malformed.member(), None);
}
