//! `notifications/cancelled`: read ([`Cancelled`]), and written for a request id
//! ([`write_cancelled`]) or a [`Token`] ([`write_cancelled_token`]).

use bytes::BytesMut;

use crate::encode;
use crate::id::{Id, IdKind};
use crate::json::JsonStr;
use crate::message::Notification;
use crate::pending::Token;

use super::id_like::id_like;
use super::methods;

/// `notifications/cancelled`: which request the peer gave up on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled<'a> {
    /// The id of the request being cancelled (a string or an integer).
    pub request_id: Id<'a>,
    /// The reason, if given once as a string. (One of another type, `null` included, which
    /// the schema's `reason?: string` does not allow, or one given twice, reads as none: the
    /// request is still cancelled, since what the peer wants of it is clear without the
    /// reason.)
    pub reason: Option<JsonStr<'a>>,
}

impl<'a> Cancelled<'a> {
    /// Reads a `notifications/cancelled` notification; `None` for another method, for one
    /// that names no request (no `requestId`: malformed, but under 2025-11-25, which leaves it
    /// optional for tasks, cancelled with `tasks/cancel` instead), and for a malformed one (a
    /// `requestId` that is not a string or an integer, or one given twice, which peers may
    /// read either way). Such a notification cancels nothing, and is never answered.
    ///
    /// ```
    /// use rpcwire::{mcp::Cancelled, Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"abc","reason":"user"}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame) else { panic!() };
    /// let c = Cancelled::from_notification(&n).unwrap();
    /// assert_eq!(c.request_id.raw(), br#""abc""#);
    /// assert_eq!(c.reason.unwrap().decode(), "user");
    /// ```
    pub fn from_notification(n: &Notification<'a>) -> Option<Self> {
        if !n.method.eq_str(methods::CANCELLED) {
            return None;
        }
        let params = n.params?;
        Some(Cancelled {
            request_id: id_like(params.get("requestId")?)?,
            reason: params.get("reason").and_then(|r| r.as_str()),
        })
    }
}

/// Appends a `notifications/cancelled` for the request `request_id` (its wire token, byte for
/// byte), with an optional reason: what a proxy sends upstream for a request it gave up on
/// (never for `initialize`, which MCP forbids cancelling). Returns `false`, writing nothing,
/// when `request_id` is neither a string nor an integer (MCP: "Requests MUST include a string
/// or integer ID"; `null` or `1.5` names no request a peer can cancel). For a request sent
/// under a [`Token`] (a [`PendingTable`](crate::PendingTable)'s or an
/// [`IdRemapper`](crate::IdRemapper)'s), which is always an integer,
/// [`write_cancelled_token`] writes the same and returns nothing to check.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{mcp, Id};
/// let mut out = BytesMut::new();
/// assert!(mcp::write_cancelled(&mut out, Id::from_token(b"7").unwrap(), Some("timed out")));
/// assert_eq!(
///     &out[..],
///     b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"timed out\"}}\n"
/// );
/// assert!(!mcp::write_cancelled(&mut out, Id::NULL, None));
/// ```
#[must_use = "nothing is written for an id that is not a string or an integer"]
pub fn write_cancelled(out: &mut BytesMut, request_id: Id<'_>, reason: Option<&str>) -> bool {
    if matches!(request_id.kind(), IdKind::Null | IdKind::Number) {
        return false;
    }
    write_cancelled_raw(out, request_id.raw(), reason);
    true
}

/// Appends a `notifications/cancelled` for the request we sent under `token`, with an
/// optional reason: [`write_cancelled`] for a request id that is always an integer, so it
/// always writes. What a gateway sends upstream for a request it gave up on (timed out, its
/// client gone), and a client for one of its own (never for `initialize`, which MCP forbids
/// cancelling).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{mcp, PendingTable};
/// let mut pending = PendingTable::new();
/// let token = pending.insert("tools/call").unwrap();
/// let mut out = BytesMut::new();
/// mcp::write_cancelled_token(&mut out, token, Some("timed out"));
/// let expected = format!(
///     "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{token},\"reason\":\"timed out\"}}}}\n"
/// );
/// assert_eq!(&out[..], expected.as_bytes());
/// ```
pub fn write_cancelled_token(out: &mut BytesMut, token: Token, reason: Option<&str>) {
    write_cancelled_raw(out, token.to_wire(&mut [0; 20]), reason);
}

/// Appends a `notifications/cancelled` for the request id `raw`, a string or an integer
/// token.
fn write_cancelled_raw(out: &mut BytesMut, raw: &[u8], reason: Option<&str>) {
    out.extend_from_slice(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"#,
    );
    out.extend_from_slice(raw);
    if let Some(reason) = reason {
        out.extend_from_slice(br#","reason":"#);
        encode::write_json_string(out, reason);
    }
    out.extend_from_slice(b"}}\n");
}
