//! The `subscriptions/listen` request a notification of its stream belongs to
//! ([`subscription_id`]).

use crate::id::Id;
use crate::message::Notification;

use super::id_like::id_like;
use super::meta_keys;

/// The `subscriptions/listen` request a notification of its stream belongs to (MCP
/// 2026-07-28: `params._meta["io.modelcontextprotocol/subscriptionId"]`, the request's id), as
/// the token on the wire: a string or an integer, else `None`.
///
/// ```
/// use rpcwire::{mcp, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}"#;
/// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// assert_eq!(mcp::subscription_id(&n).unwrap().raw(), br#""listen-1""#);
/// ```
pub fn subscription_id<'a>(n: &Notification<'a>) -> Option<Id<'a>> {
    id_like(n.params?.get("_meta")?.get(meta_keys::SUBSCRIPTION_ID)?)
}
