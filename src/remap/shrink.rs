//! Giving back the memory a burst left: the remapper's table and maps grow with the peak of
//! what it holds and keep that room until [`IdRemapper::shrink_to_fit`].

use core::hash::Hash;

use super::IdRemapper;

/// Memory-use figures of an [`IdRemapper`] (see `debug_footprint`), for soak tests: the room
/// each of its containers has, in entries.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemapFootprint {
    /// The table's ([`IdRemapper::capacity`]).
    pub table: usize,
    /// The map of requests in flight by client and id.
    pub by_client: usize,
    /// The map of tasks kept by task id.
    pub task_ids: usize,
    /// The map of clients' lists.
    pub clients: usize,
    /// The clients' queues of ended tasks' records, together.
    pub record_queues: usize,
    /// The files of clients by how many records they hold, with the files' own room.
    pub record_files: usize,
}

impl<C: Clone + Eq + Hash, T> IdRemapper<C, T> {
    /// How many entries (requests in flight and [tasks](Self#tasks) kept) the table has room
    /// for without reallocating. It grows with the peak of what the remapper holds, and the
    /// maps beside the table with it; none goes down by itself: see
    /// [`shrink_to_fit`](Self::shrink_to_fit).
    pub fn capacity(&self) -> usize {
        self.pending.capacity()
    }

    /// Gives back the memory a burst left: the table ([`PendingTable::shrink_to_fit`]: the
    /// free slots past the last entry it holds) and every map and queue beside it (clients'
    /// requests by id, tasks by id, each client's list and its queue of ended tasks'
    /// records) shrink as far as what the remapper holds allows. Every request in flight,
    /// progress route and task kept stays as it was, under its token: replies, progress
    /// and status notifications route as before, a token that missed still misses, and no
    /// token is minted twice.
    ///
    /// Call it when load is low, from the gateway's periodic tick say (after
    /// [`expire`](Self::expire)), or after a client with many requests went. It costs
    /// O(size): a pass over the room each container has (the peak it shrinks from), the
    /// entries kept moved into new, smaller allocations (the maps rehashed); the requests
    /// that come after it allocate again as they need room. Nothing on the path of a
    /// request or a reply calls it.
    ///
    /// [`PendingTable::shrink_to_fit`]: crate::PendingTable::shrink_to_fit
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, IdRemapper, Message};
    ///
    /// let mut remap = IdRemapper::new(4096);
    /// let mut tokens = Vec::new();
    /// for id in 0..1000 {
    ///     let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
    ///     let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else { panic!() };
    ///     tokens.push(remap.forward_request("client", frame.as_bytes(), &req, None, &mut BytesMut::new()).unwrap());
    /// }
    /// let reply = |token| format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
    /// // The burst is answered but for the first request.
    /// for &token in &tokens[1..] {
    ///     let reply = reply(token);
    ///     let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
    ///     remap.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut BytesMut::new()).unwrap();
    /// }
    /// let before = remap.capacity();
    /// remap.shrink_to_fit();
    /// assert!(remap.capacity() < before);
    ///
    /// // The request in flight is still answered under its client's id.
    /// let reply = reply(tokens[0]);
    /// let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
    /// let mut to_client = BytesMut::new();
    /// remap.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut to_client).unwrap();
    /// assert_eq!(&to_client[..], b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n");
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.pending.shrink_to_fit();
        self.by_client.shrink_to_fit(&self.pending);
        self.task_ids.shrink_to_fit(&self.pending);
        self.heads.shrink_to_fit();
        self.shrink_records();
    }

    /// Memory-use figures, for soak tests.
    #[doc(hidden)]
    pub fn debug_footprint(&self) -> RemapFootprint {
        let (record_queues, record_files) = self.records_capacity();
        RemapFootprint {
            table: self.pending.capacity(),
            by_client: self.by_client.capacity(),
            task_ids: self.task_ids.capacity(),
            clients: self.heads.capacity(),
            record_queues,
            record_files,
        }
    }
}
