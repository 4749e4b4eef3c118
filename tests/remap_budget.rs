//! `IdRemapper` with MCP tasks under a tight byte budget (`max_bytes`) as well as per-client
//! limits, driven by random steps: requests plain and task-augmented, with and without
//! progress tokens and deadlines, their ids of several lengths; `CreateTaskResult`s (live or
//! ended at once, ttl or `null`, routed with the time or without) under task ids spelled
//! several ways (`"t1"`, `"\u00741"`, `"\u0074\u0031"`); status notifications; `tasks/get`,
//! `tasks/result`, `tasks/cancel` and `tasks/list` with their answers; cancellations, expiry,
//! moved deadlines, clients going away, shrinks. After every step: the budget and each
//! client's limits hold, live task routes are never given up for room, and a request takes
//! another client's record of an ended task only once its own client has none left. At the
//! end, with every deadline past and every client gone, the remapper holds nothing, and a
//! shrink gives all its room back. (`tests/remap_model.rs` models tasks under the default
//! 64 MiB budget, so there records never go for bytes, and spells each task id one way.)

mod common;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::*;

/// One step (a `usize` picks one of the tokens minted so far).
#[derive(Debug, Clone)]
enum Op {
    /// A client's request (task-augmented with `task`), its id `"i…i{id}"` with `idlen` i's.
    Forward {
        client: u8,
        id: u8,
        progress: Option<u8>,
        task: bool,
        deadline: Option<u8>,
        idlen: u8,
    },
    /// A `CreateTaskResult` answering a request.
    Create {
        pick: usize,
        task: u8,
        ttl: Option<u8>,
        terminal: bool,
        at: bool,
        spelling: u8,
    },
    /// A plain result answering a request.
    Reply {
        pick: usize,
    },
    /// A `notifications/tasks/status`.
    Status {
        task: u8,
        terminal: bool,
        spelling: u8,
    },
    /// A client's `tasks/get`, `tasks/result`, `tasks/cancel` or `tasks/list`.
    TaskReq {
        client: u8,
        id: u8,
        method: u8,
        task: u8,
        spelling: u8,
    },
    /// A task's status (cancelled), a -32602 error, or a result naming a task (in `tasks` and
    /// in `_meta`), answering a request.
    Answer {
        pick: usize,
        kind: u8,
        task: u8,
        spelling: u8,
    },
    Cancel {
        client: u8,
        id: u8,
    },
    Expire(u8),
    SetDeadline {
        pick: usize,
        d: Option<u8>,
    },
    Drop(u8),
    Shrink,
}

/// Three clients, six request ids, five tasks.
fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0u8..3, 0u8..6, proptest::option::of(0u8..3), any::<bool>(), proptest::option::of(0u8..40), 0u8..8).prop_map(|(client, id, progress, task, deadline, idlen)| Op::Forward { client, id, progress, task, deadline, idlen }),
        4 => (any::<usize>(), 0u8..5, proptest::option::of(0u8..60), proptest::bool::weighted(0.4), any::<bool>(), 0u8..8).prop_map(|(pick, task, ttl, terminal, at, spelling)| Op::Create { pick, task, ttl, terminal, at, spelling }),
        2 => any::<usize>().prop_map(|pick| Op::Reply { pick }),
        2 => (0u8..5, any::<bool>(), 0u8..8).prop_map(|(task, terminal, spelling)| Op::Status { task, terminal, spelling }),
        2 => (0u8..3, 0u8..6, 0u8..4, 0u8..5, 0u8..8).prop_map(|(client, id, method, task, spelling)| Op::TaskReq { client, id, method, task, spelling }),
        2 => (any::<usize>(), 0u8..3, 0u8..5, 0u8..8).prop_map(|(pick, kind, task, spelling)| Op::Answer { pick, kind, task, spelling }),
        1 => (0u8..3, 0u8..6).prop_map(|(client, id)| Op::Cancel { client, id }),
        2 => (0u8..30).prop_map(Op::Expire),
        1 => (any::<usize>(), proptest::option::of(0u8..40)).prop_map(|(pick, d)| Op::SetDeadline { pick, d }),
        1 => (0u8..3).prop_map(Op::Drop),
        1 => Just(Op::Shrink),
    ]
}

/// The task id `"t{task}"` in one of three spellings (`spelling`), of several lengths.
fn task_id(task: u8, spelling: u8) -> String {
    match spelling % 3 {
        0 => format!("\"t{task}\""),
        1 => format!("\"\\u0074{task}\""),
        _ => format!("\"\\u0074\\u003{task}\""),
    }
}

/// The remapper's byte budget, and each client's limits: a few requests' and tasks' worth,
/// tight enough that requests and routes are refused, and records given up, for bytes. (At
/// 90 and 50, the bounds while a task id counted twice, a task id counted once left them
/// almost never reached.)
const MAX_BYTES: usize = 60;
const PER_CLIENT: usize = 3;
const BYTES_PER_CLIENT: usize = 34;

proptest! {
    #![proptest_config(crate::common::cases(512))]
    #[test]
    fn tasks_keep_the_byte_budget_and_the_clients_shares(ops in proptest::collection::vec(op(), 1..150)) {
        let mut r: IdRemapper<u8> = IdRemapper::new(6).max_bytes(MAX_BYTES).max_per_client(PER_CLIENT).max_bytes_per_client(BYTES_PER_CLIENT);
        let mut minted: Vec<u64> = Vec::new();
        let mut now = 0u64;
        let pick = |m: &Vec<u64>, k: usize| if m.is_empty() { 1 } else { m[k % m.len()] };
        // The token of the entry each task was last kept under, and the tokens of the
        // task-augmented requests (whose `CreateTaskResult` keeps a task).
        let mut known: std::collections::HashMap<u8, u64> = Default::default();
        let mut task_aug: std::collections::HashSet<u64> = Default::default();
        for op in ops {
            let owner = |r: &IdRemapper<u8>, t: u8| r.task_owner(Id::from_token(format!("\"t{t}\"").as_bytes()).unwrap()).copied();
            // The tasks kept before the step: (task, its client, whether it is the record of
            // a task that ended, which has no deadline of the caller's to move).
            let before: Vec<(u8, u8, bool)> = (0..5u8).filter_map(|t| {
                let o = owner(&r, t)?;
                let tok = Token::new(known[&t]).unwrap();
                Some((t, o, r.has_deadline(tok).is_none()))
            }).collect();
            let forward_client = match &op { Op::Forward { client, .. } | Op::TaskReq { client, .. } => Some(*client), _ => None };
            match op {
                Op::Forward { client, id, progress, task, deadline, idlen } => {
                    let id = format!("\"{}{id}\"", "i".repeat(usize::from(idlen)));
                    let mut params = Vec::new();
                    if task { params.push(r#""task":{"ttl":10}"#.to_string()); }
                    if let Some(p) = progress { params.push(format!(r#""_meta":{{"progressToken":"p{p}"}}"#)); }
                    let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{}}}}}"#, params.join(","));
                    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!("{frame}") };
                    if let Ok(t) = r.forward_request(client, frame.as_bytes(), &req, deadline.map(|d| now + u64::from(d)), &mut BytesMut::new()) {
                        minted.push(t.get());
                        if task { task_aug.insert(t.get()); }
                    }
                }
                Op::Create { pick: k, task, ttl, terminal, at, spelling } => {
                    let t = pick(&minted, k);
                    let ttl = ttl.map_or("null".to_string(), |t| t.to_string());
                    let status = if terminal { "completed" } else { "working" };
                    let frame = format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{"task":{{"taskId":{},"status":"{status}","ttl":{ttl}}}}}}}"#, task_id(task, spelling));
                    let msg = Decoder::mcp_client().decode(frame.as_bytes()).unwrap();
                    let created = if at { r.route_reply_at(frame.as_bytes(), msg.id().unwrap(), now, &mut BytesMut::new()) } else { r.route_reply(frame.as_bytes(), msg.id().unwrap(), &mut BytesMut::new()) };
                    if created.is_ok() && task_aug.contains(&t) && owner(&r, task).is_some() { known.insert(task, t); }
                }
                Op::Reply { pick: k } => {
                    let t = pick(&minted, k);
                    let frame = format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{}}}}"#);
                    let msg = Decoder::mcp_client().decode(frame.as_bytes()).unwrap();
                    let _ = r.route_reply(frame.as_bytes(), msg.id().unwrap(), &mut BytesMut::new());
                }
                Op::Status { task, terminal, spelling } => {
                    let status = if terminal { "failed" } else { "input_required" };
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{{"taskId":{},"status":"{status}"}}}}"#, task_id(task, spelling));
                    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else { panic!() };
                    let _ = r.route_task_status(frame.as_bytes(), &n, &mut BytesMut::new());
                }
                Op::TaskReq { client, id, method, task, spelling } => {
                    let method = ["tasks/get", "tasks/result", "tasks/cancel", "tasks/list"][usize::from(method)];
                    let frame = format!(r#"{{"jsonrpc":"2.0","id":"q{id}","method":"{method}","params":{{"taskId":{}}}}}"#, task_id(task, spelling));
                    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!("{frame}") };
                    if let Ok(t) = r.forward_request(client, frame.as_bytes(), &req, None, &mut BytesMut::new()) {
                        minted.push(t.get());
                    }
                }
                Op::Answer { pick: k, kind, task, spelling } => {
                    let t = pick(&minted, k);
                    let tid = task_id(task, spelling);
                    let frame = match kind {
                        0 => format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{"taskId":{tid},"status":"cancelled"}}}}"#),
                        1 => format!(r#"{{"jsonrpc":"2.0","id":{t},"error":{{"code":-32602,"message":"x"}}}}"#),
                        _ => format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{"tasks":[{{"taskId":{tid}}}],"_meta":{{"io.modelcontextprotocol/related-task":{{"taskId":{tid}}}}}}}}}"#),
                    };
                    let msg = Decoder::mcp_client().decode(frame.as_bytes()).unwrap();
                    let _ = r.route_reply(frame.as_bytes(), msg.id().unwrap(), &mut BytesMut::new());
                }
                Op::Cancel { client, id } => {
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"i{id}"}}}}"#);
                    let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
                    let _ = r.forward_cancel(&client, frame.as_bytes(), &n, &mut BytesMut::new());
                }
                Op::Expire(d) => { now += u64::from(d); r.expire(now).count(); }
                Op::SetDeadline { pick: k, d } => {
                    let t = Token::new(pick(&minted, k)).unwrap();
                    r.set_deadline(t, d.map(|d| now + u64::from(d)));
                }
                Op::Drop(c) => { r.drop_client(&c); }
                Op::Shrink => r.shrink_to_fit(),
            }
            if let Some(c) = forward_client {
                let vanished: Vec<&(u8, u8, bool)> = before.iter().filter(|(t, o, _)| owner(&r, *t) != Some(*o)).collect();
                for (t, o, rec) in &vanished {
                    prop_assert!(*rec, "live route of task {} (client {}) given up", t, o);
                }
                // Another client's record goes only once the requesting client's own are gone.
                let others_gone = vanished.iter().any(|(_, o, _)| *o != c);
                let own_kept = before.iter().filter(|(t, o, rec)| *o == c && *rec && owner(&r, *t) == Some(c)).count();
                prop_assert!(!others_gone || own_kept == 0, "another client's record given up while client {} kept {}", c, own_kept);
            }
            prop_assert!(r.bytes() <= MAX_BYTES, "bytes {} over budget", r.bytes());
            prop_assert!(r.tasks() >= r.task_routes());
            prop_assert!(r.len() + r.tasks() <= 6);
            let mut sum = 0;
            for c in 0..3u8 {
                prop_assert!(r.client_len(&c) <= PER_CLIENT, "client {} len {}", c, r.client_len(&c));
                prop_assert!(r.client_bytes(&c) <= BYTES_PER_CLIENT, "client {} bytes {}", c, r.client_bytes(&c));
                sum += r.client_bytes(&c);
            }
            prop_assert!(sum <= r.bytes());
        }
        // Time passes far: nothing with a deadline (or a ttl) is left.
        r.expire(u64::MAX).count();
        prop_assert_eq!(r.next_wakeup(), None);
        for c in 0..3u8 { r.drop_client(&c); }
        prop_assert_eq!((r.len(), r.tasks(), r.task_routes(), r.bytes()), (0, 0, 0, 0));
        r.shrink_to_fit();
        let f = r.debug_footprint();
        prop_assert_eq!((f.table, f.by_client, f.task_ids, f.clients, f.record_queues, f.record_files), (0, 0, 0, 0, 0, 0));
    }
}
