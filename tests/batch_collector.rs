//! `batch::Collector`: a batch's reply collected as its replies come, in any order. Each rule
//! of JSON-RPC 2.0 §6 it keeps (nothing sent when nothing is owed, the replies in the order
//! they came), its refusals of misuse (which change nothing), its elements written as
//! `BatchReply::push` writes them, a gateway's use with `IdRemapper`, and a model of random
//! interleavings of its calls.

mod common;
use common::nested;

use std::panic::{AssertUnwindSafe, catch_unwind};

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use rpcwire::batch::{Collector, CollectorError, Owed, Status};
use rpcwire::encode::{self, BatchReply};
use rpcwire::{Decoder, ErrorCode, Id, RawJson, ReplyId};
use serde_json::{Value, json};

/// The response `{"jsonrpc":"2.0","id":n,"result":n}`.
fn respond(out: &mut BytesMut, n: u32) {
    let n = n.to_string();
    let token = Id::from_token(n.as_bytes()).unwrap();
    encode::write_response(out, token, RawJson::new(n.as_bytes()).unwrap());
}

/// `respond`'s reply as a JSON value.
fn response(n: u32) -> Value {
    json!({"jsonrpc": "2.0", "id": n, "result": n})
}

fn invalid_request(out: &mut BytesMut) {
    let code = ErrorCode::INVALID_REQUEST;
    encode::write_error(out, ReplyId::Null, code, "Invalid Request", None);
}

fn invalid_request_value() -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request"}})
}

/// The elements of a finished line: one line, an array, parsed.
fn elements(line: &Bytes) -> Vec<Value> {
    assert!(line.starts_with(b"[") && line.ends_with(b"]\n"), "{line:?}");
    assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
    match serde_json::from_slice(&line[..line.len() - 1]).unwrap() {
        Value::Array(elements) => elements,
        other => panic!("not an array: {other}"),
    }
}

/// The line of a batch that is done with a reply to send.
#[track_caller]
fn done(status: Result<Status, CollectorError>) -> Bytes {
    match status {
        Ok(Status::Done(Some(line))) => line,
        other => panic!("not done with a reply: {other:?}"),
    }
}

/// A batch of notifications only is owed nothing: sealing it finishes it, and nothing at all
/// is sent (never `[]`).
#[test]
fn nothing_is_sent_for_a_batch_of_notifications() {
    let mut collector = Collector::new();
    assert_eq!(collector.seal(), Ok(Status::Done(None)));
    assert!(collector.is_done());
}

/// A batch whose every request was forgone (cancelled) is owed nothing either: the last
/// `forgo` finishes it with nothing to send.
#[test]
fn nothing_is_sent_when_every_reply_is_forgone() {
    let mut collector = Collector::new();
    let owed: Vec<Owed> = (0..3).map(|_| collector.owe().unwrap()).collect();
    assert_eq!(collector.seal(), Ok(Status::Waiting(3)));
    assert_eq!(collector.forgo(owed[1]), Ok(Status::Waiting(2)));
    assert_eq!(collector.forgo(owed[0]), Ok(Status::Waiting(1)));
    assert_eq!(collector.forgo(owed[2]), Ok(Status::Done(None)));
    // Nor when the one reply written was blank: a writer that writes nothing adds no element.
    let mut collector = Collector::new();
    let owed = collector.owe().unwrap();
    assert_eq!(collector.seal(), Ok(Status::Waiting(1)));
    assert_eq!(collector.answer(owed, |_| {}), Ok(Status::Done(None)));
}

/// Before the seal a batch is never done, even when every reply owed so far has come: a quick
/// first answer must not end the array before the second request is owed. Sealing then
/// finishes it.
#[test]
fn a_batch_is_done_only_once_sealed() {
    let mut collector = Collector::new();
    let first = collector.owe().unwrap();
    assert_eq!(
        collector.answer(first, |out| respond(out, 1)),
        Ok(Status::Waiting(0))
    );
    assert!(!collector.is_done());
    let second = collector.owe().unwrap();
    assert_eq!(
        collector.answer(second, |out| respond(out, 2)),
        Ok(Status::Waiting(0))
    );
    collector.push(invalid_request).unwrap();
    let line = done(collector.seal());
    assert_eq!(
        elements(&line),
        [response(1), response(2), invalid_request_value()]
    );
}

/// The array holds the replies in the order they were written (answered or pushed), whatever
/// the order the replies were owed in.
#[test]
fn replies_keep_the_order_they_came_in() {
    let mut collector = Collector::new();
    let owed: Vec<Owed> = (0..4).map(|_| collector.owe().unwrap()).collect();
    collector.push(invalid_request).unwrap();
    assert_eq!(collector.seal(), Ok(Status::Waiting(4)));
    for (k, i) in [2, 0, 3].into_iter().enumerate() {
        let status = collector.answer(owed[i], |out| respond(out, i as u32));
        assert_eq!(status, Ok(Status::Waiting(3 - k)));
    }
    let line = done(collector.answer(owed[1], |out| respond(out, 1)));
    let expected = [
        invalid_request_value(),
        response(2),
        response(0),
        response(3),
        response(1),
    ];
    assert_eq!(elements(&line), expected);
}

/// Misuse is refused with its error, never a panic, and changes nothing: the writer is not
/// called, the replies written stay, the counts are as they were.
#[test]
fn misuse_is_refused_and_leaves_the_array_as_it_was() {
    let never = |_: &mut BytesMut| panic!("a refused call must not write");
    let mut collector = Collector::new();
    let mut other = Collector::new();
    let foreign: Vec<Owed> = (0..4).map(|_| other.owe().unwrap()).collect();
    let a = collector.owe().unwrap();
    let b = collector.owe().unwrap();
    let c = collector.owe().unwrap();
    let status = collector.answer(a, |out| respond(out, 1));
    assert_eq!(status, Ok(Status::Waiting(2)));
    assert_eq!(collector.forgo(c), Ok(Status::Waiting(1)));
    // Twice the same handle, answered or forgone.
    for settled in [a, c] {
        let answered = collector.answer(settled, never);
        assert_eq!(answered, Err(CollectorError::AlreadySettled));
        assert_eq!(
            collector.forgo(settled),
            Err(CollectorError::AlreadySettled)
        );
    }
    // A handle past those this collector handed out (another collector's).
    let answered = collector.answer(foreign[3], never);
    assert_eq!(answered, Err(CollectorError::UnknownOwed));
    assert_eq!(
        collector.forgo(foreign[3]),
        Err(CollectorError::UnknownOwed)
    );
    assert_eq!(collector.waiting(), 1);
    assert_eq!(collector.seal(), Ok(Status::Waiting(1)));
    // No element after the seal, and one seal.
    assert_eq!(collector.owe(), Err(CollectorError::AlreadySealed));
    assert_eq!(collector.push(never), Err(CollectorError::AlreadySealed));
    assert_eq!(collector.seal(), Err(CollectorError::AlreadySealed));
    assert_eq!(collector.waiting(), 1);
    let line = done(collector.answer(b, |out| respond(out, 2)));
    assert_eq!(elements(&line), [response(1), response(2)]);
    // Nothing once done.
    assert_eq!(collector.answer(b, never), Err(CollectorError::AlreadyDone));
    assert_eq!(collector.forgo(a), Err(CollectorError::AlreadyDone));
    assert_eq!(collector.owe(), Err(CollectorError::AlreadyDone));
    assert_eq!(collector.push(never), Err(CollectorError::AlreadyDone));
    assert_eq!(collector.seal(), Err(CollectorError::AlreadyDone));
    // The error is a small `Copy` error with a text.
    let error: &dyn core::error::Error = &CollectorError::AlreadySettled;
    assert_eq!(
        error.to_string(),
        "the owed reply was answered or forgone already"
    );
}

/// The collector owes at most as many replies as it was made for (the default decoder's
/// `max_batch_len` for `new`): one more is refused, and the collector goes on.
#[test]
fn owing_is_bounded() {
    let mut collector = Collector::with_max_owed(2);
    let a = collector.owe().unwrap();
    let b = collector.owe().unwrap();
    let refused = collector.owe().unwrap_err();
    assert_eq!(refused, CollectorError::TooManyOwed { limit: 2 });
    assert_eq!(
        refused.to_string(),
        "the collector owes as many replies as it may: its limit is 2"
    );
    assert_eq!(collector.seal(), Ok(Status::Waiting(2)));
    assert_eq!(collector.forgo(a), Ok(Status::Waiting(1)));
    let line = done(collector.answer(b, |out| respond(out, 2)));
    assert_eq!(elements(&line), [response(2)]);
    let mut collector = Collector::new();
    for _ in 0..rpcwire::Limits::DEFAULT.max_batch_len {
        let _ = collector.owe().unwrap();
    }
    assert_eq!(
        collector.owe(),
        Err(CollectorError::TooManyOwed { limit: 100_000 })
    );
}

/// `Collector::default()` is `Collector::new()`: it owes as many replies, and its handles are
/// its own, refused by another default collector. (A derived `Default` owed none at all, and
/// gave every collector one tag.)
#[test]
fn a_default_collector_is_a_new_one() {
    let mut collector = Collector::default();
    let mut other = Collector::default();
    let owed = collector.owe().unwrap();
    let theirs = other.owe().unwrap();
    for _ in 1..rpcwire::Limits::DEFAULT.max_batch_len {
        let _ = collector.owe().unwrap();
    }
    assert_eq!(
        collector.owe(),
        Err(CollectorError::TooManyOwed { limit: 100_000 })
    );
    assert_eq!(other.forgo(owed), Err(CollectorError::UnknownOwed));
    assert_eq!(collector.forgo(theirs), Err(CollectorError::UnknownOwed));
}

/// Many replies owed (past the bits kept inline), answered in a scattered order with every
/// third forgone: done at the last one exactly, with the answers in the order they came.
#[test]
fn a_long_batch_is_done_at_its_last_reply() {
    const N: u32 = 1000;
    let mut collector = Collector::new();
    let owed: Vec<Owed> = (0..N).map(|_| collector.owe().unwrap()).collect();
    assert_eq!(collector.seal(), Ok(Status::Waiting(N as usize)));
    let order: Vec<u32> = (0..N).map(|k| k * 7919 % N).collect();
    let mut expected = Vec::new();
    let mut line = None;
    for (k, &i) in order.iter().enumerate() {
        let owed = owed[i as usize];
        assert_eq!(owed.index(), i as usize);
        let status = if i % 3 == 0 {
            collector.forgo(owed)
        } else {
            expected.push(response(i));
            collector.answer(owed, |out| respond(out, i))
        };
        match status.unwrap() {
            Status::Waiting(n) => assert_eq!(n, N as usize - k - 1),
            Status::Done(reply) => {
                assert_eq!(k, N as usize - 1);
                line = reply;
            }
        }
    }
    assert_eq!(elements(&line.unwrap()), expected);
}

/// Each element is written as `BatchReply::push` writes it: its line end removed, nothing
/// (or only whitespace) no element, two messages two elements, a result or an error's `data`
/// too deep for the array replaced by an error with its id, a request too deep taken back.
/// The same writers, pushed or answered, give the line `BatchReply` gives, byte for byte.
#[test]
fn elements_are_written_as_batch_reply_pushes_them() {
    let deep_result = nested(127);
    let deep_data = nested(126);
    let deep_result = RawJson::new(&deep_result).unwrap();
    let deep_data = RawJson::new(&deep_data).unwrap();
    let one = Id::from_token(b"1").unwrap();
    type Writer<'a> = Box<dyn Fn(&mut BytesMut) + 'a>;
    let writers: Vec<(&str, Writer<'_>)> = vec![
        ("a response", Box::new(|out| respond(out, 1))),
        (
            "a result too deep",
            Box::new(move |out| encode::write_response(out, one, deep_result)),
        ),
        (
            "an error's data too deep",
            Box::new(move |out| {
                let code = ErrorCode::INVALID_PARAMS;
                encode::write_error(out, one, code, "bad", Some(deep_data))
            }),
        ),
        (
            "a request too deep",
            Box::new(move |out| encode::write_request(out, one, "m", Some(deep_result))),
        ),
        ("nothing", Box::new(|_| {})),
        (
            "whitespace",
            Box::new(|out| encode::write_frame(out, b" \t ")),
        ),
        (
            "two messages",
            Box::new(|out| {
                respond(out, 2);
                invalid_request(out);
            }),
        ),
        (
            "a frame with leading whitespace",
            Box::new(|out| {
                encode::write_frame(out, b"\n {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":3}")
            }),
        ),
    ];
    // Each writer alone, then all of them in one array.
    let mut cases: Vec<Vec<usize>> = (0..writers.len()).map(|i| vec![i]).collect();
    cases.push((0..writers.len()).collect());
    for case in cases {
        let names: Vec<&str> = case.iter().map(|&i| writers[i].0).collect();
        let mut expected = BytesMut::new();
        let mut array = BatchReply::open(&mut expected);
        for &i in &case {
            array.push(&writers[i].1);
        }
        let sent = array.close();
        let mut pushed = Collector::new();
        let mut answered = Collector::new();
        for &i in &case {
            pushed.push(&writers[i].1).unwrap();
            let owed = answered.owe().unwrap();
            assert!(matches!(
                answered.answer(owed, &writers[i].1),
                Ok(Status::Waiting(0))
            ));
        }
        for collector in [&mut pushed, &mut answered] {
            match collector.seal() {
                Ok(Status::Done(Some(line))) => {
                    assert!(sent, "{names:?}");
                    assert_eq!(line, expected, "{names:?}");
                }
                Ok(Status::Done(None)) => assert!(!sent, "{names:?}"),
                other => panic!("{names:?}: {other:?}"),
            }
        }
        if sent {
            // And the default decoder reads the line.
            let decoder = Decoder::jsonrpc_client();
            assert!(decoder.decode(&expected[..expected.len() - 1]).is_ok());
        }
    }
}

/// A writer is handed a buffer of its own: whatever it does there (clears it, takes its bytes
/// away, puts another buffer in its place) touches no reply written before.
#[test]
fn a_writer_reaches_no_other_reply() {
    let mut collector = Collector::new();
    collector.push(|out| respond(out, 1)).unwrap();
    let owed: Vec<Owed> = (0..4).map(|_| collector.owe().unwrap()).collect();
    assert_eq!(collector.seal(), Ok(Status::Waiting(4)));
    let status = collector.answer(owed[0], |out| {
        out.clear();
        respond(out, 2);
    });
    assert_eq!(status, Ok(Status::Waiting(3)));
    let status = collector.answer(owed[1], |out| {
        respond(out, 99);
        let taken = out.split();
        assert!(taken.starts_with(b"{"));
    });
    assert_eq!(status, Ok(Status::Waiting(2)));
    let status = collector.answer(owed[2], |out| {
        let mut other = BytesMut::new();
        respond(&mut other, 3);
        *out = other;
    });
    assert_eq!(status, Ok(Status::Waiting(1)));
    // A long reply, which outgrows the room made for it in the array.
    let long = format!("\"{}\"", "x".repeat(10_000));
    let line = done(collector.answer(owed[3], |out| {
        let id = Id::from_token(b"4").unwrap();
        encode::write_response(out, id, RawJson::new(long.as_bytes()).unwrap());
    }));
    let long = json!({"jsonrpc": "2.0", "id": 4, "result": "x".repeat(10_000)});
    assert_eq!(
        elements(&line),
        [response(1), response(2), response(3), long]
    );
}

/// A writer that panics changes nothing: the reply is still owed, the array as it was, and
/// the collector goes on.
#[test]
fn a_panicking_writer_changes_nothing() {
    let mut collector = Collector::new();
    let owed = collector.owe().unwrap();
    collector.push(|out| respond(out, 1)).unwrap();
    for _ in 0..2 {
        let panicked = catch_unwind(AssertUnwindSafe(|| {
            collector.answer(owed, |out| {
                respond(out, 98);
                panic!("the handler failed");
            })
        }));
        assert!(panicked.is_err());
        let panicked = catch_unwind(AssertUnwindSafe(|| {
            collector.push(|out| {
                respond(out, 99);
                panic!("the handler failed");
            })
        }));
        assert!(panicked.is_err());
        assert_eq!(collector.waiting(), 1);
    }
    assert_eq!(collector.seal(), Ok(Status::Waiting(1)));
    let line = done(collector.answer(owed, |out| respond(out, 2)));
    assert_eq!(elements(&line), [response(1), response(2)]);
    // A panic before the first element leaves no `[` behind either.
    let mut collector = Collector::new();
    let owed = collector.owe().unwrap();
    let _ = catch_unwind(AssertUnwindSafe(|| {
        collector.push(|_| panic!("the handler failed"))
    }));
    assert_eq!(collector.seal(), Ok(Status::Waiting(1)));
    assert_eq!(collector.forgo(owed), Ok(Status::Done(None)));
}

/// What a handle and a collector are: a handle is four bytes and `Copy` (kept as an
/// `IdRemapper`'s value, moved into a task), a collector moves between threads.
#[test]
fn handles_are_small_and_collectors_send() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<Collector>();
    send_sync::<Owed>();
    send_sync::<CollectorError>();
    // An index and its collector's tag.
    assert_eq!(size_of::<Owed>(), 8);
    // An error carries at most a `u32`, the bound `TooManyOwed` names.
    assert!(size_of::<CollectorError>() <= 8);
}

/// A gateway of MCP 2025-03-26 (whose batches its receivers must accept): each request of a
/// batch goes upstream through `IdRemapper` with its batch and its owed reply as the value
/// kept; a reply routed back is answered with the routed line, a request the client cancels
/// is forgone (MCP: no response), one that expires is answered with the gateway's error, and
/// an invalid element's error is pushed at once. The batch is done at its last reply; a batch
/// whose requests are all cancelled sends nothing, rather than waiting for ever.
#[test]
fn a_gateway_answers_a_batch_through_id_remapper() {
    use rpcwire::{DecodeOptions, Dialect, IdRemapper, Message, Token};
    let decoder = Decoder::new(DecodeOptions::new(Dialect::Mcp).for_protocol_version("2025-03-26"));
    let mut remap: IdRemapper<u32, (usize, Owed)> = IdRemapper::new(64);
    let mut batches: Vec<Collector> = Vec::new();
    /// Forwards a client's batch; returns the tokens its requests went upstream under, and
    /// the batch's status once sealed.
    fn forward(
        decoder: &Decoder,
        remap: &mut IdRemapper<u32, (usize, Owed)>,
        batches: &mut Vec<Collector>,
        frame: &[u8],
    ) -> (Vec<Token>, Status) {
        let Ok(Message::Batch(batch)) = decoder.decode(frame) else {
            panic!("a batch")
        };
        let at = batches.len();
        let mut collector = Collector::new();
        let mut tokens = Vec::new();
        let mut upstream = BytesMut::new();
        for (element, raw) in batch.decode(decoder).zip(batch.raw.elements()) {
            match element {
                Ok(Message::Request(req)) => {
                    let owed = collector.owe().unwrap();
                    let (frame, deadline) = (raw.as_bytes(), Some(30_000));
                    let forwarded = remap.forward_request_with(
                        7,
                        (at, owed),
                        frame,
                        &req,
                        deadline,
                        &mut upstream,
                    );
                    match forwarded {
                        Ok(token) => tokens.push(token),
                        Err(refused) => {
                            let status =
                                collector.answer(owed, |out| refused.write_reply(out, req.id));
                            // Not sealed yet: never done.
                            assert!(matches!(status, Ok(Status::Waiting(_))));
                        }
                    }
                }
                Ok(_) => {}
                Err(rejection) => {
                    if let Some(reply) = rejection.reply() {
                        collector
                            .push(|out| encode::write_reply(out, &reply, None))
                            .unwrap();
                    }
                }
            }
        }
        let status = collector.seal().unwrap();
        batches.push(collector);
        (tokens, status)
    }
    let frame = br#"[{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"a"}},
        {"jsonrpc":"2.0","id":"r2","method":"tools/call","params":{"name":"b"}},
        {"jsonrpc":"2.0","method":"notifications/message","params":{}},
        {"jsonrpc":"2.0","id":"r3","method":"tools/call","params":{"name":"c"}},
        {"jsonrpc":"2.0","id":null,"method":"ping"},
        {"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"again"}}]"#;
    let (tokens, status) = forward(&decoder, &mut remap, &mut batches, frame);
    assert_eq!(tokens.len(), 3);
    // The reused id "r1" was refused and answered at once: three replies are still to come.
    assert_eq!(status, Status::Waiting(3));

    // The client cancels "r2": forgone.
    let cancel =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r2"}}"#;
    let Ok(Message::Notification(n)) = decoder.decode(cancel) else {
        panic!()
    };
    let (_, origin) = remap
        .forward_cancel(&7, cancel, &n, &mut BytesMut::new())
        .unwrap();
    let (batch, owed) = origin.value;
    assert_eq!(batches[batch].forgo(owed), Ok(Status::Waiting(2)));

    // The upstream answers "r1"'s token: its reply joins the array under "r1".
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[]}}}}"#,
        tokens[0]
    );
    let reply_id = Decoder::mcp_client()
        .decode(reply.as_bytes())
        .unwrap()
        .id()
        .unwrap();
    let mut routed = BytesMut::new();
    let origin = remap
        .route_reply(reply.as_bytes(), reply_id, &mut routed)
        .unwrap();
    let (batch, owed) = origin.value;
    let status = batches[batch].answer(owed, |out| out.extend_from_slice(&routed));
    assert_eq!(status, Ok(Status::Waiting(1)));

    // "r3" expires: answered with the gateway's error.
    let mut line = None;
    for (_, origin) in remap.expire(30_000) {
        let (batch, owed) = origin.value;
        let code = ErrorCode::INTERNAL_ERROR;
        line = Some(done(batches[batch].answer(owed, |out| {
            encode::write_error(out, origin.id.as_id(), code, "timed out", None)
        })));
    }
    let refused = json!({"jsonrpc": "2.0", "id": "r1", "error": {"code": -32600,
        "message": "the client already has a request with this id in flight"}});
    // MCP's reply to an element whose id it refuses (`null`) leaves the id out: the
    // decoder's `unreadable_id`.
    let null_id =
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}});
    let routed = json!({"jsonrpc": "2.0", "id": "r1", "result": {"content": []}});
    let expired = json!({"jsonrpc": "2.0", "id": "r3", "error": {"code": -32603,
        "message": "timed out"}});
    assert_eq!(
        elements(&line.unwrap()),
        [null_id, refused, routed, expired]
    );

    // A batch whose every request is cancelled is done, with nothing to send.
    let frame = br#"[{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"a"}},
        {"jsonrpc":"2.0","id":"s2","method":"tools/call","params":{"name":"b"}}]"#;
    let (tokens, status) = forward(&decoder, &mut remap, &mut batches, frame);
    assert_eq!((tokens.len(), status), (2, Status::Waiting(2)));
    let mut last = None;
    for id in ["s1", "s2"] {
        let cancel = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"{id}"}}}}"#
        );
        let Ok(Message::Notification(n)) = decoder.decode(cancel.as_bytes()) else {
            panic!()
        };
        let (token, origin): (Token, _) = remap
            .forward_cancel(&7, cancel.as_bytes(), &n, &mut BytesMut::new())
            .unwrap();
        assert!(tokens.contains(&token));
        let (batch, owed) = origin.value;
        last = Some(batches[batch].forgo(owed).unwrap());
    }
    assert_eq!(last, Some(Status::Done(None)));
}

/// A writer of the model: what it writes, and the elements that makes.
#[derive(Debug, Clone, Copy)]
enum Write {
    /// One response, `respond(n)`.
    Response(u32),
    /// The -32600 reply with a `null` id.
    Invalid,
    /// Nothing at all: no element.
    Nothing,
    /// Two responses from one writer: two elements.
    Two(u32, u32),
}

impl Write {
    fn write(self, out: &mut BytesMut) {
        match self {
            Write::Response(n) => respond(out, n),
            Write::Invalid => invalid_request(out),
            Write::Nothing => {}
            Write::Two(a, b) => {
                respond(out, a);
                respond(out, b);
            }
        }
    }

    fn elements(self) -> Vec<Value> {
        match self {
            Write::Response(n) => vec![response(n)],
            Write::Invalid => vec![invalid_request_value()],
            Write::Nothing => vec![],
            Write::Two(a, b) => vec![response(a), response(b)],
        }
    }
}

/// One call of the model. A handle is named by its index: the collector's own handles are
/// its indexes, and one past them (taken from another collector) is unknown to it.
#[derive(Debug, Clone, Copy)]
enum Call {
    Owe,
    Push(Write),
    /// The handle of index `.0`, this collector's (`.1` false) when it handed one out, else
    /// another collector's of the same index.
    Answer(usize, bool, Write),
    Forgo(usize, bool),
    Seal,
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        6 => (0..1000u32).prop_map(Write::Response),
        2 => Just(Write::Invalid),
        1 => Just(Write::Nothing),
        1 => (0..1000u32, 0..1000u32).prop_map(|(a, b)| Write::Two(a, b)),
    ]
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        4 => Just(Call::Owe),
        2 => write().prop_map(Call::Push),
        5 => (0..MAX_OWED + 4, proptest::bool::weighted(0.1), write())
            .prop_map(|(i, foreign, w)| Call::Answer(i, foreign, w)),
        2 => (0..MAX_OWED + 4, proptest::bool::weighted(0.1))
            .prop_map(|(i, foreign)| Call::Forgo(i, foreign)),
        1 => Just(Call::Seal),
    ]
}

/// The bound the model's collectors are made with: small, so that it is reached.
const MAX_OWED: usize = 40;

/// What the collector should do: which handles are settled, whether it is sealed or done,
/// the elements written so far in order.
#[derive(Default)]
struct Model {
    settled: Vec<bool>,
    sealed: bool,
    done: bool,
    elements: Vec<Value>,
}

impl Model {
    fn waiting(&self) -> usize {
        self.settled.iter().filter(|&&s| !s).count()
    }

    /// The status the model is in after a call that may finish the batch.
    fn status(&mut self) -> Result<(), Status> {
        if self.sealed && self.waiting() == 0 {
            self.done = true;
            Ok(())
        } else {
            Err(Status::Waiting(self.waiting()))
        }
    }

    fn open(&self) -> Result<(), CollectorError> {
        if self.done {
            Err(CollectorError::AlreadyDone)
        } else if self.sealed {
            Err(CollectorError::AlreadySealed)
        } else {
            Ok(())
        }
    }

    fn owed(&self, index: usize, foreign: bool) -> Result<(), CollectorError> {
        if self.done {
            Err(CollectorError::AlreadyDone)
        } else if foreign || index >= self.settled.len() {
            Err(CollectorError::UnknownOwed)
        } else if self.settled[index] {
            Err(CollectorError::AlreadySettled)
        } else {
            Ok(())
        }
    }
}

/// Checks a status against the model's: `Done` exactly when the model is done (sealed, nothing
/// owed still to come), with the line of exactly the elements written, in order, or none when
/// there are none; else `Waiting` with the model's count.
fn check(status: Status, model: &mut Model) -> Result<(), TestCaseError> {
    match (model.status(), status) {
        (Err(expected), status) => prop_assert_eq!(status, expected),
        (Ok(()), Status::Done(None)) => prop_assert!(model.elements.is_empty()),
        (Ok(()), Status::Done(Some(line))) => {
            prop_assert!(!model.elements.is_empty());
            prop_assert_eq!(elements(&line), model.elements.clone());
        }
        (Ok(()), status) => prop_assert!(false, "not done: {status:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::cases(512))]

    /// Random interleavings of owe, push, answer, forgo and seal (misuse among them: handles
    /// twice, handles unknown, elements after the seal, calls after the end, owing past the
    /// bound) against a model: each call's error is the model's, a refused call writes
    /// nothing, and the batch is done exactly when it is sealed with nothing owed still to
    /// come, its line (or none) holding exactly the elements written, in the order written.
    #[test]
    fn collector_matches_its_model(calls in proptest::collection::vec(call(), 0..120)) {
        let mut collector = Collector::with_max_owed(MAX_OWED);
        let mut other = Collector::with_max_owed(MAX_OWED + 4);
        // Another collector's handles, of every index; this one's, as it hands them out.
        let foreign: Vec<Owed> = (0..MAX_OWED + 4).map(|_| other.owe().unwrap()).collect();
        let mut own: Vec<Owed> = Vec::new();
        let handle = |own: &[Owed], i: usize, alien: bool| match own.get(i) {
            Some(&owed) if !alien => owed,
            _ => foreign[i],
        };
        let mut model = Model::default();
        for call in calls {
            match call {
                Call::Owe => {
                    let expected = model.open().and(match model.settled.len() {
                        MAX_OWED => Err(CollectorError::TooManyOwed {
                            limit: MAX_OWED as u32,
                        }),
                        _ => Ok(()),
                    });
                    let owed = collector.owe();
                    prop_assert_eq!(owed.map(|_| ()), expected);
                    if let Ok(owed) = owed {
                        prop_assert_eq!(owed.index(), model.settled.len());
                        model.settled.push(false);
                        own.push(owed);
                    }
                }
                Call::Push(w) => {
                    let mut wrote = false;
                    let pushed = collector.push(|out| {
                        wrote = true;
                        w.write(out)
                    });
                    prop_assert_eq!(pushed, model.open());
                    prop_assert_eq!(wrote, pushed.is_ok());
                    if pushed.is_ok() {
                        model.elements.extend(w.elements());
                    }
                }
                Call::Answer(i, alien, w) => {
                    let expected = model.owed(i, alien);
                    let mut wrote = false;
                    let answered = collector.answer(handle(&own, i, alien), |out| {
                        wrote = true;
                        w.write(out)
                    });
                    prop_assert_eq!(wrote, answered.is_ok());
                    match answered {
                        Ok(status) => {
                            prop_assert_eq!(expected, Ok(()));
                            model.settled[i] = true;
                            model.elements.extend(w.elements());
                            check(status, &mut model)?;
                        }
                        Err(error) => prop_assert_eq!(Err(error), expected),
                    }
                }
                Call::Forgo(i, alien) => {
                    let expected = model.owed(i, alien);
                    match collector.forgo(handle(&own, i, alien)) {
                        Ok(status) => {
                            prop_assert_eq!(expected, Ok(()));
                            model.settled[i] = true;
                            check(status, &mut model)?;
                        }
                        Err(error) => prop_assert_eq!(Err(error), expected),
                    }
                }
                Call::Seal => {
                    let expected = model.open();
                    match collector.seal() {
                        Ok(status) => {
                            prop_assert_eq!(expected, Ok(()));
                            model.sealed = true;
                            check(status, &mut model)?;
                        }
                        Err(error) => prop_assert_eq!(Err(error), expected),
                    }
                }
            }
            prop_assert_eq!(collector.is_done(), model.done);
            prop_assert_eq!(collector.is_sealed(), model.sealed);
            if !model.done {
                prop_assert_eq!(collector.waiting(), model.waiting());
            }
        }
        // Settled all, then sealed: the line of every element written.
        if !model.done {
            for (i, &owed) in own.iter().enumerate() {
                if !model.settled[i] {
                    let status = collector.forgo(owed).unwrap();
                    model.settled[i] = true;
                    check(status, &mut model)?;
                }
            }
            if !model.sealed {
                let status = collector.seal().unwrap();
                model.sealed = true;
                check(status, &mut model)?;
            }
            prop_assert!(model.done && collector.is_done());
        }
    }
}

/// A handle is its collector's alone: another collector refuses it as `UnknownOwed` and changes
/// nothing, even when that collector handed out a handle of the same index (a gateway mixing
/// up its batches' handles); its own handle of that index still answers. (A handle was a plain
/// index: the other collector took it for its own, settled its own request's reply with the
/// wrong batch's, and the right batch waited forever.)
#[test]
fn a_handle_of_another_collector_is_refused_even_at_an_index_of_its_own() {
    let mut first = Collector::new();
    let mut second = Collector::new();
    let first_owed = first.owe().unwrap();
    let second_owed = second.owe().unwrap();
    assert_eq!(first_owed.index(), second_owed.index());
    assert_ne!(first_owed, second_owed);
    assert_eq!(first.seal(), Ok(Status::Waiting(1)));
    assert_eq!(second.seal(), Ok(Status::Waiting(1)));

    let mut called = false;
    let refused = second.answer(first_owed, |_| called = true);
    assert_eq!(refused, Err(CollectorError::UnknownOwed));
    assert!(!called, "the writer of a refused answer is not called");
    assert_eq!(second.forgo(first_owed), Err(CollectorError::UnknownOwed));
    assert_eq!(second.waiting(), 1);

    let Ok(Status::Done(Some(line))) = second.answer(second_owed, |out| {
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n")
    }) else {
        panic!("the second batch's own handle answers it")
    };
    assert_eq!(
        &line[..],
        b"[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}]\n"
    );
    assert_eq!(first.forgo(first_owed), Ok(Status::Done(None)));
}
