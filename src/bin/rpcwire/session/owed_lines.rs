//! The error replies owed to invalid lines sent alone, in a merge of two streams, whose peers
//! read every line: each answered once, by an error (alone, or inside an array, as the reply
//! to a request sent alone may come).

use std::collections::HashMap;

use rpcwire::{Id, IdKey};

use super::recent::{RECENT, RECENT_BYTES};

/// The error replies the peer owes the invalid lines sent one way (JSON-RPC 2.0 §5: an invalid
/// request, a line that is not JSON, is answered with an error): by the id they must carry,
/// when the line's could be read, else counted (their reply's id is null, or, under MCP,
/// absent). A proxy never counts them: it answers a client's invalid line itself, and drops a
/// server's, so that the peer never reads them.
///
/// The ids are bounded as the ids given up on lately are: at most [`RECENT`] of them, and
/// [`RECENT_BYTES`] of keys. One beyond is not kept, and its reply is then reported as
/// answering nothing. The count of lines without a readable id takes no memory.
#[derive(Debug, Default)]
pub(super) struct OwedLines {
    /// How many replies are owed with each id.
    by_id: HashMap<IdKey, u32>,
    /// How many ids `by_id` counts in all, and the bytes of their keys.
    len: usize,
    bytes: usize,
    /// How many replies are owed without an id.
    without_id: u64,
}

impl OwedLines {
    /// One more reply owed, with `id` (`None`, or a null id: without one).
    pub(super) fn owe(&mut self, id: Option<Id<'_>>) {
        let Some(id) = id.filter(|id| !id.is_null()) else {
            self.without_id += 1;
            return;
        };
        let key = IdKey::of(id);
        let bytes = key.encoded_len();
        if self.len >= RECENT || self.bytes + bytes > RECENT_BYTES {
            return;
        }
        self.len += 1;
        self.bytes += bytes;
        *self.by_id.entry(key).or_default() += 1;
    }

    /// Whether an error with `id` (`None`, or a null id: without one) answers a line owed it.
    pub(super) fn owes(&self, id: Option<Id<'_>>) -> bool {
        match id.filter(|id| !id.is_null()) {
            Some(id) => self.by_id.contains_key(&IdKey::of(id)),
            None => self.without_id > 0,
        }
    }

    /// Takes the reply [`owes`](Self::owes) found; whether there was one.
    pub(super) fn take(&mut self, id: Option<Id<'_>>) -> bool {
        let Some(id) = id.filter(|id| !id.is_null()) else {
            if self.without_id == 0 {
                return false;
            }
            self.without_id -= 1;
            return true;
        };
        let key = IdKey::of(id);
        let Some(n) = self.by_id.get_mut(&key) else {
            return false;
        };
        *n -= 1;
        if *n == 0 {
            self.by_id.remove(&key);
        }
        self.len -= 1;
        self.bytes -= key.encoded_len();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(token: &'static str) -> Option<Id<'static>> {
        Id::from_token(token.as_bytes())
    }

    /// Each reply owed is taken once, by its id; null and absent ids take those owed
    /// without one, and only those.
    #[test]
    fn each_owed_reply_is_taken_once_by_its_id() {
        let mut owed = OwedLines::default();
        owed.owe(id("5"));
        owed.owe(id("5"));
        owed.owe(None);
        assert!(owed.owes(id("5")) && !owed.owes(id("6")));
        assert!(owed.take(id("5")) && owed.take(id("5")) && !owed.take(id("5")));
        assert!(owed.owes(id("null")) && owed.owes(None));
        assert!(owed.take(id("null")) && !owed.take(None));
        assert_eq!((owed.len, owed.bytes), (0, 0));
    }

    /// Nothing is owed before a line is, with an id or without one.
    #[test]
    fn nothing_is_owed_at_first() {
        let owed = OwedLines::default();
        assert!(!owed.owes(None) && !owed.owes(id("null")) && !owed.owes(id("1")));
    }

    /// The bytes of the keys kept count each reply owed, and each reply taken gives its key's
    /// bytes back.
    #[test]
    fn each_reply_taken_gives_its_bytes_back() {
        let mut owed = OwedLines::default();
        let key_bytes = IdKey::of(Id::from_token(b"5").unwrap()).encoded_len();
        owed.owe(id("5"));
        owed.owe(id("5"));
        assert_eq!((owed.len, owed.bytes), (2, 2 * key_bytes));
        assert!(owed.take(id("5")));
        assert_eq!((owed.len, owed.bytes), (1, key_bytes));
    }

    /// The keys kept are bounded by their bytes too: an id whose key fills the bound exactly
    /// is kept, one past it is not.
    #[test]
    fn the_bytes_of_the_ids_owed_are_bounded() {
        let small = IdKey::of(Id::from_token(b"1").unwrap()).encoded_len();
        let key_len = |token: &[u8]| IdKey::of(Id::from_token(token).unwrap()).encoded_len();
        let overhead = key_len(b"\"a\"") - 1;
        let big = format!("\"{}\"", "a".repeat(RECENT_BYTES - small - overhead));
        assert_eq!(key_len(big.as_bytes()), RECENT_BYTES - small);
        let mut owed = OwedLines::default();
        owed.owe(Id::from_token(big.as_bytes()));
        owed.owe(id("1"));
        owed.owe(id("2"));
        assert_eq!((owed.len, owed.bytes), (2, RECENT_BYTES));
        assert!(owed.owes(Id::from_token(big.as_bytes())) && owed.owes(id("1")));
        assert!(!owed.owes(id("2")));
    }

    /// The ids kept are bounded: one beyond the limit is not owed.
    #[test]
    fn the_ids_owed_are_bounded() {
        let mut owed = OwedLines::default();
        let tokens: Vec<String> = (0..=RECENT).map(|n| n.to_string()).collect();
        for token in &tokens {
            owed.owe(Id::from_token(token.as_bytes()));
        }
        assert_eq!(owed.len, RECENT);
        assert!(owed.owes(id("0")));
        assert!(!owed.owes(Id::from_token(tokens[RECENT].as_bytes())));
    }
}
