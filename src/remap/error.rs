//! [`RemapError`]: why the remapper refused a request, and the error reply its client gets.

use bytes::BytesMut;

use crate::encode;
use crate::error::ErrorCode;
// For the docs' links only.
#[cfg(doc)]
use {super::IdRemapper, crate::id::Id};

/// Why a request could not be forwarded.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RemapError {
    /// The client already has a request with this id in flight (MCP: answer -32600). Ids
    /// compare as JSON values, as [`InFlight`](crate::InFlight) compares them, since the
    /// client would take the two replies for one request's: `"\u0061"` is `"a"`, and in plain
    /// JSON-RPC `1.0` is `1`. ([`IdRemapper::get`] finds a request however its id is spelt,
    /// too, and [`IdRemapper::forward_cancel`] by a `requestId` that is a string (however
    /// escaped) or an integer, by value: `"\u0061"` names `"a"`, and `1` names `1.0`, but a
    /// `requestId` of `1.0` names no request, as its docs say.)
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, Id, IdRemapper, Message, RemapError};
    ///
    /// let mut remap = IdRemapper::new(16);
    /// let mut forward = |frame: &[u8]| {
    ///     let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    ///     remap.forward_request("a", frame, &req, None, &mut BytesMut::new())
    /// };
    /// assert!(forward(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#).is_ok());
    /// let respelt = br#"{"jsonrpc":"2.0","id":"\u0061","method":"ping"}"#;
    /// assert_eq!(forward(respelt), Err(RemapError::DuplicateId));
    /// assert!(remap.get(&"a", Id::from_token(br#""\u0061""#).unwrap()).is_some());
    /// ```
    DuplicateId,
    /// The table of requests in flight holds its number of requests.
    Full {
        /// That number: the remapper's [`capacity_limit`](IdRemapper::capacity_limit).
        limit: usize,
    },
    /// The bytes of the requests' clients' ids and progress tokens would pass
    /// [`IdRemapper::max_bytes`] (as [`InFlightError::OverBudget`] for
    /// [`InFlight`](crate::InFlight)).
    ///
    /// [`InFlightError::OverBudget`]: crate::InFlightError::OverBudget
    OverBudget {
        /// The budget, in bytes: the remapper's [`byte_limit`](IdRemapper::byte_limit).
        budget: usize,
    },
    /// `params._meta.progressToken` is neither a string, a number nor `null`, or occurs
    /// twice: the remapper cannot rewrite it, and an upstream reading it its own way might
    /// report progress on another client's token (MCP: answer -32602). A `null` token is no
    /// error: it is read as asking for no progress, and goes upstream as it came (progress
    /// on a `null` token routes to no client).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, IdRemapper, Message, RemapError};
    ///
    /// let mut remap = IdRemapper::new(16);
    /// let mut forward = |frame: &[u8]| {
    ///     let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    ///     let mut upstream = BytesMut::new();
    ///     remap.forward_request("a", frame, &req, None, &mut upstream).map(|_| upstream)
    /// };
    /// let boolean = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":true}}}"#;
    /// assert_eq!(forward(boolean), Err(RemapError::BadProgressToken));
    /// let null = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":null}}}"#;
    /// let upstream = forward(null).unwrap();
    /// assert!(upstream.ends_with(br#""_meta":{"progressToken":null}}}
    /// "#));
    /// ```
    BadProgressToken,
    /// A `tasks/get`, `tasks/result`, `tasks/cancel` or `tasks/update` names (by
    /// `params.taskId`) a task that another client's request created (MCP 2025-11-25, and the
    /// Tasks extension of 2026-07-28; see [`IdRemapper`]'s section on tasks), or a
    /// `subscriptions/listen` asks for such a task's status (in its
    /// `params.notifications.taskIds`): every client shares the upstream's session, so the
    /// upstream cannot refuse it itself. MCP answers -32602, as for a task the receiver does not know; the reply
    /// ([`write_reply`](Self::write_reply)) reads as one, so that a client cannot tell another
    /// client's task from no task by it. (A task id the remapper does not keep gets the
    /// upstream's own answer, which may read otherwise: see [`IdRemapper`]'s section on tasks
    /// for failing closed. A `subscriptions/listen` naming no task the remapper keeps goes
    /// upstream, which may accept it where this refuses one naming another client's task: by
    /// a listen, a client can tell that an id is some other client's task, though not read
    /// it, since [`route_subscription`](IdRemapper::route_subscription) drops such a task's
    /// `notifications/tasks` on any stream but its client's.)
    ForeignTask,
    /// A `tasks/get`, `tasks/result`, `tasks/cancel` or `tasks/update` whose `params.taskId`
    /// is not one string (absent, another type, or named twice), or a `subscriptions/listen`
    /// whose `params.notifications.taskIds` is not one array of strings: the upstream might
    /// read it as a task the remapper did not check (MCP: answer -32602).
    BadTaskId,
    /// `params` is not JSON where the remapper must read it (its `_meta.progressToken`, a
    /// task request's `taskId`): lazy validation delimits `params` without reading its every
    /// token, so `{"a" 1}` passes the decoder, and the remapper cannot tell what the upstream
    /// would read in it. The frame is not JSON, as a strict decoder would have said: answer
    /// -32700, under the request's id, which could be read.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Decoder, ErrorCode, IdRemapper, Message, RemapError};
    ///
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name" "x"}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// let refused = IdRemapper::new(16).forward_request("a", frame, &req, None, &mut BytesMut::new());
    /// assert_eq!(refused, Err(RemapError::MalformedParams));
    /// assert_eq!(RemapError::MalformedParams.code(), ErrorCode::PARSE_ERROR);
    /// ```
    MalformedParams,
    /// The client holds as many requests in flight and live task routes as
    /// [`IdRemapper::max_per_client`] lets one client hold.
    ClientFull {
        /// That number: the first of the remapper's
        /// [`client_limits`](IdRemapper::client_limits).
        limit: usize,
    },
    /// The bytes of the client's requests in flight and live task routes would pass
    /// [`IdRemapper::max_bytes_per_client`].
    ClientOverBudget {
        /// The budget, in bytes: the second of the remapper's
        /// [`client_limits`](IdRemapper::client_limits).
        budget: usize,
    },
}

impl RemapError {
    /// The error code of the reply the client gets for a request the remapper refused:
    /// -32600 for a reused id, -32602 for a progress token it cannot rewrite or a task the
    /// client may not reach, -32700 for `params` that are not JSON, -32603 when the table, or
    /// the client's share of it, is full or over its budget.
    ///
    /// ```
    /// use rpcwire::{ErrorCode, RemapError};
    /// assert_eq!(RemapError::DuplicateId.code(), ErrorCode::INVALID_REQUEST);
    /// ```
    pub const fn code(self) -> ErrorCode {
        match self {
            RemapError::DuplicateId => ErrorCode::INVALID_REQUEST,
            RemapError::BadProgressToken | RemapError::ForeignTask | RemapError::BadTaskId => {
                ErrorCode::INVALID_PARAMS
            }
            RemapError::MalformedParams => ErrorCode::PARSE_ERROR,
            RemapError::Full { .. }
            | RemapError::OverBudget { .. }
            | RemapError::ClientFull { .. }
            | RemapError::ClientOverBudget { .. } => ErrorCode::INTERNAL_ERROR,
        }
    }

    /// Writes the error reply the client gets for the request the remapper refused: its
    /// [`code`](Self::code), and this error's text as the message (for
    /// [`ForeignTask`](Self::ForeignTask), the text of the specification's example for a task
    /// not found, `Failed to retrieve task: Task not found`), under the request's id (an
    /// [`Id`], or any [`ReplyId`](crate::ReplyId)).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Id, RemapError};
    /// let mut out = BytesMut::new();
    /// RemapError::DuplicateId.write_reply(&mut out, Id::from_token(b"7").unwrap());
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"the client already has a request with this id in flight"}}
    /// "#[..]);
    /// ```
    pub fn write_reply<'i>(self, out: &mut BytesMut, id: impl Into<crate::ReplyId<'i>>) {
        let message = match self {
            // No word of another client: the client learns no more than from the upstream.
            RemapError::ForeignTask => "Failed to retrieve task: Task not found",
            _ => self.as_str(),
        };
        encode::write_error(out, id, self.code(), message, None);
    }

    fn as_str(self) -> &'static str {
        match self {
            RemapError::DuplicateId => "the client already has a request with this id in flight",
            RemapError::Full { .. } => "the table of requests in flight is full",
            RemapError::OverBudget { .. } => {
                "the requests in flight would hold more bytes than their budget"
            }
            RemapError::BadProgressToken => "a progress token that cannot be rewritten",
            RemapError::ForeignTask => "the task named is another client's",
            RemapError::BadTaskId => "a task request whose params.taskId is not one string",
            RemapError::MalformedParams => "params is not valid JSON",
            RemapError::ClientFull { .. } => "the client has too many requests in flight",
            RemapError::ClientOverBudget { .. } => {
                "the client's requests in flight would hold more bytes than its budget"
            }
        }
    }
}

/// The text of the reply's message, and the limit for an error about one (which the
/// reply's message leaves out: how large the remapper is, is the operator's to tell a client
/// or not).
///
/// ```
/// use rpcwire::RemapError;
/// assert_eq!(
///     RemapError::ClientFull { limit: 2 }.to_string(),
///     "the client has too many requests in flight: its limit is 2"
/// );
/// ```
impl core::fmt::Display for RemapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())?;
        match *self {
            RemapError::Full { limit } | RemapError::ClientFull { limit } => {
                write!(f, ": its limit is {limit}")
            }
            RemapError::OverBudget { budget } | RemapError::ClientOverBudget { budget } => {
                write!(f, " of {budget} bytes")
            }
            _ => Ok(()),
        }
    }
}

impl core::error::Error for RemapError {}
