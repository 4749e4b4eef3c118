//! `IdRemapper::dialect(Dialect::JsonRpc2)` against a model: random forwards of plain
//! JSON-RPC 2.0 requests (ids colliding across clients, spelt as JSON-RPC allows: `1`,
//! `1.0`, `10e-1`, `"a"`, `"\u0061"`, `null`, `0.5`, ...; MCP's method names among theirs:
//! `tasks/get`, `tasks/list`, `subscriptions/listen`, `initialize`; params with
//! `_meta.progressToken` in any form, `task`, the Tasks extension declared, an integer
//! `taskId`, `notifications.taskIds` of any type, an array), replies of any shape (plain
//! results, `CreateTaskResult`s in either MCP shape, `tasks/list` results, a result naming a
//! related task, -32602 errors) to any token ever minted, `take`, cancellations (an
//! `initialize`'s included), expiries, moved deadlines, clients leaving, the upstream going
//! away, `shrink_to_fit`, and the upstream's MCP notifications on the tokens minted
//! (progress, a subscription stamp, a stream's teardown, a task's status). Each client may
//! hold 3 requests of 14 bytes at most, the table 5 requests of 20 bytes.
//!
//! Under it: every request goes upstream with its id alone rewritten, every reply comes back
//! to the client that asked with its id restored byte for byte and the rest as it came,
//! none of MCP's refusals (`BadProgressToken`, `BadTaskId`, `ForeignTask`,
//! `MalformedParams`) happens, no task is ever kept, no upstream notification is routed on a
//! token minted, and the remapper holds, counts and refuses what the model says.

mod common;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::*;
use std::collections::HashMap;

/// Ids a client may send, by the value they compare as (`SPELLINGS[value]`).
const SPELLINGS: &[&[&str]] = &[
    &["1", "1.0", "10e-1", "1e0"],
    &[r#""a""#, r#""\u0061""#],
    &["null"],
    &["-2", "-2.0"],
    &[r#""b""#],
    &["0.5", "5e-1"],
];

/// Requests' methods: MCP's, whose rules must not apply, and others.
const METHODS: &[&str] = &[
    "x",
    "tools/call",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/update",
    "tasks/list",
    "subscriptions/listen",
    "initialize",
];

/// Requests' params (`None`: no params).
const PARAMS: &[Option<&str>] = &[
    None,
    Some(r#"{"_meta":{"progressToken":"p"}}"#),
    Some(r#"{"_meta":{"progressToken":7}}"#),
    Some(r#"{"_meta":{"progressToken":{"a":1}}}"#),
    Some(r#"{"_meta":{"progressToken":"p","progressToken":"q"}}"#),
    Some(r#"{"name":"n","task":{"ttl":10},"_meta":{"progressToken":"p"}}"#),
    Some(
        r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}"#,
    ),
    Some(r#"{"taskId":5}"#),
    Some(r#"{"taskId":"t0"}"#),
    Some(r#"{"taskId":"t0","inputResponses":{"n":{"action":"accept"}}}"#),
    Some(r#"{"notifications":{"taskIds":[1,"t0"]}}"#),
    Some(r#"{"notifications":{"taskIds":"t0"}}"#),
    Some(r#"{"protocolVersion":"2025-06-18","capabilities":{}}"#),
    Some("[1,2,3]"),
];

/// Replies' bodies, after the id.
const REPLIES: &[&str] = &[
    r#""result":{"m":"x"}"#,
    r#""result":{"task":{"taskId":"t0","status":"working","ttl":10}}"#,
    r#""result":{"task":{"taskId":"t1","status":"completed","ttl":null}}"#,
    r#""result":{"resultType":"task","taskId":"t2","status":"working","ttlMs":10}"#,
    r#""result":{"tasks":[{"taskId":"t0","status":"working"},{"taskId":"t9","status":"failed"}]}"#,
    r#""result":{"taskId":"t0","status":"failed","ttl":null}"#,
    r#""result":{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t0"},"progressToken":"p"}}"#,
    r#""error":{"code":-32602,"message":"Task not found"}"#,
    r#""result":[1,"two",null]"#,
    r#""result":null"#,
];

#[derive(Debug, Clone)]
enum Op {
    Forward {
        client: u8,
        value: u8,
        spelling: u8,
        method: u8,
        params: u8,
        deadline: Option<u8>,
    },
    Reply {
        pick: u16,
        body: u8,
        take: bool,
    },
    /// `client`'s `notifications/cancelled` of the id `value` spelt as `spelling`.
    Cancel {
        client: u8,
        value: u8,
        spelling: u8,
    },
    Expire {
        now: u8,
    },
    SetDeadline {
        pick: u16,
        d: Option<u8>,
    },
    Drop {
        client: u8,
    },
    Drain,
    /// An upstream notification naming a token ever minted: progress (0), a subscription
    /// stamp (1), a stream's teardown (2), a 2025-11-25 task status (3).
    Upstream {
        pick: u16,
        kind: u8,
    },
    Shrink,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0u8..3, 0..SPELLINGS.len() as u8, any::<u8>(), 0..METHODS.len() as u8, 0..PARAMS.len() as u8, proptest::option::of(0u8..50))
            .prop_map(|(client, value, spelling, method, params, deadline)| Op::Forward { client, value, spelling, method, params, deadline }),
        4 => (any::<u16>(), 0..REPLIES.len() as u8, proptest::bool::weighted(0.2)).prop_map(|(pick, body, take)| Op::Reply { pick, body, take }),
        3 => (0u8..3, 0..SPELLINGS.len() as u8, any::<u8>()).prop_map(|(client, value, spelling)| Op::Cancel { client, value, spelling }),
        1 => (0u8..60).prop_map(|now| Op::Expire { now }),
        1 => (any::<u16>(), proptest::option::of(0u8..60)).prop_map(|(pick, d)| Op::SetDeadline { pick, d }),
        1 => (0u8..3).prop_map(|client| Op::Drop { client }),
        1 => Just(Op::Drain),
        3 => (any::<u16>(), 0u8..4).prop_map(|(pick, kind)| Op::Upstream { pick, kind }),
        1 => Just(Op::Shrink),
    ]
}

/// A request in flight.
struct M {
    client: u8,
    /// The value its id compares as, and its spelling.
    value: u8,
    id: String,
    deadline: Option<u64>,
}

const PER_CLIENT: usize = 3;
const BYTES_PER_CLIENT: usize = 14;
const CAPACITY: usize = 5;
const MAX_BYTES: usize = 20;

fn client_share(client: u8, model: &HashMap<u64, M>) -> (usize, usize) {
    let requests = model.values().filter(|m| m.client == client);
    (requests.clone().count(), requests.map(|m| m.id.len()).sum())
}

fn spelling(value: u8, pick: u8) -> &'static str {
    let spellings = SPELLINGS[usize::from(value)];
    spellings[usize::from(pick) % spellings.len()]
}

/// Whether a `notifications/cancelled` reads `requestId` as a request id: one string or
/// integer (`1.0`, `null`, `0.5` name no request).
fn cancellable(id: &str) -> bool {
    id.starts_with('"') || id.parse::<i64>().is_ok()
}

fn remapper() -> IdRemapper<u8> {
    IdRemapper::new(CAPACITY)
        .max_bytes(MAX_BYTES)
        .max_per_client(PER_CLIENT)
        .max_bytes_per_client(BYTES_PER_CLIENT)
        .dialect(Dialect::JsonRpc2)
}

proptest! {
    #![proptest_config(crate::common::cases(256))]
    #[test]
    fn remap_jsonrpc_model(ops in proptest::collection::vec(op(), 1..80)) {
        let mut r = remapper();
        let mut model: HashMap<u64, M> = HashMap::new();
        let mut minted: Vec<u64> = vec![];
        let mut now_max = 0u64;
        for op in ops {
            match op {
                Op::Forward { client, value, spelling: pick, method, params, deadline } => {
                    let id = spelling(value, pick);
                    let method = METHODS[usize::from(method)];
                    let frame = match PARAMS[usize::from(params)] {
                        Some(p) => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{p}}}"#),
                        None => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#),
                    };
                    let Ok(Message::Request(req)) = Decoder::jsonrpc().decode(frame.as_bytes()) else {
                        panic!("{frame}")
                    };
                    let deadline = deadline.map(|d| now_max + u64::from(d));
                    let mut out = BytesMut::new();
                    let res = r.forward_request(client, frame.as_bytes(), &req, deadline, &mut out);
                    let (count, held) = client_share(client, &model);
                    let total: usize = model.values().map(|m| m.id.len()).sum();
                    let refused = if model.values().any(|m| m.client == client && m.value == value) {
                        Some(RemapError::DuplicateId)
                    } else if count >= PER_CLIENT {
                        Some(RemapError::ClientFull { limit: PER_CLIENT })
                    } else if held + id.len() > BYTES_PER_CLIENT {
                        Some(RemapError::ClientOverBudget {
                            budget: BYTES_PER_CLIENT,
                        })
                    } else if model.len() >= CAPACITY {
                        Some(RemapError::Full { limit: CAPACITY })
                    } else if total + id.len() > MAX_BYTES {
                        Some(RemapError::OverBudget { budget: MAX_BYTES })
                    } else {
                        None
                    };
                    if let Some(refused) = refused {
                        prop_assert_eq!(res, Err(refused), "{}", frame);
                        prop_assert!(out.is_empty());
                        continue;
                    }
                    let t = res.unwrap().get();
                    prop_assert!(!minted.contains(&t));
                    minted.push(t);
                    // The id alone is rewritten.
                    prop_assert_eq!(out, frame.replacen(&format!(r#""id":{id}"#), &format!(r#""id":{t}"#), 1) + "\n");
                    model.insert(t, M { client, value, id: id.to_string(), deadline });
                }
                Op::Reply { pick, body, take } => {
                    // A request in flight's token, now and then any token ever minted.
                    let mut in_flight: Vec<u64> = model.keys().copied().collect();
                    in_flight.sort();
                    let from = if pick % 4 == 0 || in_flight.is_empty() { &minted } else { &in_flight };
                    let Some(&t) = from.get(usize::from(pick / 4) % from.len().max(1)) else { continue };
                    let reply = format!(r#"{{"jsonrpc":"2.0","id":{t},{}}}"#, REPLIES[usize::from(body)]);
                    let msg = Decoder::jsonrpc_client().decode(reply.as_bytes()).unwrap();
                    let mut out = BytesMut::new();
                    let res = match take {
                        true => r.take(msg.id().unwrap()),
                        false => r.route_reply_at(reply.as_bytes(), msg.id().unwrap(), now_max, &mut out),
                    };
                    match model.remove(&t) {
                        Some(m) => {
                            let origin = res.unwrap();
                            prop_assert_eq!(origin.client, m.client);
                            prop_assert_eq!(origin.id.as_id().raw(), m.id.as_bytes());
                            if take {
                                prop_assert!(out.is_empty());
                            } else {
                                // Back byte for byte, the client's id restored.
                                prop_assert_eq!(out, reply.replacen(&format!(r#""id":{t}"#), &format!(r#""id":{}"#, m.id), 1) + "\n");
                            }
                        }
                        None => {
                            prop_assert_eq!(res.map(|o| o.client), Err(Miss::Stale));
                            prop_assert!(out.is_empty());
                        }
                    }
                }
                Op::Cancel { client, value, spelling: pick } => {
                    let id = spelling(value, pick);
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"r"}}}}"#);
                    let Ok(Message::Notification(n)) = Decoder::jsonrpc().decode(frame.as_bytes()) else { panic!("{frame}") };
                    let mut out = BytesMut::new();
                    let res = r.forward_cancel(&client, frame.as_bytes(), &n, &mut out).map(|(t, o)| (t.get(), o.client));
                    let named = model.iter().find(|(_, m)| m.client == client && m.value == value).map(|(t, _)| *t);
                    match named.filter(|_| cancellable(id)) {
                        // Any request, an `initialize` too.
                        Some(t) => {
                            prop_assert_eq!(res, Some((t, client)));
                            prop_assert_eq!(out, frame.replacen(&format!(r#""requestId":{id}"#), &format!(r#""requestId":{t}"#), 1) + "\n");
                            model.remove(&t);
                        }
                        None => {
                            prop_assert_eq!(res, None);
                            prop_assert!(out.is_empty());
                        }
                    }
                }
                Op::Expire { now } => {
                    let now = u64::from(now).max(now_max);
                    now_max = now;
                    let mut got: Vec<u64> = r.expire(now).map(|(t, _)| t.get()).collect();
                    got.sort();
                    let mut want: Vec<u64> = model.iter().filter(|(_, m)| m.deadline.is_some_and(|d| d <= now)).map(|(t, _)| *t).collect();
                    want.sort();
                    for t in &want {
                        model.remove(t);
                    }
                    prop_assert_eq!(got, want);
                    prop_assert_eq!(r.next_wakeup().is_some(), model.values().any(|m| m.deadline.is_some()));
                }
                Op::SetDeadline { pick, d } => {
                    let Some(&t) = minted.get(usize::from(pick) % minted.len().max(1)) else { continue };
                    let token = Token::new(t).unwrap();
                    let d = d.map(|d| now_max + u64::from(d));
                    let ok = r.set_deadline(token, d);
                    match model.get_mut(&t) {
                        Some(m) => {
                            prop_assert!(ok);
                            m.deadline = d;
                            prop_assert_eq!(r.has_deadline(token), Some(d.is_some()));
                        }
                        None => {
                            prop_assert!(!ok);
                            prop_assert_eq!(r.has_deadline(token), None);
                        }
                    }
                }
                Op::Drop { client } => {
                    let mut got: Vec<u64> = r.drop_client(&client).into_iter().map(|(t, o)| {
                        assert_eq!(o.client, client);
                        t.get()
                    }).collect();
                    got.sort();
                    let mut want: Vec<u64> = model.iter().filter(|(_, m)| m.client == client).map(|(t, _)| *t).collect();
                    want.sort();
                    model.retain(|_, m| m.client != client);
                    prop_assert_eq!(got, want);
                }
                Op::Drain => {
                    let mut got: Vec<u64> = r.drain().map(|(t, _)| t.get()).collect();
                    got.sort();
                    let mut want: Vec<u64> = model.keys().copied().collect();
                    want.sort();
                    model.clear();
                    prop_assert_eq!(got, want);
                }
                Op::Upstream { pick, kind } => {
                    let Some(&t) = minted.get(usize::from(pick) % minted.len().max(1)) else { continue };
                    let frame = match kind {
                        0 => format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{t},"progress":1}}}}"#),
                        1 => format!(r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"t0","status":"completed","_meta":{{"io.modelcontextprotocol/subscriptionId":{t}}}}}}}"#),
                        2 => format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{t}}}}}"#),
                        _ => r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t0","status":"completed","ttl":null}}"#.to_string(),
                    };
                    let Ok(Message::Notification(n)) = Decoder::jsonrpc_client().decode(frame.as_bytes()) else { panic!("{frame}") };
                    let mut out = BytesMut::new();
                    match kind {
                        0 => prop_assert!(r.route_progress(frame.as_bytes(), &n, &mut out).is_none()),
                        1 => prop_assert!(r.route_subscription(frame.as_bytes(), &n, &mut out).is_none()),
                        2 => {
                            let res = r.route_stream_cancel(frame.as_bytes(), &n, &mut out);
                            // No stream: a request in flight stays in flight.
                            let want = match model.contains_key(&t) {
                                true => StreamCancel::NotAStream,
                                false => StreamCancel::Miss(Miss::Stale),
                            };
                            prop_assert_eq!(res, want);
                        }
                        _ => prop_assert!(r.route_task_status(frame.as_bytes(), &n, &mut out).is_none()),
                    }
                    prop_assert!(out.is_empty());
                }
                Op::Shrink => r.shrink_to_fit(),
            }
            prop_assert_eq!(r.len(), model.len());
            prop_assert_eq!((r.tasks(), r.task_routes()), (0, 0));
            prop_assert_eq!(r.bytes(), model.values().map(|m| m.id.len()).sum::<usize>());
            for client in 0..3 {
                prop_assert_eq!((r.client_len(&client), r.client_bytes(&client)), client_share(client, &model));
                for value in 0..SPELLINGS.len() as u8 {
                    // Any spelling of an id in flight finds it.
                    let want = model.iter().find(|(_, m)| m.client == client && m.value == value).map(|(t, _)| *t);
                    for id in SPELLINGS[usize::from(value)] {
                        let got = r.get(&client, Id::from_token(id.as_bytes()).unwrap()).map(|(t, _)| t.get());
                        prop_assert_eq!(got, want, "{}", id);
                    }
                }
            }
            for t0 in ["\"t0\"", "\"t1\"", "\"t2\""] {
                prop_assert_eq!(r.task_owner(Id::from_token(t0.as_bytes()).unwrap()), None);
            }
        }
    }
}
