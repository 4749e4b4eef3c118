//! The SSE codec: every kind of event a client meets on an MCP stream (messages, priming
//! events, the old transport's `endpoint` event, other types, `retry`, over-long events, an
//! event cut off by the end of the body) through `FramedRead` with reads split anywhere, and
//! the encoder's events read back.
#![cfg(feature = "tokio")]

mod common;

use bytes::{Bytes, BytesMut};
use common::{assert_any_split, outgoing_cases, read_framed, show_incoming};
use futures_util::SinkExt;
use proptest::prelude::*;
use rpcwire::codec::{Incoming, SseCodec, SseControl, SseEncoder, SseItem, SseMessage, SsePayload};
use rpcwire::{Decoder, SseFramer, SseWriteError};
use tokio_util::codec::{Decoder as _, Encoder as _, FramedWrite};

const MAX: usize = 64;

/// A server's stream, one event of each kind, the last cut off by the end of the body.
fn stream() -> Vec<u8> {
    [
        &b"\xEF\xBB\xBF: keep-alive\r\n\r\n"[..],
        b"id: 0\ndata:\n\n",
        b"event: endpoint\ndata: /messages?sessionId=abc\n\n",
        b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        b"data: {\"jsonrpc\":\"2.0\",\r\ndata: \"method\":\"n\",\"params\":{}}\r\n\r\n",
        b"event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n",
        b"data: not json\n\n",
        b"id: 3\nevent: custom\ndata: a\ndata: b\n\n",
        b"id: 99\ndata: ",
        &[b'x'; MAX + 1],
        b"\nretry: 2500\n\n",
        b"id:\r\r",
        b"id: 4\nretry: 9000\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"lost\"}\n",
    ]
    .concat()
}

/// An item as a test compares it.
fn show(item: &SseItem) -> String {
    let id = item
        .id
        .as_ref()
        .map(|id| String::from_utf8_lossy(id).into_owned());
    let payload = match &item.payload {
        SsePayload::Message(incoming) => show_incoming(incoming),
        SsePayload::Other { event, data } => format!(
            "{} event: {}",
            String::from_utf8_lossy(event),
            String::from_utf8_lossy(data)
        ),
        SsePayload::Empty => "empty".into(),
        other => format!("{other:?}"),
    };
    format!("id {id:?} retry {:?}: {payload}", item.retry)
}

fn read(chunks: &[&[u8]]) -> Vec<String> {
    let (mut out, codec) = read_framed(
        SseCodec::new(Decoder::mcp_client(), MAX),
        chunks,
        |_, item| show(&item.unwrap()),
    );
    out.push(format!(
        "last id {:?}, retry {:?}",
        codec
            .last_event_id()
            .map(|id| String::from_utf8_lossy(id).into_owned()),
        codec.reconnection_time()
    ));
    out
}

fn expected() -> Vec<String> {
    let too_long_at = stream().windows(6).position(|w| w == b"id: 99").unwrap();
    [
        r#"id Some("0") retry None: empty"#.to_string(),
        "id None retry None: endpoint event: /messages?sessionId=abc".into(),
        r#"id Some("1") retry None: success_response {"jsonrpc":"2.0","id":1,"result":{}}"#.into(),
        "id None retry None: notification {\"jsonrpc\":\"2.0\",\n\"method\":\"n\",\"params\":{}}"
            .into(),
        r#"id Some("2") retry None: success_response {"jsonrpc":"2.0","id":2,"result":{}}"#.into(),
        // Not JSON: -32700 (whether to send it is the caller's policy; a client does not).
        "id None retry None: rejected Some(-32700)".into(),
        r#"id Some("3") retry None: custom event: a
b"#
        .into(),
        format!("id None retry None: too long at {too_long_at} (-32700)"),
        // The `retry` of the event dropped still counts: it comes with the next event, one
        // whose empty id resets the last event id (its lines end in lone CRs).
        r#"id Some("") retry Some(2500): empty"#.into(),
        // The last event has no blank line: dropped, but for its `retry`.
        "id None retry Some(9000): empty".into(),
        r#"last id Some(""), retry Some(9000)"#.into(),
    ]
    .to_vec()
}

#[test]
fn every_kind_of_event_split_anywhere() {
    assert_any_split(&stream(), &expected(), read);
}

proptest! {
    #[test]
    fn every_kind_of_event_split_at_random(mut cuts in proptest::collection::vec(0..400usize, 0..12)) {
        let stream = stream();
        cuts.iter_mut().for_each(|c| *c = (*c).min(stream.len()));
        cuts.sort_unstable();
        let mut chunks = vec![];
        let mut from = 0;
        for &cut in &cuts {
            chunks.push(&stream[from..cut]);
            from = cut;
        }
        chunks.push(&stream[from..]);
        prop_assert_eq!(read(&chunks), expected());
    }
}

/// As a server (reading a client's stream), a message event that is no valid request calls
/// for its reply, and so does an over-long one.
#[test]
fn items_say_what_they_call_for() {
    let mut codec = SseCodec::new(Decoder::mcp(), MAX);
    let mut buf = BytesMut::from(
        &[
            &b"data: {\"jsonrpc\":\"2.0\",\"id\":5}\n\n"[..],
            b"id: 7\ndata:\n\n",
            b"data: ",
            &[b' '; MAX + 1],
            b"\n\n",
        ]
        .concat()[..],
    );
    let mut replies = vec![];
    while let Some(item) = codec.decode(&mut buf).unwrap() {
        replies.push(
            item.reply()
                .map(|r| (r.code.get(), r.id.token().map(<[u8]>::to_vec))),
        );
    }
    assert_eq!(
        replies,
        [
            Some((-32600, Some(b"5".to_vec()))),
            None,
            Some((-32700, None))
        ]
    );
}

/// Each `Outgoing` shape, an encoded line and a received message, with and without an event
/// id, is written as one event that reads back as the same message with the same id.
#[tokio::test]
async fn encoded_events_read_back() {
    for (msg, line, kind, decoder, received) in outgoing_cases() {
        let mut sink = FramedWrite::new(Vec::new(), SseCodec::new(Decoder::mcp(), 1024));
        sink.send(msg).await.unwrap();
        sink.send(SseMessage::new(msg).with_id("e-1"))
            .await
            .unwrap();
        sink.send(Bytes::from(format!("{line}\n"))).await.unwrap();
        sink.send(SseMessage::new(Bytes::from(line)).with_id(""))
            .await
            .unwrap();
        sink.send(&received).await.unwrap();
        sink.send(SseMessage::new(&received).with_id("e/3"))
            .await
            .unwrap();
        sink.send(SseControl::Comment("between")).await.unwrap();
        sink.send(SseControl::Retry(10)).await.unwrap();
        let written = sink.into_inner();
        assert_eq!(
            &written[..],
            format!(
                "data: {line}\n\nid: e-1\ndata: {line}\n\ndata: {line}\n\nid:\ndata: {line}\n\n\
                 data: {line}\n\nid: e/3\ndata: {line}\n\n: between\nretry: 10\n\n"
            )
            .as_bytes(),
        );
        let (items, codec) = read_framed(SseCodec::new(decoder, 1024), &[&written], |_, item| {
            let item = item.unwrap();
            let id = item.id.clone();
            match item.into_incoming() {
                Some(Incoming::Message(m)) => (id, Some((m.kind(), m.frame().clone()))),
                other => (id, other.map(|_| panic!("{line}: not a message"))),
            }
        });
        let message = Some((kind, Bytes::from(line)));
        let ids = [None, Some("e-1"), None, Some(""), None, Some("e/3")];
        let mut expected: Vec<_> = ids
            .iter()
            .map(|id| (id.map(Bytes::from), message.clone()))
            .collect();
        expected.push((None, None)); // the `retry`
        assert_eq!(items, expected, "{line}");
        assert_eq!(codec.reconnection_time(), Some(10));
    }
}

/// An event id or type that would end its line (or an id with a NUL, which a reader would
/// ignore) is an `InvalidInput` error carrying the `SseWriteError`, and nothing is written.
#[test]
fn a_field_that_would_corrupt_the_stream_is_refused() {
    let notification = rpcwire::codec::Outgoing::Notification {
        method: "n",
        params: None,
    };
    let mut encoder = SseEncoder::new();
    let mut out = BytesMut::from(&b"data: {}\n\n"[..]);
    for (id, event_type, expected) in [
        (Some("a\nb"), None, SseWriteError::InvalidId),
        (Some("a\r"), None, SseWriteError::InvalidId),
        (Some("\0"), None, SseWriteError::InvalidId),
        (Some("1"), Some("x\r\ny"), SseWriteError::InvalidEventType),
    ] {
        let mut msg = SseMessage::new(notification);
        msg.id = id;
        msg.event_type = event_type;
        let bytes = SseMessage {
            message: Bytes::from_static(b"{}"),
            id,
            event_type,
        };
        for err in [
            encoder.encode(msg, &mut out).unwrap_err(),
            encoder.encode(bytes, &mut out).unwrap_err(),
        ] {
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{id:?}");
            let source = err
                .get_ref()
                .and_then(|e| e.downcast_ref::<SseWriteError>());
            assert_eq!(source, Some(&expected), "{id:?}");
        }
    }
    assert_eq!(&out[..], b"data: {}\n\n");
}

/// The body ends inside an event: WHATWG drops it, whatever it holds, and so does the codec
/// (an `Err` would end a stream that ended well).
#[test]
fn a_body_that_ends_mid_event_drops_it() {
    for tail in [
        &b"data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}"[..],
        b"data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n",
        b"data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r\n",
        b"id: 8\ndata: {}\r",
        b"event: endpoint\ndata: /x\n",
    ] {
        let stream = [
            &b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"[..],
            tail,
        ]
        .concat();
        let (items, codec) =
            read_framed(SseCodec::new(Decoder::mcp(), MAX), &[&stream], |_, item| {
                show(&item.unwrap())
            });
        assert_eq!(
            items,
            [r#"id Some("1") retry None: notification {"jsonrpc":"2.0","method":"m"}"#],
            "{tail:?}"
        );
        assert_eq!(codec.last_event_id(), Some(&b"1"[..]), "{tail:?}");
        // The codec says the stream was cut, in whatever pieces it came.
        assert!(codec.ended_inside_event(), "{tail:?}");
        let pieces: Vec<&[u8]> = stream.chunks(3).collect();
        let (_, codec) = read_framed(SseCodec::new(Decoder::mcp(), MAX), &pieces, |_, _| ());
        assert!(codec.ended_inside_event(), "{tail:?} in pieces");
    }
    // A body read whole: ended by a blank line, then nothing, a comment or blank lines.
    for tail in [&b""[..], b": bye\n", b"\n\n", b": partial comment"] {
        let stream = [
            &b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"[..],
            tail,
        ]
        .concat();
        let (items, codec) = read_framed(SseCodec::new(Decoder::mcp(), MAX), &[&stream], |_, _| ());
        assert_eq!(items.len(), 1, "{tail:?}");
        assert!(!codec.ended_inside_event(), "{tail:?}");
    }
    // The codec of a cut body goes on with the next (a reconnection's): that one is judged
    // on its own, and the last event id of the first stays until an event sets one.
    let cut = &b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\ndata: {\"js"[..];
    let (_, codec) = read_framed(SseCodec::new(Decoder::mcp(), MAX), &[cut], |_, _| ());
    assert!(codec.ended_inside_event());
    let whole = &b"data: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"[..];
    let (items, codec) = read_framed(codec, &[whole], |_, item| show(&item.unwrap()));
    assert_eq!(
        items,
        [r#"id None retry None: notification {"jsonrpc":"2.0","method":"m"}"#]
    );
    assert_eq!(codec.last_event_id(), Some(&b"1"[..]));
    assert!(!codec.ended_inside_event());
    let (_, codec) = read_framed(codec, &[cut], |_, _| ());
    assert!(codec.ended_inside_event());
}

/// A line over the limit that WHATWG ignores, cut by the end of the body or not: an unknown
/// field begins an event, which the end then cuts; a comment does not (a body ended by a
/// comment after a blank line was read whole), however long either is.
#[test]
fn a_long_unknown_field_begins_an_event_and_a_long_comment_does_not() {
    let pad = "p".repeat(4 * MAX);
    for (tail, inside) in [
        (format!(": {pad}"), false),
        (format!(": {pad}\n"), false),
        (format!("x-padding: {pad}"), true),
        (format!("x-padding: {pad}\n"), true),
    ] {
        let stream = [
            &b"data: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"[..],
            tail.as_bytes(),
        ]
        .concat();
        let (items, codec) = read_framed(SseCodec::new(Decoder::mcp(), MAX), &[&stream], |_, _| ());
        assert_eq!(items.len(), 1, "{tail:.12}");
        assert_eq!(codec.ended_inside_event(), inside, "{tail:.12}");
    }
}

/// A body of blank lines alone (a server's keep-alive, then the end) held no event: the codec
/// does not say it ended inside one, however short the body's one read (a blank line of one
/// or two bytes, shorter than the byte order mark the framer looks for first). Nor does a
/// body of a byte order mark alone, which the framer strips, or one before a blank line.
#[test]
fn a_body_of_blank_lines_alone_did_not_end_inside_an_event() {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    for body in [
        &b"\n"[..],
        b"\r",
        b"\r\n",
        b"\n\n",
        b"\r\n\r\n",
        BOM,
        b"\xEF\xBB\xBF\n",
    ] {
        let (items, codec) = read_framed(SseCodec::new(Decoder::mcp(), MAX), &[body], |_, _| ());
        assert!(items.is_empty(), "{body:?}");
        assert!(!codec.ended_inside_event(), "{body:?}");
    }
}

/// A body cut before its event's data came (after its `id`, `event` or `retry` line, or
/// inside the first line of a field, `data` or other): the end dropped an event the server
/// had begun, whatever its data would have been, so the body was not read whole, in whatever
/// pieces it came. (A `retry` read still counts, as the end of a body has it.)
#[test]
fn a_body_cut_before_its_events_data_was_not_read_whole() {
    let first = &b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"[..];
    for tail in [
        &b"id: 2\n"[..],
        b"id: 2\r\n",
        b"id: 2",
        b"event: message\n",
        b"retry: 10\n",
        b"x-unknown: 1\n",
        b"dat",
        b"i",
        b": keep-alive\nid: 2\n",
    ] {
        let stream = [first, tail].concat();
        for piece in [stream.len(), 3, 1] {
            let pieces: Vec<&[u8]> = stream.chunks(piece).collect();
            let (items, codec) =
                read_framed(SseCodec::new(Decoder::mcp(), MAX), &pieces, |_, item| {
                    item.unwrap()
                });
            assert_eq!(items[0].id.as_deref(), Some(&b"1"[..]), "{tail:?}");
            assert_eq!(codec.last_event_id(), Some(&b"1"[..]), "{tail:?}");
            assert!(
                codec.ended_inside_event(),
                "{:?} in pieces of {piece}",
                String::from_utf8_lossy(tail)
            );
        }
    }
}

/// A body read whole, with `decode_eof` alone (an HTTP client that has the whole body), is
/// judged on its own too, and so is an empty one: the codec of a cut body said it had ended
/// inside an event for every body after it (only `decode` of new bytes started a new body).
#[test]
fn each_body_read_whole_is_judged_on_its_own() {
    /// Every item of `body`, read whole with `decode_eof`, and whether it ended inside an event.
    fn read_whole(codec: &mut SseCodec, body: &[u8]) -> (usize, bool) {
        let mut buf = BytesMut::from(body);
        let mut items = 0;
        while codec.decode_eof(&mut buf).unwrap().is_some() {
            items += 1;
        }
        (items, codec.ended_inside_event())
    }
    let cut = &b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\ndata: {\"js"[..];
    let whole = &b"data: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"[..];
    let mut codec = SseCodec::new(Decoder::mcp(), MAX);
    assert_eq!(read_whole(&mut codec, cut), (1, true));
    assert_eq!(read_whole(&mut codec, whole), (1, false));
    assert_eq!(read_whole(&mut codec, cut), (1, true));
    assert_eq!(read_whole(&mut codec, b""), (0, false));
    assert_eq!(codec.last_event_id(), Some(&b"1"[..]));
    // Through a `FramedRead`, an empty body after a cut one.
    let (_, codec) = read_framed(codec, &[cut], |_, _| ());
    assert!(codec.ended_inside_event());
    let (items, codec) = read_framed(codec, &[], |_, _| ());
    assert!(items.is_empty());
    assert!(!codec.ended_inside_event());
}

/// Keep-alives (comment-only events) are no items by default; with a framer that yields
/// empty events, each is one, `Empty`, in its place among the messages.
#[test]
fn a_framer_of_ones_own_can_yield_keep_alives() {
    let body: &[u8] =
        b": keep-alive\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\n: keep-alive\n\n";
    let items = |codec| read_framed(codec, &[body], |_, item| show(&item.unwrap())).0;
    let message = r#"id None retry None: notification {"jsonrpc":"2.0","method":"n"}"#;
    let empty = "id None retry None: empty";
    let default = SseCodec::new(Decoder::mcp_client(), MAX);
    assert_eq!(items(default), [message]);
    let framer = SseFramer::new(MAX).yield_empty_events(true);
    let every = SseCodec::with_framer(Decoder::mcp_client(), framer);
    assert_eq!(items(every), [empty, message, empty]);
}

/// The framer a codec shows is the one it reads with: once a body is read, its offsets count
/// that body (every byte consumed, the last event handed out starting where the body put
/// it), and its frame limit is the codec's. No test read a codec's framer, so it could show
/// a framer of its own that had read nothing.
#[test]
fn the_codec_shows_the_framer_it_reads_with() {
    let first = b"data: {\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n\n";
    let second = b": keep-alive\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n\n";
    let body = [&first[..], second].concat();
    let mut codec = SseCodec::new(Decoder::mcp_client(), MAX);
    let mut buf = BytesMut::from(&body[..]);
    let mut messages = 0;
    while let Some(item) = codec.decode(&mut buf).unwrap() {
        assert!(matches!(
            item.payload,
            SsePayload::Message(Incoming::Message(_))
        ));
        messages += 1;
    }
    assert_eq!(messages, 2);
    let framer = codec.framer();
    assert_eq!(framer.consumed(), body.len() as u64);
    let last = first.len() + b": keep-alive\n\n".len();
    assert_eq!(framer.last_offset(), last as u64);
    assert_eq!(framer.max_frame(), MAX);
}

/// `SseMessage::with_event_type` gives the event its type: written by the encoder, the event
/// reads back with that type (its id kept alongside), as one with the field set by hand does.
/// No test built a message with it, so it could leave the default type.
#[test]
fn an_event_type_given_with_with_event_type_is_written() {
    let notification = rpcwire::codec::Outgoing::Notification {
        method: "n",
        params: None,
    };
    let built = SseMessage::new(notification)
        .with_id("7")
        .with_event_type("endpoint");
    let by_hand = SseMessage {
        message: notification,
        id: Some("7"),
        event_type: Some("endpoint"),
    };
    let mut written = Vec::new();
    for msg in [built, by_hand] {
        let mut out = BytesMut::new();
        SseEncoder::new().encode(msg, &mut out).unwrap();
        written.push(out);
    }
    assert_eq!(written[0], written[1]);
    let event = SseFramer::new(1024)
        .decode(&mut written[0])
        .unwrap()
        .unwrap();
    assert_eq!(event.event.as_deref(), Some(&b"endpoint"[..]));
    assert_eq!(event.id.as_deref(), Some(&b"7"[..]));
    assert_eq!(&event.data[..], b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}");
}

/// `Bytes` are one message: a run of two lines (what `LineFramer::decode_chunk` hands out)
/// becomes one event of two data lines, which the reader refuses as a frame that is not one
/// JSON value; split into lines, the two are two events and two messages.
#[test]
fn a_run_of_lines_is_one_event_unless_split() {
    let run = Bytes::from_static(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"pong\"}\n",
    );
    let read_back = |out: &mut BytesMut| {
        let mut codec = SseCodec::new(Decoder::mcp(), 1 << 20);
        let mut kinds = vec![];
        while let Some(item) = codec.decode_eof(out).unwrap() {
            kinds.push(match item.payload {
                SsePayload::Message(Incoming::Message(msg)) => {
                    String::from_utf8(msg.message().method().unwrap().raw().to_vec()).unwrap()
                }
                SsePayload::Message(Incoming::Rejected(r)) => format!("rejected {:?}", r.reply()),
                other => panic!("{other:?}"),
            });
        }
        kinds
    };
    let mut whole = BytesMut::new();
    SseEncoder::new().encode(run.clone(), &mut whole).unwrap();
    let read = read_back(&mut whole);
    assert_eq!(read.len(), 1, "{read:?}");
    assert!(read[0].starts_with("rejected"), "{read:?}");

    let mut split = BytesMut::new();
    for line in run.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        SseEncoder::new()
            .encode(run.slice_ref(line), &mut split)
            .unwrap();
    }
    assert_eq!(read_back(&mut split), ["ping", "pong"]);
}

/// A run of lines is no message for `LineEncoder` either: it refuses it (`InvalidInput`), as
/// the `MessageBytes` docs say; a run goes to a line stream as it is, with no encoder.
#[test]
fn the_line_encoder_refuses_a_run_of_lines() {
    let run = Bytes::from_static(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"pong\"}\n",
    );
    let mut out = BytesMut::new();
    let refused = rpcwire::codec::LineEncoder
        .encode(run, &mut out)
        .unwrap_err();
    assert_eq!(
        refused.kind(),
        std::io::ErrorKind::InvalidInput,
        "{refused}"
    );
    assert!(out.is_empty());
}

/// The header a reconnection sends: none before any id, the id once one is set, and none again
/// once the server resets it with an empty `id` (which `last_event_id` gives as `Some("")`);
/// read through the codec.
#[test]
fn last_event_id_header_is_absent_when_the_id_is_empty() {
    let codec = SseCodec::new(Decoder::mcp_client(), MAX);
    assert_eq!(codec.last_event_id_header(), None);
    let set = &b"id: 5\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"[..];
    let (_, codec) = read_framed(codec, &[set], |_, _| ());
    assert_eq!(codec.last_event_id_header(), Some(&b"5"[..]));
    for reset in [
        &b"id\n\n"[..],
        b"id:\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n",
    ] {
        let codec = SseCodec::with_framer(
            Decoder::mcp_client(),
            SseFramer::new(MAX).with_last_event_id("5").unwrap(),
        );
        let (_, codec) = read_framed(codec, &[reset], |_, _| ());
        assert_eq!(codec.last_event_id(), Some(&b""[..]), "{reset:?}");
        assert_eq!(codec.last_event_id_header(), None, "{reset:?}");
    }
}
