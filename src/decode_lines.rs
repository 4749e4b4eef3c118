//! Decoding every line of a complete buffer: [`Lines`] and [`Decoder::decode`] in one pass
//! over each long line.

use crate::Decoder;
use crate::frame::{FrameError, Lines};
use crate::message::{Message, Rejection};

/// From how many bytes a line is decoded in the pass that finds its end: shorter lines are cut
/// first (a `memchr` over a short line costs less than walking it twice when the walk fails).
/// The decoder's own threshold for long frames, whose walk this pass reuses.
const LONG_LINE: usize = crate::decoder::DEFER_UTF8_ABOVE;

/// The newline-delimited messages of a complete buffer, decoded: what
/// [`Lines`] (with the decoder's frame limit) followed by [`Decoder::decode`] of each frame
/// gives, item for item, from [`Decoder::decode_lines`].
///
/// A long line (over 4 KiB) that holds an object is decoded in the pass that finds its end, by
/// a lazy decoder that is not hardened: the walk fails at a `\n` wherever it meets one (the
/// AVX2 kernel that skips an object or array payload, an MCP `params` or `result`, leaves `\n`
/// out of its alphabet), so a walk that succeeds has read the line once instead of twice
/// (`memchr`, then the walk). Strict and hardened decoders read the line twice, as [`Lines`]
/// and [`Decoder::decode`] do. Anything
/// that pass does not prove (an error, a line over the limit) is framed
/// and decoded as [`Lines`] and [`Decoder::decode`] would, with the same result; that pass
/// reads nothing past the line (nor past the frame limit), so the work lost is bounded by it.
///
/// ```
/// use rpcwire::{Decoder, Kind};
/// let stream = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n{\"id\":2}\n";
/// let decoder = Decoder::mcp();
/// let mut lines = decoder.decode_lines(stream);
/// let first = lines.next().unwrap().unwrap();
/// assert_eq!((first.offset, first.message.unwrap().kind()), (0, Kind::Request));
/// let second = lines.next().unwrap().unwrap();
/// assert_eq!((second.offset, second.frame), (42, &b"{\"id\":2}"[..]));
/// assert!(second.message.is_err()); // -32600: no "jsonrpc", no method
/// assert!(lines.next().is_none());
/// ```
#[derive(Debug, Clone)]
#[must_use = "an iterator does nothing unless consumed"]
pub struct DecodeLines<'a> {
    decoder: Decoder,
    lines: Lines<'a>,
}

impl<'a> DecodeLines<'a> {
    pub(crate) fn new(decoder: Decoder, input: &'a [u8]) -> Self {
        DecodeLines {
            decoder,
            lines: Lines::new(input, decoder.options().limits.max_frame),
        }
    }
}

/// One line of a buffer, decoded: an item of [`DecodeLines`].
///
/// Its `Debug` shows the frame as text (invalid UTF-8 as U+FFFD), as [`RawJson`](crate::RawJson)'s
/// and [`Id`](crate::Id)'s do, not as a list of numbers:
///
/// ```
/// use rpcwire::Decoder;
/// let line = Decoder::mcp().decode_lines(b"{oops\n").next().unwrap().unwrap();
/// assert!(format!("{line:?}").starts_with(r#"DecodedLine { offset: 0, frame: "{oops", message: Err("#));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecodedLine<'a> {
    /// Where the line starts in the buffer.
    pub offset: usize,
    /// The frame: the line without its `\n` and without a `\r` before it (to forward it
    /// as it came, or to keep it: [`OwnedMessage::decode`](crate::OwnedMessage::decode)).
    pub frame: &'a [u8],
    /// What [`Decoder::decode`] makes of the frame.
    pub message: Result<Message<'a>, Rejection<'a>>,
}

impl core::fmt::Debug for DecodedLine<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DecodedLine")
            .field("offset", &self.offset)
            .field("frame", &alloc::string::String::from_utf8_lossy(self.frame))
            .field("message", &self.message)
            .finish()
    }
}

impl<'a> Iterator for DecodeLines<'a> {
    /// A decoded line, or an over-long line (as [`Lines`] reports it: the decoder's frame
    /// limit applies to lines).
    type Item = Result<DecodedLine<'a>, FrameError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.lines.next_decoded(&self.decoder)
    }
}

impl<'a> Lines<'a> {
    /// The next line, framed and decoded by `decoder` in one pass where it can be: the item
    /// [`Decoder::decode_lines`] gives, for a caller whose decoder may change between lines
    /// (a proxy that adopts the protocol version a session negotiated, say). The same result
    /// as [`Lines::next`] followed by [`Decoder::decode`] of the frame; this frame limit
    /// applies to the lines, the decoder's to the frames.
    ///
    /// ```
    /// use rpcwire::{Decoder, Kind, Lines};
    /// let stream = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"id\":2}\n";
    /// let mut lines = Lines::new(stream, 1 << 20);
    /// let first = lines.next_decoded(&Decoder::mcp()).unwrap().unwrap();
    /// assert_eq!(first.message.unwrap().kind(), Kind::Request);
    /// let second = lines.next_decoded(&Decoder::jsonrpc()).unwrap().unwrap();
    /// assert_eq!((second.offset, second.frame), (41, &b"{\"id\":2}"[..]));
    /// assert!(second.message.is_err());
    /// assert!(lines.next_decoded(&Decoder::mcp()).is_none());
    /// ```
    #[inline]
    pub fn next_decoded(
        &mut self,
        decoder: &Decoder,
    ) -> Option<Result<DecodedLine<'a>, FrameError>> {
        loop {
            let rest = self.rest();
            if rest.is_empty() {
                return None;
            }
            let probe = &rest[..rest.len().min(LONG_LINE + 1)];
            // (How much of the line is known UTF-8 comes with its end: its UTF-8 check
            // starts there, if at all.)
            let (mut nl, utf8) = crate::scan::line_end(probe);
            if nl.is_none() && probe.len() < rest.len() {
                // The pass that decodes a long line as it finds its end keeps to the
                // decoder's frame limit: only where no line it takes can be over this one.
                let long = if decoder.options().limits.max_frame <= self.max_frame() {
                    decoder.decode_long_line(rest)
                } else {
                    None
                };
                if let Some((frame, line, decoded)) = long {
                    let offset = self.offset();
                    self.advance(line);
                    let frame = &rest[..frame];
                    let message = decoder.view(frame, decoded);
                    return Some(Ok(DecodedLine {
                        offset,
                        frame,
                        message,
                    }));
                }
                nl = memchr::memchr(b'\n', &rest[probe.len()..]).map(|nl| nl + probe.len());
            }
            if let Some(item) = self.cut_line(nl) {
                return Some(item.map(|(offset, frame)| DecodedLine {
                    offset,
                    frame,
                    message: decoder.view(
                        frame,
                        decoder.decode_spans_from_utf8(frame, utf8.min(frame.len())),
                    ),
                }));
            }
        }
    }
}

impl core::iter::FusedIterator for DecodeLines<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DecodeOptions, Dialect, Kind, Limits, Validation};

    fn long_result(text: &str) -> Vec<u8> {
        let blob = "QUJD".repeat(2000);
        format!(r#"{{"jsonrpc":"2.0","id":7,"result":{{"b":"{blob}","t":"{text}"}}}}"#).into_bytes()
    }

    /// The one pass applies to long object lines, at the end of the input too and with
    /// characters that are not ASCII (the iterator's results are compared with `Lines` +
    /// `decode` in `tests/decode_lines.rs`; that the iterator takes the pass for such lines
    /// is a matter of speed, which the benches show and no test sees).
    #[test]
    fn long_objects_are_decoded_in_the_pass_that_finds_their_end() {
        let decoder = Decoder::mcp();
        let line = long_result("x");
        let mut stream = line.clone();
        stream.extend_from_slice(b" \t\r\n{}\n");
        let (frame, consumed, decoded) = decoder.decode_long_line(&stream).unwrap();
        assert_eq!((frame, consumed), (line.len() + 2, line.len() + 4));
        assert_eq!(
            decoder.view(&stream[..frame], decoded).unwrap().kind(),
            Kind::Response
        );
        // At the end of the input, without a newline.
        assert!(decoder.decode_long_line(&line).is_some());
        // A frame of exactly the decoder's limit is within it.
        let mut at_limit = DecodeOptions::new(Dialect::Mcp);
        at_limit.limits.max_frame = line.len();
        assert!(Decoder::new(at_limit).decode_long_line(&line).is_some());
        // Not ASCII: the pass still applies (the UTF-8 check is the frame's).
        assert!(decoder.decode_long_line(&long_result("é")).is_some());
    }

    #[test]
    fn the_pass_gives_up_where_it_proves_nothing() {
        let decoder = Decoder::mcp();
        let line = long_result("x");
        // A `\n` in the envelope, in the payload (between tokens, in a string), after it.
        let at = |needle: &[u8], offset: usize| {
            let i = line
                .windows(needle.len())
                .position(|w| w == needle)
                .unwrap()
                + offset;
            let mut s = line.clone();
            s.insert(i, b'\n');
            s
        };
        for stream in [
            at(b"\"id\"", 0),
            at(b",\"t\"", 1),
            at(b"QUJD", 2),
            at(b"}}", 1),
        ] {
            assert!(decoder.decode_long_line(&stream).is_none());
        }
        // Not an object; something after it on its line; over the limit.
        let mut batch = b"[".to_vec();
        batch.extend_from_slice(&line);
        batch.push(b']');
        let mut trailing = line.clone();
        trailing.extend_from_slice(b" x\n");
        for stream in [batch, trailing] {
            assert!(decoder.decode_long_line(&stream).is_none());
        }
        // Short: a whole object of `LONG_LINE` bytes is not taken, one byte longer is.
        let sized = |len: usize| {
            let frame = format!(
                r#"{{"jsonrpc":"2.0","id":7,"result":{{"b":"{}"}}}}"#,
                "p".repeat(len - 42)
            );
            assert_eq!(frame.len(), len);
            frame.into_bytes()
        };
        assert!(decoder.decode_long_line(&sized(LONG_LINE)).is_none());
        assert!(decoder.decode_long_line(&sized(LONG_LINE + 1)).is_some());
        let mut short_limit = DecodeOptions::new(Dialect::Mcp);
        short_limit.limits.max_frame = line.len() - 1;
        assert!(Decoder::new(short_limit).decode_long_line(&line).is_none());
        // Strict and hardened decoders take the plain path.
        for opts in [
            DecodeOptions {
                validation: Validation::Strict,
                ..DecodeOptions::new(Dialect::Mcp)
            },
            DecodeOptions {
                hardened: true,
                limits: Limits::default(),
                ..DecodeOptions::new(Dialect::Mcp)
            },
        ] {
            assert!(Decoder::new(opts).decode_long_line(&line).is_none());
        }
    }
}
