//! What one side does with the lines it reads: frames and decodes them, has the shared state
//! observe each, and sorts them into the runs it forwards and the replies the proxy sends
//! itself.

use bytes::{Bytes, BytesMut};
use rpcwire::{encode, DecodeOptions, DecodedLine, Decoder, LineFramer, Lines, Role};

use super::item::{Answering, LocalReply, Seen};
use super::pipes::Parts;
use super::state::{Observed, Shared};
use super::ProxyArgs;
use crate::session::Dir;

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
                too_long: decoder.too_long_reply(),
            },
            decoder,
            adopted_version: false,
            forward: Parts::new(),
            replies: BytesMut::new(),
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

    /// Sorts the lines of one chunk. Lines forwarded one after the other, each ending in a
    /// plain `\n`, go out as one slice of the chunk: no copy.
    fn sort_chunk(&mut self, shared: &Shared, chunk: Bytes) {
        let mut run = 0..0;
        // One clock reading per chunk: its lines arrived together. (An arrival, rounded up: a
        // deadline counted from it never falls due before its whole timeout has passed.)
        let now = shared.clock.arrival_ms();
        // A `\r` is rare: one search of the chunk spares most lines a search of their own.
        let has_cr = memchr::memchr(b'\r', &chunk).is_some();
        let mut lines = Lines::new(&chunk, self.framer.max_frame());
        loop {
            // (Before each line: the decoder may change with the session's protocol version.)
            self.adopt_protocol_version(shared);
            // Framed and decoded in one pass where the line allows it.
            let Some(line) = lines.next_decoded(&self.decoder) else {
                break;
            };
            let DecodedLine {
                offset: at,
                frame,
                message,
            } = match line {
                Ok(line) => line,
                Err(e) => {
                    // Whole in the chunk: its length is known.
                    let at = usize::try_from(e.offset()).expect("an offset in the chunk");
                    self.too_long(shared, Some(line_len(&chunk[at..])));
                    continue;
                }
            };
            let seen = match message {
                Ok(msg) => Seen::Message(msg, frame),
                Err(rejection) => Seen::Rejected(rejection, frame),
            };
            let Observed {
                verdict,
                reply,
                in_place,
            } = shared.observe(self.dir, &seen, now, &self.answering, &self.decoder);
            if let Some(reply) = reply {
                self.answer(reply);
            }
            if let Some(array) = in_place {
                // In order with what was forwarded before it.
                self.push_run(&chunk, &run);
                run = 0..0;
                self.forward.push(array);
            }
            if let (Seen::Message(msg, _), true) = (&seen, verdict.forward) {
                if let (Some(forward_id), Some(id)) = (&verdict.forward_id, msg.id()) {
                    // A client request under the id the session minted, or the server's reply
                    // to one with the client's id restored: a copy of the line with its id
                    // replaced, the rest byte for byte (a `\r` a space, as below).
                    self.push_run(&chunk, &run);
                    run = 0..0;
                    let mut line =
                        BytesMut::with_capacity(frame.len() + forward_id.as_id().raw().len());
                    encode::write_with_id(&mut line, frame, id, forward_id.as_id());
                    self.forward.push(line.freeze());
                    continue;
                }
                let end = at + frame.len();
                if has_cr && memchr::memchr(b'\r', frame).is_some() {
                    // Whitespace in a valid message (a raw `\r` is nowhere else), but a line
                    // end to a reader in universal-newline mode (Python's text stdin, which
                    // MCP's Python SDK reads): it goes on as a space, in a copy of the line.
                    self.push_run(&chunk, &run);
                    run = 0..0;
                    let mut line = BytesMut::with_capacity(frame.len() + 1);
                    line.extend(frame.iter().map(|&b| if b == b'\r' { b' ' } else { b }));
                    line.extend_from_slice(b"\n");
                    self.forward.push(line.freeze());
                    continue;
                }
                if run.end != at {
                    self.push_run(&chunk, &run);
                    run = at..at;
                }
                if chunk.get(end) == Some(&b'\n') {
                    run.end = end + 1;
                } else {
                    // `\r\n`, or the last line without a newline: forwarded with `\n`.
                    self.push_run(&chunk, &(at..end));
                    self.forward.push(Bytes::from_static(b"\n"));
                    run = 0..0;
                }
            }
        }
        self.push_run(&chunk, &run);
    }

    /// Once the session knows the negotiated protocol version, decodes with its rules: a
    /// result's `resultType` is checked only from MCP 2026-07-28 on. (One atomic load a line
    /// until then: the version may come in the middle of the other side's chunk.)
    fn adopt_protocol_version(&mut self, shared: &Shared) {
        if self.adopted_version {
            return;
        }
        if let Some(version) = shared.negotiated.get() {
            self.decoder = crate::check::decoder_for_version(&self.decoder, version);
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
            &Seen::TooLong(size),
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
