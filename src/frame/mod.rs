//! Framers: cut a byte stream into frames, each holding one message.
//!
//! Every framer follows the same contract: `Ok(Some(frame))` for a frame, `Ok(None)` when more
//! bytes are needed, and `Err` for a bad frame that the stream survives (an over-long frame is
//! reported once, then discarded in constant memory). The one exception is Content-Length
//! framing, where a malformed header block leaves no way to find the next message: those
//! errors are fatal ([`ContentLengthError::is_fatal`]).

pub mod content_length;
pub mod lines;
pub mod sse;

pub use content_length::{ContentLengthError, ContentLengthFramer};
pub use lines::{FrameError, LineFramer, Lines};
pub use sse::{SseEvent, SseFramer};
