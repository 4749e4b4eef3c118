//! JSON-RPC 2.0 batches (the `JsonRpc2` dialect, and MCP 2025-03-26: see
//! [`DecodeOptions::batches`](crate::DecodeOptions::batches); MCP removed them in 2025-06-18):
//! the elements decoded one by one with the same decoder, and the rules for the reply.
//!
//! The rules of the specification (§6): a batch that is not valid JSON or is an empty array
//! gets one error object, not an array (the [`Decoder`] already rejects both as a whole);
//! each invalid element gets its own error reply, with id `null` when its id cannot be read
//! (the decoder's [`unreadable_id`](crate::DecodeOptions::unreadable_id): in the MCP dialect
//! the id is left out by default);
//! notifications get nothing; the reply is an array of the replies in any order, and when
//! there is nothing to reply (a batch of notifications) nothing at all is sent, never `[]`.
//! [`encode::BatchReply`](crate::encode::BatchReply) writes that array when every reply is
//! at hand; [`Collector`] collects it as the replies come, one by one and in any order (a
//! server's handlers on tasks, a gateway's requests answered upstream), and hands it out when
//! the last one owed has come, answered or forgone.
//!
//! A batch of more elements than [`Limits::max_batch_len`](crate::Limits::max_batch_len) is
//! refused whole, with one -32600 as an empty one is: the errors owed to its invalid elements
//! (some 80 bytes each, for an element as short as `1`) would otherwise make a reply dozens of
//! times the size of the batch.

mod collector;

use core::borrow::Borrow;

use crate::decoder::{Decoder, Dialect};
use crate::error::DecodeError;
use crate::json::Elements;
use crate::message::{Batch, Message, Rejection};

pub use collector::{Collector, CollectorError, Owed, Status};

/// The elements of a batch, each decoded when it is reached ([`Batch::decode`]). Nothing is
/// collected: a batch of millions of elements (a 16 MiB frame holds eight million `1,`; the
/// limit of [`Limits::max_batch_len`](crate::Limits::max_batch_len) may be raised that far)
/// costs no memory beyond its frame, where a vector of outcomes would take ~36 times the
/// frame. [`Batch::decode`]'s example reads the elements.
#[derive(Debug, Clone)]
#[must_use = "iterators are lazy: nothing is decoded until the elements are read"]
pub struct BatchElements<'a, 'd> {
    raw: Elements<'a>,
    decoder: &'d Decoder,
}

impl<'a> Iterator for BatchElements<'a, '_> {
    type Item = Result<Message<'a>, Rejection<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let element = self.raw.next()?;
        if element.as_bytes().first() == Some(&b'[') {
            return Some(Err(Rejection {
                error: DecodeError::NotAnObject,
                id: None,
                is_response: false,
                unreadable_id: self.decoder.options().unreadable_id,
            }));
        }
        let decoded = self.decoder.decode(element.as_bytes());
        if let Ok(Message::Request(request)) = &decoded
            && self.decoder.options().dialect == Dialect::Mcp
            && request.method.eq_str(crate::mcp::methods::INITIALIZE)
        {
            return Some(Err(Rejection {
                error: DecodeError::InitializeInBatch,
                id: Some(request.id),
                is_response: false,
                unreadable_id: self.decoder.options().unreadable_id,
            }));
        }
        Some(decoded)
    }
}

// `Elements` is fused, and every element it yields is decoded.
impl core::iter::FusedIterator for BatchElements<'_, '_> {}

impl<'a> Batch<'a> {
    /// Decodes the elements with `decoder`, one at a time as the iterator is advanced, each as
    /// if it were a frame of its own; a nested array is not a valid element (-32600, with the
    /// decoder's [`unreadable_id`](crate::DecodeOptions::unreadable_id): `null` in JSON-RPC).
    /// Zip it with `self.raw.elements()` for each element's bytes.
    ///
    /// ```
    /// use rpcwire::{Decoder, ErrorCode, Kind, Message, ReplyId};
    /// let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]},1,{"jsonrpc":"2.0","method":"log"}]"#;
    /// let decoder = Decoder::jsonrpc();
    /// let Ok(Message::Batch(batch)) = decoder.decode(frame) else { panic!() };
    /// let mut elements = batch.decode(&decoder);
    /// assert_eq!(elements.next().unwrap().unwrap().kind(), Kind::Request);
    /// let reply = elements.next().unwrap().unwrap_err().reply().unwrap();
    /// assert_eq!((reply.code, reply.id), (ErrorCode::INVALID_REQUEST, ReplyId::Null));
    /// assert_eq!(elements.next().unwrap().unwrap().kind(), Kind::Notification);
    /// assert!(elements.next().is_none());
    /// assert!(rpcwire::batch::expects_reply(batch.decode(&decoder)));
    /// ```
    pub fn decode<'d>(&self, decoder: &'d Decoder) -> BatchElements<'a, 'd> {
        BatchElements {
            raw: self.raw.elements(),
            decoder,
        }
    }
}

/// Whether any element calls for a reply: a request, or a rejected element that must be
/// answered. When none does, nothing at all is sent back (not even `[]`). Takes the
/// elements by value ([`Batch::decode`]) or by reference (a collected slice).
///
/// ```
/// use rpcwire::{batch, Decoder, Message};
/// let decoder = Decoder::jsonrpc();
/// let frame = br#"[{"jsonrpc":"2.0","method":"log","params":["a"]},{"jsonrpc":"2.0","method":"log","params":["b"]}]"#;
/// let Ok(Message::Batch(notifications)) = decoder.decode(frame) else { panic!("a batch") };
/// assert!(!batch::expects_reply(notifications.decode(&decoder))); // send nothing back
///
/// // An invalid element is answered, even among notifications.
/// let frame = br#"[{"jsonrpc":"2.0","method":"log"},{"jsonrpc":"2.0","method":7}]"#;
/// let Ok(Message::Batch(batch)) = decoder.decode(frame) else { panic!("a batch") };
/// let elements: Vec<_> = batch.decode(&decoder).collect();
/// assert!(batch::expects_reply(&elements));
/// ```
pub fn expects_reply<'a, E>(elements: impl IntoIterator<Item = E>) -> bool
where
    E: Borrow<Result<Message<'a>, Rejection<'a>>>,
{
    elements.into_iter().any(|element| match element.borrow() {
        Ok(message) => matches!(message, Message::Request(_)),
        Err(rejection) => rejection.reply().is_some(),
    })
}
