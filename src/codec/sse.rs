//! Server-Sent Events: [`SseCodec`], its items ([`SseItem`]) and its write half
//! ([`SseEncoder`]).

use std::io;

use bytes::{Bytes, BytesMut};

use super::{FrameReader, Incoming, MessageBytes, write_message};
use crate::Decoder;
use crate::frame::{SseEvent, SseFramer, write_sse_comment, write_sse_event, write_sse_retry};
use crate::message::{OwnedMessage, Reply};

/// One event read off an event stream: the fields a client keeps whatever the event carries
/// (its `id`, to resume from, and its `retry`), and what it carries.
///
/// An item is a struct rather than an enum of event kinds because every kind of event may
/// carry an `id` and a `retry` (a message event, a priming event that carries nothing else,
/// an `endpoint` event), and a client that resumes a stream needs the id of whichever came
/// last. The codec keeps them too: [`SseCodec::last_event_id`] and
/// [`SseCodec::reconnection_time`].
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::codec::{Incoming, SseCodec, SsePayload};
/// use tokio_util::codec::Decoder as _;
///
/// let mut codec = SseCodec::new(rpcwire::Decoder::mcp_client(), 1 << 20);
/// let mut buf = BytesMut::from(&b"id: 0\ndata:\n\n\
///     id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n\
///     event: endpoint\ndata: /messages?session=42\n\n"[..]);
///
/// // MCP's priming event: an id to resume from, no message.
/// let priming = codec.decode(&mut buf)?.unwrap();
/// assert_eq!((priming.id.as_deref(), priming.payload), (Some(&b"0"[..]), SsePayload::Empty));
///
/// let message = codec.decode(&mut buf)?.unwrap();
/// assert_eq!(message.id.as_deref(), Some(&b"1"[..]));
/// let Some(Incoming::Message(response)) = message.incoming() else { panic!() };
/// assert_eq!(response.id().unwrap().raw(), b"7");
///
/// // The 2024-11-05 transport's endpoint event: a URL, not JSON.
/// let endpoint = codec.decode(&mut buf)?.unwrap();
/// assert_eq!(
///     endpoint.payload,
///     SsePayload::Other { event: "endpoint".into(), data: "/messages?session=42".into() }
/// );
/// assert_eq!(codec.last_event_id(), Some(&b"1"[..]));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseItem {
    /// The event's `id:` field ([`SseEvent::id`]): the id a client sends as `Last-Event-ID`
    /// to resume after it; `Some(b"")` when the server reset it. `None` for an event without
    /// one, and for an over-long event (reported when the limit is crossed, before its end:
    /// its `id`, when it has one, becomes [`SseCodec::last_event_id`] at its blank line).
    pub id: Option<Bytes>,
    /// The reconnection time in milliseconds a `retry:` field set with this event
    /// ([`SseEvent::retry`]), or with an over-long event before it: the reconnection time is
    /// the stream's, set as its line is read, so it is not dropped with that event, whose
    /// item carries none; it comes with the next item (alone, at the end of the body).
    pub retry: Option<u64>,
    /// What the event carries.
    pub payload: SsePayload,
}

/// What an event carries.
///
/// A client's loop over a stream: messages to the application, the endpoint to post to, and
/// then the id to resume from.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::codec::{Incoming, SseCodec, SsePayload};
/// use tokio_util::codec::Decoder as _;
///
/// let mut codec = SseCodec::new(rpcwire::Decoder::mcp_client(), 1 << 20);
/// let mut body = BytesMut::from(&b"event: endpoint\ndata: /messages?s=1\n\n\
///     id: 9\ndata:\n\n\
///     id: 10\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"[..]);
/// let (mut endpoint, mut messages) = (None, vec![]);
/// while let Some(item) = codec.decode(&mut body)? {
///     match item.payload {
///         SsePayload::Message(Incoming::Message(msg)) => messages.push(msg),
///         SsePayload::Message(_) => {} // a bad or over-long message: log it
///         SsePayload::Other { event, data } if &event[..] == b"endpoint" => endpoint = Some(data),
///         _ => {} // another event, an empty one, or a kind a later version tells apart
///     }
/// }
/// assert_eq!(endpoint.as_deref(), Some(&b"/messages?s=1"[..]));
/// assert!(messages[0].message().method().unwrap().eq_str("notifications/tools/list_changed"));
/// // The `Last-Event-ID` of a reconnection: the codec's copy. (An item's `id` shares the
/// // read buffer's memory, as its data does: kept for the whole connection, it would keep
/// // that buffer, up to the largest event read, alive.)
/// assert_eq!(codec.last_event_id(), Some(&b"10"[..]));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SsePayload {
    /// A `message` event (no `event:` field, or `event: message`) with data: the JSON-RPC
    /// message it carries, or the rejection of data that is no valid message; or an event
    /// whose data exceeded the frame limit ([`Incoming::TooLong`]: it was not kept, so neither
    /// its type nor its id is known).
    Message(Incoming),
    /// An event of another type, its data as it came, not decoded: the 2024-11-05 HTTP+SSE
    /// transport's `endpoint` event (whose data is the URL to post messages to), or any type
    /// a server defines.
    Other {
        /// The event type.
        event: Bytes,
        /// The event's data (its `data:` lines joined with `\n`).
        data: Bytes,
    },
    /// A `message` event with empty data (or with no data, carrying only an `id` or a
    /// `retry`): MCP's priming event, whose `id` a client resumes from, or the event a
    /// server sends to set the reconnection time before it closes the stream.
    Empty,
}

impl SseItem {
    /// The message (or rejection, or over-long event) the event carries, for a `message`
    /// event with data.
    pub fn incoming(&self) -> Option<&Incoming> {
        match &self.payload {
            SsePayload::Message(incoming) => Some(incoming),
            _ => None,
        }
    }

    /// [`incoming`](Self::incoming), taken.
    pub fn into_incoming(self) -> Option<Incoming> {
        match self.payload {
            SsePayload::Message(incoming) => Some(incoming),
            _ => None,
        }
    }

    /// The error reply the event calls for ([`Incoming::reply`]); `None` for an event that
    /// carries no message.
    pub fn reply(&self) -> Option<Reply<'_>> {
        self.incoming().and_then(Incoming::reply)
    }

    /// The valid message a `message` event carries ([`Incoming::message`]); `None` for any
    /// other event, and for data that is no valid message.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::codec::SseCodec;
    /// use tokio_util::codec::Decoder as _;
    ///
    /// let mut codec = SseCodec::new(rpcwire::Decoder::mcp_client(), 1 << 20);
    /// let mut body = BytesMut::from(&b"id: 1\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n"[..]);
    /// let priming = codec.decode(&mut body)?.unwrap();
    /// assert!(priming.message().is_none());
    /// let reply = codec.decode(&mut body)?.unwrap();
    /// assert_eq!(reply.message().and_then(|m| m.id()).unwrap().raw(), b"7");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn message(&self) -> Option<&OwnedMessage> {
        self.incoming().and_then(Incoming::message)
    }
}

/// A message event with no `id` or `retry`.
impl From<Incoming> for SseItem {
    fn from(incoming: Incoming) -> Self {
        SseItem {
            id: None,
            retry: None,
            payload: SsePayload::Message(incoming),
        }
    }
}

/// A tokio-util codec for a `text/event-stream` body: the stream of an MCP Streamable HTTP
/// response (or `GET`), or of the 2024-11-05 HTTP+SSE transport.
///
/// It reads events with [`SseFramer`] (the WHATWG rules: an event not ended by a blank line
/// at the end of the body is dropped, but a `retry` it set still comes, in an item of its
/// own; comments and events with no data, `id` or `retry` are skipped) and hands out an
/// [`SseItem`] for each: a message event's data decoded (as [`Incoming`]), any other event
/// as it came. An over-long event is an item ([`Incoming::TooLong`]); `Err` is only for I/O.
///
/// Its encoder half is [`SseEncoder`]'s: an [`Outgoing`](super::Outgoing) message, an
/// encoded message (`Bytes`) or a received one (`&OwnedMessage`) as a `message` event,
/// wrapped in an [`SseMessage`] to give it an event id, and the [`SseControl`] lines.
///
/// ```
/// use futures_util::StreamExt;
/// use rpcwire::codec::{Incoming, SseCodec};
/// use rpcwire::Kind;
/// use tokio_util::codec::FramedRead;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let body: &[u8] = b": keep-alive\n\nid: 5\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\n\
///     data: \"params\":{\"progressToken\":1,\"progress\":2}}\n\nretry: 3000\n\n";
/// let mut events = FramedRead::new(body, SseCodec::new(rpcwire::Decoder::mcp_client(), 1 << 20));
/// let event = events.next().await.unwrap()?;
/// assert_eq!(event.id.as_deref(), Some(&b"5"[..]));
/// assert!(matches!(event.incoming(), Some(Incoming::Message(m)) if m.kind() == Kind::Notification));
/// assert_eq!(events.next().await.unwrap()?.retry, Some(3000));
/// assert!(events.next().await.is_none());
/// assert_eq!(events.decoder().reconnection_time(), Some(3000));
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct SseCodec {
    reader: FrameReader<SseFramer>,
    encoder: SseEncoder,
    /// The body ended inside an event, which was dropped.
    ended_inside_event: bool,
    /// The last body's items ended (`decode_eof` gave none): the next call, whatever it is
    /// (`decode` of the next body's bytes, or `decode_eof` of a whole body, an empty one
    /// included), starts the next body.
    body_ended: bool,
}

/// A codec decoding with `decoder`, events limited by the decoder's own frame limit, as
/// [`Decoder::sse_framer`] limits them: [`SseCodec::new`] without repeating the limit.
///
/// ```
/// use rpcwire::codec::SseCodec;
/// use rpcwire::Decoder;
/// let mut options = *Decoder::mcp_client().options();
/// options.limits.max_frame = 4096;
/// let codec = SseCodec::from(Decoder::new(options));
/// assert_eq!(codec.decoder().options().limits.max_frame, 4096);
/// ```
impl From<Decoder> for SseCodec {
    fn from(decoder: Decoder) -> Self {
        let max_frame = decoder.options().limits.max_frame;
        SseCodec::new(decoder, max_frame)
    }
}

impl SseCodec {
    /// A codec decoding with `decoder`, with events of at most `max_frame` bytes of data
    /// (which becomes the decoder's frame limit too).
    pub fn new(decoder: Decoder, max_frame: usize) -> Self {
        Self::with_framer(decoder, SseFramer::new(max_frame))
    }

    /// A codec decoding with `decoder` the events `framer` cuts (configured as its own: with
    /// [`yield_empty_events`](SseFramer::yield_empty_events), every event, a comment-only
    /// keep-alive too, is an item, [`SsePayload::Empty`] when it has no data); the framer's
    /// frame limit becomes the decoder's.
    pub fn with_framer(decoder: Decoder, framer: SseFramer) -> Self {
        SseCodec {
            reader: FrameReader::new(decoder, framer.max_frame(), framer),
            encoder: SseEncoder::new(),
            ended_inside_event: false,
            body_ended: false,
        }
    }

    /// The envelope decoder.
    pub fn decoder(&self) -> &Decoder {
        &self.reader.decoder
    }

    /// Decodes the events to come with `decoder` (its frame limit set to the codec's), as
    /// [`LineCodec::set_decoder`](super::LineCodec::set_decoder) does; the framer goes on
    /// where it was (its last event id and reconnection time included).
    pub fn set_decoder(&mut self, decoder: Decoder) {
        self.reader.set_decoder(decoder);
    }

    /// The framer (its stream offsets: [`SseFramer::consumed`], [`SseFramer::last_offset`]).
    pub fn framer(&self) -> &SseFramer {
        &self.reader.framer
    }

    /// The id of the last event that had one ([`SseFramer::last_event_id`]): what a client
    /// sends as `Last-Event-ID` to resume the stream; `Some(b"")` when the server reset it
    /// (then no header is sent: [`last_event_id_header`](Self::last_event_id_header) is the
    /// header's value), `None` before any.
    ///
    /// A client restarted with an id it saved starts its codec from it with
    /// [`with_framer`](Self::with_framer) and [`SseFramer::with_last_event_id`] (which refuses
    /// an id holding a line break or a NUL, or longer than an id its stream can set):
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::codec::SseCodec;
    /// use rpcwire::Decoder;
    /// use tokio_util::codec::Decoder as _;
    ///
    /// let saved = "41"; // read back from disk
    /// let decoder = Decoder::mcp_client();
    /// let framer = decoder.sse_framer().with_last_event_id(saved).unwrap();
    /// let mut codec = SseCodec::with_framer(decoder, framer);
    /// assert_eq!(codec.last_event_id(), Some(&b"41"[..])); // `Last-Event-ID: 41`
    ///
    /// let mut body = BytesMut::from(&b"id: 42\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\n"[..]);
    /// codec.decode(&mut body)?;
    /// assert_eq!(codec.last_event_id(), Some(&b"42"[..]));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn last_event_id(&self) -> Option<&[u8]> {
        self.reader.framer.last_event_id()
    }

    /// The value of the `Last-Event-ID` header to reconnect with: `None` when no id was set or
    /// the server reset it with an empty one ([`SseFramer::last_event_id_header`]).
    pub fn last_event_id_header(&self) -> Option<&[u8]> {
        self.reader.framer.last_event_id_header()
    }

    /// The reconnection time the server last set, in milliseconds
    /// ([`SseFramer::reconnection_time`]); `None` before any.
    pub fn reconnection_time(&self) -> Option<u64> {
        self.reader.framer.reconnection_time()
    }

    /// Whether the body ended inside an event, which was dropped, as WHATWG says (no item
    /// carries it, but for a `retry` it set): the stream was cut, and a message may be lost
    /// with it, even when the cut came before the event's data (after its `id` line, or in
    /// the middle of its first line). A client resumes such a stream with
    /// [`last_event_id_header`](Self::last_event_id_header) as `Last-Event-ID`; only a stream ended by a
    /// blank line (or by a comment, or nothing, after one) was read whole. (An over-long event
    /// the end cuts was reported already, as [`Incoming::TooLong`]: it is not counted again.)
    /// Known once the stream of items has ended, and of that body only: a codec that goes on
    /// with another (a reconnection's, read with the codec of the last) starts it afresh, as
    /// its framer does, at its first call after the `None` that ended the last body (a
    /// `FramedRead`'s, or a `decode_eof` given a whole body, an empty one included).
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use rpcwire::codec::SseCodec;
    /// use tokio_util::codec::FramedRead;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let body: &[u8] = b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n\nid: 2\ndata: {\"jsonrpc\"";
    /// let mut events = FramedRead::new(body, SseCodec::new(rpcwire::Decoder::mcp_client(), 1 << 20));
    /// assert!(events.next().await.is_some());
    /// assert!(events.next().await.is_none());
    /// assert!(events.decoder().ended_inside_event());
    /// assert_eq!(events.decoder().last_event_id(), Some(&b"1"[..]));
    ///
    /// // Reconnect (`Last-Event-ID: 1`) and read the new body with the same codec, taken out
    /// // of the old `FramedRead`: the server sends event 2 again, whole this time.
    /// let codec = events.into_parts().codec;
    /// let body: &[u8] = b"id: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n\n";
    /// let mut events = FramedRead::new(body, codec);
    /// assert!(events.next().await.is_some());
    /// assert!(events.next().await.is_none());
    /// assert!(!events.decoder().ended_inside_event());
    /// assert_eq!(events.decoder().last_event_id(), Some(&b"2"[..]));
    /// # });
    /// ```
    pub fn ended_inside_event(&self) -> bool {
        self.ended_inside_event
    }

    /// The next item: at the end of the body (`eof`), an event not ended by a blank line is
    /// dropped, as WHATWG says, but a `retry` it set comes in an item of its own
    /// ([`SseFramer::decode_eof`]).
    fn next(&mut self, src: &mut BytesMut, eof: bool) -> io::Result<Option<SseItem>> {
        // (`FramedRead` calls nothing after the `None` that ends a body but for the next
        // body's bytes; a caller that reads each body whole calls only `decode_eof`.)
        if core::mem::take(&mut self.body_ended) {
            self.ended_inside_event = false;
        }
        let framer = &mut self.reader.framer;
        let event = match framer.decode(src) {
            // The events `src` still holds come first (`decode_eof` may be called on a whole
            // body); `ends_inside_event` looks at what is left once none is.
            Ok(None) if eof => {
                self.ended_inside_event |= framer.ends_mid_event(src);
                let last = framer.decode_eof(src);
                self.body_ended = matches!(last, Ok(None));
                last
            }
            other => other,
        };
        self.reader.item(event, Self::item)
    }

    /// The item an event makes.
    fn item(reader: &FrameReader<SseFramer>, event: SseEvent) -> SseItem {
        let SseEvent {
            data,
            id,
            event,
            retry,
        } = event;
        let payload = match event {
            Some(event) if &event[..] != b"message" => SsePayload::Other { event, data },
            _ if data.is_empty() => SsePayload::Empty,
            _ => SsePayload::Message(reader.decode(data)),
        };
        SseItem { id, retry, payload }
    }
}

super::codec_traits!(SseCodec, SseItem, SseEncoder);

/// A message to write as an event with an id (and, rarely, a type): `message` is an
/// [`Outgoing`](super::Outgoing), an encoded message (`Bytes`) or a received one
/// (`&OwnedMessage`). [`SseEncoder`] writes it with [`write_sse_event`].
///
/// An empty `Bytes` message with an id is MCP's priming event (`id: …` and an empty
/// `data:` line), which a client resumes from.
///
/// ```
/// use bytes::{Bytes, BytesMut};
/// use rpcwire::codec::{SseEncoder, SseMessage};
/// use tokio_util::codec::Encoder as _;
///
/// let mut encoder = SseEncoder::new();
/// let mut out = BytesMut::new();
/// encoder.encode(SseMessage::new(Bytes::new()).with_id("s1-0"), &mut out)?;
/// encoder.encode(SseMessage::new(Bytes::from_static(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")).with_id("s1-1"), &mut out)?;
/// assert_eq!(&out[..], &b"id: s1-0\ndata:\n\nid: s1-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"[..]);
///
/// // An id that would end its line is refused; nothing is written.
/// let before = out.len();
/// let err = encoder.encode(SseMessage::new(Bytes::new()).with_id("a\nb"), &mut out).unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
/// let why = err.get_ref().and_then(|e| e.downcast_ref::<rpcwire::SseWriteError>());
/// assert_eq!(why, Some(&rpcwire::SseWriteError::InvalidId));
/// assert_eq!(out.len(), before);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseMessage<'a, T> {
    /// The message.
    pub message: T,
    /// The event id (`id:`), which a client resumes from; `Some("")` resets the client's.
    pub id: Option<&'a str>,
    /// The event type (`event:`); `None` for MCP's messages, which use the default,
    /// `message`.
    pub event_type: Option<&'a str>,
}

impl<'a, T> SseMessage<'a, T> {
    /// `message`, with no id and the default type.
    pub fn new(message: T) -> Self {
        SseMessage {
            message,
            id: None,
            event_type: None,
        }
    }

    /// With the event id `id`.
    #[must_use]
    pub fn with_id(self, id: &'a str) -> Self {
        SseMessage {
            id: Some(id),
            ..self
        }
    }

    /// With the event type `event_type`.
    #[must_use]
    pub fn with_event_type(self, event_type: &'a str) -> Self {
        SseMessage {
            event_type: Some(event_type),
            ..self
        }
    }
}

/// The lines of an event stream that are no message, for [`SseEncoder`].
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::codec::{SseControl, SseEncoder};
/// use tokio_util::codec::Encoder as _;
///
/// let mut out = BytesMut::new();
/// SseEncoder::new().encode(SseControl::Comment("keep-alive"), &mut out)?;
/// SseEncoder::new().encode(SseControl::Retry(5000), &mut out)?;
/// assert_eq!(&out[..], b": keep-alive\nretry: 5000\n\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SseControl<'a> {
    /// An event that sets the client's reconnection time, in milliseconds
    /// ([`write_sse_retry`]).
    Retry(u64),
    /// A comment, which a reader ignores: a keep-alive ([`write_sse_comment`]).
    Comment(&'a str),
}

/// The encoder half of [`SseCodec`], with no decoder: writes each message as one `message`
/// event ([`write_sse_event`]).
///
/// It takes an [`Outgoing`](super::Outgoing) message (encoded into a scratch buffer the
/// encoder keeps, then framed: at most [`REUSE_KEEP`](crate::REUSE_KEEP), 64 KiB, of it
/// between messages), an encoded message (`Bytes`, with or without its line end;
/// each line break inside it starts another `data:` line, which a reader joins back with
/// `\n`), or a received message (`&OwnedMessage`, byte for byte but for a line end at its
/// very end); each of them wrapped in an [`SseMessage`] to give the event an id or a type.
/// It also writes the [`SseControl`] lines. An id or type holding a line break (or an id
/// holding a NUL) is an `InvalidInput` error carrying the
/// [`SseWriteError`](crate::SseWriteError) (`get_ref` gives it back; `source` does not, as an
/// `io::Error` gives its inner error's source), and nothing is written.
///
/// ```
/// use futures_util::SinkExt;
/// use rpcwire::codec::{Outgoing, SseEncoder, SseMessage};
/// use rpcwire::{Id, RawJson};
/// use tokio_util::codec::FramedWrite;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut sink = FramedWrite::new(Vec::new(), SseEncoder::new());
/// let result = RawJson::EMPTY_OBJECT;
/// let response = Outgoing::Response { id: Id::from_token(b"1").unwrap(), result };
/// sink.send(SseMessage::new(response).with_id("7")).await?;
/// sink.send(Outgoing::Notification { method: "notifications/message", params: None }).await?;
/// assert_eq!(
///     sink.get_ref(),
///     b"id: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\
///       data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n"
/// );
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct SseEncoder {
    scratch: BytesMut,
}

impl SseEncoder {
    /// An encoder.
    pub fn new() -> Self {
        SseEncoder::default()
    }
}

/// A message as an event with the [`SseMessage`]'s id and type.
impl<T: MessageBytes> tokio_util::codec::Encoder<SseMessage<'_, T>> for SseEncoder {
    type Error = io::Error;

    fn encode(&mut self, msg: SseMessage<'_, T>, dst: &mut BytesMut) -> Result<(), io::Error> {
        write_message(&mut self.scratch, &msg.message, |bytes| {
            write_sse_event(dst, bytes, msg.id, msg.event_type)
        })
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        super::give_back(dst, super::FRAMED_BUFFER, false);
        Ok(())
    }
}

/// A message (an [`Outgoing`](super::Outgoing), `Bytes` or `&OwnedMessage`) as an event with
/// no id.
impl<T: MessageBytes> tokio_util::codec::Encoder<T> for SseEncoder {
    type Error = io::Error;

    fn encode(&mut self, msg: T, dst: &mut BytesMut) -> Result<(), io::Error> {
        self.encode(SseMessage::new(msg), dst)
    }
}

impl tokio_util::codec::Encoder<SseControl<'_>> for SseEncoder {
    type Error = io::Error;

    fn encode(&mut self, line: SseControl<'_>, dst: &mut BytesMut) -> Result<(), io::Error> {
        match line {
            SseControl::Retry(ms) => write_sse_retry(dst, ms),
            SseControl::Comment(text) => write_sse_comment(dst, text),
        }
        super::give_back(dst, super::FRAMED_BUFFER, false);
        Ok(())
    }
}
