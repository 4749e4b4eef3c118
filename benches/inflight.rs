//! Insert + remove on `InFlight`, the table of the requests a peer has in flight (what a proxy
//! or server keeps per request it has not answered yet), with 1 k and 100 k in flight, for
//! integer ids and for UUID string ids; against a `HashMap` keyed by a boxed copy of the id's
//! token (foldhash), the table one would write by hand, which allocates for every request
//! and matches ids by spelling only (`1` and `1.0`, `"a"` and `"\u0061"`, are two ids there).
//!
//! Each iteration removes one request, in an order shuffled once up front (as in
//! `benches/pending.rs`), and registers a new one in its place. The ids are tokens made up
//! front, twice as many as are in flight, taken in turn: each stays in flight for `n`
//! iterations, so none is in flight twice.
//!
//! The same for `IdRemapper`, a gateway's table of its clients' requests under its own
//! tokens: each iteration routes the upstream's reply to one request (written for its client
//! under the client's id) and forwards a new request of the same client (written for the
//! upstream under a new token), eight clients sharing the requests in flight.

use std::collections::HashMap;
use std::hint::black_box;

use bytes::BytesMut;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rpcwire::{Decoder, Id, IdRemapper, InFlight, Message, Request};

mod common;
use common::{shuffle, splitmix};

const IN_FLIGHT: [usize; 2] = [1_000, 100_000];

/// `count` id tokens of one kind: the integers from 1, or random version-4 UUID strings.
fn tokens(count: usize, uuid: bool) -> Vec<String> {
    let mut state = 0x1d5;
    (1..=count)
        .map(|i| {
            if !uuid {
                return i.to_string();
            }
            let (a, b) = (splitmix(&mut state), splitmix(&mut state));
            format!(
                "\"{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}\"",
                a >> 32,
                (a >> 16) & 0xffff,
                a & 0xfff,
                0x8000 | (b >> 48) & 0x3fff,
                b & 0xffff_ffff_ffff
            )
        })
        .collect()
}

/// The positions `0..n`, shuffled.
fn shuffled(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    shuffle(&mut order);
    order
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("inflight/insert_remove");
    group.throughput(Throughput::Elements(1));
    for (kind, uuid) in [("integer", false), ("uuid", true)] {
        for n in IN_FLIGHT {
            let pool = tokens(2 * n, uuid);
            let ids: Vec<Id<'_>> = pool
                .iter()
                .map(|t| Id::from_token(t.as_bytes()).unwrap())
                .collect();
            let order = shuffled(n);

            let mut table = InFlight::new(n);
            // `slot[i]`: the index in `ids` of the id in flight at position `i`.
            let mut slot: Vec<usize> = (0..n).collect();
            for &i in &slot {
                table.insert(ids[i], i).unwrap();
            }
            let (mut step, mut next) = (0usize, n);
            group.bench_function(BenchmarkId::new(format!("InFlight_{kind}"), n), |b| {
                b.iter(|| {
                    let at = order[step];
                    let (_, value) = table.remove(black_box(ids[slot[at]])).unwrap();
                    table.insert(black_box(ids[next]), value).unwrap();
                    slot[at] = next;
                    next = if next + 1 == ids.len() { 0 } else { next + 1 };
                    step = if step + 1 == n { 0 } else { step + 1 };
                })
            });
            assert_eq!(table.len(), n);

            let mut map: HashMap<Box<[u8]>, usize, foldhash::quality::RandomState> =
                HashMap::with_capacity_and_hasher(n, Default::default());
            let mut slot: Vec<usize> = (0..n).collect();
            for &i in &slot {
                map.insert(ids[i].raw().into(), i);
            }
            let (mut step, mut next) = (0usize, n);
            group.bench_function(BenchmarkId::new(format!("HashMap_token_{kind}"), n), |b| {
                b.iter(|| {
                    let at = order[step];
                    let value = map.remove(black_box(ids[slot[at]]).raw()).unwrap();
                    map.insert(black_box(ids[next]).raw().into(), value);
                    slot[at] = next;
                    next = if next + 1 == ids.len() { 0 } else { next + 1 };
                    step = if step + 1 == n { 0 } else { step + 1 };
                })
            });
            assert_eq!(map.len(), n);
        }
    }
    group.finish();
}

/// Route a reply + forward a request on an `IdRemapper` holding `n` requests of eight clients.
fn remap_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("remap/reply_forward");
    group.throughput(Throughput::Elements(1));
    let n = 1_000;
    for (kind, uuid) in [("integer", false), ("uuid", true)] {
        let frames: Vec<String> = tokens(2 * n, uuid)
            .iter()
            .map(|id| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x"}}}}"#
                )
            })
            .collect();
        let decoder = Decoder::mcp();
        let requests: Vec<Request<'_>> = frames
            .iter()
            .map(|f| match decoder.decode(f.as_bytes()) {
                Ok(Message::Request(req)) => req,
                other => panic!("a request: {other:?}"),
            })
            .collect();
        let client = |i: usize| (i % 8) as u32;
        let order = shuffled(n);
        let mut remap: IdRemapper<u32> = IdRemapper::new(2 * n);
        let (mut up, mut down) = (
            BytesMut::with_capacity(1 << 16),
            BytesMut::with_capacity(1 << 16),
        );
        // `slot[i]`: the index in `requests` of the request in flight at position `i`, and
        // its token.
        let mut slot: Vec<(usize, rpcwire::Token)> = (0..n)
            .map(|i| {
                let token = remap
                    .forward_request(client(i), frames[i].as_bytes(), &requests[i], None, &mut up)
                    .unwrap();
                (i, token)
            })
            .collect();
        let mut reply = Vec::with_capacity(64);
        let (mut step, mut next) = (0usize, n);
        group.bench_function(BenchmarkId::new(format!("IdRemapper_{kind}"), n), |b| {
            b.iter(|| {
                if up.len() > 1 << 15 {
                    up.clear();
                    down.clear();
                }
                let at = order[step];
                let (answered, token) = slot[at];
                reply.clear();
                reply.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
                let id_at = reply.len();
                reply.extend_from_slice(token.to_wire(&mut [0; 20]));
                let id_end = reply.len();
                reply.extend_from_slice(br#","result":{}}"#);
                let id = Id::from_token(&reply[id_at..id_end]).unwrap();
                let origin = remap.route_reply(&reply, black_box(id), &mut down).unwrap();
                assert_eq!(origin.client, client(answered));
                let token = remap
                    .forward_request(
                        client(next),
                        frames[next].as_bytes(),
                        black_box(&requests[next]),
                        None,
                        &mut up,
                    )
                    .unwrap();
                slot[at] = (next, token);
                next = if next + 1 == requests.len() {
                    0
                } else {
                    next + 1
                };
                step = if step + 1 == n { 0 } else { step + 1 };
            })
        });
        assert_eq!(remap.len(), n);
    }
    group.finish();
}

criterion_group!(inflight, benches, remap_benches);
criterion_main!(inflight);
