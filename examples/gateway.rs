//! A gateway core, without I/O: several MCP clients share one upstream server. Each client's
//! requests go upstream under ids the gateway mints (`IdRemapper`), so that two clients may
//! both use id `1` and progress token `"p"`; replies and progress come back to the right client
//! with its own tokens restored byte for byte, and so do the changes on a client's MCP
//! 2026-07-28 `subscriptions/listen` stream. Cancellations, timeouts, invalid lines from
//! either side, replies nobody waits for, and clients or the upstream going away are
//! handled as a gateway must. (Requests from the upstream are not routed to a client here:
//! the gateway answers `ping` and refuses the others with -32601. Its notifications other
//! than progress and listen streams are printed as dropped.)
//!
//! `cargo run --example gateway` plays a short scenario and prints every line the gateway
//! writes.

use bytes::BytesMut;
use rpcwire::scan::Validation;
use rpcwire::{
    encode, mcp, DecodeOptions, Decoder, Dialect, ErrorCode, IdRemapper, LineFramer, Message,
    RawJson, ReplyId, Role,
};

/// How long a request may wait for the upstream, in the gateway's time units (ms here).
const TIMEOUT: u64 = 30_000;
/// Longest line accepted from a client, in bytes (the client framers' limit; the decoders
/// keep their 16 MiB default).
const MAX_FRAME: usize = 1 << 20;

pub struct Gateway {
    /// The requests in flight: which client sent each, and its method.
    remap: IdRemapper<usize, String>,
    /// Reads what clients send (as an MCP server would), every payload validated.
    from_clients: Decoder,
    /// Reads what the upstream sends (as an MCP client would).
    from_upstream: Decoder,
    /// One framer and read buffer per client: a line split across reads waits in its buffer.
    framers: Vec<LineFramer>,
    reads: Vec<BytesMut>,
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
            remap: IdRemapper::new(1 << 16),
            from_clients: Decoder::new(options(Role::Server)),
            from_upstream: Decoder::new(options(Role::Client)),
            framers: (0..clients).map(|_| LineFramer::new(MAX_FRAME)).collect(),
            reads: vec![BytesMut::new(); clients],
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
                    let reply = self.from_clients.too_long_reply();
                    encode::write_reply(&mut self.clients[client], &reply, None);
                }
            }
        }
    }

    fn client_line(&mut self, client: usize, frame: &[u8], now: u64) {
        let out = &mut self.clients[client];
        match self.from_clients.decode(frame) {
            Ok(Message::Request(req)) => {
                let method = req.method.decode().into_owned();
                // A `subscriptions/listen` stream (MCP 2026-07-28) waits as long as it is open.
                let deadline =
                    (method != mcp::methods::SUBSCRIPTIONS_LISTEN).then_some(now + TIMEOUT);
                let forwarded = self.remap.forward_request_with(
                    client,
                    method,
                    frame,
                    &req,
                    deadline,
                    &mut self.upstream,
                );
                // A reused id, a progress token it cannot rewrite, a full table.
                if let Err(refused) = forwarded {
                    let message = refused.to_string();
                    encode::write_error(out, ReplyId::Id(req.id), refused.code(), &message, None);
                }
            }
            Ok(Message::Notification(n)) => {
                // A cancellation goes upstream under our token, except for `initialize`,
                // which MCP forbids cancelling. Other notifications are the gateway's own
                // business (here: dropped).
                if let Some(c) = mcp::Cancelled::from_notification(&n) {
                    let initialize = self
                        .remap
                        .get(&client, c.request_id)
                        .is_some_and(|(_, method)| method == mcp::methods::INITIALIZE);
                    if !initialize {
                        self.remap
                            .forward_cancel(&client, frame, &n, &mut self.upstream);
                    }
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

    /// One line from the upstream, at time `now`.
    pub fn upstream_line(&mut self, frame: &[u8], now: u64) {
        let mut routed = BytesMut::new();
        let client = match self.from_upstream.decode(frame) {
            // (An error response's null id names no token of ours: `Miss::Unknown`.)
            Ok(msg @ (Message::Response(_) | Message::ErrorResponse(_))) => msg
                .id()
                .and_then(|id| self.remap.route_reply(frame, id, &mut routed).ok())
                .map(|origin| origin.client),
            // Progress on a request's token, which resets its timeout (as MCP allows), or a
            // change on a client's listen stream.
            Ok(Message::Notification(n)) => match self.remap.route_progress(frame, &n, &mut routed)
            {
                Some((token, origin)) => {
                    let client = origin.client;
                    // Progress resets a timeout, and gives none to a request without one (a
                    // listen stream waits as long as it is open).
                    if self.remap.has_deadline(token) == Some(true) {
                        self.remap.set_deadline(token, Some(now + TIMEOUT));
                    }
                    Some(client)
                }
                // A listen stream's notification, stamped with its listen request's id. (The
                // remapper routes any stamp naming a request in flight: a call's is no
                // stream's, nor is another notification stamped with a listen request's id.)
                None if mcp::methods::LISTEN_STREAM
                    .iter()
                    .any(|m| n.method.eq_str(m)) =>
                {
                    match self.remap.route_subscription(frame, &n, &mut routed) {
                        Some(origin) if origin.value == mcp::methods::SUBSCRIPTIONS_LISTEN => {
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
                if let Some(reply) = rejection.reply() {
                    if matches!(reply.id, ReplyId::Id(_)) {
                        encode::write_reply(&mut self.upstream, &reply, None);
                        return;
                    }
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

    /// Time passes: requests past their deadline are answered here and, except `initialize`
    /// (which MCP forbids cancelling), cancelled upstream.
    fn tick(&mut self, now: u64) {
        let expired: Vec<_> = self.remap.expire(now).collect();
        for (token, origin) in expired {
            encode::write_error(
                &mut self.clients[origin.client],
                ReplyId::Id(origin.id.as_id()),
                ErrorCode::INTERNAL_ERROR,
                "Request timed out",
                None,
            );
            if origin.value != mcp::methods::INITIALIZE {
                mcp::write_cancelled(
                    &mut self.upstream,
                    token.to_id(&mut [0; 20]),
                    Some("timed out"),
                );
            }
        }
    }

    /// `client`'s connection closed: its requests are forgotten (a late reply is dropped as
    /// stale) and, except `initialize`, cancelled upstream. A listen stream, which has no
    /// deadline, would otherwise stay open upstream and in the table forever.
    fn client_closed(&mut self, client: usize) {
        for (token, origin) in self.remap.drop_client(&client) {
            if origin.value != mcp::methods::INITIALIZE {
                mcp::write_cancelled(
                    &mut self.upstream,
                    token.to_id(&mut [0; 20]),
                    Some("the client went away"),
                );
            }
        }
        // The slot may serve a new connection: nothing of this one's lines is kept.
        self.reads[client].clear();
        self.framers[client] = LineFramer::new(MAX_FRAME);
    }

    /// The upstream's connection closed: every request in flight is answered, since no reply
    /// will come (a listen stream, which has no deadline, would wait forever). What is left to
    /// write upstream is dropped.
    fn upstream_closed(&mut self) {
        for (_, origin) in self.remap.drain() {
            encode::write_error(
                &mut self.clients[origin.client],
                ReplyId::Id(origin.id.as_id()),
                ErrorCode::INTERNAL_ERROR,
                "Internal error: the upstream went away",
                None,
            );
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

fn print_lines(to: &str, bytes: &[u8]) {
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        println!("-> {to}: {}", String::from_utf8_lossy(line));
    }
}

fn main() {
    let mut gw = Gateway::new(2);
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
    // An `initialize` that times out is answered here but not cancelled upstream.
    gw.client_read(
        1,
        br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c1","version":"1"}}}
"#,
        10 + TIMEOUT,
    );
    gw.flush();
    gw.tick(10 + 2 * TIMEOUT);
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
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1048577,"progress":1}}"#,
        20 + 2 * TIMEOUT,
    );
    gw.flush();
    gw.tick(20 + 4 * TIMEOUT);
    // (Tokens 1048577 and 262146, printed above: slots 1 and 2 again.)
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":262146}}}"#, 20 + 4 * TIMEOUT);
    gw.upstream_line(
        br#"{"jsonrpc":"2.0","id":1048577,"result":{}}"#,
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
    // (Upstream ids 524290 and 1310721, printed above.)
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
}
