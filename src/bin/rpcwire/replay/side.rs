//! One stream of a session (`--c2s FILE` or `--s2c FILE`), read from its own file one
//! classified message at a time, the next one peeked for the merge to choose between the two.

use std::cell::Cell;
use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::path::Path;

use bytes::{Bytes, BytesMut};
use rpcwire::{DecodeOptions, Decoder, Dialect, Id, IdKey, Message, Role};

use super::ahead::{Entry, Lookahead, Sent, Window, sent_by};
use super::array_target::{ArrayTarget, batch_owed};
use super::batch_need::BatchNeed;
use super::need::{Concern, Need, need};
use super::observe::observation;
use super::progress::Progress;
use crate::check::{
    CheckArgs, Named, Record, StreamFramer, classify, drain, hint_framing, initialize_reply_reader,
    other_sides_first_message, read_into,
};
use crate::session::{ArrayReplies, Dir, Fit, ParamsFault, Session, TaskReply};

/// At most this many batches read ahead are decoded again to find the one an array of replies
/// fits ([`Side::batch_fitting`]).
const BATCHES_TRIED: usize = 64;

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
    /// For a peeked array of replies (the server's): the client batch it answers, once asked
    /// ([`array_need`](super::array_target::array_need)).
    pub(super) peeked_array: Option<ArrayTarget>,
    /// The frame of the peeked record.
    peeked_frame: Option<Bytes>,
    /// What the peeked record sends, once asked ([`Side::sends`]).
    peeked_sent: Option<HashSet<Sent>>,
    /// The records read ahead of the peeked one ([`Side::sends`]), bounded.
    ahead: Window,
    /// Whether the stream holds no record after those read ahead.
    ended: bool,
    /// Whether a framing error left the rest of the stream unread (it may send anything).
    unread_rest: bool,
    /// Whether the stream is read ahead when asked ([`Side::sends`]): only a regular file. On
    /// a pipe (`-`, a live stream) a read may wait for its writer, and every record, the other
    /// stream's too, would wait with it until the look ahead filled.
    looks_ahead: bool,
    /// The frame of the record last taken ([`Side::next`]).
    taken_frame: Option<Bytes>,
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
        let input = Named::open(path)?;
        Ok(Side {
            looks_ahead: input.is_regular_file(),
            input,
            framer: StreamFramer::new(args.framing, args.max_frame),
            decoder: Decoder::new(options),
            buf: BytesMut::with_capacity(64 << 10),
            eof: false,
            len: 0,
            index: 0,
            skipped: 0,
            peeked: None,
            peeked_batch: None,
            peeked_array: None,
            peeked_frame: None,
            peeked_sent: None,
            ahead: Window::default(),
            ended: false,
            unread_rest: false,
            taken_frame: None,
            adopted_version: false,
        })
    }

    /// Decodes with the rules of the protocol version the session negotiated (a result's
    /// `resultType` is checked only from MCP 2026-07-28 on), the records already peeked and
    /// read ahead included.
    pub(super) fn adopt_protocol_version(&mut self, version: &str) {
        if self.adopted_version {
            return;
        }
        self.adopted_version = true;
        self.decoder = self.decoder.for_protocol_version(version);
        let decoder = &self.decoder;
        let again = |frame: &Bytes, r: &Record| {
            classify(decoder, frame, r.frame, r.offset.unwrap_or_default())
        };
        if let (Some(peeked), Some(frame)) = (&mut self.peeked, &self.peeked_frame) {
            *peeked = again(frame, peeked);
            self.peeked_batch = None;
            self.peeked_array = None;
            self.peeked_sent = None;
        }
        self.ahead.reclassify(decoder, again);
    }

    /// Whether the stream is newline-delimited JSON, whose records are its lines.
    pub(super) fn is_ndjson(&self) -> bool {
        matches!(self.framer, StreamFramer::Lines(_))
    }

    /// The tools with invalid `x-mcp-header` annotations that the frame of the record last
    /// taken lists (its reply to `tools/list`), each with why: decoded again, only for a reply
    /// the session checks, as the proxy reads it ([`Session::reads_tool_headers`]).
    pub(super) fn invalid_tools(&self) -> Option<String> {
        let frame = self.taken_frame.as_ref()?;
        crate::session::invalid_tool_headers(&self.decoder.decode(frame).ok()?)
    }

    /// The fault of the result in the frame of the record last taken, a success the session
    /// says answers `initialize` ([`Session::is_initialize_reply`]), when it breaks
    /// `InitializeResult`: decoded again, by the rules it was read with (the legacy ones
    /// [`initialize_reply_reader`] gives, when the stream's refused it).
    ///
    /// [`Session::is_initialize_reply`]: crate::session::Session::is_initialize_reply
    pub(super) fn initialize_result_fault(&self) -> Option<ParamsFault> {
        let frame = self.taken_frame.as_ref()?;
        let legacy = initialize_reply_reader(&self.decoder, frame);
        let decoder = legacy.as_ref().unwrap_or(&self.decoder);
        match decoder.decode(frame).ok()? {
            Message::Response(r) => ParamsFault::of_initialize_result(r.result),
            _ => None,
        }
    }

    /// The task the frame of the record last taken tells of, as a reply of kind `reply` (its
    /// wire token, and whether it has ended): decoded again, only for a reply the session
    /// reads it of ([`Session::reads_task`](crate::session::Session::reads_task)).
    pub(super) fn task_of_reply(&self, reply: TaskReply) -> Option<(String, bool)> {
        let frame = self.taken_frame.as_ref()?;
        let msg = self.decoder.decode(frame).ok()?;
        let (task, ended) = reply.task_of(&msg)?;
        Some((String::from_utf8_lossy(task.raw()).into_owned(), ended))
    }

    /// The next record, read ahead and kept until [`Side::next`] takes it (`None` at the end
    /// of the stream).
    pub(super) fn peek(
        &mut self,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<&Record>> {
        if self.peeked.is_none()
            && let Some((record, frame, sent)) = self.read(progress, report)?
        {
            self.peeked = Some(record);
            self.peeked_frame = frame;
            self.peeked_sent = sent;
        }
        Ok(self.peeked.as_ref())
    }

    /// The record peeked, if any ([`Side::peek_need`]).
    pub(super) fn peeked(&self) -> Option<&Record> {
        self.peeked.as_ref()
    }

    /// How the record peeked ([`Side::peek`]) relates to the session (`None`: none is, at the
    /// end of the stream), once what it waits on in the other stream is looked for there by
    /// `ahead` ([`Side::sends`] of the other side): a reply (progress, a notification of a listen
    /// stream) to an id (a token) the other stream never sends ([`Lookahead::Never`]) waits
    /// for nothing ([`Need::Nothing`]), unless it is an MCP reply to an id answered (a
    /// notification of a stream closed), which keeps the merge's tie-break; MCP progress on a
    /// token that stopped lately which the other stream sends again is [`Need::Again`].
    pub(super) fn peek_need(
        &mut self,
        session: &Session,
        dir: Dir,
        ahead: &mut dyn FnMut(&Sent) -> io::Result<Lookahead>,
    ) -> io::Result<Option<Need>> {
        let Some(r) = &self.peeked else {
            return Ok(None);
        };
        if r.kind == "batch" {
            let batch = self
                .peeked_batch
                .get_or_insert_with(|| BatchNeed::of(&self.decoder, r, session, dir));
            return batch.need(session, dir, r, &self.decoder, ahead).map(Some);
        }
        let need = need(session, dir, r);
        if !matches!(need, Need::OtherSide | Need::Stale) {
            return Ok(Some(need));
        }
        // (An error without an id waits on a line owed one, as one with a null id does.)
        let null = || Id::from_token(b"null").map(|null| Sent::Id(IdKey::of(null)));
        let Some(key) = Concern::of(&observation(r), dir, session.dialect())
            .as_ref()
            .and_then(Concern::sent)
            .or_else(|| {
                (r.kind == "error_response" && r.id.is_none())
                    .then(null)
                    .flatten()
            })
        else {
            return Ok(Some(need));
        };
        // Under MCP an id answered is not to be sent again, while a progress token may be once
        // its request is done: a reply to an id answered (a notification of a listen stream
        // closed) keeps the tie-break of `super::merge`, which reads the other stream's next
        // message only, not a look ahead (which, on a live stream, waits for what it reads).
        let token = matches!(key, Sent::Token(_));
        if need == Need::Stale && session.dialect() == Dialect::Mcp && !token {
            return Ok(Some(need));
        }
        Ok(Some(match (ahead(&key)?, need) {
            (Lookahead::Never, _) => Need::Nothing,
            (Lookahead::Sent, Need::Stale) if token => Need::Again,
            (_, need) => need,
        }))
    }

    /// Whether the rest of the stream, from the record peeked on, sends `key` (a request with
    /// that id, carrying that progress token): looked for in the records read ahead, and, while
    /// there is room ([`super::ahead::AHEAD_MESSAGES`], [`super::ahead::AHEAD_BYTES`]), in
    /// more read from the stream. Each record is read once, and the records read ahead are
    /// taken by [`Side::next`] in order, so a merge asking at each step reads each record
    /// once. [`Lookahead::Never`] only when the stream was read to its end: not when a
    /// framing error left its rest unread. A stream that is not a regular file is not read
    /// ahead: [`Lookahead::Unknown`] unless the record peeked sends `key`, or the stream ended.
    pub(super) fn sends(
        &mut self,
        key: &Sent,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Lookahead> {
        let never = |side: &Side| match side.unread_rest {
            true => Lookahead::Unknown,
            false => Lookahead::Never,
        };
        if self.peek(progress, report)?.is_none() {
            return Ok(never(self));
        }
        let (Some(peeked), decoder) = (&self.peeked, &self.decoder) else {
            unreachable!("peeked");
        };
        if self
            .peeked_sent
            .get_or_insert_with(|| sent_by(decoder, peeked))
            .contains(key)
            || self.ahead.sends(key)
        {
            return Ok(Lookahead::Sent);
        }
        Ok(
            match self.read_ahead_until(progress, report, |_, _, sent| sent.contains(key))? {
                Some(_) => Lookahead::Sent,
                None if self.ended => never(self),
                None => Lookahead::Unknown,
            },
        )
    }

    /// The frame number of the first batch of the rest of the stream, from the record peeked
    /// on, that the array `replies` fits (`fit`), each of its elements owed a reply
    /// ([`ArrayReplies`]): looked for among the batches that send every id of those replies,
    /// read ahead as [`Side::sends`] reads (`None`: none found, within those bounds).
    pub(super) fn batch_fitting(
        &mut self,
        replies: &ArrayReplies,
        fit: Fit,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<u64>> {
        if self.peek(progress, report)?.is_none() {
            return Ok(None);
        }
        let (Some(peeked), decoder) = (&self.peeked, &self.decoder) else {
            unreachable!("peeked");
        };
        let sent = self
            .peeked_sent
            .get_or_insert_with(|| sent_by(decoder, peeked));
        // (Each batch that sends its ids is decoded again, at most `BATCHES_TRIED` of them: an
        // array of null ids only, which fits leniently any batch with an invalid element, does
        // not decode the whole look ahead.)
        let tried = Cell::new(0);
        let fits = |decoder: &Decoder, r: &Record, sent: &HashSet<Sent>| {
            r.kind == "batch"
                && replies.ids(fit).all(|key| sent.contains(&Sent::Id(key)))
                && tried.replace(tried.get() + 1) < BATCHES_TRIED
                && replies.fit_batch(&batch_owed(decoder, r), fit)
        };
        if fits(decoder, peeked, sent) {
            return Ok(Some(peeked.frame));
        }
        // (Scanned only when every id is sent there: an array that fits none of them, as most
        // do not, costs a look-up an id.)
        let window = &self.ahead;
        let read_ahead = replies
            .ids(fit)
            .all(|key| window.sends(&Sent::Id(key)))
            .then(|| {
                let mut entries = window.entries();
                entries.find(|entry| fits(decoder, &entry.record, &entry.sent))
            })
            .flatten();
        if let Some(entry) = read_ahead {
            return Ok(Some(entry.record.frame));
        }
        self.read_ahead_until(progress, report, fits)
    }

    /// Reads the stream ahead, while there is room, until a record for which `found` holds (of
    /// the stream's decoder, the record and what it sends): its frame number (`None`: none
    /// within the bounds, or up to the stream's end). A stream that is not a regular file is
    /// not read ahead.
    fn read_ahead_until(
        &mut self,
        progress: &mut Progress,
        report: &mut dyn Write,
        mut found: impl FnMut(&Decoder, &Record, &HashSet<Sent>) -> bool,
    ) -> io::Result<Option<u64>> {
        while !self.ended {
            if !self.looks_ahead || !self.ahead.has_room() {
                return Ok(None);
            }
            let Some((record, frame)) = self.read_input(progress, report)? else {
                self.ended = true;
                break;
            };
            let sent = sent_by(&self.decoder, &record);
            let at = found(&self.decoder, &record, &sent).then_some(record.frame);
            self.ahead.push(Entry {
                record,
                frame,
                sent,
            });
            if at.is_some() {
                return Ok(at);
            }
        }
        Ok(None)
    }

    /// Takes the next record, the one peeked if there is one (`None` at the end of the
    /// stream).
    pub(super) fn next(
        &mut self,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<Record>> {
        self.peeked_batch = None;
        self.peeked_array = None;
        self.peeked_sent = None;
        if let Some(r) = self.peeked.take() {
            self.taken_frame = self.peeked_frame.take();
            return Ok(Some(r));
        }
        let Some((record, frame, _)) = self.read(progress, report)? else {
            return Ok(None);
        };
        self.taken_frame = frame;
        Ok(Some(record))
    }

    /// The next record of the stream, its frame and what it sends when that is known: the
    /// first read ahead, else one read from the stream.
    #[allow(clippy::type_complexity)]
    fn read(
        &mut self,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<(Record, Option<Bytes>, Option<HashSet<Sent>>)>> {
        if let Some(entry) = self.ahead.pop() {
            return Ok(Some((entry.record, entry.frame, Some(entry.sent))));
        }
        if self.ended {
            return Ok(None);
        }
        Ok(self
            .read_input(progress, report)?
            .map(|(record, frame)| (record, frame, None)))
    }

    /// The next record read from the stream, and its frame. `report` is flushed before each
    /// read of the input: on a live stream (a pipe whose writer stays) a read may wait, and
    /// the records so far must show before it, as `check` of one stream shows them (a file is
    /// read 64 KiB at a time, so it costs one write per read).
    fn read_input(
        &mut self,
        progress: &mut Progress,
        report: &mut dyn Write,
    ) -> io::Result<Option<(Record, Option<Bytes>)>> {
        loop {
            let (record, frame) = match self.framer.next(&mut self.buf, self.eof) {
                // Blank lines and empty events are no messages: the proxy drops them too.
                Ok(Some(frame)) if self.framer.holds_no_message(&frame) => {
                    self.skipped += 1;
                    continue;
                }
                Ok(Some(frame)) => {
                    let frame_no = self.index + self.skipped;
                    let offset = self.framer.last_offset();
                    let mut r = classify(&self.decoder, &frame, frame_no, offset);
                    // (A reply to `initialize` is read by the rules it selects, as the
                    // proxy reads it.)
                    if !self.adopted_version
                        && r.kind == "invalid_response"
                        && let Some(legacy) = initialize_reply_reader(&self.decoder, &frame)
                    {
                        r = classify(&legacy, &frame, frame_no, offset);
                    }
                    if self.index == 0 && self.is_ndjson() {
                        hint_framing(Some(self.input.name()), &r, &frame);
                    }
                    if self.index == 0
                        && let Some(what) = other_sides_first_message(&self.decoder, &r)
                    {
                        say!(
                            "rpcwire check: {}: the first message is {what}: were --c2s and \
                             --s2c swapped?",
                            self.input.name().display()
                        );
                    }
                    (r, Some(frame))
                }
                Err(e) => {
                    let frame_no = self.index + self.skipped;
                    // Nothing after it can be read as messages: the rest is counted, for the
                    // report to say how much of the stream was not checked.
                    let e = if e.is_fatal() {
                        report.flush()?;
                        self.len += drain(&mut self.input, |n| progress.add(n))?;
                        self.eof = true;
                        self.unread_rest = true;
                        e.rest_unchecked(&self.framer, self.len)
                    } else {
                        e
                    };
                    let r = e.record(&self.decoder, frame_no, self.framer.last_offset());
                    (r, None)
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
            return Ok(Some((record, frame)));
        }
    }
}
