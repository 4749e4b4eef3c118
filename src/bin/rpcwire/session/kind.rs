//! Message kinds, by name: what each may do, and the violation an invalid one counts as.

use rpcwire::{Message, Rejection};

use super::Violation;

/// The static name of a message kind (unknown kinds count as `invalid`).
pub fn kind_name(kind: &str) -> &'static str {
    const KINDS: [&str; 9] = [
        "request",
        "notification",
        "success_response",
        "error_response",
        "batch",
        "invalid",
        "parse_error",
        "invalid_response",
        "framing_error",
    ];
    KINDS.into_iter().find(|k| *k == kind).unwrap_or("invalid")
}

/// The kind of a decoded frame or batch element, as [`Observation::kind`](super::Observation::kind)
/// names it.
pub fn kind_of(decoded: &Result<Message<'_>, Rejection<'_>>) -> &'static str {
    match decoded {
        Ok(msg) => msg.kind().as_str(),
        Err(rej) => rej.kind_str(),
    }
}

/// Whether a message of this kind may answer the other side: a response, or a notification
/// (MCP's progress reports on a request of the other side).
pub fn may_answer(kind: &str) -> bool {
    matches!(kind, "success_response" | "error_response" | "notification")
}

/// The violation a message that is not valid counts as, by its kind.
pub(super) fn rejected_violation(kind: &str) -> Violation {
    rejected_violation_of(kind).unwrap_or(Violation::Invalid)
}

/// The violation a message of this kind counts as when it is not valid; `None` for the
/// kinds of valid messages.
pub(super) fn rejected_violation_of(kind: &str) -> Option<Violation> {
    match kind {
        "parse_error" => Some(Violation::NotJson),
        "invalid_response" => Some(Violation::InvalidResponse),
        "framing_error" => Some(Violation::TooLong),
        "request" | "notification" | "success_response" | "error_response" | "batch" => None,
        _ => Some(Violation::Invalid),
    }
}
