//! The codecs against what a user of tokio-util's `FramedRead`/`FramedWrite`/`Framed` relies
//! on: codecs and items that cross tasks, a frame split over many reads and a read of many
//! frames both scanned in time linear in their bytes, and an over-long frame discarded as it
//! arrives, never held.
#![cfg(feature = "tokio")]

mod common;

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use rpcwire::Decoder;
use rpcwire::codec::{
    ContentLengthCodec, ContentLengthEncoder, Incoming, LineCodec, LineEncoder, Outgoing, SseCodec,
    SseControl, SseEncoder, SseItem, SseMessage, SsePayload,
};
use tokio_util::codec::{Framed, FramedRead, FramedWrite};

/// What a value needs to be moved into a spawned task and shared or polled there.
fn task_ready<T: Send + Sync + Unpin + 'static>() {}

#[test]
fn codecs_encoders_and_items_can_cross_tasks() {
    task_ready::<LineCodec>();
    task_ready::<SseCodec>();
    task_ready::<ContentLengthCodec>();
    task_ready::<LineEncoder>();
    task_ready::<SseEncoder>();
    task_ready::<ContentLengthEncoder>();
    task_ready::<Incoming>();
    task_ready::<SseItem>();
    task_ready::<SsePayload>();
    task_ready::<Outgoing<'static>>();
    task_ready::<SseMessage<'static, Bytes>>();
    task_ready::<SseControl<'static>>();
}

/// A `Framed` on each codec, read and written from a spawned task (which needs its future
/// `Send`), answers what it reads.
#[tokio::test]
async fn a_framed_codec_serves_from_a_spawned_task() {
    let (client, server) = tokio::io::duplex(64);
    let served = tokio::spawn(async move {
        let mut framed = Framed::new(server, LineCodec::from(Decoder::mcp()));
        let mut answered = 0;
        while let Some(item) = framed.next().await {
            let Incoming::Message(msg) = item.unwrap() else {
                panic!("not a message")
            };
            let id = msg.id().unwrap();
            let result = rpcwire::RawJson::EMPTY_OBJECT;
            framed
                .send(Outgoing::Response { id, result })
                .await
                .unwrap();
            answered += 1;
        }
        answered
    });
    let mut framed = Framed::new(client, LineCodec::from(Decoder::mcp_client()));
    for n in 1..=3u8 {
        let token = [b'0' + n];
        let id = rpcwire::Id::from_token(&token).unwrap();
        let request = Outgoing::Request {
            id,
            method: "ping",
            params: None,
        };
        framed.send(request).await.unwrap();
        let Some(Ok(Incoming::Message(reply))) = framed.next().await else {
            panic!("no reply")
        };
        assert_eq!(reply.id().unwrap().raw(), [b'0' + n]);
    }
    drop(framed);
    assert_eq!(served.await.unwrap(), 3);
}

/// Feeds `stream` to `codec` `chunk` bytes at a time, as a `FramedRead` would (`decode`
/// until it has nothing, then more bytes; `decode_eof` at the end), within `BUDGET` of CPU
/// time: the items, and the most bytes the read buffer held between reads.
fn feed<C: tokio_util::codec::Decoder>(
    what: &str,
    mut codec: C,
    stream: &[u8],
    chunk: usize,
) -> (Vec<C::Item>, usize)
where
    C::Error: std::fmt::Debug,
{
    // A rescan of what is buffered at every read is quadratic: minutes for these streams.
    common::within(&format!("{what} in reads of {chunk}"), BUDGET, || {
        let mut buf = BytesMut::new();
        let (mut items, mut held) = (vec![], 0);
        for piece in stream.chunks(chunk) {
            buf.extend_from_slice(piece);
            while let Some(item) = codec.decode(&mut buf).unwrap() {
                items.push(item);
            }
            held = held.max(buf.len());
        }
        while let Some(item) = codec.decode_eof(&mut buf).unwrap() {
            items.push(item);
        }
        (items, held)
    })
}

/// Long enough for a quadratic rescan to take minutes, a linear scan milliseconds (even
/// unoptimised).
const BIG: usize = 4 << 20;
/// Of CPU time ([`common::within`]).
const BUDGET: Duration = Duration::from_secs(5);

/// A notification whose params hold a string of `len` bytes.
fn notification(len: usize) -> Vec<u8> {
    let mut msg = br#"{"jsonrpc":"2.0","method":"n","params":{"s":""#.to_vec();
    msg.resize(msg.len() + len, b'a');
    msg.extend_from_slice(br#""}}"#);
    msg
}

/// The three framings of `msg`, each with its codec (frame limit `max`).
fn framings(msg: &[u8], max: usize) -> [(&'static str, Vec<u8>, Codec); 3] {
    [
        (
            "line",
            [msg, b"\n"].concat(),
            Codec::Line(LineCodec::new(Decoder::mcp(), max)),
        ),
        (
            "sse",
            [b"data: ", msg, b"\n\n"].concat(),
            Codec::Sse(SseCodec::new(Decoder::mcp(), max)),
        ),
        (
            "content-length",
            [
                format!("Content-Length: {}\r\n\r\n", msg.len()).as_bytes(),
                msg,
            ]
            .concat(),
            Codec::ContentLength(ContentLengthCodec::new(Decoder::mcp(), max)),
        ),
    ]
}

enum Codec {
    Line(LineCodec),
    Sse(SseCodec),
    ContentLength(ContentLengthCodec),
}

impl Codec {
    /// [`feed`] on the codec, its items as `Incoming`s.
    fn feed(self, what: &str, stream: &[u8], chunk: usize) -> (Vec<Incoming>, usize) {
        match self {
            Codec::Line(c) => feed(what, c, stream, chunk),
            Codec::ContentLength(c) => feed(what, c, stream, chunk),
            Codec::Sse(c) => {
                let (items, held) = feed(what, c, stream, chunk);
                let items = items.into_iter().map(|i| i.into_incoming().unwrap());
                (items.collect(), held)
            }
        }
    }
}

#[test]
fn a_large_frame_in_small_reads_is_scanned_in_linear_time() {
    let msg = notification(BIG);
    for (what, stream, codec) in framings(&msg, 2 * BIG) {
        let (items, _) = codec.feed(what, &stream, 64);
        assert_eq!(items.len(), 1, "{what}");
        let Incoming::Message(got) = &items[0] else {
            panic!("{what}: {:?}", items[0])
        };
        assert_eq!(got.frame(), &msg[..], "{what}");
    }
}

#[test]
fn a_read_of_many_frames_is_scanned_in_linear_time() {
    let msg = notification(16);
    let count = BIG / 64;
    for (what, frame, codec) in framings(&msg, 1024) {
        let stream = frame.repeat(count);
        let (items, _) = codec.feed(what, &stream, stream.len());
        assert_eq!(items.len(), count, "{what}");
        assert!(
            items.iter().all(|i| matches!(i, Incoming::Message(_))),
            "{what}"
        );
    }
}

/// An over-long frame is one item, and its bytes are dropped as they come: the read buffer
/// never holds more than the frame limit and one read (and nothing of a `Content-Length`
/// body, whose length is known). The message after it comes whole.
#[test]
fn an_over_long_frame_is_discarded_as_it_arrives() {
    const MAX: usize = 1024;
    const READ: usize = 64;
    let (long, short) = (notification(BIG), notification(16));
    for ((what, long, codec), (_, short, _)) in
        framings(&long, MAX).into_iter().zip(framings(&short, MAX))
    {
        let stream = [long, short].concat();
        let (items, held) = codec.feed(what, &stream, READ);
        assert!(
            matches!(items[..], [Incoming::TooLong { .. }, Incoming::Message(_)]),
            "{what}: {items:?}"
        );
        assert!(held <= MAX + 2 * READ, "{what}: held {held}");
    }
}

/// The same through a `FramedRead` on a pipe, which reads what arrives: one item for the
/// over-long line, then the stream goes on (it is no `Err`, which would end it).
#[tokio::test]
async fn through_framed_read_an_over_long_line_does_not_end_the_stream() {
    let (mut writer, reader) = tokio::io::duplex(256);
    let stream = [
        notification(1 << 16),
        b"\n".to_vec(),
        notification(8),
        b"\n".to_vec(),
    ]
    .concat();
    let write =
        tokio::spawn(
            async move { tokio::io::AsyncWriteExt::write_all(&mut writer, &stream).await },
        );
    let mut frames = FramedRead::new(reader, LineCodec::new(Decoder::mcp(), 1024));
    assert!(matches!(
        frames.next().await,
        Some(Ok(Incoming::TooLong { offset: 0, .. }))
    ));
    assert!(matches!(
        frames.next().await,
        Some(Ok(Incoming::Message(_)))
    ));
    assert!(frames.next().await.is_none());
    write.await.unwrap().unwrap();
    assert!(frames.read_buffer().capacity() < 1 << 16);
}

/// Reads `stream` through a `FramedRead` on `codec` (in reads of at most 64 KiB, a pipe's):
/// its items, each dropped as it comes, and the capacity of the read buffer once every item is
/// read.
async fn read_buffer_after<C>(codec: C, stream: Vec<u8>) -> (usize, usize)
where
    C: tokio_util::codec::Decoder<Error = std::io::Error> + Unpin,
{
    let (mut writer, reader) = tokio::io::duplex(64 << 10);
    let write =
        tokio::spawn(
            async move { tokio::io::AsyncWriteExt::write_all(&mut writer, &stream).await },
        );
    let mut frames = FramedRead::new(reader, codec);
    let mut items = 0;
    while let Some(item) = frames.next().await {
        item.unwrap();
        items += 1;
    }
    write.await.unwrap().unwrap();
    (items, frames.read_buffer().capacity())
}

/// A large frame grows the read buffer of its `FramedRead`, which tokio-util never shrinks;
/// once the frame is cut out (and the application is done with it), the codec gives that
/// room back, so that a long-lived connection does not hold the largest frame it ever read.
/// The frames after it are read as ever.
#[tokio::test]
async fn a_large_frame_does_not_keep_the_read_buffer() {
    let (large, small) = (notification(4 << 20), notification(16));
    for ((what, large, codec), (_, small, _)) in framings(&large, 8 << 20)
        .into_iter()
        .zip(framings(&small, 8 << 20))
    {
        let stream = [large, small.clone(), small].concat();
        let (items, capacity) = match codec {
            Codec::Line(c) => read_buffer_after(c, stream).await,
            Codec::Sse(c) => read_buffer_after(c, stream).await,
            Codec::ContentLength(c) => read_buffer_after(c, stream).await,
        };
        assert_eq!(items, 3, "{what}");
        assert!(capacity <= rpcwire::REUSE_KEEP, "{what}: {capacity}");
    }
}

/// The write buffer of a `FramedWrite` after `large` then `small` were sent through it.
async fn write_buffer_after<E, T>(encoder: E, large: T, small: T) -> usize
where
    E: tokio_util::codec::Encoder<T, Error = std::io::Error>,
{
    let mut sink = FramedWrite::new(tokio::io::sink(), encoder);
    sink.send(large).await.unwrap();
    sink.send(small).await.unwrap();
    sink.write_buffer().capacity()
}

/// A large message grows the write buffer of its `FramedWrite`, which tokio-util never
/// shrinks; the encoder gives that room back at the next message, so that a long-lived
/// connection does not hold the largest message it ever wrote.
#[tokio::test]
async fn a_large_message_does_not_keep_the_write_buffer() {
    let large = Bytes::from(notification(4 << 20));
    let small = Bytes::from(notification(16));
    let capacities = [
        (
            "line",
            write_buffer_after(LineEncoder, large.clone(), small.clone()).await,
        ),
        (
            "sse",
            write_buffer_after(SseEncoder::new(), large.clone(), small.clone()).await,
        ),
        (
            "content-length",
            write_buffer_after(ContentLengthEncoder::new(), large, small).await,
        ),
    ];
    for (what, capacity) in capacities {
        assert!(capacity <= rpcwire::REUSE_KEEP, "{what}: {capacity}");
    }
}

/// A read buffer given back between two frames (after a large frame, an over-long one
/// discarded, a rejected one) holds what was left of it, where the framer's search goes on:
/// a stream read in pieces of any size, large enough or not to grow the buffer, gives the
/// items it gives read whole.
#[test]
fn a_read_buffer_given_back_mid_stream_loses_nothing() {
    const MAX: usize = 150 << 10;
    let messages = [
        notification(16),
        notification(100 << 10),
        b"not json".to_vec(),
        notification(200 << 10),
        notification(70 << 10),
        notification(16),
    ];
    let framed = |codec: usize| {
        let mut stream = vec![];
        for msg in &messages {
            let (_, bytes, _) = framings(msg, MAX).into_iter().nth(codec).unwrap();
            stream.extend_from_slice(&bytes);
        }
        stream
    };
    for codec in 0..3 {
        let stream = framed(codec);
        let (what, _, whole) = framings(b"", MAX).into_iter().nth(codec).unwrap();
        let (expected, _) = whole.feed(what, &stream, stream.len());
        assert_eq!(expected.len(), messages.len(), "{what}");
        for chunk in [1, 7, 4096, 65_537] {
            let (_, _, fresh) = framings(b"", MAX).into_iter().nth(codec).unwrap();
            let (items, _) = fresh.feed(what, &stream, chunk);
            assert!(items == expected, "{what} in reads of {chunk}");
        }
    }
}

/// Large frames one after another: once one is cut out, the read buffer holding the start of
/// the next keeps its room, so that it is not grown again, copied as it doubles, for every
/// frame. (It is given back once all it held was read.)
#[test]
fn a_read_buffer_holding_the_next_large_frame_keeps_its_room() {
    use tokio_util::codec::Decoder as _;
    let large = notification(300 << 10);
    for (what, frame, codec) in framings(&large, 1 << 20) {
        let mut buf = BytesMut::with_capacity(1 << 20);
        buf.extend_from_slice(&frame);
        buf.extend_from_slice(&frame[..1000]);
        let item = match codec {
            Codec::Line(mut c) => c.decode(&mut buf).unwrap(),
            Codec::ContentLength(mut c) => c.decode(&mut buf).unwrap(),
            Codec::Sse(mut c) => c.decode(&mut buf).unwrap().and_then(SseItem::into_incoming),
        };
        assert!(matches!(item, Some(Incoming::Message(_))), "{what}");
        assert_eq!(buf.len(), 1000, "{what}");
        assert!(
            buf.capacity() > rpcwire::REUSE_KEEP,
            "{what}: {}",
            buf.capacity()
        );
    }
}

/// The frame of the message an item of any codec carries.
fn frame_of(item: Incoming) -> Bytes {
    match item {
        Incoming::Message(msg) => Bytes::copy_from_slice(msg.frame()),
        other => panic!("not a message: {other:?}"),
    }
}

/// Echoes each message a `Framed` on `codec` reads back through the same `Framed` (its read
/// and write buffers given back in turn), over a pipe narrower than the large messages, and
/// gives what the other end read.
async fn echoed<C, I>(
    codec: C,
    peer: C,
    messages: Vec<Bytes>,
    item: fn(I) -> Incoming,
) -> Vec<Bytes>
where
    C: tokio_util::codec::Decoder<Item = I, Error = std::io::Error>
        + tokio_util::codec::Encoder<Bytes, Error = std::io::Error>
        + Send
        + Unpin
        + 'static,
    I: Send + 'static,
{
    let (client, server) = tokio::io::duplex(4 << 10);
    let echo = tokio::spawn(async move {
        let mut framed = Framed::new(server, codec);
        while let Some(read) = framed.next().await {
            framed.send(frame_of(item(read.unwrap()))).await.unwrap();
        }
    });
    let (mut sink, mut stream) = Framed::new(client, peer).split();
    let count = messages.len();
    let send = tokio::spawn(async move {
        for msg in messages {
            sink.feed(msg).await.unwrap();
        }
        sink.close().await.unwrap();
    });
    let mut got = vec![];
    while got.len() < count {
        got.push(frame_of(item(stream.next().await.unwrap().unwrap())));
    }
    send.await.unwrap();
    drop(stream);
    echo.await.unwrap();
    got
}

/// Large and small messages in turn, through a `Framed` that reads and writes on one codec
/// (both its buffers grown past 64 KiB and given back, over and over, with parts of messages
/// still in them): every message comes back whole, in order, through each codec.
#[tokio::test]
async fn a_framed_codec_giving_back_both_buffers_keeps_every_byte_in_order() {
    let messages: Vec<Bytes> = [
        16,
        200 << 10,
        16,
        16,
        70 << 10,
        100 << 10,
        16,
        300 << 10,
        16,
    ]
    .into_iter()
    .enumerate()
    .map(|(i, len)| {
        let mut msg = notification(len);
        msg[len / 2 + 40] = b'a' + i as u8;
        Bytes::from(msg)
    })
    .collect();
    let max = 1 << 20;
    let line = echoed(
        LineCodec::new(Decoder::mcp(), max),
        LineCodec::new(Decoder::mcp(), max),
        messages.clone(),
        |i| i,
    );
    assert!(line.await == messages, "line");
    let sse = echoed(
        SseCodec::new(Decoder::mcp(), max),
        SseCodec::new(Decoder::mcp(), max),
        messages.clone(),
        |i: SseItem| i.into_incoming().unwrap(),
    );
    assert!(sse.await == messages, "sse");
    let lsp = echoed(
        ContentLengthCodec::new(Decoder::mcp(), max),
        ContentLengthCodec::new(Decoder::mcp(), max),
        messages.clone(),
        |i| i,
    );
    assert!(lsp.await == messages, "content-length");
}

/// A `FramedWrite` whose backpressure boundary is set past 64 KiB gathers small messages into
/// one write, its buffer growing to hold them; as the module docs say, that room is given back
/// at the first message after each write (and grown again by the next ones).
#[tokio::test]
async fn a_backpressure_boundary_past_64_kib_has_the_write_buffer_given_back_after_each_write() {
    let boundary = 256 << 10;
    let mut sink = FramedWrite::new(tokio::io::sink(), LineEncoder);
    sink.set_backpressure_boundary(boundary);
    let msg = Bytes::from(notification(64));
    let mut largest = 0;
    while sink.write_buffer().len() < boundary {
        sink.feed(msg.clone()).await.unwrap();
        largest = largest.max(sink.write_buffer().capacity());
    }
    assert!(largest >= boundary, "{largest}");
    // The boundary reached, this one is written after the others are.
    sink.feed(msg.clone()).await.unwrap();
    assert_eq!(sink.write_buffer().len(), msg.len() + 1);
    let capacity = sink.write_buffer().capacity();
    assert!(capacity <= rpcwire::REUSE_KEEP, "{capacity}");
}

/// A write buffer whose allocation another handle still shares (a message split off it and
/// frozen, being sent by the caller): with room just past 64 KiB, a small message written
/// into it leaves it holding more than `REUSE_KEEP`, which its capacity tells (`try_reclaim`,
/// asked for 64 KiB more than it holds, would try to reclaim the shared allocation, and
/// cannot), so it is given back; with room of exactly 64 KiB it is kept, as `REUSE_KEEP` is.
#[test]
fn a_write_buffer_just_past_reuse_keep_sharing_its_allocation_is_given_back() {
    use tokio_util::codec::Encoder as _;
    let small = Bytes::from_static(b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
    let before = b"{\"jsonrpc\":\"2.0\",\"method\":\"sent\"}\n";
    for (room, given_back) in [
        (rpcwire::REUSE_KEEP + 16, true),
        (rpcwire::REUSE_KEEP, false),
    ] {
        for what in ["line", "sse", "content-length"] {
            let mut dst = BytesMut::with_capacity(before.len() + room);
            dst.extend_from_slice(before);
            let sent = dst.split().freeze();
            assert_eq!(dst.capacity(), room, "{what}");
            match what {
                "line" => LineEncoder.encode(small.clone(), &mut dst),
                "sse" => SseEncoder::new().encode(small.clone(), &mut dst),
                _ => ContentLengthEncoder::new().encode(small.clone(), &mut dst),
            }
            .unwrap();
            let written = String::from_utf8_lossy(&dst);
            assert!(
                written.contains(r#"{"jsonrpc":"2.0","method":"n"}"#),
                "{what}: {written}"
            );
            let kept = if given_back { 8 << 10 } else { room };
            assert_eq!(dst.capacity(), kept, "{what} in {room} bytes");
            assert_eq!(&sent[..], &before[..]);
        }
    }
}
