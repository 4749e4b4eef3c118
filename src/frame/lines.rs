//! Newline-delimited framing (MCP's stdio transport), with the semantics of tokio-util's
//! `LinesCodec` made finite: a cursor so a partial line is never rescanned, `\r\n` accepted,
//! blank lines skipped, the last unterminated line delivered at end of stream, and an
//! over-long line reported once and then discarded without buffering it.

use bytes::{Buf, Bytes, BytesMut};

/// A bad frame, from a [`LineFramer`], [`Lines`] or an [`SseFramer`](super::SseFramer). The
/// stream goes on after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FrameError {
    /// A frame longer than the frame limit: a line (from [`LineFramer`] or [`Lines`]), or an
    /// SSE event (from [`SseFramer`](super::SseFramer)). It is reported when the limit is
    /// crossed and then discarded, a line up to its newline, an event up to its blank line;
    /// `offset` is where it started in the stream. Its id is never read, so the reply it calls
    /// for is [`Decoder::parse_error_reply`](crate::Decoder::parse_error_reply), sent only to a
    /// peer whose requests you read.
    ///
    /// A line of JSON whitespace alone is over-long too when it crosses the limit, though a
    /// shorter one is skipped as blank: the limit is checked as the line comes, before its end
    /// shows what it holds, and so a peer that sends whitespace without end is reported, not
    /// read on in silence.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{FrameError, SseFramer};
    /// let mut framer = SseFramer::new(8);
    /// let mut buf = BytesMut::from(&b"data: {}\n\nid: 2\ndata: [1,2,3,4,5]\n\ndata: {}\n\n"[..]);
    /// assert_eq!(&framer.decode(&mut buf).unwrap().unwrap().data[..], b"{}");
    /// // The second event starts at byte 10, its `id:` line.
    /// assert_eq!(framer.decode(&mut buf), Err(FrameError::TooLong { offset: 10, limit: 8 }));
    /// assert_eq!(&framer.decode(&mut buf).unwrap().unwrap().data[..], b"{}");
    /// ```
    TooLong {
        /// Stream offset of the first byte of the over-long line, or of the first line of
        /// the over-long event.
        offset: u64,
        /// The frame limit it crossed, in bytes: the framer's
        /// [`max_frame`](LineFramer::max_frame).
        limit: usize,
    },
}

impl FrameError {
    /// The stream offset of the bad frame's first byte, whatever the error (so callers need
    /// no `match`, whose catch-all arm `#[non_exhaustive]` requires).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::LineFramer;
    /// let mut framer = LineFramer::new(8);
    /// let mut buf = BytesMut::from(&b"ok\nmuch too long\n"[..]);
    /// assert_eq!(&framer.decode(&mut buf).unwrap().unwrap()[..], b"ok");
    /// assert_eq!(framer.decode(&mut buf).unwrap_err().offset(), 3);
    /// ```
    pub const fn offset(&self) -> u64 {
        match *self {
            FrameError::TooLong { offset, .. } => offset,
        }
    }
}

impl core::fmt::Display for FrameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FrameError::TooLong { offset, limit } => write!(
                f,
                "frame starting at byte {offset} exceeds the frame limit of {limit} bytes"
            ),
        }
    }
}

impl core::error::Error for FrameError {}

/// Whether `line` holds nothing but JSON whitespace: a line every line framer skips.
#[inline]
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| crate::scan::scalar::is_ws(b))
}

/// A line without its `\n` (already cut off: its position is known, so the byte is not
/// looked at again) and without a `\r` before it.
#[inline]
pub(super) fn without_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Cuts newline-delimited frames out of a [`BytesMut`] read buffer, handing each out as
/// frozen [`Bytes`] without copying.
///
/// A frame shares the buffer's allocation, so a frame kept long (in an
/// [`OwnedMessage`](crate::OwnedMessage), say) keeps that whole allocation alive, as large as
/// the buffer had grown when the frame was cut (up to the largest read or frame); copy a
/// frame you keep for long (`Bytes::copy_from_slice(&frame)`).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::LineFramer;
/// let mut framer = LineFramer::new(1024);
/// let mut buf = BytesMut::from(&b"{\"a\":1}\r\n\n{\"b\""[..]);
/// assert_eq!(framer.decode(&mut buf).unwrap().unwrap(), &b"{\"a\":1}"[..]);
/// assert_eq!(framer.decode(&mut buf).unwrap(), None); // blank line skipped, then partial
/// buf.extend_from_slice(b":2}");
/// assert_eq!(framer.decode_eof(&mut buf).unwrap().unwrap(), &b"{\"b\":2}"[..]);
/// ```
#[derive(Debug, Clone)]
pub struct LineFramer {
    /// Where to resume the newline search in the buffer: bytes before it hold no newline.
    next_index: usize,
    max_frame: usize,
    discarding: bool,
    /// Stream offset of the buffer's first byte.
    consumed: u64,
    last_offset: u64,
    yield_blank: bool,
}

/// [`LineFramer::new`] with the default frame limit: `max_frame` of
/// [`Limits::DEFAULT`](crate::Limits::DEFAULT), 16 MiB, the limit a default decoder
/// ([`Decoder::default`](crate::Decoder::default)) reads frames up to.
///
/// ```
/// use rpcwire::{Decoder, LineFramer};
/// let framer = LineFramer::default();
/// assert_eq!(framer.max_frame(), 16 << 20);
/// assert_eq!(framer.max_frame(), Decoder::default().options().limits.max_frame);
/// ```
impl Default for LineFramer {
    fn default() -> Self {
        LineFramer::new(crate::Limits::DEFAULT.max_frame)
    }
}

impl LineFramer {
    /// A framer whose frames are at most `max_frame` bytes (terminator excluded). The decoder
    /// has its own limit (`DecodeOptions::limits.max_frame`, 16 MiB by default): raise it too
    /// when this one is higher.
    pub fn new(max_frame: usize) -> Self {
        LineFramer {
            next_index: 0,
            max_frame,
            discarding: false,
            consumed: 0,
            last_offset: 0,
            yield_blank: false,
        }
    }

    /// Also hand out blank lines (as empty or whitespace-only frames) instead of skipping
    /// them, for tools that report every line.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Framer, LineFramer};
    /// let lines = |mut framer: LineFramer| -> Vec<Vec<u8>> {
    ///     let mut buf = BytesMut::from(&b"{}\n\n  \r\n[]\n"[..]);
    ///     framer.frames(&mut buf, true).filter_map(Result::ok).map(|l| l.to_vec()).collect()
    /// };
    /// assert_eq!(lines(LineFramer::new(1024)), [&b"{}"[..], b"[]"]);
    /// assert_eq!(lines(LineFramer::new(1024).yield_blank_lines(true)), [&b"{}"[..], b"", b"  ", b"[]"]);
    /// ```
    #[must_use]
    pub fn yield_blank_lines(mut self, yes: bool) -> Self {
        self.yield_blank = yes;
        self
    }

    /// The frame limit.
    pub fn max_frame(&self) -> usize {
        self.max_frame
    }

    /// Stream offset of the first byte of the frame (or over-long line) last handed out.
    pub fn last_offset(&self) -> u64 {
        self.last_offset
    }

    /// Stream offset of the first byte still in the buffer.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    #[inline]
    fn advance(&mut self, buf: &mut BytesMut, n: usize) {
        buf.advance(n);
        self.consumed += n as u64;
    }

    /// Drops the rest of an over-long line, whatever has arrived of it; `true` once its
    /// newline is past (the framer stops discarding).
    fn discard(&mut self, buf: &mut BytesMut) -> bool {
        match memchr::memchr(b'\n', buf) {
            Some(at) => {
                self.advance(buf, at + 1);
                self.discarding = false;
                true
            }
            None => {
                let n = buf.len();
                self.advance(buf, n);
                false
            }
        }
    }

    /// The next complete frame in `buf`, `Ok(None)` when more bytes are needed, or an error
    /// for an over-long line (reported once; the following lines still come).
    ///
    /// # Errors
    ///
    /// [`FrameError::TooLong`] for a line longer than [`max_frame`](Self::max_frame) (its
    /// `\n` or `\r\n` not counted), as soon as that is known: at its newline, or once
    /// `max_frame + 2` bytes of it have arrived without one. After it, keep calling `decode`:
    /// it drops the rest of that line, however long, then hands out the next one. The reply
    /// such a line calls for is
    /// [`Decoder::parse_error_reply`](crate::Decoder::parse_error_reply); send it only to a peer
    /// whose requests you read.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{FrameError, LineFramer};
    /// let mut framer = LineFramer::new(64);
    /// let mut buf = BytesMut::from(&b"{\"jsonrpc\":\"2.0\",\"id\":7,"[..]);
    /// assert_eq!(framer.decode(&mut buf), Ok(None)); // the line goes on
    /// buf.extend_from_slice(b"\"method\":\"ping\"}\n");
    /// let ping = &b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}"[..];
    /// assert_eq!(framer.decode(&mut buf).unwrap().as_deref(), Some(ping));
    ///
    /// // A line over the limit is reported once, as soon as it is known; the error gives
    /// // where the line started in the stream, byte 41…
    /// let big = format!(r#"{{"jsonrpc":"2.0","method":"log","params":{{"data":"{}"#, "A".repeat(100));
    /// buf.extend_from_slice(big.as_bytes());
    /// assert_eq!(framer.decode(&mut buf), Err(FrameError::TooLong { offset: 41, limit: 64 }));
    /// // …the rest of it is dropped as it comes, and the next line is handed out whole.
    /// buf.extend_from_slice(b"AAAA\"}}\n");
    /// assert_eq!(framer.decode(&mut buf), Ok(None));
    /// buf.extend_from_slice(&[ping, b"\n"].concat());
    /// assert_eq!(framer.decode(&mut buf).unwrap().as_deref(), Some(ping));
    /// ```
    #[inline]
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        loop {
            if self.discarding && !self.discard(buf) {
                return Ok(None);
            }
            // A frame of max_frame bytes may be followed by "\r\n": look no further.
            let read_to = buf.len().min(self.max_frame.saturating_add(2));
            let from = super::resume_at(self.next_index, read_to);
            match memchr::memchr(b'\n', &buf[from..read_to]) {
                Some(at) => {
                    let end = from + at + 1;
                    self.next_index = 0;
                    let offset = self.consumed;
                    let line = without_cr(&buf[..end - 1]).len();
                    if line > self.max_frame {
                        // Only the terminator fitted in the look-ahead.
                        self.last_offset = offset;
                        self.advance(buf, end);
                        return Err(FrameError::TooLong {
                            offset,
                            limit: self.max_frame,
                        });
                    }
                    self.consumed += end as u64;
                    let mut frame = buf.split_to(end);
                    frame.truncate(line);
                    if !self.yield_blank && is_blank(&frame) {
                        continue;
                    }
                    self.last_offset = offset;
                    return Ok(Some(frame.freeze()));
                }
                None if buf.len() > self.max_frame.saturating_add(1) => {
                    // Report once; the next call discards up to the newline.
                    self.discarding = true;
                    self.next_index = 0;
                    self.last_offset = self.consumed;
                    return Err(FrameError::TooLong {
                        offset: self.consumed,
                        limit: self.max_frame,
                    });
                }
                None => {
                    self.next_index = read_to;
                    return Ok(None);
                }
            }
        }
    }

    /// Like [`decode`](Self::decode), at end of stream: a final line without a newline is
    /// delivered as a frame (blank ones skipped), and an unfinished over-long line is dropped.
    ///
    /// Once it returns `Ok(None)` (every line left handed out), the framer is ready for the
    /// next stream, a new connection say: the next bytes start a new line, even after an
    /// over-long line the end cut short. (Offsets go on counting.)
    ///
    /// # Errors
    ///
    /// [`FrameError::TooLong`] as [`decode`](Self::decode) reports it, and for a final line
    /// without a newline that is longer than [`max_frame`](Self::max_frame). An over-long
    /// line already reported is not reported again: the end drops what is left of it.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{FrameError, LineFramer};
    /// let mut framer = LineFramer::new(8);
    /// // The connection drops inside an over-long line.
    /// let mut buf = BytesMut::from(&b"[1]\n[2, 3, 4, 5"[..]);
    /// assert_eq!(framer.decode_eof(&mut buf).unwrap().unwrap(), &b"[1]"[..]);
    /// assert_eq!(framer.decode_eof(&mut buf), Err(FrameError::TooLong { offset: 4, limit: 8 }));
    /// assert_eq!(framer.decode_eof(&mut buf), Ok(None));
    ///
    /// // A new connection, read by the same framer: its first line is whole.
    /// let mut buf = BytesMut::from(&b"[6]\n"[..]);
    /// assert_eq!(framer.decode(&mut buf).unwrap().unwrap(), &b"[6]"[..]);
    /// assert_eq!(framer.last_offset(), 15);
    /// ```
    pub fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        if let Some(frame) = self.decode(buf)? {
            return Ok(Some(frame));
        }
        let Some((offset, mut frame)) = self.take_rest(buf) else {
            return Ok(None);
        };
        let line = without_cr(&frame).len();
        if line > self.max_frame {
            self.last_offset = offset;
            return Err(FrameError::TooLong {
                offset,
                limit: self.max_frame,
            });
        }
        frame.truncate(line);
        if !self.yield_blank && is_blank(&frame) {
            return Ok(None);
        }
        self.last_offset = offset;
        Ok(Some(frame.freeze()))
    }
}

impl LineFramer {
    /// Every complete line in `buf` at once, as one chunk (terminators, blank and over-long
    /// lines included), for callers that forward runs of lines without copying them. Frame
    /// the chunk with [`Lines`], which applies the same rules as [`decode`](Self::decode)
    /// (blank lines are skipped there, even with
    /// [`yield_blank_lines`](Self::yield_blank_lines)); a frame's stream offset is [`last_offset`](Self::last_offset) plus its offset in the
    /// chunk. `Ok(None)` when no complete line has arrived.
    ///
    /// # Errors
    ///
    /// [`FrameError::TooLong`] when `buf` holds no newline and more than `max_frame + 1`
    /// bytes: an unfinished line that crosses the limit, reported once and then discarded up
    /// to its newline, as with [`decode`](Self::decode). A complete over-long line is no
    /// error here: it is part of the chunk, and [`Lines`] reports it.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{LineFramer, Lines};
    /// let mut framer = LineFramer::new(1024);
    /// let mut buf = BytesMut::from(&b"{\"a\":1}\n{\"b\":2}\n{\"c\""[..]);
    /// let chunk = framer.decode_chunk(&mut buf).unwrap().unwrap();
    /// assert_eq!(chunk, &b"{\"a\":1}\n{\"b\":2}\n"[..]);
    /// assert_eq!(Lines::new(&chunk, 1024).count(), 2);
    /// assert_eq!(buf, &b"{\"c\""[..]); // the partial line waits for more bytes
    /// ```
    pub fn decode_chunk(&mut self, buf: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        if self.discarding && !self.discard(buf) {
            return Ok(None);
        }
        let from = super::resume_at(self.next_index, buf.len());
        match memchr::memrchr(b'\n', &buf[from..]) {
            Some(at) => {
                let end = from + at + 1;
                self.next_index = 0;
                self.last_offset = self.consumed;
                self.consumed += end as u64;
                Ok(Some(buf.split_to(end).freeze()))
            }
            None if buf.len() > self.max_frame.saturating_add(1) => {
                self.discarding = true;
                self.next_index = 0;
                self.last_offset = self.consumed;
                Err(FrameError::TooLong {
                    offset: self.consumed,
                    limit: self.max_frame,
                })
            }
            None => {
                self.next_index = buf.len();
                Ok(None)
            }
        }
    }

    /// Like [`decode_chunk`](Self::decode_chunk), at end of stream: the final line without a
    /// newline is part of the chunk, and an unfinished over-long line is dropped.
    ///
    /// # Errors
    ///
    /// [`FrameError::TooLong`] as [`decode_chunk`](Self::decode_chunk) reports it, the final
    /// line too: one of more than `max_frame + 1` bytes is reported here, and the next call
    /// drops it. A shorter final line is part of the chunk, over-long or not, and [`Lines`]
    /// reports it.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{FrameError, LineFramer, Lines};
    /// let mut framer = LineFramer::new(4);
    /// let chunk = framer.decode_chunk_eof(&mut BytesMut::from(&b"abcde"[..])).unwrap().unwrap();
    /// assert_eq!(Lines::new(&chunk, 4).next(), Some(Err(FrameError::TooLong { offset: 0, limit: 4 })));
    /// let mut buf = BytesMut::from(&b"abcdef"[..]);
    /// assert_eq!(framer.decode_chunk_eof(&mut buf), Err(FrameError::TooLong { offset: 5, limit: 4 }));
    /// assert_eq!(framer.decode_chunk_eof(&mut buf), Ok(None));
    /// ```
    pub fn decode_chunk_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        if let Some(chunk) = self.decode_chunk(buf)? {
            // Lines after the last newline come in the next call.
            return Ok(Some(chunk));
        }
        let Some((offset, rest)) = self.take_rest(buf) else {
            return Ok(None);
        };
        self.last_offset = offset;
        Ok(Some(rest.freeze()))
    }

    /// At end of stream, once no newline is left: the unterminated rest of the stream and
    /// its offset, or `None` when nothing is left or the rest belongs to an over-long line
    /// (dropped).
    fn take_rest(&mut self, buf: &mut BytesMut) -> Option<(u64, BytesMut)> {
        self.next_index = 0;
        if core::mem::take(&mut self.discarding) {
            let n = buf.len();
            self.advance(buf, n);
            return None;
        }
        if buf.is_empty() {
            return None;
        }
        let offset = self.consumed;
        self.consumed += buf.len() as u64;
        Some((offset, buf.split()))
    }
}

/// Non-consuming framing of a complete byte slice: yields `(offset, frame)` for every line,
/// with the same rules as [`LineFramer`] (blank lines skipped, the last line may lack its
/// newline, over-long lines reported as errors).
///
/// ```
/// use rpcwire::Lines;
/// let input = b"{\"a\":1}\n\n{\"b\":2}";
/// let frames: Vec<_> = Lines::new(input, 1024).map(|f| f.unwrap()).collect();
/// assert_eq!(frames, vec![(0, &b"{\"a\":1}"[..]), (9, &b"{\"b\":2}"[..])]);
/// ```
#[derive(Clone)]
#[must_use = "iterators are lazy: nothing is framed until the lines are read"]
pub struct Lines<'a> {
    input: &'a [u8],
    pos: usize,
    max_frame: usize,
}

/// Where the framing stands, not the input: a derived `Debug` would print every byte of the
/// input as a number (a capture of megabytes, for a `{:?}` in a log line).
///
/// ```
/// use rpcwire::Lines;
/// let mut lines = Lines::new(b"{}\n[]\n", 1024);
/// lines.next();
/// assert_eq!(format!("{lines:?}"), "Lines { offset: 3, remaining: 3, max_frame: 1024 }");
/// ```
impl core::fmt::Debug for Lines<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lines")
            .field("offset", &self.pos)
            .field("remaining", &(self.input.len() - self.pos))
            .field("max_frame", &self.max_frame)
            .finish()
    }
}

impl<'a> Lines<'a> {
    /// Frames `input` with frames of at most `max_frame` bytes.
    pub fn new(input: &'a [u8], max_frame: usize) -> Self {
        Lines {
            input,
            pos: 0,
            max_frame,
        }
    }

    /// The frame limit.
    pub fn max_frame(&self) -> usize {
        self.max_frame
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Result<(usize, &'a [u8]), FrameError>;

    // Inlined into the caller's loop (it is not generic, so without the hint it would not
    // cross the crate boundary): the iterator's state stays in registers (tiny −7 %).
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let rest = self.rest();
            if rest.is_empty() {
                return None;
            }
            if let Some(item) = self.cut_line(memchr::memchr(b'\n', rest)) {
                return Some(item);
            }
        }
    }
}

// Once the input is framed to its end, `next` finds it empty on every call.
impl core::iter::FusedIterator for Lines<'_> {}

impl<'a> Lines<'a> {
    /// What is left to frame.
    #[inline]
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.input.get(self.pos..).unwrap_or(&[])
    }

    /// The offset of [`Self::rest`] in the input.
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.pos
    }

    /// Moves past the first `n` bytes of [`Self::rest`] (a line framed by the caller).
    #[inline]
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos += n;
    }

    /// Cuts the first line of a non-empty [`Self::rest`], whose `\n` is at `nl` (`None`:
    /// there is none), and moves past it; `None` when the line is blank.
    #[inline]
    pub(crate) fn cut_line(&mut self, nl: Option<usize>) -> Option<<Self as Iterator>::Item> {
        let start = self.pos;
        let rest = self.rest();
        let (line, end) = match nl {
            Some(nl) => (&rest[..nl], nl + 1),
            None => (rest, rest.len()),
        };
        self.pos = start + end;
        let line = without_cr(line);
        if line.len() > self.max_frame {
            return Some(Err(FrameError::TooLong {
                offset: start as u64,
                limit: self.max_frame,
            }));
        }
        (!is_blank(line)).then_some(Ok((start, line)))
    }
}
