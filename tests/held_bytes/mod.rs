//! An allocator that counts the bytes each thread holds, for the tests of what a long-lived
//! reader or gateway keeps after a large message. A test binary that uses it makes it its
//! global allocator:
//!
//! ```ignore
//! mod held_bytes;
//! #[global_allocator]
//! static GLOBAL: held_bytes::HeldBytes = held_bytes::HeldBytes;
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The counting allocator: the system's, with each thread's balance kept beside it.
pub struct HeldBytes;

thread_local! {
    // Per thread: the test harness allocates on other threads meanwhile.
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(bytes: isize) {
    let _ = HELD.try_with(|n| {
        n.set(n.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(n.get())));
    });
}

/// Bytes allocated and not yet freed by the calling thread (since its start).
pub fn held() -> isize {
    HELD.with(Cell::get)
}

/// The most [`held`] has been since the last [`reset_peak`] (or the thread's start).
#[allow(dead_code)] // (Not every test binary that counts reads peaks.)
pub fn peak() -> isize {
    PEAK.with(Cell::get)
}

/// Starts a new [`peak`] from what is held now.
#[allow(dead_code)]
pub fn reset_peak() {
    PEAK.with(|peak| peak.set(held()));
}

// SAFETY: every method forwards its arguments unchanged to the system allocator; the
// counter has no effect on the memory handed out.
unsafe impl GlobalAlloc for HeldBytes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// The counter sees what is held, and what is given back (in each binary that uses it: its
/// global allocator is this one).
#[test]
fn the_counter_sees_what_is_held() {
    let before = held();
    let block = vec![0u8; 1 << 20];
    assert!(held() - before >= 1 << 20);
    drop(block);
    assert!(held() - before < 1 << 10);
}
