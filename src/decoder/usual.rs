//! The straight path: a valid frame in one of the compact shapes the MCP SDKs write (the
//! specification's member order, the TypeScript, Java, Kotlin and C# SDKs'), or in those shapes
//! spaced as Python's `json.dumps` writes them by default, error responses included, decoded
//! without the general walk's machinery.

use super::rules::{id_too_long, method_too_long, params_error};
use super::walk::digits_end;
use super::{Decoder, Dialect, Envelope, Span};
use crate::id::IdKind;
use crate::json::parse_i64;
use crate::message::Kind;
use crate::scan;

/// The envelope's separators in a usual shape, as the literals the straight path compares:
/// compact (`,` and `:`, what the MCP SDKs and `JSON.stringify` write) or spaced (`, ` and
/// `: `, the default of Python's `json.dumps`, which hand-written servers use).
struct Separators {
    /// `{"jsonrpc":"2.0",` and the space after it, if any.
    jsonrpc_first: &'static [u8],
    /// `,"jsonrpc":"2.0"`, the version as the last but the id.
    jsonrpc_last: &'static [u8],
    /// `"id":` and the space after it, if any.
    id: &'static [u8],
    /// `,"id":`, the id as the last member, and the spaces of both separators, if any.
    last_id: &'static [u8],
    /// `,` and the space after it, if any.
    comma: &'static [u8],
    /// `"method":"`, the method's opening quote included.
    method: &'static [u8],
    /// `,"params":` and the space after it, if any.
    params: &'static [u8],
    /// `"result":` and the space after it, if any.
    result: &'static [u8],
}

/// The error object's separators in a usual error response, with the envelope's.
struct ErrorSeparators {
    envelope: &'static Separators,
    /// `"error":{"code":`, the spaces after both colons, if any.
    code: &'static [u8],
    /// `,"message":"`, the message's opening quote included.
    message: &'static [u8],
    /// `,"data":` and the space after it, if any.
    data: &'static [u8],
}

/// `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`.
const COMPACT_ERROR: ErrorSeparators = ErrorSeparators {
    envelope: &COMPACT,
    code: br#""error":{"code":"#,
    message: br#","message":""#,
    data: br#","data":"#,
};

/// `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}`.
const SPACED_ERROR: ErrorSeparators = ErrorSeparators {
    envelope: &SPACED,
    code: br#""error": {"code": "#,
    message: br#", "message": ""#,
    data: br#", "data": "#,
};

/// `{"jsonrpc":"2.0","id":1,"method":"ping"}`.
const COMPACT: Separators = Separators {
    jsonrpc_first: br#"{"jsonrpc":"2.0","#,
    jsonrpc_last: br#","jsonrpc":"2.0""#,
    id: br#""id":"#,
    last_id: br#","id":"#,
    comma: b",",
    method: br#""method":""#,
    params: br#","params":"#,
    result: br#""result":"#,
};

/// `{"jsonrpc": "2.0", "id": 1, "method": "ping"}`.
const SPACED: Separators = Separators {
    jsonrpc_first: br#"{"jsonrpc": "2.0", "#,
    jsonrpc_last: br#", "jsonrpc": "2.0""#,
    id: br#""id": "#,
    last_id: br#", "id": "#,
    comma: b", ",
    method: br#""method": ""#,
    params: br#", "params": "#,
    result: br#""result": "#,
};

/// Whether `frame` holds `literal` at `i`.
#[inline(always)]
fn holds(frame: &[u8], i: usize, literal: &[u8]) -> bool {
    frame.get(i..i + literal.len()) == Some(literal)
}

impl Decoder {
    /// The envelope of a valid frame in a compact shape nearly every encoder writes, its
    /// members in one of the usual orders: `jsonrpc` first, `id` next or last,
    /// `{"jsonrpc":"2.0",["id":ID,]"method":"…"[,"params":{…}]}`,
    /// `{"jsonrpc":"2.0","method":"…"[,"params":{…}],"id":ID}`,
    /// `{"jsonrpc":"2.0","method":"…","id":ID,"params":{…}}` (the MCP Java SDK's order),
    /// `{"jsonrpc":"2.0","id":ID,"result":…}` or `{"jsonrpc":"2.0","result":…,"id":ID}`; or
    /// both last, as the official TypeScript SDK writes them,
    /// `{"method":"…"[,"params":{…}],"jsonrpc":"2.0"[,"id":ID]}` or
    /// `{"result":…,"jsonrpc":"2.0","id":ID}`, or with `id` before `jsonrpc`, as the C# SDK
    /// writes them (out of line, [`Self::id_then_jsonrpc`]),
    /// `{"method":"…"[,"params":{…}],"id":ID,"jsonrpc":"2.0"}` or
    /// `{"result":…,"id":ID,"jsonrpc":"2.0"}`; the id a positive integer or a string, nothing
    /// after the closing brace. Exactly what `walk_object` and `classify` make of such a
    /// frame, without their general machinery (the member dispatch, duplicate tracking,
    /// `Members` and the shape rules for members that cannot be there): a frame of this shape
    /// has no duplicate, unknown or misplaced member, so of the rules only those of its
    /// members' values are left, checked here as `classify` checks them. `None` for anything
    /// else, or anything this path would have to reject (an error, a limit crossed, a
    /// `resultType` refused, the hardened profile): the general walk then decodes the frame
    /// from the start and gives the answer. Checked against the general walk in the tests.
    /// (Out of line, after it: the MCP Kotlin SDK's order, [`Self::decode_usual_id_first`],
    /// and the same shapes spaced, [`Self::decode_usual_spaced`].)
    #[inline(always)]
    pub(super) fn decode_usual(&self, frame: &[u8]) -> Option<Envelope> {
        self.decode_usual_with(frame, &COMPACT)
    }

    /// [`Self::decode_usual`] for the same shapes spaced as Python's `json.dumps` writes them
    /// by default: a space after each of the envelope's `,` and `:`
    /// (`{"jsonrpc": "2.0", "id": 1, "method": "ping"}`; what the values hold is theirs).
    /// Out of line (in `decode_unusual`): it runs only where the compact shapes did not match,
    /// and fails at its first comparison on a compact frame.
    #[inline(always)]
    pub(super) fn decode_usual_spaced(&self, frame: &[u8]) -> Option<Envelope> {
        self.decode_usual_with(frame, &SPACED)
    }

    /// [`Self::decode_usual`] for the shapes in the MCP Kotlin SDK's order (`id` first,
    /// `jsonrpc` last), compact (see `decode_id_first`).
    #[inline(always)]
    pub(super) fn decode_usual_id_first(&self, frame: &[u8]) -> Option<Envelope> {
        if !self.usual {
            return None;
        }
        self.decode_id_first(frame, &COMPACT)
    }

    /// The usual shapes with the separators `sep`.
    #[inline(always)]
    fn decode_usual_with(&self, frame: &[u8], sep: &Separators) -> Option<Envelope> {
        if !self.usual {
            return None;
        }
        let (id, body, end) = if holds(frame, 0, sep.jsonrpc_first) {
            let mut i = sep.jsonrpc_first.len();
            let mut id = None;
            if holds(frame, i, sep.id) {
                let (span, kind) = self.usual_id(frame, i + sep.id.len())?;
                i = span.range().end;
                if !holds(frame, i, sep.comma) {
                    return None;
                }
                id = Some((span, kind));
                i += sep.comma.len();
            }
            let (mut body, mut end) = self.usual_body(frame, i, sep)?;
            if id.is_none() && holds(frame, end, sep.last_id) {
                let (span, kind) = self.usual_id(frame, end + sep.last_id.len())?;
                end = span.range().end;
                id = Some((span, kind));
                // The MCP Java SDK's order: `params` after the id.
                if let UsualBody::Method { text, params: None } = body
                    && holds(frame, end, sep.params)
                {
                    let params = self.params_after_id(frame, end + sep.params.len())?;
                    end = params.range().end;
                    body = UsualBody::Method {
                        text,
                        params: Some(params),
                    };
                }
            }
            (id, body, end)
        } else if frame.first() == Some(&b'{') {
            let (body, mut end) = self.usual_body(frame, 1, sep)?;
            let mut id = None;
            if holds(frame, end, sep.jsonrpc_last) {
                end += sep.jsonrpc_last.len();
                if holds(frame, end, sep.last_id) {
                    let (span, kind) = self.usual_id(frame, end + sep.last_id.len())?;
                    end = span.range().end;
                    id = Some((span, kind));
                }
            } else {
                let (last_id, after) = self.id_then_jsonrpc(frame, end, sep)?;
                id = Some(last_id);
                end = after;
            }
            (id, body, end)
        } else {
            return None;
        };
        if end + 1 != frame.len() || frame[end] != b'}' {
            return None;
        }
        let (kind, text, payload) = match body {
            UsualBody::Method { text, params } if id.is_some() => {
                (Kind::Request, Some(text), params)
            }
            UsualBody::Method { text, params } => (Kind::Notification, Some(text), params),
            UsualBody::Result(result) if id.is_some() => (Kind::Response, None, Some(result)),
            UsualBody::Result(_) => return None,
        };
        Some(Envelope {
            kind,
            id,
            text,
            payload,
            error_code: 0,
            error_data: None,
        })
    }

    /// After the members of a usual shape that starts with them (`method` and `params`, or
    /// `result`), at `i`: `,"id":ID,"jsonrpc":"2.0"`, the MCP C# SDK's order (System.Text.Json
    /// writes a class's own properties before its base classes', so `id`, declared by the
    /// base class of requests and responses, comes before `jsonrpc`, the root class's), and
    /// the order of many Ethereum JSON-RPC clients' requests. The id and the index after
    /// `jsonrpc`. Out of line and cold: the TypeScript SDK's order, which shares the members
    /// before it, runs none of it (in line, or taking the members, it cost the frames in the
    /// specification's order 8 % more instructions, callgrind on `tiny`).
    #[cold]
    #[inline(never)]
    fn id_then_jsonrpc(
        &self,
        frame: &[u8],
        i: usize,
        sep: &Separators,
    ) -> Option<((Span, IdKind), usize)> {
        let (id, end) = self.usual_id_after(frame, i, sep.last_id)?;
        if !holds(frame, end, sep.jsonrpc_last) {
            return None;
        }
        Some((id, end + sep.jsonrpc_last.len()))
    }

    /// The usual shapes in the MCP Kotlin SDK's order, `id` first and `jsonrpc` last:
    /// `{"id":ID,"method":"…"[,"params":{…}],"jsonrpc":"2.0"}` or
    /// `{"id":ID,"result":…,"jsonrpc":"2.0"}`, with the separators `sep`. Out of line: it runs
    /// only where the other orders did not match.
    #[inline(always)]
    fn decode_id_first(&self, frame: &[u8], sep: &Separators) -> Option<Envelope> {
        if frame.first() != Some(&b'{') || !holds(frame, 1, sep.id) {
            return None;
        }
        let (span, kind) = self.usual_id(frame, 1 + sep.id.len())?;
        let mut i = span.range().end;
        if !holds(frame, i, sep.comma) {
            return None;
        }
        i += sep.comma.len();
        let (body, mut end) = self.usual_body(frame, i, sep)?;
        if !holds(frame, end, sep.jsonrpc_last) {
            return None;
        }
        end += sep.jsonrpc_last.len();
        if end + 1 != frame.len() || frame[end] != b'}' {
            return None;
        }
        usual_envelope(Some((span, kind)), body)
    }

    /// The error responses of the usual shapes, compact or spaced: `error` in place of
    /// `result` in each order the other straight paths take (`jsonrpc` first and `id` next or
    /// last, both last in either order, or `id` first and `jsonrpc` last), the error object's
    /// members in the specification's order, `{"code":INT,"message":"…"[,"data":…]}`, as the
    /// MCP SDKs write it; an id required (an error response without one is MCP's answer to an
    /// unreadable id: the walk's). Out of line, tried last before the walk: error responses
    /// are rare, and the common shapes run none of its code (routed through `usual_body`, the
    /// error shape cost them 9 % more instructions, callgrind on `tiny`).
    #[inline(never)]
    pub(super) fn decode_usual_error(&self, frame: &[u8]) -> Option<Envelope> {
        if !self.usual || frame.first() != Some(&b'{') {
            return None;
        }
        self.decode_error_with(frame, &COMPACT_ERROR)
            .or_else(|| self.decode_error_with(frame, &SPACED_ERROR))
    }

    /// [`Self::decode_usual_error`] with the separators `sep`.
    #[inline(always)]
    fn decode_error_with(&self, frame: &[u8], error_sep: &ErrorSeparators) -> Option<Envelope> {
        let sep = error_sep.envelope;
        let (id, error, end) = if holds(frame, 0, sep.jsonrpc_first) {
            let i = sep.jsonrpc_first.len();
            if holds(frame, i, sep.id) {
                let (id, i) = self.usual_id_after(frame, i, sep.id)?;
                if !holds(frame, i, sep.comma) {
                    return None;
                }
                let (error, end) = self.usual_error(frame, i + sep.comma.len(), error_sep)?;
                (id, error, end)
            } else {
                let (error, i) = self.usual_error(frame, i, error_sep)?;
                let (id, end) = self.usual_id_after(frame, i, sep.last_id)?;
                (id, error, end)
            }
        } else if holds(frame, 1, sep.id) {
            // The Kotlin SDK's order.
            let (id, i) = self.usual_id_after(frame, 1, sep.id)?;
            if !holds(frame, i, sep.comma) {
                return None;
            }
            let (error, i) = self.usual_error(frame, i + sep.comma.len(), error_sep)?;
            if !holds(frame, i, sep.jsonrpc_last) {
                return None;
            }
            (id, error, i + sep.jsonrpc_last.len())
        } else {
            let (error, i) = self.usual_error(frame, 1, error_sep)?;
            if holds(frame, i, sep.jsonrpc_last) {
                // The TypeScript SDK's order.
                let (id, end) =
                    self.usual_id_after(frame, i + sep.jsonrpc_last.len(), sep.last_id)?;
                (id, error, end)
            } else {
                // The C# SDK's order (what `id_then_jsonrpc` reads, in line: called, this
                // order's error responses cost 8 % more instructions).
                let (id, i) = self.usual_id_after(frame, i, sep.last_id)?;
                if !holds(frame, i, sep.jsonrpc_last) {
                    return None;
                }
                (id, error, i + sep.jsonrpc_last.len())
            }
        };
        if end + 1 != frame.len() || frame[end] != b'}' {
            return None;
        }
        let UsualError {
            code,
            message,
            data,
        } = error;
        Some(Envelope {
            kind: Kind::ErrorResponse,
            id: Some(id),
            text: Some(message),
            payload: None,
            error_code: code,
            error_data: data,
        })
    }

    /// The id after the literal `key` (`"id":` or `,"id":`) at `i`, and the index after it.
    #[inline(always)]
    fn usual_id_after(
        &self,
        frame: &[u8],
        i: usize,
        key: &[u8],
    ) -> Option<((Span, IdKind), usize)> {
        if !holds(frame, i, key) {
            return None;
        }
        let (span, kind) = self.usual_id(frame, i + key.len())?;
        Some(((span, kind), span.range().end))
    }

    /// The `error` member of a usual shape at `i`,
    /// `"error":{"code":INT,"message":"…"[,"data":…]}` with the separators `sep`, read as
    /// `walk_error_object` and `classify` read it; the index after it.
    fn usual_error(
        &self,
        frame: &[u8],
        i: usize,
        sep: &ErrorSeparators,
    ) -> Option<(UsualError, usize)> {
        // (The error object is a container inside the envelope: two levels of nesting.)
        if !holds(frame, i, sep.code) || self.options.limits.max_depth < 2 {
            return None;
        }
        let v = i + sep.code.len();
        // An integer token; what follows must be the message (`1.5`, `01`, `1e3` fail there).
        let digits = v + usize::from(frame.get(v) == Some(&b'-'));
        let code_end = match frame.get(digits)? {
            b'0' => digits + 1,
            b'1'..=b'9' => digits_end(frame, digits + 1),
            _ => return None,
        };
        let code = parse_i64(&frame[v..code_end])?;
        if !holds(frame, code_end, sep.message) {
            return None;
        }
        let m = code_end + sep.message.len();
        let (close, esc) = scan::string_end(frame, m).ok()?;
        let message = (Span::new(m, close), esc);
        let mut end = close + 1;
        let mut data = None;
        if holds(frame, end, sep.data) {
            let d = end + sep.data.len();
            // (`data` nests in `error`, which nests in the envelope.)
            end = self.skip(frame, d, 2).ok()?;
            data = Some(Span::new(d, end));
        }
        if frame.get(end) != Some(&b'}') {
            return None;
        }
        Some((
            UsualError {
                code,
                message,
                data,
            },
            end + 1,
        ))
    }

    /// The id of a usual shape at `v`: an integer (no fraction, no exponent: the caller
    /// checks what follows the digits, so `01` or `0.5` fail there) or a string, within the
    /// id limit.
    #[inline(always)]
    fn usual_id(&self, frame: &[u8], v: usize) -> Option<(Span, IdKind)> {
        let (end, kind) = match frame.get(v)? {
            b'1'..=b'9' => (digits_end(frame, v + 1), IdKind::Integer),
            // Zero (the first request of the TypeScript and Python SDKs) or negative: out of
            // line (inline, the two cases cost the usual ids 2 instructions a frame).
            b'0' | b'-' => (zero_or_negative_end(frame, v)?, IdKind::Integer),
            b'"' => {
                let (close, esc) = scan::string_end(frame, v + 1).ok()?;
                (close + 1, IdKind::String { has_escapes: esc })
            }
            _ => return None,
        };
        let span = Span::new(v, end);
        if id_too_long(span, &self.options.limits) {
            return None;
        }
        Some((span, kind))
    }

    /// The members of a usual shape at `i` besides `jsonrpc` and `id`: `"method":"…"`, then
    /// `,"params":` an object (or, in JSON-RPC, an array), or `"result":` a value (an object
    /// in MCP, whose `resultType` must be one the options allow), with the separators `sep`.
    /// Returns them and the index after them.
    #[inline(always)]
    fn usual_body(&self, frame: &[u8], i: usize, sep: &Separators) -> Option<(UsualBody, usize)> {
        let opts = &self.options;
        let mcp = opts.dialect == Dialect::Mcp;
        if holds(frame, i, sep.method) {
            let v = i + sep.method.len();
            let (close, esc) = scan::string_end(frame, v).ok()?;
            let text = (Span::new(v, close), esc);
            if method_too_long(text.0, &opts.limits) {
                return None;
            }
            let mut end = close + 1;
            let mut params = None;
            if holds(frame, end, sep.params) {
                let p = end + sep.params.len();
                if params_error(*frame.get(p)?, mcp).is_some() {
                    return None;
                }
                end = self.skip(frame, p, 1).ok()?;
                params = Some(Span::new(p, end));
            }
            Some((UsualBody::Method { text, params }, end))
        } else if holds(frame, i, sep.result) {
            let v = i + sep.result.len();
            let end = if mcp && !opts.result_types.is_empty() {
                if frame.get(v) != Some(&b'{') {
                    return None;
                }
                let (end, result_type) =
                    self.walk_result::<false, false>(frame, v, 1, &mut None)?;
                if !self.is_known_result_type(frame, result_type) {
                    return None;
                }
                end
            } else {
                if mcp && frame.get(v) != Some(&b'{') {
                    return None;
                }
                self.skip(frame, v, 1).ok()?
            };
            Some((UsualBody::Result(Span::new(v, end)), end))
        } else {
            None
        }
    }

    /// The `params` at `p` of a request in the MCP Java SDK's order (`params` after the id):
    /// an object (or, in JSON-RPC, an array), skipped, as `usual_body` reads `params` in line.
    /// Out of line: on the path of the usual orders, its code cost about 2 % more instructions
    /// per message (measured).
    #[inline(never)]
    fn params_after_id(&self, frame: &[u8], p: usize) -> Option<Span> {
        if params_error(*frame.get(p)?, self.options.dialect == Dialect::Mcp).is_some() {
            return None;
        }
        let end = self.skip(frame, p, 1).ok()?;
        Some(Span::new(p, end))
    }
}

/// The envelope of a usual shape with `id` (if any) and `body`: a request, a notification, or
/// a response (which needs its id). (`decode_usual_with` writes the same out: calling this,
/// it cost the compact shapes 0.7 % more instructions a message, callgrind on `tiny`.)
#[inline(always)]
fn usual_envelope(id: Option<(Span, IdKind)>, body: UsualBody) -> Option<Envelope> {
    let (kind, text, payload) = match body {
        UsualBody::Method { text, params } if id.is_some() => (Kind::Request, Some(text), params),
        UsualBody::Method { text, params } => (Kind::Notification, Some(text), params),
        UsualBody::Result(result) if id.is_some() => (Kind::Response, None, Some(result)),
        UsualBody::Result(_) => return None,
    };
    Some(Envelope {
        kind,
        id,
        text,
        payload,
        error_code: 0,
        error_data: None,
    })
}

/// The error object of a usual error response (see `Decoder::decode_usual_error`).
struct UsualError {
    code: i64,
    /// The message's string body and whether it has escapes.
    message: (Span, bool),
    data: Option<Span>,
}

/// What a usual shape holds besides `jsonrpc` and `id` (see `Decoder::decode_usual`).
enum UsualBody {
    /// The method's string body and whether it has escapes, and the params.
    Method {
        text: (Span, bool),
        params: Option<Span>,
    },
    /// The result.
    Result(Span),
}

#[cfg(test)]
mod tests;

/// The end of an integer id `0`, `-0` or `-` followed by digits at `v` (what follows is the
/// caller's to check: `01` and `-0.5` fail there), or `None` for any other token.
#[cold]
#[inline(never)]
fn zero_or_negative_end(frame: &[u8], v: usize) -> Option<usize> {
    let digits = if frame.get(v) == Some(&b'-') {
        v + 1
    } else {
        v
    };
    match frame.get(digits)? {
        b'0' => Some(digits + 1),
        b'1'..=b'9' => Some(digits_end(frame, digits + 1)),
        _ => None,
    }
}
