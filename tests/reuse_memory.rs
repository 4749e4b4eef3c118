//! What the crate's reused buffers keep between messages: after one large message, a
//! long-lived connection does not go on holding memory of that size (the bound is
//! [`rpcwire::REUSE_KEEP`]). `SseFramer`'s are checked in `tests/sse_memory.rs`. Alone in its
//! test binary, whose allocator counts the bytes each thread holds.

mod held_bytes;

#[cfg(feature = "serde")]
use held_bytes::held;

#[global_allocator]
static GLOBAL: held_bytes::HeldBytes = held_bytes::HeldBytes;

/// What a new `typed::Scratch` holds more once it has read each of `values` (as `T`, which
/// `check` is given with the value's index) and they are dropped: what it keeps for reuse.
#[cfg(feature = "serde")]
fn held_by_scratch_after<T: serde::de::DeserializeOwned>(
    values: &[&[u8]],
    check: impl Fn(usize, &T),
) -> isize {
    let mut scratch = rpcwire::typed::Scratch::new();
    let before = held();
    for (i, value) in values.iter().enumerate() {
        let read: T = scratch
            .deserialize(rpcwire::RawJson::new(value).unwrap())
            .unwrap();
        check(i, &read);
    }
    held() - before
}

#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct Items {
    items: Vec<u8>,
}

#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct Text {
    text: String,
}

/// A value of 1 MiB (524,289 numbers), then a small one: the scratch holds less than 64 KiB
/// more than it did new (it held the large value's copy and simd-json's buffers for it,
/// several times its size, for as long as it was used).
#[cfg(feature = "serde")]
#[test]
fn a_large_value_is_not_held_by_the_typed_scratch() {
    let large = format!(r#"{{"items":[{}1]}}"#, "1,".repeat(1 << 19));
    let kept = held_by_scratch_after(
        &[large.as_bytes(), br#"{"items":[1,2]}"#],
        |i, read: &Items| assert_eq!(read.items.len(), [(1 << 19) + 1, 2][i]),
    );
    assert!(kept < 64 << 10, "the scratch holds {kept} bytes more");
}

/// Each way a value grows the scratch area past `REUSE_KEEP` gives its buffers back: a long
/// value with few structural characters (a 1 MiB string: its copies), and a short one with
/// many (48 KiB of 24,577 numbers and their commas, each indexed in 4 bytes). After it and a
/// small value, the scratch holds less than 64 KiB more than it did new.
#[cfg(feature = "serde")]
#[test]
fn a_long_value_and_one_of_many_items_are_not_held_by_the_typed_scratch() {
    let long = format!(r#"{{"text":"{}"}}"#, "x".repeat(1 << 20));
    let kept = held_by_scratch_after(&[long.as_bytes(), br#"{"text":"x"}"#], |i, read: &Text| {
        assert_eq!(read.text.len(), [1 << 20, 1][i])
    });
    assert!(
        kept < 64 << 10,
        "the scratch holds {kept} bytes more after a long string"
    );

    let many = format!(r#"{{"items":[{}1]}}"#, "1,".repeat(24 << 10));
    assert!(many.len() < rpcwire::REUSE_KEEP);
    let kept = held_by_scratch_after(
        &[many.as_bytes(), br#"{"items":[1,2]}"#],
        |i, read: &Items| assert_eq!(read.items.len(), [(24 << 10) + 1, 2][i]),
    );
    assert!(
        kept < 64 << 10,
        "the scratch holds {kept} bytes more after many items"
    );
}

/// A value of 60 KiB, then one of 63 KiB, each within 64 KiB: the scratch area holds less than
/// the 256 KiB its docs bound it by (its copy and simd-json's string buffer, which grow by
/// doubling, kept twice the larger value's room each).
#[cfg(feature = "serde")]
#[test]
fn values_within_64_kib_that_double_the_typed_scratch_are_not_held() {
    let lens = [60 << 10, 63 << 10];
    let values = lens.map(|len| format!("\"{}\"", "x".repeat(len)));
    let kept = held_by_scratch_after(
        &[values[0].as_bytes(), values[1].as_bytes()],
        |i, read: &String| assert_eq!(read.len(), lens[i]),
    );
    assert!(kept < 256 << 10, "the scratch holds {kept} bytes more");
}

/// A 1 MiB message, then a small one, written by each framing encoder from an `Outgoing` (which
/// it encodes into a scratch buffer of its own first): the encoder holds less than 64 KiB more
/// than it did new, once the output is dropped.
#[cfg(feature = "tokio")]
#[test]
fn a_large_message_is_not_held_by_the_framing_encoders() {
    use rpcwire::codec::{ContentLengthEncoder, Outgoing, SseEncoder};
    use rpcwire::{Id, RawJson};

    let text = format!("\"{}\"", "x".repeat(1 << 20));
    let id = Id::from_token(b"1").unwrap();
    let large = Outgoing::Response {
        id,
        result: RawJson::new(text.as_bytes()).unwrap(),
    };
    let small = Outgoing::Response {
        id,
        result: RawJson::EMPTY_OBJECT,
    };
    let sse = kept_by_encoder(SseEncoder::new(), [large, small]);
    assert!(sse < 64 << 10, "the SSE encoder holds {sse} bytes");
    let lsp = kept_by_encoder(ContentLengthEncoder::new(), [large, small]);
    assert!(
        lsp < 64 << 10,
        "the Content-Length encoder holds {lsp} bytes"
    );
}

/// A message whose encoding grows a new buffer to exactly 64 KiB (`REUSE_KEEP`), then a small
/// one, written by each framing encoder from an `Outgoing`: its scratch buffer is within the
/// bound (the docs: "at most `REUSE_KEEP` of it between messages"), so the encoder keeps it
/// for the next message and holds at least 64 KiB more than it did new. The large-message
/// test gives back a buffer far past the bound; none put one on it, where it could go too.
#[cfg(feature = "tokio")]
#[test]
fn a_framing_encoder_keeps_a_scratch_buffer_of_exactly_64_kib() {
    use bytes::BytesMut;
    use rpcwire::codec::{ContentLengthEncoder, Outgoing, SseEncoder};
    use rpcwire::{Id, RawJson};

    let keep = rpcwire::REUSE_KEEP;
    let id = Id::from_token(b"1").unwrap();
    // The string result whose response, written into a new buffer as the encoders write it
    // into their scratch, leaves that buffer exactly `keep` bytes large (how a buffer grows is
    // the `bytes` crate's: searched, not assumed).
    let grows_to_keep = |len: usize| {
        let text = format!("\"{}\"", "x".repeat(len));
        let mut out = BytesMut::new();
        Outgoing::Response {
            id,
            result: RawJson::new(text.as_bytes()).unwrap(),
        }
        .write(&mut out);
        (out.capacity() == keep).then_some(text)
    };
    let text = (keep / 2 - 256..keep / 2)
        .chain(keep - 256..keep)
        .find_map(grows_to_keep)
        .expect("a response that grows a new buffer to exactly REUSE_KEEP");
    let messages = [
        Outgoing::Response {
            id,
            result: RawJson::new(text.as_bytes()).unwrap(),
        },
        Outgoing::Response {
            id,
            result: RawJson::EMPTY_OBJECT,
        },
    ];
    let sse = kept_by_encoder(SseEncoder::new(), messages);
    assert!(sse >= keep as isize, "the SSE encoder holds {sse} bytes");
    let lsp = kept_by_encoder(ContentLengthEncoder::new(), messages);
    assert!(
        lsp >= keep as isize,
        "the Content-Length encoder holds {lsp} bytes"
    );
}

/// The bytes `encoder` still holds once it wrote `messages` (each into a buffer of its own),
/// and once it is dropped none.
#[cfg(feature = "tokio")]
fn kept_by_encoder<E>(mut encoder: E, messages: [rpcwire::codec::Outgoing<'_>; 2]) -> isize
where
    E: for<'a> tokio_util::codec::Encoder<rpcwire::codec::Outgoing<'a>, Error = std::io::Error>,
{
    let before = held();
    for msg in messages {
        let mut out = bytes::BytesMut::new();
        encoder.encode(msg, &mut out).unwrap();
        assert!(out.len() > 20);
    }
    let kept = held() - before;
    drop(encoder);
    kept
}

/// The three codecs' read side, for the tests of the read buffer they give back.
#[cfg(feature = "tokio")]
mod codec_reads {
    use bytes::BytesMut;
    use rpcwire::Decoder;
    use rpcwire::codec::{ContentLengthCodec, Incoming, LineCodec, SseCodec};
    use tokio_util::codec::Decoder as _;

    /// A notification of `len` bytes of text.
    pub fn note(len: usize) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"n","params":{{"s":"{}"}}}}"#,
            "x".repeat(len)
        )
    }

    /// Each codec's name, and its framing of a message.
    pub type Framing = fn(&str) -> String;
    pub const FRAMINGS: [(&str, Framing); 3] = [
        ("line", |m| format!("{m}\n")),
        ("sse", |m| format!("data: {m}\n\n")),
        ("content-length", |m| {
            format!("Content-Length: {}\r\n\r\n{m}", m.len())
        }),
    ];

    /// A read buffer of one allocation of `capacity` bytes (no more) holding `frames`.
    pub fn filled(capacity: usize, frames: &[&str]) -> BytesMut {
        let mut buf = BytesMut::with_capacity(capacity);
        for frame in frames {
            buf.extend_from_slice(frame.as_bytes());
        }
        assert!(buf.capacity() <= capacity);
        buf
    }

    /// The next item a codec reads from its read buffer.
    pub type Next = Box<dyn FnMut(&mut BytesMut) -> std::io::Result<Option<Incoming>>>;

    /// The codec named `what` of [`FRAMINGS`], frames limited to `max`, reading messages.
    pub fn reader(what: &str, max: usize) -> Next {
        match what {
            "line" => {
                let mut codec = LineCodec::new(Decoder::mcp(), max);
                Box::new(move |buf| codec.decode(buf))
            }
            "sse" => {
                let mut codec = SseCodec::new(Decoder::mcp(), max);
                Box::new(move |buf| {
                    let item = codec.decode(buf)?;
                    Ok(item.and_then(|item| item.into_incoming()))
                })
            }
            _ => {
                let mut codec = ContentLengthCodec::new(Decoder::mcp(), max);
                Box::new(move |buf| codec.decode(buf))
            }
        }
    }
}

/// A large frame that fills its read buffer's allocation exactly (as a read of just its bytes
/// does), read by each codec: the buffer, left with no capacity but still holding that
/// allocation, holds less than 64 KiB once the item is dropped, where it held the frame's size.
#[cfg(feature = "tokio")]
#[test]
fn a_large_frame_that_filled_its_read_buffer_is_not_held_by_it() {
    use bytes::BytesMut;
    use codec_reads::{FRAMINGS, note, reader};

    let msg = note(1 << 20);
    for (what, framing) in FRAMINGS {
        let frame = framing(&msg);
        let mut buf = BytesMut::from(frame.as_bytes());
        let before = held();
        let read = reader(what, 2 << 20)(&mut buf).map(|item| item.is_some());
        assert!(read.unwrap(), "{what}");
        assert!(buf.is_empty(), "{what}");
        let kept = held() - before + frame.len() as isize;
        assert!(
            kept < 64 << 10,
            "{what}: the read buffer holds {kept} bytes"
        );
    }
}

/// A write buffer that a sink has written out leaves, past its last byte, only what its
/// allocation had to spare: a large message that all but filled it leaves it a small capacity
/// in front of a large allocation. A small message written into it by each encoder fits that
/// capacity; the buffer holds less than 64 KiB once it is written, where it held the large
/// message's allocation.
#[cfg(feature = "tokio")]
#[test]
fn a_write_buffer_a_sink_emptied_is_not_held_by_it() {
    use bytes::{Buf, Bytes, BytesMut};
    use rpcwire::codec::{ContentLengthEncoder, LineEncoder, SseEncoder};
    use tokio_util::codec::Encoder as _;

    const ALLOCATION: usize = 1 << 20;
    let small = Bytes::from_static(b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
    for what in ["line", "sse", "content-length"] {
        // The sink's buffer once a large message is written out: its capacity is what the
        // allocation has past the message, 4 KiB.
        let mut dst = BytesMut::with_capacity(ALLOCATION);
        dst.resize(ALLOCATION - (4 << 10), b' ');
        dst.advance(dst.len());
        let before = held();
        match what {
            "line" => LineEncoder.encode(small.clone(), &mut dst),
            "sse" => SseEncoder::new().encode(small.clone(), &mut dst),
            _ => ContentLengthEncoder::new().encode(small.clone(), &mut dst),
        }
        .unwrap();
        assert!(dst.len() < 100, "{what}");
        let kept = held() - before + ALLOCATION as isize;
        assert!(
            kept < 64 << 10,
            "{what}: the write buffer holds {kept} bytes"
        );
    }
}

/// A large frame cut out of a read buffer in the same read as small frames after it, which
/// take more than a `FramedRead`'s first size (8 KiB): the buffer keeps them, and once they
/// too are cut out it holds only a little capacity in front of the large frame's allocation.
/// Once their items are dropped, each codec's buffer holds less than 64 KiB.
#[cfg(feature = "tokio")]
#[test]
fn small_frames_after_a_large_one_leave_the_read_buffer_not_held() {
    use codec_reads::{FRAMINGS, filled, note, reader};
    use rpcwire::codec::Incoming;

    const ALLOCATION: usize = 1 << 20;
    for (what, frame) in FRAMINGS {
        let large = frame(&note(ALLOCATION - (40 << 10)));
        let small = frame(&note(4 << 10)).repeat(5);
        let mut buf = filled(ALLOCATION, &[&large, &small]);
        let mut next = reader(what, 2 * ALLOCATION);
        let before = held();
        let mut items = 0;
        loop {
            match next(&mut buf).unwrap() {
                Some(Incoming::Message(_)) => items += 1,
                None => break,
                Some(other) => panic!("{what}: {other:?}"),
            }
        }
        assert_eq!(items, 6, "{what}");
        assert!(buf.is_empty(), "{what}");
        let kept = held() - before + ALLOCATION as isize;
        assert!(
            kept < 64 << 10,
            "{what}: the read buffer holds {kept} bytes"
        );
    }
}

/// A large frame that ends within 64 KiB of its read buffer's allocation, cut out with a small
/// frame after it in the same read, whose item is still alive (its request being served in a
/// task of its own) when the small frame is cut out and the buffer is left empty, as a
/// `FramedRead` then asks for one more item before it reads again. Once the large item is
/// dropped, the buffer, which no more bytes have come to, holds less than 64 KiB with each
/// codec, where it held the large frame's allocation until the peer sent again.
#[cfg(feature = "tokio")]
#[test]
fn a_large_item_alive_when_its_read_buffer_empties_leaves_it_not_held() {
    use codec_reads::{FRAMINGS, filled, note, reader};
    use rpcwire::codec::Incoming;

    const ALLOCATION: usize = 1 << 20;
    for (what, frame) in FRAMINGS {
        let large = frame(&note(ALLOCATION - (40 << 10)));
        let small = frame(&note(16));
        let mut buf = filled(ALLOCATION, &[&large, &small]);
        let mut next = reader(what, 2 * ALLOCATION);
        let before = held();
        let served = next(&mut buf).unwrap();
        assert!(matches!(served, Some(Incoming::Message(_))), "{what}");
        assert!(!buf.is_empty(), "{what}");
        assert!(
            matches!(next(&mut buf).unwrap(), Some(Incoming::Message(_))),
            "{what}"
        );
        assert!(next(&mut buf).unwrap().is_none(), "{what}");
        assert!(buf.is_empty(), "{what}");
        drop(served);
        let kept = held() - before + ALLOCATION as isize;
        assert!(
            kept < 64 << 10,
            "{what}: the read buffer holds {kept} bytes"
        );
    }
}
