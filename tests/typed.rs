//! Typed access with serde: round trips of realistic MCP payloads, scratch reuse without
//! growth, and the frame left untouched.
#![cfg(feature = "serde")]

mod common;

use std::collections::BTreeMap;

use bytes::BytesMut;
use rpcwire::typed::{self, Scratch};
use rpcwire::{Decoder, Message, RawJson, ReplyId, encode};
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct ToolCall {
    name: String,
    arguments: BTreeMap<String, serde_json::Value>,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    progress_token: serde_json::Value,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult {
    protocol_version: String,
    capabilities: serde_json::Value,
    server_info: Implementation,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Implementation {
    name: String,
    version: String,
}

fn request(frame: &[u8]) -> rpcwire::Request<'_> {
    match Decoder::mcp().decode(frame) {
        Ok(Message::Request(r)) => r,
        other => panic!("{other:?}"),
    }
}

#[test]
fn tools_call_params_round_trip_and_the_frame_is_untouched() {
    let call = ToolCall {
        name: "create_entities".into(),
        arguments: [(
            "entities".to_string(),
            serde_json::json!([{"name": "Ada", "note": "a \"quoted\" é"}]),
        )]
        .into_iter()
        .collect(),
        meta: Some(Meta {
            progress_token: serde_json::json!("tok-1"),
        }),
    };
    let mut raw = Vec::new();
    let params = typed::to_raw(&call, &mut raw).unwrap();
    let mut frame = BytesMut::new();
    encode::write_request(
        &mut frame,
        rpcwire::Id::from_token(b"7").unwrap(),
        "tools/call",
        Some(params),
    );
    let frame = frame.freeze();
    let line = &frame[..frame.len() - 1];
    let before = line.to_vec();

    let req = request(line);
    let mut scratch = Scratch::new();
    let back: ToolCall = scratch.deserialize(req.params.unwrap()).unwrap();
    assert_eq!(back, call);
    // The serde_json path agrees.
    let back2: ToolCall = typed::deserialize_borrowed(req.params.unwrap()).unwrap();
    assert_eq!(back2, call);
    assert_eq!(line, &before[..], "typed access must not modify the frame");
}

#[test]
fn initialize_result_from_the_recorded_session() {
    let capture = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/capture-s2c.ndjson"
    ))
    .unwrap();
    let first = capture.split(|&b| b == b'\n').next().unwrap();
    let decoder = Decoder::mcp_client();
    let Ok(Message::Response(resp)) = decoder.decode(first) else {
        panic!("not a response")
    };
    let init: InitializeResult = Scratch::new().deserialize(resp.result).unwrap();
    assert_eq!(init.protocol_version, "2025-11-25");
    assert_eq!(
        init.server_info,
        Implementation {
            name: "memory-server".into(),
            version: "0.6.3".into()
        }
    );
    // And back: serialize, splice, decode, compare.
    let mut raw = Vec::new();
    let mut out = BytesMut::new();
    encode::write_response(&mut out, resp.id, typed::to_raw(&init, &mut raw).unwrap());
    let Ok(Message::Response(again)) = decoder.decode(&out[..out.len() - 1]) else {
        panic!()
    };
    assert_eq!(
        typed::deserialize_borrowed::<InitializeResult>(again.result).unwrap(),
        init
    );
}

#[test]
fn scratch_stops_growing_across_10000_messages() {
    let mut scratch = Scratch::new();
    let mut frames = vec![];
    for i in 0..10_000 {
        let text = "x".repeat(i % 97);
        frames.push(format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"t{i}","arguments":{{"text":"{text}"}}}}}}"#
        ));
    }
    let mut capacity_after_warmup = 0;
    for (i, f) in frames.iter().enumerate() {
        let req = request(f.as_bytes());
        let call: ToolCall = scratch.deserialize(req.params.unwrap()).unwrap();
        assert_eq!(call.name, format!("t{i}"));
        if i == 100 {
            capacity_after_warmup = scratch.capacity();
        }
    }
    assert_eq!(scratch.capacity(), capacity_after_warmup);
}

#[test]
fn type_errors_become_invalid_params_replies() {
    let req =
        request(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#);
    let err = Scratch::new()
        .deserialize::<ToolCall>(req.params.unwrap())
        .unwrap_err();
    assert_eq!(err.code(), rpcwire::ErrorCode::INVALID_PARAMS);
    let mut out = BytesMut::new();
    err.write_reply(&mut out, ReplyId::Id(req.id));
    let reply: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(reply["id"], 3);
    assert_eq!(reply["error"]["code"], -32602);
    assert!(
        reply["error"]["data"].as_str().unwrap().contains("name"),
        "{reply}"
    );
}

/// A `tools/call` request frame holding `params` as they are.
fn tools_call(params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
}

/// The params of `frame`, a request the default (lazy) MCP decoder takes.
fn lazy_params(frame: &str) -> RawJson<'_> {
    match Decoder::mcp().decode(frame.as_bytes()) {
        Ok(Message::Request(req)) => req.params.unwrap(),
        other => panic!("{frame}: {other:?}"),
    }
}

/// Params that lazy validation let through but that are not JSON (a missing colon, a trailing
/// comma, a bare word) are syntax errors on both paths, which a server may answer -32700;
/// JSON of the wrong shape (a missing field, a wrong type, a duplicated field) is not. The
/// reply `write_reply` writes is -32602 either way.
#[test]
fn a_syntax_error_is_told_from_a_wrong_shape_on_both_paths() {
    let read = |params: &str| {
        let frame = tools_call(params);
        let params = lazy_params(&frame);
        let scratch = Scratch::new().deserialize::<ToolCall>(params).unwrap_err();
        let borrowed = typed::deserialize_borrowed::<ToolCall>(params).unwrap_err();
        assert_eq!(scratch.code(), rpcwire::ErrorCode::INVALID_PARAMS);
        assert_eq!(scratch.is_syntax(), borrowed.is_syntax(), "{params}");
        scratch.is_syntax()
    };
    for not_json in [
        r#"{"name" "add","arguments":{}}"#,
        r#"{"name":"add","arguments":{},}"#,
        r#"{"name":"add","arguments":{"a":1 2}}"#,
        r#"{"name":"add","arguments":{"a":01}}"#,
    ] {
        assert!(read(not_json), "{not_json}");
    }
    for wrong_shape in [
        r#"{"arguments":{}}"#,
        r#"{"name":7,"arguments":{}}"#,
        r#"{"name":"a","name":"b","arguments":{}}"#,
        r#"{"name":"add","arguments":[]}"#,
    ] {
        assert!(!read(wrong_shape), "{wrong_shape}");
    }
}

/// `is_syntax` judges the value, not where serde_json stopped: params that are not JSON are
/// a syntax error even when a member of the wrong shape comes first (serde_json's error is
/// then `invalid type`), and JSON that serde_json calls a syntax error (a number beyond
/// `f64`, a lone surrogate escape, a key that is not a number in quotes for a map with
/// integer keys) is not one, on both paths; strict decoding lets such params through.
#[test]
fn is_syntax_judges_the_value_not_the_first_error() {
    let classify = |params: &str| {
        let frame = tools_call(params);
        let params = lazy_params(&frame);
        let strict_json = RawJson::new_strict(params.as_bytes()).is_some();
        let scratch = Scratch::new().deserialize::<ToolCall>(params).unwrap_err();
        let borrowed = typed::deserialize_borrowed::<ToolCall>(params).unwrap_err();
        assert_eq!(scratch.is_syntax(), borrowed.is_syntax(), "{params}");
        assert_eq!(scratch.is_syntax(), !strict_json, "{params}");
        scratch.is_syntax()
    };
    for not_json in [
        r#"{"name":7,"arguments":{"a" 1}}"#,
        r#"{"arguments":[],"name":"add","x":{"a":1,}}"#,
    ] {
        assert!(classify(not_json), "{not_json}");
    }
    for json in [
        r#"{"name":"add","arguments":{"a":1e400}}"#,
        r#"{"name":"\ud800","arguments":{}}"#,
        r#"{"name":"\udc00","arguments":{}}"#,
    ] {
        assert!(!classify(json), "{json}");
    }
    let keyed = tools_call(r#"{"x":1}"#);
    let params = lazy_params(&keyed);
    let scratch = Scratch::new()
        .deserialize::<BTreeMap<u32, u32>>(params)
        .unwrap_err();
    let borrowed = typed::deserialize_borrowed::<BTreeMap<u32, u32>>(params).unwrap_err();
    assert!(!scratch.is_syntax(), "{scratch:?}");
    assert!(!borrowed.is_syntax(), "{borrowed:?}");
}

/// Integers beyond 64 bits are valid JSON: the scratch path reads them as serde_json does
/// (as `f64`), not as an error (which a server would answer -32602).
#[test]
fn integers_beyond_64_bits_read_as_serde_json_reads_them() {
    for n in [
        "18446744073709551616",
        "-9223372036854775809",
        "123456789012345678901234567890",
    ] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"n":{n}}}}}}}"#
        );
        let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
            panic!("{frame}")
        };
        let params = req.params.unwrap();
        let via_serde_json: serde_json::Value = typed::deserialize_borrowed(params).unwrap();
        let mut scratch = Scratch::new();
        let via_scratch: serde_json::Value = scratch.deserialize(params).unwrap();
        assert_eq!(via_scratch, via_serde_json, "{n}");
        assert_eq!(
            via_scratch["arguments"]["n"].as_f64(),
            Some(n.parse::<f64>().unwrap())
        );
    }
}

/// Decimals too long for an `f64`: the scratch path (simd-json) rounds them correctly, as
/// Rust's own parser does; serde_json without `float_roundtrip` may be a unit or two in the last
/// place off (as `Scratch::deserialize` documents), so only the scratch path is held to the exact
/// value.
#[test]
fn long_decimals_are_rounded_correctly_on_the_scratch_path() {
    let mut scratch = Scratch::new();
    for n in [
        "1.00000000000000011102230246251565404236316680908203125",
        "2.4703282292062328e-324",
        "0.30000000000000001665334536937734810635447502136230468750",
    ] {
        let raw = RawJson::new(n.as_bytes()).unwrap();
        let x: f64 = scratch.deserialize(raw).unwrap();
        assert_eq!(x.to_bits(), n.parse::<f64>().unwrap().to_bits(), "{n}");
        let borrowed: f64 = typed::deserialize_borrowed(raw).unwrap();
        assert!(
            x.to_bits().abs_diff(borrowed.to_bits()) <= 1,
            "{n}: {x} vs {borrowed}"
        );
    }
}

/// `Scratch::deserialize` says where its numbers may differ from serde_json's: serde_json
/// (without `float_roundtrip`) rounds some decimals a unit or two in the last place off, short
/// ones with a large exponent too (9 divided by an inexact 1e23), and refuses the ones it
/// rounds past `f64::MAX`; the scratch path rounds them correctly.
#[test]
fn where_the_two_paths_round_decimals_differently() {
    let mut scratch = Scratch::new();
    for n in [
        "9e-23",
        "952e252",
        "0.00000000000000000000000000001",
        "13162589530227589e-227",
        "112260536263865721808e-55",
    ] {
        let raw = RawJson::new(n.as_bytes()).unwrap();
        let exact = n.parse::<f64>().unwrap().to_bits();
        let x: f64 = scratch.deserialize(raw).unwrap();
        assert_eq!(x.to_bits(), exact, "{n}");
        let borrowed: f64 = typed::deserialize_borrowed(raw).unwrap();
        let off = borrowed.to_bits().abs_diff(exact);
        assert!(off <= 2, "{n}: {off} units off");
    }
    // Next to `f64::MAX`, a unit off is out of range: serde_json refuses what the scratch path
    // reads (as `RawJson::as_f64` does).
    for n in ["1.7976931348623158e308", "-1.797693134862315807e308"] {
        let raw = RawJson::new(n.as_bytes()).unwrap();
        let x: f64 = scratch.deserialize(raw).unwrap();
        assert_eq!(x.abs(), f64::MAX, "{n}");
        let borrowed = typed::deserialize_borrowed::<f64>(raw).unwrap_err();
        assert!(
            borrowed.message().contains("number out of range"),
            "{n}: {borrowed}"
        );
    }
}

/// The scratch path reports a mismatch in serde_json's words (the field, the expected type,
/// the place), not simd-json's (`ExpectedFloat at character 0`): the reason goes to the
/// client in the -32602 reply's `data`.
#[test]
fn scratch_errors_name_the_field_and_the_expected_type() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Add {
        a: f64,
        b: f64,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Count {
        n: i64,
    }
    let mut scratch = Scratch::new();
    let raw = |s: &'static str| RawJson::new(s.as_bytes()).unwrap();
    let e = scratch
        .deserialize::<Add>(raw(r#"{"a":"x","b":2}"#))
        .unwrap_err();
    assert_eq!(
        e.message(),
        r#"invalid type: string "x", expected f64 at line 1 column 8"#
    );
    let e = scratch.deserialize::<Add>(raw(r#"{"a":1}"#)).unwrap_err();
    assert_eq!(e.message(), "missing field `b` at line 1 column 7");
    // Displayed, as `?` into a boxed error shows it, it is its message.
    assert_eq!(e.to_string(), e.message());
    let e = scratch
        .deserialize::<Count>(raw(r#"{"n":9223372036854775808}"#))
        .unwrap_err();
    assert!(e.message().contains("expected i64"), "{}", e.message());
}

/// Both paths accept the same values: a number beyond the range of `f64` in a member the
/// type ignores is refused by simd-json, read by serde_json, and the scratch path then takes
/// serde_json's answer; where both refuse, the reason is serde_json's.
#[test]
fn both_paths_accept_the_same_values() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Named {
        name: String,
    }
    let value = RawJson::new(br#"{"name":"x","n":1e400}"#).unwrap();
    let borrowed: Result<Named, _> = typed::deserialize_borrowed(value);
    let scratch: Result<Named, _> = Scratch::new().deserialize(value);
    assert_eq!(borrowed.as_ref().map(|n| n.name.as_str()), Ok("x"));
    assert_eq!(scratch, borrowed);
    let wrong = RawJson::new(br#"{"name":1,"n":1e400}"#).unwrap();
    let borrowed = typed::deserialize_borrowed::<Named>(wrong).unwrap_err();
    let scratch = Scratch::new().deserialize::<Named>(wrong).unwrap_err();
    assert_eq!(scratch.message(), borrowed.message());
    assert!(scratch.message().contains("expected a string"), "{scratch}");
}

/// A key given twice: a derived struct refuses it on both paths; a map keeps the last value
/// (where the lazy `RawJson::get` refuses the key as ambiguous).
#[test]
fn a_duplicated_key_is_refused_by_a_struct_and_the_last_in_a_map() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Named<'a> {
        name: &'a str,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct NamedOwned {
        name: String,
    }
    let value = RawJson::new(br#"{"name":"a","name":"b"}"#).unwrap();
    assert_eq!(value.get("name"), None, "ambiguous");
    let borrowed = typed::deserialize_borrowed::<Named<'_>>(value).unwrap_err();
    assert!(
        borrowed.message().contains("duplicate field"),
        "{borrowed:?}"
    );
    let owned = Scratch::new().deserialize::<NamedOwned>(value).unwrap_err();
    assert!(owned.message().contains("duplicate field"), "{owned:?}");
    let map: BTreeMap<String, String> = Scratch::new().deserialize(value).unwrap();
    assert_eq!(map["name"], "b");
}

/// How deep each path reads, as `Scratch::deserialize` says: the 127 levels that
/// `RawJson::new` and the decoder's default limits let through, and no deeper when raised
/// limits let a deeper value through, arrays and objects alike (simd-json held to serde_json's
/// depth: at its own limit of 1,024 levels of objects, its recursion took more than a test
/// thread's 2 MiB of stack in a debug build, an abort). A member the type ignores is read at
/// any depth on both paths: simd-json refuses it, and serde_json, whose answer the scratch
/// path then takes, skips it in a loop. On a thread of its own with a large stack, so that a
/// regression fails the test instead of aborting the run.
#[test]
fn the_depth_each_typed_path_reads() {
    #[derive(Deserialize)]
    struct Named {
        name: String,
    }
    let arrays = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let objects = |depth: usize| format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    let reads = |text: String| {
        let value = RawJson::with_max_depth(text.as_bytes(), u32::MAX).unwrap();
        let scratch = Scratch::new()
            .deserialize::<serde_json::Value>(value)
            .is_ok();
        let borrowed = typed::deserialize_borrowed::<serde_json::Value>(value).is_ok();
        (scratch, borrowed)
    };
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            for nested in [arrays, objects] {
                assert!(RawJson::new(nested(127).as_bytes()).is_some());
                assert!(RawJson::new(nested(128).as_bytes()).is_none());
                assert_eq!(reads(nested(127)), (true, true));
                assert_eq!(reads(nested(128)), (false, false));
                assert_eq!(reads(nested(1024)), (false, false));
                assert_eq!(reads(nested(1025)), (false, false));
                // A member the type ignores is skipped at any depth, on both paths.
                let ignored = format!(r#"{{"name":"x","deep":{}}}"#, nested(1025));
                let value = RawJson::with_max_depth(ignored.as_bytes(), u32::MAX).unwrap();
                let scratch: Named = Scratch::new().deserialize(value).unwrap();
                let borrowed: Named = typed::deserialize_borrowed(value).unwrap();
                assert_eq!((scratch.name, borrowed.name), ("x".into(), "x".into()));
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

/// `to_raw` hands the `encode` writers only what `RawJson::new` would take (127 levels): a
/// deeper value, sent as a result or params, makes a line the default decoders refuse (-32700
/// without its id: the request it answers is never matched), and one no `typed` path on the
/// other side reads (serde_json's recursion limit lets 127 levels through). A value built in
/// memory can be any depth, which serde_json writes out.
#[test]
fn to_raw_refuses_what_no_default_decoder_reads() {
    let nested = |depth: usize| {
        (1..depth).fold(
            serde_json::json!({"a": 1}),
            |v, _| serde_json::json!({ "a": v }),
        )
    };
    let id = rpcwire::Id::from_token(b"1").unwrap();
    let mut scratch = Vec::new();
    let result = typed::to_raw(&nested(127), &mut scratch).unwrap();
    let mut out = BytesMut::new();
    encode::write_response(&mut out, id, result);
    let line = &out[..out.len() - 1];
    let Ok(Message::Response(response)) = Decoder::mcp_client().decode(line) else {
        panic!("{:?}", Decoder::mcp_client().decode(line));
    };
    assert_eq!(response.result, result);
    let deeper = typed::to_raw(&nested(128), &mut scratch).unwrap_err();
    assert!(deeper.message().contains("127"), "{deeper:?}");
}

/// A `Serialize` impl that emits a serde_json `RawValue` by its struct name, whose text
/// serde_json writes out unchecked.
struct RawText(&'static str);

impl Serialize for RawText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut raw = s.serialize_struct("$serde_json::private::RawValue", 1)?;
        raw.serialize_field("$serde_json::private::RawValue", self.0)?;
        raw.end()
    }
}

/// `to_raw` hands out only one JSON value, whatever serde_json was made to write: a raw text
/// that ends the value early and goes on (`1,"id":2`) would, spliced as a result, add a second
/// `id` to the response, which serde_json reads as the id (the last one wins) and rpcwire
/// refuses as a duplicate; raw text that is no JSON at all makes a line nobody reads. Both are
/// a `TypedError`; one value with whitespace around it is taken, without the whitespace.
#[test]
fn to_raw_refuses_raw_text_that_is_not_one_value() {
    let mut buf = Vec::new();
    for text in [r#"1,"id":2"#, "[1 2]", "{\"a\":}", "", "1\n}{", "\"\u{1}\""] {
        let refused = typed::to_raw(&RawText(text), &mut buf).unwrap_err();
        assert!(
            refused.message().contains("not one JSON value"),
            "{text:?}: {refused:?}"
        );
        assert!(!refused.is_syntax(), "the caller's own value: {text:?}");
    }
    let taken = typed::to_raw(&RawText(" {\"a\":\n[1, 2]} "), &mut buf).unwrap();
    assert_eq!(taken.as_bytes(), b"{\"a\":\n[1, 2]}");
    let mut out = BytesMut::new();
    encode::write_response(&mut out, rpcwire::Id::from_token(b"1").unwrap(), taken);
    let line = &out[..out.len() - 1];
    let read: serde_json::Value = serde_json::from_slice(line).unwrap();
    assert_eq!(
        read,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"a": [1, 2]}})
    );
}

/// Generated JSON text: numbers in every spelling (integers past 64 bits, exponents, `-0.0`,
/// none that is the integer `-0`, which the paths read differently as documented), strings
/// with escapes (surrogate pairs, `\u0000`), whitespace, nesting and duplicated keys.
fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let number = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        (any::<u64>(), 1..20usize).prop_map(|(n, k)| format!("{n}{}", "9".repeat(k))),
        (0..1000u32, -330..330i32).prop_map(|(m, e)| format!("{m}e{e}")),
        (0..1000u32, 0..1000u32).prop_map(|(a, b)| format!("-{a}.{b}")),
        (1..1000u32, 0..400i32).prop_map(|(m, e)| format!("-{m}.5E+{e}")),
    ];
    let piece = prop_oneof![
        "[a-z ]{0,3}",
        Just(r"\n".to_string()),
        Just(r#"\""#.to_string()),
        Just(r"\u00e9".to_string()),
        Just(r"\ud83d\ude00".to_string()),
        Just(r"\u0000".to_string()),
        Just("é😀".to_string()),
    ];
    let string = prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()));
    let leaf = prop_oneof![
        number,
        string.clone(),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
    ];
    leaf.prop_recursive(6, 48, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|v| format!("[ {} ]", v.join(" ,"))),
            prop::collection::vec((string.clone(), inner), 0..4).prop_map(|m| {
                let m: Vec<_> = m.into_iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", m.join(","))
            }),
        ]
    })
}

/// Whether two values read from the same text are the same but for the rounding of decimals
/// that `Scratch::deserialize` documents (two units in the last place at most).
fn same_but_rounding(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() && y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || x.to_bits().abs_diff(y.to_bits()) <= 2
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_but_rounding(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, a), (l, b))| k == l && same_but_rounding(a, b))
        }
        _ => a == b,
    }
}

proptest::proptest! {
    #![proptest_config(crate::common::cases(1000))]

    /// The two paths read generated values alike, on one scratch area reused across them all
    /// (the examples above each read a handful of values on a new one): the same value but for
    /// the documented rounding, or the same error.
    #[test]
    fn both_paths_read_generated_values_alike(texts in proptest::collection::vec(json_text(), 1..8)) {
        let mut scratch = Scratch::new();
        for text in &texts {
            let raw = RawJson::new(text.as_bytes()).unwrap();
            let via_scratch: Result<serde_json::Value, _> = scratch.deserialize(raw);
            let via_serde_json: Result<serde_json::Value, _> = typed::deserialize_borrowed(raw);
            match (&via_scratch, &via_serde_json) {
                (Ok(a), Ok(b)) => proptest::prop_assert!(same_but_rounding(a, b), "{text}: {a} vs {b}"),
                (a, b) => proptest::prop_assert_eq!(a, b, "{}", text),
            }
        }
    }
}

/// A scratch area keeps what a value grew it to, up to `REUSE_KEEP` included ("past" it, the
/// buffers go): a value read into a new one leaves at least its own length of room, and so
/// does one whose copy is exactly `REUSE_KEEP` bytes (a fresh `Vec` reserves what it is
/// given), or that has exactly `REUSE_KEEP / 8` structural characters; its `Debug` shows that
/// room. No test read the room but against itself, nor a value on either bound.
#[test]
fn scratch_keeps_a_value_up_to_reuse_keep() {
    let read = |value: &str| {
        let mut scratch = Scratch::new();
        let _: serde_json::Value = scratch
            .deserialize(RawJson::new(value.as_bytes()).unwrap())
            .unwrap();
        scratch
    };
    let keep = rpcwire::REUSE_KEEP;
    let small = r#"{"name":"t","arguments":{"text":"hello"}}"#;
    let scratch = read(small);
    assert!(scratch.capacity() >= small.len(), "{scratch:?}");
    let debug = format!("{scratch:?}");
    assert_eq!(
        debug,
        format!("Scratch {{ capacity: {} }}", scratch.capacity())
    );

    let string = format!("\"{}\"", "x".repeat(keep - 2));
    assert_eq!(read(&string).capacity(), keep, "a copy of REUSE_KEEP bytes");
    // `[` `[` `]` and the numbers and commas, `]`: 2 + 2 + 2n structural characters.
    let n = keep / 16 - 2;
    let numbers = format!("[[],{}1]", "1,".repeat(n - 1));
    assert!(numbers.len() <= keep);
    assert!(
        read(&numbers).capacity() >= numbers.len(),
        "REUSE_KEEP / 8 structural characters"
    );
}
