//! `mcp::write_request_with_meta`: members spliced into a request's `params._meta`, checked
//! against serde_json's reading of the line written (the params as given, plus the members),
//! and every refusal writing nothing.

use bytes::BytesMut;
use rpcwire::mcp::{self, MetaRequestError, MetaValue, RequestMeta, meta_keys, versions};
use rpcwire::{Decoder, Id, Message, RawJson, encode};
use serde_json::{Map, Value, json};

fn id(token: &[u8]) -> Id<'_> {
    Id::from_token(token).unwrap()
}

fn write(
    params: Option<&[u8]>,
    meta: &[(&str, MetaValue<'_>)],
) -> Result<BytesMut, MetaRequestError> {
    let params = params.map(|p| RawJson::new(p).expect("test params are lazily valid"));
    let mut out = BytesMut::from(&b"before\n"[..]);
    let written = mcp::write_request_with_meta(&mut out, id(b"7"), "tools/call", params, meta);
    match written {
        Ok(()) => Ok(out.split_off(7)),
        Err(e) => {
            assert_eq!(&out[..], b"before\n", "a refusal appends nothing");
            Err(e)
        }
    }
}

/// The 2026-07-28 members a client names in each request.
fn stamp() -> [(&'static str, MetaValue<'static>); 2] {
    [
        (meta_keys::PROTOCOL_VERSION, versions::V2026_07_28.into()),
        (
            meta_keys::CLIENT_CAPABILITIES,
            RawJson::new(br#"{"roots":{}}"#).unwrap().into(),
        ),
    ]
}

/// The line written, read by serde_json: one line, a request of id 7, and its params.
fn params_of(line: &[u8]) -> Option<Value> {
    let (last, body) = line.split_last().unwrap();
    assert_eq!(*last, b'\n');
    assert!(
        !body.contains(&b'\n'),
        "one line: {}",
        String::from_utf8_lossy(line)
    );
    let mut value: Value = serde_json::from_slice(body).unwrap();
    assert_eq!(value["jsonrpc"], "2.0");
    assert_eq!(value["id"], 7);
    assert_eq!(value["method"], "tools/call");
    value.as_object_mut().unwrap().remove("params")
}

/// `params` as serde_json reads them, with `members` added to their `_meta` (made when
/// absent).
fn expected(params: Option<&[u8]>, members: Value) -> Value {
    let mut params: Value = params.map_or(json!({}), |p| serde_json::from_slice(p).unwrap());
    let meta = params
        .as_object_mut()
        .unwrap()
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    for (k, v) in members.as_object().unwrap() {
        meta.as_object_mut().unwrap().insert(k.clone(), v.clone());
    }
    params
}

#[test]
fn members_join_the_params_as_given_whatever_their_shape() {
    let members = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
    });
    let cases: [Option<&[u8]>; 10] = [
        None,
        Some(b"{}"),
        Some(b" { \t } "),
        Some(br#"{"name":"add"}"#),
        Some(br#"{"_meta":{}}"#),
        Some(br#"{"_meta": { } ,"name":"add"}"#),
        Some(br#"{"name":"add","_meta":{"progressToken":"p","trace":[1,{"_meta":2}]}}"#),
        Some(b"{\n\"name\":\"a\\nb\",\r\n\"arguments\":{\"x\":[1,\n2]}}"),
        Some(br#"{"arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}"#),
        Some(br#"{"\u005fmeta2":1,"name":"\u00e9"}"#),
    ];
    for params in cases {
        let line = write(params, &stamp()).unwrap();
        assert_eq!(
            params_of(&line),
            Some(expected(params, members.clone())),
            "{:?}",
            params.map(String::from_utf8_lossy)
        );
        // A server of 2026-07-28 serves it.
        let Ok(Message::Request(req)) = Decoder::mcp().decode(&line[..line.len() - 1]) else {
            panic!("{}", String::from_utf8_lossy(&line));
        };
        assert_eq!(
            RequestMeta::from_request(&req).check(&[versions::V2026_07_28]),
            Ok(versions::V2026_07_28)
        );
    }
}

#[test]
fn members_come_first_in_their_order_and_other_bytes_stay() {
    let line = write(Some(br#"{"name":"add","_meta":{"trace":1}}"#), &stamp()).unwrap();
    assert_eq!(
        &line[..],
        &br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"trace":1}}}
"#[..]
    );
    let line = write(Some(br#"{"name":"add"}"#), &stamp()[..1]).unwrap();
    assert_eq!(
        &line[..],
        &br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"add"}}
"#[..]
    );
}

#[test]
fn strings_are_escaped_and_json_values_kept() {
    let meta = [
        (
            "example.com/note",
            MetaValue::Str("line\nbreak \"quoted\" \u{1}"),
        ),
        (
            "raw",
            MetaValue::Json(RawJson::new(b"[1,\n\"x\"]").unwrap()),
        ),
    ];
    let line = write(None, &meta).unwrap();
    assert_eq!(
        params_of(&line),
        Some(
            json!({"_meta": {"example.com/note": "line\nbreak \"quoted\" \u{1}", "raw": [1, "x"]}})
        )
    );
}

#[test]
fn no_members_writes_the_request_as_encode_does() {
    for params in [None, Some(&br#"{"name":"add","_meta":{"trace":1}}"#[..])] {
        let line = write(params, &[]).unwrap();
        let mut plain = BytesMut::new();
        let raw = params.map(|p| RawJson::new(p).unwrap());
        encode::write_request(&mut plain, id(b"7"), "tools/call", raw);
        assert_eq!(line, plain);
    }
    // The same checks of the params as with members.
    assert_eq!(write(Some(b"[1]"), &[]), Err(MetaRequestError::NotAnObject));
    assert_eq!(
        write(Some(br#"{"_meta":1}"#), &[]),
        Err(MetaRequestError::NotAnObject)
    );
    assert_eq!(
        write(Some(br#"{"_meta":{},"_meta":{}}"#), &[]),
        Err(MetaRequestError::Malformed)
    );
}

#[test]
fn a_key_that_breaks_mcps_naming_rules_is_refused() {
    // "Unless empty, MUST begin and end with an alphanumeric character"; a prefix's labels
    // "MUST start with a letter and end with a letter or digit".
    for bad in [
        "a b",
        "-x",
        "x-",
        "1.example/x",
        "example./x",
        "a\"b",
        "/x",
        "\n",
    ] {
        let meta = [("ok", MetaValue::Str("1")), (bad, MetaValue::Str("2"))];
        assert_eq!(
            write(None, &meta),
            Err(MetaRequestError::BadKey(1)),
            "{bad:?}"
        );
        assert_eq!(
            write(Some(br#"{"_meta":{}}"#), &meta),
            Err(MetaRequestError::BadKey(1)),
            "{bad:?}"
        );
    }
    // An empty name is allowed, as are the keys MCP defines.
    for good in [
        "",
        "progressToken",
        meta_keys::PROTOCOL_VERSION,
        "a.b-c/d_e.f",
    ] {
        let line = write(None, &[(good, MetaValue::Str("v"))]).unwrap();
        assert_eq!(
            params_of(&line),
            Some(json!({"_meta": {good: "v"}})),
            "{good:?}"
        );
    }
}

#[test]
fn a_key_named_twice_is_refused() {
    // In the params already, however it is spelled, once or twice.
    let present: [&[u8]; 3] = [
        br#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}"#,
        br#"{"_meta":{"io.modelcontextprotocol\/clientCapabilities":null}}"#,
        br#"{"_meta":{"x":1,"io.modelcontextprotocol/clientCapabilities":1,"io.modelcontextprotocol/clientCapabilities":2}}"#,
    ];
    for params in present {
        assert_eq!(
            write(Some(params), &stamp()),
            Err(MetaRequestError::Present(1))
        );
    }
    // Or twice in `meta`.
    let twice = [
        ("a", MetaValue::Str("1")),
        ("b", MetaValue::Str("2")),
        ("a", MetaValue::Str("3")),
    ];
    assert_eq!(write(None, &twice), Err(MetaRequestError::Present(2)));
    assert_eq!(
        write(Some(br#"{"_meta":{}}"#), &twice),
        Err(MetaRequestError::Present(2))
    );
}

#[test]
fn params_that_cannot_take_the_members_are_refused() {
    let cases: [(&[u8], MetaRequestError); 7] = [
        (b"[1,2]", MetaRequestError::NotAnObject),
        (b"\"x\"", MetaRequestError::NotAnObject),
        (br#"{"_meta":[]}"#, MetaRequestError::NotAnObject),
        (br#"{"_meta":null}"#, MetaRequestError::NotAnObject),
        (br#"{"_meta":{},"_meta":{}}"#, MetaRequestError::Malformed),
        (br#"{"a" 1,"_meta":{}}"#, MetaRequestError::Malformed),
        (br#"{"_meta":{"a" 1}}"#, MetaRequestError::Malformed),
    ];
    for (params, error) in cases {
        assert_eq!(
            write(Some(params), &stamp()),
            Err(error),
            "{}",
            String::from_utf8_lossy(params)
        );
    }
}

#[test]
fn an_id_mcp_refuses_is_refused() {
    for bad in [&b"null"[..], b"1.5", b"-0.0"] {
        let mut out = BytesMut::new();
        let written = mcp::write_request_with_meta(&mut out, id(bad), "ping", None, &stamp());
        assert_eq!(written, Err(MetaRequestError::BadId));
        assert!(out.is_empty());
    }
    let mut out = BytesMut::new();
    mcp::write_request_with_meta(&mut out, id(br#""s-1""#), "ping", None, &stamp()).unwrap();
    assert!(out.starts_with(br#"{"jsonrpc":"2.0","id":"s-1","method":"ping","params":"#));
}

#[test]
fn a_progress_token_joins_the_same_meta() {
    let mut out = BytesMut::new();
    mcp::write_request_with_meta(
        &mut out,
        id(b"7"),
        "tools/call",
        Some(RawJson::new(br#"{"name":"slow"}"#).unwrap()),
        &stamp(),
    )
    .unwrap();
    let stamped = out.split();
    let params = params_of(&stamped).unwrap().to_string();
    mcp::write_request_with_progress(
        &mut out,
        id(b"7"),
        "tools/call",
        Some(RawJson::new(params.as_bytes()).unwrap()),
        id(b"\"p\""),
    )
    .unwrap();
    let Ok(Message::Request(req)) = Decoder::mcp().decode(&out[..out.len() - 1]) else {
        panic!()
    };
    assert_eq!(
        RequestMeta::from_request(&req).check(&[versions::V2026_07_28]),
        Ok(versions::V2026_07_28)
    );
    assert_eq!(
        mcp::requested_progress_token(&req).map(|t| t.raw()),
        Some(&b"\"p\""[..])
    );
}
