//! `PendingTable` against a `HashMap` model (proptest), and a soak test of a request stream
//! with timeouts and late replies.

mod common;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use proptest::prelude::*;
use rpcwire::pending::{Miss, PendingTable, TableFull, Token};

fn wire(token: u64) -> Vec<u8> {
    let mut buf = [0u8; 20];
    Token::new(token).unwrap().to_wire(&mut buf).to_vec()
}

/// The canonical-integer rule, written independently of `Token::from_wire`.
fn reference_parse(raw: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(raw).ok()?;
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    let value: u64 = text.parse().ok().filter(|_| canonical)?;
    (value < 1 << 53).then_some(value)
}

#[derive(Debug, Clone)]
enum Op {
    Insert,
    /// Deadline `now + delta`, clamped at 0 (negative: already past).
    InsertWithDeadline(i64),
    /// Deadline `now + 2^shift`.
    InsertFarDeadline(u32),
    VacantCommit(Option<i64>),
    VacantDrop,
    /// `complete_wire` with the wire bytes of the k-th live token.
    Reply(usize),
    /// `remove` of the k-th live token.
    Remove(usize),
    /// `complete_wire` with a retired token.
    StaleReply(usize),
    /// `complete_wire` with the decimal form of a number (may hit live or retired tokens).
    NumberReply(u64),
    /// `complete_wire` with arbitrary bytes.
    BytesReply(Vec<u8>),
    Cancel(usize),
    CancelRetired(usize),
    Get(usize),
    /// `set_deadline` of the k-th live token: `now + delta`, or none.
    SetDeadline(usize, Option<i64>),
    /// `set_deadline` of a retired token.
    SetDeadlineRetired(usize),
    Expire(u64),
    Drain,
    /// `shrink_to(min)`, or `shrink_to_fit` for `None`.
    Shrink(Option<usize>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => Just(Op::Insert),
        8 => (-20i64..200).prop_map(Op::InsertWithDeadline),
        1 => (8u32..64).prop_map(Op::InsertFarDeadline),
        2 => proptest::option::of(-5i64..100).prop_map(Op::VacantCommit),
        1 => Just(Op::VacantDrop),
        8 => any::<usize>().prop_map(Op::Reply),
        2 => any::<usize>().prop_map(Op::Remove),
        4 => any::<usize>().prop_map(Op::StaleReply),
        2 => (0u64..5_000).prop_map(Op::NumberReply),
        1 => (0u64..1 << 54).prop_map(Op::NumberReply),
        1 => proptest::collection::vec(any::<u8>(), 0..20).prop_map(Op::BytesReply),
        1 => "-?[0-9]{0,17}(\\.[0-9])?(e[0-9])?".prop_map(|s| Op::BytesReply(s.into_bytes())),
        2 => any::<usize>().prop_map(Op::Cancel),
        1 => any::<usize>().prop_map(Op::CancelRetired),
        2 => any::<usize>().prop_map(Op::Get),
        3 => (any::<usize>(), proptest::option::of(-5i64..100))
            .prop_map(|(k, d)| Op::SetDeadline(k, d)),
        1 => any::<usize>().prop_map(Op::SetDeadlineRetired),
        4 => prop_oneof![9 => 0u64..60, 1 => 0u64..1 << 40].prop_map(Op::Expire),
        1 => Just(Op::Drain),
    ]
}

/// `op()` with a shrink now and then: `table_matches_hashmap_model_across_shrinks`.
fn op_or_shrink() -> impl Strategy<Value = Op> {
    prop_oneof![
        30 => op(),
        1 => proptest::option::of(0usize..100).prop_map(Op::Shrink),
    ]
}

/// The reference: live tokens with their value and deadline, and every token we minted and
/// then retired.
#[derive(Default)]
struct Model {
    live: BTreeMap<u64, (u64, Option<u64>)>,
    retired: BTreeSet<u64>,
    now: u64,
    next_value: u64,
    /// `index_bits` of the table's tokens, as documented (`PendingTable#tokens`): one more
    /// than the bits needed to write the capacity limit.
    index_bits: u32,
    /// What tells a token never minted `Stale` from `Unknown` (`PendingTable::shrink_to`):
    /// the latest generation minted at each slot index (`index + 1`, the token's low bits),
    /// the slab's length, and, once a shrink cut slots off, the generation slots added again
    /// start at and the longest the slab was when one was cut.
    latest: BTreeMap<u64, u64>,
    slab: u64,
    restart: u64,
    shrunk_from: u64,
}

impl Model {
    fn new(limit: usize) -> Self {
        Model {
            index_bits: usize::BITS - limit.leading_zeros() + 1,
            ..Model::default()
        }
    }

    fn expected(&self, token: u64) -> Result<u64, Miss> {
        match self.live.get(&token) {
            Some(&(value, _)) => Ok(value),
            None if self.retired.contains(&token) => Err(Miss::Stale),
            None => Err(self.never_minted(token)),
        }
    }

    /// A token's slot index plus one (its low bits), and its generation.
    fn split(&self, token: u64) -> (u64, u64) {
        (
            token & ((1 << self.index_bits) - 1),
            token >> self.index_bits,
        )
    }

    fn note_minted(&mut self, token: u64) {
        let (index, generation) = self.split(token);
        self.latest.insert(index, generation);
        self.slab = self.slab.max(index);
    }

    /// A shrink: cuts the free slots at the slab's end in the lower half of their
    /// generations, whose indexes start again past every generation minted there.
    fn shrink(&mut self) {
        let (old, half) = (self.slab, 1 << (52 - self.index_bits));
        while self.slab > 0 {
            let next = self.latest[&self.slab] + 1;
            let live = self.live.keys().any(|&t| self.split(t).0 == self.slab);
            if live || next >= half {
                break;
            }
            self.restart = self.restart.max(next);
            self.slab -= 1;
        }
        if self.slab < old {
            self.shrunk_from = self.shrunk_from.max(old);
        }
    }

    /// How a token never minted misses, as `shrink_to` documents: at a slot in the slab,
    /// `Stale` below its latest generation (the ones a slot added after a shrink skipped),
    /// `Unknown` above; past the slab's end, `Stale` below the restart generation at an index
    /// a shrink cut off (or past the slab's end then), `Unknown` otherwise: a future
    /// generation stays unknown.
    fn never_minted(&self, token: u64) -> Miss {
        let (index, generation) = self.split(token);
        let stale = if index == 0 {
            false
        } else if index <= self.slab {
            generation < self.latest[&index]
        } else {
            index <= self.shrunk_from && generation < self.restart
        };
        if stale { Miss::Stale } else { Miss::Unknown }
    }

    fn kth_live(&self, k: usize) -> Option<u64> {
        let n = self.live.len();
        (n > 0).then(|| *self.live.keys().nth(k % n).unwrap())
    }

    fn kth_retired(&self, k: usize) -> Option<u64> {
        let n = self.retired.len();
        (n > 0).then(|| *self.retired.iter().nth(k % n).unwrap())
    }

    fn retire(&mut self, token: u64) -> u64 {
        let (value, _) = self.live.remove(&token).unwrap();
        assert!(self.retired.insert(token));
        value
    }

    fn deadline(&self, delta: i64) -> u64 {
        self.now.saturating_add_signed(delta)
    }
}

/// Applies a reply/remove outcome to the model after checking it; `Ok` must be exactly the
/// live entry of that token: a stale token never reaches a newer request.
fn check_lookup(model: &mut Model, token: Option<u64>, got: Result<u64, Miss>) {
    let expected = token.map_or(Err(Miss::Unknown), |t| model.expected(t));
    assert_eq!(got, expected, "token {token:?}");
    if let (Ok(_), Some(t)) = (got, token) {
        model.retire(t);
    }
}

fn run(limit: usize, ops: Vec<Op>) {
    let mut table = PendingTable::with_capacity_limit(limit);
    let mut model = Model::new(limit);

    let minted = |model: &mut Model, token: Token, deadline: Option<u64>| {
        let t = token.get();
        assert_eq!(u64::from(token), t);
        assert!(t > 0 && t <= Token::MAX.get());
        assert!(!model.live.contains_key(&t), "live token {t} minted again");
        assert!(
            !model.retired.contains(&t),
            "retired token {t} minted again"
        );
        model.live.insert(t, (model.next_value, deadline));
        model.note_minted(t);
    };

    for op in ops {
        let value = model.next_value;
        match op {
            Op::Insert | Op::InsertWithDeadline(_) | Op::InsertFarDeadline(_) => {
                let deadline = match op {
                    Op::InsertWithDeadline(delta) => Some(model.deadline(delta)),
                    Op::InsertFarDeadline(shift) => Some(model.now.saturating_add(1 << shift)),
                    _ => None,
                };
                let got = match deadline {
                    Some(d) => table.insert_with_deadline(value, d),
                    None => table.insert(value),
                };
                if model.live.len() == limit {
                    assert_eq!(got, Err(TableFull { value, limit }));
                } else {
                    minted(&mut model, got.unwrap(), deadline);
                }
            }
            Op::VacantCommit(delta) => match table.vacant_entry() {
                Err(full) => assert_eq!((full.limit, model.live.len()), (limit, limit)),
                Ok(entry) => {
                    let token = entry.token();
                    let deadline = delta.map(|d| model.deadline(d));
                    let committed = match deadline {
                        Some(d) => entry.insert_with_deadline(value, d),
                        None => entry.insert(value),
                    };
                    assert_eq!(committed, token);
                    minted(&mut model, token, deadline);
                }
            },
            Op::VacantDrop => {
                let len = table.len();
                let first = table.vacant_entry().map(|e| e.token());
                assert_eq!(table.len(), len);
                let second = table.vacant_entry().map(|e| e.token());
                assert_eq!(first, second, "a dropped entry reserves nothing");
                if let Ok(token) = first {
                    assert_eq!(model.expected(token.get()), Err(Miss::Unknown));
                }
            }
            Op::Reply(k) => {
                let token = model.kth_live(k);
                let got = match token {
                    Some(t) => table.complete_wire(&wire(t)),
                    None => table.complete_wire(b"1"),
                };
                let token = token.or(Some(1));
                check_lookup(&mut model, token, got);
            }
            Op::Remove(k) => {
                if let Some(t) = model.kth_live(k) {
                    let got = table.remove(Token::new(t).unwrap());
                    check_lookup(&mut model, Some(t), got);
                }
            }
            Op::StaleReply(k) => {
                if let Some(t) = model.kth_retired(k) {
                    assert_eq!(table.complete_wire(&wire(t)), Err(Miss::Stale));
                    let token = Token::new(t).unwrap();
                    assert_eq!(table.get(token), None);
                    assert!(!table.contains(token));
                }
            }
            Op::NumberReply(n) => {
                let got = table.complete_wire(n.to_string().as_bytes());
                check_lookup(&mut model, (n < 1 << 53).then_some(n), got);
            }
            Op::BytesReply(bytes) => {
                let parsed = reference_parse(&bytes);
                assert_eq!(Token::from_wire(&bytes).map(Token::get), parsed);
                let got = table.complete_wire(&bytes);
                check_lookup(&mut model, parsed, got);
            }
            Op::Cancel(k) => {
                if let Some(t) = model.kth_live(k) {
                    let got = table.cancel(Token::new(t).unwrap());
                    assert_eq!(got, Some(model.retire(t)));
                }
            }
            Op::CancelRetired(k) => {
                if let Some(t) = model.kth_retired(k) {
                    assert_eq!(table.cancel(Token::new(t).unwrap()), None);
                }
            }
            Op::Get(k) => {
                if let Some(t) = model.kth_live(k) {
                    let token = Token::new(t).unwrap();
                    assert_eq!(table.get(token), Some(&model.live[&t].0));
                    *table.get_mut(token).unwrap() += 0;
                    assert!(table.contains(token));
                }
            }
            Op::SetDeadline(k, delta) => {
                if let Some(t) = model.kth_live(k) {
                    let deadline = delta.map(|d| model.deadline(d));
                    assert!(table.set_deadline(Token::new(t).unwrap(), deadline));
                    model.live.get_mut(&t).unwrap().1 = deadline;
                }
            }
            Op::SetDeadlineRetired(k) => {
                if let Some(t) = model.kth_retired(k) {
                    assert!(!table.set_deadline(Token::new(t).unwrap(), Some(0)));
                }
            }
            Op::Expire(advance) => {
                model.now = model.now.saturating_add(advance);
                let now = model.now;
                let mut got: Vec<(u64, u64)> =
                    table.expire(now).map(|(t, v)| (t.get(), v)).collect();
                got.sort_unstable();
                let due: Vec<u64> = model
                    .live
                    .iter()
                    .filter(|(_, (_, d))| d.is_some_and(|d| d <= now))
                    .map(|(&t, _)| t)
                    .collect();
                let expected: Vec<(u64, u64)> =
                    due.into_iter().map(|t| (t, model.retire(t))).collect();
                assert_eq!(got, expected, "expire({now})");
            }
            Op::Drain => {
                let mut got: Vec<(u64, u64)> = table.drain().map(|(t, v)| (t.get(), v)).collect();
                got.sort_unstable();
                let tokens: Vec<u64> = model.live.keys().copied().collect();
                let expected: Vec<(u64, u64)> =
                    tokens.into_iter().map(|t| (t, model.retire(t))).collect();
                assert_eq!(got, expected);
            }
            Op::Shrink(min) => {
                let before = table.capacity();
                match min {
                    Some(min) => table.shrink_to(min),
                    None => table.shrink_to_fit(),
                }
                model.shrink();
                assert_eq!(table.debug_footprint().slots as u64, model.slab);
                // Tokens around the restart generation at every index up to one past the
                // longest slab: those never minted miss as the model says (`Stale` below the
                // restart generation at an index cut off, `Unknown` from it on).
                let restart = model.restart;
                let longest = model.slab.max(model.shrunk_from);
                let past = (longest + 1).min((1 << model.index_bits) - 1);
                for index in 1..=past {
                    for generation in [0, restart.saturating_sub(1), restart, restart + 1] {
                        let t = generation << model.index_bits | index;
                        if let Err(miss) = model.expected(t) {
                            assert_eq!(table.remove(Token::new(t).unwrap()), Err(miss), "{t}");
                        }
                    }
                }
                // As `Vec::shrink_to`: down to `min` at most, never up.
                let floor = min.unwrap_or(0).min(before).max(table.len());
                assert!((floor..=before).contains(&table.capacity()));
                // Every request in flight is still found, with its deadline (`next_wakeup`
                // and `scheduled` are checked below, `expire` by the next ops).
                for (&t, &(value, deadline)) in &model.live {
                    let token = Token::new(t).unwrap();
                    assert_eq!(table.get(token), Some(&value));
                    assert_eq!(table.has_deadline(token), Some(deadline.is_some()));
                }
                for &t in &model.retired {
                    assert_eq!(table.remove(Token::new(t).unwrap()), Err(Miss::Stale));
                }
            }
        }
        model.next_value += 1;

        assert_eq!(table.len(), model.live.len());
        assert_eq!(table.is_empty(), model.live.is_empty());
        // `iter` yields every request in flight once, with its token, and knows how many.
        let listed = table.iter();
        assert_eq!(listed.len(), model.live.len());
        let mut listed: Vec<(u64, u64)> = listed.map(|(t, &v)| (t.get(), v)).collect();
        listed.sort_unstable();
        let live: Vec<(u64, u64)> = model.live.iter().map(|(&t, &(v, _))| (t, v)).collect();
        assert_eq!(listed, live);
        // `next_wakeup` is a lower bound of the earliest deadline, and present iff one is.
        let earliest = model.live.values().filter_map(|&(_, d)| d).min();
        match (table.next_wakeup(), earliest) {
            (None, None) => {}
            (Some(wakeup), Some(deadline)) => assert!(wakeup <= deadline.max(model.now)),
            other => panic!("next_wakeup vs earliest deadline: {other:?}"),
        }
        assert_eq!(
            table.debug_footprint().scheduled,
            model.live.values().filter(|(_, d)| d.is_some()).count()
        );
    }

    let drained = table.drain().count();
    assert_eq!(drained, model.live.len());
    assert_eq!(table.len(), 0);
    assert_eq!(table.debug_footprint().scheduled, 0);
    for &t in model.live.keys().chain(&model.retired) {
        assert!(!table.contains(Token::new(t).unwrap()));
        assert_eq!(table.complete_wire(&wire(t)), Err(Miss::Stale));
    }
}

proptest! {
    #![proptest_config(crate::common::cases(256))]

    #[test]
    fn table_matches_hashmap_model(
        limit in prop_oneof![1usize..8, 8usize..80, Just(PendingTable::<u64>::DEFAULT_CAPACITY_LIMIT)],
        ops in proptest::collection::vec(op(), 0..300),
    ) {
        run(limit, ops);
    }

    /// The same, with shrinks among the operations: a shrink loses no request in flight, and
    /// no token minted before it is minted again after it.
    #[test]
    fn table_matches_hashmap_model_across_shrinks(
        limit in prop_oneof![1usize..8, 8usize..80, Just(PendingTable::<u64>::DEFAULT_CAPACITY_LIMIT)],
        ops in proptest::collection::vec(op_or_shrink(), 0..300),
    ) {
        run(limit, ops);
    }
}

/// `Token::from_id` reads an id as `from_wire` reads its wire token: the integers we mint
/// and nothing else (a string of the same digits, `1.0`, a negative, one past `Token::MAX`).
#[test]
fn token_from_id_takes_the_canonical_integers_alone() {
    use rpcwire::Id;
    let id = |raw: &'static [u8]| Id::from_token(raw).unwrap();
    assert_eq!(Token::from_id(id(b"262145")), Token::new(262145));
    assert_eq!(Token::from_id(id(b"0")), Token::new(0));
    assert_eq!(Token::from_id(id(b"9007199254740991")), Some(Token::MAX));
    for raw in [
        &b"\"262145\""[..],
        b"1.0",
        b"-1",
        b"1e3",
        b"9007199254740992",
        b"null",
    ] {
        assert_eq!(
            Token::from_id(id(raw)),
            None,
            "{}",
            String::from_utf8_lossy(raw)
        );
    }
    let mut table = PendingTable::new();
    let token = table.insert("tools/call").unwrap();
    assert_eq!(Token::from_id(token.to_id(&mut [0; 20])), Some(token));
}

/// The errors print without the value: a full table's `TableFull` debug-prints as
/// `TableFull { limit: N, .. }` whatever the request type (one without `Debug` too, so
/// `unwrap` works on any table), and displays what happened and the table's limit; each
/// `Miss` displays its own reason.
#[test]
fn errors_print_their_reason_without_the_value() {
    struct Opaque;
    let mut table = PendingTable::with_capacity_limit(0);
    let full = table.insert(Opaque).unwrap_err();
    assert_eq!(format!("{full:?}"), "TableFull { limit: 0, .. }");
    assert_eq!(full.to_string(), "pending table is full: its limit is 0");
    let mut table = PendingTable::with_capacity_limit(5);
    for i in 0..5 {
        table
            .insert(Opaque)
            .unwrap_or_else(|_| panic!("room for request {i}"));
    }
    let full = table.insert(Opaque).unwrap_err();
    assert_eq!(full.limit, 5);
    assert_eq!(format!("{full:?}"), "TableFull { limit: 5, .. }");
    assert_eq!(full.to_string(), "pending table is full: its limit is 5");
    let full = table.vacant_entry().unwrap_err();
    assert_eq!(full.to_string(), "pending table is full: its limit is 5");
    let mut reply = bytes::BytesMut::new();
    full.write_reply(&mut reply, rpcwire::Id::from_token(b"1").unwrap());
    assert_eq!(
        &reply[..],
        &br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"pending table is full"}}
"#[..],
        "the reply's message leaves the limit out"
    );
    assert_eq!(
        Miss::Unknown.to_string(),
        "reply to an id that was never sent"
    );
    assert_eq!(
        Miss::Stale.to_string(),
        "reply to a request no longer in flight"
    );
}

/// After a burst is answered, `shrink_to_fit` gives the slab's memory back: the capacity goes
/// down to the slots up to the last request in flight, which is still found; the burst's
/// tokens stay stale, and none is minted again as the table grows back.
#[test]
fn shrink_to_fit_gives_back_what_a_burst_left() {
    let mut table = PendingTable::new();
    let first = table.insert_with_deadline(u64::MAX, 50).unwrap();
    let burst: Vec<Token> = (0..10_000).map(|i| table.insert(i).unwrap()).collect();
    let last = table.insert(u64::MAX - 1).unwrap();
    for (i, &token) in burst.iter().enumerate() {
        assert_eq!(table.remove(token), Ok(i as u64));
    }
    // The last request pins the slab's end: nothing to cut off yet.
    let peak = table.capacity();
    table.shrink_to_fit();
    assert!(table.capacity() >= 10_002);
    assert_eq!(table.remove(last), Ok(u64::MAX - 1));
    table.shrink_to_fit();
    assert!(
        table.capacity() < peak / 100,
        "{} of {peak}",
        table.capacity()
    );
    assert_eq!(table.get(first), Some(&u64::MAX));
    assert_eq!(table.next_wakeup(), Some(50));
    for &token in burst.iter().chain([&last]) {
        assert_eq!(table.remove(token), Err(Miss::Stale));
    }
    let again: BTreeSet<Token> = (0..20_000).map(|i| table.insert(i).unwrap()).collect();
    assert!(
        burst
            .iter()
            .chain([&last])
            .all(|token| !again.contains(token))
    );
    assert_eq!(table.expire(50).collect::<Vec<_>>(), [(first, u64::MAX)]);
}

/// splitmix64: a tiny deterministic generator, so the soak needs no `rand`.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// What happens to request `n`: answered in time (90 %), timed out (10 %), of which a tenth
/// (1 % of all) is answered after it expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    InTime,
    TimedOut,
    Late,
}

fn fate(request: u64) -> Fate {
    match SplitMix(request ^ 0x5eed).next() % 100 {
        0..90 => Fate::InTime,
        90..99 => Fate::TimedOut,
        _ => Fate::Late,
    }
}

/// One request per time unit, timeout 1000 units, in-time replies within the timeout, late
/// replies up to 2000 units after it. Every reply must match its own request, every late
/// reply must be stale, every timeout must expire exactly once, memory must stay flat.
fn soak(requests: u64) {
    const TIMEOUT: u64 = 1_000;
    const MAX_SLOTS: usize = 4_096;
    let mut table = PendingTable::with_capacity_limit(1 << 14);
    let mut rng = SplitMix(42);
    // (time, request, token) of replies still to arrive.
    let mut replies = BinaryHeap::new();
    let (mut matched, mut stale, mut expired) = (0u64, 0u64, 0u64);
    let mut wheel_storage = None;

    let mut deliver = |table: &mut PendingTable<u64>,
                       replies: &mut BinaryHeap<Reverse<(u64, u64, u64)>>,
                       now: u64| {
        while let Some(&Reverse((at, request, token))) = replies.peek() {
            if at > now {
                break;
            }
            replies.pop();
            let got = table.complete_wire(&wire(token));
            match fate(request) {
                Fate::InTime => {
                    assert_eq!(got, Ok(request), "reply {request} matched wrongly");
                    matched += 1;
                }
                Fate::Late => {
                    assert_eq!(got, Err(Miss::Stale), "late reply {request}");
                    stale += 1;
                }
                Fate::TimedOut => unreachable!(),
            }
        }
        for (_, request) in table.expire(now) {
            assert_ne!(
                fate(request),
                Fate::InTime,
                "request {request} expired early"
            );
            expired += 1;
        }
    };

    let mut now = 0;
    for request in 0..requests {
        now += 1;
        deliver(&mut table, &mut replies, now);
        let token = table
            .insert_with_deadline(request, now + TIMEOUT)
            .unwrap()
            .get();
        match fate(request) {
            Fate::InTime => replies.push(Reverse((
                now + 1 + rng.next() % (TIMEOUT - 1),
                request,
                token,
            ))),
            Fate::Late => replies.push(Reverse((
                now + TIMEOUT + 1 + rng.next() % 2_000,
                request,
                token,
            ))),
            Fate::TimedOut => {}
        }
        if request % 4_096 == 0 {
            let footprint = table.debug_footprint();
            assert!(footprint.slots <= MAX_SLOTS, "{footprint:?}");
            assert!(footprint.slot_capacity <= 2 * MAX_SLOTS, "{footprint:?}");
            assert!(footprint.scheduled <= footprint.slots);
            assert!(
                footprint.wheel_link_storage <= 2 * MAX_SLOTS,
                "{footprint:?}"
            );
            let storage = *wheel_storage.get_or_insert(footprint.wheel_bucket_storage);
            assert_eq!(
                footprint.wheel_bucket_storage, storage,
                "wheel storage grew"
            );
        }
    }
    // Time goes on unit by unit, so replies and expiries keep their order.
    for _ in 0..4 * TIMEOUT {
        now += 1;
        deliver(&mut table, &mut replies, now);
    }

    assert!(replies.is_empty());
    assert!(table.is_empty(), "{} left", table.len());
    assert_eq!(table.drain().count(), 0);
    let fates = (0..requests).map(fate);
    let in_time = fates.clone().filter(|f| *f == Fate::InTime).count() as u64;
    let late = fates.filter(|f| *f == Fate::Late).count() as u64;
    assert_eq!(matched, in_time);
    assert_eq!(stale, late);
    assert_eq!(expired, requests - in_time);
    let footprint = table.debug_footprint();
    assert!(footprint.slots <= MAX_SLOTS, "{footprint:?}");
    assert_eq!(footprint.scheduled, 0);
}

#[test]
fn soak_200k_requests() {
    soak(200_000);
}

/// Ten million requests (or `RPCWIRE_SOAK_N`); run with
/// `cargo test --release --test pending_table -- --ignored soak_long`.
#[test]
#[ignore = "long: ten million requests"]
fn soak_long() {
    let requests = std::env::var("RPCWIRE_SOAK_N")
        .ok()
        .map(|n| n.parse().expect("RPCWIRE_SOAK_N is a request count"))
        .unwrap_or(10_000_000);
    soak(requests);
}

/// `next_wakeup` is exact within the last `expire`'s 64-unit block, a lower bound beyond it
/// (an early wakeup that expires nothing), as documented.
#[test]
fn next_wakeup_is_exact_within_the_current_block() {
    let mut table = PendingTable::new();
    assert_eq!(table.expire(61).count(), 0);
    table.insert_with_deadline("soon", 63).unwrap();
    assert_eq!(table.next_wakeup(), Some(63));
    let mut table = PendingTable::new();
    assert_eq!(table.expire(61).count(), 0);
    table.insert_with_deadline("later", 100).unwrap();
    let wakeup = table.next_wakeup().unwrap();
    assert!((62..=100).contains(&wakeup), "{wakeup}");
    if wakeup < 100 {
        assert_eq!(table.expire(wakeup).count(), 0);
    }
    assert_eq!(
        table.expire(100).map(|(_, v)| v).collect::<Vec<_>>(),
        ["later"]
    );
}

/// An `expire` whose iterator is dropped early leaves the table processed up to the deadline
/// it yielded last: `next_wakeup` is then only a lower bound for a deadline in its `now`'s
/// block, and exact again once an `expire` runs to its end.
#[test]
fn next_wakeup_after_an_expire_dropped_early_is_a_lower_bound() {
    let mut table = PendingTable::new();
    let first = table.insert_with_deadline("first", 10).unwrap();
    let second = table.insert_with_deadline("second", 10).unwrap();
    let yielded: Vec<_> = table.expire(100).take(1).map(|(token, _)| token).collect();
    let left = if yielded == [first] { second } else { first };
    table.remove(left).unwrap();
    table.insert_with_deadline("later", 120).unwrap();
    let wakeup = table.next_wakeup().unwrap();
    assert!((10..=120).contains(&wakeup), "{wakeup}");
    assert_eq!(table.expire(wakeup).count(), 0);
    assert_eq!(table.expire(100).count(), 0);
    assert_eq!(table.next_wakeup(), Some(120));
    assert_eq!(
        table.expire(120).map(|(_, v)| v).collect::<Vec<_>>(),
        ["later"]
    );
}
