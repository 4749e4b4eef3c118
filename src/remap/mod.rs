//! Proxy id remapping: many clients share one upstream without id collisions.
//!
//! A client's request goes upstream with an id we mint (a [`Token`], exact in every peer's
//! number type), its payload untouched but for MCP's `params._meta.progressToken`, which gets
//! the same token (clients collide there too); the upstream's reply, and its progress, come back
//! to the client with the client's original tokens restored byte for byte. Replies to tokens we
//! never minted, or to requests already answered, cancelled or expired, are reported and not
//! forwarded.
//!
//! Nothing here is tied to a direction, and a gateway's own requests go through the same
//! remapper: see [`IdRemapper`]'s section on them (this module's text is not rendered).
//!
//! A task-augmented request (MCP 2025-11-25, experimental: `params.task`) answered with a
//! `CreateTaskResult` leaves a route behind it: the task's progress, and its
//! `notifications/tasks/status`, still go to the client that asked, until the task ends (see
//! [`IdRemapper`]'s section on tasks). Under the Tasks extension of MCP 2026-07-28 (a request
//! declaring it in its capabilities, answered with `resultType: "task"`) the task keeps a
//! route too, with no progress to route: it is its client's until it is seen to end.
//!
//! This file holds the table and its core: forwarding requests, routing replies and
//! subscription streams, cancellation, and the upstream going away. Beside it: `token_index`
//! (the requests in flight by client and id, and the tasks kept by task id), `entries`
//! (each client's list of its entries, and a client going away), `deadlines` (expiry),
//! `progress` (progress tokens), `stream_cancel` (what became of a listen stream's teardown:
//! [`StreamCancel`]), `tasks` (task routes and ended tasks' records), `records` (which
//! record of an ended task gives its room up), `shrink` (giving back the room a burst left),
//! `task_messages` (what MCP's task requests and replies say), `task_list` (a `tasks/list`
//! result filtered for its client) and `error` ([`RemapError`]).

mod deadlines;
mod entries;
mod error;
mod progress;
mod records;
mod shrink;
mod stream_cancel;
mod task_list;
mod task_messages;
mod tasks;
mod token_index;

use core::hash::Hash;

use alloc::collections::VecDeque;
use bytes::BytesMut;
use hashbrown::HashMap;

use crate::decoder::Dialect;
use crate::encode;
use crate::id::{Id, IdBuf};
use crate::json::Lookup;
use crate::mcp::{Cancelled, Task, methods, progress_task_and_extension_members, subscription_id};
use crate::message::{Notification, Request};
use crate::pending::{Miss, PendingTable, Token};
use crate::scan::{Validation, skip_value};

pub use error::RemapError;
pub use progress::ProgressRoute;
pub use shrink::RemapFootprint;
pub use stream_cancel::StreamCancel;

use progress::progress_token_to_rewrite;
use records::ByRecords;
use task_messages::{
    Kind, created_task, ended_task, is_invalid_params, kind_of, listened_tasks, requested_task,
};
use tasks::TaskRoute;
use token_index::{RequestsByClient, TasksById};

/// Where a forwarded request came from, and what the caller kept with it: what
/// [`IdRemapper`] hands back when the request leaves it (routed, taken, cancelled, expired,
/// its client or the upstream gone), so that the client can be answered under its own id.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, Decoder, ErrorCode, IdRemapper, Message};
///
/// let mut remap = IdRemapper::new(16);
/// let frame = br#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x"}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// remap.forward_request_with("client-a", "tools/call", frame, &req, Some(30_000), &mut BytesMut::new()).unwrap();
///
/// // No reply by its deadline: answer the client under its id.
/// let mut to_client = BytesMut::new();
/// for (_token, origin) in remap.expire(30_000) {
///     assert_eq!((origin.client, origin.value), ("client-a", "tools/call"));
///     encode::write_error(&mut to_client, origin.id.as_id(), ErrorCode::INTERNAL_ERROR, "timed out", None);
/// }
/// assert_eq!(&to_client[..], &br#"{"jsonrpc":"2.0","id":"a-1","error":{"code":-32603,"message":"timed out"}}
/// "#[..]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin<C, T = ()> {
    /// The client (connection) that sent it.
    pub client: C,
    /// The client's id, exactly as it spelled it.
    pub id: IdBuf,
    /// The progress token the client asked for (MCP's `params._meta.progressToken`), exactly
    /// as it spelled it: upstream it was replaced by the request's token. `None` for a request
    /// forwarded under [`Dialect::JsonRpc2`](IdRemapper::dialect), whose params went upstream
    /// as they came.
    pub progress_token: Option<IdBuf>,
    /// The caller's value for this request (its method, when it was sent, …): see
    /// [`IdRemapper::forward_request_with`].
    pub value: T,
}

/// Rewrites ids between clients and one upstream.
///
/// Each request a client sends goes upstream with a [`Token`] as its id; the reply comes back
/// to that client with its own id restored byte for byte. Two clients may pick the same
/// progress token as well: a request's `_meta.progressToken` goes upstream as its token too,
/// and [`route_progress`](Self::route_progress) restores it in the upstream's
/// `notifications/progress`. (That, and what the sections below tell of MCP's tasks and
/// streams, are MCP's rules, the default; [`dialect`](Self::dialect) sets plain JSON-RPC's,
/// under which the id alone is rewritten.) `C` names a client (a connection
/// index, an address); `T` is a value kept with each request (`()` by default; see
/// [`forward_request_with`](Self::forward_request_with)).
/// [`forward_request`](Self::forward_request) takes the client by value because the table
/// keeps it with the request (and hands it back in the reply's [`Origin`]); the methods
/// that only look a client up ([`get`](Self::get), [`forward_cancel`](Self::forward_cancel),
/// [`drop_client`](Self::drop_client)) borrow it.
///
/// A proxy calls, for each thing that happens:
///
/// 1. a client's request: [`forward_request`](Self::forward_request) (refused, the client
///    gets [`RemapError::write_reply`]'s answer);
/// 2. an upstream reply: [`route_reply`](Self::route_reply) (a [`Miss`] is a reply nobody
///    waits for; [`take`](Self::take) removes a request whose reply cannot be forwarded);
/// 3. upstream progress: [`route_progress`](Self::route_progress); a client's
///    `notifications/cancelled`: [`forward_cancel`](Self::forward_cancel);
/// 4. a deadline's timer: [`expire`](Self::expire) (answer each request's client, cancel
///    it upstream, unless it is an `initialize`); a client gone:
///    [`drop_client`](Self::drop_client); the upstream gone: [`drain`](Self::drain).
///
/// The sections below tell of clients' shares of the table, and of MCP's tasks.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{Decoder, IdRemapper, Message};
///
/// let mut remap = IdRemapper::new(1024);
/// let client_frame = br#"{"jsonrpc":"2.0","id":"abc","method":"tools/list"}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(client_frame) else { panic!() };
/// let mut upstream = BytesMut::new();
/// let token = remap.forward_request("client-1", client_frame, &req, None, &mut upstream).unwrap();
/// assert_eq!(&upstream[..], format!("{{\"jsonrpc\":\"2.0\",\"id\":{token},\"method\":\"tools/list\"}}\n").as_bytes());
///
/// let reply = format!("{{\"jsonrpc\":\"2.0\",\"id\":{token},\"result\":{{}}}}");
/// let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
/// let mut to_client = BytesMut::new();
/// let origin = remap.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut to_client).unwrap();
/// assert_eq!(origin.client, "client-1");
/// assert_eq!(&to_client[..], b"{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"result\":{}}\n");
///
/// // An upstream's error reply may name no request (MCP's answer to one it could not
/// // read): `id()` is `None`, there is nothing to route, and the request's deadline
/// // answers its client. Match on `id()`; never unwrap it on an upstream's frame.
/// let unread = br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#;
/// let msg = Decoder::mcp_client().decode(unread).unwrap();
/// assert!(msg.id().is_none());
/// ```
///
/// The routing methods append to the one buffer they are given, then say which client the
/// bytes are for. To hand each client its own bytes without copying them, route into one
/// buffer and take what the call appended with [`BytesMut::split`] (a `freeze` makes it
/// [`Bytes`](bytes::Bytes) for a channel): the buffer's allocation is shared, not copied.
///
/// # The gateway's own requests, and the servers' requests
///
/// A remapper mints the ids of everything sent on its upstream connection: the tokens of each
/// remapper and each [`PendingTable`] start at 1, so requests a gateway sends upstream of its
/// own (a `ping`, its own `initialize`) go through the same remapper, under a client name of
/// their own, not through a second table whose tokens the upstream would confuse with the
/// clients'. The remapper forwards a request decoded from a frame: the gateway writes its
/// request (with [`encode::write_request`], under an id of its own that no other of its
/// requests in flight has, a counter say), decodes it, and forwards it as a client's; its
/// reply, its expiry or the upstream going away hands back an [`Origin`] naming the gateway.
/// (A request under a string id, which the remapper never mints, may also go upstream
/// beside it: `examples/gateway.rs` sends its `initialize` so.)
///
/// Nothing here is tied to a direction: "client" is whoever sent the request. A gateway that
/// puts several upstream servers behind one client keeps a second remapper keyed by upstream
/// for the servers' own requests to the client (`sampling/createMessage`,
/// `elicitation/create`, `roots/list` before MCP 2026-07-28): two servers' id `0` reach the
/// client as two tokens, and each of the client's replies goes back to the server that asked,
/// with its id restored.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::frame::without_line_end;
/// use rpcwire::{encode, Decoder, Id, IdRemapper, Message};
///
/// #[derive(Debug, Clone, PartialEq, Eq, Hash)]
/// enum Peer {
///     Gateway,
///     Client(u32),
/// }
///
/// let mut remap = IdRemapper::new(16);
/// let mut upstream = BytesMut::new();
/// let client = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(client) else { panic!() };
/// remap.forward_request(Peer::Client(7), client, &req, None, &mut upstream).unwrap();
///
/// // The gateway's own ping, under its own id 1 (the client's 1 is another client's).
/// // (Its line end, which `write_request` writes, is left out: a line break inside the
/// // frame would go upstream as a space.)
/// let mut own = BytesMut::new();
/// encode::write_request(&mut own, Id::from_token(b"1").unwrap(), "ping", None);
/// let own = without_line_end(&own);
/// let Ok(Message::Request(ping)) = Decoder::mcp().decode(own) else { panic!() };
/// let token = remap.forward_request(Peer::Gateway, own, &ping, Some(5_000), &mut upstream).unwrap();
/// assert_eq!(&upstream[..], &br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}
/// {"jsonrpc":"2.0","id":2,"method":"ping"}
/// "#[..]);
///
/// let pong = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
/// let msg = Decoder::mcp_client().decode(pong.as_bytes()).unwrap();
/// let origin = remap.route_reply(pong.as_bytes(), msg.id().unwrap(), &mut BytesMut::new()).unwrap();
/// assert_eq!(origin.client, Peer::Gateway);
/// ```
///
/// # Clients' shares
///
/// Every client's requests share the table's places ([`new`](Self::new)'s `capacity`) and
/// its byte budget ([`max_bytes`](Self::max_bytes)). Unbounded, one client that floods
/// requests, or task-augmented requests (whose routes stay until their tasks end, see
/// [Tasks](Self#tasks)), takes every place, and every other client's request is refused as
/// [`RemapError::Full`] or [`RemapError::OverBudget`].
/// [`max_per_client`](Self::max_per_client) bounds what one client holds: its requests in
/// flight and its tasks' live routes (a route keeps its request's place until the task is
/// seen to end, or its deadline passes; under the Tasks extension of MCP 2026-07-28 as
/// well). The records of its tasks that ended do not count: they give their places up to
/// requests and routes that need room, their own client's first (see [Tasks](Self#tasks)),
/// and the task is then one the remapper does not keep.
/// [`max_bytes_per_client`](Self::max_bytes_per_client) bounds their bytes, as `max_bytes`
/// counts them (a route its progress token and task id). A request
/// beyond either is refused, as [`RemapError::ClientFull`] or
/// [`RemapError::ClientOverBudget`] (checked before the table's own bounds), with nothing
/// kept or written; the other clients' requests are not affected. The client has its room
/// back as soon as one of its entries goes: a reply routed or taken, a cancellation, an
/// expiry, its task's end; [`client_len`](Self::client_len) and
/// [`client_bytes`](Self::client_bytes) tell what it holds. Both are unlimited unless set.
/// A `CreateTaskResult` whose live route would pass its client's byte share leaves no route,
/// as one that would pass `max_bytes` (its task is then one the remapper does not keep, open
/// to every client: keep the share well above what a client's tasks need). Likewise a
/// client whose share is all live task routes cannot send the `tasks/get` that would tell it
/// a task ended: the request is refused as `ClientFull` until a status notification or a
/// deadline ends one. Forward task-augmented requests with a deadline (their routes then
/// expire), or keep `max_per_client` above the tasks a client may run at once. (A running
/// task of the Tasks extension has no deadline but its ttl's, which a `null` ttl leaves
/// none: see [The Tasks extension](Self#the-tasks-extension-of-mcp-2026-07-28); keep the
/// share above the tasks a client may run at once, or give the route a deadline with
/// [`set_deadline`](Self::set_deadline).)
///
/// The shares bound each client, not clients acting together: the remapper cannot tell
/// clients apart but by their names (`C`), and many of them, each within its share, may
/// hold every place (or byte) between them, so that a request of any other client is
/// refused as `Full` (or `OverBudget`) until some of theirs go. A gateway that admits at
/// most `n` clients at once (its own requests, under a name of their own, count as one)
/// and sets `max_per_client` to at most `capacity / n` (and
/// `max_bytes_per_client` to at most `max_bytes / n`) guarantees every client its share:
/// its request within its share is never refused for what the others hold. Beyond that,
/// name one principal's connections with one `C`, or bound how many it may open.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{Decoder, IdRemapper, Message, RemapError};
///
/// let mut remap = IdRemapper::new(1024).max_per_client(2);
/// let forward = |remap: &mut IdRemapper<&str>, client, id: u32| {
///     let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
///     let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
///     remap.forward_request(client, frame.as_bytes(), &req, None, &mut BytesMut::new())
/// };
/// let first = forward(&mut remap, "noisy", 1).unwrap();
/// forward(&mut remap, "noisy", 2).unwrap();
/// // A third request of the noisy client's is refused; another client's still gets through.
/// assert_eq!(forward(&mut remap, "noisy", 3), Err(RemapError::ClientFull { limit: 2 }));
/// assert!(forward(&mut remap, "quiet", 1).is_ok());
///
/// // Its refusal tells the client why, under its id.
/// let mut to_client = BytesMut::new();
/// RemapError::ClientFull { limit: 2 }.write_reply(&mut to_client, rpcwire::Id::from_token(b"3").unwrap());
/// assert_eq!(&to_client[..], &br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"the client has too many requests in flight"}}
/// "#[..]);
///
/// // Once one of its requests is answered, the noisy client has room again.
/// let reply = format!(r#"{{"jsonrpc":"2.0","id":{first},"result":{{}}}}"#);
/// let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
/// remap.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut BytesMut::new()).unwrap();
/// assert_eq!(remap.client_len(&"noisy"), 1);
/// assert!(forward(&mut remap, "noisy", 3).is_ok());
/// ```
///
/// # Tasks
///
/// MCP 2025-11-25 (experimental) lets a request be task-augmented: its `params` carry a
/// `task` member, and the receiver answers at once with a `CreateTaskResult`
/// (`{"task":{"taskId":…,"status":"working",…}}`) while the task runs on. Its progress does
/// not end with that reply. The revision's progress utility says:
///
/// > For task-augmented requests, the `progressToken` provided in the original request
/// > **MUST** continue to be used for progress notifications throughout the task's lifetime,
/// > even after the `CreateTaskResult` has been returned. The progress token remains valid
/// > and associated with the task until the task reaches a terminal status.
///
/// and that progress for a task "**MUST** stop after the task reaches a terminal status
/// (`completed`, `failed`, or `cancelled`)".
///
/// So when a request whose `params.task` is an object is answered by a success whose
/// `result.task` is an object with a string `taskId`, the remapper keeps a route under the
/// request's token: the client, the client's progress token, the task id. (A task whose
/// status is terminal already, which MCP does not expect of a new task, has its route ended
/// at once: its client is kept as for any task that ended, below, when the record fits the
/// byte budget, whether or not a live route would.)
/// [`route_progress`](Self::route_progress) keeps restoring the client's token on the task's
/// progress, and [`route_task_status`](Self::route_task_status) sends the task's
/// `notifications/tasks/status` to that client alone. Any other reply (an error, a plain
/// result) ends the request as usual. The route ends (progress on its token is dropped, as
/// MCP says) when
///
/// - the task is seen to end: a `notifications/tasks/status` with a terminal status, a
///   `tasks/get` or `tasks/cancel` result with one (a task of the Tasks extension of MCP
///   2026-07-28: its `notifications/tasks` on its client's listen stream, or its `tasks/get`
///   result, with one), a -32602 error answering `tasks/cancel`
///   (MCP's refusal of "tasks already in a terminal status", and of a task the upstream
///   does not know), or any `tasks/result` result (it comes
///   when the task has ended, and names the task in `_meta`'s
///   [`RELATED_TASK`](crate::mcp::meta_keys::RELATED_TASK)), for requests forwarded by
///   this remapper from the task's own client (a reply to another client's request ends
///   none of its tasks, whatever task it names). A `tasks/result` whose `params.taskId`
///   names a task of its client's that the remapper keeps when it is forwarded ends that
///   task's route on any reply, result or error: the upstream "**MUST** block the response
///   until the task reaches a terminal status", then returns "exactly what the underlying
///   request would have returned, whether that is a successful result or a JSON-RPC
///   error", and answers an error at once only for a task it does not know (-32602) or an
///   internal error (-32603, which may leave the task running: its progress is then
///   dropped, while its status still reaches its client; a route kept live instead would
///   hold a place of its client's share that nothing may give back);
/// - its deadline passes in [`expire`](Self::expire), which hands out nothing for it (there
///   is no one to answer, and nothing to cancel: a task is cancelled with `tasks/cancel`). A
///   route keeps its request's deadline, which progress moves as it moved the request's
///   ([`set_deadline`](Self::set_deadline) on the token progress and status notifications
///   give; the reply's id is the token too). A request forwarded without a deadline leaves a
///   route whose deadline is its task's ttl, when known (routed with
///   [`route_reply_at`](Self::route_reply_at)): the upstream may delete a task once its ttl
///   passes without telling its end, and the route would hold its place until its client
///   goes. No deadline of a live route passes its ttl: neither its request's nor one set
///   on it. (A task of the Tasks extension keeps none of its request's: see
///   [The Tasks extension](Self#the-tasks-extension-of-mcp-2026-07-28).)
///
/// The task does not go with its route: its result stays retrievable with `tasks/result`,
/// and the task stays its client's (see below). The specification, on a task's ttl:
///
/// > Receivers **MUST** include the actual `ttl` duration (or `null` for unlimited) in
/// > `tasks/get` responses.
/// >
/// > After a task's `ttl` lifetime has elapsed, receivers **MAY** delete the task and its
/// > results, regardless of the task status.
///
/// (`Task.ttl`: "Actual retention duration from creation in milliseconds, null for
/// unlimited".) So the remapper keeps the record of the task's client (its task id) after the
/// route ends, until the ttl of the `CreateTaskResult` has passed since the reply was routed
/// (a little after the task's creation: the record outlives the task, never the reverse).
/// That needs the time: [`route_reply_at`](Self::route_reply_at) takes it, in milliseconds on
/// the clock of the deadlines and of [`expire`](Self::expire), which forgets the record when
/// the ttl has passed. A task created by a reply routed without the time
/// ([`route_reply`](Self::route_reply)), or whose ttl is `null`, is kept until its client goes
/// (or until a request needs its place: below). A record is also forgotten when
///
/// - the upstream says it no longer knows the task: a -32602 error (MCP's answer to an
///   "invalid or nonexistent `taskId`") to its client's `tasks/get`. (Not to `tasks/result`,
///   which "**MUST** return exactly what the underlying request would have returned, whether
///   that is a successful result or a JSON-RPC error": a -32602 there may be the request's
///   own; nor to `tasks/cancel`, which is refused with -32602 for "tasks already in a
///   terminal status".)
/// - its client goes ([`drop_client`](Self::drop_client)) or the upstream does
///   ([`drain`](Self::drain)), which forget routes too.
///
/// [`task_routes`](Self::task_routes) counts the routes, [`tasks`](Self::tasks) the tasks
/// kept (routes and ended tasks' records). Both hold places in the table and count against
/// [`max_bytes`](Self::max_bytes) (a route the client's progress token and the task id, a
/// record the task id, each as long as its spelling: the task id is kept once, in the task's
/// entry, and the map by task id holds the task's token only), so the tasks of a client that
/// never ends them cannot outgrow the remapper's bounds: a `CreateTaskResult` that would pass
/// the byte budget (even with every record of an ended task given up, below) leaves no route
/// (the reply is still routed). One that names a task id already kept takes the id over: the
/// upstream gives a new task an id no task it holds has, so the task kept under it is gone
/// (past its ttl, or ended unseen), and the id is the new task's client's. The old task is
/// forgotten first, its room with it, and the new route is then kept as any route would
/// be; should it still not fit (the id spelled longer), neither is kept: the old task's
/// client must not keep an id that names another client's task. The records of tasks that
/// ended never crowd requests or routes out: a request that finds the table full, or the
/// budget short, takes the places of records, and a task's route the budget short their room
/// (which tasks are then ones the remapper does not keep, as once their ttl has passed); live
/// routes and requests in flight are never given up for it, and a request or route that
/// would not fit with every record gone is refused without any going. Which records go, one
/// at a time until it fits: its own client's oldest while that client holds one; else the
/// oldest of a client holding the most records (any of them, when several hold as many).
/// So a request or route never takes the room of another client's record while its own
/// client, or a client holding more records than that one, has one to give up: a client
/// cannot push another's records out by cycling its own tasks, for each of its requests
/// takes its own records' room first. (Finding the record costs O(1) amortised: each
/// client's records are queued oldest first, and the clients filed by how many they hold.)
/// Task ids are the upstream's: they go both ways unchanged.
///
/// ## The Tasks extension of MCP 2026-07-28
///
/// MCP 2026-07-28 moved tasks to an official extension, `io.modelcontextprotocol/tasks`. A
/// request carries no `params.task`: its client declares the extension in the request's own
/// capabilities (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`), and "A
/// server **MUST NOT** return `CreateTaskResult` to a client that did not include the
/// extension capability on its request". The `CreateTaskResult` is the task itself,
/// `{"resultType":"task","taskId":…,"status":"working","ttlMs":…,…}`. Such a reply, to a
/// request that declared the extension (in any form the upstream may read as declared: its
/// capabilities given twice, say), keeps the task as its client's as a 2025-11-25 task is
/// kept, its ttl the task's `ttlMs`: a live route while the task runs, which counts against
/// its client's share ([`max_per_client`](Self::max_per_client), its task id against
/// [`max_bytes_per_client`](Self::max_bytes_per_client)) and is never given up for room,
/// then the record of a task that ended, refused to other clients (below) until its ttl
/// passes. The route routes no progress: the extension says `notifications/progress` and
/// `notifications/message` "are not supported on tasks in general in this specification",
/// so progress on the request's token is dropped after the reply as after any reply. The
/// route ends when
///
/// - the task is seen to end: a terminal status (`completed`, `failed`, `cancelled`) in the
///   `CreateTaskResult` itself (its record only is kept), in a result of its client's
///   `tasks/get` (the result is the task, "`GetTaskResult = Result & DetailedTask`"), or in
///   a `notifications/tasks` (the task's status, "identical to what `tasks/get` would have
///   returned") on a `subscriptions/listen` stream its client opened, which
///   [`route_subscription`](Self::route_subscription) routes to the stream's client; as for
///   2025-11-25, a -32602 error answering its client's `tasks/cancel` ends it too (the
///   extension's `tasks/cancel` result is "an empty acknowledgement", which tells nothing);
/// - its ttl passes ([`route_reply_at`](Self::route_reply_at) gives the time): the
///   upstream "**MAY** mark a task as `failed` at any point after the TTL elapses, and
///   subsequently delete it at any time". This is its only deadline: it keeps none of its
///   request's. A 2025-11-25 route keeps its request's deadline because the task's progress
///   and status notifications give the caller the route's token to move it by, as progress
///   moved the request's; an extension task has no progress, and its signs of life (its
///   `tasks/get` results, its `notifications/tasks`) come under the token of the `tasks/get`
///   request or of the listen stream, not the route's: kept to its request's deadline, a
///   task outlasting its request's timeout would turn into a record other clients' requests
///   may push out while it runs. The caller may still give the route an earlier deadline
///   with [`set_deadline`](Self::set_deadline) on its token (the `CreateTaskResult`'s id);
///   [`has_deadline`](Self::has_deadline) says `false` until then. A task whose ttl is
///   `null`, or whose `CreateTaskResult` was routed without the time, keeps its route until
///   it is seen to end or its client goes;
/// - its client goes ([`drop_client`](Self::drop_client)), or the upstream does
///   ([`drain`](Self::drain)), which forget it.
///
/// The extension has no `tasks/result` and no `tasks/list`; a -32602 answering its client's
/// `tasks/get` forgets the task, as above, and its `tasks/update` is checked as the other
/// task requests are (below).
///
/// ## Whose task it is
///
/// Through a gateway every client's requests share one session upstream, so the upstream
/// cannot tell one client's tasks from another's; the remapper can. The specification's
/// security considerations on tasks:
///
/// > Task IDs are the primary mechanism for accessing task state and results. Without
/// > proper access controls, any party that can guess or obtain a task ID could potentially
/// > access sensitive information or manipulate tasks they did not create.
/// >
/// > When an authorization context is provided, receivers **MUST** bind tasks to said
/// > context.
/// >
/// > [...] If context-binding is available, receivers **MUST** reject `tasks/get`,
/// > `tasks/result`, and `tasks/cancel` requests for tasks that do not belong to the same
/// > authorization context as the requestor. For `tasks/list` requests, receivers **MUST**
/// > ensure the returned task list includes only tasks associated with the requestor's
/// > authorization context.
///
/// The official Tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`) says the
/// same of its `tasks/get`, `tasks/update` and `tasks/cancel`: "Servers **MUST** perform
/// authentication and authorization checks on each task-related request to ensure that the
/// client has permission to access a task."
///
/// So [`forward_request`](Self::forward_request) refuses a client's `tasks/get`,
/// `tasks/result`, `tasks/cancel` or `tasks/update` whose `params.taskId` names a task another
/// client's request created, while the remapper keeps it, ended or not ([`RemapError::ForeignTask`];
/// [`task_owner`](Self::task_owner) tells whose a task is), and one whose `params.taskId`
/// is not one string
/// ([`RemapError::BadTaskId`]), which the upstream might read as a task the remapper did
/// not check ("the `taskId` parameter in the request **MUST** be used as the source of
/// truth for identifying the target task": `_meta`'s related task does not count). Both are
/// answered -32602, as MCP answers an "invalid or nonexistent `taskId` in `tasks/get`,
/// `tasks/result`, or `tasks/cancel`"; a foreign task's reply reads as a task not found.
/// (It reads as the specification's example; a task the remapper does not keep gets the
/// upstream's own answer, after a round trip: a client may tell the two apart, and so probe
/// for other clients' task ids, unless the gateway fails closed, below.)
///
/// Under the Tasks extension a client may also ask for a task's status notifications, which
/// carry its result: "clients send a `subscriptions/listen` request to the server including
/// a list of task IDs the client is interested in" (`params.notifications.taskIds`). So a
/// `subscriptions/listen` whose `taskIds` names a task another client's request created is
/// refused as [`RemapError::ForeignTask`] too, and one whose `taskIds` is not one array of
/// strings (another type, given twice) as [`RemapError::BadTaskId`]. A stream that asked for
/// a task id before the remapper kept it (its `CreateTaskResult` not yet routed) gets no
/// `notifications/tasks` of it once it is kept as another client's
/// ([`route_subscription`](Self::route_subscription) routes none).
///
/// A task id the remapper does not keep goes upstream, which answers for it: the remapper
/// cannot tell a task it never saw (created before it, or through another gateway) from
/// none, and the upstream answers -32602 for a task it does not know, or has deleted once
/// its ttl passed. A task whose route was not kept (a `CreateTaskResult` over the byte
/// budget) is such a task, open to every client: keep [`max_bytes`](Self::max_bytes) well
/// above what the clients' tasks need. So is the task of a record given up for room (see
/// above): a client holding no records that finds the table (or the byte budget) full takes
/// the room of a client holding the most, which is a client's only record when no client
/// holds more (many clients, each holding few). So is a task the upstream created and whose
/// `CreateTaskResult` is not routed yet, which another client may name meanwhile. A gateway
/// that would rather refuse every task it does not know (failing closed) can ask
/// [`task_owner`](Self::task_owner) first; one that owns the upstream's session from its
/// start, and so sees every task created in it, has no task it never saw to let through.
/// (Failing closed, a task whose record was given up is refused to its own client too: its
/// `tasks/result` no longer reaches the result.)
///
/// `tasks/list` goes upstream as any request does, and its result lists the tasks of the
/// whole session, every client's. [`route_reply`](Self::route_reply) writes it for its
/// client with that client's tasks only: the elements of `result.tasks` whose `taskId` the
/// remapper keeps as that client's, ended or not, each as the upstream wrote it, in its
/// order (the rest of the result, `nextCursor` with it, unchanged; a page may come out
/// shorter, or empty, with more to follow). A task the remapper does not keep is left out,
/// as it is nobody's the remapper knows: "If a task is retrievable via `tasks/get` for a
/// requestor, it **MUST** be retrievable via `tasks/list` for that requestor" holds for the
/// tasks it keeps. A result whose `tasks` does not read as one array to its end is not
/// forwarded: its client gets a -32603 error instead. The filter costs a pass over the
/// result and writes no more than the upstream sent but for the client's id, which is
/// restored as in any reply. (A gateway that would rather not offer `tasks/list` answers it itself
/// with -32601, and keeps `tasks.list` out of the capabilities it passes on.)
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{Decoder, IdRemapper, Message, RemapError};
///
/// let mut remap = IdRemapper::new(16);
/// let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{"ttl":60000},"_meta":{"progressToken":"p1"}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(call) else { panic!() };
/// let token = remap.forward_request(7, call, &req, None, &mut BytesMut::new()).unwrap();
///
/// // The upstream creates the task: the reply goes back, the progress route stays.
/// let created = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"task":{{"taskId":"t-1","status":"working"}}}}}}"#);
/// let msg = Decoder::mcp_client().decode(created.as_bytes()).unwrap();
/// remap.route_reply(created.as_bytes(), msg.id().unwrap(), &mut BytesMut::new()).unwrap();
/// assert_eq!((remap.len(), remap.task_routes()), (0, 1));
///
/// let progress = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#);
/// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(progress.as_bytes()) else { panic!() };
/// let mut to_client = BytesMut::new();
/// assert_eq!(*remap.route_progress(progress.as_bytes(), &n, &mut to_client).unwrap().client, 7);
/// assert_eq!(&to_client[..], &br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}
/// "#[..]);
///
/// // The task ends: the status goes to its client, and the route ends.
/// let done = br#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"completed"}}"#;
/// let Ok(Message::Notification(status)) = Decoder::mcp_client().decode(done) else { panic!() };
/// assert_eq!(remap.route_task_status(done, &status, &mut BytesMut::new()).map(|(_, c)| c), Some(7));
/// assert_eq!(remap.task_routes(), 0);
/// // Progress on its token now names nothing: dropped, as MCP says.
/// assert!(remap.route_progress(progress.as_bytes(), &n, &mut BytesMut::new()).is_none());
///
/// // The task is still client 7's: another client's `tasks/result` for it is refused.
/// let fetch = br#"{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"t-1"}}"#;
/// let Ok(Message::Request(fetch_req)) = Decoder::mcp().decode(fetch) else { panic!() };
/// let refused = remap.forward_request(8, fetch, &fetch_req, None, &mut BytesMut::new());
/// assert_eq!(refused, Err(RemapError::ForeignTask));
/// assert!(remap.forward_request(7, fetch, &fetch_req, None, &mut BytesMut::new()).is_ok());
/// ```
pub struct IdRemapper<C, T = ()> {
    pending: PendingTable<Entry<C, T>>,
    /// The requests in flight by client and id.
    by_client: RequestsByClient,
    /// The tasks kept ([`Held::Task`]) by task id.
    task_ids: TasksById,
    /// Each client's list of its entries (requests in flight and tasks kept), with what of
    /// them counts against its own limits: a client going away costs its own entries, not a
    /// scan of every request in flight, and its limits are checked without one.
    heads: HashMap<C, ClientEntries, foldhash::quality::RandomState>,
    /// The most entries, and bytes, each client's requests in flight and live task routes
    /// may hold ([`Self::max_per_client`], [`Self::max_bytes_per_client`]).
    max_per_client: usize,
    max_bytes_per_client: usize,
    /// What the requests' clients' ids and progress tokens hold ([`held_bytes`]), and the
    /// task routes ([`TaskRoute::held`]); and its limit.
    bytes: usize,
    max_bytes: usize,
    /// The entries of `pending` that are tasks ([`Held::Task`]), and of those the live
    /// routes (progress still routed).
    routes: usize,
    live: usize,
    /// What the records of tasks that ended hold of `bytes`: what [`Self::make_room`] can
    /// give back at most.
    ended_bytes: usize,
    /// The clients holding records of tasks that ended, by how many they hold: when the
    /// requesting client holds none, a client holding the most gives its oldest up
    /// ([`Self::make_room`]).
    by_records: ByRecords<C>,
    /// Whether requests are read by MCP's rules (progress tokens, tasks, listen streams,
    /// `initialize`): [`Self::dialect`].
    mcp: bool,
}

/// A client's entries: the head of their list, and what its limits count of them.
struct ClientEntries {
    /// The client's latest entry: the head of the list its entries link ([`Entry::prev`],
    /// [`Entry::next`]).
    head: Token,
    /// Its requests in flight and live task routes (not the records of its tasks that
    /// ended, which give their places up to requests and routes that need room): what
    /// [`IdRemapper::max_per_client`] bounds.
    counted: usize,
    /// What those hold of [`IdRemapper::bytes`] ([`Held::counted_bytes`]): what
    /// [`IdRemapper::max_bytes_per_client`] bounds.
    bytes: usize,
    /// How many records of its tasks that ended it holds, and its place among the clients
    /// holding as many ([`ByRecords`]; meaningless while it holds none).
    records: usize,
    slot: usize,
    /// The tokens of those records, oldest first: a full table or byte budget gives the
    /// oldest up for a new request or route ([`IdRemapper::make_room`]). A token whose record
    /// went otherwise (its ttl, a -32602 answer, its id taken over) stays until it is met, or
    /// until the queue is compacted (when a record is queued or goes, and it holds more than
    /// twice the client's records, and 16 more), its room with it; the queue goes whole when
    /// the client's last record does.
    ended: VecDeque<Token>,
}

/// An entry of the table: a request in flight or a task's route, and its neighbours in its
/// client's list (the client's next older and newer entries).
struct Entry<C, T> {
    held: Held<C, T>,
    /// The client's newer entry (`None`: this one is the head, in `heads`).
    prev: Option<Token>,
    /// The client's older entry.
    next: Option<Token>,
}

/// What an entry holds.
enum Held<C, T> {
    /// A request in flight, and what its reply may tell.
    Request { origin: Origin<C, T>, kind: Kind },
    /// What a task-augmented request left when its `CreateTaskResult` came.
    Task(TaskRoute<C>),
}

impl<C, T> Held<C, T> {
    fn client(&self) -> &C {
        match self {
            Held::Request { origin, .. } => &origin.client,
            Held::Task(route) => &route.client,
        }
    }

    /// What it counts against its client's byte limit, when it counts against its client's
    /// limits at all: a request in flight its [`held_bytes`], a live task route what it
    /// holds; `None` for the record of a task that ended.
    fn counted_bytes(&self) -> Option<usize> {
        match self {
            Held::Request { origin, .. } => Some(held_bytes(origin)),
            Held::Task(route) => route.live.then_some(route.held),
        }
    }
}

/// What a request counts against [`IdRemapper::max_bytes`]: its client's id and its progress
/// token, as the client spelt them (the copies kept).
fn held_bytes<C, T>(origin: &Origin<C, T>) -> usize {
    origin.id.as_id().raw().len()
        + origin
            .progress_token
            .as_ref()
            .map_or(0, |t| t.as_id().raw().len())
}

impl<C, T> core::fmt::Debug for IdRemapper<C, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let dialect = match self.mcp {
            true => Dialect::Mcp,
            false => Dialect::JsonRpc2,
        };
        f.debug_struct("IdRemapper")
            .field("dialect", &dialect)
            .field("in_flight", &(self.pending.len() - self.routes))
            .field("task_routes", &self.live)
            .field("tasks", &self.routes)
            .finish_non_exhaustive()
    }
}

impl<C: Clone + Eq + Hash> IdRemapper<C> {
    /// Registers `req` (decoded from `frame`, sent by `client`) and appends the upstream frame:
    /// the same bytes with our token as id, and as `params._meta.progressToken` when the
    /// request has one. `deadline` (caller's time units) makes the request expire in
    /// [`expire`](Self::expire).
    ///
    /// # Errors
    ///
    /// A [`RemapError`], with nothing kept or written, checked in this order:
    /// - [`DuplicateId`](RemapError::DuplicateId) when `client` has a request of the same id
    ///   in flight (ids compared as JSON values);
    /// - under [`Dialect::Mcp`] only, from the params:
    ///   [`BadProgressToken`](RemapError::BadProgressToken) when `_meta.progressToken` is not
    ///   a string, a number or `null`, or occurs twice; [`BadTaskId`](RemapError::BadTaskId)
    ///   for a task request whose `taskId` is not one string, or a `subscriptions/listen`
    ///   whose `notifications.taskIds` is not one array of strings;
    ///   [`MalformedParams`](RemapError::MalformedParams) in their place when the member
    ///   cannot be read because `params` is not JSON; [`ForeignTask`](RemapError::ForeignTask)
    ///   when such a request names a task of another client's;
    /// - [`ClientFull`](RemapError::ClientFull) or
    ///   [`ClientOverBudget`](RemapError::ClientOverBudget) at the client's limits
    ///   ([`client_limits`](Self::client_limits));
    /// - [`Full`](RemapError::Full) or [`OverBudget`](RemapError::OverBudget) at the table's
    ///   ([`capacity_limit`](Self::capacity_limit), [`byte_limit`](Self::byte_limit)).
    ///
    /// # Panics
    ///
    /// When `req` was not decoded from `frame` (its id and its progress token must be
    /// slices of it, apart), before anything is kept.
    pub fn forward_request(
        &mut self,
        client: C,
        frame: &[u8],
        req: &Request<'_>,
        deadline: Option<u64>,
        out: &mut BytesMut,
    ) -> Result<Token, RemapError> {
        self.forward_request_with(client, (), frame, req, deadline, out)
    }
}

impl<C: Clone + Eq + Hash, T> IdRemapper<C, T> {
    /// A remapper for at most `capacity` requests in flight (the tasks it keeps, see
    /// [Tasks](Self#tasks), take places among them).
    pub fn new(capacity: usize) -> Self {
        IdRemapper {
            pending: PendingTable::with_capacity_limit(capacity),
            by_client: RequestsByClient::new(),
            task_ids: TasksById::new(),
            heads: HashMap::with_hasher(Default::default()),
            max_per_client: usize::MAX,
            max_bytes_per_client: usize::MAX,
            bytes: 0,
            max_bytes: crate::inflight::DEFAULT_MAX_BYTES,
            routes: 0,
            live: 0,
            ended_bytes: 0,
            by_records: ByRecords::new(),
            mcp: true,
        }
    }

    /// Which rules the requests forwarded are read by. [`Dialect::Mcp`] (the default): a
    /// request's `params._meta.progressToken` goes upstream as its token, and MCP's methods
    /// are read as MCP says (`tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/update`
    /// checked for their client's tasks, a `tasks/list` result filtered for its client, a
    /// task-augmented request's route kept, a `subscriptions/listen` stream, an `initialize`
    /// that [`forward_cancel`](Self::forward_cancel) does not cancel). [`Dialect::JsonRpc2`]:
    /// none of that; only the id is rewritten, and the payload goes both ways as it came,
    /// whatever its methods and members are named (for plain JSON-RPC 2.0 traffic, whose
    /// `tasks/list` is no MCP method). Its params are not read, so none of the refusals that
    /// reading them makes ([`RemapError::BadProgressToken`], [`RemapError::ForeignTask`],
    /// [`RemapError::BadTaskId`], [`RemapError::MalformedParams`]) is made: params a lazy
    /// decoder let through unread go upstream as they came. Nothing the upstream sends routes
    /// on such a request's token but its reply: [`route_progress`](Self::route_progress) and
    /// [`route_subscription`](Self::route_subscription) give `None` for it, and
    /// [`route_stream_cancel`](Self::route_stream_cancel) `NotAStream`, its frame left as it
    /// is. ([`forward_cancel`](Self::forward_cancel) is the caller's to call: it still
    /// forwards a client's `notifications/cancelled` naming any of its requests, an
    /// `initialize` too, but a `requestId` is a string or an integer, as MCP's is: it names the
    /// request whose id has its value (`1` names one sent as `1.0`), and a request whose id is
    /// `null` or a fraction (`0.5`) cannot be named.) Whichever
    /// decoder read the request, the remapper applies MCP's rules unless this says otherwise.
    /// A builder setting: it applies to the requests forwarded after it, so set it when the
    /// remapper is made.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, Dialect, IdRemapper, Message};
    ///
    /// let mut remap = IdRemapper::new(16).dialect(Dialect::JsonRpc2);
    /// let call = br#"{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{"_meta":{"progressToken":"p"}}}"#;
    /// let Ok(Message::Request(req)) = Decoder::jsonrpc().decode(call) else { panic!() };
    /// let mut upstream = BytesMut::new();
    /// let token = remap.forward_request("a", call, &req, None, &mut upstream).unwrap();
    /// // The id alone is rewritten.
    /// assert_eq!(&upstream[..], format!("{{\"jsonrpc\":\"2.0\",\"id\":{token},\"method\":\"tasks/list\",\"params\":{{\"_meta\":{{\"progressToken\":\"p\"}}}}}}\n").as_bytes());
    ///
    /// // Its result comes back whole (MCP's rules would list the client's own tasks only: none).
    /// let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"tasks":[{{"taskId":"t"}}]}}}}"#);
    /// let msg = Decoder::jsonrpc_client().decode(reply.as_bytes()).unwrap();
    /// let mut to_client = BytesMut::new();
    /// remap.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut to_client).unwrap();
    /// assert_eq!(&to_client[..], &br#"{"jsonrpc":"2.0","id":1,"result":{"tasks":[{"taskId":"t"}]}}
    /// "#[..]);
    /// ```
    #[must_use]
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.mcp = dialect == Dialect::Mcp;
        self
    }

    /// Bounds the bytes the requests in flight keep of their clients' ids and progress tokens
    /// (as long as their spellings), with what the tasks kept hold (a route its progress token
    /// and its task id, an ended task's record its task id, each as long as its spelling):
    /// beyond it a request is refused as [`RemapError::OverBudget`], and a
    /// `CreateTaskResult` leaves no route. A client may send ids and progress tokens as long
    /// as its frames, so `capacity` requests could otherwise hold `capacity` times the frame
    /// limit. 64 MiB unless set.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, IdRemapper, Message, RemapError};
    ///
    /// let mut remap = IdRemapper::new(1024).max_bytes(1000);
    /// let frame = format!(
    ///     r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{{"progressToken":"{}"}}}}}}"#,
    ///     "p".repeat(2000),
    /// );
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
    /// let refused = remap.forward_request("client-1", frame.as_bytes(), &req, None, &mut BytesMut::new());
    /// assert_eq!(refused, Err(RemapError::OverBudget { budget: 1000 }));
    /// assert_eq!(remap.bytes(), 0);
    /// ```
    #[must_use]
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// Bounds what each client holds in the table: at most `entries` of its requests in
    /// flight and live task routes at once (see [Clients' shares](Self#clients-shares));
    /// beyond it the client's request is refused as [`RemapError::ClientFull`]. Unlimited
    /// unless set (the table's capacity bounds every client); `0` refuses every request.
    #[must_use]
    pub fn max_per_client(mut self, entries: usize) -> Self {
        self.max_per_client = entries;
        self
    }

    /// Bounds the bytes each client's requests in flight and live task routes hold, as
    /// [`max_bytes`](Self::max_bytes) counts them (see
    /// [Clients' shares](Self#clients-shares)): beyond it the client's request is refused as
    /// [`RemapError::ClientOverBudget`], and a `CreateTaskResult` answering it leaves no
    /// route. Unlimited unless set (`max_bytes` bounds every client).
    #[must_use]
    pub fn max_bytes_per_client(mut self, bytes: usize) -> Self {
        self.max_bytes_per_client = bytes;
        self
    }

    /// How many of `client`'s requests in flight and live task routes the table holds:
    /// what [`max_per_client`](Self::max_per_client) bounds.
    pub fn client_len(&self, client: &C) -> usize {
        self.client_counts(client).0
    }

    /// The bytes `client`'s requests in flight and live task routes hold: what
    /// [`max_bytes_per_client`](Self::max_bytes_per_client) bounds.
    pub fn client_bytes(&self, client: &C) -> usize {
        self.client_counts(client).1
    }

    /// Each client's bounds: [`max_per_client`](Self::max_per_client)'s and
    /// [`max_bytes_per_client`](Self::max_bytes_per_client)'s (`usize::MAX`: unlimited).
    ///
    /// ```
    /// use rpcwire::IdRemapper;
    /// let remap: IdRemapper<u32> = IdRemapper::new(16).max_per_client(4);
    /// assert_eq!(remap.client_limits(), (4, usize::MAX));
    /// ```
    pub fn client_limits(&self) -> (usize, usize) {
        (self.max_per_client, self.max_bytes_per_client)
    }

    /// The bytes the requests in flight keep of their clients' ids and progress tokens, and
    /// the tasks kept of their progress tokens and task ids, as
    /// [`max_bytes`](Self::max_bytes) counts them.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The most bytes the requests in flight may keep: [`max_bytes`](Self::max_bytes)' bound.
    ///
    /// ```
    /// use rpcwire::IdRemapper;
    /// let remap: IdRemapper<u32> = IdRemapper::new(16).max_bytes(4096);
    /// assert_eq!((remap.capacity_limit(), remap.byte_limit()), (16, 4096));
    /// ```
    pub fn byte_limit(&self) -> usize {
        self.max_bytes
    }

    /// The most requests in flight at once: the `capacity` it was made with, clamped to
    /// [`PendingTable::MAX_CAPACITY_LIMIT`] (the ids it mints are its table's tokens).
    pub fn capacity_limit(&self) -> usize {
        self.pending.capacity_limit()
    }

    /// The dialect whose rules the remapper applies to the requests it forwards:
    /// [`dialect`](Self::dialect)'s setting, [`Dialect::Mcp`] unless set.
    ///
    /// ```
    /// use rpcwire::{Dialect, IdRemapper};
    /// let remap: IdRemapper<u32> = IdRemapper::new(16);
    /// assert_eq!(remap.request_dialect(), Dialect::Mcp);
    /// assert_eq!(remap.dialect(Dialect::JsonRpc2).request_dialect(), Dialect::JsonRpc2);
    /// ```
    pub fn request_dialect(&self) -> Dialect {
        if self.mcp {
            Dialect::Mcp
        } else {
            Dialect::JsonRpc2
        }
    }

    /// [`forward_request`](IdRemapper::forward_request), keeping `value` with the request
    /// until its reply, cancellation or expiry hands it back in an [`Origin`].
    ///
    /// # Errors
    ///
    /// Those of [`forward_request`](IdRemapper::forward_request).
    ///
    /// # Panics
    ///
    /// When `req` was not decoded from `frame` (its id and its progress token must be
    /// slices of it, apart), before anything is kept.
    pub fn forward_request_with(
        &mut self,
        client: C,
        value: T,
        frame: &[u8],
        req: &Request<'_>,
        deadline: Option<u64>,
        out: &mut BytesMut,
    ) -> Result<Token, RemapError> {
        let Err(place) = self.by_client.lookup(&self.pending, &client, req.id) else {
            return Err(RemapError::DuplicateId);
        };
        // A member that cannot be read may be in `params` that are not JSON at all (lazy
        // validation let them through): that is the refusal's reason then. (Checked on the
        // way out only: a request the remapper can read is not validated twice.)
        // (Any depth: the decoder's limits have bounded it; the strict scan is iterative.)
        let unreadable = |error| match req.params.map(|p| p.as_bytes()) {
            Some(p) if skip_value(p, 0, 0, u32::MAX, Validation::Strict) != Ok(p.len()) => {
                RemapError::MalformedParams
            }
            _ => error,
        };
        // Plain JSON-RPC: nothing but the id is read.
        let (progress_member, task_member, extension_member) = match self.mcp {
            true => progress_task_and_extension_members(req),
            false => (Lookup::Absent, Lookup::Absent, Lookup::Absent),
        };
        let progress_token = progress_token_to_rewrite(progress_member).map_err(unreadable)?;
        let mut kind = match self.mcp {
            true => kind_of(req, task_member, extension_member),
            false => Kind::JsonRpc,
        };
        if let Kind::TaskQuery { .. } | Kind::TaskResult { .. } | Kind::TaskUpdate = kind {
            let task_id = requested_task(req).map_err(unreadable)?;
            if let Some((token, owner)) = self.task_entry(task_id) {
                if *owner != client {
                    return Err(RemapError::ForeignTask);
                }
                if let Kind::TaskQuery { task, .. } | Kind::TaskResult { task } = &mut kind {
                    *task = Some(token);
                }
            }
        }
        if kind == Kind::Listen {
            for task_id in listened_tasks(req).map_err(unreadable)? {
                if self
                    .task_entry(task_id?)
                    .is_some_and(|(_, owner)| *owner != client)
                {
                    return Err(RemapError::ForeignTask);
                }
            }
        }
        // Before anything is kept: a caller's mistake must not leave a request behind.
        match progress_token {
            Some(progress) => {
                encode::token_spans(frame, [(req.id.raw(), ()), (progress.raw(), ())]);
            }
            None => {
                encode::offset_in(frame, req.id.raw());
            }
        }
        let origin = Origin {
            client,
            id: req.id.to_owned_id(),
            progress_token: progress_token.map(|t| t.to_owned_id()),
            value,
        };
        let held = held_bytes(&origin);
        // The client's own limits before the table's: a client at its limit is refused for
        // what it holds, whatever the others hold.
        let (counted, counted_bytes) = self.client_counts(&origin.client);
        if counted >= self.max_per_client {
            return Err(RemapError::ClientFull {
                limit: self.max_per_client,
            });
        }
        if counted_bytes.saturating_add(held) > self.max_bytes_per_client {
            return Err(RemapError::ClientOverBudget {
                budget: self.max_bytes_per_client,
            });
        }
        // Then the table's: the count of requests first, then their bytes (as `InFlight`
        // checks them), with what the records of ended tasks would give up counted free;
        // then, when it fits, the records give it up (none for a request refused anyway).
        let records = self.routes - self.live;
        if self.pending.len() - records >= self.pending.capacity_limit() {
            return Err(RemapError::Full {
                limit: self.pending.capacity_limit(),
            });
        }
        if (self.bytes - self.ended_bytes).saturating_add(held) > self.max_bytes {
            return Err(RemapError::OverBudget {
                budget: self.max_bytes,
            });
        }
        self.make_room(&origin.client, true, held);
        // The request goes at the head of its client's list.
        let token = self
            .insert_linked(Held::Request { origin, kind }, deadline)
            .ok_or(RemapError::Full {
                limit: self.pending.capacity_limit(),
            })?;
        self.by_client.insert(&self.pending, place, token);
        self.bytes += held;
        let mut digits = [0; 20];
        let ours = token.to_id(&mut digits);
        match progress_token {
            Some(progress) => {
                encode::write_with_tokens(out, frame, [(req.id, ours), (progress, ours)]);
            }
            None => encode::write_with_id(out, frame, req.id, ours),
        }
        Ok(token)
    }

    /// Routes an upstream notification of a `subscriptions/listen` stream (MCP 2026-07-28:
    /// its `_meta` names the listen request's id, [`mcp::subscription_id`]) while that request
    /// is in flight (a stream is open until its result, or until the upstream tears it down:
    /// [`route_stream_cancel`](Self::route_stream_cancel)): appends the client-bound frame with
    /// the client's id for the request restored, and returns the request's origin (the client
    /// to send it to). `None`, nothing written, for a notification of no stream or of a
    /// stream no longer open, and for a task's status (the Tasks extension's
    /// `notifications/tasks`, which carries the task's result) whose task the remapper keeps
    /// as another client's: a stream may have asked for a task id before the task's
    /// `CreateTaskResult` was routed, when the remapper could not yet tell it was another
    /// client's (see [Tasks](Self#tasks)). A `notifications/tasks` with a terminal status
    /// (`completed`, `failed`, `cancelled`) of a task the remapper keeps as the stream's
    /// client's ends its live route: the task is kept as the record of a task that ended
    /// (see [The Tasks extension](Self#the-tasks-extension-of-mcp-2026-07-28)).
    ///
    /// A listen request waits as long as its stream is open: forward it without a deadline.
    /// (The remapper keeps no methods: a stamp naming another request in flight routes to
    /// that request's client too, the only one it can reach. Filter by
    /// [`LISTEN_STREAM`](crate::mcp::methods::LISTEN_STREAM) first for the stream's methods
    /// only.) A request forwarded under [`Dialect::JsonRpc2`](Self::dialect) opens no stream:
    /// a stamp naming it is `None`.
    ///
    /// [`mcp::subscription_id`]: crate::mcp::subscription_id
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, IdRemapper, Message};
    ///
    /// let mut remap = IdRemapper::new(16);
    /// let listen = br#"{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(listen) else { panic!() };
    /// let token = remap.forward_request(7, listen, &req, None, &mut BytesMut::new()).unwrap();
    ///
    /// let event = format!(r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{token}}}}}}}"#);
    /// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(event.as_bytes()) else { panic!() };
    /// let mut to_client = BytesMut::new();
    /// assert_eq!(remap.route_subscription(event.as_bytes(), &n, &mut to_client).unwrap().client, 7);
    /// assert_eq!(&to_client[..], &br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l1"}}}
    /// "#[..]);
    /// ```
    ///
    /// # Panics
    ///
    /// When `notification` was not decoded from `frame` (before anything is changed: a task
    /// route the notification would end stays live).
    pub fn route_subscription(
        &mut self,
        frame: &[u8],
        notification: &Notification<'_>,
        out: &mut BytesMut,
    ) -> Option<&Origin<C, T>> {
        let stream = subscription_id(notification)?;
        // Before anything is changed: a caller's mistake must not end a task's route.
        encode::offset_in(frame, stream.raw());
        // `in_flight`, but a plain JSON-RPC request opens no stream: the stamp is the
        // upstream's payload. (One lookup of the entry for both.)
        let origin = match &self.pending.get(Token::from_wire(stream.raw())?)?.held {
            Held::Request {
                kind: Kind::JsonRpc,
                ..
            }
            | Held::Task(_) => return None,
            Held::Request { origin, .. } => origin,
        };
        if self.routes > 0
            && notification.method.eq_str(methods::TASKS_NOTIFICATION)
            && let Some(task) = Task::from_notification(notification)
            && let Some((token, owner)) = self.task_entry(task.id)
        {
            if *owner != origin.client {
                return None;
            }
            // The stream's client's own task, seen to end: its live route ends.
            if task.is_terminal() {
                self.end_task(token);
            }
        }
        let origin = self.in_flight(stream)?;
        encode::write_with_id(out, frame, stream, origin.id.as_id());
        Some(origin)
    }

    /// Routes the upstream's teardown of a `subscriptions/listen` stream (MCP 2026-07-28: "A
    /// server **MUST** send `notifications/cancelled` referencing a `subscriptions/listen`
    /// request ID when it tears down that subscription stream"): for a
    /// `notifications/cancelled` (decoded from `frame`) whose `params.requestId` is the token
    /// of a listen request in flight, appends the client-bound frame with the client's id
    /// for the request restored (the rest byte for byte), forgets the request (the stream is
    /// closed: its late result is `Stale`), and returns [`StreamCancel::Routed`] with its
    /// origin (the client to send it to).
    ///
    /// Nothing is written, and the gateway drops the notification, when
    ///
    /// - it is not a `notifications/cancelled` whose `requestId` reads as one string or
    ///   integer ([`mcp::Cancelled::from_notification`]), or its `requestId` is the token of
    ///   a request in flight that is not a `subscriptions/listen`:
    ///   [`StreamCancel::NotAStream`]. MCP says "Servers **MUST NOT** send
    ///   `notifications/cancelled` for any other purpose", and the request stays in flight
    ///   (its reply, or its deadline, still answers its client);
    /// - its `requestId` is a token never minted, or not a token at all (a string):
    ///   [`StreamCancel::Miss`]`(`[`Miss::Unknown`]`)`;
    /// - its `requestId` is a token whose request is no longer in flight (answered,
    ///   cancelled, expired, its stream torn down already):
    ///   [`StreamCancel::Miss`]`(`[`Miss::Stale`]`)`.
    ///
    /// [`mcp::Cancelled::from_notification`]: crate::mcp::Cancelled::from_notification
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, IdRemapper, Message, Miss, StreamCancel};
    ///
    /// let mut remap = IdRemapper::new(16);
    /// let listen = br#"{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(listen) else { panic!() };
    /// let token = remap.forward_request(7, listen, &req, None, &mut BytesMut::new()).unwrap();
    ///
    /// // The upstream tears the stream down: its cancellation goes to client 7, under its id.
    /// let teardown = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{token},"reason":"shutting down"}}}}"#);
    /// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(teardown.as_bytes()) else { panic!() };
    /// let mut to_client = BytesMut::new();
    /// let StreamCancel::Routed(origin) = remap.route_stream_cancel(teardown.as_bytes(), &n, &mut to_client) else { panic!() };
    /// assert_eq!(origin.client, 7);
    /// assert_eq!(&to_client[..], &br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l1","reason":"shutting down"}}
    /// "#[..]);
    ///
    /// // The stream is closed: its entry is gone, and a second teardown names nothing.
    /// assert!(remap.is_empty());
    /// let again = remap.route_stream_cancel(teardown.as_bytes(), &n, &mut BytesMut::new());
    /// assert_eq!(again, StreamCancel::Miss(Miss::Stale));
    /// ```
    ///
    /// # Panics
    ///
    /// When `notification` was not decoded from `frame` (before anything is removed: the
    /// request stays in flight).
    pub fn route_stream_cancel(
        &mut self,
        frame: &[u8],
        notification: &Notification<'_>,
        out: &mut BytesMut,
    ) -> StreamCancel<C, T> {
        let Some(cancelled) = Cancelled::from_notification(notification) else {
            return StreamCancel::NotAStream;
        };
        let request_id = cancelled.request_id;
        // Before anything is removed: a caller's mistake must not lose the request.
        encode::offset_in(frame, request_id.raw());
        let Some(token) = Token::from_wire(request_id.raw()) else {
            return StreamCancel::Miss(Miss::Unknown);
        };
        match self.pending.get(token).map(|entry| &entry.held) {
            Some(Held::Request {
                kind: Kind::Listen, ..
            })
            | None => {}
            // A request in flight that is no stream: not the upstream's to cancel this way.
            Some(Held::Request { .. }) => return StreamCancel::NotAStream,
            // Answered already: the request became a task's route.
            Some(Held::Task(_)) => return StreamCancel::Miss(Miss::Stale),
        }
        // The stream's request, or, when none is in flight under the token, why not (`remove`
        // tells a stale token from an unknown one).
        let entry = match self.pending.remove(token) {
            Ok(entry) => entry,
            Err(miss) => return StreamCancel::Miss(miss),
        };
        let origin = self
            .forget(token, entry)
            .expect("a listen request's entry holds its origin");
        encode::write_with_id(out, frame, request_id, origin.id.as_id());
        StreamCancel::Routed(origin)
    }

    /// The request in flight that the upstream names by `token` (our token, as it wrote it:
    /// a reply's id, a progress token, a listen stream's stamp).
    fn in_flight(&self, token: Id<'_>) -> Option<&Origin<C, T>> {
        match &self.pending.get(Token::from_wire(token.raw())?)?.held {
            Held::Request { origin, .. } => Some(origin),
            Held::Task(_) => None,
        }
    }

    /// Matches an upstream reply (decoded from `frame`, with id `reply_id`) and appends the
    /// client-bound frame with the client's id restored. Returns where the request came from
    /// (the client to send it to).
    ///
    /// An error reply may have no id (MCP's form when the upstream could not read the
    /// request's: `ErrorResponse::id` is `None`) or a null one: it names no request, so
    /// there is nothing to route (`Message::id` gives `None` or [`Id::NULL`], which misses as
    /// `Unknown`); log it or drop it, and let the request's deadline answer its client.
    ///
    /// A `CreateTaskResult` answering a task-augmented request leaves the task's route (under
    /// the Tasks extension of MCP 2026-07-28 too, with no progress to route), a result telling
    /// that a task ended ends its route, and a `tasks/list` result lists the client's own
    /// tasks only (see [Tasks](Self#tasks)); a second reply under a route's token is `Stale`.
    /// Without the time ([`route_reply_at`](Self::route_reply_at) has it), the remapper cannot
    /// tell when a task's ttl passes: a task created by this reply keeps its client, once it
    /// has ended, until the client goes, or until a request needs its place (and a running
    /// task of the extension, which has no deadline but its ttl's, keeps its route until it is
    /// seen to end or its client goes).
    ///
    /// # Errors
    ///
    /// A [`Miss`] for a reply nobody waits for, with nothing written: [`Miss::Stale`] when
    /// the request under the token was answered (a task-augmented request whose
    /// `CreateTaskResult` came was), cancelled, expired or dropped with its client already;
    /// [`Miss::Unknown`] when `reply_id` is not a token the remapper minted. (After a
    /// [`shrink_to_fit`](Self::shrink_to_fit), a token never minted may miss as
    /// [`Miss::Stale`], as [`PendingTable::remove`] says.)
    ///
    /// # Panics
    ///
    /// When `reply_id` is not a slice of `frame` (before anything is removed: the request
    /// stays in flight).
    pub fn route_reply(
        &mut self,
        frame: &[u8],
        reply_id: Id<'_>,
        out: &mut BytesMut,
    ) -> Result<Origin<C, T>, Miss> {
        self.route_reply_when(frame, reply_id, None, out)
    }

    /// [`route_reply`](Self::route_reply) at the time `now`, in milliseconds on the clock of
    /// the deadlines (a task's ttl is in milliseconds): a task this reply creates is kept,
    /// once it has ended, until `now` plus its ttl (`CreateTaskResult`'s `task.ttl`, or its
    /// `ttlMs` under the Tasks extension of MCP 2026-07-28; `null`, unlimited: until its
    /// client goes), and its live route ends then at the latest (under the extension, its only
    /// deadline). See [Tasks](Self#tasks).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, Id, IdRemapper, Message};
    ///
    /// let mut remap = IdRemapper::new(16);
    /// let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{"ttl":60000}}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(call) else { panic!() };
    /// let token = remap.forward_request(7, call, &req, Some(1_000 + 30_000), &mut BytesMut::new()).unwrap();
    ///
    /// let created = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"task":{{"taskId":"t-1","status":"working","ttl":60000}}}}}}"#);
    /// let msg = Decoder::mcp_client().decode(created.as_bytes()).unwrap();
    /// remap.route_reply_at(created.as_bytes(), msg.id().unwrap(), 1_000, &mut BytesMut::new()).unwrap();
    ///
    /// // Its route's deadline passes with no word of the task: the route ends, its client
    /// // is kept within the task's ttl.
    /// assert_eq!(remap.expire(31_000).count(), 0);
    /// let t1 = Id::from_token(br#""t-1""#).unwrap();
    /// assert_eq!((remap.task_routes(), remap.task_owner(t1)), (0, Some(&7)));
    /// assert_eq!(remap.expire(61_000).count(), 0);
    /// assert_eq!((remap.tasks(), remap.task_owner(t1)), (0, None));
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`route_reply`](Self::route_reply).
    ///
    /// # Panics
    ///
    /// As [`route_reply`](Self::route_reply).
    pub fn route_reply_at(
        &mut self,
        frame: &[u8],
        reply_id: Id<'_>,
        now: u64,
        out: &mut BytesMut,
    ) -> Result<Origin<C, T>, Miss> {
        self.route_reply_when(frame, reply_id, Some(now), out)
    }

    fn route_reply_when(
        &mut self,
        frame: &[u8],
        reply_id: Id<'_>,
        now: Option<u64>,
        out: &mut BytesMut,
    ) -> Result<Origin<C, T>, Miss> {
        // Before anything is removed: a caller's mistake must not lose the request.
        encode::offset_in(frame, reply_id.raw());
        let token = Token::from_wire(reply_id.raw());
        let kind = match token.and_then(|t| self.pending.get(t)) {
            Some(Entry {
                held: Held::Request { kind, .. },
                ..
            }) => *kind,
            // Answered already: the request became a task's route.
            Some(Entry {
                held: Held::Task(_),
                ..
            }) => return Err(Miss::Stale),
            // `take` tells a stale token from an unknown one.
            None => Kind::Plain,
        };
        let kept = match (kind, token) {
            (Kind::TaskAugmented, Some(token)) => created_task(frame).and_then(|created| {
                let origin = self.keep_route(token, &created, now)?;
                if created.ended {
                    self.end_task(token);
                }
                Some(origin)
            }),
            _ => None,
        };
        let origin = match kept {
            Some(origin) => origin,
            None => self.take(reply_id)?,
        };
        if kind == Kind::TaskList {
            self.write_task_list(frame, reply_id, &origin, out);
            return Ok(origin);
        }
        if self.routes > 0 {
            if let Some(task_id) = ended_task(frame, kind) {
                // The task of the request's client only: a reply to one client's request
                // must not end another client's task.
                let owned = self
                    .task_entry(task_id)
                    .filter(|(_, owner)| **owner == origin.client);
                if let Some((token, _)) = owned {
                    self.end_task(token);
                }
            }
            match kind {
                // The upstream answers a `tasks/result` once the task it names has ended, with
                // the result or the error of the task's request, or with an error when it no
                // longer knows the task: either way its route ends (see [Tasks](Self#tasks)).
                Kind::TaskResult { task: Some(token) } => self.end_task(token),
                Kind::TaskQuery {
                    get: true,
                    task: Some(token),
                } if is_invalid_params(frame) => self.forget_task(token),
                // A `tasks/cancel` is refused with -32602 for a task in a terminal status, or
                // one the upstream does not know: its route ends, its record stays.
                Kind::TaskQuery {
                    get: false,
                    task: Some(token),
                } if is_invalid_params(frame) => self.end_task(token),
                _ => {}
            }
        }
        encode::write_with_id(out, frame, reply_id, origin.id.as_id());
        Ok(origin)
    }

    /// Removes the request an upstream reply names, writing nothing: for a reply that cannot
    /// be forwarded (an invalid response whose id was readable, [`Rejection::id`]), so that
    /// the caller can answer the client itself (with `origin.id`) and the request does not
    /// stay in flight.
    ///
    /// # Errors
    ///
    /// Those of [`route_reply`](Self::route_reply), for the same ids.
    ///
    /// [`Rejection::id`]: crate::Rejection::id
    pub fn take(&mut self, reply_id: Id<'_>) -> Result<Origin<C, T>, Miss> {
        let token = Token::from_wire(reply_id.raw());
        if let Some(Entry {
            held: Held::Task(_),
            ..
        }) = token.and_then(|t| self.pending.get(t))
        {
            // Answered already: the request became a task's route.
            return Err(Miss::Stale);
        }
        let token = token.ok_or(Miss::Unknown)?;
        let entry = self.pending.remove(token)?;
        self.forget(token, entry).ok_or(Miss::Stale)
    }

    /// The token and value of `client`'s request with id `id`, if it is in flight (to tell
    /// what a client's cancellation names before forwarding it, say). Ids compare as JSON
    /// values, however they are spelt (see [`RemapError::DuplicateId`]).
    pub fn get(&self, client: &C, id: Id<'_>) -> Option<(Token, &T)> {
        let token = self.by_client.find(&self.pending, client, id)?;
        match &self.pending.get(token)?.held {
            Held::Request { origin, .. } => Some((token, &origin.value)),
            Held::Task(_) => None,
        }
    }

    /// [`get`](Self::get), with the request's value to update in place (a count of its
    /// progress notifications, say).
    pub fn get_mut(&mut self, client: &C, id: Id<'_>) -> Option<(Token, &mut T)> {
        let token = self.by_client.find(&self.pending, client, id)?;
        match &mut self.pending.get_mut(token)?.held {
            Held::Request { origin, .. } => Some((token, &mut origin.value)),
            Held::Task(_) => None,
        }
    }

    /// Rewrites a client's `notifications/cancelled` (decoded from `frame`) for the upstream,
    /// its `requestId` replaced by our token, and forgets the request (a late reply will be
    /// `Stale`). Returns the cancelled request's token and origin; `None` (nothing written)
    /// when the notification is not a cancellation or names no request of this client in
    /// flight, or names the client's `initialize`, which MCP says "**MUST NOT** be cancelled
    /// by clients" (the request stays in flight: the upstream would read the cancellation as
    /// the gateway's, its client's, and a receiver "**MAY** ignore" one that names a request
    /// that cannot be cancelled).
    ///
    /// A `notifications/cancelled` that gets `None` must not go upstream as it is, whatever
    /// made it `None`: its `requestId` is the client's own id, and the upstream reads it as
    /// one of ours, which may be another client's request. That holds as much for a
    /// cancellation that [`mcp::Cancelled::from_notification`](crate::mcp::Cancelled::from_notification)
    /// does not read: a `requestId` given twice, or spelled `1.0` or `1e0`, names no request
    /// here, but the upstream's parser may read it as our token 1 all the same (many keep a
    /// duplicated member's last value, and compare `1.0` equal to `1`). Drop it (MCP lets a
    /// receiver ignore a cancellation of a request it does not know, or that has finished).
    /// Tell a cancellation by its method, not by whether it reads; and forward as they are
    /// only the client notifications the gateway knows name nothing of the upstream's (not,
    /// say, a `tasks/cancel` sent as a notification, whose task
    /// [`forward_request`](IdRemapper::forward_request) never checked).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, IdRemapper, Message};
    ///
    /// let mut remap = IdRemapper::new(16);
    /// let call = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(call) else { panic!() };
    /// let token = remap.forward_request("a", call, &req, None, &mut BytesMut::new()).unwrap();
    /// assert_eq!(token.to_string(), "1");
    ///
    /// // Client "b" cancels a request 1 it does not have in flight: nothing is written. Sent
    /// // upstream as it is, it would cancel what the upstream knows as 1, client "a"'s request.
    /// let stray = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(stray) else { panic!() };
    /// let mut upstream = BytesMut::new();
    /// assert!(remap.forward_cancel(&"b", stray, &n, &mut upstream).is_none());
    /// assert!(upstream.is_empty());
    ///
    /// // Nor does a cancellation that cannot be read: dropped, for the upstream may read
    /// // `1.0` as 1 too.
    /// let odd = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.0}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(odd) else { panic!() };
    /// assert!(remap.forward_cancel(&"b", odd, &n, &mut upstream).is_none());
    /// assert!(upstream.is_empty());
    ///
    /// // Client "a" cancels its request 5: it goes upstream under our token.
    /// let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(cancel) else { panic!() };
    /// assert!(remap.forward_cancel(&"a", cancel, &n, &mut upstream).is_some());
    /// assert_eq!(&upstream[..], &br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
    /// "#[..]);
    /// ```
    ///
    /// # Panics
    ///
    /// When `notification` was not decoded from `frame` (before anything is removed: the
    /// request stays in flight).
    pub fn forward_cancel(
        &mut self,
        client: &C,
        frame: &[u8],
        notification: &Notification<'_>,
        out: &mut BytesMut,
    ) -> Option<(Token, Origin<C, T>)> {
        let cancelled = Cancelled::from_notification(notification)?;
        // Before anything is removed: a caller's mistake must not lose the request.
        encode::offset_in(frame, cancelled.request_id.raw());
        let token = self
            .by_client
            .find(&self.pending, client, cancelled.request_id)?;
        if let Some(Entry {
            held:
                Held::Request {
                    kind: Kind::Initialize,
                    ..
                },
            ..
        }) = self.pending.get(token)
        {
            // Not to be cancelled: it stays in flight, and its result still reaches its client.
            return None;
        }
        let entry = self.pending.cancel(token)?;
        let origin = self.forget(token, entry)?;
        encode::write_with_id(out, frame, cancelled.request_id, token.to_id(&mut [0; 20]));
        Some((token, origin))
    }

    /// The upstream went away: removes every request and yields them, so that each client can
    /// be answered. The remapper stays usable; replies to the drained tokens are `Stale`.
    ///
    /// The remapper is empty once `drain` returns, whether the iterator is run, dropped or
    /// leaked: the requests are taken out at once (into one vector: the upstream going away
    /// is rare, and a leaked lazy drain would leave the table and the remapper's own maps
    /// disagreeing about what is in flight).
    pub fn drain(&mut self) -> impl Iterator<Item = (Token, Origin<C, T>)> + use<C, T> {
        self.by_client.clear();
        self.task_ids.clear();
        self.heads.clear();
        self.bytes = 0;
        self.routes = 0;
        self.live = 0;
        self.ended_bytes = 0;
        self.by_records.clear();
        let drained: alloc::vec::Vec<_> = self
            .pending
            .drain()
            .filter_map(|(token, entry)| match entry.held {
                Held::Request { origin, .. } => Some((token, origin)),
                Held::Task(_) => None,
            })
            .collect();
        drained.into_iter()
    }

    /// Requests in flight (not counting the [tasks](Self::tasks) kept).
    pub fn len(&self) -> usize {
        self.pending.len() - self.routes
    }

    /// Whether none is in flight (tasks may be kept).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
