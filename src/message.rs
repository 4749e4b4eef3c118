//! Decoded messages: borrowed views of a frame ([`Message`]) and their owned, zero-copy form
//! ([`OwnedMessage`]).

use bytes::Bytes;

use crate::decoder::{Envelope, Reject, Span};
use crate::error::{DecodeError, ErrorCode};
use crate::id::Id;
use crate::json::{JsonStr, RawJson};

/// The five shapes a valid frame can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A request: `id` and `method`; must be answered.
    Request,
    /// A notification: `method` and no `id` member; never answered.
    Notification,
    /// A success response: `id` and `result`.
    Response,
    /// An error response: `error` and `id`, which is `null` when the request's id could not be
    /// read; MCP also allows leaving the `id` out then (JSON-RPC requires the member).
    ErrorResponse,
    /// A JSON-RPC batch (top-level array), when the decoder's options allow batches.
    Batch,
}

impl Kind {
    /// The name used in reports (`request`, `notification`, `success_response`,
    /// `error_response`, `batch`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Response => "success_response",
            Kind::ErrorResponse => "error_response",
            Kind::Batch => "batch",
        }
    }
}

/// The report name, as [`Kind::as_str`] gives it.
///
/// ```
/// assert_eq!(rpcwire::Kind::Response.to_string(), "success_response");
/// ```
impl core::fmt::Display for Kind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request: the peer waits for a reply carrying the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Request<'a> {
    /// The id, exactly as received.
    pub id: Id<'a>,
    /// The method name (raw; [`JsonStr::decode`] unescapes).
    pub method: JsonStr<'a>,
    /// The raw `params` value, if present (an object or an array).
    pub params: Option<RawJson<'a>>,
}

/// A notification: never answered, not even with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Notification<'a> {
    /// The method name.
    pub method: JsonStr<'a>,
    /// The raw `params` value, if present.
    pub params: Option<RawJson<'a>>,
}

/// A success response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Response<'a> {
    /// The id of the request this answers.
    pub id: Id<'a>,
    /// The raw `result` value.
    pub result: RawJson<'a>,
}

/// The `error` member of an error response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorObject<'a> {
    /// `error.code`.
    pub code: ErrorCode,
    /// `error.message`.
    pub message: JsonStr<'a>,
    /// The raw `error.data` value, if present.
    pub data: Option<RawJson<'a>>,
}

/// The code and the decoded message, `-32601 Method not found` (`data` is left out: it may
/// be large, and is any JSON value). The message is the peer's text as it is, line breaks
/// included (see [`JsonStr`]'s `Display`); `{:?}` escapes them.
///
/// ```
/// use rpcwire::Decoder;
/// let frame = br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"x"}}"#;
/// let reply = Decoder::mcp_client().decode(frame).unwrap();
/// let error = reply.outcome().unwrap().unwrap_err();
/// assert_eq!(error.to_string(), "-32601 Method not found");
/// ```
impl core::fmt::Display for ErrorObject<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} {}", self.code, self.message)
    }
}

/// An error response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorResponse<'a> {
    /// The id of the request this answers: `None` when the member is absent (MCP's form for
    /// "the request's id could not be read"; JSON-RPC refuses it as `MissingId`);
    /// `Some(Id::NULL)` for `"id": null` (JSON-RPC's form, which MCP accepts too).
    ///
    /// ```
    /// use rpcwire::{DecodeError, Decoder, Message};
    /// let absent = br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#;
    /// let Ok(Message::ErrorResponse(e)) = Decoder::mcp_client().decode(absent) else { panic!() };
    /// assert_eq!(e.id, None);
    /// let rejected = Decoder::jsonrpc_client().decode(absent).unwrap_err();
    /// assert_eq!(rejected.error(), DecodeError::MissingId);
    /// ```
    pub id: Option<Id<'a>>,
    /// The error.
    pub error: ErrorObject<'a>,
}

impl<'a> ErrorResponse<'a> {
    /// The id of the request this error answers, for matching it to one sent: `None` when
    /// [`id`](Self::id) is absent or `null`. Such a reply answers a line its sender could not
    /// read, and names no request (a client logs it; the request it may have been waits for
    /// its deadline).
    ///
    /// ```
    /// use rpcwire::{Decoder, Message};
    /// let decoder = Decoder::mcp_client();
    /// for (frame, names) in [
    ///     (&br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}"#[..], Some(&b"3"[..])),
    ///     (br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#, None),
    ///     (br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#, None),
    /// ] {
    ///     let Ok(Message::ErrorResponse(e)) = decoder.decode(frame) else { panic!() };
    ///     assert_eq!(e.request_id().map(|id| id.raw()), names);
    /// }
    /// ```
    pub fn request_id(&self) -> Option<Id<'a>> {
        self.id.filter(|id| !id.is_null())
    }
}

/// A JSON-RPC batch, kept raw. [`Batch::decode`] decodes its elements one by one with the
/// same decoder (and refuses what is not a valid element: a nested array, MCP's `initialize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Batch<'a> {
    /// The whole array.
    pub raw: RawJson<'a>,
}

/// A decoded message, borrowing the frame it came from.
///
/// ```
/// use rpcwire::{Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}"#;
/// match Decoder::mcp().decode(frame) {
///     Ok(Message::Request(req)) => {
///         assert_eq!(req.id.raw(), b"7");
///         assert!(req.method.eq_str("tools/call"));
///         assert_eq!(req.params.unwrap().as_bytes(), br#"{"name":"x"}"#);
///     }
///     other => panic!("unexpected {other:?}"),
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Message<'a> {
    /// A request.
    Request(Request<'a>),
    /// A notification.
    Notification(Notification<'a>),
    /// A success response.
    Response(Response<'a>),
    /// An error response.
    ErrorResponse(ErrorResponse<'a>),
    /// A batch, when [`DecodeOptions::batches`](crate::DecodeOptions::batches) allows it: by
    /// default in JSON-RPC, and in MCP in a 2025-03-26 session. (Where it does not, a batch is
    /// refused whole as `BatchNotAllowed`, in JSON-RPC too.)
    ///
    /// ```
    /// use rpcwire::{DecodeError, DecodeOptions, Decoder, Dialect, Message};
    /// let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    /// assert!(matches!(Decoder::jsonrpc().decode(batch), Ok(Message::Batch(_))));
    /// let no_batches = DecodeOptions { batches: false, ..DecodeOptions::new(Dialect::JsonRpc2) };
    /// let refused = Decoder::new(no_batches).decode(batch).unwrap_err();
    /// assert_eq!(refused.error(), DecodeError::BatchNotAllowed);
    /// ```
    Batch(Batch<'a>),
}

impl<'a> Message<'a> {
    /// The message's shape.
    pub fn kind(&self) -> Kind {
        match self {
            Message::Request(_) => Kind::Request,
            Message::Notification(_) => Kind::Notification,
            Message::Response(_) => Kind::Response,
            Message::ErrorResponse(_) => Kind::ErrorResponse,
            Message::Batch(_) => Kind::Batch,
        }
    }

    /// The id, for requests and responses that carry one.
    pub fn id(&self) -> Option<Id<'a>> {
        match self {
            Message::Request(r) => Some(r.id),
            Message::Response(r) => Some(r.id),
            Message::ErrorResponse(r) => r.id,
            Message::Notification(_) | Message::Batch(_) => None,
        }
    }

    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<JsonStr<'a>> {
        match self {
            Message::Request(r) => Some(r.method),
            Message::Notification(n) => Some(n.method),
            _ => None,
        }
    }

    /// The raw `params`, for requests and notifications that carry them.
    pub fn params(&self) -> Option<RawJson<'a>> {
        match self {
            Message::Request(r) => r.params,
            Message::Notification(n) => n.params,
            _ => None,
        }
    }

    /// What a reply says: its raw `result`, or its error; `None` for a request, a
    /// notification or a batch. (What a caller waiting on a request wants of its reply.)
    ///
    /// ```
    /// use rpcwire::{Decoder, ErrorCode};
    /// let decoder = Decoder::mcp_client();
    /// let ok = decoder.decode(br#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#).unwrap();
    /// assert_eq!(ok.outcome().unwrap().unwrap().as_bytes(), br#"{"a":1}"#);
    /// let err = decoder
    ///     .decode(br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#)
    ///     .unwrap();
    /// assert_eq!(err.outcome().unwrap().unwrap_err().code, ErrorCode::METHOD_NOT_FOUND);
    /// let ping = decoder.decode(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#).unwrap();
    /// assert!(ping.outcome().is_none());
    /// ```
    pub fn outcome(&self) -> Option<Result<RawJson<'a>, ErrorObject<'a>>> {
        match self {
            Message::Response(r) => Some(Ok(r.result)),
            Message::ErrorResponse(e) => Some(Err(e.error)),
            _ => None,
        }
    }
}

/// Where the id the reply must carry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplyId<'a> {
    /// Echo this id, byte for byte.
    Id(Id<'a>),
    /// `"id": null` (JSON-RPC's form when the request's id could not be read).
    Null,
    /// Omit the `id` member (MCP ≥ 2025-11-25's form).
    Absent,
}

/// A request's id, echoed (so `encode::write_error` takes an [`Id`] as it is).
impl<'a> From<Id<'a>> for ReplyId<'a> {
    fn from(id: Id<'a>) -> Self {
        ReplyId::Id(id)
    }
}

/// A kept id, echoed: an error reply written under the id of an
/// [`Origin`](crate::Origin) takes `&origin.id` as it is.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, ErrorCode, IdBuf};
/// let kept = IdBuf::from_i64(7);
/// let mut out = BytesMut::new();
/// encode::write_error(&mut out, &kept, ErrorCode::INTERNAL_ERROR, "timed out", None);
/// assert!(out.starts_with(br#"{"jsonrpc":"2.0","id":7,"error""#));
/// ```
impl<'a> From<&'a crate::IdBuf> for ReplyId<'a> {
    fn from(id: &'a crate::IdBuf) -> Self {
        ReplyId::Id(id.as_id())
    }
}

impl ReplyId<'_> {
    /// The wire token (`null` for [`ReplyId::Null`]) or `None` for [`ReplyId::Absent`].
    pub fn token(&self) -> Option<&[u8]> {
        match self {
            ReplyId::Id(id) => Some(id.raw()),
            ReplyId::Null => Some(b"null"),
            ReplyId::Absent => None,
        }
    }
}

/// The error reply a rejected frame calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reply<'a> {
    /// The error code (-32700 or -32600).
    pub code: ErrorCode,
    /// The id the reply carries.
    pub id: ReplyId<'a>,
}

/// A frame that is not a valid message, with everything needed to answer it (or to know it
/// must not be answered).
///
/// ```
/// use rpcwire::{Decoder, ErrorCode, ReplyId};
/// let rej = Decoder::jsonrpc().decode(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#).unwrap_err();
/// let reply = rej.reply().unwrap();
/// assert_eq!(reply.code, ErrorCode::INVALID_REQUEST);
/// assert!(matches!(reply.id, ReplyId::Id(id) if id.raw() == b"1"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rejection<'a> {
    pub(crate) error: DecodeError,
    pub(crate) id: Option<Id<'a>>,
    pub(crate) is_response: bool,
    pub(crate) unreadable_id: ReplyId<'static>,
}

impl<'a> Rejection<'a> {
    /// Why the frame was rejected.
    pub fn error(&self) -> DecodeError {
        self.error
    }

    /// The frame's id, when it could be read and is valid for the dialect. Never for a frame
    /// that is not JSON ([`DecodeError::is_parse_error`]: a syntax error, invalid UTF-8, data
    /// after the value, a depth or length limit), even one whose id came before the fault: a
    /// JSON parser refuses such a frame whole, so none of its members is taken as said. A
    /// client then cannot tell which of its requests such a line answered, if it was a reply:
    /// that request waits for its deadline.
    ///
    /// ```
    /// use rpcwire::{DecodeError, Decoder};
    /// let decoder = Decoder::mcp_client();
    /// let both = br#"{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"x"}}"#;
    /// assert_eq!(decoder.decode(both).unwrap_err().id().unwrap().raw(), b"5");
    /// let trailing = br#"{"jsonrpc":"2.0","id":5,"result":{}} x"#;
    /// let refused = decoder.decode(trailing).unwrap_err();
    /// assert_eq!((refused.error(), refused.id(), refused.is_response()), (DecodeError::TrailingData, None, false));
    /// ```
    pub fn id(&self) -> Option<Id<'a>> {
        self.id
    }

    /// Whether the frame was a (malformed) response: nobody answers it, but a caller may fail
    /// the pending request its [`id`](Self::id) names.
    pub fn is_response(&self) -> bool {
        self.is_response
    }

    /// The error reply to send, or `None` when none may be sent (a malformed response).
    ///
    /// A frame that is not JSON (or breaks a frame or depth limit) gets -32700 in either
    /// role: whether to send it is the caller's policy. Answer a peer whose requests you read
    /// ([`Role::Server`](crate::Role::Server)); from a server, such a line may have been a
    /// response, which is never answered, and a client usually drops it.
    pub fn reply(&self) -> Option<Reply<'a>> {
        if self.is_response {
            return None;
        }
        let id = match self.id {
            Some(id) if !self.error.is_parse_error() => ReplyId::Id(id),
            _ => self.unreadable_id,
        };
        Some(Reply {
            code: self.error.code(),
            id,
        })
    }

    /// The error reply to send when the frame was a request whose id could be read: the
    /// [`reply`](Self::reply) when it names that id ([`ReplyId::Id`]), else `None`.
    ///
    /// What a client sends of a server's frames it refused: a line that is not JSON may have
    /// been a reply, which is never answered, and a frame without a readable id may have been
    /// a notification, so a client answers neither (see the crate docs, "A client's side").
    /// Nor does it answer a frame with a `method` beside a `result` or an `error`
    /// ([`DecodeError::MethodInResponse`]): it may be a reply echoing a method, and an error
    /// under its id would reach the server as the answer to the server's own request of that
    /// id. A server answers every [`reply`](Self::reply) instead, as JSON-RPC 2.0 has it.
    ///
    /// ```
    /// use rpcwire::{Decoder, ErrorCode, ReplyId};
    /// let decoder = Decoder::mcp_client();
    /// let bad_request = decoder.decode(br#"{"jsonrpc":"2.0","id":"s1","method":"ping","params":[]}"#);
    /// let reply = bad_request.unwrap_err().reply_to_request().unwrap();
    /// assert_eq!(reply.code, ErrorCode::INVALID_REQUEST);
    /// assert!(matches!(reply.id, ReplyId::Id(id) if id.raw() == br#""s1""#));
    /// for unanswered in [
    ///     &b"not json"[..],
    ///     br#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
    ///     br#"{"jsonrpc":"2.0","method":"notifications/progress","params":[]}"#,
    ///     br#"{"jsonrpc":"2.0","id":2,"result":{},"error":{"code":1,"message":"x"}}"#,
    ///     br#"{"jsonrpc":"2.0","id":3,"result":{},"method":"tools/call"}"#,
    /// ] {
    ///     let refused = decoder.decode(unanswered).unwrap_err();
    ///     assert_eq!(refused.reply_to_request(), None, "{refused}");
    /// }
    /// ```
    pub fn reply_to_request(&self) -> Option<Reply<'a>> {
        if self.error == DecodeError::MethodInResponse {
            return None;
        }
        self.reply()
            .filter(|reply| matches!(reply.id, ReplyId::Id(_)))
    }

    /// The report name of this outcome: `parse_error`, `invalid`, or `invalid_response`.
    pub fn kind_str(&self) -> &'static str {
        if self.is_response {
            "invalid_response"
        } else if self.error.is_parse_error() {
            "parse_error"
        } else {
            "invalid"
        }
    }
}

/// What was wrong, for logs: the kind of rejection, the id when it could be read, and the
/// [`DecodeError`].
///
/// ```
/// use rpcwire::Decoder;
/// let decoder = Decoder::mcp();
/// let not_json = decoder.decode(b"{oops").unwrap_err();
/// assert_eq!(not_json.to_string(), "not JSON: unexpected byte");
/// let invalid = decoder.decode(br#"{"jsonrpc":"2.0","id":3}"#).unwrap_err();
/// assert_eq!(invalid.to_string(), "invalid message (id 3): none of method, result, error");
/// let reply = br#"{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}"#;
/// let both = Decoder::mcp_client().decode(reply).unwrap_err();
/// assert_eq!(both.to_string(), "invalid response (id 4): both result and error");
/// ```
impl core::fmt::Display for Rejection<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let what = match self.kind_str() {
            "invalid_response" => "invalid response",
            "parse_error" => "not JSON",
            _ => "invalid message",
        };
        match self.id {
            Some(id) if !self.error.is_parse_error() => {
                write!(f, "{what} (id {id}): {}", self.error)
            }
            _ => write!(f, "{what}: {}", self.error),
        }
    }
}

/// Its text ends with its [`DecodeError`]'s ([`error`](Self::error)), so that error is not
/// given again as the [`source`](core::error::Error::source): a report of the error chain
/// prints each text once.
impl core::error::Error for Rejection<'_> {}

impl Envelope {
    /// The borrowed view of this envelope over the frame it was decoded from. Inlined, so the
    /// envelope just written by the decoder is read field by field, not copied whole first
    /// (a wide copy of narrow fresh stores stalls store-to-load forwarding: tiny −2 %).
    #[inline(always)]
    pub(crate) fn view<'a>(&self, frame: &'a [u8]) -> Message<'a> {
        let raw = |s: Span| RawJson::trusted(&frame[s.range()]);
        let id = self.id.map(|(s, kind)| Id::new(&frame[s.range()], kind));
        let text = self
            .text
            .map(|(s, esc)| JsonStr::from_raw(&frame[s.range()], esc));
        match self.kind {
            Kind::Request => Message::Request(Request {
                id: id.unwrap_or(Id::NULL),
                method: text.unwrap_or(JsonStr::from_raw(b"", false)),
                params: self.payload.map(raw),
            }),
            Kind::Notification => Message::Notification(Notification {
                method: text.unwrap_or(JsonStr::from_raw(b"", false)),
                params: self.payload.map(raw),
            }),
            Kind::Response => Message::Response(Response {
                id: id.unwrap_or(Id::NULL),
                result: self.payload.map(raw).unwrap_or(RawJson::trusted(b"null")),
            }),
            Kind::ErrorResponse => Message::ErrorResponse(ErrorResponse {
                id,
                error: ErrorObject {
                    code: ErrorCode(self.error_code),
                    message: text.unwrap_or(JsonStr::from_raw(b"", false)),
                    data: self.error_data.map(raw),
                },
            }),
            Kind::Batch => Message::Batch(Batch {
                raw: self.payload.map(raw).unwrap_or(RawJson::trusted(b"[]")),
            }),
        }
    }
}

/// A decoded message that owns its frame: the frame's [`Bytes`] plus the spans of the envelope
/// members. `Send + 'static`, made without copying the frame. A frame cut from a read buffer
/// shares its allocation: a message kept long keeps the whole buffer alive (see
/// [`LineFramer`](crate::LineFramer)).
///
/// ```
/// use bytes::Bytes;
/// use rpcwire::{Decoder, OwnedMessage};
/// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
/// let msg = OwnedMessage::decode(&Decoder::mcp(), frame).unwrap();
/// std::thread::spawn(move || assert!(msg.message().method().unwrap().eq_str("notifications/initialized")))
///     .join()
///     .unwrap();
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct OwnedMessage {
    frame: Bytes,
    envelope: Envelope,
}

impl OwnedMessage {
    /// Decodes `frame` and keeps it, or hands back the rejection together with the frame.
    ///
    /// # Errors
    ///
    /// An [`OwnedRejection`] for the frames [`Decoder::decode`](crate::Decoder::decode)
    /// rejects, with the same [`Rejection`] ([`OwnedRejection::rejection`]).
    pub fn decode(decoder: &crate::Decoder, frame: Bytes) -> Result<OwnedMessage, OwnedRejection> {
        match decoder.decode_spans(&frame) {
            Ok(envelope) => Ok(OwnedMessage { frame, envelope }),
            Err(reject) => Err(OwnedRejection {
                frame,
                reject,
                unreadable_id: decoder.options().unreadable_id,
            }),
        }
    }

    /// The borrowed view.
    pub fn message(&self) -> Message<'_> {
        self.envelope.view(&self.frame)
    }

    /// The frame's bytes, exactly as received (without the line terminator).
    pub fn frame(&self) -> &Bytes {
        &self.frame
    }

    /// The message's shape.
    pub fn kind(&self) -> Kind {
        self.envelope.kind
    }

    /// The id, for requests and responses that carry one: [`Message::id`] of the
    /// [`message`](Self::message).
    ///
    /// ```
    /// use bytes::Bytes;
    /// use rpcwire::{Decoder, OwnedMessage};
    /// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
    /// let reply = OwnedMessage::decode(&Decoder::mcp_client(), frame).unwrap();
    /// assert_eq!(reply.id().unwrap().raw(), br#""a""#);
    /// ```
    pub fn id(&self) -> Option<Id<'_>> {
        self.message().id()
    }

    /// The params of a request or a notification, as [`Bytes`] that share the frame: no
    /// copy, and `Send + 'static`, to hand to the task that serves the request. `None` for a
    /// message without params and for the other shapes.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use rpcwire::{Decoder, OwnedMessage};
    /// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#);
    /// let msg = OwnedMessage::decode(&Decoder::mcp(), frame.clone()).unwrap();
    /// let params = msg.params_bytes().unwrap();
    /// assert_eq!(&params[..], br#"{"name":"add"}"#);
    /// assert_eq!(params.as_ptr(), frame[frame.len() - 15..].as_ptr()); // the frame's own bytes
    /// ```
    pub fn params_bytes(&self) -> Option<Bytes> {
        match self.envelope.kind {
            Kind::Request | Kind::Notification => self.span_bytes(self.envelope.payload),
            _ => None,
        }
    }

    /// The result of a success response, as [`Bytes`] that share the frame (no copy): what
    /// a client hands to the task awaiting the reply. `None` for the other shapes.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use rpcwire::{Decoder, OwnedMessage};
    /// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#);
    /// let reply = OwnedMessage::decode(&Decoder::mcp_client(), frame).unwrap();
    /// assert_eq!(&reply.result_bytes().unwrap()[..], br#"{"tools":[]}"#);
    /// ```
    pub fn result_bytes(&self) -> Option<Bytes> {
        match self.envelope.kind {
            Kind::Response => self.span_bytes(self.envelope.payload),
            _ => None,
        }
    }

    /// `part`, a slice of this message's frame (an id's token, a method's text, an error's
    /// `data`, a member [`RawJson::get`] found in the params), as [`Bytes`] that share the
    /// frame: no copy. `None` when `part` does not lie inside the frame, an empty `part` too
    /// (an empty one at the frame's end lies inside it). `self.frame().slice_ref(part)`
    /// panics on a `part` from outside, unless it is empty: then it gives an empty `Bytes`.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use rpcwire::{Decoder, Message, OwnedMessage};
    /// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"busy","data":{"retry":5}}}"#);
    /// let reply = OwnedMessage::decode(&Decoder::mcp_client(), frame).unwrap();
    /// let Message::ErrorResponse(e) = reply.message() else { unreachable!() };
    /// let data = reply.slice(e.error.data.unwrap().as_bytes()).unwrap();
    /// assert_eq!(&data[..], br#"{"retry":5}"#);
    /// assert_eq!(reply.slice(b"{\"retry\":5}"), None); // equal bytes, but not the frame's
    /// ```
    pub fn slice(&self, part: &[u8]) -> Option<Bytes> {
        crate::encode::range_in(&self.frame, part).map(|range| self.frame.slice(range))
    }

    fn span_bytes(&self, span: Option<Span>) -> Option<Bytes> {
        span.map(|s| self.frame.slice(s.range()))
    }
}

/// Shows as the borrowed [`Message`] does (its frame's text, not a list of bytes).
///
/// ```
/// use bytes::Bytes;
/// use rpcwire::{Decoder, OwnedMessage};
/// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
/// let owned = OwnedMessage::decode(&Decoder::mcp(), frame.clone()).unwrap();
/// let shown = format!("{owned:?}");
/// assert_eq!(shown, format!("{:?}", Decoder::mcp().decode(&frame).unwrap()));
/// assert!(shown.starts_with("Notification") && shown.contains("notifications/initialized"));
/// ```
impl core::fmt::Debug for OwnedMessage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.message(), f)
    }
}

/// A rejected frame that owns its bytes: the owned counterpart of [`Rejection`], which
/// [`rejection`](Self::rejection) borrows (its error, its id, the reply it calls for);
/// [`error`](Self::error), [`id`](Self::id), [`is_response`](Self::is_response) and
/// [`reply`](Self::reply) answer as the borrowed view does.
///
/// ```
/// use bytes::{Bytes, BytesMut};
/// use rpcwire::{encode, DecodeError, Decoder, OwnedMessage};
/// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":4}"#);
/// let refused = OwnedMessage::decode(&Decoder::mcp(), frame).unwrap_err();
/// let rejection = refused.rejection();
/// assert_eq!(rejection.error(), DecodeError::NoMethodNoResult);
/// let mut out = BytesMut::new();
/// encode::write_reply(&mut out, &rejection.reply().unwrap(), None);
/// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request"}}
/// "#[..]);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct OwnedRejection {
    frame: Bytes,
    reject: Reject,
    unreadable_id: ReplyId<'static>,
}

impl OwnedRejection {
    /// The borrowed view.
    pub fn rejection(&self) -> Rejection<'_> {
        self.reject.view(&self.frame, self.unreadable_id)
    }

    /// The frame's bytes, exactly as received.
    pub fn frame(&self) -> &Bytes {
        &self.frame
    }

    /// Why the frame was rejected: [`Rejection::error`] of the
    /// [`rejection`](Self::rejection).
    pub fn error(&self) -> DecodeError {
        self.reject.error
    }

    /// The error reply to send, or `None` when none may be sent (a malformed response):
    /// [`Rejection::reply`] of the [`rejection`](Self::rejection), which says when to send it.
    ///
    /// ```
    /// use bytes::{Bytes, BytesMut};
    /// use rpcwire::{encode, Decoder, OwnedMessage};
    /// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":4,"method":7}"#);
    /// let refused = OwnedMessage::decode(&Decoder::mcp(), frame).unwrap_err();
    /// let mut out = BytesMut::new();
    /// if let Some(reply) = refused.reply() {
    ///     encode::write_reply(&mut out, &reply, None);
    /// }
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request"}}
    /// "#[..]);
    /// ```
    pub fn reply(&self) -> Option<Reply<'_>> {
        self.rejection().reply()
    }

    /// The error reply to send when the frame was a request whose id could be read:
    /// [`Rejection::reply_to_request`] of the [`rejection`](Self::rejection), what a client
    /// answers of a server's frames.
    pub fn reply_to_request(&self) -> Option<Reply<'_>> {
        self.rejection().reply_to_request()
    }

    /// The frame's id, when it could be read and is valid for the dialect: [`Rejection::id`]
    /// of the [`rejection`](Self::rejection).
    ///
    /// A malformed reply is never answered, but its id may name the request to fail:
    ///
    /// ```
    /// use bytes::Bytes;
    /// use rpcwire::{Decoder, OwnedMessage};
    /// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":9,"result":{},"error":{"code":1,"message":"x"}}"#);
    /// let refused = OwnedMessage::decode(&Decoder::mcp_client(), frame).unwrap_err();
    /// assert_eq!((refused.id().unwrap().raw(), refused.is_response()), (&b"9"[..], true));
    /// assert!(refused.reply().is_none());
    /// ```
    pub fn id(&self) -> Option<Id<'_>> {
        self.rejection().id()
    }

    /// Whether the frame was a (malformed) response: [`Rejection::is_response`] of the
    /// [`rejection`](Self::rejection).
    pub fn is_response(&self) -> bool {
        self.reject.is_response
    }
}

impl Reject {
    pub(crate) fn view<'a>(
        &self,
        frame: &'a [u8],
        unreadable_id: ReplyId<'static>,
    ) -> Rejection<'a> {
        Rejection {
            error: self.error,
            id: self.id.map(|(s, kind)| Id::new(&frame[s.range()], kind)),
            is_response: self.is_response,
            unreadable_id,
        }
    }
}

impl core::fmt::Debug for OwnedRejection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.rejection(), f)
    }
}

/// As [`Rejection`]'s. An `OwnedRejection` is `'static`, so it goes into a
/// `Box<dyn Error>` (or an `io::Error`) as it is.
///
/// ```
/// use bytes::Bytes;
/// use rpcwire::{Decoder, OwnedMessage};
/// fn decode(frame: Bytes) -> Result<OwnedMessage, Box<dyn std::error::Error>> {
///     Ok(OwnedMessage::decode(&Decoder::mcp(), frame)?)
/// }
/// let err = decode(Bytes::from_static(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#)).unwrap_err();
/// assert_eq!(err.to_string(), r#"invalid message (id 1): "jsonrpc" must be exactly "2.0""#);
/// ```
impl core::fmt::Display for OwnedRejection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.rejection(), f)
    }
}

/// Its text ends with its [`DecodeError`]'s ([`error`](Self::error)), so that error is not
/// given again as the [`source`](core::error::Error::source): a report of the error chain
/// prints each text once.
impl core::error::Error for OwnedRejection {}
