//! Replaying a proxy log (`--session-log FILE`) in its own order: its lines, as the replay
//! reads them, and the replay.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

use rpcwire::{Dialect, Id, RawJson};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::observe::observe;
use super::progress::{Progress, file_size};
use super::report::Report;
use crate::check::{CheckArgs, Named, Record, about_file};
use crate::session::{Dir, IdRewriting, ParamsFault, Session, Violation};

/// What is wrong with a proxy log's contents, as opposed to an error reading it (which names
/// the file already): [`replay_log`] names the log's file before it, so that a script checking
/// several logs tells which one is bad.
#[derive(Debug)]
struct BadLog(String);

impl std::fmt::Display for BadLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadLog {}

/// The error for line `line` of the session log: `what` is wrong with it.
fn bad_log(line: u64, what: &str) -> io::Error {
    let what = format!("line {line} of the session log: {what}");
    io::Error::new(io::ErrorKind::InvalidData, BadLog(what))
}

/// The error for a log without a record: the proxy writes its header before anything else,
/// so the file is not a log it wrote (or the proxy never started), and passing it would
/// report a session that was never checked as clean.
fn empty_log() -> io::Error {
    let what = "empty session log: no header record (`rpcwire proxy --log` writes one first)";
    io::Error::new(io::ErrorKind::InvalidData, BadLog(what.to_string()))
}

/// `e`, naming the log at `path` when it is about the log's contents ([`BadLog`]); any other
/// error (reading the log, writing the report) as it is.
fn naming_the_log(path: &Path, e: io::Error) -> io::Error {
    if e.get_ref().is_some_and(|inner| inner.is::<BadLog>()) {
        about_file(path, e)
    } else {
        e
    }
}

/// What serde_json found wrong with a line of the log, placed by its column only: a record is
/// one line, so the line serde_json names is always 1, which would contradict the log's line
/// the message names.
fn json_error(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    match message.strip_suffix(&at) {
        Some(what) => format!("{what} at column {}", e.column()),
        None => message,
    }
}

/// One line of a proxy log, as the replay reads it: the fields it needs, typed, and nothing
/// else (a member it does not know is skipped, not built: a record padded with megabytes of
/// junk must not cost dozens of times its size, as a `serde_json::Value` would).
#[derive(Deserialize)]
struct LogLine {
    /// The header: the proxy's options.
    rpcwire_proxy: Option<LogHeader>,
    /// Who sent the message (`c2s`, `s2c`), or the request an event names; none on a record
    /// of counters (`stats`, `summary`).
    dir: Option<String>,
    /// When the proxy saw it, in milliseconds since the proxy started (0 when absent).
    t_ms: Option<u64>,
    /// What an event record tells (`timeout`, `owed_answered`, `unanswered`); none on a
    /// message's record.
    event: Option<String>,
    /// The message's kind, as `check` names it (`request`, `success_response`, ...).
    kind: Option<String>,
    /// The message's id as its wire token (an event's: the id the request's sender gave it).
    id: Option<String>,
    /// The id the proxy forwarded a client request under, when it minted one (a request's
    /// record, a timeout): the session mints the same, replaying; a timeout names it.
    upstream_id: Option<String>,
    /// The method of a request or a notification (an event's: its request's).
    method: Option<String>,
    /// An error response's code.
    error_code: Option<i64>,
    /// For `notifications/cancelled`: the wire token of the request it cancels.
    cancels: Option<String>,
    /// The protocol version a message names (the reply to `initialize`, an MCP request's
    /// `_meta`).
    protocol_version: Option<String>,
    /// The wire token of the progress token a request asks for or a progress notification
    /// reports on.
    progress_token: Option<String>,
    /// For `notifications/progress`: its `progress`, when the proxy could read it (absent:
    /// it could not, or a proxy that did not log it; either way not judged). Kept as written,
    /// read as the proxy read the message's (serde_json's own reading of a float may be a
    /// last digit off, and would then judge two reports otherwise).
    progress: Option<Box<RawValue>>,
    /// For MCP's `notifications/progress` and `notifications/cancelled`, `initialize` and the
    /// success answering it: what is wrong with its params or result
    /// ([`ParamsFault::as_str`]; absent: nothing, or a proxy that did not log it, whose log
    /// replays with no `invalid_notification_params` or `invalid_initialize`).
    params_fault: Option<String>,
    /// The wire token of the listen request a notification of its stream names.
    subscription: Option<String>,
    /// For a reply to `tools/list` the proxy checked: the tools whose `x-mcp-header`
    /// annotations are invalid, each with why.
    invalid_tools: Option<String>,
    /// For an MCP request asking progress: whether it is task-augmented (absent: not, or
    /// a proxy that did not log it, whose session let the token end with the reply).
    task_augmented: Option<bool>,
    /// The wire token of the task a message tells of (a `notifications/tasks/status`, or a
    /// reply the proxy read it of).
    task: Option<String>,
    /// Whether that task has ended.
    task_ended: Option<bool>,
    /// The reply the proxy sent in the message's place.
    reply: Option<LogReply>,
    /// The index of a batch element in its batch (its record follows its batch's).
    element: Option<u64>,
    /// Whether the proxy dropped this batch whole.
    dropped: Option<bool>,
    /// The counters, every `--stats-every` seconds and at exit: the replay computes its own.
    stats: Option<IgnoredAny>,
    summary: Option<IgnoredAny>,
}

/// A line that is not a record of a proxy log, as far as telling a JSON-RPC message from
/// anything else goes (a stream given where a log goes: `check --session-log capture.ndjson`).
#[derive(Deserialize)]
struct NotALogRecord {
    /// The `"jsonrpc":"2.0"` member of a message.
    jsonrpc: Option<IgnoredAny>,
}

/// The error for line `line` of the session log, which is no record of a proxy log at all
/// (`why`: what reading it as one found, if anything): a JSON-RPC message says so, for a
/// stream of messages is checked without `--session-log`.
fn not_a_log_record(line: u64, text: &str, why: Option<String>) -> io::Error {
    let message = serde_json::from_str::<NotALogRecord>(text).is_ok_and(|r| r.jsonrpc.is_some());
    let what = match (message, why) {
        (true, _) => "a JSON-RPC message, not a record of an `rpcwire proxy --log` log (check a \
                      stream of messages without --session-log)"
            .to_string(),
        (false, Some(why)) => why,
        (false, None) => "not a record of an `rpcwire proxy --log` log".to_string(),
    };
    bad_log(line, &what)
}

/// The header, the log's first line: the options the proxy ran with that its replay shares.
#[derive(Deserialize)]
struct LogHeader {
    /// Its `--dialect` (`mcp` when absent).
    dialect: Option<String>,
    /// Its `--max-in-flight` (absent from logs from before it was recorded: the default).
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
    /// Whether it refused a client's `initialize` once the server had answered one with a
    /// success (MCP): absent from the logs of proxies that forwarded it as any request.
    refuses_second_initialize: Option<bool>,
    /// Whether a server's batch element reusing an id in flight waited behind the request
    /// holding it: absent from the logs of proxies that forwarded it untracked.
    queues_reused_server_elements: Option<bool>,
}

/// The reply the proxy sent in a message's place.
#[derive(Deserialize)]
struct LogReply {
    /// Its error code.
    code: Option<i64>,
    /// The id it carried: a wire token, `null` or `<absent>`.
    id: Option<String>,
}

/// The longest line of a proxy log the replay reads: its records hold ids and method names of
/// at most 64 KiB each and a `protocolVersion` of at most a frame (16 MiB by default), escaped.
const MAX_LOG_LINE: u64 = 256 << 20;

/// The session a log's header (on line `line`) says the proxy ran: its dialect, which must
/// be the one `args` names if it names one, its limit of requests in flight and how it
/// handled reused ids and untracked batch elements.
fn session_of_header(args: &CheckArgs, header: &LogHeader, line: u64) -> io::Result<Session> {
    // The dialect the proxy ran with: one it does not know would replay under rules the
    // proxy never ran, so it is refused rather than taken for MCP.
    let dialect = match header.dialect.as_deref() {
        None | Some("mcp") => Dialect::Mcp,
        Some("jsonrpc") => Dialect::JsonRpc2,
        Some(other) => {
            let what = format!("a header with --dialect {other:?}, neither mcp nor jsonrpc");
            return Err(bad_log(line, &what));
        }
    };
    if let Some(given) = args.given_dialect().filter(|_| args.dialect() != dialect) {
        let recorded = header.dialect.as_deref().unwrap_or("mcp");
        let what = format!("the proxy ran with --dialect {recorded}, not {given}");
        return Err(bad_log(line, &what));
    }
    // And its limit of requests in flight (logs from before it was recorded: the limit then).
    let max_in_flight = header
        .max_in_flight
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n > 0)
        .unwrap_or(crate::session::MAX_IN_FLIGHT_UNRECORDED.get());
    // The proxy forwards a JSON-RPC request reusing an id whose reply could still come under
    // an id it mints: so does its replay, alike. A log of a proxy that did not (no such field
    // in its header) is replayed as that proxy ran, and so is one of a proxy that did for
    // requests sent alone only, or for those and the batch elements it tracked only, or not
    // for a request with the id of a batch element it forwarded untracked under that id.
    // Likewise, one that forgot the batch elements it forwarded untracked (no
    // `keeps_untracked_elements`) is replayed forgetting them, one that forgot the server's
    // (no `keeps_untracked_server_elements`) too, one that forwarded a client's second
    // `initialize` (no `refuses_second_initialize`) forwarding it, and one that forwarded a
    // server's batch element reusing an id in flight untracked (no
    // `queues_reused_server_elements`) likewise.
    let session = Session::with_max_in_flight(dialect, None, max_in_flight);
    let flags = [
        header.rewrites_reused_ids,
        header.rewrites_reused_ids_in_batches,
        header.rewrites_reused_ids_of_untracked_elements,
        header.rewrites_ids_of_untracked_elements_reused,
    ];
    let said = flags.iter().take_while(|f| **f == Some(true)).count();
    Ok(session
        .rewriting(IdRewriting::LEVELS[said])
        .keeping_untracked_elements(header.keeps_untracked_elements == Some(true))
        .keeping_untracked_server_elements(header.keeps_untracked_server_elements == Some(true))
        .refusing_second_initialize(header.refuses_second_initialize == Some(true))
        .queuing_reused_server_elements(header.queues_reused_server_elements == Some(true)))
}

/// Replays the proxy log at `path` in its own order, through a session set up as its header
/// says the proxy ran, and reports the result; `Ok(true)` when there is no violation. A log
/// whose contents are not what the proxy writes is refused with an error naming the file and
/// the line.
pub(super) fn replay_log<W: Write>(
    args: &CheckArgs,
    path: &Path,
    report: Report<W>,
) -> io::Result<bool> {
    replay(args, path, report).map_err(|e| naming_the_log(path, e))
}

/// Says on stderr that the log's last line, `number`, is a record cut short, which the
/// replay leaves out.
fn cut_short(path: &Path, number: u64) {
    let what = "the last line, a record cut short (the proxy stopped while writing it?), is \
                left out: the session is replayed up to the line before it";
    say!("rpcwire check: {}", about_file(path, bad_log(number, what)));
}

/// [`replay_log`], its errors about the log's contents not naming the file yet.
fn replay<W: Write>(args: &CheckArgs, path: &Path, mut report: Report<W>) -> io::Result<bool> {
    let mut progress = Progress::new(file_size(path));
    let mut input = BufReader::with_capacity(64 << 10, Named::open(path)?);
    // Set up by the header, the log's first record: none before it.
    let mut session: Option<Session> = None;
    let mut frames = [0u64; 2];
    let mut bytes = Vec::new();
    let mut number = 0u64;
    loop {
        // The next line needs a read, which may wait on a live log (`tail -n +1 -f` of one being
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
        // The last line, without its newline, may be a record cut short: the proxy stopped
        // while writing it (killed, its disk full). The records before it are replayed, and
        // the cut one is said to be lost, rather than the whole replay refused.
        let cut = !bytes.ends_with(b"\n");
        let line = match std::str::from_utf8(&bytes) {
            Ok(line) => line,
            Err(e) if cut && e.error_len().is_none() => {
                cut_short(path, number);
                break;
            }
            Err(e) => return Err(bad_log(number, &e.to_string())),
        };
        progress.add(n as u64);
        if line.trim().is_empty() {
            continue;
        }
        let v: LogLine = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) if cut && e.is_eof() => {
                cut_short(path, number);
                break;
            }
            // Named: "expected value at column 1" says nothing of the three bytes an editor
            // saving the log put there, invisible in most viewers.
            Err(_) if line.starts_with('\u{feff}') => {
                let what = "a byte-order mark (U+FEFF) before the record, which no proxy \
                            writes (an editor saving the log may add one)";
                return Err(bad_log(number, what));
            }
            Err(e) => return Err(not_a_log_record(number, line, Some(json_error(&e)))),
        };
        if let Some(header) = v.rpcwire_proxy {
            // The proxy empties its log when it starts: a second header is a second run
            // (logs joined, or one the proxy restarted on under `tail -F`), whose session is
            // not the first one's.
            if session.is_some() {
                let what = "a second header: a log holds one run of `rpcwire proxy --log`";
                return Err(bad_log(number, what));
            }
            session = Some(session_of_header(args, &header, number)?);
            continue;
        }
        let dir = match v.dir.as_deref() {
            Some("c2s") => Some(Dir::C2s),
            Some("s2c") => Some(Dir::S2c),
            // Counters ("stats", "summary"): the replay computes its own.
            None if v.stats.is_some() || v.summary.is_some() => None,
            // (Every other record, message or event, names its direction: a line that does
            // not is no record of a log, and skipping it would pass what was never checked.)
            _ => return Err(not_a_log_record(number, line, None)),
        };
        // Without the header, the session the proxy ran is not known: replaying under
        // `check`'s defaults would judge a session by rules its proxy may not have had.
        let Some(session) = session.as_mut() else {
            let what = "a record before the header (`rpcwire proxy --log` writes its header first)";
            return Err(bad_log(number, what));
        };
        let Some(dir) = dir else {
            continue;
        };
        let t_ms = v.t_ms.unwrap_or(0);
        // The id a record's `member` holds, if any; one that is no JSON id's wire token is
        // a bad log, which says which of a record's ids it is.
        fn id<'a>(
            token: &'a Option<String>,
            member: &str,
            number: u64,
        ) -> io::Result<Option<Id<'a>>> {
            match token {
                Some(token) => Id::from_token(token.as_bytes()).map(Some).ok_or_else(|| {
                    let what = format!("a bad id in `{member}` (not a JSON id's wire token)");
                    bad_log(number, &what)
                }),
                None => Ok(None),
            }
        }
        match v.event.as_deref() {
            Some("timeout") => {
                // The table holds a request by the id the server knows it by.
                let upstream = id(&v.upstream_id, "upstream_id", number)?;
                let id = id(&v.id, "id", number)?
                    .ok_or_else(|| bad_log(number, "a timeout without an id"))?;
                let method = v.method.as_deref().unwrap_or_default();
                let upstream = upstream.unwrap_or(id);
                let timed_out = session.time_out(upstream).then_some(Violation::TimedOut);
                report.event("timeout", dir, id, method, timed_out, Some(number))?;
            }
            // The proxy answered an invalid element of a timed-out batch itself: its reply is
            // owed no more.
            Some("owed_answered") => {
                session.forget_owed_reply(id(&v.id, "id", number)?);
            }
            // Recomputed at the end.
            Some("unanswered") => {}
            Some(other) => return Err(bad_log(number, &format!("unknown event {other:?}"))),
            None => {
                let kind = v
                    .kind
                    .as_deref()
                    .ok_or_else(|| bad_log(number, "a record without a kind"))?;
                // A kind the proxy does not write would be taken for `invalid`: a violation
                // the proxy never reported.
                let known_kind = crate::session::kind_name(kind);
                if known_kind != kind {
                    return Err(bad_log(number, &format!("unknown kind {kind:?}")));
                }
                // The session takes a record's tokens as the decoder would have given them.
                for (token, member) in [
                    (&v.id, "id"),
                    (&v.cancels, "cancels"),
                    (&v.progress_token, "progress_token"),
                    (&v.subscription, "subscription"),
                    (&v.task, "task"),
                ] {
                    id(token, member, number)?;
                }
                let progress = match &v.progress {
                    Some(raw) => Some(
                        RawJson::new(raw.get().as_bytes())
                            .and_then(|p| p.as_f64())
                            .ok_or_else(|| bad_log(number, "a bad progress"))?,
                    ),
                    None => None,
                };
                let params_fault = match &v.params_fault {
                    Some(name) => Some(
                        ParamsFault::from_name(name)
                            .ok_or_else(|| bad_log(number, "a bad params_fault"))?,
                    ),
                    None => None,
                };
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
                let mut r = Record::new(frame, None, known_kind);
                r.line = Some(number);
                r.element = v.element;
                r.id = v.id;
                r.method = v.method;
                r.error_code = v.error_code;
                r.cancels = v.cancels;
                r.protocol_version = v.protocol_version;
                r.progress_token = v.progress_token;
                r.progress = progress;
                r.params_fault = params_fault;
                r.subscription = v.subscription;
                r.invalid_tools = v.invalid_tools;
                r.task_augmented = v.task_augmented == Some(true);
                r.task = v.task.map(|task| (task, v.task_ended == Some(true)));
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
    let session = session.ok_or_else(empty_log)?;
    report.finish(session, frames)
}
