//! The `--log` file's records: one JSON line per message (or batch element), and the events
//! and counters that are not messages, each written through the [`State`] (the session and
//! the log, behind one lock, so that the log's order is the session's).

use std::fs::File;
use std::io::{self, BufWriter, Write};

use rpcwire::{Id, Reply, ReplyId};

use super::state::State;
use crate::session::{Dir, Observation, Violation};

/// The `--log` file: records buffered, written a megabyte at a time. The first write to it
/// that fails ends the log: nothing more is written, so that the file holds the session's
/// records from its start, in order, with no gap (a record lost while later ones are written,
/// as a full disk that frees up would leave, makes `check --session-log` see another
/// session). The failure is told once on stderr as soon as it happens
/// ([`untold_failure`](Self::untold_failure)), and again at exit ([`finish`](Self::finish)).
pub(super) struct LogFile {
    out: BufWriter<File>,
    /// The first write that failed, and whether it was told.
    failure: Option<(io::Error, bool)>,
    /// Whether the session has ended and only its last records are left to write
    /// ([`session_ended`](Self::session_ended)).
    ended: bool,
}

impl LogFile {
    pub(super) fn new(file: File) -> LogFile {
        // A large buffer: a record per message, one write per megabyte.
        LogFile {
            out: BufWriter::with_capacity(1 << 20, file),
            failure: None,
            ended: false,
        }
    }

    /// Marks the session as over: a write that fails from now on (the unanswered requests'
    /// and the summary's records) is not told as one the session goes on after.
    pub(super) fn session_ended(&mut self) {
        self.ended = true;
    }

    /// Appends `bytes` (records, each with its line end), unless a write has failed.
    pub(super) fn write(&mut self, bytes: &[u8]) {
        if self.failure.is_none()
            && let Err(e) = self.out.write_all(bytes)
        {
            self.failure = Some((e, false));
        }
    }

    /// Writes out what is buffered, unless a write has failed.
    pub(super) fn flush(&mut self) {
        if self.failure.is_none()
            && let Err(e) = self.out.flush()
        {
            self.failure = Some((e, false));
        }
    }

    /// The line telling the failed write, the first time it is asked after the failure.
    pub(super) fn untold_failure(&mut self) -> Option<String> {
        match &mut self.failure {
            Some((e, told @ false)) => {
                *told = true;
                let after = if self.ended {
                    ""
                } else {
                    "; the session goes on"
                };
                Some(format!(
                    "rpcwire proxy: writing the log failed ({e}): it ends here{after}"
                ))
            }
            _ => None,
        }
    }

    /// At the session's end: writes out what is buffered, and returns the line telling the
    /// failed write, if one failed (told before or not), for the last lines on stderr.
    pub(super) fn finish(&mut self) -> Option<String> {
        self.flush();
        let (e, told) = self.failure.as_mut()?;
        *told = true;
        Some(format!(
            "rpcwire proxy: the log ended early: writing it failed ({e})"
        ))
    }
}

/// Appends `s` as a JSON string.
fn json_str(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(out, s).expect("writing to a Vec");
}

/// Appends `bytes` (an id's wire token) as a JSON string.
fn json_token(out: &mut Vec<u8>, bytes: &[u8]) {
    json_str(out, &String::from_utf8_lossy(bytes));
}

/// Appends `"key":value-or-null`, with a leading comma.
fn json_opt<T>(
    out: &mut Vec<u8>,
    key: &str,
    value: Option<T>,
    write: impl FnOnce(&mut Vec<u8>, T),
) {
    out.push(b',');
    json_str(out, key);
    out.push(b':');
    match value {
        Some(v) => write(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

thread_local! {
    /// The log record being written by this thread (reused: a record allocates nothing, but
    /// for one that grows it past [`rpcwire::REUSE_KEEP`], after which its memory is given
    /// back: a record holds ids, method names and tool names, up to a frame's length).
    static RECORD: core::cell::RefCell<Vec<u8>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// Hands `write` this thread's record buffer, emptied, to write a record into and use it;
/// the buffer is kept for the next record unless that one grew it past
/// [`rpcwire::REUSE_KEEP`].
fn with_record(write: impl FnOnce(&mut Vec<u8>)) {
    RECORD.with_borrow_mut(|r| {
        r.clear();
        write(r);
        if r.capacity() > rpcwire::REUSE_KEEP {
            *r = Vec::new();
        }
    });
}

/// One message's (or batch element's) line of the log.
pub(super) struct Record<'r> {
    pub(super) dir: Dir,
    pub(super) now: u64,
    pub(super) obs: &'r Observation<'r>,
    /// The frame's length; `None` for an over-long line whose length is not known
    /// ([`Seen::TooLong`](super::item::Seen::TooLong)).
    pub(super) size: Option<usize>,
    /// The reply the proxy sent in the message's place.
    pub(super) reply: Option<Reply<'r>>,
    /// The index of a batch element in its batch.
    pub(super) element: Option<usize>,
    /// A batch dropped whole ([`Session::drop_batch`](crate::session::Session::drop_batch)).
    pub(super) dropped: bool,
    pub(super) violation: Option<Violation>,
    /// The id the message went on with in place of its own
    /// ([`Verdict::forward_id`](crate::session::Verdict::forward_id)): logged as `upstream_id`
    /// on a client request, `client_id` on the server's reply.
    pub(super) forward_id: Option<Id<'r>>,
}

/// Appends `record` as one JSON line.
fn write_record(r: &mut Vec<u8>, record: &Record<'_>) {
    let Record {
        dir,
        now,
        obs,
        size,
        reply,
        element,
        dropped,
        violation,
        forward_id,
    } = *record;
    // `write!` into a `Vec` cannot fail.
    let _ = write!(r, "{{\"dir\":\"{}\",\"t_ms\":{now},\"kind\":", dir.as_str());
    json_str(r, obs.kind);
    json_opt(r, "id", obs.id, |r, id| json_token(r, id.raw()));
    if let Some(forward_id) = forward_id {
        r.push(b',');
        json_str(r, forwarded_id_field(dir));
        r.push(b':');
        json_token(r, forward_id.raw());
    }
    json_opt(r, "method", obs.method, json_str);
    json_opt(r, "error_code", obs.error_code, |r, c| {
        let _ = write!(r, "{c}");
    });
    json_opt(r, "cancels", obs.cancels, |r, id| json_token(r, id.raw()));
    json_opt(r, "protocol_version", obs.protocol_version, json_str);
    json_opt(r, "progress_token", obs.progress_token, |r, t| {
        json_token(r, t.raw())
    });
    // (Only when read: a progress notification, whose next must report more. Written as Rust
    // spells an `f64`, the shortest that reads back as the same number.)
    if let Some(progress) = obs.progress {
        let _ = write!(r, ",\"progress\":{progress:?}");
    }
    // (Only when there: a progress or cancellation notification whose params break the
    // schema of some version, which the replay's session judges under its version as the
    // proxy's did; an `initialize` or the success to it that breaks the handshake's.)
    if let Some(fault) = obs.params_fault {
        r.extend_from_slice(b",\"params_fault\":");
        json_str(r, fault.as_str());
    }
    json_opt(r, "subscription", obs.subscription, |r, id| {
        json_token(r, id.raw())
    });
    // (Only when there: a request asking progress for a task, a message telling of a task.)
    if obs.task_augmented {
        r.extend_from_slice(b",\"task_augmented\":true");
    }
    if let Some((task, ended)) = obs.task {
        r.extend_from_slice(b",\"task\":");
        json_token(r, task.raw());
        if ended {
            r.extend_from_slice(b",\"task_ended\":true");
        }
    }
    // (Only when read: the reply to a tools/list the session checks.)
    if let Some(tools) = obs.invalid_tools {
        r.extend_from_slice(b",\"invalid_tools\":");
        json_str(r, tools);
    }
    // (Left out when not known, rather than a wrong number.)
    if let Some(size) = size {
        let _ = write!(r, ",\"size\":{size}");
    }
    json_opt(r, "reply", reply, |r, reply| {
        let _ = write!(r, "{{\"code\":{},\"id\":", reply.code.get());
        match reply.id {
            ReplyId::Id(id) => json_token(r, id.raw()),
            ReplyId::Null => json_str(r, "null"),
            ReplyId::Absent => json_str(r, "<absent>"),
        }
        r.push(b'}');
    });
    if let Some(index) = element {
        let _ = write!(r, ",\"element\":{index}");
    }
    if dropped {
        r.extend_from_slice(b",\"dropped\":true");
    }
    r.extend_from_slice(b",\"violation\":");
    match violation {
        Some(v) => json_str(r, v.as_str()),
        None => r.extend_from_slice(b"null"),
    }
    r.extend_from_slice(b"}\n");
}

/// The name of the log field holding the id a message sent in `dir` went on with, when the
/// proxy rewrote it: a client request's minted id, the client's id restored on the reply.
fn forwarded_id_field(dir: Dir) -> &'static str {
    match dir {
        Dir::C2s => "upstream_id",
        Dir::S2c => "client_id",
    }
}

impl State {
    /// Writes a message's log record, into a reused buffer, so that a record allocates
    /// nothing.
    pub(super) fn log_record(&mut self, record: &Record<'_>) {
        let Some(log) = self.log.as_mut() else {
            return;
        };
        with_record(|r| {
            write_record(r, record);
            log.write(r);
        });
    }

    /// Appends one record and its line end to the log, when there is one (a failed write ends
    /// the log, never the proxy: [`LogFile`]).
    pub(super) fn write_log(&mut self, record: &[u8]) {
        if let Some(log) = self.log.as_mut() {
            log.write(record);
            log.write(b"\n");
        }
    }

    /// A log record for the reply owed to an invalid element of a timed-out client batch,
    /// sent by the proxy (`id`: the id it carries; `None`: null).
    pub(super) fn log_owed_answered(&mut self, t_ms: u64, id: Option<Id<'_>>) {
        if self.log.is_none() {
            return;
        }
        let mut r = Vec::with_capacity(96);
        r.extend_from_slice(b"{\"event\":\"owed_answered\",\"dir\":\"c2s\",");
        r.extend_from_slice(format!("\"t_ms\":{t_ms}").as_bytes());
        json_opt(&mut r, "id", id, |r, id| json_token(r, id.raw()));
        r.push(b'}');
        self.write_log(&r);
    }

    /// A log record for something that is not a message (`timeout`, `unanswered`). `id` is
    /// the sender's id for the request; `upstream_id` the one the proxy minted for the
    /// server, if any.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn log_event(
        &mut self,
        t_ms: u64,
        event: &str,
        dir: Dir,
        id: Id<'_>,
        upstream_id: Option<Id<'_>>,
        method: &str,
        v: Violation,
    ) {
        if self.log.is_none() {
            return;
        }
        let mut r = Vec::with_capacity(128);
        r.extend_from_slice(b"{\"event\":");
        json_str(&mut r, event);
        r.extend_from_slice(b",\"dir\":");
        json_str(&mut r, dir.as_str());
        r.extend_from_slice(format!(",\"t_ms\":{t_ms},\"id\":").as_bytes());
        json_token(&mut r, id.raw());
        if let Some(upstream_id) = upstream_id {
            r.extend_from_slice(b",\"upstream_id\":");
            json_token(&mut r, upstream_id.raw());
        }
        r.extend_from_slice(b",\"method\":");
        json_str(&mut r, method);
        r.extend_from_slice(b",\"violation\":");
        json_str(&mut r, v.as_str());
        r.push(b'}');
        self.write_log(&r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log on `/dev/full`, which takes nothing: its first write out fails.
    fn full_log() -> LogFile {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        LogFile::new(full)
    }

    /// After a failed write (to `/dev/full`, which takes nothing), nothing more is taken: a
    /// later record would follow a gap. The failure is told once, and again at the end.
    #[test]
    fn a_failed_write_ends_the_log_and_is_told_once() {
        let mut log = full_log();
        log.write(b"{\"first\":1}\n");
        assert_eq!(log.untold_failure(), None, "buffered: nothing failed yet");
        log.flush();
        let told = log.untold_failure().expect("the flush failed");
        assert!(
            told.starts_with("rpcwire proxy: writing the log failed ("),
            "{told}"
        );
        assert_eq!(log.untold_failure(), None, "told once");
        let held = log.out.buffer().to_vec();
        log.write(b"{\"second\":2}\n");
        assert_eq!(
            log.out.buffer(),
            &held[..],
            "nothing taken after the failure"
        );
        let last = log.finish().expect("told again at the end");
        assert!(
            last.starts_with("rpcwire proxy: the log ended early: "),
            "{last}"
        );
    }

    /// A write that fails once the session is over (its summary's) is told without saying
    /// the session goes on: it has ended.
    #[test]
    fn a_failure_after_the_session_ended_does_not_say_it_goes_on() {
        let mut log = full_log();
        log.write(b"{\"first\":1}\n");
        log.session_ended();
        log.flush();
        let told = log.untold_failure().expect("the flush failed");
        assert!(
            told.starts_with("rpcwire proxy: writing the log failed (")
                && told.ends_with("it ends here"),
            "{told}"
        );
    }

    /// A record of 1 MiB, then a short one: the thread's record buffer keeps no more than
    /// `REUSE_KEEP` (it held the large record's memory for good); short ones reuse it.
    #[test]
    fn a_large_record_is_not_held_after_it() {
        with_record(|r| r.extend_from_slice(&vec![b' '; 1 << 20]));
        with_record(|r| r.extend_from_slice(b"{}"));
        let kept = RECORD.with_borrow(Vec::capacity);
        assert!(kept <= rpcwire::REUSE_KEEP, "the buffer holds {kept} bytes");
        // Kept, not given back as well (an empty `Vec` has no memory to compare).
        assert!(kept >= 2, "the short record's buffer is kept: {kept}");
        let memory = RECORD.with_borrow(|r| r.as_ptr());
        with_record(|r| r.extend_from_slice(b"{}"));
        assert_eq!(
            RECORD.with_borrow(|r| r.as_ptr()),
            memory,
            "short ones reuse it"
        );
    }
}
