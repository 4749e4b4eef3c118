//! The ids recently cancelled or timed out, remembered for late replies.

use std::collections::{HashMap, VecDeque};

use rpcwire::IdKey;

/// Ids recently cancelled or timed out, for late replies: the last [`RECENT`] of them, at most
/// [`RECENT_BYTES`] of keys, looked up in constant time (every reply that matches no request
/// is looked up: a scan would cost thousands of compares of ids of up to 64 KiB each).
///
/// Each id is the one the peer was sent (what a late reply carries), and, when the session
/// minted it ([`Session::rewriting_reused_ids`](super::Session::rewriting_reused_ids)), the
/// sender's own beside it: a request reusing an id the sender gave up on lately is a
/// duplicate, one that merely equals an id the session minted is not.
///
/// A merge of two streams keeps two more of each direction, with the same bounds: the ids of
/// the requests that stopped waiting lately, answered ones included, and their progress
/// tokens ([`Session::stopped_waiting_lately`](super::Session::stopped_waiting_lately)).
#[derive(Debug, Default)]
pub(super) struct Recent {
    /// Each id as sent on, with the sender's own when the session minted the first.
    order: VecDeque<(IdKey, Option<IdKey>)>,
    /// How many times each key sent on is in `order`.
    set: HashMap<IdKey, u32>,
    /// How many of those were minted by the session (the sender never sent them).
    minted: HashMap<IdKey, u32>,
    /// How many times each sender's id of a minted one is in `order`.
    senders: HashMap<IdKey, u32>,
    /// The bytes of the keys in `order`.
    bytes: usize,
}

/// Counts one more `key` in `counts`.
fn add(counts: &mut HashMap<IdKey, u32>, key: &IdKey) {
    *counts.entry(key.clone()).or_default() += 1;
}

/// Counts one `key` less in `counts`, forgetting it at zero.
fn sub(counts: &mut HashMap<IdKey, u32>, key: &IdKey) {
    if let Some(n) = counts.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(key);
        }
    }
}

impl Recent {
    /// Remembers `key`, the id the request went on with; `sender`: its sender's own, when
    /// the session minted `key` in its place.
    pub(super) fn push(&mut self, key: IdKey, sender: Option<IdKey>) {
        self.bytes += key.encoded_len() + sender.as_ref().map_or(0, IdKey::encoded_len);
        add(&mut self.set, &key);
        if let Some(sender) = &sender {
            add(&mut self.minted, &key);
            add(&mut self.senders, sender);
        }
        self.order.push_back((key, sender));
        while self.order.len() > RECENT || self.bytes > RECENT_BYTES {
            let Some((old, sender)) = self.order.pop_front() else {
                break;
            };
            self.bytes -= old.encoded_len() + sender.as_ref().map_or(0, IdKey::encoded_len);
            sub(&mut self.set, &old);
            if let Some(sender) = &sender {
                sub(&mut self.minted, &old);
                sub(&mut self.senders, sender);
            }
        }
    }

    /// Whether the sender itself gave up lately on a request of `key`: sent on under it, or
    /// under an id minted in its place.
    pub(super) fn given_up_by_sender(&self, key: &IdKey) -> bool {
        let sent_on = self.set.get(key).copied().unwrap_or(0);
        let minted = self.minted.get(key).copied().unwrap_or(0);
        sent_on > minted || self.senders.contains_key(key)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    pub(super) fn contains(&self, key: &IdKey) -> bool {
        self.set.contains_key(key)
    }

    /// Takes one entry of `key` (sent on under it), if any: the key is known one time fewer.
    /// (Its place in the order stays until it goes out with the oldest, within the same
    /// bounds; a key pushed twice and taken once may then be forgotten a little early.)
    pub(super) fn take(&mut self, key: &IdKey) -> bool {
        if !self.set.contains_key(key) {
            return false;
        }
        sub(&mut self.set, key);
        true
    }
}

/// How many bytes of ids [`Recent`] keeps at most (in each direction).
pub(super) const RECENT_BYTES: usize = 1 << 20;

/// How many recently cancelled or timed-out ids are remembered for late replies.
pub(super) const RECENT: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use rpcwire::Id;

    /// Recent ids are kept by count and by bytes, oldest out first, and found by key.
    #[test]
    fn recent_ids_are_bounded_by_count_and_bytes() {
        let key = |n: usize| IdKey::of(Id::from_token(n.to_string().as_bytes()).unwrap());
        let mut recent = Recent::default();
        for n in 0..RECENT + 10 {
            recent.push(key(n), None);
        }
        assert_eq!(recent.order.len(), RECENT);
        assert!(!recent.contains(&key(9)) && recent.contains(&key(10)));
        assert!(recent.contains(&key(RECENT + 9)));
        // The same id twice stays known until both are out.
        recent.push(key(10), None);
        for n in 0..RECENT - 1 {
            recent.push(key(1_000_000 + n), None);
        }
        assert!(recent.contains(&key(10)), "its second entry is still in");
        recent.push(key(2_000_000), None);
        assert!(!recent.contains(&key(10)));
        // Long ids: as many as fit in the byte budget.
        let long = |n: usize| {
            let token = format!("\"{n:0>65000}\"");
            IdKey::of(Id::from_token(token.as_bytes()).unwrap())
        };
        for n in 0..100 {
            recent.push(long(n), None);
        }
        assert!(recent.bytes <= RECENT_BYTES, "{}", recent.bytes);
        assert!(recent.contains(&long(99)) && !recent.contains(&long(80)));
        assert_eq!(
            recent.set.values().sum::<u32>() as usize,
            recent.order.len()
        );
    }

    /// An id taken is known one time fewer; its place stays within the bounds.
    #[test]
    fn a_taken_id_is_known_once_fewer() {
        let key = |n: usize| IdKey::of(Id::from_token(n.to_string().as_bytes()).unwrap());
        let mut recent = Recent::default();
        recent.push(key(1), None);
        recent.push(key(1), None);
        assert!(recent.take(&key(1)) && recent.take(&key(1)));
        assert!(!recent.take(&key(1)) && !recent.take(&key(2)));
        for n in 0..RECENT + 1 {
            recent.push(key(n + 10), None);
        }
        assert_eq!(recent.order.len(), RECENT);
        assert!(recent.set.len() <= RECENT);
    }

    /// An id minted in place of the sender's is known for late replies, but the sender gave up
    /// on its own id only, until both are out.
    #[test]
    fn a_minted_id_is_not_given_up_by_its_sender() {
        let key = |token: &str| IdKey::of(Id::from_token(token.as_bytes()).unwrap());
        let mut recent = Recent::default();
        recent.push(key("9"), Some(key("7")));
        assert!(recent.contains(&key("9")) && !recent.contains(&key("7")));
        assert!(recent.given_up_by_sender(&key("7")));
        assert!(!recent.given_up_by_sender(&key("9")));
        // The sender's own 9 given up on too.
        recent.push(key("9"), None);
        assert!(recent.given_up_by_sender(&key("9")));
        for n in 0..RECENT {
            recent.push(key(&(100 + n).to_string()), None);
        }
        assert!(!recent.given_up_by_sender(&key("7")) && !recent.contains(&key("9")));
        assert!(recent.minted.is_empty() && recent.senders.is_empty());
    }
}
