//! A gateway core, without I/O: several MCP clients share one upstream server. Each client's
//! requests go upstream under ids the gateway mints (`IdRemapper`), so that two clients may
//! both use id `1` and progress token `"p"`; replies and progress come back to the right client
//! with its own tokens restored byte for byte, and so do the changes on a client's MCP
//! 2026-07-28 `subscriptions/listen` stream. A client's MCP 2025-11-25 tasks stay its own:
//! their progress and status go to it alone, another client naming one of them in
//! `tasks/get`, `tasks/result` or `tasks/cancel` (or, under the Tasks extension of
//! 2026-07-28, `tasks/update` and a `subscriptions/listen`'s `taskIds`) is answered as for a
//! task not found, and a `tasks/list` result reaches each client with its own tasks only;
//! `tasks/result` waits without a timeout, as it blocks until the task ends. Owning the upstream session (below),
//! the gateway sees every task created in it, so it fails closed: a task it does not keep
//! (never created, past its ttl, its record given up for room) is answered as another
//! client's is, never sent upstream. Cancellations, timeouts, invalid lines from
//! either side, replies nobody waits for, and clients or the upstream going away are
//! handled as a gateway must; a client's request under a notification's method
//! (`notifications/cancelled` sent with an id, say) is refused with -32601, never forwarded
//! with the ids in its params unrewritten. (Requests from the upstream are not routed to a
//! client here: the gateway answers `ping` and refuses the others with -32601. Its
//! notifications other than progress, task status and listen streams (their changes and
//! their teardown) are printed as dropped.)
//!
//! The gateway owns the upstream session (MCP's lifecycle, up to 2025-11-25): the first
//! client's `initialize` goes upstream under the gateway's own id, and once its result comes
//! the gateway sends `notifications/initialized` upstream, once. Every client, then or later,
//! gets that result under its own id: the upstream speaks one protocol version, the one it
//! chose, and a client that does not speak it disconnects, as MCP's negotiation says. The
//! clients' own `notifications/initialized` stay here, and a client's requests other than
//! `ping` are refused with -32600 until its `initialize` is answered.
//!
//! `cargo run --example gateway` plays a short scenario and prints every line the gateway
//! writes.

use bytes::BytesMut;
use rpcwire::scan::Validation;
use rpcwire::{
    DecodeOptions, Decoder, Dialect, ErrorCode, Id, IdBuf, IdKey, IdRemapper, JsonKind, LineFramer,
    Lookup, Message, RawJson, Rejection, RemapError, ReplyId, Request, Role, StreamCancel, encode,
    mcp,
};

/// How long a request may wait for the upstream, in the gateway's time units (ms here).
const TIMEOUT: u64 = 30_000;
/// The most requests (and live task routes) one client may have in flight, and the bytes of
/// their ids and progress tokens: every client shares the remapper's table (65,536 entries,
/// 64 MiB), and without a share of its own one client flooding requests, or tasks it never
/// ends, would have every other client's requests refused as the table full.
const MAX_PER_CLIENT: usize = 1 << 10;
const MAX_BYTES_PER_CLIENT: usize = 4 << 20;
/// Longest line accepted from a client, in bytes (the client framers' limit; the decoders
/// keep their 16 MiB default).
const MAX_FRAME: usize = 1 << 20;
/// The id of the gateway's own `initialize` upstream: a string, which `IdRemapper` (whose
/// tokens are integers) never mints.
const HANDSHAKE_ID: &str = "gateway-initialize";
const HANDSHAKE_TOKEN: &[u8] = b"\"gateway-initialize\"";
/// The error message of a request the upstream will never answer.
const UPSTREAM_GONE: &str = "Internal error: the upstream went away";

/// What the gateway keeps with each request in flight: what it reads of the request again,
/// which is only whether it opened a listen stream (whose notifications go to its client).
/// Not its method, which may be as long as a line, and whose bytes no client's share counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Forwarded {
    /// A `subscriptions/listen` (MCP 2026-07-28): its stream is open until its result.
    ListenStream,
    /// Any other request.
    Request,
}

/// A client's `initialize` waiting for the upstream's result.
struct Waiter {
    client: usize,
    id: IdBuf,
    deadline: u64,
}

/// Where the upstream session is in MCP's lifecycle.
enum Handshake {
    /// No `initialize` sent upstream yet (or the last one failed: the next client's is sent).
    NotStarted,
    /// Our `initialize` is upstream; these clients wait for its result.
    Initializing(Vec<Waiter>),
    /// The upstream answered, and got `notifications/initialized`: its result, the answer to
    /// every client's `initialize`.
    Ready(Vec<u8>),
    /// The upstream's connection closed: every request is answered with -32603 at once, as
    /// no reply will come. (A real gateway would reconnect, and start a new session.)
    Closed,
}

impl Handshake {
    /// Whether `client`'s `initialize` waits for the upstream's result (under `id`, if given:
    /// ids compare as the remapper compares them, `1` the same as `1.0`).
    fn waits(&self, client: usize, id: Option<Id<'_>>) -> bool {
        let Handshake::Initializing(waiting) = self else {
            return false;
        };
        let key = id.map(IdKey::of);
        waiting.iter().any(|w| {
            w.client == client
                && key
                    .as_ref()
                    .is_none_or(|key| *key == IdKey::of(w.id.as_id()))
        })
    }
}

pub struct Gateway {
    /// The requests in flight: which client sent each, and whether it opened a listen stream.
    remap: IdRemapper<usize, Forwarded>,
    /// Reads what clients send (as an MCP server would), every payload validated.
    from_clients: Decoder,
    /// Reads what the upstream sends (as an MCP client would).
    from_upstream: Decoder,
    /// One framer and read buffer per client: a line split across reads waits in its buffer.
    framers: Vec<LineFramer>,
    reads: Vec<BytesMut>,
    /// The upstream session's handshake.
    handshake: Handshake,
    /// Whether each client's `initialize` was answered with a result: until then its requests
    /// (but `ping`) are refused, as an MCP server may before the handshake.
    initialized: Vec<bool>,
    /// When `tick` may next try to give back the remapper's room, after a try that left it
    /// pinned (see `tick`).
    next_shrink: u64,
    /// Lines to write upstream, and to each client.
    pub upstream: BytesMut,
    pub clients: Vec<BytesMut>,
}

impl Gateway {
    pub fn new(clients: usize) -> Gateway {
        let options = |role| DecodeOptions {
            validation: Validation::Strict,
            role,
            ..DecodeOptions::new(Dialect::Mcp)
        };
        Gateway {
            remap: IdRemapper::new(1 << 16)
                .max_per_client(MAX_PER_CLIENT)
                .max_bytes_per_client(MAX_BYTES_PER_CLIENT),
            from_clients: Decoder::new(options(Role::Server)),
            from_upstream: Decoder::new(options(Role::Client)),
            framers: (0..clients).map(|_| LineFramer::new(MAX_FRAME)).collect(),
            reads: vec![BytesMut::new(); clients],
            handshake: Handshake::NotStarted,
            initialized: vec![false; clients],
            next_shrink: 0,
            upstream: BytesMut::new(),
            clients: vec![BytesMut::new(); clients],
        }
    }

    /// Bytes read from `client`'s connection, at time `now`: every complete line is handled.
    pub fn client_read(&mut self, client: usize, bytes: &[u8], now: u64) {
        self.reads[client].extend_from_slice(bytes);
        loop {
            match self.framers[client].decode(&mut self.reads[client]) {
                Ok(Some(frame)) => self.client_line(client, &frame, now),
                // The rest of the buffer is the start of a line, for the next read.
                Ok(None) => break,
                Err(_) => {
                    let reply = self.from_clients.parse_error_reply();
                    encode::write_reply(&mut self.clients[client], &reply, None);
                }
            }
        }
    }

    fn client_line(&mut self, client: usize, frame: &[u8], now: u64) {
        let out = &mut self.clients[client];
        match self.from_clients.decode(frame) {
            // Nothing goes to an upstream that went away: the client is told at once, not
            // left waiting for its timeout (-32603, as for the requests it had in flight).
            Ok(Message::Request(req)) if matches!(self.handshake, Handshake::Closed) => {
                let message = UPSTREAM_GONE;
                encode::write_error(out, req.id, ErrorCode::INTERNAL_ERROR, message, None);
            }
            Ok(Message::Request(req)) if req.method.eq_str(mcp::methods::INITIALIZE) => {
                self.client_initialize(client, req, now);
            }
            Ok(Message::Request(req))
                if !self.initialized[client] && !req.method.eq_str(mcp::methods::PING) =>
            {
                let message = "Invalid Request: initialize first";
                encode::write_error(out, req.id, ErrorCode::INVALID_REQUEST, message, None);
            }
            // A `ping` under the id of the client's `initialize`, which waits.
            Ok(Message::Request(req)) if self.handshake.waits(client, Some(req.id)) => {
                RemapError::DuplicateId.write_reply(out, req.id);
            }
            // A request under a notification's method, which no server offers (-32601), is not
            // forwarded: its params would go as the client wrote them, and a
            // `notifications/cancelled` one's `requestId`, the client's own id, could be read
            // upstream as our token of another client's request (only a cancellation sent as a
            // notification is rewritten, below).
            Ok(Message::Request(req)) if req.method.decode().starts_with("notifications/") => {
                encode::write_method_not_found(out, req.id, req.method);
            }
            // A task the gateway does not keep: refused as another client's task is (-32602,
            // as the upstream answers for a task not found). The gateway owns the upstream
            // session, so every task created in it came back through the remapper: one it
            // does not keep is past its ttl, or its record was given up for room, or it never
            // was; sent upstream, it could be another client's.
            Ok(Message::Request(req)) if names_a_task_not_kept(&self.remap, &req) => {
                RemapError::ForeignTask.write_reply(out, req.id);
            }
            Ok(Message::Request(req)) => {
                let listen = req.method.eq_str(mcp::methods::SUBSCRIPTIONS_LISTEN);
                // A `subscriptions/listen` stream (MCP 2026-07-28) waits as long as it is open,
                // and a `tasks/result` (2025-11-25) until its task ends: no timeout for either.
                let waits = listen || req.method.eq_str(mcp::methods::TASKS_RESULT);
                let deadline = (!waits).then_some(now + TIMEOUT);
                let kept = if listen {
                    Forwarded::ListenStream
                } else {
                    Forwarded::Request
                };
                let forwarded = self.remap.forward_request_with(
                    client,
                    kept,
                    frame,
                    &req,
                    deadline,
                    &mut self.upstream,
                );
                // A reused id, a progress token it cannot rewrite, a full table or a client
                // past its share of it; a task of another client's (-32602, as the upstream
                // answers for a task not found).
                if let Err(refused) = forwarded {
                    refused.write_reply(out, req.id);
                }
            }
            Ok(Message::Notification(n)) => {
                // A cancellation goes upstream under our token (never one of `initialize`,
                // which is the gateway's own upstream, and which MCP forbids cancelling).
                // Other notifications are the gateway's own business (here: dropped), the
                // clients' `notifications/initialized` first: the upstream gets the gateway's.
                if mcp::Cancelled::from_notification(&n).is_some() {
                    self.remap
                        .forward_cancel(&client, frame, &n, &mut self.upstream);
                }
            }
            // A client's reply to a server request: this gateway sends none.
            Ok(_) => {}
            Err(rejection) => {
                // `reply()` is `None` only for a malformed response: a malformed notification is
                // an invalid Request and gets -32600.
                if let Some(reply) = rejection.reply() {
                    encode::write_reply(out, &reply, None);
                }
            }
        }
    }

    /// A client's `initialize`: the first goes upstream under our id; the others wait for
    /// its result, or are answered with it. Its params go as the client sent them (but for a
    /// progress token: see `handshake_params`): the upstream sees the first client's version,
    /// capabilities and name. A client's second `initialize` (its first answered or still
    /// waiting), or one under the id of its request in flight, is refused with -32600.
    fn client_initialize(&mut self, client: usize, req: Request<'_>, now: u64) {
        let out = &mut self.clients[client];
        // (One waiting counts: both answered, the client would get two results.)
        if self.initialized[client] || self.handshake.waits(client, None) {
            let message = "Invalid Request: already initialized";
            encode::write_error(out, req.id, ErrorCode::INVALID_REQUEST, message, None);
            return;
        }
        // Its id is the client's request in flight (a `ping`): both would be answered under it.
        if self.remap.get(&client, req.id).is_some() {
            RemapError::DuplicateId.write_reply(out, req.id);
            return;
        }
        let waiter = Waiter {
            client,
            id: req.id.to_owned_id(),
            deadline: now + TIMEOUT,
        };
        match &mut self.handshake {
            Handshake::NotStarted => {
                let mut buf = BytesMut::new();
                let params = match handshake_params(req.params, &mut buf) {
                    Ok(params) => params,
                    Err(refused) => {
                        refused.write_reply(&mut self.clients[client], req.id);
                        return;
                    }
                };
                let id = Id::from_token(HANDSHAKE_TOKEN).expect("a JSON string");
                let method = mcp::methods::INITIALIZE;
                encode::write_request(&mut self.upstream, id, method, params);
                self.handshake = Handshake::Initializing(vec![waiter]);
            }
            Handshake::Initializing(waiting) => waiting.push(waiter),
            // (Refused before: see `client_line`.)
            Handshake::Closed => {}
            Handshake::Ready(result) => {
                answer_initialize(&mut self.clients[client], req.id, result);
                self.initialized[client] = true;
            }
        }
    }

    /// The upstream's reply to our `initialize`. A result readies the session: the upstream
    /// gets `notifications/initialized`, and each waiting client the result. An error (or
    /// an invalid reply) goes to each waiting client, and the next `initialize` tries again.
    fn handshake_reply(&mut self, reply: Result<Message<'_>, Rejection<'_>>) {
        let waiting = match &mut self.handshake {
            Handshake::Initializing(waiting) => std::mem::take(waiting),
            _ => {
                println!("(dropped from upstream: a reply to no initialize in flight)");
                return;
            }
        };
        self.handshake = Handshake::NotStarted;
        for waiter in &waiting {
            let out = &mut self.clients[waiter.client];
            let id = waiter.id.as_id();
            match &reply {
                Ok(Message::Response(response)) => {
                    encode::write_response(out, id, response.result);
                    self.initialized[waiter.client] = true;
                }
                Ok(Message::ErrorResponse(e)) => {
                    let message = e.error.message.decode();
                    encode::write_error(out, id, e.error.code, &message, e.error.data);
                }
                _ => {
                    let message = "Internal error: invalid reply upstream";
                    encode::write_error(out, id, ErrorCode::INTERNAL_ERROR, message, None);
                }
            }
        }
        if let Ok(Message::Response(response)) = reply {
            encode::write_notification(&mut self.upstream, mcp::methods::INITIALIZED, None);
            self.handshake = Handshake::Ready(response.result.as_bytes().to_vec());
        }
    }

    /// One line from the upstream, at time `now`.
    pub fn upstream_line(&mut self, frame: &[u8], now: u64) {
        let decoded = self.from_upstream.decode(frame);
        let reply_id = match &decoded {
            Ok(msg @ (Message::Response(_) | Message::ErrorResponse(_))) => msg.id(),
            Err(rejection) if rejection.is_response() => rejection.id(),
            _ => None,
        };
        let handshake = reply_id
            .and_then(|id| id.as_str())
            .is_some_and(|id| id.eq_str(HANDSHAKE_ID));
        if handshake {
            return self.handshake_reply(decoded);
        }
        let mut routed = BytesMut::new();
        let client = match decoded {
            // (An error response's null id names no token of ours: `Miss::Unknown`.)
            Ok(msg @ (Message::Response(_) | Message::ErrorResponse(_))) => msg
                .id()
                .and_then(|id| self.remap.route_reply_at(frame, id, now, &mut routed).ok())
                .map(|origin| origin.client),
            // Progress on a request's token (or a task's, after the request created it), which
            // resets its timeout (as MCP allows), a task's status, or a change on a client's
            // listen stream.
            Ok(Message::Notification(n)) => match self.remap.route_progress(frame, &n, &mut routed)
            {
                Some(progress) => {
                    let (token, client) = (progress.token, *progress.client);
                    // Progress resets a timeout, and gives none to a request without one (a
                    // listen stream waits as long as it is open).
                    if self.remap.has_deadline(token) == Some(true) {
                        self.remap.set_deadline(token, Some(now + TIMEOUT));
                    }
                    Some(client)
                }
                // A task's status goes to the client whose request created it, and only there;
                // it keeps the task's route alive as progress does.
                None if n.method.eq_str(mcp::methods::TASKS_STATUS) => self
                    .remap
                    .route_task_status(frame, &n, &mut routed)
                    .map(|(token, client)| {
                        if self.remap.has_deadline(token) == Some(true) {
                            self.remap.set_deadline(token, Some(now + TIMEOUT));
                        }
                        client
                    }),
                // The upstream tears a client's listen stream down (MCP 2026-07-28: its
                // cancellation names the listen request's token): it goes to that client under
                // the client's id, and the stream is closed. A cancellation of anything else
                // is one a server must not send, and goes nowhere.
                None if n.method.eq_str(mcp::methods::CANCELLED) => {
                    match self.remap.route_stream_cancel(frame, &n, &mut routed) {
                        StreamCancel::Routed(origin) => Some(origin.client),
                        // Not a stream's, or no request's: it goes nowhere.
                        _ => None,
                    }
                }
                // A listen stream's notification, stamped with its listen request's id. (The
                // remapper routes any stamp naming a request in flight: a call's is no
                // stream's, nor is another notification stamped with a listen request's id.)
                None if mcp::methods::LISTEN_STREAM
                    .iter()
                    .any(|m| n.method.eq_str(m)) =>
                {
                    match self.remap.route_subscription(frame, &n, &mut routed) {
                        Some(origin) if origin.value == Forwarded::ListenStream => {
                            Some(origin.client)
                        }
                        _ => {
                            routed.clear();
                            None
                        }
                    }
                }
                None => None,
            },
            // A request of the upstream's own: no client is asked (this gateway routes none),
            // so the gateway answers it, as JSON-RPC requires of whoever receives a request.
            Ok(Message::Request(req)) => {
                if req.method.eq_str(mcp::methods::PING) {
                    encode::write_response(&mut self.upstream, req.id, RawJson::EMPTY_OBJECT);
                } else {
                    encode::write_method_not_found(&mut self.upstream, req.id, req.method);
                }
                return;
            }
            // An invalid reply whose id is readable fails its request: the client is told
            // instead of waiting forever.
            Err(rejection) if rejection.is_response() => {
                let origin = rejection.id().and_then(|id| self.remap.take(id).ok());
                if let Some(origin) = &origin {
                    encode::write_error(
                        &mut routed,
                        ReplyId::Id(origin.id.as_id()),
                        ErrorCode::INTERNAL_ERROR,
                        "Internal error: invalid reply upstream",
                        None,
                    );
                }
                origin.map(|origin| origin.client)
            }
            // An invalid request of the upstream's gets -32600, when its id can be read: a
            // line that is not JSON may have been a reply, and is never answered.
            Err(rejection) => {
                if let Some(reply) = rejection.reply_to_request() {
                    encode::write_reply(&mut self.upstream, &reply, None);
                    return;
                }
                None
            }
            _ => None,
        };
        match client {
            Some(client) => self.clients[client].extend_from_slice(&routed),
            None => println!(
                "(dropped from upstream: {})",
                String::from_utf8_lossy(frame)
            ),
        }
    }

    /// Time passes: requests past their deadline are answered here and cancelled upstream.
    /// A client's `initialize` is answered too, but ours stays upstream (MCP forbids
    /// cancelling it): its result, when it comes, still readies the session. Once a burst is
    /// over, the remapper gives back the room it left (`IdRemapper::shrink_to_fit`); room an
    /// entry near the table's end pins is tried again a timeout later.
    pub fn tick(&mut self, now: u64) {
        let expired: Vec<_> = self.remap.expire(now).collect();
        for (token, origin) in expired {
            encode::write_error(
                &mut self.clients[origin.client],
                ReplyId::Id(origin.id.as_id()),
                ErrorCode::INTERNAL_ERROR,
                "Request timed out",
                None,
            );
            mcp::write_cancelled_token(&mut self.upstream, token, Some("timed out"));
        }
        if let Handshake::Initializing(waiting) = &mut self.handshake {
            for waiter in waiting.extract_if(.., |w| w.deadline <= now) {
                encode::write_error(
                    &mut self.clients[waiter.client],
                    waiter.id.as_id(),
                    ErrorCode::INTERNAL_ERROR,
                    "Request timed out",
                    None,
                );
            }
        }
        // A burst's room goes back once the table is mostly empty: a pass over the table, so
        // not while it stays full, and not for a table of a few thousand places. An entry
        // near the table's end pins the room before it, and a try then leaves the table as
        // mostly empty as it was: the next waits a timeout (a request there is answered or
        // expired by then), not the next tick (each try a pass over what the remapper keeps,
        // for nothing while the entry stays).
        if now >= self.next_shrink && mostly_empty(&self.remap) {
            self.remap.shrink_to_fit();
            if mostly_empty(&self.remap) {
                self.next_shrink = now + TIMEOUT;
            }
        }
    }

    /// `client`'s connection closed: its requests are forgotten (a late reply is dropped as
    /// stale) and cancelled upstream. A listen stream, which has no deadline, would otherwise
    /// stay open upstream and in the table forever. Its `initialize`, if it waits, is
    /// forgotten too (ours stays upstream: the session is the gateway's). The lines written
    /// for it and not sent yet are dropped: a new connection in its slot gets none of them.
    pub fn client_closed(&mut self, client: usize) {
        for (token, _) in self.remap.drop_client(&client) {
            mcp::write_cancelled_token(&mut self.upstream, token, Some("the client went away"));
        }
        if let Handshake::Initializing(waiting) = &mut self.handshake {
            waiting.retain(|w| w.client != client);
        }
        self.initialized[client] = false;
        // The slot may serve a new connection: nothing of this one's lines is kept, neither
        // what it sent nor what was written for it and not sent (replies under its ids).
        self.reads[client].clear();
        self.framers[client] = LineFramer::new(MAX_FRAME);
        self.clients[client].clear();
    }

    /// The upstream's connection closed: every request in flight is answered, since no reply
    /// will come (a listen stream, which has no deadline, would wait forever), and so is every
    /// `initialize` waiting; every later request is answered at once. What is left to write
    /// upstream is dropped.
    pub fn upstream_closed(&mut self) {
        for (_, origin) in self.remap.drain() {
            encode::write_error(
                &mut self.clients[origin.client],
                ReplyId::Id(origin.id.as_id()),
                ErrorCode::INTERNAL_ERROR,
                UPSTREAM_GONE,
                None,
            );
        }
        let handshake = std::mem::replace(&mut self.handshake, Handshake::Closed);
        if let Handshake::Initializing(waiting) = handshake {
            for waiter in waiting {
                let out = &mut self.clients[waiter.client];
                let id = waiter.id.as_id();
                encode::write_error(out, id, ErrorCode::INTERNAL_ERROR, UPSTREAM_GONE, None);
            }
        }
        self.upstream.clear();
    }

    /// Prints what the gateway wrote since the last call.
    fn flush(&mut self) {
        print_lines("upstream", &self.upstream.split());
        for (client, out) in self.clients.iter_mut().enumerate() {
            print_lines(&format!("client {client}"), &out.split());
        }
    }
}

/// The params of the gateway's `initialize` upstream: the client's, but for its progress
/// token (if it asked for progress), which becomes the handshake's id. The client's own may
/// be a number the remapper mints for another client's request, which the upstream's
/// progress on the handshake would reach. A token the remapper would refuse too is refused
/// as it would be: `RemapError::BadProgressToken` when it is neither a string nor a number
/// or is named twice, `RemapError::MalformedParams` when the params around it are no JSON
/// (which the gateway's strict decoding lets through only if it is made lazy).
fn handshake_params<'a>(
    params: Option<RawJson<'a>>,
    buf: &'a mut BytesMut,
) -> Result<Option<RawJson<'a>>, RemapError> {
    let path = ["_meta", mcp::meta_keys::PROGRESS_TOKEN];
    let token = match params.map_or(Lookup::Absent, |p| p.lookup_path(&path)) {
        Lookup::Found(token) if token.kind() == JsonKind::Null => return Ok(params),
        Lookup::Found(token) => Id::from_token(token.as_bytes()),
        Lookup::Absent => return Ok(params),
        Lookup::Ambiguous => None,
        Lookup::Malformed => return Err(RemapError::MalformedParams),
    };
    let (Some(params), Some(token)) = (params, token) else {
        return Err(RemapError::BadProgressToken);
    };
    let ours = Id::from_token(HANDSHAKE_TOKEN).expect("a JSON string");
    encode::write_with_id(buf, params.as_bytes(), token, ours);
    Ok(RawJson::new(buf.trim_ascii_end()))
}

/// Whether `req` names a task the remapper does not keep: a `tasks/get`, `tasks/result`,
/// `tasks/cancel` or `tasks/update` (the Tasks extension of MCP 2026-07-28) whose
/// `params.taskId` (one string) does, or a `subscriptions/listen` one of whose
/// `params.notifications.taskIds` (strings) does, as the extension's task statuses come on a
/// listen stream with the task's result. (A task id that is not one string, or a `taskIds`
/// that is not one array, is the remapper's to refuse, as `RemapError::BadTaskId`.)
fn names_a_task_not_kept(remap: &IdRemapper<usize, Forwarded>, req: &Request<'_>) -> bool {
    let not_kept = |task_id: RawJson<'_>| {
        task_id
            .as_str()
            .and_then(|_| Id::from_token(task_id.as_bytes()))
            .is_some_and(|id| remap.task_owner(id).is_none())
    };
    if req.method.eq_str(mcp::methods::SUBSCRIPTIONS_LISTEN) {
        let Some(Lookup::Found(task_ids)) = req
            .params
            .map(|p| p.lookup_path(&["notifications", "taskIds"]))
        else {
            return false;
        };
        return task_ids.elements().any(not_kept);
    }
    let names_a_task = [
        mcp::methods::TASKS_GET,
        mcp::methods::TASKS_RESULT,
        mcp::methods::TASKS_CANCEL,
        mcp::methods::TASKS_UPDATE,
    ]
    .iter()
    .any(|m| req.method.eq_str(m));
    if !names_a_task {
        return false;
    }
    let Some(Lookup::Found(task_id)) = req.params.map(|p| p.lookup("taskId")) else {
        return false;
    };
    not_kept(task_id)
}

/// Whether the remapper's table is mostly empty, and large: its room is worth giving back.
fn mostly_empty(remap: &IdRemapper<usize, Forwarded>) -> bool {
    let room = remap.capacity();
    room > 4096 && remap.len() + remap.tasks() < room / 4
}

/// Answers a client's `initialize` (id `id`) with the upstream's `result`.
fn answer_initialize(out: &mut BytesMut, id: Id<'_>, result: &[u8]) {
    match RawJson::new(result) {
        Some(result) => encode::write_response(out, id, result),
        // (Never: the bytes are a result the upstream decoder read.)
        None => {
            let message = "Internal error: the upstream's initialize result";
            encode::write_error(out, id, ErrorCode::INTERNAL_ERROR, message, None);
        }
    }
}

fn print_lines(to: &str, bytes: &[u8]) {
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        println!("-> {to}: {}", String::from_utf8_lossy(line));
    }
}

fn main() {
    let mut gw = Gateway::new(2);
    // The handshake: client 0's `initialize` goes upstream under the gateway's id, its
    // `tools/list` sent too early is refused, and client 1's `initialize` waits for the
    // result. Then the upstream gets `notifications/initialized`, once, and both clients the
    // result under their own ids; their own `notifications/initialized` go no further.
    gw.client_read(
        0,
        br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c0","version":"1"}}}
{"jsonrpc":"2.0","id":9,"method":"tools/list"}
"#,
        0,
    );
    gw.client_read(
        1,
        br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c1","version":"1"}}}
"#,
        0,
    );
    gw.flush();
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","id":"gateway-initialize","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"upstream","version":"1"}}}"#,
        0,
    );
    for client in 0..2 {
        gw.client_read(
            client,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
            0,
        );
    }
    gw.flush();
    // Both clients use id 1 and progress token "p"; client 1's line comes in two reads.
    gw.client_read(
        0,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}
"#,
        0,
    );
    gw.client_read(1, br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","#, 0);
    gw.client_read(
        1,
        br#""params":{"name":"fast","_meta":{"progressToken":"p"}}}
{oops
"#,
        1,
    );
    gw.flush();
    // The upstream saw tokens 1 and 2: it reports progress on client 0's request and answers
    // client 1's.
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":50}}"#, 1);
    gw.upstream_line(br#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#, 1);
    gw.flush();
    // Client 0 gives up; the upstream's late reply goes nowhere.
    gw.client_read(
        0,
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
"#,
        2,
    );
    gw.flush();
    gw.upstream_line(br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#, 2);
    // The upstream answers the ping (upstream id 262145, printed above: the cancelled request's
    // slot reused under a new generation, `1 << 18 | 1`) with an invalid reply (an MCP result
    // must be an object): client 1 gets -32603.
    gw.client_read(
        1,
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
        3,
    );
    gw.flush();
    gw.upstream_line(br#"{"jsonrpc":"2.0","id":262145,"result":5}"#, 3);
    gw.flush();
    // A request the upstream never answers times out; reusing its id meanwhile is refused.
    gw.client_read(
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n",
        4,
    );
    gw.client_read(
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n",
        5,
    );
    gw.flush();
    gw.tick(4 + TIMEOUT);
    gw.flush();
    // Both clients open an MCP 2026-07-28 `subscriptions/listen` stream with id "l": it has no
    // deadline, and each change the upstream stamps with a stream's token goes back to the
    // client that opened it, under its own id, until the upstream's result closes the stream.
    // Client 0's asks for progress, which the upstream reports (without giving the stream a
    // timeout).
    gw.client_read(
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"subscriptions/listen\",\"params\":{\"_meta\":{\"progressToken\":\"lp\"}}}\n",
        20 + 2 * TIMEOUT,
    );
    gw.client_read(
        1,
        b"{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"subscriptions/listen\",\"params\":{}}\n",
        20 + 2 * TIMEOUT,
    );
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":786433,"progress":1}}"#,
        20 + 2 * TIMEOUT,
    );
    gw.flush();
    gw.tick(20 + 4 * TIMEOUT);
    // (Tokens 786433 and 262146, printed above: slots 1 and 2 again.)
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":262146}}}"#, 20 + 4 * TIMEOUT);
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","id":786433,"result":{}}"#,
        20 + 4 * TIMEOUT,
    );
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","id":262146,"result":{}}"#,
        20 + 4 * TIMEOUT,
    );
    gw.flush();
    // Client 0 goes away in the middle of a call, with a listen stream open (and half a line
    // read): both are cancelled upstream, and the call's late reply goes nowhere.
    let now = 30 + 4 * TIMEOUT;
    gw.client_read(
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}\n\
          {\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"subscriptions/listen\",\"params\":{}}\n{\"jsonrpc\"",
        now,
    );
    gw.client_closed(0);
    gw.flush();
    // (Upstream ids 524290 and 1048577, printed above.)
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","id":524290,"result":{"content":[]}}"#,
        now,
    );
    // The upstream's own requests.
    gw.upstream_line(br#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#, now);
    gw.upstream_line(br#"{"jsonrpc":"2.0","id":"s2","method":"roots/list"}"#, now);
    gw.upstream_line(br#"{"jsonrpc":"2.0","id":"s3","method":7}"#, now);
    gw.flush();
    // The upstream goes away with a call and a listen stream of client 1's in flight.
    gw.client_read(
        1,
        b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"fast\"}}\n\
          {\"jsonrpc\":\"2.0\",\"id\":\"l2\",\"method\":\"subscriptions/listen\",\"params\":{}}\n",
        now,
    );
    gw.flush();
    gw.upstream_closed();
    gw.flush();
    assert!(gw.remap.is_empty());
    // A request after that is answered at once: nothing goes to the closed upstream.
    gw.client_read(
        1,
        b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}\n",
        now,
    );
    gw.flush();
}
