//! `IdRemapper` against a model: random forwards (ids colliding across clients, progress
//! tokens, deadlines, task-augmented calls: 2025-11-25's `params.task`, the Tasks extension
//! of MCP 2026-07-28 declared in the request's client capabilities, or both), replies to any
//! token ever minted (plain results, `CreateTaskResult`s in 2025-11-25's shape or the
//! extension's, `resultType: "task"`, with a ttl or `null`, their tasks live or ended
//! already, routed at the time), cancellations, expiries, clients leaving, the upstream
//! going away, progress and moved deadlines, the room left behind given back
//! (`shrink_to_fit`, after half the expiries and between any two steps); MCP 2025-11-25
//! tasks' status notifications (terminal or not) and `tasks/get`, `tasks/result`,
//! `tasks/cancel`, `tasks/update` from the task's client or another, answered at once or
//! after time has passed (a status, the extension's `GetTaskResult` for its tasks, a result
//! naming the task or another, an acknowledgement, a -32602 error; any reply to a
//! `tasks/result`, and a -32602 to a `tasks/cancel`, ends the route of the task it names,
//! when that is its client's; a `tasks/update`'s reply ends none); `subscriptions/listen`
//! streams naming tasks in `notifications.taskIds` (the client's own, another's, none
//! kept), and the extension's `notifications/tasks` stamped with a stream's token (or any
//! request's, or a token no longer in flight), terminal or not, of the stream's client's
//! task or another's. An extension task's live route routes no progress and keeps no
//! deadline of its request's: its ttl's, or one set on its token. Each client may hold 3
//! requests and live task routes, of 14 bytes at most: beyond either its request is
//! refused, and a `CreateTaskResult` past its bytes leaves no route. A request that finds
//! the table full takes the place of its own client's oldest record of an ended task, else
//! of the oldest record of a client holding the most (never a live route). After every step
//! the remapper holds what the model holds (requests, task routes, the tasks it keeps and
//! whose they are), counts the bytes the model counts, in all and for each client, and every
//! reply, progress, status notification and stream notification reaches the client that
//! asked, its tokens restored. A task the remapper keeps is refused to every client but its
//! own (`tasks/*`, a listen request naming it: `ForeignTask`), never to its own, and no
//! stream gets another client's task's `notifications/tasks`.

mod common;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::*;
use std::collections::HashMap;

#[derive(Debug, Clone)]
enum Op {
    Forward {
        client: u8,
        id: u8,
        strid: bool,
        progress: Option<u8>,
        deadline: Option<u8>,
        task: bool,
        /// It declares the Tasks extension of MCP 2026-07-28 in its client capabilities.
        ext: bool,
    },
    Reply {
        pick: u16,
        /// A `CreateTaskResult` for task `t{n}`, with a ttl (`None`: `null`), its status
        /// terminal already or not, in 2025-11-25's shape (`result.task`, its `ttl`) or the
        /// Tasks extension's (`resultType: "task"`, the result the task, its `ttlMs`): the
        /// shape its request asked for (either, for a request asking for both), or with
        /// `flip` the other one.
        create: Option<(u8, Option<u8>, bool, bool)>,
    },
    Cancel {
        client: u8,
        id: u8,
        strid: bool,
    },
    Expire {
        now: u8,
    },
    Drop {
        client: u8,
    },
    Drain,
    Progress {
        pick: u16,
    },
    SetDeadline {
        pick: u16,
        d: Option<u8>,
    },
    Status {
        task: u8,
        terminal: bool,
    },
    /// `client`'s `tasks/get` (0), `tasks/result` (1), `tasks/cancel` (2) or `tasks/update`
    /// (3, the Tasks extension's) of task `t{task}`,
    /// answered with a status not terminal (0), a terminal one (1, for `tasks/result` its
    /// result; for `tasks/update` an empty acknowledgement either way), or -32602 (2); the
    /// result naming `t{task}` (the extension's `GetTaskResult` for a task it created), or
    /// with `other` the next task
    /// (an upstream's mistake: it ends that task only if it is the client's). With `wait`,
    /// time passes by that much while the request is in flight (routes' deadlines and ttls
    /// pass: an ended route's record is still the one a `tasks/get` answered -32602 forgets).
    Tasks {
        client: u8,
        method: u8,
        task: u8,
        answer: u8,
        other: bool,
        wait: Option<u8>,
    },
    /// `client`'s `subscriptions/listen` (MCP 2026-07-28) with id `id`, its
    /// `notifications.taskIds` the tasks `t{n}` of the bits of `tasks` (none: no `taskIds`),
    /// its own or other clients' or none kept; with `own`, the tasks it keeps (those of the
    /// bits, else all) when it keeps any. The stream stays open until a reply, a
    /// cancellation, its client or the upstream going.
    Listen {
        client: u8,
        id: u8,
        strid: bool,
        tasks: u8,
        own: bool,
    },
    /// A `notifications/tasks` (the Tasks extension's) of task `t{task}`, terminal or not,
    /// stamped with the token of a request in flight (`pick`: a listen stream's first, and
    /// now and then any token ever minted); with `own`, of a task the stream's client keeps
    /// when it keeps one.
    TaskNote {
        pick: u16,
        task: u8,
        terminal: bool,
        own: bool,
    },
    /// `shrink_to_fit` between any two steps: nothing the model sees changes, and no token
    /// is minted twice.
    Shrink,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..3, 0u8..4, any::<bool>(), proptest::option::of(0u8..3), proptest::option::of(0u8..50), any::<bool>(), proptest::bool::weighted(0.4)).prop_map(|(client, id, strid, progress, deadline, task, ext)| Op::Forward { client, id, strid, progress, deadline, task, ext }),
        3 => (any::<u16>(), proptest::option::of((0u8..4, proptest::option::of(0u8..40), proptest::bool::weighted(0.2), proptest::bool::weighted(0.2)))).prop_map(|(pick, create)| Op::Reply { pick, create }),
        1 => (0u8..3, 0u8..4, any::<bool>()).prop_map(|(client, id, strid)| Op::Cancel { client, id, strid }),
        1 => (0u8..60).prop_map(|now| Op::Expire { now }),
        1 => (0u8..3).prop_map(|client| Op::Drop { client }),
        1 => Just(Op::Drain),
        1 => any::<u16>().prop_map(|pick| Op::Progress { pick }),
        1 => (any::<u16>(), proptest::option::of(0u8..60)).prop_map(|(pick, d)| Op::SetDeadline { pick, d }),
        2 => (0u8..4, any::<bool>()).prop_map(|(task, terminal)| Op::Status { task, terminal }),
        3 => (0u8..3, 0u8..4, 0u8..4, 0u8..3, proptest::bool::weighted(0.25), proptest::option::weighted(0.25, 0u8..30)).prop_map(|(client, method, task, answer, other, wait)| Op::Tasks { client, method, task, answer, other, wait }),
        2 => (0u8..3, 0u8..4, any::<bool>(), 0u8..16, any::<bool>()).prop_map(|(client, id, strid, tasks, own)| Op::Listen { client, id, strid, tasks, own }),
        3 => (any::<u16>(), 0u8..4, any::<bool>(), any::<bool>()).prop_map(|(pick, task, terminal, own)| Op::TaskNote { pick, task, terminal, own }),
        1 => Just(Op::Shrink),
    ]
}

fn idtok(id: u8, strid: bool) -> String {
    if strid {
        format!("\"i{id}\"")
    } else {
        format!("{id}")
    }
}

/// A request in flight.
struct M {
    client: u8,
    id: String,
    progress: Option<String>,
    deadline: Option<u64>,
    bytes: usize,
    /// Task-augmented: `params.task` (2025-11-25), or the Tasks extension declared (`ext`);
    /// either shape of `CreateTaskResult` answering it creates a task.
    task: bool,
    ext: bool,
    /// A `subscriptions/listen`: a stream.
    listen: bool,
}

/// A task the remapper keeps: its route while `live`, then the record of its client.
struct Tm {
    client: u8,
    /// Its request's token: its progress's, while live.
    token: u64,
    progress: Option<String>,
    live: bool,
    deadline: Option<u64>,
    ttl_ends: Option<u64>,
    /// When it ended (a count of the ops that end tasks; those ended by one `expire` share
    /// it): a client's oldest record gives its place up first.
    ended: u64,
    /// A task of the Tasks extension of MCP 2026-07-28: no progress, its route's deadline
    /// its ttl's only (unless one is set on its token).
    ext: bool,
}

impl Tm {
    /// Its progress token while live, and its task id (quotes included).
    fn bytes(&self, id: &str) -> usize {
        self.progress.as_ref().map_or(0, |p| p.len()) + id.len() + 2
    }

    /// The task has ended (at `seq`): its progress goes, its deadline is its ttl's.
    fn end(&mut self, seq: u64) {
        if self.live {
            self.live = false;
            self.ended = seq;
            self.progress = None;
            self.deadline = self.ttl_ends;
        }
    }
}

/// A request of `client`'s that finds the table full takes the place of a record of a task
/// that ended, if any: `client`'s oldest while it holds one, else the oldest of a client
/// holding the most (never another client's while `client`, or a client holding more, has one
/// to give up). The records the remapper gave up leave the model, each one of those the rule
/// allows (ties: clients holding as many, records ended by one `expire`, which the table gives
/// up in the order it expired them).
fn give_places_up(
    r: &IdRemapper<u8>,
    tasks: &mut HashMap<String, Tm>,
    in_flight: usize,
    client: u8,
) -> Result<(), TestCaseError> {
    while in_flight + tasks.len() >= 5 {
        let records = |c: u8| {
            tasks
                .values()
                .filter(|tm| !tm.live && tm.client == c)
                .count()
        };
        let most = (0..3).map(records).max().unwrap_or(0);
        if most == 0 {
            return Ok(());
        }
        let gives = |c: u8| match records(client) {
            0 => records(c) == most,
            _ => c == client,
        };
        let oldest = |c: u8| {
            tasks
                .values()
                .filter(|tm| !tm.live && tm.client == c)
                .map(|tm| tm.ended)
                .min()
        };
        let gone = tasks.iter().find(|(id, tm)| {
            !tm.live
                && gives(tm.client)
                && Some(tm.ended) == oldest(tm.client)
                && r.task_owner(Id::from_token(format!("\"{id}\"").as_bytes()).unwrap())
                    .is_none()
        });
        let Some((id, _)) = gone else {
            prop_assert!(
                false,
                "no record client {} may take the place of was given up",
                client
            );
            unreachable!()
        };
        let id = id.clone();
        tasks.remove(&id);
    }
    Ok(())
}

/// The most requests in flight and live task routes each client may hold, and their bytes:
/// few enough that requests are refused for their client's bytes, and routes left unkept,
/// now and then. (At 26, requests and routes almost never reached it.)
const PER_CLIENT: usize = 3;
const BYTES_PER_CLIENT: usize = 14;

/// What `client` holds against its limits: its requests in flight and its tasks' live
/// routes, how many and their bytes.
fn client_share(
    client: u8,
    model: &HashMap<u64, M>,
    tasks: &HashMap<String, Tm>,
) -> (usize, usize) {
    let requests = model.values().filter(|m| m.client == client);
    let routes = tasks
        .iter()
        .filter(|(_, tm)| tm.live && tm.client == client);
    let count = requests.clone().count() + routes.clone().count();
    let bytes = requests.map(|m| m.bytes).sum::<usize>()
        + routes.map(|(id, tm)| tm.bytes(id)).sum::<usize>();
    (count, bytes)
}

/// The refusal of `client`'s request of `bytes` by its own limits, if any.
fn over_client_limits(
    client: u8,
    bytes: usize,
    model: &HashMap<u64, M>,
    tasks: &HashMap<String, Tm>,
) -> Option<RemapError> {
    let (count, held) = client_share(client, model, tasks);
    if count >= PER_CLIENT {
        Some(RemapError::ClientFull { limit: PER_CLIENT })
    } else if held + bytes > BYTES_PER_CLIENT {
        Some(RemapError::ClientOverBudget {
            budget: BYTES_PER_CLIENT,
        })
    } else {
        None
    }
}

/// `expire(now)`: the requests due come out (none of the model's others), a route past its
/// deadline ends (kept until its ttl, unless that passed too; `seq` is when it ended), and an
/// ended task past its ttl goes.
fn expire(
    r: &mut IdRemapper<u8>,
    model: &mut HashMap<u64, M>,
    tasks: &mut HashMap<String, Tm>,
    now: u64,
    seq: u64,
) -> Result<(), TestCaseError> {
    let mut got: Vec<u64> = r.expire(now).map(|(t, _)| t.get()).collect();
    got.sort();
    let mut want: Vec<u64> = model
        .iter()
        .filter(|(_, m)| m.deadline.is_some_and(|d| d <= now))
        .map(|(t, _)| *t)
        .collect();
    want.sort();
    for t in &want {
        model.remove(t);
    }
    prop_assert_eq!(got, want);
    tasks.retain(|_, tm| {
        if tm.deadline.is_none_or(|d| d > now) {
            return true;
        }
        if tm.live && tm.ttl_ends.is_none_or(|e| e > now) {
            tm.end(seq);
            return true;
        }
        false
    });
    Ok(())
}

fn notification(frame: &str) -> Notification<'_> {
    match Decoder::mcp_client().decode(frame.as_bytes()) {
        Ok(Message::Notification(n)) => n,
        other => panic!("{other:?}"),
    }
}

proptest! {
    #![proptest_config(crate::common::cases(256))]
    #[test]
    fn remap_model(ops in proptest::collection::vec(op(), 1..80)) {
        let mut r: IdRemapper<u8> = IdRemapper::new(5).max_per_client(PER_CLIENT).max_bytes_per_client(BYTES_PER_CLIENT);
        let mut model: HashMap<u64, M> = HashMap::new();
        let mut tasks: HashMap<String, Tm> = HashMap::new();
        let mut minted: Vec<u64> = vec![];
        let mut now_max = 0u64;
        let mut seq = 0u64;
        for op in ops {
            match op {
                Op::Forward { client, id, strid, progress, deadline, task, ext } => {
                    let idt = idtok(id, strid);
                    let pt = progress.map(|p| format!("\"p{p}\""));
                    let mut meta = vec![];
                    if let Some(p) = &pt { meta.push(format!(r#""progressToken":{p}"#)); }
                    if ext { meta.push(r#""io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#.to_string()); }
                    let mut params = vec![];
                    if task { params.push(if pt.is_some() { r#""task":{"ttl":10}"# } else { r#""task":{}"# }.to_string()); }
                    if !meta.is_empty() { params.push(format!(r#""_meta":{{{}}}"#, meta.join(","))); }
                    let frame = match params.is_empty() {
                        true => format!(r#"{{"jsonrpc":"2.0","id":{idt},"method":"x"}}"#),
                        false => format!(r#"{{"jsonrpc":"2.0","id":{idt},"method":"x","params":{{{}}}}}"#, params.join(",")),
                    };
                    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
                    let mut out = BytesMut::new();
                    let d = deadline.map(|d| now_max + u64::from(d));
                    let res = r.forward_request(client, frame.as_bytes(), &req, d, &mut out);
                    let dup = model.values().any(|m| m.client == client && m.id == idt);
                    if dup { prop_assert_eq!(res, Err(RemapError::DuplicateId)); continue; }
                    let bytes = idt.len() + pt.as_ref().map_or(0, |p| p.len());
                    if let Some(refused) = over_client_limits(client, bytes, &model, &tasks) { prop_assert_eq!(res, Err(refused)); continue; }
                    give_places_up(&r, &mut tasks, model.len(), client)?;
                    if model.len() + tasks.len() >= 5 { prop_assert_eq!(res, Err(RemapError::Full { limit: 5 })); continue; }
                    let t = res.unwrap().get();
                    prop_assert!(!minted.contains(&t));
                    minted.push(t);
                    model.insert(t, M { client, id: idt, progress: pt, deadline: d, bytes, task, ext, listen: false });
                }
                Op::Reply { pick, create } => {
                    if minted.is_empty() { continue; }
                    let t = minted[pick as usize % minted.len()];
                    let (result, task_id) = match create {
                        Some((n, ttl, terminal, flip)) => {
                            let ext = flip != match model.get(&t) {
                                Some(m) if m.task && m.ext => n % 2 == 0,
                                Some(m) => m.ext,
                                None => false,
                            };
                            let ttl = ttl.map_or("null".to_string(), |ttl| ttl.to_string());
                            let status = if terminal { "failed" } else { "working" };
                            let result = match ext {
                                true => format!(r#"{{"resultType":"task","taskId":"t{n}","status":"{status}","ttlMs":{ttl},"pollIntervalMs":5}}"#),
                                false => format!(r#"{{"task":{{"taskId":"t{n}","status":"{status}","ttl":{ttl}}}}}"#),
                            };
                            (result, Some((format!("t{n}"), ttl, terminal, ext)))
                        }
                        None => ("{}".to_string(), None),
                    };
                    let reply = format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{result}}}"#);
                    let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
                    let mut out = BytesMut::new();
                    let res = r.route_reply_at(reply.as_bytes(), msg.id().unwrap(), now_max, &mut out);
                    match model.remove(&t) {
                        Some(m) => {
                            let o = res.unwrap();
                            prop_assert_eq!(o.client, m.client);
                            prop_assert_eq!(out, format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, m.id) + "\n");
                            if let (true, Some((task_id, ttl, terminal, ext))) = (m.task || m.ext, task_id) {
                                let ttl_ends = ttl.parse::<u64>().ok().map(|ttl| now_max + ttl);
                                // A task id kept already names a task gone upstream: the new task takes it over.
                                // A route's deadline (its request's, or none) is never past its ttl;
                                // an extension task's is its ttl's only, and it routes no progress.
                                let deadline = match (m.deadline.filter(|_| !ext), ttl_ends) {
                                    (Some(d), Some(end)) => Some(d.min(end)),
                                    (d, end) => d.or(end),
                                };
                                let progress = m.progress.filter(|_| !ext);
                                tasks.remove(&task_id);
                                let mut tm = Tm { client: m.client, token: t, progress, live: true, deadline, ttl_ends, ended: 0, ext };
                                // A task ended already: kept as its record.
                                if terminal { seq += 1; tm.end(seq); }
                                // A live route past its client's bytes (its request's gone
                                // already from the model) is not kept; a record always is.
                                let (_, held) = client_share(m.client, &model, &tasks);
                                if !tm.live || held + tm.bytes(&task_id) <= BYTES_PER_CLIENT {
                                    tasks.insert(task_id, tm);
                                }
                            }
                        }
                        None => prop_assert_eq!(res.unwrap_err(), Miss::Stale),
                    }
                }
                Op::Cancel { client, id, strid } => {
                    let idt = idtok(id, strid);
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{idt}}}}}"#);
                    let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
                    let mut out = BytesMut::new();
                    let res = r.forward_cancel(&client, frame.as_bytes(), &n, &mut out);
                    let found = model.iter().find(|(_, m)| m.client == client && m.id == idt).map(|(t, _)| *t);
                    match found {
                        Some(t) => { model.remove(&t); let (tok, _) = res.unwrap(); prop_assert_eq!(tok.get(), t); }
                        None => prop_assert!(res.is_none()),
                    }
                }
                Op::Expire { now } => {
                    let now = u64::from(now).max(now_max);
                    now_max = now;
                    seq += 1;
                    expire(&mut r, &mut model, &mut tasks, now, seq)?;
                    // Half the ticks give back the room left behind too: nothing the model
                    // sees changes (every later op checks it), and no token is minted twice.
                    if now % 2 == 0 {
                        r.shrink_to_fit();
                    }
                }
                Op::Drop { client } => {
                    let mut got: Vec<u64> = r.drop_client(&client).into_iter().map(|(t, _)| t.get()).collect();
                    got.sort();
                    let mut want: Vec<u64> = model.iter().filter(|(_, m)| m.client == client).map(|(t, _)| *t).collect();
                    want.sort();
                    for t in &want { model.remove(t); }
                    prop_assert_eq!(got, want);
                    tasks.retain(|_, tm| tm.client != client);
                }
                Op::Shrink => r.shrink_to_fit(),
                Op::Listen { client, id, strid, tasks: bits, own } => {
                    let idt = idtok(id, strid);
                    let mut named: Vec<String> = (0..4).map(|n| format!("t{n}")).filter(|n| own && tasks.get(n).is_some_and(|tm| tm.client == client)).collect();
                    if named.iter().any(|n| bits & (1 << n[1..].parse::<u8>().unwrap()) != 0) {
                        named.retain(|n| bits & (1 << n[1..].parse::<u8>().unwrap()) != 0);
                    }
                    if named.is_empty() {
                        named = (0..4).filter(|n| bits & (1 << n) != 0).map(|n| format!("t{n}")).collect();
                    }
                    let notifications = match named.is_empty() {
                        true => r#"{"toolsListChanged":true}"#.to_string(),
                        false => format!(r#"{{"taskIds":[{}]}}"#, named.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(",")),
                    };
                    let frame = format!(r#"{{"jsonrpc":"2.0","id":{idt},"method":"subscriptions/listen","params":{{"notifications":{notifications}}}}}"#);
                    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
                    let mut out = BytesMut::new();
                    let res = r.forward_request(client, frame.as_bytes(), &req, None, &mut out);
                    if model.values().any(|m| m.client == client && m.id == idt) { prop_assert_eq!(res, Err(RemapError::DuplicateId)); continue; }
                    // A task kept as another client's, ended or not, is refused; its own
                    // client's (live or a record) never is.
                    if named.iter().any(|n| tasks.get(n).is_some_and(|tm| tm.client != client)) {
                        prop_assert_eq!(res, Err(RemapError::ForeignTask));
                        continue;
                    }
                    let bytes = idt.len();
                    if let Some(refused) = over_client_limits(client, bytes, &model, &tasks) { prop_assert_eq!(res, Err(refused)); continue; }
                    give_places_up(&r, &mut tasks, model.len(), client)?;
                    if model.len() + tasks.len() >= 5 { prop_assert_eq!(res, Err(RemapError::Full { limit: 5 })); continue; }
                    let t = res.unwrap().get();
                    prop_assert!(!minted.contains(&t));
                    minted.push(t);
                    prop_assert_eq!(out, frame.replacen(&format!(r#""id":{idt}"#), &format!(r#""id":{t}"#), 1) + "\n");
                    model.insert(t, M { client, id: idt, progress: None, deadline: None, bytes, task: false, ext: false, listen: true });
                }
                Op::TaskNote { pick, task, terminal, own } => {
                    // A listen stream's token while one is open, else a request's in flight;
                    // now and then any request's, or any token ever minted (perhaps of no
                    // request in flight).
                    let in_flight = |listen: bool| {
                        let mut tokens: Vec<u64> = model.iter().filter(|(_, m)| m.listen || !listen).map(|(t, _)| *t).collect();
                        tokens.sort();
                        tokens
                    };
                    let (streams, requests) = (in_flight(true), in_flight(false));
                    let from = match pick % 8 {
                        0 => &minted,
                        1 => &requests,
                        _ if streams.is_empty() => &requests,
                        _ => &streams,
                    };
                    let Some(&t) = from.get(usize::from(pick / 8) % from.len().max(1)) else { continue };
                    let mut task = format!("t{task}");
                    if own && let Some(m) = model.get(&t) {
                        let mut owned: Vec<&String> = tasks.iter().filter(|(_, tm)| tm.client == m.client).map(|(id, _)| id).collect();
                        owned.sort();
                        if let Some(id) = owned.get(usize::from(pick / 64) % owned.len().max(1)) { task = (*id).clone(); }
                    }
                    let status = if terminal { "cancelled" } else { "input_required" };
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"{task}","status":"{status}","ttlMs":null,"_meta":{{"io.modelcontextprotocol/subscriptionId":{t}}}}}}}"#);
                    let n = notification(&frame);
                    // Not a 2025-11-25 status notification: `route_task_status` leaves it.
                    let mut out = BytesMut::new();
                    prop_assert_eq!(r.route_task_status(frame.as_bytes(), &n, &mut out), None);
                    prop_assert!(out.is_empty());
                    let res = r.route_subscription(frame.as_bytes(), &n, &mut out).map(|o| o.client);
                    let kept = tasks.get_mut(&task);
                    match model.get(&t) {
                        // No client gets another client's task, ended or not.
                        Some(m) if kept.as_ref().is_none_or(|tm| tm.client == m.client) => {
                            prop_assert_eq!(res, Some(m.client));
                            let stamp = format!(r#""io.modelcontextprotocol/subscriptionId":{t}"#);
                            prop_assert_eq!(out, frame.replacen(&stamp, &format!(r#""io.modelcontextprotocol/subscriptionId":{}"#, m.id), 1) + "\n");
                            // Its own client's task, seen to end.
                            if let Some(tm) = kept && terminal { seq += 1; tm.end(seq); }
                        }
                        _ => { prop_assert_eq!(res, None); prop_assert!(out.is_empty()); }
                    }
                }
                Op::Drain => {
                    let n = r.drain().count();
                    prop_assert_eq!(n, model.len());
                    model.clear();
                    tasks.clear();
                }
                Op::Progress { pick } => {
                    if minted.is_empty() { continue; }
                    let t = minted[pick as usize % minted.len()];
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{t},"progress":1}}}}"#);
                    let n = notification(&frame);
                    let mut out = BytesMut::new();
                    let res = r.route_progress(frame.as_bytes(), &n, &mut out).map(|r| (r.token.get(), *r.client, r.request.is_some()));
                    let route = tasks.values().find(|tm| tm.live && tm.token == t);
                    let expected = match (model.get(&t), route) {
                        (Some(m), _) => m.progress.as_ref().map(|p| (m.client, p, true)),
                        (None, Some(tm)) => tm.progress.as_ref().map(|p| (tm.client, p, false)),
                        (None, None) => None,
                    };
                    match expected {
                        Some((client, p, request)) => {
                            prop_assert_eq!(res, Some((t, client, request)));
                            prop_assert_eq!(out, format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{p},"progress":1}}}}"#) + "\n");
                        }
                        None => prop_assert_eq!(res, None),
                    }
                }
                Op::SetDeadline { pick, d } => {
                    if minted.is_empty() { continue; }
                    let t = minted[pick as usize % minted.len()];
                    let d = d.map(|d| now_max + u64::from(d));
                    let ok = r.set_deadline(Token::new(t).unwrap(), d);
                    if let Some(m) = model.get_mut(&t) {
                        prop_assert!(ok);
                        m.deadline = d;
                    } else if let Some(tm) = tasks.values_mut().find(|tm| tm.live && tm.token == t) {
                        prop_assert!(ok);
                        // Never past the task's ttl.
                        tm.deadline = match (d, tm.ttl_ends) {
                            (Some(d), Some(end)) => Some(d.min(end)),
                            (d, end) => d.or(end),
                        };
                    } else {
                        prop_assert!(!ok);
                    }
                }
                Op::Status { task, terminal } => {
                    let status = if terminal { "completed" } else { "working" };
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{{"taskId":"t{task}","status":"{status}","ttl":null}}}}"#);
                    let n = notification(&frame);
                    let mut out = BytesMut::new();
                    let res = r.route_task_status(frame.as_bytes(), &n, &mut out).map(|(_, c)| c);
                    match tasks.get_mut(&format!("t{task}")) {
                        Some(tm) => {
                            prop_assert_eq!(res, Some(tm.client));
                            prop_assert_eq!(out, frame.clone() + "\n");
                            if terminal { seq += 1; tm.end(seq); }
                        }
                        None => { prop_assert_eq!(res, None); prop_assert!(out.is_empty()); }
                    }
                }
                Op::Tasks { client, method, task, answer, other, wait } => {
                    // With `wait`, the request is its own client's, for a live route when
                    // there is one: what time passing while it is in flight may change.
                    let mut live: Vec<(u8, u8)> = tasks
                        .iter()
                        .filter(|(_, tm)| wait.is_some() && tm.live)
                        .map(|(id, tm)| (tm.client, id[1..].parse().unwrap()))
                        .collect();
                    live.sort();
                    let (client, task) = live.get(usize::from(task) % live.len().max(1)).copied().unwrap_or((client, task));
                    // A `tasks/update` names a task kept, when there is one: its own client's
                    // or another's.
                    let mut kept: Vec<u8> = tasks.keys().filter(|_| method == 3 && wait.is_none()).map(|id| id[1..].parse().unwrap()).collect();
                    kept.sort();
                    let task = kept.get(usize::from(task) % kept.len().max(1)).copied().unwrap_or(task);
                    let name = ["tasks/get", "tasks/result", "tasks/cancel", "tasks/update"][usize::from(method)];
                    let task_id = format!("t{task}");
                    let frame = match method {
                        3 => format!(r#"{{"jsonrpc":"2.0","id":"q","method":"{name}","params":{{"taskId":"{task_id}","inputResponses":{{"n":{{"action":"accept"}}}}}}}}"#),
                        _ => format!(r#"{{"jsonrpc":"2.0","id":"q","method":"{name}","params":{{"taskId":"{task_id}"}}}}"#),
                    };
                    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
                    let res = r.forward_request(client, frame.as_bytes(), &req, None, &mut BytesMut::new());
                    if tasks.get(&task_id).is_some_and(|tm| tm.client != client) {
                        prop_assert_eq!(res, Err(RemapError::ForeignTask));
                        prop_assert_eq!(r.task_owner(Id::from_token(format!("\"{task_id}\"").as_bytes()).unwrap()), tasks.get(&task_id).map(|tm| &tm.client));
                        continue;
                    }
                    // Its id `"q"`.
                    if let Some(refused) = over_client_limits(client, 3, &model, &tasks) { prop_assert_eq!(res, Err(refused)); continue; }
                    give_places_up(&r, &mut tasks, model.len(), client)?;
                    if model.len() + tasks.len() >= 5 { prop_assert_eq!(res, Err(RemapError::Full { limit: 5 })); continue; }
                    let t = res.unwrap().get();
                    minted.push(t);
                    // A `tasks/result` for a task of its client's, kept when it goes upstream:
                    // any reply ends it (it comes once the task has ended, or is gone); so
                    // does a -32602 refusing a `tasks/cancel` of it (the task has ended).
                    let ends_own = (method == 1 || (method, answer) == (2, 2)) && tasks.contains_key(&task_id);
                    let named = if other { format!("t{}", (task + 1) % 4) } else { task_id.clone() };
                    let ext = tasks.get(&task_id).is_some_and(|tm| tm.ext);
                    let result = match (method, answer) {
                        (_, 2) => None,
                        (1, _) => Some(format!(r#"{{"content":[],"_meta":{{"io.modelcontextprotocol/related-task":{{"taskId":"{named}"}}}}}}"#)),
                        // An empty acknowledgement: it tells nothing of the task.
                        (3, _) => Some(r#"{"resultType":"complete"}"#.to_string()),
                        // The extension's `GetTaskResult`: the task, its result when it ended.
                        (_, a) if ext => Some(format!(r#"{{"resultType":"complete","taskId":"{named}","status":"{}","ttlMs":null{}}}"#, ["working", "completed"][usize::from(a)], ["", r#","result":{"content":[]}"#][usize::from(a)])),
                        (_, a) => Some(format!(r#"{{"taskId":"{named}","status":"{}","ttl":null}}"#, ["working", "failed"][usize::from(a)])),
                    };
                    let reply = match &result {
                        Some(result) => format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{result}}}"#),
                        None => format!(r#"{{"jsonrpc":"2.0","id":{t},"error":{{"code":-32602,"message":"Task not found"}}}}"#),
                    };
                    if let Some(wait) = wait {
                        now_max += u64::from(wait);
                        seq += 1;
                        expire(&mut r, &mut model, &mut tasks, now_max, seq)?;
                    }
                    let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
                    let mut out = BytesMut::new();
                    let to = r.route_reply_at(reply.as_bytes(), msg.id().unwrap(), now_max, &mut out);
                    prop_assert_eq!(to.map(|o| o.client), Ok(client));
                    prop_assert_eq!(out, reply.replacen(&format!(r#""id":{t}"#), r#""id":"q""#, 1) + "\n");
                    match (method, answer) {
                        // The upstream no longer knows the task.
                        (0, 2) => { tasks.remove(&task_id); }
                        // A `tasks/update`'s reply tells nothing of the task.
                        (_, 2) | (0 | 2, 0) | (3, _) => {}
                        // The task the result names ends, if it is the client's.
                        _ => { if let Some(tm) = tasks.get_mut(&named).filter(|tm| tm.client == client) { seq += 1; tm.end(seq); } }
                    }
                    if ends_own && let Some(tm) = tasks.get_mut(&task_id) { seq += 1; tm.end(seq); }
                }
            }
            prop_assert_eq!(r.len(), model.len());
            prop_assert_eq!(r.tasks(), tasks.len());
            prop_assert_eq!(r.task_routes(), tasks.values().filter(|tm| tm.live).count());
            let task_bytes: usize = tasks.iter().map(|(id, tm)| tm.bytes(id)).sum();
            prop_assert_eq!(r.bytes(), model.values().map(|m| m.bytes).sum::<usize>() + task_bytes);
            for client in 0..3 {
                prop_assert_eq!((r.client_len(&client), r.client_bytes(&client)), client_share(client, &model, &tasks));
            }
            for n in 0..4 {
                let id = format!("\"t{n}\"");
                prop_assert_eq!(r.task_owner(Id::from_token(id.as_bytes()).unwrap()), tasks.get(&format!("t{n}")).map(|tm| &tm.client));
            }
        }
    }
}
