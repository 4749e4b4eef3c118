//! The general walk over an envelope object, member by member (and over a batch, element
//! by element): every member's span, duplicates, unknown members, the version, and what an
//! `error` object holds. Syntax errors end it as parse errors; envelope violations are only
//! recorded, for the rules to judge, since -32700 takes precedence over -32600.

use super::keys::{ERROR_MEMBERS, case_folds_to_member, lookup, member_of, plain_member_key};
use super::{Decoder, Dialect, Envelope, Reject, Role, Span};
use crate::error::{DecodeError, Member};
use crate::id::{Id, IdKind};
use crate::json::{JsonStr, RawJson, parse_i64};
use crate::message::Kind;
use crate::scan::{self, ScanError, Validation, scalar::skip_ws};

/// `error.code`, `error.message` (span, has escapes) and `error.data`.
pub(super) type ErrorMembers = (i64, (Span, bool), Option<Span>);

/// What the walk over the top-level object found.
#[derive(Default)]
pub(super) struct Members {
    pub(super) version_ok: Option<bool>,
    pub(super) id: Option<(Span, IdKind)>,
    pub(super) id_bad_type: bool,
    pub(super) method: Option<(Span, bool)>,
    pub(super) method_not_string: bool,
    pub(super) params: Option<Span>,
    pub(super) result: Option<Span>,
    /// `result.resultType`, when the result was walked member by member (`None`: not looked
    /// up yet).
    pub(super) result_type: Option<ResultTypeSeen>,
    pub(super) error: Option<Span>,
    pub(super) duplicate: Option<Member>,
    /// `id` occurs more than once, or (hardened profile) a key case-folds to it (tracked apart
    /// from `duplicate`, which names only the first duplicated member, so a reply never
    /// echoes an ambiguous id).
    pub(super) id_duplicate: bool,
    pub(super) unknown: bool,
    pub(super) case_folded: bool,
    /// The envelope members met so far, one bit each (`1 << member as u8`).
    pub(super) seen: u8,
}

/// What a walk over an MCP result found of its `resultType` members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ResultTypeSeen {
    Absent,
    Once(Span),
    /// More than one, or a result too malformed to tell.
    Ambiguous,
}

impl Decoder {
    /// [`Self::skip`] for a payload; with `TRACK`, the longest payload seen to be ASCII (and
    /// with `LINE`, to hold no `\n`: see `walk_object`) is kept in `ascii`.
    #[inline(always)]
    fn skip_payload<const TRACK: bool, const LINE: bool>(
        &self,
        frame: &[u8],
        at: usize,
        depth: u32,
        ascii: &mut Option<Span>,
    ) -> Result<usize, Reject> {
        const { assert!(TRACK || !LINE, "a walk on one line tracks its payloads") };
        if !TRACK {
            return self.skip(frame, at, depth);
        }
        let mut is_ascii = false;
        let max_depth = self.options.limits.max_depth;
        let end = scan::skip_lazy_value_ascii::<LINE>(frame, at, depth, max_depth, &mut is_ascii)
            .map_err(Reject::parse)?;
        if is_ascii && ascii.is_none_or(|s| s.range().len() < end - at) {
            *ascii = Some(Span::new(at, end));
        }
        Ok(end)
    }

    /// [`Self::skip`] for a value of the envelope that is not a payload; with `LINE` (see
    /// `walk_object`), within the line.
    #[inline(always)]
    fn skip_member<const LINE: bool>(
        &self,
        frame: &[u8],
        at: usize,
        depth: u32,
    ) -> Result<usize, Reject> {
        if !LINE {
            return self.skip(frame, at, depth);
        }
        let max_depth = self.options.limits.max_depth;
        scan::skip_lazy_value_ascii::<true>(frame, at, depth, max_depth, &mut false)
            .map_err(Reject::parse)
    }

    /// [`Self::skip_member`] for the value of an envelope member that is not of the member's
    /// type (`jsonrpc`, `id`, `method` or `error` that is not what it must be, or an error's
    /// `code` or `message`): a container there is checked as JSON in every mode, as the rest
    /// of the envelope is (`"id":[1 2]` is a parse error, -32700, not an invalid request), not
    /// only delimited as a payload is in lazy mode. Scalars are always checked whole. With
    /// `LINE`, the value is delimited on its line first, and nothing past it is read.
    #[inline(always)]
    fn skip_envelope_value<const LINE: bool>(
        &self,
        frame: &[u8],
        at: usize,
        depth: u32,
    ) -> Result<usize, Reject> {
        if self.options.validation == Validation::Lazy && matches!(frame.get(at), Some(b'{' | b'['))
        {
            return self.skip_strictly::<LINE>(frame, at, depth);
        }
        self.skip_member::<LINE>(frame, at, depth)
    }

    /// Skips the container at `frame[at]` by the full grammar, in lazy mode: out of line, as
    /// it is only met in invalid messages. Not a lazy skip first and a check after it: that
    /// reports only the end of a frame cut inside the container, even after a byte no JSON
    /// has there (`"id":[1 2`), and `parse_error_offset`, which decodes prefixes, would then
    /// place the error at the container's end. With `LINE`, the container is delimited on its
    /// line first (the strict skip takes a `\n` for whitespace and would read past the line),
    /// then checked (a valid container ends at the same bracket).
    #[cold]
    #[inline(never)]
    fn skip_strictly<const LINE: bool>(
        &self,
        frame: &[u8],
        at: usize,
        depth: u32,
    ) -> Result<usize, Reject> {
        let end = if LINE {
            self.skip_member::<LINE>(frame, at, depth)?
        } else {
            frame.len()
        };
        let max_depth = self.options.limits.max_depth;
        scan::skip_value(&frame[..end], at, depth, max_depth, Validation::Strict)
            .map_err(Reject::parse)
    }

    #[inline(always)]
    pub(super) fn skip(&self, frame: &[u8], at: usize, depth: u32) -> Result<usize, Reject> {
        scan::skip_value(
            frame,
            at,
            depth,
            self.options.limits.max_depth,
            self.options.validation,
        )
        .map_err(Reject::parse)
    }

    pub(super) fn walk_batch(&self, frame: &[u8], start: usize) -> Result<Envelope, Reject> {
        // The batch array and its elements are envelopes, checked as JSON in every mode
        // (§6: a batch that is not valid JSON gets one -32700, never an array that answers
        // its valid elements). Its own commas (a lazy skip of the whole array would take
        // `[A B]`, or `[A,,B]`), each object element's members by the envelope walk (`[{"a" 1}]`),
        // whose payloads are then skipped as the mode says, and any other element strictly
        // (`[01]`). Its elements' envelope rules are checked when they are decoded.
        if self.options.limits.max_depth == 0 {
            return Err(Reject::parse(ScanError::TooDeep));
        }
        let mut i = skip_ws(frame, start + 1);
        // Counted as they are walked; a batch over the limit is refused once it is known to
        // be JSON (one that is not gets -32700, as any other).
        let mut count = 0usize;
        let end = if frame.get(i) == Some(&b']') {
            i + 1
        } else {
            // An element sits one level below the array: an object is walked as an envelope
            // of its own at depth 1, where it opens the second level (and refuses a limit of
            // one level, `TooDeep`, as the skip does any other element).
            let max_depth = self.options.limits.max_depth;
            loop {
                count += 1;
                let element_end = match frame.get(i) {
                    Some(b'{') => {
                        self.walk_object::<false, false>(frame, i, 1, &mut None, &mut None)?
                            .1
                    }
                    _ => scan::skip_value(frame, i, 1, max_depth, Validation::Strict)
                        .map_err(Reject::parse)?,
                };
                i = skip_ws(frame, element_end);
                match frame.get(i) {
                    Some(b',') => i = skip_ws(frame, i + 1),
                    Some(b']') => break i + 1,
                    _ => return Err(Reject::parse(syntax_at(frame, i))),
                }
            }
        };
        if skip_ws(frame, end) != frame.len() {
            return Err(Reject::parse(DecodeError::TrailingData));
        }
        let raw = RawJson::trusted(&frame[start..end]);
        let mut elements = raw.elements();
        let Some(first) = elements.next() else {
            return Err(Reject {
                error: DecodeError::EmptyBatch,
                id: None,
                is_response: false,
            });
        };
        let refusal = if !self.options.batches {
            Some(DecodeError::BatchNotAllowed)
        } else if count > self.options.limits.max_batch_len {
            Some(DecodeError::BatchTooLong {
                limit: crate::error::limit_u32(self.options.limits.max_batch_len),
            })
        } else {
            None
        };
        if let Some(error) = refusal {
            // Nobody answers a batch made only of responses, as `classify` tells them (an `id`
            // alone is one when a client reads it). Members are looked up by presence (`get`
            // would read a duplicated `method` as absent).
            let has = |e: RawJson<'_>, key: &str| e.members().any(|(k, _)| k.eq_str(key));
            let client = self.options.role == Role::Client;
            let is_response = |e: RawJson<'_>| {
                !has(e, "method")
                    && (has(e, "result") || has(e, "error") || (client && has(e, "id")))
            };
            let all_responses = is_response(first) && elements.all(is_response);
            return Err(Reject {
                error,
                id: None,
                is_response: all_responses,
            });
        }
        Ok(Envelope {
            kind: Kind::Batch,
            id: None,
            text: None,
            payload: Some(Span::new(start, end)),
            error_code: 0,
            error_data: None,
        })
    }

    /// Walks the envelope object at `frame[start] == '{'`; returns its members and the index
    /// after its closing brace. `depth` is the nesting around the object (0 for a frame's
    /// envelope, 1 for a batch element's): its members' values sit at `depth + 1` before they
    /// open, and are checked against the depth limit there; the object's own level is checked
    /// first (`TooDeep` over the limit). Any JSON syntax error ends the walk as a parse
    /// error; envelope violations are only recorded, because -32700 takes precedence over
    /// -32600.
    /// With `TRACK`, the longest payload the skip kernel saw to be ASCII is kept in `ascii`;
    /// what an `error` object holds goes to `error` (see `classify`). With `LINE` (and
    /// `TRACK`), `frame` is a stream whose line starting at `start` has not been cut yet (see
    /// `decode_long_line`): nothing is read past that line's end (a `\n` fails the walk).
    pub(super) fn walk_object<const TRACK: bool, const LINE: bool>(
        &self,
        frame: &[u8],
        start: usize,
        depth: u32,
        ascii: &mut Option<Span>,
        error: &mut Option<Result<ErrorMembers, Member>>,
    ) -> Result<(Members, usize), Reject> {
        let opts = &self.options;
        // The object's own level (the envelope is depth 1, a batch element depth 2).
        if depth >= opts.limits.max_depth {
            return Err(Reject::parse(ScanError::TooDeep));
        }
        let value_depth = depth + 1;
        let mut m = Members::default();
        // Nearly every encoder opens with exactly this: the first member and its comma
        // in one compare, where the loop below would look the key up, dispatch on it and
        // compare the value (what the loop would record, recorded).
        const USUAL_START: &[u8; 17] = br#"{"jsonrpc":"2.0","#;
        let usual = frame.get(start..).and_then(<[u8]>::first_chunk) == Some(USUAL_START);
        if usual {
            m.version_ok = Some(true);
            m.seen = 1 << Member::JsonRpc as u8;
        }
        let mut i = skip_ws_on::<LINE>(frame, start + if usual { USUAL_START.len() } else { 1 });
        if !usual && frame.get(i) == Some(&b'}') {
            return Ok((m, i + 1));
        }
        loop {
            let (member, key, esc, v);
            if let Some((plain, after_colon)) = plain_member_key(frame, i) {
                // `"name":` spelled plainly: no key scan, no lookup.
                (member, key, esc) = (Some(plain), &b""[..], false);
                v = skip_ws_on::<LINE>(frame, after_colon);
            } else {
                if frame.get(i) != Some(&b'"') {
                    return Err(Reject::parse(syntax_at(frame, i)));
                }
                let close;
                (close, esc) = scan::string_end(frame, i + 1).map_err(Reject::parse)?;
                key = &frame[i + 1..close];
                i = skip_ws_on::<LINE>(frame, close + 1);
                if frame.get(i) != Some(&b':') {
                    return Err(Reject::parse(syntax_at(frame, i)));
                }
                v = skip_ws_on::<LINE>(frame, i + 1);
                member = member_of(key, esc);
            }
            let Some(&first) = frame.get(v) else {
                return Err(Reject::parse(ScanError::UnexpectedEnd));
            };
            if let Some(member) = member {
                let bit = 1 << member as u8;
                if m.seen & bit != 0 {
                    m.duplicate.get_or_insert(member);
                    m.id_duplicate |= member == Member::Id;
                }
                m.seen |= bit;
            }
            i = match (member, first) {
                (Some(Member::JsonRpc), b'"') if frame.get(v..v + 5) == Some(b"\"2.0\"") => {
                    m.version_ok = Some(true);
                    v + 5
                }
                (Some(Member::JsonRpc), b'"') => {
                    let (close, esc) = scan::string_end(frame, v + 1).map_err(Reject::parse)?;
                    let body = &frame[v + 1..close];
                    m.version_ok = Some(
                        body == b"2.0" || (esc && JsonStr::from_raw(body, true).eq_str("2.0")),
                    );
                    close + 1
                }
                (Some(Member::JsonRpc), _) => {
                    m.version_ok = Some(false);
                    self.skip_envelope_value::<LINE>(frame, v, value_depth)?
                }
                (Some(Member::Id), b'"') => {
                    let (close, esc) = scan::string_end(frame, v + 1).map_err(Reject::parse)?;
                    m.id = Some((Span::new(v, close + 1), IdKind::String { has_escapes: esc }));
                    close + 1
                }
                (Some(Member::Id), b'-' | b'0'..=b'9') => {
                    // A positive integer (the usual id) is its digits, read once; anything
                    // else goes through the whole number grammar.
                    let digits = digits_end(frame, v + 1);
                    let (end, kind) = if matches!(first, b'1'..=b'9')
                        && !matches!(frame.get(digits), Some(b'.' | b'e' | b'E'))
                    {
                        (digits, IdKind::Integer)
                    } else {
                        let end = scan::scalar::number_end(frame, v).map_err(Reject::parse)?;
                        (end, Id::number_kind(&frame[v..end]))
                    };
                    m.id = Some((Span::new(v, end), kind));
                    end
                }
                (Some(Member::Id), b'n') => {
                    let end = self.skip_member::<LINE>(frame, v, value_depth)?;
                    m.id = Some((Span::new(v, end), IdKind::Null));
                    end
                }
                (Some(Member::Id), _) => {
                    m.id_bad_type = true;
                    self.skip_envelope_value::<LINE>(frame, v, value_depth)?
                }
                (Some(Member::Method), b'"') => {
                    let (close, esc) = scan::string_end(frame, v + 1).map_err(Reject::parse)?;
                    m.method = Some((Span::new(v + 1, close), esc));
                    close + 1
                }
                (Some(Member::Method), _) => {
                    m.method_not_string = true;
                    self.skip_envelope_value::<LINE>(frame, v, value_depth)?
                }
                (Some(Member::Result), b'{')
                    if opts.dialect == Dialect::Mcp && !opts.result_types.is_empty() =>
                {
                    let (end, result_type) =
                        match self.walk_result::<TRACK, LINE>(frame, v, value_depth, ascii) {
                            Some((end, rt)) => (end, Some(rt)),
                            // On one line the walk fails only where the skip would (it reads a
                            // valid object whole): not the same bytes a second time.
                            None if LINE => return Err(Reject::parse(ScanError::UnexpectedEnd)),
                            None => (
                                self.skip_payload::<TRACK, LINE>(frame, v, value_depth, ascii)?,
                                None,
                            ),
                        };
                    m.result = Some(Span::new(v, end));
                    m.result_type = result_type;
                    end
                }
                (Some(Member::Error), b'{') => {
                    let (end, members) = self.walk_error_object::<LINE>(frame, v, value_depth)?;
                    m.error = Some(Span::new(v, end));
                    *error = Some(members);
                    end
                }
                (Some(Member::Error), _) => {
                    let end = self.skip_envelope_value::<LINE>(frame, v, value_depth)?;
                    m.error = Some(Span::new(v, end));
                    end
                }
                (Some(member), _) => {
                    let end = self.skip_payload::<TRACK, LINE>(frame, v, value_depth, ascii)?;
                    let span = Some(Span::new(v, end));
                    match member {
                        Member::Params => m.params = span,
                        _ => m.result = span,
                    }
                    end
                }
                (None, _) => {
                    if opts.reject_unknown_members {
                        m.unknown = true;
                    }
                    if opts.hardened
                        && let Some(folded) = case_folds_to_member(key, esc)
                    {
                        m.case_folded = true;
                        // (A peer that folds case may take it for the id: the id is
                        // ambiguous, as with a second `id`, and no reply echoes it.)
                        m.id_duplicate |= folded == Member::Id;
                    }
                    self.skip_member::<LINE>(frame, v, value_depth)?
                }
            };
            i = skip_ws_on::<LINE>(frame, i);
            match frame.get(i) {
                Some(b',') => i = skip_ws_on::<LINE>(frame, i + 1),
                Some(b'}') => return Ok((m, i + 1)),
                _ => return Err(Reject::parse(syntax_at(frame, i))),
            }
        }
    }

    /// Skips an MCP `result` object at `frame[v] == '{'` member by member, looking up its
    /// `resultType` on the way (with `RawJson::get`'s rules: absent or duplicated gives
    /// `None`), so a result is scanned once, not twice. Returns the index after the object
    /// and the lookup, or `None` when the object is not in the plain form
    /// `{"key":value,...}` or anything fails: the caller then skips the object whole (which
    /// gives the authoritative result or error) and looks `resultType` up afterwards.
    /// With `TRACK`, the longest member value seen to be ASCII is kept in `ascii`. `depth`:
    /// the object's nesting depth before it opens (as `walk_members`'s).
    #[inline]
    pub(super) fn walk_result<const TRACK: bool, const LINE: bool>(
        &self,
        frame: &[u8],
        v: usize,
        depth: u32,
        ascii: &mut Option<Span>,
    ) -> Option<(usize, ResultTypeSeen)> {
        let mut found: Option<Span> = None;
        let mut count = 0u32;
        let end = self
            .walk_members::<LINE>(frame, v, depth, |key, esc, at| {
                let end = self.skip_payload::<TRACK, LINE>(frame, at, depth + 1, ascii)?;
                if (key.len() == 10 || esc) && JsonStr::from_raw(key, esc).eq_str("resultType") {
                    count += 1;
                    found = Some(Span::new(at, end));
                }
                Ok(end)
            })
            .ok()?;
        let seen = match (count, found) {
            (1, Some(span)) => ResultTypeSeen::Once(span),
            (0, _) => ResultTypeSeen::Absent,
            _ => ResultTypeSeen::Ambiguous,
        };
        Some((end, seen))
    }

    /// Walks the members of the object at `frame[v] == '{'`, checking its own grammar
    /// (`"key"`, `:`, value, then `,` or `}`; whitespace anywhere): `value(key, has_escapes,
    /// at)` skips the value starting at `at` and returns its end. `depth` is the object's
    /// nesting depth before it opens (1 for a member of the envelope), checked against the
    /// limit as a skip would. Returns the index after the object.
    #[inline(always)]
    fn walk_members<const LINE: bool>(
        &self,
        frame: &[u8],
        v: usize,
        depth: u32,
        mut value: impl FnMut(&[u8], bool, usize) -> Result<usize, Reject>,
    ) -> Result<usize, Reject> {
        if depth >= self.options.limits.max_depth {
            return Err(Reject::parse(ScanError::TooDeep));
        }
        let mut i = skip_ws_on::<LINE>(frame, v + 1);
        if frame.get(i) == Some(&b'}') {
            return Ok(i + 1);
        }
        loop {
            if frame.get(i) != Some(&b'"') {
                return Err(Reject::parse(syntax_at(frame, i)));
            }
            let key = i + 1;
            // Compact JSON: a short plain key and its colon in one probe.
            let (close, esc, colon) = match scan::fast_plain_key_colon(frame, key) {
                Some(after) => (after - 2, false, after - 1),
                None => {
                    let (close, esc) = scan::string_end(frame, key).map_err(Reject::parse)?;
                    (close, esc, skip_ws_on::<LINE>(frame, close + 1))
                }
            };
            if frame.get(colon) != Some(&b':') {
                return Err(Reject::parse(syntax_at(frame, colon)));
            }
            let end = value(
                &frame[key..close],
                esc,
                skip_ws_on::<LINE>(frame, colon + 1),
            )?;
            i = skip_ws_on::<LINE>(frame, end);
            match frame.get(i) {
                Some(b',') => i = skip_ws_on::<LINE>(frame, i + 1),
                Some(b'}') => return Ok(i + 1),
                _ => return Err(Reject::parse(syntax_at(frame, i))),
            }
        }
    }

    /// Walks the `error` object at `frame[v] == '{'`, checking its own grammar (keys, colons,
    /// commas) in every mode: it is part of the envelope, which a lazy skip of the whole object
    /// would leave unchecked (`{"code":1 "message":"m"}`). Its values are skipped as values:
    /// `code` and `message` as the envelope's (checked as JSON whatever their type), `data` and
    /// other members as payloads; `code`, `message` and `data` are read on the way. Returns the
    /// index after the object and what it holds: its members, or the first member found
    /// twice, or else the first of `code` and `message` that is missing or of the wrong type.
    /// `depth`: the object's nesting depth before it opens (as `walk_members`'s).
    fn walk_error_object<const LINE: bool>(
        &self,
        frame: &[u8],
        v: usize,
        depth: u32,
    ) -> Result<(usize, Result<ErrorMembers, Member>), Reject> {
        let (mut code, mut message, mut data) = (None, None, None);
        let mut duplicate = None;
        let end = self.walk_members::<LINE>(frame, v, depth, |key, esc, at| {
            let member = lookup(&ERROR_MEMBERS, key, esc);
            let end = match member {
                // `code` and `message` are the envelope's; `data` is a payload.
                Some(Member::ErrorCode | Member::ErrorMessage) => {
                    self.skip_envelope_value::<LINE>(frame, at, depth + 1)?
                }
                _ => self.skip_member::<LINE>(frame, at, depth + 1)?,
            };
            let Some(member) = member else {
                return Ok(end);
            };
            let slot = match member {
                Member::ErrorCode => &mut code,
                Member::ErrorMessage => &mut message,
                _ => &mut data,
            };
            if slot.replace(Span::new(at, end)).is_some() {
                duplicate.get_or_insert(member);
            }
            Ok(end)
        })?;
        let value = |span: Span| RawJson::trusted(&frame[span.range()]);
        let members = match duplicate {
            Some(member) => Err(member),
            None => code
                .and_then(|c| parse_i64(value(c).as_bytes()))
                .ok_or(Member::ErrorCode)
                .and_then(|code| {
                    let message = message
                        .and_then(|m| value(m).as_str())
                        .ok_or(Member::ErrorMessage)?;
                    let message_span = Span::within(frame, message.raw());
                    Ok((code, (message_span, message.has_escapes()), data))
                }),
        };
        Ok((end, members))
    }
}

/// The index of the first byte at or after `i` that is not a blank on a line (space, tab,
/// `\r`: whitespace but `\n`).
#[inline(always)]
pub(super) fn blanks_end(buf: &[u8], mut i: usize) -> usize {
    while matches!(buf.get(i), Some(b' ' | b'\t' | b'\r')) {
        i += 1;
    }
    i
}

/// `skip_ws` for the walks; with `LINE` (see `walk_object`) a `\n` ends the line, so it is
/// not skipped: a walk never leaves its line.
#[inline(always)]
fn skip_ws_on<const LINE: bool>(frame: &[u8], i: usize) -> usize {
    if LINE {
        blanks_end(frame, i)
    } else {
        skip_ws(frame, i)
    }
}

/// The index of the first byte at or after `i` that is not an ASCII digit.
#[inline(always)]
pub(super) fn digits_end(frame: &[u8], mut i: usize) -> usize {
    while frame.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// The syntax error at `i`: the end of input, or an unexpected byte.
#[inline]
fn syntax_at(frame: &[u8], i: usize) -> ScanError {
    if i >= frame.len() {
        ScanError::UnexpectedEnd
    } else {
        ScanError::UnexpectedByte
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoder::DecodeOptions;

    /// With `TRACK`, the walk keeps the longest payload the skip kernel saw to be ASCII,
    /// whether it comes first or last, and not a longer payload with a byte that is not ASCII:
    /// the span `decode_long_object` leaves out of its UTF-8 check. (Where no kernel reports
    /// ASCII, none is kept, and there is nothing to check.)
    #[test]
    fn the_walk_keeps_the_longest_ascii_payload() {
        let decoder = Decoder::new(DecodeOptions::new(Dialect::JsonRpc2));
        let kept = |params: &str, result: &str| {
            let frame =
                format!(r#"{{"jsonrpc":"2.0","id":1,"params":{params},"result":{result}}}"#);
            let mut ascii = None;
            let walked =
                decoder.walk_object::<true, false>(frame.as_bytes(), 0, 0, &mut ascii, &mut None);
            assert_eq!(walked.map(|(_, end)| end), Ok(frame.len()));
            ascii.map(|span| frame[span.range()].to_owned())
        };
        let long = format!(r#"{{"a":"{}"}}"#, "x".repeat(100));
        let short = r#"[1,{"b":2}]"#;
        let wide = format!(r#"{{"a":"{}"}}"#, "é".repeat(100));
        if kept(short, short).is_none() {
            return;
        }
        assert_eq!(kept(&long, short).as_deref(), Some(&*long));
        assert_eq!(kept(short, &long).as_deref(), Some(&*long));
        assert_eq!(kept(&wide, short).as_deref(), Some(short));
    }

    /// A walk on one line (`LINE`) stops at a `\n` wherever the walk of a frame would skip it
    /// as whitespace (between members, after a key, inside a result or an error object, in a
    /// value that is not a payload), so that `decode_long_line` never reads past its line:
    /// each of these objects is valid across the break, and fails at it on one line.
    #[test]
    fn a_walk_on_one_line_stops_at_its_end() {
        let decoder = Decoder::new(DecodeOptions {
            result_types: &["complete"],
            ..DecodeOptions::new(Dialect::Mcp)
        });
        for stream in [
            &br#"{"jsonrpc":"2.0","id":1 ,"result":{}}"#[..],
            br#"{"jsonrpc":"2.0","id": 1,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{"a": 1,"resultType":"complete"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{"a":1 ,"resultType":"complete"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code": -1,"message":"m"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":[1, 2]}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{},"x":{"y": 1}}"#,
            br#"{"jsonrpc":"2.0","id":[1, 2],"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":{"a": 1}}"#,
            br#"{"jsonrpc":["2.0", 1],"id":1,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":[1, 2]}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":[1, 2],"message":"m"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":{"a": 1}}}"#,
        ] {
            let at = stream.iter().position(|&b| b == b' ').unwrap();
            let mut broken = stream.to_vec();
            broken[at] = b'\n';
            let (mut ascii, mut error) = (None, None);
            let across = decoder.walk_object::<true, false>(&broken, 0, 0, &mut ascii, &mut error);
            assert!(across.is_ok(), "{}", String::from_utf8_lossy(stream));
            let (mut ascii, mut error) = (None, None);
            let on_line = decoder.walk_object::<true, true>(&broken, 0, 0, &mut ascii, &mut error);
            assert!(on_line.is_err(), "{}", String::from_utf8_lossy(stream));
            // The break is what fails it: the same line unbroken, ended by its `\n`, walks
            // to its end.
            let mut line = stream.to_vec();
            line.push(b'\n');
            let (mut ascii, mut error) = (None, None);
            let whole = decoder.walk_object::<true, true>(&line, 0, 0, &mut ascii, &mut error);
            assert_eq!(
                whole.map(|(_, end)| end),
                Ok(stream.len()),
                "{}",
                String::from_utf8_lossy(stream)
            );
        }
    }
}
