//! The state both sides share (the session and the log, behind one lock), and what it records
//! of each item read: the session's verdict, the log's records (written by [`super::log`]) and
//! the reports on stderr (queued for the [`Reporter`]).

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard, OnceLock};

use bytes::Bytes;
use rpcwire::{DecodeError, Decoder, Id, IdBuf, Message, Rejection};
use serde_json::json;
use smallvec::SmallVec;

use super::batch::{Edit, in_place_of_dropped, rebuilt};
use super::clock::Clock;
use super::item::{Answering, LocalReply, Seen};
use super::log::{LogFile, Record};
use super::reporter::Reporter;
use crate::session::{
    Described, Dir, Observation, ParamsFault, Session, Verdict, Violation, invalid_tool_headers,
    kind_of,
};

/// The session and the log, behind one lock so that the log's order is the session's.
pub(super) struct State {
    pub(super) session: Session,
    pub(super) log: Option<LogFile>,
}

/// State shared by the forwarding tasks.
pub(super) struct Shared {
    pub(super) state: Mutex<State>,
    /// The clock of the session's deadlines and of the log's `t_ms`.
    pub(super) clock: Clock,
    pub(super) quiet: bool,
    /// The MCP dialect: progress tokens are read (for the session's progress check), and
    /// `initialize` is never cancelled.
    pub(super) mcp: bool,
    /// The protocol version the session negotiated, once the server's reply to `initialize`
    /// came, or its success to a request naming its version (MCP 2026-07-28): each side then
    /// decodes with that version's rules (`resultType`).
    pub(super) negotiated: OnceLock<String>,
    /// The proxy's lines on stderr during the session: queued, never waited for.
    pub(super) reporter: Reporter,
}

/// What `Shared::observe` decided about one item.
pub(super) struct Observed<'a> {
    pub(super) verdict: Verdict,
    /// The reply the proxy sends in the item's place.
    pub(super) reply: Option<LocalReply<'a>>,
    /// The array the proxy sends on in a batch's place (the batch itself is then not
    /// forwarded): for a batch from the server dropped whole, its answer to what of the
    /// client's batches it held replies to ([`in_place_of_dropped`]); for a batch holding
    /// elements the receiver must not get or whose ids the session rewrote, the batch
    /// without them, and with those ids ([`rebuilt`]).
    pub(super) in_place: Option<Bytes>,
}

/// An item ready to be observed: with what is known of it before the lock is taken.
pub(super) struct Prepared<'a> {
    pub(super) seen: Seen<'a>,
    /// Whether it is a batch dropped whole ([`Session::drops_batch`]): known before its
    /// elements are observed, so that they have no effect.
    pub(super) dropped: bool,
}

impl<'a> Prepared<'a> {
    /// `seen`, sent in `dir` and decoded by `decoder`, made ready outside the lock: a batch's
    /// elements are decoded in a first pass here to tell whether it is dropped whole
    /// (nothing is collected; they are decoded again as they are observed).
    pub(super) fn new(dir: Dir, seen: Seen<'a>, decoder: &Decoder) -> Prepared<'a> {
        let dropped = match &seen {
            Seen::Message(Message::Batch(batch), _) => {
                let kinds = batch.decode(decoder).map(|element| kind_of(&element));
                Session::drops_batch(dir, kinds)
            }
            _ => false,
        };
        Prepared { seen, dropped }
    }
}

/// What stderr is told of one observed item: gathered under the lock, printed by
/// [`Shared::report`] once it is released.
pub(super) struct Report<'a> {
    frame: Option<&'a [u8]>,
    kind: &'static str,
    /// Why a frame that is not a valid message is not one.
    error: Option<DecodeError>,
    id: Option<Id<'a>>,
    violation: Option<Violation>,
    /// What is wrong with the tools a tools/list result lists, when the session read them.
    invalid_tools: Option<String>,
    /// What is wrong with the params of a progress or cancellation notification, or with the
    /// params or result of `initialize`, if anything.
    params_fault: Option<ParamsFault>,
    /// The first few violations of a batch's elements (at most [`REPORTED_ELEMENTS`]).
    elements: SmallVec<[ElementReport<'a>; REPORTED_ELEMENTS]>,
    /// How many more of its elements are violations.
    unreported: usize,
    forwards_batch: bool,
}

/// One violation of a batch's element, for stderr: the violation, the element's kind, id,
/// index and bytes, how it goes on (cut from the batch; the id it goes on with, when the
/// session rewrote it), and what is wrong with its params or result, if anything.
type ElementReport<'a> = (
    Violation,
    &'static str,
    Option<Id<'a>>,
    usize,
    &'a [u8],
    (bool, Option<IdBuf>),
    Option<ParamsFault>,
);

/// `text` as one line of plain text for stderr: its control characters (a `\r`, a line end
/// to a universal-newline reader; a terminal's escape sequences, from a peer) escaped as
/// `\r`, `\x1b`, ….
pub(super) fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = core::fmt::Write::write_fmt(&mut out, format_args!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// How many of a batch's elements get a line of their own on stderr; the rest are counted
/// on one more line (the log has them all).
const REPORTED_ELEMENTS: usize = 16;

/// How many bytes of a frame a report on stderr shows.
const SHOWN: usize = 120;

/// The longest line not JSON whose report on stderr says where it stops being JSON: finding
/// it decodes prefixes of the line again (`Decoder::parse_error_offset`, about `log2(len)`
/// of them), work a peer sending long garbage should not be able to multiply.
const LOCATED_NOT_JSON: usize = 64 << 10;

impl Shared {
    /// The session state, locked.
    pub(super) fn lock(&self) -> Locked<'_> {
        Locked {
            state: self.state.lock().expect("state lock"),
            reporter: &self.reporter,
        }
    }

    /// Records one item in the session and the log; returns the verdict and the reply the
    /// proxy sends in the item's place, if any (the log records that reply). The lock is
    /// taken for this item alone: [`Shared::observe_locked`] observes a run of items under one.
    pub(super) fn observe<'a>(
        &self,
        dir: Dir,
        item: &Prepared<'a>,
        now: u64,
        answering: &Answering,
        decoder: &Decoder,
    ) -> Observed<'a> {
        let (observed, report) =
            self.observe_locked(&mut self.lock(), dir, item, now, answering, decoder);
        if let Some(report) = report {
            self.report(dir, decoder, &observed.verdict, report);
        }
        observed
    }

    /// [`Shared::observe`] under a lock the caller holds; what stderr is told of the item is
    /// returned, for [`Shared::report`] to print once the lock is released.
    ///
    /// A JSON-RPC batch is recorded as one `batch` record, then one record per element (with
    /// its index as `element`), each element observed as a message of its own; the batch is
    /// forwarded whole, without the elements the receiver must not get, or not at all, and
    /// never answered here: the receiver answers its elements, the invalid ones included.
    pub(super) fn observe_locked<'a>(
        &self,
        state: &mut State,
        dir: Dir,
        prepared: &Prepared<'a>,
        now: u64,
        answering: &Answering,
        decoder: &Decoder,
    ) -> (Observed<'a>, Option<Report<'a>>) {
        let Prepared {
            seen: item,
            dropped,
        } = prepared;
        let dropped = *dropped;
        let (size, frame) = match item {
            Seen::Message(_, frame) | Seen::Rejected(_, frame) => (Some(frame.len()), Some(*frame)),
            Seen::TooLong(size) => (*size, None),
        };
        // What stderr shows of the batch's elements: the first few violations, then a count.
        let mut reports = SmallVec::<[_; REPORTED_ELEMENTS]>::new();
        let mut unreported = 0usize;
        let described = match item {
            Seen::Message(msg, _) => self.describe(dir, &state.session, Ok(msg)),
            Seen::Rejected(rej, _) => self.describe(dir, &state.session, Err(rej)),
            Seen::TooLong(_) => Described::too_long(),
        };
        // The tools of a success answering a client's tools/list the session checks: read
        // only then (a lookup only while one waits). Never inside a batch: MCP's only
        // version with batches, 2025-03-26, predates the tool headers.
        let invalid_tools = match item {
            Seen::Message(msg @ Message::Response(_), _)
                if state.session.reads_tool_headers(dir, described.id) =>
            {
                invalid_tool_headers(msg)
            }
            _ => None,
        };
        let obs = Observation {
            invalid_tools: invalid_tools.as_deref(),
            ..described.observation()
        };
        let mut verdict = state.session.observe(dir, &obs, now);
        if let (Some(version), None) = (state.session.protocol_version(), self.negotiated.get()) {
            // (Set here only, under the lock.)
            let _ = self.negotiated.set(version.to_owned());
        }
        if dropped {
            state.session.drop_batch(dir);
        }
        let reply = answering.reply(item, &verdict);
        let reply_logged = reply.map(|l| l.reply);
        state.log_record(&Record {
            dir,
            now,
            obs: &obs,
            size,
            reply: reply_logged,
            element: None,
            dropped,
            violation: verdict.violation,
            forward_id: verdict.forward_id.as_ref().map(IdBuf::as_id),
        });
        // The elements of a forwarded batch the receiver must not get (late replies), and
        // those going on under another id, by index.
        let mut edits = SmallVec::<[(usize, Edit<'a>); 4]>::new();
        let mut forwards_batch = false;
        if let Seen::Message(Message::Batch(batch), _) = item {
            // Each element decoded as if it were a frame of its own, as it is reached: nothing
            // is collected, whatever the number of elements. The session then says whether
            // the batch goes on (whole, without the elements the receiver must not get, or not
            // at all).
            let elements = batch.raw.elements().zip(batch.decode(decoder));
            for (index, (raw, element)) in elements.enumerate() {
                let bytes = raw.as_bytes();
                let described = self.describe(dir, &state.session, element.as_ref());
                let obs = described.observation();
                let element_verdict = state.session.observe_element(dir, &obs, now);
                let v = element_verdict.violation;
                state.log_record(&Record {
                    dir,
                    now,
                    obs: &obs,
                    size: Some(bytes.len()),
                    reply: None,
                    element: Some(index),
                    dropped: false,
                    violation: v,
                    forward_id: element_verdict.forward_id.as_ref().map(IdBuf::as_id),
                });
                // A valid element that asks for no reply is cut when the session does not
                // forward it, as it would not alone: a late reply (its request was answered
                // already), and under MCP one nobody can match (unknown_reply,
                // reply_without_id) or the cancellation of `initialize`. A request the
                // session forwards under a minted id, or the reply to one, goes on with the id
                // it says. Any other element goes on with its batch, byte for byte, needed or
                // not: a request (the proxy answers no element itself: the receiver's array
                // does), or what is not valid (the receiver answers it, or it is a malformed
                // response).
                let asks_no_reply = matches!(
                    described.kind,
                    "success_response" | "error_response" | "notification"
                );
                let element_cut = !dropped && !element_verdict.forward && asks_no_reply;
                if element_cut {
                    edits.push((index, Edit::Cut));
                } else if let (Some(new), Some(old), false) =
                    (element_verdict.forward_id, described.id, dropped)
                {
                    edits.push((index, Edit::Id { old, new }));
                }
                match v {
                    Some(_) if self.quiet => {}
                    Some(v) if reports.len() < REPORTED_ELEMENTS => {
                        // The id it goes on with, when the session rewrote it.
                        let rewritten = match edits.last() {
                            Some((at, Edit::Id { new, .. })) if *at == index => Some(new.clone()),
                            _ => None,
                        };
                        let how = (element_cut, rewritten);
                        let fault = described.params_fault;
                        reports.push((v, described.kind, described.id, index, bytes, how, fault))
                    }
                    Some(_) => unreported += 1,
                    None => {}
                }
            }
            forwards_batch = state.session.batch_forwards(dir);
            verdict.forward = forwards_batch && edits.is_empty();
        }
        let in_place = match item {
            Seen::Message(Message::Batch(batch), _) if forwards_batch && !edits.is_empty() => {
                Some(rebuilt(batch.raw, &edits))
            }
            _ if dropped => in_place_of_dropped(&state.session.take_answered_in_place()),
            _ => None,
        };
        let violation = verdict.violation;
        let observed = Observed {
            verdict,
            reply,
            in_place,
        };
        let reported = violation.is_some() || !reports.is_empty() || unreported > 0;
        let report = (reported && !self.quiet).then(|| Report {
            frame,
            kind: described.kind,
            error: described.error,
            id: described.id,
            violation,
            invalid_tools,
            params_fault: described.params_fault,
            elements: reports,
            unreported,
            forwards_batch,
        });
        (observed, report)
    }

    /// Queues for stderr what `report` tells of an item sent in `dir` and decoded by `decoder`
    /// (to say where a line stops being JSON: work done outside the lock), given the
    /// session's `verdict` on it.
    pub(super) fn report(
        &self,
        dir: Dir,
        decoder: &Decoder,
        verdict: &Verdict,
        report: Report<'_>,
    ) {
        let Report {
            frame,
            kind,
            error,
            id,
            violation,
            invalid_tools,
            params_fault,
            elements,
            unreported,
            forwards_batch,
        } = report;
        // The frame's first 120 bytes, and `…` when there is more: a cut frame is not taken
        // for the whole of a short one.
        let show = |bytes: &[u8]| {
            let mut shown = printable(&String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]));
            if bytes.len() > SHOWN {
                shown.push('…');
            }
            shown
        };
        let token = |id: Option<Id<'_>>| {
            id.map_or("-".into(), |id| {
                printable(&String::from_utf8_lossy(id.raw()))
            })
        };
        if let Some(v) = violation {
            // What is wrong with a tools/list result is in its tools, deep in the frame.
            // What is wrong with a notification's params: which member, then the frame.
            let detail = match (v, invalid_tools, params_fault) {
                (Violation::InvalidToolHeaders, Some(tools), _) => {
                    format!(": {}", printable(&tools))
                }
                (
                    Violation::InvalidNotificationParams | Violation::InvalidInitialize,
                    _,
                    Some(fault),
                ) => {
                    let frame = frame.map(|f| format!(": {}", show(f))).unwrap_or_default();
                    format!(": {}{frame}", fault.why())
                }
                // Why a frame is not a valid message (a line not JSON: where it stops being
                // JSON, below), then the frame.
                (Violation::Invalid | Violation::InvalidResponse, ..) if error.is_some() => {
                    let error = error
                        .map(|e| format!(": {}", crate::check::rejection_detail(e)))
                        .unwrap_or_default();
                    let frame = frame.map(|f| format!(": {}", show(f))).unwrap_or_default();
                    format!("{error}{frame}")
                }
                // An over-long line is not held: its limit, and the option that sets it.
                (Violation::TooLong, ..) => format!(
                    ": a line longer than the frame limit of {} bytes; --max-frame sets the limit",
                    decoder.options().limits.max_frame
                ),
                _ => frame.map(|f| format!(": {}", show(f))).unwrap_or_default(),
            };
            let at = match (v, frame) {
                (Violation::NotJson, Some(f)) if f.len() <= LOCATED_NOT_JSON => decoder
                    .parse_error_offset(f)
                    .map(|at| format!(", at byte {at}")),
                _ => None,
            };
            let how_forwarded = match (verdict.forward, &verdict.forward_id) {
                (false, _) => " [not forwarded]".to_string(),
                (true, Some(id)) => format!(" [forwarded as id {}]", token(Some(id.as_id()))),
                (true, None) => String::new(),
            };
            self.reporter.say(format!(
                "rpcwire proxy: {}: {} (kind {}, id {}{}){detail}{how_forwarded}",
                dir.as_str(),
                v.as_str(),
                kind,
                token(id),
                at.unwrap_or_default(),
            ));
        }
        for (v, kind, id, index, bytes, (element_cut, rewritten), fault) in elements {
            // Which member is at fault, as for a whole frame.
            let why = match (v, fault) {
                (
                    Violation::InvalidNotificationParams | Violation::InvalidInitialize,
                    Some(fault),
                ) => format!("{}: ", fault.why()),
                _ => String::new(),
            };
            self.reporter.say(format!(
                "rpcwire proxy: {}: {} (kind {kind}, id {}, element {index} of a batch): {why}{}{}",
                dir.as_str(),
                v.as_str(),
                token(id),
                show(bytes),
                match (forwards_batch, element_cut, rewritten) {
                    (false, ..) => " [batch not forwarded]".to_string(),
                    (true, true, _) => " [cut from the batch]".to_string(),
                    (true, false, Some(new)) =>
                        format!(" [forwarded as id {}]", token(Some(new.as_id()))),
                    (true, false, None) => String::new(),
                },
            ));
        }
        if unreported > 0 {
            self.reporter.say(format!(
                "rpcwire proxy: {}: {unreported} more violations in elements of the same batch",
                dir.as_str()
            ));
        }
    }

    /// What the session is told of a decoded frame sent in `dir`; protocol versions are read
    /// only while the session needs them: from the server's reply to `initialize` while it is
    /// awaited (no other result's), from a request's `_meta` while the requests may tell it
    /// ([`Session::reads_request_versions`]).
    fn describe<'a>(
        &self,
        dir: Dir,
        session: &Session,
        decoded: Result<&Message<'a>, &Rejection<'a>>,
    ) -> Described<'a> {
        let mut described = Described::of(decoded, self.mcp);
        if let Ok(msg @ Message::Response(r)) = decoded {
            if session.is_initialize_reply(dir, r.id) {
                described.read_protocol_version(msg);
                described.read_initialize_result(msg);
            }
            if let Some(reply) = session.reads_task(dir, Some(r.id)) {
                described.read_task(msg, reply);
            }
        }
        // (A second lookup in each request's params: only while the session needs it.)
        if let (Ok(msg), true) = (decoded, session.reads_request_versions()) {
            described.read_request_version(msg);
        }
        described
    }

    /// Logs the session's counters under `label`, and returns the line that tells them on
    /// stderr, for the caller to print once the lock is released (a stderr nobody drains must
    /// not hold up the sides waiting on it).
    pub(super) fn log_counters(&self, label: &str) -> String {
        let mut state = self.lock();
        let counters = state.session.counters.to_json();
        let line = format!("rpcwire proxy: {label}: {counters}");
        let record = json!({ "t_ms": self.clock.now_ms(), label: counters }).to_string();
        state.write_log(record.as_bytes());
        // Out to the file now, with every record before them, for whoever follows the log
        // during the session: the buffer holds a megabyte, which a quiet session takes
        // hours to fill. (At most once a second; the summary's flush reports its errors.)
        if let Some(log) = state.log.as_mut() {
            log.flush();
        }
        line
    }
}

/// The state, locked ([`Shared::lock`]). When it is released, a write to the log that failed
/// under it is told on stderr, once: as it happens, not only at exit ([`LogFile`]). (Queued
/// for the reporter, which never waits during the session. Once it has written its last
/// lines, [`Reporter::say`] writes to stderr directly, here under the lock, and may wait for
/// the reporter's last write: the proxy is exiting then, and no one it waits for takes this
/// lock. The lock is always taken before the reporter's, never the other way round.)
pub(super) struct Locked<'a> {
    state: MutexGuard<'a, State>,
    reporter: &'a Reporter,
}

impl Deref for Locked<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.state
    }
}

impl DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.state
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        if let Some(line) = self.state.log.as_mut().and_then(LogFile::untold_failure) {
            self.reporter.say(line);
        }
    }
}
