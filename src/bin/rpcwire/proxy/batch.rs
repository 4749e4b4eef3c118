//! The JSON-RPC arrays the proxy sends in a batch's place: the batch rebuilt without the
//! elements the receiver must not get or with the ids the session rewrote, and the answer to
//! the client's batches a dropped server batch answered.

use bytes::{Bytes, BytesMut};
use rpcwire::{ErrorCode, Id, IdBuf, RawJson, Reply, ReplyId, encode, encode::BatchReply};

use crate::session::InPlace;

/// The client's arrays in place of a dropped server batch that answered client batches (the
/// client would wait for them until their deadline, or forever without one): for all that is
/// left of each, one array of a -32603 for each request and a -32600 for each invalid element
/// whose reply is owed, so that one array answers a batch. `None` when there is nothing to
/// answer.
pub(super) fn in_place_of_dropped(answered: &InPlace) -> Option<Bytes> {
    let mut out = BytesMut::new();
    let (mut requests, mut owed) = (0, 0);
    for &(requests_end, owed_end) in &answered.ends {
        let mut array = BatchReply::open(&mut out);
        for id in &answered.requests[requests..requests_end] {
            array.push(|out| {
                encode::write_error(
                    out,
                    id.as_id(),
                    ErrorCode::INTERNAL_ERROR,
                    "Internal error: invalid reply from server",
                    None,
                )
            });
        }
        push_owed_replies(&mut array, &answered.owed[owed..owed_end]);
        array.close();
        (requests, owed) = (requests_end, owed_end);
    }
    (!out.is_empty()).then(|| out.freeze())
}

/// Appends to `array` the -32600 the proxy sends in the server's place for each invalid
/// element of a client batch whose reply is owed (`owed`: the id each carries; `None`: null).
pub(super) fn push_owed_replies(array: &mut BatchReply<'_>, owed: &[Option<IdBuf>]) {
    for id in owed {
        let reply = Reply {
            code: ErrorCode::INVALID_REQUEST,
            id: id
                .as_ref()
                .map_or(ReplyId::Null, |id| ReplyId::Id(id.as_id())),
        };
        array.push(|out| encode::write_reply(out, &reply, None));
    }
}

/// What becomes of one element of a batch that goes on rebuilt ([`rebuilt`]).
pub(super) enum Edit<'a> {
    /// Cut: the receiver must not get it (a late reply: the proxy answered its request
    /// already).
    Cut,
    /// Its id token `old` replaced by `new`, the rest byte for byte: a client request under
    /// the id the session minted, or the server's reply to one with the client's id restored
    /// ([`Verdict::forward_id`](crate::session::Verdict::forward_id)).
    Id { old: Id<'a>, new: IdBuf },
}

/// `batch` with the elements at the indices of `edits` (ascending) cut or given another id,
/// the others byte for byte (a `\r` inside one a space, as in a line forwarded as it came), in
/// order, in a new array (one line). For a batch the receiver needs that holds elements it
/// must not get, or whose ids the session rewrote.
pub(super) fn rebuilt(batch: RawJson<'_>, edits: &[(usize, Edit<'_>)]) -> Bytes {
    let mut out = BytesMut::with_capacity(batch.as_bytes().len() + 1);
    let mut array = BatchReply::open(&mut out);
    let mut edits = edits.iter().peekable();
    for (index, element) in batch.elements().enumerate() {
        let bytes = element.as_bytes();
        match edits.next_if(|(at, _)| *at == index).map(|(_, edit)| edit) {
            Some(Edit::Cut) => {}
            // (`old` was decoded from these bytes: it points into them, as `write_with_id`
            // needs; the trailing `\n` it writes is taken off by the array.)
            Some(Edit::Id { old, new }) => {
                array.push(|out| encode::write_with_id(out, bytes, *old, new.as_id()));
            }
            None => array.push(|out| {
                out.extend(bytes.iter().map(|&b| if b == b'\r' { b' ' } else { b }));
            }),
        }
    }
    array.close();
    out.freeze()
}
