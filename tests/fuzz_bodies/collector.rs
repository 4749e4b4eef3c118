//! The body of the `collector` fuzz target: `batch::Collector` driven by the input's bytes
//! (owe, push, seal, answer, forgo; handles valid, answered already, past what it owes, or
//! another collector's at any index; writers that write nothing, one message, two,
//! whitespace, junk, that clear or replace their buffer, or panic) against a model of what it
//! owes.
//!
//! A module of its own beside the other bodies in `mod.rs`. It panics (with an assertion
//! message) on a finding and never otherwise.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use bytes::BytesMut;
use rpcwire::batch::{Collector, CollectorError, Owed, Status};
use rpcwire::{ErrorCode, Id, RawJson, ReplyId, encode};

use super::{Input, Writer, check_array_of, memchr_count};

/// What a writer handed to `push` or `answer` does with its buffer.
enum Write<'a> {
    /// The writers, one after the other (none, one or two messages).
    Messages(Vec<Writer<'a>>),
    /// Whitespace only: no element.
    Blank(Vec<u8>),
    /// Bytes that are no message: each of their lines that is not blank is an element, as
    /// the writer wrote it.
    Junk(&'a [u8]),
    /// A message written, then the buffer cleared: no element.
    Cleared(Writer<'a>),
    /// The buffer replaced by one of the writer's own holding a message.
    Replaced(Writer<'a>),
    /// A response whose result is nested too deep for an array: replaced by a -32603 error
    /// with its id.
    TooDeep(Vec<u8>),
    /// A response larger than the room the collector makes for an element.
    Large(Vec<u8>, usize),
    /// A message written, then a panic: nothing changes.
    Panics(Writer<'a>),
}

/// The payload of a writer's panic, told apart from any other.
struct WriterPanic;

thread_local! {
    /// Set while a writer may panic on purpose: the panic hook stays quiet.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, catching a panic without the panic hook's report (libFuzzer's hook aborts)
/// while on this thread; every other panic is reported as before.
fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|quiet| quiet.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|quiet| quiet.set(false));
    result
}

impl<'a> Write<'a> {
    fn read(input: &mut Input<'a>) -> Self {
        match input.byte() % 10 {
            0 => Write::Messages(Vec::new()),
            1 | 2 => Write::Messages(vec![Writer::read(input)]),
            3 => Write::Messages(vec![Writer::read(input), Writer::read(input)]),
            4 => {
                let n = usize::from(input.byte() % 5);
                Write::Blank(
                    (0..n)
                        .map(|_| b" \t\r\n"[usize::from(input.byte() % 4)])
                        .collect(),
                )
            }
            5 => Write::Junk(input.bytes()),
            6 => match input.byte() % 3 {
                0 => Write::Cleared(Writer::read(input)),
                1 => Write::Replaced(Writer::read(input)),
                _ => Write::Panics(Writer::read(input)),
            },
            7 => Write::TooDeep(input.id_token()),
            8 => Write::Large(input.id_token(), usize::from(input.byte()) * 8),
            _ => Write::Messages(vec![Writer::read(input)]),
        }
    }

    /// Whether calling it panics.
    fn panics(&self) -> bool {
        matches!(self, Write::Panics(_))
    }

    /// Whether what it writes is not made of messages only.
    fn is_junk(&self) -> bool {
        matches!(self, Write::Junk(_))
    }

    /// Writes into `out` what the collector hands it.
    fn write(&self, out: &mut BytesMut) {
        match self {
            Write::Messages(writers) => writers.iter().for_each(|w| w.write(out)),
            Write::Blank(b) => out.extend_from_slice(b),
            Write::Junk(b) => out.extend_from_slice(b),
            Write::Cleared(w) => {
                w.write(out);
                out.clear();
            }
            Write::Replaced(w) => {
                let mut own = BytesMut::with_capacity(1000);
                w.write(&mut own);
                *out = own;
            }
            Write::TooDeep(id) => {
                let deep = super::nested_value(130);
                let deep = RawJson::with_max_depth(&deep, 200).expect("valid JSON");
                let id = Id::from_token(id).expect("an encoded id is a valid token");
                encode::write_response(out, id, deep);
            }
            Write::Large(id, n) => {
                let id = Id::from_token(id).expect("an encoded id is a valid token");
                let text = format!("\"{}\"", "x".repeat(*n));
                encode::write_response(out, id, RawJson::new(text.as_bytes()).unwrap());
            }
            Write::Panics(w) => {
                w.write(out);
                std::panic::panic_any(WriterPanic);
            }
        }
    }

    /// What it writes into an empty buffer of its own, which a `BatchReply` push appends.
    fn output(&self) -> Vec<u8> {
        let mut out = BytesMut::new();
        self.write(&mut out);
        out.to_vec()
    }

    /// The messages it writes, each as it is alone: the array's elements (none for a junk
    /// writer, whose elements the `BatchReply` comparison checks).
    fn messages(&self) -> Vec<Vec<u8>> {
        match self {
            Write::Messages(writers) => writers.iter().filter_map(Writer::alone).collect(),
            Write::Blank(_) | Write::Junk(_) | Write::Cleared(_) | Write::Panics(_) => Vec::new(),
            Write::Replaced(w) => w.alone().into_iter().collect(),
            Write::TooDeep(id) => {
                let id = Id::from_token(id).unwrap();
                let mut out = BytesMut::new();
                let code = ErrorCode::INTERNAL_ERROR;
                encode::write_error(&mut out, ReplyId::Id(id), code, "Internal error", None);
                vec![out[..out.len() - 1].to_vec()]
            }
            Write::Large(..) => {
                let out = self.output();
                vec![out[..out.len() - 1].to_vec()]
            }
        }
    }
}

/// The collector as it should be.
#[derive(Default)]
struct Model {
    max_owed: usize,
    /// Per handle handed out: whether its reply was answered or forgone.
    settled: Vec<bool>,
    sealed: bool,
    done: bool,
    /// The writers whose elements are in the array, in the order they were called.
    writes: Vec<usize>,
}

impl Model {
    fn waiting(&self) -> usize {
        self.settled.iter().filter(|s| !**s).count()
    }

    fn check_open(&self) -> Result<(), CollectorError> {
        if self.done {
            Err(CollectorError::AlreadyDone)
        } else if self.sealed {
            Err(CollectorError::AlreadySealed)
        } else {
            Ok(())
        }
    }

    /// The answer to a handle: `foreign`, another collector's (refused whatever its index).
    fn check_owed(&self, owed: Owed, foreign: bool) -> Result<(), CollectorError> {
        if self.done {
            Err(CollectorError::AlreadyDone)
        } else if foreign || owed.index() >= self.settled.len() {
            Err(CollectorError::UnknownOwed)
        } else if self.settled[owed.index()] {
            Err(CollectorError::AlreadySettled)
        } else {
            Ok(())
        }
    }
}

/// Up to this many operations.
const OPS: usize = 48;

/// Drives a `Collector` from the input against [`Model`]; when it is done, checks its reply
/// against `BatchReply` fed the same writers' outputs and against the messages written.
pub fn collector(data: &[u8]) {
    let mut input = Input(data);
    let bound = input.byte();
    let mut model = Model {
        max_owed: if bound < 128 {
            usize::from(bound % 72)
        } else {
            rpcwire::Limits::DEFAULT.max_batch_len
        },
        ..Model::default()
    };
    let mut collector = if bound < 128 {
        Collector::with_max_owed(model.max_owed)
    } else {
        Collector::new()
    };
    // Handles of another collector, at indices this one may or may not have handed out:
    // refused either way (each handle names its collector).
    let mut other = Collector::new();
    let foreign: Vec<Owed> = (0..140).map(|_| other.owe().unwrap()).collect();
    let mut handles: Vec<Owed> = Vec::new();
    let mut writes: Vec<Write<'_>> = Vec::new();
    let mut reply: Option<Option<bytes::Bytes>> = None;
    let mut log = String::new();

    for _ in 0..OPS {
        if input.0.is_empty() {
            break;
        }
        let op = input.byte() % 8;
        let status = match op {
            0 | 1 => {
                let n = if op == 0 {
                    1
                } else {
                    usize::from(input.byte() % 80)
                };
                for _ in 0..n {
                    let want = if model.settled.len() >= model.max_owed {
                        model.check_open().and(Err(CollectorError::TooManyOwed {
                            limit: u32::try_from(model.max_owed).unwrap_or(u32::MAX),
                        }))
                    } else {
                        model.check_open()
                    };
                    let got = collector.owe();
                    log.push_str(&format!("owe -> {got:?}\n"));
                    match (want, got) {
                        (Ok(()), Ok(owed)) => {
                            assert_eq!(owed.index(), model.settled.len(), "{log}");
                            model.settled.push(false);
                            handles.push(owed);
                        }
                        (want, got) => assert_eq!(got.map(|_| ()), want, "{log}"),
                    }
                }
                None
            }
            2 => {
                let write = Write::read(&mut input);
                let want = model.check_open();
                let called = Cell::new(false);
                let got = quietly(|| {
                    collector.push(|out| {
                        called.set(true);
                        assert!(out.is_empty(), "a writer is handed an empty buffer");
                        write.write(out);
                    })
                });
                log.push_str(&format!("push -> {:?}\n", got.as_ref().ok()));
                settled_as(got, want, write.panics(), &called, &log);
                if want.is_ok() && !write.panics() {
                    model.writes.push(writes.len());
                }
                writes.push(write);
                None
            }
            3 => {
                let want = model.check_open();
                let got = collector.seal();
                log.push_str(&format!("seal -> {got:?}\n"));
                assert_eq!(got.as_ref().map(|_| ()).map_err(|e| *e), want, "{log}");
                if want.is_ok() {
                    model.sealed = true;
                }
                got.ok()
            }
            4 | 5 => {
                let pick = input.byte();
                let is_foreign = pick >= 160 || handles.is_empty();
                let owed = if is_foreign {
                    foreign[usize::from(pick) % foreign.len()]
                } else {
                    handles[usize::from(pick) % handles.len()]
                };
                let want = model.check_owed(owed, is_foreign);
                if op == 4 {
                    let write = Write::read(&mut input);
                    let called = Cell::new(false);
                    let got = quietly(|| {
                        collector.answer(owed, |out| {
                            called.set(true);
                            assert!(out.is_empty(), "a writer is handed an empty buffer");
                            write.write(out);
                        })
                    });
                    log.push_str(&format!(
                        "answer {} -> {:?}\n",
                        owed.index(),
                        got.as_ref().ok()
                    ));
                    let status = settled_as(got, want, write.panics(), &called, &log);
                    if want.is_ok() && !write.panics() {
                        model.settled[owed.index()] = true;
                        model.writes.push(writes.len());
                    }
                    writes.push(write);
                    status
                } else {
                    let got = collector.forgo(owed);
                    log.push_str(&format!("forgo {} -> {got:?}\n", owed.index()));
                    assert_eq!(got.as_ref().map(|_| ()).map_err(|e| *e), want, "{log}");
                    if want.is_ok() {
                        model.settled[owed.index()] = true;
                    }
                    got.ok()
                }
            }
            _ => {
                // A writer that panics, handed to push or answer, whatever the state.
                let write = Write::Panics(Writer::read(&mut input));
                let want = model.check_open();
                let called = Cell::new(false);
                let got = quietly(|| {
                    collector.push(|out| {
                        called.set(true);
                        write.write(out);
                    })
                });
                log.push_str(&format!("push (panics) -> {:?}\n", got.as_ref().ok()));
                settled_as(got, want, true, &called, &log);
                None
            }
        };
        if let Some(status) = status {
            let waiting = model.waiting();
            match status {
                Status::Waiting(n) => {
                    assert!(
                        !(model.sealed && waiting == 0),
                        "sealed, none owed, yet waiting: {log}"
                    );
                    assert_eq!(n, waiting, "{log}");
                }
                Status::Done(line) => {
                    assert!(model.sealed && waiting == 0, "done too soon: {log}");
                    model.done = true;
                    reply = Some(line);
                }
            }
        }
        assert_eq!(
            collector.waiting(),
            if model.done { 0 } else { model.waiting() },
            "{log}"
        );
        assert_eq!(collector.is_sealed(), model.sealed, "{log}");
        assert_eq!(collector.is_done(), model.done, "{log}");
        let _ = format!("{collector:?}");
    }
    let Some(line) = reply else {
        assert!(!model.done, "{log}");
        return;
    };
    check_reply(line, &model.writes, &writes, &log);
}

/// Checks a call of `push` or `answer` (`got`, caught) against the model's answer (`want`):
/// a refused call does not call its writer; a writer that panics leaves the panic (its own)
/// and nothing else. Returns the status of a call that went through.
fn settled_as<T: std::fmt::Debug>(
    got: std::thread::Result<Result<T, CollectorError>>,
    want: Result<(), CollectorError>,
    panics: bool,
    called: &Cell<bool>,
    log: &str,
) -> Option<T> {
    let got = match got {
        Ok(got) => got,
        Err(payload) => {
            assert!(
                payload.is::<WriterPanic>(),
                "the collector panicked: {:?}, {log}",
                payload
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or(payload.downcast_ref::<&str>().copied())
            );
            assert!(panics && want.is_ok(), "{log}");
            return None;
        }
    };
    assert_eq!(
        called.get(),
        want.is_ok(),
        "the writer is called exactly when the call goes through: {log}"
    );
    assert!(
        !(panics && want.is_ok()),
        "a writer's panic did not come through: {log}"
    );
    match (got, want) {
        (Ok(status), Ok(())) => Some(status),
        (got, want) => {
            assert_eq!(got.map(|_| ()), want, "{log}");
            None
        }
    }
}

/// The reply handed out, against `BatchReply` fed the outputs of the writers whose calls went
/// through, in order; and, when every writer wrote messages, against those messages.
fn check_reply(line: Option<bytes::Bytes>, kept: &[usize], writes: &[Write<'_>], log: &str) {
    let mut out = BytesMut::new();
    let mut batch = encode::BatchReply::open(&mut out);
    for &i in kept {
        let output = writes[i].output();
        batch.push(|out| out.extend_from_slice(&output));
    }
    let written = batch.close();
    let shown = line
        .as_ref()
        .map(|l| String::from_utf8_lossy(l).into_owned());
    let what = format!("the reply {shown:?}, {log}");
    match &line {
        None => assert!(!written, "no reply, yet elements were written: {what}"),
        Some(line) => {
            assert!(written, "a reply, yet no element was written: {what}");
            assert_eq!(&line[..], &out[..], "not what BatchReply writes, {what}");
            assert_eq!(memchr_count(line), 1, "{what}");
            assert!(line.ends_with(b"]\n") && line.starts_with(b"["), "{what}");
        }
    }
    if kept.iter().any(|&i| writes[i].is_junk()) {
        return;
    }
    let messages: Vec<Vec<u8>> = kept.iter().flat_map(|&i| writes[i].messages()).collect();
    match line {
        None => assert!(messages.is_empty(), "{what}"),
        Some(line) => check_array_of(&line[..line.len() - 1], &messages, &what),
    }
}
