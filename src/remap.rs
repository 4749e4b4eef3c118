//! Proxy id remapping: many clients share one upstream without id collisions.
//!
//! A client's request goes upstream with an id we mint (a [`Token`], exact in every peer's
//! number type), its payload untouched; the upstream's reply comes back to the client with the
//! client's original id token restored byte for byte. Replies to tokens we never minted, or to
//! requests already answered, cancelled or expired, are reported and not forwarded.

use core::hash::Hash;

use bytes::BytesMut;
use hashbrown::HashMap;

use crate::encode;
use crate::id::{Id, IdBuf};
use crate::inflight::IdKey;
use crate::mcp::Cancelled;
use crate::message::{Notification, Request};
use crate::pending::{Miss, PendingTable, TableFull, Token};

/// Where a forwarded request came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin<C> {
    /// The client (connection) that sent it.
    pub client: C,
    /// The client's id, exactly as it spelled it.
    pub id: IdBuf,
}

/// Why a request could not be forwarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RemapError {
    /// The client already has a request with this id in flight (MCP: answer -32600).
    DuplicateId,
    /// The table of requests in flight is full.
    Full,
}

impl core::fmt::Display for RemapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            RemapError::DuplicateId => "the client already has a request with this id in flight",
            RemapError::Full => "the table of requests in flight is full",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for RemapError {}

/// Rewrites ids between clients and one upstream.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{Decoder, IdRemapper, Message};
///
/// let mut remap = IdRemapper::new(1024);
/// let client_frame = br#"{"jsonrpc":"2.0","id":"abc","method":"tools/list"}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(client_frame) else { panic!() };
/// let mut upstream = BytesMut::new();
/// let token = remap.forward_request("client-1", client_frame, &req, None, &mut upstream).unwrap();
/// assert_eq!(&upstream[..], format!("{{\"jsonrpc\":\"2.0\",\"id\":{token},\"method\":\"tools/list\"}}\n").as_bytes());
///
/// let reply = format!("{{\"jsonrpc\":\"2.0\",\"id\":{token},\"result\":{{}}}}");
/// let msg = Decoder::mcp().decode(reply.as_bytes()).unwrap();
/// let mut to_client = BytesMut::new();
/// let client = remap.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut to_client).unwrap();
/// assert_eq!(client, "client-1");
/// assert_eq!(&to_client[..], b"{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"result\":{}}\n");
/// ```
pub struct IdRemapper<C> {
    pending: PendingTable<Origin<C>>,
    by_client: HashMap<(C, IdKey), Token, foldhash::quality::RandomState>,
}

impl<C> core::fmt::Debug for IdRemapper<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IdRemapper")
            .field("in_flight", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl<C: Clone + Eq + Hash> IdRemapper<C> {
    /// A remapper for at most `capacity` requests in flight.
    pub fn new(capacity: usize) -> Self {
        IdRemapper {
            pending: PendingTable::with_capacity_limit(capacity),
            by_client: HashMap::with_hasher(Default::default()),
        }
    }

    /// Registers `req` (decoded from `frame`, sent by `client`) and appends the upstream frame:
    /// the same bytes with our token as id. `deadline` (caller's time units) makes the
    /// request expire in [`expire`](Self::expire).
    pub fn forward_request(
        &mut self,
        client: C,
        frame: &[u8],
        req: &Request<'_>,
        deadline: Option<u64>,
        out: &mut BytesMut,
    ) -> Result<Token, RemapError> {
        let key = (client.clone(), IdKey::of(req.id));
        if self.by_client.contains_key(&key) {
            return Err(RemapError::DuplicateId);
        }
        let origin = Origin {
            client,
            id: req.id.to_owned_id(),
        };
        let inserted = match deadline {
            Some(d) => self.pending.insert_with_deadline(origin, d),
            None => self.pending.insert(origin),
        };
        let token = inserted.map_err(|TableFull(_)| RemapError::Full)?;
        self.by_client.insert(key, token);
        let mut digits = [0u8; 20];
        let wire = token.to_wire(&mut digits);
        let new_id = Id::from_token(wire).expect("a token is an integer");
        encode::write_with_id(out, frame, req.id, new_id);
        Ok(token)
    }

    /// Matches an upstream reply (decoded from `frame`, with id `reply_id`) and appends the
    /// client-bound frame with the client's id restored. Returns the client to send it to;
    /// `Miss::Unknown` / `Miss::Stale` for replies nobody waits for (nothing is written).
    pub fn route_reply(
        &mut self,
        frame: &[u8],
        reply_id: Id<'_>,
        out: &mut BytesMut,
    ) -> Result<C, Miss> {
        let origin = self.pending.complete_wire(reply_id.raw())?;
        self.by_client
            .remove(&(origin.client.clone(), IdKey::of(origin.id.as_id())));
        encode::write_with_id(out, frame, reply_id, origin.id.as_id());
        Ok(origin.client)
    }

    /// Rewrites a client's `notifications/cancelled` (decoded from `frame`) for the upstream,
    /// its `requestId` replaced by our token, and forgets the request (a late reply will be
    /// `Stale`). Returns `false` (nothing written) when the notification names no request of
    /// this client in flight.
    pub fn forward_cancel(
        &mut self,
        client: &C,
        frame: &[u8],
        notification: &Notification<'_>,
        out: &mut BytesMut,
    ) -> bool {
        let Some(cancelled) = Cancelled::from_notification(notification) else {
            return false;
        };
        let Some(token) = self
            .by_client
            .remove(&(client.clone(), IdKey::of(cancelled.request_id)))
        else {
            return false;
        };
        self.pending.cancel(token);
        let mut digits = [0u8; 20];
        let wire = token.to_wire(&mut digits);
        let new_id = Id::from_token(wire).expect("a token is an integer");
        encode::write_with_id(out, frame, cancelled.request_id, new_id);
        true
    }

    /// Requests whose deadline is ≤ `now`, removed: answer each client locally and send the
    /// upstream a cancellation for the token.
    pub fn expire(&mut self, now: u64) -> impl Iterator<Item = (Token, Origin<C>)> + '_ {
        let by_client = &mut self.by_client;
        self.pending.expire(now).inspect(move |(_, origin)| {
            by_client.remove(&(origin.client.clone(), IdKey::of(origin.id.as_id())));
        })
    }

    /// A client went away: forget its requests (their late replies will be `Stale`).
    pub fn drop_client(&mut self, client: &C) -> usize {
        let tokens: alloc::vec::Vec<Token> = self
            .by_client
            .extract_if(|(c, _), _| c == client)
            .map(|(_, token)| token)
            .collect();
        for token in &tokens {
            self.pending.cancel(*token);
        }
        tokens.len()
    }

    /// Requests in flight.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether none is in flight.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}
