//! `IdRemapper` against a model, with client ids spelled several ways for one value (`1`,
//! `1.0`, `1e0`, `10e-1`; `0` and `-0`; `"s1"`, `"\u00731"`, `"s\u0031"`) and progress tokens
//! likewise: two spellings of one id are one request of a client's (a duplicate, and the one
//! a cancellation names in any spelling it reads: a string or an integer), one client's never
//! another's, and every frame written back (a reply, a cancellation, a
//! `subscriptions/listen` stream's notification and its teardown, progress) restores the
//! client's spelling byte for byte, within a byte budget that refuses requests.
//! (`tests/remap_model.rs` drives ids spelled one way each and no listen streams; it checks
//! tasks, which this test leaves out.)

mod common;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::*;
use std::collections::HashMap;

/// One of four spellings of the id `val` (a string `"s{val}"`, or the number `val`).
fn spell(val: u8, string: bool, variant: u8) -> String {
    if string {
        match variant % 4 {
            0 => format!("\"s{val}\""),
            1 => format!("\"\\u0073{val}\""),
            2 => format!("\"s\\u003{val}\""),
            _ => format!("\"\\u0073\\u003{val}\""),
        }
    } else if val == 0 {
        ["0", "0.0", "0e0", "-0"][usize::from(variant % 4)].to_string()
    } else {
        match variant % 4 {
            0 => format!("{val}"),
            1 => format!("{val}.0"),
            2 => format!("{val}e0"),
            _ => format!("{val}0e-1"),
        }
    }
}

/// One step: a client's request, cancellation or going away, or the upstream's reply,
/// stream teardown, stream notification or progress on any token minted so far (`usize`
/// picks one), time passing, the upstream going away, a shrink.
#[derive(Debug, Clone)]
enum Op {
    Forward {
        client: u8,
        val: u8,
        string: bool,
        variant: u8,
        progress: Option<(u8, bool, u8)>,
        listen: bool,
        deadline: Option<u8>,
    },
    Reply(usize),
    Take(usize),
    Cancel {
        client: u8,
        val: u8,
        string: bool,
        variant: u8,
    },
    StreamCancel(usize),
    Subscription(usize),
    Progress(usize),
    Expire(u8),
    Drop(u8),
    Drain,
    Shrink,
}

/// Ids and progress tokens from three values in four spellings, of three clients.
fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..3, 0u8..3, any::<bool>(), 0u8..4, proptest::option::of((0u8..3, any::<bool>(), 0u8..4)), any::<bool>(), proptest::option::of(0u8..30))
            .prop_map(|(client, val, string, variant, progress, listen, deadline)| Op::Forward { client, val, string, variant, progress, listen, deadline }),
        3 => any::<usize>().prop_map(Op::Reply),
        1 => any::<usize>().prop_map(Op::Take),
        3 => (0u8..3, 0u8..3, any::<bool>(), 0u8..4).prop_map(|(client, val, string, variant)| Op::Cancel { client, val, string, variant }),
        2 => any::<usize>().prop_map(Op::StreamCancel),
        2 => any::<usize>().prop_map(Op::Subscription),
        2 => any::<usize>().prop_map(Op::Progress),
        1 => (0u8..20).prop_map(Op::Expire),
        1 => (0u8..3).prop_map(Op::Drop),
        1 => Just(Op::Drain),
        1 => Just(Op::Shrink),
    ]
}

/// A request in flight, as the model keeps it.
#[derive(Debug, Clone)]
struct Forwarded {
    client: u8,
    key: (bool, u8),
    id: String,
    progress: Option<String>,
    listen: bool,
    deadline: Option<u64>,
}

impl Forwarded {
    /// What it counts against the budget: its id and its progress token, as spelt.
    fn bytes(&self) -> usize {
        self.id.len() + self.progress.as_ref().map_or(0, String::len)
    }
}

/// The remapper's places, and its byte budget (a few requests' worth).
const CAP: usize = 6;
const MAX_BYTES: usize = 70;

/// A notification, decoded as plain JSON-RPC (which reads any number id).
fn notification(frame: &str) -> Notification<'_> {
    match Decoder::jsonrpc().decode(frame.as_bytes()) {
        Ok(Message::Notification(n)) => n,
        other => panic!("{other:?}"),
    }
}

proptest! {
    #![proptest_config(crate::common::cases(256))]
    #[test]
    fn every_spelling_of_an_id_is_one_request_restored_byte_for_byte(ops in proptest::collection::vec(op(), 1..120)) {
        let mut r: IdRemapper<u8> = IdRemapper::new(CAP).max_bytes(MAX_BYTES);
        let mut live: HashMap<u64, Forwarded> = HashMap::new();
        let mut minted: Vec<u64> = Vec::new();
        let mut now = 0u64;
        let pick = |minted: &Vec<u64>, k: usize| if minted.is_empty() { 999 } else { minted[k % minted.len()] };
        for op in ops {
            match op {
                Op::Forward { client, val, string, variant, progress, listen, deadline } => {
                    let id = spell(val, string, variant);
                    let pt = progress.map(|(v, s, var)| spell(v, s, var));
                    let method = if listen { "subscriptions/listen" } else { "tools/call" };
                    let meta = pt.as_ref().map(|p| format!(r#","params":{{"_meta":{{"progressToken":{p}}}}}"#)).unwrap_or_default();
                    let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{meta}}}"#);
                    let Ok(Message::Request(req)) = Decoder::jsonrpc().decode(frame.as_bytes()) else { panic!("{frame}") };
                    let mut out = BytesMut::new();
                    let deadline = deadline.map(|d| now + u64::from(d));
                    let got = r.forward_request(client, frame.as_bytes(), &req, deadline, &mut out);
                    let entry = Forwarded { client, key: (string, val), id: id.clone(), progress: pt.clone(), listen, deadline };
                    let dup = live.values().any(|e| e.client == client && e.key == (string, val));
                    let held: usize = live.values().map(Forwarded::bytes).sum();
                    let want = if dup { Err(RemapError::DuplicateId) }
                        else if live.len() >= CAP { Err(RemapError::Full { limit: CAP }) }
                        else if held + entry.bytes() > MAX_BYTES { Err(RemapError::OverBudget { budget: MAX_BYTES }) }
                        else { Ok(()) };
                    match (got, want) {
                        (Ok(token), Ok(())) => {
                            let t = token.get();
                            prop_assert!(!minted.contains(&t));
                            minted.push(t);
                            let mut expected = frame.replacen(&format!("\"id\":{id}"), &format!("\"id\":{t}"), 1);
                            if let Some(p) = &pt {
                                expected = expected.replacen(&format!("\"progressToken\":{p}"), &format!("\"progressToken\":{t}"), 1);
                            }
                            prop_assert_eq!(std::str::from_utf8(&out).unwrap(), format!("{expected}\n"));
                            live.insert(t, entry);
                        }
                        (Err(e), Err(w)) => { prop_assert_eq!(e, w); prop_assert!(out.is_empty()); }
                        other => prop_assert!(false, "{:?} for {}", other, frame),
                    }
                }
                Op::Reply(k) | Op::Take(k) => {
                    let t = pick(&minted, k);
                    let reply = format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{}}}}"#);
                    let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
                    let mut out = BytesMut::new();
                    let got = if let Op::Reply(_) = op { r.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut out) } else { r.take(msg.id().unwrap()) };
                    match live.remove(&t) {
                        Some(e) => {
                            let origin = got.unwrap();
                            prop_assert_eq!(origin.client, e.client);
                            prop_assert_eq!(origin.id.as_id().raw(), e.id.as_bytes());
                            if let Op::Reply(_) = op {
                                prop_assert_eq!(std::str::from_utf8(&out).unwrap(), format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{}}}}\n", e.id));
                            }
                        }
                        None if minted.contains(&t) => prop_assert_eq!(got.map(|_| ()), Err(Miss::Stale)),
                        None => prop_assert_eq!(got.map(|_| ()), Err(Miss::Unknown)),
                    }
                }
                Op::Cancel { client, val, string, variant } => {
                    let id = spell(val, string, variant);
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#);
                    let n = notification(&frame);
                    let mut out = BytesMut::new();
                    let got = r.forward_cancel(&client, frame.as_bytes(), &n, &mut out);
                    // A `requestId` is read as a string or an integer (`-0` is one), never as
                    // `1.0` or `1e0`: such a cancellation names nothing.
                    let readable = string || variant % 4 == 0 || (val == 0 && variant % 4 == 3);
                    let found = live.iter().find(|(_, e)| e.client == client && e.key == (string, val)).map(|(t, _)| *t);
                    match (got, found.filter(|_| readable)) {
                        (Some((token, origin)), Some(t)) => {
                            prop_assert_eq!(token.get(), t);
                            let e = live.remove(&t).unwrap();
                            prop_assert_eq!(origin.id.as_id().raw(), e.id.as_bytes());
                            prop_assert_eq!(std::str::from_utf8(&out).unwrap(), format!("{}\n", frame.replacen(&format!(":{id}}}"), &format!(":{t}}}"), 1)));
                        }
                        (None, None) => prop_assert!(out.is_empty()),
                        other => prop_assert!(false, "{:?} {}", other, frame),
                    }
                }
                Op::StreamCancel(k) => {
                    let t = pick(&minted, k);
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{t},"reason":"x"}}}}"#);
                    let n = notification(&frame);
                    let mut out = BytesMut::new();
                    let got = r.route_stream_cancel(frame.as_bytes(), &n, &mut out);
                    match live.get(&t) {
                        Some(e) if e.listen => {
                            let e = live.remove(&t).unwrap();
                            let StreamCancel::Routed(origin) = got else { panic!("{got:?}") };
                            prop_assert_eq!(origin.id.as_id().raw(), e.id.as_bytes());
                            prop_assert_eq!(std::str::from_utf8(&out).unwrap(), format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{},\"reason\":\"x\"}}}}\n", e.id));
                        }
                        Some(_) => prop_assert_eq!(got, StreamCancel::NotAStream),
                        None if minted.contains(&t) => prop_assert_eq!(got, StreamCancel::Miss(Miss::Stale)),
                        None => prop_assert_eq!(got, StreamCancel::Miss(Miss::Unknown)),
                    }
                }
                Op::Subscription(k) => {
                    let t = pick(&minted, k);
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{t}}}}}}}"#);
                    let n = notification(&frame);
                    let mut out = BytesMut::new();
                    let got = r.route_subscription(frame.as_bytes(), &n, &mut out).map(|o| (o.client, o.id.clone()));
                    match live.get(&t) {
                        Some(e) => {
                            let (c, id) = got.unwrap();
                            prop_assert_eq!(c, e.client);
                            prop_assert_eq!(id.as_id().raw(), e.id.as_bytes());
                            prop_assert_eq!(std::str::from_utf8(&out).unwrap(), format!("{}\n", frame.replacen(&format!(":{t}}}"), &format!(":{}}}", e.id), 1)));
                        }
                        None => { prop_assert!(got.is_none()); prop_assert!(out.is_empty()); }
                    }
                }
                Op::Progress(k) => {
                    let t = pick(&minted, k);
                    let frame = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{t},"progress":1}}}}"#);
                    let n = notification(&frame);
                    let mut out = BytesMut::new();
                    let got = r.route_progress(frame.as_bytes(), &n, &mut out).map(|p| (p.token.get(), *p.client));
                    match live.get(&t).and_then(|e| Some((e, e.progress.as_ref()?))) {
                        Some((e, p)) => {
                            prop_assert_eq!(got, Some((t, e.client)));
                            prop_assert_eq!(std::str::from_utf8(&out).unwrap(), format!("{}\n", frame.replacen(&format!(":{t},"), &format!(":{p},"), 1)));
                        }
                        None => { prop_assert!(got.is_none()); prop_assert!(out.is_empty()); }
                    }
                }
                Op::Expire(by) => {
                    now += u64::from(by);
                    let mut got: Vec<u64> = r.expire(now).map(|(t, _)| t.get()).collect();
                    got.sort();
                    let mut want: Vec<u64> = live.iter().filter(|(_, e)| e.deadline.is_some_and(|d| d <= now)).map(|(t, _)| *t).collect();
                    want.sort();
                    for t in &want { live.remove(t); }
                    prop_assert_eq!(got, want);
                }
                Op::Drop(client) => {
                    let mut got: Vec<u64> = r.drop_client(&client).into_iter().map(|(t, _)| t.get()).collect();
                    got.sort();
                    let mut want: Vec<u64> = live.iter().filter(|(_, e)| e.client == client).map(|(t, _)| *t).collect();
                    want.sort();
                    for t in &want { live.remove(t); }
                    prop_assert_eq!(got, want);
                }
                Op::Drain => {
                    let mut got: Vec<u64> = r.drain().map(|(t, _)| t.get()).collect();
                    got.sort();
                    let mut want: Vec<u64> = live.keys().copied().collect();
                    want.sort();
                    live.clear();
                    prop_assert_eq!(got, want);
                }
                Op::Shrink => r.shrink_to_fit(),
            }
            prop_assert_eq!(r.len(), live.len());
            prop_assert_eq!(r.bytes(), live.values().map(Forwarded::bytes).sum::<usize>());
            for c in 0..3u8 {
                prop_assert_eq!(r.client_len(&c), live.values().filter(|e| e.client == c).count());
            }
            for (t, e) in &live {
                let id = Id::from_token(e.id.as_bytes()).unwrap();
                prop_assert_eq!(r.get(&e.client, id).map(|(tok, _)| tok.get()), Some(*t));
            }
        }
    }
}
