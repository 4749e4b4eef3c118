//! `Content-Length` framing: [`ContentLengthCodec`] and its write half,
//! [`ContentLengthEncoder`].

use std::io;

use bytes::BytesMut;

use super::{BadFrame, FrameReader, Incoming, MessageBytes, write_message};
use crate::Decoder;
use crate::frame::{ContentLengthError, ContentLengthFramer, write_content_length_frame};
use crate::message::Reply;

/// A body over the limit, or in another charset, is an item (its length is known, so the
/// framer skips it and the stream goes on); a message cut short by the end of the stream is `UnexpectedEof` (but for
/// an over-long body, reported already as `TooLong`, which the end cuts short: nothing more is
/// reported for it), and any
/// other error, which leaves no way to find the next message, `InvalidData`. Either error
/// carries the [`ContentLengthError`], which `get_ref` and `into_inner` give back (not
/// `source`: an `io::Error`'s is its inner error's own, none here).
impl BadFrame for ContentLengthError {
    fn into_item(self, reply: Reply<'static>) -> io::Result<Incoming> {
        match self {
            ContentLengthError::TooLong {
                offset,
                length,
                limit,
            } => Ok(Incoming::TooLong {
                offset,
                length: Some(length),
                limit,
                reply,
            }),
            ContentLengthError::UnsupportedCharset { offset } => {
                Ok(Incoming::UnsupportedCharset { offset, reply })
            }
            ContentLengthError::Truncated { .. } => {
                Err(io::Error::new(io::ErrorKind::UnexpectedEof, self))
            }
            _ => Err(io::Error::new(io::ErrorKind::InvalidData, self)),
        }
    }
}

/// A tokio-util codec for `Content-Length` framing (the LSP base protocol's headers, which
/// some JSON-RPC peers use): [`ContentLengthFramer`] cuts the bodies, the decoder reads each.
///
/// - A body that is not a valid message is an item ([`Incoming::Rejected`]), and so is one
///   longer than the frame limit ([`Incoming::TooLong`]) and one whose `Content-Type` names
///   a charset other than UTF-8 ([`Incoming::UnsupportedCharset`]): its length is known, so
///   the framer discards it as it arrives and the next message follows. Both call for the
///   reply a frame that is not JSON gets, -32700 with no id ([`Incoming::reply`]).
/// - A malformed header block leaves no way to find the next message: it is an `io::Error`
///   of kind `InvalidData` carrying the [`ContentLengthError`] (`MissingLength`,
///   `BadLength`, `MalformedHeader`, …). A `FramedRead` ends after it; the codec reads
///   nothing more ([`is_failed`](Self::is_failed)).
/// - A stream that ends inside a message is an `io::Error` of kind `UnexpectedEof` carrying
///   [`ContentLengthError::Truncated`].
///
/// `get_ref` (or `into_inner`) gives the [`ContentLengthError`] back, as below. Not
/// `std::error::Error::source`: an `io::Error` made with `io::Error::new` gives as its
/// source its inner error's source, and a `ContentLengthError` has none.
///
/// Its encoder half is [`ContentLengthEncoder`]'s.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::codec::{ContentLengthCodec, Incoming};
/// use rpcwire::ContentLengthError;
/// use tokio_util::codec::Decoder as _;
///
/// let mut codec = ContentLengthCodec::new(rpcwire::Decoder::mcp(), 1 << 20);
/// let mut buf = BytesMut::from(&b"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\
///     Content-Length: 8\r\n\r\nnot json\
///     Content-Length: two\r\n\r\n{}"[..]);
/// assert!(matches!(codec.decode(&mut buf)?, Some(Incoming::Message(_))));
/// assert!(matches!(codec.decode(&mut buf)?, Some(Incoming::Rejected(_))));
/// let err = codec.decode(&mut buf).unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
/// let inner = ContentLengthError::from_io(&err);
/// assert_eq!(inner, Some(ContentLengthError::BadLength { offset: 91 }));
/// assert!(std::error::Error::source(&err).is_none()); // `get_ref` it is
/// assert!(codec.is_failed());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ContentLengthCodec {
    reader: FrameReader<ContentLengthFramer>,
    encoder: ContentLengthEncoder,
}

impl ContentLengthError {
    /// The `ContentLengthError` an `io::Error` of [`ContentLengthCodec`] carries: a malformed
    /// header block's (`InvalidData`), or [`Truncated`](Self::Truncated) for a message cut
    /// short by the end of the stream (`UnexpectedEof`); `None` for any other error (an I/O
    /// error of the stream). The same as `err.get_ref()?.downcast_ref().copied()`: the error
    /// is no `source`.
    ///
    /// ```
    /// use std::io;
    /// use bytes::BytesMut;
    /// use rpcwire::ContentLengthError;
    /// use rpcwire::codec::ContentLengthCodec;
    /// use tokio_util::codec::Decoder as _;
    ///
    /// let err = io::Error::new(io::ErrorKind::InvalidData, ContentLengthError::MissingLength { offset: 0 });
    /// assert_eq!(ContentLengthError::from_io(&err), Some(ContentLengthError::MissingLength { offset: 0 }));
    /// assert_eq!(ContentLengthError::from_io(&io::ErrorKind::BrokenPipe.into()), None);
    ///
    /// let mut codec = ContentLengthCodec::new(rpcwire::Decoder::mcp(), 1 << 20);
    /// let mut cut = BytesMut::from(&b"Content-Length: 10\r\n\r\n{}"[..]);
    /// let err = codec.decode_eof(&mut cut).unwrap_err();
    /// assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    /// assert_eq!(ContentLengthError::from_io(&err), Some(ContentLengthError::Truncated { offset: 0 }));
    /// ```
    pub fn from_io(err: &io::Error) -> Option<ContentLengthError> {
        err.get_ref()?.downcast_ref().copied()
    }
}

/// A codec decoding with `decoder`, bodies limited by the decoder's own frame limit, as
/// [`Decoder::content_length_framer`] limits them: [`ContentLengthCodec::new`] without
/// repeating the limit.
///
/// ```
/// use rpcwire::codec::ContentLengthCodec;
/// use rpcwire::Decoder;
/// let codec = ContentLengthCodec::from(Decoder::mcp());
/// assert_eq!(codec.decoder().options().limits.max_frame, Decoder::mcp().options().limits.max_frame);
/// ```
impl From<Decoder> for ContentLengthCodec {
    fn from(decoder: Decoder) -> Self {
        let max_frame = decoder.options().limits.max_frame;
        ContentLengthCodec::new(decoder, max_frame)
    }
}

impl ContentLengthCodec {
    /// A codec decoding with `decoder`, with bodies of at most `max_frame` bytes (which
    /// becomes the decoder's frame limit too) and the framer's default header limits.
    pub fn new(decoder: Decoder, max_frame: usize) -> Self {
        Self::with_framer(decoder, ContentLengthFramer::new(max_frame))
    }

    /// A codec decoding with `decoder` the bodies `framer` cuts (configured with its own
    /// header limits); the framer's frame limit becomes the decoder's.
    pub fn with_framer(decoder: Decoder, framer: ContentLengthFramer) -> Self {
        ContentLengthCodec {
            reader: FrameReader::new(decoder, framer.max_frame(), framer),
            encoder: ContentLengthEncoder::new(),
        }
    }

    /// The envelope decoder.
    pub fn decoder(&self) -> &Decoder {
        &self.reader.decoder
    }

    /// Decodes the frames to come with `decoder` (its frame limit set to the codec's), as
    /// [`LineCodec::set_decoder`](super::LineCodec::set_decoder) does; the framer goes on
    /// where it was.
    pub fn set_decoder(&mut self, decoder: Decoder) {
        self.reader.set_decoder(decoder);
    }

    /// The framer (its stream offsets: [`ContentLengthFramer::consumed`],
    /// [`ContentLengthFramer::last_offset`]).
    pub fn framer(&self) -> &ContentLengthFramer {
        &self.reader.framer
    }

    /// Whether a malformed header block was read (and returned as an `InvalidData` error):
    /// the codec then discards all input ([`ContentLengthFramer::is_failed`]).
    pub fn is_failed(&self) -> bool {
        self.reader.framer.is_failed()
    }

    fn next(&mut self, src: &mut BytesMut, eof: bool) -> io::Result<Option<Incoming>> {
        self.reader.next(src, eof)
    }
}

super::codec_traits!(ContentLengthCodec, Incoming, ContentLengthEncoder);

/// The encoder half of [`ContentLengthCodec`], with no decoder: writes each message as
/// `Content-Length: N\r\n\r\n` and its `N` bytes ([`write_content_length_frame`]).
///
/// It takes an [`Outgoing`](super::Outgoing) message (encoded into a scratch buffer the
/// encoder keeps, since its length comes first: at most [`REUSE_KEEP`](crate::REUSE_KEEP),
/// 64 KiB, of it between messages), an encoded message (`Bytes`, with or without
/// its line end, which is not written), or a received message (`&OwnedMessage`, byte for
/// byte but for a line end at its very end). An empty or blank message (`Bytes` with nothing
/// but JSON whitespace, a line end included) is an `InvalidInput` error, as with
/// [`LineEncoder`](super::LineEncoder): its frame (`Content-Length: 0`, or a body of
/// whitespace) would be no message, and a reader answers it -32700.
///
/// ```
/// use futures_util::SinkExt;
/// use rpcwire::codec::{ContentLengthEncoder, Outgoing};
/// use tokio_util::codec::FramedWrite;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut sink = FramedWrite::new(Vec::new(), ContentLengthEncoder::new());
/// sink.send(Outgoing::Notification { method: "notifications/initialized", params: None }).await?;
/// assert_eq!(
///     sink.get_ref(),
///     b"Content-Length: 54\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
/// );
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct ContentLengthEncoder {
    scratch: BytesMut,
}

impl ContentLengthEncoder {
    /// An encoder.
    pub fn new() -> Self {
        ContentLengthEncoder::default()
    }
}

/// A message: an [`Outgoing`](super::Outgoing), `Bytes` or `&OwnedMessage`.
impl<T: MessageBytes> tokio_util::codec::Encoder<T> for ContentLengthEncoder {
    type Error = io::Error;

    fn encode(&mut self, msg: T, dst: &mut BytesMut) -> Result<(), io::Error> {
        write_message(&mut self.scratch, &msg, |bytes| {
            if crate::frame::lines::is_blank(bytes) {
                return Err(super::empty_message());
            }
            write_content_length_frame(dst, bytes);
            Ok(())
        })?;
        super::give_back(dst, super::FRAMED_BUFFER, false);
        Ok(())
    }
}
