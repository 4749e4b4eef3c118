//! The core of an MCP client over stdio, on rpcwire and tokio: it spawns a server, runs the
//! `initialize` handshake, lists the tools, calls several at once, and prints a transcript.
//!
//! - Every request goes out under an id the client's [`PendingTable`] mints; a reply finds its
//!   request by that id, a late reply (to a request the client gave up on) is stale and
//!   dropped, a reply to an id never sent is unknown and dropped.
//! - A request may have a timeout: a deadline on the table, which one timer task expires (on a
//!   [`DeadlineClock`](rpcwire::pending::DeadlineClock)); the caller gets `Timeout` and the
//!   server a `notifications/cancelled` (never for `initialize`).
//!   A caller that drops its call (gives up) cancels it the same way.
//! - A `tools/call` may ask for progress: its progress token is its own id, so a
//!   `notifications/progress` finds its request in the table in O(1), reaches the caller, and
//!   moves the request's deadline (MCP lets progress reset a timeout).
//! - Requests of the server: `ping` is answered, anything else gets -32601 (this client
//!   declares no capabilities).
//! - The server's answer to `initialize` settles the protocol version: one the client speaks
//!   sets the decoder's rules for the session, another fails `initialize`, and the client
//!   disconnects. A result missing a member, or with one twice, fails it too
//!   ([`mcp::InitializeResult`]).
//! - In a 2025-03-26 session the server may send a batch: each element is read as a line of
//!   its own, and the answers to the server's requests in it go back as one array.
//! - Results are read with serde (`rpcwire::typed`).
//!
//! `cargo build --example mcp_stub_server --features tokio,serde && cargo run --example
//! mcp_client --features tokio,serde` runs it against `examples/mcp_stub_server.rs`, which it
//! spawns from next to its own executable (`cargo run --example mcp_client` alone does not
//! build the stub server); `-- COMMAND ARGS...` runs another
//! server (the scenario is played with the stub server only: against another server, the
//! handshake and `tools/list`).

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use rpcwire::codec::{Incoming, LineCodec, LineEncoder};
use rpcwire::encode::BatchReply;
use rpcwire::pending::DeadlineClock;
use rpcwire::typed::{self, TypedError};
use rpcwire::{
    DecodeError, Decoder, ErrorCode, Id, Message, OwnedMessage, PendingTable, RawJson, Rejection,
    Reply, Token, encode, mcp,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio_util::codec::{FramedRead, FramedWrite};

/// The protocol version the client asks for: the latest it speaks. A server may answer with
/// an earlier one (the client speaks every earlier revision), never a later one.
const PROTOCOL_VERSION: &str = mcp::versions::V2025_11_25;
/// The versions the client speaks: every revision up to the one it asks for.
const SPEAKS: &[&str] = &[
    mcp::versions::V2024_11_05,
    mcp::versions::V2025_03_26,
    mcp::versions::V2025_06_18,
    PROTOCOL_VERSION,
];
/// Longest line read from the server.
const MAX_FRAME: usize = 16 << 20;
/// Most replies to the server's requests waiting to be written: past them, the server is read
/// no further until it reads them (its requests are the server's to send without end).
const MAX_QUEUED_REPLIES: usize = 64;
/// Most requests of the server kept in the transcript.
const MAX_TRANSCRIPT: usize = 64;

/// Why a request got no result.
#[derive(Debug)]
enum CallError {
    /// The server answered with an error.
    Rpc { code: ErrorCode, message: String },
    /// The server's reply to it was not a valid response (the decoder's reason).
    BadReply(DecodeError),
    /// The result did not have the expected shape.
    Shape(TypedError),
    /// No reply before the deadline (the server was told to stop).
    Timeout,
    /// The connection ended first.
    Closed,
    /// As many requests wait as the table holds (`PendingTable::capacity_limit`).
    TooManyInFlight,
    /// The server answered `initialize` with a protocol version the client does not speak
    /// (MCP: the client "SHOULD disconnect").
    UnsupportedVersion(String),
    /// The result of `initialize` cannot be trusted (a member missing, twice, of another type).
    BadHandshake(mcp::HandshakeError),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Rpc { code, message } => write!(f, "error {}: {message}", code.get()),
            CallError::BadReply(e) => write!(f, "invalid reply: {}", e.as_str()),
            CallError::Shape(e) => write!(f, "unexpected result: {e}"),
            CallError::Timeout => f.write_str("timed out"),
            CallError::Closed => f.write_str("connection closed"),
            CallError::TooManyInFlight => f.write_str("too many requests in flight"),
            CallError::UnsupportedVersion(v) => write!(f, "unsupported protocol version {v:?}"),
            CallError::BadHandshake(e) => write!(f, "invalid initialize result: {e}"),
        }
    }
}

impl std::error::Error for CallError {}

/// One progress notification, owned (it crosses to the caller's task).
#[derive(Debug, Clone, Copy)]
struct Progress {
    progress: f64,
    total: Option<f64>,
}

/// A request in flight.
struct Waiting {
    method: &'static str,
    done: oneshot::Sender<Result<OwnedMessage, CallError>>,
    /// Where its progress goes, if it asked for some.
    progress: Option<mpsc::Sender<Progress>>,
    /// Its timeout: each progress moves the deadline to now + this (later: no nudge needed).
    timeout: Option<Duration>,
}

/// What the tasks of one connection share (never locked across an `.await`).
struct Session {
    pending: PendingTable<Waiting>,
    /// What the server asked of the client, and the answer, in order (the first
    /// `MAX_TRANSCRIPT`).
    server_requests: Vec<String>,
    stale_replies: usize,
    unknown_replies: usize,
    /// Progress on a token no request in flight carries (after its result or cancellation, or
    /// the id of a request that asked for none).
    unknown_progress: usize,
    /// The server closed its stdout: a request put in the table now would never be answered.
    closed: bool,
}

enum Line {
    Send(Bytes),
    /// A reply to a request of the server's, with its place among the `MAX_QUEUED_REPLIES`,
    /// given back once it is written.
    Reply(Bytes, OwnedSemaphorePermit),
    Close,
}

struct Inner {
    session: Mutex<Session>,
    /// The lines for the writer. What the client's callers send is bounded by the table;
    /// what the reader sends, by the permits of `replies`.
    out: mpsc::UnboundedSender<Line>,
    replies: Arc<Semaphore>,
    /// The table's clock, and the timer task's wake-up call.
    clock: Arc<DeadlineClock>,
}

impl Drop for Inner {
    /// The connection is gone: the timer task wakes and ends.
    fn drop(&mut self) {
        self.clock.nudge();
    }
}

impl Inner {
    fn send(&self, write: impl FnOnce(&mut BytesMut)) {
        let mut line = BytesMut::new();
        write(&mut line);
        let _ = self.out.send(Line::Send(line.freeze()));
    }

    /// Sends a reply to the server once fewer than `MAX_QUEUED_REPLIES` wait to be written.
    async fn reply(&self, write: impl FnOnce(&mut BytesMut)) {
        let room = self.replies.clone().acquire_owned().await;
        let room = room.expect("the semaphore is never closed");
        let mut line = BytesMut::new();
        write(&mut line);
        let _ = self.out.send(Line::Reply(line.freeze(), room));
    }

    /// Tells the server to stop working on `token` (MCP forbids cancelling `initialize`).
    fn cancel_on_server(&self, token: Token, method: &str, reason: &str) {
        if method != mcp::methods::INITIALIZE {
            self.send(|out| mcp::write_cancelled_token(out, token, Some(reason)));
        }
    }
}

/// A handle on the connection: cheap to clone, usable from any task.
#[derive(Clone)]
struct Client {
    inner: Arc<Inner>,
}

/// Options of one request.
#[derive(Default)]
struct CallOptions {
    timeout: Option<Duration>,
    progress: Option<mpsc::Sender<Progress>>,
}

/// Removes the request from the table and cancels it on the server if its caller stops
/// waiting before the reply (a dropped future).
struct GiveUp<'c> {
    inner: &'c Inner,
    token: Token,
    method: &'static str,
}

impl Drop for GiveUp<'_> {
    fn drop(&mut self) {
        let removed = self
            .inner
            .session
            .lock()
            .unwrap()
            .pending
            .cancel(self.token);
        if removed.is_some() {
            self.inner
                .cancel_on_server(self.token, self.method, "the client gave up");
        }
    }
}

#[derive(Serialize)]
struct ToolCall<'a, A> {
    name: &'a str,
    arguments: A,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
}

#[derive(Serialize)]
struct Meta {
    #[serde(rename = "progressToken")]
    progress_token: Token,
}

impl Client {
    /// Spawns `command` and starts the connection's tasks (reader, writer, timer).
    fn spawn(mut command: Command) -> std::io::Result<(Client, Child)> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (out, lines) = mpsc::unbounded_channel();
        let inner = Arc::new(Inner {
            session: Mutex::new(Session {
                pending: PendingTable::new(),
                server_requests: Vec::new(),
                stale_replies: 0,
                unknown_replies: 0,
                unknown_progress: 0,
                closed: false,
            }),
            out,
            replies: Arc::new(Semaphore::new(MAX_QUEUED_REPLIES)),
            clock: Arc::new(DeadlineClock::new()),
        });
        tokio::spawn(write_lines(stdin, lines));
        tokio::spawn(read_lines(inner.clone(), stdout));
        tokio::spawn(expire(Arc::downgrade(&inner), inner.clock.clone()));
        Ok((Client { inner }, child))
    }

    /// Sends a request whose params `params` writes given the request's id (so that they may
    /// carry it, as a progress token), and waits for its reply.
    async fn request_with<P: Serialize>(
        &self,
        method: &'static str,
        params: impl FnOnce(Token) -> Option<P>,
        options: CallOptions,
    ) -> Result<OwnedMessage, CallError> {
        let (done, reply) = oneshot::channel();
        let token = {
            let mut session = self.inner.session.lock().unwrap();
            if session.closed {
                return Err(CallError::Closed);
            }
            let entry = session
                .pending
                .vacant_entry()
                .map_err(|_| CallError::TooManyInFlight)?;
            let token = entry.token();
            let mut json = Vec::new();
            let params = match params(token) {
                Some(p) => Some(typed::to_raw(&p, &mut json).map_err(CallError::Shape)?),
                None => None,
            };
            let mut buf = [0; 20];
            self.inner
                .send(|out| encode::write_request(out, token.to_id(&mut buf), method, params));
            let waiting = Waiting {
                method,
                done,
                progress: options.progress,
                timeout: options.timeout,
            };
            match options.timeout {
                Some(t) => {
                    let token =
                        entry.insert_with_deadline(waiting, self.inner.clock.deadline_in(t));
                    self.inner.clock.nudge();
                    token
                }
                None => entry.insert(waiting),
            }
        };
        // Answered, the request is gone from the table, and the guard's `cancel` finds nothing
        // (the token is never minted again).
        let _give_up = GiveUp {
            inner: &self.inner,
            token,
            method,
        };
        reply.await.unwrap_or(Err(CallError::Closed))
    }

    /// A request and its result, read as `T`.
    async fn request<T: DeserializeOwned, P: Serialize>(
        &self,
        method: &'static str,
        params: Option<P>,
        options: CallOptions,
    ) -> Result<T, CallError> {
        result(self.request_with(method, |_| params, options).await?)
    }

    /// `tools/call`, with progress if `options.progress` asks for it.
    async fn call_tool<T: DeserializeOwned, A: Serialize>(
        &self,
        name: &str,
        arguments: A,
        options: CallOptions,
    ) -> Result<T, CallError> {
        let with_progress = options.progress.is_some();
        let reply = self
            .request_with(
                mcp::methods::TOOLS_CALL,
                |token| {
                    Some(ToolCall {
                        name,
                        arguments,
                        meta: with_progress.then_some(Meta {
                            progress_token: token,
                        }),
                    })
                },
                options,
            )
            .await?;
        result(reply)
    }

    fn notify(&self, method: &str) {
        self.inner
            .send(|out| encode::write_notification(out, method, None));
    }

    /// Closes the server's stdin (the stdio transport's shutdown).
    fn close(&self) {
        let _ = self.inner.out.send(Line::Close);
    }
}

/// A reply's result as `T`, or its error.
fn result<T: DeserializeOwned>(reply: OwnedMessage) -> Result<T, CallError> {
    match reply.message().outcome() {
        Some(Ok(result)) => typed::deserialize_borrowed(result).map_err(CallError::Shape),
        Some(Err(error)) => Err(CallError::Rpc {
            code: error.code,
            message: error.message.decode().into_owned(),
        }),
        None => unreachable!("only replies are handed to callers"),
    }
}

async fn write_lines(stdin: ChildStdin, mut lines: mpsc::UnboundedReceiver<Line>) {
    let mut sink = FramedWrite::new(stdin, LineEncoder);
    while let Some(line) = lines.recv().await {
        let (line, _room) = match line {
            Line::Send(line) => (line, None),
            // A reply gives its room back once written, at the end of this iteration.
            Line::Reply(line, room) => (line, Some(room)),
            Line::Close => break,
        };
        if sink.send(line).await.is_err() {
            break;
        }
    }
    let _ = SinkExt::<Bytes>::close(&mut sink).await;
}

/// Reads the server until it closes its stdout.
async fn read_lines(inner: Arc<Inner>, stdout: ChildStdout) {
    // Until the server's answer to `initialize` settles the version, the rules of the one
    // asked for: a session with `initialize` is never 2026-07-28, whose rules (a decoder's
    // default) refuse a `resultType` an earlier server's result may hold as a member of its own.
    let decoder = Decoder::mcp_client().for_protocol_version(PROTOCOL_VERSION);
    let mut lines = FramedRead::new(stdout, LineCodec::new(decoder, MAX_FRAME));
    while let Some(Ok(item)) = lines.next().await {
        match item {
            Incoming::Message(msg) => match msg.message() {
                Message::Response(_) | Message::ErrorResponse(_) => {
                    settle_reply(&inner, lines.decoder_mut(), msg);
                }
                Message::Request(req) => inner.reply(|out| answer_server(&inner, out, req)).await,
                Message::Notification(n) => notification(&inner, n),
                Message::Batch(batch) => {
                    // A 2025-03-26 server may batch its requests, notifications and replies:
                    // each element is read as a line of its own, and the answers to its
                    // requests go back as one array (none at all when none is owed), queued
                    // before the batch's replies reach their callers (a malformed one fails its
                    // call at once).
                    let decoder = *lines.decoder().decoder();
                    let mut out = BytesMut::new();
                    let mut answers = BatchReply::open(&mut out);
                    let mut replies = Vec::new();
                    for (element, raw) in batch.decode(&decoder).zip(batch.raw.elements()) {
                        match element {
                            Ok(Message::Request(req)) => {
                                answers.push(|out| answer_server(&inner, out, req));
                            }
                            Ok(Message::Notification(n)) => notification(&inner, n),
                            Ok(Message::Response(_) | Message::ErrorResponse(_)) => {
                                // The reply outlives the line: its own bytes, shared.
                                let frame = msg.slice(raw.as_bytes());
                                replies.extend(
                                    frame.and_then(|f| OwnedMessage::decode(&decoder, f).ok()),
                                );
                            }
                            // (An element is never a batch: a nested array is rejected.)
                            Ok(Message::Batch(_)) => {}
                            Err(rejection) => {
                                if let Some(reply) = rejected(&inner, &rejection) {
                                    answers.push(|out| encode::write_reply(out, &reply, None));
                                }
                            }
                        }
                    }
                    if answers.close() {
                        inner.reply(|line| line.extend_from_slice(&out)).await;
                    }
                    for reply in replies {
                        settle_reply(&inner, lines.decoder_mut(), reply);
                    }
                }
            },
            Incoming::Rejected(rejected_line) => {
                if let Some(reply) = rejected(&inner, &rejected_line.rejection()) {
                    inner
                        .reply(|out| encode::write_reply(out, &reply, None))
                        .await;
                }
            }
            // The line may have been a reply, whose request then times out.
            Incoming::TooLong { .. } => eprintln!("client: over-long line dropped"),
            // Any other bad frame (a `Content-Length` body's charset, which a line does not
            // have): a server's line is never answered.
            _ => {}
        }
    }
    // The server is gone: nobody will answer what is still in flight, nor what comes next.
    let drained: Vec<_> = {
        let mut session = inner.session.lock().unwrap();
        session.closed = true;
        session.pending.drain().collect()
    };
    for (_, waiting) in drained {
        let _ = waiting.done.send(Err(CallError::Closed));
    }
}

/// The request a reply with `id` answers, taken out of the table; a miss is counted.
fn complete(inner: &Inner, id: Id<'_>) -> Option<Waiting> {
    let mut session = inner.session.lock().unwrap();
    match session.pending.complete(id) {
        Ok(waiting) => Some(waiting),
        Err(rpcwire::Miss::Stale) => {
            session.stale_replies += 1;
            None
        }
        Err(rpcwire::Miss::Unknown) => {
            session.unknown_replies += 1;
            None
        }
    }
}

/// The server's answer to `initialize` settles the session's version, and the rules the
/// decoder holds its messages to: one the client speaks. Another is refused
/// (`for_protocol_version` trusts its input), and so is a result the handshake cannot trust
/// (a member missing, given twice or of another type).
fn settle_version(codec: &mut LineCodec, result: RawJson<'_>) -> Result<(), CallError> {
    let answered = mcp::InitializeResult::from_result(result)
        .map_err(CallError::BadHandshake)?
        .protocol_version
        .decode();
    let Some(version) = mcp::versions::accept(&answered, SPEAKS) else {
        return Err(CallError::UnsupportedVersion(answered.into_owned()));
    };
    codec.set_decoder(codec.decoder().for_protocol_version(version));
    Ok(())
}

/// A reply of the server: the request it answers is taken out of the table and given it
/// (the reply to `initialize` settles the session's version first).
fn settle_reply(inner: &Inner, codec: &mut LineCodec, reply: OwnedMessage) {
    let view = reply.message();
    // (`"id": null` is the form Python peers write, MCP's schema none.)
    let Some(id) = view.id().filter(|id| !id.is_null()) else {
        // A reply to a request the server could not read: whose, nobody knows; the request
        // will time out.
        eprintln!("client: error reply without an id: {view:?}");
        return;
    };
    let Some(waiting) = complete(inner, id) else {
        return;
    };
    if waiting.method == mcp::methods::INITIALIZE
        && let Message::Response(r) = view
        && let Err(e) = settle_version(codec, r.result)
    {
        let _ = waiting.done.send(Err(e));
        return;
    }
    let _ = waiting.done.send(Ok(reply));
}

/// A message of the server the decoder refused: a malformed reply to one of ours fails that
/// request; an invalid request of the server is owed -32600 (returned) when its id can be
/// read; a line that is not JSON may have been a reply, and is never answered.
fn rejected<'a>(inner: &Inner, rejection: &Rejection<'a>) -> Option<Reply<'a>> {
    if rejection.is_response() {
        let waiting = rejection.id().and_then(|id| complete(inner, id));
        if let Some(waiting) = waiting {
            let _ = waiting
                .done
                .send(Err(CallError::BadReply(rejection.error())));
        }
        return None;
    }
    rejection.reply_to_request()
}

/// Writes the answer to a request of the server (`ping` is answered, the rest is refused),
/// and keeps it in the transcript.
fn answer_server(inner: &Inner, out: &mut BytesMut, req: rpcwire::Request<'_>) {
    let answer = if req.method.eq_str(mcp::methods::PING) {
        encode::write_response(out, req.id, RawJson::EMPTY_OBJECT);
        "{}".to_owned()
    } else {
        encode::write_method_not_found(out, req.id, req.method);
        format!("{} Method not found", ErrorCode::METHOD_NOT_FOUND.get())
    };
    let mut session = inner.session.lock().unwrap();
    if session.server_requests.len() < MAX_TRANSCRIPT {
        let asked = format!("{} (answered {answer})", req.method.decode());
        session.server_requests.push(asked);
    }
}

fn notification(inner: &Inner, n: rpcwire::Notification<'_>) {
    if let Some(p) = mcp::Progress::from_notification(&n) {
        // The token is the id of the request that asked for it.
        let mut session = inner.session.lock().unwrap();
        // Only a request that asked for progress gave its id as a token: progress naming
        // another request's id moves no deadline (it would keep the request from timing out).
        let token = Token::from_id(p.token);
        let waiting = token.and_then(|t| Some((t, session.pending.get(t)?)));
        let asked = waiting.and_then(|(t, w)| Some((t, w.progress.as_ref()?, w.timeout)));
        let Some((token, to, timeout)) = asked else {
            session.unknown_progress += 1;
            return;
        };
        let progress = Progress {
            progress: p.progress,
            total: p.total,
        };
        // A caller that falls behind misses progress (the server's to send without end),
        // rather than the client queueing all of it.
        let _ = to.try_send(progress);
        if let Some(timeout) = timeout {
            let deadline = inner.clock.deadline_in(timeout);
            session.pending.set_deadline(token, Some(deadline));
        }
    } else if n.method.eq_str(mcp::methods::MESSAGE) {
        eprintln!("server log: {}", n.params.map_or("", |p| p.as_text()));
    }
}

/// Expires the requests whose deadline passed, until the connection is gone.
async fn expire(inner: std::sync::Weak<Inner>, clock: Arc<DeadlineClock>) {
    loop {
        let next = match inner.upgrade() {
            Some(inner) => inner.session.lock().unwrap().pending.next_wakeup(),
            None => return,
        };
        clock.wait(next).await;
        let Some(inner) = inner.upgrade() else { return };
        let expired: Vec<_> = inner
            .session
            .lock()
            .unwrap()
            .pending
            .expire(clock.now())
            .collect();
        for (token, waiting) in expired {
            // The cancellation first: what the caller sends next goes after it.
            inner.cancel_on_server(token, waiting.method, "timed out");
            let _ = waiting.done.send(Err(CallError::Timeout));
        }
    }
}

// The results this client reads (the parts of MCP's schema it uses).

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult {
    protocol_version: String,
    server_info: Implementation,
    #[serde(default)]
    capabilities: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct Implementation {
    name: String,
    version: String,
}

#[derive(Deserialize)]
struct ListToolsResult {
    tools: Vec<Tool>,
}

#[derive(Deserialize)]
struct Tool {
    name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResult {
    content: Vec<Content>,
    #[serde(default)]
    is_error: bool,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    text: String,
}

impl CallToolResult {
    fn text(&self) -> String {
        let text: Vec<_> = self.content.iter().map(|c| c.text.as_str()).collect();
        let text = text.join(" ");
        if self.is_error {
            format!("tool error: {text}")
        } else {
            text
        }
    }
}

fn show(result: &Result<CallToolResult, CallError>) -> String {
    match result {
        Ok(result) => result.text(),
        Err(e) => e.to_string(),
    }
}

/// Every progress received so far, as `1/5 2/5 …`.
fn progress_list(progress: &mut mpsc::Receiver<Progress>) -> String {
    let mut seen = Vec::new();
    while let Ok(p) = progress.try_recv() {
        seen.push(match p.total {
            Some(total) => format!("{}/{}", p.progress, total),
            None => p.progress.to_string(),
        });
    }
    seen.join(" ")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = if args.is_empty() {
        let exe = std::env::current_exe()?;
        let stub = exe.with_file_name(format!("mcp_stub_server{}", std::env::consts::EXE_SUFFIX));
        if !stub.exists() {
            return Err(format!(
                "{} not found: build it first (cargo build --example mcp_stub_server --features tokio,serde)",
                stub.display()
            )
            .into());
        }
        Command::new(stub)
    } else {
        let mut command = Command::new(&args[0]);
        command.args(&args[1..]);
        command
    };
    let (client, mut child) = Client::spawn(command)?;

    let init: InitializeResult = client
        .request(
            mcp::methods::INITIALIZE,
            Some(serde_json::json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "rpcwire-example", "version": "0.1.0"},
            })),
            CallOptions {
                timeout: Some(Duration::from_secs(10)),
                ..CallOptions::default()
            },
        )
        .await?;
    println!(
        "initialize: {} {}, protocol {}, capabilities: {}",
        init.server_info.name,
        init.server_info.version,
        init.protocol_version,
        init.capabilities
            .keys()
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    client.notify(mcp::methods::INITIALIZED);

    // (A deadline as for `initialize`: a server that never answers must not hang the client.)
    let listing = CallOptions {
        timeout: Some(Duration::from_secs(10)),
        ..CallOptions::default()
    };
    let tools: ListToolsResult = client
        .request(mcp::methods::TOOLS_LIST, None::<()>, listing)
        .await?;
    let names: Vec<_> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    println!("tools/list: {}", names.join(", "));

    if init.server_info.name == "stub-server" {
        scenario(&client).await;
    }

    client.close();
    let status = child.wait().await?;
    println!("server exited: {}", status.code().unwrap_or(-1));
    Ok(())
}

/// The calls played against the stub server.
async fn scenario(client: &Client) {
    use serde_json::json;
    let timeout = |ms| CallOptions {
        timeout: Some(Duration::from_millis(ms)),
        ..CallOptions::default()
    };

    // Four calls at once; `slow` would time out but for its progress.
    let (progress, mut slow_progress) = mpsc::channel(64);
    let slow_options = CallOptions {
        timeout: Some(Duration::from_millis(800)),
        progress: Some(progress),
    };
    let (echo, add, slow, ask) = tokio::join!(
        client.call_tool::<CallToolResult, _>("echo", json!({"text": "hello"}), timeout(5000)),
        client.call_tool::<CallToolResult, _>("add", json!({"a": 2, "b": 3}), timeout(5000)),
        client.call_tool::<CallToolResult, _>("slow", json!({"steps": 5, "ms": 200}), slow_options),
        client.call_tool::<CallToolResult, _>("ask", json!({}), timeout(5000)),
    );
    println!("4 calls at once:");
    println!("  echo -> {}", show(&echo));
    println!("  add -> {}", show(&add));
    println!(
        "  slow (timeout 800 ms, moved by each progress) -> {}; progress {}",
        show(&slow),
        progress_list(&mut slow_progress)
    );
    println!("  ask -> {}", show(&ask));
    let asked = client
        .inner
        .session
        .lock()
        .unwrap()
        .server_requests
        .join(", ");
    println!("server asked: {asked}");

    // No answer: the deadline passes, the server is told to stop.
    let hang = client
        .call_tool::<CallToolResult, _>("hang", json!({}), timeout(300))
        .await;
    println!("hang (timeout 300 ms) -> {}", show(&hang));

    // Given up after its first progress: dropping the call cancels it.
    let (progress, mut slow_progress) = mpsc::channel(64);
    let options = CallOptions {
        progress: Some(progress),
        ..CallOptions::default()
    };
    let call =
        client.call_tool::<CallToolResult, _>("slow", json!({"steps": 50, "ms": 50}), options);
    tokio::select! {
        result = call => println!("slow -> {} (unexpected)", show(&result)),
        Some(first) = slow_progress.recv() => println!(
            "slow (given up after progress {}/{}) -> cancelled",
            first.progress,
            first.total.unwrap_or(f64::NAN)
        ),
    }

    let nope = client
        .call_tool::<CallToolResult, _>("nope", json!({}), timeout(5000))
        .await;
    println!("nope -> {}", show(&nope));

    let session = client.inner.session.lock().unwrap();
    println!(
        "dropped replies: {} stale, {} unknown; in flight: {}",
        session.stale_replies,
        session.unknown_replies,
        session.pending.len()
    );
    eprintln!(
        "client: progress on no request: {}",
        session.unknown_progress
    );
}
