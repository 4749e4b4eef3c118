//! What an `SseFramer` keeps between events: after one large event (data over many lines, or
//! a long `id`), a long-lived stream does not go on holding memory of that size. Alone in its
//! test binary, whose allocator counts the bytes each thread holds.

mod held_bytes;

use held_bytes::held;

use bytes::BytesMut;
use rpcwire::SseFramer;

#[global_allocator]
static GLOBAL: held_bytes::HeldBytes = held_bytes::HeldBytes;

/// One event of 2 MiB of data over two lines, or with a 1 MiB `id`, then a small event: once
/// both events and their read buffers are dropped, the framer holds less than 64 KiB more
/// than it did before them (it held the large event's joined data, or a copy of its id, for
/// as long as it read that stream).
#[test]
fn a_large_event_is_not_held_after_it() {
    let long = "x".repeat(1 << 20);
    for first in [
        format!("data: {long}\ndata: {long}\n\n"),
        format!("id: {long}\ndata: {{}}\n\n"),
    ] {
        let mut framer = SseFramer::new(4 << 20);
        let before = held();
        for stream in [first.as_bytes(), b"id: 2\ndata: {}\n\n"] {
            let mut buf = BytesMut::from(stream);
            let event = framer.decode(&mut buf).unwrap().unwrap();
            assert!(!event.data.is_empty());
        }
        assert_eq!(framer.last_event_id(), Some(&b"2"[..]));
        let kept = held() - before;
        assert!(
            kept < 64 << 10,
            "the framer holds {kept} bytes after {:.12}…",
            first
        );
    }
}

/// A body that ends inside an event of 2 MiB of data over two lines (a connection cut), then
/// the next body, read by the same framer as a client resuming the stream reads it: the
/// framer holds less than 64 KiB more than it did before (it held the dropped event's
/// joined data for as long as it read streams). The next body's event has its data on two
/// lines, joined in the framer's buffer, or on one, which leaves that buffer alone: the
/// dropped event's data is given back at the end of its body, not when the next event joins.
#[test]
fn an_event_the_end_drops_is_not_held_after_it() {
    let long = "x".repeat(1 << 20);
    for (next, data) in [
        (&b"data: [1,\ndata: 2]\n\n"[..], &b"[1,\n2]"[..]),
        (b"data: [1, 2]\n\n", b"[1, 2]"),
    ] {
        let mut framer = SseFramer::new(4 << 20);
        let before = held();
        let mut cut = BytesMut::from(format!("data: {long}\ndata: {long}\n").as_bytes());
        assert_eq!(framer.decode_eof(&mut cut).unwrap(), None);
        drop(cut);
        let mut next = BytesMut::from(next);
        let event = framer.decode(&mut next).unwrap().unwrap();
        assert_eq!(&event.data[..], data);
        drop((event, next));
        let kept = held() - before;
        assert!(kept < 64 << 10, "the framer holds {kept} bytes");
    }
}

/// An event of 50 KiB of data over many short lines (within 64 KiB, but joined in a buffer
/// that grew past it as it doubled), then a small event: once both are dropped, the framer
/// holds less than 64 KiB more than before (a split of the joined buffer kept its whole
/// allocation, which the framer then reused).
#[test]
fn data_joined_in_a_buffer_grown_past_64_kib_is_not_held_after_it() {
    let line = format!("data: {}\n", "x".repeat(599));
    let first = format!("{}\n", line.repeat(85));
    let mut framer = SseFramer::new(4 << 20);
    let before = held();
    for stream in [first.as_bytes(), b"data: [1,\ndata: 2]\n\n"] {
        let mut buf = BytesMut::from(stream);
        let event = framer.decode(&mut buf).unwrap().unwrap();
        assert!(event.data.len() <= 64 << 10);
    }
    let kept = held() - before;
    assert!(kept < 64 << 10, "the framer holds {kept} bytes");
}

/// An event whose `id` is 33 KiB long, then one whose `id` is 40 KiB long: the framer holds
/// less than 64 KiB more than before (the copy of the last id doubled its room to 66 KiB).
#[test]
fn a_last_event_id_within_64_kib_is_kept_in_no_more_room_than_64_kib() {
    let events: Vec<String> = [33 << 10, 40 << 10]
        .map(|len| format!("id: {}\ndata: {{}}\n\n", "i".repeat(len)))
        .into();
    let mut framer = SseFramer::new(4 << 20);
    let before = held();
    for event in &events {
        let mut buf = BytesMut::from(event.as_bytes());
        let event = framer.decode(&mut buf).unwrap().unwrap();
        assert!(!event.data.is_empty());
    }
    assert_eq!(framer.last_event_id().map(<[u8]>::len), Some(40 << 10));
    let kept = held() - before;
    assert!(kept < 64 << 10, "the framer holds {kept} bytes");
}

/// An event whose `id` is exactly 64 KiB long (`REUSE_KEEP`), then one whose `id` is short:
/// the copy of the last id is within the bound, so the framer keeps its room for the next id
/// (`REUSE_KEEP` keeps a buffer up to it included, so that ordinary ids cost no allocation)
/// and holds at least 64 KiB more than before; an `id` one byte longer leaves a copy past
/// the bound, given back when the next id comes. No test put an id on the bound, so the copy
/// could be given back there too.
#[test]
fn the_copy_of_a_last_event_id_of_64_kib_is_kept_and_one_byte_more_given_back() {
    let keep = rpcwire::REUSE_KEEP;
    for (len, kept_room) in [(keep, true), (keep + 1, false)] {
        let events = [
            format!("id: {}\ndata: {{}}\n\n", "i".repeat(len)),
            "id: 2\ndata: {}\n\n".to_string(),
        ];
        let mut framer = SseFramer::new(4 << 20);
        let before = held();
        for event in &events {
            let mut buf = BytesMut::from(event.as_bytes());
            assert!(framer.decode(&mut buf).unwrap().is_some());
        }
        assert_eq!(framer.last_event_id(), Some(&b"2"[..]));
        let kept = held() - before;
        assert_eq!(
            kept >= keep as isize,
            kept_room,
            "an id of {len} bytes: the framer holds {kept} bytes"
        );
    }
}

/// Data over two lines joined to exactly 64 KiB (`REUSE_KEEP`), in an event that comes out or
/// in one the end of its body drops: the buffer it was joined in is within the bound, so the
/// framer keeps it for the next event's data and, once the event and the read buffers are
/// dropped, holds at least 64 KiB more than before; data one byte longer is given back with
/// its event. No test joined data on the bound, so a buffer of exactly 64 KiB could go too.
#[test]
fn data_joined_to_64_kib_keeps_its_buffer_and_one_byte_more_gives_it_back() {
    let keep = rpcwire::REUSE_KEEP;
    for len in [keep, keep + 1] {
        // Two lines and the `\n` that joins them: `len` bytes of data.
        let (first, second) = ("a".repeat(len / 2), "b".repeat(len - len / 2 - 1));
        for dispatched in [true, false] {
            let mut framer = SseFramer::new(4 << 20);
            let body = format!("data: {first}\ndata: {second}\n").into_bytes();
            let before = held();
            let mut buf = BytesMut::from(&body[..]);
            if dispatched {
                buf.extend_from_slice(b"\n");
                let event = framer.decode(&mut buf).unwrap().unwrap();
                assert_eq!(event.data.len(), len);
            } else {
                assert_eq!(framer.decode_eof(&mut buf).unwrap(), None);
            }
            drop(buf);
            let kept = held() - before;
            assert_eq!(
                kept >= keep as isize,
                len == keep,
                "data of {len} bytes, dispatched {dispatched}: the framer holds {kept} bytes"
            );
        }
    }
}
