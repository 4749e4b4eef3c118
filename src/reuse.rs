//! What the crate's reused buffers keep between messages.

/// The most memory a buffer the crate reuses from one message to the next keeps once a
/// message is done: 64 KiB. One grown past it, by a large message, is given back (it goes
/// with that message, or is freed before the next), so that a long-lived connection does
/// not hold the largest message it ever carried; one within it is kept, so that ordinary
/// messages cost no allocation.
///
/// It bounds what [`SseFramer`](crate::SseFramer) keeps (the data of several lines joined,
/// the copy of the last event id), the scratch buffer of the framing encoders
/// (`codec::SseEncoder`, `codec::ContentLengthEncoder`), and `typed::Scratch` (after a value
/// that grew its buffers past 64 KiB; for smaller ones it keeps a copy and simd-json's
/// buffers, a few times the value's size). The other framers and the decoder keep no buffer
/// of their own: the read buffer is the caller's, and what it keeps is the caller's to bound;
/// but the `codec`s, whose read buffer is a `FramedRead`'s and write buffer a `FramedWrite`'s
/// (which never shrink them), give back one grown past 64 KiB: a read buffer once all it held
/// was read (an item cut out of it and still alive keeps the allocation it shares until it is
/// dropped, not the buffer), a write buffer once what is left in it fits in 8 KiB, their first
/// size. Room made on purpose goes too (a buffer made `with_capacity`, a `FramedWrite`
/// backpressure boundary past 64 KiB): the `codec` module docs say what that costs.
///
/// ```
/// assert_eq!(rpcwire::REUSE_KEEP, 64 << 10);
/// ```
pub const REUSE_KEEP: usize = 64 << 10;
