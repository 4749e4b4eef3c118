//! Server-Sent Events framing (`text/event-stream`, the streamed form of MCP's Streamable HTTP
//! responses), following the WHATWG event stream interpretation rules, made finite: lines end
//! in LF, CRLF or a lone CR (a CRLF split across two reads is one line end), `data:` lines are
//! joined with `\n`, an event ends on a blank line, comments and unknown fields are ignored
//! (however long), an event not ended by a blank line at end of stream is dropped (but not a
//! `retry` it set: the reconnection time takes effect when its field is read), and an
//! over-long event is reported once and then discarded up to its blank line without
//! buffering it (but for one line within the limit at a time, which may be a `retry`, or an
//! `id` that becomes the last event id at that blank line, as WHATWG, which has no limit and
//! dispatches the event, would have it).
//!
//! The data of an event with a single `data:` line is a [`Bytes`] slice of the read buffer
//! (no copy); only data spread over several lines is joined into a fresh buffer.
//!
//! Bytes stay bytes: where WHATWG decodes the stream as UTF-8 first, turning each byte that is
//! not into U+FFFD, the framer hands data, ids and types out as they came. A message whose
//! data is not UTF-8 is then refused by the decoder (-32700, `InvalidUtf8`) rather than read
//! with replacement characters, which would change its strings; an id that is not UTF-8 fails
//! the `from_utf8` a relay makes before writing it again.
//!
//! The writing side: [`write_sse_event`] appends an event carrying one message,
//! [`write_sse_retry`] sets the client's reconnection time, and [`write_sse_comment`] writes a
//! comment line (a keep-alive).

use alloc::vec::Vec;

use bytes::{Buf, BufMut, Bytes, BytesMut};

use super::lines::FrameError;
use super::without_line_end;
use crate::REUSE_KEEP;

/// The byte order mark a stream may start with (stripped once, as WHATWG's UTF-8 decode does).
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How much longer than the frame limit a line may be: room for a field name such as
/// `data: ` or `retry: `. Longer lines of the fields an event keeps (`data`, `id`, `event`,
/// `retry`) make their event over-long; longer comments and unknown fields are skipped.
const LINE_SLACK: usize = 8;

/// One dispatched event.
///
/// `data` is the joined data (empty for a priming event that only carries an `id` or a
/// `retry`). `id` is the value of the event's last valid `id:` field (`Some(empty)` resets
/// the last event id; an `id` containing NUL is ignored as WHATWG says); callers that need
/// the WHATWG "last event ID" keep the last `Some` they were given. `event` is the event
/// type (`None` means `message`, as an empty `event:` field does). `retry` is a reconnection
/// time in milliseconds: the last valid `retry:` field read since the previous event handed
/// out (at end of stream, one left pending comes in an event of its own).
///
/// The message an event carries is its data: pass `&event.data` (or `event.as_ref()`) to
/// [`Decoder::decode`](crate::Decoder::decode), which takes a `&[u8]`; an `&SseEvent` is not
/// one, so `decoder.decode(&event)` does not compile.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{Decoder, Kind, SseFramer};
/// let mut buf = BytesMut::from(&b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\n"[..]);
/// let event = SseFramer::new(1024).decode(&mut buf).unwrap().unwrap();
/// let decoder = Decoder::mcp();
/// assert_eq!(decoder.decode(&event.data).unwrap().kind(), Kind::Notification);
/// assert_eq!(decoder.decode(event.as_ref()).unwrap().kind(), Kind::Notification);
/// ```
///
/// ```compile_fail
/// # use rpcwire::{Decoder, SseEvent};
/// let event = SseEvent::default();
/// Decoder::mcp().decode(&event); // expected `&[u8]`, found `&SseEvent`
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SseEvent {
    /// The event's data: its `data:` lines joined with `\n` (decode it with the envelope
    /// decoder).
    pub data: Bytes,
    /// The event's `id:` field, when it had a valid one.
    pub id: Option<Bytes>,
    /// The event's `event:` field (the event type), when it had one.
    pub event: Option<Bytes>,
    /// The event's `retry:` field, when it had one made of ASCII digits that fits `u64`.
    pub retry: Option<u64>,
}

impl SseEvent {
    /// Whether the event carries a message: it has data, and its type is `message` (no
    /// `event:` field, or `event: message`). An event of another type is dispatched to the
    /// listeners of that type, not to a client's `onmessage`.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::SseFramer;
    /// let mut framer = SseFramer::new(1024);
    /// let mut buf = BytesMut::from(&b"event: endpoint\ndata: /messages\n\ndata: {}\n\n"[..]);
    /// assert!(!framer.decode(&mut buf).unwrap().unwrap().carries_message());
    /// assert!(framer.decode(&mut buf).unwrap().unwrap().carries_message());
    /// ```
    pub fn carries_message(&self) -> bool {
        !self.data.is_empty() && self.event.as_deref().is_none_or(|e| e == b"message")
    }
}

/// The event's data: the message it carries.
impl AsRef<[u8]> for SseEvent {
    fn as_ref(&self) -> &[u8] {
        &self.data
    }
}

/// Whether a line starting with `prefix` (and longer) is one WHATWG ignores: a comment, or a
/// field whose name is none of `data`, `id`, `event`, `retry` (a name that runs past the
/// prefix is longer than all of them).
fn is_ignored_field(prefix: &[u8]) -> bool {
    let name = memchr::memchr(b':', prefix).map_or(prefix, |colon| &prefix[..colon]);
    !matches!(name, b"data" | b"id" | b"event" | b"retry")
}

/// Where the field name of a non-blank, non-comment line ends and its value starts (after the
/// colon and one optional space; a line without a colon is all name, with an empty value).
fn field_parts(line: &[u8]) -> (usize, usize) {
    match memchr::memchr(b':', line) {
        Some(c) if line.get(c + 1) == Some(&b' ') => (c, c + 2),
        Some(c) => (c, c + 1),
        None => (line.len(), line.len()),
    }
}

/// The data of the event under construction.
#[derive(Debug, Clone, Default)]
enum Data {
    /// No `data:` line yet.
    #[default]
    None,
    /// One `data:` line: a slice of the read buffer.
    One(Bytes),
    /// Several lines, joined in `SseFramer::joined`.
    Joined,
}

/// Cuts a `text/event-stream` byte stream into [`SseEvent`]s, with the contract of
/// [`LineFramer`](super::LineFramer): `Ok(Some(event))`, `Ok(None)` when more bytes are
/// needed, `Err(FrameError::TooLong)` once for an over-long event (the stream goes on).
///
/// An event is over-long when its joined data exceeds the frame limit or when one of its
/// `data`, `id`, `event` or `retry` lines exceeds the limit plus a few bytes for the field
/// name. It is reported when the limit is crossed, with the stream offset of its first line,
/// and then discarded up to its blank line without buffering it; its `retry` and `id` lines
/// within the limit still count, as they would for WHATWG, which has no limit (the
/// reconnection time as the line is read, the last event id at the blank line). Longer comment lines and
/// lines of unknown fields, which WHATWG ignores, are skipped without buffering them, and the
/// event goes on.
///
/// Events with empty data are skipped unless they carry an `id` or a `retry` (a priming
/// event, which MCP servers send so a client can resume after it), or unless
/// [`yield_empty_events`](Self::yield_empty_events) is set. Through the
/// [`Framer`](super::Framer) trait, whose frames are messages, a priming event is skipped too,
/// and so is an event of a type other than `message` ([`SseEvent::carries_message`]).
///
/// Between events the framer keeps at most [`REUSE_KEEP`] (64 KiB) of memory of its own for
/// reuse: the buffer the data of several lines is joined in, and the copy of the last event
/// id. A larger one, left by a large event or a long id, is given back, so that a long-lived
/// stream does not hold the largest event it ever read. (The data of a one-line event is a
/// slice of the read buffer, which is the caller's.)
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{Decoder, Kind, SseFramer};
/// let mut framer = SseFramer::new(1 << 20);
/// let mut buf = BytesMut::from(&b": keep-alive\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\","[..]);
/// assert_eq!(framer.decode(&mut buf).unwrap(), None); // the event is not finished yet
/// buf.extend_from_slice(b"\r\ndata: \"method\":\"ping\"}\r\n\r\n");
/// let event = framer.decode(&mut buf).unwrap().unwrap();
/// assert_eq!(event.id.as_deref(), Some(&b"1"[..]));
/// assert_eq!(&event.data[..], b"{\"jsonrpc\":\"2.0\",\n\"method\":\"ping\"}");
/// // The decoder takes the event's data (`&event` alone is no `&[u8]`: see `SseEvent`).
/// assert_eq!(Decoder::mcp().decode(&event.data).unwrap().kind(), Kind::Notification);
/// ```
#[derive(Clone)]
pub struct SseFramer {
    max_frame: usize,
    yield_empty: bool,
    /// Where to resume the line-end search in the buffer: the bytes before it (all in the
    /// current, unfinished line) hold no CR or LF.
    next_index: usize,
    /// The last line ended with a CR that was the last byte of the buffer: an LF starting the
    /// next read belongs to it.
    skip_lf: bool,
    /// Whether a leading byte order mark has been looked for.
    bom_checked: bool,
    /// Dropping an over-long event up to its blank line.
    discarding: bool,
    /// While discarding: the current line's first bytes were already dropped, so its end
    /// is not a blank line.
    in_line: bool,
    /// Dropping the rest of an over-long line that is ignored anyway (a comment, an unknown
    /// field), up to its end; the event goes on.
    skipping_line: bool,
    /// A line other than a comment (a field, known or not) was read since the last event
    /// ended: an event has begun, which the end of the stream would cut.
    in_event: bool,
    /// Stream offset of the buffer's first byte.
    consumed: u64,
    last_offset: u64,
    /// Stream offset of the first line of the event under construction.
    event_start: Option<u64>,
    data: Data,
    data_len: usize,
    /// The data of several lines, joined (its memory reused up to [`REUSE_KEEP`]).
    joined: BytesMut,
    id: Option<Bytes>,
    event: Option<Bytes>,
    retry: Option<u64>,
    /// The id of the last dispatched event that had one (WHATWG's "last event ID string"),
    /// copied out of the read buffer: a slice of it would keep the whole buffer alive until
    /// the next id (the copy reuses its capacity: no allocation per event once it holds the
    /// stream's ids, unless one of them is longer than [`REUSE_KEEP`]).
    last_event_id: Option<Vec<u8>>,
    /// The last valid `retry` read (WHATWG's reconnection time).
    reconnection_time: Option<u64>,
}

/// Where the framing stands, not the bytes it holds: its limit, its stream offsets, how much
/// data the event being read has, and what a client resumes with. A derived `Debug` would
/// print the data of the event under construction, up to the frame limit, for a `{:?}` in a
/// log line.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::SseFramer;
/// let mut framer = SseFramer::new(1024);
/// let mut buf = BytesMut::from(&b"id: 7\ndata: {}\n\ndata: [1,\ndata: 2]\n"[..]);
/// framer.decode(&mut buf).unwrap();
/// framer.decode(&mut buf).unwrap(); // the second event is not finished
/// assert_eq!(
///     format!("{framer:?}"),
///     "SseFramer { max_frame: 1024, consumed: 35, last_offset: 0, event_offset: Some(16), \
///      data_len: 6, discarding: false, last_event_id: Some(b\"7\"), reconnection_time: None, .. }"
/// );
/// ```
impl core::fmt::Debug for SseFramer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SseFramer")
            .field("max_frame", &self.max_frame)
            .field("consumed", &self.consumed)
            .field("last_offset", &self.last_offset)
            .field("event_offset", &self.event_start)
            .field("data_len", &self.data_len)
            .field("discarding", &self.discarding)
            .field("last_event_id", &self.last_event_id.as_deref().map(ByteStr))
            .field("reconnection_time", &self.reconnection_time)
            .finish_non_exhaustive()
    }
}

/// Bytes shown as a byte string literal (`b"7"`), as [`Bytes`] shows them, rather than as a
/// list of numbers.
struct ByteStr<'a>(&'a [u8]);

impl core::fmt::Debug for ByteStr<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

/// [`SseFramer::new`] with the default frame limit: `max_frame` of
/// [`Limits::DEFAULT`](crate::Limits::DEFAULT), 16 MiB, the limit a default decoder
/// ([`Decoder::default`](crate::Decoder::default)) reads frames up to.
///
/// ```
/// use rpcwire::{Decoder, SseFramer};
/// let framer = SseFramer::default();
/// assert_eq!(framer.max_frame(), 16 << 20);
/// assert_eq!(framer.max_frame(), Decoder::default().options().limits.max_frame);
/// ```
impl Default for SseFramer {
    fn default() -> Self {
        SseFramer::new(crate::Limits::DEFAULT.max_frame)
    }
}

impl SseFramer {
    /// A framer whose events hold at most `max_frame` bytes of data. The decoder has its own
    /// limit (`DecodeOptions::limits.max_frame`, 16 MiB by default): raise it too when this
    /// one is higher.
    pub fn new(max_frame: usize) -> Self {
        SseFramer {
            max_frame,
            yield_empty: false,
            next_index: 0,
            skip_lf: false,
            bom_checked: false,
            discarding: false,
            in_line: false,
            skipping_line: false,
            in_event: false,
            consumed: 0,
            last_offset: 0,
            event_start: None,
            data: Data::None,
            data_len: 0,
            joined: BytesMut::new(),
            id: None,
            event: None,
            retry: None,
            last_event_id: None,
            reconnection_time: None,
        }
    }

    /// Also hand out events with empty data and no `id` or `retry` (a comment-only
    /// keep-alive, a stray blank line), for tools that report every event. Through the
    /// [`Framer`](super::Framer) trait, whose frames are otherwise messages only, every event
    /// then comes out (a priming event, an `endpoint` event).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Framer, SseFramer};
    /// let stream = &b"id: 0\ndata:\n\n: keep-alive\n\nevent: endpoint\ndata: /messages\n\n"[..];
    /// let frames = |mut framer: SseFramer| framer.frames(&mut BytesMut::from(stream), true).count();
    /// assert_eq!(frames(SseFramer::new(1024)), 0);
    /// assert_eq!(frames(SseFramer::new(1024).yield_empty_events(true)), 3);
    /// ```
    #[must_use]
    pub fn yield_empty_events(mut self, yes: bool) -> Self {
        self.yield_empty = yes;
        self
    }

    /// Starts from the last event id `id`, as if an event had set it: the id a client kept
    /// (on disk, say) from an earlier run, to resume the stream with `Last-Event-ID` after a
    /// restart. [`last_event_id`](Self::last_event_id) gives it back until an event sets
    /// another; an empty `id` is the reset state (no header is sent), as after an empty
    /// `id:` field.
    ///
    /// # Errors
    /// [`SseWriteError::InvalidId`] when `id` holds a `\n`, `\r` or NUL: no event stream
    /// sets such an id (a line break would end the `id:` line, and a reader ignores an `id`
    /// with a NUL, as WHATWG says), and no `Last-Event-ID` header can carry it.
    /// [`SseWriteError::IdTooLong`] when `id` is longer than an id this framer reads from a
    /// stream can be: the value of an `id:` line of at most the frame limit plus the slack
    /// for a field name (`max_frame + 5` bytes; a longer line makes its event over-long).
    /// An id this framer gave back is always taken again by one with the same limit; a
    /// longer one would be sent back as an unbounded `Last-Event-ID` header. The id is
    /// refused rather than kept, so a corrupt saved id shows at once instead of in the
    /// server's answer to the reconnection.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{SseFramer, SseWriteError};
    /// let saved: Vec<u8> = b"stream-1/41".to_vec(); // read back from disk
    /// let mut framer = SseFramer::new(1024).with_last_event_id(&saved)?;
    /// assert_eq!(framer.last_event_id(), Some(&b"stream-1/41"[..])); // `Last-Event-ID: stream-1/41`
    ///
    /// // The resumed stream goes on from there.
    /// let mut buf = BytesMut::from(&b"id: stream-1/42\ndata: {}\n\n"[..]);
    /// framer.decode(&mut buf).unwrap();
    /// assert_eq!(framer.last_event_id(), Some(&b"stream-1/42"[..]));
    ///
    /// let refused = SseFramer::new(1024).with_last_event_id("a\0b").unwrap_err();
    /// assert_eq!(refused, SseWriteError::InvalidId);
    /// let refused = SseFramer::new(16).with_last_event_id([b'7'; 22]).unwrap_err();
    /// assert_eq!(refused, SseWriteError::IdTooLong { limit: 21 });
    /// # Ok::<(), SseWriteError>(())
    /// ```
    pub fn with_last_event_id(mut self, id: impl AsRef<[u8]>) -> Result<Self, SseWriteError> {
        let id = id.as_ref();
        if !is_valid_event_id(id) {
            return Err(SseWriteError::InvalidId);
        }
        let limit = self.max_event_id_len();
        if id.len() > limit {
            return Err(SseWriteError::IdTooLong { limit });
        }
        self.last_event_id = Some(id.to_vec());
        Ok(self)
    }

    /// [`decode`](Self::decode) for the [`Framer`](super::Framer) trait, whose frames are
    /// messages: an event without data (a priming event: an `id` or a `retry` only) and an
    /// event of a type other than `message` (the 2024-11-05 transport's `endpoint` event, whose
    /// data is a URL; a browser's `onmessage` does not see it either) are skipped, unless
    /// [`yield_empty_events`](Self::yield_empty_events) is set;
    /// [`last_event_id`](Self::last_event_id) and [`reconnection_time`](Self::reconnection_time) keep what it said,
    /// and [`last_offset`](Self::last_offset) stays on the last event handed out.
    pub(super) fn decode_message(
        &mut self,
        buf: &mut BytesMut,
    ) -> Result<Option<SseEvent>, FrameError> {
        self.skip_non_messages(|framer| framer.decode(buf))
    }

    /// [`decode_message`](Self::decode_message) at end of stream.
    pub(super) fn decode_message_eof(
        &mut self,
        buf: &mut BytesMut,
    ) -> Result<Option<SseEvent>, FrameError> {
        self.skip_non_messages(|framer| framer.decode_eof(buf))
    }

    fn skip_non_messages(
        &mut self,
        mut next: impl FnMut(&mut Self) -> Result<Option<SseEvent>, FrameError>,
    ) -> Result<Option<SseEvent>, FrameError> {
        let handed_out = self.last_offset;
        loop {
            match next(self) {
                Ok(Some(event)) if !self.yield_empty && !event.carries_message() => {
                    self.last_offset = handed_out;
                }
                other => return other,
            }
        }
    }

    /// The reconnection time the server last set with a `retry` field, in milliseconds
    /// (WHATWG sets it as the line is read, whether or not its event is dispatched): how long
    /// a client waits before it reconnects. `None` before any.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Framer, SseFramer};
    /// let mut framer = SseFramer::new(1024);
    /// assert_eq!(framer.reconnection_time(), None);
    /// // A priming event: no message (the trait skips it), but its `retry` counts.
    /// let mut buf = BytesMut::from(&b"id: 0\nretry: 3000\ndata:\n\ndata: {}\n\n"[..]);
    /// assert_eq!(framer.frames(&mut buf, false).count(), 1);
    /// assert_eq!(framer.reconnection_time(), Some(3000));
    /// // A value that is not a number is ignored.
    /// buf.extend_from_slice(b"retry: soon\ndata: {}\n\n");
    /// assert_eq!(framer.frames(&mut buf, false).count(), 1);
    /// assert_eq!(framer.reconnection_time(), Some(3000));
    /// ```
    pub fn reconnection_time(&self) -> Option<u64> {
        self.reconnection_time
    }

    /// The `id` of the last event that had one, among the events ended so far (handed out,
    /// skipped, a priming event included, or dropped as over-long, which WHATWG, without a
    /// limit, would have dispatched; an `id` line longer than the limit is not read, as no
    /// line over it is): what a client sends as `Last-Event-ID` to resume the
    /// stream after a reconnection. `Some(b"")` when the server reset it with an empty `id`
    /// (then no header is sent: [`last_event_id_header`](Self::last_event_id_header) is the
    /// header's value); `None` before any, unless the framer was started from a
    /// saved one ([`with_last_event_id`](Self::with_last_event_id)).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Framer, SseFramer};
    /// let mut framer = SseFramer::new(1024);
    /// let mut buf = BytesMut::from(&b"id: 41\ndata:\n\ndata: {}\n\nid: 42\ndata: {}\n\n"[..]);
    /// let frames: Vec<_> = framer.frames(&mut buf, false).collect(); // the two with data
    /// assert_eq!(frames.len(), 2);
    /// assert_eq!(framer.last_event_id(), Some(&b"42"[..]));
    /// ```
    pub fn last_event_id(&self) -> Option<&[u8]> {
        self.last_event_id.as_deref()
    }

    /// The value of the `Last-Event-ID` header a client sends when it reconnects, as WHATWG
    /// says: [`last_event_id`](Self::last_event_id), but `None` when it is empty (a server
    /// reset it with an empty `id`, or none was ever set), for then no header is sent.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::SseFramer;
    /// let mut framer = SseFramer::new(1024);
    /// let mut buf = BytesMut::from(&b"id: 7\ndata: {}\n\n"[..]);
    /// framer.decode(&mut buf).unwrap();
    /// assert_eq!(framer.last_event_id_header(), Some(&b"7"[..]));
    ///
    /// // The server resets the id: the id is empty, and no header goes with the reconnection.
    /// let mut buf = BytesMut::from(&b"id\ndata: {}\n\n"[..]);
    /// framer.decode(&mut buf).unwrap();
    /// assert_eq!(framer.last_event_id(), Some(&b""[..]));
    /// assert_eq!(framer.last_event_id_header(), None);
    /// ```
    pub fn last_event_id_header(&self) -> Option<&[u8]> {
        self.last_event_id().filter(|id| !id.is_empty())
    }

    /// Whether the stream, were it to end now, would end inside an event with data, which
    /// [`decode_eof`](Self::decode_eof) drops as WHATWG says (and a browser does silently):
    /// a `data` line was read and no blank line followed, or the unfinished line left in
    /// `buf` (after [`decode`](Self::decode) returned `Ok(None)`) is a `data` line. An event
    /// reported over-long already is not one. For a checker to report what a client would
    /// lose.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::SseFramer;
    /// let mut framer = SseFramer::new(1024);
    /// let mut buf = BytesMut::from(&b"data: {}\n\n: keep-alive\n"[..]);
    /// assert!(framer.decode(&mut buf).unwrap().is_some());
    /// assert!(framer.decode(&mut buf).unwrap().is_none());
    /// assert!(!framer.ends_inside_event(&buf));
    /// buf.extend_from_slice(b"data: {\"jsonrpc\"");
    /// assert!(framer.decode(&mut buf).unwrap().is_none());
    /// assert!(framer.ends_inside_event(&buf));
    /// ```
    pub fn ends_inside_event(&self, buf: &[u8]) -> bool {
        if self.discarding {
            return false;
        }
        if !matches!(self.data, Data::None) {
            // (An over-long comment being skipped leaves its event as it was.)
            return true;
        }
        if self.skipping_line {
            // What is left is the rest of a comment or of an unknown field.
            return false;
        }
        // `decode` consumed every whole line (and a byte order mark, and the LF of a CRLF cut
        // after its CR): what is left is one unfinished line.
        let (name_end, _) = field_parts(buf);
        &buf[..name_end] == b"data"
    }

    /// Whether the stream, were it to end now, would cut an event the server had begun (an
    /// event of which a field line, known or not, was read, or whose first line is the
    /// unfinished one left in `buf`), whatever it carries: a body that ends so was not read
    /// whole, though the event it cut may have had no data yet ([`ends_inside_event`] is the
    /// narrower question, whether data is dropped). Comments and a blank line (or nothing)
    /// after the last event are no cut; an event reported over-long already is none either.
    ///
    /// [`ends_inside_event`]: Self::ends_inside_event
    #[cfg(feature = "tokio")]
    pub(crate) fn ends_mid_event(&self, buf: &[u8]) -> bool {
        if self.discarding {
            return false;
        }
        // `decode` consumed every whole line: what is left is one unfinished line (or the
        // rest of an over-long comment or unknown field being skipped, told by `in_event`).
        self.in_event
            || self.ends_inside_event(buf)
            || (!self.skipping_line && buf.first().is_some_and(|&b| b != b':'))
    }

    /// The data limit.
    pub fn max_frame(&self) -> usize {
        self.max_frame
    }

    /// Stream offset of the first byte of the event (or over-long event) last handed out.
    pub fn last_offset(&self) -> u64 {
        self.last_offset
    }

    /// Stream offset of the first byte of the event being read: where an event the end would
    /// drop begins, when [`ends_inside_event`](Self::ends_inside_event) says there is one.
    /// Between events, the first byte still in the buffer ([`consumed`](Self::consumed)).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::SseFramer;
    /// let mut framer = SseFramer::new(1 << 20);
    /// let mut buf = BytesMut::from(&b"data: 1\n\ndata: [2,\ndata: 3"[..]);
    /// assert!(framer.decode(&mut buf).unwrap().is_some());
    /// assert!(framer.decode(&mut buf).unwrap().is_none());
    /// assert!(framer.ends_inside_event(&buf));
    /// assert_eq!(framer.event_offset(), 9);
    /// ```
    pub fn event_offset(&self) -> u64 {
        self.event_start.unwrap_or(self.consumed)
    }

    /// Stream offset of the first byte still in the buffer.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    #[inline]
    fn line_limit(&self) -> usize {
        self.max_frame.saturating_add(LINE_SLACK)
    }

    /// The longest id a stream can set: the value of an `id:` line (no space before it) as
    /// long as [`line_limit`](Self::line_limit) lets a kept field's line be.
    fn max_event_id_len(&self) -> usize {
        self.line_limit() - b"id:".len()
    }

    #[inline]
    fn advance(&mut self, buf: &mut BytesMut, n: usize) {
        buf.advance(n);
        self.consumed += n as u64;
    }

    /// Removes the line `..end` from the buffer and returns its value `value_start..at`
    /// frozen (one new reference to the buffer, not one for the line and one for the slice).
    #[inline(always)]
    fn take_value(
        &mut self,
        buf: &mut BytesMut,
        value_start: usize,
        at: usize,
        end: usize,
    ) -> Bytes {
        self.advance(buf, value_start);
        self.consumed += (at - value_start) as u64;
        let value = buf.split_to(at - value_start).freeze();
        self.advance(buf, end - at);
        value
    }

    fn clear_event(&mut self) {
        self.event_start = None;
        self.in_event = false;
        // Data joined past `REUSE_KEEP` by an event that was not handed out (one the end of
        // the stream drops) is given back with it, as a dispatched one's goes with its event.
        if self.joined.capacity() > REUSE_KEEP {
            self.joined = BytesMut::new();
        }
        self.data = Data::None;
        self.data_len = 0;
        self.id = None;
        self.event = None;
        self.retry = None;
    }

    /// Reports the event under construction as over-long and starts discarding it. A `retry`
    /// read before stays pending, as one read while discarding will: the reconnection time is
    /// not part of the event. So does an `id`, which sets the last event id at the event's
    /// blank line (an `id` read while discarding replaces it).
    fn too_long(&mut self) -> FrameError {
        let offset = self.event_start.unwrap_or(self.consumed);
        let (retry, id) = (self.retry.take(), self.id.take());
        self.clear_event();
        (self.retry, self.id) = (retry, id);
        // Give back the memory of a long joined data buffer.
        self.joined = BytesMut::new();
        self.discarding = true;
        self.last_offset = offset;
        FrameError::TooLong {
            offset,
            limit: self.max_frame,
        }
    }

    /// The next complete event in `buf`, `Ok(None)` when more bytes are needed, or an error
    /// for an over-long event (reported once; the following events still come).
    ///
    /// Every event that has data, an `id` or a `retry` comes out, MCP's priming event (an
    /// `id` alone) included. Code generic over [`Framer`](super::Framer), whose frames are
    /// messages, gets only the events with data from the trait's `decode` instead; called on an
    /// `SseFramer` itself, `decode` is always this method, trait in scope or not.
    ///
    /// # Errors
    ///
    /// [`FrameError::TooLong`] once for an over-long event: at the end of the `data` line
    /// that takes its joined data past [`max_frame`](Self::max_frame), or once more than
    /// `max_frame` plus 8 bytes (room for the field name) of one of its `data`, `id`, `event`
    /// or `retry` lines have arrived without the line's end. Keep calling `decode`: it drops
    /// the rest of that event up to its blank line, then hands out the next one.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{FrameError, SseFramer};
    /// let mut framer = SseFramer::new(4);
    /// let mut buf = BytesMut::from(&b"data: 12345"[..]);
    /// assert_eq!(framer.decode(&mut buf), Ok(None)); // its line end may still come
    /// buf.extend_from_slice(b"\n\ndata: 1234\n\n");
    /// assert_eq!(framer.decode(&mut buf), Err(FrameError::TooLong { offset: 0, limit: 4 }));
    /// assert_eq!(&framer.decode(&mut buf).unwrap().unwrap().data[..], b"1234");
    /// // A line of 13 bytes (4 + 8 + 1) without its end.
    /// let mut buf = BytesMut::from(&b"id: 123456789"[..]);
    /// assert_eq!(framer.decode(&mut buf), Err(FrameError::TooLong { offset: 25, limit: 4 }));
    /// ```
    ///
    /// A priming event comes out too, its data empty (an event of two `data:` lines split
    /// across reads: see the [`SseFramer`] example):
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::SseFramer;
    /// let mut framer = SseFramer::new(1 << 20);
    /// let mut buf = BytesMut::from(&b"id: 0\ndata:\n\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\n"[..]);
    /// let priming = framer.decode(&mut buf).unwrap().unwrap();
    /// assert_eq!((priming.id.as_deref(), priming.carries_message()), (Some(&b"0"[..]), false));
    /// let event = framer.decode(&mut buf).unwrap().unwrap();
    /// assert!(event.carries_message());
    /// assert_eq!(framer.decode(&mut buf), Ok(None));
    /// ```
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<SseEvent>, FrameError> {
        if !self.bom_checked {
            if buf.len() < BOM.len() && BOM.starts_with(buf) {
                return Ok(None);
            }
            self.bom_checked = true;
            if buf.starts_with(BOM) {
                self.advance(buf, BOM.len());
            }
        }
        loop {
            if self.skip_lf && !buf.is_empty() {
                self.skip_lf = false;
                if buf[0] == b'\n' {
                    self.advance(buf, 1);
                }
            }
            // Look no further than one over-long line.
            let read_to = if self.discarding || self.skipping_line {
                buf.len()
            } else {
                buf.len().min(self.line_limit().saturating_add(1))
            };
            let from = super::resume_at(self.next_index, read_to);
            let search = &buf[from..read_to];
            // The blank line that ends an event is common: find it without a call.
            let found = match search.first() {
                Some(b'\r' | b'\n') => Some(0),
                _ => memchr::memchr2(b'\r', b'\n', search),
            };
            let Some(at) = found.map(|i| from + i) else {
                if self.discarding && !self.in_line && buf.len() <= self.line_limit() {
                    // The start of a line of the event being dropped, within the limit: it
                    // waits for its end, in case it is a `retry` (see below).
                    self.next_index = buf.len();
                    return Ok(None);
                }
                if self.discarding || self.skipping_line {
                    // (`in_line` is the discarding mode's: a skipped line never ends an event.)
                    self.in_line |= self.discarding && !buf.is_empty();
                    let n = buf.len();
                    self.advance(buf, n);
                    self.next_index = 0;
                    return Ok(None);
                }
                if buf.len() > self.line_limit() {
                    if self.event_start.is_none() {
                        self.event_start = Some(self.consumed);
                    }
                    if is_ignored_field(&buf[..read_to]) {
                        self.in_event |= buf[0] != b':';
                        self.skipping_line = true;
                        self.advance(buf, read_to);
                        self.next_index = 0;
                        continue;
                    }
                    let err = self.too_long();
                    self.in_line = true;
                    // Only what was searched: the rest may hold the line's end and more.
                    self.advance(buf, read_to);
                    self.next_index = 0;
                    return Err(err);
                }
                self.next_index = read_to;
                return Ok(None);
            };
            let end = if buf[at] == b'\r' {
                match buf.get(at + 1) {
                    Some(b'\n') => at + 2,
                    Some(_) => at + 1,
                    None => {
                        self.skip_lf = true;
                        at + 1
                    }
                }
            } else {
                at + 1
            };
            self.next_index = 0;
            if self.skipping_line {
                self.skipping_line = false;
                self.advance(buf, end);
                continue;
            }
            if self.discarding {
                // WHATWG applies a `retry` as its line is read, whatever becomes of its event,
                // and an `id` when the event's blank line comes; the event's data and type go
                // with it. (A line over the limit is not read, as anywhere else.)
                if !self.in_line && at <= self.line_limit() {
                    self.read_while_discarding(&buf[..at]);
                }
                let blank = at == 0 && !self.in_line;
                self.in_line = false;
                self.advance(buf, end);
                if blank {
                    self.discarding = false;
                    // The dropped event ends here: WHATWG, without a limit, would have
                    // dispatched it, setting the last event ID string from its `id`.
                    if let Some(id) = self.id.take() {
                        self.remember_last_event_id(&id);
                    }
                }
                continue;
            }
            if at == 0 {
                // An event of no fields starts at its blank line (taken before the line end is
                // consumed, which a CR at the end of a read splits from its LF).
                if self.event_start.is_none() {
                    self.event_start = Some(self.consumed);
                }
                self.advance(buf, end);
                if let Some(event) = self.dispatch() {
                    return Ok(Some(event));
                }
                continue;
            }
            if self.event_start.is_none() {
                self.event_start = Some(self.consumed);
            }
            self.field(buf, at, end)?;
        }
    }

    /// Interprets the non-blank line `buf[..at]` (terminator up to `end`) and consumes it.
    fn field(&mut self, buf: &mut BytesMut, at: usize, end: usize) -> Result<(), FrameError> {
        let line = &buf[..at];
        if line[0] == b':' {
            self.advance(buf, end);
            return Ok(());
        }
        self.in_event = true;
        let (name_end, value_start) = field_parts(line);
        let value_len = at - value_start;
        match &line[..name_end] {
            b"data" => {
                let len = match self.data {
                    Data::None => value_len,
                    _ => self.data_len + 1 + value_len,
                };
                if len > self.max_frame {
                    self.advance(buf, end);
                    return Err(self.too_long());
                }
                self.data_len = len;
                match core::mem::take(&mut self.data) {
                    Data::None => {
                        self.data = Data::One(self.take_value(buf, value_start, at, end));
                    }
                    Data::One(first) => {
                        self.joined.clear();
                        self.joined.reserve(len);
                        self.joined.extend_from_slice(&first);
                        self.joined.extend_from_slice(b"\n");
                        self.joined.extend_from_slice(&buf[value_start..at]);
                        self.data = Data::Joined;
                        self.advance(buf, end);
                    }
                    Data::Joined => {
                        self.joined.extend_from_slice(b"\n");
                        self.joined.extend_from_slice(&buf[value_start..at]);
                        self.data = Data::Joined;
                        self.advance(buf, end);
                    }
                }
            }
            b"id" if memchr::memchr(0, &line[value_start..]).is_none() => {
                self.id = Some(self.take_value(buf, value_start, at, end));
            }
            b"event" => {
                self.event = Some(self.take_value(buf, value_start, at, end));
            }
            b"retry" => {
                self.set_retry(&line[value_start..]);
                self.advance(buf, end);
            }
            _ => self.advance(buf, end),
        }
        Ok(())
    }

    /// A `retry` field's value: the reconnection time when it is made of ASCII digits that fit
    /// `u64`, else ignored.
    fn set_retry(&mut self, value: &[u8]) {
        if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
            // Digits only, so the only possible failure is overflow: ignore that.
            if let Some(ms) = core::str::from_utf8(value)
                .ok()
                .and_then(|s| s.parse().ok())
            {
                self.retry = Some(ms);
                self.reconnection_time = Some(ms);
            }
        }
    }

    /// Reads a line (within the limit) of an over-long event being dropped: a `retry` sets
    /// the reconnection time at once, and an `id` (without NUL) is kept for the event's
    /// blank line, as [`field`](Self::field) reads them; other lines go with the event.
    fn read_while_discarding(&mut self, line: &[u8]) {
        // (A comment's field name is empty.)
        let (name_end, value_start) = field_parts(line);
        let value = &line[value_start..];
        match &line[..name_end] {
            b"retry" => self.set_retry(value),
            // A copy: the over-long event's lines are not kept in the read buffer.
            b"id" if memchr::memchr(0, value).is_none() => {
                self.id = Some(Bytes::copy_from_slice(value));
            }
            _ => {}
        }
    }

    /// Sets the last event id (WHATWG's last event ID string) to `id`, reusing the copy's
    /// capacity (up to [`REUSE_KEEP`]: a larger one, left by a long id, is given back).
    fn remember_last_event_id(&mut self, id: &[u8]) {
        let kept = self.last_event_id.get_or_insert_with(Vec::new);
        if kept.capacity() > REUSE_KEEP {
            *kept = Vec::new();
        }
        kept.clear();
        // Room for this id, not twice the last one's (as a `Vec` grows): one within
        // `REUSE_KEEP` keeps no more than that.
        kept.reserve_exact(id.len());
        kept.extend_from_slice(id);
    }

    /// Ends the event under construction at a blank line.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let offset = self.event_start.unwrap_or(self.consumed);
        let had_data = !matches!(self.data, Data::None);
        let data = match core::mem::take(&mut self.data) {
            Data::None => Bytes::new(),
            Data::One(data) => data,
            // A buffer grown past `REUSE_KEEP` goes with its event: a split would keep its
            // whole allocation for the next event's data, however little of it the data
            // filled (a buffer grows by doubling).
            Data::Joined if self.joined.capacity() > REUSE_KEEP => {
                core::mem::take(&mut self.joined).freeze()
            }
            Data::Joined => self.joined.split().freeze(),
        };
        let (id, event, retry) = (self.id.take(), self.event.take(), self.retry.take());
        self.clear_event();
        // Every event ended by a blank line sets it, skipped ones included (WHATWG sets it
        // before it looks at the data).
        if let Some(id) = &id {
            self.remember_last_event_id(id);
        }
        if data.is_empty() && id.is_none() && retry.is_none() && !self.yield_empty {
            return None;
        }
        self.last_offset = offset;
        Some(SseEvent {
            // WHATWG dispatches nothing for an event without a `data:` line (resetting its
            // type), and gives an empty type the default one, `message`.
            event: event.filter(|e| had_data && !e.is_empty()),
            data,
            id,
            retry,
        })
    }

    /// Like [`decode`](Self::decode), at end of stream: an event not ended by a blank line is
    /// dropped, as WHATWG says, with whatever is left in `buf`; a `retry` it (or an over-long
    /// event) set still comes, alone in an event (a server may send one just before closing
    /// the stream, so that the client knows when to reconnect).
    ///
    /// The framer is then ready for the next stream, a client's reconnection say: its
    /// [`last_event_id`](Self::last_event_id) (sent as `Last-Event-ID` unless empty:
    /// [`last_event_id_header`](Self::last_event_id_header)) and
    /// [`reconnection_time`](Self::reconnection_time) carry over, and a byte order mark
    /// starting it is skipped as at the first stream's start. (Offsets go on counting.)
    ///
    /// # Errors
    ///
    /// [`FrameError::TooLong`] as [`decode`](Self::decode) reports it, for what `buf` still
    /// holds: an event the end cuts short is reported too when what arrived of it is
    /// over-long already (a line past the limit, or data past `max_frame`), and dropped
    /// without an error otherwise.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::SseFramer;
    /// let mut framer = SseFramer::new(1024);
    /// // The connection drops inside the event with id 2: that event is lost.
    /// let mut buf = BytesMut::from(&b"id: 1\ndata: {}\n\nid: 2\ndata: {\"jsonrpc\""[..]);
    /// assert_eq!(framer.decode_eof(&mut buf).unwrap().unwrap().id.as_deref(), Some(&b"1"[..]));
    /// assert_eq!(framer.decode_eof(&mut buf), Ok(None));
    /// assert_eq!(framer.last_event_id(), Some(&b"1"[..])); // sent as `Last-Event-ID: 1`
    ///
    /// // The server resumes after event 1, on a new connection read by the same framer.
    /// let mut buf = BytesMut::from(&b"id: 2\ndata: [2]\n\n"[..]);
    /// assert_eq!(&framer.decode(&mut buf).unwrap().unwrap().data[..], b"[2]");
    /// assert_eq!(framer.last_event_id(), Some(&b"2"[..]));
    /// ```
    pub fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<SseEvent>, FrameError> {
        if let Some(event) = self.decode(buf)? {
            return Ok(Some(event));
        }
        let n = buf.len();
        self.advance(buf, n);
        let offset = self.event_start.unwrap_or(self.consumed);
        let retry = self.retry.take();
        self.clear_event();
        self.next_index = 0;
        self.skip_lf = false;
        self.discarding = false;
        self.in_line = false;
        self.skipping_line = false;
        self.bom_checked = false;
        Ok(retry.map(|retry| {
            self.last_offset = offset;
            SseEvent {
                retry: Some(retry),
                ..SseEvent::default()
            }
        }))
    }
}

/// Whether an event stream can carry `id` as an event id: it holds no `\n` or `\r` (which
/// would end its line) and no NUL (for which a reader ignores the whole `id:` field).
fn is_valid_event_id(id: &[u8]) -> bool {
    memchr::memchr3(b'\n', b'\r', 0, id).is_none()
}

/// Why [`write_sse_event`] could not write an event: a field that the format cannot carry.
/// Nothing was written. ([`SseFramer::with_last_event_id`] refuses an id with
/// [`InvalidId`](Self::InvalidId) for the same reason, and with
/// [`IdTooLong`](Self::IdTooLong) for its length.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SseWriteError {
    /// The event id holds a `\n` or `\r` (which would end its line) or a NUL (for which a
    /// reader ignores the whole `id:` field).
    InvalidId,
    /// The event type holds a `\n` or `\r` (which would end its line).
    InvalidEventType,
    /// The id is longer than `limit` bytes, the longest id the framer reads from a stream (an
    /// `id:` line within its limit). Only [`SseFramer::with_last_event_id`] returns it: an
    /// event written has no limit of its own.
    IdTooLong {
        /// The longest id the framer takes, in bytes.
        limit: usize,
    },
}

impl core::fmt::Display for SseWriteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SseWriteError::InvalidId => {
                f.write_str("an SSE event id cannot hold a line break or NUL")
            }
            SseWriteError::InvalidEventType => {
                f.write_str("an SSE event type cannot hold a line break")
            }
            SseWriteError::IdTooLong { limit } => write!(
                f,
                "an SSE event id longer than {limit} bytes, the longest an `id:` line within the framer's limit can set"
            ),
        }
    }
}

impl core::error::Error for SseWriteError {}

/// Appends one line `name: value` (`name:` alone for an empty value, which reads the same);
/// `value` holds no line break. The space is always written before a value, so a value that
/// starts with one keeps it (the reader removes only the first).
fn write_field(out: &mut BytesMut, name: &[u8], value: &[u8]) {
    out.extend_from_slice(name);
    out.put_u8(b':');
    if !value.is_empty() {
        out.put_u8(b' ');
        out.extend_from_slice(value);
    }
    out.put_u8(b'\n');
}

/// Appends `text` as `name:` lines, one for each of its lines: it is split at every `\n`,
/// `\r` and `\r\n`, as a reader splits the stream, so the lines read back, joined with `\n`,
/// are `text` with each of those line breaks made a `\n`.
fn write_field_lines(out: &mut BytesMut, name: &[u8], text: &[u8]) {
    let mut rest = text;
    while let Some(at) = memchr::memchr2(b'\r', b'\n', rest) {
        write_field(out, name, &rest[..at]);
        let end = if rest[at..].starts_with(b"\r\n") {
            at + 2
        } else {
            at + 1
        };
        rest = &rest[end..];
    }
    write_field(out, name, rest);
}

/// Appends one Server-Sent Event carrying `message`, for a `text/event-stream` response (an
/// MCP Streamable HTTP stream): an `id:` line when `event_id` is given, an `event:` line when
/// `event_type` is given, the message as `data:` lines, then the blank line that ends the
/// event.
///
/// - `message` is taken as [`without_line_end`] gives it: one `\n` or `\r\n` at its very end
///   is not part of it, so the output of an [`encode`](crate::encode) writer can be passed as
///   it is. Each line break left in it (`\n`, `\r` or `\r\n`) starts another `data:` line;
///   a reader ([`SseFramer`], a browser's `EventSource`) joins them with `\n`, so it gets the
///   message with those line breaks made `\n` (the `encode` writers put none inside a
///   message).
/// - `event_id` is the SSE event id a client resumes from (`Last-Event-ID`), not a JSON-RPC
///   id; `Some("")` resets the client's last event id. It is text, as an event stream is
///   UTF-8: one read back as bytes ([`SseFramer::last_event_id`], [`SseEvent::id`]) is
///   relayed through `core::str::from_utf8`. An id meant to be resumed from is best visible
///   ASCII with no space or tab at either end: the event carries any other (but a line break
///   or a NUL) as it is, but the `Last-Event-ID` header a client sends it back in does not,
///   as HTTP drops the whitespace around a header value and allows no control character in
///   it but a tab inside. `event_type` is the event type; MCP uses the default, `message`,
///   so it is usually `None`.
/// - An empty message gives an event with one empty `data:` line: with an `id`, MCP's
///   priming event, which sets the id a client resumes from. WHATWG dispatches it (a
///   browser's `EventSource` fires a `message` with empty data, which MCP clients ignore);
///   [`SseFramer::decode`] hands it out only when it carries an `id` (or with
///   [`yield_empty_events`](SseFramer::yield_empty_events)), and its
///   [`Framer`](super::Framer) frames skip it.
///
/// # Errors
/// [`SseWriteError::InvalidId`] when `event_id` holds a `\n`, `\r` or NUL, and
/// [`SseWriteError::InvalidEventType`] when `event_type` holds a `\n` or `\r`; nothing is
/// written then. (A line break cannot be escaped in a field, and a reader ignores an `id`
/// with a NUL.)
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, write_sse_event, Id, RawJson, SseFramer, SseWriteError};
/// let mut out = BytesMut::new();
/// encode::write_response(&mut out, Id::from_token(b"1").unwrap(), RawJson::EMPTY_OBJECT);
/// let mut sse = BytesMut::new();
/// write_sse_event(&mut sse, &out, Some("stream-1/7"), None).unwrap();
/// assert_eq!(&sse[..], b"id: stream-1/7\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n");
///
/// // Line breaks in the message become `data:` lines, read back joined with `\n`.
/// let mut sse = BytesMut::new();
/// write_sse_event(&mut sse, b"[1,\r\n2]", None, Some("batch")).unwrap();
/// assert_eq!(&sse[..], b"event: batch\ndata: [1,\ndata: 2]\n\n");
/// let event = SseFramer::new(1024).decode(&mut sse).unwrap().unwrap();
/// assert_eq!(&event.data[..], b"[1,\n2]");
///
/// assert_eq!(write_sse_event(&mut sse, b"{}", Some("a\nb"), None), Err(SseWriteError::InvalidId));
/// assert!(sse.is_empty());
/// ```
pub fn write_sse_event(
    out: &mut BytesMut,
    message: &[u8],
    event_id: Option<&str>,
    event_type: Option<&str>,
) -> Result<(), SseWriteError> {
    let (id, event) = (event_id.map(str::as_bytes), event_type.map(str::as_bytes));
    if id.is_some_and(|id| !is_valid_event_id(id)) {
        return Err(SseWriteError::InvalidId);
    }
    if event.is_some_and(|event| memchr::memchr2(b'\n', b'\r', event).is_some()) {
        return Err(SseWriteError::InvalidEventType);
    }
    let message = without_line_end(message);
    // The usual event: at most an id and a type, and a single data line.
    let fields = id.map_or(0, |id| id.len() + 5) + event.map_or(0, |event| event.len() + 8);
    out.reserve(fields + message.len() + 8);
    if let Some(id) = id {
        write_field(out, b"id", id);
    }
    if let Some(event) = event {
        write_field(out, b"event", event);
    }
    write_field_lines(out, b"data", message);
    out.put_u8(b'\n');
    Ok(())
}

/// Appends an event that only sets the client's reconnection time, in milliseconds:
/// `retry: ms`, then the blank line. MCP servers send one before closing a stream they mean
/// the client to resume (with `Last-Event-ID`). A reader dispatches no message for it;
/// [`SseFramer::decode`] hands it out as an event with empty data and this `retry`.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{write_sse_retry, SseFramer};
/// let mut out = BytesMut::new();
/// write_sse_retry(&mut out, 3000);
/// assert_eq!(&out[..], b"retry: 3000\n\n");
/// let mut framer = SseFramer::new(1024);
/// assert_eq!(framer.decode(&mut out).unwrap().unwrap().retry, Some(3000));
/// assert_eq!(framer.reconnection_time(), Some(3000));
/// ```
pub fn write_sse_retry(out: &mut BytesMut, ms: u64) {
    write_field(out, b"retry", itoa::Buffer::new().format(ms).as_bytes());
    out.put_u8(b'\n');
}

/// Appends a comment: `: text`, as several comment lines when `text` holds line breaks (`:`
/// alone for an empty `text`). A reader ignores comments; a server sends one as a keep-alive,
/// so that an idle stream is not closed by a proxy or a timeout. It is a line, not an event:
/// it goes between events (where every other writer of this module leaves the stream).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{write_sse_comment, write_sse_event, SseFramer};
/// let mut out = BytesMut::new();
/// write_sse_comment(&mut out, "keep-alive");
/// write_sse_event(&mut out, b"{}", None, None).unwrap();
/// assert_eq!(&out[..], b": keep-alive\ndata: {}\n\n");
/// let event = SseFramer::new(1024).decode(&mut out).unwrap().unwrap();
/// assert_eq!(&event.data[..], b"{}");
/// ```
pub fn write_sse_comment(out: &mut BytesMut, text: &str) {
    write_field_lines(out, b"", text.as_bytes());
}
