//! Every conformance vector (`tests/data/envelope.jsonl`, `tests/data/jsonrpc-spec.jsonl`)
//! runs here, in both dialects, except the categories that belong to the pending table
//! (`matching`, `id_reuse`: `tests/matching.rs`) and the SSE framer (`tests/sse.rs`). Every key
//! of the expectations is checked (`every_expectation_key_is_checked` fails on a new one):
//! the decoder's outcome (`c`, `id`, `id_alt`, `m`, `ec`, `r`, `params`, `el`, `msgs`) here;
//! three keys that describe what an application does with a decoded message here too, through
//! the crate's helpers for it: `rt` (H18: a result without `resultType` is `complete`,
//! [`mcp::ResultType::of`]), `dispatch` (D08: the -32601 an application answers for a method no
//! handler has, [`encode::write_method_not_found`]) and `lenient` (H07: what a reader that
//! accepts an error response without an id makes of it; JSON-RPC 2.0 requires the id, and the
//! crate has no lenient JSON-RPC mode: the MCP dialect, whose error responses may omit it, is
//! that reader); `pt` and `rid` (progress tokens, cancelled request ids) in `tests/mcp.rs`;
//! `matches`, the cases' `ctx`, and the expectations of the `matching` and `id_reuse` cases
//! (`hardened` included) in `tests/matching.rs`.

mod common;

use bytes::BytesMut;
use common::{Outcome, decoder_for, input, load, outcome, stream_outcomes};
use rpcwire::mcp::{self, ResultType};
use rpcwire::{DecodeOptions, Decoder, Dialect, Limits, Lookup, Message, RawJson, encode};
use serde_json::Value;

/// Every key an expectation object of the vectors may carry: each is checked in this file or,
/// as the module documentation says, in another test.
const EXPECTATION_KEYS: &[&str] = &[
    "c", "id", "id_alt", "m", "ec", "r", "params", "el", "msgs", "rt", "dispatch", "lenient", "pt",
    "rid", "matches",
];

/// The keys of a case of `jsonrpc-spec.jsonl` (the batch examples' `el` and `reply` are
/// `tests/batch.rs`'s).
const SPEC_KEYS: &[&str] = &[
    "name", "dir", "hex", "k", "id", "m", "params", "ec", "reply", "reply_id", "el",
];

/// Checks the keys of `exp` that describe what an application does with the message the
/// decoder made of `frame`: `rt`, `dispatch` and `lenient` (see the module documentation);
/// returns how many of them it checked.
fn check_application_keys(
    name: &str,
    frame: &[u8],
    dialect: &str,
    dir: &str,
    exp: &Value,
) -> usize {
    let mut checked = 0;
    if let Some(rt) = exp.get("rt").and_then(Value::as_str) {
        checked += 1;
        let decoder = decoder_for("mcp", dir);
        let Ok(Message::Response(response)) = decoder.decode(frame) else {
            panic!("{name}: rt on a frame that is no success response")
        };
        let (value, implied) = match rt.strip_suffix(" (implied)") {
            Some(value) => (value, true),
            None => (rt, false),
        };
        let expected = match value {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            other => panic!("{name}: unknown rt {other}"),
        };
        assert_eq!(ResultType::of(response.result), expected, "{name}: rt");
        assert_eq!(
            matches!(response.result.lookup("resultType"), Lookup::Absent),
            implied,
            "{name}: rt implied"
        );
    }
    if let Some(code) = exp.get("dispatch").and_then(Value::as_str) {
        checked += 1;
        let decoder = decoder_for(dialect, dir);
        let Ok(Message::Request(request)) = decoder.decode(frame) else {
            panic!("{name}: dispatch on a frame that is no request")
        };
        let reply = dispatch(&request);
        assert_eq!(
            reply["error"]["code"],
            code.parse::<i64>().unwrap(),
            "{name}: dispatch"
        );
        assert_eq!(
            serde_json::to_vec(&reply["id"]).unwrap(),
            request.id.raw(),
            "{name}: dispatch reply id"
        );
    }
    if let Some(lenient) = exp.get("lenient") {
        checked += 1;
        check(
            &format!("{name}/lenient"),
            &outcome(&decoder_for("mcp", dir), frame),
            lenient,
            None,
        );
    }
    checked
}

/// What a dispatcher written as the crate's documentation says (`match &*req.method.decode()`
/// against [`mcp::methods`]) answers a request for a method it has no handler for, read back as
/// JSON; `Value::Null` when it has one (these tests give none of them a result).
fn dispatch(request: &rpcwire::Request<'_>) -> Value {
    use mcp::methods::*;
    match &*request.method.decode() {
        INITIALIZE | PING | TOOLS_LIST | TOOLS_CALL | RESOURCES_LIST | RESOURCES_READ
        | PROMPTS_LIST | PROMPTS_GET => Value::Null,
        _ => {
            let mut out = BytesMut::new();
            encode::write_method_not_found(&mut out, request.id, request.method);
            let reply: Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(
                reply["error"]["data"].as_str(),
                Some(&*request.method.decode()),
                "the reply names the method"
            );
            reply
        }
    }
}

/// Checks one produced outcome against one expectation object of the vectors.
fn check(name: &str, got: &Outcome, exp: &Value, id_alt: Option<&str>) {
    let class = exp["c"].as_str().unwrap();
    assert_eq!(got.class, class, "{name}: classification ({got:?})");
    if let Some(id) = exp["id"].as_str() {
        if id.contains("(64 KiB)") {
            assert_eq!(got.id.as_ref().unwrap().len(), 65536 + 2, "{name}: id");
        } else if got.class != "invalid" {
            assert_eq!(got.id.as_deref(), Some(id), "{name}: id");
        }
    }
    if let Some(m) = exp["m"].as_str() {
        if let Some(raw) = m.strip_suffix(" (lone surrogate)") {
            assert_eq!(
                got.raw_method.as_deref(),
                Some(raw.as_bytes()),
                "{name}: raw method"
            );
        } else {
            assert_eq!(got.method.as_deref(), Some(m), "{name}: method");
        }
    }
    if let Some(ec) = exp["ec"].as_i64() {
        assert_eq!(got.error_code, Some(ec), "{name}: error code");
    }
    match exp.get("r") {
        Some(Value::Null) => assert_eq!(got.reply, None, "{name}: no reply expected"),
        Some(Value::Array(r)) => {
            let (code, id) = got
                .reply
                .clone()
                .unwrap_or_else(|| panic!("{name}: reply expected"));
            assert_eq!(code, r[0].as_i64().unwrap(), "{name}: reply code");
            let alts: Vec<&str> = r[1..]
                .iter()
                .filter_map(|v| v.as_str())
                .chain(id_alt)
                .collect();
            assert!(
                alts.contains(&id.as_str()),
                "{name}: reply id {id} not in {alts:?}"
            );
        }
        _ => {}
    }
    match exp.get("params").and_then(Value::as_str) {
        Some("absent") => assert_eq!(got.params, None, "{name}: params"),
        Some("object") => assert_eq!(got.params.as_ref().unwrap()[0], b'{', "{name}: params"),
        Some("array") => assert_eq!(got.params.as_ref().unwrap()[0], b'[', "{name}: params"),
        _ => {}
    }
    if let Some(Value::Array(els)) = exp.get("el") {
        assert_eq!(got.elements.len(), els.len(), "{name}: batch elements");
        for (g, e) in got.elements.iter().zip(els) {
            check(name, g, e, None);
        }
    }
}

/// The envelope vectors, parsed once for the tests of this file (under Miri, parsing them took
/// a good part of each test's time).
fn envelope_vectors() -> &'static [Value] {
    static VECTORS: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    VECTORS.get_or_init(|| load("envelope.jsonl"))
}

fn in_scope(case: &Value) -> bool {
    !matches!(case["cat"].as_str(), Some("matching" | "id_reuse")) && case["framing"] != "sse"
}

#[test]
fn envelope_vectors_both_dialects() {
    run_envelope_vectors();
}

/// The same vectors with the SIMD kernels switched off: the scalar oracle must give the same
/// outcomes (other tests running meanwhile may see either kernel; both must agree anyway).
/// Not under Miri: there the test above already runs the scalar container kernel (Miri's
/// CPU has no AVX2), and the scalar string scanner this one adds is safe code, for which
/// Miri checks nothing a native run does not; it took two minutes of interpretation.
#[test]
#[cfg_attr(miri, ignore)]
fn envelope_and_spec_vectors_on_the_scalar_kernel() {
    rpcwire::scan::force_scalar(true);
    run_envelope_vectors();
    jsonrpc_spec_examples();
    rpcwire::scan::force_scalar(false);
}

fn run_envelope_vectors() {
    let (mut ran, mut application_keys) = (0, 0);
    for case in envelope_vectors().iter().filter(|c| in_scope(c)) {
        let name = case["name"].as_str().unwrap();
        let bytes = input(case);
        // Under Miri, the generated multi-megabyte and 64 KiB+ inputs (A17, E23, F10) would
        // take many minutes of interpretation; they run in every native `cargo test`.
        if cfg!(miri) && bytes.len() > 16 << 10 {
            continue;
        }
        for dialect in ["jsonrpc2", "mcp"] {
            let exp = &case[dialect];
            let decoder = decoder_for(dialect, case["dir"].as_str().unwrap());
            if case["framing"] == "stream" {
                let chunks: Vec<Vec<u8>> = match case.get("chunks") {
                    Some(Value::Array(c)) => {
                        c.iter().map(|h| common::hex(h.as_str().unwrap())).collect()
                    }
                    // A17 arrives in 4 KiB reads.
                    _ if case.get("gen").is_some() => {
                        bytes.chunks(4096).map(<[u8]>::to_vec).collect()
                    }
                    _ => vec![bytes.clone()],
                };
                let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
                let max_frame = if case.get("gen").is_some() {
                    1 << 20
                } else {
                    Limits::DEFAULT.max_frame
                };
                let got = stream_outcomes(&decoder, &refs, max_frame);
                let msgs = exp["msgs"].as_array().unwrap();
                assert_eq!(
                    got.len(),
                    msgs.len(),
                    "{name}/{dialect}: message count {got:?}"
                );
                for (g, m) in got.iter().zip(msgs) {
                    check(&format!("{name}/{dialect}"), g, m, m["id_alt"].as_str());
                }
            } else {
                let got = outcome(&decoder, &bytes);
                check(
                    &format!("{name}/{dialect}"),
                    &got,
                    exp,
                    exp["id_alt"].as_str(),
                );
                application_keys += check_application_keys(
                    &format!("{name}/{dialect}"),
                    &bytes,
                    dialect,
                    case["dir"].as_str().unwrap(),
                    exp,
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 160, "only {ran} vector runs");
    // H18's `rt`, D08's `dispatch` in both dialects, H07's `lenient`.
    assert_eq!(application_keys, 4, "application keys checked");
}

#[test]
fn hardened_expectations() {
    let mut ran = 0;
    for case in envelope_vectors().iter().filter(|c| in_scope(c)) {
        let Some(exp) = case.get("hardened").filter(|h| h.get("c").is_some()) else {
            continue;
        };
        let name = case["name"].as_str().unwrap();
        // E23's 64 KiB id is too slow to interpret; it runs in every native `cargo test`.
        if cfg!(miri) && input(case).len() > 16 << 10 {
            continue;
        }
        for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
            let mut opts = DecodeOptions::new(dialect);
            opts.hardened = true;
            opts.limits = Limits::HARDENED;
            opts.unreadable_id = rpcwire::ReplyId::Null;
            let got = outcome(&Decoder::new(opts), &input(case));
            check(&format!("{name}/hardened/{dialect:?}"), &got, exp, None);
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} hardened runs");
}

/// Every non-batch example of the JSON-RPC 2.0 specification, in the JSON-RPC dialect.
#[test]
fn jsonrpc_spec_examples() {
    let mut ran = 0;
    for case in load("jsonrpc-spec.jsonl") {
        let name = case["name"].as_str().unwrap();
        if name.starts_with("batch") {
            continue;
        }
        let decoder = decoder_for("jsonrpc2", case["dir"].as_str().unwrap());
        let frame = common::hex(case["hex"].as_str().unwrap());
        let got = outcome(&decoder, &frame);
        let class = match case["k"].as_str().unwrap() {
            "response" => "success_response",
            "error" => "error_response",
            "invalid" if case["ec"] == -32700 => "parse_error",
            other => other,
        };
        assert_eq!(got.class, class, "{name}");
        match case.get("id") {
            Some(Value::Number(n)) => {
                assert_eq!(got.id.as_deref(), Some(n.to_string().as_str()), "{name}")
            }
            Some(Value::String(s)) => assert_eq!(got.id, Some(format!("\"{s}\"")), "{name}"),
            Some(Value::Null) => assert_eq!(got.id.as_deref(), Some("null"), "{name}"),
            _ => {}
        }
        if let Some(m) = case["m"].as_str() {
            assert_eq!(got.method.as_deref(), Some(m), "{name}");
        }
        if class == "error_response" {
            assert_eq!(got.error_code, case["ec"].as_i64(), "{name}");
        }
        if matches!(class, "invalid" | "parse_error") {
            let reply_id = serde_json::to_string(&case["reply_id"]).unwrap();
            assert_eq!(
                got.reply,
                Some((case["ec"].as_i64().unwrap(), reply_id)),
                "{name}"
            );
        }
        check_spec_reply(name, &decoder, &frame, &case);
        match case["params"].as_str() {
            Some("array") => assert_eq!(got.params.as_ref().unwrap()[0], b'['),
            Some("object") => assert_eq!(got.params.as_ref().unwrap()[0], b'{'),
            Some("absent") => assert_eq!(got.params, None),
            _ => {}
        }
        ran += 1;
    }
    assert_eq!(ran, 16);
}

/// The reply the specification shows for a non-batch example (`reply`; a request's `ec`, the
/// -32601 of a method nobody handles), against what the crate writes: the error reply of a
/// rejected frame ([`encode::write_reply`]), the answer to an unknown method ([`dispatch`],
/// without the `data` the crate adds, which the specification leaves optional), or the
/// application's result under the request's id ([`encode::write_response`], with the result the
/// example shows); none for a notification and for a response.
fn check_spec_reply(name: &str, decoder: &Decoder, frame: &[u8], case: &Value) {
    let Some(expected) = case.get("reply") else {
        assert_eq!(
            case["dir"], "s2c",
            "{name}: a frame to a server without a reply"
        );
        assert!(
            matches!(
                decoder.decode(frame),
                Ok(Message::Response(_) | Message::ErrorResponse(_))
            ),
            "{name}: only a response has no reply"
        );
        return;
    };
    let mut out = BytesMut::new();
    match decoder.decode(frame) {
        Ok(Message::Notification(_)) => {}
        Ok(Message::Request(request)) if case.get("ec").is_some() => {
            let mut reply = dispatch(&request);
            assert_eq!(reply["error"]["code"], case["ec"], "{name}");
            reply["error"].as_object_mut().unwrap().remove("data");
            out.extend_from_slice(&serde_json::to_vec(&reply).unwrap());
        }
        Ok(Message::Request(request)) => {
            let expected: Value = serde_json::from_str(expected.as_str().unwrap()).unwrap();
            let result = serde_json::to_vec(&expected["result"]).unwrap();
            encode::write_response(&mut out, request.id, RawJson::new(&result).unwrap());
        }
        Err(rejection) => encode::write_reply(&mut out, &rejection.reply().unwrap(), None),
        Ok(other) => panic!("{name}: {other:?} is answered"),
    }
    match expected.as_str() {
        None => assert!(out.is_empty(), "{name}: no reply expected"),
        Some(expected) => {
            let expected: Value = serde_json::from_str(expected).unwrap();
            let got: Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(got, expected, "{name}: reply");
        }
    }
}

/// Every key of every expectation object (and of every case of the specification's examples)
/// is one this file's tests, or another test named in the module documentation, check: a key
/// added to the vectors fails here until a test checks it. (Not under Miri: it reads only
/// the vectors, no rpcwire code, and took ~24 s of interpretation.)
#[test]
#[cfg_attr(miri, ignore)]
fn every_expectation_key_is_checked() {
    fn keys_of(exp: &Value, path: &str, out: &mut Vec<String>) {
        let Some(object) = exp.as_object() else {
            return;
        };
        for (key, value) in object {
            out.push(format!("{path}{key}"));
            if key == "lenient" {
                keys_of(value, path, out);
            }
            for nested in ["el", "msgs"] {
                if key == nested {
                    for item in value.as_array().unwrap() {
                        keys_of(item, path, out);
                    }
                }
            }
        }
    }
    let mut keys = vec![];
    for case in envelope_vectors() {
        for dialect in ["jsonrpc2", "mcp", "hardened"] {
            keys_of(&case[dialect], "", &mut keys);
        }
    }
    for key in &keys {
        assert!(
            EXPECTATION_KEYS.contains(&key.as_str()),
            "unchecked key {key}"
        );
    }
    for case in load("jsonrpc-spec.jsonl") {
        for key in case.as_object().unwrap().keys() {
            assert!(SPEC_KEYS.contains(&key.as_str()), "unchecked key {key}");
        }
    }
}
