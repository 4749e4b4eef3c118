//! The MCP 2026-07-28 header mirroring check against the transport specification's own
//! examples and every validation failure condition it lists.

use bytes::BytesMut;
use rpcwire::headers::{
    Header, HeaderCheck, HeaderError, ParamHeader, ValueError, decode_header_value,
    encode_header_value,
};
use rpcwire::{Decoder, Message, ReplyId};
use serde_json::{Value, json};

const VERSIONS: &[&str] = &["2026-07-28"];

/// The `tools/call` example of the Streamable HTTP page.
const GET_WEATHER: &str = r#"{
  "jsonrpc": "2.0",
  "id": 1,
  "method": "tools/call",
  "params": {
    "name": "get_weather",
    "arguments": {
      "location": "Seattle, WA"
    },
    "_meta": {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": {
        "name": "ExampleClient",
        "version": "1.0.0"
      },
      "io.modelcontextprotocol/clientCapabilities": {}
    }
  }
}"#;

/// The `resources/read` example.
const READ_CONFIG: &str = r#"{
  "jsonrpc": "2.0",
  "id": 2,
  "method": "resources/read",
  "params": {
    "uri": "file:///projects/myapp/config.json",
    "_meta": {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": {
        "name": "ExampleClient",
        "version": "1.0.0"
      },
      "io.modelcontextprotocol/clientCapabilities": {}
    }
  }
}"#;

/// The `x-mcp-header` example (`execute_sql` with `Mcp-Param-Region`).
const EXECUTE_SQL: &str = r#"{
  "jsonrpc": "2.0",
  "id": 1,
  "method": "tools/call",
  "params": {
    "_meta": {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": {
        "name": "ExampleClient",
        "version": "1.0.0"
      },
      "io.modelcontextprotocol/clientCapabilities": {}
    },
    "name": "execute_sql",
    "arguments": {
      "region": "us-west1",
      "query": "SELECT * FROM users"
    }
  }
}"#;

const REGION: &[ParamHeader<'static>] = &[ParamHeader {
    name: "Region",
    path: &["region"],
}];

fn msg(body: &str) -> Message<'_> {
    Decoder::mcp().decode(body.as_bytes()).unwrap()
}

fn check<'h>(
    rules: HeaderCheck<'static>,
    body: &str,
    headers: &[(&'h str, &'h str)],
) -> Result<(), HeaderError<'h>> {
    let m = msg(body);
    rules.check(headers.iter().map(|(n, v)| (*n, v.as_bytes())), &m)
}

fn weather_headers() -> Vec<(&'static str, &'static str)> {
    vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "get_weather"),
    ]
}

fn with(
    mut headers: Vec<(&'static str, &'static str)>,
    name: &'static str,
    value: Option<&'static str>,
) -> Vec<(&'static str, &'static str)> {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    if let Some(v) = value {
        headers.push((name, v));
    }
    headers
}

#[test]
fn spec_examples_pass() {
    let rules = HeaderCheck::new(VERSIONS);
    assert_eq!(check(rules, GET_WEATHER, &weather_headers()), Ok(()));
    let read = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "resources/read"),
        ("Mcp-Name", "file:///projects/myapp/config.json"),
    ];
    assert_eq!(check(rules, READ_CONFIG, &read), Ok(()));
    let sql = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "execute_sql"),
        ("Mcp-Param-Region", "us-west1"),
    ];
    assert_eq!(check(rules.with_params(REGION), EXECUTE_SQL, &sql), Ok(()));
}

#[test]
fn header_names_are_case_insensitive_values_are_not() {
    let rules = HeaderCheck::new(VERSIONS);
    let lower = [
        ("mcp-protocol-version", "2026-07-28"),
        ("MCP-METHOD", "tools/call"),
        ("mcp-name", "get_weather"),
    ];
    assert_eq!(check(rules, GET_WEATHER, &lower), Ok(()));
    let h = with(weather_headers(), "Mcp-Method", Some("Tools/Call"));
    assert_eq!(
        check(rules, GET_WEATHER, &h),
        Err(HeaderError::Mismatch(Header::Method))
    );
    let h = with(weather_headers(), "Mcp-Name", Some("GET_WEATHER"));
    assert_eq!(
        check(rules, GET_WEATHER, &h),
        Err(HeaderError::Mismatch(Header::Name))
    );
}

#[test]
fn base64_sentinel_name() {
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"Hello, 世界","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let rules = HeaderCheck::new(VERSIONS);
    let mut h = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "prompts/get"),
        ("Mcp-Name", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    ];
    assert_eq!(check(rules, body, &h), Ok(()));
    assert_eq!(encode_header_value("Hello, 世界"), h[2].1);
    // Escaped in the body: compared after unescaping.
    let escaped = body.replace("世界", "\\u4e16\\u754c");
    assert_eq!(check(rules, &escaped, &h), Ok(()));
    // The raw UTF-8 bytes are not a valid header value.
    h[2].1 = "Hello, 世界";
    assert_eq!(
        check(rules, body, &h),
        Err(HeaderError::Malformed(Header::Name))
    );
    // A sentinel whose payload is not Base64.
    h[2].1 = "=?base64?not base64!?=";
    assert_eq!(
        check(rules, body, &h),
        Err(HeaderError::Malformed(Header::Name))
    );
    // The markers are case-sensitive: an uppercase sentinel is a literal value.
    h[2].1 = "=?BASE64?SGVsbG8sIOS4lueVjA==?=";
    assert_eq!(
        check(rules, body, &h),
        Err(HeaderError::Mismatch(Header::Name))
    );
}

#[test]
fn value_encoding_table() {
    // The encoding examples of the transport page.
    for (original, encoded) in [
        ("us-west1", "us-west1"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
    ] {
        assert_eq!(encode_header_value(original), encoded);
        assert_eq!(decode_header_value(encoded.as_bytes()).unwrap(), original);
    }
    assert_eq!(
        decode_header_value(b"a\r\nb"),
        Err(ValueError::InvalidCharacter)
    );
    assert_eq!(
        decode_header_value(b"=?base64?/w==?="),
        Err(ValueError::NotUtf8)
    );
}

/// A value looks like the sentinel only when it starts with `=?base64?` and ends with `?=`:
/// one with a single marker is plain ASCII, sent as it is and read back as itself.
#[test]
fn one_sentinel_marker_alone_is_plain() {
    for value in ["=?base64?x", "=?base64?", "x?=", "?=", "=?base64 x?="] {
        assert_eq!(encode_header_value(value), value);
        assert_eq!(decode_header_value(value.as_bytes()).unwrap(), value);
    }
}

/// The payload is Base64 as RFC 4648 defines it, and as clients encode it: padded, with zero
/// pad bits. Anything else is malformed (-32020), not read leniently: a component decoding it
/// strictly would see no value where we see one.
#[test]
fn base64_payloads_are_canonical() {
    for (value, why) in [
        (&b"=?base64?IHBhZGRlZCA?="[..], "no padding"),
        (b"=?base64?Cg=?=", "half the padding"),
        (b"=?base64?Lw?=", "no padding, one byte"),
        (b"=?base64?YR==?=", "non-zero pad bits"),
        (b"=?base64?IHBh ZGRlZCA=?=", "a space inside"),
        (b"=?base64?IHBhZGRlZCA==?=", "too much padding"),
        (b"=?base64?IHBhZGRlZCA-?=", "the URL-safe alphabet"),
    ] {
        assert_eq!(
            decode_header_value(value),
            Err(ValueError::BadBase64),
            "{why}"
        );
    }
    assert_eq!(decode_header_value(b"=?base64?Cg==?=").unwrap(), "\n");
    assert_eq!(decode_header_value(b"=?base64??=").unwrap(), "");
    let rules = HeaderCheck::new(VERSIONS);
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":" padded ","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let mut h = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "prompts/get"),
        ("Mcp-Name", "=?base64?IHBhZGRlZCA=?="),
    ];
    assert_eq!(check(rules, body, &h), Ok(()));
    h[2].1 = "=?base64?IHBhZGRlZCA?=";
    assert_eq!(
        check(rules, body, &h),
        Err(HeaderError::Malformed(Header::Name))
    );
}

#[test]
fn missing_required_headers() {
    let rules = HeaderCheck::new(VERSIONS);
    for (name, header) in [
        ("MCP-Protocol-Version", Header::ProtocolVersion),
        ("Mcp-Method", Header::Method),
        ("Mcp-Name", Header::Name),
    ] {
        let h = with(weather_headers(), name, None);
        assert_eq!(
            check(rules, GET_WEATHER, &h),
            Err(HeaderError::Missing(header)),
            "{name}"
        );
    }
    let read = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "resources/read"),
    ];
    assert_eq!(
        check(rules, READ_CONFIG, &read),
        Err(HeaderError::Missing(Header::Name))
    );
    // Mcp-Name is not required for other methods.
    let list = r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let h = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/list"),
    ];
    assert_eq!(check(rules, list, &h), Ok(()));
}

#[test]
fn mismatched_values() {
    let rules = HeaderCheck::new(VERSIONS);
    let h = with(weather_headers(), "Mcp-Name", Some("foo"));
    assert_eq!(
        check(rules, GET_WEATHER, &h),
        Err(HeaderError::Mismatch(Header::Name))
    );
    let h = with(weather_headers(), "Mcp-Method", Some("prompts/get"));
    assert_eq!(
        check(rules, GET_WEATHER, &h),
        Err(HeaderError::Mismatch(Header::Method))
    );
    // resources/read mirrors params.uri, not params.name.
    let read = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "resources/read"),
        ("Mcp-Name", "file:///projects/myapp/other.json"),
    ];
    assert_eq!(
        check(rules, READ_CONFIG, &read),
        Err(HeaderError::Mismatch(Header::Name))
    );
    // The protocol version header must equal _meta's, which must be there.
    let h = with(
        weather_headers(),
        "MCP-Protocol-Version",
        Some("2025-11-25"),
    );
    assert_eq!(
        check(rules, GET_WEATHER, &h),
        Err(HeaderError::Mismatch(Header::ProtocolVersion))
    );
    let no_meta =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather"}}"#;
    assert_eq!(
        check(rules, no_meta, &weather_headers()),
        Err(HeaderError::Mismatch(Header::ProtocolVersion))
    );
}

#[test]
fn invalid_characters_and_duplicates() {
    let rules = HeaderCheck::new(VERSIONS);
    let h = with(
        weather_headers(),
        "Mcp-Name",
        Some("get_weather\r\nX-Injected: 1"),
    );
    assert_eq!(
        check(rules, GET_WEATHER, &h),
        Err(HeaderError::Malformed(Header::Name))
    );
    let h = with(weather_headers(), "Mcp-Method", Some("tools/call\0"));
    assert_eq!(
        check(rules, GET_WEATHER, &h),
        Err(HeaderError::Malformed(Header::Method))
    );
    let mut h = weather_headers();
    h.push(("mcp-name", "get_weather"));
    assert_eq!(
        check(rules, GET_WEATHER, &h),
        Err(HeaderError::Duplicate(Header::Name))
    );
}

#[test]
fn unsupported_version_reply() {
    let rules = HeaderCheck::new(&["2026-07-28", "2025-11-25"]);
    let body = GET_WEATHER.replace("\"2026-07-28\"", "\"2099-01-01\"");
    let h = with(
        weather_headers(),
        "MCP-Protocol-Version",
        Some("2099-01-01"),
    );
    let err = check(rules, &body, &h).unwrap_err();
    assert_eq!(
        err,
        HeaderError::UnsupportedVersion {
            requested: "2099-01-01"
        }
    );
    assert_eq!(err.code().get(), -32022);
    // The version comes first, whatever is wrong with the other headers: a duplicate too.
    let mut twice = h.clone();
    twice.push(("mcp-method", "tools/call"));
    twice.push(("mcp-name", "get_weather"));
    assert_eq!(check(rules, &body, &twice), Err(err));
    let h_wrong = with(h.clone(), "Mcp-Method", Some("tools/list"));
    assert_eq!(check(rules, &body, &h_wrong), Err(err));
    // But not a duplicated version: which one is requested is ambiguous.
    twice.push(("MCP-PROTOCOL-VERSION", "2099-01-01"));
    assert_eq!(
        check(rules, &body, &twice),
        Err(HeaderError::Duplicate(Header::ProtocolVersion))
    );
    let m = msg(&body);
    let mut out = BytesMut::new();
    err.write_reply(
        &mut out,
        ReplyId::Id(m.id().unwrap()),
        &["2026-07-28", "2025-11-25"],
    );
    assert_eq!(out.last(), Some(&b'\n'));
    let reply: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        reply,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version",
            "data":{"supported":["2026-07-28","2025-11-25"],"requested":"2099-01-01"}}})
    );
}

/// An empty list of supported versions supports every version (`HeaderCheck::new`), and so
/// does the default check: a version no list names passes when the header and the body agree
/// on it, and a header that differs from the body is still a mismatch.
#[test]
fn an_empty_version_list_supports_every_version() {
    let future = GET_WEATHER.replace("\"2026-07-28\"", "\"2099-01-01\"");
    let h = with(
        weather_headers(),
        "MCP-Protocol-Version",
        Some("2099-01-01"),
    );
    for rules in [HeaderCheck::new(&[]), HeaderCheck::default()] {
        assert_eq!(check(rules, &future, &h), Ok(()));
        assert_eq!(check(rules, GET_WEATHER, &weather_headers()), Ok(()));
        assert_eq!(
            check(rules, GET_WEATHER, &h),
            Err(HeaderError::Mismatch(Header::ProtocolVersion))
        );
    }
}

/// An error names the header at fault, the one it carries (a `Mcp-Param-*` one included),
/// or the protocol version's for an unsupported version, and the code of its reply: -32022
/// for an unsupported version, -32020 for the rest.
#[test]
fn an_error_names_its_header_and_its_code() {
    let region = Header::Param("Region");
    for (err, header, code) in [
        (HeaderError::Missing(Header::Method), Header::Method, -32020),
        (HeaderError::Duplicate(Header::Name), Header::Name, -32020),
        (HeaderError::Malformed(region), region, -32020),
        (
            HeaderError::Mismatch(Header::ProtocolVersion),
            Header::ProtocolVersion,
            -32020,
        ),
        (
            HeaderError::UnsupportedVersion {
                requested: "2099-01-01",
            },
            Header::ProtocolVersion,
            -32022,
        ),
    ] {
        assert_eq!(err.header(), header, "{err:?}");
        assert_eq!(err.code().get(), code, "{err:?}");
    }
}

#[test]
fn mismatch_replies_name_the_header() {
    let m = msg(GET_WEATHER);
    for (err, name) in [
        (
            HeaderError::Missing(Header::ProtocolVersion),
            "MCP-Protocol-Version",
        ),
        (HeaderError::Mismatch(Header::Method), "Mcp-Method"),
        (HeaderError::Malformed(Header::Name), "Mcp-Name"),
        (HeaderError::Duplicate(Header::Name), "Mcp-Name"),
        (
            HeaderError::Mismatch(Header::Param("Region")),
            "Mcp-Param-Region",
        ),
    ] {
        let mut out = BytesMut::new();
        // The request's `Id` as it is, as `encode::write_error` takes it.
        err.write_reply(&mut out, m.id().unwrap(), VERSIONS);
        let reply: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(reply["id"], 1);
        assert_eq!(reply["error"]["code"], -32020);
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("Header mismatch: "), "{message}");
        assert!(message.contains(name), "{message}");
    }
}

#[test]
fn param_headers() {
    let rules = HeaderCheck::new(VERSIONS).with_params(REGION);
    let base = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "execute_sql"),
    ];
    let region = Header::Param("Region");
    // Value in the body, header omitted: the client is non-conforming.
    assert_eq!(
        check(rules, EXECUTE_SQL, &base),
        Err(HeaderError::Missing(region))
    );
    let h = with(base.clone(), "mcp-param-region", Some("us-east1"));
    assert_eq!(
        check(rules, EXECUTE_SQL, &h),
        Err(HeaderError::Mismatch(region))
    );
    let h = with(base.clone(), "MCP-PARAM-REGION", Some("us-west1"));
    assert_eq!(check(rules, EXECUTE_SQL, &h), Ok(()));
    let h = with(base.clone(), "Mcp-Param-Region", Some("us-west1\u{7f}"));
    assert_eq!(
        check(rules, EXECUTE_SQL, &h),
        Err(HeaderError::Malformed(region))
    );
    // null or absent in the arguments: no header expected; a header then is a mismatch.
    for args in [r#""region": null, "#, ""] {
        let body = EXECUTE_SQL.replace(r#""region": "us-west1","#, args);
        assert_eq!(check(rules, &body, &base), Ok(()), "{args}");
        let h = with(base.clone(), "Mcp-Param-Region", Some("us-west1"));
        assert_eq!(
            check(rules, &body, &h),
            Err(HeaderError::Mismatch(region)),
            "{args}"
        );
    }
    // Unknown Mcp-Param-* headers are ignored.
    let h = with(
        with(base.clone(), "Mcp-Param-Region", Some("us-west1")),
        "Mcp-Param-Other",
        Some("x"),
    );
    assert_eq!(check(rules, EXECUTE_SQL, &h), Ok(()));
}

#[test]
fn param_header_types() {
    const PARAMS: &[ParamHeader<'static>] = &[
        ParamHeader {
            name: "Limit",
            path: &["opts", "limit"],
        },
        ParamHeader {
            name: "Dry",
            path: &["dry"],
        },
        ParamHeader {
            name: "Greeting",
            path: &["greeting"],
        },
    ];
    let rules = HeaderCheck::new(VERSIONS).with_params(PARAMS);
    let body = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","arguments":{"opts":{"limit":42},"dry":true,"greeting":"Hello, 世界"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let h = |limit: &'static str, dry: &'static str| {
        vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "t"),
            ("Mcp-Param-Limit", limit),
            ("Mcp-Param-Dry", dry),
            ("Mcp-Param-Greeting", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        ]
    };
    assert_eq!(check(rules, body, &h("42", "true")), Ok(()));
    // Integers compare numerically.
    assert_eq!(check(rules, body, &h("42.0", "true")), Ok(()));
    assert_eq!(
        check(rules, body, &h("43", "true")),
        Err(HeaderError::Mismatch(Header::Param("Limit")))
    );
    assert_eq!(
        check(rules, body, &h("42", "True")),
        Err(HeaderError::Mismatch(Header::Param("Dry")))
    );
    assert_eq!(check(rules, body, &h("4.2e1", "true")), Ok(()));
    assert_eq!(
        check(rules, body, &h("forty-two", "true")),
        Err(HeaderError::Mismatch(Header::Param("Limit")))
    );
}

/// A tool with one annotated integer parameter, `n` as `Mcp-Param-N`.
const N: &[ParamHeader<'static>] = &[ParamHeader {
    name: "N",
    path: &["n"],
}];

/// A call of that tool with `n` (a JSON number token).
fn n_body(n: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"n":{n}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}}}"#
    )
}

/// Its headers, with `n` as `Mcp-Param-N`.
fn n_headers(n: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "t"),
        ("Mcp-Param-N", n),
    ]
}

/// An integer header compares numerically: leading zeros are no different number (`042` is
/// 42), and an exponent is part of the number (`4.2e1` is 42). A plus sign, a bare point or
/// anything not a number is a mismatch.
#[test]
fn param_integers_compare_numerically() {
    let rules = HeaderCheck::new(VERSIONS).with_params(N);
    for (n, header) in [
        ("42", "042"),
        ("42", "0042.000"),
        ("-7", "-007"),
        ("0", "00"),
        ("0", "-0"),
        ("0", "0.0"),
        ("42", "4.2e1"),
        ("42.0", "42"),
        ("1e2", "100"),
    ] {
        assert_eq!(
            check(rules, &n_body(n), &n_headers(header)),
            Ok(()),
            "{n} and {header}"
        );
    }
    for (n, header) in [
        ("42", "+42"),
        ("42", "42."),
        ("42", ".42"),
        ("42", "0x2A"),
        ("42", "0042.5"),
        ("7", "-07"),
        ("42", "4 2"),
    ] {
        assert_eq!(
            check(rules, &n_body(n), &n_headers(header)),
            Err(HeaderError::Mismatch(Header::Param("N"))),
            "{n} and {header}"
        );
    }
}

/// Numbers compare by value exactly, at any size: through `f64` these two would be equal.
#[test]
fn param_numbers_compare_exactly() {
    let rules = HeaderCheck::new(VERSIONS).with_params(N);
    let body = &n_body("9007199254740993");
    let headers = n_headers;
    assert_eq!(
        check(rules, body, &headers("9007199254740992")),
        Err(HeaderError::Mismatch(Header::Param("N")))
    );
    assert_eq!(check(rules, body, &headers("9007199254740993")), Ok(()));
    assert_eq!(check(rules, body, &headers("9007199254740993.000")), Ok(()));
}

/// A lone surrogate in the body is no character: no header value mirrors it (U+FFFD, which
/// a lossy decoding shows, does not).
#[test]
fn a_lone_surrogate_name_matches_no_header() {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud800","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let name = encode_header_value("\u{fffd}");
    let name: &'static str = Box::leak(name.into_owned().into_boxed_str());
    let headers = with(weather_headers(), "Mcp-Name", Some(name));
    assert_eq!(
        check(HeaderCheck::new(VERSIONS), body, &headers),
        Err(HeaderError::Mismatch(Header::Name))
    );
}

/// A body member spelled twice is ambiguous (a gateway routing on the header and a server
/// acting on either value would disagree): its header is a mismatch, present or not.
#[test]
fn duplicated_body_members_are_mismatches() {
    const PARAMS: &[ParamHeader<'static>] = &[ParamHeader {
        name: "Region",
        path: &["region"],
    }];
    let rules = HeaderCheck::new(VERSIONS).with_params(PARAMS);
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
    let headers = weather_headers();
    let headers: Vec<_> = headers
        .into_iter()
        .map(|(n, v)| if n == "Mcp-Name" { (n, "t") } else { (n, v) })
        .collect();
    for arguments in [
        r#""arguments":{"region":"eu","region":"us"}"#,
        r#""arguments":{"region":"eu"},"arguments":{"region":"us"}"#,
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t",{arguments},{meta}}}}}"#
        );
        for region in [None, Some("eu"), Some("us")] {
            let headers = with(headers.clone(), "Mcp-Param-Region", region);
            assert_eq!(
                check(rules, &body, &headers),
                Err(HeaderError::Mismatch(Header::Param("Region"))),
                "{arguments} with {region:?}"
            );
        }
    }
    // A duplicated protocol version in `_meta` is no version.
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    assert_eq!(
        check(rules, body, &headers),
        Err(HeaderError::Mismatch(Header::ProtocolVersion))
    );
}

#[test]
fn notifications_check_only_present_headers() {
    let n = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    let rules = HeaderCheck::new(VERSIONS);
    assert_eq!(check(rules, n, &[]), Ok(()));
    assert_eq!(
        check(rules, n, &[("Mcp-Method", "notifications/cancelled")]),
        Ok(())
    );
    assert_eq!(
        check(rules, n, &[("Mcp-Method", "tools/call")]),
        Err(HeaderError::Mismatch(Header::Method))
    );
    // Every POST carries MCP-Protocol-Version, but a notification's body has no version to
    // mirror: the header is checked alone (still against the supported versions).
    let version = |v: &'static str| {
        [
            ("MCP-Protocol-Version", v),
            ("Mcp-Method", "notifications/cancelled"),
        ]
    };
    assert_eq!(check(rules, n, &version("2026-07-28")), Ok(()));
    assert!(matches!(
        check(rules, n, &version("2024-01-01")),
        Err(HeaderError::UnsupportedVersion { .. })
    ));
    // One that does carry a version in `_meta` must agree with the header.
    let with_meta = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#;
    let headers = [("MCP-Protocol-Version", "2026-07-28")];
    assert_eq!(
        check(rules, with_meta, &headers),
        Err(HeaderError::Mismatch(Header::ProtocolVersion))
    );
}

/// A notification requires no header, whatever its method: one named as a request that
/// `Mcp-Name` and `Mcp-Param-*` mirror (`tools/call`, with the tool's name and an annotated
/// argument in its body) passes without them, and the ones it carries must still agree with
/// its body.
#[test]
fn a_notification_of_a_request_method_requires_no_name_or_param_header() {
    let rules = HeaderCheck::new(VERSIONS).with_params(REGION);
    let n = r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"execute_sql","arguments":{"region":"us-west1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let base = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
    ];
    assert_eq!(check(rules, n, &[]), Ok(()));
    assert_eq!(check(rules, n, &base), Ok(()));
    let named = with(base.clone(), "Mcp-Name", Some("execute_sql"));
    assert_eq!(check(rules, n, &named), Ok(()));
    let all = with(named.clone(), "Mcp-Param-Region", Some("us-west1"));
    assert_eq!(check(rules, n, &all), Ok(()));
    assert_eq!(
        check(rules, n, &with(base.clone(), "Mcp-Name", Some("other"))),
        Err(HeaderError::Mismatch(Header::Name))
    );
    assert_eq!(
        check(rules, n, &with(named, "Mcp-Param-Region", Some("eu"))),
        Err(HeaderError::Mismatch(Header::Param("Region")))
    );
}

/// Only spaces and tabs around a value are whitespace (RFC 9110's OWS): a line break or
/// another control character at either end is a character outside visible ASCII, space and
/// tab like one inside, and the value is malformed, not trimmed into a match. (A peer that
/// reads the raw header sees `tools/call\n`, not what the check compared.)
#[test]
fn control_characters_around_a_value_are_not_whitespace() {
    let rules = HeaderCheck::new(VERSIONS);
    for (name, value, header) in [
        ("Mcp-Method", "tools/call\n", Header::Method),
        ("Mcp-Method", "\x0ctools/call", Header::Method),
        ("Mcp-Name", "get_weather\r\n", Header::Name),
        ("Mcp-Name", "\rget_weather", Header::Name),
        (
            "MCP-Protocol-Version",
            "2026-07-28\x0c",
            Header::ProtocolVersion,
        ),
    ] {
        let h = with(weather_headers(), name, Some(value));
        assert_eq!(
            check(rules, GET_WEATHER, &h),
            Err(HeaderError::Malformed(header)),
            "{value:?}"
        );
    }
    for value in [&b"get_weather\n"[..], b"\x0cget_weather", b"\r\nx"] {
        assert_eq!(
            decode_header_value(value),
            Err(ValueError::InvalidCharacter),
            "{value:?}"
        );
    }
    // Spaces and tabs around a value are not part of it.
    let h = with(weather_headers(), "Mcp-Name", Some(" \tget_weather\t "));
    assert_eq!(check(rules, GET_WEATHER, &h), Ok(()));
    assert_eq!(decode_header_value(b"\t x \t").unwrap(), "x");
}

/// The choices where the official Python SDK decides otherwise (see `HeaderCheck`; the
/// differential `tests/headers_python.rs` runs the SDK on the same cases).
#[test]
fn choices_where_the_python_sdk_differs() {
    let rules = HeaderCheck::new(VERSIONS);
    let prompt = r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"é","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let m = msg(prompt);
    let with_name = |name: &'static [u8]| {
        [
            ("MCP-Protocol-Version", &b"2026-07-28"[..]),
            ("Mcp-Method", b"prompts/get"),
            ("Mcp-Name", name),
        ]
    };
    // A raw Latin-1 byte is no valid header character, even where its Latin-1 reading is
    // the body's name; nor is one inside the sentinel.
    for name in [&b"\xe9"[..], b"=?base64?\xe9?="] {
        assert_eq!(
            rules.check(with_name(name), &m),
            Err(HeaderError::Malformed(Header::Name)),
            "{name:?}"
        );
    }
    assert_eq!(rules.check(with_name(b"=?base64?w6k=?="), &m), Ok(()));

    // Mcp-Name is required on tools/call whatever the body holds, and must match it.
    let nameless = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    assert_eq!(
        check(rules, nameless, &with(weather_headers(), "Mcp-Name", None)),
        Err(HeaderError::Missing(Header::Name))
    );
    assert_eq!(
        check(rules, nameless, &weather_headers()),
        Err(HeaderError::Mismatch(Header::Name))
    );

    // An unsupported version is reported before the other headers.
    let future = GET_WEATHER.replace("\"2026-07-28\"", "\"2099-01-01\"");
    let h = with(
        with(
            weather_headers(),
            "MCP-Protocol-Version",
            Some("2099-01-01"),
        ),
        "Mcp-Method",
        Some("tools/list"),
    );
    assert_eq!(
        check(rules, &future, &h),
        Err(HeaderError::UnsupportedVersion {
            requested: "2099-01-01"
        })
    );

    // A value at an annotated path needs its header, whatever its type.
    let object = EXECUTE_SQL.replace(r#""us-west1""#, r#"{"zone":"a"}"#);
    let base = with(weather_headers(), "Mcp-Name", Some("execute_sql"));
    assert_eq!(
        check(rules.with_params(REGION), &object, &base),
        Err(HeaderError::Missing(Header::Param("Region")))
    );

    // The sentinel's markers overlapping: encoded on the way out, literal on the way in.
    assert_eq!(
        encode_header_value("=?base64?="),
        "=?base64?PT9iYXNlNjQ/PQ==?="
    );
    assert_eq!(decode_header_value(b"=?base64?=").unwrap(), "=?base64?=");
}

/// The official Tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`): "When
/// `tasks/get`, `tasks/update`, or `tasks/cancel` is sent over the Streamable HTTP transport,
/// the client **MUST** set the `Mcp-Name` header to the value of `params.taskId`", so that
/// load balancers route a task's requests to the server holding it. A client mirrors it, and
/// a server checks it as it checks `Mcp-Name` for `tools/call`: required, and equal to the
/// body's.
#[test]
fn task_requests_mirror_their_task_id_as_mcp_name() {
    let rules = HeaderCheck::new(VERSIONS);
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": {
            "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
        .to_string();
        let m = msg(&body);
        let mirrored = rpcwire::headers::mirror_headers(&m, None, None).unwrap();
        let mirrored: Vec<(String, String)> = mirrored
            .iter()
            .map(|(h, v)| (h.to_string(), v.to_string()))
            .collect();
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        assert_eq!(
            mirrored,
            [
                pair("MCP-Protocol-Version", "2026-07-28"),
                pair("Mcp-Method", method),
                pair("Mcp-Name", "786512e2-9e0d-44bd-8f29-789f320fe840"),
            ],
            "{method}"
        );
        let headers = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
            ("Mcp-Name", "786512e2-9e0d-44bd-8f29-789f320fe840"),
        ];
        assert_eq!(check(rules, &body, &headers), Ok(()), "{method}");
        assert_eq!(
            check(
                rules,
                &body,
                &with(headers.clone(), "Mcp-Name", Some("other"))
            ),
            Err(HeaderError::Mismatch(Header::Name)),
            "{method}"
        );
        assert_eq!(
            check(rules, &body, &with(headers, "Mcp-Name", None)),
            Err(HeaderError::Missing(Header::Name)),
            "{method}"
        );
    }
}

/// `Mcp-Session-Id`: every visible ASCII byte (0x21-0x7E) is taken, and every other byte is
/// refused where it stands, first or inside; the spaces and tabs around the value are not
/// part of it.
#[test]
fn session_ids_are_visible_ascii() {
    use rpcwire::headers::{SessionIdError, session_id};
    let visible: Vec<u8> = (0x21..=0x7e).collect();
    assert_eq!(session_id(&visible).unwrap().as_bytes(), &visible[..]);
    assert_eq!(session_id(b"\t x \t"), Ok("x"));
    for byte in (0..=0xffu8).filter(|b| !(0x21..=0x7e).contains(b)) {
        let inside = [b'a', byte, b'b'];
        assert_eq!(
            session_id(&inside),
            Err(SessionIdError::NotVisibleAscii { at: 1, byte }),
            "{byte:#04x} inside"
        );
        if byte != b' ' && byte != b'\t' {
            let leading = [b' ', byte, b'a'];
            assert_eq!(
                session_id(&leading),
                Err(SessionIdError::NotVisibleAscii { at: 1, byte }),
                "{byte:#04x} first"
            );
        }
    }
    for empty in [&b""[..], b" ", b"\t \t"] {
        assert_eq!(session_id(empty), Err(SessionIdError::Empty));
    }
    assert_eq!(
        SessionIdError::NotVisibleAscii { at: 3, byte: 0x7f }.to_string(),
        "Mcp-Session-Id header holds byte 0x7f at 3, outside visible ASCII (0x21-0x7e)"
    );
    assert_eq!(rpcwire::headers::SESSION_ID, "Mcp-Session-Id");
}
