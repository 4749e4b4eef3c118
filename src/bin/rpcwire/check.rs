//! `rpcwire check`: frame and decode a stream, report its messages (the invalid ones, or every
//! one with `--json`) and a summary.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bytes::{Bytes, BytesMut};
use clap::{Args, ValueEnum};
use rpcwire::{
    ContentLengthError, ContentLengthFramer, DecodeOptions, Decoder, Dialect, FrameError, Framer,
    LineFramer, Message, Rejection, Reply, ReplyId, Role, SseFramer, Validation,
};
use serde_json::{Value, json};

use crate::session::{CodeCounts, Described, ParamsFault, kind_of, may_answer};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DialectArg {
    /// MCP, any revision from 2024-11-05 on (batches refused, as from 2025-06-18, but in a
    /// session that negotiated 2025-03-26, which allowed them: read and forwarded there).
    Mcp,
    /// Plain JSON-RPC 2.0.
    Jsonrpc,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DirectionArg {
    /// Written by a client, read by a server.
    C2s,
    /// Written by a server, read by a client.
    S2c,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FramingArg {
    /// Newline-delimited JSON (MCP stdio).
    Ndjson,
    /// Server-sent events (MCP Streamable HTTP).
    Sse,
    /// LSP-style `Content-Length` headers.
    ContentLength,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ValidateArg {
    /// Envelope fully validated; payloads structurally delimited.
    Lazy,
    /// Every payload value fully validated as well.
    Strict,
}

/// Options of `rpcwire check`.
#[derive(Debug, Args)]
#[command(after_help = "\
Exit status: 0 when every message is valid (a session: no violation), 1 when some are not,
2 on a usage or I/O error (a session log that is no proxy's log included; a report whose
reader goes before its end, as `| head` does, ends the check quietly with 2).

Examples:
  rpcwire check capture.ndjson
  rpcwire check --json --direction s2c --framing sse events.txt
  rpcwire check --c2s client-to-server.ndjson --s2c server-to-client.ndjson
  rpcwire check --session-log session.ndjson")]
pub struct CheckArgs {
    /// The rule set [default: mcp]. With --session-log, the one the proxy ran with, which the
    /// log records; naming another is an error.
    #[arg(long, value_enum)]
    dialect: Option<DialectArg>,
    /// Who wrote the stream: c2s is read by a server, s2c by a client.
    #[arg(long, value_enum, default_value = "c2s")]
    direction: DirectionArg,
    /// How messages are delimited.
    #[arg(long, value_enum, default_value = "ndjson")]
    pub(crate) framing: FramingArg,
    /// How much of each payload is validated.
    #[arg(long = "validate", value_enum, default_value = "lazy")]
    pub(crate) validate: ValidateArg,
    /// Longest frame accepted, in bytes. At least 1.
    #[arg(long, value_name = "BYTES", value_parser = at_least_one(), default_value_t = rpcwire::Limits::DEFAULT.max_frame)]
    pub(crate) max_frame: usize,
    /// Most elements of a batch: one with more is invalid whole (-32600), as a server with
    /// this limit refuses it (one of replies only, in either direction, is an
    /// invalid_response, owed no reply). At least 1.
    #[arg(long, value_name = "ELEMENTS", value_parser = at_least_one(), default_value_t = rpcwire::Limits::DEFAULT.max_batch_len)]
    pub(crate) max_batch: usize,
    /// Print one JSON object per message (and per skipped blank line or event), then a summary
    /// object.
    ///
    /// A record's `offset` is the stream byte where its message starts: the first byte of its
    /// line (ndjson), of its event's first line (sse), of its first header line
    /// (content-length).
    #[arg(long)]
    pub(crate) json: bool,
    /// The stream to read (stdin when absent or `-`).
    file: Option<PathBuf>,
    /// Check a whole session recorded by `rpcwire proxy --log FILE`.
    ///
    /// It is replayed through the proxy's session checks (among them: requests in flight both
    /// ways, replies to unknown ids, duplicate and reused ids, replies to notifications,
    /// cancellations, timeouts, unanswered requests, progress on tokens no request in flight
    /// carries or that does not increase, progress and cancellation notifications whose params
    /// break the schema, an `initialize` whose params or result break it, tool headers;
    /// docs/cli.md lists every violation). Records get a `dir` and a `violation` field; exit 1
    /// on any violation. (The log holds no
    /// frames: the direction, framing, validation, frame and batch limit options are refused
    /// with it.)
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["file", "c2s", "s2c", "direction", "framing", "validate", "max_frame", "max_batch"]
    )]
    session_log: Option<PathBuf>,
    /// With --s2c: check a session from its two streams, client to server and server to
    /// client.
    ///
    /// They are merged causally (a reply is taken once its request has been seen). `-` is the
    /// standard input (for one of the two streams; so is it for --session-log).
    #[arg(long, value_name = "FILE", requires = "s2c", conflicts_with_all = ["file", "direction"])]
    c2s: Option<PathBuf>,
    /// With --c2s: the server-to-client stream of the session.
    #[arg(long, value_name = "FILE", requires = "c2s", conflicts_with_all = ["file", "direction"])]
    s2c: Option<PathBuf>,
}

/// Why a frame was rejected, as `check` and `proxy` print it: the library's text, which
/// names the limit's field in [`rpcwire::Limits`], and for a limit the tool's user sets, the
/// option that sets it.
pub(crate) fn rejection_detail(error: rpcwire::DecodeError) -> String {
    match error {
        rpcwire::DecodeError::BatchTooLong { .. } => {
            format!("{error}; --max-batch sets the limit")
        }
        e => e.to_string(),
    }
}

/// The parser of a limit that must be at least 1 (`--max-frame`, `--max-batch`): 0 would make
/// every message (every batch) over the limit, a report or a proxy that refuses everything
/// while the stream may be fine, so it is refused as a usage error (exit 2) instead.
pub(crate) fn at_least_one() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..)
}

impl CheckArgs {
    /// The rule set: `--dialect`, MCP by default.
    pub(crate) fn dialect(&self) -> Dialect {
        dialect(self.dialect.unwrap_or(DialectArg::Mcp))
    }

    /// The name of the dialect `--dialect` gives, if given.
    pub(crate) fn given_dialect(&self) -> Option<&'static str> {
        self.dialect.map(dialect_name)
    }
}

/// One line of the report.
#[derive(Default)]
pub(crate) struct Record {
    pub frame: u64,
    /// The stream offset (`None` when replaying a proxy log, which has none).
    pub offset: Option<u64>,
    pub kind: &'static str,
    /// The id's wire token.
    pub id: Option<String>,
    pub method: Option<String>,
    pub error_code: Option<i64>,
    pub reply: Option<(i64, String)>,
    pub detail: Option<String>,
    /// For a frame that is not JSON: the byte offset in the frame where it stops being JSON.
    pub at: Option<u64>,
    /// For `notifications/cancelled`: the wire token of the request it cancels.
    pub cancels: Option<String>,
    /// For a success response holding `protocolVersion` (the reply to `initialize`), or an MCP
    /// request naming its version in `_meta` (2026-07-28).
    pub protocol_version: Option<String>,
    /// The wire token of the progress token a request asks for or a progress notification
    /// reports on.
    pub progress_token: Option<String>,
    /// For `notifications/progress`: its `progress`, when the notification can be read
    /// ([`Progress`](rpcwire::mcp::Progress)).
    pub progress: Option<f64>,
    /// For MCP's `notifications/progress` and `notifications/cancelled`: what is wrong with
    /// its params, when they break the schema of some version (the session judges it by its
    /// own); for `initialize` and the success answering it, what breaks the handshake's.
    pub params_fault: Option<ParamsFault>,
    /// The wire token of the listen request a notification of its stream names (MCP
    /// 2026-07-28).
    pub subscription: Option<String>,
    /// For a reply to `tools/list` the session checks (MCP 2026-07-28 on): the tools whose
    /// `x-mcp-header` annotations are invalid, each with why (read when the merge reaches the
    /// reply, or from a proxy log).
    pub invalid_tools: Option<String>,
    /// For an MCP request asking progress: whether it is task-augmented (2025-11-25).
    pub task_augmented: bool,
    /// The wire token of the task a `notifications/tasks/status` or `notifications/tasks`, or a
    /// reply the session reads it of
    /// ([`Session::reads_task`](crate::session::Session::reads_task)), tells of, and whether
    /// that task has ended.
    pub task: Option<(String, bool)>,
    /// For a JSON-RPC batch: how many of its elements are rejected, and the replies they call
    /// for (a batch is valid when all its elements are).
    pub invalid_elements: u64,
    /// The first [`LISTED_ELEMENT_REPLIES`] of those replies (a hostile batch of millions of
    /// invalid elements must not take gigabytes to report), and how many replies of each code
    /// there are in all.
    pub element_replies: Vec<(i64, String)>,
    pub element_reply_codes: BTreeMap<i64, u64>,
    /// For an element of a batch: its index in the batch (the record's `frame` is the
    /// batch's).
    pub element: Option<u64>,
    /// For a batch read from a stream: its frame, whose elements [`element_records`] decodes
    /// again when they are reached (`None` when replaying a proxy log, whose element records
    /// follow their batch's). Records of every element, kept, would take ~300 bytes an
    /// element: gigabytes for a batch of millions.
    pub batch: Option<Bytes>,
    /// Whether any element of the batch may answer the other side (a response, or a
    /// notification), so that a merge of two streams need not look at each element of a
    /// batch of requests at every step.
    pub elements_may_answer: bool,
    /// For a `framing_error`: whether it is a Content-Length body skipped for the charset its
    /// `Content-Type` names, not for its size (the two call for the same reply).
    pub unsupported_charset: bool,
    /// The line of its file the record is on, from 1, where a record is a line: a line of a
    /// newline-delimited stream (its frame's number plus one), a record of a proxy log. The
    /// readable report shows it, for a reader to find the message in the file.
    pub line: Option<u64>,
}

impl Record {
    pub fn new(frame: u64, offset: Option<u64>, kind: &'static str) -> Record {
        Record {
            frame,
            offset,
            kind,
            ..Record::default()
        }
    }

    pub fn is_valid(&self) -> bool {
        !matches!(
            self.kind,
            "invalid" | "parse_error" | "invalid_response" | "framing_error"
        ) && self.invalid_elements == 0
    }

    pub fn to_json(&self) -> Value {
        let reply = |(code, id): &(i64, String)| json!({"code": code, "id": id});
        let mut record = json!({
            "frame": self.frame,
            "offset": self.offset,
            "kind": self.kind,
            "id": self.id,
            "method": self.method,
            "error_code": self.error_code,
            "reply": self.reply.as_ref().map(reply),
        });
        // (Counted only where the batch's frame was read: a proxy log's element records
        // follow.)
        if self.kind == "batch" && self.batch.is_some() {
            record["invalid_elements"] = json!(self.invalid_elements);
            record["element_replies"] = self.element_replies.iter().map(reply).collect();
            let listed = self.element_replies.len() as u64;
            let all: u64 = self.element_reply_codes.values().sum();
            if all > listed {
                record["element_replies_omitted"] = json!(all - listed);
            }
        }
        if let Some(index) = self.element {
            record["element"] = json!(index);
        }
        if let Some(detail) = &self.detail {
            record["detail"] = json!(detail);
        }
        if let Some(at) = self.at {
            record["at"] = json!(at);
        }
        record
    }

    pub fn to_text(&self) -> String {
        let mut s = match self.offset {
            Some(offset) => format!("#{} @{offset}", self.frame),
            None => format!("#{}", self.frame),
        };
        if let Some(line) = self.line {
            s += &format!(" (line {line})");
        }
        s += " ";
        s += self.kind;
        if let Some(index) = self.element {
            s += &format!(" (batch element {index})");
        }
        if self.kind == "skip" {
            s += " (holds no message)";
        }
        if let Some(id) = &self.id {
            s += &format!(" id={}", shown(id));
        }
        if let Some(m) = &self.method {
            s += &format!(" method={m:?}");
        }
        if let Some(c) = self.error_code {
            s += &format!(" error_code={c}");
        }
        // What the session checks of a request or notification beyond its id: a violation of
        // progress or cancellation is about these.
        if let Some(token) = &self.progress_token {
            s += &format!(" progress_token={}", shown(token));
        }
        if let Some(id) = &self.cancels {
            s += &format!(" cancels={}", shown(id));
        }
        match (&self.detail, self.at) {
            (Some(d), Some(at)) => s += &format!(" ({}, at byte {at} of the frame)", shown(d)),
            (Some(d), None) => s += &format!(" ({})", shown(d)),
            _ => {}
        }
        if let Some((code, id)) = &self.reply {
            s += &format!(" -> reply {code} id={}", shown(id));
        }
        s
    }
}

/// `text` for a line of the readable report, which goes to a terminal: each character a
/// terminal may act on (C0 and C1 controls, DEL, the bidirectional overrides; a JSON string
/// holds all but the C0 controls raw) escaped as `{:?}` escapes it (`\u{9b}`), the others,
/// quotes and backslashes of a wire token included, as they are.
pub(crate) fn shown(text: &str) -> Cow<'_, str> {
    let plain = |c: char| matches!(c, '"' | '\'' | '\\') || c.escape_debug().len() == 1;
    if text.chars().all(plain) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if plain(c) {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    Cow::Owned(out)
}

fn token(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).into_owned()
}

/// A reply, as the report shows it.
fn reply_text(reply: Reply<'_>) -> (i64, String) {
    let id = match reply.id {
        ReplyId::Id(id) => token(id.raw()),
        ReplyId::Null => "null".into(),
        ReplyId::Absent => "<absent>".into(),
    };
    (reply.code.get(), id)
}

/// The reply a rejection calls for, as the report shows it.
fn reply_of(rej: &Rejection<'_>) -> Option<(i64, String)> {
    rej.reply().map(reply_text)
}

/// U+FEFF in UTF-8.
const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

/// How many of a batch's element replies a record lists (the rest are counted).
pub const LISTED_ELEMENT_REPLIES: usize = 1000;

pub(crate) fn classify(decoder: &Decoder, frame: &Bytes, index: u64, offset: u64) -> Record {
    let offset = Some(offset);
    let decoded = decoder.decode(frame);
    let at = match &decoded {
        Err(_) => decoder.parse_error_offset(frame).map(|at| at as u64),
        Ok(_) => None,
    };
    let mut r = record_of(decoder, decoded, index, offset);
    r.at = at;
    if at == Some(0) && frame.starts_with(BYTE_ORDER_MARK) {
        // Named: "unexpected byte" at byte 0 of a line that looks like JSON says nothing of
        // the three bytes an editor or a Windows tool put there, invisible in most viewers.
        r.detail = Some(
            "a byte-order mark (U+FEFF) before the JSON (RFC 8259 §8.1: a sender MUST NOT add \
             one)"
                .into(),
        );
    }
    if r.kind == "batch" {
        r.batch = Some(frame.clone());
    }
    r
}

/// The elements of a batch's record as the decoder reads them again, in order (none for any
/// other record).
pub(crate) fn batch_elements<'a>(
    decoder: &'a Decoder,
    r: &'a Record,
) -> impl Iterator<Item = Result<Message<'a>, Rejection<'a>>> + 'a {
    let batch = match r.batch.as_deref().map(|frame| decoder.decode(frame)) {
        Some(Ok(Message::Batch(batch))) => Some(batch.decode(decoder)),
        _ => None,
    };
    batch.into_iter().flatten()
}

/// The records of a batch's elements, each with its index as `element`.
pub(crate) fn element_records<'a>(
    decoder: &'a Decoder,
    r: &'a Record,
) -> impl Iterator<Item = Record> + 'a {
    batch_elements(decoder, r).enumerate().map(|(at, element)| {
        let mut element = record_of(decoder, element, r.frame, r.offset);
        element.element = Some(at as u64);
        element.line = r.line;
        element
    })
}

/// The record of one decoded frame (or batch element); a batch's counts its invalid
/// elements and the replies they call for.
fn record_of(
    decoder: &Decoder,
    decoded: Result<Message<'_>, Rejection<'_>>,
    index: u64,
    offset: Option<u64>,
) -> Record {
    match decoded {
        Ok(msg) => {
            // What the proxy's session is told, as strings (a stream has no session to say
            // whether the reply to `initialize` is awaited: every result is looked at).
            let mut described =
                Described::of_message(&msg, decoder.options().dialect == Dialect::Mcp);
            described.read_protocol_version(&msg);
            if decoder.options().dialect == Dialect::Mcp {
                described.read_request_version(&msg);
            }
            let mut r = Record::new(index, offset, described.kind);
            r.id = described.id.map(|id| token(id.raw()));
            r.method = described.method.map(Cow::into_owned);
            r.error_code = described.error_code;
            r.cancels = described.cancels.map(|id| token(id.raw()));
            r.protocol_version = described.protocol_version.map(Cow::into_owned);
            r.progress_token = described.progress_token.map(|t| token(t.raw()));
            r.progress = described.progress;
            r.params_fault = described.params_fault;
            r.subscription = described.subscription.map(|id| token(id.raw()));
            r.task_augmented = described.task_augmented;
            r.task = described.task.map(|(id, ended)| (token(id.raw()), ended));
            if let Message::Batch(batch) = msg {
                // JSON-RPC 2.0 §6: each invalid element is answered on its own.
                let mut count = 0;
                for element in batch.decode(decoder) {
                    count += 1;
                    r.elements_may_answer |= may_answer(kind_of(&element));
                    if let Err(rej) = &element {
                        r.invalid_elements += 1;
                        if let Some(reply) = rej.reply() {
                            *r.element_reply_codes.entry(reply.code.get()).or_default() += 1;
                            if r.element_replies.len() < LISTED_ELEMENT_REPLIES {
                                r.element_replies.extend(reply_of(rej));
                            }
                        }
                    }
                }
                if r.invalid_elements > 0 {
                    r.detail = Some(format!(
                        "{} of {} elements invalid",
                        r.invalid_elements, count
                    ));
                }
            }
            r
        }
        Err(rej) => {
            let mut r = Record::new(index, offset, rej.kind_str());
            r.id = rej.id().map(|id| token(id.raw()));
            r.detail = Some(rejection_detail(rej.error()));
            r.reply = reply_of(&rej);
            r
        }
    }
}

/// Counts for the summary.
#[derive(Default)]
struct Summary {
    /// The records that hold a message (each but a `skip`: a blank line, an SSE event without
    /// data or of another type than `message`), valid or not.
    messages: u64,
    by_kind: BTreeMap<&'static str, u64>,
    /// At most 256 codes, the rest together (a stream inventing codes must not grow the
    /// summary, and the memory, without bound): as the session's counters count them.
    by_error_code: CodeCounts,
    by_reply_code: BTreeMap<i64, u64>,
    /// Rejected elements of batches (the batches themselves count as `batch`).
    invalid_batch_elements: u64,
    /// The bytes not checked after a fatal framing error, from the message in error to the
    /// end of the stream; `None` when there was none.
    unchecked_bytes: Option<u64>,
}

impl Summary {
    fn add(&mut self, r: &Record) {
        if r.kind != "skip" {
            self.messages += 1;
        }
        *self.by_kind.entry(r.kind).or_default() += 1;
        if let Some(c) = r.error_code {
            self.by_error_code.add(c);
        }
        if let Some((c, _)) = r.reply {
            *self.by_reply_code.entry(c).or_default() += 1;
        }
        for (c, n) in &r.element_reply_codes {
            *self.by_reply_code.entry(*c).or_default() += n;
        }
        self.invalid_batch_elements += r.invalid_elements;
    }

    /// Counts the error responses among a batch's elements (the batch itself is counted by
    /// [`add`](Self::add)), each by its code, in order, as those sent alone are.
    fn add_elements<'a>(
        &mut self,
        elements: impl Iterator<Item = Result<Message<'a>, Rejection<'a>>>,
    ) {
        for element in elements {
            if let Ok(Message::ErrorResponse(e)) = element {
                self.by_error_code.add(e.error.code.get());
            }
        }
    }

    fn valid(&self) -> bool {
        [
            "invalid",
            "parse_error",
            "invalid_response",
            "framing_error",
        ]
        .iter()
        .all(|k| !self.by_kind.contains_key(k))
            && self.invalid_batch_elements == 0
    }

    fn to_json(&self) -> Value {
        let codes = |m: &BTreeMap<i64, u64>| -> serde_json::Map<String, Value> {
            m.iter().map(|(k, v)| (k.to_string(), json!(v))).collect()
        };
        let by_error_code: serde_json::Map<String, Value> = self
            .by_error_code
            .to_json_entries("")
            .map(|(k, n)| (k, json!(n)))
            .collect();
        let mut summary = json!({"summary": {
            "messages": self.messages,
            "valid": self.valid(),
            "by_kind": self.by_kind,
            "by_error_code": by_error_code,
            "by_reply_code": codes(&self.by_reply_code),
        }});
        if self.invalid_batch_elements > 0 {
            summary["summary"]["invalid_batch_elements"] = json!(self.invalid_batch_elements);
        }
        if let Some(n) = self.unchecked_bytes {
            summary["summary"]["unchecked_bytes"] = json!(n);
        }
        summary
    }
}

/// The stream `check` reads: the file given, or the standard input when none is or it is
/// `-`; either way its errors name it, as those of a session's files do.
fn open(file: &Option<PathBuf>) -> io::Result<Named> {
    Named::open(file.as_deref().unwrap_or(Path::new("-")))
}

/// A file whose errors, opening it or reading it (a directory opens, then fails to read),
/// name it; `-` is the standard input, as for the stream `check` reads.
pub(crate) struct Named {
    input: Box<dyn Read>,
    path: PathBuf,
    /// Whether it is a regular file (not a pipe, a terminal, a socket): one that ends, which a
    /// read never waits on a writer for.
    regular: bool,
}

impl Named {
    /// Opens the file at `path` (`-`: the standard input); an error opening it names it.
    pub(crate) fn open(path: &Path) -> io::Result<Named> {
        if path.as_os_str() == "-" {
            let stdin = io::stdin();
            // (A copy of the descriptor, to ask what it is; the input is read through `stdin`.)
            let regular = std::os::fd::AsFd::as_fd(&stdin)
                .try_clone_to_owned()
                .ok()
                .and_then(|fd| File::from(fd).metadata().ok())
                .is_some_and(|m| m.is_file());
            return Ok(Named {
                input: Box::new(stdin.lock()),
                path: PathBuf::from(STANDARD_INPUT),
                regular,
            });
        }
        match File::open(path) {
            Ok(file) => Ok(Named {
                regular: file.metadata().is_ok_and(|m| m.is_file()),
                input: Box::new(file),
                path: path.to_owned(),
            }),
            Err(e) => Err(in_file(path, e)),
        }
    }

    /// The file's name, as errors give it (`standard input` for `-`).
    pub(crate) fn name(&self) -> &Path {
        &self.path
    }

    /// Whether it is a regular file: read to its end, it ends, and a read never waits on a
    /// writer (a pipe's may, for as long as its writer stays).
    pub(crate) fn is_regular_file(&self) -> bool {
        self.regular
    }
}

/// How an error names the standard input, given as `-`.
const STANDARD_INPUT: &str = "standard input";

/// `e`, an error about what the file at `path` holds (not about reading it), naming the
/// file as an error reading it does: `PATH: e`, the standard input (`-`) by that name.
pub(crate) fn about_file(path: &Path, e: io::Error) -> io::Error {
    if path.as_os_str() == "-" {
        in_file(Path::new(STANDARD_INPUT), e)
    } else {
        in_file(path, e)
    }
}

impl Read for Named {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.input.read(buf).map_err(|e| in_file(&self.path, e))
    }
}

/// `e`, an error opening or reading the file at `path`, naming it: `PATH: e`.
fn in_file(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

pub fn dialect(arg: DialectArg) -> Dialect {
    match arg {
        DialectArg::Mcp => Dialect::Mcp,
        DialectArg::Jsonrpc => Dialect::JsonRpc2,
    }
}

pub fn dialect_name(arg: DialectArg) -> &'static str {
    match arg {
        DialectArg::Mcp => "mcp",
        DialectArg::Jsonrpc => "jsonrpc",
    }
}

pub fn validation(arg: ValidateArg) -> Validation {
    match arg {
        ValidateArg::Lazy => Validation::Lazy,
        ValidateArg::Strict => Validation::Strict,
    }
}

/// Runs `rpcwire check`.
pub fn run(args: &CheckArgs) -> ExitCode {
    let result = if args.session_log.is_some() || args.c2s.is_some() {
        crate::replay::run(
            args,
            args.session_log.as_deref(),
            args.c2s.as_deref(),
            args.s2c.as_deref(),
        )
    } else {
        check(args)
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        // The report's reader is gone (`rpcwire check ... | head -1`): it asked for no more,
        // and there is nothing to say about it on stderr, which `head`'s user would read as a
        // failure of the check (a shell says nothing of the commands of a pipeline a SIGPIPE
        // ended, as it ends most tools). The status is still 2, an I/O error: the check did
        // not complete, so 0 or 1 would claim a verdict on a stream it did not read through.
        Err(e) if stdout_closed(&e) => ExitCode::from(2),
        Err(e) => {
            say!("rpcwire check: {e}");
            ExitCode::from(2)
        }
    }
}

/// The standard output, for a report: a write to it once its reader is gone (the read end of
/// its pipe closed) fails with an error [`stdout_closed`] tells from the others (a
/// `BrokenPipe` of another file, read, is not it).
pub(crate) struct ReportOut(io::StdoutLock<'static>);

impl ReportOut {
    /// The standard output, locked.
    pub(crate) fn lock() -> ReportOut {
        ReportOut(io::stdout().lock())
    }
}

impl Write for ReportOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(closed)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(closed)
    }
}

/// The error of a write to the standard output whose reader is gone.
#[derive(Debug)]
struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the standard output was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// `e`, a write to the standard output's error, as [`StdoutClosed`] when its reader is gone.
fn closed(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        e
    }
}

/// Whether `e` is a write to the standard output whose reader is gone.
fn stdout_closed(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<StdoutClosed>())
}

/// Why a framer could not hand out a frame.
pub(crate) struct FramingError {
    /// What went wrong, as text.
    detail: String,
    /// Whether the frame was skipped unread and the stream goes on (over the limit, or a
    /// Content-Length body whose `Content-Type` names a charset other than UTF-8), which calls
    /// for the reply a frame that is not JSON does ([`Decoder::parse_error_reply`]).
    unread: bool,
    /// Whether it was a Content-Length body skipped for its charset (a merge of two streams
    /// counts it as `unsupported_charset`, not `too_long`).
    unsupported_charset: bool,
    /// Where the message in error began, when the framer's last offset is not it (an SSE
    /// event the stream's end cut, which the framer never hands out).
    offset: Option<u64>,
    /// Whether the framer cannot go on after it: a Content-Length header error, after which
    /// where the next message starts cannot be known (the framer discards the rest).
    fatal: bool,
}

impl FramingError {
    /// Whether the framer cannot go on after the error: the rest of the stream holds no
    /// message it can find ([`rest_unchecked`](Self::rest_unchecked) says so).
    pub(crate) fn is_fatal(&self) -> bool {
        self.fatal
    }

    /// Where the message in error began: the framer's last offset, unless the error knows it.
    fn start(&self, framer: &StreamFramer) -> u64 {
        self.offset.unwrap_or_else(|| framer.last_offset())
    }

    /// A fatal error, saying how much of the stream, `len` bytes long in all, was not
    /// checked: from the message in error to the end. (The framer cannot resynchronise: a
    /// line or an event ends where its bytes say, a Content-Length body where a header that
    /// could not be read said.)
    pub(crate) fn rest_unchecked(mut self, framer: &StreamFramer, len: u64) -> FramingError {
        let rest = len.saturating_sub(self.start(framer));
        self.detail = format!(
            "{}; the messages after it cannot be found: the rest of the stream, {rest} bytes, \
             was not checked",
            self.detail
        );
        self
    }

    /// A fatal error, saying that the rest of the stream is not checked, before its length
    /// is known (it is read to its end after the record goes out: a live stream may never
    /// end, and its reader must not wait for the record until then).
    fn rest_not_checked(mut self) -> FramingError {
        self.detail = format!(
            "{}; the messages after it cannot be found: the rest of the stream is not checked \
             (the summary counts its bytes)",
            self.detail
        );
        self
    }

    /// The record of the error, the `index`th of the stream, at `offset`.
    pub(crate) fn record(self, decoder: &Decoder, index: u64, offset: u64) -> Record {
        let offset = self.offset.unwrap_or(offset);
        let mut r = Record::new(index, Some(offset), "framing_error");
        r.detail = Some(self.detail);
        if self.unread {
            r.reply = Some(reply_text(decoder.parse_error_reply()));
        }
        r.unsupported_charset = self.unsupported_charset;
        r
    }
}

impl From<FrameError> for FramingError {
    fn from(e: FrameError) -> Self {
        FramingError {
            detail: e.to_string(),
            unread: matches!(e, FrameError::TooLong { .. }),
            unsupported_charset: false,
            offset: None,
            fatal: false,
        }
    }
}

impl From<ContentLengthError> for FramingError {
    fn from(e: ContentLengthError) -> Self {
        FramingError {
            detail: e.to_string(),
            unread: matches!(
                e,
                ContentLengthError::TooLong { .. } | ContentLengthError::UnsupportedCharset { .. }
            ),
            unsupported_charset: matches!(e, ContentLengthError::UnsupportedCharset { .. }),
            offset: Some(e.offset()),
            fatal: e.is_fatal(),
        }
    }
}

/// The framer `--framing` selects, behind one interface: frames out, errors as
/// [`FramingError`]s.
pub(crate) enum StreamFramer {
    Lines(LineFramer),
    /// With whether a `retry` the end of the stream left pending waits to be handed out,
    /// after the error of the event it was read in, which the end cut (a client keeps the
    /// reconnection time it set, not the event).
    Sse(SseFramer, bool),
    ContentLength(ContentLengthFramer),
}

impl StreamFramer {
    pub(crate) fn new(framing: FramingArg, max_frame: usize) -> Self {
        match framing {
            // Blank lines and empty events are reported (as `skip`), not silently dropped.
            FramingArg::Ndjson => {
                StreamFramer::Lines(LineFramer::new(max_frame).yield_blank_lines(true))
            }
            FramingArg::Sse => {
                StreamFramer::Sse(SseFramer::new(max_frame).yield_empty_events(true), false)
            }
            FramingArg::ContentLength => {
                StreamFramer::ContentLength(ContentLengthFramer::new(max_frame))
            }
        }
    }

    /// The next frame, `Ok(None)` when more input is needed (or, at `eof`, when done). An
    /// over-long frame's error names the limit it crossed (the framer's error does) and the
    /// option that sets it: "the frame limit" alone leaves a reader with a large message of
    /// its own nowhere to go.
    pub(crate) fn next(
        &mut self,
        buf: &mut BytesMut,
        eof: bool,
    ) -> Result<Option<Bytes>, FramingError> {
        self.next_frame(buf, eof).map_err(|mut e| {
            if e.unread && !e.unsupported_charset {
                e.detail = format!("{}; --max-frame sets the limit", e.detail);
            }
            e
        })
    }

    /// [`next`](Self::next), its errors as the framer gives them.
    fn next_frame(&mut self, buf: &mut BytesMut, eof: bool) -> Result<Option<Bytes>, FramingError> {
        match self {
            StreamFramer::Lines(f) => Ok(f.next_frame(buf, eof)?),
            // An event of a type other than `message` carries no message (`SseCodec` hands its
            // data out undecoded: HTTP+SSE's `endpoint` event holds a URL): handed out empty.
            StreamFramer::Sse(_, pending_retry @ true) => {
                // Its offset is the framer's last.
                *pending_retry = false;
                Ok(Some(Bytes::new()))
            }
            StreamFramer::Sse(f, pending_retry) => {
                let event = match f.decode(buf)? {
                    None if eof && f.ends_inside_event(buf) => {
                        // The event is dropped, as a client drops it; the framer is reset. A
                        // `retry` it set comes next, in an event of its own.
                        let offset = f.event_offset();
                        *pending_retry = f.decode_eof(buf)?.is_some();
                        return Err(FramingError {
                            detail: "stream ended inside an event, which a client drops".into(),
                            unread: false,
                            unsupported_charset: false,
                            offset: Some(offset),
                            fatal: false,
                        });
                    }
                    None if eof => f.decode_eof(buf)?,
                    event => event,
                };
                Ok(event.map(|e| match e.event {
                    Some(event) if &event[..] != b"message" => Bytes::new(),
                    _ => e.data,
                }))
            }
            StreamFramer::ContentLength(f) => Ok(f.next_frame(buf, eof)?),
        }
    }

    /// Whether `frame`, which this framer handed out, holds no message, as the library's
    /// readers skip it: a blank line, or an SSE event without data or of a type other than
    /// `message` (handed out empty). (A Content-Length body
    /// is a message whatever it holds, and so is SSE data that is not empty: blank, they are
    /// frames that are not JSON.)
    pub(crate) fn holds_no_message(&self, frame: &[u8]) -> bool {
        match self {
            StreamFramer::Lines(_) => frame.iter().all(|b| b" \t\r\n".contains(b)),
            StreamFramer::Sse(..) => frame.is_empty(),
            StreamFramer::ContentLength(_) => false,
        }
    }

    pub(crate) fn last_offset(&self) -> u64 {
        match self {
            StreamFramer::Lines(f) => f.last_offset(),
            StreamFramer::Sse(f, _) => f.last_offset(),
            StreamFramer::ContentLength(f) => f.last_offset(),
        }
    }
}

fn check(args: &CheckArgs) -> io::Result<bool> {
    let mut options = DecodeOptions::new(args.dialect());
    options.role = match args.direction {
        DirectionArg::C2s => Role::Server,
        DirectionArg::S2c => Role::Client,
    };
    options.validation = validation(args.validate);
    options.limits.max_frame = args.max_frame;
    options.limits.max_batch_len = args.max_batch;
    let mut decoder = Decoder::new(options);
    let mut adopted_version = false;
    let mut input = open(&args.file)?;
    let mut out = BufWriter::new(ReportOut::lock());
    let mut summary = Summary::default();
    let mut framer = StreamFramer::new(args.framing, args.max_frame);
    let mut buf = BytesMut::with_capacity(64 << 10);
    let mut index = 0u64;
    let mut emit = |item: Result<Option<Bytes>, FramingError>,
                    framer: &StreamFramer,
                    out: &mut BufWriter<ReportOut>|
     -> io::Result<bool> {
        let mut record = match item {
            Ok(None) => return Ok(false),
            Ok(Some(frame)) if framer.holds_no_message(&frame) => {
                Record::new(index, Some(framer.last_offset()), "skip")
            }
            Ok(Some(frame)) => {
                let mut record = classify(&decoder, &frame, index, framer.last_offset());
                if !adopted_version
                    && record.kind == "invalid_response"
                    && let Some(legacy) = initialize_reply_reader(&decoder, &frame)
                {
                    record = classify(&legacy, &frame, index, framer.last_offset());
                }
                // (The first line that is not blank: blank ones are skipped.)
                if summary.messages == 0 && matches!(args.framing, FramingArg::Ndjson) {
                    hint_framing(None, &record, &frame);
                }
                if summary.messages == 0
                    && let Some(what) = other_sides_first_message(&decoder, &record)
                {
                    let meant = match decoder.options().role {
                        Role::Server => "s2c",
                        Role::Client => "c2s",
                    };
                    say!(
                        "rpcwire check: the first message is {what}: was `--direction {meant}` \
                         meant?"
                    );
                }
                if !adopted_version
                    && let Some(version) = stream_protocol_version(&decoder, &frame, &record)
                {
                    // (`resultType` checked from 2026-07-28 on; batches read under 2025-03-26,
                    // whose receivers must accept them, their elements tracked as JSON-RPC's.)
                    decoder = decoder.for_protocol_version(&version);
                    adopted_version = true;
                }
                record
            }
            Err(e) => e.record(&decoder, index, framer.last_offset()),
        };
        if let FramingArg::Ndjson = args.framing {
            record.line = Some(index + 1);
        }
        index += 1;
        summary.add(&record);
        // (Decoded again only for a batch holding responses or notifications.)
        if record.elements_may_answer {
            summary.add_elements(batch_elements(&decoder, &record));
        }
        if args.json {
            serde_json::to_writer(&mut *out, &record.to_json())?;
            out.write_all(b"\n")?;
        } else if !record.is_valid() || record.kind == "skip" {
            writeln!(out, "{}", record.to_text())?;
        }
        Ok(true)
    };
    // The stream's bytes read so far.
    let mut len = 0u64;
    // The bytes after a fatal framing error, from the message in error on: not checked.
    let mut unchecked = None;
    'read: loop {
        // The records so far go out before a read that may wait: on a live stream (a pipe
        // whose writer stays), each shows as soon as its message came; a file is read 64 KiB
        // at a time, so it costs one write per read.
        out.flush()?;
        buf.reserve(64 << 10);
        let n = read_into(&mut input, &mut buf)?;
        len += n as u64;
        let eof = n == 0;
        loop {
            match framer.next(&mut buf, eof) {
                // Nothing after it can be read as messages: its record goes out at once,
                // then the rest is counted for the summary.
                Err(e) if e.is_fatal() => {
                    let start = e.start(&framer);
                    emit(Err(e.rest_not_checked()), &framer, &mut out)?;
                    out.flush()?;
                    len += drain(&mut input, |_| {})?;
                    unchecked = Some(len.saturating_sub(start));
                    break 'read;
                }
                item => {
                    if !emit(item, &framer, &mut out)? {
                        break;
                    }
                }
            }
        }
        if eof {
            break;
        }
    }
    summary.unchecked_bytes = unchecked;
    if args.json {
        serde_json::to_writer(&mut out, &summary.to_json())?;
        out.write_all(b"\n")?;
    } else {
        writeln!(
            out,
            "{}, {}",
            count(summary.messages, "message"),
            if summary.valid() {
                "all valid"
            } else {
                "some invalid"
            }
        )?;
        // (A skip holds no message: counted apart, so that the kinds add up to the messages.)
        for (kind, n) in summary.by_kind.iter().filter(|(kind, _)| **kind != "skip") {
            writeln!(out, "  {kind}: {n}")?;
        }
        if let Some(n) = summary.by_kind.get("skip") {
            writeln!(out, "  skipped, holding no message: {n}")?;
        }
        for (code, n) in summary.by_error_code.iter() {
            writeln!(out, "  error responses with code {code}: {n}")?;
        }
        if summary.by_error_code.other() > 0 {
            let n = summary.by_error_code.other();
            writeln!(out, "  error responses with other codes: {n}")?;
        }
        for (code, n) in &summary.by_reply_code {
            writeln!(out, "  replies owed with code {code}: {n}")?;
        }
        if let Some(n) = summary.unchecked_bytes {
            writeln!(out, "  not checked after a fatal framing error: {n} bytes")?;
        }
    }
    out.flush()?;
    Ok(summary.valid())
}

/// The protocol version the rest of one stream follows, if `record` (of `frame`) tells it: in
/// a server's stream, the server's reply to `initialize` (its first result holding a
/// `protocolVersion`); in a client's stream, the version its `initialize` asks for (a client
/// asks for the latest it supports, and the one negotiated is never later). A client's result
/// holding a `protocolVersion` answers a server's request, never `initialize` (which only a
/// client sends): it tells nothing of the session's version.
fn stream_protocol_version(decoder: &Decoder, frame: &[u8], record: &Record) -> Option<String> {
    let role = decoder.options().role;
    if record.kind == "success_response" {
        return match role {
            Role::Client => record.protocol_version.clone(),
            Role::Server => None,
        };
    }
    let asks = record.kind == "request"
        && record.method.as_deref() == Some(rpcwire::mcp::methods::INITIALIZE)
        && role == Role::Server;
    if !asks {
        return None;
    }
    let Ok(Message::Request(request)) = decoder.decode(frame) else {
        return None;
    };
    let version = request.params?.get("protocolVersion")?.as_str()?;
    Some(version.decode().into_owned())
}

/// The rules that read `frame`, the reply to `initialize`, when `decoder` (no protocol version
/// known yet: 2026-07-28's rules, a decoder's default) refuses it for its `resultType`: the
/// same rules without that check, when the frame then is a success naming a `protocolVersion`
/// before 2026-07-28. That revision has no `initialize` ("An `initialize` request selects
/// legacy semantics"), and the earlier ones check no `resultType` (results "MAY follow any
/// JSON object structure"), so a member of that name the server put in its result is no
/// fault, and refusing the reply would lose the session's version and the client's handshake.
/// `None` for any other frame. (Only a frame refused for its `resultType` is decoded again:
/// a cold path.)
pub(crate) fn initialize_reply_reader(decoder: &Decoder, frame: &[u8]) -> Option<Decoder> {
    let refused_for_result_type = matches!(
        decoder.decode(frame),
        Err(rejection) if rejection.error() == rpcwire::DecodeError::BadResultType
    );
    if !refused_for_result_type {
        return None;
    }
    let mut options = *decoder.options();
    options.result_types = &[];
    let legacy = Decoder::new(options);
    let Ok(Message::Response(response)) = legacy.decode(frame) else {
        return None;
    };
    let version = response.result.get("protocolVersion")?.as_str()?.decode();
    let legacy_version = !rpcwire::mcp::versions::has_result_type(&version);
    legacy_version.then_some(legacy)
}

/// Says on stderr which `--framing` a stream read as newline-delimited JSON seems to want, when
/// `record`, of its first message (`frame`), is not JSON but looks like a line of another
/// framing; `path` names the stream, in a session of two.
pub(crate) fn hint_framing(path: Option<&Path>, record: &Record, frame: &[u8]) {
    if record.kind != "parse_error" {
        return;
    }
    let Some((framing, looks_like)) = framing_hint(frame) else {
        return;
    };
    let stream = path.map_or(String::new(), |path| format!("{}: ", path.display()));
    say!(
        "rpcwire check: {stream}the first message is not JSON but {looks_like}: was \
         `--framing {framing}` meant?"
    );
}

/// What `record`, the first message of a stream `decoder` reads, is when it is the other
/// side's first message of an MCP session: `initialize` in a stream read as a server's, or the
/// reply to it (a success naming a `protocolVersion`) in one read as a client's. A stream read
/// as the other side's is judged by the other side's rules (which version it follows, what
/// its replies answer), and two streams swapped are each other's replies: MCP's session of a
/// client's capture given as the server's passed clean.
pub(crate) fn other_sides_first_message(
    decoder: &Decoder,
    record: &Record,
) -> Option<&'static str> {
    if decoder.options().dialect != Dialect::Mcp {
        return None;
    }
    match decoder.options().role {
        Role::Client
            if record.kind == "request"
                && record.method.as_deref() == Some(rpcwire::mcp::methods::INITIALIZE) =>
        {
            Some("`initialize`, which a client sends, in a stream read as a server's")
        }
        Role::Server if record.kind == "success_response" && record.protocol_version.is_some() => {
            Some("the reply to `initialize`, which a server sends, in a stream read as a client's")
        }
        _ => None,
    }
}

/// The `--framing` a stream read as newline-delimited JSON seems to want, and what its first
/// line that is not blank looks like, from that line when it is not JSON: an SSE field
/// (`data:`, `event:`, `id:`, `retry:`, or a `:` comment, field names being case-sensitive),
/// or a `Content-Length` or `Content-Type` header (case-insensitive). A check of a capture
/// without the option it needs reports every line as a parse error, with nothing to say why.
fn framing_hint(line: &[u8]) -> Option<(&'static str, &'static str)> {
    let header = |name: &[u8]| {
        line.get(..name.len())
            .is_some_and(|l| l.eq_ignore_ascii_case(name))
    };
    let sse = [&b"data:"[..], b"event:", b"id:", b"retry:", b":"];
    if header(b"content-length:") || header(b"content-type:") {
        Some(("content-length", "a Content-Length header"))
    } else if sse.iter().any(|field| line.starts_with(field)) {
        Some(("sse", "a line of Server-Sent Events"))
    } else {
        None
    }
}

/// Reads `input` to its end, discarding what it holds, telling `read` how many bytes each read
/// gave; how many there were in all.
pub(crate) fn drain(input: &mut dyn Read, mut read: impl FnMut(u64)) -> io::Result<u64> {
    let mut buf = vec![0; 64 << 10];
    let mut all = 0u64;
    loop {
        match input.read(&mut buf) {
            Ok(0) => return Ok(all),
            Ok(n) => {
                read(n as u64);
                all += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

pub(crate) fn read_into(input: &mut dyn Read, buf: &mut BytesMut) -> io::Result<usize> {
    let start = buf.len();
    buf.resize(buf.capacity(), 0);
    let n = loop {
        match input.read(&mut buf[start..]) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => break other,
        }
    };
    buf.truncate(start + *n.as_ref().unwrap_or(&0));
    n
}

/// `n` and `noun`, plural but for one: "1 message", "2 messages".
pub(crate) fn count(n: u64, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{n} {noun}{s}")
}
