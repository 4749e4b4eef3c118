//! JSON-RPC 2.0 batches: the batch vectors in both dialects through `Batch::decode`, and the
//! specification's batch examples answered by a small server, compared with the
//! specification's replies as multisets of JSON values.

mod common;

use bytes::BytesMut;
use common::{Outcome, decoder_for, hex, input, load, outcome};
use rpcwire::batch::expects_reply;
use rpcwire::encode::{self, BatchReply};
use rpcwire::{Decoder, ErrorCode, Message, RawJson, ReplyId, Request};
use serde_json::Value;

/// Classifies a frame; for a batch, each element through `Batch::decode`.
fn classify(decoder: &Decoder, frame: &[u8]) -> (String, Vec<Outcome>) {
    match decoder.decode(frame) {
        Ok(Message::Batch(batch)) => {
            let elements: Vec<_> = batch.decode(decoder).collect();
            let raws: Vec<RawJson<'_>> = batch.raw.elements().collect();
            assert_eq!(raws.len(), elements.len());
            let outcomes: Vec<Outcome> = raws
                .iter()
                .zip(&elements)
                .map(|(raw, element)| {
                    let o = outcome(decoder, raw.as_bytes());
                    // Batch::decode and a decode of the element alone agree.
                    match element {
                        Ok(m) => assert_eq!(o.class, m.kind().as_str()),
                        Err(r) => assert_eq!(o.class, r.kind_str()),
                    }
                    o
                })
                .collect();
            let class = if outcomes.iter().all(|o| o.class.ends_with("_response")) {
                "batch_response"
            } else {
                "batch"
            };
            (class.into(), outcomes)
        }
        _ => (outcome(decoder, frame).class, vec![]),
    }
}

#[test]
fn batch_vectors_both_dialects() {
    let mut ran = 0;
    for case in load("envelope.jsonl")
        .iter()
        .filter(|c| c["cat"] == "batch")
    {
        let name = case["name"].as_str().unwrap();
        for dialect in ["jsonrpc2", "mcp"] {
            let exp = &case[dialect];
            let decoder = decoder_for(dialect, case["dir"].as_str().unwrap());
            let bytes = input(case);
            let (class, elements) = classify(&decoder, &bytes);
            assert_eq!(class, exp["c"].as_str().unwrap(), "{name}/{dialect}");
            if let Some(Value::Array(els)) = exp.get("el") {
                assert_eq!(elements.len(), els.len(), "{name}/{dialect}");
                for (g, e) in elements.iter().zip(els) {
                    assert_eq!(g.class, e["c"].as_str().unwrap(), "{name}/{dialect}");
                    if let Some(id) = e["id"].as_str() {
                        assert_eq!(g.id.as_deref(), Some(id), "{name}/{dialect}");
                    }
                    if let Some(Value::Array(r)) = e.get("r") {
                        let (code, id) = g.reply.clone().unwrap();
                        assert_eq!(code, r[0].as_i64().unwrap(), "{name}/{dialect}");
                        assert_eq!(id, r[1].as_str().unwrap(), "{name}/{dialect}");
                    }
                }
            } else {
                // MCP: the whole batch is rejected with a single reply (or none).
                let whole = outcome(&decoder, &bytes);
                match exp.get("r") {
                    Some(Value::Null) => assert_eq!(whole.reply, None, "{name}/{dialect}"),
                    Some(Value::Array(r)) => {
                        assert_eq!(whole.reply.unwrap().0, r[0].as_i64().unwrap())
                    }
                    _ => {}
                }
            }
            ran += 1;
        }
    }
    assert_eq!(ran, 6, "B07, B09, B11 in two dialects");
}

/// The test server of the specification's examples.
fn answer(out: &mut BytesMut, req: &Request<'_>) {
    let params: Value = req
        .params
        .map(|p| serde_json::from_str(p.as_text()).unwrap())
        .unwrap_or(Value::Null);
    let nums = |v: &Value| -> Vec<i64> {
        v.as_array()
            .map(|a| a.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default()
    };
    let result = match req.method.decode().as_ref() {
        "sum" => Some(nums(&params).iter().sum::<i64>().to_string()),
        "subtract" => {
            let n = nums(&params);
            Some((n[0] - n[1]).to_string())
        }
        "get_data" => Some("[\"hello\",5]".to_string()),
        _ => None,
    };
    match result {
        Some(r) => encode::write_response(out, req.id, RawJson::new(r.as_bytes()).unwrap()),
        None => encode::write_error(
            out,
            ReplyId::Id(req.id),
            ErrorCode::METHOD_NOT_FOUND,
            "Method not found",
            None,
        ),
    }
}

/// Serves one frame; returns what would be sent back (empty: nothing).
fn serve(decoder: &Decoder, frame: &[u8]) -> BytesMut {
    let mut out = BytesMut::new();
    match decoder.decode(frame) {
        Ok(Message::Request(req)) => answer(&mut out, &req),
        Ok(Message::Batch(batch)) => {
            let elements: Vec<_> = batch.decode(decoder).collect();
            let mut reply = BatchReply::open(&mut out);
            for element in &elements {
                match element {
                    Ok(Message::Request(req)) => reply.push(|out| answer(out, req)),
                    Ok(_) => {}
                    Err(rej) => {
                        if let Some(r) = rej.reply() {
                            reply.push(|out| encode::write_reply(out, &r, None));
                        }
                    }
                }
            }
            let n = reply.len();
            assert_eq!(reply.close(), expects_reply(&elements));
            assert_eq!(n > 0, expects_reply(&elements));
        }
        Ok(_) => {}
        Err(rej) => {
            if let Some(r) = rej.reply() {
                encode::write_reply(&mut out, &r, None);
            }
        }
    }
    out
}

/// Sorts an array's elements by their text, so two arrays compare as multisets.
/// The value rendered with object keys sorted.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut members: Vec<_> = m
                .iter()
                .map(|(k, v)| format!("{k:?}:{}", canonical(v)))
                .collect();
            members.sort();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

fn as_multiset(v: Value) -> Value {
    match v {
        Value::Array(mut a) => {
            // Sort by a key-order-independent rendering (serde_json may preserve key order).
            a.sort_by_key(canonical);
            Value::Array(a)
        }
        other => other,
    }
}

#[test]
fn spec_batch_examples_replies() {
    let decoder = Decoder::jsonrpc();
    let mut ran = 0;
    for case in load("jsonrpc-spec.jsonl") {
        let name = case["name"].as_str().unwrap();
        if !name.starts_with("batch") {
            continue;
        }
        let frame = hex(case["hex"].as_str().unwrap());
        let out = serve(&decoder, &frame);
        match case.get("reply").and_then(Value::as_str) {
            None => assert!(out.is_empty(), "{name}: no reply expected, got {out:?}"),
            Some(expected) => {
                assert_eq!(out.last(), Some(&b'\n'), "{name}");
                assert_eq!(
                    memchr::memchr(b'\n', &out),
                    Some(out.len() - 1),
                    "{name}: one line"
                );
                let got: Value = serde_json::from_slice(&out).unwrap();
                let expected: Value = serde_json::from_str(expected).unwrap();
                assert_eq!(
                    got.is_array(),
                    expected.is_array(),
                    "{name}: array or object"
                );
                assert_eq!(as_multiset(got), as_multiset(expected), "{name}");
            }
        }
        // The elements' expectations of the vector.
        if let Some(Value::Array(els)) = case.get("el") {
            let Ok(Message::Batch(batch)) = decoder.decode(&frame) else {
                panic!("{name}: batch expected")
            };
            let elements: Vec<_> = batch.decode(&decoder).collect();
            assert_eq!(elements.len(), els.len(), "{name}");
            for (g, e) in elements.iter().zip(els) {
                match (g, e["k"].as_str().unwrap()) {
                    (Ok(m), "request") => {
                        assert_eq!(m.kind().as_str(), "request", "{name}");
                        let id = m.id().unwrap();
                        let want = format!("\"{}\"", e["id"].as_str().unwrap());
                        assert_eq!(id.raw(), want.as_bytes(), "{name}");
                        assert!(m.method().unwrap().eq_str(e["m"].as_str().unwrap()));
                    }
                    (Ok(m), "notification") => {
                        assert_eq!(m.kind().as_str(), "notification", "{name}");
                        assert!(m.method().unwrap().eq_str(e["m"].as_str().unwrap()));
                    }
                    (Ok(Message::Response(r)), "response") => {
                        let want = format!("\"{}\"", e["id"].as_str().unwrap());
                        assert_eq!(r.id.raw(), want.as_bytes(), "{name}");
                    }
                    (Ok(Message::ErrorResponse(r)), "error") => {
                        let want = match e["id"].as_str() {
                            Some(id) => format!("\"{id}\""),
                            None => "null".to_string(),
                        };
                        assert_eq!(r.id.map(|id| id.raw()), Some(want.as_bytes()), "{name}");
                        assert_eq!(r.error.code.get(), e["ec"].as_i64().unwrap(), "{name}");
                    }
                    (Err(r), "invalid") => {
                        let reply = r.reply().unwrap();
                        assert_eq!(reply.code.get(), e["ec"].as_i64().unwrap(), "{name}");
                        assert_eq!(reply.id, ReplyId::Null, "{name}");
                    }
                    (g, k) => panic!("{name}: {g:?} is not {k}"),
                }
            }
        }
        ran += 1;
    }
    assert_eq!(ran, 7, "the seven batch examples");
}

#[test]
fn nested_array_element_is_invalid() {
    let decoder = Decoder::jsonrpc();
    let frame = br#"[[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]}]]"#;
    let out = serve(&decoder, frame);
    let got: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        got,
        serde_json::json!([{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}])
    );
}

#[test]
fn mcp_dialect_keeps_rejecting_batches() {
    let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    let out = serve(&Decoder::mcp(), frame);
    let got: Value = serde_json::from_slice(&out).unwrap();
    assert!(got.is_object());
    assert_eq!(got["error"]["code"], -32600);
}

#[test]
fn large_batch_spills_and_answers_every_request() {
    let decoder = Decoder::jsonrpc();
    let mut frame = String::from("[");
    for i in 0..20 {
        if i > 0 {
            frame.push(',');
        }
        frame.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"sum","params":[{i},1]}}"#
        ));
    }
    frame.push(']');
    let Ok(Message::Batch(batch)) = decoder.decode(frame.as_bytes()) else {
        panic!()
    };
    let elements: Vec<_> = batch.decode(&decoder).collect();
    assert_eq!(elements.len(), 20);
    let mut out = BytesMut::new();
    let mut reply = BatchReply::open(&mut out);
    for element in &elements {
        if let Ok(Message::Request(req)) = element {
            reply.push(|out| answer(out, req));
        }
    }
    assert!(reply.close());
    let got: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(got.as_array().unwrap().len(), 20);
    assert_eq!(got[19]["result"], 20);
}

/// The batch array is the envelope of a batch: its commas are checked in every validation
/// mode. A lazy skip of the whole array took `[A B]` and `[,A]` as batches, and `[A,,B]` as a
/// batch of A alone (B never decoded, never answered); under MCP a request behind a doubled
/// comma hid in a batch read as all responses, which is never answered. Each is one -32700.
#[test]
fn batch_separators_are_checked_in_every_mode() {
    let a = r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;
    let b = r#"{"jsonrpc":"2.0","id":2,"method":"b"}"#;
    let response = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let frames = [
        format!("[{a} {b}]"),
        format!("[{a},,{b}]"),
        format!("[,{a}]"),
        format!("[{a},]"),
        format!("[{a}\t,\t]"),
        "[1 2 3]".to_string(),
        "[,]".to_string(),
        format!("[{response},,{b}]"),
        format!("[{a}"),
        format!("[{a},"),
        // §6: a batch that is not valid JSON is answered by one -32700, not by an array
        // answering its valid elements: its elements' envelopes are JSON-checked in every mode.
        format!(r#"[{a},{{"jsonrpc":"2.0" "id":2,"method":"b"}}]"#),
        r#"[{"jsonrpc":"2.0","id":01,"method":"a"}]"#.to_string(),
        r#"[{"a" 1}]"#.to_string(),
        format!(r#"[{a},{{"jsonrpc":"2.0","id":3,"method":"c",}}]"#),
        format!("[{a},01]"),
        format!("[{a},tru]"),
        format!("[{a},[1,]]"),
        format!(r#"[{a},"\x"]"#),
    ];
    for validation in [
        rpcwire::scan::Validation::Lazy,
        rpcwire::scan::Validation::Strict,
    ] {
        for dialect in [rpcwire::Dialect::JsonRpc2, rpcwire::Dialect::Mcp] {
            let mut options = rpcwire::DecodeOptions::new(dialect);
            options.validation = validation;
            let decoder = Decoder::new(options);
            // A payload inside an element is checked as the mode says, as in a frame alone.
            let payload =
                format!(r#"[{a},{{"jsonrpc":"2.0","id":4,"method":"d","params":{{"x":01}}}}]"#);
            let decoded = decoder.decode(payload.as_bytes());
            match (dialect, validation) {
                (rpcwire::Dialect::Mcp, rpcwire::scan::Validation::Lazy) => assert_eq!(
                    decoded.unwrap_err().error(),
                    rpcwire::DecodeError::BatchNotAllowed
                ),
                (_, rpcwire::scan::Validation::Lazy) => {
                    assert!(matches!(decoded, Ok(Message::Batch(_))), "{decoded:?}")
                }
                _ => assert!(decoded.unwrap_err().error().is_parse_error()),
            }
            for frame in &frames {
                let rejection = decoder.decode(frame.as_bytes()).unwrap_err();
                assert!(
                    rejection.error().is_parse_error(),
                    "{dialect:?} {validation:?} {frame}: {:?}",
                    rejection.error()
                );
                assert_eq!(rejection.reply().unwrap().code, ErrorCode::PARSE_ERROR);
            }
            // Well-formed batches, with whitespace anywhere it may be, still decode, their
            // elements' envelope violations answered one by one.
            for frame in [
                format!("[ {a} , {b} ]"),
                format!("[{a},{b}]"),
                "[ 1 ]".into(),
                format!(r#"[{a},{{"jsonrpc":"2.0","id":3}}]"#),
            ] {
                let decoded = decoder.decode(frame.as_bytes());
                match dialect {
                    rpcwire::Dialect::JsonRpc2 => {
                        let Ok(Message::Batch(batch)) = decoded else {
                            panic!("{frame}: {decoded:?}")
                        };
                        let count = frame.matches("jsonrpc").count().max(1);
                        assert_eq!(batch.decode(&decoder).count(), count, "{frame}");
                        let invalid = batch.decode(&decoder).filter(Result::is_err).count();
                        let expected = usize::from(frame.contains(" 1 ") || frame.contains(":3}"));
                        assert_eq!(invalid, expected, "{frame}");
                    }
                    _ => assert_eq!(
                        decoded.unwrap_err().error(),
                        rpcwire::DecodeError::BatchNotAllowed
                    ),
                }
            }
        }
    }
}

/// A batch's elements count against the depth limit one level below the array: a batch is
/// refused as too deep exactly when its nesting, the array's level included, is over
/// `max_depth`, in every mode and dialect (MCP walks a batch before refusing it, and walks an
/// element's `result` member by member), whatever the kind of the element.
#[test]
fn batch_depth_counts_the_array() {
    let elements = |n: usize| {
        let nested = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        [
            format!(r#"{{"jsonrpc":"2.0","method":"m","params":[{nested}]}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"a":{nested}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","method":"m","x":{nested}}}"#),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":1,"message":"m","data":{nested}}}}}"#
            ),
            nested,
        ]
    };
    // The deepest nesting of a frame whose strings hold no bracket.
    let depth = |frame: &str| {
        let (mut d, mut max) = (0i32, 0);
        for b in frame.bytes() {
            match b {
                b'[' | b'{' => {
                    d += 1;
                    max = max.max(d)
                }
                b']' | b'}' => d -= 1,
                _ => {}
            }
        }
        max as u32
    };
    let modes = [
        rpcwire::scan::Validation::Lazy,
        rpcwire::scan::Validation::Strict,
    ];
    let dialects = [rpcwire::Dialect::JsonRpc2, rpcwire::Dialect::Mcp];
    for (dialect, validation) in dialects.iter().flat_map(|&d| modes.map(|v| (d, v))) {
        for max_depth in 1..=6 {
            let mut options = rpcwire::DecodeOptions::new(dialect);
            options.validation = validation;
            options.limits.max_depth = max_depth;
            let decoder = Decoder::new(options);
            for n in 0..6 {
                for element in elements(n) {
                    let frame = format!("[{element}]");
                    let too_deep = matches!(
                        decoder.decode(frame.as_bytes()),
                        Err(ref r) if r.error() == rpcwire::DecodeError::Syntax(rpcwire::ScanError::TooDeep)
                    );
                    assert_eq!(
                        too_deep,
                        depth(&frame) > max_depth,
                        "{dialect:?} {validation:?} max_depth {max_depth}: {frame}"
                    );
                }
            }
        }
    }
}

/// MCP 2025-03-26 had batches, which its receivers must accept: a decoder for a session of
/// that version decodes them, each element held to MCP's rules (a null id, array params);
/// one for 2025-06-18 on, or the MCP default, refuses them whole as -32600.
#[test]
fn mcp_2025_03_26_sessions_have_batches() {
    use rpcwire::{DecodeError, DecodeOptions, Dialect, Kind};
    let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":null,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"x","params":[1]},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}]"#;
    let mcp = DecodeOptions::new(Dialect::Mcp);
    let decoder = Decoder::new(mcp.for_protocol_version("2025-03-26"));
    let Ok(Message::Batch(batch)) = decoder.decode(frame) else {
        panic!("a batch under 2025-03-26")
    };
    let kinds: Vec<_> = batch
        .decode(&decoder)
        .map(|element| element.map(|m| m.kind()).map_err(|r| r.error()))
        .collect();
    assert_eq!(
        kinds,
        [
            Ok(Kind::Request),
            Err(DecodeError::NullId),
            Err(DecodeError::ParamsNotObject),
            Ok(Kind::Notification),
            Err(DecodeError::InitializeInBatch),
        ]
    );
    // "The initialize request MUST NOT be part of a JSON-RPC batch": answered -32600 with its
    // id, as an element of the batch.
    let initialize = batch.decode(&decoder).last().unwrap().unwrap_err();
    let reply = initialize.reply().unwrap();
    assert_eq!(
        (reply.code, reply.id.token()),
        (ErrorCode::INVALID_REQUEST, Some(&b"3"[..]))
    );
    // JSON-RPC has no such rule.
    let jsonrpc = Decoder::jsonrpc();
    let Ok(Message::Batch(batch)) = jsonrpc.decode(frame) else {
        panic!("a JSON-RPC batch")
    };
    assert!(batch.decode(&jsonrpc).last().unwrap().is_ok());
    for refusing in [
        Decoder::mcp(),
        Decoder::new(mcp.for_protocol_version("2025-06-18")),
        Decoder::new(mcp.for_protocol_version("2024-11-05")),
        Decoder::new(DecodeOptions {
            batches: false,
            ..DecodeOptions::new(Dialect::JsonRpc2)
        }),
    ] {
        let rejection = refusing.decode(frame).unwrap_err();
        assert_eq!(rejection.error(), DecodeError::BatchNotAllowed);
        assert_eq!(rejection.reply().unwrap().code, ErrorCode::INVALID_REQUEST);
    }
}

/// A batch refused whole (`BatchNotAllowed`) is not answered when it is made only of
/// responses as the reader's role reads its elements, none of which would be answered under a
/// decoder that allows batches. Reading as a client, an `id` alone is such an (invalid)
/// response, so a batch of replies holding one is not answered; a server reading it answers
/// it, as it would the element.
#[test]
fn a_refused_batch_is_answered_as_its_elements_would_be() {
    use rpcwire::{DecodeError, DecodeOptions, Role, batch::expects_reply};
    for frame in [
        &br#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2}]"#[..],
        br#"[{"jsonrpc":"2.0","id":"x"}]"#,
    ] {
        for role in [Role::Client, Role::Server] {
            let refusing = Decoder::new(DecodeOptions {
                role,
                ..DecodeOptions::default()
            });
            let allowing = Decoder::new(DecodeOptions {
                batches: true,
                ..*refusing.options()
            });
            let Ok(Message::Batch(batch)) = allowing.decode(frame) else {
                panic!()
            };
            let rejection = refusing.decode(frame).unwrap_err();
            assert_eq!(rejection.error(), DecodeError::BatchNotAllowed);
            assert_eq!(
                rejection.reply().is_some(),
                expects_reply(batch.decode(&allowing)),
                "{role:?} on {}",
                String::from_utf8_lossy(frame)
            );
        }
    }
}

/// A refused batch made only of error responses is not answered, whatever the role: an
/// `error` makes an element a response as a `result` does (a server reading it too).
#[test]
fn a_refused_batch_of_error_responses_is_not_answered() {
    use rpcwire::{DecodeError, DecodeOptions, Role};
    let frame = br#"[{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}},{"jsonrpc":"2.0","id":2,"error":{"code":-2,"message":"y"}}]"#;
    for role in [Role::Server, Role::Client] {
        let refusing = Decoder::new(DecodeOptions {
            role,
            ..DecodeOptions::default()
        });
        let rejection = refusing.decode(frame).unwrap_err();
        assert_eq!(rejection.error(), DecodeError::BatchNotAllowed);
        assert!(rejection.is_response(), "{role:?}");
        assert!(rejection.reply().is_none(), "{role:?}");
    }
}

/// A batch reply that is not closed (an early return by `?`, a writer that panics) takes
/// back everything it wrote: the buffer keeps what was there before, never half an array.
#[test]
fn a_batch_reply_not_closed_takes_back_what_it_wrote() {
    fn answer_all(out: &mut BytesMut, ids: &[&[u8]]) -> Result<bool, String> {
        let mut reply = BatchReply::open(out);
        for &token in ids {
            let id = rpcwire::Id::from_token(token).ok_or("not an id")?;
            reply.push(|out| encode::write_response(out, id, RawJson::new(b"7").unwrap()));
        }
        Ok(reply.close())
    }
    let mut out = BytesMut::from(&b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"[..]);
    let before = out.clone();
    assert!(answer_all(&mut out, &[b"1", b"2", b"oops"]).is_err());
    assert_eq!(out, before);
    assert_eq!(answer_all(&mut out, &[b"1", b"2"]), Ok(true));
    assert!(out.ends_with(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":7},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":7}]\n"));
    assert!(out.starts_with(&before));

    let mut out = before.clone();
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut reply = BatchReply::open(&mut out);
        reply.push(|out| {
            encode::write_response(
                out,
                rpcwire::Id::from_token(b"1").unwrap(),
                RawJson::new(b"7").unwrap(),
            )
        });
        reply.push(|out| {
            out.extend_from_slice(b"{\"half");
            panic!("a writer failed");
        });
    }));
    assert!(unwound.is_err());
    assert_eq!(out, before);
}

/// A batch of more elements than `Limits::max_batch_len` is refused whole with one -32600
/// (a `null` id in JSON-RPC, none in MCP), so that no peer can make a server owe a reply
/// dozens of times the size of its request; one of exactly the limit is a batch. The limit
/// is checked once the batch is known to be JSON: one that is not is still -32700. One made
/// only of responses is not answered, as any refused batch.
#[test]
fn a_batch_over_its_element_limit_is_refused_whole() {
    use rpcwire::{DecodeError, DecodeOptions, Dialect, Limits, Role};
    let batch = |n: usize, element: &str| format!("[{}]", vec![element; n].join(", "));
    for (dialect, reply_id) in [
        (Dialect::JsonRpc2, ReplyId::Null),
        (Dialect::Mcp, ReplyId::Absent),
    ] {
        let mut options = DecodeOptions::new(dialect);
        options.batches = true;
        options.limits.max_batch_len = 3;
        let decoder = Decoder::new(options);
        let three = batch(3, "1");
        let Ok(Message::Batch(at_limit)) = decoder.decode(three.as_bytes()) else {
            panic!("three elements are a batch")
        };
        assert_eq!(at_limit.decode(&decoder).count(), 3);
        let four = batch(4, "1");
        let over = decoder.decode(four.as_bytes()).unwrap_err();
        // The error carries the configured limit, and its text names it.
        assert_eq!(over.error(), DecodeError::BatchTooLong { limit: 3 });
        assert_eq!(
            over.error().to_string(),
            "batch has more elements than its limit of 3 (max_batch_len)"
        );
        let reply = over.reply().expect("answered");
        assert_eq!(
            (reply.code, reply.id),
            (ErrorCode::INVALID_REQUEST, reply_id)
        );
        // Not JSON: the parse error comes first, wherever it is.
        let broken = format!("{},]", &batch(5, "1")[..batch(5, "1").len() - 1]);
        assert!(
            decoder
                .decode(broken.as_bytes())
                .unwrap_err()
                .error()
                .is_parse_error()
        );
        // Replies alone, read by a client: nobody answers them.
        let replies = batch(4, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        let client = Decoder::new(DecodeOptions {
            role: Role::Client,
            ..options
        });
        let refused = client.decode(replies.as_bytes()).unwrap_err();
        assert_eq!(refused.error(), DecodeError::BatchTooLong { limit: 3 });
        assert!(refused.reply().is_none());
    }
    // The defaults: 100,000 elements, and 1,000 in the hardened profile.
    let jsonrpc = Decoder::jsonrpc();
    assert!(matches!(
        jsonrpc.decode(batch(Limits::DEFAULT.max_batch_len, "1").as_bytes()),
        Ok(Message::Batch(_))
    ));
    let over = batch(100_001, "1");
    assert_eq!(
        jsonrpc.decode(over.as_bytes()).unwrap_err().error(),
        DecodeError::BatchTooLong { limit: 100_000 }
    );
    let hardened = Decoder::new(DecodeOptions {
        limits: Limits::HARDENED,
        ..DecodeOptions::new(Dialect::JsonRpc2)
    });
    let thousand = batch(1_000, "1");
    assert!(matches!(
        hardened.decode(thousand.as_bytes()),
        Ok(Message::Batch(_))
    ));
    assert_eq!(
        hardened
            .decode(batch(1_001, "1").as_bytes())
            .unwrap_err()
            .error(),
        DecodeError::BatchTooLong { limit: 1_000 }
    );
}
