//! Decoding allocates nothing: every frame of every benchmark corpus, lazy and strict, with
//! a counting global allocator (counted per thread, so parallel tests do not interfere).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use rpcwire::{DecodeOptions, Decoder, Lines, Validation};

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
    let corpora = corpus::all();
    let lazy = Decoder::mcp();
    let strict = Decoder::new(DecodeOptions {
        validation: Validation::Strict,
        ..DecodeOptions::default()
    });
    // Warm up lazily initialised state (CPU feature detection) before counting.
    let _ = lazy.decode(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":[1]}}");
    for c in &corpora {
        let before = ALLOCATIONS.with(Cell::get);
        let mut n = 0;
        for frame in Lines::new(&c.stream, 16 << 20) {
            let (_, frame) = frame.unwrap();
            for dec in [&lazy, &strict] {
                let msg = dec.decode(frame).expect("corpus frames are valid");
                n += msg.kind() as usize;
            }
        }
        let after = ALLOCATIONS.with(Cell::get);
        assert_eq!(
            after - before,
            0,
            "{}: {} allocations ({n})",
            c.name,
            after - before
        );
    }
}
