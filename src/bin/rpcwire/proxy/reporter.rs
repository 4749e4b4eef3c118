//! The proxy's own lines on stderr during a session (violations, timeouts, the counters of
//! `--stats-every`, what it waits for at the end): handed to a thread of their own through a
//! bounded queue, never waiting for stderr, so that a stderr nobody reads (a client that pipes
//! it and never drains it: the pipe fills at 64 KiB) stalls neither the forwarding nor the
//! timeouts. Once the queue is full, a line is dropped and counted, and the thread says how
//! many were once it has caught up. (The `--log` file is written as before: it is complete.)
//! At the end, the thread writes the proxy's last lines too, and the proxy waits for them only
//! while stderr takes some: a stderr nobody reads keeps it from exiting no longer than
//! [`PATIENCE`].

use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{
    Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError, sync_channel,
};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How many lines wait for stderr at most (a report shows at most 120 bytes of its message:
/// most are under 300 bytes, about a megabyte in all).
const QUEUE_LINES: usize = 4096;

/// How many bytes of lines wait for stderr at most (but for one line, when none waits): a
/// report shows its ids and method whole, each up to 64 KiB by default, and 4,096 lines of
/// such a peer's would be hundreds of megabytes. Room for 4,096 lines of 512 bytes.
const QUEUE_BYTES: usize = 2 << 20;

/// Lines written to stderr at once, at most (when more wait): a pipe's `PIPE_BUF`, so that
/// each write reaches a pipe whole, never interleaved with the server's stderr, which is
/// the same pipe.
const WRITE_AT_ONCE: usize = 4096;

/// How long [`Reporter::finish`] waits for stderr to take anything: as long as the proxy waits
/// for a client that does not read its last output, after the server's exit.
const PATIENCE: Duration = super::DRAIN_AFTER_EXIT;

/// What the queue carries.
enum Note {
    Line(String),
    /// The session is over: the rest is written, then these last lines, and the thread ends.
    End(Vec<String>),
}

/// The stderr of the proxy during a session: [`Reporter::say`] queues a line for the thread
/// that writes them, never waiting.
pub(super) struct Reporter {
    queue: SyncSender<Note>,
    /// What the reporter and its thread share besides the queue.
    shared: Arc<ReporterState>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// A tick each time the thread has written (or it has ended: disconnected), for
    /// [`Reporter::finish`] to tell a slow stderr from one nobody reads.
    written: Mutex<Receiver<()>>,
}

/// The counts and the state the reporter and its thread share.
#[derive(Default)]
struct ReporterState {
    /// Lines dropped, the queue full, not told yet.
    dropped: AtomicU64,
    /// The bytes of the lines in the queue (within [`QUEUE_BYTES`]).
    queued_bytes: AtomicUsize,
    /// Set by the thread once it has written its last lines: later lines go to stderr
    /// directly. (Not before: a line said while the proxy ends follows those queued before
    /// it, through the queue, as long as the thread writes them. Held while a line is queued,
    /// so that none is queued once the thread has taken the last, and by the thread while it
    /// writes those it took last, so that none written directly comes before them.)
    closed: Mutex<bool>,
}

impl Reporter {
    /// Starts the thread that writes the lines to stderr, with a queue of [`QUEUE_LINES`]
    /// lines.
    pub(super) fn spawn() -> Reporter {
        let (queue, lines) = sync_channel(QUEUE_LINES);
        let (tick, written) = sync_channel(1);
        let shared = Arc::new(ReporterState::default());
        let thread = {
            let shared = shared.clone();
            std::thread::spawn(move || write_lines(&lines, &shared, &tick))
        };
        Reporter {
            queue,
            shared,
            thread: Mutex::new(Some(thread)),
            written: Mutex::new(written),
        }
    }

    /// Hands `line` (without its line end) to the thread, or drops and counts it when the
    /// queue is full ([`QUEUE_LINES`] lines, or [`QUEUE_BYTES`] bytes). Once the thread has
    /// written the last lines, writes it to stderr directly.
    pub(super) fn say(&self, line: String) {
        let shared = &*self.shared;
        let closed = shared.closed.lock().unwrap_or_else(PoisonError::into_inner);
        let direct = if *closed {
            Some(line)
        } else {
            // (Counted before it is sent, so that the thread never takes out more than is
            // in; taken out again when it is not.)
            let len = line.len();
            let held = shared.queued_bytes.fetch_add(len, Ordering::Relaxed);
            let sent = if held > 0 && held + len > QUEUE_BYTES {
                Err(TrySendError::Full(Note::Line(line)))
            } else {
                self.queue.try_send(Note::Line(line))
            };
            if sent.is_err() {
                shared.queued_bytes.fetch_sub(len, Ordering::Relaxed);
            }
            match sent {
                Ok(()) => None,
                Err(TrySendError::Full(_)) => {
                    shared.dropped.fetch_add(1, Ordering::Relaxed);
                    None
                }
                Err(TrySendError::Disconnected(Note::Line(line))) => Some(line),
                Err(TrySendError::Disconnected(Note::End(_))) => None,
            }
        };
        drop(closed);
        if let Some(line) = direct {
            say!("{line}");
        }
    }

    /// Has the thread write every line queued, the count of those dropped if any, then
    /// `last` (the proxy's last words: what it leaves unanswered, its summary), and waits for
    /// it while stderr takes some of them: `true` once all are written, `false` when
    /// [`PATIENCE`] went by with none taken (a stderr nobody reads). After `false` the caller
    /// must not write to stderr (the thread, stuck in a write, holds it); the process may
    /// exit, which ends the thread.
    pub(super) fn finish(&self, last: Vec<String>) -> bool {
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(thread) = thread else {
            last.iter().for_each(|line| say!("{line}"));
            return true;
        };
        let written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        // Written since the last wait, or ended: stderr took something.
        let taken = || {
            !matches!(
                written.recv_timeout(PATIENCE),
                Err(RecvTimeoutError::Timeout)
            )
        };
        let mut end = Note::End(last);
        loop {
            match self.queue.try_send(end) {
                Ok(()) | Err(TrySendError::Disconnected(_)) => break,
                Err(TrySendError::Full(note)) if taken() => end = note,
                Err(TrySendError::Full(_)) => return false,
            }
        }
        loop {
            match written.recv_timeout(PATIENCE) {
                Ok(()) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    let _ = thread.join();
                    return true;
                }
                Err(RecvTimeoutError::Timeout) => return false,
            }
        }
    }
}

/// The thread's work: writes each line that comes, several at once when more wait, and, each
/// time it has caught up (nothing waits) and at the end, how many were dropped meanwhile; at
/// the end, the last lines, then those queued meanwhile, once `closed` is set (later ones are
/// written directly). Ticks `written` after each write.
fn write_lines(lines: &Receiver<Note>, shared: &ReporterState, written: &SyncSender<()>) {
    let ReporterState {
        dropped,
        queued_bytes,
        closed,
    } = shared;
    let write = |text: &str| {
        write(text);
        // (Full: a tick not taken yet says as much.)
        let _ = written.try_send(());
    };
    let mut out = String::new();
    // (Each line's bytes leave the queue's count as the thread takes it.)
    let took = |note: Note| {
        if let Note::Line(line) = &note {
            queued_bytes.fetch_sub(line.len(), Ordering::Relaxed);
        }
        note
    };
    let mut next = lines.recv().ok().map(took);
    while let Some(Note::Line(line)) = next {
        out.push_str(&line);
        out.push('\n');
        next = match lines.try_recv().map(took) {
            Ok(note) => Some(note),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Note::End(vec![])),
        };
        let more = matches!(&next, Some(Note::Line(l)) if out.len() + l.len() < WRITE_AT_ONCE);
        if more {
            continue;
        }
        write(&out);
        out.clear();
        if next.is_none() {
            // Caught up.
            tell_dropped(dropped, write);
            next = lines.recv().ok().map(took);
        }
    }
    // The end (or the reporter gone): what waits still, then the count, then the last lines.
    let mut last = match next {
        Some(Note::End(last)) => last,
        _ => vec![],
    };
    let mut rest = vec![];
    for note in lines.try_iter().map(took) {
        match note {
            Note::Line(line) => rest.push(line),
            Note::End(lines) => last = lines,
        }
    }
    write_in_pieces(rest, &mut out, write);
    tell_dropped(dropped, write);
    write_in_pieces(last, &mut out, write);
    // The lines said while the last ones were written (the client's side runs on), after
    // them, in the order they came: none is queued once `closed` is set, and those said then
    // are written once these are (held meanwhile).
    let mut closed = closed.lock().unwrap_or_else(PoisonError::into_inner);
    *closed = true;
    let late = lines
        .try_iter()
        .map(took)
        .filter_map(|note| match note {
            Note::Line(line) => Some(line),
            Note::End(_) => None,
        })
        .collect();
    write_in_pieces(late, &mut out, write);
    tell_dropped(dropped, write);
    drop(closed);
}

/// Writes `lines` (after what `out` holds), each with its line end, with `write`, in pieces
/// of at most [`WRITE_AT_ONCE`] bytes (a longer line alone), as the lines of the session go:
/// each piece is whole on a pipe, and each one stderr takes ticks, so that
/// [`Reporter::finish`] waits for a reader that takes them slowly but steadily (the end's
/// lines, thousands of requests unanswered, went in one write, with one tick after it).
fn write_in_pieces(lines: Vec<String>, out: &mut String, write: impl Fn(&str)) {
    for line in lines {
        if !out.is_empty() && out.len() + line.len() >= WRITE_AT_ONCE {
            write(out);
            out.clear();
        }
        out.push_str(&line);
        out.push('\n');
    }
    write(out);
    out.clear();
}

/// Writes the lines dropped since last told, if any, in one line, with `write`.
fn tell_dropped(dropped: &AtomicU64, write: impl Fn(&str)) {
    match dropped.swap(0, Ordering::Relaxed) {
        0 => {}
        1 => write("rpcwire proxy: 1 report dropped: stderr was not keeping up\n"),
        n => write(&format!(
            "rpcwire proxy: {n} reports dropped: stderr was not keeping up\n"
        )),
    }
}

/// Writes `text` to stderr in one write where it can; a stderr that cannot be written (its
/// reader gone) loses it, nothing else.
fn write(text: &str) {
    if !text.is_empty() {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}
