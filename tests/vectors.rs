//! Every conformance vector (`tests/data/envelope.jsonl`, `tests/data/jsonrpc-spec.jsonl`)
//! runs here, in both dialects, except the categories that belong to the pending table
//! (`matching`, `id_reuse`) and the SSE framer. Three keys of the expectations describe no
//! output of the decoder and are not checked: `rt` (H18: a result without `resultType` is
//! `complete`, which the decoder accepts as it accepts the value), `lenient` (H07: what a
//! lenient JSON-RPC reader would make of an error response without an id, a mode the decoder
//! does not have) and `dispatch` (D08: the -32601 an application answers for a method no
//! handler has).

mod common;

use common::{decoder_for, input, load, outcome, stream_outcomes, Outcome};
use rpcwire::{DecodeOptions, Decoder, Dialect, Limits};
use serde_json::Value;

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
#[test]
fn envelope_and_spec_vectors_on_the_scalar_kernel() {
    rpcwire::scan::force_scalar(true);
    run_envelope_vectors();
    jsonrpc_spec_examples();
    rpcwire::scan::force_scalar(false);
}

fn run_envelope_vectors() {
    let mut ran = 0;
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
            }
            ran += 1;
        }
    }
    assert!(ran >= 160, "only {ran} vector runs");
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
        let got = outcome(&decoder, &common::hex(case["hex"].as_str().unwrap()));
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
            assert_eq!(
                got.reply,
                Some((case["ec"].as_i64().unwrap(), "null".into())),
                "{name}"
            );
        }
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
