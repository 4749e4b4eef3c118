//! The decoder: one pass over a frame's envelope (member spans, duplicate keys, the
//! version), then the shape rules of its dialect. In the order a frame meets them:
//!
//! - `options`: what configures a [`Decoder`] (dialect, role, validation, limits, profiles);
//! - here, the entry points: the limit, UTF-8, then the straight path or the general walk;
//! - `usual`: the straight path for the compact shapes nearly every encoder writes (and for
//!   the same shapes spaced as Python's `json.dumps` writes them);
//! - `walk`: the general walk over an envelope object (or a batch), member by member, with
//!   `keys`, the envelope's member names read from raw bytes or after unescaping;
//! - `rules`: the shape rules of each dialect applied to what the walk found, and the error
//!   each violation is;
//! - `long_object`: a long object in lazy mode, its UTF-8 checked after the walk and, in a
//!   stream, its line found in the same pass.
//!
//! Off that path, `error_offset`: where a refused frame stops being JSON
//! ([`Decoder::parse_error_offset`]), for logs.

mod error_offset;
mod keys;
mod long_object;
mod options;
mod rules;
mod usual;
mod walk;

pub use options::{DecodeOptions, Dialect, Role};

use crate::error::{DecodeError, ErrorCode};
use crate::id::IdKind;
use crate::message::{Kind, Message, Rejection, Reply};
use crate::scan::{self, scalar::skip_ws};

/// Decodes frames into [`Message`]s in one pass, or explains why a frame is rejected and
/// what must be answered.
///
/// ```
/// use rpcwire::{Decoder, ErrorCode, Kind, ReplyId};
/// let dec = Decoder::mcp();
/// let msg = dec.decode(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
/// assert_eq!(msg.kind(), Kind::Notification);
///
/// let rej = dec.decode(br#"{"jsonrpc":"2.0","id":1,"meth"#).unwrap_err();
/// let reply = rej.reply().unwrap();
/// assert_eq!(reply.code, ErrorCode::PARSE_ERROR);
/// assert_eq!(reply.id, ReplyId::Absent);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decoder {
    options: DecodeOptions,
    /// Whether the straight path for the usual shapes may run ([`Decoder::decode_usual`]):
    /// not when hardened, nor under a depth limit of 0, which refuses the envelope object
    /// itself (the walk says so). One flag, set once: the check is on every message's path.
    usual: bool,
}

/// [`Decoder::mcp`]: MCP, reading what a client writes (the default [`DecodeOptions`]).
///
/// ```
/// use rpcwire::Decoder;
/// assert_eq!(Decoder::default(), Decoder::mcp());
/// ```
impl Default for Decoder {
    fn default() -> Self {
        Self::new(DecodeOptions::default())
    }
}

/// A span of a frame, as offsets (frames are limited well below 4 GiB).
///
/// Aligned to 8 so that a span is copied as one word: spans are written and soon read back
/// as members move into the envelope, and two 4-byte stores read by one 8-byte load stall
/// store-to-load forwarding (tiny −3.5 %, typical −2 %).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(align(8))]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl Span {
    #[inline(always)]
    pub(crate) fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    #[inline(always)]
    pub(crate) fn range(self) -> core::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The span of `part`, a subslice of `whole`.
    pub(crate) fn within(whole: &[u8], part: &[u8]) -> Span {
        let start = part.as_ptr() as usize - whole.as_ptr() as usize;
        Span::new(start, start + part.len())
    }
}

/// A decoded message as spans into its frame: what an owned message keeps beside the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Envelope {
    pub(crate) kind: Kind,
    pub(crate) id: Option<(Span, IdKind)>,
    /// `method` for requests and notifications, `error.message` for error responses.
    pub(crate) text: Option<(Span, bool)>,
    /// `params`, `result`, or the batch array.
    pub(crate) payload: Option<Span>,
    pub(crate) error_code: i64,
    pub(crate) error_data: Option<Span>,
}

/// A rejection as spans (converted to a borrowed [`Rejection`] at the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reject {
    pub(crate) error: DecodeError,
    pub(crate) id: Option<(Span, IdKind)>,
    pub(crate) is_response: bool,
}

impl Reject {
    fn parse(e: impl Into<DecodeError>) -> Reject {
        Reject {
            error: e.into(),
            id: None,
            is_response: false,
        }
    }
}

impl Decoder {
    /// A decoder with these options.
    pub const fn new(options: DecodeOptions) -> Self {
        let usual = !options.hardened && options.limits.max_depth > 0;
        Decoder { options, usual }
    }

    /// A decoder for MCP with the default options (lazy validation, reading as a server):
    /// a server's decoder, for what a client writes. [`mcp_client`](Self::mcp_client) is
    /// named for who decodes, not for who wrote: it is a client's decoder, for what a server
    /// writes.
    pub const fn mcp() -> Self {
        Self::new(DecodeOptions::new(Dialect::Mcp))
    }

    /// A decoder for plain JSON-RPC 2.0 with the default options.
    pub const fn jsonrpc() -> Self {
        Self::new(DecodeOptions::new(Dialect::JsonRpc2))
    }

    /// A decoder for MCP reading what a server wrote (`Role::Client`): a client, or a
    /// gateway's upstream side. It differs from [`mcp`](Self::mcp) on one frame: an `id`
    /// alone is an invalid response nobody answers, not an invalid request.
    ///
    /// ```
    /// use rpcwire::{Decoder, DecodeError};
    /// let rej = Decoder::mcp_client().decode(br#"{"jsonrpc":"2.0","id":1}"#).unwrap_err();
    /// assert_eq!(rej.error(), DecodeError::NoMethodNoResult);
    /// assert!(rej.reply().is_none());
    /// let rej = Decoder::mcp().decode(br#"{"jsonrpc":"2.0","id":1}"#).unwrap_err();
    /// assert!(rej.reply().is_some());
    /// ```
    pub const fn mcp_client() -> Self {
        let mut options = DecodeOptions::new(Dialect::Mcp);
        options.role = Role::Client;
        Self::new(options)
    }

    /// [`jsonrpc`](Self::jsonrpc) reading what a server wrote (`Role::Client`), as
    /// [`mcp_client`](Self::mcp_client) is for MCP.
    pub const fn jsonrpc_client() -> Self {
        let mut options = DecodeOptions::new(Dialect::JsonRpc2);
        options.role = Role::Client;
        Self::new(options)
    }

    /// The options.
    pub const fn options(&self) -> &DecodeOptions {
        &self.options
    }

    /// This decoder with [`Validation::Strict`](crate::Validation::Strict), its other options
    /// (dialect, role, limits, the version's rules) kept: every payload is held to RFC 8259, so
    /// that a request whose params are not JSON gets -32700, and a proxy forwards nothing its
    /// peer's parser would refuse (see [`Validation`](crate::Validation)). The same as
    /// `Decoder::new(DecodeOptions { validation: Validation::Strict, ..*decoder.options() })`.
    ///
    /// ```
    /// use rpcwire::{Decoder, Validation};
    /// let server = Decoder::mcp().strict();
    /// let upstream = Decoder::mcp_client().strict();
    /// assert_eq!(server.options().validation, Validation::Strict);
    /// assert_eq!(upstream.options().role, Decoder::mcp_client().options().role);
    /// // Lazy validation delimits `{"name" "add"}` and lets it through; strict refuses it.
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name" "add"}}"#;
    /// assert!(Decoder::mcp().decode(frame).is_ok());
    /// assert!(server.decode(frame).unwrap_err().error().is_parse_error());
    /// ```
    #[must_use]
    pub const fn strict(&self) -> Self {
        let mut options = self.options;
        options.validation = crate::Validation::Strict;
        Self::new(options)
    }

    /// This decoder under the rules of MCP protocol `version`, its other options (role,
    /// validation, limits, hardening) kept: what a session switches to once `initialize` has
    /// settled the version ([`DecodeOptions::for_protocol_version`]).
    ///
    /// ```
    /// use rpcwire::{Decoder, DecodeOptions, Message};
    /// let mut options = DecodeOptions::default();
    /// options.limits.max_frame = 1 << 20;
    /// let decoder = Decoder::new(options);
    /// let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    /// assert!(decoder.decode(batch).is_err()); // the latest version has no batches
    /// let session = decoder.for_protocol_version("2025-03-26");
    /// assert!(matches!(session.decode(batch), Ok(Message::Batch(_))));
    /// assert_eq!(session.options().limits.max_frame, 1 << 20);
    /// ```
    #[must_use]
    pub fn for_protocol_version(&self, version: &str) -> Self {
        Self::new(self.options.for_protocol_version(version))
    }

    /// A newline framer with this decoder's frame limit ([`Limits::max_frame`]): a framer
    /// built with a higher limit of its own hands out frames this decoder then refuses
    /// (`FrameTooLong`, -32700), and one with a lower limit refuses frames it would read.
    ///
    /// [`Limits::max_frame`]: crate::Limits::max_frame
    ///
    /// ```
    /// use rpcwire::{DecodeOptions, Decoder};
    /// let mut options = DecodeOptions::default();
    /// options.limits.max_frame = 32 << 20;
    /// let decoder = Decoder::new(options);
    /// assert_eq!(decoder.line_framer().max_frame(), 32 << 20);
    /// assert_eq!(decoder.sse_framer().max_frame(), 32 << 20);
    /// assert_eq!(decoder.content_length_framer().max_frame(), 32 << 20);
    /// ```
    pub fn line_framer(&self) -> crate::LineFramer {
        crate::LineFramer::new(self.options.limits.max_frame)
    }

    /// An SSE framer with this decoder's frame limit (see [`Self::line_framer`]).
    pub fn sse_framer(&self) -> crate::SseFramer {
        crate::SseFramer::new(self.options.limits.max_frame)
    }

    /// A `Content-Length` framer with this decoder's frame limit (see [`Self::line_framer`]).
    pub fn content_length_framer(&self) -> crate::ContentLengthFramer {
        crate::ContentLengthFramer::new(self.options.limits.max_frame)
    }

    /// The reply to a frame a framer refused unread, whose id therefore cannot be known:
    /// -32700 with this decoder's [`unreadable_id`](DecodeOptions::unreadable_id), the reply
    /// [`Rejection::reply`] gives any frame that is not JSON. A framer refuses a frame unread
    /// when it is too long (a line or an SSE event,
    /// [`FrameError::TooLong`](crate::FrameError::TooLong); a `Content-Length` body,
    /// [`ContentLengthError::TooLong`](crate::ContentLengthError::TooLong)), or when it is a
    /// `Content-Length` body in a charset other than UTF-8
    /// ([`ContentLengthError::UnsupportedCharset`](crate::ContentLengthError::UnsupportedCharset)).
    ///
    /// Whether to send it is the caller's policy, as for [`Rejection::reply`]: send it only to
    /// a peer whose requests you read (`Role::Server`), since an over-long line from a server
    /// may have been a response, which is never answered.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{encode, Decoder, ErrorCode, ReplyId};
    /// let decoder = Decoder::mcp();
    /// let reply = decoder.parse_error_reply();
    /// assert_eq!((reply.code, reply.id), (ErrorCode::PARSE_ERROR, ReplyId::Absent));
    /// assert_eq!(decoder.decode(b"{oops").unwrap_err().reply(), Some(reply));
    /// let mut out = BytesMut::new();
    /// encode::write_reply(&mut out, &reply, None);
    /// let line = br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#;
    /// assert_eq!(out[..], [&line[..], b"\n"].concat());
    /// ```
    pub const fn parse_error_reply(&self) -> Reply<'static> {
        Reply {
            code: ErrorCode::PARSE_ERROR,
            id: self.options.unreadable_id,
        }
    }

    /// The former name of [`Self::parse_error_reply`], from when an over-long frame was the
    /// only one a framer refused unread.
    #[deprecated(note = "renamed `parse_error_reply`: it answers more than an over-long frame")]
    pub const fn too_long_reply(&self) -> Reply<'static> {
        self.parse_error_reply()
    }

    /// Decodes one frame: a line without its terminator, an SSE event's data, or a
    /// `Content-Length` body (as the framers hand them out).
    ///
    /// A frame holds one message, or a batch where the options allow one. The [`Message`]
    /// borrows the frame: its id, method and payloads are spans of it, read lazily, not
    /// copies. To keep a message past the frame's borrow, decode an
    /// [`OwnedMessage`](crate::OwnedMessage) instead.
    ///
    /// # Errors
    ///
    /// A [`Rejection`] when the frame is not a valid message under the decoder's
    /// [`DecodeOptions`]: either it is not JSON ([`DecodeError::is_parse_error`]: a syntax
    /// error, invalid UTF-8, an empty frame, data after the value, a frame or depth limit
    /// crossed, and when [hardened](DecodeOptions::hardened) a carriage return inside the
    /// frame), or it is JSON that breaks an envelope rule of the dialect and role (a
    /// `"jsonrpc"` other than `"2.0"`, an id or `params` of the wrong type, a batch where
    /// none is allowed, …). [`Rejection::error`] says which [`DecodeError`].
    ///
    /// [`Rejection::reply`] is the error reply the frame calls for: -32700 for a frame that
    /// is not JSON, -32600 for any other. It carries the frame's id when it could be read and
    /// is valid for the dialect ([`Rejection::id`]; never for a frame that is not JSON), else
    /// the decoder's [`unreadable_id`](DecodeOptions::unreadable_id): none in MCP, `null` in
    /// JSON-RPC 2.0. It is `None` for a malformed response, which nobody answers
    /// ([`Rejection::is_response`]); a frame that is not JSON is never taken for one, and
    /// gets -32700. Whether to send the reply is the caller's policy: a server sends each
    /// one; a client sends only [`Rejection::reply_to_request`].
    ///
    /// [`DecodeError`]: crate::DecodeError
    /// [`DecodeError::is_parse_error`]: crate::DecodeError::is_parse_error
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{encode, Decoder, Message, ReplyId};
    /// let decoder = Decoder::mcp();
    ///
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    /// let Ok(Message::Request(req)) = decoder.decode(frame) else { panic!() };
    /// assert_eq!((req.id.raw(), &*req.method.decode()), (&b"1"[..], "tools/list"));
    ///
    /// let mut out = BytesMut::new();
    /// for bad in [&b"{oops"[..], br#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#] {
    ///     let rejection = decoder.decode(bad).unwrap_err();
    ///     if let Some(reply) = rejection.reply() {
    ///         encode::write_reply(&mut out, &reply, None);
    ///     }
    /// }
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}
    /// {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request"}}
    /// "#[..]);
    ///
    /// // An id MCP refuses is not echoed.
    /// let reply = decoder.decode(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).unwrap_err().reply();
    /// assert_eq!(reply.unwrap().id, ReplyId::Absent);
    ///
    /// // A malformed response is never answered.
    /// let both = br#"{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"x"}}"#;
    /// let rejection = Decoder::mcp_client().decode(both).unwrap_err();
    /// assert!(rejection.is_response() && rejection.reply().is_none());
    /// ```
    // Always inlined: the message is then built in the caller's registers instead of being
    // written to memory and read back (tiny −3.4 % in a caller that reads the id, method and
    // payload of every message).
    #[inline(always)]
    pub fn decode<'a>(&self, frame: &'a [u8]) -> Result<Message<'a>, Rejection<'a>> {
        self.view(frame, self.decode_spans(frame))
    }

    /// Decodes every line of a complete buffer (a capture, a file, a body of
    /// newline-delimited messages): [`Lines`](crate::Lines) with this decoder's frame limit,
    /// and [`Self::decode`] of each frame, in one pass over each long line. See
    /// [`DecodeLines`](crate::DecodeLines).
    pub fn decode_lines<'a>(&self, input: &'a [u8]) -> crate::DecodeLines<'a> {
        crate::DecodeLines::new(*self, input)
    }

    /// What [`Self::decode`] makes of `decode_spans`'s answer for `frame`.
    #[inline(always)]
    pub(crate) fn view<'a>(
        &self,
        frame: &'a [u8],
        decoded: Result<Envelope, Reject>,
    ) -> Result<Message<'a>, Rejection<'a>> {
        match decoded {
            Ok(env) => Ok(env.view(frame)),
            Err(r) => Err(r.view(frame, self.options.unreadable_id)),
        }
    }

    /// Decodes one frame into spans: the form an owned message keeps.
    // Always inlined for a short ASCII frame of the usual shape, which is then decoded in the
    // caller's registers, its envelope not written to memory and read back (tiny −5 %);
    // everything else goes through `decode_checked`, out of line.
    #[inline(always)]
    pub(crate) fn decode_spans(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        let opts = &self.options;
        if frame.len() <= 256 && frame.len() <= opts.limits.max_frame && !opts.hardened {
            return self.decode_after_utf8(frame, scan::ascii_prefix(frame));
        }
        self.decode_checked(frame)
    }

    /// [`Self::decode_spans`] of a frame whose first `utf8` bytes are known UTF-8, a character
    /// boundary (found with its end, [`DecodeLines`](crate::DecodeLines)): its UTF-8 checked
    /// from there.
    #[inline(always)]
    pub(crate) fn decode_spans_from_utf8(
        &self,
        frame: &[u8],
        utf8: usize,
    ) -> Result<Envelope, Reject> {
        let opts = &self.options;
        if frame.len() <= DEFER_UTF8_ABOVE && frame.len() <= opts.limits.max_frame && !opts.hardened
        {
            return self.decode_after_utf8(frame, utf8);
        }
        self.decode_checked(frame)
    }

    /// A frame within the limit, outside the hardened profile, whose first `utf8` bytes are
    /// known UTF-8 (ASCII, say), a character boundary: decoded at once when all are, else
    /// after its UTF-8 check from there.
    #[inline(always)]
    fn decode_after_utf8(&self, frame: &[u8], utf8: usize) -> Result<Envelope, Reject> {
        if utf8 == frame.len() {
            return self.decode_valid_utf8(frame);
        }
        self.decode_short_from(frame, utf8)
    }

    /// [`Self::decode_spans`] of a frame of at most [`DEFER_UTF8_ABOVE`] bytes within the
    /// limit, outside the hardened profile, whose first `utf8` bytes (not all) are known
    /// UTF-8: the rest checked (from where the earlier check stopped, not again from the
    /// start; `utf8` is on a character boundary), then decoded.
    #[inline(never)]
    fn decode_short_from(&self, frame: &[u8], utf8: usize) -> Result<Envelope, Reject> {
        if simdutf8::basic::from_utf8(&frame[utf8..]).is_err() {
            return Err(Reject::parse(DecodeError::InvalidUtf8));
        }
        self.decode_valid_utf8(frame)
    }

    /// A frame whose UTF-8 is checked: the usual shapes, else the general walk.
    #[inline(always)]
    fn decode_valid_utf8(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        match self.decode_usual(frame) {
            Some(envelope) => Ok(envelope),
            None => self.decode_unusual(frame),
        }
    }

    /// A frame whose UTF-8 is checked and that is not of the compact usual shapes: the
    /// Kotlin SDK's order, the spaced usual shapes (Python's `json.dumps` separators) or the
    /// usual error responses, else the general walk.
    #[inline(never)]
    fn decode_unusual(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        let usual = self
            .decode_usual_id_first(frame)
            .or_else(|| self.decode_usual_spaced(frame));
        match usual {
            Some(envelope) => Ok(envelope),
            None => self.decode_error_or_walked(frame),
        }
    }

    /// A usual error response ([`Self::decode_usual_error`]), else the general walk. (Out of
    /// line: in `decode_unusual`, the error shapes cost the spaced ones 2.7 % more
    /// instructions, callgrind on `tiny`.)
    #[inline(never)]
    fn decode_error_or_walked(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        match self.decode_usual_error(frame) {
            Some(envelope) => Ok(envelope),
            None => self.decode_walked(frame),
        }
    }

    /// [`Self::decode_spans`] of any frame: the limit, the hardened profile's `\r`, UTF-8,
    /// then the usual shapes or the general walk.
    #[inline(never)]
    fn decode_checked(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        // (Spans are `u32`: a frame limit beyond 4 GiB still stops there.)
        if frame.len() > self.options.limits.max_frame.min(u32::MAX as usize) {
            return Err(Reject::parse(DecodeError::FrameTooLong {
                limit: crate::error::limit_u32(self.options.limits.max_frame),
            }));
        }
        // Hardened: a CR left in a frame (the framer strips the one before LF) is a line end
        // to SSE-style and some stdio peers, who would cut this frame elsewhere than we do.
        if self.options.hardened && memchr::memchr(b'\r', frame).is_some() {
            return Err(Reject::parse(DecodeError::LoneCarriageReturn));
        }
        // Short frames are mostly ASCII, and an ASCII check beats a call into the SIMD UTF-8
        // validator there (tiny −5 %); on longer ones the validator is as fast (measured).
        // It runs from the first block that is not ASCII.
        let ascii = if frame.len() <= 256 {
            scan::ascii_prefix(frame)
        } else {
            if frame.len() > DEFER_UTF8_ABOVE
                && let Some(decoded) = self.decode_long_object(frame)
            {
                return decoded;
            }
            0
        };
        if ascii < frame.len() && simdutf8::basic::from_utf8(&frame[ascii..]).is_err() {
            return Err(Reject::parse(DecodeError::InvalidUtf8));
        }
        self.decode_valid_utf8(frame)
    }

    /// `decode_spans` of a frame whose UTF-8 is checked, by the general walk.
    #[inline(never)]
    fn decode_walked(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        let start = skip_ws(frame, 0);
        match frame.get(start) {
            None => Err(Reject::parse(DecodeError::Empty)),
            Some(b'{') => {
                let mut error = None;
                let (members, end) =
                    self.walk_object::<false, false>(frame, start, 0, &mut None, &mut error)?;
                if skip_ws(frame, end) != frame.len() {
                    return Err(Reject::parse(DecodeError::TrailingData));
                }
                self.classify(frame, members, error)
            }
            Some(b'[') => self.walk_batch(frame, start),
            Some(_) => {
                let end = self.skip(frame, start, 0)?;
                if skip_ws(frame, end) != frame.len() {
                    return Err(Reject::parse(DecodeError::TrailingData));
                }
                Err(Reject {
                    error: DecodeError::NotAnObject,
                    id: None,
                    is_response: false,
                })
            }
        }
    }
}

/// Lazily decoded objects longer than this have their UTF-8 checked after the walk (see
/// `decode_spans`). Below it the validator runs first: with this at 256, the ~450-byte
/// `typical` frames decoded 8 % slower and the ~1.1 KiB `escapes` frames 2.5 % (the tracking
/// kernel and the split validation cost more than the pass they spare).
pub(crate) const DEFER_UTF8_ABOVE: usize = 4096;
