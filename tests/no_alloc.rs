//! Decoding allocates nothing: every frame of every benchmark corpus (and of its variants in
//! other member orders and spacing), lazy and strict, small messages read and written
//! through each tokio codec, and what the MCP readers of a client read of a 2026-07-28
//! server's messages, with a counting global allocator (counted per thread, so
//! parallel tests do not interfere).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use rpcwire::mcp::{CacheHint, DiscoverResult, LogLevel, log_message_level, versions};
use rpcwire::{DecodeOptions, Decoder, Lines, Message, Validation};

#[path = "../benches/corpus.rs"]
mod corpus;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counter is a
// thread-local `Cell` that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn decoding_the_corpora_allocates_nothing() {
    // With the tiny and typical frames also in the other SDKs' member orders and spaced as
    // Python writes JSON: the other straight paths.
    let mut corpora = corpus::all();
    corpora.push(corpus::error_responses());
    for c in [corpus::tiny(), corpus::typical()] {
        corpora.push(corpus::sdk_order(&c, "TS SDK order"));
        corpora.push(corpus::java_order(&c, "Java SDK order"));
        corpora.push(corpus::kotlin_order(&c, "Kotlin SDK order"));
        corpora.push(corpus::csharp_order(&c, "C# SDK order"));
        corpora.push(corpus::spaced(&c, "spaced"));
    }
    let lazy = Decoder::mcp();
    let strict = Decoder::new(DecodeOptions {
        validation: Validation::Strict,
        ..DecodeOptions::default()
    });
    // Warm up lazily initialised state (CPU feature detection) before counting.
    let _ = lazy.decode(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":[1]}}");
    for c in &corpora {
        let before = ALLOCATIONS.with(Cell::get);
        let (mut n, mut decoded) = (0, 0);
        for frame in Lines::new(&c.stream, 16 << 20) {
            let (_, frame) = frame.unwrap();
            for dec in [&lazy, &strict] {
                let msg = dec.decode(frame).expect("corpus frames are valid");
                n += msg.kind() as usize;
                decoded += 1;
            }
        }
        // The whole stream at once (long lines in one pass).
        for dec in [&lazy, &strict] {
            for line in dec.decode_lines(&c.stream) {
                let msg = line.unwrap().message;
                n += msg.expect("corpus frames are valid").kind() as usize;
                decoded += 1;
            }
        }
        let after = ALLOCATIONS.with(Cell::get);
        // Every frame, by each decoder, both ways: an empty corpus would prove nothing.
        assert!(c.messages > 0, "{}: no frames", c.name);
        assert_eq!(decoded, 4 * c.messages, "{}", c.name);
        assert_eq!(
            after - before,
            0,
            "{}: {} allocations ({n})",
            c.name,
            after - before
        );
    }
}

/// Error responses, in each member order the straight paths take and spaced, and those
/// only the general walk reads (no id, members reordered), allocate nothing either.
#[test]
fn decoding_error_responses_allocates_nothing() {
    let frames = [
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":"x/y"}}"#,
        r#"{"error":{"code":-32602,"message":"Invalid params"},"jsonrpc":"2.0","id":"a"}"#,
        r#"{"id":0,"error":{"code":-1,"message":"m"},"jsonrpc":"2.0"}"#,
        r#"{"error":{"code":-1,"message":"m","data":{}},"id":-4,"jsonrpc":"2.0"}"#,
        r#"{"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "Internal error"}}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"error":{"message":"m","data":[1,{}],"code":5}}"#,
    ];
    let lazy = Decoder::mcp();
    let strict = Decoder::new(DecodeOptions {
        validation: Validation::Strict,
        ..DecodeOptions::default()
    });
    let _ = lazy.decode(frames[0].as_bytes());
    let before = ALLOCATIONS.with(Cell::get);
    let mut n = 0;
    for frame in frames {
        for dec in [&lazy, &strict] {
            let msg = dec.decode(frame.as_bytes()).expect("valid error responses");
            n += msg.kind() as usize;
        }
    }
    let after = ALLOCATIONS.with(Cell::get);
    assert_eq!(after - before, 0, "{} allocations ({n})", after - before);
}

/// A JSON-RPC batch's elements are decoded one at a time, collecting nothing: a batch of
/// 100,000 elements (valid requests and invalid `1`s) allocates nothing, where a vector of
/// its outcomes would take about 36 times the frame.
#[test]
fn decoding_a_batch_allocates_nothing_whatever_its_size() {
    use rpcwire::{Message, batch::expects_reply};
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let elements: Vec<&str> = (0..100_000)
        .map(|i| if i % 2 == 0 { request } else { "1" })
        .collect();
    let frame = format!("[{}]", elements.join(","));
    let decoder = Decoder::jsonrpc();
    let _ = decoder.decode(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":[1]}}");
    let before = ALLOCATIONS.with(Cell::get);
    let Ok(Message::Batch(batch)) = decoder.decode(frame.as_bytes()) else {
        panic!("a batch")
    };
    let (mut valid, mut invalid) = (0, 0);
    for element in batch.decode(&decoder) {
        match element {
            Ok(_) => valid += 1,
            Err(_) => invalid += 1,
        }
    }
    assert!(expects_reply(batch.decode(&decoder)));
    let after = ALLOCATIONS.with(Cell::get);
    assert_eq!((valid, invalid), (50_000, 50_000));
    assert_eq!(after - before, 0, "{} allocations", after - before);
}

/// Reads `first.0` and writes `first.1` through `codec`, then `frame` and `message` `rounds`
/// times, one frame a read and one message a write, as a `FramedRead` and a `FramedWrite` do
/// (the read buffer and the write buffer start at their 8 KiB; the write buffer is written
/// out, `advance`d, after each message; every item is dropped before the next read): the
/// allocations those rounds take.
#[cfg(feature = "tokio")]
fn allocations_reading_and_writing<C>(
    mut codec: C,
    first: (&[u8], bytes::Bytes),
    frame: &[u8],
    message: bytes::Bytes,
    rounds: usize,
) -> usize
where
    C: tokio_util::codec::Decoder<Error = std::io::Error>
        + tokio_util::codec::Encoder<bytes::Bytes, Error = std::io::Error>,
{
    use bytes::{Buf, BytesMut};
    let mut read = BytesMut::with_capacity(8 << 10);
    let mut write = BytesMut::with_capacity(8 << 10);
    let mut round =
        |read: &mut BytesMut, write: &mut BytesMut, frame: &[u8], message: bytes::Bytes| {
            read.extend_from_slice(frame);
            let item = codec.decode(read).unwrap();
            assert!(item.is_some() && read.is_empty());
            drop(item);
            codec.encode(message.clone(), write).unwrap();
            assert!(write.len() >= message.len());
            write.advance(write.len());
        };
    round(&mut read, &mut write, first.0, first.1);
    // The first small rounds make the read buffer shared (the first frame cut out of it) and
    // take the room of any buffer a large first round grew.
    for _ in 0..4 {
        round(&mut read, &mut write, frame, message.clone());
    }
    let before = ALLOCATIONS.with(Cell::get);
    for _ in 0..rounds {
        round(&mut read, &mut write, frame, message.clone());
    }
    ALLOCATIONS.with(Cell::get) - before
}

/// The allocations of 1,000 rounds of 64-byte messages through each codec
/// ([`allocations_reading_and_writing`]), after a first message of `first_len` bytes.
#[cfg(feature = "tokio")]
fn small_message_allocations(first_len: usize) -> [(&'static str, usize); 3] {
    use bytes::Bytes;
    use rpcwire::codec::{ContentLengthCodec, LineCodec, SseCodec};

    let msg = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{ }}"#;
    assert_eq!(msg.len(), 64);
    let first = format!(
        r#"{{"jsonrpc":"2.0","method":"n","params":{{"s":"{}"}}}}"#,
        "x".repeat(first_len.saturating_sub(48))
    );
    let framings = |msg: &[u8]| {
        [
            [msg, b"\n"].concat(),
            [&b"data: "[..], msg, b"\n\n"].concat(),
            [
                format!("Content-Length: {}\r\n\r\n", msg.len()).as_bytes(),
                msg,
            ]
            .concat(),
        ]
    };
    let [line, event, body] = framings(msg);
    let [first_line, first_event, first_body] = framings(first.as_bytes());
    let (message, first) = (Bytes::from_static(msg), Bytes::from(first));
    let _ = Decoder::mcp().decode(msg);
    let max = 1 << 20;
    [
        (
            "line",
            allocations_reading_and_writing(
                LineCodec::new(Decoder::mcp(), max),
                (&first_line, first.clone()),
                &line,
                message.clone(),
                1000,
            ),
        ),
        (
            "sse",
            allocations_reading_and_writing(
                SseCodec::new(Decoder::mcp(), max),
                (&first_event, first.clone()),
                &event,
                message.clone(),
                1000,
            ),
        ),
        (
            "content-length",
            allocations_reading_and_writing(
                ContentLengthCodec::new(Decoder::mcp(), max),
                (&first_body, first),
                &body,
                message,
                1000,
            ),
        ),
    ]
}

/// Small messages (64 bytes) read and written through each codec, one at a time, as over a
/// `FramedRead` and a `FramedWrite` on a quiet connection (every read holds one frame, every
/// write is written out): no allocation, whether the buffers' room is given back or not.
/// 1,000 rounds each, more than the 8 KiB buffers hold, so that both buffers run out of room
/// past their bytes and reclaim the room in front of them.
#[cfg(feature = "tokio")]
#[test]
fn small_messages_through_the_codecs_allocate_nothing() {
    for (what, count) in small_message_allocations(64) {
        assert_eq!(count, 0, "{what}: {count} allocations in 1,000 rounds");
    }
}

/// The same after a message of 200 KiB, which grew both buffers past 64 KiB and had them
/// given back: once given back, a buffer is not given back again at every message.
#[cfg(feature = "tokio")]
#[test]
fn small_messages_after_a_large_one_allocate_nothing() {
    for (what, count) in small_message_allocations(200 << 10) {
        assert_eq!(count, 0, "{what}: {count} allocations in 1,000 rounds");
    }
}

/// How many allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// Reading what a 2026-07-28 server sends allocates nothing: a `server/discover` result
/// (`DiscoverResult`, its versions and the version chosen), a cacheable result's hint, and a
/// log message's level.
#[test]
fn reading_a_discover_result_a_cache_hint_and_a_log_level_allocates_nothing() {
    // Escaped names too: decoded as they are compared, not into a copy.
    let discover = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"instructions":"Use \"t\".","ttlMs":60000,"cacheScope":"publ\u0069c","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
    let log = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"w\u0061rning","data":"x"}}"#;
    let decoder = Decoder::mcp_client();
    // Warm up lazily initialised state (CPU feature detection) before counting.
    let _ = decoder.decode(discover);
    let mut seen = None;
    let count = allocations(|| {
        let Ok(Message::Response(r)) = decoder.decode(discover) else {
            panic!("not a response")
        };
        let read = DiscoverResult::from_result(r.result).unwrap();
        let chosen = read.choose(&[versions::V2025_11_25, versions::V2026_07_28]);
        let offered = read.supported_versions().count();
        let hint = CacheHint::from_result(r.result);
        let Ok(Message::Notification(n)) = decoder.decode(log) else {
            panic!("not a notification")
        };
        seen = Some((
            chosen,
            offered,
            hint == Some(read.cache),
            log_message_level(&n),
        ));
    });
    assert_eq!(
        seen,
        Some((
            Some(versions::V2026_07_28),
            2,
            true,
            Some(LogLevel::Warning)
        ))
    );
    assert_eq!(count, 0);
}
