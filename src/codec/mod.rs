//! tokio-util integration: a [`Decoder`](tokio_util::codec::Decoder) and
//! [`Encoder`](tokio_util::codec::Encoder) for each transport MCP uses.
//!
//! - [`LineCodec`] (and [`LineEncoder`], its write half): newline-delimited JSON-RPC, the
//!   stdio transport.
//! - [`SseCodec`] (and [`SseEncoder`]): a `text/event-stream` body, the streamed response of
//!   MCP's Streamable HTTP transport (and the 2024-11-05 HTTP+SSE transport's stream). Its
//!   items are [`SseItem`]s: the event's `id` and `retry` with what it carries, a decoded
//!   message or an event that is none (a priming event, an `endpoint` event).
//! - [`ContentLengthCodec`] (and [`ContentLengthEncoder`]): `Content-Length` framing, as LSP
//!   peers use it.
//!
//! Each codec is built from a [`Decoder`] (`LineCodec::from(Decoder::mcp_client())` takes its
//! frame limit, `new(decoder, max_frame)` sets one). The codecs have no `Default`: which
//! decoder reads a stream is the caller's choice, the dialect and above all the role (a
//! server's decoder answers a frame such as `{"jsonrpc":"2.0","id":1}` with -32600, a
//! client's leaves it unanswered, as a response), and a default would make it silently. The
//! encoders, which need no decoder, have one.
//!
//! A bad frame is an *item* ([`Incoming::Rejected`], [`Incoming::TooLong`], or a
//! `Content-Length` body in another charset, [`Incoming::UnsupportedCharset`]), never an
//! `Err`: the stream goes on after it. `Err` is for I/O, and for what leaves no stream to go on
//! with: a malformed `Content-Length` header block (`InvalidData`) or a message cut short by
//! the end of a `Content-Length` stream (`UnexpectedEof`).
//!
//! A `FramedRead` never shrinks its read buffer, nor a `FramedWrite` its write buffer, which
//! a large frame grows. So that a long-lived connection does not hold the largest frame it
//! ever read or wrote, a codec replaces its read buffer grown past
//! [`REUSE_KEEP`](crate::REUSE_KEEP) (64 KiB) by one of 8 KiB, their first size, once all it
//! held was read (even while an item cut out of it is alive: the item shares the allocation,
//! which goes when the item is dropped), and an encoder its write buffer once what is left in
//! it fits in 8 KiB, as it writes a message after the large one. What that leaves:
//!
//! - A read buffer holding the start of the next frame keeps its room: large frames one after
//!   another do not grow it again for each, and a busy stream whose reads end inside frames
//!   keeps it until a read ends at a frame's end (as one does when the peer pauses). A large
//!   frame that comes alone (the reply to a request, nothing after it) has it given back, and
//!   the next one grows it again, by doubling from 8 KiB, copying what it holds at each step.
//! - A buffer made larger on purpose goes the same way, and grows again, by doubling, copying
//!   what it holds: one made with `with_capacity` (a read buffer once all it held was read,
//!   not always at the first item: a first read holding several frames keeps it until the
//!   last; a write buffer at the first message, and after each write, as it sets the
//!   backpressure boundary too), the write buffer of a `FramedWrite` whose backpressure
//!   boundary is set past 64 KiB (to gather messages into one write) at the first message
//!   after each write, a read buffer its owner `reserve`s past 64 KiB before each read at
//!   each read that ends at a frame's end. Keep such room within `REUSE_KEEP`.
//! - A buffer left to grow as tokio-util grows it (by what it holds) is replaced, an
//!   allocation of 8 KiB, at most once for every 64 KiB it takes in: small messages cost
//!   none.
//!
//! The encoders write an [`Outgoing`] message (encoded straight into the sink's buffer for
//! newline framing; for the others, into a scratch buffer the encoder keeps, whose bytes the
//! frame writer then frames: a `Content-Length` header needs the length first), a received
//! [`OwnedMessage`] byte for byte (on one line, the line breaks it may hold as JSON
//! whitespace become spaces), or a message already encoded (`Bytes`). As each encoder is an
//! `Encoder` of several item types, a sink's `SinkExt::flush` and `close` (which name no
//! item) need the type spelled: `SinkExt::<Outgoing>::close(&mut sink)` ([`LineEncoder`]'s
//! example).
//!
//! ## A server loop
//!
//! A `Framed` reads `Incoming` items and writes `Outgoing` ones over one transport; on stdio,
//! which is two, `tokio::io::join(tokio::io::stdin(), tokio::io::stdout())` (tokio's
//! `io-util` feature) makes it one (or read stdin with a `FramedRead` and write stdout with a
//! `FramedWrite` of [`LineEncoder`]). A message no `Outgoing` shape writes, such as
//! `initialize`'s answer ([`mcp::write_initialize_result`](crate::mcp::write_initialize_result)),
//! or a result of MCP 2026-07-28 with its `resultType`
//! ([`mcp::write_result`](crate::mcp::write_result)), is written into a `BytesMut` and sent
//! as `Bytes`; the answer sent, the session's version
//! goes to the codec with `set_decoder` ([`LineCodec::set_decoder`]). The crate docs' *A
//! server's side* is the whole of such a server, without tokio.
//!
//! ```
//! use futures_util::{SinkExt, StreamExt};
//! use rpcwire::codec::{Incoming, LineCodec, Outgoing};
//! use rpcwire::{mcp::methods, Decoder, Message, RawJson};
//! use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
//! use tokio_util::codec::Framed;
//!
//! /// Serves `io`: `tokio::io::join(tokio::io::stdin(), tokio::io::stdout())` on stdio.
//! async fn serve(io: impl AsyncRead + AsyncWrite + Unpin) -> std::io::Result<()> {
//!     let mut framed = Framed::new(io, LineCodec::from(Decoder::mcp()));
//!     while let Some(item) = framed.next().await {
//!         let msg = match item? {
//!             Incoming::Message(msg) => msg,
//!             bad => {
//!                 // Not JSON, an invalid request, an over-long line: the reply it calls for.
//!                 if let Some(reply) = bad.reply() {
//!                     framed.send(Outgoing::Reply(reply)).await?;
//!                 }
//!                 continue;
//!             }
//!         };
//!         // A notification is never answered; nor is a reply to a request of ours.
//!         let Message::Request(req) = msg.message() else { continue };
//!         let answer = match &*req.method.decode() {
//!             methods::PING => Outgoing::Response { id: req.id, result: RawJson::EMPTY_OBJECT },
//!             _ => Outgoing::MethodNotFound { id: req.id, method: req.method },
//!         };
//!         framed.send(answer).await?;
//!     }
//!     Ok(())
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let (client, server) = tokio::io::duplex(4096);
//! let server = tokio::spawn(serve(server));
//! let (mut from_server, mut to_server) = tokio::io::split(client);
//! to_server.write_all(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}
//! {"jsonrpc":"2.0","method":"notifications/initialized"}
//! {"jsonrpc":"2.0","id":2,"method":"tools/list"}
//! {oops
//! "#).await?;
//! to_server.shutdown().await?; // end of stream: `serve` returns
//! server.await.unwrap()?;
//! let mut replies = String::new();
//! from_server.read_to_string(&mut replies).await?;
//! assert_eq!(replies, r#"{"jsonrpc":"2.0","id":1,"result":{}}
//! {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"tools/list"}}
//! {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}
//! "#);
//! # std::io::Result::Ok(())
//! # }).unwrap();
//! ```

mod content_length;
mod lines;
mod sse;

use std::io;

use bytes::{Bytes, BytesMut};

pub use content_length::{ContentLengthCodec, ContentLengthEncoder};
pub use lines::{LineCodec, LineEncoder};
pub use sse::{SseCodec, SseControl, SseEncoder, SseItem, SseMessage, SsePayload};

use crate::encode;
use crate::frame::{FrameError, Framer};
use crate::message::{OwnedMessage, OwnedRejection, Reply, ReplyId};
use crate::{Decoder, ErrorCode, Id, JsonStr, RawJson};

/// `decoder` with the frame limit `max_frame`.
fn with_frame_limit(decoder: Decoder, max_frame: usize) -> Decoder {
    let mut options = *decoder.options();
    options.limits.max_frame = max_frame;
    Decoder::new(options)
}

/// One item read off the stream.
///
/// Non-exhaustive: a framing may come to refuse a frame for a reason of its own, as
/// `Content-Length` framing does for a charset ([`Incoming::UnsupportedCharset`]), and that
/// is a new variant. A `match` needs a catch-all arm for the bad frames it does not name;
/// [`Incoming::reply`] answers every one of them, and any future one, alike.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::codec::{Incoming, LineCodec};
/// use rpcwire::{encode, Decoder};
/// use tokio_util::codec::Decoder as _;
///
/// let mut codec = LineCodec::new(Decoder::mcp(), 64);
/// let mut buf = BytesMut::from(&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{oops\n"[..]);
/// let mut out = BytesMut::new();
/// while let Some(item) = codec.decode(&mut buf).unwrap() {
///     match item {
///         // (A notification, which has no id, is never answered.)
///         Incoming::Message(msg) => {
///             if let Some(id) = msg.id() {
///                 encode::write_response(&mut out, id, rpcwire::RawJson::EMPTY_OBJECT);
///             }
///         }
///         bad => {
///             if let Some(reply) = bad.reply() {
///                 encode::write_reply(&mut out, &reply, None);
///             }
///         }
///     }
/// }
/// assert_eq!(
///     &out[..],
///     &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
///        {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n"[..]
/// );
/// ```
///
/// A `match` naming every variant and no catch-all does not compile:
///
/// ```compile_fail,E0004
/// use rpcwire::codec::Incoming;
/// fn name(item: &Incoming) -> &'static str {
///     match item {
///         Incoming::Message(_) => "message",
///         Incoming::Rejected(_) => "rejected",
///         Incoming::TooLong { .. } => "too long",
///         Incoming::UnsupportedCharset { .. } => "unsupported charset",
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Incoming {
    /// A valid message (the frame's `Bytes` plus spans: no copy).
    Message(OwnedMessage),
    /// A frame that is not a valid message; [`OwnedRejection::rejection`] says whether and how
    /// to answer it.
    Rejected(OwnedRejection),
    /// A frame longer than the frame limit (a line, an event's data, a `Content-Length`
    /// body), discarded; `offset` is where it started.
    TooLong {
        /// Stream offset of the frame's first byte (of its first header byte, for
        /// `Content-Length` framing; of its event's first line, for SSE).
        offset: u64,
        /// The body's length as its `Content-Length` header announced it; `None` for a line or
        /// an SSE event, which has no announced length (it is reported once it crosses the
        /// limit, usually before its end has arrived).
        length: Option<u64>,
        /// The frame limit it crossed, in bytes: the codec's framer's `max_frame`, which is
        /// its decoder's [`Limits::max_frame`](crate::Limits::max_frame).
        limit: usize,
        /// The reply it calls for: -32700 with the decoder's
        /// [`unreadable_id`](crate::DecodeOptions::unreadable_id)
        /// ([`Decoder::parse_error_reply`]).
        reply: Reply<'static>,
    },
    /// A `Content-Length` body whose `Content-Type` names a charset other than UTF-8, or
    /// none that can be read
    /// ([`ContentLengthError::UnsupportedCharset`](crate::ContentLengthError::UnsupportedCharset)),
    /// discarded unread: the LSP base protocol supports no other charset, and says a peer
    /// receiving one "should respond with an error".
    UnsupportedCharset {
        /// Stream offset of the message's first header byte.
        offset: u64,
        /// The reply it calls for, as for a frame that is not JSON (the body is never read,
        /// so no id is known): -32700 with the decoder's
        /// [`unreadable_id`](crate::DecodeOptions::unreadable_id)
        /// ([`Decoder::parse_error_reply`]).
        reply: Reply<'static>,
    },
}

impl Incoming {
    /// The error reply this item calls for, as [`Rejection::reply`](crate::Rejection::reply)
    /// gives it: `None` for a message (a request's answer is the application's) and for a
    /// malformed response. Whether to send a reply to a frame that is not JSON, to an
    /// over-long line, or to a body in another charset, is the caller's policy: answer a peer whose requests you read
    /// ([`Role::Server`](crate::Role::Server)); from a server such a line may have been a
    /// response, which is never answered: a client reading a server's stream sends
    /// [`reply_to_request`](Self::reply_to_request) instead.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::codec::LineCodec;
    /// use rpcwire::encode;
    /// use tokio_util::codec::Decoder as _;
    ///
    /// let mut codec = LineCodec::new(rpcwire::Decoder::mcp(), 16);
    /// let mut buf = BytesMut::from(&b"{\"id\":1}\nmuch too long for sixteen bytes\n"[..]);
    /// let mut out = BytesMut::new();
    /// while let Some(item) = codec.decode(&mut buf).unwrap() {
    ///     if let Some(reply) = item.reply() {
    ///         encode::write_reply(&mut out, &reply, None);
    ///     }
    /// }
    /// // No `"jsonrpc":"2.0"`: -32600, with the id that could be read. Over-long: -32700,
    /// // with no id (MCP's form of an id that could not be read).
    /// assert_eq!(
    ///     &out[..],
    ///     &br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}
    /// {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}
    /// "#[..]
    /// );
    /// ```
    pub fn reply(&self) -> Option<Reply<'_>> {
        match self {
            Incoming::Message(_) => None,
            Incoming::Rejected(rejected) => rejected.reply(),
            Incoming::TooLong { reply, .. } | Incoming::UnsupportedCharset { reply, .. } => {
                Some(*reply)
            }
        }
    }

    /// The error reply a client sends for this item of a server's stream: for a rejected
    /// frame, [`OwnedRejection::reply_to_request`](crate::OwnedRejection::reply_to_request)
    /// (an invalid request of the server's whose id could be read), else `None`. A frame that
    /// is not JSON may have been a reply, a frame without a readable id a notification, and an
    /// over-long or unreadable body names no id: a client answers none of them, where
    /// [`reply`](Self::reply), a server's policy, answers each with -32700.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::codec::LineCodec;
    /// use rpcwire::encode;
    /// use tokio_util::codec::Decoder as _;
    ///
    /// // A client's codec: it reads what a server writes.
    /// let mut codec = LineCodec::new(rpcwire::Decoder::mcp_client(), 64);
    /// let mut buf = BytesMut::from(
    ///     &b"{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\",\"params\":[]}\nnot json\n\
    ///        much too long for sixty-four bytes, a reply of the server's perhaps, cut off\n"[..],
    /// );
    /// let mut out = BytesMut::new();
    /// let mut items = 0;
    /// while let Some(item) = codec.decode(&mut buf).unwrap() {
    ///     items += 1;
    ///     assert!(item.reply().is_some()); // what a server would answer
    ///     if let Some(reply) = item.reply_to_request() {
    ///         encode::write_reply(&mut out, &reply, None);
    ///     }
    /// }
    /// // Only the server's invalid request (`params` an array) is answered, under its id.
    /// assert_eq!(items, 3);
    /// assert_eq!(
    ///     &out[..],
    ///     &br#"{"jsonrpc":"2.0","id":"s1","error":{"code":-32600,"message":"Invalid Request"}}
    /// "#[..]
    /// );
    /// ```
    pub fn reply_to_request(&self) -> Option<Reply<'_>> {
        match self {
            Incoming::Rejected(rejected) => rejected.reply_to_request(),
            Incoming::Message(_)
            | Incoming::TooLong { .. }
            | Incoming::UnsupportedCharset { .. } => None,
        }
    }

    /// The valid message, when this item is one ([`Incoming::Message`]).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::codec::LineCodec;
    /// use tokio_util::codec::Decoder as _;
    ///
    /// let mut codec = LineCodec::new(rpcwire::Decoder::mcp(), 64);
    /// let mut buf = BytesMut::from(&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n"[..]);
    /// let ping = codec.decode(&mut buf).unwrap().unwrap();
    /// assert_eq!(ping.message().and_then(|m| m.id()).unwrap().raw(), b"1");
    /// let bad = codec.decode(&mut buf).unwrap().unwrap();
    /// assert!(bad.message().is_none() && bad.into_message().is_none());
    /// ```
    pub fn message(&self) -> Option<&OwnedMessage> {
        match self {
            Incoming::Message(message) => Some(message),
            _ => None,
        }
    }

    /// [`message`](Self::message), taken.
    pub fn into_message(self) -> Option<OwnedMessage> {
        match self {
            Incoming::Message(message) => Some(message),
            _ => None,
        }
    }
}

/// One message to write, by any encoder of this module: [`LineEncoder`] encodes it straight
/// into the sink's buffer (as the [`encode`] functions write it, as one line), [`SseEncoder`]
/// and [`ContentLengthEncoder`] frame that line.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::codec::{LineEncoder, Outgoing};
/// use rpcwire::{Id, RawJson};
/// use tokio_util::codec::Encoder as _;
///
/// let mut out = BytesMut::new();
/// let params = RawJson::new(br#"{"name":"get_weather"}"#).unwrap();
/// let id = Id::from_token(b"7").unwrap();
/// LineEncoder.encode(Outgoing::Request { id, method: "tools/call", params: Some(params) }, &mut out)?;
/// LineEncoder.encode(Outgoing::Notification { method: "notifications/initialized", params: None }, &mut out)?;
/// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_weather"}}
/// {"jsonrpc":"2.0","method":"notifications/initialized"}
/// "#[..]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outgoing<'a> {
    /// A request ([`encode::write_request`]).
    Request {
        /// Its id.
        id: Id<'a>,
        /// The method.
        method: &'a str,
        /// The parameters, written raw.
        params: Option<RawJson<'a>>,
    },
    /// A notification ([`encode::write_notification`]).
    Notification {
        /// The method.
        method: &'a str,
        /// The parameters, written raw.
        params: Option<RawJson<'a>>,
    },
    /// A success response ([`encode::write_response`]), its result written as it is. Under
    /// MCP 2026-07-28, which requires a `resultType` in every result, write the answer with
    /// [`mcp::write_result`](crate::mcp::write_result) instead, which adds
    /// `"resultType":"complete"`, and send its line as `Bytes`.
    Response {
        /// The request's id.
        id: Id<'a>,
        /// The result, written raw.
        result: RawJson<'a>,
    },
    /// An error response ([`encode::write_error`]).
    Error {
        /// The request's id, or null or absent when it could not be read.
        id: ReplyId<'a>,
        /// The error code.
        code: ErrorCode,
        /// The message.
        message: &'a str,
        /// The error's data, written raw.
        data: Option<RawJson<'a>>,
    },
    /// The error reply a rejected frame or an over-long frame calls for
    /// ([`Incoming::reply`], [`encode::write_reply`]).
    Reply(Reply<'a>),
    /// The -32601 reply to a request for a method the server does not have, the method in
    /// `data` as it came ([`encode::write_method_not_found`]).
    ///
    /// ```
    /// use rpcwire::codec::Outgoing;
    /// use rpcwire::{Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","id":5,"method":"tele\u0070ort"}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// let reply = Outgoing::MethodNotFound { id: req.id, method: req.method }.to_bytes();
    /// assert_eq!(
    ///     &reply[..],
    ///     b"{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32601,\"message\":\"Method not found\",\"data\":\"tele\\u0070ort\"}}\n",
    /// );
    /// ```
    MethodNotFound {
        /// The request's id.
        id: Id<'a>,
        /// The request's method, as decoded ([`Request::method`](crate::Request::method)).
        method: JsonStr<'a>,
    },
}

impl Outgoing<'_> {
    /// Appends the message to `out` as one line, with the [`encode`] writer of its shape
    /// (which puts no line break inside it, and a `\n` after it).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::codec::Outgoing;
    /// let mut out = BytesMut::new();
    /// Outgoing::Notification { method: "notifications/initialized", params: None }.write(&mut out);
    /// assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    /// ```
    pub fn write(&self, out: &mut BytesMut) {
        match *self {
            Outgoing::Request { id, method, params } => {
                encode::write_request(out, id, method, params)
            }
            Outgoing::Notification { method, params } => {
                encode::write_notification(out, method, params)
            }
            Outgoing::Response { id, result } => encode::write_response(out, id, result),
            Outgoing::Error {
                id,
                code,
                message,
                data,
            } => encode::write_error(out, id, code, message, data),
            Outgoing::Reply(reply) => encode::write_reply(out, &reply, None),
            Outgoing::MethodNotFound { id, method } => {
                encode::write_method_not_found(out, id, method)
            }
        }
    }

    /// The message as one line, owned: an `Outgoing` borrows its parts, and this is the form
    /// that crosses to a writer task (every encoder of this module takes `Bytes`, sending it
    /// as it is or framed).
    ///
    /// ```
    /// use rpcwire::codec::Outgoing;
    /// let line = Outgoing::Notification { method: "notifications/initialized", params: None }.to_bytes();
    /// let writer = std::thread::spawn(move || line.len());
    /// assert_eq!(writer.join().unwrap(), 55); // its `\n` included
    /// ```
    pub fn to_bytes(&self) -> Bytes {
        let mut out = BytesMut::new();
        self.write(&mut out);
        out.freeze()
    }
}

/// The tokio-util traits of a codec (a struct with a `reader` field, a [`FrameReader`], an
/// `encoder` field, of type `$encoder`, and a method `next(&mut self, src, eof)` giving its
/// next item): its `Decoder`, and its `Encoder` for every item its encoder half takes.
macro_rules! codec_traits {
    ($codec:ident, $item:ty, $encoder:ident) => {
        impl tokio_util::codec::Decoder for $codec {
            type Item = $item;
            type Error = std::io::Error;

            fn decode(&mut self, src: &mut BytesMut) -> Result<Option<$item>, std::io::Error> {
                self.reader.note_grown(src);
                let item = self.next(src, false);
                self.reader.give_back(src);
                item
            }

            fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<$item>, std::io::Error> {
                self.reader.note_grown(src);
                let item = self.next(src, true);
                self.reader.give_back(src);
                item
            }
        }

        #[doc = concat!("[`", stringify!($encoder), "`]'s: every item it takes.")]
        impl<T> tokio_util::codec::Encoder<T> for $codec
        where
            $encoder: tokio_util::codec::Encoder<T, Error = std::io::Error>,
        {
            type Error = std::io::Error;

            fn encode(&mut self, item: T, dst: &mut BytesMut) -> Result<(), std::io::Error> {
                self.encoder.encode(item, dst)
            }
        }
    };
}
use codec_traits;

/// The capacity of the buffer [`give_back`] puts in place of a grown one: 8 KiB, what
/// tokio-util's `FramedRead` and `FramedWrite` start with.
const FRAMED_BUFFER: usize = 8 << 10;

/// Replaces a `FramedRead`'s read buffer or a `FramedWrite`'s write buffer grown past
/// [`REUSE_KEEP`](crate::REUSE_KEEP) by a large frame with one of [`FRAMED_BUFFER`] bytes
/// holding what is left of it, once it holds no more than `left_at_most`: tokio-util never
/// shrinks them, so a long-lived connection would hold the largest frame it ever read or wrote
/// (the allocation that frame grew, up to twice its size) for as long as it lasts. A buffer
/// that holds more (a large frame still arriving, or written) is kept. The bytes left keep
/// their places, where a framer's search resumes. Whether it replaced the buffer.
///
/// A buffer's capacity is only what its allocation has past its start: a frame cut out of
/// it, or written out by the sink, takes the rest. So a buffer grown so is told by its
/// capacity, by `grown` (the caller saw it grown before: see [`FrameReader::give_back`]), or
/// else by `try_reclaim`, which tells without allocating whether the allocation, no longer
/// shared, has room for more than `REUSE_KEEP` bytes past what the buffer holds (and moves
/// those bytes to its start when it has).
fn give_back(buf: &mut BytesMut, left_at_most: usize, grown: bool) -> bool {
    let replace = buf.len() <= left_at_most
        && (grown || buf.capacity() > crate::REUSE_KEEP || buf.try_reclaim(crate::REUSE_KEEP + 1));
    if replace {
        let mut fresh = BytesMut::with_capacity(FRAMED_BUFFER);
        fresh.extend_from_slice(buf);
        *buf = fresh;
    }
    replace
}

/// A framer and the decoder that reads its frames: the read half every codec shares.
#[derive(Debug, Clone)]
struct FrameReader<F> {
    framer: F,
    decoder: Decoder,
    /// The read buffer was seen grown past [`REUSE_KEEP`](crate::REUSE_KEEP) since it was
    /// last given back.
    grown: bool,
}

impl<F> FrameReader<F> {
    /// `framer` (whose limit is `max_frame`) with `decoder`, whose frame limit becomes
    /// `max_frame` too (a lower one would refuse the frames the framer lets through).
    fn new(decoder: Decoder, max_frame: usize, framer: F) -> Self {
        FrameReader {
            framer,
            decoder: with_frame_limit(decoder, max_frame),
            grown: false,
        }
    }

    /// Notes whether `buf`, the read buffer, has grown past [`REUSE_KEEP`](crate::REUSE_KEEP):
    /// before a frame is cut out of it, its capacity is all its allocation has past its start.
    fn note_grown(&mut self, buf: &BytesMut) {
        self.grown |= buf.capacity() > crate::REUSE_KEEP;
    }

    /// [`give_back`]s the read buffer once all it held was read: not while the peer has sent
    /// more after the frame (large frames coming one after another leave the start of the
    /// next in the buffer, which then keeps its room: given back after each frame, it would be
    /// grown again by doubling for the next, copying what it holds at each step).
    ///
    /// A buffer seen grown ([`note_grown`](Self::note_grown)) is given back even when a frame
    /// cut out of it is still alive, sharing its allocation (which `try_reclaim` refuses to
    /// reclaim then): a large frame cut out with a small one after it, whose item is being
    /// served when the small one empties the buffer, would leave the buffer holding the
    /// large frame's allocation once that item is dropped, until the peer sent again.
    fn give_back(&mut self, buf: &mut BytesMut) {
        self.note_grown(buf);
        if give_back(buf, 0, self.grown) {
            self.grown = false;
        }
    }

    /// Decodes the frames to come with `decoder`, its frame limit set to the framer's.
    fn set_decoder(&mut self, decoder: Decoder) {
        self.decoder = with_frame_limit(decoder, self.decoder.options().limits.max_frame);
    }

    /// The item a frame makes: a message or a rejection.
    fn decode(&self, frame: Bytes) -> Incoming {
        match OwnedMessage::decode(&self.decoder, frame) {
            Ok(msg) => Incoming::Message(msg),
            Err(rejection) => Incoming::Rejected(rejection),
        }
    }

    /// What a codec hands out for a framer's answer: nothing yet, `item` of a frame, or what
    /// a bad frame is ([`BadFrame::into_item`]).
    fn item<Frame, E: BadFrame, T: From<Incoming>>(
        &self,
        framed: Result<Option<Frame>, E>,
        item: impl FnOnce(&Self, Frame) -> T,
    ) -> io::Result<Option<T>> {
        match framed {
            Ok(None) => Ok(None),
            Ok(Some(frame)) => Ok(Some(item(self, frame))),
            Err(bad) => bad
                .into_item(self.decoder.parse_error_reply())
                .map(|i| Some(i.into())),
        }
    }
}

impl<F: Framer<Frame = Bytes>> FrameReader<F>
where
    F::Error: BadFrame,
{
    /// The next item of a framer whose frames are messages.
    fn next(&mut self, buf: &mut BytesMut, eof: bool) -> io::Result<Option<Incoming>> {
        let framed = self.framer.next_frame(buf, eof);
        self.item(framed, Self::decode)
    }
}

/// A framer's error, as a codec hands it out.
trait BadFrame {
    /// The item for a frame the stream survives (an over-long one, or a body in another
    /// charset, answered with `unreadable`: the reply to a frame whose id cannot be read), or
    /// the `io::Error` that ends the stream.
    fn into_item(self, unreadable: Reply<'static>) -> io::Result<Incoming>;
}

impl BadFrame for FrameError {
    fn into_item(self, reply: Reply<'static>) -> io::Result<Incoming> {
        let FrameError::TooLong { offset, limit } = self;
        Ok(Incoming::TooLong {
            offset,
            length: None,
            limit,
            reply,
        })
    }
}

/// A message the framing encoders ([`SseEncoder`], [`ContentLengthEncoder`]) take: an
/// [`Outgoing`] message, a message already encoded (`Bytes`, with or without the line end an
/// [`encode`] writer puts after it), or a received message (`&OwnedMessage`). Sealed: these
/// three are all.
///
/// `Bytes` are one message: the encoders cannot tell a run of lines from one message whose
/// JSON holds line breaks, so a run of lines (what
/// [`LineFramer::decode_chunk`](crate::LineFramer::decode_chunk) hands out) becomes one event
/// or one body, which no reader takes for a message. Split it into lines first (or forward
/// `OwnedMessage`s). To a stream of lines a run goes as it is, with no encoder:
/// [`LineEncoder`] refuses one too (`InvalidInput`, as a message of more than one line).
///
/// ```
/// use bytes::{Bytes, BytesMut};
/// use rpcwire::codec::{ContentLengthEncoder, MessageBytes, Outgoing, SseEncoder};
/// use tokio_util::codec::Encoder;
///
/// /// Writes `msg` in both framings.
/// fn both<T: MessageBytes + Clone>(msg: T) -> (BytesMut, BytesMut) {
///     let (mut sse, mut lsp) = (BytesMut::new(), BytesMut::new());
///     SseEncoder::new().encode(msg.clone(), &mut sse).unwrap();
///     ContentLengthEncoder::new().encode(msg, &mut lsp).unwrap();
///     (sse, lsp)
/// }
/// let ping = Outgoing::Notification { method: "ping", params: None };
/// let line = Bytes::from_static(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n");
/// let (sse, lsp) = both(ping);
/// assert_eq!(&sse[..], b"data: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\n");
/// assert_eq!(&lsp[..], b"Content-Length: 33\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}");
/// assert_eq!(both(ping), both(line));
/// ```
pub trait MessageBytes: sealed::MessageBytes {}

impl MessageBytes for Outgoing<'_> {}
impl MessageBytes for Bytes {}
impl MessageBytes for &OwnedMessage {}

/// Hands `write` the bytes of `msg` (encoded into `scratch` first for an [`Outgoing`]); a
/// scratch grown past [`REUSE_KEEP`](crate::REUSE_KEEP) by a large message is given back, so
/// that a long-lived encoder does not hold the largest message it ever wrote.
fn write_message<T: MessageBytes, R>(
    scratch: &mut BytesMut,
    msg: &T,
    write: impl FnOnce(&[u8]) -> R,
) -> R {
    let written = write(msg.bytes(scratch));
    if scratch.capacity() > crate::REUSE_KEEP {
        *scratch = BytesMut::new();
    }
    written
}

/// The `InvalidInput` error of the line and `Content-Length` encoders for an empty or blank
/// message (nothing but JSON whitespace, a line end included), whose frame no reader takes for
/// a message: a blank line, `Content-Length: 0` or a body of whitespace (answered -32700).
/// (An SSE event may be empty: MCP's priming event.)
fn empty_message() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "a message cannot be empty or blank",
    )
}

mod sealed {
    use bytes::{Bytes, BytesMut};

    use super::Outgoing;
    use crate::message::OwnedMessage;

    /// [`super::MessageBytes`]'s bytes.
    pub trait MessageBytes {
        /// The message's bytes: an [`Outgoing`] is encoded into `scratch` first.
        fn bytes<'s>(&'s self, scratch: &'s mut BytesMut) -> &'s [u8];
    }

    impl MessageBytes for Outgoing<'_> {
        fn bytes<'s>(&'s self, scratch: &'s mut BytesMut) -> &'s [u8] {
            scratch.clear();
            self.write(scratch);
            scratch
        }
    }

    /// A message already encoded.
    impl MessageBytes for Bytes {
        fn bytes<'s>(&'s self, _: &'s mut BytesMut) -> &'s [u8] {
            self
        }
    }

    /// A received message, forwarded byte for byte.
    impl MessageBytes for &OwnedMessage {
        fn bytes<'s>(&'s self, _: &'s mut BytesMut) -> &'s [u8] {
            self.frame()
        }
    }
}
