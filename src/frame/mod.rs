//! Framers: cut a byte stream into frames, each holding one message.
//!
//! Every framer follows the same contract: `Ok(Some(frame))` for a frame, `Ok(None)` when more
//! bytes are needed, and `Err` for a bad frame that the stream survives (an over-long frame is
//! reported once, then discarded in constant memory).

pub mod lines;

pub use lines::{FrameError, LineFramer, Lines};
