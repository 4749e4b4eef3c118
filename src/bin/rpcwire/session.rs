//! Session-level checks shared by `rpcwire proxy` (live) and `rpcwire check` (offline): who
//! waits for what, in both directions, and every violation of the request/reply discipline.
//!
//! Pure bookkeeping: no I/O, no clock (times are milliseconds passed in by the caller).

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::num::NonZeroUsize;
use std::ops::Bound;
use std::sync::Arc;

use rpcwire::headers::ToolHeaders;
use rpcwire::mcp::{self, progress_token, Cancelled, RequestMeta};
use rpcwire::{Dialect, Id, IdBuf, IdKey, InFlight, InFlightError, Message, Rejection};
use serde_json::{json, Value};

/// Which way a message travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    /// Client to server.
    C2s,
    /// Server to client.
    S2c,
}

impl Dir {
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::C2s => "c2s",
            Dir::S2c => "s2c",
        }
    }

    pub fn other(self) -> Dir {
        match self {
            Dir::C2s => Dir::S2c,
            Dir::S2c => Dir::C2s,
        }
    }
}

/// A breach of the protocol seen on the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Violation {
    /// Not a valid message (answered per policy when a client sent it).
    Invalid,
    /// A line that is not JSON; from the server, the "stdout pollution" fault.
    NotJson,
    /// A malformed response.
    InvalidResponse,
    /// A line longer than the frame limit.
    TooLong,
    /// A request reusing an id that is still in flight.
    DuplicateId,
    /// A request beyond the session's limit of requests in flight in its direction
    /// (`--max-in-flight`): not forwarded, since its reply could not be matched.
    TooManyInFlight,
    /// A reply whose id matches no request in flight (unknown or already answered).
    UnknownReply,
    /// A reply to a request that was cancelled or timed out.
    LateReply,
    /// An error response without an id: the peer answered a notification (every request we
    /// forward is valid and has an id).
    ReplyWithoutId,
    /// A request still unanswered when the session ended.
    Unanswered,
    /// A request that timed out.
    TimedOut,
    /// A server-to-client request where the negotiated protocol (≥ 2026-07-28) forbids it.
    ServerRequestForbidden,
    /// A `notifications/progress` whose token no request in flight from the other side
    /// carries (MCP: progress MUST only reference the token of an active request): it came
    /// after the result, after a cancellation, or for a token nobody sent. Forwarded: it
    /// asks nothing of the receiver, which ignores it.
    UnknownProgress,
    /// A notification of an MCP 2026-07-28 `subscriptions/listen` stream (its `_meta` names
    /// the listen request's id) when no such request of the client's is waiting: the stream
    /// was closed by its result or a cancellation, or never opened. Forwarded: the client
    /// ignores it.
    UnknownSubscription,
    /// A server's success to a client's `tools/list`, under MCP 2026-07-28 or later, listing
    /// a tool whose `x-mcp-header` annotations break the specification's constraints (see
    /// [`invalid_tool_headers`]): the client "MUST reject" that tool, so it silently loses
    /// it. Flagged once for the response, and forwarded unchanged: the other tools are good,
    /// and the proxy never alters the server's bytes.
    InvalidToolHeaders,
    /// MCP: a client's `notifications/cancelled` for its `initialize` request, which "MUST
    /// NOT be cancelled by clients". Not forwarded; the request stays in flight, so the
    /// server's result is matched as usual.
    CancelledInitialize,
    /// JSON-RPC: a success reply that answers an invalid batch element (owed a -32600, §6),
    /// inside an array or alone with the element's id: the peer took the element for a
    /// request. Forwarded: it is that element's one reply, and the element is owed nothing
    /// more.
    SuccessToInvalid,
}

impl Violation {
    pub fn as_str(self) -> &'static str {
        match self {
            Violation::Invalid => "invalid",
            Violation::NotJson => "not_json",
            Violation::InvalidResponse => "invalid_response",
            Violation::TooLong => "too_long",
            Violation::DuplicateId => "duplicate_id",
            Violation::TooManyInFlight => "too_many_in_flight",
            Violation::UnknownReply => "unknown_reply",
            Violation::LateReply => "late_reply",
            Violation::ReplyWithoutId => "reply_without_id",
            Violation::Unanswered => "unanswered",
            Violation::TimedOut => "timed_out",
            Violation::ServerRequestForbidden => "server_request_forbidden",
            Violation::UnknownProgress => "unknown_progress",
            Violation::UnknownSubscription => "unknown_subscription",
            Violation::InvalidToolHeaders => "invalid_tool_headers",
            Violation::CancelledInitialize => "cancelled_initialize",
            Violation::SuccessToInvalid => "success_to_invalid",
        }
    }
}

/// What the session is told about one message or batch element, read from it once for the
/// proxy and for `check` (the strings it needs decoded, borrowed from the frame when they hold
/// no escape).
pub struct Described<'a> {
    pub kind: &'static str,
    pub id: Option<Id<'a>>,
    pub method: Option<Cow<'a, str>>,
    pub error_code: Option<i64>,
    pub cancels: Option<Id<'a>>,
    pub protocol_version: Option<Cow<'a, str>>,
    pub progress_token: Option<Id<'a>>,
    pub subscription: Option<Id<'a>>,
}

impl<'a> Described<'a> {
    /// An over-long line.
    pub fn too_long() -> Self {
        Described {
            kind: "framing_error",
            id: None,
            method: None,
            error_code: None,
            cancels: None,
            protocol_version: None,
            progress_token: None,
            subscription: None,
        }
    }

    /// A rejected frame: its kind, and its id when it could be read.
    pub fn of_rejection(rej: &Rejection<'a>) -> Self {
        Described {
            kind: rej.kind_str(),
            id: rej.id(),
            ..Described::too_long()
        }
    }

    /// A decoded frame: [`of_message`](Self::of_message) or [`of_rejection`](Self::of_rejection).
    pub fn of(decoded: Result<&Message<'a>, &Rejection<'a>>, mcp: bool) -> Self {
        match decoded {
            Ok(msg) => Self::of_message(msg, mcp),
            Err(rej) => Self::of_rejection(rej),
        }
    }

    /// A valid message; `mcp`: the MCP dialect, whose progress tokens the session checks.
    /// (Protocol versions are read apart, while the session needs them:
    /// [`Self::read_protocol_version`], [`Self::read_request_version`].)
    pub fn of_message(msg: &Message<'a>, mcp: bool) -> Self {
        let method = msg.method().map(|m| m.decode());
        // (Only for the methods a listen stream carries: a lookup in the params of every
        // progress report and log message costs the proxy a few per cent of its throughput.)
        let subscription = match msg {
            Message::Notification(n)
                if mcp
                    && method
                        .as_deref()
                        .is_some_and(|m| mcp::methods::LISTEN_STREAM.contains(&m)) =>
            {
                mcp::subscription_id(n)
            }
            _ => None,
        };
        Described {
            kind: msg.kind().as_str(),
            id: msg.id(),
            method,
            error_code: match msg {
                Message::ErrorResponse(e) => Some(e.error.code.get()),
                _ => None,
            },
            cancels: match msg {
                Message::Notification(n) => Cancelled::from_notification(n).map(|c| c.request_id),
                _ => None,
            },
            protocol_version: None,
            progress_token: if mcp { progress_token(msg) } else { None },
            subscription,
        }
    }

    /// Reads the protocol version of a success response (only the reply to `initialize`
    /// carries one: the proxy calls it while that reply is awaited).
    pub fn read_protocol_version(&mut self, msg: &Message<'a>) {
        if let Message::Response(r) = msg {
            self.protocol_version = r
                .result
                .get("protocolVersion")
                .and_then(|v| v.as_str())
                .map(|s| s.decode());
        }
    }

    /// Reads the protocol version an MCP request names in its `_meta` (2026-07-28's
    /// per-request version: a session without `initialize` learns its version from them).
    pub fn read_request_version(&mut self, msg: &Message<'a>) {
        if let Message::Request(_) = msg {
            self.protocol_version = RequestMeta::from_message(msg)
                .protocol_version
                .map(|v| v.decode());
        }
    }

    /// What the session is told (the tools of a reply to `tools/list` are read apart, only
    /// when the session checks them: [`Session::reads_tool_headers`]).
    pub fn observation(&self) -> Observation<'_> {
        Observation {
            kind: self.kind,
            id: self.id,
            method: self.method.as_deref(),
            error_code: self.error_code,
            cancels: self.cancels,
            protocol_version: self.protocol_version.as_deref(),
            progress_token: self.progress_token,
            subscription: self.subscription,
            invalid_tools: None,
        }
    }
}

/// How many invalid tools [`invalid_tool_headers`] names; the rest are counted.
const NAMED_INVALID_TOOLS: usize = 8;

/// The tools of a success response's `result.tools` whose `inputSchema`'s `x-mcp-header`
/// annotations are invalid (MCP 2026-07-28, "Custom Headers from Tool Parameters":
/// [`ToolHeaders::from_input_schema`]), each named with why, as one line: `None` when there
/// is none. A result without an array of tools, a tool that is no object or has no
/// `inputSchema`, has nothing to say here: the shape of a result is not the session's to
/// check. The first [`NAMED_INVALID_TOOLS`] are named, the rest counted (a server listing
/// thousands must not make a report line of megabytes).
pub fn invalid_tool_headers(msg: &Message<'_>) -> Option<String> {
    let Message::Response(response) = msg else {
        return None;
    };
    let tools = response.result.get("tools")?;
    let mut out = String::new();
    let mut invalid = 0usize;
    for tool in tools.elements() {
        let Some(schema) = tool.get("inputSchema") else {
            continue;
        };
        let Err(why) = ToolHeaders::from_input_schema(schema) else {
            continue;
        };
        invalid += 1;
        if invalid > NAMED_INVALID_TOOLS {
            continue;
        }
        if !out.is_empty() {
            out.push_str("; ");
        }
        let name = tool
            .get("name")
            .and_then(|n| n.as_str())
            .map(|n| n.decode());
        // `write!` into a `String` cannot fail.
        let _ = match name {
            Some(name) => write!(out, "tool {name:?}: {why}"),
            None => write!(out, "a tool without a name: {why}"),
        };
    }
    if invalid > NAMED_INVALID_TOOLS {
        let _ = write!(out, "; {} more", invalid - NAMED_INVALID_TOOLS);
    }
    (invalid > 0).then_some(out)
}

/// What the session needs to know about one message.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// `request`, `notification`, `success_response`, `error_response`, `batch`, `invalid`,
    /// `parse_error`, `invalid_response`, `framing_error`.
    pub kind: &'a str,
    pub id: Option<Id<'a>>,
    pub method: Option<&'a str>,
    pub error_code: Option<i64>,
    /// For `notifications/cancelled`: the request it cancels.
    pub cancels: Option<Id<'a>>,
    /// For the reply to `initialize`: the negotiated protocol version; for an MCP request:
    /// the version its `_meta` names (`io.modelcontextprotocol/protocolVersion`, MCP
    /// 2026-07-28's per-request version).
    pub protocol_version: Option<&'a str>,
    /// For a request: the progress token it asks progress for (`params._meta.progressToken`);
    /// for `notifications/progress`: the token it reports on. See [`progress_token`].
    pub progress_token: Option<Id<'a>>,
    /// For a notification of an MCP 2026-07-28 `subscriptions/listen` stream: the listen
    /// request's id (`_meta`'s `io.modelcontextprotocol/subscriptionId`).
    pub subscription: Option<Id<'a>>,
    /// For a reply to `tools/list`: the tools whose `x-mcp-header` annotations are invalid,
    /// each with why ([`invalid_tool_headers`]; read only when the session checks them).
    pub invalid_tools: Option<&'a str>,
}

/// What to do with one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub forward: bool,
    pub violation: Option<Violation>,
}

/// A request the session is waiting on.
#[derive(Debug, Clone)]
struct Waiting {
    /// Shared with the counters: no allocation per request.
    method: Arc<str>,
    seq: u64,
    /// The progress token the request asked for.
    progress_token: Option<IdKey>,
    /// Sent inside a batch (answered inside an array).
    in_batch: bool,
    /// The number of the client batch it came in ([`BatchWait`]); 0 for a request sent alone
    /// or by the server.
    batch: u64,
    /// A client request naming its protocol version while the session read them
    /// ([`Session::request_version`]).
    names_version: bool,
    /// A client's `tools/list` (MCP), whose reply may list tools with invalid `x-mcp-header`
    /// annotations ([`Violation::InvalidToolHeaders`]).
    lists_tools: bool,
}

/// A client batch with something left to answer: one array answers a batch (JSON-RPC 2.0
/// §6), so when the proxy answers in the server's place (at the batch's deadline, or in place
/// of a dropped server array that answered it) it answers all it can of the batch in one
/// array of its own, and the server's, coming later, holds only late replies.
#[derive(Debug, Default)]
struct BatchWait {
    /// Its requests that went in flight (taken when the proxy answers what is left of it).
    requests: Vec<IdBuf>,
    /// How many of them still wait.
    waiting: usize,
    /// Its invalid elements whose replies are owed: the id each reply carries (`None`: null);
    /// taken when the proxy answers them.
    owed: Vec<Option<IdBuf>>,
    /// How many of those are still owed.
    owed_left: usize,
}

impl BatchWait {
    /// Whether nothing of the batch is left to answer (the server's array came, or the proxy
    /// answered in place of a dropped one): its record then goes at once, so that records do
    /// not pile up with the rate of batches times the timeout.
    fn is_answered(&self) -> bool {
        self.waiting == 0 && self.owed_left == 0
    }
}

/// What timed out: a request sent alone, or what was left unanswered of a batch.
#[derive(Debug)]
pub enum Timeout {
    Request(Expired),
    Batch {
        requests: Vec<Expired>,
        /// The replies owed to its invalid elements, each with the id it carries (`None`:
        /// null): a -32600 each, as the server would have answered them.
        owed: Vec<Option<IdBuf>>,
    },
}

/// What a dropped server batch answered, which the caller answers in its place, in one array
/// ([`Session::take_answered_in_place`]): all that was left of the client batches it held a
/// reply to: their requests still waiting (a -32603 each), and the replies still owed to their
/// invalid elements (a -32600 each, with the id it carries; `None`: null).
#[derive(Debug, Default)]
pub struct InPlace {
    /// The requests, by id.
    pub requests: Vec<IdBuf>,
    /// The owed replies, by the id each carries (`None`: null).
    pub owed: Vec<Option<IdBuf>>,
}

/// A request that timed out: the caller answers the client and cancels on the server.
#[derive(Debug)]
pub struct Expired {
    pub id: IdBuf,
    pub method: Arc<str>,
    /// Whether the server is to be told with MCP's `notifications/cancelled`: not for MCP's
    /// `initialize`, which "MUST NOT be cancelled", and not under plain JSON-RPC 2.0, which
    /// has no cancellation (a server of another protocol would read a stray notification).
    pub cancel_on_server: bool,
}

/// When a client request, or a client batch, times out; ordered by time, then by arrival.
#[derive(Debug)]
struct Deadline {
    at: u64,
    seq: u64,
    of: DeadlineOf,
}

#[derive(Debug)]
enum DeadlineOf {
    Request(IdBuf),
    /// The number of a batch in [`Session::batches`].
    Batch(u64),
}

impl PartialEq for Deadline {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Deadline {}

impl PartialOrd for Deadline {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Deadline {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// Ids recently cancelled or timed out, for late replies: the last [`RECENT`] of them, at most
/// [`RECENT_BYTES`] of keys, looked up in constant time (every reply that matches no request
/// is looked up: a scan would cost thousands of compares of ids of up to 64 KiB each).
#[derive(Debug, Default)]
struct Recent {
    order: VecDeque<IdKey>,
    /// How many times each key is in `order`.
    set: HashMap<IdKey, u32>,
    /// The bytes of the keys in `order`.
    bytes: usize,
}

impl Recent {
    fn push(&mut self, key: IdKey) {
        self.bytes += key.encoded_len();
        *self.set.entry(key.clone()).or_default() += 1;
        self.order.push_back(key);
        while self.order.len() > RECENT || self.bytes > RECENT_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            self.bytes -= old.encoded_len();
            if let Some(n) = self.set.get_mut(&old) {
                *n -= 1;
                if *n == 0 {
                    self.set.remove(&old);
                }
            }
        }
    }

    fn contains(&self, key: &IdKey) -> bool {
        self.set.contains_key(key)
    }
}

/// How many bytes of ids [`Recent`] keeps at most (in each direction).
const RECENT_BYTES: usize = 1 << 20;

/// How many recently cancelled or timed-out ids are remembered for late replies.
const RECENT: usize = 4096;

pub struct Session {
    dialect: Dialect,
    /// Requests each side sent and still waits on, by direction of the request.
    waiting: [InFlight<Waiting>; 2],
    /// Ids recently cancelled or timed out, by direction of the request.
    recent: [Recent; 2],
    /// Replies owed for the invalid elements of batches (JSON-RPC), by direction of the batch:
    /// the receiver answers each itself (§6), with the element's id when it could be read
    /// (`Some`), else with a null id, which §5.1 requires for an invalid request.
    owed_element_replies: [OwedReplies; 2],
    /// How many requests may wait in each direction (and replies be owed).
    max_in_flight: usize,
    /// How many requests stopped waiting, by direction of the request.
    stopped_waiting: [u64; 2],
    /// Whether the last batch observed in each direction goes on, from its elements so far.
    batch_forward: [BatchForward; 2],
    /// What a dropped batch answered, for the caller to answer ([`Self::answer_in_place_of`]).
    answered_in_place: InPlace,
    /// The progress tokens of the requests waiting, by direction of the request: how many
    /// requests carry each (a token reused while in flight is counted, not lost).
    progress_tokens: [HashMap<IdKey, u32>; 2],
    deadlines: BinaryHeap<Reverse<Deadline>>,
    timeout_ms: Option<u64>,
    /// The client batch being observed (its number, when it came, what it holds), and the
    /// client batches with something left to answer, by number.
    open_batch: Option<(u64, u64, BatchWait)>,
    /// The replies owed to elements of client batches that timed out, which the proxy sent
    /// itself: the server's, coming later inside an array, are late, each once (at most
    /// [`RECENT`] of them, [`RECENT_BYTES`] of ids).
    late_owed: OwedReplies,
    batches: HashMap<u64, BatchWait>,
    batch_no: u64,
    seq: u64,
    initialize: Option<IdKey>,
    /// The version the latest client request named in `_meta` (MCP 2026-07-28 has no
    /// `initialize`: every request names its version), while no version is known: a success
    /// reply to a request that named one ([`Waiting::names_version`]) makes it the session's.
    /// (Not the request itself: a client probing `server/discover` at a version the server
    /// does not speak falls back to `initialize`.)
    request_version: Option<String>,
    /// A client request named no version while none was known: the client is not speaking
    /// 2026-07-28, whose requests all name theirs (see [`Session::reads_request_versions`]).
    unversioned_request: bool,
    protocol_version: Option<String>,
    /// How many client `tools/list` requests wait ([`Waiting::lists_tools`]): while none does,
    /// [`Session::reads_tool_headers`] answers without a lookup.
    tools_lists_waiting: usize,
    pub counters: Counters,
}

/// Distinct method names counted per direction; more go under [`OTHER_METHODS`].
pub const MAX_METHODS: usize = 256;
/// The counter of the requests whose method came after the first [`MAX_METHODS`].
pub const OTHER_METHODS: &str = "(other)";

/// The numbers worth alerting on.
#[derive(Debug, Default)]
pub struct Counters {
    pub messages: BTreeMap<(Dir, &'static str), u64>,
    /// At most [`MAX_METHODS`] names per direction; the rest are counted as `(other)`.
    pub requests_by_method: BTreeMap<Dir, BTreeMap<Arc<str>, u64>>,
    pub errors_by_code: BTreeMap<(Dir, i64), u64>,
    pub violations: BTreeMap<(Dir, Violation), u64>,
}

impl Counters {
    /// Counts a request; returns its method name, shared with the counter when counted
    /// under its own name.
    fn count_method(&mut self, dir: Dir, method: &str) -> Arc<str> {
        let by_method = self.requests_by_method.entry(dir).or_default();
        // One lookup for the key and its count (a map has no `get_key_value_mut`).
        let same = (Bound::Included(method), Bound::Included(method));
        if let Some((name, count)) = by_method.range_mut::<str, _>(same).next() {
            *count += 1;
            return name.clone();
        }
        let name: Arc<str> = method.into();
        if by_method.len() < MAX_METHODS {
            by_method.insert(name.clone(), 1);
        } else if let Some(other) = by_method.get_mut(OTHER_METHODS) {
            // A peer inventing method names must not grow the counters without bound.
            *other += 1;
        } else {
            by_method.insert(OTHER_METHODS.into(), 1);
        }
        name
    }

    pub fn total_violations(&self) -> u64 {
        self.violations.values().sum()
    }

    pub fn to_json(&self) -> Value {
        let map = |m: Vec<(String, u64)>| {
            Value::Object(m.into_iter().map(|(k, v)| (k, json!(v))).collect())
        };
        json!({
            "messages": map(self.messages.iter().map(|((d, k), n)| (format!("{}/{k}", d.as_str()), *n)).collect()),
            "requests_by_method": map(self.requests_by_method.iter().flat_map(|(d, m)| m.iter().map(move |(m, n)| (format!("{}/{m}", d.as_str()), *n))).collect()),
            "errors_by_code": map(self.errors_by_code.iter().map(|((d, c), n)| (format!("{}/{c}", d.as_str()), *n)).collect()),
            "violations": map(self.violations.iter().map(|((d, v), n)| (format!("{}/{}", d.as_str(), v.as_str()), *n)).collect()),
            "total_violations": self.total_violations(),
        })
    }
}

/// The static name of a message kind (unknown kinds count as `invalid`).
pub fn kind_name(kind: &str) -> &'static str {
    const KINDS: [&str; 9] = [
        "request",
        "notification",
        "success_response",
        "error_response",
        "batch",
        "invalid",
        "parse_error",
        "invalid_response",
        "framing_error",
    ];
    KINDS.into_iter().find(|k| *k == kind).unwrap_or("invalid")
}

/// Whether a session of protocol `version` has `x-mcp-header` annotations (MCP 2026-07-28 on;
/// before, the keyword means nothing; an unknown version: no, see
/// [`Session::reads_tool_headers`]).
fn has_tool_headers(version: Option<&str>) -> bool {
    version.is_some_and(|v| mcp::versions::is_at_least(v, mcp::versions::V2026_07_28))
}

fn slot(dir: Dir) -> usize {
    match dir {
        Dir::C2s => 0,
        Dir::S2c => 1,
    }
}

/// What is known of the batch last observed in a direction ([`Session::batch_forwards`]).
#[derive(Debug, Clone, Copy, Default)]
struct BatchForward {
    /// The receiver needs an element.
    needed: bool,
    /// The batch is dropped whatever its elements ([`Session::drop_batch`]).
    dropped: bool,
}

/// The replies owed to the invalid elements of batches sent one way, by the id they must
/// carry: matched in constant time (a batch of a million invalid elements must not make each
/// reply a scan of the others). Each entry holds the number of the client batch it came in
/// ([`BatchWait`]; 0 for the server's), so that the proxy, answering a batch's owed replies
/// itself (at its deadline, or in place of a dropped array), forgets that batch's entries and
/// no other batch's. A reply takes the oldest entry with its id (null: the oldest
/// without one): nothing on the wire says which batch it answers, so a server answering
/// batches out of order, with the same ids in their invalid elements, has its replies
/// counted against the older batch.
#[derive(Debug, Default)]
struct OwedReplies {
    /// Elements whose id could be read (their reply echoes it, or is null: §5.1), by that
    /// id: their batches, oldest first.
    by_id: HashMap<IdKey, OwedBatches>,
    /// Those ids in the order they were owed, for a null-id reply to take the oldest; an id
    /// already answered is skipped when met (and the queue rebuilt when mostly such).
    order: VecDeque<IdKey>,
    /// Elements whose id could not be read (their reply's id is null): their batches, oldest
    /// first.
    without_id: OwedBatches,
    len: usize,
    /// The bytes of the ids owed.
    bytes: usize,
}

impl OwedReplies {
    /// Records one reply owed to an element of `batch`; at `limit` (the limit of requests in
    /// flight) it is not recorded, and its reply will be reported as unmatched. Returns
    /// whether it was recorded.
    fn push(&mut self, id: Option<IdKey>, batch: u64, limit: usize) -> bool {
        if self.len >= limit {
            return false;
        }
        self.len += 1;
        match id {
            Some(id) => {
                self.bytes += id.encoded_len();
                self.by_id.entry(id.clone()).or_default().push(batch);
                self.order.push_back(id);
            }
            None => self.without_id.push(batch),
        }
        true
    }

    /// Whether a reply with this id (`None`: null) is owed: one with the same id, or for a
    /// null id any (an element without a readable id first).
    fn owes(&self, key: Option<&IdKey>) -> bool {
        match key {
            Some(key) => self.by_id.contains_key(key),
            None => self.len > 0,
        }
    }

    /// How many replies with this id (`None`: to elements whose id could not be read) are
    /// owed to elements of `batch`.
    fn count(&self, key: Option<&IdKey>, batch: u64) -> usize {
        let batches = match key {
            Some(key) => match self.by_id.get(key) {
                Some(batches) => batches,
                None => return 0,
            },
            None => &self.without_id,
        };
        batches.count(batch)
    }

    /// The batch of the oldest element owed a reply with this id (`None`: of the oldest whose
    /// id could not be read; in constant time, so not one whose id could be read, which a
    /// null-id reply may also answer).
    fn oldest_batch(&self, key: Option<&IdKey>) -> Option<u64> {
        match key {
            Some(key) => self.by_id.get(key)?.oldest(),
            None => self.without_id.oldest(),
        }
    }

    /// Takes the reply `owes` found, if any: the batch its element came in.
    fn take(&mut self, key: Option<&IdKey>) -> Option<u64> {
        let key = match key {
            Some(key) => key.clone(),
            None if !self.without_id.is_empty() => {
                self.len -= 1;
                return self.without_id.take(None);
            }
            // A null id for an element whose id could be read (§5.1 allows it): the oldest.
            None => loop {
                let key = self.order.pop_front()?;
                if self.by_id.contains_key(&key) {
                    break key;
                }
            },
        };
        self.take_by_id(&key, None)
    }

    /// Forgets a reply owed with this id (`None`: to an element whose id could not be read)
    /// to an element of `batch` (the oldest of any batch: `None`), if there is one: it was
    /// answered otherwise. Returns whether it was owed.
    fn forget(&mut self, key: Option<&IdKey>, batch: Option<u64>) -> bool {
        match key {
            Some(key) => self.take_by_id(key, batch).is_some(),
            None => {
                let taken = self.without_id.take(batch);
                self.len -= usize::from(taken.is_some());
                taken.is_some()
            }
        }
    }

    /// Takes an entry with id `key` of `batch` (the oldest: `None`): its batch.
    fn take_by_id(&mut self, key: &IdKey, batch: Option<u64>) -> Option<u64> {
        let batches = self.by_id.get_mut(key)?;
        let taken = batches.take(batch)?;
        if batches.is_empty() {
            self.by_id.remove(key);
        }
        self.len -= 1;
        self.bytes -= key.encoded_len();
        // Ids answered by their own id stay in `order` until met: rebuild it when they are
        // most of it, so that it stays within twice what is owed with an id (entries, not
        // distinct ids: one id owed to many batches would rebuild it at every answer).
        if self.order.len() > 2 * (self.len - self.without_id.len()) + 16 {
            let by_id = &self.by_id;
            let mut seen: HashMap<IdKey, usize> = HashMap::new();
            self.order.retain(|k| {
                let n = seen.entry(k.clone()).or_default();
                *n += 1;
                by_id.get(k).is_some_and(|owed| *n <= owed.len())
            });
        }
        Some(taken)
    }
}

/// The batches of the replies owed with one id (or to elements without one), each with how
/// many: any batch's entry is counted and taken in logarithmic time, the oldest's too (a
/// batch answered in place need not be the oldest owed, and a queue's removal from its
/// middle let a server answering a client's many batches out of order go quadratic).
#[derive(Debug, Default)]
struct OwedBatches {
    counts: BTreeMap<u64, usize>,
    len: usize,
}

impl OwedBatches {
    fn push(&mut self, batch: u64) {
        *self.counts.entry(batch).or_default() += 1;
        self.len += 1;
    }

    /// How many replies are owed to elements of `batch`.
    fn count(&self, batch: u64) -> usize {
        self.counts.get(&batch).copied().unwrap_or(0)
    }

    /// The oldest batch owed one.
    fn oldest(&self) -> Option<u64> {
        self.counts.keys().next().copied()
    }

    /// Takes an entry of `batch` (of the oldest: `None`): its batch.
    fn take(&mut self, batch: Option<u64>) -> Option<u64> {
        let batch = match batch {
            Some(batch) => batch,
            None => self.oldest()?,
        };
        let count = self.counts.get_mut(&batch)?;
        *count -= 1;
        if *count == 0 {
            self.counts.remove(&batch);
        }
        self.len -= 1;
        Some(batch)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The kind of a decoded frame or batch element, as [`Observation::kind`] names it.
pub fn kind_of(decoded: &Result<Message<'_>, Rejection<'_>>) -> &'static str {
    match decoded {
        Ok(msg) => msg.kind().as_str(),
        Err(rej) => rej.kind_str(),
    }
}

/// Whether a message of this kind may answer the other side: a response, or a notification
/// (MCP's progress reports on a request of the other side).
pub fn may_answer(kind: &str) -> bool {
    matches!(kind, "success_response" | "error_response" | "notification")
}

/// The violation a message that is not valid counts as, by its kind.
fn rejected_violation(kind: &str) -> Violation {
    rejected_violation_of(kind).unwrap_or(Violation::Invalid)
}

/// The violation a message of this kind counts as when it is not valid; `None` for the
/// kinds of valid messages.
fn rejected_violation_of(kind: &str) -> Option<Violation> {
    match kind {
        "parse_error" => Some(Violation::NotJson),
        "invalid_response" => Some(Violation::InvalidResponse),
        "framing_error" => Some(Violation::TooLong),
        "request" | "notification" | "success_response" | "error_response" | "batch" => None,
        _ => Some(Violation::Invalid),
    }
}

/// How many bytes of ids, method names and progress tokens the requests waiting in each
/// direction may hold (the budget of their `InFlight` table, each request's method and token
/// its extra bytes): `--max-in-flight` bounds their number, this their memory (a million
/// requests with ids and names of 64 KiB each would otherwise take 128 GB, and a progress
/// token may be as long as a frame). Beyond it a request is refused as beyond
/// `--max-in-flight`. (Ids and tokens are counted as kept, about twice: an id's key and its
/// token, a progress token's key in its request and in the count of requests reporting on
/// it.)
pub const MAX_IN_FLIGHT_BYTES: usize = 256 << 20;

/// How many requests may wait in each direction by default.
pub const MAX_IN_FLIGHT: NonZeroUsize = NonZeroUsize::new(1 << 20).expect("not zero");

impl Session {
    pub fn new(dialect: Dialect, timeout_ms: Option<u64>) -> Session {
        Session::with_max_in_flight(dialect, timeout_ms, MAX_IN_FLIGHT.get())
    }

    /// A session that tracks at most `max_in_flight` requests in each direction.
    pub fn with_max_in_flight(
        dialect: Dialect,
        timeout_ms: Option<u64>,
        max_in_flight: usize,
    ) -> Session {
        Session::with_budget(dialect, timeout_ms, max_in_flight, MAX_IN_FLIGHT_BYTES)
    }

    /// A session that tracks at most `max_in_flight` requests in each direction, holding at
    /// most `max_bytes` of ids, method names and progress tokens (see
    /// [`MAX_IN_FLIGHT_BYTES`]).
    fn with_budget(
        dialect: Dialect,
        timeout_ms: Option<u64>,
        max_in_flight: usize,
        max_bytes: usize,
    ) -> Session {
        Session {
            dialect,
            waiting: [(); 2].map(|()| InFlight::new(max_in_flight).max_bytes(max_bytes)),
            recent: [Recent::default(), Recent::default()],
            owed_element_replies: [OwedReplies::default(), OwedReplies::default()],
            max_in_flight,
            stopped_waiting: [0, 0],
            batch_forward: [BatchForward::default(); 2],
            answered_in_place: InPlace::default(),
            progress_tokens: [HashMap::new(), HashMap::new()],
            deadlines: BinaryHeap::new(),
            timeout_ms,
            open_batch: None,
            late_owed: OwedReplies::default(),
            batches: HashMap::new(),
            batch_no: 0,
            seq: 0,
            initialize: None,
            request_version: None,
            unversioned_request: false,
            protocol_version: None,
            tools_lists_waiting: 0,
            counters: Counters::default(),
        }
    }

    fn flag(&mut self, dir: Dir, v: Violation) -> Option<Violation> {
        *self.counters.violations.entry((dir, v)).or_default() += 1;
        Some(v)
    }

    /// A request sent in `dir` stopped waiting: its progress token is no longer active (and
    /// a client request's deadline is dead).
    fn release(&mut self, dir: Dir, waiting: &Waiting) {
        self.stopped_waiting[slot(dir)] += 1;
        if waiting.lists_tools {
            self.tools_lists_waiting -= 1;
        }
        if dir == Dir::C2s {
            self.batch_part_answered(waiting.batch, |batch| batch.waiting -= 1);
            self.prune_deadlines();
        }
        let Some(token) = &waiting.progress_token else {
            return;
        };
        let tokens = &mut self.progress_tokens[slot(dir)];
        if let Some(n) = tokens.get_mut(token) {
            *n -= 1;
            if *n == 0 {
                tokens.remove(token);
            }
        }
    }

    /// Drops the deadlines of client requests no longer waiting, and of batches answered,
    /// once they outnumber the live ones: the heap then grows with the requests and batches in
    /// flight, not with their rate times the timeout (each prune is paid for by as many
    /// releases as it keeps entries).
    fn prune_deadlines(&mut self) {
        let waiting = &self.waiting[slot(Dir::C2s)];
        if self.deadlines.len() > 2 * (waiting.len() + self.batches.len()) + 64 {
            let batches = &self.batches;
            self.deadlines.retain(|Reverse(d)| match &d.of {
                DeadlineOf::Request(id) => waiting.get(id.as_id()).is_some_and(|w| w.seq == d.seq),
                DeadlineOf::Batch(no) => batches.contains_key(no),
            });
        }
    }

    fn remember(&mut self, dir: Dir, key: IdKey) {
        self.recent[slot(dir)].push(key);
    }

    /// Whether the reply to the client's `initialize` is still to come (the only reply whose
    /// `protocolVersion` the session reads).
    pub fn awaits_initialize_reply(&self) -> bool {
        self.initialize.is_some()
    }

    /// The session's protocol version, once known: the `protocolVersion` of the server's
    /// reply to `initialize`, or the per-request version of a request the server answered
    /// with a success (MCP 2026-07-28).
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// Whether the client's requests may still tell the session's version (MCP 2026-07-28's
    /// per-request `_meta`): no version is known yet, and every client request so far named
    /// one (a 2026-07-28 client's all do; another's name none, and the version then comes
    /// from `initialize`, if at all). The proxy reads them only while this holds.
    pub fn reads_request_versions(&self) -> bool {
        self.dialect == Dialect::Mcp && self.protocol_version.is_none() && !self.unversioned_request
    }

    /// Records one message travelling in `dir`, at time `now_ms`.
    ///
    /// A JSON-RPC batch counts here as one `batch` message, with no violation of its own;
    /// its elements are then recorded one by one, in order, with [`Session::observe_element`],
    /// and [`Session::batch_forwards`] says whether the batch goes on.
    pub fn observe(&mut self, dir: Dir, o: &Observation<'_>, now_ms: u64) -> Verdict {
        self.count_message(dir, o.kind);
        self.close_batch();
        if o.kind == "batch" {
            self.batch_forward[slot(dir)] = BatchForward::default();
            self.answered_in_place = InPlace::default();
            if dir == Dir::C2s {
                self.batch_no += 1;
                self.open_batch = Some((self.batch_no, now_ms, BatchWait::default()));
            }
            return Verdict {
                forward: true,
                violation: None,
            };
        }
        self.check(dir, o, now_ms, false)
    }

    /// The client batch last observed is complete: it is kept while it holds a request in
    /// flight or an owed reply, with a deadline under a timeout.
    fn close_batch(&mut self) {
        let Some((no, at, wait)) = self.open_batch.take() else {
            return;
        };
        if wait.requests.is_empty() && wait.owed.is_empty() {
            return;
        }
        let wait = BatchWait {
            owed_left: wait.owed.len(),
            ..wait
        };
        self.batches.insert(no, wait);
        let Some(t) = self.timeout_ms else {
            return;
        };
        // (A number of its own: batches with the same deadline expire in the order they
        // came, each forgetting the oldest owed replies.)
        self.seq += 1;
        self.deadlines.push(Reverse(Deadline {
            at: at + t,
            seq: self.seq,
            of: DeadlineOf::Batch(no),
        }));
    }

    /// Whether the batch last observed in `dir` goes on, once all its elements are: it is
    /// never split nor rewritten, so it goes on whole when the receiver needs any element
    /// (it holds more than late replies and malformed responses), unless it was dropped.
    pub fn batch_forwards(&self, dir: Dir) -> bool {
        let b = self.batch_forward[slot(dir)];
        b.needed && !b.dropped
    }

    /// Drops the batch just observed in `dir`, before its elements: they are then counted,
    /// and an invalid one reported, but none has any effect (no request goes in flight, no
    /// reply resolves its request, which keeps waiting and may time out). For a batch from
    /// the server with an invalid element: the client gets valid messages only
    /// ([`drops_batch`](Self::drops_batch)).
    pub fn drop_batch(&mut self, dir: Dir) {
        self.batch_forward[slot(dir)].dropped = true;
    }

    /// Whether a batch travelling in `dir` whose elements are of the kinds `kinds` is dropped
    /// whole: one from the server holding anything invalid.
    pub fn drops_batch<'k>(dir: Dir, mut kinds: impl Iterator<Item = &'k str>) -> bool {
        dir == Dir::S2c && kinds.any(|k| rejected_violation_of(k).is_some())
    }

    /// Records one element of the batch last observed in `dir` (JSON-RPC 2.0 §6) as a message
    /// of its own: a request goes in flight, a reply resolves its request, and each breach is
    /// a violation of this element. The batch travels whole (never split), so the verdict's
    /// `forward` says whether the receiver needs this element:
    /// - an invalid element is a violation, but the receiver answers it itself in its reply
    ///   to the batch (§6), so that reply is owed and matched, never reported;
    /// - a request beyond the limit of requests in flight is a violation and goes with its
    ///   batch untracked (its reply is then reported as `unknown_reply`): it cannot be
    ///   refused alone, and refusing its batch would leave the others unanswered;
    /// - everything else as for a message sent alone.
    pub fn observe_element(&mut self, dir: Dir, o: &Observation<'_>, now_ms: u64) -> Verdict {
        self.count_message(dir, o.kind);
        let verdict = if self.batch_forward[slot(dir)].dropped {
            self.answer_in_place_of(dir, o);
            Verdict {
                forward: false,
                violation: rejected_violation_of(o.kind).and_then(|v| self.flag(dir, v)),
            }
        } else {
            self.check_element(dir, o, now_ms)
        };
        self.batch_forward[slot(dir)].needed |= verdict.forward;
        verdict
    }

    /// A reply inside a dropped batch to a request sent in a batch, or to an invalid element
    /// of one: the dropped array was the server's answer to that batch (one array answers a
    /// batch), and it never reaches the client, whose requests would wait until their batch's
    /// deadline (forever without one). So the caller answers, in one array, all that is left of
    /// that batch ([`take_answered_in_place`](Self::take_answered_in_place)): its requests
    /// still waiting wait no more, its replies still owed are owed no more, and the server's
    /// replies to them, coming later, are late. (A request sent alone keeps waiting, and times
    /// out.)
    fn answer_in_place_of(&mut self, dir: Dir, o: &Observation<'_>) {
        // Only the server's batches are dropped: the requests they answer are the client's.
        let reply = matches!(o.kind, "success_response" | "error_response");
        if dir != Dir::S2c || !reply {
            return;
        }
        let id = o.id.filter(|id| !id.is_null());
        let request_batch = id.and_then(|id| self.waiting[slot(Dir::C2s)].get(id));
        // (A request sent alone is not answered in an array: an owed reply of its id first.)
        let batch = match request_batch.map(|w| w.batch).filter(|&batch| batch != 0) {
            Some(batch) => batch,
            None => {
                let key = id.map(IdKey::of);
                let owed = &self.owed_element_replies[slot(Dir::C2s)];
                owed.oldest_batch(key.as_ref()).unwrap_or(0)
            }
        };
        if batch == 0 {
            return;
        }
        let (requests, owed) = self.take_rest_of_batch(batch);
        let answered = &mut self.answered_in_place;
        answered
            .requests
            .extend(requests.into_iter().map(|(id, _)| id));
        answered.owed.extend(owed);
    }

    /// What the last dropped batch answered, which the caller now answers itself, in one
    /// array.
    pub fn take_answered_in_place(&mut self) -> InPlace {
        std::mem::take(&mut self.answered_in_place)
    }

    /// What is left unanswered of the client batch `no`, which the proxy answers itself now
    /// (at its deadline, or in place of a dropped array): its requests still waiting, removed
    /// (each remembered for a late reply), and the id each of its replies still owed carries
    /// (`None`: null), owed no more. The batch's record goes.
    fn take_rest_of_batch(&mut self, no: u64) -> (Vec<(IdBuf, Waiting)>, Vec<Option<IdBuf>>) {
        let Some(wait) = self.batches.remove(&no) else {
            return (vec![], vec![]);
        };
        let owed = wait
            .owed
            .into_iter()
            .filter(|id| self.forget_owed(id.as_ref().map(IdBuf::as_id), Some(no)))
            .collect();
        let mut requests = vec![];
        for id in &wait.requests {
            let waits = self.waiting[slot(Dir::C2s)].get(id.as_id());
            if waits.is_some_and(|w| w.batch == no) {
                requests.extend(self.stop_waiting(id.as_id()));
            }
        }
        (requests, owed)
    }

    fn check_element(&mut self, dir: Dir, o: &Observation<'_>, now_ms: u64) -> Verdict {
        match o.kind {
            "invalid" | "parse_error" => {
                // The reply carries the element's id when it could be read (a parse error's
                // never: its id is not trusted). Bounded like the requests in flight.
                let id = o.id.filter(|_| o.kind == "invalid");
                let batch = self.open_batch_no(dir);
                let owed = self.owed_element_replies[slot(dir)].push(
                    id.map(IdKey::of),
                    batch,
                    self.max_in_flight,
                );
                if let (true, Some((_, _, wait))) = (owed, &mut self.open_batch) {
                    wait.owed.push(id.map(|id| id.to_owned_id()));
                }
                Verdict {
                    forward: true,
                    violation: self.flag(dir, rejected_violation(o.kind)),
                }
            }
            _ => {
                let mut verdict = self.check(dir, o, now_ms, true);
                if verdict.violation == Some(Violation::TooManyInFlight) {
                    verdict.forward = true;
                }
                verdict
            }
        }
    }

    fn count_message(&mut self, dir: Dir, kind: &str) {
        *self
            .counters
            .messages
            .entry((dir, kind_name(kind)))
            .or_default() += 1;
    }

    /// Whether a reply sent in `dir.other()` (with the id `key` or a null id when `None`)
    /// answers an invalid batch element sent in `dir`; if so, it is owed no more (see
    /// [`OwedReplies::take`]).
    fn take_owed_reply(&mut self, dir: Dir, key: Option<&IdKey>) -> bool {
        let Some(batch) = self.owed_element_replies[slot(dir)].take(key) else {
            return false;
        };
        self.batch_part_answered(batch, |batch| batch.owed_left -= 1);
        self.prune_deadlines();
        true
    }

    /// A request or owed reply of the client batch `no` was answered (`part` counts it): the
    /// batch's record goes once nothing of it is left, and the ids of its requests no longer
    /// waiting, or of its replies no longer owed, once they are most of its ids (an amortized
    /// constant time each): a batch with one left must not hold the ids of all the others,
    /// outside the budget of the requests in flight.
    fn batch_part_answered(&mut self, no: u64, part: impl FnOnce(&mut BatchWait)) {
        let Some(batch) = self.batches.get_mut(&no) else {
            return;
        };
        part(batch);
        if batch.is_answered() {
            self.batches.remove(&no);
            return;
        }
        if batch.requests.len() > 2 * batch.waiting.max(8) {
            let waiting = &self.waiting[slot(Dir::C2s)];
            batch
                .requests
                .retain(|id| waiting.get(id.as_id()).is_some_and(|w| w.batch == no));
        }
        if batch.owed.len() > 2 * batch.owed_left.max(8) {
            // As many of each id as are still owed to this batch.
            let owed = &self.owed_element_replies[slot(Dir::C2s)];
            let mut left: HashMap<Option<IdKey>, usize> = HashMap::new();
            batch.owed.retain(|id| {
                let key = id.as_ref().map(|id| IdKey::of(id.as_id()));
                let n = match left.entry(key) {
                    Entry::Occupied(n) => n.into_mut(),
                    Entry::Vacant(v) => {
                        let n = owed.count(v.key().as_ref(), no);
                        v.insert(n)
                    }
                };
                let keep = *n > 0;
                *n = n.saturating_sub(1);
                keep
            });
        }
    }

    /// The number of the client batch being observed ([`BatchWait`]) when `dir` is the
    /// client's; 0 otherwise.
    fn open_batch_no(&self, dir: Dir) -> u64 {
        match (&self.open_batch, dir) {
            (Some((no, ..)), Dir::C2s) => *no,
            _ => 0,
        }
    }

    /// Whether a reply sent in `dir.other()` with the id `id` (`None`: a null id, which only a
    /// reply inside an array may carry), may answer an invalid batch element sent in `dir`
    /// (see `take_owed_reply`).
    pub fn owes_element_reply(&self, dir: Dir, id: Option<Id<'_>>) -> bool {
        let key = id.filter(|id| !id.is_null()).map(IdKey::of);
        self.owed_element_replies[slot(dir)].owes(key.as_ref())
    }

    /// The checks of one message, or element of a batch (`in_batch`).
    fn check(&mut self, dir: Dir, o: &Observation<'_>, now_ms: u64, in_batch: bool) -> Verdict {
        // Cancellation, `initialize` and the protocol version are MCP's; plain JSON-RPC has
        // none of them (a `notifications/cancelled` there is just a notification).
        let mcp = self.dialect == Dialect::Mcp;
        let mut forward = true;
        let violation = match o.kind {
            "request" => {
                let method = o.method.unwrap_or_default();
                let name = self.counters.count_method(dir, method);
                let id = o.id.expect("a request has an id");
                let forbidden = dir == Dir::S2c
                    && self
                        .protocol_version
                        .as_deref()
                        .is_some_and(|v| mcp::versions::is_at_least(v, mcp::versions::V2026_07_28));
                if forbidden {
                    forward = false;
                    self.flag(dir, Violation::ServerRequestForbidden)
                } else {
                    self.seq += 1;
                    let progress_token = o
                        .progress_token
                        .filter(|_| self.tracks_progress())
                        .map(IdKey::of);
                    // (A batch is open only while its elements are observed.)
                    let batch = self.open_batch_no(dir);
                    // What the request holds beside its id, against `MAX_IN_FLIGHT_BYTES`: its
                    // method and its progress token's key twice (here and in
                    // `progress_tokens`): a token is not bounded by the id limit, only by the
                    // frame's.
                    let extra_bytes =
                        method.len() + progress_token.as_ref().map_or(0, |k| 2 * k.encoded_len());
                    // (Only while the proxy reads them: a merged check's records name every
                    // request's version.)
                    let reads_version = dir == Dir::C2s && self.reads_request_versions();
                    let waiting = Waiting {
                        method: name,
                        seq: self.seq,
                        progress_token: progress_token.clone(),
                        in_batch,
                        batch,
                        names_version: reads_version && o.protocol_version.is_some(),
                        lists_tools: dir == Dir::C2s && mcp && method == mcp::methods::TOOLS_LIST,
                    };
                    let lists_tools = waiting.lists_tools;
                    match self.waiting[slot(dir)].insert_with_extra(id, extra_bytes, waiting) {
                        Ok(()) => {
                            if let Some(token) = progress_token {
                                *self.progress_tokens[slot(dir)].entry(token).or_default() += 1;
                            }
                            self.tools_lists_waiting += usize::from(lists_tools);
                            if method == "initialize" && dir == Dir::C2s && mcp {
                                self.initialize = Some(IdKey::of(id));
                            }
                            if reads_version {
                                match o.protocol_version {
                                    Some(version)
                                        if self.request_version.as_deref() != Some(version) =>
                                    {
                                        self.request_version = Some(version.to_string());
                                    }
                                    Some(_) => {}
                                    None => self.unversioned_request = true,
                                }
                            }
                            // A request inside a batch times out with its batch (one array
                            // answers it: `close_batch`).
                            if let (Some((_, _, wait)), true) = (&mut self.open_batch, batch != 0) {
                                wait.requests.push(id.to_owned_id());
                                wait.waiting += 1;
                            } else if let (Some(t), Dir::C2s, false) =
                                (self.timeout_ms, dir, self.is_stream(method))
                            {
                                self.deadlines.push(Reverse(Deadline {
                                    at: now_ms + t,
                                    seq: self.seq,
                                    of: DeadlineOf::Request(id.to_owned_id()),
                                }));
                            }
                            None
                        }
                        Err(InFlightError::Duplicate) => {
                            // MCP forbids reusing an in-flight id; JSON-RPC only warns.
                            forward = self.dialect == Dialect::JsonRpc2;
                            self.flag(dir, Violation::DuplicateId)
                        }
                        Err(InFlightError::Full | InFlightError::OverBudget) => {
                            forward = false;
                            self.flag(dir, Violation::TooManyInFlight)
                        }
                    }
                }
            }
            "notification" => {
                let cancels = o.cancels.filter(|_| mcp);
                let cancels_initialize =
                    dir == Dir::C2s && cancels.is_some_and(|id| self.is_initialize(id));
                if cancels_initialize {
                    // MCP: initialize "MUST NOT be cancelled by clients". It stays in flight,
                    // so the server's result is matched (and its protocol version read).
                    forward = false;
                    self.flag(dir, Violation::CancelledInitialize)
                } else {
                    if let Some(cancelled) = cancels {
                        // The peer gave up on its own request: a late reply is to be ignored.
                        if let Some((_, w)) = self.waiting[slot(dir)].remove(cancelled) {
                            self.release(dir, &w);
                            self.remember(dir, IdKey::of(cancelled));
                        }
                    }
                    let stray_progress = self.tracks_progress()
                        && o.method == Some(mcp::methods::PROGRESS)
                        && o.progress_token
                            .is_some_and(|token| !self.progress_is_active(dir, token));
                    if stray_progress {
                        self.flag(dir, Violation::UnknownProgress)
                    } else if self.stream_is_closed(dir, o.subscription) {
                        self.flag(dir, Violation::UnknownSubscription)
                    } else {
                        None
                    }
                }
            }
            "success_response" | "error_response" => {
                if let Some(code) = o.error_code {
                    *self.counters.errors_by_code.entry((dir, code)).or_default() += 1;
                }
                // A null id answers nothing, but a JSON-RPC request whose id was null (§5: the
                // response's id is the request's).
                let asked = dir.other();
                let id =
                    o.id.filter(|id| !id.is_null() || self.waiting[slot(asked)].contains(*id));
                // A reply answers an invalid element of a batch after a request of its id sent
                // in a batch (an owed reply the receiver never sent must not take a request's),
                // an error in an array before one sent alone (which is answered alone). A
                // success answers an owed reply only when no request of its id waits, as a
                // violation (`owed_answered_by`). With a null id, only inside an array (§6: the
                // receiver answers a batch with an array; alone, it answers a notification);
                // with the element's id, alone too (as a request of a batch answered alone is
                // matched): the element is owed nothing more, and does not get a second reply
                // from the proxy.
                let owed_error = in_batch && o.kind == "error_response";
                match id {
                    None if in_batch && self.take_owed_reply(asked, None) => {
                        self.owed_answered_by(dir, o.kind)
                    }
                    None if in_batch
                        && asked == Dir::C2s
                        && self.late_owed.take(None).is_some() =>
                    {
                        // Owed to an element of a batch that timed out: the proxy answered it.
                        forward = false;
                        self.flag(dir, Violation::LateReply)
                    }
                    None => {
                        // Every valid request the proxy forwards has an id, so this answers a
                        // notification: nobody can match it.
                        forward = self.dialect == Dialect::JsonRpc2;
                        self.flag(dir, Violation::ReplyWithoutId)
                    }
                    Some(id)
                        if owed_error
                            && self.waiting[slot(asked)]
                                .get(id)
                                .is_some_and(|w| !w.in_batch)
                            && self.take_owed_reply(asked, Some(&IdKey::of(id))) =>
                    {
                        None
                    }
                    Some(id) => {
                        if let Some((_, w)) = self.waiting[slot(asked)].remove(id) {
                            self.release(asked, &w);
                            if dir == Dir::S2c && self.forget_initialize(id) {
                                self.protocol_version = o.protocol_version.map(str::to_string);
                            }
                            if dir == Dir::S2c && w.names_version {
                                self.adopt_request_version(o.kind);
                            }
                            let invalid_tools = w.lists_tools
                                && o.kind == "success_response"
                                && o.invalid_tools.is_some()
                                && has_tool_headers(self.protocol_version.as_deref());
                            if invalid_tools {
                                self.flag(dir, Violation::InvalidToolHeaders)
                            } else {
                                None
                            }
                        } else if self.take_owed_reply(asked, Some(&IdKey::of(id))) {
                            self.owed_answered_by(dir, o.kind)
                        } else if asked == Dir::C2s
                            && self.late_owed.take(Some(&IdKey::of(id))).is_some()
                        {
                            // The same, with the element's id.
                            forward = false;
                            self.flag(dir, Violation::LateReply)
                        } else if self.recent[slot(asked)].contains(&IdKey::of(id)) {
                            forward = false;
                            self.flag(dir, Violation::LateReply)
                        } else {
                            // A second reply, or one to an id nobody sent: the peer cannot
                            // match it (MCP); JSON-RPC leaves it to the peer.
                            forward = self.dialect == Dialect::JsonRpc2;
                            self.flag(dir, Violation::UnknownReply)
                        }
                    }
                }
            }
            other => {
                forward = false;
                self.flag(dir, rejected_violation(other))
            }
        };
        Verdict { forward, violation }
    }

    /// The violation of a reply of `kind`, sent in `dir`, that took a reply owed to an invalid
    /// batch element: none for an error, the -32600 owed; a success means the peer took the
    /// invalid element for a request. Either way it is the element's one reply: forwarded, and
    /// the element is owed nothing more (the proxy does not answer it again at its batch's
    /// deadline, nor does a later null-id error find it still owed).
    fn owed_answered_by(&mut self, dir: Dir, kind: &str) -> Option<Violation> {
        match kind {
            "success_response" => self.flag(dir, Violation::SuccessToInvalid),
            _ => None,
        }
    }

    /// Client requests and batches whose deadline passed by `now_ms`: their requests still
    /// waiting removed, remembered for late replies, counted as timed out; a batch's owed
    /// replies no longer owed (the caller answers them).
    pub fn expire(&mut self, now_ms: u64) -> Vec<Timeout> {
        self.close_batch();
        let mut out = vec![];
        while self.deadlines.peek().is_some_and(|d| d.0.at <= now_ms) {
            let Some(Reverse(Deadline { seq, of, .. })) = self.deadlines.pop() else {
                break;
            };
            match of {
                DeadlineOf::Request(id) => {
                    let waits = self.waiting[slot(Dir::C2s)].get(id.as_id());
                    if waits.is_some_and(|w| w.seq == seq) {
                        out.extend(self.expire_request(id.as_id()).map(Timeout::Request));
                    }
                }
                DeadlineOf::Batch(no) => {
                    let (requests, owed) = self.take_rest_of_batch(no);
                    let requests: Vec<Expired> = requests
                        .into_iter()
                        .map(|(id, w)| self.timed_out(id, w))
                        .collect();
                    if !requests.is_empty() || !owed.is_empty() {
                        out.push(Timeout::Batch { requests, owed });
                    }
                }
            }
        }
        out
    }

    /// A client request timed out: removed, remembered for a late reply, counted.
    fn expire_request(&mut self, id: Id<'_>) -> Option<Expired> {
        let (id, w) = self.stop_waiting(id)?;
        Some(self.timed_out(id, w))
    }

    /// A client request the proxy answers itself (it timed out, or a dropped batch answered
    /// it): removed, released, remembered for a late reply.
    fn stop_waiting(&mut self, id: Id<'_>) -> Option<(IdBuf, Waiting)> {
        let (id, w) = self.waiting[slot(Dir::C2s)].remove(id)?;
        self.release(Dir::C2s, &w);
        self.remember(Dir::C2s, IdKey::of(id.as_id()));
        Some((id, w))
    }

    /// A client request, no longer waiting ([`Session::stop_waiting`]), timed out: counted.
    fn timed_out(&mut self, id: IdBuf, w: Waiting) -> Expired {
        let was_initialize = self.forget_initialize(id.as_id());
        self.flag(Dir::C2s, Violation::TimedOut);
        Expired {
            id,
            method: w.method,
            // Never for a request of a batch: batches are JSON-RPC's, which has no
            // cancellation.
            cancel_on_server: self.dialect == Dialect::Mcp && !was_initialize,
        }
    }

    /// The reply owed to an invalid element of a client batch is answered by the proxy at the
    /// batch's deadline ([`Session::expire`]; replaying a proxy log, where the log recorded
    /// it): owed no more, and the server's, coming later, is late. `id`: the id the reply
    /// carries (`None`: null). Returns whether it was owed.
    pub fn forget_owed_reply(&mut self, id: Option<Id<'_>>) -> bool {
        self.forget_owed(id, None)
    }

    /// [`Session::forget_owed_reply`], for an element of `batch` only (any: `None`). The
    /// server's reply, coming later in an array, is late once: with the element's id, or with
    /// a null one (§5.1 lets a server answer an invalid request so).
    fn forget_owed(&mut self, id: Option<Id<'_>>, batch: Option<u64>) -> bool {
        let key = id.map(IdKey::of);
        let owed = &mut self.owed_element_replies[slot(Dir::C2s)];
        if !owed.forget(key.as_ref(), batch) {
            return false;
        }
        let bytes = key.as_ref().map_or(0, IdKey::encoded_len);
        if self.late_owed.bytes + bytes <= RECENT_BYTES {
            self.late_owed.push(key.clone(), 0, RECENT);
        }
        if let Some(key) = key {
            self.remember(Dir::C2s, key);
        }
        true
    }

    /// A reply from the server, of `kind`, to a request that named its version: a success
    /// makes the version the latest request named the session's.
    fn adopt_request_version(&mut self, kind: &str) {
        if kind == "success_response" && self.protocol_version.is_none() {
            self.protocol_version = self.request_version.take();
        }
    }

    /// Whether a reply sent in `dir` with the id `id` answers a client's `tools/list` under
    /// MCP 2026-07-28 or later: the version the session knows, or the one the request named
    /// in its `_meta` while the session read them, which this reply, a success, makes the
    /// session's. With no version known at all, no: the annotations are an unknown keyword
    /// before 2026-07-28, and a session that never said its version may be earlier. The proxy
    /// reads the tools' annotations ([`invalid_tool_headers`]) only when this holds; while no
    /// `tools/list` waits it answers without a lookup.
    pub fn reads_tool_headers(&self, dir: Dir, id: Option<Id<'_>>) -> bool {
        if self.tools_lists_waiting == 0 || dir != Dir::S2c {
            return false;
        }
        let Some(w) = id.and_then(|id| self.waiting[slot(Dir::C2s)].get(id)) else {
            return false;
        };
        let version = match &self.protocol_version {
            Some(version) => Some(version),
            None if w.names_version => self.request_version.as_ref(),
            None => None,
        };
        w.lists_tools && has_tool_headers(version.map(String::as_str))
    }

    /// Whether a server's notification of a listen stream (`subscription`: the listen
    /// request's id) comes when no such client request is waiting (MCP only): none of that
    /// id, or one of another method.
    fn stream_is_closed(&self, dir: Dir, subscription: Option<Id<'_>>) -> bool {
        let is_listen = |id| {
            self.waiting[slot(Dir::C2s)]
                .get(id)
                .is_some_and(|w| &*w.method == mcp::methods::SUBSCRIPTIONS_LISTEN)
        };
        self.dialect == Dialect::Mcp
            && dir == Dir::S2c
            && subscription.is_some_and(|id| !is_listen(id))
    }

    /// Whether a client request of `method` is a stream that waits as long as it is open: MCP
    /// 2026-07-28's `subscriptions/listen`, whose result closes it (no timeout applies).
    fn is_stream(&self, method: &str) -> bool {
        self.dialect == Dialect::Mcp
            && method == mcp::methods::SUBSCRIPTIONS_LISTEN
            && self
                .protocol_version
                .as_deref()
                .is_none_or(|v| mcp::versions::is_at_least(v, mcp::versions::V2026_07_28))
    }

    /// Whether `id` is the client's `initialize` request, still waiting.
    fn is_initialize(&self, id: Id<'_>) -> bool {
        self.initialize
            .as_ref()
            .is_some_and(|k| *k == IdKey::of(id))
    }

    /// A client request stopped waiting (answered, timed out): when it was `initialize`, no
    /// reply to it is awaited any more. Returns whether it was.
    fn forget_initialize(&mut self, id: Id<'_>) -> bool {
        let was = self.is_initialize(id);
        if was {
            self.initialize = None;
        }
        was
    }

    /// The rules the session applies.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Whether progress tokens are checked (MCP only: JSON-RPC has no progress notifications).
    pub fn tracks_progress(&self) -> bool {
        self.dialect == Dialect::Mcp
    }

    /// Whether a `notifications/progress` sent in `dir` reports on the token of a request
    /// waiting from the other side.
    pub fn progress_is_active(&self, dir: Dir, token: Id<'_>) -> bool {
        self.progress_tokens[slot(dir.other())].contains_key(&IdKey::of(token))
    }

    /// How many requests sent in `dir` stopped waiting so far (answered, cancelled, timed
    /// out): a count that moves whenever one does.
    pub fn stopped_waiting(&self, dir: Dir) -> u64 {
        self.stopped_waiting[slot(dir)]
    }

    /// Whether the request `id` sent in direction `requester` is still waiting for its reply.
    pub fn is_waiting(&self, requester: Dir, id: Id<'_>) -> bool {
        self.waiting[slot(requester)].contains(id)
    }

    /// A client request timed out at a time recorded elsewhere (replaying a proxy log): as
    /// [`Session::expire`] for that one id. Returns whether it was waiting.
    pub fn time_out(&mut self, id: Id<'_>) -> bool {
        self.expire_request(id).is_some()
    }

    /// The session ended: every request still waiting is unanswered.
    pub fn finish(&mut self) -> Vec<(Dir, IdBuf, Arc<str>)> {
        let mut out = vec![];
        for dir in [Dir::C2s, Dir::S2c] {
            let left: Vec<_> = self.waiting[slot(dir)].drain().collect();
            for (id, w) in left {
                // An open listen stream ends with the session: nothing was owed.
                if dir == Dir::C2s && self.is_stream(&w.method) {
                    continue;
                }
                self.flag(dir, Violation::Unanswered);
                out.push((dir, id, w.method));
            }
        }
        self.deadlines.clear();
        self.tools_lists_waiting = 0;
        self.open_batch = None;
        self.batches.clear();
        self.progress_tokens = [HashMap::new(), HashMap::new()];
        // Not reported: the invalid elements were, when they were sent.
        self.owed_element_replies = [OwedReplies::default(), OwedReplies::default()];
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observation<'a>(kind: &'a str, id: Id<'a>, method: Option<&'a str>) -> Observation<'a> {
        Observation {
            kind,
            id: Some(id),
            method,
            error_code: None,
            cancels: None,
            protocol_version: None,
            progress_token: None,
            subscription: None,
            invalid_tools: None,
        }
    }

    /// Past the limit of requests in flight, a request is refused (not forwarded: its reply
    /// could not be matched), a reused id is still a duplicate, and a reply makes room.
    #[test]
    fn requests_beyond_the_limit_are_refused() {
        let mut session = Session::with_max_in_flight(Dialect::Mcp, None, 2);
        let request = |session: &mut Session, token| {
            let v = session.observe(
                Dir::C2s,
                &observation("request", id(token), Some("ping")),
                0,
            );
            (v.forward, v.violation)
        };
        assert_eq!(request(&mut session, "1"), (true, None));
        assert_eq!(request(&mut session, "2"), (true, None));
        assert_eq!(
            request(&mut session, "3"),
            (false, Some(Violation::TooManyInFlight))
        );
        assert_eq!(
            request(&mut session, "1"),
            (false, Some(Violation::DuplicateId))
        );
        let reply = session.observe(Dir::S2c, &observation("success_response", id("3"), None), 0);
        assert_eq!(reply.violation, Some(Violation::UnknownReply));
        session.observe(Dir::S2c, &observation("success_response", id("1"), None), 0);
        assert_eq!(request(&mut session, "3"), (true, None));
        // The other direction has its own limit.
        let v = session.observe(Dir::S2c, &observation("request", id("1"), Some("ping")), 0);
        assert_eq!((v.forward, v.violation), (true, None));
    }

    /// A busy session with a long timeout: answered requests do not keep their deadlines,
    /// and the ones still waiting time out as before.
    #[test]
    fn deadlines_of_answered_requests_are_dropped() {
        let mut session = Session::new(Dialect::Mcp, Some(60_000));
        for n in 0..10_000u32 {
            let token = n.to_string();
            let id = Id::from_token(token.as_bytes()).unwrap();
            session.observe(Dir::C2s, &observation("request", id, Some("ping")), 0);
            if n % 100 != 0 {
                session.observe(Dir::S2c, &observation("success_response", id, None), 1);
            }
            let live = session.waiting[slot(Dir::C2s)].len();
            assert!(
                session.deadlines.len() <= 2 * live + 65,
                "{n}: {}",
                session.deadlines.len()
            );
        }
        let expired = session.expire(60_000);
        let mut ids: Vec<_> = expired
            .iter()
            .map(|t| match t {
                Timeout::Request(e) => e.id.as_id().raw().to_vec(),
                Timeout::Batch { .. } => panic!("no batch was sent"),
            })
            .collect();
        ids.sort();
        let mut want: Vec<_> = (0..10_000u32)
            .step_by(100)
            .map(|n| n.to_string().into_bytes())
            .collect();
        want.sort();
        assert_eq!(ids, want);
        assert!(session.deadlines.is_empty());
    }

    /// JSON-RPC batches: each element is tracked as a message of its own; a null-id error
    /// reply answers an invalid element (owed), and a batch of late replies only is dropped.
    #[test]
    fn batch_elements_are_tracked_one_by_one() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(100));
        let batch = without_id("batch", None);
        let invalid = without_id("invalid", None);
        // A batch of two requests and an invalid element.
        session.observe(Dir::C2s, &batch, 0);
        let sent: Vec<Verdict> = [
            observation("request", id("1"), Some("a")),
            observation("request", id("2"), Some("b")),
            invalid,
        ]
        .iter()
        .map(|o| session.observe_element(Dir::C2s, o, 0))
        .collect();
        assert_eq!(
            sent.iter().map(|v| v.violation).collect::<Vec<_>>(),
            [None, None, Some(Violation::Invalid)]
        );
        assert!(sent.iter().any(|v| v.forward));
        assert!(session.is_waiting(Dir::C2s, id("1")));
        // The reply: 1, the owed -32600 with a null id, and 1 again.
        session.observe(Dir::S2c, &batch, 1);
        let mut owed = observation("error_response", id("null"), None);
        owed.error_code = Some(-32600);
        let replies: Vec<Option<Violation>> = [
            observation("success_response", id("1"), None),
            owed,
            observation("success_response", id("1"), None),
        ]
        .iter()
        .map(|o| session.observe_element(Dir::S2c, o, 1).violation)
        .collect();
        assert_eq!(replies, [None, None, Some(Violation::UnknownReply)]);
        // A second null-id error reply is owed to nobody.
        let v = session.observe(Dir::S2c, &owed, 1);
        assert_eq!(v.violation, Some(Violation::ReplyWithoutId));
        // Its reply, in an array or alone, matches 2 while it waits.
        session.observe(Dir::S2c, &batch, 50);
        let reply = session.observe_element(
            Dir::S2c,
            &observation("success_response", id("2"), None),
            50,
        );
        assert_eq!((reply.forward, reply.violation), (true, None));
        assert!(session.batch_forwards(Dir::S2c));
        // Everything of the batch was answered: nothing times out.
        assert!(session.expire(100).is_empty());
        assert_eq!(session.counters.messages[&(Dir::C2s, "request")], 2);
        assert_eq!(session.counters.messages[&(Dir::S2c, "batch")], 2);
        assert!(session.finish().is_empty());
    }

    /// A batch from the server with an invalid element is dropped whole, and its elements
    /// have no effect: the reply in it leaves its request waiting (to time out), the request
    /// in it is not tracked.
    #[test]
    fn a_dropped_batch_has_no_effect() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(100));
        session.observe(Dir::C2s, &observation("request", id("1"), Some("a")), 0);
        let elements = [
            observation("success_response", id("1"), None),
            observation("request", id("9"), Some("ask")),
            without_id("invalid", None),
        ];
        assert!(Session::drops_batch(
            Dir::S2c,
            elements.iter().map(|o| o.kind)
        ));
        assert!(!Session::drops_batch(
            Dir::C2s,
            elements.iter().map(|o| o.kind)
        ));
        let batch_obs = without_id("batch", None);
        session.observe(Dir::S2c, &batch_obs, 1);
        session.drop_batch(Dir::S2c);
        let violations: Vec<_> = elements
            .iter()
            .map(|o| session.observe_element(Dir::S2c, o, 1).violation)
            .collect();
        assert_eq!(violations, [None, None, Some(Violation::Invalid)]);
        assert!(!session.batch_forwards(Dir::S2c));
        assert!(session.is_waiting(Dir::C2s, id("1")));
        assert!(!session.is_waiting(Dir::S2c, id("9")));
        assert_eq!(session.expire(100).len(), 1);
        // The next batch is not dropped.
        session.observe(Dir::S2c, &batch_obs, 2);
        let v = session.observe_element(Dir::S2c, &elements[1], 2);
        assert!(v.forward && session.batch_forwards(Dir::S2c));
    }

    /// Replies owed to invalid elements are bounded like the requests in flight, not by the
    /// memory of recent ids: a batch of 5,000 invalid elements gets its 5,000 replies matched.
    #[test]
    fn owed_replies_are_bounded_like_requests_in_flight() {
        let mut session = Session::new(Dialect::JsonRpc2, None);
        let invalid = without_id("invalid", None);
        let mut error = observation("error_response", id("null"), None);
        error.error_code = Some(-32600);
        batch(&mut session, Dir::C2s, &vec![invalid; 5000]);
        let verdicts = batch(&mut session, Dir::S2c, &vec![error; 5000]);
        assert!(verdicts.iter().all(|v| v.violation.is_none()));
        let mut small = Session::with_max_in_flight(Dialect::JsonRpc2, None, 2);
        batch(&mut small, Dir::C2s, &[invalid, invalid, invalid]);
        let verdicts = batch(&mut small, Dir::S2c, &[error, error, error]);
        let unmatched = verdicts.iter().filter(|v| v.violation.is_some()).count();
        assert_eq!(unmatched, 1);
    }

    /// A client request of `method` naming MCP 2026-07-28 in its `_meta`.
    fn versioned(n: &'static str, method: &'static str) -> Observation<'static> {
        Observation {
            protocol_version: Some("2026-07-28"),
            ..observation("request", id(n), Some(method))
        }
    }

    fn id(token: &'static str) -> Id<'static> {
        Id::from_token(token.as_bytes()).unwrap()
    }

    /// The client sends request `n` of `method` at time `t`.
    fn request(session: &mut Session, n: &'static str, method: &'static str, t: u64) {
        session.observe(Dir::C2s, &observation("request", id(n), Some(method)), t);
    }

    /// The client's `initialize` (request `n`, sent at time `sent`), answered with `version`
    /// at time `answered`.
    fn negotiate(
        session: &mut Session,
        n: &'static str,
        version: &'static str,
        sent: u64,
        answered: u64,
    ) {
        request(session, n, "initialize", sent);
        let negotiated = Observation {
            protocol_version: Some(version),
            ..observation("success_response", id(n), None)
        };
        session.observe(Dir::S2c, &negotiated, answered);
    }

    /// An observation of `kind` without an id (a batch, a notification, an element whose id
    /// could not be read).
    fn without_id<'a>(kind: &'a str, method: Option<&'a str>) -> Observation<'a> {
        Observation {
            id: None,
            ..observation(kind, id("0"), method)
        }
    }

    /// Observes a batch of `elements` travelling in `dir`; their verdicts.
    fn batch(session: &mut Session, dir: Dir, elements: &[Observation<'_>]) -> Vec<Verdict> {
        let batch = without_id("batch", None);
        session.observe(dir, &batch, 0);
        elements
            .iter()
            .map(|o| session.observe_element(dir, o, 0))
            .collect()
    }

    /// A reply owed to an invalid batch element is taken only by an error inside an array:
    /// one the server never sends does not hide a later null-id error to a notification.
    #[test]
    fn an_owed_reply_comes_in_an_array() {
        let mut session = Session::new(Dialect::JsonRpc2, None);
        let invalid = without_id("invalid", None);
        batch(&mut session, Dir::C2s, &[invalid]);
        let note = without_id("notification", Some("n"));
        session.observe(Dir::C2s, &note, 1);
        let mut error = observation("error_response", id("null"), None);
        error.error_code = Some(-32601);
        let v = session.observe(Dir::S2c, &error, 2);
        assert_eq!(v.violation, Some(Violation::ReplyWithoutId));
        // Inside an array it is the owed reply.
        let verdicts = batch(&mut session, Dir::S2c, &[error]);
        assert_eq!(verdicts[0].violation, None);
        assert!(session.batch_forwards(Dir::S2c));
    }

    /// An error in an array with the id of a request in flight answers that request, before
    /// an owed reply of the same id: the receiver may never have sent that one (it took the
    /// invalid element for a response), and a stale owed entry must not take a request's
    /// reply (the request would then time out with its reply already forwarded).
    #[test]
    fn a_request_in_flight_is_matched_before_an_owed_reply() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(100));
        batch(
            &mut session,
            Dir::C2s,
            &[observation("invalid", id("5"), None)],
        );
        batch(
            &mut session,
            Dir::C2s,
            &[observation("request", id("5"), Some("missing"))],
        );
        let mut error = observation("error_response", id("5"), None);
        error.error_code = Some(-32601);
        let verdicts = batch(&mut session, Dir::S2c, &[error]);
        assert_eq!(verdicts[0].violation, None);
        assert!(!session.is_waiting(Dir::C2s, id("5")));
        // The owed reply is still expected.
        assert!(session.owes_element_reply(Dir::C2s, Some(id("5"))));
    }

    /// MCP's `initialize` and protocol version mean nothing under plain JSON-RPC: a result
    /// with `protocolVersion` 2026-07-28 to a request named `initialize` does not forbid the
    /// server's requests.
    #[test]
    fn jsonrpc_has_no_initialize() {
        let mut session = Session::new(Dialect::JsonRpc2, None);
        session.observe(
            Dir::C2s,
            &observation("request", id("1"), Some("initialize")),
            0,
        );
        let mut reply = observation("success_response", id("1"), None);
        reply.protocol_version = Some("2026-07-28");
        session.observe(Dir::S2c, &reply, 1);
        let v = session.observe(Dir::S2c, &observation("request", id("9"), Some("x")), 2);
        assert_eq!((v.forward, v.violation), (true, None));
    }

    /// A server's notification of a listen stream is expected while the client's listen
    /// request waits; after its result or cancellation, or naming a request never sent, it is
    /// flagged (and forwarded). Only from the server, only under MCP.
    #[test]
    fn listen_stream_notifications_need_an_open_stream() {
        let event = |stream: &'static str| Observation {
            subscription: Some(id(stream)),
            ..without_id("notification", Some("notifications/tools/list_changed"))
        };
        let mut session = Session::new(Dialect::Mcp, None);
        let listen = observation("request", id("7"), Some("subscriptions/listen"));
        session.observe(Dir::C2s, &listen, 0);
        let open = session.observe(Dir::S2c, &event("7"), 1);
        assert_eq!((open.forward, open.violation), (true, None));
        let never = session.observe(Dir::S2c, &event("8"), 2);
        let flagged = (true, Some(Violation::UnknownSubscription));
        assert_eq!((never.forward, never.violation), flagged);
        assert_eq!(
            session.observe(Dir::C2s, &event("8"), 3).violation,
            None,
            "from the client"
        );
        session.observe(Dir::S2c, &observation("success_response", id("7"), None), 4);
        let closed = session.observe(Dir::S2c, &event("7"), 5);
        assert_eq!((closed.forward, closed.violation), flagged);

        let mut session = Session::new(Dialect::JsonRpc2, None);
        assert_eq!(session.observe(Dir::S2c, &event("7"), 0).violation, None);
    }

    /// A listen stream is opened by a `subscriptions/listen` request only: a notification
    /// naming another request of the client's, still waiting, is flagged too.
    /// A listen stream still open when the session ends is no unanswered request: it ends
    /// with the session. Another request is.
    #[test]
    fn an_open_listen_stream_ends_with_the_session() {
        let mut session = Session::new(Dialect::Mcp, None);
        for (n, method) in [("1", "subscriptions/listen"), ("2", "tools/call")] {
            session.observe(Dir::C2s, &observation("request", id(n), Some(method)), 0);
        }
        let left: Vec<_> = session.finish().into_iter().map(|(_, _, m)| m).collect();
        assert_eq!(left, [Arc::from("tools/call")]);
        assert_eq!(session.counters.total_violations(), 1);
    }

    #[test]
    fn a_stream_names_a_listen_request() {
        let mut session = Session::new(Dialect::Mcp, None);
        session.observe(
            Dir::C2s,
            &observation("request", id("5"), Some("tools/call")),
            0,
        );
        let event = Observation {
            subscription: Some(id("5")),
            ..without_id("notification", Some("notifications/tools/list_changed"))
        };
        let v = session.observe(Dir::S2c, &event, 1);
        assert_eq!(
            (v.forward, v.violation),
            (true, Some(Violation::UnknownSubscription))
        );
    }

    /// `subscriptions/listen` waits with no deadline while the version is unknown or from
    /// 2026-07-28 on (learnt from a request's `_meta` too); under an earlier negotiated version
    /// it is a request like any other, and times out.
    #[test]
    fn listen_has_no_deadline_from_2026_07_28_only() {
        let timed_out = |session: &mut Session| {
            session.observe(Dir::C2s, &versioned("7", "subscriptions/listen"), 100);
            !session.expire(1_000).is_empty()
        };
        assert!(
            !timed_out(&mut Session::new(Dialect::Mcp, Some(10))),
            "unknown"
        );

        let mut session = Session::new(Dialect::Mcp, Some(10));
        session.observe(Dir::C2s, &versioned("1", "server/discover"), 0);
        session.observe(Dir::S2c, &observation("success_response", id("1"), None), 1);
        assert_eq!(session.protocol_version(), Some("2026-07-28"));
        assert!(!timed_out(&mut session), "2026-07-28");

        let mut session = Session::new(Dialect::Mcp, Some(10));
        negotiate(&mut session, "1", "2025-11-25", 0, 1);
        assert!(timed_out(&mut session), "2025-11-25");

        assert!(
            timed_out(&mut Session::new(Dialect::JsonRpc2, Some(10))),
            "plain JSON-RPC"
        );
    }

    /// MCP 2026-07-28 has no `initialize`: each request names its version in `_meta`. The
    /// version becomes the session's when the server answers such a request with a success
    /// (the server's requests are then forbidden); a probe the server refuses leaves the
    /// version to the `initialize` handshake the client falls back to.
    #[test]
    fn per_request_version_once_the_server_accepts_it() {
        let server_request = |session: &mut Session| {
            let v = session.observe(Dir::S2c, &observation("request", id("91"), Some("x")), 9);
            (v.forward, v.violation)
        };

        // Accepted: the version is the session's from the success on.
        let mut session = Session::new(Dialect::Mcp, None);
        assert!(session.reads_request_versions());
        session.observe(Dir::C2s, &versioned("1", "server/discover"), 0);
        assert_eq!(session.protocol_version(), None, "not before the reply");
        assert!(session.reads_request_versions());
        session.observe(Dir::C2s, &versioned("2", "tools/list"), 1);
        session.observe(Dir::S2c, &observation("success_response", id("2"), None), 2);
        assert_eq!(session.protocol_version(), Some("2026-07-28"));
        assert!(!session.reads_request_versions(), "known");
        let forbidden = (false, Some(Violation::ServerRequestForbidden));
        assert_eq!(server_request(&mut session), forbidden);

        // Refused, then the handshake: the handshake's version.
        let mut session = Session::new(Dialect::Mcp, None);
        session.observe(Dir::C2s, &versioned("1", "server/discover"), 0);
        let mut refused = observation("error_response", id("1"), None);
        refused.error_code = Some(-32601);
        session.observe(Dir::S2c, &refused, 1);
        assert_eq!(session.protocol_version(), None);
        negotiate(&mut session, "2", "2025-11-25", 2, 3);
        assert_eq!(session.protocol_version(), Some("2025-11-25"));
        assert_eq!(server_request(&mut session), (true, None));
        // A later request naming another version changes nothing.
        session.observe(Dir::C2s, &versioned("3", "tools/list"), 4);
        session.observe(Dir::S2c, &observation("success_response", id("3"), None), 5);
        assert_eq!(session.protocol_version(), Some("2025-11-25"));

        // A client whose requests name no version is not speaking 2026-07-28: its requests
        // are not read for one any more.
        let mut session = Session::new(Dialect::Mcp, None);
        session.observe(
            Dir::C2s,
            &observation("request", id("1"), Some("tools/list")),
            0,
        );
        assert!(!session.reads_request_versions());

        // Plain JSON-RPC has no protocol version.
        let mut session = Session::new(Dialect::JsonRpc2, None);
        session.observe(Dir::C2s, &versioned("1", "x"), 0);
        session.observe(Dir::S2c, &observation("success_response", id("1"), None), 1);
        assert_eq!(session.protocol_version(), None);
        assert!(!session.reads_request_versions());
    }

    /// A server's success to a client's `tools/list` that lists tools with invalid
    /// `x-mcp-header` annotations is flagged (and forwarded) from MCP 2026-07-28 on: the
    /// session's version, or the one the request named (made the session's by this very
    /// success). Not under an earlier version, nor with none known, nor for an error, another
    /// method's reply, or plain JSON-RPC. The proxy reads the tools only
    /// when `reads_tool_headers` says so.
    #[test]
    fn invalid_tool_headers_from_2026_07_28_only() {
        let listed = |n: &'static str| Observation {
            invalid_tools: Some("tool \"t\": x-mcp-header is not a string"),
            ..observation("success_response", id(n), None)
        };
        let flagged = (true, Some(Violation::InvalidToolHeaders));
        let verdict = |session: &mut Session, dir, o: &Observation<'_>| {
            let v = session.observe(dir, o, 0);
            (v.forward, v.violation)
        };

        // The request's own version, which its success makes the session's.
        let mut session = Session::new(Dialect::Mcp, None);
        session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
        assert!(session.reads_tool_headers(Dir::S2c, Some(id("1"))));
        assert!(
            !session.reads_tool_headers(Dir::C2s, Some(id("1"))),
            "from the client"
        );
        assert!(
            !session.reads_tool_headers(Dir::S2c, Some(id("2"))),
            "not waiting"
        );
        assert_eq!(verdict(&mut session, Dir::S2c, &listed("1")), flagged);
        assert!(
            !session.reads_tool_headers(Dir::S2c, Some(id("1"))),
            "answered"
        );
        // Known now: a later one too, and every tool valid is no violation.
        request(&mut session, "2", "tools/list", 0);
        assert!(session.reads_tool_headers(Dir::S2c, Some(id("2"))));
        let valid = observation("success_response", id("2"), None);
        assert_eq!(verdict(&mut session, Dir::S2c, &valid), (true, None));
        // An error answers it; another method's result is not a tool list.
        request(&mut session, "3", "tools/list", 0);
        let mut error = listed("3");
        (error.kind, error.error_code) = ("error_response", Some(-32603));
        assert_eq!(verdict(&mut session, Dir::S2c, &error), (true, None));
        request(&mut session, "4", "tools/call", 0);
        assert!(!session.reads_tool_headers(Dir::S2c, Some(id("4"))));
        assert_eq!(verdict(&mut session, Dir::S2c, &listed("4")), (true, None));

        // Under 2025-11-25 the annotation is an unknown keyword.
        let mut session = Session::new(Dialect::Mcp, None);
        negotiate(&mut session, "0", "2025-11-25", 0, 0);
        request(&mut session, "1", "tools/list", 0);
        assert!(!session.reads_tool_headers(Dir::S2c, Some(id("1"))));
        assert_eq!(verdict(&mut session, Dir::S2c, &listed("1")), (true, None));

        // No version known at all: not flagged (it may be an earlier session).
        let mut session = Session::new(Dialect::Mcp, None);
        request(&mut session, "1", "tools/list", 0);
        assert!(!session.reads_tool_headers(Dir::S2c, Some(id("1"))));
        assert_eq!(verdict(&mut session, Dir::S2c, &listed("1")), (true, None));

        // A tools/list that stopped waiting otherwise (cancelled) is not read for.
        let mut session = Session::new(Dialect::Mcp, None);
        session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
        let cancel = Observation {
            cancels: Some(id("1")),
            ..without_id("notification", Some("notifications/cancelled"))
        };
        session.observe(Dir::C2s, &cancel, 0);
        assert!(!session.reads_tool_headers(Dir::S2c, Some(id("1"))));
        assert_eq!(session.tools_lists_waiting, 0);

        let mut session = Session::new(Dialect::JsonRpc2, None);
        session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
        assert!(!session.reads_tool_headers(Dir::S2c, Some(id("1"))));
        assert_eq!(verdict(&mut session, Dir::S2c, &listed("1")), (true, None));
    }

    /// What `invalid_tool_headers` reads of a `tools/list` result: each invalid tool named
    /// with why, in order (one without a name said so), the first eight only and the rest
    /// counted; a valid tool, one without `inputSchema` and a `tools` that is no array say
    /// nothing.
    #[test]
    fn invalid_tools_are_named_with_why() {
        let decoder = rpcwire::Decoder::new(rpcwire::DecodeOptions::new(Dialect::Mcp));
        let read = |tools: &str| {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":{tools}}}}}"#);
            invalid_tool_headers(&decoder.decode(frame.as_bytes()).unwrap())
        };
        let tool = |name: &str, header: &str| {
            format!(
                r#"{{{name}"inputSchema":{{"properties":{{"p":{{"type":"string","x-mcp-header":"{header}"}}}}}}}}"#
            )
        };
        let bad = |n: usize| tool(&format!(r#""name":"t{n}","#), "a b");
        let why =
            r#"x-mcp-header is not an HTTP field-name token (x-mcp-header "a b" on property "p")"#;
        assert_eq!(read("[]"), None);
        assert_eq!(read(&format!("[{}]", tool(r#""name":"ok","#, "Ok"))), None);
        assert_eq!(read(r#"[{"name":"no schema"},1]"#), None);
        assert_eq!(read(&format!(r#"{{"t":{}}}"#, bad(0))), None, "no array");
        assert_eq!(
            read(&format!("[{},{}]", tool("", "a b"), bad(1))),
            Some(format!("a tool without a name: {why}; tool \"t1\": {why}"))
        );
        let many: Vec<String> = (0..11).map(bad).collect();
        let named: Vec<String> = (0..8).map(|n| format!("tool \"t{n}\": {why}")).collect();
        assert_eq!(
            read(&format!("[{}]", many.join(","))),
            Some(format!("{}; 3 more", named.join("; ")))
        );
        let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#;
        assert_eq!(invalid_tool_headers(&decoder.decode(error).unwrap()), None);
    }

    /// A client may send its next request before the server answers the last: a success to
    /// any request that named the version tells it, not only to the latest (a listen stream
    /// opened meanwhile is answered only when it closes).
    #[test]
    fn a_request_version_from_an_earlier_request() {
        let mut session = Session::new(Dialect::Mcp, None);
        session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
        session.observe(Dir::C2s, &versioned("2", "subscriptions/listen"), 1);
        session.observe(Dir::S2c, &observation("success_response", id("1"), None), 2);
        assert_eq!(session.protocol_version(), Some("2026-07-28"));

        // A request that timed out (or was cancelled) tells nothing by its late reply.
        let mut session = Session::new(Dialect::Mcp, Some(10));
        session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
        session.expire(20);
        session.observe(
            Dir::S2c,
            &observation("success_response", id("1"), None),
            21,
        );
        assert_eq!(session.protocol_version(), None);
    }

    /// The session takes a request's version only while [`Session::reads_request_versions`]
    /// holds, as the proxy reads them only then: a merged check, whose records name every
    /// request's version, must not learn one the proxy never read (a client whose first
    /// request named none, then a request naming one, answered with a success).
    #[test]
    fn no_request_version_after_an_unversioned_request() {
        let mut session = Session::new(Dialect::Mcp, None);
        session.observe(
            Dir::C2s,
            &observation("request", id("1"), Some("tools/list")),
            0,
        );
        assert!(!session.reads_request_versions());
        let versioned = Observation {
            protocol_version: Some("2026-07-28"),
            ..observation("request", id("2"), Some("tools/list"))
        };
        session.observe(Dir::C2s, &versioned, 1);
        session.observe(Dir::S2c, &observation("success_response", id("2"), None), 2);
        assert_eq!(session.protocol_version(), None);
        let v = session.observe(Dir::S2c, &observation("request", id("9"), Some("x")), 3);
        assert_eq!(
            (v.forward, v.violation),
            (true, None),
            "as the proxy saw it"
        );
    }

    /// Owed replies are counted by id: a null-id reply takes an element without a readable
    /// id first, else the oldest with one; a reply echoing an id takes that one; and the order
    /// kept for null-id replies stays within twice what is owed however many were answered by
    /// their own id.
    #[test]
    fn owed_replies_by_id_and_in_order() {
        let key = |n: u32| IdKey::of(Id::from_token(n.to_string().as_bytes()).unwrap());
        let mut owed = OwedReplies::default();
        for n in 0..1000 {
            owed.push(Some(key(n)), u64::from(n), usize::MAX);
        }
        owed.push(None, 1000, usize::MAX);
        for n in 10..1000 {
            assert_eq!(owed.take(Some(&key(n))), Some(u64::from(n)), "its batch");
        }
        assert!(owed.order.len() <= 2 * (owed.len - owed.without_id.len()) + 16);
        assert_eq!(owed.take(Some(&key(500))), None, "answered already");
        assert_eq!(owed.take(None), Some(1000), "the one without an id");
        assert!(owed.without_id.is_empty());
        for n in 0..10 {
            assert!(owed.owes(Some(&key(n))));
            assert_eq!(owed.take(None), Some(u64::from(n)));
            assert!(!owed.owes(Some(&key(n))), "the oldest first: {n}");
        }
        assert_eq!(owed.take(None), None);
        assert_eq!(owed.len, 0);
        // At the limit, not recorded.
        owed.push(None, 0, 0);
        assert!(!owed.owes(None));
        // Forgetting takes an entry of the batch named (not only the oldest), or the oldest.
        owed.push(Some(key(1)), 1, usize::MAX);
        owed.push(Some(key(1)), 2, usize::MAX);
        owed.push(Some(key(1)), 3, usize::MAX);
        owed.push(None, 1, usize::MAX);
        owed.push(None, 3, usize::MAX);
        assert!(!owed.forget(Some(&key(1)), Some(4)));
        assert!(!owed.forget(None, Some(2)));
        assert!(owed.forget(Some(&key(1)), Some(2)));
        assert!(!owed.forget(Some(&key(1)), Some(2)), "once");
        assert!(owed.forget(None, Some(3)));
        assert_eq!(owed.take(Some(&key(1))), Some(1), "the oldest left");
        assert!(owed.forget(Some(&key(1)), None));
        assert!(owed.forget(None, None));
        assert_eq!(owed.len, 0);
        // One id owed to many batches (twice to each), forgotten batch by batch newest first,
        // as in-place answers may come: each takes its batch's entries, the counts follow.
        const BATCHES: u64 = 20_000;
        for batch in 0..BATCHES {
            owed.push(Some(key(7)), batch, usize::MAX);
            owed.push(Some(key(7)), batch, usize::MAX);
        }
        for batch in (1..BATCHES).rev() {
            assert_eq!(owed.count(Some(&key(7)), batch), 2);
            assert!(owed.forget(Some(&key(7)), Some(batch)));
            assert!(owed.forget(Some(&key(7)), Some(batch)));
            assert_eq!(owed.count(Some(&key(7)), batch), 0);
            assert!(!owed.forget(Some(&key(7)), Some(batch)));
        }
        assert_eq!(owed.oldest_batch(Some(&key(7))), Some(0));
        assert_eq!(owed.take(Some(&key(7))), Some(0));
        assert_eq!(owed.take(Some(&key(7))), Some(0));
        assert!(!owed.owes(Some(&key(7))));
        assert_eq!(owed.len, 0);
    }

    /// Inside an array, an error with the id of a request sent alone answers an invalid
    /// element of that id (a request sent alone is answered alone, §6); with the id of a
    /// request sent in a batch, that request.
    #[test]
    fn an_array_error_answers_a_request_sent_in_a_batch_not_one_sent_alone() {
        let mut error = observation("error_response", id("5"), None);
        error.error_code = Some(-32600);
        let invalid = observation("invalid", id("5"), None);
        let mut session = Session::new(Dialect::JsonRpc2, None);
        session.observe(Dir::C2s, &observation("request", id("5"), Some("slow")), 0);
        batch(&mut session, Dir::C2s, &[invalid]);
        batch(&mut session, Dir::S2c, &[error]);
        assert!(session.is_waiting(Dir::C2s, id("5")));
        assert!(!session.owes_element_reply(Dir::C2s, Some(id("5"))));
        let mut session = Session::new(Dialect::JsonRpc2, None);
        batch(&mut session, Dir::C2s, &[invalid]);
        batch(
            &mut session,
            Dir::C2s,
            &[observation("request", id("5"), Some("slow"))],
        );
        batch(&mut session, Dir::S2c, &[error]);
        assert!(!session.is_waiting(Dir::C2s, id("5")));
        assert!(session.owes_element_reply(Dir::C2s, Some(id("5"))));
    }

    /// What a batch timeout answers: the requests of the batch still waiting, and the owed
    /// replies of its invalid elements still owed.
    fn timed_out(timeouts: &[Timeout]) -> Vec<(Vec<String>, Vec<Option<String>>)> {
        let token = |id: &IdBuf| String::from_utf8_lossy(id.as_id().raw()).into_owned();
        timeouts
            .iter()
            .map(|t| match t {
                Timeout::Request(e) => (vec![token(&e.id)], vec![]),
                Timeout::Batch { requests, owed } => (
                    requests.iter().map(|e| token(&e.id)).collect(),
                    owed.iter().map(|id| id.as_ref().map(token)).collect(),
                ),
            })
            .collect()
    }

    /// A client batch times out as a unit, at its own deadline: what is left of it is
    /// answered in one go, what was answered is not, and the server's late replies (with an
    /// id or null) are late, not unknown (which JSON-RPC would forward).
    #[test]
    fn a_batch_times_out_as_a_unit() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(100));
        let (a, b, c) = (id("1"), id("2"), id("3"));
        let invalid = |token| Observation {
            id: Some(id(token)),
            ..without_id("invalid", None)
        };
        session.observe(Dir::C2s, &observation("request", id("0"), Some("alone")), 0);
        let sent = [
            observation("request", a, Some("a")),
            observation("request", b, Some("b")),
            invalid("9"),
            without_id("parse_error", None),
            without_id("notification", Some("n")),
        ];
        session.observe(Dir::C2s, &without_id("batch", None), 10);
        for o in &sent {
            session.observe_element(Dir::C2s, o, 10);
        }
        // A second batch, answered in full by an array before its deadline.
        session.observe(Dir::C2s, &without_id("batch", None), 20);
        session.observe_element(Dir::C2s, &observation("request", c, Some("c")), 20);
        session.observe_element(Dir::C2s, &invalid("8"), 20);
        session.observe(Dir::S2c, &without_id("batch", None), 30);
        session.observe_element(Dir::S2c, &observation("success_response", c, None), 30);
        let owed = Observation {
            id: Some(id("8")),
            ..without_id("error_response", None)
        };
        assert_eq!(session.observe_element(Dir::S2c, &owed, 30).violation, None);
        assert_eq!(
            session.batches.len(),
            1,
            "the answered batch is no longer kept"
        );
        // The server answers `b` alone (as no conforming server would): `a` is left.
        session.observe(Dir::S2c, &observation("success_response", b, None), 40);
        assert_eq!(timed_out(&session.expire(99)), []);
        assert_eq!(
            timed_out(&session.expire(100)),
            [(vec!["0".to_string()], vec![])],
            "the request sent alone, at its own deadline"
        );
        assert_eq!(
            timed_out(&session.expire(110)),
            [(vec!["1".to_string()], vec![Some("9".to_string()), None])],
            "the first batch, without `2`, answered"
        );
        assert_eq!(
            timed_out(&session.expire(10_000)),
            [],
            "the second batch was answered in full"
        );
        assert!(!session.is_waiting(Dir::C2s, a));
        // The server's array, late: every element is a late reply, so it is not forwarded.
        session.observe(Dir::S2c, &without_id("batch", None), 200);
        let late = [
            observation("success_response", a, None),
            Observation {
                id: Some(id("9")),
                ..without_id("error_response", None)
            },
            Observation {
                id: Some(Id::from_token(b"null").unwrap()),
                ..without_id("error_response", None)
            },
        ];
        for o in &late {
            let verdict = session.observe_element(Dir::S2c, o, 200);
            assert_eq!(verdict.violation, Some(Violation::LateReply), "{o:?}");
        }
        assert!(!session.batch_forwards(Dir::S2c));
        assert!(session.batches.is_empty() && session.open_batch.is_none());
    }

    /// Replaying a proxy log: the owed replies the proxy answered are forgotten as its
    /// `owed_answered` events say, with the same effect as the live timeout.
    #[test]
    fn owed_replies_the_proxy_answered_are_forgotten() {
        let mut session = Session::new(Dialect::JsonRpc2, None);
        batch(&mut session, Dir::C2s, &[without_id("parse_error", None)]);
        assert!(session.owes_element_reply(Dir::C2s, None));
        assert!(session.forget_owed_reply(None));
        assert!(!session.forget_owed_reply(None), "owed once");
        assert!(!session.owes_element_reply(Dir::C2s, None));
        session.observe(Dir::S2c, &without_id("batch", None), 0);
        let null = Observation {
            id: Some(Id::from_token(b"null").unwrap()),
            ..without_id("error_response", None)
        };
        let verdict = session.observe_element(Dir::S2c, &null, 0);
        assert_eq!(verdict.violation, Some(Violation::LateReply));
    }

    /// Recent ids are kept by count and by bytes, oldest out first, and found by key.
    #[test]
    fn recent_ids_are_bounded_by_count_and_bytes() {
        let key = |n: usize| IdKey::of(Id::from_token(n.to_string().as_bytes()).unwrap());
        let mut recent = Recent::default();
        for n in 0..RECENT + 10 {
            recent.push(key(n));
        }
        assert_eq!(recent.order.len(), RECENT);
        assert!(!recent.contains(&key(9)) && recent.contains(&key(10)));
        assert!(recent.contains(&key(RECENT + 9)));
        // The same id twice stays known until both are out.
        recent.push(key(10));
        for n in 0..RECENT - 1 {
            recent.push(key(1_000_000 + n));
        }
        assert!(recent.contains(&key(10)), "its second entry is still in");
        recent.push(key(2_000_000));
        assert!(!recent.contains(&key(10)));
        // Long ids: as many as fit in the byte budget.
        let long = |n: usize| {
            let token = format!("\"{n:0>65000}\"");
            IdKey::of(Id::from_token(token.as_bytes()).unwrap())
        };
        for n in 0..100 {
            recent.push(long(n));
        }
        assert!(recent.bytes <= RECENT_BYTES, "{}", recent.bytes);
        assert!(recent.contains(&long(99)) && !recent.contains(&long(80)));
        assert_eq!(
            recent.set.values().sum::<u32>() as usize,
            recent.order.len()
        );
    }

    /// The requests waiting are bounded by bytes as well as by number: a request whose id and
    /// method would take the direction past the budget is refused like one beyond the limit,
    /// and a reply frees its bytes.
    #[test]
    fn requests_in_flight_are_bounded_by_bytes() {
        let mut session =
            Session::with_budget(Dialect::Mcp, Some(1_000), MAX_IN_FLIGHT.get(), 2 << 20);
        let method = "m".repeat(1000);
        let token = |n: usize| format!("\"{n:0>64000}\"");
        let tokens: Vec<String> = (0..17).map(token).collect();
        let ids: Vec<Id<'_>> = tokens.iter().map(|t| id_of(t)).collect();
        for (n, id) in ids.iter().enumerate() {
            let v = session.observe(Dir::C2s, &observation("request", *id, Some(&method)), 0);
            // Each counts its id's spelling (64,002 bytes) and key (64,001) and its method
            // (1,000): 16 × 129,003 bytes fit in 2 MiB, 17 do not.
            let refused = n == 16;
            assert_eq!(v.violation.is_some(), refused, "{n}");
            assert_eq!(v.forward, !refused, "{n}");
        }
        assert!(!session.is_waiting(Dir::C2s, ids[16]));
        session.observe(Dir::S2c, &observation("success_response", ids[0], None), 1);
        let v = session.observe(Dir::C2s, &observation("request", ids[16], Some(&method)), 2);
        assert_eq!(v.violation, None);
        assert_eq!(
            session.waiting[slot(Dir::C2s)].bytes(),
            16 * (64_002 + 64_001 + 1000)
        );
        // Timeouts free them too.
        assert_eq!(session.expire(10_000).len(), 16);
        assert_eq!(session.waiting[slot(Dir::C2s)].bytes(), 0);
    }

    /// A progress token counts against the bytes too (it is bounded by the frame limit only,
    /// not by the id limit), twice, and a reply gives it back.
    #[test]
    fn progress_tokens_count_against_the_bytes_in_flight() {
        let mut session = Session::with_budget(Dialect::Mcp, None, MAX_IN_FLIGHT.get(), 1 << 20);
        let token = format!("\"{}\"", "p".repeat(300_000));
        let request = |session: &mut Session, n: &str| {
            let o = Observation {
                progress_token: Some(id_of(&token)),
                ..observation("request", id_of(n), Some("tools/call"))
            };
            session.observe(Dir::C2s, &o, 0).violation
        };
        assert_eq!(request(&mut session, "1"), None);
        // Its key (300,001 bytes) twice, the id (its spelling `1` and its key `n+1e1`) and
        // the method.
        assert_eq!(
            session.waiting[slot(Dir::C2s)].bytes(),
            2 * 300_001 + (1 + 5) + "tools/call".len()
        );
        assert_eq!(request(&mut session, "2"), Some(Violation::TooManyInFlight));
        session.observe(
            Dir::S2c,
            &observation("success_response", id_of("1"), None),
            1,
        );
        assert_eq!(session.waiting[slot(Dir::C2s)].bytes(), 0);
        assert_eq!(request(&mut session, "2"), None);
    }

    fn id_of(token: &str) -> Id<'_> {
        Id::from_token(token.as_bytes()).unwrap()
    }

    /// A client batch of one invalid element, as a JSON-RPC session sends it.
    fn invalid_batch(session: &mut Session, id: Option<&'static str>, now: u64) {
        session.observe(Dir::C2s, &without_id("batch", None), now);
        let element = match id {
            Some(token) => Observation {
                id: Some(Id::from_token(token.as_bytes()).unwrap()),
                ..without_id("invalid", None)
            },
            None => without_id("parse_error", None),
        };
        session.observe_element(Dir::C2s, &element, now);
    }

    /// The server's array answering one invalid element: an error with this id (`null`).
    fn owed_answer(session: &mut Session, token: &'static str, now: u64) -> Verdict {
        session.observe(Dir::S2c, &without_id("batch", None), now);
        let reply = Observation {
            id: Some(Id::from_token(token.as_bytes()).unwrap()),
            ..without_id("error_response", None)
        };
        session.observe_element(Dir::S2c, &reply, now)
    }

    /// A batch's deadline forgets its own owed replies, never another batch's; a batch
    /// answered in time leaves no record.
    #[test]
    fn a_batch_deadline_forgets_only_its_own_owed_replies() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(300));
        invalid_batch(&mut session, None, 0); // A
        assert_eq!(owed_answer(&mut session, "null", 100).violation, None);
        invalid_batch(&mut session, None, 250); // B
        assert!(session.expire(301).is_empty(), "A was answered");
        assert_eq!(
            owed_answer(&mut session, "null", 395).violation,
            None,
            "B's, in time"
        );
        assert!(session.expire(10_000).is_empty());
        assert!(session.batches.is_empty());
        // Two batches with the same deadline: each forgets its own, oldest first.
        invalid_batch(&mut session, Some("7"), 20_000);
        invalid_batch(&mut session, None, 20_000);
        let timeouts = session.expire(20_300);
        assert_eq!(
            timed_out(&timeouts),
            [(vec![], vec![Some("7".to_string())]), (vec![], vec![None])]
        );
        // A thousand batches answered at once leave no record behind.
        for n in 0..1000 {
            invalid_batch(&mut session, None, 30_000 + n);
            owed_answer(&mut session, "null", 30_000 + n);
        }
        assert!(session.batches.is_empty());
        assert!(session.expire(40_000).is_empty());
        assert!(session.deadlines.is_empty());
    }

    /// §5.1 lets a server answer an invalid element whose id it read with a null id: after
    /// the proxy answered it at the batch's deadline, such a reply is late too, once: the
    /// late reply, with the id or null, takes it.
    #[test]
    fn a_late_null_reply_to_an_element_with_an_id_is_late() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(100));
        invalid_batch(&mut session, Some("5"), 0);
        assert_eq!(
            timed_out(&session.expire(100)),
            [(vec![], vec![Some("5".to_string())])]
        );
        let verdict = owed_answer(&mut session, "null", 400);
        assert_eq!(verdict.violation, Some(Violation::LateReply));
        assert!(!session.batch_forwards(Dir::S2c));
        // Answered late with its id, the element is owed nothing more: a null-id error in an
        // array afterwards answers a notification.
        invalid_batch(&mut session, Some("6"), 1000);
        session.expire(1100);
        assert_eq!(
            owed_answer(&mut session, "6", 1200).violation,
            Some(Violation::LateReply)
        );
        let stray = owed_answer(&mut session, "null", 1300);
        assert_eq!(stray.violation, Some(Violation::ReplyWithoutId));
        assert!(session.batch_forwards(Dir::S2c), "JSON-RPC forwards it");
    }

    /// The tokens of what a dropped batch answered: its requests, and the owed replies.
    fn in_place(session: &mut Session) -> (Vec<String>, Vec<Option<String>>) {
        let token = |id: &IdBuf| String::from_utf8_lossy(id.as_id().raw()).into_owned();
        let answered = session.take_answered_in_place();
        (
            answered.requests.iter().map(token).collect(),
            answered
                .owed
                .iter()
                .map(|id| id.as_ref().map(token))
                .collect(),
        )
    }

    /// A dropped server array holding a reply to a request of a client batch makes the proxy
    /// answer all that is left of that batch, in one array: its requests still waiting, the
    /// one the array answered or not, and the replies still owed to its invalid elements. With
    /// or without a timeout, nothing of it is left for the batch's deadline, the server's
    /// replies coming later are late, and another batch's owed replies are still owed.
    #[test]
    fn a_dropped_array_answers_all_that_is_left_of_the_batch_it_answers() {
        for timeout in [None, Some(100)] {
            let mut session = Session::new(Dialect::JsonRpc2, timeout);
            let invalid = |token| observation("invalid", id(token), None);
            batch(&mut session, Dir::C2s, &[invalid("8")]);
            let sent = [
                invalid("9"),
                without_id("parse_error", None),
                observation("request", id("1"), Some("a")),
                observation("request", id("2"), Some("b")),
            ];
            batch(&mut session, Dir::C2s, &sent);
            session.observe(Dir::S2c, &without_id("batch", None), 0);
            session.drop_batch(Dir::S2c);
            let dropped = [
                observation("success_response", id("1"), None),
                without_id("invalid", None),
            ];
            for o in &dropped {
                session.observe_element(Dir::S2c, o, 0);
            }
            assert_eq!(
                in_place(&mut session),
                (
                    vec!["1".to_string(), "2".to_string()],
                    vec![Some("9".to_string()), None]
                ),
                "{timeout:?}"
            );
            assert!(session.owes_element_reply(Dir::C2s, Some(id("8"))));
            assert!(!session.owes_element_reply(Dir::C2s, Some(id("9"))));
            assert!(!session.is_waiting(Dir::C2s, id("2")));
            if timeout.is_some() {
                assert_eq!(
                    timed_out(&session.expire(100)),
                    [(vec![], vec![Some("8".to_string())])],
                    "the first batch's owed reply; nothing of the second"
                );
            }
            let late = owed_answer(&mut session, "9", 200);
            assert_eq!(late.violation, Some(Violation::LateReply), "{timeout:?}");
            let reply = session.observe(
                Dir::S2c,
                &observation("success_response", id("2"), None),
                200,
            );
            assert_eq!(reply.violation, Some(Violation::LateReply), "{timeout:?}");
        }
    }

    /// A dropped server array holding only a reply owed to an invalid element (the batch had
    /// no request) makes the proxy answer the batch's owed replies in place too; with a null
    /// id, the oldest batch with an element whose id could not be read.
    #[test]
    fn a_dropped_array_of_owed_replies_answers_their_batch() {
        let mut session = Session::new(Dialect::JsonRpc2, None);
        let sent = [
            observation("invalid", id("9"), None),
            without_id("parse_error", None),
        ];
        batch(&mut session, Dir::C2s, &sent);
        invalid_batch(&mut session, None, 0);
        for reply in ["9", "null"] {
            session.observe(Dir::S2c, &without_id("batch", None), 0);
            session.drop_batch(Dir::S2c);
            let error = Observation {
                id: Some(id(reply)),
                ..without_id("error_response", None)
            };
            session.observe_element(Dir::S2c, &error, 0);
            let expected = match reply {
                "9" => vec![Some("9".to_string()), None],
                _ => vec![None],
            };
            assert_eq!(in_place(&mut session), (vec![], expected), "{reply}");
        }
        assert!(!session.owes_element_reply(Dir::C2s, None));
    }

    /// A success inside an array answering a reply owed to an invalid element is reported
    /// (the server took the element for a request) and takes the owed reply: the proxy does
    /// not answer the element again at its batch's deadline, and a later null-id error is
    /// not taken for it. A request waiting with the same id is answered first.
    #[test]
    fn a_success_answering_an_owed_reply_takes_it() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(100));
        invalid_batch(&mut session, Some("5"), 0);
        let success = observation("success_response", id("5"), None);
        let verdicts = batch(&mut session, Dir::S2c, &[success]);
        assert_eq!(verdicts[0].violation, Some(Violation::SuccessToInvalid));
        assert!(verdicts[0].forward && session.batch_forwards(Dir::S2c));
        assert!(!session.owes_element_reply(Dir::C2s, Some(id("5"))));
        assert_eq!(timed_out(&session.expire(100)), []);
        // With a null id, for an element whose id could not be read.
        let mut session = Session::new(Dialect::JsonRpc2, None);
        invalid_batch(&mut session, None, 0);
        let null = Observation {
            id: Some(id("null")),
            ..without_id("success_response", None)
        };
        let verdicts = batch(&mut session, Dir::S2c, &[null]);
        assert_eq!(verdicts[0].violation, Some(Violation::SuccessToInvalid));
        let stray = owed_answer(&mut session, "null", 1);
        assert_eq!(stray.violation, Some(Violation::ReplyWithoutId));
        // A request of that id waiting is answered first.
        invalid_batch(&mut session, Some("5"), 2);
        batch(
            &mut session,
            Dir::C2s,
            &[observation("request", id("5"), Some("m"))],
        );
        let verdicts = batch(&mut session, Dir::S2c, &[success]);
        assert_eq!(verdicts[0].violation, None);
        assert!(session.owes_element_reply(Dir::C2s, Some(id("5"))));
    }

    /// A reply with the id of an invalid element sent alone (not in an array, as §6 asks)
    /// answers the element when no request of that id waits: it is owed nothing more, so the
    /// proxy does not answer it again at its batch's deadline. A null-id reply alone still
    /// answers nothing (it answers a notification).
    #[test]
    fn a_reply_alone_with_an_owed_id_answers_the_element() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(100));
        invalid_batch(&mut session, Some("5"), 0);
        invalid_batch(&mut session, None, 0);
        let mut error = observation("error_response", id("5"), None);
        error.error_code = Some(-32600);
        let verdict = session.observe(Dir::S2c, &error, 1);
        assert_eq!((verdict.forward, verdict.violation), (true, None));
        assert!(!session.owes_element_reply(Dir::C2s, Some(id("5"))));
        let null = Observation {
            id: Some(id("null")),
            ..error
        };
        let verdict = session.observe(Dir::S2c, &null, 1);
        assert_eq!(verdict.violation, Some(Violation::ReplyWithoutId));
        assert_eq!(
            timed_out(&session.expire(100)),
            [(vec![], vec![None])],
            "only the element without an id"
        );
    }

    /// The deadlines of batches answered in time do not pile up in the heap until they fall
    /// due, even when no request ever stops waiting (batches of invalid elements only).
    #[test]
    fn deadlines_of_answered_batches_are_dropped() {
        let mut session = Session::new(Dialect::JsonRpc2, Some(3_600_000));
        for n in 0..10_000 {
            invalid_batch(&mut session, None, n);
            assert_eq!(owed_answer(&mut session, "null", n).violation, None);
            assert!(session.deadlines.len() <= 2 * session.batches.len() + 65);
        }
        assert!(session.batches.is_empty());
    }

    /// The id tokens `"b-0"`, `"b-1"`, … of `n` elements of batch `b`.
    fn batch_id_tokens(b: usize, n: usize) -> Vec<String> {
        (0..n).map(|e| format!("\"{b}-{e}\"")).collect()
    }

    /// The ids those tokens spell.
    fn ids_of(tokens: &[String]) -> Vec<Id<'_>> {
        tokens
            .iter()
            .map(|t| Id::from_token(t.as_bytes()).unwrap())
            .collect()
    }

    /// A client batch keeps the ids of its requests only while they wait: a batch whose
    /// requests are answered but one does not hold all their ids until that one is (without a
    /// timeout, forever), or batches of thousands of requests, each with one left waiting,
    /// would hold every id they ever sent, outside the budget of the requests in flight.
    #[test]
    fn a_batch_keeps_only_the_ids_of_its_requests_still_waiting() {
        const BATCHES: usize = 50;
        const REQUESTS: usize = 200;
        let mut session = Session::new(Dialect::JsonRpc2, None);
        for b in 0..BATCHES {
            let tokens = batch_id_tokens(b, REQUESTS);
            let ids = ids_of(&tokens);
            session.observe(Dir::C2s, &without_id("batch", None), 0);
            for id in &ids {
                session.observe_element(Dir::C2s, &observation("request", *id, Some("m")), 0);
            }
            // All but the first answered (alone, as a server may for a batch it splits).
            for id in &ids[1..] {
                let v = session.observe(Dir::S2c, &observation("success_response", *id, None), 0);
                assert_eq!(v.violation, None);
            }
        }
        assert_eq!(session.waiting[slot(Dir::C2s)].len(), BATCHES);
        assert_eq!(session.batches.len(), BATCHES);
        let kept: usize = session.batches.values().map(|b| b.requests.len()).sum();
        assert!(
            kept <= 16 * BATCHES,
            "{kept} ids kept for {BATCHES} requests waiting"
        );
    }

    /// The same for the replies owed to a batch's invalid elements: a batch with one left owed
    /// does not hold the ids of all the others, answered, until it is (without a timeout,
    /// forever).
    #[test]
    fn a_batch_keeps_only_the_ids_of_its_replies_still_owed() {
        const BATCHES: usize = 50;
        const ELEMENTS: usize = 200;
        let mut session = Session::new(Dialect::JsonRpc2, None);
        for b in 0..BATCHES {
            let tokens = batch_id_tokens(b, ELEMENTS);
            let ids = ids_of(&tokens);
            session.observe(Dir::C2s, &without_id("batch", None), 0);
            for id in &ids {
                let invalid = Observation {
                    id: Some(*id),
                    ..without_id("invalid", None)
                };
                session.observe_element(Dir::C2s, &invalid, 0);
            }
            // All but the first answered, in the server's array.
            session.observe(Dir::S2c, &without_id("batch", None), 0);
            for id in &ids[1..] {
                let error = Observation {
                    id: Some(*id),
                    ..without_id("error_response", None)
                };
                assert_eq!(session.observe_element(Dir::S2c, &error, 0).violation, None);
            }
        }
        assert_eq!(session.batches.len(), BATCHES);
        let kept: usize = session.batches.values().map(|b| b.owed.len()).sum();
        assert!(
            kept <= 16 * BATCHES,
            "{kept} ids kept for {BATCHES} replies owed"
        );
        // What is left is still answered in place of a dropped array, by its own id.
        let first = session.batches.keys().min().copied().unwrap();
        let (_, owed) = session.take_rest_of_batch(first);
        assert_eq!(
            owed,
            [Some(IdBuf::from(Id::from_token(br#""0-0""#).unwrap()))]
        );
    }
}
