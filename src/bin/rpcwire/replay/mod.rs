//! `rpcwire check` on a whole session, offline: the proxy's session checks (`session/`) over
//! a log written by `rpcwire proxy --log` (`--session-log FILE`) or over the two streams of a
//! session (`--c2s FILE --s2c FILE`).
//!
//! Either way the report is flushed before each read of the input that may wait, so a live
//! log or stream (a pipe whose writer stays) is reported as it comes, as `check` of one stream
//! is.
//!
//! A proxy log is replayed in its own order, which is the order the live proxy saw (the log is
//! written under the session's lock), with its timeout events; the result is the live run's.
//! A JSON-RPC batch is a `batch` record followed by one record per element (with its index
//! as `element`), each observed as the proxy did.
//!
//! Two streams carry no timestamps, so they are merged causally, one message at a time, by
//! these rules in this order:
//! 1. a reply (either way) to a request that is waiting goes first: a reply is matched as early
//!    as the streams allow, before a cancellation or a reused id that follows it elsewhere.
//!    (A batch element beyond the limits of the requests in flight, kept until its reply
//!    comes, is waiting as a request is.)
//!    A `notifications/progress` (MCP) counts as a reply to the request carrying its token:
//!    it goes first while that request waits, and otherwise pulls the other stream forward as
//!    in rule 2. So does an error with a null id sent alone while a line of the other stream
//!    whose id could not be read waits for it (JSON-RPC 2.0 §5.1: a peer reads every line of
//!    the streams, so it answers those too; such a reply is no violation);
//! 2. a server reply to an id the client has not sent yet pulls the client's stream forward,
//!    one message at a time, until it has (or the client's stream ends) — unless the client's
//!    next message is itself a reply to a server request not seen yet, a deadlock the streams
//!    only reach when a peer broke the protocol;
//! 3. otherwise the server's stream goes first, and the client's only when the server's ends.
//!
//! A JSON-RPC batch is one message for the merge, its elements observed one by one after it;
//! it pulls the other stream forward (rule 2) while any of its replies answers a request not
//! seen yet, and goes first (rule 1) when any answers a request that is waiting.
//!
//! So every client reply to a server request waits (rule 2 mirrored by rule 3) for the server
//! request it answers. A real violation (a reply nobody asked for, a reused id, a request
//! never answered, progress after its request's result or on a token nobody sent) is still
//! found; what no merge can know is the real timing, so late replies, progress after a
//! cancellation and timeouts are only found in a proxy log.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use rpcwire::{DecodeOptions, Decoder, Dialect, Id, IdKey, Message, Role};
use serde::Deserialize;
use serde_json::json;

use crate::check::{
    batch_elements, classify, drain, element_records, read_into, CheckArgs, Named, Record,
    ReportOut, StreamFramer,
};
use crate::session::{
    kind_of, may_answer, Described, Dir, IdRewriting, Observation, Session, Violation,
};

/// Files from this size on get a progress line on stderr, when stderr is a terminal.
const PROGRESS_FROM: u64 = 64 << 20;

/// A progress line on stderr for large inputs, only when stderr is a terminal.
pub(crate) struct Progress {
    total: u64,
    done: u64,
    enabled: bool,
    last: Instant,
    shown: bool,
}

impl Progress {
    pub fn new(total: u64) -> Progress {
        Progress {
            total,
            done: 0,
            enabled: total >= PROGRESS_FROM && io::stderr().is_terminal(),
            last: Instant::now(),
            shown: false,
        }
    }

    pub fn add(&mut self, bytes: u64) {
        self.done += bytes;
        if self.enabled && self.last.elapsed() >= Duration::from_millis(250) {
            self.last = Instant::now();
            self.shown = true;
            // (A closed stderr loses the meter, nothing else.)
            let _ = write!(
                io::stderr(),
                "\rrpcwire check: {} of {} MB ({}%)",
                self.done >> 20,
                self.total >> 20,
                self.done * 100 / self.total.max(1)
            );
        }
    }

    pub fn finish(&mut self) {
        if self.shown {
            say!("\rrpcwire check: {} MB, done.          ", self.done >> 20);
            self.shown = false;
        }
    }
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Where the report goes.
struct Report<W: Write> {
    out: W,
    json: bool,
}

impl<W: Write> Report<W> {
    fn message(&mut self, dir: Dir, r: &Record, v: Option<Violation>) -> io::Result<()> {
        if self.json {
            let mut record = r.to_json();
            let map = record.as_object_mut().expect("an object");
            map.insert("dir".into(), json!(dir.as_str()));
            map.insert("violation".into(), json!(v.map(Violation::as_str)));
            if let Some(tools) = &r.invalid_tools {
                map.insert("invalid_tools".into(), json!(tools));
            }
            serde_json::to_writer(&mut self.out, &record)?;
            self.out.write_all(b"\n")
        } else if let Some(v) = v {
            // What is wrong with a tools/list result: its tools, and why.
            let tools = match (v, &r.invalid_tools) {
                (Violation::InvalidToolHeaders, Some(tools)) => format!(" ({tools})"),
                _ => String::new(),
            };
            writeln!(
                self.out,
                "{} {}: {}{tools}",
                dir.as_str(),
                r.to_text(),
                v.as_str()
            )
        } else {
            Ok(())
        }
    }

    fn event(
        &mut self,
        event: &str,
        dir: Dir,
        id: Id<'_>,
        method: &str,
        v: Option<Violation>,
    ) -> io::Result<()> {
        let id = String::from_utf8_lossy(id.raw());
        if self.json {
            let record = json!({"event": event, "dir": dir.as_str(), "id": id, "method": method, "violation": v.map(Violation::as_str)});
            serde_json::to_writer(&mut self.out, &record)?;
            self.out.write_all(b"\n")
        } else {
            let v = v.map_or("-", Violation::as_str);
            writeln!(
                self.out,
                "{} {event} request {id} ({method}): {v}",
                dir.as_str()
            )
        }
    }

    /// Reports the requests left waiting, then the summary; returns whether the session is
    /// free of violations.
    fn finish(mut self, mut session: Session, frames: [u64; 2]) -> io::Result<bool> {
        for unanswered in session.finish() {
            self.event(
                "unanswered",
                unanswered.dir,
                unanswered.id.as_id(),
                &unanswered.method,
                Some(Violation::Unanswered),
            )?;
        }
        let counters = &session.counters;
        let valid = counters.total_violations() == 0;
        if self.json {
            let mut summary = counters.to_json();
            let map = summary.as_object_mut().expect("an object");
            map.insert("valid".into(), json!(valid));
            map.insert("frames".into(), json!({"c2s": frames[0], "s2c": frames[1]}));
            serde_json::to_writer(&mut self.out, &json!({ "summary": summary }))?;
            self.out.write_all(b"\n")?;
        } else {
            writeln!(
                self.out,
                "session: {} messages client to server, {} server to client, {}",
                frames[0],
                frames[1],
                if valid {
                    "no violation".to_string()
                } else {
                    format!("{} violations", counters.total_violations())
                }
            )?;
            for ((dir, v), n) in &counters.violations {
                writeln!(self.out, "  {} {}: {n}", dir.as_str(), v.as_str())?;
            }
            for (dir, codes) in &counters.errors_by_code {
                for (code, n) in codes.iter() {
                    let dir = dir.as_str();
                    writeln!(self.out, "  {dir} error responses with code {code}: {n}")?;
                }
            }
            for (dir, codes) in &counters.errors_by_code {
                if codes.other() > 0 {
                    let (dir, n) = (dir.as_str(), codes.other());
                    writeln!(self.out, "  {dir} error responses with other codes: {n}")?;
                }
            }
        }
        self.out.flush()?;
        Ok(valid)
    }
}

/// A record's wire token (an id, a progress token) as an [`Id`].
fn wire_id(token: &Option<String>) -> Option<Id<'_>> {
    token.as_deref().and_then(|t| Id::from_token(t.as_bytes()))
}

/// What the session is told of a record.
fn observation(r: &Record) -> Observation<'_> {
    Observation {
        kind: r.kind,
        id: wire_id(&r.id),
        method: r.method.as_deref(),
        error_code: r.error_code,
        cancels: wire_id(&r.cancels),
        protocol_version: r.protocol_version.as_deref(),
        progress_token: wire_id(&r.progress_token),
        subscription: wire_id(&r.subscription),
        invalid_tools: r.invalid_tools.as_deref(),
    }
}

/// Records one message in the session (a batch element, when the record is one).
fn observe(session: &mut Session, dir: Dir, r: &Record, now_ms: u64) -> Option<Violation> {
    let obs = observation(r);
    match r.element {
        Some(_) => session.observe_element(dir, &obs, now_ms).violation,
        None => session.observe(dir, &obs, now_ms).violation,
    }
}

/// Runs the session checks; `Ok(true)` when there is no violation.
pub fn run(
    args: &CheckArgs,
    log: Option<&Path>,
    c2s: Option<&Path>,
    s2c: Option<&Path>,
) -> io::Result<bool> {
    let report = Report {
        out: BufWriter::new(ReportOut::lock()),
        json: args.json,
    };
    match (log, c2s, s2c) {
        (Some(log), _, _) => replay_log(args, log, report),
        (None, Some(c2s), Some(s2c)) if c2s.as_os_str() == "-" && s2c.as_os_str() == "-" => {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "--c2s and --s2c cannot both be the standard input (-)",
            ))
        }
        (None, Some(c2s), Some(s2c)) => {
            let session = Session::new(args.dialect(), None);
            merge_streams(args, c2s, s2c, session, report)
        }
        _ => unreachable!("clap requires --session-log or both --c2s and --s2c"),
    }
}

fn bad_log(line: u64, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("line {line} of the session log: {what}"),
    )
}

/// One line of a proxy log, as the replay reads it: the fields it needs, typed, and nothing
/// else (a member it does not know is skipped, not built: a record padded with megabytes of
/// junk must not cost dozens of times its size, as a `serde_json::Value` would).
#[derive(Deserialize)]
struct LogLine {
    /// The header: the proxy's options.
    rpcwire_proxy: Option<LogHeader>,
    dir: Option<String>,
    t_ms: Option<u64>,
    event: Option<String>,
    kind: Option<String>,
    id: Option<String>,
    /// The id the proxy forwarded a client request under, when it minted one (a request's
    /// record, a timeout): the session mints the same, replaying; a timeout names it.
    upstream_id: Option<String>,
    method: Option<String>,
    error_code: Option<i64>,
    cancels: Option<String>,
    protocol_version: Option<String>,
    progress_token: Option<String>,
    subscription: Option<String>,
    invalid_tools: Option<String>,
    reply: Option<LogReply>,
    element: Option<u64>,
    dropped: Option<bool>,
}

#[derive(Deserialize)]
struct LogHeader {
    dialect: Option<String>,
    max_in_flight: Option<u64>,
    /// Whether the proxy forwarded a JSON-RPC request reusing an id whose reply could still
    /// come under an id it minted: absent from the logs of proxies that did not.
    rewrites_reused_ids: Option<bool>,
    /// Whether it did so inside batches too (rebuilding them): absent from the logs of
    /// proxies that forwarded a batch's ids as they came.
    rewrites_reused_ids_in_batches: Option<bool>,
    /// Whether it did so for the batch elements beyond its `--max-in-flight` too (forwarded
    /// untracked): absent from the logs of proxies that forwarded those under the client's id.
    rewrites_reused_ids_of_untracked_elements: Option<bool>,
    /// Whether it did so for a request with the id of a batch element it forwarded untracked
    /// under that id lately too: absent from the logs of proxies that forwarded that request
    /// under its own id.
    rewrites_ids_of_untracked_elements_reused: Option<bool>,
    /// Whether it kept the batch elements it forwarded untracked until their reply came
    /// (answered at their batch's deadline, unanswered at exit): absent from the logs of
    /// proxies that forgot them.
    keeps_untracked_elements: Option<bool>,
    /// Whether it kept the server's batch elements beyond its limits likewise (their reply
    /// no violation, unanswered at exit): absent from the logs of proxies that forgot them.
    keeps_untracked_server_elements: Option<bool>,
}

#[derive(Deserialize)]
struct LogReply {
    code: Option<i64>,
    id: Option<String>,
}

/// The longest line of a proxy log the replay reads: its records hold ids and method names of
/// at most 64 KiB each and a `protocolVersion` of at most a frame (16 MiB by default), escaped.
const MAX_LOG_LINE: u64 = 256 << 20;

fn replay_log<W: Write>(args: &CheckArgs, path: &Path, mut report: Report<W>) -> io::Result<bool> {
    let mut progress = Progress::new(file_size(path));
    let mut input = BufReader::with_capacity(64 << 10, Named::open(path)?);
    let mut session: Option<Session> = None;
    let mut frames = [0u64; 2];
    let mut bytes = Vec::new();
    let mut number = 0u64;
    loop {
        // The next line needs a read, which may wait on a live log (`tail -f` of one being
        // written): the records so far go out before it.
        if !input.buffer().contains(&b'\n') {
            report.out.flush()?;
        }
        bytes.clear();
        let n = (&mut input)
            .take(MAX_LOG_LINE)
            .read_until(b'\n', &mut bytes)?;
        if n == 0 {
            break;
        }
        number += 1;
        if n as u64 == MAX_LOG_LINE && !bytes.ends_with(b"\n") {
            return Err(bad_log(number, "a record longer than 256 MiB"));
        }
        let line = std::str::from_utf8(&bytes).map_err(|e| bad_log(number, &e.to_string()))?;
        progress.add(n as u64);
        if line.trim().is_empty() {
            continue;
        }
        let v: LogLine = serde_json::from_str(line).map_err(|e| bad_log(number, &e.to_string()))?;
        if let Some(header) = v.rpcwire_proxy {
            // The dialect the proxy ran with.
            let dialect = match header.dialect.as_deref() {
                Some("jsonrpc") => Dialect::JsonRpc2,
                _ => Dialect::Mcp,
            };
            if let Some(given) = args.given_dialect().filter(|_| args.dialect() != dialect) {
                let recorded = header.dialect.as_deref().unwrap_or("mcp");
                let what = format!("the proxy ran with --dialect {recorded}, not {given}");
                return Err(bad_log(number, &what));
            }
            // And its limit of requests in flight (logs from before it was recorded: the
            // default).
            let max_in_flight = header
                .max_in_flight
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n > 0)
                .unwrap_or(crate::session::MAX_IN_FLIGHT.get());
            // The proxy forwards a JSON-RPC request reusing an id whose reply could still
            // come under an id it mints: so does its replay, alike. A log of a proxy that
            // did not (no such field in its header) is replayed as that proxy ran, and so is
            // one of a proxy that did for requests sent alone only, or for those and the batch
            // elements it tracked only, or not for a request with the id of a batch element it
            // forwarded untracked under that id. Likewise, one that forgot the batch elements
            // it forwarded untracked (no `keeps_untracked_elements`) is replayed forgetting them,
            // and one that forgot the server's (no `keeps_untracked_server_elements`) too.
            session.get_or_insert_with(|| {
                let session = Session::with_max_in_flight(dialect, None, max_in_flight);
                let flags = [
                    header.rewrites_reused_ids,
                    header.rewrites_reused_ids_in_batches,
                    header.rewrites_reused_ids_of_untracked_elements,
                    header.rewrites_ids_of_untracked_elements_reused,
                ];
                let said = flags.iter().take_while(|f| **f == Some(true)).count();
                session
                    .rewriting(IdRewriting::LEVELS[said])
                    .keeping_untracked_elements(header.keeps_untracked_elements == Some(true))
                    .keeping_untracked_server_elements(
                        header.keeps_untracked_server_elements == Some(true),
                    )
            });
            continue;
        }
        let session = session
            .get_or_insert_with(|| Session::new(args.dialect(), None).rewriting_reused_ids());
        let dir = match v.dir.as_deref() {
            Some("c2s") => Dir::C2s,
            Some("s2c") => Dir::S2c,
            // Counters ("stats", "summary"): the replay computes its own.
            _ => continue,
        };
        let t_ms = v.t_ms.unwrap_or(0);
        fn id(token: &Option<String>, number: u64) -> io::Result<Option<Id<'_>>> {
            match token {
                Some(token) => Id::from_token(token.as_bytes())
                    .map(Some)
                    .ok_or_else(|| bad_log(number, "a bad id")),
                None => Ok(None),
            }
        }
        match v.event.as_deref() {
            Some("timeout") => {
                // The table holds a request by the id the server knows it by.
                let upstream = id(&v.upstream_id, number)?;
                let id =
                    id(&v.id, number)?.ok_or_else(|| bad_log(number, "a timeout without an id"))?;
                let method = v.method.as_deref().unwrap_or_default();
                let upstream = upstream.unwrap_or(id);
                let timed_out = session.time_out(upstream).then_some(Violation::TimedOut);
                report.event("timeout", dir, id, method, timed_out)?;
            }
            // The proxy answered an invalid element of a timed-out batch itself: its reply is
            // owed no more.
            Some("owed_answered") => {
                session.forget_owed_reply(id(&v.id, number)?);
            }
            // Recomputed at the end.
            Some("unanswered") => {}
            Some(other) => return Err(bad_log(number, &format!("unknown event {other:?}"))),
            None => {
                let kind = v
                    .kind
                    .as_deref()
                    .ok_or_else(|| bad_log(number, "a record without a kind"))?;
                // The session takes a record's tokens as the decoder would have given them.
                for token in [&v.id, &v.cancels, &v.progress_token, &v.subscription] {
                    id(token, number)?;
                }
                if kind == "request" && v.id.is_none() {
                    return Err(bad_log(number, "a request without an id"));
                }
                let slot = &mut frames[(dir == Dir::S2c) as usize];
                // An element of a batch follows its batch's record and shares its frame.
                let frame = match v.element {
                    Some(_) => slot.saturating_sub(1),
                    None => {
                        *slot += 1;
                        *slot - 1
                    }
                };
                let mut r = Record::new(frame, None, crate::session::kind_name(kind));
                r.element = v.element;
                r.id = v.id;
                r.method = v.method;
                r.error_code = v.error_code;
                r.cancels = v.cancels;
                r.protocol_version = v.protocol_version;
                r.progress_token = v.progress_token;
                r.subscription = v.subscription;
                r.invalid_tools = v.invalid_tools;
                r.reply = v
                    .reply
                    .map(|reply| (reply.code.unwrap_or_default(), reply.id.unwrap_or_default()));
                let violation = observe(session, dir, &r, t_ms);
                // The proxy dropped this batch whole: its elements have no effect.
                if v.dropped == Some(true) {
                    session.drop_batch(dir);
                }
                report.message(dir, &r, violation)?;
            }
        }
    }
    progress.finish();
    let session = session.unwrap_or_else(|| Session::new(args.dialect(), None));
    report.finish(session, frames)
}

/// One side of a session read from its own file, one classified message at a time.
struct Side {
    input: Named,
    framer: StreamFramer,
    decoder: Decoder,
    buf: BytesMut,
    eof: bool,
    /// How many bytes of the stream were read.
    len: u64,
    /// How many records were read.
    index: u64,
    /// How many frames holding no message were passed over: a record's frame number counts
    /// them, as `check` of the stream alone numbers its frames (it reports them as `skip`).
    skipped: u64,
    peeked: Option<Record>,
    /// For a peeked batch: how far its elements were found not to need the other stream.
    peeked_batch: Option<BatchNeed>,
    /// The frame of the last record read (the peeked one, while there is one).
    last_frame: Option<Bytes>,
    /// Whether `decoder` follows the negotiated protocol version yet.
    adopted_version: bool,
}

impl Side {
    fn new(args: &CheckArgs, path: &Path, role: Role) -> io::Result<Side> {
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
    fn adopt_protocol_version(&mut self, version: &str) {
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
    fn invalid_tools(&self) -> Option<String> {
        let frame = self.last_frame.as_ref()?;
        crate::session::invalid_tool_headers(&self.decoder.decode(frame).ok()?)
    }

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

    /// How the next record relates to the session (`None` at the end of the stream).
    fn peek_need(
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

    fn next(
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

/// How a message relates to what the session waits on.
#[derive(PartialEq, Eq)]
enum Need {
    /// A reply to a request that is waiting (or progress on it).
    Matches,
    /// A reply to an id not (yet) waited on (or progress on a token not yet sent): the other
    /// stream must move on first.
    OtherSide,
    /// Anything else.
    Nothing,
}

/// How the record `r` (not a batch: [`BatchNeed`]), read from `dir`'s stream, relates to the
/// session.
fn need(session: &Session, dir: Dir, r: &Record) -> Need {
    need_of(session, dir, &observation(r), r.element.is_some())
}

/// How a peeked batch relates to the session: the other stream first while any element needs
/// it (the peer answers only what it has read), else this one while any element matches.
///
/// The batch stays peeked while the other stream moves on, one message a step, and the answer
/// is asked again at each step: looking at all its elements each time made a batch of `n`
/// replies, pulling `n` messages, cost `n²` decodes. What the steps change only turns an
/// element from needing the other stream into matching, as requests arrive, so the elements
/// found not to need it are not looked at again, unless a request of the other side stops
/// waiting, which may turn one back (a batch element kept beyond the limits counts as a
/// request: [`Session::awaits_reply`]). None does while the batch is peeked but by a
/// cancellation (MCP 2025-03-26, the one version of MCP with batches): under JSON-RPC, which
/// has no cancellation, the requests of one side stop waiting only by the other side's
/// replies, which come after the peeked batch in its own stream (and no merge has timeouts).
///
/// A request stopping waiting concerns only the elements that depend on it: those answering
/// its id, those reporting progress on its token, those of a listen stream it opened
/// ([`Concern`]). Those are looked at again, and no other: looking at them all again made a
/// stream with a cancellation at each step cost `n²` decodes as well. Elements with the same
/// concern have the same need, so each concern is looked at through its first element only,
/// and a cancellation looks again at a bounded number of them (at most one of each kind).
struct BatchNeed {
    /// For each concern of the elements that may answer the other side (responses,
    /// notifications), in the order they first come: the byte range, in the frame, of its
    /// first element. (The other elements need nothing.)
    concerns: Vec<(usize, usize)>,
    /// The concerns of each id, by its key.
    by_key: HashMap<IdKey, Vec<usize>>,
    /// The first concern not yet found not to need the other stream.
    next: usize,
    /// Those before `next` that a request stopping waiting may have turned to need the other
    /// stream: looked at again, in order, before the batch is found not to need it.
    unsettled: BTreeSet<usize>,
    /// Of those before `next`, settled, which match a request waiting (the others need
    /// nothing), and how many do.
    matches: Vec<bool>,
    matching: usize,
    /// The session's count of requests that stopped waiting in the other direction, as of
    /// the last look.
    stopped: u64,
    /// How many elements were looked at, for the tests.
    #[cfg(test)]
    examined: usize,
}

/// What the need of an element of a batch read from `dir`'s stream depends on, that a request
/// of the other side stopping waiting may change ([`need_of`], which reads nothing else of
/// an element of a batch): the progress token it reports on, the listen stream it belongs
/// to, or the id of the reply. `None`: an element that needs nothing, whatever the session
/// holds.
#[derive(PartialEq, Eq, Hash)]
enum Concern {
    /// A progress notification, on its token (`None`: it names none).
    Progress(Option<IdKey>),
    /// A notification of a listen stream, by the listen request's id.
    Stream(IdKey),
    /// A reply, by its id (`None`: it has none).
    Reply(Option<IdKey>),
}

impl Concern {
    /// The concern of `o`, an element of a batch read from `dir`'s stream, under `dialect`
    /// (the branches of [`need_of`], in its order).
    fn of(o: &Observation<'_>, dir: Dir, dialect: Dialect) -> Option<Concern> {
        let is_progress = o.kind == "notification"
            && o.method == Some(rpcwire::mcp::methods::PROGRESS)
            && dialect == Dialect::Mcp;
        if is_progress {
            return Some(Concern::Progress(o.progress_token.map(IdKey::of)));
        }
        if let (Some(stream), Dir::S2c, Dialect::Mcp) = (o.subscription, dir, dialect) {
            return Some(Concern::Stream(IdKey::of(stream)));
        }
        matches!(o.kind, "success_response" | "error_response")
            .then(|| Concern::Reply(o.id.map(IdKey::of)))
    }

    /// The key of the id it depends on, if any.
    fn key(&self) -> Option<&IdKey> {
        match self {
            Concern::Progress(key) | Concern::Reply(key) => key.as_ref(),
            Concern::Stream(key) => Some(key),
        }
    }
}

impl BatchNeed {
    /// The elements of the batch `r`, read from `dir`'s stream, as `session` will ask about
    /// them.
    fn of(decoder: &Decoder, r: &Record, session: &Session, dir: Dir) -> BatchNeed {
        let frame = r.batch.as_deref().unwrap_or_default();
        let mcp = session.dialect() == Dialect::Mcp;
        let mut seen = HashSet::new();
        let mut concerns = vec![];
        let mut by_key: HashMap<IdKey, Vec<usize>> = HashMap::new();
        if r.elements_may_answer {
            let Ok(Message::Batch(batch)) = decoder.decode(frame) else {
                unreachable!("a batch's record keeps the batch's frame");
            };
            for (raw, element) in batch.raw.elements().zip(batch.decode(decoder)) {
                if !may_answer(kind_of(&element)) {
                    continue;
                }
                let described = Described::of(element.as_ref(), mcp);
                let Some(concern) = Concern::of(&described.observation(), dir, session.dialect())
                else {
                    continue;
                };
                if seen.contains(&concern) {
                    continue;
                }
                if let Some(key) = concern.key() {
                    by_key.entry(key.clone()).or_default().push(concerns.len());
                }
                seen.insert(concern);
                // (A subslice of the frame: its offset.)
                let start = raw.as_bytes().as_ptr() as usize - frame.as_ptr() as usize;
                concerns.push((start, start + raw.as_bytes().len()));
            }
        }
        BatchNeed {
            matches: vec![false; concerns.len()],
            concerns,
            by_key,
            next: 0,
            unsettled: BTreeSet::new(),
            matching: 0,
            stopped: session.stopped_waiting(dir.other()),
            #[cfg(test)]
            examined: 0,
        }
    }

    fn need(&mut self, session: &Session, dir: Dir, r: &Record, decoder: &Decoder) -> Need {
        self.unsettle_stopped(session, dir);
        let frame = r.batch.as_deref().unwrap_or_default();
        while let Some(&concern) = self.unsettled.first() {
            match self.look(concern, session, dir, frame, decoder) {
                Need::OtherSide => return Need::OtherSide,
                need => {
                    self.unsettled.remove(&concern);
                    self.settle(concern, need);
                }
            }
        }
        while self.next < self.concerns.len() {
            match self.look(self.next, session, dir, frame, decoder) {
                Need::OtherSide => return Need::OtherSide,
                need => {
                    self.settle(self.next, need);
                    self.next += 1;
                }
            }
        }
        if self.matching > 0 {
            Need::Matches
        } else {
            Need::Nothing
        }
    }

    /// The concerns looked at already that the requests of the other side which stopped
    /// waiting since the last look depend on are unsettled: all of them, when the session
    /// does not tell which stopped.
    fn unsettle_stopped(&mut self, session: &Session, dir: Dir) {
        let stopped = session.stopped_waiting(dir.other());
        let since = stopped.saturating_sub(self.stopped);
        self.stopped = stopped;
        if since == 0 {
            return;
        }
        let Some(stops) = session.last_stops(dir.other(), since) else {
            (0..self.next).for_each(|concern| self.unsettle(concern));
            return;
        };
        for (id, token) in stops {
            for key in std::iter::once(id).chain(token) {
                let concerns = self.by_key.get(key).map_or(&[][..], Vec::as_slice);
                let looked_at: Vec<usize> = concerns
                    .iter()
                    .copied()
                    .filter(|&c| c < self.next)
                    .collect();
                looked_at.into_iter().for_each(|c| self.unsettle(c));
            }
        }
    }

    /// The concern `concern`, looked at already, is to be looked at again.
    fn unsettle(&mut self, concern: usize) {
        if self.unsettled.insert(concern) && std::mem::take(&mut self.matches[concern]) {
            self.matching -= 1;
        }
    }

    /// The concern `concern` was found not to need the other stream: `need`.
    fn settle(&mut self, concern: usize, need: Need) {
        let matches = need == Need::Matches;
        self.matches[concern] = matches;
        self.matching += usize::from(matches);
    }

    /// How the first element of the concern `concern` relates to the session.
    fn look(
        &mut self,
        concern: usize,
        session: &Session,
        dir: Dir,
        frame: &[u8],
        decoder: &Decoder,
    ) -> Need {
        #[cfg(test)]
        {
            self.examined += 1;
        }
        let (start, end) = self.concerns[concern];
        let element = decoder.decode(&frame[start..end]);
        let described = Described::of(element.as_ref(), session.dialect() == Dialect::Mcp);
        need_of(session, dir, &described.observation(), true)
    }
}

/// How one message (an element of a batch: `in_batch`) relates to the session. (What it reads
/// of an element of a batch is its [`Concern`], which follows its branches.)
fn need_of(session: &Session, dir: Dir, o: &Observation<'_>, in_batch: bool) -> Need {
    let is_progress = o.kind == "notification"
        && o.method == Some(rpcwire::mcp::methods::PROGRESS)
        && session.tracks_progress();
    if is_progress {
        return match o.progress_token {
            Some(token) if session.progress_is_active(dir, token) => Need::Matches,
            Some(_) => Need::OtherSide,
            None => Need::Nothing,
        };
    }
    // A notification of a listen stream needs the client's listen request first.
    if let (Some(stream), Dir::S2c, Dialect::Mcp) = (o.subscription, dir, session.dialect()) {
        return if session.is_waiting(Dir::C2s, stream) {
            Need::Matches
        } else {
            Need::OtherSide
        };
    }
    if !matches!(o.kind, "success_response" | "error_response") {
        return Need::Nothing;
    }
    let requester = match dir {
        Dir::C2s => Dir::S2c,
        Dir::S2c => Dir::C2s,
    };
    let id = o.id;
    // A reply may answer an invalid element of a batch (the session matches it so: an error
    // in an array before any request of that id sent alone, a success as a violation; with a
    // null id, only inside an array).
    let may_answer_owed = in_batch || id.is_some_and(|id| !id.is_null());
    if may_answer_owed && session.owes_element_reply(requester, id) {
        return Need::Matches;
    }
    match id {
        // (A batch element kept beyond the limits waits as a request does.)
        Some(id) if session.awaits_reply(requester, id) => Need::Matches,
        // A null-id error alone answers a line whose id could not be read (§5.1).
        Some(id)
            if id.is_null()
                && !in_batch
                && o.kind == "error_response"
                && session.owes_null_reply(requester) =>
        {
            Need::Matches
        }
        // A null id answers only a JSON-RPC request whose id was null.
        Some(id) if !id.is_null() || session.dialect() == Dialect::JsonRpc2 => Need::OtherSide,
        _ => Need::Nothing,
    }
}

/// Merges the streams `c2s` and `s2c` through `session` (a fresh one, of `args`' dialect), and
/// reports the result.
fn merge_streams<W: Write>(
    args: &CheckArgs,
    c2s: &Path,
    s2c: &Path,
    session: Session,
    mut report: Report<W>,
) -> io::Result<bool> {
    let mut session = session.telling_stops();
    let mut progress = Progress::new(file_size(c2s) + file_size(s2c));
    let mut client = Side::new(args, c2s, Role::Server)?;
    let mut server = Side::new(args, s2c, Role::Client)?;
    loop {
        let c = client.peek_need(&session, Dir::C2s, &mut progress, &mut report.out)?;
        let s = server.peek_need(&session, Dir::S2c, &mut progress, &mut report.out)?;
        let dir = match (c, s) {
            (None, None) => break,
            (Some(_), None) => Dir::C2s,
            (None, Some(_)) => Dir::S2c,
            (_, Some(Need::Matches)) => Dir::S2c,
            (Some(Need::Matches), _) => Dir::C2s,
            (Some(Need::Nothing), Some(Need::OtherSide)) => Dir::C2s,
            _ => Dir::S2c,
        };
        let side = match dir {
            Dir::C2s => &mut client,
            Dir::S2c => &mut server,
        };
        let mut r = side.next(&mut progress, &mut report.out)?.expect("peeked");
        if r.kind == "success_response" && session.reads_tool_headers(dir, wire_id(&r.id)) {
            r.invalid_tools = side.invalid_tools();
        }
        let violation = if r.kind == "framing_error" && r.reply.is_none() {
            // Not an over-long frame: where the stream can be read no further.
            Some(session.observe_bad_framing(dir))
        } else {
            observe(&mut session, dir, &r, 0)
        };
        // Its peer reads every line: one whose id could not be read is owed a null-id error
        // (JSON-RPC 2.0 §5.1).
        if r.reply.as_ref().is_some_and(|(_, id)| id == "null") {
            session.owe_null_reply(dir);
        }
        let kinds = batch_elements(&side.decoder, &r).map(|element| kind_of(&element));
        if Session::drops_batch(dir, kinds) {
            session.drop_batch(dir);
        }
        report.message(dir, &r, violation)?;
        for element in element_records(&side.decoder, &r) {
            let violation = observe(&mut session, dir, &element, 0);
            report.message(dir, &element, violation)?;
        }
        if let Some(version) = session.protocol_version() {
            client.adopt_protocol_version(version);
            server.adopt_protocol_version(version);
        }
    }
    progress.finish();
    report.finish(session, [client.index, server.index])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record `check` reads of `line`.
    fn record(decoder: &Decoder, line: &str) -> Record {
        let frame = Bytes::copy_from_slice(line.as_bytes());
        crate::check::classify(decoder, &frame, 0, 0)
    }

    /// A JSON-RPC decoder for the stream `dir` writes.
    fn decoder(dir: Dir) -> Decoder {
        let mut options = DecodeOptions::new(Dialect::JsonRpc2);
        options.role = match dir {
            Dir::C2s => Role::Server,
            Dir::S2c => Role::Client,
        };
        Decoder::new(options)
    }

    /// A server batch of replies to requests not sent yet stays peeked while the client's
    /// stream sends them, each followed by a `notifications/cancelled` (for the request
    /// before it; under JSON-RPC a notification like any other, which stops no request): each
    /// element is looked at a bounded number of times (at most twice), not once a step (a
    /// batch of 5,000 replies would cost 12.5 million looks).
    #[test]
    fn a_peeked_batch_looks_at_each_element_a_bounded_number_of_times() {
        const N: usize = 5_000;
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let replies: Vec<String> = (0..N)
            .map(|n| format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{}}}}"#))
            .collect();
        let batch = record(&server, &format!("[{}]", replies.join(",")));
        let mut session = Session::new(Dialect::JsonRpc2, None);
        let mut need = BatchNeed::of(&server, &batch, &session, Dir::S2c);
        for n in 0..N {
            let now = need.need(&session, Dir::S2c, &batch, &server);
            assert!(now == Need::OtherSide, "{n}");
            let request = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"m"}}"#);
            observe(&mut session, Dir::C2s, &record(&client, &request), 0);
            let cancel = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{}}}}}"#,
                n.saturating_sub(1)
            );
            observe(&mut session, Dir::C2s, &record(&client, &cancel), 0);
        }
        assert!(need.need(&session, Dir::S2c, &batch, &server) == Need::Matches);
        assert!(need.examined <= 2 * N, "{} looks", need.examined);
    }

    /// MCP (2025-03-26's batches): a server batch of replies to requests not sent yet stays
    /// peeked while the client's stream sends them, and between them a request and its
    /// cancellation: a cancellation looks again only at the elements it concerns (none here),
    /// not at all those looked at already, so the looks stay linear in the steps (a batch of
    /// 2,000 replies cost 4 million). One that concerns an element
    /// looks at it again: the reply to a request cancelled needs the other stream again.
    #[test]
    fn a_cancellation_looks_again_only_at_the_elements_it_concerns() {
        const N: usize = 2_000;
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let replies: Vec<String> = (0..N)
            .map(|n| format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{}}}}"#))
            .collect();
        let batch = record(&server, &format!("[{}]", replies.join(",")));
        let mut session = Session::new(Dialect::Mcp, None).telling_stops();
        let mut need = BatchNeed::of(&server, &batch, &session, Dir::S2c);
        // The client sends `line`; how the batch then relates to the session.
        let mut send = |session: &mut Session, line: &str| {
            observe(session, Dir::C2s, &record(&client, line), 0);
            need.need(session, Dir::S2c, &batch, &server)
        };
        let cancel = |id: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
            )
        };
        for n in 0..N {
            let other = format!(r#""x{n}""#);
            let request = format!(r#"{{"jsonrpc":"2.0","id":{other},"method":"m"}}"#);
            assert!(send(&mut session, &request) == Need::OtherSide, "{n}");
            assert!(
                send(&mut session, &cancel(&other)) == Need::OtherSide,
                "{n}"
            );
            let request = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"m"}}"#);
            let now = send(&mut session, &request);
            assert!(
                now == if n + 1 < N {
                    Need::OtherSide
                } else {
                    Need::Matches
                }
            );
        }
        assert!(send(&mut session, &cancel("0")) == Need::OtherSide);
        // Once a step, the element the batch waits on, and once more each as it matches.
        assert!(need.examined <= 3 * N + 1 + N, "{} looks", need.examined);
    }

    /// A peeked batch's element answering a batch element kept beyond the limits matches it,
    /// as one answering a request waiting does, and no longer once the client cancels that
    /// element (MCP 2025-03-26, the one version with batches): the elements already looked at
    /// are looked at again, as when a request waiting is cancelled, not taken to match still.
    /// (Here the batch's other element, the error owed to an invalid element, matches once
    /// that element is sent: nothing else stops waiting.)
    #[test]
    fn a_peeked_reply_to_a_kept_element_matches_until_it_is_cancelled() {
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let batch = record(
            &server,
            r#"[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"m"}}]"#,
        );
        let mut session = Session::with_max_in_flight(Dialect::Mcp, None, 1);
        let mut need = BatchNeed::of(&server, &batch, &session, Dir::S2c);
        let send = |session: &mut Session, line: &str| {
            let r = record(&client, line);
            observe(session, Dir::C2s, &r, 0);
            for element in element_records(&client, &r) {
                observe(session, Dir::C2s, &element, 0);
            }
        };
        send(&mut session, r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#);
        send(&mut session, r#"[{"jsonrpc":"2.0","id":2,"method":"b"}]"#);
        assert!(session.awaits_reply(Dir::C2s, Id::from_token(b"2").unwrap()));
        assert!(need.need(&session, Dir::S2c, &batch, &server) == Need::OtherSide);
        send(
            &mut session,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        );
        assert!(!session.awaits_reply(Dir::C2s, Id::from_token(b"2").unwrap()));
        send(&mut session, r#"[{"jsonrpc":"2.0","id":5}]"#);
        assert!(session.owes_element_reply(Dir::C2s, Id::from_token(b"5")));
        assert!(need.need(&session, Dir::S2c, &batch, &server) == Need::OtherSide);
    }

    /// `check --json --dialect jsonrpc --c2s C2S --s2c S2C` of the streams `c2s` and `s2c`
    /// (written under the system's temporary directory, as `name`), merged through a session
    /// of at most one request in flight each way: each record's direction, id and violation.
    fn merge_one_in_flight(name: &str, c2s: &str, s2c: &str) -> Vec<(String, String, String)> {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: CheckArgs,
        }
        let dir = std::env::temp_dir().join(format!("rpcwire-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (c2s_path, s2c_path) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
        std::fs::write(&c2s_path, c2s).unwrap();
        std::fs::write(&s2c_path, s2c).unwrap();
        let args = <Cli as clap::Parser>::parse_from([
            "check".as_ref(),
            "--json".as_ref(),
            "--dialect".as_ref(),
            "jsonrpc".as_ref(),
            "--c2s".as_ref(),
            c2s_path.as_os_str(),
            "--s2c".as_ref(),
            s2c_path.as_os_str(),
        ])
        .args;
        let mut out = vec![];
        let report = Report {
            out: &mut out,
            json: true,
        };
        let session = Session::with_max_in_flight(Dialect::JsonRpc2, None, 1);
        merge_streams(&args, &c2s_path, &s2c_path, session, report).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => "-".into(),
            other => other.to_string(),
        };
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .filter(|record| record.get("summary").is_none())
            .map(|r| (text(&r["dir"]), text(&r["id"]), text(&r["violation"])))
            .collect()
    }

    /// A batch element beyond the limit of requests in flight, kept until its reply comes,
    /// waits for it as a request does: the server's reply to it goes first (rule 1), before
    /// the client's next request, which the merge would otherwise take first (rule 2, as if
    /// the reply answered an id not sent yet). Taken first, that request found the table still
    /// full (the reply to 1 had not come) and was refused as beyond the limit, and the reply
    /// to it then answered nothing.
    #[test]
    fn a_reply_to_a_kept_element_goes_first() {
        let c2s = [
            r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
            r#"[{"jsonrpc":"2.0","id":2,"method":"b"}]"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"c"}"#,
        ];
        let s2c = [
            r#"[{"jsonrpc":"2.0","id":2,"result":{}}]"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        ];
        let records = merge_one_in_flight(
            "kept-element-first",
            &(c2s.join("\n") + "\n"),
            &(s2c.join("\n") + "\n"),
        );
        let expected = [
            ("c2s", "1", "-"),
            ("c2s", "-", "-"),
            ("c2s", "2", "too_many_in_flight"),
            ("s2c", "-", "-"),
            ("s2c", "2", "-"),
            ("s2c", "1", "-"),
            ("c2s", "3", "-"),
            ("s2c", "3", "-"),
        ];
        let expected: Vec<_> = expected
            .iter()
            .map(|(d, i, v)| (d.to_string(), i.to_string(), v.to_string()))
            .collect();
        assert_eq!(records, expected);
    }
}
