//! Every breach of the request/reply discipline a session reports, by name.

/// A breach of the protocol seen on the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Violation {
    /// Not a valid message (answered per policy when a client sent it).
    Invalid,
    /// A line that is not JSON; from the server, the "stdout pollution" fault.
    NotJson,
    /// A malformed response.
    InvalidResponse,
    /// A line longer than the frame limit.
    TooLong,
    /// A stream that can be read no further: it ends inside a message, or a `Content-Length`
    /// header block is malformed (in two recorded streams only).
    BadFraming,
    /// A `Content-Length` body whose `Content-Type` names a charset other than UTF-8, or none
    /// that can be read: skipped unread (in two recorded streams only).
    UnsupportedCharset,
    /// A request reusing an id that is still in flight, or one cancelled or timed out lately
    /// (its late reply may still come).
    DuplicateId,
    /// MCP before 2026-07-28: a request reusing the id of one of the requestor's that stopped
    /// waiting lately (answered; one of the last 4,096, fewer when their ids pass 1 MiB): a
    /// request id "MUST NOT have been previously used by the requestor within the same
    /// session". (2026-07-28 forbids only the id of a request "not yet received a response
    /// for": a `duplicate_id`.) Forwarded: the earlier request's reply has come, so its id
    /// answers the new one alone.
    ReusedId,
    /// MCP: a request whose `_meta.progressToken` another request in flight from the same
    /// side already carries (tokens "MUST be unique across all active requests"). Forwarded:
    /// the request is valid, but the progress of the two cannot be told apart.
    DuplicateProgressToken,
    /// A request beyond the session's limit of requests in flight in its direction
    /// (`--max-in-flight`): not forwarded, since its reply could not be matched.
    TooManyInFlight,
    /// A reply whose id matches no request in flight (unknown or already answered).
    UnknownReply,
    /// A reply to a request that was cancelled or timed out.
    LateReply,
    /// A response with a null id that answers no request: an error (the peer answered a
    /// notification, or a line whose id it could not read: every request we forward is valid
    /// and has an id), or a JSON-RPC success when no request with a null id waits (a success's
    /// id is its request's, JSON-RPC 2.0 §5, so it answers nothing either). MCP ids are never
    /// null: there only an error can carry one.
    ReplyWithoutId,
    /// A request still unanswered when the session ended.
    Unanswered,
    /// A request that timed out.
    TimedOut,
    /// A server-to-client request where the negotiated protocol (≥ 2026-07-28) forbids it.
    ServerRequestForbidden,
    /// A `notifications/progress` whose token no request in flight from the other side
    /// carries (MCP: progress MUST only reference the token of an active request): it came
    /// after the result, after a cancellation, or for a token nobody sent. Forwarded: it
    /// asks nothing of the receiver, which ignores it.
    UnknownProgress,
    /// MCP: a `notifications/progress` on an active token whose `progress` is not greater
    /// than the last one reported on that token (the value "MUST increase with each
    /// notification, even if the total is unknown"). The token's history starts when a
    /// request carrying it starts waiting and ends when no request or task carries it any
    /// more. Forwarded: the message is valid, and asks nothing of the receiver.
    ProgressNotIncreasing,
    /// MCP: a `notifications/progress` or `notifications/cancelled` whose params break the
    /// schema of the session's protocol version ([`ParamsFault`](super::ParamsFault)): no
    /// `progressToken` that is a string or an integer, no numeric `progress`, a `total` that
    /// is not a number or (from 2025-03-26) a `message` that is not a string; a `requestId`
    /// that is not a string or an integer, none where the version requires one (every known
    /// version but 2025-11-25), or a `reason` that is not a string. It counts as neither
    /// progress nor a cancellation of anything. Forwarded: it asks nothing of the receiver,
    /// and is never answered.
    InvalidNotificationParams,
    /// A notification of an MCP 2026-07-28 `subscriptions/listen` stream (its `_meta` names
    /// the listen request's id) when no such request of the client's is waiting: the stream
    /// was closed by its result or a cancellation, or never opened. Forwarded: the client
    /// ignores it.
    UnknownSubscription,
    /// MCP 2026-07-28 or later (the session's version): a server's `notifications/cancelled`
    /// that names no listen stream of the client's still open. Servers "MUST NOT send
    /// notifications/cancelled for any other purpose" than tearing down a
    /// `subscriptions/listen` stream. Forwarded unchanged: it asks nothing of the receiver.
    ForbiddenCancellation,
    /// A server's success to a client's `tools/list`, under MCP 2026-07-28 or later, listing
    /// a tool whose `x-mcp-header` annotations break the specification's constraints (see
    /// [`invalid_tool_headers`](super::invalid_tool_headers)): the client "MUST reject" that tool,
    /// so it silently loses it. Flagged once for the response, and forwarded unchanged: the other
    /// tools are good, and the proxy never alters the server's bytes.
    InvalidToolHeaders,
    /// MCP: a client's `notifications/cancelled` for its `initialize` request, which "MUST
    /// NOT be cancelled by clients". Not forwarded; the request stays in flight, so the
    /// server's result is matched as usual.
    CancelledInitialize,
    /// MCP: a client's `initialize` once the server answered one with a success
    /// ("The initialization phase MUST be the first interaction between client and
    /// server"). Not forwarded (the session's protocol version and rules are the first
    /// one's, and a server renegotiating them would leave the proxy checking the session
    /// under others); the client is answered -32600. A second `initialize` sent while the
    /// first still waits, or after it failed, is none.
    SecondInitialize,
    /// MCP: a client's `initialize` whose params break `InitializeRequestParams`
    /// (`protocolVersion` a string, `capabilities` and `clientInfo` objects, each once), or
    /// the server's success to it whose result breaks `InitializeResult` (`protocolVersion`
    /// a string, `capabilities` and `serverInfo` objects, each once; `instructions` a string
    /// if given): which member, [`ParamsFault`](super::ParamsFault). Forwarded unchanged:
    /// the receiver judges the handshake (a server answers -32602), and the request waits
    /// as any other; a result naming a `protocolVersion` still settles the session's.
    InvalidInitialize,
    /// JSON-RPC: a success reply that answers an invalid batch element (owed a -32600, §6),
    /// inside an array or alone with the element's id: the peer took the element for a
    /// request. Forwarded: it is that element's one reply, and the element is owed nothing
    /// more.
    SuccessToInvalid,
}

impl Violation {
    pub fn as_str(self) -> &'static str {
        match self {
            Violation::Invalid => "invalid",
            Violation::NotJson => "not_json",
            Violation::InvalidResponse => "invalid_response",
            Violation::TooLong => "too_long",
            Violation::BadFraming => "bad_framing",
            Violation::UnsupportedCharset => "unsupported_charset",
            Violation::DuplicateId => "duplicate_id",
            Violation::ReusedId => "reused_id",
            Violation::DuplicateProgressToken => "duplicate_progress_token",
            Violation::TooManyInFlight => "too_many_in_flight",
            Violation::UnknownReply => "unknown_reply",
            Violation::LateReply => "late_reply",
            Violation::ReplyWithoutId => "reply_without_id",
            Violation::Unanswered => "unanswered",
            Violation::TimedOut => "timed_out",
            Violation::ServerRequestForbidden => "server_request_forbidden",
            Violation::UnknownProgress => "unknown_progress",
            Violation::ProgressNotIncreasing => "progress_not_increasing",
            Violation::InvalidNotificationParams => "invalid_notification_params",
            Violation::UnknownSubscription => "unknown_subscription",
            Violation::ForbiddenCancellation => "forbidden_cancellation",
            Violation::InvalidToolHeaders => "invalid_tool_headers",
            Violation::CancelledInitialize => "cancelled_initialize",
            Violation::SecondInitialize => "second_initialize",
            Violation::InvalidInitialize => "invalid_initialize",
            Violation::SuccessToInvalid => "success_to_invalid",
        }
    }
}
