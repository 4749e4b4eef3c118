//! A request the session is waiting on.
//!
//! One is kept in the table of requests waiting for each request in flight (up to
//! `--max-in-flight` in each direction), in a hash table slot beside the id's key and spelling,
//! in a table less than half full just after it grows: its size is paid up to about twice per
//! request, three times while the table grows. So it is kept small (56 bytes): what most
//! requests lack (a progress token, an id minted in place of the client's) is boxed, a
//! pointer when absent.

use std::sync::Arc;

use rpcwire::{IdBuf, IdKey};

/// A request the session is waiting on.
#[derive(Debug, Clone)]
pub(super) struct Waiting {
    /// Shared with the counters: no allocation per request.
    pub(super) method: Arc<str>,
    pub(super) seq: u64,
    /// The number of the client batch it came in ([`BatchWait`](super::batch::BatchWait)); 0 for a
    /// request sent alone or by the server.
    pub(super) batch: u64,
    /// The progress token the request asked for (boxed: most requests have none).
    pub(super) progress_token: Option<Box<IdKey>>,
    /// The client's own id, when the request went to the server under an id the session
    /// minted ([`Session::rewriting_reused_ids`](super::Session::rewriting_reused_ids)): the
    /// table holds it by the minted id, which the server's reply carries, and the client gets
    /// the reply, or the proxy's own, with this one. (Boxed: most requests keep their id.)
    pub(super) client_id: Option<Box<IdBuf>>,
    /// For a client request sent alone: how many elements of client batches went to the
    /// server with its id since, untracked (beyond the limits of the requests in flight, in a
    /// session that rewrites the batch elements it tracks only: the replay of older logs; the
    /// present proxy sends such an element under a minted id): the replies with its id inside
    /// arrays are theirs (§6: a request sent alone is answered alone), not this request's.
    pub(super) untracked_in_arrays: u32,
    /// Sent inside a batch (answered inside an array).
    pub(super) in_batch: bool,
    /// A client request naming its protocol version while the session read them
    /// ([`Session::request_version`](super::Session::request_version)).
    pub(super) names_version: bool,
    /// A client's `tools/list` (MCP), whose reply may list tools with invalid `x-mcp-header`
    /// annotations ([`Violation::InvalidToolHeaders`](super::Violation::InvalidToolHeaders)).
    pub(super) lists_tools: bool,
    /// An MCP request with a progress token that asks for a task (`params.task`): a
    /// `CreateTaskResult` answering it keeps the token active until the task ends.
    pub(super) task_augmented: bool,
}

impl Waiting {
    /// The client's own id, out of its box, when the session minted one in its place.
    pub(super) fn take_client_id(&mut self) -> Option<IdBuf> {
        self.client_id.take().map(|id| *id)
    }

    /// The progress token the request asked for, if any.
    pub(super) fn progress_token(&self) -> Option<&IdKey> {
        self.progress_token.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request waiting takes 56 bytes beside its id in its table slot (its size is paid
    /// up to about twice, the table less than half full just after it grows): with its
    /// progress token and client id inline it took 120.
    #[test]
    fn a_request_waiting_is_small() {
        assert!(
            std::mem::size_of::<Waiting>() <= 56,
            "{} bytes",
            std::mem::size_of::<Waiting>()
        );
    }
}
