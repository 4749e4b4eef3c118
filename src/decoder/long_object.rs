//! Long objects in lazy mode: UTF-8 checked after the walk, except in the payload the skip
//! kernel saw to be ASCII; in a stream, the line's end found in the same pass.

use super::walk::blanks_end;
use super::{DEFER_UTF8_ABOVE, Decoder, Envelope, Reject, Span};
use crate::error::DecodeError;
use crate::scan::{Validation, scalar::skip_ws};

impl Decoder {
    /// `decode_spans` for a long object (over `DEFER_UTF8_ABOVE` bytes) in lazy mode, `None`
    /// for any other frame: UTF-8 checked after the walk, except in the longest payload the
    /// skip kernel saw to be ASCII on its way (large −10 %). A failed walk checks the whole
    /// frame first, so an invalid frame is still reported as such before anything else.
    #[inline(never)]
    pub(super) fn decode_long_object(&self, frame: &[u8]) -> Option<Result<Envelope, Reject>> {
        let opts = &self.options;
        let start = skip_ws(frame, 0);
        if opts.validation != Validation::Lazy || opts.hardened || frame.get(start) != Some(&b'{') {
            return None;
        }
        Some(self.walk_long_object(frame, start))
    }

    /// The first line of `input` (a stream, not yet cut into lines) decoded in the same pass
    /// that finds its end, when that line is a long object in lazy mode: `decode` would take
    /// [`Self::walk_long_object`] for it, and the walk on one line (`walk_object` with
    /// `LINE`) fails at a `\n` wherever it meets one (whitespace, values and strings all stop
    /// there), so a walk that succeeds proves the line goes on past the object. Returns the
    /// length of the frame (the line without its `\r`), of the line with its `\n`, and
    /// exactly what [`Self::decode_spans`] gives for the frame. `None` when that is not proven
    /// in this pass: the line is not such an object, the walk failed (its error may lie past
    /// the line), the line is over the frame limit, or anything but blanks follows the object
    /// on its line. The walk reads nothing past the line's `\n` nor past the limit + 1 bytes,
    /// so the work lost on `None` is bounded by the line, within the limit (a payload the
    /// kernel hands to its oracle is read twice).
    pub(crate) fn decode_long_line(
        &self,
        input: &[u8],
    ) -> Option<(usize, usize, Result<Envelope, Reject>)> {
        let opts = &self.options;
        if opts.validation != Validation::Lazy || opts.hardened {
            return None;
        }
        let limit = opts.limits.max_frame.min(u32::MAX as usize);
        // The frame may be `limit` bytes, and then the line one more (a `\r`).
        let window = &input[..input.len().min(limit.saturating_add(1))];
        // (Blanks before the object are unusual: a few are looked through, not megabytes.)
        let start = blanks_end(&window[..window.len().min(64)], 0);
        if window.get(start) != Some(&b'{') {
            return None;
        }
        let (mut clean, mut error) = (None, None);
        let walked = self.walk_object::<true, true>(window, start, 0, &mut clean, &mut error);
        let (members, end) = walked.ok()?;
        // The line's end, found with `memchr` (a line over the limit may hold megabytes of
        // blanks), then only blanks before it.
        let nl = match memchr::memchr(b'\n', &window[end..]) {
            Some(at) => end + at,
            None if window.len() == input.len() => window.len(),
            None => return None,
        };
        if blanks_end(window, end) != nl {
            return None;
        }
        let line = (nl + 1).min(input.len());
        let frame = &input[..nl];
        let frame = frame.strip_suffix(b"\r").unwrap_or(frame);
        if frame.len() > limit || frame.len() <= DEFER_UTF8_ABOVE {
            return None;
        }
        // What `walk_long_object` does with the frame, its walk done.
        if !is_utf8_outside(frame, clean) {
            return Some((
                frame.len(),
                line,
                Err(Reject::parse(DecodeError::InvalidUtf8)),
            ));
        }
        Some((frame.len(), line, self.classify(frame, members, error)))
    }

    /// [`Self::decode_long_object`] once it applies.
    fn walk_long_object(&self, frame: &[u8], start: usize) -> Result<Envelope, Reject> {
        let (mut ascii, mut error) = (None, None);
        let walked = self.walk_object::<true, false>(frame, start, 0, &mut ascii, &mut error);
        if !is_utf8_outside(frame, walked.is_ok().then_some(ascii).flatten()) {
            return Err(Reject::parse(DecodeError::InvalidUtf8));
        }
        let (members, end) = walked?;
        if skip_ws(frame, end) != frame.len() {
            return Err(Reject::parse(DecodeError::TrailingData));
        }
        self.classify(frame, members, error)
    }
}

/// Whether `frame` is UTF-8, `ascii` (when some) being a span of it known to be ASCII: the rest
/// is checked. The span is a payload, which starts with `{` or `[` and ends with `}` or `]`,
/// so both of its edges fall between characters and the frame is UTF-8 exactly when the parts
/// before and after it are.
fn is_utf8_outside(frame: &[u8], ascii: Option<Span>) -> bool {
    match ascii {
        Some(span) => {
            simdutf8::basic::from_utf8(&frame[..span.start as usize]).is_ok()
                && simdutf8::basic::from_utf8(&frame[span.end as usize..]).is_ok()
        }
        None => simdutf8::basic::from_utf8(frame).is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoder::{DecodeOptions, Dialect};

    /// A response of about 6 KB: `before` ahead of the object, `text` in an envelope member
    /// after the payload, `after` behind the object.
    fn long_response(before: &str, text: &str, after: &str) -> Vec<u8> {
        let blob = "QUJD".repeat(1500);
        format!(
            r#"{before}{{"jsonrpc":"2.0","id":7,"result":{{"b":"{blob}"}},"x":"{text}"}}{after}"#
        )
        .into_bytes()
    }

    /// What the general path gives: the whole frame's UTF-8 checked first, then the walk.
    fn checked_first(decoder: &Decoder, frame: &[u8]) -> Result<Envelope, Reject> {
        if simdutf8::basic::from_utf8(frame).is_err() {
            return Err(Reject::parse(DecodeError::InvalidUtf8));
        }
        decoder.decode_valid_utf8(frame)
    }

    /// The long path is taken for an object (whitespace may precede it) of a lazy decoder
    /// that is not hardened, and gives what the general path gives: a message, invalid UTF-8
    /// after the payload, trailing data, and both. Strict and hardened decoders, and frames
    /// that are no object, are left to the general path.
    #[test]
    fn lazy_unhardened_objects_take_the_long_path_and_agree() {
        let lazy = Decoder::new(DecodeOptions::new(Dialect::Mcp));
        let mut bad_utf8 = long_response("", "é", "");
        let e_acute = bad_utf8.len() - 4;
        bad_utf8[e_acute] = 0xff;
        let mut both = bad_utf8.clone();
        both.extend_from_slice(b" x");
        for frame in [
            long_response("", "x", ""),
            long_response(" \r\n\t", "é", " \n"),
            bad_utf8,
            long_response("", "x", " x"),
            both,
        ] {
            assert!(frame.len() > DEFER_UTF8_ABOVE);
            assert_eq!(
                lazy.decode_long_object(&frame),
                Some(checked_first(&lazy, &frame)),
                "{}",
                String::from_utf8_lossy(&frame)
            );
        }
        let frame = long_response("", "x", "");
        assert!(lazy.decode_long_object(&frame).unwrap().is_ok());
        let mut batch = b"[".to_vec();
        batch.extend_from_slice(&frame);
        batch.push(b']');
        assert_eq!(lazy.decode_long_object(&batch), None);
        let strict = DecodeOptions {
            validation: Validation::Strict,
            ..DecodeOptions::new(Dialect::Mcp)
        };
        let hardened = DecodeOptions {
            hardened: true,
            ..DecodeOptions::new(Dialect::Mcp)
        };
        for opts in [strict, hardened] {
            assert_eq!(Decoder::new(opts).decode_long_object(&frame), None);
        }
    }
}
