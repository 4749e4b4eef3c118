//! Client batch elements beyond the limits of the requests in flight whose id the server may
//! still answer for another request, forwarded untracked under an id the session minted: the
//! server's reply to one is told from any other, and goes back with the client's id.

use std::collections::{HashMap, VecDeque};

use rpcwire::{IdBuf, IdKey};

use super::recent::{RECENT, RECENT_BYTES};

/// The client's ids of the untracked batch elements forwarded under a minted id, by that id,
/// each taken by the first reply carrying it: the last [`RECENT`] of them, at most
/// [`RECENT_BYTES`] of ids (the minted id's key and the client's id as spelled), the oldest
/// forgotten first. An element past these bounds is not tracked at all, as beyond
/// `--max-in-flight` (a reply to it then carries the minted id to the client, as unknown).
#[derive(Debug, Default)]
pub(super) struct UntrackedRewrites {
    /// The client's id of each element, by the id minted for it.
    client_ids: HashMap<IdKey, IdBuf>,
    /// The minted ids in the order they were minted, oldest first; one already answered is
    /// skipped when met (at most [`RECENT`] of them in all).
    order: VecDeque<IdKey>,
    /// The bytes of the ids in `client_ids`.
    bytes: usize,
}

/// The bytes an element's ids count: the minted id's key, the client's id as spelled.
fn cost(minted: &IdKey, client_id: &IdBuf) -> usize {
    minted.encoded_len() + client_id.as_id().raw().len()
}

impl UntrackedRewrites {
    /// Remembers that the element of `client_id` went to the server under `minted` (an id
    /// no other request holds), forgetting the oldest beyond the bounds. Returns whether it
    /// was remembered: not when its ids alone pass the byte budget.
    pub(super) fn push(&mut self, minted: IdKey, client_id: IdBuf) -> bool {
        let bytes = cost(&minted, &client_id);
        if bytes > RECENT_BYTES {
            return false;
        }
        self.bytes += bytes;
        self.order.push_back(minted.clone());
        self.client_ids.insert(minted, client_id);
        while self.order.len() > RECENT || self.bytes > RECENT_BYTES {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(client_id) = self.client_ids.remove(&oldest) {
                self.bytes -= cost(&oldest, &client_id);
            }
        }
        true
    }

    /// Whether no element waits for its reply (checked before an id's key is built).
    pub(super) fn is_empty(&self) -> bool {
        self.client_ids.is_empty()
    }

    /// Whether an element went to the server under `minted` and was not answered yet.
    pub(super) fn contains(&self, minted: &IdKey) -> bool {
        self.client_ids.contains_key(minted)
    }

    /// The client's id of the element forwarded under `minted`, taken: its reply came.
    pub(super) fn take(&mut self, minted: &IdKey) -> Option<IdBuf> {
        let client_id = self.client_ids.remove(minted)?;
        self.bytes -= cost(minted, &client_id);
        Some(client_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpcwire::Id;

    fn key(token: &str) -> IdKey {
        IdKey::of(Id::from_token(token.as_bytes()).unwrap())
    }

    fn buf(token: &str) -> IdBuf {
        Id::from_token(token.as_bytes()).unwrap().to_owned_id()
    }

    /// Each element is answered once; the oldest are forgotten beyond [`RECENT`] entries, or
    /// [`RECENT_BYTES`] of ids, and an element whose ids alone pass that is not remembered.
    #[test]
    fn untracked_rewrites_are_taken_once_and_bounded() {
        let mut rewrites = UntrackedRewrites::default();
        assert!(rewrites.push(key("100"), buf("7")));
        assert!(rewrites.contains(&key("100")) && !rewrites.contains(&key("7")));
        assert_eq!(
            rewrites.take(&key("100")).map(|id| id.to_string()),
            Some("7".into())
        );
        assert!(rewrites.take(&key("100")).is_none());
        assert_eq!(rewrites.bytes, 0);
        for n in 0..RECENT + 1 {
            assert!(rewrites.push(key(&(1000 + n).to_string()), buf("7")));
        }
        assert!(!rewrites.contains(&key("1000")) && rewrites.contains(&key("1001")));
        assert!(rewrites.order.len() <= RECENT);
        let long = |n: usize| buf(&format!("\"{n:0>65000}\""));
        for n in 0..100 {
            assert!(rewrites.push(key(&(5000 + n).to_string()), long(n)));
        }
        assert!(rewrites.bytes <= RECENT_BYTES, "{}", rewrites.bytes);
        assert!(rewrites.contains(&key("5099")) && !rewrites.contains(&key("5080")));
        let too_long = buf(&format!("\"{}\"", "0".repeat(RECENT_BYTES)));
        assert!(!rewrites.push(key("9"), too_long));
        assert!(!rewrites.contains(&key("9")));
    }
}
