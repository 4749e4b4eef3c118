//! The shape rules of each dialect, applied to what the walk found: which kind of message
//! a frame is, or which error it is and which id the reply may echo.

use super::walk::{ErrorMembers, Members, ResultTypeSeen};
use super::{Decoder, Dialect, Envelope, Reject, Role, Span};
use crate::error::{DecodeError, Member};
use crate::id::{Id, IdKind};
use crate::json::{JsonStr, Lookup, RawJson, parse_i64};
use crate::limits::Limits;
use crate::message::Kind;

impl Decoder {
    /// Whether a result whose `resultType` was seen as `seen` may be accepted: absent (the
    /// default, `complete`), or once, a string the options allow; a duplicated one, or one in a
    /// result too malformed to read whole, is ambiguous and refused.
    #[inline(always)]
    pub(super) fn is_known_result_type(&self, frame: &[u8], seen: ResultTypeSeen) -> bool {
        match seen {
            ResultTypeSeen::Absent => true,
            ResultTypeSeen::Ambiguous => false,
            ResultTypeSeen::Once(span) => RawJson::trusted(&frame[span.range()])
                .as_str()
                .is_some_and(|s| self.options.result_types.iter().any(|t| s.eq_str(t))),
        }
    }

    /// Applies the shape rules of the dialect to a syntactically valid object.
    /// `error`: what the walk read of an `error` object (`None` when `error` is not an
    /// object): its members, or the one that is missing, duplicated or of the wrong type. (Kept
    /// out of `Members`, which it would make 48 bytes larger for every message: tiny and
    /// typical +3 to +5 % in alternating runs.)
    pub(super) fn classify(
        &self,
        frame: &[u8],
        m: Members,
        error: Option<Result<ErrorMembers, Member>>,
    ) -> Result<Envelope, Reject> {
        let opts = &self.options;
        let mcp = opts.dialect == Dialect::Mcp;
        let has_method = m.method.is_some() || m.method_not_string;
        let has_response = m.result.is_some() || m.error.is_some();
        let has_id = m.id.is_some() || m.id_bad_type;
        // A malformed response is never answered; a frame with only an id is a response when
        // a client reads it.
        let is_response = !has_method && (has_response || (has_id && opts.role == Role::Client));

        // The id the reply may echo: readable, unambiguous and valid for the dialect.
        let id_error = if m.id_duplicate {
            Some(DecodeError::DuplicateMember(Member::Id))
        } else if m.id_bad_type {
            Some(DecodeError::BadIdType)
        } else {
            m.id.and_then(|(span, kind)| {
                let token = &frame[span.range()];
                if id_too_long(span, &opts.limits) {
                    Some(DecodeError::IdTooLong {
                        limit: crate::error::limit_u32(opts.limits.max_id_len),
                    })
                } else if mcp && kind == IdKind::Null && (m.error.is_none() || has_method) {
                    // (MCP allows a null id only in an error response.)
                    Some(DecodeError::NullId)
                } else if mcp && kind == IdKind::Number {
                    Some(DecodeError::NonIntegerId)
                } else if opts.hardened && !is_safe_integer_id(token, kind) {
                    Some(DecodeError::UnsafeNumericId)
                } else if opts.hardened
                    && matches!(kind, IdKind::String { has_escapes: true })
                    && Id::new(token, kind)
                        .as_str()
                        .is_some_and(|s| s.has_lone_surrogate())
                {
                    Some(DecodeError::LoneSurrogate)
                } else {
                    None
                }
            })
        };
        let reply_id = if id_error.is_none() { m.id } else { None };
        let reject = |error| {
            Err(Reject {
                error,
                id: reply_id,
                is_response,
            })
        };

        if let Some(member) = m.duplicate {
            return reject(DecodeError::DuplicateMember(member));
        }
        match m.version_ok {
            None => return reject(DecodeError::MissingVersion),
            Some(false) => return reject(DecodeError::BadVersion),
            Some(true) => {}
        }
        if m.unknown {
            return reject(DecodeError::UnknownMember);
        }
        if m.case_folded {
            return reject(DecodeError::CaseFoldedMember);
        }
        if has_method && has_response {
            return reject(DecodeError::MethodInResponse);
        }
        if let Some(e) = id_error {
            return reject(e);
        }

        if has_method {
            let Some((span, esc)) = m.method else {
                return reject(DecodeError::MethodNotString);
            };
            if method_too_long(span, &opts.limits) {
                return reject(DecodeError::MethodTooLong {
                    limit: crate::error::limit_u32(opts.limits.max_method_len),
                });
            }
            if opts.hardened && esc {
                let method = JsonStr::from_raw(&frame[span.range()], true);
                if method.has_lone_surrogate() {
                    return reject(DecodeError::LoneSurrogate);
                }
                if method.has_control() {
                    return reject(DecodeError::ControlInMethod);
                }
            }
            if let Some(e) = m
                .params
                .and_then(|p| params_error(frame[p.start as usize], mcp))
            {
                return reject(e);
            }
            return Ok(Envelope {
                kind: if m.id.is_some() {
                    Kind::Request
                } else {
                    Kind::Notification
                },
                id: m.id,
                text: m.method,
                payload: m.params,
                error_code: 0,
                error_data: None,
            });
        }

        if !has_response {
            return reject(DecodeError::NoMethodNoResult);
        }
        if m.result.is_some() && m.error.is_some() {
            return reject(DecodeError::ResultAndError);
        }
        if let Some(result) = m.result {
            // A `null` id answers a request whose id was `null` (JSON-RPC 2.0 §5: the
            // response's id is the request's). MCP never allows it (`NullId`, above).
            if m.id.is_none() {
                return reject(DecodeError::MissingId);
            }
            if mcp && frame[result.start as usize] != b'{' {
                return reject(DecodeError::ResultNotObject);
            }
            if mcp && !opts.result_types.is_empty() {
                let value = RawJson::trusted(&frame[result.range()]);
                // A duplicated resultType is ambiguous (parsers disagree on which one wins),
                // and so is one in a result too malformed to read whole (lazy mode let it
                // through): it is refused, never read as absent.
                let result_type =
                    m.result_type
                        .unwrap_or_else(|| match value.lookup("resultType") {
                            Lookup::Absent => ResultTypeSeen::Absent,
                            Lookup::Found(v) => {
                                ResultTypeSeen::Once(Span::within(frame, v.as_bytes()))
                            }
                            Lookup::Ambiguous | Lookup::Malformed => ResultTypeSeen::Ambiguous,
                        });
                if !self.is_known_result_type(frame, result_type) {
                    return reject(DecodeError::BadResultType);
                }
            }
            return Ok(Envelope {
                kind: Kind::Response,
                id: m.id,
                text: None,
                payload: Some(result),
                error_code: 0,
                error_data: None,
            });
        }
        // An error response.
        if m.id.is_none() && !mcp {
            return reject(DecodeError::MissingId);
        }
        // (`error` is there: it is not a result and `has_response`.)
        match error.unwrap_or(Err(Member::Error)) {
            Ok((code, message, data)) => Ok(Envelope {
                kind: Kind::ErrorResponse,
                id: m.id,
                text: Some(message),
                payload: None,
                error_code: code,
                error_data: data,
            }),
            Err(member) => reject(DecodeError::BadErrorObject(member)),
        }
    }
}

/// What is wrong with `params` whose first byte is `first`, if anything: an object always
/// does, an array in JSON-RPC only (MCP's params are objects), any other value never. Under
/// MCP every value but an object is [`DecodeError::ParamsNotObject`], so that the reason
/// never offers an array.
#[inline(always)]
pub(super) fn params_error(first: u8, mcp: bool) -> Option<DecodeError> {
    match first {
        b'{' => None,
        b'[' if !mcp => None,
        _ if mcp => Some(DecodeError::ParamsNotObject),
        _ => Some(DecodeError::BadParams),
    }
}

/// Whether the `id` token at `token` (quotes included, as [`Limits::max_id_len`] counts it) is
/// over the limit: -32600 in the general walk, `None` from the usual shapes.
#[inline(always)]
pub(super) fn id_too_long(token: Span, limits: &Limits) -> bool {
    token.range().len() > limits.max_id_len
}

/// Whether the `method` string whose body is at `body` (escaped, between its quotes, as
/// [`Limits::max_method_len`] counts it) is over the limit: as [`id_too_long`].
#[inline(always)]
pub(super) fn method_too_long(body: Span, limits: &Limits) -> bool {
    body.range().len() > limits.max_method_len
}

/// Hardened profile: a numeric id must be an integer token within ±(2^53 − 1) (I-JSON), so
/// every peer, including those that read numbers as doubles, sees the same id.
fn is_safe_integer_id(token: &[u8], kind: IdKind) -> bool {
    const MAX_SAFE: i64 = (1 << 53) - 1;
    match kind {
        IdKind::Number => false,
        IdKind::Integer => parse_i64(token).is_some_and(|n| (-MAX_SAFE..=MAX_SAFE).contains(&n)),
        IdKind::String { .. } | IdKind::Null => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `resultType` is looked up while the result is walked member by member; the outcome
    /// must be the fallback's (a walk of the whole result's members, taken when the fast walk
    /// gives up): the expectations below are that rule's, written out by hand (a result
    /// malformed past a member refuses its `resultType` as ambiguous, where
    /// [`RawJson::get`](crate::RawJson::get) reads up to the malformed spot).
    #[test]
    fn result_type_lookup_follows_the_whole_members_rule() {
        let cases: &[(&str, bool)] = &[
            (r#"{}"#, true),
            (r#"{"a":1}"#, true),
            (r#"{"resultType":"complete"}"#, true),
            (r#"{"resultType":"bogus"}"#, false),
            (
                r#"{"resultType":"input_required","inputRequests":{}}"#,
                true,
            ),
            (
                r#"{"x":[1,{"resultType":"bogus"}],"resultType":"complete"}"#,
                true,
            ),
            (
                r#"{"resultType":"complete","resultType":"complete"}"#,
                false,
            ), // duplicated: ambiguous
            (r#"{"result\u0054ype":"bogus"}"#, false),
            (r#"{"result\u0054ype":"complete"}"#, true),
            // Other keys of its length, or with escapes, are other members.
            (r#"{"nextCursor":"c"}"#, true),
            (r#"{"nextCursor":"c","resultType":"complete"}"#, true),
            (r#"{"\u0061":"b"}"#, true),
            (r#"{"resultType":1}"#, false),
            (r#" { "resultType" : "complete" , "b" : [ ] } "#, true),
            // Lazily valid but malformed: what lies past the malformed spot cannot be read, so
            // the resultType is ambiguous, refused.
            (r#"{"a" 1,"resultType":"bogus"}"#, false),
            (r#"{,"resultType":"bogus"}"#, false),
            (r#"{"a":01,"resultType":"complete"}"#, false),
            (r#"{"a":1 "b":2}"#, false),
        ];
        let dec = Decoder::mcp();
        for (result, ok) in cases {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}}}"#, result.trim());
            let got = dec.decode_spans(frame.as_bytes());
            assert_eq!(got.is_ok(), *ok, "{result}: {got:?}");
            if let Err(r) = got {
                assert_eq!(r.error, DecodeError::BadResultType, "{result}");
            }
        }
    }
}
