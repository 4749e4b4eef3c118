//! The Content-Length codec: messages, rejections, over-long bodies and bodies in another
//! charset as items through `FramedRead` with reads split anywhere, a malformed header as the
//! `InvalidData` error that ends the stream, a stream cut short, and the encoder's frames read
//! back.
#![cfg(feature = "tokio")]

mod common;

use bytes::{Bytes, BytesMut};
use common::{assert_any_split, io_error, outgoing_cases, read_framed, show_incoming};
use futures_util::SinkExt;
use rpcwire::codec::{ContentLengthCodec, ContentLengthEncoder, Incoming};
use rpcwire::{ContentLengthError, ContentLengthFramer, Decoder};
use tokio_util::codec::{Decoder as _, FramedWrite};

const MAX: usize = 64;

fn frame(body: &[u8]) -> Vec<u8> {
    [
        format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes(),
        body,
    ]
    .concat()
}

/// An item (or the error that ends the stream) as a test compares it.
fn show(item: Result<Incoming, std::io::Error>) -> String {
    match item {
        Ok(incoming) => show_incoming(&incoming),
        Err(err) => io_error(&err),
    }
}

fn read(chunks: &[&[u8]]) -> Vec<String> {
    read_framed(
        ContentLengthCodec::new(Decoder::mcp(), MAX),
        chunks,
        |_, item| show(item),
    )
    .0
}

#[test]
fn messages_rejections_and_over_long_bodies_split_anywhere() {
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let long = [
        &b"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":\""[..],
        &[b'x'; 40],
        b"\"}",
    ]
    .concat();
    let long_at = frame(ping).len() + frame(b"{\"id\":2}").len();
    let stream = [
        frame(ping),
        frame(b"{\"id\":2}"),
        frame(&long),
        b"content-type: application/json\r\ncontent-length: 2\r\n\r\n{}".to_vec(),
        frame(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
    ]
    .concat();
    let expected = [
        format!("request {}", String::from_utf8_lossy(ping)),
        "rejected Some(-32600)".into(),
        format!("too long at {long_at}, {} bytes (-32700)", long.len()),
        "rejected Some(-32600)".into(),
        r#"notification {"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
    ];
    assert_any_split(&stream, &expected, read);
}

/// A body whose `Content-Type` names another charset (its bytes UTF-8 that the decoder
/// would take, a valid request) is an item, not an error: reported at its offset with the
/// -32700 a frame that is not JSON gets, with no id (the body is never read); the codec is
/// not failed and the next message is read, in reads split anywhere.
#[test]
fn a_body_in_another_charset_is_an_item_and_the_stream_goes_on() {
    let latin1 = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":[\"\xc3\xa9\"]}";
    let refused = [
        b"Content-Type: application/vscode-jsonrpc; charset=latin1\r\n".as_slice(),
        &frame(latin1),
    ]
    .concat();
    let stream = [
        frame(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
        refused,
        frame(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"),
    ]
    .concat();
    let at = frame(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").len();
    let expected = [
        r#"request {"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_string(),
        format!("unsupported charset at {at} (-32700)"),
        r#"request {"jsonrpc":"2.0","id":2,"method":"ping"}"#.into(),
    ];
    assert_any_split(&stream, &expected, read);

    let mut codec = ContentLengthCodec::new(Decoder::mcp(), MAX);
    let mut buf = BytesMut::from(&stream[at..]);
    let item = codec.decode(&mut buf).unwrap().unwrap();
    assert_eq!(
        item,
        Incoming::UnsupportedCharset {
            offset: 0,
            reply: Decoder::mcp().parse_error_reply()
        }
    );
    let reply = item.reply().unwrap();
    assert_eq!(
        (reply.code, reply.id),
        (rpcwire::ErrorCode::PARSE_ERROR, rpcwire::ReplyId::Absent)
    );
    assert!(!codec.is_failed());
}

/// A malformed header block: the items before it, then an `InvalidData` error carrying the
/// `ContentLengthError`, then nothing (the message after it is never found).
#[test]
fn a_bad_header_is_an_invalid_data_error_that_ends_the_stream() {
    let ping = frame(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let at = ping.len() as u64;
    for (bad, error) in [
        (
            &b"Content-Length: 1x\r\n\r\n{}"[..],
            ContentLengthError::BadLength { offset: at },
        ),
        (
            b"Content-Type: a\r\n\r\n{}",
            ContentLengthError::MissingLength { offset: at },
        ),
        (
            b"Content-Length: 2\n\n{}",
            ContentLengthError::MalformedHeader { offset: at },
        ),
        (
            b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
            ContentLengthError::DuplicateLength { offset: at },
        ),
    ] {
        let stream = [&ping[..], bad, &ping].concat();
        let expected = [
            "request {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".to_string(),
            format!("InvalidData Some({error:?})"),
        ];
        assert_any_split(&stream, &expected, read);
        // Called again, the codec reads nothing more.
        let mut codec = ContentLengthCodec::new(Decoder::mcp(), MAX);
        let mut buf = BytesMut::from(&stream[..]);
        assert!(codec.decode(&mut buf).unwrap().is_some());
        let err = codec.decode(&mut buf).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert!(codec.is_failed());
        // Whatever follows is dropped as it comes: the buffer stays empty, and the offsets
        // count every byte.
        for _ in 0..64 {
            buf.extend_from_slice(&ping);
            buf.extend_from_slice(&[b'x'; 4096]);
            assert!(codec.decode(&mut buf).unwrap().is_none());
            assert!(buf.is_empty());
        }
        assert!(codec.decode_eof(&mut buf).unwrap().is_none());
        let total = stream.len() + 64 * (ping.len() + 4096);
        assert_eq!(codec.framer().consumed(), total as u64);
        assert_eq!(codec.framer().last_offset(), at);
    }
}

/// The stream ends inside a message (its headers or its body): `UnexpectedEof`, carrying
/// `Truncated`; inside an over-long body already reported, nothing more.
#[test]
fn a_stream_cut_short_is_unexpected_eof() {
    let ping = frame(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let at = ping.len() as u64;
    let truncated = format!(
        "UnexpectedEof Some({:?})",
        ContentLengthError::Truncated { offset: at }
    );
    let first = "request {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".to_string();
    for tail in [&b"Content-Len"[..], b"Content-Length: 5\r\n\r\n{}"] {
        let stream = [&ping[..], tail].concat();
        assert_any_split(&stream, &[first.clone(), truncated.clone()], read);
    }
    let stream = [&ping[..], b"Content-Length: 500\r\n\r\n{}"].concat();
    assert_any_split(
        &stream,
        &[first, format!("too long at {at}, 500 bytes (-32700)")],
        read,
    );
}

/// The header limits of a framer handed to the codec are kept, and its frame limit is the
/// decoder's.
#[test]
fn a_configured_framer() {
    let framer = ContentLengthFramer::new(1 << 10).max_headers(1);
    let codec = ContentLengthCodec::with_framer(Decoder::mcp(), framer);
    assert_eq!(codec.decoder().options().limits.max_frame, 1 << 10);
    let stream = b"A: b\r\nContent-Length: 2\r\n\r\n{}";
    let (items, _) = read_framed(codec, &[stream], |_, item| show(item));
    assert_eq!(
        items,
        [format!(
            "InvalidData Some({:?})",
            ContentLengthError::TooManyHeaders {
                offset: 0,
                limit: 1
            }
        )]
    );
}

/// Each `Outgoing` shape, an encoded line (with and without its line end) and a received
/// message are written as `Content-Length: N`, a blank line and the message, and read back.
#[tokio::test]
async fn encoded_frames_read_back() {
    for (msg, line, kind, decoder, received) in outgoing_cases() {
        let mut sink = FramedWrite::new(Vec::new(), ContentLengthCodec::new(Decoder::mcp(), 1024));
        sink.send(msg).await.unwrap();
        sink.send(Bytes::from(format!("{line}\r\n"))).await.unwrap();
        sink.send(Bytes::from(line)).await.unwrap();
        sink.send(&received).await.unwrap();
        let mut alone = FramedWrite::new(Vec::new(), ContentLengthEncoder::new());
        alone.send(msg).await.unwrap();
        let written = sink.into_inner();
        let one = frame(line.as_bytes());
        assert_eq!(written, one.repeat(4), "{line}");
        assert_eq!(alone.into_inner(), one, "{line}");
        let (items, _) = read_framed(
            ContentLengthCodec::new(decoder, 1024),
            &[&written],
            |_, item| match item.unwrap() {
                Incoming::Message(m) => (m.kind(), m.frame().clone()),
                other => panic!("{line}: {other:?}"),
            },
        );
        assert_eq!(items, vec![(kind, Bytes::from(line)); 4], "{line}");
    }
}

/// A message larger than what the encoder's scratch buffer keeps, written twice (the second
/// time into a buffer given back), then a small one: each frame is exact.
#[test]
fn large_outgoing_messages() {
    use rpcwire::codec::Outgoing;
    use rpcwire::{Id, RawJson};
    use tokio_util::codec::Encoder as _;
    let result = format!("\"{}\"", "x".repeat(100 << 10));
    let large = Outgoing::Response {
        id: Id::from_token(b"1").unwrap(),
        result: RawJson::new(result.as_bytes()).unwrap(),
    };
    let small = Outgoing::Notification {
        method: "n",
        params: None,
    };
    let mut encoder = ContentLengthEncoder::new();
    let mut out = BytesMut::new();
    for msg in [large, large, small] {
        encoder.encode(msg, &mut out).unwrap();
    }
    let line = |msg: Outgoing<'_>| {
        let mut line = BytesMut::new();
        msg.write(&mut line);
        frame(&line[..line.len() - 1])
    };
    assert_eq!(&out[..], [line(large), line(large), line(small)].concat());
}

/// An empty or blank message has no `Content-Length` frame a reader takes for one
/// (`Content-Length: 0`, or a body of whitespace, is a body that is not JSON, answered
/// -32700): the encoder refuses it, writing nothing, as the line encoder does. It wrote a
/// whitespace-only body.
#[test]
fn the_encoder_refuses_an_empty_message() {
    use tokio_util::codec::Encoder as _;
    let mut encoder = ContentLengthEncoder::new();
    for empty in [&b""[..], b"\n", b"\r\n", b" ", b" \t\r\n", b"\n\n", b"\r"] {
        let mut out = BytesMut::new();
        let err = encoder
            .encode(Bytes::from_static(empty), &mut out)
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{empty:?}");
        assert!(out.is_empty(), "{empty:?}");
    }
    // A one-byte message is still one.
    let mut out = BytesMut::new();
    encoder
        .encode(Bytes::from_static(b"1\n"), &mut out)
        .unwrap();
    assert_eq!(&out[..], b"Content-Length: 1\r\n\r\n1");
}
