//! JSON-RPC requests reusing an id still in flight, each waiting its turn behind the request
//! that holds the id.

use std::collections::{HashMap, VecDeque};

use rpcwire::{Id, IdBuf, IdKey};

use super::room::give_back;
use super::waiting::Waiting;

/// The requests sent in one direction that reuse an id still in flight (JSON-RPC only warns;
/// MCP refuses them), by id, in the order they came. The [`InFlight`](rpcwire::InFlight) table
/// holds one request per id: the first reply with an id answers the request holding it there,
/// and the next one in line here then takes its place ([`Session::take_waiting`]): two
/// requests, one id, the first reply answers the first. Each keeps the deadline it got when
/// it came, which comes after that of every request before it in line: it is at the head of
/// its line, in the table, by the time its deadline passes.
///
/// Bounded with the requests in flight: the table and these together hold at most
/// `--max-in-flight` requests, and at most [`MAX_IN_FLIGHT_BYTES`] of ids and method names.
///
/// [`Session::take_waiting`]: super::Session::take_waiting
/// [`MAX_IN_FLIGHT_BYTES`]: super::MAX_IN_FLIGHT_BYTES
#[derive(Debug, Default)]
pub(super) struct Queued {
    lines: HashMap<IdKey, VecDeque<InLine>>,
    /// How many requests wait in all the lines.
    len: usize,
    /// The bytes they hold, as counted in [`InLine::bytes`].
    bytes: usize,
}

/// A request waiting its turn.
#[derive(Debug)]
struct InLine {
    /// Its id, as it spelled it.
    id: IdBuf,
    waiting: Waiting,
    /// What it holds beside its id, as the table counts it (its method).
    extra_bytes: usize,
    /// What it counts against the budget: its id twice (its key here, and its spelling,
    /// which a number's key does not bound: `1.000…` keys as 1), and its extra bytes as the
    /// table counts them.
    bytes: usize,
}

impl Queued {
    /// How many requests wait in line.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The bytes they hold, as the table counts its requests'.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Puts a request reusing `id` at the end of its line, unless its bytes would take the
    /// lines' past `max_bytes` (what the table leaves of the budget); returns whether it was.
    pub(super) fn push(
        &mut self,
        id: Id<'_>,
        waiting: Waiting,
        extra_bytes: usize,
        max_bytes: usize,
    ) -> bool {
        let key = IdKey::of(id);
        let bytes = (id.raw().len() + key.encoded_len()).saturating_add(extra_bytes);
        if self.bytes.saturating_add(bytes) > max_bytes {
            return false;
        }
        self.bytes += bytes;
        self.len += 1;
        self.lines.entry(key).or_default().push_back(InLine {
            id: id.to_owned_id(),
            waiting,
            extra_bytes,
            bytes,
        });
        true
    }

    /// The next request in line for `id` (its id, what it waits for, its extra bytes), out of
    /// the line.
    pub(super) fn pop(&mut self, id: Id<'_>) -> Option<(IdBuf, Waiting, usize)> {
        // (On every reply's path: nothing to key while no line waits, the usual case.)
        if self.len == 0 {
            return None;
        }
        let key = IdKey::of(id);
        let line = self.lines.get_mut(&key)?;
        let next = line.pop_front()?;
        if line.is_empty() {
            self.lines.remove(&key);
            give_back(&mut self.lines);
        } else {
            give_back(line);
        }
        self.len -= 1;
        self.bytes -= next.bytes;
        Some((next.id, next.waiting, next.extra_bytes))
    }

    /// Whether a request of `id` waits in line.
    pub(super) fn contains(&self, id: Id<'_>) -> bool {
        self.len > 0 && self.lines.contains_key(&IdKey::of(id))
    }

    /// Whether the request of `id` that came as number `seq` waits in line. (A line is in the
    /// order its requests came, so by number: a search, not a walk, which pruning the
    /// deadlines of a long line would pay for each.)
    pub(super) fn holds(&self, id: Id<'_>, seq: u64) -> bool {
        self.len > 0
            && self
                .lines
                .get(&IdKey::of(id))
                .is_some_and(|line| line.binary_search_by_key(&seq, |r| r.waiting.seq).is_ok())
    }

    /// The room of the lines' table, and of the longest line, by name.
    #[cfg(test)]
    pub(super) fn rooms(&self) -> [(&'static str, usize); 2] {
        let longest = self.lines.values().map(VecDeque::capacity).max();
        [
            ("queued lines", self.lines.capacity()),
            ("queued longest line", longest.unwrap_or(0)),
        ]
    }

    /// Every request in line, by the id it reuses: its key, and what it waits with.
    #[cfg(test)]
    pub(super) fn requests(&self) -> impl Iterator<Item = (&IdKey, &Waiting)> {
        self.lines
            .iter()
            .flat_map(|(key, line)| line.iter().map(move |r| (key, &r.waiting)))
    }

    /// Panics unless the count and the bytes of the requests in line are those the lines
    /// hold, no line is empty, and each line is in the order its requests came.
    #[cfg(test)]
    pub(super) fn assert_consistent(&self) {
        let len: usize = self.lines.values().map(VecDeque::len).sum();
        let bytes: usize = self.lines.values().flatten().map(|r| r.bytes).sum();
        assert_eq!((self.len, self.bytes), (len, bytes), "requests in line");
        for line in self.lines.values() {
            assert!(!line.is_empty(), "an empty line");
            assert!(
                line.iter()
                    .zip(line.iter().skip(1))
                    .all(|(a, b)| a.waiting.seq < b.waiting.seq),
                "a line out of order"
            );
        }
    }

    /// Every request in line, in the order they came (the session ended).
    pub(super) fn drain(&mut self) -> Vec<(IdBuf, Waiting)> {
        let mut all: Vec<(IdBuf, Waiting)> = self
            .lines
            .drain()
            .flat_map(|(_, line)| line)
            .map(|r| (r.id, r.waiting))
            .collect();
        all.sort_by_key(|(_, w)| w.seq);
        (self.len, self.bytes) = (0, 0);
        all
    }
}
