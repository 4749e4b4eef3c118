//! One item read from a side (a message, a rejected line or an over-long line), and the error
//! reply the proxy sends the client in its place.

use rpcwire::{ErrorCode, Message, Rejection, Reply, ReplyId};

use crate::session::{Verdict, Violation};

/// One framed item, borrowed from the read buffer.
pub(super) enum Seen<'a> {
    Message(Message<'a>, &'a [u8]),
    Rejected(Rejection<'a>, &'a [u8]),
    /// An over-long line, with its length (without its terminator, as a frame's) when known:
    /// when the proxy read its end with its start, in one chunk of whole lines. One whose end
    /// had not come when it crossed the limit is reported then and discarded as it comes,
    /// never held, so its length is never known.
    TooLong(Option<usize>),
}

/// Which lines the proxy answers itself, in place of forwarding them: the client's only (a
/// server's faults are reported, never answered). Never a JSON-RPC batch that is valid JSON:
/// it is forwarded whole and its receiver answers every element, the invalid ones included
/// (§6); an answer from the proxy as well would be a second reply, and could not join the
/// receiver's array. (An empty batch or one that is not JSON is a rejected line like any
/// other, answered with the one -32600 or -32700 the specification calls for.)
pub(super) struct Answering {
    /// Client side.
    pub(super) client: bool,
    /// Answer invalid messages and over-long lines (unless `--drop-invalid`).
    pub(super) invalid: bool,
    /// The reply to an over-long line.
    pub(super) too_long: Reply<'static>,
}

/// An error reply the proxy sends the client itself.
#[derive(Clone, Copy)]
pub(super) struct LocalReply<'a> {
    pub(super) reply: Reply<'a>,
    pub(super) message: &'static str,
}

impl Answering {
    /// The reply to `item`, given the session's verdict on it.
    pub(super) fn reply<'a>(&self, item: &Seen<'a>, verdict: &Verdict) -> Option<LocalReply<'a>> {
        if !self.client {
            return None;
        }
        let local = |id, code: ErrorCode, message| {
            Some(LocalReply {
                reply: Reply { code, id },
                message,
            })
        };
        match (item, verdict.violation) {
            (Seen::Rejected(rej, _), _) if self.invalid => rej.reply().map(|reply| LocalReply {
                reply,
                message: reply.code.default_message().unwrap_or("Error"),
            }),
            (Seen::TooLong(_), _) if self.invalid => Some(LocalReply {
                reply: self.too_long,
                message: "Parse error: frame too long",
            }),
            // A valid request the session does not forward (MCP: a reused id, a second
            // `initialize`; either dialect: too many in flight) is answered whatever the
            // policy for invalid ones. (JSON-RPC forwards a reused id: the server answers it.)
            (Seen::Message(msg, _), Some(Violation::DuplicateId)) if !verdict.forward => local(
                ReplyId::Id(msg.id()?),
                ErrorCode::INVALID_REQUEST,
                // (In flight, or given up on lately: a late reply may still come.)
                "Invalid Request: id reused while a reply to it may still come",
            ),
            (Seen::Message(msg, _), Some(Violation::SecondInitialize)) => local(
                ReplyId::Id(msg.id()?),
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: the session is initialized already",
            ),
            (Seen::Message(msg, _), Some(Violation::TooManyInFlight)) => local(
                ReplyId::Id(msg.id()?),
                ErrorCode::INTERNAL_ERROR,
                "Internal error: too many requests in flight",
            ),
            _ => None,
        }
    }
}
