//! `IdRemapper` against a model: random forwards (ids colliding across clients, progress
//! tokens, deadlines), replies to any token ever minted, cancellations, expiries, clients
//! leaving, the upstream going away, progress and moved deadlines. After every step the
//! remapper holds what the model holds, counts the bytes the model counts, and every reply
//! and progress notification reaches the client that asked, its tokens restored.

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
    },
    Reply {
        pick: u16,
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
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..3, 0u8..4, any::<bool>(), proptest::option::of(0u8..3), proptest::option::of(0u8..50)).prop_map(|(client, id, strid, progress, deadline)| Op::Forward { client, id, strid, progress, deadline }),
        2 => any::<u16>().prop_map(|pick| Op::Reply { pick }),
        1 => (0u8..3, 0u8..4, any::<bool>()).prop_map(|(client, id, strid)| Op::Cancel { client, id, strid }),
        1 => (0u8..60).prop_map(|now| Op::Expire { now }),
        1 => (0u8..3).prop_map(|client| Op::Drop { client }),
        1 => Just(Op::Drain),
        1 => any::<u16>().prop_map(|pick| Op::Progress { pick }),
        1 => (any::<u16>(), proptest::option::of(0u8..60)).prop_map(|(pick, d)| Op::SetDeadline { pick, d }),
    ]
}

fn idtok(id: u8, strid: bool) -> String {
    if strid {
        format!("\"i{id}\"")
    } else {
        format!("{id}")
    }
}

struct M {
    client: u8,
    id: String,
    progress: Option<String>,
    deadline: Option<u64>,
    bytes: usize,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]
    #[test]
    fn remap_model(ops in proptest::collection::vec(op(), 1..80)) {
        let mut r: IdRemapper<u8> = IdRemapper::new(5);
        let mut model: HashMap<u64, M> = HashMap::new();
        let mut minted: Vec<u64> = vec![];
        let mut now_max = 0u64;
        for op in ops {
            match op {
                Op::Forward { client, id, strid, progress, deadline } => {
                    let idt = idtok(id, strid);
                    let pt = progress.map(|p| format!("\"p{p}\""));
                    let frame = match &pt {
                        Some(p) => format!(r#"{{"jsonrpc":"2.0","id":{idt},"method":"x","params":{{"_meta":{{"progressToken":{p}}}}}}}"#),
                        None => format!(r#"{{"jsonrpc":"2.0","id":{idt},"method":"x"}}"#),
                    };
                    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
                    let mut out = BytesMut::new();
                    let d = deadline.map(u64::from);
                    let res = r.forward_request(client, frame.as_bytes(), &req, d, &mut out);
                    let dup = model.values().any(|m| m.client == client && m.id == idt);
                    if dup { prop_assert_eq!(res, Err(RemapError::DuplicateId)); continue; }
                    if model.len() >= 5 { prop_assert_eq!(res, Err(RemapError::Full)); continue; }
                    let t = res.unwrap().get();
                    prop_assert!(!minted.contains(&t));
                    minted.push(t);
                    let bytes = 2 * idt.len() + pt.as_ref().map_or(0, |p| p.len());
                    model.insert(t, M { client, id: idt, progress: pt, deadline: d, bytes });
                }
                Op::Reply { pick } => {
                    if minted.is_empty() { continue; }
                    let t = minted[pick as usize % minted.len()];
                    let reply = format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{}}}}"#);
                    let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
                    let mut out = BytesMut::new();
                    let res = r.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut out);
                    match model.remove(&t) {
                        Some(m) => { let o = res.unwrap(); prop_assert_eq!(o.client, m.client); prop_assert_eq!(out, format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, m.id) + "\n"); }
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
                    let mut got: Vec<u64> = r.expire(now).map(|(t, _)| t.get()).collect();
                    got.sort();
                    let mut want: Vec<u64> = model.iter().filter(|(_, m)| m.deadline.is_some_and(|d| d <= now)).map(|(t, _)| *t).collect();
                    want.sort();
                    for t in &want { model.remove(t); }
                    prop_assert_eq!(got, want);
                }
                Op::Drop { client } => {
                    let mut got: Vec<u64> = r.drop_client(&client).into_iter().map(|(t, _)| t.get()).collect();
                    got.sort();
                    let mut want: Vec<u64> = model.iter().filter(|(_, m)| m.client == client).map(|(t, _)| *t).collect();
                    want.sort();
                    for t in &want { model.remove(t); }
                    prop_assert_eq!(got, want);
                }
                Op::Drain => {
                    let n = r.drain().count();
                    prop_assert_eq!(n, model.len());
                    model.clear();
                }
                Op::Progress { pick } => {
                    if minted.is_empty() { continue; }
                    let t = minted[pick as usize % minted.len()];
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{t},"progress":1}}}}"#);
                    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else { panic!() };
                    let mut out = BytesMut::new();
                    let res = r.route_progress(frame.as_bytes(), &n, &mut out).map(|r| (r.token.get(), *r.client));
                    match model.get(&t) {
                        Some(m) if m.progress.is_some() => { prop_assert_eq!(res, Some((t, m.client))); prop_assert_eq!(out, format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{},"progress":1}}}}"#, m.progress.as_ref().unwrap()) + "\n"); }
                        _ => prop_assert_eq!(res, None),
                    }
                }
                Op::SetDeadline { pick, d } => {
                    if minted.is_empty() { continue; }
                    let t = minted[pick as usize % minted.len()];
                    let d = d.map(u64::from);
                    let ok = r.set_deadline(Token::new(t).unwrap(), d);
                    match model.get_mut(&t) { Some(m) => { prop_assert!(ok); m.deadline = d; } None => prop_assert!(!ok) }
                }
            }
            prop_assert_eq!(r.len(), model.len());
            prop_assert_eq!(r.bytes(), model.values().map(|m| m.bytes).sum::<usize>());
        }
    }
}
