//! JSON-RPC 2.0 batches (the `JsonRpc2` dialect; MCP removed them in 2025-06-18 and its
//! dialect keeps rejecting them): the elements decoded one by one with the same decoder,
//! and the rules for the reply.
//!
//! The rules of the specification (§6): a batch that is not valid JSON or is an empty array
//! gets one error object, not an array (the [`Decoder`] already rejects both as a whole);
//! each invalid element gets its own error reply, with id `null` when its id cannot be read;
//! notifications get nothing; the reply is an array of the replies in any order, and when
//! there is nothing to reply (a batch of notifications) nothing at all is sent, never `[]`.
//! [`encode::BatchReply`](crate::encode::BatchReply) writes that array.

use smallvec::SmallVec;

use crate::envelope::Decoder;
use crate::error::DecodeError;
use crate::message::{Batch, Message, Rejection};

/// The outcome of every element of a batch, in order. Up to 8 elements live inline, so
/// decoding a small batch does not allocate.
pub type BatchElements<'a> = SmallVec<[Result<Message<'a>, Rejection<'a>>; 8]>;

impl<'a> Batch<'a> {
    /// Decodes every element with `decoder`, as if each were a frame of its own; a nested
    /// array is not a valid element (-32600, id `null`).
    ///
    /// ```
    /// use rpcwire::{Decoder, ErrorCode, Kind, Message, ReplyId};
    /// let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]},1,{"jsonrpc":"2.0","method":"log"}]"#;
    /// let decoder = Decoder::jsonrpc();
    /// let Ok(Message::Batch(batch)) = decoder.decode(frame) else { panic!() };
    /// let elements = batch.decode(&decoder);
    /// assert_eq!(elements[0].as_ref().unwrap().kind(), Kind::Request);
    /// let reply = elements[1].as_ref().unwrap_err().reply().unwrap();
    /// assert_eq!((reply.code, reply.id), (ErrorCode::INVALID_REQUEST, ReplyId::Null));
    /// assert_eq!(elements[2].as_ref().unwrap().kind(), Kind::Notification);
    /// assert!(rpcwire::batch::expects_reply(&elements));
    /// ```
    pub fn decode(&self, decoder: &Decoder) -> BatchElements<'a> {
        self.raw
            .elements()
            .map(|element| {
                if element.as_bytes().first() == Some(&b'[') {
                    return Err(Rejection {
                        error: DecodeError::NotAnObject,
                        id: None,
                        is_response: false,
                        unreadable_id: decoder.options().unreadable_id,
                    });
                }
                decoder.decode(element.as_bytes())
            })
            .collect()
    }
}

/// Whether any element calls for a reply: a request, or a rejected element that must be
/// answered. When none does, nothing at all is sent back (not even `[]`).
pub fn expects_reply(elements: &[Result<Message<'_>, Rejection<'_>>]) -> bool {
    elements.iter().any(|element| match element {
        Ok(message) => matches!(message, Message::Request(_)),
        Err(rejection) => rejection.reply().is_some(),
    })
}
