//! Zero heap allocations per message: framing and decoding the recorded MCP session (both
//! directions) allocates nothing once the read buffer exists and has been split once.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bytes::BytesMut;
use rpcwire::{DecodeOptions, Decoder, Dialect, LineFramer, Role, Validation};

struct Counting;

thread_local! {
    // Per thread: the test harness runs tests (and allocates) on other threads meanwhile.
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
}

/// Allocations made so far by the calling thread.
fn allocations() -> usize {
    ALLOCS.with(Cell::get)
}

// SAFETY: every method forwards its arguments unchanged to the system allocator; the
// counter has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
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

    let before = allocations();
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
    (allocations() - before, messages)
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

/// A request/reply cycle through the pending table (mint a token, encode the request, decode
/// the reply, match it) and through the in-flight table (register the peer's id, remove it on
/// our reply) allocates nothing in steady state.
/// Runs `cycle` 1,000 times to reach a steady state (buffers and tables at their size), then
/// 100,000 times more, which must allocate nothing.
fn assert_steady_state_allocates_nothing(mut cycle: impl FnMut(u64)) {
    for i in 0..1000 {
        cycle(i);
    }
    let before = allocations();
    for i in 1000..101_000 {
        cycle(i);
    }
    assert_eq!(allocations() - before, 0);
}

#[test]
fn zero_allocations_per_request_reply_cycle() {
    use rpcwire::{Id, InFlight, PendingTable, RawJson, encode};
    let decoder = Decoder::mcp_client();
    let mut pending = PendingTable::with_capacity_limit(1024);
    let mut peer = InFlight::new(1024);
    let mut wire = BytesMut::with_capacity(1 << 16);
    let params = RawJson::new(br#"{"name":"t","arguments":{}}"#).unwrap();
    let cycle = |i: u64| {
        wire.clear();
        let token = pending.insert_with_deadline(i, i + 1000).unwrap();
        let mut digits = [0u8; 20];
        let id = Id::from_token(token.to_wire(&mut digits)).unwrap();
        encode::write_request(&mut wire, id, "tools/call", Some(params));
        // The peer registers our id, answers, and forgets it.
        peer.insert(id, i).unwrap();
        let reply_start = wire.len();
        encode::write_response(&mut wire, id, RawJson::new(b"{}").unwrap());
        let reply = &wire[reply_start..wire.len() - 1];
        let msg = decoder.decode(reply).unwrap();
        assert_eq!(peer.remove(msg.id().unwrap()).map(|(_, v)| v), Some(i));
        assert_eq!(pending.complete_wire(msg.id().unwrap().raw()), Ok(i));
        pending.expire(i).count();
    };
    assert_steady_state_allocates_nothing(cycle);
}

/// A peer's requests with UUID string ids (38 bytes with their quotes) go in and out of
/// `InFlight` without an allocation: its key and its kept spelling hold them inline.
#[test]
fn zero_allocations_per_peer_request_with_a_uuid_id() {
    use rpcwire::{Id, InFlight};
    let mut peer = InFlight::new(1024);
    let ids: Vec<String> = (0..64u32)
        .map(|i| format!(r#""{i:08x}-d9cb-469f-A165-70867728950e""#).to_uppercase())
        .chain((0..64u32).map(|i| format!(r#""{i:08x}-d9cb-469f-a165-70867728950e""#)))
        .collect();
    let cycle = |i: u64| {
        let i = i as usize;
        let id = Id::from_token(ids[i % ids.len()].as_bytes()).unwrap();
        peer.insert(id, i).unwrap();
        assert_eq!(peer.remove(id).map(|(_, v)| v), Some(i));
    };
    assert_steady_state_allocates_nothing(cycle);
}

/// A proxy's cycle through the id remapper (a client's request with a progress token
/// forwarded, the upstream's progress and reply routed back) allocates nothing in steady state
/// for a request that is not task-augmented: looking for `params.task` and for task results
/// costs no allocation.
#[test]
fn zero_allocations_per_remapped_request() {
    remapped_request_cycle_allocates_nothing(
        br#"{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"name":"t","arguments":{"a":[1,2]},"_meta":{"progressToken":"p-1"}}}"#,
    );
}

/// The same with a UUID string id and progress token (38 bytes with their quotes), which the
/// client's key, its kept id and its kept token hold inline.
#[test]
fn zero_allocations_per_remapped_request_with_uuid_ids() {
    remapped_request_cycle_allocates_nothing(
        br#"{"jsonrpc":"2.0","id":"0f8fad5b-d9cb-469f-a165-70867728950e","method":"tools/call","params":{"name":"t","arguments":{"a":[1,2]},"_meta":{"progressToken":"7C9E6679-7425-40DE-944B-E07FC1F90AE7"}}}"#,
    );
}

fn remapped_request_cycle_allocates_nothing(request: &[u8]) {
    use rpcwire::{IdRemapper, Message};
    let client_side = Decoder::mcp();
    let upstream_side = Decoder::mcp_client();
    let mut remap: IdRemapper<u32> = IdRemapper::new(1024);
    let mut up = BytesMut::with_capacity(1 << 12);
    let mut down = BytesMut::with_capacity(1 << 12);
    let mut line = Vec::with_capacity(1 << 12);
    let cycle = |i: u64| {
        up.clear();
        down.clear();
        let Ok(Message::Request(req)) = client_side.decode(request) else {
            panic!()
        };
        let token = remap
            .forward_request(1, request, &req, Some(i + 1000), &mut up)
            .unwrap();
        let mut digits = [0u8; 20];
        let token = std::str::from_utf8(token.to_wire(&mut digits)).unwrap();
        line.clear();
        line.extend_from_slice(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"#,
        );
        line.extend_from_slice(token.as_bytes());
        line.extend_from_slice(br#","progress":1}}"#);
        let Ok(Message::Notification(n)) = upstream_side.decode(&line) else {
            panic!()
        };
        assert_eq!(
            remap
                .route_progress(&line, &n, &mut down)
                .map(|r| *r.client),
            Some(1)
        );
        line.clear();
        line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        line.extend_from_slice(token.as_bytes());
        line.extend_from_slice(br#","result":{"content":[],"isError":false}}"#);
        let msg = upstream_side.decode(&line).unwrap();
        let origin = remap
            .route_reply(&line, msg.id().unwrap(), &mut down)
            .unwrap();
        assert_eq!(origin.client, 1);
        drop(origin);
        remap.expire(i).count();
    };
    assert_steady_state_allocates_nothing(cycle);
}

/// Finding a task the remapper keeps by its task id builds no key: its owner looked up, its
/// status routed, another client's `tasks/get` for it refused, allocate nothing, for a task
/// id of any length (a key longer than 30 bytes, not a UUID, was built on the heap at every
/// lookup).
#[test]
fn finding_a_task_allocates_nothing() {
    use rpcwire::{Id, IdRemapper, Message, RemapError};
    let client_side = Decoder::mcp();
    let upstream_side = Decoder::mcp_client();
    let mut remap: IdRemapper<u32> = IdRemapper::new(1024);
    let task_id = format!("task-{}", "x".repeat(60));
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{"ttl":60000}}}"#;
    let Ok(Message::Request(req)) = client_side.decode(call) else {
        panic!()
    };
    let token = remap
        .forward_request(7, call, &req, None, &mut BytesMut::new())
        .unwrap();
    let created = format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"task":{{"taskId":"{task_id}","status":"working"}}}}}}"#
    );
    let msg = upstream_side.decode(created.as_bytes()).unwrap();
    remap
        .route_reply(created.as_bytes(), msg.id().unwrap(), &mut BytesMut::new())
        .unwrap();
    assert_eq!(remap.task_routes(), 1);
    let quoted = format!("\"{task_id}\"");
    let status = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{{"taskId":"{task_id}","status":"working"}}}}"#
    );
    let Ok(Message::Notification(status_n)) = upstream_side.decode(status.as_bytes()) else {
        panic!()
    };
    let get = format!(
        r#"{{"jsonrpc":"2.0","id":"q","method":"tasks/get","params":{{"taskId":"{task_id}"}}}}"#
    );
    let Ok(Message::Request(get_req)) = client_side.decode(get.as_bytes()) else {
        panic!()
    };
    let mut out = BytesMut::with_capacity(1 << 12);
    let before = allocations();
    for _ in 0..100 {
        let id = Id::from_token(quoted.as_bytes()).unwrap();
        assert_eq!(remap.task_owner(id), Some(&7));
        out.clear();
        let routed = remap.route_task_status(status.as_bytes(), &status_n, &mut out);
        assert_eq!(routed.map(|(_, client)| client), Some(7));
        let refused = remap.forward_request(8, get.as_bytes(), &get_req, None, &mut out);
        assert_eq!(refused, Err(RemapError::ForeignTask));
    }
    assert_eq!(allocations() - before, 0);
}

/// A remapper whose clients are named by `String`s finds a client's request without copying
/// the client's name: `get` and a duplicate id refused allocate nothing, and a request's
/// way out (its cancellation, forwarded) allocates nothing beyond what was kept for it.
#[test]
fn finding_a_string_clients_request_allocates_nothing() {
    use rpcwire::{IdRemapper, Message, RemapError};
    let decoder = Decoder::mcp();
    let client = String::from("client-connection-7f3a");
    let mut remap: IdRemapper<String> = IdRemapper::new(1024);
    let call = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}"#;
    let cancel =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#;
    let Ok(Message::Request(req)) = decoder.decode(call) else {
        panic!()
    };
    let Ok(Message::Notification(cancelled)) = decoder.decode(cancel) else {
        panic!()
    };
    let mut out = BytesMut::with_capacity(1 << 12);
    for _ in 0..3 {
        // The client's name moves into the remapper with its request (the caller's copy).
        remap
            .forward_request(client.clone(), call, &req, None, &mut out)
            .unwrap();
        let before = allocations();
        for _ in 0..100 {
            assert!(remap.get(&client, req.id).is_some());
            let again = remap.forward_request(client.as_str().into(), call, &req, None, &mut out);
            assert_eq!(again, Err(RemapError::DuplicateId));
        }
        // (Each refused request's name was the caller's copy: one allocation each.)
        assert_eq!(allocations() - before, 100);
        out.clear();
        let before = allocations();
        let (_, origin) = remap
            .forward_cancel(&client, cancel, &cancelled, &mut out)
            .unwrap();
        assert_eq!(allocations() - before, 0);
        assert_eq!(origin.client, client);
        out.clear();
    }
}

/// The counter itself works: a heap allocation on this thread is seen.
#[test]
fn the_counter_sees_allocations() {
    let before = allocations();
    let v = std::hint::black_box(vec![1u8; 64]);
    assert_eq!(allocations() - before, 1);
    drop(v);
}

/// An SSE stream of events with ids (MCP's resumable streams) frames and decodes without an
/// allocation per event: each event's data and id are slices of the read buffer, and the last
/// event id, copied out of it, reuses its room.
#[test]
fn zero_allocations_per_sse_event_with_an_id() {
    let decoder = Decoder::mcp_client();
    let mut stream = Vec::new();
    for i in 0..20_000 {
        stream.extend_from_slice(
            format!(
                "id: stream-1/{i:05}\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{}}}}\n\n"
            )
            .as_bytes(),
        );
    }
    let mut buf = BytesMut::with_capacity(stream.len());
    buf.extend_from_slice(&stream);
    let mut framer = rpcwire::SseFramer::new(1 << 20);
    // Warm-up: the first split shares the buffer, the first id takes its room.
    let first = framer.decode(&mut buf).unwrap().unwrap();
    assert!(decoder.decode(&first.data).is_ok());
    drop(first);
    let before = allocations();
    let mut n = 1;
    while let Some(event) = framer.decode(&mut buf).unwrap() {
        assert!(decoder.decode(&event.data).is_ok());
        n += 1;
    }
    assert_eq!(allocations() - before, 0);
    assert_eq!(n, 20_000);
    assert_eq!(framer.last_event_id(), Some(&b"stream-1/19999"[..]));
}

/// `typed::Scratch`, as its docs say: in steady state, a value read into a `T` that holds
/// nothing on the heap costs one allocation, simd-json's tape of it (which simd-json builds
/// anew for each value), and nothing of the scratch area's own.
#[cfg(feature = "serde")]
#[test]
fn one_allocation_per_value_read_on_the_typed_scratch() {
    #[derive(serde::Deserialize)]
    struct Add {
        a: f64,
        b: i64,
        exact: bool,
    }
    let mut scratch = rpcwire::typed::Scratch::new();
    let value = rpcwire::RawJson::new(br#"{"a":1.5,"b":-2,"exact":true,"note":"x"}"#).unwrap();
    let warm: Add = scratch.deserialize(value).unwrap();
    assert!(warm.exact);
    let before = allocations();
    for _ in 0..1000 {
        let add: Add = scratch.deserialize(value).unwrap();
        assert_eq!((add.a, add.b), (1.5, -2));
    }
    assert_eq!(allocations() - before, 1000);
}

/// The typed writers serialize straight into the output: requests and responses of a small
/// derived struct, written into a buffer with room for them all, allocate nothing.
#[cfg(feature = "serde")]
#[test]
fn zero_allocations_per_typed_request_and_response() {
    use rpcwire::{Id, typed};
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Add<'a> {
        name: &'a str,
        a: f64,
        b: i64,
        exact: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        progress_token: Option<u64>,
        tags: [&'a str; 2],
    }
    let ids: Vec<String> = (0..3000).map(|k| format!("\"req-{k}\"")).collect();
    let mut out = BytesMut::with_capacity(1 << 20);
    let before = allocations();
    for (k, id) in ids.iter().enumerate() {
        let id = Id::from_token(id.as_bytes()).unwrap();
        let params = Add {
            name: "add\n",
            a: k as f64 / 7.0,
            b: -(k as i64),
            exact: k % 2 == 0,
            progress_token: (k % 3 == 0).then_some(k as u64),
            tags: ["x", "y\"z"],
        };
        typed::write_request(&mut out, id, "tools/call", &params).unwrap();
        typed::write_response(&mut out, id, &params).unwrap();
    }
    assert_eq!(allocations() - before, 0);
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 6000);
}

/// Answering a batch with `BatchReply` allocates nothing once the buffer has room: each
/// response is written in place and its line end taken off, not split off the buffer to be
/// pushed again line by line (which shares the buffer and makes the next write copy it).
#[test]
fn zero_allocations_per_batch_reply() {
    use rpcwire::encode::{self, BatchReply};
    use rpcwire::{Id, RawJson};
    let ids: Vec<String> = (0..4).map(|k| k.to_string()).collect();
    let ids: Vec<Id<'_>> = ids
        .iter()
        .map(|id| Id::from_token(id.as_bytes()).unwrap())
        .collect();
    let result = RawJson::new(br#"{"content":[{"type":"text","text":"ok"}]}"#).unwrap();
    let mut out = BytesMut::with_capacity(1 << 16);
    let cycle = |_: u64| {
        out.clear();
        let mut batch = BatchReply::open(&mut out);
        for &id in &ids {
            batch.push(|out| encode::write_response(out, id, result));
        }
        assert_eq!(batch.len(), 4);
        assert!(batch.close());
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
    };
    assert_steady_state_allocates_nothing(cycle);
}

/// Collecting a batch's reply with `batch::Collector` allocates a few times per batch, not
/// once per element: its array grows by doubling and each reply is written in the room left
/// after the last (split off and joined again at no cost), and the bits of the replies owed
/// grow by doubling too. So a batch of 10,000 replies allocates no more than a few dozen
/// times, as one of 100 does a handful.
#[test]
fn collecting_a_batch_allocates_per_batch_not_per_element() {
    use rpcwire::batch::{Collector, Status};
    use rpcwire::encode;
    use rpcwire::{Id, RawJson};
    let result = RawJson::new(br#"{"content":[{"type":"text","text":"ok"}]}"#).unwrap();
    let mut counts = Vec::new();
    for n in [100u32, 10_000] {
        let ids: Vec<String> = (0..n).map(|k| k.to_string()).collect();
        let before = allocations();
        let mut collector = Collector::new();
        let owed: Vec<_> = (0..n).map(|_| collector.owe().unwrap()).collect();
        assert_eq!(collector.seal(), Ok(Status::Waiting(n as usize)));
        let mut line = None;
        for (k, id) in ids.iter().enumerate().rev() {
            let id = Id::from_token(id.as_bytes()).unwrap();
            let status = collector.answer(owed[k], |out| encode::write_response(out, id, result));
            if let Status::Done(reply) = status.unwrap() {
                line = reply;
            }
        }
        let allocated = allocations() - before;
        counts.push(allocated);
        let line = line.unwrap();
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
    }
    // Measured: 8 and 22 (the handles' vector one; the array's buffer, its doublings and
    // its sharing; the bits' doublings past the 128 kept inline).
    assert!(counts[0] <= 10 && counts[1] <= 30, "{counts:?}");
}

/// A reply of up to 256 bytes (the room the collector makes before each element) is written
/// in place: pushing one of exactly 256 bytes allocates no more than pushing one of 2 (the
/// writer's buffer does not grow, and the element joins the array with no copy).
#[test]
fn a_reply_that_fits_the_collectors_room_is_written_in_place() {
    use rpcwire::batch::Collector;
    let push = |len: usize| {
        let element = format!("\"{}\"", "x".repeat(len - 2));
        assert_eq!(element.len(), len);
        let mut collector = Collector::new();
        let before = allocations();
        collector
            .push(|out| out.extend_from_slice(element.as_bytes()))
            .unwrap();
        let allocated = allocations() - before;
        drop(collector);
        allocated
    };
    assert_eq!(push(256), push(2));
}
