//! Session-level checks shared by `rpcwire proxy` (live) and `rpcwire check` (offline): who
//! waits for what, in both directions, and every violation of the request/reply discipline.
//!
//! Pure bookkeeping: no I/O, no clock (times are milliseconds passed in by the caller).
//!
//! [`Session`] is here, with what it does with each message ([`Session::observe`]); the rest,
//! one concept a file: the directions ([`dir`]), the violations ([`violation`]), what the
//! session is told of a message ([`described`], [`observation`]) and its kinds ([`kind`]), the
//! requests waiting ([`waiting`]) and those waiting behind one of the same id ([`queued`]),
//! batches ([`batch`]), whether an array of replies fits one ([`batch_fit`]), the replies owed
//! to their invalid elements ([`owed`]) and, in a merge of two streams, to invalid lines sent
//! alone ([`owed_lines`]), timeouts
//! ([`timeout`]), the ids recently given up on ([`recent`]), the progress tokens active and
//! the last progress reported on each ([`active_token`]), those MCP's tasks keep active
//! ([`tasks`]), the params of progress and cancellation notifications
//! ([`notification_params`]), the ids minted for client
//! requests reusing an id whose reply could still come ([`rewrite`]) and for such batch
//! elements beyond the limits, untracked ([`untracked`]), the tools' header annotations
//! ([`tool_headers`]), the counters ([`counters`]) and the room the tables keep once a burst
//! of requests is answered ([`room`]).

mod active_token;
mod batch;
mod batch_fit;
mod counters;
mod described;
mod dir;
mod kind;
mod notification_params;
mod observation;
mod owed;
mod owed_lines;
mod queued;
mod recent;
mod rewrite;
mod room;
mod tasks;
mod timeout;
mod tool_headers;
mod untracked;
mod violation;
mod waiting;

pub use batch::InPlace;
pub use batch_fit::{ArrayReplies, BatchOwed, FITS, Fit};
pub use counters::CodeCounts;
pub use described::Described;
pub use dir::Dir;
pub use kind::{kind_name, kind_of, may_answer};
pub use notification_params::ParamsFault;
pub use observation::{Observation, Verdict};
pub use rewrite::IdRewriting;
pub use tasks::TaskReply;
pub use timeout::{Expired, Timeout};
pub use tool_headers::invalid_tool_headers;
pub use violation::Violation;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::num::NonZeroUsize;
use std::sync::Arc;

use rpcwire::mcp;
use rpcwire::{Dialect, Id, IdBuf, IdKey, InFlight, InFlightError};

use active_token::ActiveToken;
use batch::{BatchForward, BatchWait};
use counters::Counters;
use dir::slot;
use kind::rejected_violation;
use owed::OwedReplies;
use owed_lines::OwedLines;
use queued::Queued;
use recent::Recent;
use room::give_back;
use tasks::TaskTokens;
use timeout::{Deadline, DeadlineOf};
use tool_headers::has_tool_headers;
use untracked::{UntrackedElements, UntrackedRewrites};
use waiting::Waiting;

pub struct Session {
    dialect: Dialect,
    /// Requests each side sent and still waits on, by direction of the request.
    waiting: [InFlight<Waiting>; 2],
    /// JSON-RPC requests reusing an id still in `waiting`, waiting their turn behind it, by
    /// direction of the request: the server's, and the client's in a session that does not
    /// rewrite them ([`Session::rewriting_reused_ids`]; two recorded streams).
    queued: [Queued; 2],
    /// Ids recently cancelled or timed out, by direction of the request.
    recent: [Recent; 2],
    /// MCP: the ids of the last requests that stopped waiting (answered, cancelled, timed
    /// out), by direction of the request, as [`Recent`] bounds them. An MCP request id "MUST
    /// NOT have been previously used by the requestor within the same session": a request
    /// reusing one of them is `reused_id` (when not a `duplicate_id`: cancelled or timed out
    /// lately, its late reply may still come), but under 2026-07-28 or later, which forbids
    /// only the id of a request still waiting ([`Session::reads_from_2026_07_28`]).
    used_lately: [Recent; 2],
    /// Replies owed for the invalid elements of batches (JSON-RPC), by direction of the batch:
    /// the receiver answers each itself (§6), with the element's id when it could be read
    /// (`Some`), else with a null id, which §5.1 requires for an invalid request.
    owed_element_replies: [OwedReplies; 2],
    /// How many requests may wait in each direction (and replies be owed).
    max_in_flight: usize,
    /// How many bytes of ids the replies owed in each direction may hold (each id's key and
    /// its spelling, kept in its batch's record), and the requests waiting, in the table and
    /// in line behind one of the same id ([`Queued`]), together ([`MAX_IN_FLIGHT_BYTES`], the
    /// budget of the requests waiting).
    max_owed_bytes: usize,
    /// The invalid lines sent alone each way whose error reply the peer still owes: kept only
    /// in a merge of two streams ([`Session::owe_line_reply`]); through the proxy the server
    /// never reads such a line.
    owed_lines: [OwedLines; 2],
    /// How many requests stopped waiting, by direction of the request.
    stopped_waiting: [u64; 2],
    /// The last requests that stopped waiting, by direction of the request: the key each
    /// waited by and its progress token, since the message observed last began (its elements
    /// included). Kept only in a session that tells them ([`Session::telling_stops`]).
    stops: [Vec<(IdKey, Option<IdKey>)>; 2],
    /// Whether `stops` is kept.
    tells_stops: bool,
    /// The ids of the last requests that stopped waiting (answered, cancelled), by direction
    /// of the request, as [`Recent`] bounds them: kept only in a session that tells its stops
    /// (a merge), for a reply to one of them to be told from a reply to an id not sent yet
    /// ([`Session::stopped_waiting_lately`]).
    stopped_lately: [Recent; 2],
    /// The progress tokens of those requests, likewise, for progress on one of them to be
    /// told from progress on a token not sent yet ([`Session::token_stopped_lately`]).
    tokens_stopped_lately: [Recent; 2],
    /// Whether the last batch observed in each direction goes on, from its elements so far.
    batch_forward: [BatchForward; 2],
    /// What a dropped batch answered, for the caller to answer ([`Self::answer_in_place_of`]).
    answered_in_place: InPlace,
    /// The progress tokens of the requests waiting, by direction of the request: how many
    /// requests carry each (a token reused while in flight is counted, not lost), and the
    /// last progress reported on it ([`ActiveToken`]).
    progress_tokens: [HashMap<IdKey, ActiveToken>; 2],
    /// The tasks created by each direction's task-augmented requests that keep their progress
    /// tokens active (counted in `progress_tokens` as one request more each) until they end.
    task_tokens: [TaskTokens; 2],
    /// How many task-augmented requests with a progress token wait in each direction
    /// ([`Waiting::task_augmented`]): while none does and no task keeps a token,
    /// [`Session::reads_task`] answers without a lookup.
    task_requests_waiting: [usize; 2],
    deadlines: BinaryHeap<Reverse<Deadline>>,
    timeout_ms: Option<u64>,
    /// The client batch being observed (its number, when it came, what it holds), and the
    /// client batches with something left to answer, by number.
    open_batch: Option<(u64, u64, BatchWait)>,
    /// The replies owed to elements of client batches that timed out, which the proxy sent
    /// itself: the server's, coming later inside an array, are late, each once (at most
    /// [`RECENT`](recent::RECENT) of them, [`RECENT_BYTES`](recent::RECENT_BYTES) of ids).
    late_owed: OwedReplies,
    /// By the direction of the requests: the ids of the errors inside arrays that answered a
    /// request sent in a batch, lately (the last [`RECENT`](recent::RECENT) of them, at most
    /// [`RECENT_BYTES`](recent::RECENT_BYTES) of keys), while an invalid batch element of
    /// their id (any, with a null id) was owed a reply, or whatever was owed when the order of
    /// arrival is not known (`knows_arrival_order`). Such an error may as well have answered
    /// that element: a success of that id later finding only that element's reply owed
    /// answered the request, not the element, and is no `success_to_invalid`
    /// (`owed_answered_by`).
    errors_to_batch_requests: [Recent; 2],
    /// Whether messages are observed in the order they arrived (the proxy, the replay of its
    /// log), not merged from two streams ([`Session::without_arrival_order`]).
    knows_arrival_order: bool,
    batches: HashMap<u64, BatchWait>,
    /// The client batch the server's array observed now answers, when the caller knows it (a
    /// merge of two streams: [`Session::answer_array_for`]).
    array_batch: Option<u64>,
    /// The ids of the invalid elements of that batch that the null-id errors of that array
    /// answer leniently (`Fit::lenient`), in order ([`Session::answer_array_for`]).
    array_null_ids: VecDeque<IdKey>,
    batch_no: u64,
    seq: u64,
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
    /// MCP: the server answered a client `initialize` with a success: the session is
    /// initialized, and a client's `initialize` now is a [`Violation::SecondInitialize`].
    initialized: bool,
    /// Whether a client's `initialize` on an initialized session is refused
    /// ([`Session::refusing_second_initialize`]).
    refuses_second_initialize: bool,
    /// Whether an element of a server's batch reusing an id in flight waits in line behind
    /// the request holding it ([`Session::queuing_reused_server_elements`]).
    queues_reused_server_elements: bool,
    /// How many client `tools/list` requests wait ([`Waiting::lists_tools`]): while none does,
    /// [`Session::reads_tool_headers`] answers without a lookup.
    tools_lists_waiting: usize,
    /// How far client requests reusing an id whose reply could still come go to the server
    /// under an id the session mints ([`IdRewriting`]).
    rewriting: IdRewriting,
    /// The client's ids of the untracked batch elements forwarded under a minted id, by that
    /// id: the server's reply to one goes back with the client's.
    untracked_rewrites: UntrackedRewrites,
    /// The client's batch elements that went untracked and wait for their reply, within
    /// bounds of their own: their batch's timeout answers them, the client's cancellation of
    /// one (MCP) ends it as it ends a request waiting, a client request reusing the id of one
    /// is a duplicate as one reusing the id of a request waiting is, and never answered they
    /// are unanswered at the end.
    untracked_elements: UntrackedElements,
    /// Whether the client's batch elements that go untracked are kept in
    /// `untracked_elements`: as the proxy does, but not in the replay of a log of a proxy
    /// that did not ([`Session::keeping_untracked_elements`]).
    keeps_untracked: bool,
    /// The server's batch elements that went untracked and wait for the client's reply, by
    /// their own id (the server's ids are never rewritten), within the same bounds: no
    /// deadline answers them (the proxy never answers a server's request itself), the
    /// server's cancellation of one (MCP) ends it, a server request reusing the id of one is a
    /// duplicate, and never answered they are unanswered at the end.
    untracked_server_elements: UntrackedElements,
    /// Whether the server's batch elements that go untracked are kept in
    /// `untracked_server_elements` ([`Session::keeping_untracked_server_elements`]).
    keeps_untracked_server: bool,
    /// The ids of the client's batch elements that went untracked under the client's own id
    /// (beyond the limits of the requests in flight, while the server could answer no other
    /// request of that id): the last [`RECENT`](recent::RECENT) of them, at most
    /// [`RECENT_BYTES`](recent::RECENT_BYTES) of keys, the oldest forgotten first (a request
    /// of a forgotten one goes under its own id, unless its element is still kept in
    /// `untracked_elements`). Not taken by a reply: which of several replies with the id is
    /// the element's is not known.
    untracked_own_ids: Recent,
    /// How many ids the session minted so far ([`rewrite`]).
    minted: u64,
    /// The client's ids of the requests waiting under a minted id, with how many wait under
    /// each ([`Waiting::client_id`]): the table holds them by the minted id, and a client
    /// request reusing one of them is still a duplicate ([`Session::sender_reuses`]).
    rewritten_client_ids: HashMap<IdKey, u32>,
    pub counters: Counters,
}

/// A request still waiting when the session ended.
pub struct Unanswered {
    pub dir: Dir,
    /// The id its sender gave it.
    pub id: IdBuf,
    /// The id the server knows it by, when the session minted one.
    pub upstream_id: Option<IdBuf>,
    pub method: Arc<str>,
}

/// How many bytes of ids, method names and progress tokens the requests waiting in each
/// direction may hold (the budget of their `InFlight` table, each request's method and token
/// its extra bytes): `--max-in-flight` bounds their number, this their memory (a million
/// requests with ids and names of 64 KiB each would otherwise take 128 GB, and a progress
/// token may be as long as a frame). Beyond it a request is refused as beyond
/// `--max-in-flight`. The ids of the replies owed to invalid batch elements have a budget of
/// this size too, beyond which an element is not owed a reply, as beyond `--max-in-flight`; the
/// JSON-RPC requests waiting behind one of the same id ([`Queued`]) share the table's. (Ids and
/// tokens are counted as kept: a request waiting in the table its id's spelling (the table
/// keeps no key), one of a client batch its spelling twice (once more in its batch's record,
/// for as long as it waits), one in line its id's key and spelling, a reply owed its key and
/// the spelling its batch's record keeps, a progress token's key twice, in its request and in
/// the count of requests reporting on it. The key alone does not bound a number's spelling:
/// `1.000…` keys as 1.)
///
/// What the records of the requests take beside these bytes is bounded by their number
/// alone: see [`MAX_IN_FLIGHT`].
pub const MAX_IN_FLIGHT_BYTES: usize = 256 << 20;

/// How many requests may wait in each direction by default: 2^17.
///
/// Each waiting request costs memory beyond the bytes [`MAX_IN_FLIGHT_BYTES`] counts: its
/// slot in the table of requests waiting, 104 bytes ([`Waiting`] and the id's spelling,
/// inline up to 38 bytes: a UUID string id fits), in a table of a power of
/// two slots at most 7/8 full (less than half just after it grows), which holds its old
/// slots beside the new ones while it grows: up to about 480 bytes a
/// request (`tests/proxy_rss.rs` holds it to that). A request with a progress token costs up
/// to about 180 bytes more (its boxed key, and its entry among the tokens active, in a table
/// of its own), and one with a deadline (`--timeout-ms`) up to about 150 more. At 2^20 a
/// peer could make the proxy take up to about 0.8 GB in each direction with 40 MB of input;
/// at 2^17, up to about 106 MB (about 63 MB without progress tokens and deadlines; measured:
/// 84 MB at most). That is a burst's peak: the tables give it back once it is answered
/// ([`room`]). An MCP client keeps a
/// few requests in flight, not a hundred thousand, and 2^17 is above the default
/// `--max-batch` (100,000): a JSON-RPC batch of requests within the default limits is
/// tracked whole.
pub const MAX_IN_FLIGHT: NonZeroUsize = NonZeroUsize::new(1 << 17).expect("not zero");

/// The limit of the requests in flight of the proxies that did not record theirs in their
/// log's header (it was fixed then): what the replay of such a log applies.
pub const MAX_IN_FLIGHT_UNRECORDED: NonZeroUsize = NonZeroUsize::new(1 << 20).expect("not zero");

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
            queued: [Queued::default(), Queued::default()],
            recent: [Recent::default(), Recent::default()],
            used_lately: [Recent::default(), Recent::default()],
            owed_element_replies: [OwedReplies::default(), OwedReplies::default()],
            max_in_flight,
            max_owed_bytes: max_bytes,
            owed_lines: [OwedLines::default(), OwedLines::default()],
            stopped_waiting: [0, 0],
            stops: [vec![], vec![]],
            tells_stops: false,
            stopped_lately: [Recent::default(), Recent::default()],
            tokens_stopped_lately: [Recent::default(), Recent::default()],
            batch_forward: [BatchForward::default(); 2],
            answered_in_place: InPlace::default(),
            progress_tokens: [HashMap::new(), HashMap::new()],
            task_tokens: [TaskTokens::default(), TaskTokens::default()],
            task_requests_waiting: [0, 0],
            deadlines: BinaryHeap::new(),
            timeout_ms,
            open_batch: None,
            late_owed: OwedReplies::default(),
            errors_to_batch_requests: [Recent::default(), Recent::default()],
            knows_arrival_order: true,
            batches: HashMap::new(),
            array_batch: None,
            array_null_ids: VecDeque::new(),
            batch_no: 0,
            seq: 0,
            request_version: None,
            unversioned_request: false,
            protocol_version: None,
            initialized: false,
            refuses_second_initialize: true,
            queues_reused_server_elements: true,
            tools_lists_waiting: 0,
            rewriting: IdRewriting::None,
            untracked_rewrites: UntrackedRewrites::default(),
            untracked_elements: UntrackedElements::default(),
            keeps_untracked: true,
            untracked_server_elements: UntrackedElements::default(),
            keeps_untracked_server: true,
            untracked_own_ids: Recent::default(),
            minted: 0,
            rewritten_client_ids: HashMap::new(),
            counters: Counters::default(),
        }
    }

    /// An empty table of requests waiting, with the session's limits.
    fn empty_table(&self) -> InFlight<Waiting> {
        InFlight::new(self.max_in_flight).max_bytes(self.max_owed_bytes)
    }

    fn flag(&mut self, dir: Dir, v: Violation) -> Option<Violation> {
        *self.counters.violations.entry((dir, v)).or_default() += 1;
        Some(v)
    }

    /// A request sent in `dir`, waiting by `id`, stopped waiting: its progress token is no
    /// longer active (and a client request's deadline is dead).
    fn release(&mut self, dir: Dir, id: Id<'_>, waiting: &Waiting) {
        self.stopped(dir, || (IdKey::of(id), waiting.progress_token().cloned()));
        if self.dialect == Dialect::Mcp {
            self.used_lately[slot(dir)].push(IdKey::of(id), None);
        }
        if waiting.lists_tools {
            self.tools_lists_waiting -= 1;
        }
        if waiting.task_augmented {
            self.task_requests_waiting[slot(dir)] -= 1;
        }
        if dir == Dir::C2s {
            self.batch_part_answered(waiting.batch, |batch| {
                batch.requests.remove(&waiting.seq);
            });
            self.prune_deadlines();
        }
        if let Some(client_id) = &waiting.client_id {
            self.forget_rewritten(client_id.as_id());
        }
        if let Some(token) = &waiting.progress_token {
            self.drop_progress_user(dir, token);
        }
    }

    /// One request (or task) sent in `dir` less reports on `token`: inactive at none.
    fn drop_progress_user(&mut self, dir: Dir, token: &IdKey) {
        let tokens = &mut self.progress_tokens[slot(dir)];
        if let Some(active) = tokens.get_mut(token) {
            active.users -= 1;
            // (Its history of progress goes with it: a request carrying it again starts anew.)
            if active.users == 0 {
                tokens.remove(token);
                give_back(tokens);
            }
        }
    }

    /// A success answers `waiting`, sent in `requester`, telling of `task`: when it is a
    /// `CreateTaskResult` for a task-augmented request with a progress token, and the task
    /// has not ended already, the token stays active for the task (counted as one request
    /// more, so that releasing the request leaves it) until [`end_task`](Self::end_task).
    fn keep_task_progress(
        &mut self,
        requester: Dir,
        waiting: &Waiting,
        task: Option<(Id<'_>, bool)>,
    ) {
        let (Some(token), true, Some((task, false))) =
            (waiting.progress_token(), waiting.task_augmented, task)
        else {
            return;
        };
        // Beyond the bounds (`Err`) the token ends with the request, as before tasks.
        if let Ok(replaced) = self.task_tokens[slot(requester)].keep(IdKey::of(task), token.clone())
        {
            self.progress_tokens[slot(requester)]
                .entry(token.clone())
                .or_default()
                .users += 1;
            if let Some(old) = replaced {
                self.drop_progress_user(requester, &old);
            }
        }
    }

    /// The task `task` of `requester`'s requests ended (a terminal status was seen): the
    /// progress token it kept active, if any, is no longer ("Progress notifications for
    /// tasks **MUST** stop after the task reaches a terminal status").
    fn end_task(&mut self, requester: Dir, task: Id<'_>) {
        if let Some(token) = self.task_tokens[slot(requester)].end(&IdKey::of(task)) {
            self.drop_progress_user(requester, &token);
        }
    }

    /// Remembers the request sent in `dir` under `key` as given up on (cancelled, timed out),
    /// for its late reply; `sender_key`: its sender's own id, when `key` was minted in its place.
    fn remember(&mut self, dir: Dir, key: IdKey, sender_key: Option<IdKey>) {
        self.recent[slot(dir)].push(key, sender_key);
    }

    /// Whether a message sent in `dir` with the id `id` would be the reply to the client's
    /// `initialize`, still awaited (the only reply whose `protocolVersion` the session reads).
    pub fn is_initialize_reply(&self, dir: Dir, id: Id<'_>) -> bool {
        dir == Dir::S2c && self.is_initialize(id)
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
    /// A client request's deadline (a batch's) is its `now_ms` plus the timeout, due once
    /// [`Session::expire`]'s `now_ms` reaches it. So that it never falls due before the whole
    /// timeout has passed, a live caller gives a message's arrival rounded up to a whole
    /// millisecond, and `expire` the time rounded down (the proxy's `Clock`).
    ///
    /// A JSON-RPC batch counts here as one `batch` message, with no violation of its own;
    /// its elements are then recorded one by one, in order, with [`Session::observe_element`],
    /// and [`Session::batch_forwards`] says whether the batch goes on.
    pub fn observe(&mut self, dir: Dir, o: &Observation<'_>, now_ms: u64) -> Verdict {
        self.count_message(dir, o.kind);
        self.close_batch();
        if self.array_batch.take().is_some() {
            self.array_null_ids = VecDeque::new();
        }
        if self.tells_stops {
            for stops in &mut self.stops {
                stops.clear();
                give_back(stops);
            }
        }
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
                forward_id: None,
            };
        }
        self.check(dir, o, now_ms, false)
    }

    /// A framing error that is not an over-long frame (the stream ends inside a message, a
    /// `Content-Length` header block is malformed): no message can be read there. Only a
    /// merge of two recorded streams meets one; the proxy's lines always end.
    pub fn observe_bad_framing(&mut self, dir: Dir) -> Violation {
        self.count_message(dir, "framing_error");
        self.flag(dir, Violation::BadFraming);
        Violation::BadFraming
    }

    /// A `Content-Length` body whose `Content-Type` names a charset other than UTF-8, skipped
    /// unread; the stream goes on. Owed the reply a frame that is not JSON is, as an
    /// over-long frame is, but counted apart: its size is not what is wrong. Only a merge of
    /// two recorded streams meets one; the proxy reads lines.
    pub fn observe_unsupported_charset(&mut self, dir: Dir) -> Violation {
        self.count_message(dir, "framing_error");
        self.flag(dir, Violation::UnsupportedCharset);
        Violation::UnsupportedCharset
    }

    fn count_message(&mut self, dir: Dir, kind: &str) {
        *self
            .counters
            .messages
            .entry((dir, kind_name(kind)))
            .or_default() += 1;
    }

    /// The checks of one message, or element of a batch (`in_batch`).
    fn check(&mut self, dir: Dir, o: &Observation<'_>, now_ms: u64, in_batch: bool) -> Verdict {
        // Cancellation, `initialize` and the protocol version are MCP's; plain JSON-RPC has
        // none of them (a `notifications/cancelled` there is just a notification).
        let mcp = self.dialect == Dialect::Mcp;
        let mut forward = true;
        let mut forward_id = None;
        // A task seen to end (a terminal status, told by the task's receiver) takes its
        // progress token with it, whatever else the message is.
        if let (true, Some((task, true))) = (mcp, o.task) {
            self.end_task(dir.other(), task);
        }
        let violation = match o.kind {
            "request" => {
                let method = o.method.unwrap_or_default();
                let name = self.counters.count_method(dir, method);
                let id = o.id.expect("a request has an id");
                let forbidden = dir == Dir::S2c && self.knows_version_from_2026_07_28();
                // MCP: "The initialization phase MUST be the first interaction between client
                // and server": once the server accepted one `initialize`, a second is refused
                // (not forwarded: the session's rules are settled by the first, and the
                // server would renegotiate under the proxy; the client is answered -32600).
                let initializes_again = dir == Dir::C2s
                    && mcp
                    && self.initialized
                    && self.refuses_second_initialize
                    && method == mcp::methods::INITIALIZE;
                if forbidden {
                    forward = false;
                    self.flag(dir, Violation::ServerRequestForbidden)
                } else if initializes_again {
                    forward = false;
                    self.flag(dir, Violation::SecondInitialize)
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
                        progress_token: progress_token.clone().map(Box::new),
                        in_batch,
                        batch,
                        names_version: reads_version && o.protocol_version.is_some(),
                        lists_tools: dir == Dir::C2s && mcp && method == mcp::methods::TOOLS_LIST,
                        task_augmented: o.task_augmented && progress_token.is_some(),
                        client_id: None,
                        untracked_in_arrays: 0,
                    };
                    let lists_tools = waiting.lists_tools;
                    let task_augmented = waiting.task_augmented;
                    // Whether the sender reuses an id of its own whose reply could still come
                    // (a duplicate): judged by its ids, not by those the server was sent, which
                    // the session may have minted.
                    let reused = self.sender_reuses(dir, id);
                    // A JSON-RPC client request reusing an id whose reply could still come
                    // goes to the server under a minted id, and waits by it: the late reply
                    // to the old request then answers the old one only ([`rewrite`]).
                    let mut waiting = waiting;
                    let upstream_id = self
                        .needs_upstream_id(dir, id, in_batch)
                        .then(|| self.mint_upstream_id(id));
                    // (The client's id is kept beside the minted one: its spelling counts.)
                    let extra_bytes =
                        extra_bytes + upstream_id.as_ref().map_or(0, |_| id.raw().len());
                    let client_id = id;
                    let id = match &upstream_id {
                        Some(upstream_id) => {
                            waiting.client_id = Some(Box::new(client_id.to_owned_id()));
                            upstream_id.as_id()
                        }
                        None => id,
                    };
                    // (A request of a client batch keeps the id it waits by once more, in its
                    // batch's record, while it waits: that spelling counts too.)
                    let extra_bytes = extra_bytes + if batch != 0 { id.raw().len() } else { 0 };
                    // An id cancelled or timed out lately is taken too: its late reply may
                    // still come, and would answer the new request (MCP: an id is never
                    // reused in a session; refused). JSON-RPC only warns: the request is
                    // forwarded, under a minted id when the session rewrites them (above),
                    // else as it is, so it waits like any other (else every reply with its id
                    // would be dropped as late, and no deadline would answer it), and the
                    // first reply with its id answers it.
                    // The requests in line count against `--max-in-flight` and the byte
                    // budget too: the table alone would take a fresh id while it and the
                    // lines hold the limit (its cost as the table counts it: its spelling
                    // and its extra bytes; the table keeps no key).
                    let line = &self.queued[slot(dir)];
                    let (in_line, line_bytes) = (line.len(), line.bytes());
                    let table = &mut self.waiting[slot(dir)];
                    let fresh = in_line > 0 && !table.contains(id);
                    let cost = || id.raw().len() + extra_bytes;
                    // (MCP refuses a reused id, but for a batch element going on under a
                    // minted id: `needs_upstream_id`.)
                    let reserved = if reused && mcp && upstream_id.is_none() {
                        Err(InFlightError::Duplicate)
                    } else if fresh && table.len() + in_line >= self.max_in_flight {
                        Err(InFlightError::Full {
                            limit: self.max_in_flight,
                        })
                    } else if fresh && table.bytes() + line_bytes + cost() > self.max_owed_bytes {
                        Err(InFlightError::OverBudget {
                            budget: self.max_owed_bytes,
                        })
                    } else {
                        table.reserve_with_extra(id, extra_bytes)
                    };
                    // (`refused`: the request, when the table did not take it in.)
                    let (inserted, refused) = match reserved {
                        Ok(reserved) => {
                            reserved.insert(waiting);
                            (Ok(()), None)
                        }
                        Err(e) => (Err(e), Some(waiting)),
                    };
                    match (inserted, refused) {
                        (Ok(()), _) => {
                            if upstream_id.is_some() {
                                *self
                                    .rewritten_client_ids
                                    .entry(IdKey::of(client_id))
                                    .or_default() += 1;
                            }
                            forward_id = upstream_id.clone();
                            // MCP: a progress token "MUST be unique across all active
                            // requests"; a second one is forwarded (the request is valid),
                            // but the progress of the two cannot be told apart.
                            let mut shared_token = false;
                            if let Some(token) = progress_token {
                                let active =
                                    self.progress_tokens[slot(dir)].entry(token).or_default();
                                shared_token = active.users > 0;
                                active.users += 1;
                            }
                            self.tools_lists_waiting += usize::from(lists_tools);
                            self.task_requests_waiting[slot(dir)] += usize::from(task_augmented);
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
                            // answers it: `close_batch`), whose record holds it by its number
                            // until it stops waiting (`release`).
                            if let (Some((_, _, wait)), true) = (&mut self.open_batch, batch != 0) {
                                wait.requests.insert(self.seq, id.to_owned_id());
                            } else if let (Some(t), Dir::C2s, false) =
                                (self.timeout_ms, dir, self.waits_by_design(method))
                            {
                                self.deadlines.push(Reverse(Deadline {
                                    // (A timeout too long to reach never expires.)
                                    at: now_ms.saturating_add(t),
                                    seq: self.seq,
                                    of: DeadlineOf::Request(id.to_owned_id()),
                                }));
                            }
                            if reused {
                                self.flag(dir, Violation::DuplicateId)
                            } else if mcp
                                && !self.reads_from_2026_07_28(o)
                                && self.used_lately[slot(dir)].contains(&IdKey::of(client_id))
                            {
                                // Forwarded: the earlier request's reply came, so none can
                                // answer this one in its place.
                                self.flag(dir, Violation::ReusedId)
                            } else if shared_token {
                                self.flag(dir, Violation::DuplicateProgressToken)
                            } else if self.breaks_handshake(dir, o) {
                                self.flag(dir, Violation::InvalidInitialize)
                            } else {
                                None
                            }
                        }
                        // JSON-RPC only warns: a request reusing an id still in flight is
                        // forwarded and waits behind the one holding it (the first reply with
                        // the id answers the first), within the limits of the requests in
                        // flight (a session that does not rewrite it: the server's, or two
                        // recorded streams). Not a client's inside a batch, which goes with
                        // its batch, untracked: a batch's requests are found by id when it
                        // times out, and the one holding the id would be taken for it. A
                        // server's does wait, in either dialect (no deadline applies to it;
                        // MCP refuses one sent alone, but nobody answers an element in the
                        // client's place): else the client's second reply with the id would
                        // answer nothing. (Behind one in flight: MCP also refuses an id
                        // cancelled lately, which nothing holds.)
                        (Err(InFlightError::Duplicate), Some(mut waiting))
                            if (!mcp && !in_batch)
                                || (in_batch
                                    && dir == Dir::S2c
                                    && self.queues_reused_server_elements
                                    && self.waiting[slot(dir)].contains(id)) =>
                        {
                            // (Its progress is not told from the first's: not kept; and
                            // without its token, a task it asks for keeps none: no task
                            // request, which `release` would take off a count it is not in.)
                            waiting.progress_token = None;
                            waiting.task_augmented = false;
                            if self.wait_in_line(dir, id, waiting, extra_bytes, now_ms) {
                                self.flag(dir, Violation::DuplicateId)
                            } else {
                                forward = false;
                                self.flag(dir, Violation::TooManyInFlight)
                            }
                        }
                        (Err(InFlightError::Duplicate), _) => {
                            // MCP forbids reusing an id; JSON-RPC only warns (inside a batch:
                            // untracked). No duplicate when the id the table holds is one the
                            // session minted, which the client never sent (`reused`).
                            forward = self.dialect == Dialect::JsonRpc2;
                            if reused || mcp {
                                self.flag(dir, Violation::DuplicateId)
                            } else {
                                None
                            }
                        }
                        // Full or over its budget (or any refusal the table may come to
                        // make): the request is refused.
                        (Err(_), refused) => {
                            forward = false;
                            // Inside a batch it goes with its batch, untracked: under the id
                            // minted for it when the server may still answer its own for
                            // another request (the reply to it is then told from that one's,
                            // and goes back with the client's id), else under its own id, and
                            // a request sent alone holding that id is not answered by the
                            // reply to it, in the server's array (a session that forwarded
                            // every untracked element under the client's id: older logs).
                            let minted = upstream_id.clone().filter(|minted| {
                                in_batch
                                    && self.rewriting >= IdRewriting::UntrackedElements
                                    && self
                                        .untracked_rewrites
                                        .push(IdKey::of(minted.as_id()), client_id.to_owned_id())
                            });
                            let under_own_id = minted.is_none();
                            // Kept, within bounds of its own, until its reply comes: a
                            // client's batch's timeout answers it, and the end reports it
                            // unanswered.
                            match (refused, &mut self.open_batch, in_batch, dir) {
                                (Some(mut waiting), Some((_, _, wait)), true, Dir::C2s)
                                    if self.keeps_untracked =>
                                {
                                    let upstream = minted.clone().unwrap_or_else(|| {
                                        waiting.client_id = None;
                                        client_id.to_owned_id()
                                    });
                                    // (Its progress token was not taken in: it is not kept,
                                    // and the element's bounds count its ids only.)
                                    waiting.progress_token = None;
                                    if self.untracked_elements.push(upstream, waiting) {
                                        wait.untracked_left += 1;
                                    }
                                }
                                (Some(mut waiting), _, true, Dir::S2c)
                                    if self.keeps_untracked_server =>
                                {
                                    // (Under its own id, and with no batch record: nothing
                                    // answers a server's request in the client's place.)
                                    waiting.progress_token = None;
                                    let elements = &mut self.untracked_server_elements;
                                    elements.push(client_id.to_owned_id(), waiting);
                                }
                                _ => {}
                            }
                            forward_id = minted;
                            // A later request of its id, sent alone or in a batch, goes under a
                            // minted id: the server's reply to the element, which answers no
                            // request, is not taken for that request's.
                            if in_batch
                                && under_own_id
                                && dir == Dir::C2s
                                && self.dialect == Dialect::JsonRpc2
                                && self.rewriting == IdRewriting::All
                            {
                                self.untracked_own_ids.push(IdKey::of(client_id), None);
                            }
                            let holder = (in_batch
                                && self.rewriting >= IdRewriting::TrackedElements
                                && under_own_id)
                                .then(|| o.id.and_then(|id| self.waiting[slot(dir)].get_mut(id)))
                                .flatten()
                                .filter(|w| !w.in_batch);
                            if let Some(holder) = holder {
                                holder.untracked_in_arrays =
                                    holder.untracked_in_arrays.saturating_add(1);
                            }
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
                } else if self.params_break_schema(o) {
                    // Neither a cancellation nor a progress report: a receiver holding it to
                    // the schema drops it. Forwarded all the same, as it asks nothing.
                    self.flag(dir, Violation::InvalidNotificationParams)
                } else if self.is_server_cancellation(dir, o) {
                    // MCP 2026-07-28: a server "MUST send notifications/cancelled referencing a
                    // subscriptions/listen request ID when it tears down that subscription
                    // stream", and "MUST NOT send notifications/cancelled for any other
                    // purpose". Either way it asks nothing, and goes on unchanged.
                    if cancels.is_some_and(|id| self.tear_down_stream(id)) {
                        None
                    } else {
                        self.flag(dir, Violation::ForbiddenCancellation)
                    }
                } else {
                    if let Some(cancelled) = cancels {
                        // The peer gave up on its own request: a late reply is to be ignored.
                        // (Or on a batch element of its own that went untracked, kept: it
                        // ends alike.)
                        if let Some((_, w)) = self.take_waiting(dir, cancelled) {
                            self.release(dir, cancelled, &w);
                            self.remember(dir, IdKey::of(cancelled), None);
                        } else {
                            self.cancel_untracked(dir, cancelled);
                        }
                    }
                    let stray_progress = self.tracks_progress()
                        && o.method == Some(mcp::methods::PROGRESS)
                        && o.progress_token
                            .is_some_and(|token| !self.progress_is_active(dir, token));
                    if stray_progress {
                        self.flag(dir, Violation::UnknownProgress)
                    } else if self.progress_does_not_increase(dir, o) {
                        self.flag(dir, Violation::ProgressNotIncreasing)
                    } else if self.stream_is_closed(dir, o.subscription) {
                        self.flag(dir, Violation::UnknownSubscription)
                    } else {
                        None
                    }
                }
            }
            "success_response" | "error_response" => {
                if let Some(code) = o.error_code {
                    self.counters.count_error(dir, code);
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
                        self.owed_answered_by(dir, o.kind, o.id)
                    }
                    None if in_batch
                        && asked == Dir::C2s
                        && self.late_owed.take(None).is_some() =>
                    {
                        // Owed to an element of a batch that timed out: the proxy answered it.
                        forward = false;
                        self.flag(dir, Violation::LateReply)
                    }
                    None if o.kind == "error_response"
                        && self.owed_lines[slot(asked)].take(None) =>
                    {
                        // The reply to a line whose id could not be read (alone, or inside an
                        // array, as a request sent alone may be answered).
                        None
                    }
                    None if o.id.is_some_and(|id| {
                        id.is_null() && self.recent[slot(asked)].contains(&IdKey::of(id))
                    }) =>
                    {
                        // The late reply to a JSON-RPC request with a null id that was given
                        // up on: the proxy answered it already.
                        forward = false;
                        self.flag(dir, Violation::LateReply)
                    }
                    None => {
                        // Every valid request the proxy forwards has an id, and none with a
                        // null id waits: an error here answers a notification (or a line whose
                        // id could not be read), a success (JSON-RPC) nothing at all. Nobody
                        // can match either.
                        forward = self.dialect == Dialect::JsonRpc2;
                        self.flag(dir, Violation::ReplyWithoutId)
                    }
                    // (A null id while a request of a null id waits alone: an element whose
                    // id could not be read first, as below.)
                    Some(id)
                        if owed_error
                            && self.waiting[slot(asked)]
                                .get(id)
                                .is_some_and(|w| !w.in_batch || self.in_other_batch(asked, w))
                            && self.take_owed_reply(
                                asked,
                                Some(IdKey::of(id)).filter(|_| !id.is_null()).as_ref(),
                            ) =>
                    {
                        None
                    }
                    Some(id) => {
                        // A reply inside an array never answers a request sent alone under a
                        // minted id (§6: a request sent alone is answered alone): it answers
                        // the client's own request of that id sent in a batch (untracked: the
                        // table held the minted one, in a session that does not rewrite batch
                        // elements), and the minted one still waits for its reply, to go back
                        // with the client's id. Nor one sent alone whose id an untracked
                        // element of a client batch took since (`untracked_in_arrays`): the
                        // reply is that element's.
                        let alone = in_batch
                            .then(|| self.waiting[slot(asked)].get_mut(id))
                            .flatten()
                            .filter(|w| !w.in_batch);
                        let answers_alone_only = match alone {
                            Some(w) if w.client_id.is_some() => true,
                            Some(w) if w.untracked_in_arrays > 0 => {
                                w.untracked_in_arrays -= 1;
                                true
                            }
                            _ => false,
                        };
                        let taken = if answers_alone_only {
                            None
                        } else {
                            self.take_waiting(asked, id)
                        };
                        if let Some((_, mut w)) = taken {
                            // (Where the order of arrival is known, only while an invalid
                            // element it may answer is owed: one sent after the error came is
                            // not.)
                            let may_be_elements = !self.knows_arrival_order
                                || self.owes_element_reply(asked, Some(id));
                            if in_batch
                                && w.in_batch
                                && o.kind == "error_response"
                                && may_be_elements
                            {
                                self.errors_to_batch_requests[slot(asked)]
                                    .push(IdKey::of(id), None);
                            }
                            if o.kind == "success_response" {
                                self.keep_task_progress(asked, &w, o.task);
                            }
                            self.release(asked, id, &w);
                            // The reply to a request forwarded under a minted id goes back
                            // with the client's, alone or inside an array (rebuilt with that
                            // element's id restored).
                            forward_id = w.take_client_id();
                            // The first `initialize` answered with a version settles it, as
                            // it settles the proxy's decoders: a second `initialize` answered
                            // otherwise leaves the session's rules where they are.
                            if dir == Dir::S2c
                                && self.is_initialize_waiting(&w)
                                && self.protocol_version.is_none()
                            {
                                self.protocol_version = o.protocol_version.map(str::to_string);
                            }
                            // (Whatever version it names: the server took the client in.)
                            if dir == Dir::S2c
                                && self.is_initialize_waiting(&w)
                                && o.kind == "success_response"
                            {
                                self.initialized = true;
                            }
                            if dir == Dir::S2c && w.names_version {
                                self.adopt_request_version(o.kind);
                            }
                            let invalid_tools = w.lists_tools
                                && o.kind == "success_response"
                                && o.invalid_tools.is_some()
                                && has_tool_headers(self.protocol_version.as_deref());
                            let invalid_initialize = dir == Dir::S2c
                                && self.is_initialize_waiting(&w)
                                && o.kind == "success_response"
                                && o.params_fault.is_some();
                            if invalid_tools {
                                self.flag(dir, Violation::InvalidToolHeaders)
                            } else if invalid_initialize {
                                self.flag(dir, Violation::InvalidInitialize)
                            } else {
                                None
                            }
                        } else if self.take_owed_reply(asked, Some(&IdKey::of(id))) {
                            self.owed_answered_by(dir, o.kind, Some(id))
                        } else if o.kind == "error_response"
                            && self.owed_lines[slot(asked)].take(Some(id))
                        {
                            // The reply to an invalid line whose id could be read (alone, or
                            // inside an array, as a request sent alone may be answered).
                            None
                        } else if let Some(client_id) = self.take_untracked_rewrite(asked, id) {
                            // The reply to a batch element beyond the limits, forwarded under
                            // a minted id: back with the client's, alone or inside an array.
                            // Its one reply when the element was kept; else unknown, as the
                            // reply to any request beyond the limits.
                            forward_id = Some(client_id);
                            if self.untracked_answered(asked, id).is_some() {
                                None
                            } else {
                                self.flag(dir, Violation::UnknownReply)
                            }
                        } else if asked == Dir::C2s
                            && self.late_owed.take(Some(&IdKey::of(id))).is_some()
                        {
                            // The same, with the element's id.
                            forward = false;
                            self.flag(dir, Violation::LateReply)
                        } else if self.recent[slot(asked)].contains(&IdKey::of(id)) {
                            forward = false;
                            self.flag(dir, Violation::LateReply)
                        } else if let Some(element) = self.untracked_answered(asked, id) {
                            // The one reply to a batch element beyond the limits, kept: under
                            // its own id, or (a client's) under a minted one whose rewrite was
                            // forgotten (back with the client's all the same).
                            forward_id = element.client_id.map(|id| *id);
                            None
                        } else {
                            // A second reply, or one to an id nobody sent: the peer cannot
                            // match it (MCP); JSON-RPC leaves it to the peer. (Or the reply to
                            // a batch element beyond the limits that was not kept: unknown
                            // too, as the reply to any request beyond the limits.)
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
        Verdict {
            forward,
            violation,
            forward_id,
        }
    }

    /// Takes the request sent in `dir` that holds `id` in the table of requests waiting (it was
    /// answered, cancelled, given up on); the next one in line reusing that id ([`Queued`]),
    /// if any, takes its place.
    fn take_waiting(&mut self, dir: Dir, id: Id<'_>) -> Option<(IdBuf, Waiting)> {
        let taken = self.waiting[slot(dir)].remove(id)?;
        while let Some((next, waiting, extra_bytes)) = self.queued[slot(dir)].pop(id) {
            // There is room: the request it replaces left it, and the lines share the table's
            // limits, so the table and they never hold more than the budget. (Were it to fail,
            // the request would be left untracked, as a request beyond the limits is, and the
            // next in line would take its place: no line waits behind an id the table no
            // longer holds.)
            let table = &mut self.waiting[slot(dir)];
            let entered = table
                .insert_with_extra(next.as_id(), extra_bytes, waiting.clone())
                .or_else(|_| table.insert(next.as_id(), waiting));
            if entered.is_ok() {
                break;
            }
        }
        give_back(&mut self.waiting[slot(dir)]);
        Some(taken)
    }

    /// Puts a JSON-RPC request sent in `dir` reusing `id`, still in flight, in line behind the
    /// one holding it ([`Queued`]), with a deadline of its own (a client's, as any request's),
    /// unless the requests in flight in `dir`, it included, would be more than
    /// `--max-in-flight`, or their bytes more than their budget. Returns whether it was.
    fn wait_in_line(
        &mut self,
        dir: Dir,
        id: Id<'_>,
        waiting: Waiting,
        extra_bytes: usize,
        now_ms: u64,
    ) -> bool {
        // (MCP's only, which puts none of the client's in line and no progress token, so no
        // task request either: nothing to count.)
        debug_assert!(
            waiting.progress_token.is_none() && !waiting.lists_tools && !waiting.task_augmented
        );
        let table = &self.waiting[slot(dir)];
        let in_flight = table.len() + self.queued[slot(dir)].len();
        let room = self.max_owed_bytes.saturating_sub(table.bytes());
        let (seq, method) = (waiting.seq, waiting.method.clone());
        let in_line = in_flight < self.max_in_flight
            && self.queued[slot(dir)].push(id, waiting, extra_bytes, room);
        if let (true, Some(t), Dir::C2s, false) =
            (in_line, self.timeout_ms, dir, self.waits_by_design(&method))
        {
            self.deadlines.push(Reverse(Deadline {
                // (A timeout too long to reach never expires.)
                at: now_ms.saturating_add(t),
                seq,
                of: DeadlineOf::Request(id.to_owned_id()),
            }));
        }
        in_line
    }

    /// An invalid line sent alone in `dir` calls for an error reply (alone, or inside an array,
    /// as the reply to a request sent alone may come): its peer owes
    /// it, with the line's `id`, or without one (`None`, or a null id) when the line's could
    /// not be read (JSON-RPC 2.0 §5.1 spells it null; MCP 2025-11-25 leaves it out). A merge of
    /// two streams, whose peers read every line, tells it; the proxy answers such a client
    /// line itself, and drops such a server line.
    pub fn owe_line_reply(&mut self, dir: Dir, id: Option<Id<'_>>) {
        self.owed_lines[slot(dir)].owe(id);
    }

    /// Whether an error reply with the id `id` (`None`, or a null id: without one) answers a
    /// line sent in `dir` ([`owe_line_reply`](Self::owe_line_reply)).
    pub fn owes_line_reply(&self, dir: Dir, id: Option<Id<'_>>) -> bool {
        self.owed_lines[slot(dir)].owes(id)
    }

    /// A client request the proxy answers itself (it timed out, or a dropped batch answered
    /// it), or a listen stream the server tore down: removed, released, remembered for a late
    /// reply.
    fn stop_waiting(&mut self, id: Id<'_>) -> Option<(IdBuf, Waiting)> {
        let (id, w) = self.take_waiting(Dir::C2s, id)?;
        self.release(Dir::C2s, id.as_id(), &w);
        let client_key = w.client_id.as_ref().map(|c| IdKey::of(c.as_id()));
        self.remember(Dir::C2s, IdKey::of(id.as_id()), client_key);
        Some((id, w))
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
        w.lists_tools && has_tool_headers(self.version_of(w))
    }

    /// The protocol version a client request waiting (`w`) is read under: the session's once
    /// known, else the one the client's requests named in their `_meta` while the session
    /// read them ([`Session::request_version`]), when `w` named one; else none.
    fn version_of(&self, w: &Waiting) -> Option<&str> {
        match &self.protocol_version {
            Some(version) => Some(version),
            None if w.names_version => self.request_version.as_deref(),
            None => None,
        }
    }

    /// What a success sent in `dir` with the id `id` tells of a task (MCP 2025-11-25), by the
    /// request it answers: a task-augmented request with a progress token (its
    /// `CreateTaskResult`), or, while a task keeps a token, `tasks/get`, `tasks/cancel` or
    /// `tasks/result`. The proxy reads the reply's task ([`Described::read_task`]) only when
    /// this is `Some`; while no such request waits and no task keeps a token it answers
    /// without a lookup.
    pub fn reads_task(&self, dir: Dir, id: Option<Id<'_>>) -> Option<TaskReply> {
        let requester = slot(dir.other());
        let tasks_open = !self.task_tokens[requester].is_empty();
        if self.dialect != Dialect::Mcp
            || (self.task_requests_waiting[requester] == 0 && !tasks_open)
        {
            return None;
        }
        let w = self.waiting[requester].get(id?)?;
        if w.task_augmented {
            return Some(TaskReply::Created);
        }
        TaskReply::of_task_request(&w.method).filter(|_| tasks_open)
    }

    /// Whether a server's notification of a listen stream (`subscription`: the listen
    /// request's id) comes when no such client request is waiting (MCP only): none of that
    /// id, or one of another method.
    fn stream_is_closed(&self, dir: Dir, subscription: Option<Id<'_>>) -> bool {
        self.dialect == Dialect::Mcp
            && dir == Dir::S2c
            && subscription.is_some_and(|id| !self.listen_waits(id))
    }

    /// Whether a client's `subscriptions/listen` request with id `id` waits: its stream is
    /// open.
    fn listen_waits(&self, id: Id<'_>) -> bool {
        self.waiting[slot(Dir::C2s)]
            .get(id)
            .is_some_and(|w| &*w.method == mcp::methods::SUBSCRIPTIONS_LISTEN)
    }

    /// Whether the session's protocol version is known and MCP 2026-07-28 or later, which
    /// forbids the server's requests and gives its cancellations one purpose only.
    fn knows_version_from_2026_07_28(&self) -> bool {
        self.protocol_version
            .as_deref()
            .is_some_and(|v| mcp::versions::is_at_least(v, mcp::versions::V2026_07_28))
    }

    /// Whether the request `o` is read under MCP 2026-07-28 or later: the session's version
    /// when known, else the one the request names in its `_meta` while the session reads them
    /// ([`reads_request_versions`](Self::reads_request_versions): the proxy reads no other,
    /// and a merged check's records name every request's, so that it decides nothing for
    /// either otherwise). That revision forbids reusing only the id of a request still waiting
    /// ("The request ID **MUST NOT** match the ID of any other request the sender has issued
    /// and not yet received a response for"), where the earlier ones forbid any id
    /// "previously used by the requestor within the same session" (`reused_id`).
    fn reads_from_2026_07_28(&self, o: &Observation<'_>) -> bool {
        self.protocol_version
            .as_deref()
            .or(o.protocol_version.filter(|_| self.reads_request_versions()))
            .is_some_and(|v| mcp::versions::is_at_least(v, mcp::versions::V2026_07_28))
    }

    /// Whether `o`, sent in `dir`, is a server's `notifications/cancelled` read as MCP
    /// 2026-07-28 reads it, where it may only tear down a listen stream: under a known version
    /// from 2026-07-28 on, or, with no version known, when it names a listen stream still
    /// open whose request named such a version (`stream_from_2026_07_28`). (Otherwise it is
    /// the server giving up on a request of its own.)
    fn is_server_cancellation(&self, dir: Dir, o: &Observation<'_>) -> bool {
        self.dialect == Dialect::Mcp
            && dir == Dir::S2c
            && o.method == Some(mcp::methods::CANCELLED)
            && (self.knows_version_from_2026_07_28()
                || o.cancels.is_some_and(|id| self.stream_from_2026_07_28(id)))
    }

    /// Whether `id` is a client's listen stream still open whose request is read under MCP
    /// 2026-07-28 or later ([`version_of`](Self::version_of)) while the session knows no
    /// version: the listen request may be the first to name it, and a stream's reply comes
    /// only when it closes. Not while a server request of that id waits, which a server's
    /// cancellation naming it may be giving up on (the server may not be speaking
    /// 2026-07-28, which forbids its requests).
    fn stream_from_2026_07_28(&self, id: Id<'_>) -> bool {
        self.protocol_version.is_none()
            && !self.awaits_reply(Dir::S2c, id)
            && self.waiting[slot(Dir::C2s)].get(id).is_some_and(|w| {
                &*w.method == mcp::methods::SUBSCRIPTIONS_LISTEN
                    && self
                        .version_of(w)
                        .is_some_and(|v| mcp::versions::is_at_least(v, mcp::versions::V2026_07_28))
            })
    }

    /// The server tears down the client's listen stream `id`: when such a request waits, it
    /// stops waiting as a cancelled request does (later notifications on the stream are
    /// unknown, a result is late). Returns whether one did.
    fn tear_down_stream(&mut self, id: Id<'_>) -> bool {
        let is_listen = self.listen_waits(id);
        if is_listen {
            self.stop_waiting(id);
        }
        is_listen
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

    /// Whether a client request of `method` waits as long as it takes, so that no timeout
    /// applies: a listen stream ([`is_stream`](Self::is_stream)), or MCP's `tasks/result`,
    /// whose receiver "MUST block the response until the task reaches a terminal status"
    /// (2025-11-25; a method no earlier version has).
    fn waits_by_design(&self, method: &str) -> bool {
        self.is_stream(method)
            || (self.dialect == Dialect::Mcp && method == mcp::methods::TASKS_RESULT)
    }

    /// Whether `id` is a client's `initialize` request, still waiting. (Every one that waits:
    /// a client sending a second before the first is answered must not have either cancelled.)
    fn is_initialize(&self, id: Id<'_>) -> bool {
        self.waiting[slot(Dir::C2s)]
            .get(id)
            .is_some_and(|w| self.is_initialize_waiting(w))
    }

    /// Whether `w`, a client request waiting (or that stopped waiting: answered, timed out),
    /// is MCP's `initialize`.
    fn is_initialize_waiting(&self, w: &Waiting) -> bool {
        self.dialect == Dialect::Mcp && &*w.method == mcp::methods::INITIALIZE
    }

    /// A session that refuses a client's `initialize` once the server answered one with a
    /// success (`refuse`, the default: [`Violation::SecondInitialize`]), or not: the replay
    /// of a log of a proxy that forwarded it and tracked it as any request (its header lacks
    /// `refuses_second_initialize`).
    pub fn refusing_second_initialize(mut self, refuse: bool) -> Session {
        self.refuses_second_initialize = refuse;
        self
    }

    /// A session in which an element of a server's batch reusing an id in flight waits in
    /// line behind the request holding it, so that the client's second reply with the id
    /// answers it (`queue`, the default), or not: the replay of a log of a proxy that
    /// forwarded it untracked (its header lacks `queues_reused_server_elements`), which took
    /// that reply for an unknown one.
    pub fn queuing_reused_server_elements(mut self, queue: bool) -> Session {
        self.queues_reused_server_elements = queue;
        self
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

    /// Whether `o`, a request sent in `dir`, is a client's MCP `initialize` whose params break
    /// `InitializeRequestParams` ([`ParamsFault::of_initialize`]).
    fn breaks_handshake(&self, dir: Dir, o: &Observation<'_>) -> bool {
        self.dialect == Dialect::Mcp
            && dir == Dir::C2s
            && o.method == Some(mcp::methods::INITIALIZE)
            && o.params_fault.is_some()
    }

    /// Whether `o` is an MCP `notifications/progress` or `notifications/cancelled` whose params
    /// break the schema of the session's protocol version ([`ParamsFault::breaks`]).
    fn params_break_schema(&self, o: &Observation<'_>) -> bool {
        self.dialect == Dialect::Mcp
            && o.params_fault
                .is_some_and(|fault| fault.breaks(self.protocol_version.as_deref()))
    }

    /// Whether `o`, sent in `dir`, is a `notifications/progress` whose `progress` is not
    /// greater than the last one reported on its token while the token is active (MCP: it
    /// "MUST increase with each notification"). It becomes the token's last either way. One
    /// whose `progress` could not be read ([`mcp::Progress`]) is not judged, and leaves the
    /// last as it was; so is one on a token no longer active (an `unknown_progress`).
    fn progress_does_not_increase(&mut self, dir: Dir, o: &Observation<'_>) -> bool {
        let (Some(token), Some(progress), true) = (
            o.progress_token,
            o.progress,
            self.tracks_progress() && o.method == Some(mcp::methods::PROGRESS),
        ) else {
            return false;
        };
        self.progress_tokens[slot(dir.other())]
            .get_mut(&IdKey::of(token))
            .is_some_and(|active| !active.report(progress))
    }

    /// How many requests sent in `dir` stopped waiting so far (answered, cancelled, timed
    /// out), the batch elements kept beyond the limits included ([`Session::awaits_reply`]):
    /// a count that moves whenever one does.
    pub fn stopped_waiting(&self, dir: Dir) -> u64 {
        self.stopped_waiting[slot(dir)]
    }

    /// A request sent in `dir`, or a batch element kept beyond the limits, stopped waiting:
    /// counted ([`Session::stopped_waiting`]), and told ([`Session::last_stops`]) as `stop`
    /// gives it (the key it waited by and its progress token; asked only when told, so that
    /// the proxy copies nothing).
    pub(super) fn stopped(&mut self, dir: Dir, stop: impl FnOnce() -> (IdKey, Option<IdKey>)) {
        self.stopped_waiting[slot(dir)] += 1;
        if self.tells_stops {
            let stop = stop();
            self.stopped_lately[slot(dir)].push(stop.0.clone(), None);
            if let Some(token) = &stop.1 {
                self.tokens_stopped_lately[slot(dir)].push(token.clone(), None);
            }
            self.stops[slot(dir)].push(stop);
        }
    }

    /// Whether a request `id` sent in `requester` stopped waiting lately (one of the last
    /// 4,096 that did, fewer when their ids pass 1 MiB), none of that id waiting now: a reply with
    /// `id` is a second reply (or a late one), unless the requester sends the id again. Known
    /// only in a session that tells its stops ([`Session::telling_stops`]).
    pub fn stopped_waiting_lately(&self, requester: Dir, id: Id<'_>) -> bool {
        !self.awaits_reply(requester, id)
            && self.stopped_lately[slot(requester)].contains(&IdKey::of(id))
    }

    /// Whether a `notifications/progress` sent in `dir` reports on the token of a request of
    /// the other side that stopped waiting lately (as [`Session::stopped_waiting_lately`]
    /// tells of ids), none carrying it now: progress after the request's result or
    /// cancellation, unless the other side sends the token again.
    pub fn token_stopped_lately(&self, dir: Dir, token: Id<'_>) -> bool {
        !self.progress_is_active(dir, token)
            && self.tokens_stopped_lately[slot(dir.other())].contains(&IdKey::of(token))
    }

    /// A session that tells which requests stopped waiting ([`Session::last_stops`]), for a
    /// merge of two streams: a batch peeked in one, waiting for the other to move on, then
    /// looks again only at its elements that a request stopping may concern; and a reply to
    /// one of the last of them, or progress on its token, is told from one to an id (a token)
    /// not sent yet ([`Session::stopped_waiting_lately`], [`Session::token_stopped_lately`]).
    /// (Not the proxy, which does not ask, and would pay a copy of each id answered.)
    pub fn telling_stops(mut self) -> Session {
        self.tells_stops = true;
        self
    }

    /// A session whose messages are merged from two streams, without their order of arrival:
    /// an error inside an array that answers a request sent in a batch may be the reply to an
    /// invalid element of its id observed after it (replies to different batches come in any
    /// order, §6), so a success of that id later finding only that element's reply owed is
    /// let off (`owed_answered_by`) whether or not the element was owed when the error came.
    /// (The proxy lets it off only for an element owed then: one the client sent after the
    /// error came cannot have been answered by it.)
    pub fn without_arrival_order(mut self) -> Session {
        self.knows_arrival_order = false;
        self
    }

    /// The last `n` requests sent in `dir` that stopped waiting (the batch elements kept
    /// beyond the limits included, as [`Session::stopped_waiting`] counts them), in order:
    /// the key each waited by, and its progress token. `None` when they are not all known:
    /// the session does not tell them, or more stopped than since the message observed last
    /// began.
    pub fn last_stops(&self, dir: Dir, n: u64) -> Option<&[(IdKey, Option<IdKey>)]> {
        let stops = &self.stops[slot(dir)];
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| self.tells_stops && n <= stops.len())?;
        Some(&stops[stops.len() - n..])
    }

    /// Whether the request `id` sent in direction `requester` is still waiting for its reply.
    pub fn is_waiting(&self, requester: Dir, id: Id<'_>) -> bool {
        self.waiting[slot(requester)].contains(id)
    }

    /// Whether a reply with `id` to a request sent in `requester` would answer one waiting
    /// for it: a request in the table ([`Session::is_waiting`]), or a batch element that went
    /// untracked beyond the limits and is kept until its reply comes ([`untracked`]).
    pub fn awaits_reply(&self, requester: Dir, id: Id<'_>) -> bool {
        let kept = self.kept(requester);
        self.is_waiting(requester, id) || (!kept.is_empty() && kept.contains(&IdKey::of(id)))
    }

    /// The session ended: every request still waiting is unanswered, in each direction in the
    /// order they were sent. Each with the id its sender gave it, and the one the session
    /// minted for the server, if any ([`Session::rewriting_reused_ids`]).
    ///
    /// A direction's table is let go as soon as its requests are out of it, before they are
    /// made into reports: the requests waiting may take tens of megabytes (hundreds under a
    /// raised `--max-in-flight`), which must not be held twice or three times over at the
    /// end.
    pub fn finish(&mut self) -> Vec<Unanswered> {
        let mut out = vec![];
        for dir in [Dir::C2s, Dir::S2c] {
            let mut left: Vec<_> = self.waiting[slot(dir)].drain().collect();
            // (`drain` empties the table but keeps its slots.)
            self.waiting[slot(dir)] = self.empty_table();
            // Those that waited behind one of the same id after it.
            left.extend(self.queued[slot(dir)].drain());
            // The batch elements that went untracked, kept.
            left.extend(match dir {
                Dir::C2s => self.untracked_elements.drain(),
                Dir::S2c => self.untracked_server_elements.drain(),
            });
            // In the order they were sent (the table's is its hash order, seeded at random:
            // the report must not change from run to run).
            left.sort_unstable_by_key(|(_, w)| w.seq);
            out.reserve_exact(left.len());
            for (id, w) in left {
                // An open listen stream ends with the session: nothing was owed.
                if dir == Dir::C2s && self.is_stream(&w.method) {
                    continue;
                }
                self.flag(dir, Violation::Unanswered);
                let (id, upstream_id) = match w.client_id {
                    Some(client_id) => (*client_id, Some(id)),
                    None => (id, None),
                };
                out.push(Unanswered {
                    dir,
                    id,
                    upstream_id,
                    method: w.method,
                });
            }
        }
        self.deadlines.clear();
        self.tools_lists_waiting = 0;
        self.open_batch = None;
        self.batches.clear();
        self.progress_tokens = [HashMap::new(), HashMap::new()];
        self.task_tokens = [TaskTokens::default(), TaskTokens::default()];
        self.task_requests_waiting = [0, 0];
        // Not reported: the invalid elements were, when they were sent.
        self.owed_element_replies = [OwedReplies::default(), OwedReplies::default()];
        out
    }
}

#[cfg(test)]
impl Session {
    /// The room each table of the session that grows with the requests in flight has (its
    /// capacity, in entries), by name: what [`room`] bounds after a burst. Of the tables kept
    /// one under each key of another (the line of requests behind one id, the replies owed to
    /// one batch under one id), the largest's.
    fn rooms(&self) -> Vec<(String, usize)> {
        let mut rooms = vec![
            ("deadlines".to_string(), self.deadlines.capacity()),
            ("batches".to_string(), self.batches.capacity()),
            (
                "rewritten_client_ids".to_string(),
                self.rewritten_client_ids.capacity(),
            ),
        ];
        for dir in [Dir::C2s, Dir::S2c] {
            let d = dir.as_str();
            let i = slot(dir);
            rooms.push((format!("waiting {d}"), self.waiting[i].capacity()));
            let lines = self.queued[i].rooms();
            let owed = self.owed_element_replies[i].rooms();
            for (name, room) in lines.into_iter().chain(owed) {
                rooms.push((format!("{name} {d}"), room));
            }
            rooms.push((
                format!("progress_tokens {d}"),
                self.progress_tokens[i].capacity(),
            ));
            rooms.push((format!("stops {d}"), self.stops[i].capacity()));
        }
        rooms
    }
}

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;
