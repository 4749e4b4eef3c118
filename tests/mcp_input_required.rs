//! MCP 2026-07-28's multi round-trip requests: an `input_required` result read
//! (`mcp::InputRequired`: its requests and state, the schema's rules) and the retry written
//! (`mcp::write_retry`), checked against serde_json's reading of the lines.

use bytes::BytesMut;
use rpcwire::mcp::{self, InputRequired, InputRequiredError, Retry, RetryError, RetryReadError};
use rpcwire::scan::Validation;
use rpcwire::{DecodeOptions, Decoder, Id, JsonStr, Message, RawJson};
use serde_json::{Value, json};

fn read(result: &[u8]) -> Result<InputRequired<'_>, InputRequiredError> {
    InputRequired::from_result(RawJson::new(result).expect("delimited"))
}

fn id(token: &[u8]) -> Id<'_> {
    Id::from_token(token).unwrap()
}

/// The retry written, as serde_json reads it (one line, a request).
fn retry(
    params: Option<&[u8]>,
    answers: &[(&str, &[u8])],
    state: Option<JsonStr<'_>>,
) -> Result<Value, RetryError> {
    let params = params.map(|p| RawJson::new(p).expect("delimited"));
    let answers: Vec<(&str, RawJson<'_>)> = answers
        .iter()
        .map(|(k, v)| (*k, RawJson::new(v).unwrap()))
        .collect();
    let mut out = BytesMut::from(&b"kept"[..]);
    let written = mcp::write_retry(&mut out, id(b"9"), "tools/call", params, &answers, state);
    if written.is_err() {
        assert_eq!(&out[..], b"kept", "nothing appended on an error");
    }
    written?;
    let line = &out[4..];
    assert!(line.ends_with(b"\n") && !line[..line.len() - 1].contains(&b'\n'));
    // A strict MCP server reads it as a request.
    let strict = Decoder::new(DecodeOptions {
        validation: Validation::Strict,
        ..*Decoder::mcp().options()
    });
    let Ok(Message::Request(req)) = strict.decode(&line[..line.len() - 1]) else {
        panic!("{}", String::from_utf8_lossy(line))
    };
    assert_eq!(req.method.decode(), "tools/call");
    let value: Value = serde_json::from_slice(line).unwrap();
    assert_eq!(
        (&value["jsonrpc"], &value["id"]),
        (&json!("2.0"), &json!(9))
    );
    Ok(value["params"].clone())
}

#[test]
fn an_input_required_result_reads_its_requests_in_order() {
    let result = br#"{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"n\u0061me":{"method":"elicitation/create","params":{"message":"?"}},"llm":{"params":{"messages":[]},"method":"sampling/createMessage"}},"_meta":{}}"#;
    let asked = read(result).unwrap();
    assert_eq!(asked.request_state, None);
    let requests: Vec<_> = asked
        .requests()
        .map(|q| {
            (
                q.key.decode().into_owned(),
                q.method.decode().into_owned(),
                q.params.map(|p| p.as_text().to_owned()),
            )
        })
        .collect();
    assert_eq!(
        requests,
        [
            ("a".into(), "roots/list".into(), None),
            (
                "name".into(),
                "elicitation/create".into(),
                Some(r#"{"message":"?"}"#.into())
            ),
            (
                "llm".into(),
                "sampling/createMessage".into(),
                Some(r#"{"messages":[]}"#.into())
            ),
        ]
    );
    // State alone, or requests alone (empty too), is enough.
    let state_only = read(br#"{"requestState":"s","resultType":"input_required"}"#).unwrap();
    assert_eq!(state_only.request_state.unwrap().decode(), "s");
    assert_eq!(state_only.requests().count(), 0);
    let empty = read(br#"{"resultType":"input_required","inputRequests":{}}"#).unwrap();
    assert_eq!(empty.requests().count(), 0);
}

#[test]
fn results_that_break_the_schema_are_refused() {
    use InputRequiredError::*;
    let cases: [(&[u8], InputRequiredError); 16] = [
        (br#"{"content":[]}"#, NotInputRequired),
        (br#"{"resultType":"complete","requestState":"s"}"#, NotInputRequired),
        (br#"{"resultType":"task","requestState":"s"}"#, NotInputRequired),
        (br#"{"resultType":["input_required"],"requestState":"s"}"#, NotInputRequired),
        (br#"{"resultType":"input_required","resultType":"input_required","requestState":"s"}"#, NotInputRequired),
        (br#"{"resultType":"input_required"}"#, NothingAsked),
        (br#"{"resultType":"input_required","requestState":7}"#, BadRequestState),
        (br#"{"resultType":"input_required","requestState":null}"#, BadRequestState),
        (br#"{"resultType":"input_required","inputRequests":[]}"#, BadInputRequests),
        (br#"{"resultType":"input_required","inputRequests":{"a":"roots/list"}}"#, BadInputRequests),
        (br#"{"resultType":"input_required","inputRequests":{"a":{"params":{}}}}"#, BadInputRequests),
        (br#"{"resultType":"input_required","inputRequests":{"a":{"method":7}}}"#, BadInputRequests),
        (br#"{"resultType":"input_required","inputRequests":{"a":{"method":"m","params":[]}}}"#, BadInputRequests),
        (br#"{"resultType":"input_required","inputRequests":{"a":{"method":"m"},"\u0061":{"method":"n"}}}"#, Malformed),
        (br#"{"resultType":"input_required","requestState":"s","requestState":"t"}"#, Malformed),
        (br#"{"resultType":"input_required","inputRequests":{"a" {"method":"m"}}}"#, Malformed),
    ];
    for (result, expected) in cases {
        assert_eq!(
            read(result),
            Err(expected),
            "{}",
            String::from_utf8_lossy(result)
        );
        assert!(!expected.to_string().is_empty());
    }
}

#[test]
fn a_retry_carries_the_answers_and_the_state_beside_the_params() {
    let state = JsonStr::from_raw(br#"s\"1"#, true);
    let params = retry(
        Some(br#"{"name":"greet","arguments":{"x":1}}"#),
        &[("name", br#"{"action":"accept"}"#), ("q\"k", b"{}")],
        Some(state),
    )
    .unwrap();
    assert_eq!(
        params,
        json!({"name":"greet","arguments":{"x":1},
            "inputResponses":{"name":{"action":"accept"},"q\"k":{}},"requestState":"s\"1"})
    );
    // No params: the two members alone; nothing to send: empty params.
    assert_eq!(
        retry(None, &[("a", b"1")], None).unwrap(),
        json!({"inputResponses":{"a":1}})
    );
    assert_eq!(retry(None, &[], None).unwrap(), json!({}));
    assert_eq!(
        retry(Some(b"{}"), &[], Some(JsonStr::from_raw(b"t", false))).unwrap(),
        json!({"requestState":"t"})
    );
}

#[test]
fn a_later_round_replaces_the_answers_and_state_of_the_one_before() {
    let earlier = br#"{"name":"greet","inputResponses":{"old":1},"requestState":"s-1","_meta":{"progressToken":3}}"#;
    let params = retry(
        Some(earlier),
        &[("new", b"2")],
        Some(JsonStr::from_raw(b"s-2", false)),
    )
    .unwrap();
    assert_eq!(
        params,
        json!({"name":"greet","_meta":{"progressToken":3},"inputResponses":{"new":2},"requestState":"s-2"})
    );
    // A round that answers with nothing and has no state drops the old ones.
    assert_eq!(
        retry(Some(earlier), &[], None).unwrap(),
        json!({"name":"greet","_meta":{"progressToken":3}})
    );
}

#[test]
fn a_retry_that_cannot_be_written_appends_nothing() {
    assert_eq!(retry(Some(b"[1]"), &[], None), Err(RetryError::NotAnObject));
    assert_eq!(
        retry(Some(br#"{"a" 1}"#), &[], None),
        Err(RetryError::NotAnObject)
    );
    assert_eq!(
        retry(None, &[("k", b"1"), ("j", b"2"), ("k", b"3")], None),
        Err(RetryError::DuplicateKey)
    );
    for bad in [&b"null"[..], b"1.5"] {
        let mut out = BytesMut::new();
        let refused = mcp::write_retry(&mut out, id(bad), "tools/call", None, &[], None);
        assert_eq!(refused, Err(RetryError::BadId));
        assert!(out.is_empty());
    }
}

/// The round trip a client makes: the server's result read, each request answered, the retry
/// written with the state as the server spelled it.
#[test]
fn the_state_goes_back_as_the_server_spelled_it() {
    let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"requestState":"\u00e9t\u00e9 \"q\""}}"#;
    let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else {
        panic!()
    };
    let asked = InputRequired::from_result(r.result).unwrap();
    let answers: Vec<(String, &[u8])> = asked
        .requests()
        .map(|q| (q.key.decode().into_owned(), &br#"{"roots":[]}"#[..]))
        .collect();
    let answers: Vec<(&str, &[u8])> = answers.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let params = retry(Some(br#"{"name":"t"}"#), &answers, asked.request_state).unwrap();
    assert_eq!(params["requestState"], json!("été \"q\""));
    assert_eq!(params["inputResponses"], json!({"r":{"roots":[]}}));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("inputResponses".to_string()),
            Just("requestState".to_string()),
            Just("name".to_string()),
            Just("_meta".to_string()),
            "[a-z\"\\\\é\n]{0,6}",
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<i32>().prop_map(|n| json!(n)),
            "[a-z\"\\\\\n]{0,5}".prop_map(Value::String),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop::collection::btree_map("[a-z]{0,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect()))
        })
    }

    proptest! {
        /// Any params object, any answers under distinct keys and any state: the retry's params
        /// are the params without an earlier round's two members, with the answers and the
        /// state, as serde_json reads them.
        #[test]
        fn a_retry_is_the_params_with_the_answers_and_the_state(
            params in prop::collection::btree_map(key(), value(), 0..5),
            answers in prop::collection::btree_map(key(), value(), 0..4),
            state in prop::option::of("[a-z\"\\\\é]{0,6}"),
        ) {
            let params_text = serde_json::to_string(&params).unwrap();
            let answers_text: Vec<(String, String)> = answers
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_string(v).unwrap()))
                .collect();
            let answers_raw: Vec<(&str, &[u8])> = answers_text
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_bytes()))
                .collect();
            let state_text = state.as_ref().map(|s| serde_json::to_string(s).unwrap());
            let state_str = state_text
                .as_ref()
                .map(|t| RawJson::new(t.as_bytes()).unwrap().as_str().unwrap());
            let got = retry(Some(params_text.as_bytes()), &answers_raw, state_str).unwrap();

            let mut expected = serde_json::Map::new();
            for (k, v) in &params {
                if k != "inputResponses" && k != "requestState" {
                    expected.insert(k.clone(), v.clone());
                }
            }
            if !answers.is_empty() {
                let answers: serde_json::Map<String, Value> = answers.into_iter().collect();
                expected.insert("inputResponses".into(), Value::Object(answers));
            }
            if let Some(state) = state {
                expected.insert("requestState".into(), Value::String(state));
            }
            prop_assert_eq!(got, Value::Object(expected));
        }
    }
}

/// A result of many requests (a hostile server's hundred thousand) is read in n log n: its
/// keys are told apart, and one given twice among them (spelled with an escape) is found;
/// many answers likewise.
#[test]
fn many_keys_are_told_apart_without_comparing_every_pair() {
    let requests = |n: usize, twice: bool| {
        let mut text = String::from(r#"{"resultType":"input_required","inputRequests":{"#);
        for i in 0..n {
            text.push_str(&format!(r#""k{i}":{{"method":"roots/list"}},"#));
        }
        let last = if twice { r"k\u0030" } else { "last" };
        text.push_str(&format!(r#""{last}":{{"method":"roots/list"}}}}}}"#));
        text
    };
    let distinct = requests(100_000, false);
    let asked = read(distinct.as_bytes()).unwrap();
    assert_eq!(asked.requests().count(), 100_001);
    let twice = requests(100_000, true);
    assert_eq!(read(twice.as_bytes()), Err(InputRequiredError::Malformed));
    // A few, pairwise: the same.
    let few = requests(3, true);
    assert_eq!(read(few.as_bytes()), Err(InputRequiredError::Malformed));

    let keys: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
    let mut answers: Vec<(&str, &[u8])> = keys.iter().map(|k| (k.as_str(), &b"1"[..])).collect();
    assert!(retry(None, &answers, None).is_ok());
    answers.push(("k7", b"2"));
    assert_eq!(retry(None, &answers, None), Err(RetryError::DuplicateKey));
}

/// A server's `input_required` result, written by `write_input_required`: read back by a
/// client (`InputRequired`) and by serde_json as written, keys, methods and state escaped as
/// JSON needs; its refusals append nothing.
#[test]
fn a_server_asks_for_input_and_reads_the_retry() {
    let schema = RawJson::new(br#"{"type":"object"}"#).unwrap();
    let mut out = BytesMut::new();
    let requests = [
        ("na\"me", "elicitation/create", Some(schema)),
        ("roots", "roots/list", None),
    ];
    mcp::write_input_required(&mut out, id(br#""r-1""#), &requests, Some("st\\ate")).unwrap();
    let line: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        line,
        json!({"jsonrpc":"2.0","id":"r-1","result":{"resultType":"input_required",
            "inputRequests":{"na\"me":{"method":"elicitation/create","params":{"type":"object"}},
                "roots":{"method":"roots/list"}},
            "requestState":"st\\ate"}})
    );
    let Ok(Message::Response(r)) = Decoder::mcp_client().decode(&out[..out.len() - 1]) else {
        panic!()
    };
    let asked = InputRequired::from_result(r.result).unwrap();
    let keys: Vec<_> = asked
        .requests()
        .map(|q| q.key.decode().into_owned())
        .collect();
    assert_eq!(keys, ["na\"me", "roots"]);
    // The client's retry, as the server reads it.
    let answers: Vec<(&str, &[u8])> = vec![
        ("na\"me", br#"{"action":"decline"}"#),
        ("roots", br#"{"roots":[]}"#),
    ];
    let params = retry(Some(br#"{"name":"t"}"#), &answers, asked.request_state).unwrap();
    assert_eq!(params["requestState"], json!("st\\ate"));
    assert_eq!(
        params["inputResponses"]["na\"me"],
        json!({"action":"decline"})
    );

    // State alone, or requests alone.
    let mut out = BytesMut::new();
    mcp::write_input_required(&mut out, id(b"2"), &[], Some("s")).unwrap();
    assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"s\"}}\n");
    out.clear();
    mcp::write_input_required(&mut out, id(b"3"), &[("k", "roots/list", None)], None).unwrap();
    assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{\"k\":{\"method\":\"roots/list\"}}}}\n");
}

#[test]
fn an_input_required_result_that_breaks_the_schema_is_not_written() {
    use mcp::InputRequiredWriteError::*;
    let array = RawJson::new(b"[1]").unwrap();
    /// An input request: its key, its method and its params.
    type Asked<'a> = (&'a str, &'a str, Option<RawJson<'a>>);
    let cases: [(&[Asked<'_>], Option<&str>, _); 3] = [
        (&[], None, NothingAsked),
        (
            &[("k", "roots/list", None), ("k", "roots/list", None)],
            Some("s"),
            DuplicateKey,
        ),
        (
            &[("k", "sampling/createMessage", Some(array))],
            None,
            ParamsNotAnObject,
        ),
    ];
    for (requests, state, expected) in cases {
        let mut out = BytesMut::from(&b"kept"[..]);
        let refused = mcp::write_input_required(&mut out, id(b"1"), requests, state);
        assert_eq!(refused, Err(expected));
        assert_eq!(&out[..], b"kept");
        assert!(!expected.to_string().is_empty());
    }
}

/// The request a server reads (lazy MCP decoder, as a server's is).
fn request(frame: &[u8]) -> rpcwire::Request<'_> {
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else {
        panic!("not a request: {}", String::from_utf8_lossy(frame))
    };
    req
}

#[test]
fn a_server_reads_the_retry_that_write_retry_writes() {
    let state = JsonStr::from_raw(br"s\\1", true);
    let answers = [
        (
            "n\"ame",
            RawJson::new(br#"{"action":"accept","content":{"name":"Ada"}}"#).unwrap(),
        ),
        ("roots", RawJson::new(br#"{"roots":[]}"#).unwrap()),
    ];
    let params = RawJson::new(br#"{"name":"greet","requestState":"old"}"#).unwrap();
    let mut out = BytesMut::new();
    mcp::write_retry(
        &mut out,
        id(b"4"),
        "tools/call",
        Some(params),
        &answers,
        Some(state),
    )
    .unwrap();
    let req = request(&out[..out.len() - 1]);
    let retry = Retry::from_request(&req).unwrap();
    assert!(retry.is_retry());
    assert_eq!(retry.request_state.unwrap().decode(), "s\\1");
    let read: Vec<_> = retry
        .responses()
        .map(|(key, answer)| (key.decode().into_owned(), answer.as_bytes()))
        .collect();
    assert_eq!(
        read,
        [
            ("n\"ame".to_owned(), answers[0].1.as_bytes()),
            ("roots".to_owned(), answers[1].1.as_bytes()),
        ]
    );
    assert_eq!(retry.response("roots"), Some(answers[1].1));
    assert_eq!(retry.response("n\"ame"), Some(answers[0].1));
    assert_eq!(retry.response("name"), None);
    // An escaped key is the same key.
    let req = request(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"inputResponses":{"r\u006fots":{"roots":[]}}}}"#);
    let retry = Retry::from_request(&req).unwrap();
    assert_eq!(
        retry.response("roots").unwrap().as_bytes(),
        br#"{"roots":[]}"#
    );
    assert_eq!(retry.request_state, None);
}

#[test]
fn a_first_request_is_no_retry() {
    for frame in [
        &br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#[..],
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"inputResponses":7}}}"#,
    ] {
        let retry = Retry::from_request(&request(frame)).unwrap();
        assert!(!retry.is_retry());
        assert_eq!(retry.responses().count(), 0);
        assert_eq!(retry.response("name"), None);
    }
    // State alone is a retry (the server asked for nothing, or the client answered nothing).
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"requestState":"s"}}"#;
    let retry = Retry::from_request(&request(frame)).unwrap();
    assert!(retry.is_retry() && retry.input_responses.is_none());
}

#[test]
fn a_retry_that_breaks_the_schema_is_refused_with_invalid_params() {
    use RetryReadError::*;
    let cases: [(&[u8], RetryReadError); 9] = [
        (
            br#"{"inputResponses":{"a":{}},"inputResponses":{"a":{}}}"#,
            Malformed,
        ),
        (br#"{"requestState":"s","requestState":"t"}"#, Malformed),
        (br#"{"name":"x" "requestState":"s"}"#, Malformed),
        (br#"{"inputResponses":[{}]}"#, BadInputResponses),
        (br#"{"inputResponses":{"a":1}}"#, BadInputResponses),
        (
            br#"{"inputResponses":{"a":{},"b":null}}"#,
            BadInputResponses,
        ),
        (br#"{"inputResponses":{"a":{} "b":{}}}"#, BadInputResponses),
        (br#"{"inputResponses":{"a":{},"\u0061":{}}}"#, DuplicateKey),
        (br#"{"requestState":7}"#, BadRequestState),
    ];
    for (params, expected) in cases {
        let frame = [
            &br#"{"jsonrpc":"2.0","id":"r","method":"tools/call","params":"#[..],
            params,
            b"}",
        ]
        .concat();
        let req = request(&frame);
        let refused = Retry::from_request(&req).unwrap_err();
        assert_eq!(refused, expected, "{}", String::from_utf8_lossy(params));
        let mut out = BytesMut::new();
        refused.write_reply(&mut out, req.id);
        let reply: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(reply["id"], json!("r"));
        assert_eq!(reply["error"]["code"], json!(-32602));
        assert_eq!(
            reply["error"]["message"],
            json!(format!("Invalid params: {expected}"))
        );
    }
    // JSON-RPC params that are an array cannot hold a retry's members: refused, not read as
    // a first request.
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#;
    let Ok(Message::Request(req)) = Decoder::jsonrpc().decode(frame) else {
        panic!()
    };
    assert_eq!(Retry::from_request(&req), Err(Malformed));
}

#[test]
fn many_answers_are_told_apart_without_comparing_every_pair() {
    let mut params = String::from(r#"{"inputResponses":{"#);
    for n in 0..20_000 {
        params.push_str(&format!(r#""k{n}":{{}},"#));
    }
    params.push_str(r#""k0":{}}}"#);
    let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
    let req = request(frame.as_bytes());
    assert_eq!(Retry::from_request(&req), Err(RetryReadError::DuplicateKey));
}

/// The retry of `params`, as a lazy MCP server reads it: how many answers, and the one under
/// the key U+FFFD.
fn read_retry(params: &str) -> Result<(usize, Option<Vec<u8>>), RetryReadError> {
    let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
    let req = request(frame.as_bytes());
    let retry = Retry::from_request(&req)?;
    let keys = retry.responses().count();
    let replacement = retry.response("\u{fffd}").map(|a| a.as_bytes().to_vec());
    Ok((keys, replacement))
}

#[test]
fn keys_that_differ_in_a_lone_surrogate_are_two_keys() {
    // `\ud800` and `\ud801` are two strings (RFC 8259 compares code units); decoded to text,
    // both would read as U+FFFD.
    for filler in [0, 20] {
        let more: String = (0..filler).map(|n| format!(r#","k{n}":{{}}"#)).collect();
        let (keys, replacement) = read_retry(&format!(
            r#"{{"inputResponses":{{"\ud800":{{}},"\ud801":{{"n":1}},"\ufffd":{{"n":2}}{more}}}}}"#
        ))
        .unwrap();
        assert_eq!(keys, 3 + filler);
        // Only the key that is U+FFFD answers the key U+FFFD.
        assert_eq!(replacement.as_deref(), Some(&br#"{"n":2}"#[..]));
        // The same lone surrogate twice is one key twice.
        assert_eq!(
            read_retry(&format!(
                r#"{{"inputResponses":{{"\ud800":{{}},"\uD800":{{}}{more}}}}}"#
            )),
            Err(RetryReadError::DuplicateKey)
        );
    }
    // A client reads a server's requests under such keys alike.
    let result = br#"{"resultType":"input_required","inputRequests":{"\ud800":{"method":"roots/list"},"\udfff":{"method":"roots/list"}}}"#;
    assert_eq!(read(result).unwrap().requests().count(), 2);
}

#[test]
fn an_answer_that_cannot_be_read_member_by_member_is_refused() {
    // A lazy decoder delimits params without reading every token: an answer missing a
    // colon is an object only by its braces, and a server would find none of its members.
    for answer in [
        r#"{"action" "accept"}"#,
        r#"{"action":"accept" "content":{}}"#,
    ] {
        assert_eq!(
            read_retry(&format!(
                r#"{{"inputResponses":{{"a":{{}},"b":{answer}}}}}"#
            )),
            Err(RetryReadError::BadInputResponses),
            "{answer}"
        );
    }
    // What an answer's members hold is the server's to read.
    assert!(read_retry(r#"{"inputResponses":{"a":{"content":{"x" 1}}}}"#).is_ok());
}

/// The method of a request (id 1) named `method` (as JSON string contents).
fn method_of(method: &str, test: impl FnOnce(JsonStr<'_>)) {
    let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}"}}"#);
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
        panic!("not a request: {frame}")
    };
    test(req.method);
}

#[test]
fn only_prompts_get_resources_read_and_tools_call_may_require_input() {
    use mcp::methods::{self, MAY_REQUIRE_INPUT, may_require_input};
    assert_eq!(
        MAY_REQUIRE_INPUT,
        ["prompts/get", "resources/read", "tools/call"]
    );
    for method in MAY_REQUIRE_INPUT {
        method_of(method, |m| assert!(may_require_input(m), "{method}"));
    }
    // Escapes spell the same method.
    method_of(r"prompts\/get", |m| assert!(may_require_input(m)));
    method_of(r"resources/re\u0061d", |m| assert!(may_require_input(m)));
    for method in [
        methods::TOOLS_LIST,
        methods::PROMPTS_LIST,
        methods::RESOURCES_LIST,
        methods::RESOURCES_TEMPLATES_LIST,
        methods::COMPLETION_COMPLETE,
        methods::SERVER_DISCOVER,
        methods::SUBSCRIPTIONS_LISTEN,
        methods::TASKS_GET,
        methods::ELICITATION_CREATE,
        "tools/call/",
        "Tools/call",
        "",
    ] {
        method_of(method, |m| assert!(!may_require_input(m), "{method}"));
    }
}

#[test]
fn input_requests_are_elicitation_sampling_and_roots_each_with_its_capability() {
    use mcp::methods::{INPUT_REQUESTS, input_request_capability, is_input_request};
    let expected = [
        ("elicitation/create", "elicitation"),
        ("sampling/createMessage", "sampling"),
        ("roots/list", "roots"),
    ];
    assert_eq!(INPUT_REQUESTS, expected.map(|(m, _)| m));
    for (method, capability) in expected {
        assert!(is_input_request(method), "{method}");
        assert_eq!(input_request_capability(method), Some(capability));
    }
    for method in [
        "tools/call",
        "ping",
        "roots/list ",
        "elicitation",
        "sampling",
        "",
    ] {
        assert!(!is_input_request(method), "{method}");
        assert_eq!(input_request_capability(method), None, "{method}");
    }
}
