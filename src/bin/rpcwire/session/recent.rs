//! The ids recently cancelled or timed out, remembered for late replies.

use std::collections::{HashMap, VecDeque};

use rpcwire::IdKey;

/// Ids recently cancelled or timed out, for late replies: the last [`RECENT`] of them, at most
/// [`RECENT_BYTES`] of keys, looked up in constant time (every reply that matches no request
/// is looked up: a scan would cost thousands of compares of ids of up to 64 KiB each).
#[derive(Debug, Default)]
pub(super) struct Recent {
    order: VecDeque<IdKey>,
    /// How many times each key is in `order`.
    set: HashMap<IdKey, u32>,
    /// The bytes of the keys in `order`.
    bytes: usize,
}

impl Recent {
    pub(super) fn push(&mut self, key: IdKey) {
        self.bytes += key.encoded_len();
        *self.set.entry(key.clone()).or_default() += 1;
        self.order.push_back(key);
        while self.order.len() > RECENT || self.bytes > RECENT_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            self.bytes -= old.encoded_len();
            if let Some(n) = self.set.get_mut(&old) {
                *n -= 1;
                if *n == 0 {
                    self.set.remove(&old);
                }
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    pub(super) fn contains(&self, key: &IdKey) -> bool {
        self.set.contains_key(key)
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
            recent.push(key(n));
        }
        assert_eq!(recent.order.len(), RECENT);
        assert!(!recent.contains(&key(9)) && recent.contains(&key(10)));
        assert!(recent.contains(&key(RECENT + 9)));
        // The same id twice stays known until both are out.
        recent.push(key(10));
        for n in 0..RECENT - 1 {
            recent.push(key(1_000_000 + n));
        }
        assert!(recent.contains(&key(10)), "its second entry is still in");
        recent.push(key(2_000_000));
        assert!(!recent.contains(&key(10)));
        // Long ids: as many as fit in the byte budget.
        let long = |n: usize| {
            let token = format!("\"{n:0>65000}\"");
            IdKey::of(Id::from_token(token.as_bytes()).unwrap())
        };
        for n in 0..100 {
            recent.push(long(n));
        }
        assert!(recent.bytes <= RECENT_BYTES, "{}", recent.bytes);
        assert!(recent.contains(&long(99)) && !recent.contains(&long(80)));
        assert_eq!(
            recent.set.values().sum::<u32>() as usize,
            recent.order.len()
        );
    }
}
