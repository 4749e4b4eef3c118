//! Remove + insert on a table with 1 k and 100 k requests in flight, completed in random
//! order: `PendingTable` against `HashMap<u64, _>` with SipHash, ahash and foldhash.
//!
//! Each iteration completes one in-flight request and sends a new one in its place, as a
//! client with a steady number of requests in flight does. The order of completion is
//! shuffled once up front: the in-flight ids are kept in a vector in shuffled order, and the
//! iterations walk that vector round and round, so the table sees a random order while the
//! harness itself reads memory sequentially (a second random access per iteration would
//! measure the harness as much as the table). The hash maps key by a counter, the way a
//! client mints JSON-RPC ids.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rpcwire::pending::{PendingTable, Token};

mod common;
use common::shuffle;

const IN_FLIGHT: [usize; 2] = [1_000, 100_000];

fn pending_table(c: &mut Criterion, group_name: &str, deadline: bool) {
    let mut group = c.benchmark_group(group_name);
    group.throughput(Throughput::Elements(1));
    for n in IN_FLIGHT {
        let mut table = PendingTable::with_capacity_limit(n);
        let mut in_flight: Vec<Token> = (0..n as u64)
            .map(|v| {
                if deadline {
                    table.insert_with_deadline(v, v + 1_000_000)
                } else {
                    table.insert(v)
                }
                .unwrap()
            })
            .collect();
        shuffle(&mut in_flight);
        let mut position = 0usize;
        let mut step = 0u64;
        let name = if deadline {
            "PendingTable_deadline"
        } else {
            "PendingTable"
        };
        group.bench_function(BenchmarkId::new(name, n), |b| {
            b.iter(|| {
                let token = in_flight[position];
                let value = table.remove(black_box(token)).unwrap();
                step += 1;
                in_flight[position] = if deadline {
                    table.insert_with_deadline(value + 1, step + 1_000_000)
                } else {
                    table.insert(value + 1)
                }
                .unwrap();
                position += 1;
                if position == n {
                    position = 0;
                }
            })
        });
        assert_eq!(table.len(), n);
    }
    group.finish();
}

fn hash_map<S: BuildHasher>(c: &mut Criterion, name: &str, hasher: impl Fn() -> S) {
    let mut group = c.benchmark_group("pending/remove_insert");
    group.throughput(Throughput::Elements(1));
    for n in IN_FLIGHT {
        let mut map: HashMap<u64, u64, S> = HashMap::with_capacity_and_hasher(n, hasher());
        let mut in_flight: Vec<u64> = (0..n as u64).collect();
        for &id in &in_flight {
            map.insert(id, id);
        }
        shuffle(&mut in_flight);
        let mut next_id = n as u64;
        let mut position = 0usize;
        group.bench_function(BenchmarkId::new(name, n), |b| {
            b.iter(|| {
                let id = in_flight[position];
                let value = map.remove(&black_box(id)).unwrap();
                let new_id = next_id;
                next_id += 1;
                map.insert(new_id, value + 1);
                in_flight[position] = new_id;
                position += 1;
                if position == n {
                    position = 0;
                }
            })
        });
        assert_eq!(map.len(), n);
    }
    group.finish();
}

/// The fixed seeds of the fast hashers.
const SEEDS: [u64; 5] = [1, 2, 3, 0x9e37_79b9_7f4a_7c15, 0xdead_beef];

fn benches(c: &mut Criterion) {
    pending_table(c, "pending/remove_insert", false);
    hash_map(
        c,
        "HashMap_SipHash",
        std::collections::hash_map::RandomState::new,
    );
    // The fast hashers are seeded at random per map, and on these keys (the sequential ids a
    // client mints) their speed depends on the seed (foldhash from ~10 to ~60 ns at 1 k in
    // flight): each runs under the same fixed seeds, so that runs compare, and the table
    // reports their range.
    for seed in SEEDS {
        hash_map(c, &format!("HashMap_ahash_seed{seed}"), || {
            ahash::RandomState::with_seeds(seed, seed ^ 0x5555, seed ^ 0xaaaa, seed ^ 0xffff)
        });
        hash_map(c, &format!("HashMap_foldhash_seed{seed}"), || {
            foldhash::fast::FixedState::with_seed(seed)
        });
    }
    pending_table(c, "pending/remove_insert_deadline", true);
}

criterion_group!(pending, benches);
criterion_main!(pending);
