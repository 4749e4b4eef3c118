//! What one side does with the lines it reads: frames and decodes them, has the shared state
//! observe each, and sorts them into the runs it forwards and the replies the proxy sends
//! itself.

use bytes::{Bytes, BytesMut};
use rpcwire::{
    DecodeError, DecodeOptions, DecodedLine, Decoder, FrameError, LineFramer, Lines, Role, encode,
};

use super::ProxyArgs;
use super::item::{Answering, LocalReply, Seen};
use super::pipes::Parts;
use super::state::{Observed, Prepared, Shared};
use crate::session::{Dir, Verdict};

/// What one side does with the lines it reads.
pub(super) struct Sorter {
    dir: Dir,
    framer: LineFramer,
    decoder: Decoder,
    /// Whether `decoder` follows the negotiated protocol version yet.
    adopted_version: bool,
    answering: Answering,
    /// Runs of lines to forward to the other side, each line ending in `\n`.
    pub(super) forward: Parts,
    /// Local replies to the client (client side only).
    pub(super) replies: BytesMut,
    /// A run of a chunk's lines, decoded and waiting to be observed: empty between chunks,
    /// kept for its allocation ([`recycled`]).
    pending: Vec<PendingLine<'static>>,
}

/// One line of a chunk, decoded, waiting to be observed.
struct PendingLine<'c> {
    /// Where it starts in the chunk.
    at: usize,
    item: Prepared<'c>,
}

/// Where the sorting of one chunk's lines stands.
struct ChunkOut<'c> {
    chunk: &'c Bytes,
    /// The lines forwarded as they came, not queued yet: one slice of the chunk.
    run: std::ops::Range<usize>,
    /// Whether the chunk holds a `\r` anywhere.
    has_cr: bool,
    /// When the chunk arrived, in the clock's milliseconds.
    now: u64,
}

/// The most lines decoded ahead of their observation, observed under one lock: a bound on the
/// memory they take (a hundred bytes or so each, however short the line) and on how long the
/// other side may wait for the lock.
const LINES_PER_LOCK: usize = 256;

/// `lines` emptied, for lines of another chunk: the same allocation (an empty vector collected
/// from an empty one of a type of the same layout keeps its buffer), so that a chunk costs no
/// allocation once one run as long has been sorted.
fn recycled<'b>(mut lines: Vec<PendingLine<'_>>) -> Vec<PendingLine<'b>> {
    lines.clear();
    lines.into_iter().map(|_| unreachable!("emptied")).collect()
}

impl Sorter {
    pub(super) fn new(dir: Dir, args: &ProxyArgs) -> Sorter {
        let role = match dir {
            Dir::C2s => Role::Server,
            Dir::S2c => Role::Client,
        };
        let decoder = decoder(args, role);
        Sorter {
            dir,
            framer: LineFramer::new(args.max_frame),
            answering: Answering {
                client: dir == Dir::C2s,
                invalid: !args.drop_invalid,
                too_long: decoder.parse_error_reply(),
            },
            decoder,
            adopted_version: false,
            forward: Parts::new(),
            replies: BytesMut::new(),
            pending: Vec::new(),
        }
    }

    /// Decodes, observes and sorts every complete line in `buf` (every line, at `eof`).
    pub(super) fn sort(&mut self, shared: &Shared, buf: &mut BytesMut, eof: bool) {
        loop {
            let chunk = if eof {
                self.framer.decode_chunk_eof(buf)
            } else {
                self.framer.decode_chunk(buf)
            };
            match chunk {
                Ok(Some(chunk)) => self.sort_chunk(shared, chunk),
                Ok(None) => break,
                // Reported when it crossed the limit, before its end: its length is unknown.
                Err(_) => self.too_long(shared, None),
            }
        }
    }

    /// Sorts the lines of one chunk, in runs of at most [`LINES_PER_LOCK`]: a run's lines are
    /// decoded first (the heavy work, done while the other side observes its own), then
    /// observed under one lock, in order. Lines forwarded one after the other, each ending in
    /// a plain `\n`, go out as one slice of the chunk: no copy.
    fn sort_chunk(&mut self, shared: &Shared, chunk: Bytes) {
        // One clock reading per chunk: its lines arrived together. (An arrival, rounded up: a
        // deadline counted from it never falls due before its whole timeout has passed.)
        let now = shared.clock.arrival_ms();
        // A `\r` is rare: one search of the chunk spares most lines a search of their own.
        let has_cr = memchr::memchr(b'\r', &chunk).is_some();
        let mut out = ChunkOut {
            chunk: &chunk,
            run: 0..0,
            has_cr,
            now,
        };
        let mut pending = recycled(std::mem::take(&mut self.pending));
        let mut lines = Lines::new(&chunk, self.framer.max_frame());
        loop {
            self.adopt_protocol_version(shared);
            // Framed and decoded in one pass where the line allows it.
            let decoded = std::iter::from_fn(|| lines.next_decoded(&self.decoder));
            let decoded = decoded.take(LINES_PER_LOCK);
            pending.extend(decoded.map(|line| self.pending_line(&chunk, line)));
            if pending.is_empty() {
                break;
            }
            self.observe_run(shared, &mut out, &mut pending);
            pending.clear();
        }
        self.push_run(&chunk, &out.run);
        self.pending = recycled(pending);
    }

    /// Observes and sorts a run of a chunk's lines, decoded: under one lock, unless the
    /// session's protocol version comes meanwhile.
    fn observe_run<'c>(
        &mut self,
        shared: &Shared,
        out: &mut ChunkOut<'c>,
        lines: &mut [PendingLine<'c>],
    ) {
        let mut observed = 0;
        loop {
            observed += self.observe_lines(shared, out, &lines[observed..]);
            if observed == lines.len() {
                return;
            }
            // The session's protocol version came before this line (from one of the run's
            // lines, or from the other side meanwhile): the lines left are decoded again, with
            // its rules, as they would have been one by one.
            self.adopt_protocol_version(shared);
            self.decode_again(&mut lines[observed..]);
        }
    }

    /// One line of `chunk` as `Lines::next_decoded` gave it, ready to be observed.
    fn pending_line<'c>(
        &self,
        chunk: &'c [u8],
        line: Result<DecodedLine<'c>, FrameError>,
    ) -> PendingLine<'c> {
        let (at, seen) = match line {
            Ok(DecodedLine {
                offset,
                frame,
                message: Ok(msg),
            }) => (offset, Seen::Message(msg, frame)),
            Ok(DecodedLine {
                offset,
                frame,
                message: Err(rejection),
            }) => {
                // The reply to `initialize`, read by the rules it selects: see
                // `initialize_reply_reader` (a frame refused for its `resultType` alone, and
                // only while no version is known).
                let legacy = (!self.adopted_version
                    && rejection.error() == DecodeError::BadResultType)
                    .then(|| crate::check::initialize_reply_reader(&self.decoder, frame))
                    .flatten();
                if let Some(legacy) = legacy
                    && let Ok(msg) = legacy.decode(frame)
                {
                    return PendingLine {
                        at: offset,
                        item: Prepared::new(self.dir, Seen::Message(msg, frame), &legacy),
                    };
                }
                (offset, Seen::Rejected(rejection, frame))
            }
            Err(e) => {
                // Whole in the chunk: its length is known.
                let at = usize::try_from(e.offset()).expect("an offset in the chunk");
                (at, Seen::TooLong(Some(line_len(&chunk[at..]))))
            }
        };
        PendingLine {
            at,
            item: Prepared::new(self.dir, seen, &self.decoder),
        }
    }

    /// Decodes `lines` again with the present decoder (an over-long line stays one: the frame
    /// limit is the same in every version's rules).
    fn decode_again(&self, lines: &mut [PendingLine<'_>]) {
        for line in lines {
            if let Seen::Message(_, frame) | Seen::Rejected(_, frame) = line.item.seen {
                let seen = match self.decoder.decode(frame) {
                    Ok(msg) => Seen::Message(msg, frame),
                    Err(rejection) => Seen::Rejected(rejection, frame),
                };
                line.item = Prepared::new(self.dir, seen, &self.decoder);
            }
        }
    }

    /// Observes `lines` in order under one lock, and sorts each, until one was decoded by a
    /// decoder the session's protocol version has since replaced; returns how many it
    /// observed. What stderr is told of them is printed once the lock is released.
    fn observe_lines<'c>(
        &mut self,
        shared: &Shared,
        out: &mut ChunkOut<'c>,
        lines: &[PendingLine<'c>],
    ) -> usize {
        let mut reports = Vec::new();
        let mut state = shared.lock();
        let mut observed = 0;
        for line in lines {
            if self.decoder_outdated(shared) {
                break;
            }
            let now = match line.item.seen {
                // (Its own clock reading, as an over-long line's that ends in a later read.)
                Seen::TooLong(_) => shared.clock.arrival_ms(),
                _ => out.now,
            };
            let (observed_line, report) = shared.observe_locked(
                &mut state,
                self.dir,
                &line.item,
                now,
                &self.answering,
                &self.decoder,
            );
            let verdict = self.sort_line(out, line, observed_line);
            if let Some(report) = report {
                reports.push((report, verdict));
            }
            observed += 1;
        }
        drop(state);
        for (report, verdict) in reports {
            shared.report(self.dir, &self.decoder, &verdict, report);
        }
        observed
    }

    /// Whether the session's protocol version was negotiated since the decoder last adopted
    /// it: a line decoded before then is decoded again.
    fn decoder_outdated(&self, shared: &Shared) -> bool {
        !self.adopted_version && shared.negotiated.get().is_some()
    }

    /// Queues what the proxy sends for one observed line of `out`'s chunk: its reply, the
    /// array in its place, the line itself (its `\r\n` a `\n`, a `\r` in it a space), or with
    /// its id rewritten. Lines forwarded one after the other, each ending in a plain `\n`, go
    /// out as one slice of the chunk: no copy. Returns the session's verdict on the line.
    fn sort_line(
        &mut self,
        out: &mut ChunkOut<'_>,
        line: &PendingLine<'_>,
        observed: Observed<'_>,
    ) -> Verdict {
        let Observed {
            verdict,
            reply,
            in_place,
        } = observed;
        let (at, chunk) = (line.at, out.chunk);
        if let Some(reply) = reply {
            self.answer(reply);
        }
        if let Some(array) = in_place {
            // In order with what was forwarded before it.
            self.push_run(chunk, &out.run);
            out.run = 0..0;
            self.forward.push(array);
        }
        let (Seen::Message(msg, frame), true) = (&line.item.seen, verdict.forward) else {
            return verdict;
        };
        if let (Some(forward_id), Some(id)) = (&verdict.forward_id, msg.id()) {
            // A client request under the id the session minted, or the server's reply
            // to one with the client's id restored: a copy of the line with its id
            // replaced, the rest byte for byte (a `\r` a space, as below).
            self.push_run(chunk, &out.run);
            out.run = 0..0;
            let mut line = BytesMut::with_capacity(frame.len() + forward_id.as_id().raw().len());
            encode::write_with_id(&mut line, frame, id, forward_id.as_id());
            self.forward.push(line.freeze());
            return verdict;
        }
        let end = at + frame.len();
        if out.has_cr && memchr::memchr(b'\r', frame).is_some() {
            // Whitespace in a valid message (a raw `\r` is nowhere else), but a line
            // end to a reader in universal-newline mode (Python's text stdin, which
            // MCP's Python SDK reads): it goes on as a space, in a copy of the line.
            self.push_run(chunk, &out.run);
            out.run = 0..0;
            let mut line = BytesMut::with_capacity(frame.len() + 1);
            line.extend(frame.iter().map(|&b| if b == b'\r' { b' ' } else { b }));
            line.extend_from_slice(b"\n");
            self.forward.push(line.freeze());
            return verdict;
        }
        if out.run.end != at {
            self.push_run(chunk, &out.run);
            out.run = at..at;
        }
        if chunk.get(end) == Some(&b'\n') {
            out.run.end = end + 1;
        } else {
            // `\r\n`, or the last line without a newline: forwarded with `\n`, after the
            // lines of the run before it (`out.run` ends at `at`).
            out.run.end = end;
            self.push_run(chunk, &out.run);
            self.forward.push(Bytes::from_static(b"\n"));
            out.run = 0..0;
        }
        verdict
    }

    /// Once the session knows the negotiated protocol version, decodes with its rules: a
    /// result's `resultType` is checked only from MCP 2026-07-28 on, and batches are read (and
    /// forwarded) under 2025-03-26 only. (Looked at before each chunk, and again when the
    /// version came while its lines were observed.)
    fn adopt_protocol_version(&mut self, shared: &Shared) {
        if self.adopted_version {
            return;
        }
        if let Some(version) = shared.negotiated.get() {
            self.decoder = self.decoder.for_protocol_version(version);
            self.adopted_version = true;
        }
    }

    /// Queues the error reply the proxy sends in place of a message it does not forward.
    fn answer(&mut self, local: LocalReply<'_>) {
        let LocalReply { reply, message } = local;
        encode::write_error(&mut self.replies, reply.id, reply.code, message, None);
    }

    /// Queues the lines of `chunk` in `run`, forwarded as they came, as one slice.
    fn push_run(&mut self, chunk: &Bytes, run: &std::ops::Range<usize>) {
        if !run.is_empty() {
            self.forward.push(chunk.slice(run.clone()));
        }
    }

    /// An over-long line (`size`: its length, when known): observed, and answered per policy.
    fn too_long(&mut self, shared: &Shared, size: Option<usize>) {
        let Observed { reply, .. } = shared.observe(
            self.dir,
            &Prepared::new(self.dir, Seen::TooLong(size), &self.decoder),
            shared.clock.arrival_ms(),
            &self.answering,
            &self.decoder,
        );
        if let Some(reply) = reply {
            self.answer(reply);
        }
    }
}

/// The length of the first line of `rest`, as a frame's: without its `\n` and a `\r` before it
/// (the whole of `rest` when it has no `\n`: the last line of the input).
fn line_len(rest: &[u8]) -> usize {
    let line = memchr::memchr(b'\n', rest).map_or(rest, |nl| &rest[..nl]);
    line.strip_suffix(b"\r").unwrap_or(line).len()
}

/// The decoder of one direction: the dialect, validation and limits of the arguments,
/// read as `role`.
fn decoder(args: &ProxyArgs, role: Role) -> Decoder {
    let mut options = DecodeOptions::new(crate::check::dialect(args.dialect));
    options.validation = crate::check::validation(args.validate);
    options.role = role;
    options.limits.max_frame = args.max_frame;
    options.limits.max_batch_len = args.max_batch;
    Decoder::new(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk's lines reuse the vector the last chunk's filled: `recycled` keeps its buffer.
    #[test]
    fn recycled_keeps_the_allocation() {
        let mut lines = Vec::with_capacity(64);
        lines.push(PendingLine {
            at: 0,
            item: Prepared {
                seen: Seen::TooLong(None),
                dropped: false,
            },
        });
        let buffer = lines.as_ptr() as usize;
        let lines: Vec<PendingLine<'static>> = recycled(lines);
        assert!(lines.is_empty());
        assert_eq!(lines.capacity(), 64);
        assert_eq!(lines.as_ptr() as usize, buffer);
    }
}
