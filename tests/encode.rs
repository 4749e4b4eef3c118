//! `encode::write_json_string` escapes exactly as serde_json does, byte for byte: every ASCII
//! character (and pairs of them, where a word-at-a-time scan could misplace the first) at
//! every position around its 8-byte words, and random strings; every message writer's line
//! reads back through the crate's own decoders and through serde_json as the message written;
//! payloads as deep as `RawJson::new` takes stay readable; `write_method_not_found` and
//! `BatchReply` write one line of JSON whatever they are given; `write_with_id` changes the id
//! and nothing else.

mod common;
use common::nested;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::encode;

fn escaped(s: &str) -> String {
    let mut out = BytesMut::new();
    encode::write_json_string(&mut out, s);
    String::from_utf8(out.to_vec()).expect("UTF-8")
}

fn serde(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

#[test]
fn every_ascii_character_at_every_position() {
    for len in 1..20 {
        for at in 0..len {
            for c in (0u8..0x80).map(char::from).chain(['é', '\u{2028}']) {
                let mut s: Vec<char> = vec!['a'; len];
                s[at] = c;
                let s: String = s.into_iter().collect();
                assert_eq!(escaped(&s), serde(&s), "{s:?}");
            }
        }
    }
}

#[test]
fn pairs_of_characters_within_a_word() {
    for first in 0..9 {
        for second in first + 1..9 {
            for a in 0u8..0x80 {
                for b in 0u8..0x80 {
                    let mut s = [b'x'; 9];
                    (s[first], s[second]) = (a, b);
                    let s = std::str::from_utf8(&s).unwrap();
                    assert_eq!(escaped(s), serde(s), "{s:?}");
                }
            }
        }
    }
}

proptest! {
    #[test]
    fn random_strings(s in any::<String>()) {
        prop_assert_eq!(escaped(&s), serde(&s));
    }

    #[test]
    fn strings_dense_in_escapes(s in "[\\x00-\\x22\\\\\\x7fé a-z]{0,64}") {
        prop_assert_eq!(escaped(&s), serde(&s));
    }
}

/// `write_method_not_found` answers a request with -32601 and the method, as the request
/// spelled it, in `data`: the reply decodes as an error response to the request's id, and its
/// `data` reads as the same string as the request's `method`.
#[test]
fn method_not_found_carries_the_method_as_sent() {
    use rpcwire::{Decoder, ErrorCode, Message};
    for method in [
        r#""teleport""#,
        r#""tele\u0070ort""#,
        r#""caf\u00e9 \"quoted\" \\ \ud83d\ude00""#,
        "\"caf\u{e9}\"",
        r#""""#,
    ] {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":"r-1","method":{method}}}"#);
        let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
            panic!("a request: {frame}")
        };
        let mut out = BytesMut::new();
        encode::write_method_not_found(&mut out, req.id, req.method);
        let line = out.strip_suffix(b"\n").expect("one line");
        let Ok(Message::ErrorResponse(reply)) = Decoder::mcp_client().decode(line) else {
            panic!("an error response: {}", String::from_utf8_lossy(line))
        };
        assert_eq!(reply.id.map(|id| id.raw()), Some(&br#""r-1""#[..]));
        assert_eq!(reply.error.code, ErrorCode::METHOD_NOT_FOUND);
        let data: String = serde_json::from_slice(reply.error.data.unwrap().as_bytes()).unwrap();
        let sent: String = serde_json::from_str(method).unwrap();
        assert_eq!(data, sent);
    }
}

/// Every writer that splices a payload writes a line the default decoders read, whatever
/// `RawJson::new` takes: a `data` past the room an error object leaves (126 levels under the
/// default limit of 128, which counts the envelope and the error object) is left out, and
/// one within it is written as it is.
#[test]
fn every_payload_writer_writes_what_the_default_decoder_reads() {
    use rpcwire::{Decoder, ErrorCode, Id, Message, RawJson, ReplyId};
    let id = Id::from_token(b"1").unwrap();
    for depth in [2, 3, 125, 126, 127] {
        // And the shortest object of that depth: `{"":` then arrays.
        let brackets = [
            &b"{\"\":"[..],
            &vec![b'['; depth - 1],
            &vec![b']'; depth - 1],
            b"}",
        ];
        for bytes in [nested(depth), brackets.concat()] {
            let value = RawJson::new(&bytes).expect("RawJson::new takes 127 levels");
            let mut out = BytesMut::new();
            encode::write_request(&mut out, id, "m", Some(value));
            encode::write_notification(&mut out, "m", Some(value));
            for line in out[..].split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                for dec in [Decoder::mcp(), Decoder::jsonrpc()] {
                    let params = match dec.decode(line) {
                        Ok(Message::Request(r)) => r.params,
                        Ok(Message::Notification(n)) => n.params,
                        other => panic!("depth {depth}: {other:?}"),
                    };
                    assert_eq!(params, Some(value));
                }
            }
            let mut out = BytesMut::new();
            encode::write_response(&mut out, id, value);
            for dec in [Decoder::mcp_client(), Decoder::jsonrpc_client()] {
                let Ok(Message::Response(r)) = dec.decode(&out[..out.len() - 1]) else {
                    panic!("depth {depth}: {:?}", dec.decode(&out[..out.len() - 1]));
                };
                assert_eq!(r.result, value);
            }
            for reply_id in [ReplyId::Id(id), ReplyId::Null, ReplyId::Absent] {
                let mut out = BytesMut::new();
                encode::write_error(
                    &mut out,
                    reply_id,
                    ErrorCode::INTERNAL_ERROR,
                    "x",
                    Some(value),
                );
                // (JSON-RPC 2.0 wants the id member: MCP's form leaves it out.)
                let decoders = match reply_id {
                    ReplyId::Absent => vec![Decoder::mcp_client()],
                    _ => vec![Decoder::mcp_client(), Decoder::jsonrpc_client()],
                };
                for dec in decoders {
                    let line = &out[..out.len() - 1];
                    let Ok(Message::ErrorResponse(e)) = dec.decode(line) else {
                        panic!("depth {depth}: {:?}", dec.decode(line));
                    };
                    let kept = (depth <= 126).then_some(value);
                    assert_eq!(e.error.data, kept, "depth {depth}");
                }
            }
        }
    }
}

/// `write_error` passes a short `data` without delimiting it, since a value `n` levels deep
/// takes at least `2 × n` bytes; the shortest `data` too deep for an error object (127 arrays,
/// 254 bytes) is exactly at that bound and is still left out, and one a level shallower (252
/// bytes) is kept.
#[test]
fn the_shortest_data_too_deep_for_an_error_is_left_out() {
    use rpcwire::{Decoder, ErrorCode, Message, RawJson, ReplyId};
    for (depth, kept) in [(126, true), (127, false)] {
        let bytes = [vec![b'['; depth], vec![b']'; depth]].concat();
        let data = RawJson::new(&bytes).unwrap();
        let mut out = BytesMut::new();
        encode::write_error(
            &mut out,
            ReplyId::Null,
            ErrorCode::INTERNAL_ERROR,
            "x",
            Some(data),
        );
        let decoder = Decoder::jsonrpc_client();
        let Ok(Message::ErrorResponse(e)) = decoder.decode(&out[..out.len() - 1]) else {
            panic!("depth {depth}: {:?}", decoder.decode(&out[..out.len() - 1]));
        };
        assert_eq!(e.error.data, kept.then_some(data), "depth {depth}");
    }
}

/// Inside a batch reply every element sits one level deeper than alone: a result as deep as
/// `RawJson::new` takes (127 levels), or an error's `data` as deep as `write_error` writes it
/// (126), would make an array the default decoder refuses whole, every other reply with it.
/// `BatchReply::push` writes such an element as an error instead (the result's: -32603
/// "Internal error"; the error's: the same error without its `data`), with the element's id:
/// the array decodes, every element with its id.
#[test]
fn a_batch_reply_is_one_the_default_decoder_reads() {
    use encode::BatchReply;
    use rpcwire::{Decoder, ErrorCode, Id, Message, RawJson, ReplyId};
    let decoder = Decoder::jsonrpc_client();
    for depth in [2, 125, 126, 127] {
        let result = nested(depth);
        let result = RawJson::new(&result).unwrap();
        let data = nested(depth.min(126));
        let data = RawJson::new(&data).unwrap();
        let mut out = BytesMut::new();
        let mut array = BatchReply::open(&mut out);
        array.push(|out| encode::write_response(out, Id::from_token(b"1").unwrap(), result));
        array.push(|out| {
            let code = ErrorCode::INVALID_PARAMS;
            encode::write_error(out, ReplyId::Null, code, "bad \"p\"", Some(data))
        });
        let three = Id::from_token(b"\"3\"").unwrap();
        array.push(|out| encode::write_response(out, three, RawJson::NULL));
        assert!(array.close());
        let fits = depth < 126;
        let line = &out[..out.len() - 1];
        let Ok(Message::Batch(batch)) = decoder.decode(line) else {
            panic!("depth {depth}: {:?}", decoder.decode(line));
        };
        let elements: Vec<_> = batch.decode(&decoder).map(Result::unwrap).collect();
        assert_eq!(elements.len(), 3);
        match &elements[0] {
            Message::Response(r) if depth < 127 => assert_eq!(r.result, result),
            Message::ErrorResponse(e) if depth == 127 => {
                assert_eq!(e.id.unwrap().raw(), b"1");
                assert_eq!(e.error.code, ErrorCode::INTERNAL_ERROR);
                assert_eq!(e.error.data, None);
            }
            other => panic!("depth {depth}: {other:?}"),
        }
        let Message::ErrorResponse(e) = &elements[1] else {
            panic!("depth {depth}: {:?}", elements[1]);
        };
        assert_eq!(e.id.unwrap().raw(), b"null");
        assert_eq!(e.error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(e.error.message.raw(), br#"bad \"p\""#);
        assert_eq!(e.error.data, fits.then_some(data), "depth {depth}");
        assert!(matches!(&elements[2], Message::Response(r) if r.id.raw() == b"\"3\""));
    }
    // A request that deep has no error to stand for it: taken back.
    let params = nested(127);
    let params = RawJson::new(&params).unwrap();
    let mut out = BytesMut::new();
    let mut array = BatchReply::open(&mut out);
    array.push(|out| encode::write_request(out, Id::from_token(b"1").unwrap(), "m", Some(params)));
    assert!(array.is_empty());
    assert!(!array.close());
    assert!(out.is_empty());
    // An error without an id (MCP's form for an id that could not be read) keeps that form.
    let data = nested(126);
    let data = RawJson::new(&data).unwrap();
    let mut out = BytesMut::new();
    let mut array = BatchReply::open(&mut out);
    array.push(|out| {
        let code = ErrorCode::PARSE_ERROR;
        encode::write_error(out, ReplyId::Absent, code, "Parse error", Some(data))
    });
    assert!(array.close());
    assert_eq!(
        &out[..],
        &b"[{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}]\n"[..]
    );
}

/// A JSON value for payloads: scalars of every kind, strings holding characters that need
/// escapes, nested containers (pretty-printed sometimes, so that line breaks are spliced in).
fn payload() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[\\x00-\\x1f\"\\\\a-z\u{2028}\u{7f}é😀 ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\n\"\\\\]{0,3}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// An id token: a string (escapes and all) or an integer, which both dialects take.
fn id_token() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
    ]
}

/// Whether a payload reads back as the bytes it was written from, line breaks (whitespace
/// between tokens) turned into spaces, as `write_raw_json` promises.
fn spliced_as_written(raw: rpcwire::RawJson<'_>, written: &[u8]) -> bool {
    let spaced: Vec<u8> = written
        .iter()
        .map(|&b| if b == b'\n' { b' ' } else { b })
        .collect();
    raw.as_bytes() == spaced
}

proptest! {
    #![proptest_config(crate::common::cases(2000))]

    /// Every writer's line is one the crate's own decoders read back as the same message:
    /// the same id token, method, code and message (compared after unescaping), and payloads
    /// spliced byte for byte, for any method and message `&str` can hold (control characters,
    /// which RFC 8259 §7 wants escaped, quotes, backslashes, U+2028, characters beyond the
    /// BMP), and payloads pretty-printed over several lines.
    #[test]
    fn every_message_writer_round_trips(
        id in id_token(),
        method in any::<String>(),
        message in any::<String>(),
        code in any::<i64>(),
        value in payload(),
        object in prop::collection::btree_map("[a-z]{0,3}", payload(), 0..4),
        pretty in any::<bool>(),
    ) {
        use rpcwire::{Decoder, ErrorCode, Id, Message, RawJson};
        let id = Id::from_token(id.as_bytes()).unwrap();
        let object = serde_json::Value::Object(object.into_iter().collect());
        let text = |v: &serde_json::Value| if pretty {
            serde_json::to_vec_pretty(v).unwrap()
        } else {
            serde_json::to_vec(v).unwrap()
        };
        let (value_text, object_text) = (text(&value), text(&object));
        let value_raw = RawJson::new(&value_text).unwrap();
        let object_raw = RawJson::new(&object_text).unwrap();
        let one_line = |out: &BytesMut| {
            let line = out.strip_suffix(b"\n").expect("a line end").to_vec();
            assert!(!line.contains(&b'\n'), "{:?}", String::from_utf8_lossy(&line));
            line
        };

        let mut out = BytesMut::new();
        encode::write_request(&mut out, id, &method, Some(object_raw));
        let line = one_line(&out);
        for dec in [Decoder::mcp(), Decoder::jsonrpc()] {
            let decoded = dec.decode(&line);
            let Ok(Message::Request(r)) = decoded else {
                panic!("{decoded:?}: {:?}", String::from_utf8_lossy(&line));
            };
            prop_assert_eq!(r.id.raw(), id.raw());
            prop_assert!(r.method.eq_str(&method));
            prop_assert!(spliced_as_written(r.params.unwrap(), &object_text));
        }

        let mut out = BytesMut::new();
        encode::write_notification(&mut out, &method, None);
        let line = one_line(&out);
        for dec in [Decoder::mcp(), Decoder::jsonrpc()] {
            let decoded = dec.decode(&line);
            let Ok(Message::Notification(n)) = decoded else {
                panic!("{decoded:?}: {:?}", String::from_utf8_lossy(&line));
            };
            prop_assert!(n.method.eq_str(&method));
            prop_assert_eq!(n.params, None);
        }

        // (MCP's results are objects.)
        for (dec, result, expected) in [
            (Decoder::mcp_client(), object_raw, &object_text),
            (Decoder::jsonrpc_client(), value_raw, &value_text),
        ] {
            let mut out = BytesMut::new();
            encode::write_response(&mut out, id, result);
            let line = one_line(&out);
            let decoded = dec.decode(&line);
            let Ok(Message::Response(r)) = decoded else {
                panic!("{decoded:?}: {:?}", String::from_utf8_lossy(&line));
            };
            prop_assert_eq!(r.id.raw(), id.raw());
            prop_assert!(spliced_as_written(r.result, expected));
        }

        let mut out = BytesMut::new();
        encode::write_error(&mut out, id, ErrorCode(code), &message, Some(value_raw));
        let line = one_line(&out);
        for dec in [Decoder::mcp_client(), Decoder::jsonrpc_client()] {
            let decoded = dec.decode(&line);
            let Ok(Message::ErrorResponse(e)) = decoded else {
                panic!("{decoded:?}: {:?}", String::from_utf8_lossy(&line));
            };
            prop_assert_eq!(e.id.map(|id| id.raw()), Some(id.raw()));
            prop_assert_eq!(e.error.code, ErrorCode(code));
            prop_assert!(e.error.message.eq_str(&message));
            prop_assert!(spliced_as_written(e.error.data.unwrap(), &value_text));
        }
    }
}

/// `JsonStr::from_raw` takes any bytes: a body that is not a JSON string's (a raw line break,
/// a lone quote, a bad or cut escape, bytes that are not UTF-8) spliced as `data` would split
/// the line or end the string early, and the reply would not be read. `write_method_not_found`
/// then writes the decoded text, escaped anew: one line that both decoders and serde_json
/// read as an error response to the request's id, its `data` the string `decode` gives.
#[test]
fn method_not_found_writes_one_line_for_any_json_str() {
    use rpcwire::{Decoder, ErrorCode, Id, JsonStr, Message};
    for (raw, has_escapes) in [
        (&b"a\nb"[..], false),
        (b"a\r\nb", false),
        (br#"x","id":2,"y":""#, false),
        (b"ends in \\", true),
        (b"\\u12", true),
        (b"\\x", true),
        (b"\xff\xfe", false),
        (b"tab\there", false),
        // Valid bodies are spliced as they are, escapes and all.
        (br#"tele\u0070ort \" \\ \ud800"#, true),
        (b"plain", false),
    ] {
        let method = JsonStr::from_raw(raw, has_escapes);
        let mut out = BytesMut::new();
        encode::write_method_not_found(&mut out, Id::from_token(b"7").unwrap(), method);
        let line = out.strip_suffix(b"\n").expect("a line end");
        assert!(
            !line.contains(&b'\n'),
            "{:?}",
            String::from_utf8_lossy(line)
        );
        for dec in [Decoder::mcp_client(), Decoder::jsonrpc_client()] {
            let Ok(Message::ErrorResponse(e)) = dec.decode(line) else {
                panic!("{raw:?}: {:?}", String::from_utf8_lossy(line));
            };
            assert_eq!(e.id.unwrap().raw(), b"7");
            assert_eq!(e.error.code, ErrorCode::METHOD_NOT_FOUND);
            let data = e.error.data.unwrap().as_str().unwrap();
            assert_eq!(data.decode(), method.decode(), "{raw:?}");
            if raw.starts_with(b"tele") || raw == b"plain" {
                assert_eq!(data.raw(), raw);
            }
        }
        // (serde_json refuses the lone surrogate of the spliced body.)
        if !raw.starts_with(b"tele") {
            let read: serde_json::Value = serde_json::from_slice(line).unwrap();
            assert_eq!(read["id"], 7);
            assert_eq!(read["error"]["data"], *method.decode());
        }
    }
}

/// A closure given to `BatchReply::push` that calls two writers writes two lines: kept as
/// they were, the line break between them split the array's line in two, neither of which
/// is JSON. Each message so written is now its own element, checked for depth as any other:
/// the array is one line, and every reply in it decodes with its id.
#[test]
fn a_push_of_several_messages_adds_each_as_an_element() {
    use encode::BatchReply;
    use rpcwire::{Decoder, ErrorCode, Id, Message, RawJson, ReplyId};
    let deep = nested(127);
    let deep = RawJson::new(&deep).unwrap();
    let id = |token: &'static [u8]| Id::from_token(token).unwrap();
    let mut out = BytesMut::new();
    let mut array = BatchReply::open(&mut out);
    array.push(|out| encode::write_response(out, id(b"1"), RawJson::NULL));
    array.push(|out| {
        encode::write_response(out, id(b"2"), RawJson::EMPTY_ARRAY);
        encode::write_error(out, ReplyId::Null, ErrorCode::INVALID_REQUEST, "x", None);
        // Too deep for an array: written as -32603 with its id.
        encode::write_response(out, id(b"4"), deep);
        // A request that deep is taken back.
        encode::write_request(out, id(b"5"), "m", Some(deep));
    });
    array.push(|out| encode::write_response(out, id(b"\"6\""), RawJson::NULL));
    assert_eq!(array.len(), 5);
    assert!(array.close());
    let line = out.strip_suffix(b"\n").expect("a line end");
    assert!(
        !line.contains(&b'\n'),
        "{:?}",
        String::from_utf8_lossy(line)
    );
    let decoder = Decoder::jsonrpc_client();
    let Ok(Message::Batch(batch)) = decoder.decode(line) else {
        panic!("{:?}", String::from_utf8_lossy(line));
    };
    let read: Vec<(Vec<u8>, Option<ErrorCode>)> = batch
        .decode(&decoder)
        .map(|element| match element.unwrap() {
            Message::Response(r) => (r.id.raw().to_vec(), None),
            Message::ErrorResponse(e) => (e.id.unwrap().raw().to_vec(), Some(e.error.code)),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        read,
        [
            (b"1".to_vec(), None),
            (b"2".to_vec(), None),
            (b"null".to_vec(), Some(ErrorCode::INVALID_REQUEST)),
            (b"4".to_vec(), Some(ErrorCode::INTERNAL_ERROR)),
            (b"\"6\"".to_vec(), None),
        ]
    );
    let parsed: serde_json::Value = serde_json::from_slice(line).unwrap();
    assert_eq!(parsed.as_array().map(Vec::len), Some(5));
}

/// A received frame forwarded into a batch reply with `write_frame` keeps its leading
/// whitespace (a `Content-Length` body or an SSE event may start with a line break or a
/// space): the element is the frame as it came, whatever its length. The depth check that
/// `push` makes of an element of 256 bytes or more read the whitespace as no JSON value, took
/// the element for one too deep, and wrote a response as -32603, an error without its `data`,
/// and took a request back.
#[test]
fn a_forwarded_frame_with_leading_whitespace_is_pushed_as_it_came() {
    use encode::BatchReply;
    use rpcwire::{Decoder, Message};
    let text = "x".repeat(300);
    let frames = [
        format!("\r\n{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"text\":\"{text}\"}}}}"),
        format!(
            " {{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{{\"code\":1,\"message\":\"m\",\"data\":\"{text}\"}}}}"
        ),
        format!("\t{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\",\"params\":[\"{text}\"]}}"),
    ];
    let mut out = BytesMut::new();
    let mut array = BatchReply::open(&mut out);
    for frame in &frames {
        array.push(|out| encode::write_frame(out, frame.as_bytes()));
    }
    assert_eq!(array.len(), 3);
    assert!(array.close());
    let line = out.strip_suffix(b"\n").expect("a line end");
    let decoder = Decoder::jsonrpc_client();
    let Ok(Message::Batch(batch)) = decoder.decode(line) else {
        panic!("{:?}", String::from_utf8_lossy(line));
    };
    for (element, frame) in batch.raw.elements().zip(&frames) {
        assert_eq!(element.as_text(), frame.trim_start());
    }
    assert_eq!(batch.raw.elements().count(), 3);
}

/// A writer that writes only a line end, or whitespace (`write_frame` of an empty or blank
/// frame), writes no message: `push` adds no element for it. It added an empty one, and the
/// array came out as `[]` (which JSON-RPC forbids: `close` said there was a reply to send) or
/// with an empty element between two commas, which no reader takes, every other reply with it.
#[test]
fn a_push_that_writes_no_message_adds_no_element() {
    use encode::BatchReply;
    use rpcwire::{Id, RawJson};
    for blank in [&b""[..], b" ", b"\r\n", b" \t "] {
        let mut out = BytesMut::new();
        let mut array = BatchReply::open(&mut out);
        array.push(|out| encode::write_frame(out, blank));
        assert!(array.is_empty(), "{blank:?}");
        assert!(!array.close(), "{blank:?}");
        assert!(out.is_empty(), "{blank:?}");

        let mut out = BytesMut::new();
        let mut array = BatchReply::open(&mut out);
        let one = Id::from_token(b"1").unwrap();
        array.push(|out| encode::write_response(out, one, RawJson::NULL));
        array.push(|out| encode::write_frame(out, blank));
        array.push(|out| encode::write_response(out, one, RawJson::NULL));
        assert_eq!(array.len(), 2, "{blank:?}");
        assert!(array.close());
        let parsed: serde_json::Value = serde_json::from_slice(&out).expect("one JSON array");
        assert_eq!(parsed.as_array().map(Vec::len), Some(2));
    }
}

/// An id token for the serde_json comparison: any id `Id::from_token` takes that serde_json
/// reads (it refuses numbers beyond `f64`'s range): strings, integers at and past the edges of
/// `i64` and `u64`, `-0`, fractions and exponents.
fn any_id_token() -> impl Strategy<Value = String> {
    prop_oneof![
        id_token(),
        Just("-0".to_string()),
        Just(i64::MIN.to_string()),
        Just(u64::MAX.to_string()),
        Just("18446744073709551616".to_string()),
        Just("1e3".to_string()),
        Just("-1.5E-7".to_string()),
        Just("null".to_string()),
        "[a-z\u{2028}\u{7f}é]{1000,1100}".prop_map(|s| serde_json::to_string(&s).unwrap()),
    ]
}

/// A method name or message: any string, or one dense in characters that need escapes or
/// that some readers treat apart (DEL, U+2028, U+2029, beyond the BMP).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[\\x00-\\x22\\\\\\x7f\u{2028}\u{2029}é😀a-z/]{0,32}",
    ]
}

/// The line `out` holds, read by serde_json.
fn serde_read(out: &BytesMut) -> serde_json::Value {
    let line = out.strip_suffix(b"\n").expect("a line end");
    assert!(!line.contains(&b'\n') && !line.contains(&b'\r'));
    serde_json::from_slice(line)
        .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(line)))
}

fn value_of(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).unwrap()
}

proptest! {
    #![proptest_config(crate::common::cases(1000))]

    /// Every writer's line is one serde_json reads as the message written: the same id (read
    /// from the token as serde_json reads it alone), method, code and message, and each
    /// payload the same value as its text read alone, and no member but the envelope's.
    #[test]
    fn every_message_writer_reads_the_same_in_serde_json(
        id in any_id_token(),
        method in text(),
        message in text(),
        code in any::<i64>(),
        value in payload(),
        pretty in any::<bool>(),
    ) {
        use rpcwire::{ErrorCode, Id, RawJson, ReplyId};
        use serde_json::json;
        let token = Id::from_token(id.as_bytes()).unwrap();
        let id = value_of(id.as_bytes());
        let text = if pretty {
            serde_json::to_vec_pretty(&value).unwrap()
        } else {
            serde_json::to_vec(&value).unwrap()
        };
        let raw = RawJson::new(&text).unwrap();
        let value = value_of(&text);

        let mut out = BytesMut::new();
        encode::write_request(&mut out, token, &method, Some(raw));
        prop_assert_eq!(
            serde_read(&out),
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": value})
        );
        let mut out = BytesMut::new();
        encode::write_notification(&mut out, &method, Some(raw));
        prop_assert_eq!(serde_read(&out), json!({"jsonrpc": "2.0", "method": method, "params": value}));
        let mut out = BytesMut::new();
        encode::write_response(&mut out, token, raw);
        prop_assert_eq!(serde_read(&out), json!({"jsonrpc": "2.0", "id": id, "result": value}));
        for (reply_id, id) in [(ReplyId::Id(token), Some(&id)), (ReplyId::Absent, None)] {
            let mut out = BytesMut::new();
            encode::write_error(&mut out, reply_id, ErrorCode(code), &message, Some(raw));
            let mut expected = json!({
                "jsonrpc": "2.0",
                "error": {"code": code, "message": message, "data": value},
            });
            if let Some(id) = id {
                expected["id"] = id.clone();
            }
            prop_assert_eq!(serde_read(&out), expected);
        }
        let mut out = BytesMut::new();
        encode::write_json_string(&mut out, &message);
        prop_assert_eq!(value_of(&out), json!(message));
    }
}

/// A request frame built member by member: the members in any order, the `id` member's name
/// spelled with escapes or not, whitespace (line breaks too) between every token, and params
/// holding `id` members and strings that look like the id.
fn request_frame() -> impl Strategy<Value = (Vec<u8>, String)> {
    let ws = prop::sample::select(vec!["", " ", "\n", "\r\n", "\t "]);
    let id_name = prop::sample::select(vec![
        r#""id""#,
        r#""\u0069d""#,
        r#""i\u0064""#,
        r#""\u0069\u0064""#,
    ]);
    (
        id_token(),
        id_name,
        "[a-z/]{1,8}",
        prop::collection::vec(ws, 12),
    )
        .prop_flat_map(|(id, id_name, method, ws)| {
            let params = format!(
                r#"{{"id":{id},{w0}"\u0069d":[{id},{w1}"\"id\":{}"],"x":{{"id":{id}}}}}"#,
                id.replace('\\', "\\\\").replace('"', "\\\""),
                w0 = ws[0],
                w1 = ws[1],
            );
            let members = vec![
                format!(r#""jsonrpc"{}:{}"2.0""#, ws[2], ws[3]),
                format!("{id_name}{}:{}{id}", ws[4], ws[5]),
                format!(r#""method"{}:{}"{method}""#, ws[6], ws[7]),
                format!(r#""params"{}:{}{params}"#, ws[8], ws[9]),
            ];
            let (before, after) = (ws[10], ws[11]);
            Just(members).prop_shuffle().prop_map(move |members| {
                let frame = format!("{before}{{{}}}{after}", members.join(","));
                (frame.into_bytes(), id.clone())
            })
        })
}

proptest! {
    #![proptest_config(crate::common::cases(1000))]

    /// `write_with_id` replaces the id the decoder read and nothing else: serde_json reads
    /// the line as the frame with only its id changed (the `id` members and look-alike strings
    /// inside params untouched, an escaped `id` name kept), and so do both decoders, the line
    /// being one line whatever line breaks the frame held.
    #[test]
    fn write_with_id_changes_the_id_and_nothing_else(
        (frame, id) in request_frame(),
        new_id in id_token(),
    ) {
        use rpcwire::{Decoder, Id, Message};
        let new = Id::from_token(new_id.as_bytes()).unwrap();
        for decoder in [Decoder::mcp(), Decoder::jsonrpc()] {
            let decoded = decoder.decode(&frame);
            let Ok(Message::Request(request)) = decoded else {
                panic!("{decoded:?}: {:?}", String::from_utf8_lossy(&frame));
            };
            prop_assert_eq!(request.id.raw(), id.as_bytes());
            let mut out = BytesMut::new();
            encode::write_with_id(&mut out, &frame, request.id, new);
            let mut expected = value_of(&frame);
            expected["id"] = value_of(new_id.as_bytes());
            prop_assert_eq!(serde_read(&out), expected);
            let line = out.strip_suffix(b"\n").unwrap();
            let Ok(Message::Request(rewritten)) = decoder.decode(line) else {
                panic!("{:?}", String::from_utf8_lossy(line));
            };
            prop_assert_eq!(rewritten.id.raw(), new.raw());
            prop_assert_eq!(rewritten.method, request.method);
            let spaced: Vec<u8> = request.params.unwrap().as_bytes().iter()
                .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
                .collect();
            prop_assert_eq!(rewritten.params.unwrap().as_bytes(), &spaced[..]);
        }
    }
}

/// The module's word on lengths: an id or a method past the default decoder's limits is
/// written as it is, and the default decoders refuse the line (a request as -32600, without
/// its id when the id is too long; a response to such an id as a malformed response).
#[test]
fn ids_and_methods_past_the_default_limits_are_refused_by_the_reader() {
    use rpcwire::{DecodeError, Decoder, Id, Limits, RawJson, ReplyId};
    let long_id = format!("\"{}\"", "a".repeat(Limits::DEFAULT.max_id_len - 1));
    let long_id = Id::from_token(long_id.as_bytes()).unwrap();
    let mut out = BytesMut::new();
    encode::write_request(&mut out, long_id, "m", None);
    let refused = Decoder::mcp().decode(&out[..out.len() - 1]).unwrap_err();
    assert_eq!(refused.error(), DecodeError::IdTooLong { limit: 65538 });
    assert_eq!(refused.reply().unwrap().id, ReplyId::Absent);
    let mut out = BytesMut::new();
    encode::write_response(&mut out, long_id, RawJson::EMPTY_OBJECT);
    let refused = Decoder::mcp_client()
        .decode(&out[..out.len() - 1])
        .unwrap_err();
    assert!(refused.is_response() && refused.id().is_none());

    let method = "m".repeat(Limits::DEFAULT.max_method_len + 1);
    let mut out = BytesMut::new();
    encode::write_request(&mut out, Id::from_token(b"1").unwrap(), &method, None);
    let refused = Decoder::mcp().decode(&out[..out.len() - 1]).unwrap_err();
    assert_eq!(refused.error(), DecodeError::MethodTooLong { limit: 65536 });
    assert_eq!(refused.id().unwrap().raw(), b"1");
}

/// One call of `BatchReply::push`, for `a_batch_reply_reads_as_the_messages_pushed`.
#[derive(Debug, Clone)]
enum Push {
    /// `write_response` of a payload.
    Response(String, serde_json::Value),
    /// `write_error` with a `data`, under a `null` id.
    Error(String, Option<serde_json::Value>),
    /// `write_frame` of a response pretty-printed or not, whitespace (line breaks too) before
    /// and after it.
    Frame(serde_json::Value, bool, String, String),
    /// `write_frame` of nothing but whitespace.
    Blank(String),
    /// Two writers in one closure.
    Two(String, String),
}

/// Any [`Push`], its payloads as [`payload`] makes them, some padded past 256 bytes.
fn push() -> impl Strategy<Value = Push> {
    let ws =
        || prop::sample::select(vec!["", " ", "\n", "\r\n", "\t", " \n "]).prop_map(String::from);
    // Long enough at times (300 bytes of padding) for `push` to look at an element's depth.
    let padded = || {
        (payload(), any::<bool>()).prop_map(|(value, long)| {
            if long {
                serde_json::json!([value, "x".repeat(300)])
            } else {
                value
            }
        })
    };
    let message = (id_token(), padded()).prop_map(|(id, value)| {
        serde_json::json!({"jsonrpc": "2.0", "id": value_of(id.as_bytes()), "result": value})
    });
    prop_oneof![
        (id_token(), padded()).prop_map(|(id, value)| Push::Response(id, value)),
        (text(), prop::option::of(padded())).prop_map(|(message, data)| Push::Error(message, data)),
        (message, any::<bool>(), ws(), ws())
            .prop_map(|(m, pretty, before, after)| Push::Frame(m, pretty, before, after)),
        ws().prop_map(Push::Blank),
        (id_token(), id_token()).prop_map(|(a, b)| Push::Two(a, b)),
    ]
}

proptest! {
    #![proptest_config(crate::common::cases(500))]

    /// A batch reply, whatever was pushed into it (replies of every writer, received frames
    /// forwarded with `write_frame` with whitespace and line breaks around and inside them,
    /// blank frames, two messages in one push), is one line that serde_json reads as the
    /// array of the messages written, in order, and nothing at all when none was: never `[]`.
    /// The text before the array is left as it was.
    #[test]
    fn a_batch_reply_reads_as_the_messages_pushed(pushes in prop::collection::vec(push(), 0..6)) {
        use encode::BatchReply;
        use rpcwire::{ErrorCode, Id, RawJson, ReplyId};
        use serde_json::json;
        let mut out = BytesMut::from(&b"before\n"[..]);
        let mut array = BatchReply::open(&mut out);
        let mut expected = Vec::new();
        for push in &pushes {
            match push {
                Push::Response(id, value) => {
                    let text = serde_json::to_vec(value).unwrap();
                    let token = Id::from_token(id.as_bytes()).unwrap();
                    array.push(|out| encode::write_response(out, token, RawJson::new(&text).unwrap()));
                    expected.push(json!({"jsonrpc": "2.0", "id": value_of(id.as_bytes()), "result": value_of(&text)}));
                }
                Push::Error(message, data) => {
                    let text = data.as_ref().map(|data| serde_json::to_vec(data).unwrap());
                    let raw = text.as_deref().map(|text| RawJson::new(text).unwrap());
                    let code = ErrorCode::INVALID_PARAMS;
                    array.push(|out| encode::write_error(out, ReplyId::Null, code, message, raw));
                    let mut error = json!({"code": -32602, "message": message});
                    if let Some(text) = &text {
                        error["data"] = value_of(text);
                    }
                    expected.push(json!({"jsonrpc": "2.0", "id": null, "error": error}));
                }
                Push::Frame(message, pretty, before, after) => {
                    let text = if *pretty {
                        serde_json::to_string_pretty(message).unwrap()
                    } else {
                        serde_json::to_string(message).unwrap()
                    };
                    let frame = format!("{before}{text}{after}");
                    array.push(|out| encode::write_frame(out, frame.as_bytes()));
                    expected.push(value_of(text.as_bytes()));
                }
                Push::Blank(blank) => array.push(|out| encode::write_frame(out, blank.as_bytes())),
                Push::Two(a, b) => {
                    let (a_token, b_token) = (Id::from_token(a.as_bytes()).unwrap(), Id::from_token(b.as_bytes()).unwrap());
                    array.push(|out| {
                        encode::write_response(out, a_token, RawJson::NULL);
                        encode::write_response(out, b_token, RawJson::EMPTY_OBJECT);
                    });
                    expected.push(json!({"jsonrpc": "2.0", "id": value_of(a.as_bytes()), "result": null}));
                    expected.push(json!({"jsonrpc": "2.0", "id": value_of(b.as_bytes()), "result": {}}));
                }
            }
        }
        prop_assert_eq!(array.len(), expected.len());
        prop_assert_eq!(array.is_empty(), expected.is_empty());
        let sent = array.close();
        prop_assert_eq!(sent, !expected.is_empty());
        let written = out.strip_prefix(b"before\n").expect("the text before, as it was");
        if sent {
            let line = written.strip_suffix(b"\n").expect("a line end");
            prop_assert!(!line.contains(&b'\n') && !line.contains(&b'\r'));
            let read: serde_json::Value = serde_json::from_slice(line)
                .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(line)));
            prop_assert_eq!(read, serde_json::Value::Array(expected));
        } else {
            prop_assert!(written.is_empty());
        }
    }
}
