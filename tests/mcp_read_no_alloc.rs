//! Reading what a 2026-07-28 server sends allocates nothing: a `server/discover` result
//! (`DiscoverResult`, its versions and the version chosen), a cacheable result's hint, and a
//! log message's level, with a counting global allocator (counted per thread).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use rpcwire::mcp::{CacheHint, DiscoverResult, LogLevel, log_message_level, versions};
use rpcwire::{Decoder, Message};

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

fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

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
