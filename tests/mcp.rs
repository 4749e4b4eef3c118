//! MCP helpers: cancellation, progress and task extractors, `_meta` fields, `resultType`, `_meta`
//! key names — on the shared vectors that carry these expectations and on hand-made cases.

mod common;

use proptest::strategy::{Just, Strategy};
use rpcwire::mcp::{
    self, Cancelled, MetaKey, MetaKeyError, Progress, RequestMeta, ResultType, Task,
};
use rpcwire::{Decoder, Message, RawJson};

fn notification(frame: &[u8]) -> rpcwire::Notification<'_> {
    match Decoder::mcp().decode(frame) {
        Ok(Message::Notification(n)) => n,
        other => panic!("{other:?}"),
    }
}

#[test]
fn vectors_with_progress_tokens_and_request_ids() {
    let mut ran = 0;
    for case in common::load("envelope.jsonl") {
        let exp = &case["mcp"];
        let frame = common::input(&case);
        let dir = case["dir"].as_str().unwrap();
        let decoder = common::decoder_for("mcp", dir);
        if let Some(pt) = exp["pt"].as_str() {
            let msg = decoder.decode(&frame).unwrap();
            let token = mcp::progress_token(&msg)
                .or_else(|| match msg {
                    Message::Notification(n) => Progress::from_notification(&n).map(|p| p.token),
                    _ => None,
                })
                .unwrap();
            assert_eq!(token.raw(), pt.as_bytes(), "{}", case["name"]);
            ran += 1;
        }
        if let Some(rid) = exp["rid"].as_str() {
            let Ok(Message::Notification(n)) = decoder.decode(&frame) else {
                panic!()
            };
            assert_eq!(
                Cancelled::from_notification(&n).unwrap().request_id.raw(),
                rid.as_bytes()
            );
            ran += 1;
        }
    }
    assert_eq!(ran, 3);
}

#[test]
fn malformed_cancellations_are_ignored() {
    let n = notification(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}"#,
    );
    assert_eq!(Cancelled::from_notification(&n), None);
    let n = notification(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}"#,
    );
    assert_eq!(Cancelled::from_notification(&n), None);
    let n = notification(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":1}}"#,
    );
    assert_eq!(Cancelled::from_notification(&n), None, "wrong method");
}

/// A `reason` that is no string (`null` included: the schema's `reason?: string` is not
/// nullable) reads as none, as one given twice does; the request is still cancelled.
#[test]
fn a_cancellation_reason_that_is_no_string_reads_as_none() {
    for reason in ["null", "5", r#"["a"]"#] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":3,"reason":{reason}}}}}"#
        );
        let c = Cancelled::from_notification(&notification(frame.as_bytes())).unwrap();
        assert_eq!(
            (c.request_id.raw(), c.reason),
            (&b"3"[..], None),
            "{reason}"
        );
    }
}

/// A member given twice may be read either way by other peers: a `requestId` given twice
/// names no request for sure, so the notification is ignored; a `reason` given twice reads as
/// none, and the request is still cancelled.
#[test]
fn cancellation_members_given_twice_are_not_read() {
    let n = notification(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}"#,
    );
    assert_eq!(Cancelled::from_notification(&n), None);
    let n = notification(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"a","reason":"b"}}"#,
    );
    let c = Cancelled::from_notification(&n).unwrap();
    assert_eq!((c.request_id.raw(), c.reason), (&b"3"[..], None));
}

#[test]
fn progress_fields() {
    let n = notification(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":50,"total":100,"message":"half"}}"#,
    );
    let p = Progress::from_notification(&n).unwrap();
    assert_eq!(
        (p.token.raw(), p.progress, p.total),
        (&b"7"[..], 50.0, Some(100.0))
    );
    assert_eq!(p.message.unwrap().decode(), "half");
}

#[test]
fn request_meta_of_2026_07_28() {
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}"#;
    let msg = Decoder::mcp().decode(frame).unwrap();
    let meta = RequestMeta::from_message(&msg);
    assert_eq!(meta.protocol_version.unwrap().decode(), "2026-07-28");
    assert_eq!(
        meta.client_info.unwrap().as_bytes(),
        br#"{"name":"c","version":"1"}"#
    );
    assert_eq!(meta.client_capabilities, None);
    // A handler that holds the request alone reads the same.
    let Message::Request(req) = msg else { panic!() };
    assert_eq!(RequestMeta::from_request(&req), meta);
}

/// A `_meta` field of another type than the schema's is `None`, as `RequestMeta`'s doc says:
/// the capabilities and the client's info are objects, the version a string.
#[test]
fn request_meta_fields_of_another_type_are_none() {
    for (capabilities, info) in [(r#""all""#, "[1]"), ("null", "7"), ("[]", r#""c""#)] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{capabilities},"io.modelcontextprotocol/clientInfo":{info}}}}}}}"#
        );
        let msg = Decoder::mcp().decode(frame.as_bytes()).unwrap();
        assert_eq!(
            RequestMeta::from_message(&msg),
            RequestMeta::default(),
            "{frame}"
        );
        let Message::Request(req) = msg else { panic!() };
        assert_eq!(RequestMeta::from_request(&req), RequestMeta::default());
    }
}

/// The official Python SDK's MCP 2026-07-28 session (`tests/data/capture-2026-*.ndjson`):
/// every line valid under that version's rules, strictly, every request naming the version
/// and the client in its `_meta`, the results typed (one asks for input, and the client's
/// second call answers it), and the listen stream's notifications stamped with its id.
#[test]
fn the_python_sdks_2026_07_28_session() {
    use rpcwire::scan::Validation;
    use rpcwire::{DecodeOptions, Dialect, Role};
    let read = |name: &str| {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(path).unwrap()
    };
    let decoder = |role| {
        Decoder::new(DecodeOptions {
            validation: Validation::Strict,
            role,
            ..DecodeOptions::new(Dialect::Mcp).for_protocol_version(mcp::versions::V2026_07_28)
        })
    };
    let (c2s, s2c) = (
        read("capture-2026-c2s.ndjson"),
        read("capture-2026-s2c.ndjson"),
    );
    let (from_client, from_server) = (decoder(Role::Server), decoder(Role::Client));

    // The `params` member `name` of a request, as text.
    let member = |params: Option<rpcwire::RawJson<'_>>, name: &str| {
        params
            .and_then(|p| p.get(name)?.as_str())
            .map(|s| s.decode().into_owned())
    };
    let mut listen = None;
    let mut requests = 0;
    // (id, tool, requestState) of every request that carries a `requestState`.
    let mut answers = vec![];
    // The keys the retries answer under, and those the server asked under.
    let (mut answered_keys, mut asked_keys) = (vec![], vec![]);
    for line in c2s.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        match from_client.decode(line).unwrap() {
            msg @ Message::Request(r) => {
                requests += 1;
                if let Some(state) = member(r.params, "requestState") {
                    answers.push((r.id.raw().to_vec(), member(r.params, "name"), state));
                }
                // The server's reading of the retry: its state, and an answer under each key.
                let retry = mcp::Retry::from_request(&r).unwrap();
                assert_eq!(
                    retry.request_state.map(|s| s.decode().into_owned()),
                    member(r.params, "requestState")
                );
                if retry.is_retry() {
                    let keys = retry.responses().map(|(key, _)| key.decode().into_owned());
                    answered_keys.extend(keys);
                }
                let meta = RequestMeta::from_message(&msg);
                assert_eq!(RequestMeta::from_request(&r), meta);
                assert!(meta.protocol_version.unwrap().eq_str("2026-07-28"));
                assert!(meta.client_info.is_some() && meta.client_capabilities.is_some());
                if r.method.eq_str(mcp::methods::SUBSCRIPTIONS_LISTEN) {
                    listen = Some(r.id.raw().to_vec());
                }
            }
            Message::Notification(n) => {
                let cancelled = Cancelled::from_notification(&n).unwrap();
                assert_eq!(Some(cancelled.request_id.raw().to_vec()), listen);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(requests, 11);

    let mut result_types = (0, 0);
    let mut stamped = 0;
    // (id, requestState) of the result that asks for input.
    let mut asked = vec![];
    for line in s2c.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        match from_server.decode(line).unwrap() {
            Message::Response(r) => match ResultType::of(r.result) {
                ResultType::Complete => result_types.0 += 1,
                ResultType::InputRequired => {
                    result_types.1 += 1;
                    let state = member(Some(r.result), "requestState").unwrap();
                    asked.push((r.id.raw().to_vec(), state));
                    let input = mcp::InputRequired::from_result(r.result).unwrap();
                    asked_keys.extend(input.requests().map(|q| q.key.decode().into_owned()));
                }
                other => panic!("{other:?}"),
            },
            Message::Notification(n) => {
                if let Some(stream) = mcp::subscription_id(&n) {
                    assert_eq!(Some(stream.raw().to_vec()), listen);
                    stamped += 1;
                }
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(result_types, (9, 1));
    assert_eq!(answered_keys, ["__main__:ask"]);
    assert_eq!(answered_keys, asked_keys);
    assert_eq!(stamped, 2, "the acknowledgement and one change");
    // The call that asked (`haiku`, id 5) is answered by the client's next call of that tool
    // (id 6), which hands the result's `requestState` back.
    assert_eq!(asked, [(b"5".to_vec(), answers[0].2.clone())]);
    assert_eq!(
        answers,
        [(b"6".to_vec(), Some("haiku".to_owned()), asked[0].1.clone())]
    );
}

#[test]
fn result_type_rules() {
    let decoder = common::decoder_for("mcp", "s2c");
    let ok = decoder
        .decode(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#)
        .unwrap();
    let Message::Response(r) = ok else { panic!() };
    assert_eq!(ResultType::of(r.result), ResultType::Complete);
    // 2026-07-28's multi round-trip requests.
    let ok = decoder
        .decode(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#)
        .unwrap();
    let Message::Response(r) = ok else { panic!() };
    assert_eq!(ResultType::of(r.result), ResultType::InputRequired);
    // An unknown resultType makes the response invalid (never answered).
    let rej = decoder
        .decode(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"later"}}"#)
        .unwrap_err();
    assert_eq!(rej.error(), rpcwire::DecodeError::BadResultType);
    assert_eq!(rej.reply(), None);
    assert_eq!(rej.id().unwrap().raw(), b"1");
    // With no accepted values listed, resultType is not checked (a session under a version
    // before 2026-07-28, where it is an extra member like any other); results stay objects.
    let mut options = *decoder.options();
    options.result_types = &[];
    let before = rpcwire::Decoder::new(options);
    for frame in [
        &br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"later"}}"#[..],
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":1,"resultType":2}}"#,
    ] {
        assert!(
            before.decode(frame).is_ok(),
            "{}",
            String::from_utf8_lossy(frame)
        );
        assert!(decoder.decode(frame).is_err());
    }
    // Read on its own, an unknown value is `Other`, holding its string: neither known value.
    let Ok(Message::Response(r)) =
        before.decode(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"later"}}"#)
    else {
        panic!()
    };
    let ResultType::Other(later) = ResultType::of(r.result) else {
        panic!("{:?}", ResultType::of(r.result))
    };
    assert!(later.eq_str("later"));
    let rej = before
        .decode(br#"{"jsonrpc":"2.0","id":1,"result":[]}"#)
        .unwrap_err();
    assert_eq!(rej.error(), rpcwire::DecodeError::ResultNotObject);
}

/// MCP 2026-07-28: "Extensions **MAY** add additional `ResultType` values. The set of
/// supported `ResultType` values **MUST** be created from the set defined in the core protocol
/// and include any additional values of supported extensions that are advertised via
/// capabilities." The official Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663)
/// answers a request with a `CreateTaskResult` whose "resultType field MUST be set to
/// \"task\"": a decoder under 2026-07-28 (the default, or set from the version) accepts it,
/// so that a proxy never drops the task handle a client that advertised the extension waits
/// for. Another value is still refused.
#[test]
fn the_tasks_extension_result_type_is_accepted_from_2026_07_28() {
    let created = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t-1","status":"working","createdAt":"2026-07-28T10:00:00Z","lastUpdatedAt":"2026-07-28T10:00:00Z","ttlMs":null}}"#;
    let defaults = common::decoder_for("mcp", "s2c");
    let session = rpcwire::Decoder::new(defaults.options().for_protocol_version("2026-07-28"));
    for decoder in [&defaults, &session] {
        let Ok(Message::Response(r)) = decoder.decode(created) else {
            panic!("{:?}", decoder.decode(created))
        };
        let ResultType::Other(task) = ResultType::of(r.result) else {
            panic!("{:?}", ResultType::of(r.result))
        };
        assert!(task.eq_str("task"));
        let other = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"tasks"}}"#;
        assert_eq!(
            decoder.decode(other).unwrap_err().error(),
            rpcwire::DecodeError::BadResultType
        );
    }
}

#[test]
fn an_ambiguous_result_type_is_malformed_not_complete() {
    // Read on its own (a decoder that checks no resultType lets these through), a duplicated
    // `resultType`, or one in an object whose members cannot all be read, is ambiguous: the
    // decoder's rule refuses it, and it must not pass for an absent one (`Complete`).
    for result in [
        &br#"{"resultType":"input_required","resultType":"input_required"}"#[..],
        br#"{"resultType":"complete","resultType":"input_required"}"#,
        br#"{"content":[] "resultType":"input_required"}"#,
    ] {
        let result = rpcwire::RawJson::new(result).unwrap();
        assert_eq!(ResultType::of(result), ResultType::Malformed, "{result:?}");
    }
}

#[test]
fn meta_key_names() {
    for good in [
        "progressToken",
        "",
        "a",
        "io.modelcontextprotocol/protocolVersion",
        "my-app.example/x_y.z",
        "x/",
    ] {
        assert!(MetaKey::parse(good).is_ok(), "{good}");
    }
    for (bad, why) in [
        ("-x", MetaKeyError::BadName),
        ("x-", MetaKeyError::BadName),
        ("a b", MetaKeyError::BadName),
        ("1abc.example/x", MetaKeyError::BadPrefixLabel),
        ("abc-.example/x", MetaKeyError::BadPrefixLabel),
        ("a..b/x", MetaKeyError::BadPrefixLabel),
        ("/x", MetaKeyError::BadPrefixLabel),
    ] {
        assert_eq!(MetaKey::parse(bad), Err(why), "{bad}");
    }
    // MCP 2025-11-25 and later: the second label decides.
    let reserved = |key: &str| MetaKey::parse(key).unwrap().is_reserved();
    for key in [
        "io.modelcontextprotocol/x",
        "dev.mcp/x",
        "org.modelcontextprotocol.api/x",
        "com.mcp.tools/x",
        "IO.ModelContextProtocol/x",
    ] {
        assert!(reserved(key), "{key}");
    }
    for key in [
        "com.example.mcp/x",
        "mcp.example/x",
        "modelcontextprotocol.io/x",
        "tools.example.mcp/x",
        "example.com/x",
        "progressToken",
    ] {
        assert!(!reserved(key), "{key}");
    }
    assert!(!reserved("mcp/x"), "a single label has no second label");
}

#[test]
fn progress_beyond_f64_is_not_read() {
    for progress in ["1e400", "-nan"] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":7,"progress":{progress}}}}}"#
        );
        let n = notification(frame.as_bytes());
        assert_eq!(Progress::from_notification(&n), None, "{progress}");
    }
}

/// A progress notification whose `total` or `message` is there but cannot be read (of
/// another type, `null` included, which MCP's schema does not allow for either; beyond
/// `f64`; or given twice) is malformed: `None`, as for its `progress`, not a notification
/// read as if the member were absent.
#[test]
fn progress_with_an_unreadable_total_or_message_is_malformed() {
    for extra in [
        r#""total":"ten""#,
        r#""total":null"#,
        r#""total":1e400"#,
        r#""total":2,"total":3"#,
        r#""message":5"#,
        r#""message":null"#,
        r#""message":"a","message":"b""#,
    ] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":7,"progress":1,{extra}}}}}"#
        );
        let n = notification(frame.as_bytes());
        assert_eq!(Progress::from_notification(&n), None, "{extra}");
        // The token is still read alone (`progress_token`'s rule).
        let msg = Decoder::mcp().decode(frame.as_bytes()).unwrap();
        assert_eq!(mcp::progress_token(&msg).unwrap().raw(), b"7");
    }
}

#[test]
fn progress_token_of_requests_and_progress_notifications_only() {
    let token = |frame: &[u8]| {
        let msg = Decoder::mcp().decode(frame).unwrap();
        mcp::progress_token(&msg).map(|t| t.raw().to_vec())
    };
    assert_eq!(
        token(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1e400}}"#),
        Some(b"7".to_vec())
    );
    assert_eq!(
        token(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"progressToken":7,"_meta":{"progressToken":8}}}"#),
        None
    );
    assert_eq!(
        token(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"progressToken":7,"_meta":{"progressToken":8}}}"#),
        Some(b"8".to_vec())
    );
    assert_eq!(
        token(
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1.5}}}"#
        ),
        None
    );
}

#[test]
fn write_cancelled_reads_back_as_the_same_cancellation() {
    for (id, reason) in [
        (&b"7"[..], None),
        (br#""a\"b\u00e9""#, Some("timed \"out\"\n")),
    ] {
        let mut out = bytes::BytesMut::new();
        assert!(mcp::write_cancelled(
            &mut out,
            rpcwire::Id::from_token(id).unwrap(),
            reason
        ));
        let frame = out.strip_suffix(b"\n").unwrap();
        let c = Cancelled::from_notification(&notification(frame)).unwrap();
        assert_eq!(c.request_id.raw(), id);
        assert_eq!(c.reason.map(|r| r.decode().into_owned()).as_deref(), reason);
    }
}

/// `write_cancelled_token` writes, for a token of ours (the smallest, one of the table's, the
/// largest), what `write_cancelled` writes for the token's id, which a peer reads back as the
/// cancellation of that request.
#[test]
fn write_cancelled_token_writes_what_write_cancelled_writes_for_its_id() {
    let minted = rpcwire::PendingTable::new().insert(()).unwrap();
    let smallest = rpcwire::Token::new(0).unwrap();
    for token in [smallest, minted, rpcwire::Token::MAX] {
        for reason in [None, Some("timed \"out\"")] {
            let mut by_token = bytes::BytesMut::new();
            mcp::write_cancelled_token(&mut by_token, token, reason);
            let mut by_id = bytes::BytesMut::new();
            assert!(mcp::write_cancelled(
                &mut by_id,
                token.to_id(&mut [0; 20]),
                reason
            ));
            assert_eq!(by_token, by_id, "{token}");
            let frame = by_token.strip_suffix(b"\n").unwrap();
            let c = Cancelled::from_notification(&notification(frame)).unwrap();
            assert_eq!(c.request_id.raw(), token.to_string().as_bytes());
            assert_eq!(rpcwire::Token::from_wire(c.request_id.raw()), Some(token));
        }
    }
}

/// An id that is not a string or an integer names no request a peer can cancel (MCP's request
/// ids are strings or integers): nothing is written, and `false` says so.
#[test]
fn write_cancelled_refuses_an_id_no_request_can_have() {
    for id in [&b"null"[..], b"1.5", b"1e3", b"-0.0"] {
        let mut out = bytes::BytesMut::new();
        let written =
            mcp::write_cancelled(&mut out, rpcwire::Id::from_token(id).unwrap(), Some("gone"));
        assert!(!written, "{}", String::from_utf8_lossy(id));
        assert!(out.is_empty(), "{}", String::from_utf8_lossy(id));
    }
}

/// `write_progress` writes what `Progress::from_notification` and serde_json read back, the
/// numbers exactly (shortest digits, an exponent for the very large and small), the token
/// byte for byte and the message escaped.
#[test]
fn written_progress_reads_back() {
    // Each case with its numbers as the line must spell them.
    type Case<'a> = (&'a [u8], f64, Option<f64>, Option<&'a str>, &'a str);
    let cases: [Case<'_>; 4] = [
        (b"7", 0.0, None, None, r#""progress":0.0}"#),
        (
            br#""tok \"a\"""#,
            0.1,
            Some(3.0),
            Some("line\nbreak \u{e9}"),
            r#""progress":0.1,"total":3.0,"#,
        ),
        (
            b"-12",
            1e-7,
            Some(1e300),
            None,
            r#""progress":1e-7,"total":1e300}"#,
        ),
        (
            b"123456789012345678901234567890",
            42.5,
            Some(f64::MAX),
            Some(""),
            r#""progress":42.5,"total":1.7976931348623157e308,"#,
        ),
    ];
    for (token, progress, total, message, spelled) in cases {
        let mut out = bytes::BytesMut::new();
        let token = rpcwire::Id::from_token(token).unwrap();
        assert!(mcp::write_progress(
            &mut out, token, progress, total, message
        ));
        assert_eq!(out.last(), Some(&b'\n'));
        let line = &out[..out.len() - 1];
        assert!(
            line.windows(spelled.len()).any(|w| w == spelled.as_bytes()),
            "{spelled} in {}",
            String::from_utf8_lossy(line)
        );
        let read = Progress::from_notification(&notification(line)).unwrap();
        assert_eq!(read.token.raw(), token.raw());
        assert_eq!(read.progress.to_bits(), progress.to_bits());
        assert_eq!(read.total.map(f64::to_bits), total.map(f64::to_bits));
        assert_eq!(
            read.message.map(|m| m.decode().into_owned()),
            message.map(str::to_owned)
        );
        let value: serde_json::Value = serde_json::from_slice(line).unwrap();
        let params = &value["params"];
        assert_eq!(
            params["progress"].as_f64().map(f64::to_bits),
            Some(progress.to_bits())
        );
        assert_eq!(
            params["total"].as_f64().map(f64::to_bits),
            total.map(f64::to_bits)
        );
        assert!(line.len() < 200, "{}", String::from_utf8_lossy(line));
    }
    let mut out = bytes::BytesMut::new();
    let token = rpcwire::Id::from_token(b"1").unwrap();
    assert!(!mcp::write_progress(
        &mut out,
        token,
        1.0,
        Some(f64::INFINITY),
        None
    ));
    assert!(out.is_empty());
    // MCP's progress token is a string or an integer: `null` and other numbers are refused.
    for token in [&b"null"[..], b"1.5", b"1e3", b"-0.0"] {
        let token = rpcwire::Id::from_token(token).unwrap();
        assert!(!mcp::write_progress(&mut out, token, 1.0, None, None));
        assert!(out.is_empty());
    }
}

/// `DecodeOptions::for_protocol_version` sets what the version decides whole, whatever an
/// earlier call set: a session's options can be derived again when the version becomes known
/// (or changes), and the last call is what counts. A value of one's own goes after it.
#[test]
fn for_protocol_version_is_the_last_versions_alone() {
    use rpcwire::{DecodeOptions, Dialect};
    let versions = [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ];
    for dialect in [Dialect::Mcp, Dialect::JsonRpc2] {
        let options = DecodeOptions::new(dialect);
        for first in versions {
            for last in versions {
                assert_eq!(
                    options
                        .for_protocol_version(first)
                        .for_protocol_version(last),
                    options.for_protocol_version(last),
                    "{dialect:?}: {first} then {last}"
                );
            }
        }
    }
    // The newest version checks resultType again after an older one emptied the list.
    let reply = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":42}}"#;
    let mcp = DecodeOptions::new(Dialect::Mcp);
    let again = mcp
        .for_protocol_version("2025-06-18")
        .for_protocol_version("2026-07-28");
    assert_eq!(again.result_types, DecodeOptions::RESULT_TYPES);
    assert!(Decoder::new(again).decode(reply).is_err());
    // Hand-set values go after it, and stay.
    let own = DecodeOptions {
        batches: false,
        result_types: &["complete"],
        ..mcp.for_protocol_version("2025-03-26")
    };
    assert!(!own.batches);
    assert_eq!(own.result_types, &["complete"]);
}

/// Every boundary of the error-code blocks. JSON-RPC 2.0 §5.1: -32768..-32000 reserved,
/// -32099..-32000 "Server error" (implementation-defined). MCP 2026-07-28 (basic, "Error
/// Codes"): -32000..-32019 legacy (new implementations SHOULD NOT use them), -32020..-32099
/// the specification's alone (MUST NOT emit one it does not define), and the withdrawn -32002
/// and -32042 MUST NOT be emitted; outside -32768..-32000 is the applications'.
#[test]
fn error_code_blocks_at_their_boundaries() {
    use rpcwire::{CodeRange, ErrorCode};
    let cases = [
        (-31999, CodeRange::Application, false),
        (-32000, CodeRange::McpLegacy, true),
        (-32002, CodeRange::McpLegacy, true),
        (-32019, CodeRange::McpLegacy, true),
        (-32020, CodeRange::McpReservedDefined, false),
        (-32022, CodeRange::McpReservedDefined, false),
        (-32023, CodeRange::McpReservedUndefined, true),
        (-32041, CodeRange::McpReservedUndefined, true),
        (-32042, CodeRange::McpReservedDefined, true),
        (-32043, CodeRange::McpReservedUndefined, true),
        (-32099, CodeRange::McpReservedUndefined, true),
        (-32100, CodeRange::JsonRpcReserved, true),
        (-32599, CodeRange::JsonRpcReserved, true),
        (-32600, CodeRange::Standard, false),
        (-32603, CodeRange::Standard, false),
        (-32604, CodeRange::JsonRpcReserved, true),
        (-32699, CodeRange::JsonRpcReserved, true),
        (-32700, CodeRange::Standard, false),
        (-32701, CodeRange::JsonRpcReserved, true),
        (-32768, CodeRange::JsonRpcReserved, true),
        (-32769, CodeRange::Application, false),
        (0, CodeRange::Application, false),
        (i64::MIN, CodeRange::Application, false),
    ];
    for (code, range, forbidden) in cases {
        let code = ErrorCode(code);
        assert_eq!(code.range(), range, "{code}");
        assert_eq!(code.is_forbidden_in_mcp_2026(), forbidden, "{code}");
    }
}

/// Each code the specifications define has its constant and its own message, and a code next
/// to one (in the same block) has none: the five of JSON-RPC 2.0 §5.1, MCP's legacy -32002 and
/// withdrawn -32042, and the three 2026-07-28 defines. A reply written for a code with no
/// message falls back to a generic one, so a defined code losing its message would go unseen
/// by a peer.
#[test]
fn each_defined_error_code_has_its_constant_and_message_and_its_neighbours_none() {
    use rpcwire::ErrorCode;
    let defined = [
        (ErrorCode::PARSE_ERROR, -32700, "Parse error"),
        (ErrorCode::INVALID_REQUEST, -32600, "Invalid Request"),
        (ErrorCode::METHOD_NOT_FOUND, -32601, "Method not found"),
        (ErrorCode::INVALID_PARAMS, -32602, "Invalid params"),
        (ErrorCode::INTERNAL_ERROR, -32603, "Internal error"),
        (
            ErrorCode::MCP_RESOURCE_NOT_FOUND,
            -32002,
            "Resource not found",
        ),
        (
            ErrorCode::MCP_URL_ELICITATION_REQUIRED,
            -32042,
            "URL elicitation required",
        ),
        (ErrorCode::MCP_HEADER_MISMATCH, -32020, "Header mismatch"),
        (
            ErrorCode::MCP_MISSING_CLIENT_CAPABILITY,
            -32021,
            "Missing required client capability",
        ),
        (
            ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION,
            -32022,
            "Unsupported protocol version",
        ),
    ];
    for (constant, code, message) in defined {
        assert_eq!(constant, ErrorCode(code), "{message}");
        assert_eq!(constant.get(), code);
        assert_eq!(constant.to_string(), code.to_string());
        assert_eq!(constant.default_message(), Some(message), "{code}");
    }
    for code in [
        -32701, -32604, -32599, -32000, -32001, -32003, -32019, -32023, -32041, -32043, 0, 1,
    ] {
        assert_eq!(ErrorCode(code).default_message(), None, "{code}");
    }
}

/// A task object's id and whether its status is terminal, as [`Task::from_object`] reads them
/// (the id's token as text).
fn task(object: &str) -> Option<(String, Option<String>, bool)> {
    let task = Task::from_object(RawJson::new(object.as_bytes()).unwrap())?;
    Some((
        String::from_utf8(task.id.raw().to_vec()).unwrap(),
        task.status.map(|s| s.decode().into_owned()),
        task.is_terminal(),
    ))
}

/// MCP 2025-11-25: `completed`, `failed` and `cancelled` are terminal; `working` and
/// `input_required` are not, nor is a status of another spelling or type.
#[test]
fn terminal_task_statuses() {
    for (status, terminal) in [
        (r#""working""#, false),
        (r#""input_required""#, false),
        (r#""completed""#, true),
        (r#""failed""#, true),
        (r#""cancelled""#, true),
        (r#""canceled""#, false),
        (r#""Completed""#, false),
        (r#""complete\u0064""#, true),
        ("1", false),
        ("null", false),
    ] {
        let object = format!(r#"{{"taskId":"t","status":{status}}}"#);
        assert_eq!(task(&object).map(|t| t.2), Some(terminal), "{status}");
    }
}

/// A task id must be one string ("Task IDs **MUST** be a string value"): one of another type,
/// missing, or given twice names no task. A status missing, of another type or given twice
/// reads as none, not terminal, the task still named by its id.
#[test]
fn a_task_needs_one_string_id_and_reads_an_unclear_status_as_none() {
    for object in [
        r#"{"taskId":7,"status":"working"}"#,
        r#"{"status":"completed"}"#,
        r#"{"taskId":"a","taskId":"b","status":"working"}"#,
        r#""t""#,
        r#"{"taskId":"t","status":"working","n":01}"#,
    ] {
        assert_eq!(task(object), None, "{object}");
    }
    for object in [
        r#"{"taskId":"t"}"#,
        r#"{"taskId":"t","status":7}"#,
        r#"{"taskId":"t","status":"completed","status":"working"}"#,
        r#"{"taskId":"t","status":"working","status":"completed"}"#,
    ] {
        assert_eq!(
            task(object),
            Some(("\"t\"".into(), None, false)),
            "{object}"
        );
    }
}

/// `notifications/tasks/status` carries the task in `params`, and so does the Tasks
/// extension's `notifications/tasks` of MCP 2026-07-28 ("`TaskStatusNotificationParams =
/// NotificationParams & Task`", as the extension's example, on a listen stream); another
/// method names none.
#[test]
fn a_status_notification_tells_its_task() {
    let frame = br#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t","status":"failed"}}"#;
    let t = Task::from_notification(&notification(frame)).unwrap();
    assert_eq!((t.id.raw(), t.is_terminal()), (&br#""t""#[..], true));
    for (status, terminal) in [
        ("working", false),
        ("input_required", false),
        ("completed", true),
    ] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"{status}","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":60000,"pollIntervalMs":5000,"result":{{"content":[{{"type":"text","text":"Operation completed successfully."}}],"isError":false}},"_meta":{{"io.modelcontextprotocol/subscriptionId":"l1"}}}}}}"#
        );
        let t = Task::from_notification(&notification(frame.as_bytes())).expect(status);
        assert_eq!(
            (t.id.raw(), t.is_terminal()),
            (&br#""786512e2-9e0d-44bd-8f29-789f320fe840""#[..], terminal),
            "{status}"
        );
    }
    let frame = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"taskId":"t","status":"failed"}}"#;
    assert_eq!(Task::from_notification(&notification(frame)), None);
}

/// The task a result belongs to is the `taskId` of its `_meta`'s related task.
#[test]
fn related_task_of_a_result() {
    let related = |value: &str| {
        mcp::related_task(RawJson::new(value.as_bytes()).unwrap())
            .map(|id| String::from_utf8(id.raw().to_vec()).unwrap())
    };
    let key = mcp::meta_keys::RELATED_TASK;
    assert_eq!(
        related(&format!(r#"{{"_meta":{{"{key}":{{"taskId":"t"}}}}}}"#)),
        Some("\"t\"".into())
    );
    for value in [
        r#"{"content":[]}"#.to_string(),
        format!(r#"{{"_meta":{{"{key}":{{"taskId":1}}}}}}"#),
        format!(r#"{{"_meta":{{"{key}":{{"taskId":"a"}},"{key}":{{"taskId":"b"}}}}}}"#),
        format!(r#"{{"_meta":{{"{key}":"t"}}}}"#),
    ] {
        assert_eq!(related(&value), None, "{value}");
    }
}

/// A request is task-augmented by a `params.task` object (or one given twice); never a request
/// of the task methods, whose results are their own.
#[test]
fn task_augmented_requests() {
    let augmented = |method: &str, params: &str| {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#);
        match Decoder::mcp().decode(frame.as_bytes()) {
            Ok(Message::Request(r)) => mcp::is_task_augmented(&r),
            other => panic!("{other:?}"),
        }
    };
    assert!(augmented(
        "tools/call",
        r#"{"name":"x","task":{"ttl":1000}}"#
    ));
    assert!(augmented(
        "tools/call",
        r#"{"name":"x","task":1,"task":{}}"#
    ));
    assert!(!augmented("tools/call", r#"{"name":"x"}"#));
    assert!(!augmented("tools/call", r#"{"name":"x","task":true}"#));
    assert!(!augmented("tools/call", r#"{"name":"x","task":null}"#));
    // (The Tasks extension of MCP 2026-07-28 adds `tasks/update`, an empty acknowledgement.)
    for method in [
        "tasks/get",
        "tasks/result",
        "tasks/cancel",
        "tasks/list",
        "tasks/update",
    ] {
        assert!(
            !augmented(method, r#"{"taskId":"t","task":{}}"#),
            "{method}"
        );
    }
}

/// `versions::negotiate` answers an `initialize` as MCP's lifecycle says: the requested
/// version when the server supports it, else the latest the server supports (by the module's
/// order, not the list's), never a version without `initialize` (2026-07-28 and later, a
/// draft's name among them), and nothing when no supported version has `initialize`.
#[test]
fn negotiate_answers_the_requested_version_or_the_latest_with_initialize() {
    use mcp::versions::{KNOWN, LATEST, V2025_11_25, negotiate};
    let unsorted = ["2025-11-25", "2026-07-28", "2024-11-05", "2025-06-18"];
    assert_eq!(negotiate("2024-11-05", &unsorted), Some("2024-11-05"));
    assert_eq!(negotiate("2025-06-18", &unsorted), Some("2025-06-18"));
    for other in ["2025-03-26", "1.0", "", " 2025-06-18", "2099-01-01"] {
        assert_eq!(negotiate(other, &unsorted), Some("2025-11-25"), "{other:?}");
    }
    // Not answered with, not even when asked for: neither has `initialize`.
    assert_eq!(negotiate("2026-07-28", &unsorted), Some("2025-11-25"));
    let with_draft = ["2025-06-18", "DRAFT-2026-v1"];
    assert_eq!(negotiate("DRAFT-2026-v1", &with_draft), Some("2025-06-18"));
    assert_eq!(negotiate(LATEST, KNOWN), Some(V2025_11_25));
    for version in KNOWN.iter().filter(|v| **v < LATEST) {
        assert_eq!(negotiate(version, KNOWN), Some(*version));
    }
    // Nothing to answer with.
    assert_eq!(negotiate("2025-06-18", &[]), None);
    assert_eq!(
        negotiate("2026-07-28", &["2026-07-28", "DRAFT-2026-v1"]),
        None
    );
    // The answer is the server's string, not the client's: it outlives the frame.
    let supported = ["2025-06-18"];
    let requested = String::from("2025-06-18");
    let answer = negotiate(&requested, &supported).unwrap();
    drop(requested);
    assert!(std::ptr::eq(answer, supported[0]));
}

/// `versions::accept` takes the server's answer to `initialize` when the client speaks it,
/// exactly, and never a version without `initialize`; the answer is the client's string.
#[test]
fn accept_takes_a_spoken_answer_with_initialize_only() {
    use mcp::versions::{KNOWN, LATEST, accept};
    let speaks = ["2025-11-25", "2024-11-05", "2025-06-18"];
    for answered in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        assert_eq!(accept(answered, &speaks), Some(answered));
    }
    for answered in [
        "2025-03-26",
        "",
        " 2025-06-18",
        "2025-06-18 ",
        "2099-01-01",
        "1.0",
    ] {
        assert_eq!(accept(answered, &speaks), None, "{answered:?}");
    }
    assert_eq!(accept(LATEST, KNOWN), None);
    assert_eq!(accept("DRAFT-2026-v1", &["DRAFT-2026-v1"]), None);
    for version in KNOWN.iter().filter(|v| **v < LATEST) {
        assert_eq!(accept(version, KNOWN), Some(*version));
    }
    assert_eq!(accept("2025-06-18", &[]), None);
    let answered = String::from("2025-06-18");
    let version = accept(&answered, &speaks).unwrap();
    drop(answered);
    assert!(std::ptr::eq(version, speaks[2]));
}

/// `versions::is_known` is the list of revisions this crate knows the rules of, exactly: each
/// of them, and no near miss (another date, a draft's name, a space, an unpadded day, none).
#[test]
fn is_known_names_exactly_the_known_revisions() {
    use mcp::versions::{KNOWN, is_known};
    for version in KNOWN {
        assert!(is_known(version), "{version}");
    }
    for other in [
        "",
        "2025-06-19",
        "2099-01-01",
        "DRAFT-2026-v1",
        "2026-07-28 ",
        "2024-11-5",
    ] {
        assert!(!is_known(other), "{other:?}");
    }
}

/// Results carry a `resultType` to check from 2026-07-28 on (a draft's name, which sorts after
/// every dated revision, included), and not under an earlier revision, where it is a member
/// like any other: a decoder set for such a session takes a result whose `resultType` no
/// revision defines, one set for 2026-07-28 refuses it.
#[test]
fn result_type_is_checked_from_2026_07_28_on() {
    use mcp::versions::has_result_type;
    use rpcwire::{DecodeOptions, Dialect};
    let reply = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"partial"}}"#;
    for (version, checked) in [
        ("2024-11-05", false),
        ("2025-03-26", false),
        ("2025-06-18", false),
        ("2025-11-25", false),
        ("1.0", false),
        ("2026-07-28", true),
        ("DRAFT-2026-v1", true),
    ] {
        assert_eq!(has_result_type(version), checked, "{version}");
        let options = DecodeOptions::new(Dialect::Mcp).for_protocol_version(version);
        assert_eq!(
            Decoder::new(options).decode(reply).is_err(),
            checked,
            "{version}"
        );
    }
}

/// Generated `params` of one of the three notifications (`method`, an index into `METHODS`):
/// members under the keys its extractor reads (some spelled with escapes) and another, each
/// as `((name, spelling), value text)`.
fn params_of(
    method: usize,
) -> impl Strategy<Value = Vec<((&'static str, &'static str), &'static str)>> {
    use proptest::prelude::*;
    let keys = [
        vec![
            ("requestId", r#""requestId""#),
            ("requestId", r#""request\u0049d""#),
            ("reason", r#""reason""#),
        ],
        vec![
            ("progressToken", r#""progressToken""#),
            ("progressToken", r#""progress\u0054oken""#),
            ("progress", r#""progress""#),
            ("total", r#""total""#),
            ("message", r#""message""#),
        ],
        vec![
            ("taskId", r#""taskId""#),
            ("status", r#""status""#),
            ("status", r#""st\u0061tus""#),
        ],
    ];
    let mut keys = keys[method.min(2)].clone();
    keys.push(("other", r#""other""#));
    let value = prop::sample::select(vec![
        "1",
        "-0",
        "-7",
        "1.5",
        "1e2",
        "123456789012345678901234567890",
        "1e400",
        "null",
        "true",
        r#""a""#,
        r#""""#,
        r#""a\"b""#,
        r#""completed""#,
        r#""c\u006fmpleted""#,
        r#""failed""#,
        r#""cancelled""#,
        r#""working""#,
        r#""input_required""#,
        "[]",
        "{}",
        r#"[1,"x"]"#,
        r#"{"requestId":1}"#,
    ]);
    proptest::collection::vec((prop::sample::select(keys), value), 0..5)
}

/// The notifications whose extractors `extractors_follow_their_docs_on_generated_params` tries.
const METHODS: [&str; 4] = [
    mcp::methods::CANCELLED,
    mcp::methods::PROGRESS,
    mcp::methods::TASKS_STATUS,
    mcp::methods::TASKS_NOTIFICATION,
];

proptest::proptest! {
    #![proptest_config(crate::common::cases(3000))]

    /// `Cancelled`, `Progress` and `Task` against a model of their docs, on generated params
    /// (the tests above each try a few hand-made ones): members of every type, given once,
    /// twice, or under an escaped spelling of the key, with whitespace around them. A member
    /// the extractor needs must be there once and of its type (a request id or progress token:
    /// a string or an integer); an optional one given twice or of another type reads as none
    /// (`reason`, `status`) or makes the notification malformed (`total`, `message`).
    #[test]
    fn extractors_follow_their_docs_on_generated_params(
        (method, members) in (0..4usize).prop_flat_map(|m| (Just(m), params_of(m))),
    ) {
        let body: Vec<_> = members.iter().map(|((_, k), v)| format!(" {k} :\t{v} ")).collect();
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"{}","params":{{{}}}}}"#,
            METHODS[method],
            body.join(",")
        );
        let n = notification(frame.as_bytes());
        // `Some(None)` when absent, `None` when given more than once.
        let once = |name: &str| {
            let mut found = members.iter().filter(|((k, _), _)| *k == name).map(|(_, v)| *v);
            match (found.next(), found.next()) {
                (first, None) => Some(first),
                _ => None,
            }
        };
        let is_string = |v: &str| v.starts_with('"');
        let is_id = |v: &str| is_string(v) || (v.parse::<f64>().is_ok() && !v.contains(['.', 'e']));
        let number = |v: &str| v.parse::<f64>().ok().filter(|f| f.is_finite());
        let string = |v: &str| serde_json::from_str::<String>(v).unwrap();
        match method {
            0 => {
                let read = Cancelled::from_notification(&n)
                    .map(|c| (c.request_id.raw().to_vec(), c.reason.map(|r| r.decode().into_owned())));
                let model = once("requestId").flatten().filter(|v| is_id(v)).map(|id| {
                    let reason = once("reason").flatten().filter(|v| is_string(v)).map(string);
                    (id.as_bytes().to_vec(), reason)
                });
                proptest::prop_assert_eq!(read, model, "{}", frame);
            }
            1 => {
                let read = Progress::from_notification(&n).map(|p| {
                    (p.token.raw().to_vec(), p.progress, p.total, p.message.map(|m| m.decode().into_owned()))
                });
                let model = (|| {
                    let token = once("progressToken")??;
                    let progress = number(once("progress")??)?;
                    let total = match once("total")? {
                        None => None,
                        Some(v) => Some(number(v)?),
                    };
                    let message = match once("message")? {
                        None => None,
                        Some(v) => Some(string(Some(v).filter(|v| is_string(v))?)),
                    };
                    is_id(token).then(|| (token.as_bytes().to_vec(), progress, total, message))
                })();
                proptest::prop_assert_eq!(read, model, "{}", frame);
            }
            _ => {
                let read = Task::from_notification(&n)
                    .map(|t| (t.id.raw().to_vec(), t.status.map(|s| s.decode().into_owned()), t.is_terminal()));
                let model = once("taskId").flatten().filter(|v| is_string(v)).map(|id| {
                    let status = once("status").flatten().filter(|v| is_string(v)).map(string);
                    let terminal = status
                        .as_deref()
                        .is_some_and(|s| ["completed", "failed", "cancelled"].contains(&s));
                    (id.as_bytes().to_vec(), status, terminal)
                });
                proptest::prop_assert_eq!(read, model, "{}", frame);
            }
        }
    }
}

/// `write_request_with_progress`: the token goes first into `params._meta` (made when there
/// is none), every other byte of the params stays (line breaks become spaces), the line reads
/// back as a request asking for progress on the token, and a request that cannot carry it
/// writes nothing.
#[test]
fn write_request_with_progress_splices_the_token_into_meta() {
    use bytes::BytesMut;
    use mcp::ProgressRequestError as E;
    use rpcwire::Id;
    let id = Id::from_token(b"3").unwrap();
    let ok: &[(Option<&str>, &str, &str)] = &[
        (None, "9", r#"{"_meta":{"progressToken":9}}"#),
        (Some("{}"), "9", r#"{"_meta":{"progressToken":9}}"#),
        (Some("{ }"), "9", r#"{"_meta":{"progressToken":9} }"#),
        (
            Some(r#"{"a":1}"#),
            "9",
            r#"{"_meta":{"progressToken":9},"a":1}"#,
        ),
        (
            Some(r#"{ "a" : 1 }"#),
            r#""t""#,
            r#"{"_meta":{"progressToken":"t"}, "a" : 1 }"#,
        ),
        (
            Some(r#"{"_meta":{}}"#),
            "9",
            r#"{"_meta":{"progressToken":9}}"#,
        ),
        (
            Some(r#"{"_meta":{ }}"#),
            "9",
            r#"{"_meta":{"progressToken":9 }}"#,
        ),
        (
            Some(r#"{"a":[1],"_meta":{"b":{"c":2}},"z":0}"#),
            "-4",
            r#"{"a":[1],"_meta":{"progressToken":-4,"b":{"c":2}},"z":0}"#,
        ),
        // The escaped spelling of `_meta` is the same member.
        (
            Some(r#"{"\u005fmeta":{"b":1}}"#),
            "9",
            r#"{"\u005fmeta":{"progressToken":9,"b":1}}"#,
        ),
        // A `progressToken` elsewhere than in `_meta` asks nothing.
        (
            Some(r#"{"progressToken":1,"x":{"_meta":{"progressToken":2}}}"#),
            "9",
            r#"{"_meta":{"progressToken":9},"progressToken":1,"x":{"_meta":{"progressToken":2}}}"#,
        ),
        // A `null` token asks for nothing: the token takes its place, spelling and all.
        (
            Some(r#"{"_meta":{"progress\u0054oken":null}}"#),
            "9",
            r#"{"_meta":{"progress\u0054oken":9}}"#,
        ),
        (
            Some(r#"{"a":null,"_meta":{"b":null, "progressToken" : null ,"c":1}}"#),
            r#""t""#,
            r#"{"a":null,"_meta":{"b":null, "progressToken" : "t" ,"c":1}}"#,
        ),
        (
            Some("{\"a\":\r\n1}"),
            "9",
            r#"{"_meta":{"progressToken":9},"a":  1}"#,
        ),
        (
            Some("{\n\"_meta\":\n{\n}}"),
            "9",
            r#"{ "_meta": {"progressToken":9 }}"#,
        ),
    ];
    for &(params, token, want) in ok {
        let token = Id::from_token(token.as_bytes()).unwrap();
        let mut out = BytesMut::from(&b"before\n"[..]);
        let raw = params.map(|p| RawJson::new(p.as_bytes()).unwrap());
        mcp::write_request_with_progress(&mut out, id, "tools/call", raw, token).unwrap();
        let line = &out[b"before\n".len()..];
        let expected =
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{want}}}"#) + "\n";
        assert_eq!(std::str::from_utf8(line).unwrap(), expected, "{params:?}");
        let frame = &line[..line.len() - 1];
        let strict = Decoder::new(rpcwire::DecodeOptions {
            validation: rpcwire::Validation::Strict,
            ..rpcwire::DecodeOptions::new(rpcwire::Dialect::Mcp)
        });
        let msg = strict.decode(frame).unwrap();
        assert_eq!(
            mcp::progress_token(&msg).unwrap().raw(),
            token.raw(),
            "{params:?}"
        );
    }
    let refused: &[(Option<&str>, &str, E)] = &[
        (None, "null", E::BadToken),
        (Some("{}"), "1.5", E::BadToken),
        (Some("[1]"), "9", E::NotAnObject),
        (Some("7"), "9", E::NotAnObject),
        (Some(r#"{"_meta":[]}"#), "9", E::NotAnObject),
        (Some(r#"{"_meta":null}"#), "9", E::NotAnObject),
        (Some(r#"{"_meta":{},"_meta":{}}"#), "9", E::Malformed),
        (Some(r#"{"a" 1,"_meta":{}}"#), "9", E::Malformed),
        (Some(r#"{"_meta":{"a" 1}}"#), "9", E::Malformed),
        (
            Some(r#"{"_meta":{"progressToken":1}}"#),
            "9",
            E::AlreadyAsked,
        ),
        (
            Some(r#"{"_meta":{"progressToken":null,"progressToken":null}}"#),
            "9",
            E::AlreadyAsked,
        ),
        (
            Some(r#"{"_meta":{"progressToken":null,"progressToken":1}}"#),
            "9",
            E::AlreadyAsked,
        ),
        (
            Some(r#"{"_meta":{"progressToken":1,"progressToken":2}}"#),
            "9",
            E::AlreadyAsked,
        ),
    ];
    for &(params, token, error) in refused {
        let token = Id::from_token(token.as_bytes()).unwrap();
        let mut out = BytesMut::from(&b"before\n"[..]);
        let raw = params.map(|p| RawJson::new(p.as_bytes()).unwrap());
        let got = mcp::write_request_with_progress(&mut out, id, "tools/call", raw, token);
        assert_eq!(got, Err(error), "{params:?}");
        assert_eq!(&out[..], b"before\n", "{params:?}");
    }
    // A request id MCP's decoders refuse (null, or not an integer) makes no request.
    let token = Id::from_token(b"9").unwrap();
    for bad in ["null", "1.5", "1e3"] {
        let bad = Id::from_token(bad.as_bytes()).unwrap();
        for params in [None, Some(RawJson::EMPTY_OBJECT)] {
            let mut out = BytesMut::from(&b"before\n"[..]);
            let got = mcp::write_request_with_progress(&mut out, bad, "tools/call", params, token);
            assert_eq!(got, Err(E::BadId), "{bad:?}");
            assert_eq!(&out[..], b"before\n", "{bad:?}");
        }
    }
}

/// `write_request_with_progress_token`: the request goes out under the table's token, which
/// is its progress token too, so the progress a server reports on it finds the request; with
/// params it cannot carry the token in, nothing is written.
#[test]
fn write_request_with_progress_token_uses_the_token_as_id_and_progress_token() {
    use bytes::BytesMut;
    use rpcwire::{PendingTable, Token};
    let mut pending = PendingTable::new();
    let first = pending.insert("tools/list").unwrap();
    pending.remove(first).unwrap();
    // A later generation of the slot: a token of several digits.
    let token = pending.insert("tools/call").unwrap();
    assert!(token.get() > 9);
    for params in [
        None,
        Some(r#"{"name":"slow"}"#),
        Some(r#"{"_meta":{"trace":1}}"#),
    ] {
        let mut out = BytesMut::new();
        let raw = params.map(|p| RawJson::new(p.as_bytes()).unwrap());
        mcp::write_request_with_progress_token(&mut out, token, "tools/call", raw).unwrap();
        let Ok(Message::Request(req)) = Decoder::mcp().decode(&out) else {
            panic!("{out:?}")
        };
        assert_eq!(Token::from_id(req.id), Some(token), "{params:?}");
        let asked = mcp::progress_token(&Message::Request(req)).unwrap();
        assert_eq!(Token::from_id(asked), Some(token), "{params:?}");
        assert_eq!(
            pending.get(Token::from_id(asked).unwrap()),
            Some(&"tools/call")
        );
        if let Some(p) = params {
            let sent: serde_json::Value =
                serde_json::from_slice(req.params.unwrap().as_bytes()).unwrap();
            let mut expected: serde_json::Value = serde_json::from_str(p).unwrap();
            expected
                .as_object_mut()
                .unwrap()
                .entry("_meta")
                .or_insert(serde_json::json!({}))["progressToken"] = token.get().into();
            assert_eq!(sent, expected, "{p}");
        }
    }
    let asked = RawJson::new(br#"{"_meta":{"progressToken":"p"}}"#).unwrap();
    let mut out = BytesMut::from(&b"before\n"[..]);
    let refused =
        mcp::write_request_with_progress_token(&mut out, token, "tools/call", Some(asked));
    assert_eq!(refused, Err(mcp::ProgressRequestError::AlreadyAsked));
    let refused = mcp::write_request_with_progress_token(
        &mut out,
        token,
        "tools/call",
        Some(RawJson::EMPTY_ARRAY),
    );
    assert_eq!(refused, Err(mcp::ProgressRequestError::NotAnObject));
    assert_eq!(&out[..], b"before\n");
}

proptest::proptest! {
    #![proptest_config(crate::common::cases(2000))]

    /// `write_request_with_progress` against a model of its docs, on generated params: members
    /// `_meta` (plain or escaped, zero, one or two times, of every type, holding a
    /// `progressToken` or not, or a `null` one) among others, with whitespace around them.
    /// Written, the params read back (serde_json) as the given ones with
    /// `_meta.progressToken` set to the token, and are their bytes (line breaks as spaces)
    /// with the token's member spliced in at one place, or the token in place of a `null`;
    /// refused, nothing is written.
    #[test]
    fn write_request_with_progress_follows_its_docs(
        members in proptest::collection::vec(
            (
                proptest::sample::select(vec![r#""_meta""#, r#""\u005fmeta""#, r#""a""#, r#""b""#]),
                proptest::sample::select(vec![
                    "{}", "{ }", r#"{"x":1}"#, r#"{ "y" : [1,{}] }"#, r#"{"progressToken":1}"#,
                    r#"{"z":0,"progress\u0054oken":"t"}"#, r#"{"progressToken":null}"#,
                    r#"{"z":null, "progress\u0054oken" : null }"#, "[]", r#""s""#, "1", "null",
                ]),
                proptest::sample::select(vec!["", " ", "\n", "\t\r\n "]),
            ),
            0..4,
        ),
        token in proptest::sample::select(vec!["0", "42", "-1", r#""p""#, r#""\u0070""#]),
    ) {
        use bytes::BytesMut;
        use mcp::ProgressRequestError as E;
        use serde_json::Value;
        let body: Vec<_> = members.iter().map(|(k, v, ws)| format!("{ws}{k}{ws}:{ws}{v}{ws}")).collect();
        let params = format!("{{{}}}", body.join(","));
        let metas: Vec<&str> = members.iter().filter(|(k, ..)| k.contains("meta")).map(|(_, v, _)| *v).collect();
        let expected = match metas[..] {
            [] => Ok(()),
            [meta] => match serde_json::from_str::<Value>(meta).unwrap() {
                Value::Object(m) if m.get("progressToken").is_some_and(|t| !t.is_null()) => {
                    Err(E::AlreadyAsked)
                }
                Value::Object(_) => Ok(()),
                _ => Err(E::NotAnObject),
            },
            _ => Err(E::Malformed),
        };
        let token_id = rpcwire::Id::from_token(token.as_bytes()).unwrap();
        let mut out = BytesMut::new();
        let raw = RawJson::new(params.as_bytes()).unwrap();
        let got = mcp::write_request_with_progress(&mut out, rpcwire::Id::from_token(b"1").unwrap(), "m", Some(raw), token_id);
        proptest::prop_assert_eq!(got, expected, "{}", params);
        if got.is_err() {
            proptest::prop_assert!(out.is_empty());
            return Ok(());
        }
        proptest::prop_assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
        let written: Value = serde_json::from_slice(&out).unwrap();
        let mut want: Value = serde_json::from_str(&params).unwrap();
        let token_value: Value = serde_json::from_str(token).unwrap();
        let object = want.as_object_mut().unwrap();
        let meta = object.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
        meta.as_object_mut().unwrap().insert("progressToken".into(), token_value);
        proptest::prop_assert_eq!(&written["params"], &want, "{}", params);
        proptest::prop_assert_eq!(&written["method"], "m");
        // Byte for byte but for line breaks: the params, the token's member spliced in at one
        // place.
        let head = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":"#;
        let framed = out.starts_with(head) && out.ends_with(b"}\n");
        proptest::prop_assert!(framed);
        let spliced = &out[head.len()..out.len() - 2];
        let kept = params.replace(['\n', '\r'], " ");
        let kept = kept.as_bytes();
        let member = format!(r#""progressToken":{token}"#);
        let inserts = [format!(r#""_meta":{{{member}}}"#), member];
        let found = inserts.iter().flat_map(|m| [m.clone(), format!("{m},")]).any(|ins| {
            spliced.len() == kept.len() + ins.len()
                && (0..=kept.len()).any(|at| {
                    spliced[..at] == kept[..at]
                        && &spliced[at..at + ins.len()] == ins.as_bytes()
                        && spliced[at + ins.len()..] == kept[at..]
                })
        });
        let replaced = (0..kept.len()).any(|at| {
            kept[at..].starts_with(b"null")
                && spliced.len() == kept.len() - 4 + token.len()
                && spliced[..at] == kept[..at]
                && &spliced[at..at + token.len()] == token.as_bytes()
                && spliced[at + token.len()..] == kept[at + 4..]
        });
        let found = found || replaced;
        proptest::prop_assert!(found, "{} -> {}", params, String::from_utf8_lossy(spliced));
    }
}

/// `mcp::write_result` gives every result of a 2026-07-28 request its `resultType` (MCP
/// 2026-07-28, `Result.resultType`: "Servers implementing this protocol version MUST include
/// this field"), as the first member, the others byte for byte; a result of another type, and
/// every result of an earlier version, is written as it is; one that is not an object, or
/// whose `resultType` is not one string, is not written.
#[test]
fn write_result_adds_the_result_type_from_2026_07_28() {
    use bytes::BytesMut;
    use rpcwire::Id;
    use rpcwire::mcp::versions::{V2025_03_26, V2025_11_25, V2026_07_28};
    let id = Id::from_token(br#""r-1""#).unwrap();
    let write = |result: &[u8], version: &str| {
        let mut out = BytesMut::from(&b"before\n"[..]);
        let result = RawJson::new(result).unwrap();
        let written = mcp::write_result(&mut out, id, result, version);
        let line = out.strip_prefix(&b"before\n"[..]).unwrap().to_vec();
        (written, String::from_utf8(line).unwrap())
    };
    let head = r#"{"jsonrpc":"2.0","id":"r-1","result":"#;
    let cases: &[(&str, &str)] = &[
        ("{}", r#"{"resultType":"complete"}"#),
        ("{ \t }", "{\"resultType\":\"complete\" \t }"),
        (
            r#"{"content":[{"type":"text","text":"x"}],"isError":false}"#,
            r#"{"resultType":"complete","content":[{"type":"text","text":"x"}],"isError":false}"#,
        ),
        (
            "{\n \"tools\" : [ ]\r\n}",
            r#"{"resultType":"complete",  "tools" : [ ]  }"#,
        ),
        // A nested resultType is another object's.
        (
            r#"{"structuredContent":{"resultType":7}}"#,
            r#"{"resultType":"complete","structuredContent":{"resultType":7}}"#,
        ),
        // One of its own, escaped or not, is kept.
        (
            r#"{"resultType":"input_required","requestState":"s"}"#,
            r#"{"resultType":"input_required","requestState":"s"}"#,
        ),
        (
            r#"{"a":1,"result\u0054ype":"task"}"#,
            r#"{"a":1,"result\u0054ype":"task"}"#,
        ),
    ];
    let decoder = Decoder::mcp_client();
    for (result, expected) in cases {
        let (written, line) = write(result.as_bytes(), V2026_07_28);
        assert_eq!(written, Ok(()), "{result}");
        assert_eq!(line, format!("{head}{expected}}}\n"), "{result}");
        let Ok(Message::Response(r)) = decoder.decode(line.trim_end().as_bytes()) else {
            panic!("{line}");
        };
        assert_ne!(ResultType::of(r.result), ResultType::Malformed, "{line}");
        let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert!(parsed["result"]["resultType"].is_string(), "{line}");
        // Before 2026-07-28, the result as it is.
        for version in [V2025_03_26, V2025_11_25] {
            let (written, line) = write(result.as_bytes(), version);
            let as_is = RawJson::new(result.as_bytes()).unwrap();
            let mut expected = BytesMut::new();
            rpcwire::encode::write_response(&mut expected, id, as_is);
            assert_eq!(written, Ok(()));
            assert_eq!(line.as_bytes(), &expected[..], "{result} under {version}");
        }
    }
    // Nothing written: not an object (any version), or a resultType that is not one string.
    use mcp::ResultError::{BadResultType, NotAnObject};
    for (result, versions, error) in [
        (&b"[]"[..], &[V2025_11_25, V2026_07_28][..], NotAnObject),
        (b"\"x\"", &[V2025_11_25, V2026_07_28], NotAnObject),
        (br#"{"resultType":7}"#, &[V2026_07_28], BadResultType),
        (br#"{"resultType":null}"#, &[V2026_07_28], BadResultType),
        (
            br#"{"resultType":"complete","resultType":"complete"}"#,
            &[V2026_07_28],
            BadResultType,
        ),
        (br#"{"a" 1}"#, &[V2026_07_28], BadResultType),
    ] {
        for version in versions {
            assert_eq!(
                write(result, version),
                (Err(error), String::new()),
                "{result:?}"
            );
        }
    }
}

/// `mcp::versions::write_unsupported` writes MCP's reply to a request of a version the server
/// does not support, `data: {"supported": [...], "requested": "..."}` (2026-07-28's
/// `UnsupportedProtocolVersionError`, -32022; the lifecycle's -32602 to `initialize`), the
/// versions and the requested one as JSON strings whatever they hold, and the same reply as
/// `HeaderError::UnsupportedVersion` on HTTP.
#[test]
fn write_unsupported_names_the_versions() {
    use bytes::BytesMut;
    use rpcwire::headers::HeaderError;
    use rpcwire::{ErrorCode, Id, ReplyId};
    let code = ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION;
    let id = Id::from_token(br#""a""#).unwrap();
    for (requested, supported) in [
        ("2099-01-01", &["2025-11-25", "2026-07-28"][..]),
        ("a\"b\\\n", &[]),
        ("", &["x"]),
    ] {
        let mut out = BytesMut::new();
        mcp::versions::write_unsupported(&mut out, id, code, requested, supported);
        let reply: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(reply["id"], "a");
        assert_eq!(reply["error"]["code"], -32022);
        assert_eq!(reply["error"]["message"], "Unsupported protocol version");
        assert_eq!(reply["error"]["data"]["requested"], requested);
        assert_eq!(
            reply["error"]["data"]["supported"],
            serde_json::json!(supported)
        );
        let mut http = BytesMut::new();
        HeaderError::UnsupportedVersion { requested }.write_reply(&mut http, id, supported);
        assert_eq!(http, out);
    }
    let mut out = BytesMut::new();
    mcp::versions::write_unsupported(
        &mut out,
        ReplyId::Absent,
        ErrorCode::INVALID_PARAMS,
        "1.0",
        &["2025-11-25"],
    );
    assert_eq!(
        &out[..],
        &br#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"1.0"}}}
"#[..]
    );
}

/// The `_meta` keys MCP 2026-07-28 reserves for its per-request and per-response fields, and
/// for a listen stream's notifications, follow its key-name rules under its reserved prefix.
#[test]
fn the_reserved_meta_keys_follow_the_naming_rules() {
    use mcp::meta_keys;
    for key in [
        meta_keys::PROTOCOL_VERSION,
        meta_keys::CLIENT_CAPABILITIES,
        meta_keys::CLIENT_INFO,
        meta_keys::LOG_LEVEL,
        meta_keys::SUBSCRIPTION_ID,
        meta_keys::SERVER_INFO,
    ] {
        let parsed = MetaKey::parse(key).unwrap();
        assert!(parsed.is_reserved(), "{key}");
        assert_eq!(parsed.prefix, Some("io.modelcontextprotocol"), "{key}");
    }
}
