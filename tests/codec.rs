//! The tokio-util codec: over an in-memory duplex stream with reads split at every byte
//! position, and the tokio example server over a real loopback TCP socket.
#![cfg(feature = "tokio")]

mod common;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use rpcwire::codec::{Incoming, LineCodec, LineEncoder};
use rpcwire::{Decoder, Kind};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::codec::{FramedRead, FramedWrite};

#[path = "../examples/tokio_server.rs"]
mod tokio_server;

const STREAM: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
{\"jsonrpc\":\"2.0\",\"id\":2,\"meth\n\
{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n\
{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}";

/// Summarises an item as (kind, id token, reply code).
fn summary(item: &Incoming) -> (String, Option<Vec<u8>>, Option<i64>) {
    match item {
        Incoming::Message(m) => (
            m.kind().as_str().into(),
            m.message().id().map(|id| id.raw().to_vec()),
            None,
        ),
        Incoming::Rejected(r) => {
            let r = r.rejection();
            (
                r.kind_str().into(),
                None,
                r.reply().map(|reply| reply.code.get()),
            )
        }
        Incoming::TooLong { .. } => ("too_long".into(), None, None),
        Incoming::UnsupportedCharset { .. } => ("unsupported_charset".into(), None, None),
        other => panic!("an item this summary does not know: {other:?}"),
    }
}

async fn read_all(split: usize) -> Vec<(String, Option<Vec<u8>>, Option<i64>)> {
    let (mut client, server) = tokio::io::duplex(8);
    let writer = tokio::spawn(async move {
        let (a, b) = STREAM.split_at(split);
        for part in [a, b] {
            client.write_all(part).await.unwrap();
            tokio::task::yield_now().await;
        }
        client.shutdown().await.unwrap();
    });
    let mut frames = FramedRead::new(server, LineCodec::new(Decoder::mcp(), 1024));
    let mut items = vec![];
    while let Some(item) = frames.next().await {
        items.push(summary(&item.unwrap()));
    }
    writer.await.unwrap();
    items
}

#[tokio::test]
async fn reads_split_at_every_byte_position() {
    let expected = vec![
        ("request".to_string(), Some(b"1".to_vec()), None),
        ("parse_error".to_string(), None, Some(-32700)),
        ("notification".to_string(), None, None),
        ("request".to_string(), Some(b"\"x\"".to_vec()), None),
    ];
    for split in 0..=STREAM.len() {
        assert_eq!(read_all(split).await, expected, "split at {split}");
    }
}

#[tokio::test]
async fn encoder_writes_lines_and_refuses_embedded_newlines() {
    let (client, mut server) = tokio::io::duplex(1024);
    let mut sink = FramedWrite::new(client, LineCodec::new(Decoder::mcp(), 1024));
    sink.send(Bytes::from_static(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}",
    ))
    .await
    .unwrap();
    sink.send(Bytes::from_static(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n",
    ))
    .await
    .unwrap();
    // A line may end with `\r\n`, written as it is; a CR anywhere else is a line break.
    sink.send(Bytes::from_static(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"c\"}\r\n",
    ))
    .await
    .unwrap();
    // (On the encoder itself: a sink's error would not say which line it refused.)
    let mut encoder = LineEncoder;
    for broken in [
        &b"{\"x\":\n1}"[..],
        b"{\"x\":1}\r",
        b"{\"x\":\r1}\n",
        b"{}\r\r\n",
        b"{}\n\n",
        // No message: a blank line, which readers refuse or skip, JSON whitespace alone
        // included (every line framer skips it).
        b"",
        b"\n",
        b"\r\n",
        b" ",
        b"\t \n",
        b"  \r\n",
    ] {
        let mut out = bytes::BytesMut::new();
        let encoded =
            tokio_util::codec::Encoder::encode(&mut encoder, Bytes::from_static(broken), &mut out);
        assert!(encoded.is_err(), "{:?}", String::from_utf8_lossy(broken));
        assert!(out.is_empty());
    }
    drop(sink);
    let mut out = vec![];
    server.read_to_end(&mut out).await.unwrap();
    assert_eq!(
        out,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n\
          {\"jsonrpc\":\"2.0\",\"method\":\"c\"}\r\n"
    );
}

#[tokio::test]
async fn example_server_over_loopback_tcp() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(tokio_server::serve(listener, Decoder::mcp()));

    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (read, mut write) = stream.into_split();
    let client_decoder = Decoder::mcp_client();
    let mut replies = FramedRead::new(read, LineCodec::new(client_decoder, 1 << 20));
    // A request, a bad line in the middle, a notification, then another request.
    write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"n\":1}}\n")
        .await
        .unwrap();
    write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":[1]}\n")
        .await
        .unwrap();
    write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();
    write
        .write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":\"three\",\"method\":\"echo\",\"params\":{\"n\":3}}\n",
        )
        .await
        .unwrap();

    let mut frames = vec![];
    for _ in 0..3 {
        match replies.next().await.unwrap().unwrap() {
            Incoming::Message(m) => frames.push((m.kind(), m.frame().clone())),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(
        frames[0],
        (
            Kind::Response,
            Bytes::from_static(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":1}}")
        )
    );
    // MCP: params must be an object; the reply echoes the readable id.
    assert_eq!(frames[1].0, Kind::ErrorResponse);
    assert_eq!(&frames[1].1[..], b"{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32600,\"message\":\"Invalid Request\"}}");
    assert_eq!(
        &frames[2].1[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":\"three\",\"result\":{\"n\":3}}"
    );
    // Nothing was sent for the notification.
    drop(write);
    assert!(replies.next().await.is_none());
    server.abort();
}

/// The example server given a JSON-RPC decoder, which lets batches through, answers a batch
/// with one array: a reply for each request and each invalid element, none for a
/// notification; a batch of notifications gets nothing. (It answered no batch at all.)
#[tokio::test]
async fn example_server_answers_a_batch() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(tokio_server::serve(listener, Decoder::jsonrpc()));

    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            b"[{\"jsonrpc\":\"2.0\",\"method\":\"log\"},{\"jsonrpc\":\"2.0\",\"method\":\"log\"}]\n\
              [{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":[1]},\
               {\"jsonrpc\":\"2.0\",\"method\":\"log\"},{\"id\":2}]\n",
        )
        .await
        .unwrap();
    stream.shutdown().await.unwrap();
    let mut replies = String::new();
    let read = stream.read_to_string(&mut replies);
    tokio::time::timeout(std::time::Duration::from_secs(5), read)
        .await
        .expect("the server closes the connection")
        .unwrap();
    assert_eq!(
        replies,
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[1]},\
         {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32600,\"message\":\"Invalid Request\"}}]\n"
    );
    server.abort();
}

/// The codec's frame limit is its decoder's too: a decoder built with a smaller one does not
/// refuse the frames its codec lets through.
#[test]
fn the_codecs_limit_is_its_decoders() {
    use tokio_util::codec::Decoder as _;
    let mut options = rpcwire::DecodeOptions::default();
    options.limits.max_frame = 8;
    let mut codec = LineCodec::new(Decoder::new(options), 1 << 10);
    assert_eq!(codec.decoder().options().limits.max_frame, 1 << 10);
    let mut buf =
        bytes::BytesMut::from(&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"[..]);
    assert!(matches!(
        codec.decode(&mut buf).unwrap(),
        Some(Incoming::Message(_))
    ));
}

/// A decoder set mid-stream (a session's version, once known) decodes what comes next, with
/// the codec's frame limit, while each framer goes on where it was: a line being discarded
/// stays discarded and is reported once, an SSE stream keeps its last event id, a
/// `Content-Length` body split across the change is read whole.
#[test]
fn a_decoder_set_mid_stream_takes_the_frames_to_come() {
    use bytes::BytesMut;
    use rpcwire::codec::{ContentLengthCodec, SseCodec, SsePayload};
    use tokio_util::codec::Decoder as _;
    // Valid under 2025-11-25, where `resultType` is a member like any other; not under the
    // default, 2026-07-28's rules.
    let result = &b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"partial\"}}"[..];
    let older = |codec_decoder: &Decoder| {
        Decoder::new(codec_decoder.options().for_protocol_version("2025-11-25"))
    };
    let is_message = |item: &Incoming| matches!(item, Incoming::Message(_));

    // Lines: the first half of an over-long line, the change, then its rest and the result.
    let mut codec = LineCodec::new(Decoder::mcp_client(), 64);
    let mut buf = BytesMut::from(&[b' '; 40][..]);
    assert_eq!(codec.decode(&mut buf).unwrap(), None);
    codec.set_decoder(older(codec.decoder()));
    assert_eq!(codec.decoder().options().limits.max_frame, 64);
    buf.extend_from_slice(&[b' '; 40]);
    buf.extend_from_slice(b"\n");
    buf.extend_from_slice(result);
    buf.extend_from_slice(b"\n");
    let too_long = codec.decode(&mut buf).unwrap().unwrap();
    assert!(
        matches!(too_long, Incoming::TooLong { offset: 0, .. }),
        "{too_long:?}"
    );
    assert!(is_message(&codec.decode(&mut buf).unwrap().unwrap()));
    assert_eq!(codec.decode(&mut buf).unwrap(), None);

    // SSE: an event with an id, the change, the result in the next event.
    let mut codec = SseCodec::new(Decoder::mcp_client(), 1 << 10);
    let mut buf = BytesMut::new();
    buf.extend_from_slice(b"id: 7\ndata: ");
    buf.extend_from_slice(result);
    buf.extend_from_slice(b"\n\n");
    let before = codec.decode(&mut buf).unwrap().unwrap();
    assert!(matches!(
        before.payload,
        SsePayload::Message(Incoming::Rejected(_))
    ));
    codec.set_decoder(older(codec.decoder()));
    assert_eq!(codec.decoder().options().limits.max_frame, 1 << 10);
    assert_eq!(codec.last_event_id(), Some(&b"7"[..]));
    buf.extend_from_slice(b"data: ");
    buf.extend_from_slice(result);
    buf.extend_from_slice(b"\n\n");
    let after = codec.decode(&mut buf).unwrap().unwrap();
    match &after.payload {
        SsePayload::Message(item) => assert!(is_message(item), "{item:?}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(codec.last_event_id(), Some(&b"7"[..]));

    // Content-Length: the header and half the body, the change, the rest.
    let mut codec = ContentLengthCodec::new(Decoder::mcp_client(), 1 << 10);
    let mut buf = BytesMut::from(format!("Content-Length: {}\r\n\r\n", result.len()).as_bytes());
    buf.extend_from_slice(&result[..10]);
    assert_eq!(codec.decode(&mut buf).unwrap(), None);
    codec.set_decoder(older(codec.decoder()));
    assert_eq!(codec.decoder().options().limits.max_frame, 1 << 10);
    buf.extend_from_slice(&result[10..]);
    assert!(is_message(&codec.decode(&mut buf).unwrap().unwrap()));
}

/// `Incoming::reply`: nothing for a message, the rejection's reply for a bad frame, and for an
/// over-long line -32700 with the decoder's unreadable-id form (`null` in JSON-RPC).
#[test]
fn incoming_items_say_what_they_call_for() {
    use bytes::BytesMut;
    use rpcwire::{ErrorCode, ReplyId};
    use tokio_util::codec::Decoder as _;
    let mut codec = LineCodec::new(Decoder::jsonrpc(), 48);
    let mut buf = BytesMut::from(
        &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n{\"id\":2}\n0123456789012345678901234567890123456789012345678\n"[..],
    );
    let replies: Vec<_> = std::iter::from_fn(|| codec.decode(&mut buf).unwrap())
        .map(|item| {
            item.reply()
                .map(|r| (r.code, r.id.token().map(<[u8]>::to_vec)))
        })
        .collect();
    assert_eq!(
        replies,
        [
            None,
            Some((ErrorCode::INVALID_REQUEST, Some(b"2".to_vec()))),
            Some((
                ErrorCode::PARSE_ERROR,
                ReplyId::Null.token().map(<[u8]>::to_vec)
            )),
        ]
    );
}

/// Each `Outgoing` shape is written as its exact line, by the encoder alone and by the codec,
/// and that line decodes back to the shape.
#[tokio::test]
async fn outgoing_messages_are_written_as_their_lines() {
    for (msg, line, kind, decoder, _) in common::outgoing_cases() {
        let expected = format!("{line}\n");
        let mut encoder = FramedWrite::new(Vec::new(), LineEncoder);
        encoder.send(msg).await.unwrap();
        let mut codec = FramedWrite::new(Vec::new(), LineCodec::new(Decoder::mcp(), 1024));
        codec.send(msg).await.unwrap();
        assert_eq!(encoder.get_ref(), expected.as_bytes(), "{msg:?}");
        assert_eq!(codec.get_ref(), expected.as_bytes(), "{msg:?}");
        let decoded = decoder.decode(line.as_bytes()).unwrap();
        assert_eq!(decoded.kind(), kind, "{msg:?}");
    }
}

/// A write half needs no decoder: `LineEncoder` on its own, and a received message forwarded
/// byte for byte.
#[tokio::test]
async fn the_encoder_alone_writes_lines() {
    let mut sink = FramedWrite::new(Vec::new(), LineEncoder);
    let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let received = rpcwire::OwnedMessage::decode(&Decoder::mcp(), frame.clone()).unwrap();
    sink.send(&received).await.unwrap();
    let line = Bytes::from_static(br#"{"jsonrpc":"2.0","method":"b"}"#);
    sink.send(line.clone()).await.unwrap();
    assert!(sink.send(Bytes::from_static(b"{\"x\":\r1}")).await.is_err());
    assert_eq!(sink.get_ref(), &[&frame[..], b"\n", &line, b"\n"].concat());
}

/// An over-long frame's item carries the limit it crossed, the codec's (set here, not the
/// default), in each framing.
#[test]
fn a_too_long_item_carries_the_codecs_limit() {
    use bytes::BytesMut;
    use rpcwire::codec::{ContentLengthCodec, SseCodec, SsePayload};
    use tokio_util::codec::Decoder as _;
    let limit_of = |item: Incoming| match item {
        Incoming::TooLong { limit, .. } => limit,
        other => panic!("{other:?}"),
    };
    let long = "[1,2,3,4,5,6,7,8,9]";
    let mut buf = BytesMut::from(format!("{long}\n").as_bytes());
    let item = LineCodec::new(Decoder::mcp(), 16).decode(&mut buf);
    assert_eq!(limit_of(item.unwrap().unwrap()), 16);
    let mut buf = BytesMut::from(format!("Content-Length: 19\r\n\r\n{long}").as_bytes());
    let item = ContentLengthCodec::new(Decoder::mcp(), 16).decode(&mut buf);
    assert_eq!(limit_of(item.unwrap().unwrap()), 16);
    let mut buf = BytesMut::from(format!("data: {long}\n\n").as_bytes());
    let item = SseCodec::new(Decoder::mcp(), 16).decode(&mut buf);
    let SsePayload::Message(item) = item.unwrap().unwrap().payload else {
        panic!("not a message event")
    };
    assert_eq!(limit_of(item), 16);
}
