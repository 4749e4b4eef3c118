//! The id-like values of MCP (request ids and progress tokens): a string or an integer.

use crate::id::{Id, IdKind};
use crate::json::RawJson;

/// An id-like value (a request id or a progress token): a string or an integer; MCP allows
/// nothing else.
pub(super) fn id_like(value: RawJson<'_>) -> Option<Id<'_>> {
    let id = Id::from_token(value.as_bytes())?;
    matches!(id.kind(), IdKind::String { .. } | IdKind::Integer).then_some(id)
}
