//! `notifications/progress`, read ([`Progress`]) and written ([`write_progress`]), and the
//! progress token a request asks for or a notification reports on ([`progress_token`]).

use bytes::BytesMut;

use crate::encode;
use crate::id::{Id, IdKind};
use crate::json::{JsonStr, Lookup, RawJson};
use crate::message::{Message, Notification, Request};

use super::id_like::id_like;
use super::{extensions, meta_keys, methods};

/// An optional member of `params` read by `read`: `Some(None)` when it is absent, `None`
/// when it is there but cannot be read (`read` fails, or it is ambiguous). A `null` is there,
/// and read like any other value: MCP's optional members are not nullable unless the schema
/// says so (`total?: number`), and `read` refuses it as of another type.
fn optional<'a, T>(
    params: RawJson<'a>,
    key: &str,
    read: impl FnOnce(RawJson<'a>) -> Option<T>,
) -> Option<Option<T>> {
    match params.lookup(key) {
        Lookup::Absent => Some(None),
        Lookup::Found(v) => read(v).map(Some),
        Lookup::Ambiguous | Lookup::Malformed => None,
    }
}

/// Appends a `notifications/progress` on `token` (the request's `_meta.progressToken`, its
/// wire token byte for byte): `progress` so far, with the `total` and a `message` when given.
/// Returns `false`, writing nothing, when `progress` or `total` is not finite (JSON has no NaN
/// or infinity), or when `token` is neither a string nor an integer (MCP's `ProgressToken`:
/// `null` or `1.5` names no request's token).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{mcp, Id};
/// let mut out = BytesMut::new();
/// assert!(mcp::write_progress(&mut out, Id::from_token(b"\"p-1\"").unwrap(), 0.5, Some(1.0), Some("half")));
/// assert_eq!(
///     &out[..],
///     b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p-1\",\"progress\":0.5,\"total\":1.0,\"message\":\"half\"}}\n"
/// );
/// assert!(!mcp::write_progress(&mut out, Id::from_token(b"1").unwrap(), f64::NAN, None, None));
/// assert!(!mcp::write_progress(&mut out, Id::NULL, 1.0, None, None));
/// ```
#[must_use = "nothing is written for a progress or total that is not finite, or a token that is not a string or integer"]
pub fn write_progress(
    out: &mut BytesMut,
    token: Id<'_>,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> bool {
    use core::fmt::Write as _;
    if !progress.is_finite()
        || total.is_some_and(|t| !t.is_finite())
        || matches!(token.kind(), IdKind::Null | IdKind::Number)
    {
        return false;
    }
    out.extend_from_slice(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"#,
    );
    out.extend_from_slice(token.raw());
    // `Debug` of a finite `f64` is a JSON number: the shortest digits that read back as the
    // same value, with an exponent from 1e16 up and below 1e-4 (`1e300`, `5e-324`, where
    // `Display` writes hundreds of digits, and serde_json refuses `f64::MAX` written out),
    // and `.0` on an integer (`-0.0` too, which JSON allows). Writing into a `BytesMut`
    // cannot fail.
    let _ = write!(out, r#","progress":{progress:?}"#);
    if let Some(total) = total {
        let _ = write!(out, r#","total":{total:?}"#);
    }
    if let Some(message) = message {
        out.extend_from_slice(br#","message":"#);
        encode::write_json_string(out, message);
    }
    out.extend_from_slice(b"}}\n");
    true
}

/// `notifications/progress`: progress of a long-running request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress<'a> {
    /// The token the request asked progress for (in its `_meta.progressToken`).
    pub token: Id<'a>,
    /// Progress so far.
    pub progress: f64,
    /// The total, if known.
    pub total: Option<f64>,
    /// A human-readable message, if given.
    pub message: Option<JsonStr<'a>>,
}

impl<'a> Progress<'a> {
    /// Reads a `notifications/progress` notification; `None` for another method or a
    /// malformed one: a token or `progress` missing or that cannot be read, or a `total` or
    /// `message` there that cannot be read (of another type, beyond `f64`, or given twice). A
    /// `null` `total` or `message` is of another type: MCP's schema has `total?: number` and
    /// `message?: string`, which may be left out but not be `null`. Whatever the session's
    /// version: 2024-11-05 has no `message` (2025-03-26 added it), so there a `message` that
    /// is no string is an unknown member, which the schema allows, yet it is refused here as
    /// under later versions, as the TypeScript SDK's `ProgressNotificationSchema` refuses it
    /// (`message: z.optional(z.string())`, for every version). The progress token alone
    /// ([`reported_progress_token`]) still routes such a notification.
    ///
    /// ```
    /// use rpcwire::{mcp::Progress, Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":2}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame) else { panic!() };
    /// assert_eq!(Progress::from_notification(&n).unwrap().total, Some(2.0));
    ///
    /// let frame = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":null}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame) else { panic!() };
    /// assert_eq!(Progress::from_notification(&n), None);
    /// ```
    pub fn from_notification(n: &Notification<'a>) -> Option<Self> {
        if !n.method.eq_str(methods::PROGRESS) {
            return None;
        }
        let params = n.params?;
        Some(Progress {
            token: id_like(params.get(meta_keys::PROGRESS_TOKEN)?)?,
            progress: params.get("progress")?.as_f64()?,
            total: optional(params, "total", |t| t.as_f64())?,
            message: optional(params, "message", |m| m.as_str())?,
        })
    }
}

/// The progress token of a message: the one a request asks progress for
/// (`params._meta.progressToken`), or the one a `notifications/progress` reports on
/// (`params.progressToken`, read alone, so a notification whose `progress` cannot be read
/// still yields its token, where [`Progress::from_notification`] gives `None`). `None` for
/// other messages, and for a token that is not a string or an integer (`IdRemapper` rewrites
/// any number token, `1.5` included; this function does not return one).
///
/// ```
/// use rpcwire::{mcp, Decoder};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"abc123"}}}"#;
/// let msg = Decoder::mcp().decode(frame).unwrap();
/// assert_eq!(mcp::progress_token(&msg).unwrap().raw(), br#""abc123""#);
///
/// let frame = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"abc123","progress":1}}"#;
/// let msg = Decoder::mcp().decode(frame).unwrap();
/// assert_eq!(mcp::progress_token(&msg).unwrap().raw(), br#""abc123""#);
/// ```
pub fn progress_token<'a>(msg: &Message<'a>) -> Option<Id<'a>> {
    match msg {
        Message::Request(r) => requested_progress_token(r),
        Message::Notification(n) => reported_progress_token(n),
        _ => None,
    }
}

/// The progress token a request asks for (`params._meta.progressToken`): [`progress_token`]
/// for a handler that holds the [`Request`] alone. `None` when there is none, when it is
/// neither a string nor an integer (`null` asks for nothing), and when it is ambiguous (given
/// twice, or in a `params` or `_meta` too malformed to read whole): a server sends no progress
/// for such a request.
///
/// ```
/// use rpcwire::{mcp, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert_eq!(mcp::requested_progress_token(&req).unwrap().raw(), b"7");
///
/// let frame = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7,"progressToken":8}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert_eq!(mcp::requested_progress_token(&req), None);
/// ```
pub fn requested_progress_token<'a>(r: &Request<'a>) -> Option<Id<'a>> {
    match progress_token_member(r) {
        Lookup::Found(token) => id_like(token),
        Lookup::Absent | Lookup::Ambiguous | Lookup::Malformed => None,
    }
}

/// A request's `params._meta.progressToken` member, whatever its value: absent, found once,
/// or ambiguous (duplicated, or in an object too malformed to read whole). The one reader of
/// the path; [`progress_token`] and `IdRemapper` apply their own rules to what it finds.
pub(crate) fn progress_token_member<'a>(r: &Request<'a>) -> Lookup<'a> {
    r.params.map_or(Lookup::Absent, |params| {
        params.lookup_path(&["_meta", meta_keys::PROGRESS_TOKEN])
    })
}

/// A request's `params._meta.progressToken` member (as [`progress_token_member`] reads it),
/// its `params.task` member (MCP 2025-11-25: a task-augmented request), and its
/// `params._meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"]`
/// member (MCP 2026-07-28's Tasks extension, declared on the request: "A server **MUST NOT**
/// return `CreateTaskResult` to a client that did not include the extension capability on
/// its request"), in one pass over `params` and one over its `_meta`.
pub(crate) fn progress_task_and_extension_members<'a>(
    r: &Request<'a>,
) -> (Lookup<'a>, Lookup<'a>, Lookup<'a>) {
    let Some(params) = r.params else {
        return (Lookup::Absent, Lookup::Absent, Lookup::Absent);
    };
    let [meta, task] = params.lookup_each(["_meta", "task"]);
    let (token, capabilities) = match meta {
        Lookup::Found(meta) => {
            let [token, capabilities] =
                meta.lookup_each([meta_keys::PROGRESS_TOKEN, meta_keys::CLIENT_CAPABILITIES]);
            (token, capabilities)
        }
        other => (other, other),
    };
    let extension = match capabilities {
        Lookup::Found(capabilities) => capabilities.lookup_path(&["extensions", extensions::TASKS]),
        other => other,
    };
    (token, task, extension)
}

/// The progress token a `notifications/progress` reports on (`params.progressToken`), read
/// alone: [`progress_token`] for a handler that holds the [`Notification`]. `None` for
/// another method, and for a token that is not one string or integer.
///
/// ```
/// use rpcwire::{mcp, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":"half"}}"#;
/// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// assert_eq!(mcp::reported_progress_token(&n).unwrap().raw(), br#""t1""#);
/// assert!(mcp::Progress::from_notification(&n).is_none());
/// ```
pub fn reported_progress_token<'a>(n: &Notification<'a>) -> Option<Id<'a>> {
    if !n.method.eq_str(methods::PROGRESS) {
        return None;
    }
    id_like(n.params?.get(meta_keys::PROGRESS_TOKEN)?)
}
