//! One stream of a session (`--c2s FILE` or `--s2c FILE`), read from its own file one
//! classified message at a time, the next one peeked for the merge to choose between the two.

use std::io::{self, Read, Write};
use std::path::Path;

use bytes::{Bytes, BytesMut};
use rpcwire::{DecodeOptions, Decoder, Role};

use super::batch_need::BatchNeed;
use super::need::{Need, need};
use super::progress::Progress;
use crate::check::{CheckArgs, Named, Record, StreamFramer, classify, drain, read_into};
use crate::session::{Dir, Session, TaskReply};

/// One side of a session read from its own file, one classified message at a time.
pub(super) struct Side {
    /// The file the stream is read from.
    input: Named,
    /// Cuts the stream into frames (`--framing`).
    framer: StreamFramer,
    /// Classifies each frame, as `check` of the stream alone does.
    pub(super) decoder: Decoder,
    /// What was read of the stream and not yet cut into frames.
    buf: BytesMut,
    /// Whether the stream was read to its end, or can be read no further.
    eof: bool,
    /// How many bytes of the stream were read.
    len: u64,
    /// How many records were read.
    pub(super) index: u64,
    /// How many frames holding no message were passed over: a record's frame number counts
    /// them, as `check` of the stream alone numbers its frames (it reports them as `skip`).
    skipped: u64,
    /// The next record, read ahead for the merge to choose between the two sides.
    peeked: Option<Record>,
    /// For a peeked batch: how far its elements were found not to need the other stream.
    peeked_batch: Option<BatchNeed>,
    /// The frame of the last record read (the peeked one, while there is one).
    last_frame: Option<Bytes>,
    /// Whether `decoder` follows the negotiated protocol version yet.
    adopted_version: bool,
}

impl Side {
    /// The stream in the file at `path`, decoded with the options of `args` as `role` (the
    /// peer that reads it) reads it.
    pub(super) fn new(args: &CheckArgs, path: &Path, role: Role) -> io::Result<Side> {
        let mut options = DecodeOptions::new(args.dialect());
        options.role = role;
        options.validation = crate::check::validation(args.validate);
        options.limits.max_frame = args.max_frame;
        options.limits.max_batch_len = args.max_batch;
        Ok(Side {
            input: Named::open(path)?,
            framer: StreamFramer::new(args.framing, args.max_frame),
            decoder: Decoder::new(options),
            buf: BytesMut::with_capacity(64 << 10),
            eof: false,
            len: 0,
            index: 0,
            skipped: 0,
            peeked: None,
            peeked_batch: None,
            last_frame: None,
            adopted_version: false,
        })
    }

    /// Decodes with the rules of the protocol version the session negotiated (a result's
    /// `resultType` is checked only from MCP 2026-07-28 on), the record already peeked
    /// included.
    pub(super) fn adopt_protocol_version(&mut self, version: &str) {
        if self.adopted_version {
            return;
        }
        self.adopted_version = true;
        self.decoder = crate::check::decoder_for_version(&self.decoder, version);
        if let (Some(peeked), Some(frame)) = (&mut self.peeked, &self.last_frame) {
            let offset = peeked.offset.unwrap_or_default();
            *peeked = classify(&self.decoder, frame, peeked.frame, offset);
            self.peeked_batch = None;
        }
    }

    /// The tools with invalid `x-mcp-header` annotations that the frame of the record last
    /// taken lists (its reply to `tools/list`), each with why: decoded again, only for a reply
    /// the session checks, as the proxy reads it ([`Session::reads_tool_headers`]).
    pub(super) fn invalid_tools(&self) -> Option<String> {
        let frame = self.last_frame.as_ref()?;
        crate::session::invalid_tool_headers(&self.decoder.decode(frame).ok()?)
    }

    /// The task the frame of the record last taken tells of, as a reply of kind `reply` (its
    /// wire token, and whether it has ended): decoded again, only for a reply the session
    /// reads it of ([`Session::reads_task`](crate::session::Session::reads_task)).
    pub(super) fn task_of_reply(&self, reply: TaskReply) -> Option<(String, bool)> {
        let frame = self.last_frame.as_ref()?;
        let msg = self.decoder.decode(frame).ok()?;
        let (task, ended) = reply.task_of(&msg)?;
        Some((String::from_utf8_lossy(task.raw()).into_owned(), ended))
    }

    /// The next record, read ahead and kept until [`Side::next`] takes it (`None` at the end
    /// of the stream).
    fn peek(
        &mut self,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<&Record>> {
        if self.peeked.is_none() {
            self.peeked = self.read(progress, report)?;
        }
        Ok(self.peeked.as_ref())
    }

    /// The record peeked, if any ([`Side::peek_need`]).
    pub(super) fn peeked(&self) -> Option<&Record> {
        self.peeked.as_ref()
    }

    /// How the next record relates to the session (`None` at the end of the stream).
    pub(super) fn peek_need(
        &mut self,
        session: &Session,
        dir: Dir,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<Need>> {
        self.peek(progress, report)?;
        let Some(r) = &self.peeked else {
            return Ok(None);
        };
        if r.kind != "batch" {
            return Ok(Some(need(session, dir, r)));
        }
        let batch = self
            .peeked_batch
            .get_or_insert_with(|| BatchNeed::of(&self.decoder, r, session, dir));
        Ok(Some(batch.need(session, dir, r, &self.decoder)))
    }

    /// Takes the next record, the one peeked if there is one (`None` at the end of the
    /// stream).
    pub(super) fn next(
        &mut self,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<Record>> {
        self.peeked_batch = None;
        match self.peeked.take() {
            Some(r) => Ok(Some(r)),
            None => self.read(progress, report),
        }
    }

    /// The next record of the stream. `report` is flushed before each read of the input: on
    /// a live stream (a pipe whose writer stays) a read may wait, and the records so far
    /// must show before it, as `check` of one stream shows them (a file is read 64 KiB at a
    /// time, so it costs one write per read).
    fn read(
        &mut self,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<Record>> {
        loop {
            let record = match self.framer.next(&mut self.buf, self.eof) {
                // Blank lines and empty events are no messages: the proxy drops them too.
                Ok(Some(frame)) if self.framer.holds_no_message(&frame) => {
                    self.skipped += 1;
                    continue;
                }
                Ok(Some(frame)) => {
                    let frame_no = self.index + self.skipped;
                    let r = classify(&self.decoder, &frame, frame_no, self.framer.last_offset());
                    self.last_frame = Some(frame);
                    r
                }
                Err(e) => {
                    self.last_frame = None;
                    let frame_no = self.index + self.skipped;
                    // Nothing after it can be read as messages: the rest is counted, for the
                    // report to say how much of the stream was not checked.
                    let e = if e.is_fatal() {
                        report.flush()?;
                        self.len += drain(&mut self.input, |n| progress.add(n))?;
                        self.eof = true;
                        e.rest_unchecked(&self.framer, self.len)
                    } else {
                        e
                    };
                    e.record(&self.decoder, frame_no, self.framer.last_offset())
                }
                Ok(None) if self.eof => return Ok(None),
                Ok(None) => {
                    report.flush()?;
                    self.buf.reserve(64 << 10);
                    let n = read_into(&mut self.input as &mut dyn Read, &mut self.buf)?;
                    progress.add(n as u64);
                    self.len += n as u64;
                    self.eof = n == 0;
                    continue;
                }
            };
            self.index += 1;
            return Ok(Some(record));
        }
    }
}
