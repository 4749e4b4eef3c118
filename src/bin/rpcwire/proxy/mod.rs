//! `rpcwire proxy -- CMD ARGS...`: a validating MCP stdio proxy.
//!
//! Spawns the server, forwards every valid message byte for byte in both directions (a line's
//! `\r\n` becomes `\n`, a `\r` inside a message a space; blank lines are dropped), tracks the
//! requests in flight both ways, and reports violations. (Under JSON-RPC, a client request
//! reusing an id whose reply could still come goes under an id the session mints, and its reply
//! back with the client's: `session/rewrite.rs`.) It never writes a byte to either side
//! that is not a valid message.
//!
//! Each direction is one plain thread that reads a side's pipe, validates and sorts what it
//! read, and writes what it forwards straight into the other side's pipe; a small runtime
//! waits for the server and runs the timeouts and signal forwarding.

use std::fs::File;
use std::io::{self, BufWriter, IoSlice, Read, Write};
use std::num::NonZeroUsize;
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes, BytesMut};
use clap::Args;
use rpcwire::mcp;
use rpcwire::{
    encode, encode::BatchReply, DecodeOptions, DecodedLine, Decoder, Dialect, ErrorCode, Id, IdBuf,
    LineFramer, Lines, Message, RawJson, Rejection, Reply, ReplyId, Role,
};
use serde_json::json;
use smallvec::SmallVec;

use crate::check::{DialectArg, ValidateArg};
use crate::session::{
    invalid_tool_headers, kind_of, Described, Dir, Expired, InPlace, Observation, Session, Timeout,
    Verdict, Violation,
};

/// Options of `rpcwire proxy`.
#[derive(Debug, Args)]
#[command(after_help = "\
Forwards every valid message byte for byte (a line's \\r\\n becomes \\n, a \\r inside a message a space
(whitespace to JSON, a line end to some readers), blank lines are dropped) and
tracks the requests in flight both ways. Reported (on stderr, and in the --log file as the
`violation` of a record): invalid messages from either side (never forwarded; an invalid client
message gets the error reply the protocol calls for, unless --drop-invalid), non-JSON lines from either side (not_json; from the server, stdout pollution), over-long
lines (too_long), duplicate ids, in flight or cancelled or timed out lately (duplicate_id; under MCP a
client's is answered with -32600; under JSON-RPC a client's, sent alone, is forwarded under an id
the proxy mints (a number counting down from 2^53-2 for a numeric id, else a string
\"rpcwire-N\", never one the server may still answer) and its reply goes back with the client's id
restored, so the late reply to the old request is dropped as late and never answers the new
one; it waits like any other request, with a deadline of its own, and counts against
--max-in-flight; inside a batch, the batch goes on rebuilt with that element under the minted
id, and the server's reply to it, in its array or alone, with the client's id restored; a
server's waits behind the request holding the id, the first reply answering the first),
requests beyond --max-in-flight or 256 MiB of ids, method names and progress tokens waiting
(too_many_in_flight;
never forwarded, a client's is answered with
-32603; a server's is dropped), replies to unknown or already answered
ids (unknown_reply), replies after a cancellation or a timeout (late_reply), replies with a null id
that answer no request, an error to a notification or to a line whose id could not be read or,
under JSON-RPC, a success while no request with a null id waits (reply_without_id), timed-out
requests (timed_out), and requests left unanswered at
exit (unanswered). Under MCP, none of these is forwarded. Also reported under MCP, and forwarded
(it asks nothing of the receiver): progress notifications on a token no request in flight
carries, after its result or cancellation (unknown_progress); a request whose progress token
another request in flight from the same side carries (duplicate_progress_token: the request is
valid, but the progress of the two cannot be told apart); from 2026-07-28 on, a server's
tools/list result listing a tool whose x-mcp-header annotations are invalid, which its clients
must drop (invalid_tool_headers: the tools and why are reported). And under MCP, not forwarded: a
client's cancellation of its initialize request, which must not be cancelled (cancelled_initialize;
the request stays in flight). Counters are printed at exit.

With --dialect jsonrpc, a batch (JSON-RPC 2.0 section 6) travels whole, byte for byte, never split
(an array the receiver needs goes on without the late replies it holds, and with the ids the
proxy rewrites, as a new array of its elements, each otherwise byte for byte), and each of its
elements is tracked and reported as a message of its own: its requests go in flight
(duplicate_id, unanswered apply per element; one beyond --max-in-flight is reported and goes
with its batch, untracked, but it is kept until its reply comes, at most 4,096 at once each way:
its reply is no violation, a request reusing its id meanwhile is a duplicate_id, a client's
batch's timeout answers it, and never answered it is
unanswered at exit (one not kept: its reply is an unknown_reply); one reusing an id goes on
under a minted id, as one sent alone, untracked or not: the reply to an untracked one goes back
with its id; a later request with the id of one that went untracked under its own goes under a
minted id), its replies are matched (unknown_reply, late_reply, reply_without_id). An invalid element from the client is reported
(invalid) but not answered by the proxy: the server answers it in its own array (a success there
is success_to_invalid, forwarded as the element's one reply). A client batch times out as a unit
(one array answers a batch): at --timeout-ms the client gets one array from the proxy for what is
left of it, a -32603 for each request and a -32600 for each invalid element, and the server's
array, coming later, is late. A batch is dropped when it holds nothing the receiver needs, and
when it comes from the server with an invalid element (the client gets valid messages only; its
elements then have no effect: a reply in it leaves its request waiting, but a batch it answered
gets one array from the proxy at once for all that is left of it, a -32603 for each request and a
-32600 for each invalid element). At most --max-in-flight replies to invalid elements, and 256 MiB
of their ids, are expected at once. An empty batch or one that is not JSON is an invalid line:
answered with one -32600 or -32700.
Cancellation and initialize are MCP's: plain JSON-RPC has neither.

The server's stderr is passed through; SIGINT, SIGTERM and SIGHUP are forwarded to its process
group (a server started through a wrapper such as `sh -c` gets them too); the proxy exits with the
server's status (128 + N when a signal N ended it), or 2 when it cannot start.

Example:
  rpcwire proxy --log session.ndjson --timeout-ms 30000 -- node server.js stdio
  rpcwire check --session-log session.ndjson")]
pub struct ProxyArgs {
    /// The rule set.
    #[arg(long, value_enum, default_value = "mcp")]
    dialect: DialectArg,
    /// How much of each payload is validated.
    #[arg(long = "validate", value_enum, default_value = "strict")]
    validate: ValidateArg,
    /// Longest frame accepted, in bytes.
    #[arg(long, default_value_t = rpcwire::Limits::DEFAULT.max_frame)]
    max_frame: usize,
    /// Most elements of a client's batch (or a server's): one with more is not forwarded; a
    /// client's is answered with one -32600 error, as a server with this limit answers it.
    #[arg(long, value_name = "ELEMENTS", default_value_t = rpcwire::Limits::DEFAULT.max_batch_len)]
    max_batch: usize,
    /// Fail a client request that the server has not answered after this many milliseconds:
    /// the client gets a -32603 "Request timed out" error reply, an MCP server a
    /// `notifications/cancelled` (not for initialize, which must not be cancelled; plain
    /// JSON-RPC has no cancellation); the server's late reply is dropped. MCP 2026-07-28's
    /// `subscriptions/listen`, a stream its result closes, never times out, nor does MCP's
    /// `tasks/result`, which waits until its task ends. At least 1.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: Option<u64>,
    /// Drop invalid client messages and over-long lines silently instead of answering them
    /// with the error reply the protocol calls for.
    #[arg(long)]
    drop_invalid: bool,
    /// Most requests tracked in flight in each direction (a server's JSON-RPC requests waiting
    /// behind one of the same id, and a client's forwarded under a minted id, included); one
    /// more is not forwarded (its
    /// reply could not be matched), and a client's gets a -32603 error reply (inside a JSON-RPC
    /// batch, it goes with its batch, untracked, under a minted id when it reuses an id whose
    /// reply could still come). So is one that would take the ids, method
    /// names and progress tokens waiting in its direction past 256 MiB.
    #[arg(long, value_name = "N", default_value_t = crate::session::MAX_IN_FLIGHT)]
    max_in_flight: NonZeroUsize,
    /// Write one NDJSON record per message (dir, t_ms, kind, id, upstream_id: the id the proxy
    /// minted for a client request reusing an id, also on its timeout and unanswered events,
    /// client_id: the client's id restored on the reply to it, method, error_code, cancels,
    /// protocol_version, progress_token, subscription, invalid_tools: the tools a tools/list
    /// result lists with invalid x-mcp-header annotations, when read, size: the frame's length,
    /// left out for an over-long line the proxy reported before its end came (discarded as it
    /// comes, never held, its length is not known), reply: the error reply the proxy sent in
    /// its place, violation; a batch's record is followed by one per
    /// element, with its index as element, and has dropped: true when the batch is dropped
    /// whole, not forwarded), plus timeout, owed_answered (a reply to an invalid
    /// element of a timed-out batch, sent by the proxy) and unanswered events and the
    /// counters, to this file; `rpcwire check --session-log FILE` replays it.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Print the counters to stderr (and to the --log file, which is flushed then) every this
    /// many seconds, at least 1; without it, only at exit.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    stats_every: Option<u64>,
    /// Do not print each violation to stderr (the summary at exit is still printed).
    #[arg(long)]
    quiet: bool,
    /// The server to run, and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// The session and the log, behind one lock so that the log's order is the session's.
struct State {
    session: Session,
    log: Option<BufWriter<File>>,
}

/// State shared by the forwarding tasks.
struct Shared {
    state: Mutex<State>,
    start: Instant,
    quiet: bool,
    /// The MCP dialect: progress tokens are read (for the session's progress check), and
    /// `initialize` is never cancelled.
    mcp: bool,
    /// The protocol version the session negotiated, once the server's reply to `initialize`
    /// came, or its success to a request naming its version (MCP 2026-07-28): each side then
    /// decodes with that version's rules (`resultType`).
    negotiated: OnceLock<String>,
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
    /// The log record being written by this thread (reused: a record allocates nothing).
    static RECORD: core::cell::RefCell<Vec<u8>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// One message's (or batch element's) line of the log.
struct Record<'r> {
    dir: Dir,
    now: u64,
    obs: &'r Observation<'r>,
    /// The frame's length; `None` for an over-long line whose length is not known
    /// ([`Seen::TooLong`]).
    size: Option<usize>,
    /// The reply the proxy sent in the message's place.
    reply: Option<Reply<'r>>,
    /// The index of a batch element in its batch.
    element: Option<usize>,
    /// A batch dropped whole ([`Session::drop_batch`]).
    dropped: bool,
    violation: Option<Violation>,
    /// The id the message went on with in place of its own ([`Verdict::forward_id`]): logged
    /// as `upstream_id` on a client request, `client_id` on the server's reply.
    forward_id: Option<Id<'r>>,
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
    json_opt(r, "subscription", obs.subscription, |r, id| {
        json_token(r, id.raw())
    });
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

/// What `Shared::observe` decided about one item.
struct Observed<'a> {
    verdict: Verdict,
    /// The reply the proxy sends in the item's place.
    reply: Option<LocalReply<'a>>,
    /// The array the proxy sends on in a batch's place (the batch itself is then not
    /// forwarded): for a batch from the server dropped whole, its answer to what of the
    /// client's batches it held replies to ([`in_place_of_dropped`]); for a batch holding
    /// elements the receiver must not get or whose ids the session rewrote, the batch
    /// without them, and with those ids ([`rebuilt`]).
    in_place: Option<Bytes>,
}

/// The client's array in place of a dropped server batch that answered client batches (the
/// client would wait for them until their deadline, or forever without one): for all that is
/// left of those, a -32603 for each request and a -32600 for each invalid element whose reply
/// is owed, so that one array answers a batch. `None` when there is nothing to answer.
fn in_place_of_dropped(answered: &InPlace) -> Option<Bytes> {
    let mut out = BytesMut::new();
    let mut array = BatchReply::open(&mut out);
    for id in &answered.requests {
        array.push(|out| {
            encode::write_error(
                out,
                id.as_id(),
                ErrorCode::INTERNAL_ERROR,
                "Internal error: invalid reply from server",
                None,
            )
        });
    }
    push_owed_replies(&mut array, &answered.owed);
    array.close().then(|| out.freeze())
}

/// Appends to `array` the -32600 the proxy sends in the server's place for each invalid
/// element of a client batch whose reply is owed (`owed`: the id each carries; `None`: null).
fn push_owed_replies(array: &mut BatchReply<'_>, owed: &[Option<IdBuf>]) {
    for id in owed {
        let reply = Reply {
            code: ErrorCode::INVALID_REQUEST,
            id: id
                .as_ref()
                .map_or(ReplyId::Null, |id| ReplyId::Id(id.as_id())),
        };
        array.push(|out| encode::write_reply(out, &reply, None));
    }
}

/// What becomes of one element of a batch that goes on rebuilt ([`rebuilt`]).
enum Edit<'a> {
    /// Cut: the receiver must not get it (a late reply: the proxy answered its request
    /// already).
    Cut,
    /// Its id token `old` replaced by `new`, the rest byte for byte: a client request under
    /// the id the session minted, or the server's reply to one with the client's id restored
    /// ([`Verdict::forward_id`]).
    Id { old: Id<'a>, new: IdBuf },
}

/// `batch` with the elements at the indices of `edits` (ascending) cut or given another id,
/// the others byte for byte (a `\r` inside one a space, as in a line forwarded as it came), in
/// order, in a new array (one line). For a batch the receiver needs that holds elements it
/// must not get, or whose ids the session rewrote.
fn rebuilt(batch: RawJson<'_>, edits: &[(usize, Edit<'_>)]) -> Bytes {
    let mut out = BytesMut::with_capacity(batch.as_bytes().len() + 1);
    let mut array = BatchReply::open(&mut out);
    let mut edits = edits.iter().peekable();
    for (index, element) in batch.elements().enumerate() {
        let bytes = element.as_bytes();
        match edits.next_if(|(at, _)| *at == index).map(|(_, edit)| edit) {
            Some(Edit::Cut) => {}
            // (`old` was decoded from these bytes: it points into them, as `write_with_id`
            // needs; the trailing `\n` it writes is taken off by the array.)
            Some(Edit::Id { old, new }) => {
                array.push(|out| encode::write_with_id(out, bytes, *old, new.as_id()));
            }
            None => array.push(|out| {
                out.extend(bytes.iter().map(|&b| if b == b'\r' { b' ' } else { b }));
            }),
        }
    }
    array.close();
    out.freeze()
}

/// `text` as one line of plain text for stderr: its control characters (a `\r`, a line end
/// to a universal-newline reader; a terminal's escape sequences, from a peer) escaped as
/// `\r`, `\x1b`, ….
fn printable(text: &str) -> String {
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

/// The longest line not JSON whose report on stderr says where it stops being JSON: finding
/// it decodes prefixes of the line again (`Decoder::parse_error_offset`, about `log2(len)`
/// of them), work a peer sending long garbage should not be able to multiply.
const LOCATED_NOT_JSON: usize = 64 << 10;

impl State {
    /// Writes a message's log record, into a reused buffer, so that a record allocates
    /// nothing.
    fn log_record(&mut self, record: &Record<'_>) {
        let Some(log) = self.log.as_mut() else {
            return;
        };
        RECORD.with_borrow_mut(|r| {
            r.clear();
            write_record(r, record);
            let _ = log.write_all(r);
        });
    }

    fn write_log(&mut self, record: &[u8]) {
        if let Some(log) = self.log.as_mut() {
            let _ = log.write_all(record);
            let _ = log.write_all(b"\n");
        }
    }

    /// A log record for something that is not a message (`timeout`, `unanswered`).
    /// The reply owed to an invalid element of a timed-out client batch, sent by the proxy
    /// (`id`: the id it carries; `None`: null).
    fn log_owed_answered(&mut self, t_ms: u64, id: Option<Id<'_>>) {
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

    /// `id` is the sender's id for the request; `upstream_id` the one the proxy minted for
    /// the server, if any.
    #[allow(clippy::too_many_arguments)]
    fn log_event(
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

impl Shared {
    fn now_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("state lock")
    }

    /// Records one item in the session and the log; returns the verdict and the reply the
    /// proxy sends in the item's place, if any (the log records that reply).
    ///
    /// A JSON-RPC batch is recorded as one `batch` record, then one record per element (with
    /// its index as `element`), each element observed as a message of its own; the batch is
    /// forwarded whole, without the elements the receiver must not get, or not at all, and
    /// never answered here: the receiver answers its elements, the invalid ones included.
    fn observe<'a>(
        &self,
        dir: Dir,
        item: &Seen<'a>,
        now: u64,
        answering: &Answering,
        decoder: &Decoder,
    ) -> Observed<'a> {
        let (size, frame) = match item {
            Seen::Message(_, frame) | Seen::Rejected(_, frame) => (Some(frame.len()), Some(*frame)),
            Seen::TooLong(size) => (*size, None),
        };
        // What stderr shows of the batch's elements: the first few violations, then a count.
        let mut reports = SmallVec::<[_; REPORTED_ELEMENTS]>::new();
        let mut unreported = 0usize;
        // A batch dropped whole is known before its elements are observed, so that they have
        // no effect (a first pass over them, decoded again below: nothing is collected).
        let dropped = match item {
            Seen::Message(Message::Batch(batch), _) => {
                let kinds = batch.decode(decoder).map(|element| kind_of(&element));
                Session::drops_batch(dir, kinds)
            }
            _ => false,
        };
        let mut state = self.lock();
        let described = match item {
            Seen::Message(msg, _) => self.describe(dir, &state.session, Ok(msg)),
            Seen::Rejected(rej, _) => self.describe(dir, &state.session, Err(rej)),
            Seen::TooLong(_) => Described::too_long(),
        };
        // The tools of a success answering a client's tools/list the session checks: read
        // only then (a lookup only while one waits). Never inside a batch, which MCP has not.
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
                // Only a late reply is cut: the receiver must not get it (its request was
                // answered already). A request the session forwards under a minted id, or
                // the reply to one, goes on with the id it says. Any other element goes on
                // with its batch, byte for byte, needed or not (a malformed response).
                let element_cut = !dropped && v == Some(Violation::LateReply);
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
                        reports.push((v, described.kind, described.id, index, bytes, how))
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
        drop(state);
        let violation = verdict.violation;
        let observed = Observed {
            verdict,
            reply,
            in_place,
        };
        if self.quiet {
            return observed;
        }
        let show =
            |bytes: &[u8]| printable(&String::from_utf8_lossy(&bytes[..bytes.len().min(120)]));
        let token = |id: Option<Id<'_>>| {
            id.map_or("-".into(), |id| {
                printable(&String::from_utf8_lossy(id.raw()))
            })
        };
        if let Some(v) = violation {
            // What is wrong with a tools/list result is in its tools, deep in the frame.
            let detail = match (v, obs.invalid_tools) {
                (Violation::InvalidToolHeaders, Some(tools)) => format!(": {}", printable(tools)),
                _ => frame.map(|f| format!(": {}", show(f))).unwrap_or_default(),
            };
            let at = match (v, frame) {
                (Violation::NotJson, Some(f)) if f.len() <= LOCATED_NOT_JSON => decoder
                    .parse_error_offset(f)
                    .map(|at| format!(", at byte {at}")),
                _ => None,
            };
            let verdict = &observed.verdict;
            let how_forwarded = match (verdict.forward, &verdict.forward_id) {
                (false, _) => " [not forwarded]".to_string(),
                (true, Some(id)) => format!(" [forwarded as id {}]", token(Some(id.as_id()))),
                (true, None) => String::new(),
            };
            say!(
                "rpcwire proxy: {}: {} (kind {}, id {}{}){detail}{how_forwarded}",
                dir.as_str(),
                v.as_str(),
                obs.kind,
                token(obs.id),
                at.unwrap_or_default(),
            );
        }
        for (v, kind, id, index, bytes, (element_cut, rewritten)) in reports {
            say!(
                "rpcwire proxy: {}: {} (kind {kind}, id {}, element {index} of a batch): {}{}",
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
            );
        }
        if unreported > 0 {
            say!(
                "rpcwire proxy: {}: {unreported} more violations in elements of the same batch",
                dir.as_str()
            );
        }
        observed
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
            }
        }
        // (A second lookup in each request's params: only while the session needs it.)
        if let (Ok(msg), true) = (decoded, session.reads_request_versions()) {
            described.read_request_version(msg);
        }
        described
    }

    fn print_counters(&self, label: &str) {
        let mut state = self.lock();
        let counters = state.session.counters.to_json();
        say!("rpcwire proxy: {label}: {counters}");
        let record = json!({ "t_ms": self.now_ms(), label: counters }).to_string();
        state.write_log(record.as_bytes());
        // Out to the file now, with every record before them, for whoever follows the log
        // during the session: the buffer holds a megabyte, which a quiet session takes
        // hours to fill. (At most once a second; the summary's flush reports its errors.)
        if let Some(log) = state.log.as_mut() {
            let _ = log.flush();
        }
    }
}

/// Bytes asked for per read.
const READ: usize = 256 << 10;
/// Pipe buffer size asked for (the pipes to and from the server, and ours when they are pipes).
const PIPE: usize = 1 << 20;

/// What one writer gets at a time: runs of forwarded lines (slices of the reader's buffer,
/// not copies) and local replies, written in order with vectored writes. (Not a JSON-RPC
/// batch: those travel inside the parts like any other line.)
type Parts = Vec<Bytes>;

/// Parts being written: what is left of them.
struct Unwritten {
    parts: Parts,
    /// The first part not written in full.
    next: usize,
}

impl Unwritten {
    fn new(parts: Parts) -> Self {
        Unwritten { parts, next: 0 }
    }

    fn is_done(&self) -> bool {
        self.next == self.parts.len()
    }

    /// The next parts to hand to one `writev` (at most 64, on the stack).
    fn slices(&self) -> SmallVec<[IoSlice<'_>; 64]> {
        let parts = &self.parts[self.next..];
        parts.iter().take(64).map(|b| IoSlice::new(b)).collect()
    }

    /// Drops the first `n` bytes left (a write took them).
    fn advance(&mut self, mut n: usize) {
        while n > 0 {
            let part = &mut self.parts[self.next];
            let take = n.min(part.len());
            part.advance(take);
            n -= take;
            if part.is_empty() {
                self.next += 1;
            }
        }
    }
}

/// Writes every one of `parts` to a blocking writer.
fn write_parts(out: &mut impl Write, parts: Parts) -> io::Result<()> {
    let mut left = Unwritten::new(parts);
    while !left.is_done() {
        let written = out.write_vectored(&left.slices());
        match written {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => left.advance(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    out.flush()
}

/// One side's input (the server's stdin, our stdout), written by whichever thread has
/// something for it, straight from that thread: no queue and no writer task between a read
/// and the write that forwards it (each hop was a thread wake-up per message on the round
/// trip). `None` once closed or broken.
struct Sink<W>(Mutex<Option<W>>);

impl<W: Write> Sink<W> {
    fn new(out: W) -> Self {
        Sink(Mutex::new(Some(out)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<W>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes all the parts (blocking while the reader is behind: backpressure); `false`
    /// when the sink is closed or the write fails (the sink is then closed).
    fn send(&self, parts: Parts) -> bool {
        let mut out = self.lock();
        let Some(w) = out.as_mut() else {
            return false;
        };
        let sent = write_parts(w, parts).is_ok();
        if !sent {
            *out = None;
        }
        sent
    }

    /// Closes the sink (the reader sees the end of its input).
    fn close(&self) {
        self.lock().take();
    }
}

/// Reads into `buf` (through `scratch`): the number of bytes read, 0 at the end of the input
/// or on an error.
fn read_into(input: &mut impl Read, scratch: &mut [u8], buf: &mut BytesMut) -> usize {
    let n = loop {
        match input.read(scratch) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => break other.unwrap_or(0),
        }
    };
    buf.extend_from_slice(&scratch[..n]);
    n
}

/// Asks for a bigger pipe buffer (Linux, up to the unprivileged maximum of 1 MiB): fewer,
/// larger reads and writes, and fewer wake-ups on both sides. Not a pipe, or not allowed:
/// nothing changes.
fn widen_pipe(fd: impl std::os::fd::AsFd) {
    #[cfg(target_os = "linux")]
    {
        use nix::fcntl::{fcntl, FcntlArg};
        let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(PIPE as i32));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// One framed item, borrowed from the read buffer.
enum Seen<'a> {
    Message(Message<'a>, &'a [u8]),
    Rejected(Rejection<'a>, &'a [u8]),
    /// An over-long line, with its length (without its terminator, as a frame's) when known:
    /// when the proxy read its end with its start, in one chunk of whole lines. One whose end
    /// had not come when it crossed the limit is reported then and discarded as it comes,
    /// never held, so its length is never known.
    TooLong(Option<usize>),
}

/// Which lines the proxy answers itself, in place of forwarding them: the client's only (a
/// server's faults are reported, never answered). Never a JSON-RPC batch that is valid JSON:
/// it is forwarded whole and its receiver answers every element, the invalid ones included
/// (§6); an answer from the proxy as well would be a second reply, and could not join the
/// receiver's array. (An empty batch or one that is not JSON is a rejected line like any
/// other, answered with the one -32600 or -32700 the specification calls for.)
struct Answering {
    /// Client side.
    client: bool,
    /// Answer invalid messages and over-long lines (unless `--drop-invalid`).
    invalid: bool,
    /// The reply to an over-long line.
    too_long: Reply<'static>,
}

/// An error reply the proxy sends the client itself.
#[derive(Clone, Copy)]
struct LocalReply<'a> {
    reply: Reply<'a>,
    message: &'static str,
}

impl Answering {
    /// The reply to `item`, given the session's verdict on it.
    fn reply<'a>(&self, item: &Seen<'a>, verdict: &Verdict) -> Option<LocalReply<'a>> {
        if !self.client {
            return None;
        }
        let local = |id, code: ErrorCode, message| {
            Some(LocalReply {
                reply: Reply { code, id },
                message,
            })
        };
        match (item, verdict.violation) {
            (Seen::Rejected(rej, _), _) if self.invalid => rej.reply().map(|reply| LocalReply {
                reply,
                message: reply.code.default_message().unwrap_or("Error"),
            }),
            (Seen::TooLong(_), _) if self.invalid => Some(LocalReply {
                reply: self.too_long,
                message: "Parse error: frame too long",
            }),
            // A valid request the session does not forward (MCP: a reused id; either
            // dialect: too many in flight) is answered whatever the policy for invalid ones.
            // (JSON-RPC forwards a reused id: the server answers it.)
            (Seen::Message(msg, _), Some(Violation::DuplicateId)) if !verdict.forward => local(
                ReplyId::Id(msg.id()?),
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: id already in flight",
            ),
            (Seen::Message(msg, _), Some(Violation::TooManyInFlight)) => local(
                ReplyId::Id(msg.id()?),
                ErrorCode::INTERNAL_ERROR,
                "Internal error: too many requests in flight",
            ),
            _ => None,
        }
    }
}

/// What one side does with the lines it reads.
struct Sorter {
    dir: Dir,
    framer: LineFramer,
    decoder: Decoder,
    /// Whether `decoder` follows the negotiated protocol version yet.
    adopted_version: bool,
    answering: Answering,
    /// Runs of lines to forward to the other side, each line ending in `\n`.
    forward: Parts,
    /// Local replies to the client (client side only).
    replies: BytesMut,
}

impl Sorter {
    fn new(dir: Dir, args: &ProxyArgs) -> Sorter {
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
    fn sort(&mut self, shared: &Shared, buf: &mut BytesMut, eof: bool) {
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
        // One clock reading per chunk: its lines arrived together.
        let now = shared.now_ms();
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

    fn answer(&mut self, local: LocalReply<'_>) {
        let LocalReply { reply, message } = local;
        encode::write_error(&mut self.replies, reply.id, reply.code, message, None);
    }

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
            shared.now_ms(),
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

fn decoder(args: &ProxyArgs, role: Role) -> Decoder {
    let mut options = DecodeOptions::new(crate::check::dialect(args.dialect));
    options.validation = crate::check::validation(args.validate);
    options.role = role;
    options.limits.max_frame = args.max_frame;
    options.limits.max_batch_len = args.max_batch;
    Decoder::new(options)
}

/// Runs `rpcwire proxy`.
pub fn run(args: &ProxyArgs) -> ExitCode {
    // The runtime only waits: for the server, the timeout ticks and signals (the forwarding
    // is on plain threads), so one thread is enough.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            say!("rpcwire proxy: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let code = runtime.block_on(proxy(args));
    // Reading our stdin is a blocking read on a helper thread that cannot be cancelled: when
    // the server exits first, do not wait for the client to close its end.
    runtime.shutdown_background();
    code
}

async fn proxy(args: &ProxyArgs) -> ExitCode {
    let log = match &args.log {
        Some(path) => match File::create(path) {
            // A large buffer: a record per message, one write per megabyte.
            Ok(f) => Some(BufWriter::with_capacity(1 << 20, f)),
            Err(e) => {
                say!(
                    "rpcwire proxy: cannot write the log {}: {e}",
                    path.display()
                );
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut child = match Command::new(&args.command[0])
        .args(&args.command[1..])
        // Its own process group: a terminal's ^C reaches the server once, through us.
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            say!("rpcwire proxy: cannot start `{}`: {e}", args.command[0]);
            return ExitCode::from(2);
        }
    };
    let mut state = State {
        // A JSON-RPC request reusing an id whose reply could still come goes to the server
        // under an id the session mints, so that each reply answers one request exactly.
        session: Session::with_max_in_flight(
            crate::check::dialect(args.dialect),
            args.timeout_ms,
            args.max_in_flight.get(),
        )
        .rewriting_reused_ids(),
        log,
    };
    let header = json!({"rpcwire_proxy": {
        "version": env!("CARGO_PKG_VERSION"),
        "dialect": crate::check::dialect_name(args.dialect),
        "timeout_ms": args.timeout_ms,
        "max_in_flight": args.max_in_flight,
        "rewrites_reused_ids": true,
        "rewrites_reused_ids_in_batches": true,
        "rewrites_reused_ids_of_untracked_elements": true,
        "rewrites_ids_of_untracked_elements_reused": true,
        "keeps_untracked_elements": true,
        "keeps_untracked_server_elements": true,
        "command": &args.command,
    }});
    state.write_log(header.to_string().as_bytes());
    let shared = Arc::new(Shared {
        state: Mutex::new(state),
        start: Instant::now(),
        quiet: args.quiet,
        mcp: crate::check::dialect(args.dialect) == Dialect::Mcp,
        negotiated: OnceLock::new(),
    });

    // Blocking pipes, each read by a thread of its own that writes what it forwards
    // straight to the other side (see `Sink`).
    let server_in = child.stdin.take().expect("piped stdin");
    let mut server_out = child.stdout.take().expect("piped stdout");
    for fd in [
        server_in.as_fd(),
        server_out.as_fd(),
        io::stdin().as_fd(),
        io::stdout().as_fd(),
    ] {
        widen_pipe(fd);
    }
    let server_in = Arc::new(Sink::new(server_in));
    let client_out = Arc::new(Sink::new(io::stdout()));

    // Client → server. A read of stdin cannot be cancelled: when the server exits first, we
    // exit without waiting for this thread.
    {
        let (shared, server_in, client_out) =
            (shared.clone(), server_in.clone(), client_out.clone());
        let mut sorter = Sorter::new(Dir::C2s, args);
        std::thread::spawn(move || {
            let stdin = io::stdin();
            let mut stdin = stdin.lock();
            let mut scratch = vec![0u8; READ];
            let mut buf = BytesMut::with_capacity(READ);
            loop {
                let n = read_into(&mut stdin, &mut scratch, &mut buf);
                sorter.sort(&shared, &mut buf, n == 0);
                if !sorter.replies.is_empty() {
                    client_out.send(vec![sorter.replies.split().freeze()]);
                }
                if !sorter.forward.is_empty()
                    && !server_in.send(std::mem::take(&mut sorter.forward))
                {
                    break;
                }
                if n == 0 {
                    break;
                }
            }
            // Client EOF (or the server's stdin is gone): the server sees the end of its input.
            server_in.close();
        });
    }

    // Server → client, until the server's stdout ends. Whether the thread is reading the
    // server's stdout, not writing to the client, tells what it waits for when the server
    // has exited.
    let reading_server = Arc::new(AtomicBool::new(false));
    let s2c = {
        let (shared, client_out) = (shared.clone(), client_out.clone());
        let reading = reading_server.clone();
        let mut sorter = Sorter::new(Dir::S2c, args);
        std::thread::spawn(move || {
            let mut scratch = vec![0u8; READ];
            let mut buf = BytesMut::with_capacity(READ);
            loop {
                reading.store(true, Ordering::Relaxed);
                let n = read_into(&mut server_out, &mut scratch, &mut buf);
                reading.store(false, Ordering::Relaxed);
                sorter.sort(&shared, &mut buf, n == 0);
                // Without a reader on our stdout (the sink closed), keep reading the
                // server's, checking it.
                if !sorter.forward.is_empty() {
                    client_out.send(std::mem::take(&mut sorter.forward));
                }
                if n == 0 {
                    break;
                }
            }
        })
    };

    // Timeouts: answer the client locally, cancel on the server.
    let timer = args.timeout_ms.map(|ms| {
        // The cancellations reach the server from a thread of their own: a server that stops
        // reading leaves the client's thread blocked writing to it, holding its sink, and
        // the timer must go on answering the client meanwhile. (What waits here is bounded
        // by the requests in flight: while the client's thread is blocked, no more are read.)
        let (cancel, cancels_rx) = std::sync::mpsc::channel::<Bytes>();
        {
            let server_in = server_in.clone();
            std::thread::spawn(move || {
                while let Ok(first) = cancels_rx.recv() {
                    let mut parts = vec![first];
                    parts.extend(cancels_rx.try_iter());
                    server_in.send(parts);
                }
            });
        }
        let (shared, client_out) = (shared.clone(), client_out.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis((ms / 4).clamp(1, 250)));
            loop {
                tick.tick().await;
                let expired = {
                    let mut state = shared.lock();
                    let now = shared.now_ms();
                    let expired = state.session.expire(now);
                    for timeout in &expired {
                        let (requests, owed) = match timeout {
                            Timeout::Request(e) => (std::slice::from_ref(e), &[][..]),
                            Timeout::Batch { requests, owed } => (&requests[..], &owed[..]),
                        };
                        for e in requests {
                            let v = Violation::TimedOut;
                            let upstream_id = e.upstream_id.as_ref().map(IdBuf::as_id);
                            let (id, method) = (e.id.as_id(), &e.method);
                            state.log_event(now, "timeout", Dir::C2s, id, upstream_id, method, v);
                        }
                        for id in owed {
                            state.log_owed_answered(now, id.as_ref().map(IdBuf::as_id));
                        }
                    }
                    expired
                };
                if expired.is_empty() {
                    continue;
                }
                let (mut replies, mut cancels) = (BytesMut::new(), BytesMut::new());
                let report = |e: &Expired| {
                    if shared.quiet {
                        return;
                    }
                    say!(
                        "rpcwire proxy: c2s: timed_out (request {}, {}): answered locally{}",
                        printable(&String::from_utf8_lossy(e.id.as_id().raw())),
                        printable(&e.method),
                        if e.cancel_on_server {
                            ", cancelled on the server"
                        } else if shared.mcp {
                            " (initialize is never cancelled)"
                        } else {
                            ""
                        }
                    );
                };
                for timeout in expired {
                    match timeout {
                        Timeout::Request(e) => {
                            write_timeout_reply(&mut replies, &e, ms);
                            report(&e);
                            if e.cancel_on_server {
                                let reason = format!("timed out after {ms} ms");
                                // (Under the id the server knows it by. One that is not a string
                                // or an integer names no request to cancel: nothing is sent.)
                                let _ =
                                    mcp::write_cancelled(&mut cancels, e.upstream(), Some(&reason));
                            }
                        }
                        // One array for what is left of the batch, as the server would have
                        // answered it: a second one would answer the same batch twice.
                        Timeout::Batch { requests, owed } => {
                            let mut array = BatchReply::open(&mut replies);
                            for e in &requests {
                                array.push(|out| write_timeout_reply(out, e, ms));
                                report(e);
                            }
                            push_owed_replies(&mut array, &owed);
                            if !shared.quiet && !owed.is_empty() {
                                say!(
                                    "rpcwire proxy: c2s: a batch timed out: {} invalid elements answered locally",
                                    owed.len()
                                );
                            }
                            let _ = array.close();
                        }
                    }
                }
                // A blocking write, off the runtime's threads. Either side may be gone
                // already (the client closed its stdin but still reads replies, or the
                // reverse): its sink is closed then.
                let client_out = client_out.clone();
                let _ = tokio::task::spawn_blocking(move || {
                    client_out.send(vec![replies.freeze()]);
                })
                .await;
                if !cancels.is_empty() {
                    let _ = cancel.send(cancels.freeze());
                }
            }
        })
    });
    let stats = args.stats_every.map(|secs| {
        let shared = shared.clone();
        tokio::spawn(async move {
            // (At least 1: refused at parsing.)
            let mut tick = tokio::time::interval(Duration::from_secs(secs));
            tick.tick().await;
            loop {
                tick.tick().await;
                shared.print_counters("stats");
            }
        })
    });

    // Signals go to the server; we exit when it does.
    let pid = child.id();
    let (signalled_tx, mut signalled) = tokio::sync::watch::channel(false);
    let signals = tokio::spawn(async move {
        use nix::sys::signal::Signal;
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            return;
        };
        loop {
            let sig = tokio::select! {
                _ = int.recv() => Signal::SIGINT,
                _ = term.recv() => Signal::SIGTERM,
                _ = hup.recv() => Signal::SIGHUP,
            };
            // To the server's whole process group (its own, see above): a server started
            // through a wrapper (`sh -c`, a launcher) that does not relay signals ends too.
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid as i32), sig);
            let _ = signalled_tx.send(true);
        }
    });

    let status = match tokio::task::spawn_blocking(move || child.wait()).await {
        Ok(status) => status,
        Err(e) => Err(io::Error::other(e)),
    };
    // The server is gone: its stdin closes (a process it left behind, holding its pipes,
    // sees the end of its input); what it wrote is still delivered, then our stdout is done.
    // Not waiting forever for a leftover process that keeps its stdout open. Each step may
    // block on a side's sink, held by a thread blocked writing to a peer that does not read
    // (the client's thread writing to a leftover process; the server's writing to a client
    // that does not read): off the runtime's thread.
    let output_done = async {
        // (Not awaited: the output is drained meanwhile.)
        drop(tokio::task::spawn_blocking(move || server_in.close()));
        let mut drained = tokio::task::spawn_blocking(move || s2c.join());
        // The server's output is drained for as long as it takes the client to read it; a
        // process left behind holding the server's stdout open is waited for only until the
        // thread has spent `DRAIN_AFTER_EXIT` in all reading that stdout (not writing to the
        // client), as sampled every `DRAIN_POLL`.
        let (mut waited, mut read_for, mut told) = (Duration::ZERO, Duration::ZERO, false);
        while tokio::time::timeout(DRAIN_POLL, &mut drained)
            .await
            .is_err()
        {
            waited += DRAIN_POLL;
            if reading_server.load(Ordering::Relaxed) {
                read_for += DRAIN_POLL;
                if read_for >= DRAIN_AFTER_EXIT {
                    if !args.quiet {
                        say!(
                            "rpcwire proxy: the server exited but its stdout is still open (a process it left behind?); not waiting for it"
                        );
                    }
                    break;
                }
            } else if waited >= DRAIN_AFTER_EXIT && !told {
                told = true;
                if !args.quiet {
                    say!(
                        "rpcwire proxy: the server exited, and the client has not taken its last output yet; waiting for it"
                    );
                }
            }
        }
        let client_out = client_out.clone();
        let _ = tokio::task::spawn_blocking(move || {
            if let Some(out) = client_out.lock().as_mut() {
                let _ = out.flush();
            }
        })
        .await;
    };
    // A client that does not read what the server wrote last is waited for, unless we were
    // told to end: then for as long as a leftover process is.
    let signalled_then_grace = async {
        if signalled.wait_for(|s| *s).await.is_err() {
            // (No signal handling: nothing ends the wait.)
            std::future::pending::<()>().await;
        }
        tokio::time::sleep(DRAIN_AFTER_EXIT).await;
    };
    tokio::select! {
        () = output_done => {}
        () = signalled_then_grace => if !args.quiet {
            say!(
                "rpcwire proxy: signalled, and the client has not taken the server's last output; not waiting for it"
            );
        }
    }
    if let Some(t) = timer {
        t.abort();
    }
    if let Some(s) = stats {
        s.abort();
    }
    signals.abort();

    {
        let mut state = shared.lock();
        let now = shared.now_ms();
        let unanswered = state.session.finish();
        for u in &unanswered {
            if !args.quiet {
                say!(
                    "rpcwire proxy: {}: unanswered request {} ({}){}",
                    u.dir.as_str(),
                    printable(&String::from_utf8_lossy(u.id.as_id().raw())),
                    printable(&u.method),
                    match &u.upstream_id {
                        Some(upstream) => format!(
                            ", forwarded as {}",
                            printable(&String::from_utf8_lossy(upstream.as_id().raw()))
                        ),
                        None => String::new(),
                    }
                );
            }
            let v = Violation::Unanswered;
            let upstream_id = u.upstream_id.as_ref().map(IdBuf::as_id);
            let (id, method) = (u.id.as_id(), &u.method);
            state.log_event(now, "unanswered", u.dir, id, upstream_id, method, v);
        }
    }
    shared.print_counters("summary");
    if let Some(log) = shared.lock().log.as_mut() {
        if let Err(e) = log.flush() {
            say!("rpcwire proxy: writing the log: {e}");
        }
    }
    match status {
        Ok(status) => exit_code(status),
        Err(e) => {
            say!("rpcwire proxy: waiting for the server: {e}");
            ExitCode::from(2)
        }
    }
}

/// Writes the client's reply to a timed-out request: a -32603 "Request timed out".
fn write_timeout_reply(out: &mut BytesMut, expired: &Expired, timeout_ms: u64) {
    let data = format!(
        "{{\"method\":{},\"timeoutMs\":{timeout_ms}}}",
        json!(&*expired.method)
    );
    encode::write_error(
        out,
        expired.id.as_id(),
        ErrorCode::INTERNAL_ERROR,
        "Request timed out",
        RawJson::new(data.as_bytes()),
    );
}

/// How long the server's stdout is still read after it exited while nothing comes (a process
/// it left behind holds it open), and how long a signal leaves a client that does not read.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);
/// How often the drain of the server's output after its exit is looked at.
const DRAIN_POLL: Duration = Duration::from_millis(100);

/// The server's exit status as ours: its code, or 128 + the signal that ended it.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitCode::from(code as u8),
        (None, Some(sig)) => ExitCode::from(128u8.wrapping_add(sig as u8)),
        _ => ExitCode::from(1),
    }
}
