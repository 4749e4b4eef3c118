//! MCP's Streamable HTTP transport on rpcwire, without an HTTP library: a sans-IO server core
//! takes one request (POST, GET or DELETE) as its headers and body, as any HTTP server hands
//! them over, and gives back a status, a content type and a body. It never sees a socket:
//! binding a local server to 127.0.0.1, not 0.0.0.0 (as MCP says it SHOULD), authenticating
//! the client, and TLS are the runner's part.
//!
//! - Every request's `Origin`, when it has one (a browser's), must be one of
//!   `ALLOWED_ORIGINS`, else 403 Forbidden: a page whose name an attacker made resolve to this
//!   machine (DNS rebinding) calls it no further, whatever its method. Any other method than
//!   GET, POST and DELETE gets 405.
//! - A POST must accept both JSON and an event stream (its `Accept` lists both, as MCP says
//!   the client MUST), else 406 Not Acceptable, and carry JSON (`Content-Type:
//!   application/json`, parameters allowed), else 415 Unsupported Media Type.
//! - The body is decoded as a gateway would (MCP, strict validation). An invalid one gets 400
//!   with its error reply; a notification or a response gets 202 (a batch of them, only when
//!   none is malformed).
//! - A request of MCP 2026-07-28 (its `MCP-Protocol-Version` header or its `_meta` names that
//!   version or a later one) must have headers that agree with its body (`HeaderCheck`, given
//!   the called tool's `Mcp-Param-*` annotations). A request of an earlier session is read by
//!   the rules of the version it negotiated (batches under 2025-03-26), and its header must
//!   name that version. A request sending `MCP-Protocol-Version` twice is refused, whatever
//!   its version, as is one sending `Mcp-Session-Id` twice, and one naming a session the
//!   server does not know gets 404.
//! - A POST of `initialize` without `Mcp-Session-Id` creates a session: its version is the
//!   client's if the server speaks it (with sessions: up to 2025-11-25), else the server's
//!   latest, and the response's `Mcp-Session-Id` names it. (A server may also be given
//!   sessions made in advance, as the tests do.) Every other request of an earlier revision
//!   than 2026-07-28 must name its session (else 400), and a DELETE naming it ends it.
//! - A request is answered as one JSON body, or as an SSE stream when it asked for progress
//!   (the server's choice: the client takes both). In a session: a priming event and a
//!   `retry` (from 2025-11-25 on, which brought them: an earlier client may take either for
//!   a message with empty data), progress, the result. Each event id names its stream, so a client
//!   cut off resumes with a GET of `Last-Event-ID` and gets the events after it replayed
//!   (none after the last: an empty stream); an id the server never gave, one past the end
//!   of its stream included, gets 400. 2026-07-28 has no resumption (closing the stream
//!   cancels the request): its stream is progress and the result, without ids, and a GET or
//!   DELETE of it gets 405.
//! - A request of 2026-07-28 without the client capabilities its `_meta` must hold gets 400
//!   and -32602 (`RequestMeta::check`).
//! - A request of 2026-07-28 naming a method the server has not, or one that revision removed
//!   (`ping`, `mcp::methods::is_removed`), gets 404 (and -32601). Its
//!   results carry the `resultType` that revision requires of every result
//!   (`mcp::write_result`), `tools/list`'s its caching hints (`ttlMs`, `cacheScope`), and it
//!   has `server/discover`, which the revision requires of every server.
//! - `main` plays the client too: `mirror_headers` gives the headers of its `tools/call`, and
//!   an `SseFramer` reads the streams in small chunks, across a cut and the resumption.
//!
//! `cargo run --example streamable_http` plays a scenario, hostile requests included, and
//! prints every response the server writes and every event the client reads.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};

use bytes::{Bytes, BytesMut};
use rpcwire::encode::{self, BatchReply};
use rpcwire::headers::{
    Header, HeaderCheck, HeaderError, PROTOCOL_VERSION, SESSION_ID, ToolHeaders, mirror_headers,
    session_id,
};
use rpcwire::mcp::{self, RequestMeta, meta_keys, versions};
use rpcwire::scan::Validation;
use rpcwire::{
    DecodeOptions, Decoder, Dialect, ErrorCode, Id, JsonStr, Lookup, Message, RawJson, ReplyId,
    Request, Role, SseEvent, SseFramer, write_sse_event, write_sse_retry,
};

/// The versions this server speaks: negotiated at `initialize` (up to 2025-11-25:
/// `versions::negotiate` leaves 2026-07-28 out, which has no `initialize`), or from
/// 2026-07-28 on named by each request.
const SUPPORTED: &[&str] = &["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
/// How many streams are kept to be replayed (the latest).
const KEPT_STREAMS: usize = 1024;
/// How many bytes of streams are kept to be replayed: the latest streams, the newest always
/// (its client may resume it). Each stream repeats its request's progress token and id,
/// which a client chooses: 1024 streams of any size could be some 32 GiB.
const KEPT_STREAM_BYTES: usize = 16 << 20;
/// How many sessions `initialize` may create before the oldest is forgotten (its client then
/// gets 404, and initializes anew): a client may POST `initialize` any number of times.
const KEPT_SESSIONS: usize = 1024;
/// How long a client waits before it reconnects to a stream, in ms.
const RETRY_MS: u64 = 1000;
/// The methods the server has (every other gets -32601, and so does `ping` under 2026-07-28,
/// which removed it).
const METHODS: &[&str] = &[
    mcp::methods::TOOLS_CALL,
    mcp::methods::TOOLS_LIST,
    mcp::methods::PING,
    mcp::methods::SERVER_DISCOVER,
];
/// The caching hints of a 2026-07-28 `tools/list` result, which that revision requires
/// ("ttlMs: number; cacheScope: \"public\" | \"private\""): the tool list is the same for
/// every client, and may be kept a minute. (`server/discover`'s, the same, are
/// `mcp::CacheHint`s.)
const CACHE_HINTS: &[u8] = br#","ttlMs":60000,"cacheScope":"public""#;
/// The server's one tool; its `region` argument is mirrored in `Mcp-Param-Region`.
const EXECUTE_SQL: &str = "execute_sql";
const EXECUTE_SQL_SCHEMA: &[u8] = br#"{"type":"object","properties":{"query":{"type":"string"},"region":{"type":"string","x-mcp-header":"Region"}},"required":["query"]}"#;
/// The server's `capabilities` and `serverInfo`, in its `initialize` and `server/discover`
/// results.
const SERVER_CAPABILITIES: &[u8] = br#"{"tools":{}}"#;
const SERVER_INFO: &[u8] = br#"{"name":"streamable_http example","version":"1"}"#;

/// The web pages allowed to call this endpoint, by their origin (`scheme://host:port`, as a
/// browser sends it in `Origin`): here, the server's own web client. A real server reads
/// them from its configuration.
const ALLOWED_ORIGINS: &[&str] = &["http://localhost:3000", "http://127.0.0.1:3000"];
/// The methods of the MCP endpoint, for the `Allow` of a 405.
const ALLOWED_METHODS: &str = "GET, POST, DELETE";

/// An HTTP header: its name and value.
pub type Field<'a> = (&'a str, &'a [u8]);

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";

/// What the HTTP layer sends back.
pub struct HttpResponse {
    pub status: u16,
    /// The `Content-Type` header to send. (With an event stream, a runner behind a reverse
    /// proxy also sends `X-Accel-Buffering: no`, so that each event goes out as it is
    /// written.)
    pub content_type: Option<&'static str>,
    /// The `Mcp-Session-Id` header to send: the session an `initialize` created.
    pub session_id: Option<String>,
    /// The `Allow` header of a 405: the methods the endpoint takes.
    pub allow: Option<&'static str>,
    pub body: BytesMut,
}

impl HttpResponse {
    /// A response of `status`, with `body` of type `content_type` when there is one. An
    /// event stream is one even when empty (a resumed stream with no event left to replay).
    fn new(status: u16, content_type: &'static str, body: BytesMut) -> Self {
        let content_type =
            (!body.is_empty() || content_type == EVENT_STREAM).then_some(content_type);
        HttpResponse {
            status,
            content_type,
            session_id: None,
            allow: None,
            body,
        }
    }

    /// 405 Method Not Allowed, without a body; `allow` lists the methods the endpoint takes.
    fn method_not_allowed(allow: &'static str) -> Self {
        let mut response = HttpResponse::new(405, JSON, BytesMut::new());
        response.allow = Some(allow);
        response
    }

    /// 400 Bad Request, with the error reply `write` gives (if any).
    fn bad_request(write: impl FnOnce(&mut BytesMut)) -> Self {
        let mut body = BytesMut::new();
        write(&mut body);
        HttpResponse::new(400, JSON, body)
    }
}

/// An SSE stream kept to be replayed, and the session that opened it (its `Mcp-Session-Id`):
/// only that session may resume it. Stream numbers are easy to guess, and another client
/// naming one would read its results.
struct Stream {
    session: Vec<u8>,
    events: Vec<Bytes>,
}

impl Stream {
    /// The bytes the stream keeps.
    fn size(&self) -> usize {
        self.session.len() + self.events.iter().map(Bytes::len).sum::<usize>()
    }
}

pub struct Server {
    /// The version each session of an earlier revision negotiated at `initialize`, by its
    /// `Mcp-Session-Id` (a request of 2026-07-28 names its version itself).
    sessions: HashMap<String, &'static str>,
    /// The sessions `initialize` created, oldest first (those made in advance stay).
    created: VecDeque<String>,
    /// Keys the session ids: `RandomState` is seeded from the OS's randomness, so that an id
    /// cannot be guessed from another (a real server takes 128 bits from a CSPRNG).
    session_keys: RandomState,
    /// How many sessions were ever created: each id hashes a new number.
    sessions_created: u64,
    /// The tools' `x-mcp-header` annotations, by name.
    tools: HashMap<&'static str, ToolHeaders>,
    /// The events of the latest SSE streams, kept to be replayed: stream number
    /// `first_stream + i` is `streams[i]`. The oldest is forgotten past `KEPT_STREAMS`, or
    /// every POST a client makes would be kept forever, and past `KEPT_STREAM_BYTES`.
    streams: VecDeque<Stream>,
    first_stream: usize,
    /// The bytes `streams` keep: their events and session ids.
    kept_bytes: usize,
}

impl Server {
    pub fn new(sessions: &[(&'static str, &'static str)]) -> Self {
        let schema = RawJson::new(EXECUTE_SQL_SCHEMA).expect("a JSON schema");
        let tool = ToolHeaders::from_input_schema(schema).expect("valid annotations");
        Server {
            sessions: sessions.iter().map(|&(id, v)| (id.to_owned(), v)).collect(),
            created: VecDeque::new(),
            session_keys: RandomState::new(),
            sessions_created: 0,
            tools: HashMap::from([(EXECUTE_SQL, tool)]),
            streams: VecDeque::new(),
            first_stream: 0,
            kept_bytes: 0,
        }
    }

    /// One request to the MCP endpoint, by its method (as HTTP writes it: case matters).
    pub fn handle(&mut self, method: &str, headers: &[Field], body: &[u8]) -> HttpResponse {
        match method {
            "POST" => self.post(headers, body),
            "GET" => self.resume(headers),
            "DELETE" => self.delete(headers),
            // A foreign page is refused whatever it asks ("If the Origin header is present
            // and invalid, servers MUST respond with HTTP 403 Forbidden").
            _ => match check_origin(headers) {
                Ok(()) => HttpResponse::method_not_allowed(ALLOWED_METHODS),
                Err(forbidden) => forbidden,
            },
        }
    }

    /// One POST to the MCP endpoint.
    pub fn post(&mut self, headers: &[Field], body: &[u8]) -> HttpResponse {
        if let Err(forbidden) = check_origin(headers) {
            return forbidden;
        }
        // "The client MUST include an Accept header, listing both application/json and
        // text/event-stream as supported content types": the server may answer either way.
        if !accepts(headers, JSON) || !accepts(headers, EVENT_STREAM) {
            return HttpResponse::new(406, JSON, BytesMut::new());
        }
        // The body is a JSON-RPC message, and says so.
        let content_type = header(headers, "Content-Type").map(media_type);
        if content_type.is_none_or(|media| !media.eq_ignore_ascii_case(JSON.as_bytes())) {
            return HttpResponse::new(415, JSON, BytesMut::new());
        }
        // Without the whitespace around it, which is no part of the value (RFC 9110, 5.5:
        // "A field value does not include leading or trailing whitespace"), as `HeaderCheck`
        // reads it: a request of 2026-07-28 whose header it takes for that version is
        // answered under that version, `resultType` and all.
        let named = header(headers, PROTOCOL_VERSION).map(|v| String::from_utf8_lossy(trim_ows(v)));
        let session = match self.session(headers) {
            Ok(session) => session,
            Err(not_found) => return not_found,
        };
        // The version the body is read by: the header (sent from 2025-06-18 on), else the
        // session's, else 2025-03-26 ("the server SHOULD assume protocol version
        // 2025-03-26"). Versions compare as text: only a supported one chooses the rules.
        let version = named
            .as_deref()
            .or(session)
            .unwrap_or(versions::V2025_03_26);
        let supported = SUPPORTED.iter().copied().find(|v| *v == version);
        let options = DecodeOptions {
            validation: Validation::Strict,
            role: Role::Server,
            ..DecodeOptions::new(Dialect::Mcp)
        };
        // (A body may name a later version in `_meta`, below: the rules that change, batches
        // and `resultType`, are those of arrays and results, which have no `_meta`.)
        let rules = supported.unwrap_or(versions::V2026_07_28);
        let decoder = Decoder::new(options.for_protocol_version(rules));
        let msg = match decoder.decode(body) {
            Ok(msg) => msg,
            // No reply only for a malformed response: 400 without a body.
            Err(rejection) => {
                return HttpResponse::bad_request(|out| {
                    if let Some(reply) = rejection.reply() {
                        encode::write_reply(out, &reply, None);
                    }
                });
            }
        };
        // Only a request's id is echoed. For a notification or a response, "a JSON-RPC error
        // response that has no id": a response's id is one of the client's own requests.
        let id = match msg {
            Message::Request(req) => ReplyId::Id(req.id),
            _ => ReplyId::Absent,
        };

        // The version sent twice names no one version: a peer reading another copy than the
        // first may take an earlier session's request for one of 2026-07-28, and trust its
        // headers unchecked.
        if single_header(headers, PROTOCOL_VERSION).is_err() {
            let e = HeaderError::Duplicate(Header::ProtocolVersion);
            return HttpResponse::bad_request(|out| e.write_reply(out, id, SUPPORTED));
        }

        // The version the body names. One named twice may be read either way behind us: it
        // is refused, not guessed.
        let path = ["_meta", meta_keys::PROTOCOL_VERSION];
        let meta = msg
            .params()
            .map_or(Lookup::Absent, |p| p.lookup_path(&path));
        let body_version = match meta {
            Lookup::Found(v) => v.as_str().map(|v| v.decode()),
            Lookup::Absent => None,
            Lookup::Ambiguous => {
                return HttpResponse::bad_request(|out| {
                    let message = "Invalid params: _meta names its protocol version twice";
                    encode::write_error(out, id, ErrorCode::INVALID_PARAMS, message, None);
                });
            }
            // Params that are not JSON: the strict decoder above lets none through, but a
            // gateway decoding lazily meets them here, and answers as a strict server would.
            Lookup::Malformed => {
                return HttpResponse::bad_request(|out| {
                    let message = "Parse error: params is not valid JSON";
                    encode::write_error(out, id, ErrorCode::PARSE_ERROR, message, None);
                });
            }
        };
        let newest = |v: &str| versions::is_at_least(v, versions::V2026_07_28);
        // A request of 2026-07-28 (or later), which has no sessions.
        let modern =
            named.as_deref().is_some_and(newest) || body_version.as_deref().is_some_and(newest);
        let initialize = matches!(msg, Message::Request(req)
            if req.method.eq_str(mcp::methods::INITIALIZE));
        if session.is_some_and(|negotiated| negotiated != version) {
            // A request of an earlier session: the header must be the version the session
            // negotiated, whatever version it (and its body) name instead.
            return HttpResponse::bad_request(|out| {
                let message = "Header mismatch: MCP-Protocol-Version is not the session's version";
                encode::write_error(out, id, ErrorCode::MCP_HEADER_MISMATCH, message, None);
            });
        } else if modern {
            // 2026-07-28: the headers mirror the body and must agree with it, a tool's
            // `Mcp-Param-*` headers as its annotations say.
            let tool = called_tool(&msg).and_then(|name| self.tools.get(&*name));
            let check = match tool {
                Some(tool) => HeaderCheck::new(SUPPORTED).with_tool(tool),
                None => HeaderCheck::new(SUPPORTED),
            };
            if let Err(e) = check.check(headers.iter().copied(), &msg) {
                return HttpResponse::bad_request(|out| e.write_reply(out, id, SUPPORTED));
            }
            // Its `_meta` names its version and the client's capabilities: "A request
            // missing any required field is malformed; the server MUST reject it with
            // JSON-RPC error code -32602 (Invalid params)", with 400 on HTTP.
            if let Message::Request(req) = &msg {
                let meta = RequestMeta::from_request(req);
                if let Err(e) = meta.check(SUPPORTED) {
                    return HttpResponse::bad_request(|out| e.write_reply(out, id, SUPPORTED));
                }
            }
        } else if supported.is_none() {
            // "If the server receives a request with an invalid or unsupported
            // MCP-Protocol-Version, it MUST respond with 400 Bad Request."
            let e = HeaderError::UnsupportedVersion { requested: version };
            return HttpResponse::bad_request(|out| e.write_reply(out, id, SUPPORTED));
        } else if session.is_none() && !initialize {
            // An earlier revision's request is read by its session's version, and this server
            // makes a session at every `initialize`: "Servers that require a session ID
            // SHOULD respond to requests without an Mcp-Session-Id header (other than
            // initialization) with HTTP 400 Bad Request."
            return HttpResponse::bad_request(|out| {
                let message = "Invalid Request: Mcp-Session-Id is required";
                encode::write_error(out, id, ErrorCode::INVALID_REQUEST, message, None);
            });
        }

        match msg {
            // 2026-07-28: "If the server does not implement the requested RPC method, it MUST
            // respond with 404 Not Found and a JSON-RPC error with code -32601" (`initialize`
            // among them: the revision has none), nor those the revision removed, `ping`
            // included, which the server serves to sessions of earlier revisions.
            Message::Request(req)
                if modern
                    && (!serves(req.method)
                        || mcp::methods::is_removed(req.method, versions::V2026_07_28)) =>
            {
                let mut body = BytesMut::new();
                encode::write_method_not_found(&mut body, req.id, req.method);
                HttpResponse::new(404, JSON, body)
            }
            Message::Request(req) if initialize => self.initialize(req, session.is_some()),
            Message::Request(req) => {
                let progress = mcp::progress_token(&msg);
                // (No session: a request of 2026-07-28, as the others need one.)
                let session = named_session(headers).zip(session);
                self.answer(req, progress, session, version)
            }
            // Only a 2025-03-26 decoder lets a batch through. Its replies go as one array.
            Message::Batch(batch) => {
                let mut out = BytesMut::new();
                let mut reply = BatchReply::open(&mut out);
                // An element refused without a reply: a malformed response.
                let mut dropped = false;
                for element in batch.decode(&decoder) {
                    match element {
                        Ok(Message::Request(req)) => reply.push(|o| self.result(o, req, version)),
                        Ok(_) => {}
                        Err(rejection) => match rejection.reply() {
                            Some(r) => reply.push(|o| encode::write_reply(o, &r, None)),
                            None => dropped = true,
                        },
                    }
                }
                // Only notifications and responses: 202, no body, if the server takes every
                // one; else 400, as for one of them sent alone ("If the server cannot accept
                // the input, it MUST return an HTTP error status code").
                let status = match (reply.close(), dropped) {
                    (true, _) => 200,
                    (false, false) => 202,
                    (false, true) => 400,
                };
                HttpResponse::new(status, JSON, out)
            }
            // "If the input is a JSON-RPC response or notification: If the server accepts
            // the input, the server MUST return HTTP status code 202 Accepted with no body."
            _ => HttpResponse::new(202, JSON, BytesMut::new()),
        }
    }

    /// What a GET or a DELETE passes before its session is read: its `Origin` (403), its
    /// version header (400, or 405 for 2026-07-28, which has no sessions), and the session it
    /// names (400 without one, 404 for one the server does not know); the session's id. As
    /// for a POST, a version header must name the version the session negotiated (else 400).
    fn bodiless_session<'h>(&self, headers: &[Field<'h>]) -> Result<&'h [u8], HttpResponse> {
        check_origin(headers)?;
        check_bodiless_version(headers)?;
        let negotiated = self.session(headers)?;
        let named = header(headers, PROTOCOL_VERSION).map(trim_ows);
        match (named_session(headers), negotiated) {
            (Some(id), Some(negotiated)) if named.is_none_or(|v| v == negotiated.as_bytes()) => {
                Ok(id)
            }
            _ => Err(HttpResponse::bad_request(|_| {})),
        }
    }

    /// The version `headers`' session negotiated, `None` for a request of no session, or 404
    /// for a session the server does not know: "The server MAY terminate the session at any
    /// time, after which it MUST respond to requests containing that session ID with HTTP 404
    /// Not Found" (and the client starts a new one). Such a request is no request of no
    /// session: read as one, an earlier version's rules would apply (2025-03-26's batches).
    /// A request naming two sessions (`Mcp-Session-Id` twice) gets 400: a runner that binds
    /// each session to its user, reading another copy than the first, would check one
    /// session and let the request reach the other.
    fn session(&self, headers: &[Field]) -> Result<Option<&'static str>, HttpResponse> {
        let Some(value) = single_header(headers, SESSION_ID)
            .map_err(|Twice| HttpResponse::bad_request(|_| {}))?
        else {
            return Ok(None);
        };
        // A value that cannot be a session id (a space inside, a byte outside visible ASCII,
        // nothing) is a malformed header, 400, not an unknown session.
        let id = session_id(value).map_err(|_| HttpResponse::bad_request(|_| {}))?;
        match self.sessions.get(id) {
            Some(&version) => Ok(Some(version)),
            None => Err(HttpResponse::new(404, JSON, BytesMut::new())),
        }
    }

    /// A DELETE: the client ends its session ("Clients that no longer need a particular
    /// session ... SHOULD send an HTTP DELETE to the MCP endpoint with the Mcp-Session-Id
    /// header"): 204, and 404 for every request naming it from then on. (Its streams are
    /// forgotten as the newer ones push them out.) 2026-07-28 has no sessions: 405.
    pub fn delete(&mut self, headers: &[Field]) -> HttpResponse {
        let id = match self.bodiless_session(headers) {
            Ok(id) => String::from_utf8_lossy(id),
            Err(refused) => return refused,
        };
        self.sessions.remove(&*id);
        self.created.retain(|created| *created != id);
        HttpResponse::new(204, JSON, BytesMut::new())
    }

    /// A POST of `initialize`: a new session, its version negotiated ("If the server supports
    /// the requested protocol version, it MUST respond with the same version. Otherwise, the
    /// server MUST respond with another protocol version it supports"), its id in the
    /// response's `Mcp-Session-Id` ("A server using the Streamable HTTP transport MAY assign a
    /// session ID at initialization time"). One inside a session is refused with 400: a
    /// session is initialized once.
    fn initialize(&mut self, req: Request<'_>, in_session: bool) -> HttpResponse {
        if in_session {
            return HttpResponse::bad_request(|out| {
                let message = "Invalid Request: the session is initialized already";
                encode::write_error(out, req.id, ErrorCode::INVALID_REQUEST, message, None);
            });
        }
        let init = match mcp::Initialize::from_request(&req) {
            Ok(init) => init,
            Err(refused) => {
                let mut body = BytesMut::new();
                refused.write_reply(&mut body, req.id);
                return HttpResponse::new(200, JSON, body);
            }
        };
        let requested = init.protocol_version;
        // The requested version if the server speaks it, else its latest with `initialize`.
        let Some(version) = versions::negotiate(&requested.decode(), SUPPORTED) else {
            // No version with `initialize` to answer with (never, with SUPPORTED as it is).
            let mut body = BytesMut::new();
            let code = ErrorCode::INVALID_PARAMS;
            versions::write_unsupported(&mut body, req.id, code, &requested.decode(), SUPPORTED);
            return HttpResponse::new(200, JSON, body);
        };

        let mut body = BytesMut::new();
        let capabilities = RawJson::new(SERVER_CAPABILITIES).expect("JSON");
        let info = RawJson::new(SERVER_INFO).expect("JSON");
        mcp::write_initialize_result(&mut body, req.id, version, capabilities, info, None)
            .expect("objects");

        let id = self.new_session_id();
        self.sessions.insert(id.clone(), version);
        self.created.push_back(id.clone());
        if self.created.len() > KEPT_SESSIONS
            && let Some(oldest) = self.created.pop_front()
        {
            self.sessions.remove(&oldest);
        }
        let mut response = HttpResponse::new(200, JSON, body);
        response.session_id = Some(id);
        response
    }

    /// A new session's id: 32 hex digits ("The session ID SHOULD be globally unique and
    /// cryptographically secure"; visible ASCII only, as MCP asks).
    fn new_session_id(&mut self) -> String {
        self.sessions_created += 1;
        let n = self.sessions_created;
        let high = self.session_keys.hash_one((n, 0u8));
        let low = self.session_keys.hash_one((n, 1u8));
        format!("{high:016x}{low:016x}")
    }

    /// The server's work: the reply to `req`, made under protocol `version`, one line. From
    /// 2026-07-28 on, every result carries its `resultType` (`mcp::write_result`: "Servers
    /// implementing this protocol version MUST include this field"), and the results a client
    /// may cache their hints.
    fn result(&self, out: &mut BytesMut, req: Request<'_>, version: &str) {
        let modern = versions::is_at_least(version, versions::V2026_07_28);
        let mut result = BytesMut::new();
        if req.method.eq_str(mcp::methods::TOOLS_CALL) {
            match called_tool(&Message::Request(req)) {
                Some(name) if self.tools.contains_key(&*name) => {
                    result.extend_from_slice(br#"{"content":[{"type":"text","text":"1 row"}]}"#);
                }
                // The method exists: an unknown tool (or none named) is -32602, MCP's
                // "Unknown tool: invalid params".
                _ => {
                    let code = ErrorCode::INVALID_PARAMS;
                    encode::write_error(out, req.id, code, "Unknown tool", None);
                    return;
                }
            }
        } else if req.method.eq_str(mcp::methods::TOOLS_LIST) {
            // The tool and its schema, whose annotations the client mirrors in its headers.
            result.extend_from_slice(b"{\"tools\":[{\"name\":");
            encode::write_json_string(&mut result, EXECUTE_SQL);
            result.extend_from_slice(b",\"inputSchema\":");
            result.extend_from_slice(EXECUTE_SQL_SCHEMA);
            result.extend_from_slice(b"}]");
            if modern {
                result.extend_from_slice(CACHE_HINTS);
            }
            result.extend_from_slice(b"}");
        } else if req.method.eq_str(mcp::methods::SERVER_DISCOVER) && modern {
            // "Servers MUST implement server/discover": the versions a client may name in its
            // requests, what the server has, and who it is (in `_meta`).
            let capabilities = RawJson::new(SERVER_CAPABILITIES).expect("JSON");
            let info = RawJson::new(SERVER_INFO).expect("JSON");
            let cache = mcp::CacheHint {
                ttl_ms: 60_000,
                scope: mcp::CacheScope::Public,
            };
            mcp::write_discover_result(
                out,
                req.id,
                SUPPORTED,
                capabilities,
                Some(info),
                None,
                cache,
            )
            .expect("objects");
            return;
        } else if req.method.eq_str(mcp::methods::PING) {
            result.extend_from_slice(b"{}");
        } else {
            encode::write_method_not_found(out, req.id, req.method);
            return;
        }
        let result = RawJson::new(&result).expect("JSON");
        mcp::write_result(out, req.id, result, version).expect("a result is an object");
    }

    /// A request's reply: an event stream when the request asked for progress (there is
    /// something to send before the result), else one JSON body. The stream of a `session`
    /// (its id and negotiated version) is kept to be resumed; one of no session (of
    /// 2026-07-28, which has no resumption: "Resumable SSE streams via Last-Event-ID are not
    /// supported") is the progress and the result, without event ids. `version` is the one
    /// the request is made under.
    fn answer(
        &mut self,
        req: Request<'_>,
        progress: Option<Id<'_>>,
        session: Option<(&[u8], &str)>,
        version: &str,
    ) -> HttpResponse {
        let mut reply = BytesMut::new();
        self.result(&mut reply, req, version);
        let Some(progress) = progress else {
            return HttpResponse::new(200, JSON, reply);
        };
        let mut messages = Vec::new();
        for done in [1.0, 2.0] {
            let mut out = BytesMut::new();
            let finite = mcp::write_progress(&mut out, progress, done, Some(2.0), None);
            assert!(finite);
            messages.push(out);
        }
        messages.push(reply);
        let Some((session, version)) = session else {
            let mut body = BytesMut::new();
            for message in &messages {
                write_sse_event(&mut body, message, None, None).expect("no id");
            }
            return HttpResponse::new(200, EVENT_STREAM, body);
        };
        // One stream per request; event ids are `{stream}/{n}`, so that a `Last-Event-ID`
        // names the stream to resume ("Event IDs SHOULD encode sufficient information to
        // identify the originating stream").
        let stream = self.first_stream + self.streams.len();
        let mut events = Vec::new();
        let mut event = |message: &[u8]| {
            let id = format!("{stream}/{}", events.len());
            let mut out = BytesMut::new();
            write_sse_event(&mut out, message, Some(&id), None).expect("no line break in the id");
            events.push(out.freeze());
        };
        // "The server SHOULD immediately send an SSE event consisting of an event ID and an
        // empty data field in order to prime the client to reconnect", and a `retry` tells
        // it when: from 2025-11-25 on, the revision that brought both. A client of an
        // earlier one may take either for a message with empty data (a reader such as
        // httpx-sse hands out a `retry`-only event too) and fail to parse it, as the SDKs'
        // clients did: their servers send them to a session of 2025-11-25 or later only.
        let primed = versions::is_at_least(version, versions::V2025_11_25);
        if primed {
            event(b"");
        }
        for message in &messages {
            event(message);
        }
        let (priming, rest) = events.split_at(usize::from(primed));
        let mut body = BytesMut::new();
        for event in priming {
            body.extend_from_slice(event);
            write_sse_retry(&mut body, RETRY_MS);
        }
        for event in rest {
            body.extend_from_slice(event);
        }
        let stream = Stream {
            session: session.to_vec(),
            events,
        };
        self.kept_bytes += stream.size();
        self.streams.push_back(stream);
        while self.streams.len() > KEPT_STREAMS
            || (self.kept_bytes > KEPT_STREAM_BYTES && self.streams.len() > 1)
        {
            let Some(oldest) = self.streams.pop_front() else {
                break;
            };
            self.kept_bytes -= oldest.size();
            self.first_stream += 1;
        }
        HttpResponse::new(200, EVENT_STREAM, body)
    }

    /// A GET that resumes a stream: "the server MAY use this header to replay messages that
    /// would have been sent after the last event ID, on the stream that was disconnected".
    /// One without `Last-Event-ID` asks for a stream of the server's own messages, which this
    /// server does not offer: 405 ("The server MUST either return Content-Type:
    /// text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not
    /// Allowed"). Streams are a session's: a GET without one gets 400, and 2026-07-28, with
    /// no sessions and no resumption, gets 405.
    pub fn resume(&self, headers: &[Field]) -> HttpResponse {
        let session = match self.bodiless_session(headers) {
            Ok(session) => session,
            Err(refused) => return refused,
        };
        let Some(last) = header(headers, "Last-Event-ID") else {
            return HttpResponse::method_not_allowed("POST, DELETE");
        };
        // The stream and event numbers of an id as this server writes them (`{stream}/{n}`):
        // `0/01` or `0/+1` would parse, but name no event the client was sent.
        let numbers = std::str::from_utf8(last).ok().and_then(|id| {
            let (stream, n) = id.split_once('/')?;
            let (stream, n) = (stream.parse::<usize>().ok()?, n.parse::<usize>().ok()?);
            (format!("{stream}/{n}") == id).then_some((stream, n))
        });
        let events = numbers
            .and_then(|(stream, n)| {
                let stream = self.streams.get(stream.checked_sub(self.first_stream)?)?;
                Some((stream, n))
            })
            .filter(|(stream, _)| stream.session == session)
            // An event of the stream: one past its end was never sent.
            .filter(|(stream, n)| *n < stream.events.len());
        match events {
            // The events after the `n`-th: none after the last, a resumption with nothing
            // to replay (200, an empty stream, which ends).
            Some((stream, n)) => {
                let mut body = BytesMut::new();
                for event in &stream.events[n + 1..] {
                    body.extend_from_slice(event);
                }
                HttpResponse::new(200, EVENT_STREAM, body)
            }
            // An id this server never gave (past the end of its stream, or not written as
            // the server writes them), of a stream it no longer keeps, or another session's.
            // The spec says nothing of such an id ("the server MAY use this header to replay
            // messages"): 400, for a client that is broken or guessing, as for a malformed
            // request.
            None => HttpResponse::bad_request(|_| {}),
        }
    }
}

/// 403 Forbidden for a request whose `Origin` is not one of `ALLOWED_ORIGINS` (every one, if
/// it sends several): "Servers MUST validate the Origin header on all incoming connections to
/// prevent DNS rebinding attacks", and "If the Origin header is present and invalid, servers
/// MUST respond with HTTP 403 Forbidden". A request without `Origin` is no browser's, and
/// passes (a page's script cannot leave it out).
fn check_origin(headers: &[Field]) -> Result<(), HttpResponse> {
    let allowed = |origin: &[u8]| {
        let origin = origin.trim_ascii();
        ALLOWED_ORIGINS
            .iter()
            .any(|a| origin.eq_ignore_ascii_case(a.as_bytes()))
    };
    match headers_named(headers, "Origin").all(allowed) {
        true => Ok(()),
        false => Err(HttpResponse::new(403, JSON, BytesMut::new())),
    }
}

/// The `MCP-Protocol-Version` of a GET or a DELETE, which has no body: 400 for a version the
/// server does not speak ("If the server receives a request with an invalid or unsupported
/// MCP-Protocol-Version, it MUST respond with 400 Bad Request") or for one sent twice, 405
/// for 2026-07-28 or later, a revision without sessions, GET streams or DELETE.
fn check_bodiless_version(headers: &[Field]) -> Result<(), HttpResponse> {
    // Sent twice, it names no one version (as for a POST).
    let Some(version) = single_header(headers, PROTOCOL_VERSION)
        .map_err(|Twice| HttpResponse::bad_request(|_| {}))?
    else {
        return Ok(());
    };
    let version = String::from_utf8_lossy(trim_ows(version));
    if !SUPPORTED.contains(&&*version) {
        Err(HttpResponse::bad_request(|_| {}))
    } else if versions::is_at_least(&version, versions::V2026_07_28) {
        Err(HttpResponse::method_not_allowed("POST"))
    } else {
        Ok(())
    }
}

/// Whether the server has `method`.
fn serves(method: JsonStr<'_>) -> bool {
    METHODS.iter().any(|m| method.eq_str(m))
}

/// The values of header `name`, in order (names compare case-insensitively).
fn headers_named<'a, 'h: 'a>(
    headers: &'a [Field<'h>],
    name: &'a str,
) -> impl Iterator<Item = &'h [u8]> + 'a {
    headers
        .iter()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, value)| value)
}

/// The first value of header `name`.
fn header<'h>(headers: &[Field<'h>], name: &str) -> Option<&'h [u8]> {
    headers_named(headers, name).next()
}

/// The session `headers` name: `Mcp-Session-Id`'s value without the whitespace around it, if
/// it is a session id (which [`Server::session`] checks first, answering 400 if not).
fn named_session<'h>(headers: &[Field<'h>]) -> Option<&'h [u8]> {
    let id = session_id(header(headers, SESSION_ID)?).ok()?;
    Some(id.as_bytes())
}

/// `value` without its leading and trailing spaces and tabs (HTTP's optional whitespace, no
/// part of the value: RFC 9110, 5.5), as `HeaderCheck` reads a header.
fn trim_ows(value: &[u8]) -> &[u8] {
    let is_ows = |b: &u8| matches!(b, b' ' | b'\t');
    let start = value.iter().position(|b| !is_ows(b)).unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    &value[start..end]
}

/// A header sent twice where one value is read: which copy a layer in front of the server
/// reads is not known, so none is.
struct Twice;

/// The value of header `name`, which must come at most once.
fn single_header<'h>(headers: &[Field<'h>], name: &str) -> Result<Option<&'h [u8]>, Twice> {
    let mut values = headers_named(headers, name);
    match (values.next(), values.next()) {
        (_, Some(_)) => Err(Twice),
        (value, None) => Ok(value),
    }
}

/// Whether the `Accept` headers take `media` (`type/subtype`): the most specific range that
/// covers it (`media` itself, then `type/*`, then `*/*`) decides, and one of weight 0 (`q=0`)
/// refuses it (RFC 9110, 12.5.1). No `Accept` at all takes nothing here: MCP's client MUST
/// send one.
fn accepts(headers: &[Field], media: &str) -> bool {
    let (ty, _) = media.split_once('/').unwrap_or((media, ""));
    let any_subtype = format!("{ty}/*");
    let (media, any_subtype) = (media.as_bytes(), any_subtype.as_bytes());
    let ranges = headers_named(headers, "Accept").flat_map(|value| split_unquoted(value, b','));
    let mut best: Option<(u8, bool)> = None;
    for range in ranges {
        let mut parts = split_unquoted(range, b';');
        let name = parts.next().unwrap_or_default().trim_ascii();
        let specificity = if name.eq_ignore_ascii_case(media) {
            3
        } else if name.eq_ignore_ascii_case(any_subtype) {
            2
        } else if name == b"*/*" {
            1
        } else {
            continue;
        };
        let refused = parts.any(is_zero_weight);
        if best.is_none_or(|(most, _)| specificity > most) {
            best = Some((specificity, !refused));
        }
    }
    best.is_some_and(|(_, takes)| takes)
}

/// `value` split at each `separator` outside a quoted string (RFC 9110's `quoted-string`,
/// in which `\` escapes the next byte): `a;p="x,y", b` is two ranges, not three.
fn split_unquoted(value: &[u8], separator: u8) -> impl Iterator<Item = &[u8]> {
    let (mut quoted, mut escaped) = (false, false);
    value.split(move |&b| {
        let splits = b == separator && !quoted;
        if escaped {
            escaped = false;
        } else if quoted && b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            quoted = !quoted;
        }
        splits
    })
}

/// Whether a media range's parameter is `q=0` (`0.0`, `0.000`...): "not acceptable".
fn is_zero_weight(parameter: &[u8]) -> bool {
    let mut name_and_value = parameter.splitn(2, |&b| b == b'=');
    let name = name_and_value.next().unwrap_or_default().trim_ascii();
    let value = name_and_value.next().unwrap_or_default().trim_ascii();
    name.eq_ignore_ascii_case(b"q")
        && value.first() == Some(&b'0')
        && value.iter().all(|&b| b == b'0' || b == b'.')
}

/// A `Content-Type` value's media type, its parameters (`; charset=utf-8`) left out.
fn media_type(value: &[u8]) -> &[u8] {
    value
        .split(|&b| b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii()
}

/// The tool a `tools/call` names.
fn called_tool<'a>(msg: &Message<'a>) -> Option<Cow<'a, str>> {
    let name = msg.params()?.get("name")?.as_str()?;
    msg.method()?
        .eq_str(mcp::methods::TOOLS_CALL)
        .then(|| name.decode())
}

/// Prints a POST (or GET) and what the server answered.
fn show(request: &str, response: &HttpResponse) {
    let content_type = response.content_type.unwrap_or("(no body)");
    println!("{request} -> {} {content_type}", response.status);
    // (A new session's id is random: printed as such.)
    if response.session_id.is_some() {
        println!("  Mcp-Session-Id: (a new session)");
    }
    if let Some(allow) = response.allow {
        println!("  Allow: {allow}");
    }
    let lines = response.body[..].split(|&b| b == b'\n');
    for line in lines.filter(|l| !l.is_empty()) {
        println!("  | {}", String::from_utf8_lossy(line));
    }
}

/// What the client makes of an event: its id, and what it carries (the kind of the message
/// of a `message` event, an event of another type, a priming event's nothing), then the
/// reconnection time it sets, if any. A `retry` may come with a message: the message is read
/// all the same.
pub fn describe(decoder: &Decoder, event: &SseEvent) -> String {
    let id = event
        .id
        .as_deref()
        .map_or("(no id)".into(), String::from_utf8_lossy);
    let mut what = Vec::new();
    if event.carries_message() {
        what.push(match decoder.decode(&event.data) {
            Ok(msg) => msg.kind().as_str().to_owned(),
            Err(rejection) => format!("invalid ({:?})", rejection.error()),
        });
    } else if let Some(kind) = event.event.as_deref() {
        // Not a message: the 2024-11-05 transport's `endpoint`, or a type of the server's own.
        what.push(format!("{} event", String::from_utf8_lossy(kind)));
    }
    if let Some(ms) = event.retry {
        what.push(format!("retry {ms} ms"));
    }
    if what.is_empty() {
        what.push("priming".to_owned());
    }
    format!("event {id}: {}", what.join(", "))
}

/// The client reads an event stream, 16 bytes at a time as the network hands them over, to
/// its end, and prints each event's id and what it carries.
pub fn read_stream(framer: &mut SseFramer, body: &[u8]) {
    let decoder = Decoder::mcp_client();
    let print = |event: SseEvent| println!("client: {}", describe(&decoder, &event));
    let mut buf = BytesMut::new();
    for chunk in body.chunks(16) {
        buf.extend_from_slice(chunk);
        loop {
            match framer.decode(&mut buf) {
                Ok(Some(event)) => print(event),
                Ok(None) => break,
                // An event past the framer's limit is the server's doing: it is reported once
                // and skipped, and the events after it still come.
                Err(e) => println!("client: event dropped: {e}"),
            }
        }
    }
    // The end of the body: an event it cut off is dropped.
    loop {
        match framer.decode_eof(&mut buf) {
            Ok(Some(event)) => print(event),
            Ok(None) => break,
            Err(e) => println!("client: event dropped: {e}"),
        }
    }
}

/// `headers` with `name`'s value replaced by `value`, or without it for `None`.
fn with<'h>(headers: &[Field<'h>], name: &str, value: Option<&'h [u8]>) -> Vec<Field<'h>> {
    let replace = |&(n, v): &Field<'h>| match n == name {
        true => value.map(|value| (n, value)),
        false => Some((n, v)),
    };
    headers.iter().filter_map(replace).collect()
}

fn main() {
    let mut server = Server::new(&[("old", "2025-11-25"), ("batching", "2025-03-26")]);

    // The client's `tools/call` (MCP 2026-07-28, progress asked for), with the headers that
    // mirror it: it knows the tool's annotations from `tools/list`.
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_sql","arguments":{"query":"SELECT 1","region":"eu-west-1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"}}}"#;
    let schema = RawJson::new(EXECUTE_SQL_SCHEMA).expect("a JSON schema");
    let tool = ToolHeaders::from_input_schema(schema).expect("valid annotations");
    let msg = Decoder::mcp().decode(call).expect("a valid request");
    let mirrored = mirror_headers(&msg, None, Some(&tool)).expect("headers for the call");
    let names: Vec<String> = mirrored.iter().map(|(h, _)| h.to_string()).collect();
    let mut sent: Vec<Field> = names
        .iter()
        .zip(&mirrored)
        .map(|(n, (_, v))| (n.as_str(), v.as_bytes()))
        .collect();
    sent.push(("Content-Type", b"application/json"));
    sent.push(("Accept", b"application/json, text/event-stream"));
    for (name, value) in &sent {
        println!("client: {name}: {}", String::from_utf8_lossy(value));
    }
    let response = server.post(&sent, call);
    show("POST tools/call", &response);
    // 2026-07-28 has no resumption (closing the stream cancels the call): no event ids.
    read_stream(&mut SseFramer::new(1 << 20), &response.body);
    let modern_get: &[Field] = &[("MCP-Protocol-Version", b"2026-07-28")];
    show(
        "GET, MCP-Protocol-Version: 2026-07-28",
        &server.resume(modern_get),
    );

    // A session of 2025-11-25: `initialize` without `Mcp-Session-Id` creates it, and the
    // response names it; the session's requests send it back, with its version.
    let initialize = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"client","version":"1"}}}"#;
    let accept: Field = ("Accept", b"application/json, text/event-stream");
    let json: Field = ("Content-Type", b"application/json");
    let created = server.post(&[json, accept], initialize);
    show("POST initialize", &created);
    let session = created.session_id.expect("a new session");
    let in_session: &[Field] = &[
        json,
        accept,
        ("Mcp-Session-Id", session.as_bytes()),
        ("MCP-Protocol-Version", b"2025-11-25"),
    ];
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    show(
        "POST ping (the new session)",
        &server.post(in_session, ping),
    );

    // The session's call asks for progress too: its stream can be resumed. The connection
    // drops in the middle of the second progress event.
    let session_call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_sql","arguments":{"query":"SELECT 1"},"_meta":{"progressToken":"p1"}}}"#;
    let response = server.post(in_session, session_call);
    show("POST tools/call (the new session)", &response);
    let mut framer = SseFramer::new(1 << 20);
    let at = response.body.windows(7).position(|w| w == b"id: 0/2");
    let cut = at.expect("event 0/2") + 20;
    read_stream(&mut framer, &response.body[..cut]);
    // The header's value: `None` for an id the server reset to empty, which sends no header.
    let last = framer
        .last_event_id_header()
        .expect("an id to resume from")
        .to_vec();
    let retry = framer.reconnection_time().expect("a retry");
    println!(
        "client: cut off; {retry} ms later: GET, Last-Event-ID: {}",
        String::from_utf8_lossy(&last)
    );
    let get = |last_event_id| [in_session[2], ("Last-Event-ID", last_event_id)];
    let replay = server.resume(&get(&last));
    show("GET", &replay);
    read_stream(&mut framer, &replay.body);
    show("GET, Last-Event-ID: 9/0", &server.resume(&get(b"9/0")));

    // The client is done: it ends the session, whose id then names none.
    show("DELETE", &server.delete(&in_session[2..3]));
    show(
        "POST ping (the session ended)",
        &server.post(in_session, ping),
    );

    // Every other POST, printed as it is answered. Each carries the `Content-Type` and the
    // `Accept` a client MUST send, unless it names its own.
    let mut post = |request: &str, headers: &[Field], body: &[u8]| {
        let mut headers = headers.to_vec();
        for required in [json, accept] {
            if header(&headers, required.0).is_none() {
                headers.push(required);
            }
        }
        show(&format!("POST {request}"), &server.post(&headers, body));
    };

    // The same call from a client that takes JSON only, and one whose body is not JSON.
    let json_only = with(&sent, "Accept", Some(b"application/json"));
    post("tools/call, Accept: application/json", &json_only, call);
    let text = with(&sent, "Content-Type", Some(b"text/plain"));
    post("tools/call, Content-Type: text/plain", &text, call);

    // A page of another origin (its name made to resolve to this machine), a request of an
    // earlier revision without its session, a method of 2026-07-28 the server has not.
    let foreign = [&sent[..], &[("Origin", &b"http://evil.example"[..])]].concat();
    post("tools/call, Origin: http://evil.example", &foreign, call);
    let no_session: &[Field] = &[("MCP-Protocol-Version", b"2025-11-25")];
    post("ping, no Mcp-Session-Id", no_session, ping);
    let prompts = br#"{"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let prompts_headers: &[Field] = &[
        ("MCP-Protocol-Version", b"2026-07-28"),
        ("Mcp-Method", b"prompts/list"),
    ];
    post("prompts/list (2026-07-28)", prompts_headers, prompts);

    // Headers that do not fit the body.
    let method = with(&sent, "Mcp-Method", Some(b"tools/list"));
    post("tools/call, Mcp-Method: tools/list", &method, call);
    let region = with(&sent, "Mcp-Param-Region", None);
    post("tools/call, no Mcp-Param-Region", &region, call);
    let ambiguous = br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#;
    let ping: &[Field] = &[
        ("MCP-Protocol-Version", b"2026-07-28"),
        ("Mcp-Method", b"ping"),
    ];
    post("ping, _meta naming two versions", ping, ambiguous);

    // Earlier sessions: the header must be the negotiated version, and one the server speaks.
    let ping = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    let old: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2025-11-25"),
    ];
    post("ping (session of 2025-11-25)", old, ping);
    let other = with(old, "MCP-Protocol-Version", Some(b"2025-06-18"));
    post("ping, MCP-Protocol-Version: 2025-06-18", &other, ping);
    // The version sent twice: a peer reading the second takes it for a request of 2026-07-28.
    let twice = [old, &[("MCP-Protocol-Version", &b"2026-07-28"[..])]].concat();
    post(
        "ping, MCP-Protocol-Version: 2025-11-25 and 2026-07-28",
        &twice,
        ping,
    );
    let unknown: &[Field] = &[("MCP-Protocol-Version", b"2024-11-05")];
    post("ping, MCP-Protocol-Version: 2024-11-05", unknown, ping);

    // Batches: gone from 2025-06-18 on, to be answered under 2025-03-26 (whose clients send
    // no version header).
    let batch = br#"[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"execute_sql","arguments":{"query":"SELECT 1"}}},{"id":6}]"#;
    post("batch (session of 2025-11-25)", old, batch);
    let batching: &[Field] = &[("Mcp-Session-Id", b"batching")];
    post("batch (session of 2025-03-26)", batching, batch);

    // What needs no reply, and bodies that are not valid.
    let cancelled =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    let notify: &[Field] = &[
        ("MCP-Protocol-Version", b"2026-07-28"),
        ("Mcp-Method", b"notifications/cancelled"),
    ];
    post("notifications/cancelled", notify, cancelled);
    post("{oops", batching, b"{oops");
    let malformed = br#"{"jsonrpc":"2.0","id":7,"result":1}"#;
    post("a response with result 1", batching, malformed);
}
