//! `encode::write_json_string` escapes exactly as serde_json does, byte for byte: every ASCII
//! character (and pairs of them, where a word-at-a-time scan could misplace the first) at
//! every position around its 8-byte words, and random strings.

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

/// An object nested `depth` levels deep, objects and arrays alternating, with brackets inside
/// a string at the bottom (which a depth count must not read as nesting).
fn nested(depth: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for level in 0..depth {
        v.extend_from_slice(if level % 2 == 1 { b"[" } else { b"{\"k\":" });
    }
    v.extend_from_slice(b"\"[[{{\"");
    for level in (0..depth).rev() {
        v.push(if level % 2 == 1 { b']' } else { b'}' });
    }
    v
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
