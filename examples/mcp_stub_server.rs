//! A tiny MCP server over stdio, the peer of `examples/mcp_client.rs`, built on the same
//! codec. Deterministic, and unkind on purpose where a client must cope:
//!
//! - tools `echo {text}`, `add {a, b}`;
//! - `slow {steps, ms}`: a `notifications/progress` every `ms` on the request's progress token,
//!   `steps` of them, then the result; a `notifications/cancelled` stops it;
//! - `ask`: asks the client `ping` and `roots/list` (which the client did not declare), then
//!   answers with what the client replied;
//! - at most 1024 `slow`, `hang` and `ask` run at once (the next gets -32603);
//! - a request reusing the id of one still running gets -32600, whatever its method;
//! - `hang`: never answers — until it is cancelled, when it answers anyway (a late reply the
//!   client must drop as stale);
//! - `initialize` params that break the schema: -32602 (`mcp::Initialize`);
//! - any other tool: -32602; any other method: -32601.
//!
//! Run it under the client: `cargo build --example mcp_stub_server --features tokio,serde &&
//! cargo run --example mcp_client --features tokio,serde`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use rpcwire::codec::{Incoming, LineCodec, LineEncoder};
use rpcwire::{
    Decoder, ErrorCode, IdBuf, InFlight, InFlightError, Message, PendingTable, RawJson, Token,
    encode, mcp,
};
use serde::Deserialize;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};
use tokio_util::codec::{FramedRead, FramedWrite};

/// The one protocol version the server speaks, whatever its client asks for (MCP: a server
/// answers another version it supports, and a client that does not speak it disconnects).
const PROTOCOL_VERSION: &str = mcp::versions::V2025_11_25;

/// Lines for the writer task. A bounded queue: when the client does not read its replies,
/// sending waits, and so does reading its next request (an unbounded one would hold every
/// reply in memory).
type Out = mpsc::Sender<Bytes>;

/// What the server keeps between lines.
struct State {
    /// Requests the server sent the client: the reply goes to the waiting task.
    asked: PendingTable<oneshot::Sender<String>>,
    /// Requests of the client still running (`slow`, `hang`, `ask`), by their id (compared as
    /// JSON values: a cancellation may spell it differently). At most 1024: the next is
    /// refused.
    running: InFlight<Running>,
}

struct Running {
    /// The task answering it (`slow`, `ask`), which a cancellation stops; `hang` has none.
    task: Option<AbortHandle>,
    /// Whether a late reply is owed on cancellation (`hang`).
    reply_late: bool,
}

#[derive(Deserialize)]
struct Call {
    name: String,
    #[serde(default)]
    arguments: serde_json::Value,
}

fn line(write: impl FnOnce(&mut BytesMut)) -> Bytes {
    let mut out = BytesMut::new();
    write(&mut out);
    out.freeze()
}

fn text_result(id: rpcwire::Id<'_>, text: &str) -> Bytes {
    let result = serde_json::json!({"content": [{"type": "text", "text": text}]}).to_string();
    line(|out| encode::write_response(out, id, RawJson::new(result.as_bytes()).unwrap()))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let (tx, mut rx) = mpsc::channel::<Bytes>(64);
    let mut sink = FramedWrite::new(tokio::io::stdout(), LineEncoder);
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            sink.send(line).await?;
        }
        SinkExt::<Bytes>::close(&mut sink).await
    });

    let state = Arc::new(Mutex::new(State {
        asked: PendingTable::new(),
        running: InFlight::new(1024),
    }));
    // The tasks that answer requests later (`slow`, `ask`).
    let mut tasks = JoinSet::new();
    let mut lines = FramedRead::new(tokio::io::stdin(), LineCodec::new(Decoder::mcp(), 1 << 20));
    while let Some(item) = lines.next().await {
        let item = item?;
        // Forget the tasks that are done (a `JoinSet` keeps each one's outcome until then).
        while tasks.try_join_next().is_some() {}
        let Incoming::Message(msg) = &item else {
            if let Some(reply) = item.reply() {
                let _ = tx
                    .send(line(|out| encode::write_reply(out, &reply, None)))
                    .await;
            }
            continue;
        };
        match msg.message() {
            Message::Request(req) => {
                if req.method.eq_str(mcp::methods::INITIALIZE) {
                    // The session's version is settled: its rules are the decoder's (a
                    // decoder's default holds results to the newest revision's, whose
                    // `resultType` is a member like any other before 2026-07-28).
                    let codec = lines.decoder_mut();
                    codec.set_decoder(codec.decoder().for_protocol_version(PROTOCOL_VERSION));
                }
                if let Some(reply) = request(&state, &tx, &mut tasks, req) {
                    let _ = tx.send(reply).await;
                }
            }
            Message::Notification(n) => {
                if let Some(cancelled) = mcp::Cancelled::from_notification(&n) {
                    let running = state.lock().unwrap().running.remove(cancelled.request_id);
                    if let Some((_, running)) = running {
                        if let Some(task) = running.task {
                            task.abort();
                        }
                        if running.reply_late {
                            let late = text_result(cancelled.request_id, "too late");
                            let _ = tx.send(late).await;
                        }
                    }
                }
            }
            Message::Response(r) => answer_of_client(&state, r.id, r.result.as_text().into()),
            Message::ErrorResponse(e) => {
                if let Some(id) = e.id {
                    let what = format!("error {}", e.error.code.get());
                    answer_of_client(&state, id, what);
                }
            }
            Message::Batch(_) => {}
        }
    }
    // The client is gone: nobody waits for what its requests still run for (an `ask` would
    // wait for its answer forever). Stop them, so that the writer ends with the last line.
    tasks.shutdown().await;
    drop(tx);
    writer.await.expect("writer task")
}

/// The client's reply to a request the server sent it.
fn answer_of_client(state: &Mutex<State>, id: rpcwire::Id<'_>, what: String) {
    if let Ok(waiting) = state.lock().unwrap().asked.complete(id) {
        let _ = waiting.send(what);
    }
}

/// The reply to a request, or `None` when a task answers it later.
fn request(
    state: &Arc<Mutex<State>>,
    tx: &Out,
    tasks: &mut JoinSet<()>,
    req: rpcwire::Request<'_>,
) -> Option<Bytes> {
    let id = req.id;
    // An id still in flight (a running `slow`, `hang` or `ask`) is refused whatever the
    // method, a quick one's too: the client could not tell the two replies apart.
    if state.lock().unwrap().running.contains(id) {
        return Some(line(|out| InFlightError::Duplicate.write_reply(out, id)));
    }
    let result = |json: serde_json::Value| {
        let body = json.to_string();
        line(|out| encode::write_response(out, id, RawJson::new(body.as_bytes()).unwrap()))
    };
    let reply = if req.method.eq_str(mcp::methods::INITIALIZE) {
        // Params that break the schema (a member missing, given twice, of another type) get
        // -32602; any version asked for gets the one the server speaks.
        match mcp::Initialize::from_request(&req) {
            Ok(_) => line(|out| {
                let capabilities = RawJson::new(br#"{"tools":{}}"#).unwrap();
                let me = RawJson::new(br#"{"name":"stub-server","version":"0.1.0"}"#).unwrap();
                mcp::write_initialize_result(out, id, PROTOCOL_VERSION, capabilities, me, None)
                    .expect("objects")
            }),
            Err(refused) => line(|out| refused.write_reply(out, id)),
        }
    } else if req.method.eq_str(mcp::methods::PING) {
        result(serde_json::json!({}))
    } else if req.method.eq_str(mcp::methods::TOOLS_LIST) {
        let tool = |name: &str, description: &str| {
            serde_json::json!({"name": name, "description": description,
                "inputSchema": {"type": "object"}})
        };
        result(serde_json::json!({"tools": [
            tool("echo", "says it back"),
            tool("add", "adds a and b"),
            tool("slow", "reports progress"),
            tool("ask", "asks the client"),
            tool("hang", "never answers"),
        ]}))
    } else if req.method.eq_str(mcp::methods::TOOLS_CALL) {
        return tool_call(state, tx, tasks, req);
    } else {
        line(|out| encode::write_method_not_found(out, id, req.method))
    };
    Some(reply)
}

fn tool_call(
    state: &Arc<Mutex<State>>,
    tx: &Out,
    tasks: &mut JoinSet<()>,
    req: rpcwire::Request<'_>,
) -> Option<Bytes> {
    let id = req.id;
    let params = req.params.unwrap_or(RawJson::EMPTY_OBJECT);
    let call: Call = match rpcwire::typed::deserialize_borrowed(params) {
        Ok(call) => call,
        Err(e) => return Some(line(|out| e.write_reply(out, id))),
    };
    let args = &call.arguments;
    match call.name.as_str() {
        "echo" => Some(text_result(id, args["text"].as_str().unwrap_or(""))),
        "add" => {
            let (a, b) = (
                args["a"].as_i64().unwrap_or(0),
                args["b"].as_i64().unwrap_or(0),
            );
            // In i128: two i64s from the client may add up past i64.
            let sum = i128::from(a) + i128::from(b);
            Some(text_result(id, &format!("{a} + {b} = {sum}")))
        }
        // They run on (`ask` waits for the client's answers): kept among the running
        // requests, which bound how many run at once and let a cancellation stop them.
        "slow" | "hang" | "ask" => {
            let mut state_now = state.lock().unwrap();
            // The id is claimed first: a task is started only for a request that may run.
            let reserved = match state_now.running.reserve(id) {
                Ok(reserved) => reserved,
                Err(e) => {
                    let message = match e {
                        InFlightError::Duplicate => "duplicate id",
                        _ => "too many requests",
                    };
                    return Some(line(|out| {
                        encode::write_error(out, id, e.code(), message, None)
                    }));
                }
            };
            let (owned_id, tx, state) = (id.to_owned_id(), tx.clone(), state.clone());
            let task = match call.name.as_str() {
                "slow" => {
                    let steps = args["steps"].as_u64().unwrap_or(3);
                    let ms = args["ms"].as_u64().unwrap_or(10);
                    let token = mcp::progress_token(&Message::Request(req));
                    let token = token.map(|t| t.to_owned_id());
                    Some(tasks.spawn(slow(state, tx, owned_id, token, steps, ms)))
                }
                "ask" => Some(tasks.spawn(ask(state, tx, owned_id))),
                _ => None,
            };
            reserved.insert(Running {
                task,
                reply_late: call.name == "hang",
            });
            None
        }
        other => Some(line(|out| {
            let data = serde_json::Value::from(other).to_string();
            encode::write_error(
                out,
                id,
                ErrorCode::INVALID_PARAMS,
                "Unknown tool",
                RawJson::new(data.as_bytes()),
            )
        })),
    }
}

/// `slow`: a progress every `ms` on the request's progress token, `steps` of them, then
/// the result.
async fn slow(
    state: Arc<Mutex<State>>,
    tx: Out,
    id: IdBuf,
    token: Option<IdBuf>,
    steps: u64,
    ms: u64,
) {
    for step in 1..=steps {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        if let Some(token) = &token {
            let progress = line(|out| {
                let total = Some(steps as f64);
                let ok = mcp::write_progress(out, token.as_id(), step as f64, total, None);
                debug_assert!(ok);
            });
            let _ = tx.send(progress).await;
        }
    }
    state.lock().unwrap().running.remove(id.as_id());
    let result = text_result(id.as_id(), &format!("done in {steps} steps"));
    let _ = tx.send(result).await;
}

/// A question to the client, forgotten if the task stops before its answer (a cancelled
/// `ask`): else each would stay in the table. (Once answered, it is gone from the table
/// already, and its token is never minted again.)
struct Question<'s> {
    state: &'s Mutex<State>,
    token: Token,
}

impl Drop for Question<'_> {
    fn drop(&mut self) {
        self.state.lock().unwrap().asked.cancel(self.token);
    }
}

/// `ask`: asks the client `ping` and `roots/list`, then answers with its answers.
async fn ask(state: Arc<Mutex<State>>, tx: Out, id: IdBuf) {
    let mut answers = Vec::new();
    for method in [mcp::methods::PING, mcp::methods::ROOTS_LIST] {
        let (done, answer) = oneshot::channel();
        // (One question at a time for each running `ask`: far fewer than the table holds.)
        let token = state.lock().unwrap().asked.insert(done);
        let token = token.expect("room for one question per running request");
        let _forget = Question {
            state: &state,
            token,
        };
        let mut buf = [0; 20];
        let question = line(|out| encode::write_request(out, token.to_id(&mut buf), method, None));
        let _ = tx.send(question).await;
        answers.push(format!("{method} -> {}", answer.await.unwrap_or_default()));
    }
    state.lock().unwrap().running.remove(id.as_id());
    let _ = tx.send(text_result(id.as_id(), &answers.join(", "))).await;
}
