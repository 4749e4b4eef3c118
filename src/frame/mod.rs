//! Framers: cut a byte stream into frames, each holding one message.
//!
//! Every framer follows the same contract, the [`Framer`] trait: `Ok(Some(frame))` for a
//! frame, `Ok(None)` when more bytes are needed, and `Err` for a bad frame that the stream
//! survives (an over-long frame is reported once, then discarded in constant memory; so is a
//! Content-Length body whose `Content-Type` names a charset other than UTF-8). The one
//! exception is Content-Length framing, where a malformed header block leaves no way to find
//! the next message: those errors are fatal ([`ContentLengthError::is_fatal`]), and the framer
//! yields nothing more.
//!
//! A framer remembers how far it has searched its buffer, so a partial frame is never
//! searched twice: pass it the same buffer on every call, appending what is read (as with
//! tokio-util's `LinesCodec`). A buffer emptied or replaced by a shorter one only restarts the
//! search.
//!
//! Each framing has its writer too, next to its framer: [`write_sse_event`] (with
//! [`write_sse_retry`] and [`write_sse_comment`] for the other lines a server sends) and
//! [`write_content_length_frame`]; newline framing is what the [`encode`](crate::encode)
//! writers write. The writers take a message with or without the line end an `encode` writer
//! puts after it (see [`without_line_end`]), so one's output can be passed to another as it is.

mod charset;
pub mod content_length;
pub mod lines;
pub mod sse;

use bytes::BytesMut;

pub use content_length::{ContentLengthError, ContentLengthFramer, write_content_length_frame};
pub use lines::{FrameError, LineFramer, Lines};
pub use sse::{
    SseEvent, SseFramer, SseWriteError, write_sse_comment, write_sse_event, write_sse_retry,
};

/// The message the frame writers put on the wire: `message` without one line end at its very
/// end, a `\n` or a `\r\n` (what an [`encode`](crate::encode) writer appends, or a line read
/// with its end). Nothing else is removed: `{}\n\n` is the message `{}\n`, and a lone `\r`
/// at the end stays.
///
/// ```
/// use rpcwire::frame::without_line_end;
/// assert_eq!(without_line_end(b"{}\n"), b"{}");
/// assert_eq!(without_line_end(b"{}\r\n"), b"{}");
/// assert_eq!(without_line_end(b"{}"), b"{}");
/// assert_eq!(without_line_end(b"{}\n\n"), b"{}\n");
/// assert_eq!(without_line_end(b"{}\r"), b"{}\r");
/// ```
pub fn without_line_end(message: &[u8]) -> &[u8] {
    match message.strip_suffix(b"\n") {
        Some(line) => lines::without_cr(line),
        None => message,
    }
}

/// Where a framer resumes its search of `buf[..read_to]`: at `next_index`, where its last call
/// stopped (the bytes before it hold nothing it looks for), or at the start when the buffer
/// is now shorter than that. Every framer follows one buffer that the caller only appends to
/// and lets the framer consume; a caller that empties or replaces it gets a search from the
/// start (searching again is always right) rather than a slice past the end. (A replacement at
/// least as long as what was searched cannot be told apart from the same buffer grown.)
#[inline]
fn resume_at(next_index: usize, read_to: usize) -> usize {
    if next_index <= read_to { next_index } else { 0 }
}

/// What [`LineFramer`], [`SseFramer`] and [`ContentLengthFramer`] have in common: code
/// written against it works over every transport MCP uses.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{Decoder, Framer, LineFramer, SseFramer};
///
/// /// Counts the valid messages in one read of any transport.
/// fn valid_messages<F: Framer>(framer: &mut F, bytes: &[u8]) -> usize {
///     let mut buf = BytesMut::from(bytes);
///     framer
///         .frames(&mut buf, true)
///         .filter_map(Result::ok)
///         .filter(|frame| Decoder::mcp().decode(frame.as_ref()).is_ok())
///         .count()
/// }
///
/// let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
/// let lines = [&ping[..], b"\nnot json\n"].concat();
/// let events = [&b"data: "[..], &ping[..], b"\n\n"].concat();
/// assert_eq!(valid_messages(&mut LineFramer::new(1024), &lines), 1);
/// assert_eq!(valid_messages(&mut SseFramer::new(1024), &events), 1);
/// ```
pub trait Framer {
    /// One frame; its bytes (`as_ref`) are the message it carries. (Through this trait a
    /// [`SseFramer`] hands out no event without data, such as MCP's priming event, which
    /// carries only an `id` for resumption, nor an event of a type other than `message`, such
    /// as the 2024-11-05 transport's `endpoint` event: they are no message, unless
    /// [`SseFramer::yield_empty_events`] is set. Its own `decode` does, and
    /// [`SseFramer::last_event_id`] and [`SseFramer::reconnection_time`] keep what such events say.)
    type Frame: AsRef<[u8]>;
    /// A bad frame.
    type Error: core::fmt::Display;

    /// The next frame in `buf`, `Ok(None)` when more bytes are needed, or an error for a bad
    /// frame.
    ///
    /// # Errors
    ///
    /// [`Self::Error`] for a bad frame, when the framer's own `decode` reports one:
    /// [`LineFramer::decode`], [`SseFramer::decode`], [`ContentLengthFramer::decode`].
    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Frame>, Self::Error>;

    /// Like [`decode`](Self::decode), at end of stream: what is left in `buf` is all there
    /// is.
    ///
    /// # Errors
    ///
    /// [`Self::Error`] for a bad frame, when the framer's own `decode_eof` reports one:
    /// [`LineFramer::decode_eof`], [`SseFramer::decode_eof`],
    /// [`ContentLengthFramer::decode_eof`].
    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Frame>, Self::Error>;

    /// Stream offset of the first byte of the frame (or bad frame) last handed out.
    fn last_offset(&self) -> u64;

    /// Stream offset of the first byte still in the buffer.
    fn consumed(&self) -> u64;

    /// The frame limit, in bytes.
    fn max_frame(&self) -> usize;

    /// [`decode`](Self::decode), or [`decode_eof`](Self::decode_eof) when `eof`.
    ///
    /// # Errors
    ///
    /// The error of the one it calls.
    fn next_frame(
        &mut self,
        buf: &mut BytesMut,
        eof: bool,
    ) -> Result<Option<Self::Frame>, Self::Error> {
        if eof {
            self.decode_eof(buf)
        } else {
            self.decode(buf)
        }
    }

    /// Every frame (and bad frame) `buf` holds now, in order (at `eof`, everything left).
    ///
    /// A read loop over any transport (the trait's example counts the messages of one read):
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{ContentLengthFramer, Framer, LineFramer};
    ///
    /// /// The messages of a stream that arrives in `reads`, the last of which ends it.
    /// fn messages<F: Framer>(mut framer: F, reads: &[&[u8]]) -> Vec<Vec<u8>> {
    ///     let mut buf = BytesMut::new();
    ///     let mut messages = Vec::new();
    ///     for (i, read) in reads.iter().enumerate() {
    ///         buf.extend_from_slice(read);
    ///         let eof = i + 1 == reads.len();
    ///         // Ends when the framer needs more bytes. A bad frame is skipped here; a real
    ///         // reader logs it, and answers an over-long one from a peer whose requests it
    ///         // reads (see `FrameError::TooLong`).
    ///         messages.extend(framer.frames(&mut buf, eof).filter_map(Result::ok).map(|m| m.as_ref().to_vec()));
    ///     }
    ///     messages
    /// }
    ///
    /// let ping = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
    /// let stdio = [&ping[..], b"\n", &ping[..]].concat(); // the last line without its `\n`
    /// let lsp = [&b"Content-Length: 40\r\n\r\n"[..], ping].concat();
    /// assert_eq!(messages(LineFramer::new(1024), &[&stdio[..30], &stdio[30..]]), [ping, ping]);
    /// assert_eq!(messages(ContentLengthFramer::new(1024), &[&lsp[..30], &lsp[30..]]), [ping]);
    /// ```
    fn frames<'a>(&'a mut self, buf: &'a mut BytesMut, eof: bool) -> Frames<'a, Self>
    where
        Self: Sized,
    {
        Frames {
            framer: self,
            buf,
            eof,
        }
    }
}

/// The iterator of [`Framer::frames`]: it ends when the framer needs more bytes.
#[must_use = "iterators are lazy: nothing is framed, nor taken from the buffer, until the frames are read"]
pub struct Frames<'a, F> {
    framer: &'a mut F,
    buf: &'a mut BytesMut,
    eof: bool,
}

/// Where the iteration stands, not the buffer: the framer (its stream offsets and frame
/// limit), how many bytes the buffer holds, and whether the stream has ended. A derived
/// `Debug` would print every byte buffered, up to a frame limit's worth of a partial frame,
/// for a `{:?}` in a log line.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{Framer, SseFramer};
/// let mut framer = SseFramer::new(1024);
/// let mut buf = BytesMut::from(&b"data: {}\n\ndata: [1,2"[..]);
/// let mut frames = framer.frames(&mut buf, false);
/// assert!(frames.next().is_some());
/// assert!(frames.next().is_none()); // `data: [1,2` waits for its end
/// assert_eq!(
///     format!("{frames:?}"),
///     "Frames { framer: SseFramer { max_frame: 1024, consumed: 10, last_offset: 0, \
///      event_offset: None, data_len: 0, discarding: false, last_event_id: None, \
///      reconnection_time: None, .. }, buffered: 10, eof: false }"
/// );
/// ```
impl<F: core::fmt::Debug> core::fmt::Debug for Frames<'_, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Frames")
            .field("framer", &self.framer)
            .field("buffered", &self.buf.len())
            .field("eof", &self.eof)
            .finish()
    }
}

impl<F: Framer> Frames<'_, F> {
    /// Stream offset of the first byte of the frame (or bad frame) last handed out
    /// ([`Framer::last_offset`]): the iterator holds the framer, so a loop asks it here.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Framer, LineFramer};
    /// let mut framer = LineFramer::new(1024);
    /// let mut buf = BytesMut::from(&b"{\"a\":1}\n\n{\"b\":2}\n"[..]);
    /// let mut frames = framer.frames(&mut buf, false);
    /// let mut at = Vec::new();
    /// while let Some(frame) = frames.next() {
    ///     at.push((frames.last_offset(), frame.unwrap().to_vec()));
    /// }
    /// assert_eq!(at, [(0, b"{\"a\":1}".to_vec()), (9, b"{\"b\":2}".to_vec())]);
    /// ```
    pub fn last_offset(&self) -> u64 {
        self.framer.last_offset()
    }
}

impl<F: Framer> Iterator for Frames<'_, F> {
    type Item = Result<F::Frame, F::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.framer.next_frame(self.buf, self.eof).transpose()
    }
}

/// Implements [`Framer`] with the framer's own methods: `$decode` and `$decode_eof` (which
/// hand out messages only), and those named like the trait's.
macro_rules! impl_framer {
    ($framer:ty, $frame:ty, $error:ty, $decode:ident, $decode_eof:ident) => {
        impl Framer for $framer {
            type Frame = $frame;
            type Error = $error;

            fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<$frame>, $error> {
                <$framer>::$decode(self, buf)
            }

            fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<$frame>, $error> {
                <$framer>::$decode_eof(self, buf)
            }

            fn last_offset(&self) -> u64 {
                <$framer>::last_offset(self)
            }

            fn consumed(&self) -> u64 {
                <$framer>::consumed(self)
            }

            fn max_frame(&self) -> usize {
                <$framer>::max_frame(self)
            }
        }
    };
}

impl_framer!(LineFramer, bytes::Bytes, FrameError, decode, decode_eof);
impl_framer!(
    SseFramer,
    SseEvent,
    FrameError,
    decode_message,
    decode_message_eof
);
impl_framer!(
    ContentLengthFramer,
    bytes::Bytes,
    ContentLengthError,
    decode,
    decode_eof
);
