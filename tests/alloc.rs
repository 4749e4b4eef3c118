//! Zero heap allocations per message: framing and decoding the recorded MCP session (both
//! directions) allocates nothing once the read buffer exists and has been split once.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::BytesMut;
use rpcwire::{DecodeOptions, Decoder, Dialect, LineFramer, Role, Validation};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards its arguments unchanged to the system allocator; the
// counter has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count_session(file: &str, role: Role, validation: Validation) -> (usize, usize) {
    let capture =
        std::fs::read(format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let decoder = Decoder::new(DecodeOptions {
        role,
        validation,
        ..DecodeOptions::new(Dialect::Mcp)
    });
    let mut buf = BytesMut::with_capacity(capture.len() * 101);
    for _ in 0..101 {
        buf.extend_from_slice(&capture);
    }
    let mut framer = LineFramer::new(1 << 20);
    // Warm-up: the first split turns the buffer into a shared one (one allocation).
    let first = framer.decode(&mut buf).unwrap().unwrap();
    assert!(decoder.decode(&first).is_ok());
    drop(first);

    let before = ALLOCS.load(Ordering::Relaxed);
    let mut messages = 0;
    while let Some(frame) = framer.decode(&mut buf).unwrap() {
        let msg = decoder.decode(&frame).expect("the capture is valid");
        // Touch the lazily decoded parts the way a proxy would.
        std::hint::black_box((
            msg.id(),
            msg.method().map(|m| m.eq_str("tools/call")),
            msg.params(),
        ));
        messages += 1;
    }
    (ALLOCS.load(Ordering::Relaxed) - before, messages)
}

#[test]
fn zero_allocations_per_message() {
    for validation in [Validation::Lazy, Validation::Strict] {
        let (allocs, n) = count_session("capture-c2s.ndjson", Role::Server, validation);
        assert_eq!(n, 14 * 101 - 1);
        assert_eq!(
            allocs, 0,
            "c2s {validation:?}: {allocs} allocations for {n} messages"
        );
        let (allocs, n) = count_session("capture-s2c.ndjson", Role::Client, validation);
        assert_eq!(n, 13 * 101 - 1);
        assert_eq!(
            allocs, 0,
            "s2c {validation:?}: {allocs} allocations for {n} messages"
        );
    }
}
