//! tokio-util integration: a [`Decoder`](tokio_util::codec::Decoder) and
//! [`Encoder`](tokio_util::codec::Encoder) for newline-delimited JSON-RPC.
//!
//! A bad line is an *item* ([`Incoming::Rejected`] or [`Incoming::TooLong`]), never an `Err`:
//! the stream goes on after it. `Err` is only for I/O.
//!
//! [`LineCodec`] reads and writes; [`LineEncoder`] only writes (the write half of a split
//! stream, a client's requests), with no decoder to configure. Both write an [`Outgoing`]
//! message straight into the sink's buffer, a received [`OwnedMessage`] byte for byte, or a
//! line already encoded.

use std::io;

use bytes::{BufMut, Bytes, BytesMut};

use crate::encode;
use crate::frame::{FrameError, LineFramer};
use crate::message::{OwnedMessage, OwnedRejection, Reply, ReplyId};
use crate::{Decoder, ErrorCode, Id, RawJson};

/// One item read off the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    /// A valid message (the frame's `Bytes` plus spans: no copy).
    Message(OwnedMessage),
    /// A frame that is not a valid message; [`OwnedRejection::rejection`] says whether and how
    /// to answer it.
    Rejected(OwnedRejection),
    /// A line longer than the frame limit, discarded; `offset` is where it started.
    TooLong {
        /// Stream offset of the line's first byte.
        offset: u64,
        /// The reply it calls for: -32700 with the decoder's
        /// [`unreadable_id`](crate::DecodeOptions::unreadable_id)
        /// ([`Decoder::too_long_reply`]).
        reply: Reply<'static>,
    },
}

impl Incoming {
    /// The error reply this item calls for, as [`Rejection::reply`](crate::Rejection::reply)
    /// gives it: `None` for a message (a request's answer is the application's) and for a
    /// malformed response. Whether to send a reply to a frame that is not JSON, or to an
    /// over-long line, is the caller's policy: answer a peer whose requests you read
    /// ([`Role::Server`](crate::Role::Server)); from a server such a line may have been a
    /// response, which is never answered.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::codec::LineCodec;
    /// use rpcwire::{encode, ErrorCode};
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
    /// assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 2); // -32600, then -32700
    /// ```
    pub fn reply(&self) -> Option<Reply<'_>> {
        match self {
            Incoming::Message(_) => None,
            Incoming::Rejected(rejected) => rejected.rejection().reply(),
            Incoming::TooLong { reply, .. } => Some(*reply),
        }
    }
}

/// A tokio-util codec for newline-delimited JSON-RPC / MCP (the stdio transport).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::codec::{Incoming, LineCodec};
/// use tokio_util::codec::Decoder as _;
///
/// let mut codec = LineCodec::new(rpcwire::Decoder::mcp(), 1 << 20);
/// let mut buf = BytesMut::from(&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n"[..]);
/// assert!(matches!(codec.decode(&mut buf).unwrap(), Some(Incoming::Message(_))));
/// assert!(matches!(codec.decode(&mut buf).unwrap(), Some(Incoming::Rejected(_))));
/// assert!(codec.decode(&mut buf).unwrap().is_none());
/// ```
#[derive(Debug, Clone)]
pub struct LineCodec {
    framer: LineFramer,
    decoder: Decoder,
}

impl LineCodec {
    /// A codec decoding with `decoder`, with frames of at most `max_frame` bytes (which
    /// becomes the decoder's frame limit too).
    pub fn new(decoder: Decoder, max_frame: usize) -> Self {
        let mut options = *decoder.options();
        options.limits.max_frame = max_frame;
        LineCodec {
            framer: LineFramer::new(max_frame),
            decoder: Decoder::new(options),
        }
    }

    /// The envelope decoder.
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    fn item(&self, framed: Result<Option<Bytes>, FrameError>) -> Option<Incoming> {
        match framed {
            Ok(None) => None,
            Ok(Some(frame)) => Some(match OwnedMessage::decode(&self.decoder, frame) {
                Ok(msg) => Incoming::Message(msg),
                Err(rejection) => Incoming::Rejected(rejection),
            }),
            Err(FrameError::TooLong { offset }) => Some(Incoming::TooLong {
                offset,
                reply: self.decoder.too_long_reply(),
            }),
        }
    }
}

impl tokio_util::codec::Decoder for LineCodec {
    type Item = Incoming;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Incoming>, io::Error> {
        let framed = self.framer.decode(src);
        Ok(self.item(framed))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Incoming>, io::Error> {
        let framed = self.framer.decode_eof(src);
        Ok(self.item(framed))
    }
}

/// One message to write, encoded straight into the sink's buffer by [`LineEncoder`] or
/// [`LineCodec`] (as the [`encode`] functions write it, as one line).
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
    /// A success response ([`encode::write_response`]).
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
    /// The error reply a rejected frame or an over-long line calls for
    /// ([`Incoming::reply`], [`encode::write_reply`]).
    Reply(Reply<'a>),
}

/// The encoder half of [`LineCodec`], with no decoder: writes each message as one line
/// (MCP's stdio framing).
///
/// ```
/// use futures_util::SinkExt;
/// use rpcwire::codec::{LineEncoder, Outgoing};
/// use tokio_util::codec::FramedWrite;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut sink = FramedWrite::new(Vec::new(), LineEncoder);
/// sink.send(Outgoing::Notification { method: "notifications/initialized", params: None }).await?;
/// assert_eq!(sink.get_ref(), b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineEncoder;

impl tokio_util::codec::Encoder<Outgoing<'_>> for LineEncoder {
    type Error = io::Error;

    fn encode(&mut self, msg: Outgoing<'_>, dst: &mut BytesMut) -> Result<(), io::Error> {
        match msg {
            Outgoing::Request { id, method, params } => {
                encode::write_request(dst, id, method, params)
            }
            Outgoing::Notification { method, params } => {
                encode::write_notification(dst, method, params)
            }
            Outgoing::Response { id, result } => encode::write_response(dst, id, result),
            Outgoing::Error {
                id,
                code,
                message,
                data,
            } => encode::write_error(dst, id, code, message, data),
            Outgoing::Reply(reply) => encode::write_reply(dst, &reply, None),
        }
        Ok(())
    }
}

/// Writes one encoded line (as produced by [`crate::encode`]); a missing final `\n` is added.
/// A line break inside it is an `InvalidInput` error: it would split the message in two.
impl tokio_util::codec::Encoder<Bytes> for LineEncoder {
    type Error = io::Error;

    fn encode(&mut self, line: Bytes, dst: &mut BytesMut) -> Result<(), io::Error> {
        if memchr::memchr2(b'\n', b'\r', line.strip_suffix(b"\n").unwrap_or(&line)).is_some() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a frame must be one line",
            ));
        }
        dst.extend_from_slice(&line);
        if !line.ends_with(b"\n") {
            dst.put_u8(b'\n');
        }
        Ok(())
    }
}

/// Forwards a received message byte for byte, as one line.
impl tokio_util::codec::Encoder<&OwnedMessage> for LineEncoder {
    type Error = io::Error;

    fn encode(&mut self, msg: &OwnedMessage, dst: &mut BytesMut) -> Result<(), io::Error> {
        // A decoded frame holds no line feed (the framer cut there), but may hold a lone CR
        // as JSON whitespace; the encoder turns line breaks into spaces.
        encode::write_raw_json(dst, RawJson::trusted(msg.frame()));
        dst.put_u8(b'\n');
        Ok(())
    }
}

/// [`LineEncoder`]'s: an [`Outgoing`] message, an encoded line (`Bytes`), or a received
/// message (`&OwnedMessage`).
impl<T> tokio_util::codec::Encoder<T> for LineCodec
where
    LineEncoder: tokio_util::codec::Encoder<T, Error = io::Error>,
{
    type Error = io::Error;

    fn encode(&mut self, item: T, dst: &mut BytesMut) -> Result<(), io::Error> {
        LineEncoder.encode(item, dst)
    }
}
