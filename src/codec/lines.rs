//! Newline framing: [`LineCodec`] and its write half, [`LineEncoder`].

use std::io;

use bytes::{BufMut, Bytes, BytesMut};

use super::{FrameReader, Incoming, Outgoing};
use crate::Decoder;
use crate::encode;
use crate::frame::LineFramer;
use crate::message::OwnedMessage;

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
    reader: FrameReader<LineFramer>,
    encoder: LineEncoder,
}

impl LineCodec {
    /// A codec decoding with `decoder`, with frames of at most `max_frame` bytes (which
    /// becomes the decoder's frame limit too).
    pub fn new(decoder: Decoder, max_frame: usize) -> Self {
        LineCodec {
            reader: FrameReader::new(decoder, max_frame, LineFramer::new(max_frame)),
            encoder: LineEncoder,
        }
    }

    /// The envelope decoder.
    pub fn decoder(&self) -> &Decoder {
        &self.reader.decoder
    }

    /// Decodes the frames to come with `decoder` (its frame limit set to the codec's); the
    /// framer goes on where it was (its offsets, a line being discarded). The usual case is a
    /// session's protocol version, once `initialize` has settled it: a decoder's default
    /// options hold results to the newest revision's rules, which an older session's results
    /// may break (2026-07-28's `resultType` values, say), and refuse batches, which 2025-03-26
    /// allows ([`DecodeOptions::for_protocol_version`](crate::DecodeOptions::for_protocol_version)).
    /// With a `FramedRead` (stdin, say), call it on `framed_read.decoder_mut()` (tokio-util's
    /// name for the codec of a read half); with a `Framed`, on `framed.codec_mut()`.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::codec::{Incoming, LineCodec};
    /// use rpcwire::Decoder;
    /// use tokio_util::codec::Decoder as _;
    ///
    /// // A client's view of a 2025-11-25 server, whose result holds a `resultType` of its own.
    /// let result = &b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"partial\"}}\n"[..];
    /// let mut codec = LineCodec::new(Decoder::mcp_client(), 1 << 20);
    /// let item = codec.decode(&mut BytesMut::from(result)).unwrap();
    /// assert!(matches!(item, Some(Incoming::Rejected(_)))); // by 2026-07-28's rules
    ///
    /// codec.set_decoder(codec.decoder().for_protocol_version("2025-11-25"));
    /// let item = codec.decode(&mut BytesMut::from(result)).unwrap();
    /// assert!(matches!(item, Some(Incoming::Message(_))));
    /// assert_eq!(codec.decoder().options().limits.max_frame, 1 << 20);
    /// ```
    pub fn set_decoder(&mut self, decoder: Decoder) {
        self.reader.set_decoder(decoder);
    }

    /// The framer (its stream offsets: [`LineFramer::consumed`], [`LineFramer::last_offset`]).
    pub fn framer(&self) -> &LineFramer {
        &self.reader.framer
    }

    fn next(&mut self, src: &mut BytesMut, eof: bool) -> io::Result<Option<Incoming>> {
        self.reader.next(src, eof)
    }
}

/// A codec decoding with `decoder`, its frames limited by the decoder's own frame limit
/// ([`Limits::max_frame`](crate::Limits::max_frame), 16 MiB by default), as
/// [`Decoder::line_framer`] limits them: [`LineCodec::new`] without repeating the limit.
///
/// ```
/// use futures_util::StreamExt;
/// use rpcwire::codec::{Incoming, LineCodec};
/// use rpcwire::Decoder;
/// use tokio_util::codec::FramedRead;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let stdin = &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"[..]; // tokio::io::stdin(), say
/// let mut frames = FramedRead::new(stdin, LineCodec::from(Decoder::mcp()));
/// assert!(matches!(frames.next().await, Some(Ok(Incoming::Message(_)))));
/// assert_eq!(frames.decoder().decoder().options().limits.max_frame, 16 << 20);
/// # });
/// ```
impl From<Decoder> for LineCodec {
    fn from(decoder: Decoder) -> Self {
        let max_frame = decoder.options().limits.max_frame;
        LineCodec::new(decoder, max_frame)
    }
}

super::codec_traits!(LineCodec, Incoming, LineEncoder);

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
/// // The encoder takes several item types (`Outgoing`, `Bytes`, `&OwnedMessage`): `flush` and
/// // `close`, which take none, name the one meant (any will do).
/// SinkExt::<Outgoing>::close(&mut sink).await?;
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineEncoder;

impl tokio_util::codec::Encoder<Outgoing<'_>> for LineEncoder {
    type Error = io::Error;

    fn encode(&mut self, msg: Outgoing<'_>, dst: &mut BytesMut) -> Result<(), io::Error> {
        msg.write(dst);
        super::give_back(dst, super::FRAMED_BUFFER, false);
        Ok(())
    }
}

/// Writes one encoded line (as produced by [`crate::encode`]) as it is, its end `\n` or
/// `\r\n` included; a missing final `\n` is added. A line break inside it is an
/// `InvalidInput` error: it would split the message in two; so is a blank line (empty, or JSON
/// whitespace alone), which is no message and which every line framer skips. (A run of lines, as
/// [`LineFramer::decode_chunk`](crate::LineFramer::decode_chunk) hands them out to forward,
/// goes to the writer as it is: it needs no encoder.)
impl tokio_util::codec::Encoder<Bytes> for LineEncoder {
    type Error = io::Error;

    fn encode(&mut self, line: Bytes, dst: &mut BytesMut) -> Result<(), io::Error> {
        let body = match line.strip_suffix(b"\n") {
            Some(body) => body.strip_suffix(b"\r").unwrap_or(body),
            None => &line,
        };
        if crate::frame::lines::is_blank(body) {
            return Err(super::empty_message());
        }
        if memchr::memchr2(b'\n', b'\r', body).is_some() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a message must be one line: send each line of a run as its own item",
            ));
        }
        dst.extend_from_slice(&line);
        if !line.ends_with(b"\n") {
            dst.put_u8(b'\n');
        }
        super::give_back(dst, super::FRAMED_BUFFER, false);
        Ok(())
    }
}

/// Forwards a received message as one line: byte for byte, but for the line breaks a frame
/// may hold as JSON whitespace (a pretty-printed `Content-Length` body, an SSE event of
/// several `data:` lines; a lone CR even in a line), which become spaces, the same JSON.
impl tokio_util::codec::Encoder<&OwnedMessage> for LineEncoder {
    type Error = io::Error;

    fn encode(&mut self, msg: &OwnedMessage, dst: &mut BytesMut) -> Result<(), io::Error> {
        // A frame read by another framer may hold line breaks, as JSON whitespace (a lone CR
        // even in one read by `LineFramer`); the encoder turns them into spaces.
        encode::write_frame(dst, msg.frame());
        super::give_back(dst, super::FRAMED_BUFFER, false);
        Ok(())
    }
}
