//! The one-pass envelope walk: member spans, duplicate keys, the version, and the shape rules
//! of each dialect.

use crate::error::{DecodeError, ErrorCode, Member};
use crate::id::{Id, IdKind};
use crate::json::{parse_i64, JsonStr, Lookup, RawJson};
use crate::limits::Limits;
use crate::message::{Kind, Message, Rejection, Reply, ReplyId};
use crate::scan::{self, scalar::skip_ws, ScanError, Validation};

/// Which set of rules a frame is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// Plain JSON-RPC 2.0: batches allowed; ids may be strings, any number, or null;
    /// `params` an object or an array; `result` any value.
    JsonRpc2,
    /// MCP (2025-06-18 and later): no batches (2025-03-26's are
    /// [`DecodeOptions::for_protocol_version`]'s); ids are strings or canonical integers, never
    /// null; `params` and `result` are objects; `result.resultType`, when present, must be a
    /// known value.
    #[default]
    Mcp,
}

/// Who reads the stream, which decides the one ambiguous case: a frame with an `id` but none
/// of `method`, `result`, `error` is an invalid request a server must answer (-32600), but an
/// invalid response nobody answers when a client reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Role {
    /// We read what a client wrote (client → server).
    #[default]
    Server,
    /// We read what a server wrote (server → client).
    Client,
}

/// Everything that configures a [`Decoder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// The rule set.
    pub dialect: Dialect,
    /// How much of the payloads is validated.
    pub validation: Validation,
    /// Who reads the stream.
    pub role: Role,
    /// Frame, depth, id and method limits. A framer enforces the frame limit it is given as it
    /// reads; the decoder refuses a longer frame too (one that came another way). A framer
    /// does not pass its limit to the decoder: when a framer's is higher, raise this one too,
    /// or its longer frames become `FrameTooLong` (-32700); [`Decoder::line_framer`] and its
    /// siblings build framers with this limit.
    pub limits: Limits,
    /// The reply id used when the request's id cannot be read: `Null` (JSON-RPC; Python MCP
    /// peers) or `Absent` (MCP's schema; TypeScript MCP peers reject `"id":null`).
    pub unreadable_id: ReplyId<'static>,
    /// Reject top-level members that are not envelope members (default: ignore them).
    pub reject_unknown_members: bool,
    /// The hardened profile for proxies in front of strict backends: reject member names that
    /// case-fold to an envelope name, lone surrogates in `method` and string ids, control
    /// characters in `method`, numeric ids that are not integers within ±(2^53 − 1), and a
    /// carriage return inside a frame (a line end to some peers). Pair it with
    /// [`Limits::HARDENED`].
    pub hardened: bool,
    /// `resultType` values accepted in MCP results (an absent `resultType` means `complete`).
    /// The default is MCP 2026-07-28's: `complete` and `input_required` (a multi round-trip
    /// request: the server asks the client for input, the client retries). Empty: no check,
    /// for sessions under an earlier version, where `resultType` is an extra member like any
    /// other (the result is then skipped whole, not walked member by member).
    /// [`for_protocol_version`](Self::for_protocol_version) sets it from the version.
    pub result_types: &'static [&'static str],
    /// Whether a JSON array is a batch ([`Message::Batch`], its elements decoded one by one;
    /// in the MCP dialect each held to MCP's rules, and an `initialize` request refused as
    /// `InitializeInBatch`) or refused whole as -32600 (`BatchNotAllowed`). The dialect's default: JSON-RPC 2.0
    /// allows them; MCP does not (it removed them in 2025-06-18), except under 2025-03-26,
    /// whose receivers must accept them ([`for_protocol_version`]).
    ///
    /// [`for_protocol_version`]: DecodeOptions::for_protocol_version
    pub batches: bool,
}

impl DecodeOptions {
    /// The options for `dialect`, with that dialect's defaults.
    pub const fn new(dialect: Dialect) -> Self {
        DecodeOptions {
            dialect,
            validation: Validation::Lazy,
            role: Role::Server,
            limits: Limits::DEFAULT,
            unreadable_id: match dialect {
                Dialect::JsonRpc2 => ReplyId::Null,
                Dialect::Mcp => ReplyId::Absent,
            },
            reject_unknown_members: false,
            hardened: false,
            result_types: Self::RESULT_TYPES,
            batches: matches!(dialect, Dialect::JsonRpc2),
        }
    }

    /// The `resultType` values MCP 2026-07-28 defines, `complete` and `input_required`: the
    /// default [`result_types`](Self::result_types), and what
    /// [`for_protocol_version`](Self::for_protocol_version) sets from that version on.
    pub const RESULT_TYPES: &'static [&'static str] = &["complete", "input_required"];

    /// These options for a session that negotiated the MCP revision `version` (the
    /// `protocolVersion` of the server's reply to `initialize`). It sets the fields the
    /// version decides, whole, whatever they held before:
    ///
    /// - [`result_types`]: [`RESULT_TYPES`](Self::RESULT_TYPES) from 2026-07-28 on, empty
    ///   before it, where `resultType` means nothing and a result holding one
    ///   (`"resultType": 42`, an application's own member) is valid;
    /// - in the MCP dialect, [`batches`]: allowed under 2025-03-26 only (its receivers must
    ///   accept them; 2025-06-18 removed them). JSON-RPC's are the dialect's and stay as
    ///   they are.
    ///
    /// So the last call counts: `options.for_protocol_version(a).for_protocol_version(b)` is
    /// `options.for_protocol_version(b)`, and options can be derived again when a session's
    /// version becomes known. A value of one's own for either field goes after it:
    /// `DecodeOptions { batches: false, ..options.for_protocol_version(version) }`.
    ///
    /// ```
    /// use rpcwire::{DecodeOptions, Decoder, Dialect};
    /// let reply = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":42}}"#;
    /// let newest = Decoder::new(DecodeOptions::new(Dialect::Mcp));
    /// assert!(newest.decode(reply).is_err());
    /// let older = DecodeOptions::new(Dialect::Mcp).for_protocol_version("2025-11-25");
    /// assert!(Decoder::new(older).decode(reply).is_ok());
    /// // The check comes back with a later version.
    /// assert!(Decoder::new(older.for_protocol_version("2026-07-28")).decode(reply).is_err());
    /// ```
    ///
    /// ```
    /// use rpcwire::{DecodeOptions, Decoder, Dialect, Message};
    /// let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    /// let options = DecodeOptions::new(Dialect::Mcp);
    /// assert!(Decoder::new(options.for_protocol_version("2025-06-18")).decode(batch).is_err());
    /// let decoder = Decoder::new(options.for_protocol_version("2025-03-26"));
    /// assert!(matches!(decoder.decode(batch), Ok(Message::Batch(_))));
    /// ```
    ///
    /// [`result_types`]: DecodeOptions::result_types
    /// [`batches`]: DecodeOptions::batches
    pub fn for_protocol_version(mut self, version: &str) -> Self {
        self.result_types = if crate::mcp::versions::has_result_type(version) {
            Self::RESULT_TYPES
        } else {
            &[]
        };
        if self.dialect == Dialect::Mcp {
            self.batches = crate::mcp::versions::has_batches(version);
        }
        self
    }
}

impl Default for DecodeOptions {
    fn default() -> Self {
        Self::new(Dialect::Mcp)
    }
}

/// Decodes frames into [`Message`]s in one pass, or explains why a frame is rejected and
/// what must be answered.
///
/// ```
/// use rpcwire::{Decoder, ErrorCode, Kind, ReplyId};
/// let dec = Decoder::mcp();
/// let msg = dec.decode(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
/// assert_eq!(msg.kind(), Kind::Notification);
///
/// let rej = dec.decode(br#"{"jsonrpc":"2.0","id":1,"meth"#).unwrap_err();
/// let reply = rej.reply().unwrap();
/// assert_eq!(reply.code, ErrorCode::PARSE_ERROR);
/// assert_eq!(reply.id, ReplyId::Absent);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Decoder {
    options: DecodeOptions,
}

/// A span of a frame, as offsets (frames are limited well below 4 GiB).
///
/// Aligned to 8 so that a span is copied as one word: spans are written and soon read back
/// as members move into the envelope, and two 4-byte stores read by one 8-byte load stall
/// store-to-load forwarding (tiny −3.5 %, typical −2 %).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(align(8))]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl Span {
    #[inline(always)]
    pub(crate) fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    #[inline(always)]
    pub(crate) fn range(self) -> core::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The span of `part`, a subslice of `whole`.
    pub(crate) fn within(whole: &[u8], part: &[u8]) -> Span {
        let start = part.as_ptr() as usize - whole.as_ptr() as usize;
        Span::new(start, start + part.len())
    }
}

/// A decoded message as spans into its frame: what an owned message keeps beside the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Envelope {
    pub(crate) kind: Kind,
    pub(crate) id: Option<(Span, IdKind)>,
    /// `method` for requests and notifications, `error.message` for error responses.
    pub(crate) text: Option<(Span, bool)>,
    /// `params`, `result`, or the batch array.
    pub(crate) payload: Option<Span>,
    pub(crate) error_code: i64,
    pub(crate) error_data: Option<Span>,
}

/// `error.code`, `error.message` (span, has escapes) and `error.data`.
type ErrorMembers = (i64, (Span, bool), Option<Span>);

/// What the walk over the top-level object found.
#[derive(Default)]
struct Members {
    version_ok: Option<bool>,
    id: Option<(Span, IdKind)>,
    id_bad_type: bool,
    method: Option<(Span, bool)>,
    method_not_string: bool,
    params: Option<Span>,
    result: Option<Span>,
    /// `result.resultType`, when the result was walked member by member (`None`: not looked
    /// up yet).
    result_type: Option<ResultTypeSeen>,
    error: Option<Span>,
    duplicate: Option<Member>,
    /// `id` occurs more than once (tracked apart from `duplicate`, which names only the first
    /// duplicated member, so a reply never echoes an ambiguous id).
    id_duplicate: bool,
    unknown: bool,
    case_folded: bool,
    /// The envelope members met so far, one bit each (`1 << member as u8`).
    seen: u8,
}

/// What a walk over an MCP result found of its `resultType` members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResultTypeSeen {
    Absent,
    Once(Span),
    /// More than one, or a result too malformed to tell.
    Ambiguous,
}

/// A rejection as spans (converted to a borrowed [`Rejection`] at the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reject {
    pub(crate) error: DecodeError,
    pub(crate) id: Option<(Span, IdKind)>,
    pub(crate) is_response: bool,
}

impl Reject {
    fn parse(e: impl Into<DecodeError>) -> Reject {
        Reject {
            error: e.into(),
            id: None,
            is_response: false,
        }
    }
}

const KEYS: [(&[u8], Member); 6] = [
    (b"jsonrpc", Member::JsonRpc),
    (b"id", Member::Id),
    (b"method", Member::Method),
    (b"params", Member::Params),
    (b"result", Member::Result),
    (b"error", Member::Error),
];

/// Which envelope member a key names (compared after unescaping), if any.
#[inline(always)]
fn member_of(key: &[u8], has_escapes: bool) -> Option<Member> {
    if !has_escapes {
        // Fast path: raw bytes.
        return match key {
            b"jsonrpc" => Some(Member::JsonRpc),
            b"id" => Some(Member::Id),
            b"method" => Some(Member::Method),
            b"params" => Some(Member::Params),
            b"result" => Some(Member::Result),
            b"error" => Some(Member::Error),
            _ => None,
        };
    }
    lookup(&KEYS, key, true)
}

/// The members of an error object that the envelope reads.
const ERROR_MEMBERS: [(&[u8], Member); 3] = [
    (b"code", Member::ErrorCode),
    (b"message", Member::ErrorMessage),
    (b"data", Member::ErrorData),
];

/// The member of `table` a key names, compared after unescaping (an escaped key is decoded
/// once, at most eight characters of it).
fn lookup(table: &[(&[u8], Member)], key: &[u8], has_escapes: bool) -> Option<Member> {
    if !has_escapes {
        return table.iter().find(|(name, _)| *name == key).map(|n| n.1);
    }
    let (chars, len) = short_key(key, true)?;
    table
        .iter()
        .find(|(name, _)| spells(name, &chars[..len]))
        .map(|n| n.1)
}

/// Whether the characters `chars` spell the ASCII `name`.
fn spells(name: &[u8], chars: &[char]) -> bool {
    name.len() == chars.len() && name.iter().zip(chars).all(|(&n, &c)| c == char::from(n))
}

/// The characters of a key, decoded, when it has at most seven (no envelope member name is
/// longer); `None` otherwise, after reading eight at most.
fn short_key(key: &[u8], has_escapes: bool) -> Option<([char; 7], usize)> {
    let mut chars = ['\0'; 7];
    let mut len = 0;
    for c in JsonStr::from_raw(key, has_escapes).chars() {
        *chars.get_mut(len)? = c;
        len += 1;
    }
    Some((chars, len))
}

/// A plainly spelled envelope key after its opening quote: its letters, closing quote and
/// colon as a little-endian word (`jsonrpc":` is 9 bytes: 8 here, the colon checked apart).
#[derive(Clone, Copy)]
struct PlainKey {
    value: u64,
    mask: u64,
    /// Bytes after the opening quote up to and including the colon.
    len: u8,
    member: Member,
}

const fn plain_key(bytes: &[u8], member: Member) -> PlainKey {
    let mut value = 0u64;
    let mut k = 0;
    while k < bytes.len() && k < 8 {
        value |= (bytes[k] as u64) << (8 * k);
        k += 1;
    }
    let mask = if bytes.len() >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes.len())) - 1
    };
    PlainKey {
        value,
        mask,
        len: bytes.len() as u8,
        member,
    }
}

/// The plain keys by the low five bits of their first letter (`e` 5, `i` 9, `j` 10, `m` 13,
/// `p` 16, `r` 18: all different). Other slots never match (a zero mask, a non-zero value).
const PLAIN_KEYS: [PlainKey; 32] = {
    let none = PlainKey {
        value: 1,
        mask: 0,
        len: 0,
        member: Member::Id,
    };
    let mut t = [none; 32];
    t[(b'e' & 31) as usize] = plain_key(b"error\":", Member::Error);
    t[(b'i' & 31) as usize] = plain_key(b"id\":", Member::Id);
    t[(b'j' & 31) as usize] = plain_key(b"jsonrpc\":", Member::JsonRpc);
    t[(b'm' & 31) as usize] = plain_key(b"method\":", Member::Method);
    t[(b'p' & 31) as usize] = plain_key(b"params\":", Member::Params);
    t[(b'r' & 31) as usize] = plain_key(b"result\":", Member::Result);
    t
};

/// The envelope member whose key starts at `frame[i]` when it is spelled plainly, quotes and
/// colon included (`"id":`, no escapes, no whitespace before the colon: what every encoder
/// writes), and the index after the colon. `None` sends the key down the general path.
/// One table load and one masked compare: no branch on which key it is.
#[inline(always)]
fn plain_member_key(frame: &[u8], i: usize) -> Option<(Member, usize)> {
    let rest = frame.get(i..)?;
    let [b'"', word @ ..] = rest.first_chunk::<10>()? else {
        return None;
    };
    let key = PLAIN_KEYS[(word[0] & 31) as usize];
    let word8 = u64::from_le_bytes(*word.first_chunk::<8>().expect("9 bytes"));
    // Only `jsonrpc":` reaches the ninth byte (its colon); for shorter keys it is not read.
    let colon_ok = key.len < 9 || word[8] == b':';
    (word8 & key.mask == key.value && colon_ok).then_some((key.member, i + 1 + key.len as usize))
}

/// Whether a key that is not an envelope member case-folds to one (`ID`, `Method`, and the
/// Unicode folds U+017F `ſ` → `s` and U+212A `K` → `k`).
fn case_folds_to_member(key: &[u8], has_escapes: bool) -> bool {
    let Some((mut chars, len)) = short_key(key, has_escapes) else {
        return false;
    };
    for c in &mut chars[..len] {
        *c = match *c {
            '\u{017f}' => 's',
            '\u{212a}' => 'k',
            c => c.to_ascii_lowercase(),
        };
    }
    KEYS.iter().any(|(name, _)| spells(name, &chars[..len]))
}

impl Decoder {
    /// A decoder with these options.
    pub const fn new(options: DecodeOptions) -> Self {
        Decoder { options }
    }

    /// A decoder for MCP with the default options (lazy validation, reading as a server).
    pub const fn mcp() -> Self {
        Self::new(DecodeOptions::new(Dialect::Mcp))
    }

    /// A decoder for plain JSON-RPC 2.0 with the default options.
    pub const fn jsonrpc() -> Self {
        Self::new(DecodeOptions::new(Dialect::JsonRpc2))
    }

    /// A decoder for MCP reading what a server wrote (`Role::Client`): a client, or a
    /// gateway's upstream side. It differs from [`mcp`](Self::mcp) on one frame: an `id`
    /// alone is an invalid response nobody answers, not an invalid request.
    ///
    /// ```
    /// use rpcwire::{Decoder, DecodeError};
    /// let rej = Decoder::mcp_client().decode(br#"{"jsonrpc":"2.0","id":1}"#).unwrap_err();
    /// assert_eq!(rej.error(), DecodeError::NoMethodNoResult);
    /// assert!(rej.reply().is_none());
    /// let rej = Decoder::mcp().decode(br#"{"jsonrpc":"2.0","id":1}"#).unwrap_err();
    /// assert!(rej.reply().is_some());
    /// ```
    pub const fn mcp_client() -> Self {
        let mut options = DecodeOptions::new(Dialect::Mcp);
        options.role = Role::Client;
        Self::new(options)
    }

    /// [`jsonrpc`](Self::jsonrpc) reading what a server wrote (`Role::Client`), as
    /// [`mcp_client`](Self::mcp_client) is for MCP.
    pub const fn jsonrpc_client() -> Self {
        let mut options = DecodeOptions::new(Dialect::JsonRpc2);
        options.role = Role::Client;
        Self::new(options)
    }

    /// The options.
    pub const fn options(&self) -> &DecodeOptions {
        &self.options
    }

    /// A newline framer with this decoder's frame limit ([`Limits::max_frame`]): a framer
    /// built with a higher limit of its own hands out frames this decoder then refuses
    /// (`FrameTooLong`, -32700), and one with a lower limit refuses frames it would read.
    ///
    /// ```
    /// use rpcwire::{DecodeOptions, Decoder, Framer};
    /// let mut options = DecodeOptions::default();
    /// options.limits.max_frame = 32 << 20;
    /// let decoder = Decoder::new(options);
    /// assert_eq!(decoder.line_framer().max_frame(), 32 << 20);
    /// assert_eq!(decoder.sse_framer().max_frame(), 32 << 20);
    /// assert_eq!(decoder.content_length_framer().max_frame(), 32 << 20);
    /// ```
    pub fn line_framer(&self) -> crate::LineFramer {
        crate::LineFramer::new(self.options.limits.max_frame)
    }

    /// An SSE framer with this decoder's frame limit (see [`Self::line_framer`]).
    pub fn sse_framer(&self) -> crate::SseFramer {
        crate::SseFramer::new(self.options.limits.max_frame)
    }

    /// A `Content-Length` framer with this decoder's frame limit (see [`Self::line_framer`]).
    pub fn content_length_framer(&self) -> crate::ContentLengthFramer {
        crate::ContentLengthFramer::new(self.options.limits.max_frame)
    }

    /// The reply to a line a framer refused as too long (`FrameError::TooLong`), whose id
    /// cannot be read: -32700 with this decoder's [`unreadable_id`](DecodeOptions::unreadable_id),
    /// as for any frame that is not JSON. Whether to send it is the caller's policy, as for
    /// [`Rejection::reply`]: send it only to a peer whose requests you read (`Role::Server`),
    /// since an over-long line from a server may have been a response, which is never answered.
    ///
    /// ```
    /// use rpcwire::{Decoder, ErrorCode, ReplyId};
    /// let reply = Decoder::mcp().too_long_reply();
    /// assert_eq!((reply.code, reply.id), (ErrorCode::PARSE_ERROR, ReplyId::Absent));
    /// ```
    pub const fn too_long_reply(&self) -> Reply<'static> {
        Reply {
            code: ErrorCode::PARSE_ERROR,
            id: self.options.unreadable_id,
        }
    }

    /// Decodes one frame (one line, without its terminator).
    // Always inlined: the message is then built in the caller's registers instead of being
    // written to memory and read back (tiny −3.4 % in a caller that reads the id, method and
    // payload of every message).
    #[inline(always)]
    pub fn decode<'a>(&self, frame: &'a [u8]) -> Result<Message<'a>, Rejection<'a>> {
        self.view(frame, self.decode_spans(frame))
    }

    /// Decodes every line of a complete buffer (a capture, a file, a body of
    /// newline-delimited messages): [`Lines`](crate::Lines) with this decoder's frame limit,
    /// and [`Self::decode`] of each frame, in one pass over each long line. See
    /// [`DecodeLines`](crate::DecodeLines).
    pub fn decode_lines<'a>(&self, input: &'a [u8]) -> crate::DecodeLines<'a> {
        crate::DecodeLines::new(*self, input)
    }

    /// What [`Self::decode`] makes of `decode_spans`'s answer for `frame`.
    #[inline(always)]
    pub(crate) fn view<'a>(
        &self,
        frame: &'a [u8],
        decoded: Result<Envelope, Reject>,
    ) -> Result<Message<'a>, Rejection<'a>> {
        match decoded {
            Ok(env) => Ok(env.view(frame)),
            Err(r) => Err(r.view(frame, self.options.unreadable_id)),
        }
    }

    /// Decodes one frame into spans: the form an owned message keeps.
    // Always inlined for a short ASCII frame of the usual shape, which is then decoded in the
    // caller's registers, its envelope not written to memory and read back (tiny −5 %);
    // everything else goes through `decode_checked`, out of line.
    #[inline(always)]
    pub(crate) fn decode_spans(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        let opts = &self.options;
        if frame.len() <= 256 && frame.len() <= opts.limits.max_frame && !opts.hardened {
            let ascii = scan::ascii_prefix(frame);
            if ascii == frame.len() {
                return self.decode_valid_utf8(frame);
            }
            return self.decode_short_from(frame, ascii);
        }
        self.decode_checked(frame)
    }

    /// [`Self::decode_spans`] of a short frame within the limit, outside the hardened
    /// profile, whose first `ascii` bytes are ASCII and the next one is not: the rest checked
    /// as UTF-8 (from where the ASCII check stopped, not again from the start), then decoded.
    #[inline(never)]
    fn decode_short_from(&self, frame: &[u8], ascii: usize) -> Result<Envelope, Reject> {
        if simdutf8::basic::from_utf8(&frame[ascii..]).is_err() {
            return Err(Reject::parse(DecodeError::InvalidUtf8));
        }
        self.decode_valid_utf8(frame)
    }

    /// A frame whose UTF-8 is checked: the usual shapes, else the general walk.
    #[inline(always)]
    fn decode_valid_utf8(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        match self.decode_usual(frame) {
            Some(envelope) => Ok(envelope),
            None => self.decode_walked(frame),
        }
    }

    /// [`Self::decode_spans`] of any frame: the limit, the hardened profile's `\r`, UTF-8,
    /// then the usual shapes or the general walk.
    #[inline(never)]
    fn decode_checked(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        // (Spans are `u32`: a frame limit beyond 4 GiB still stops there.)
        if frame.len() > self.options.limits.max_frame.min(u32::MAX as usize) {
            return Err(Reject::parse(DecodeError::FrameTooLong));
        }
        // Hardened: a CR left in a frame (the framer strips the one before LF) is a line end
        // to SSE-style and some stdio peers, who would cut this frame elsewhere than we do.
        if self.options.hardened && memchr::memchr(b'\r', frame).is_some() {
            return Err(Reject::parse(DecodeError::LoneCarriageReturn));
        }
        // Short frames are mostly ASCII, and an ASCII check beats a call into the SIMD UTF-8
        // validator there (tiny −5 %); on longer ones the validator is as fast (measured).
        // It runs from the first block that is not ASCII.
        let ascii = if frame.len() <= 256 {
            scan::ascii_prefix(frame)
        } else {
            if frame.len() > DEFER_UTF8_ABOVE {
                if let Some(decoded) = self.decode_long_object(frame) {
                    return decoded;
                }
            }
            0
        };
        if ascii < frame.len() && simdutf8::basic::from_utf8(&frame[ascii..]).is_err() {
            return Err(Reject::parse(DecodeError::InvalidUtf8));
        }
        self.decode_valid_utf8(frame)
    }

    /// `decode_spans` of a frame whose UTF-8 is checked, by the general walk.
    #[inline(never)]
    fn decode_walked(&self, frame: &[u8]) -> Result<Envelope, Reject> {
        let start = skip_ws(frame, 0);
        match frame.get(start) {
            None => Err(Reject::parse(DecodeError::Empty)),
            Some(b'{') => {
                let mut error = None;
                let (members, end) =
                    self.walk_object::<false, false>(frame, start, 0, &mut None, &mut error)?;
                if skip_ws(frame, end) != frame.len() {
                    return Err(Reject::parse(DecodeError::TrailingData));
                }
                self.classify(frame, members, error)
            }
            Some(b'[') => self.walk_batch(frame, start),
            Some(_) => {
                let end = self.skip(frame, start, 0)?;
                if skip_ws(frame, end) != frame.len() {
                    return Err(Reject::parse(DecodeError::TrailingData));
                }
                Err(Reject {
                    error: DecodeError::NotAnObject,
                    id: None,
                    is_response: false,
                })
            }
        }
    }

    /// The envelope of a valid frame in a compact shape nearly every encoder writes, its
    /// members in one of the usual orders: `jsonrpc` first, `id` next or last,
    /// `{"jsonrpc":"2.0",["id":ID,]"method":"…"[,"params":{…}]}`,
    /// `{"jsonrpc":"2.0","method":"…"[,"params":{…}],"id":ID}`,
    /// `{"jsonrpc":"2.0","id":ID,"result":…}` or `{"jsonrpc":"2.0","result":…,"id":ID}`; or
    /// both last, as the official TypeScript SDK writes them,
    /// `{"method":"…"[,"params":{…}],"jsonrpc":"2.0"[,"id":ID]}` or
    /// `{"result":…,"jsonrpc":"2.0","id":ID}`; the id a positive integer or a string, nothing
    /// after the closing brace. Exactly what `walk_object` and `classify` make of such a
    /// frame, without their general machinery (the member dispatch, duplicate tracking,
    /// `Members` and the shape rules for members that cannot be there): a frame of this shape
    /// has no duplicate, unknown or misplaced member, so of the rules only those of its
    /// members' values are left, checked here as `classify` checks them. `None` for anything
    /// else, or anything this path would have to reject (an error, a limit crossed, a
    /// `resultType` refused, the hardened profile): the general walk then decodes the frame
    /// from the start and gives the answer. Checked against the general walk in the tests.
    #[inline(always)]
    fn decode_usual(&self, frame: &[u8]) -> Option<Envelope> {
        const JSONRPC_FIRST: &[u8; 17] = br#"{"jsonrpc":"2.0","#;
        const JSONRPC_LAST: &[u8; 16] = br#","jsonrpc":"2.0""#;
        if self.options.hardened {
            return None;
        }
        let (id, body, end) = if frame.first_chunk() == Some(JSONRPC_FIRST) {
            let mut i = JSONRPC_FIRST.len();
            let mut id = None;
            if frame.get(i..i + 5) == Some(br#""id":"#) {
                let (span, kind) = self.usual_id(frame, i + 5)?;
                i = span.range().end;
                if frame.get(i) != Some(&b',') {
                    return None;
                }
                id = Some((span, kind));
                i += 1;
            }
            let (body, mut end) = self.usual_body(frame, i)?;
            if id.is_none() && frame.get(end..end + 6) == Some(br#","id":"#) {
                let (span, kind) = self.usual_id(frame, end + 6)?;
                end = span.range().end;
                id = Some((span, kind));
            }
            (id, body, end)
        } else if frame.first() == Some(&b'{') {
            let (body, mut end) = self.usual_body(frame, 1)?;
            if frame.get(end..end + JSONRPC_LAST.len()) != Some(JSONRPC_LAST) {
                return None;
            }
            end += JSONRPC_LAST.len();
            let mut id = None;
            if frame.get(end..end + 6) == Some(br#","id":"#) {
                let (span, kind) = self.usual_id(frame, end + 6)?;
                end = span.range().end;
                id = Some((span, kind));
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

    /// The id of a usual shape at `v`: a positive integer (no fraction, no exponent: the
    /// caller checks what follows the digits) or a string, within the id limit.
    #[inline(always)]
    fn usual_id(&self, frame: &[u8], v: usize) -> Option<(Span, IdKind)> {
        let (end, kind) = match frame.get(v)? {
            b'1'..=b'9' => (digits_end(frame, v + 1), IdKind::Integer),
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
    /// in MCP, whose `resultType` must be one the options allow). Returns them and the index
    /// after them.
    #[inline(always)]
    fn usual_body(&self, frame: &[u8], i: usize) -> Option<(UsualBody, usize)> {
        let opts = &self.options;
        let mcp = opts.dialect == Dialect::Mcp;
        if frame.get(i..i + 10) == Some(br#""method":""#) {
            let v = i + 10;
            let (close, esc) = scan::string_end(frame, v).ok()?;
            let text = (Span::new(v, close), esc);
            if method_too_long(text.0, &opts.limits) {
                return None;
            }
            let mut end = close + 1;
            let mut params = None;
            if frame.get(end..end + 10) == Some(br#","params":"#) {
                let p = end + 10;
                if params_error(*frame.get(p)?, mcp).is_some() {
                    return None;
                }
                end = self.skip(frame, p, 1).ok()?;
                params = Some(Span::new(p, end));
            }
            Some((UsualBody::Method { text, params }, end))
        } else if frame.get(i..i + 9) == Some(br#""result":"#) {
            let v = i + 9;
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

    /// `decode_spans` for a long object (over `DEFER_UTF8_ABOVE` bytes) in lazy mode, `None`
    /// for any other frame: UTF-8 checked after the walk, except in the longest payload the
    /// skip kernel saw to be ASCII on its way (large −10 %). A failed walk checks the whole
    /// frame first, so an invalid frame is still reported as such before anything else.
    #[inline(never)]
    fn decode_long_object(&self, frame: &[u8]) -> Option<Result<Envelope, Reject>> {
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

    #[inline(always)]
    fn skip(&self, frame: &[u8], at: usize, depth: u32) -> Result<usize, Reject> {
        scan::skip_value(
            frame,
            at,
            depth,
            self.options.limits.max_depth,
            self.options.validation,
        )
        .map_err(Reject::parse)
    }

    fn walk_batch(&self, frame: &[u8], start: usize) -> Result<Envelope, Reject> {
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
        let end = if frame.get(i) == Some(&b']') {
            i + 1
        } else {
            // An element sits one level below the array: an object is walked as an envelope
            // of its own at depth 1, where it opens the second level.
            let max_depth = self.options.limits.max_depth;
            loop {
                let element_end = match frame.get(i) {
                    Some(b'{') if max_depth < 2 => return Err(Reject::parse(ScanError::TooDeep)),
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
        if !self.options.batches {
            // Nobody answers a batch made only of responses. Members are looked up by
            // presence (`get` would read a duplicated `method` as absent).
            let has = |e: RawJson<'_>, key: &str| e.members().any(|(k, _)| k.eq_str(key));
            let is_response =
                |e: RawJson<'_>| !has(e, "method") && (has(e, "result") || has(e, "error"));
            let all_responses = is_response(first) && elements.all(is_response);
            return Err(Reject {
                error: DecodeError::BatchNotAllowed,
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
    /// open, and are checked against the depth limit there (the caller checks the object's
    /// own level). Any JSON syntax error ends the walk as a parse error; envelope
    /// violations are only recorded, because -32700 takes precedence over -32600.
    /// With `TRACK`, the longest payload the skip kernel saw to be ASCII is kept in `ascii`;
    /// what an `error` object holds goes to `error` (see `classify`). With `LINE` (and
    /// `TRACK`), `frame` is a stream whose line starting at `start` has not been cut yet (see
    /// `decode_long_line`): nothing is read past that line's end (a `\n` fails the walk).
    fn walk_object<const TRACK: bool, const LINE: bool>(
        &self,
        frame: &[u8],
        start: usize,
        depth: u32,
        ascii: &mut Option<Span>,
        error: &mut Option<Result<ErrorMembers, Member>>,
    ) -> Result<(Members, usize), Reject> {
        let opts = &self.options;
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
                    self.skip_member::<LINE>(frame, v, value_depth)?
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
                    self.skip_member::<LINE>(frame, v, value_depth)?
                }
                (Some(Member::Method), b'"') => {
                    let (close, esc) = scan::string_end(frame, v + 1).map_err(Reject::parse)?;
                    m.method = Some((Span::new(v + 1, close), esc));
                    close + 1
                }
                (Some(Member::Method), _) => {
                    m.method_not_string = true;
                    self.skip_member::<LINE>(frame, v, value_depth)?
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
                (Some(member), _) => {
                    let end = self.skip_payload::<TRACK, LINE>(frame, v, value_depth, ascii)?;
                    let span = Some(Span::new(v, end));
                    match member {
                        Member::Params => m.params = span,
                        Member::Result => m.result = span,
                        _ => m.error = span,
                    }
                    end
                }
                (None, _) => {
                    if opts.reject_unknown_members {
                        m.unknown = true;
                    }
                    if opts.hardened && case_folds_to_member(key, esc) {
                        m.case_folded = true;
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
    fn walk_result<const TRACK: bool, const LINE: bool>(
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
            let (close, esc) = scan::string_end(frame, key).map_err(Reject::parse)?;
            i = skip_ws_on::<LINE>(frame, close + 1);
            if frame.get(i) != Some(&b':') {
                return Err(Reject::parse(syntax_at(frame, i)));
            }
            let end = value(&frame[key..close], esc, skip_ws_on::<LINE>(frame, i + 1))?;
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
    /// would leave unchecked (`{"code":1 "message":"m"}`). Its values are skipped as values
    /// (`data` is a payload), and `code`, `message` and `data` read on the way. Returns the
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
            let end = self.skip_member::<LINE>(frame, at, depth + 1)?;
            let Some(member) = lookup(&ERROR_MEMBERS, key, esc) else {
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

    /// Whether a result whose `resultType` was seen as `seen` may be accepted: absent (the
    /// default, `complete`), or once, a string the options allow; a duplicated one, or one in a
    /// result too malformed to read whole, is ambiguous and refused.
    #[inline(always)]
    fn is_known_result_type(&self, frame: &[u8], seen: ResultTypeSeen) -> bool {
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
    fn classify(
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
                    Some(DecodeError::IdTooLong)
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
                return reject(DecodeError::MethodTooLong);
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
            return reject(if has_id {
                DecodeError::NoMethodNoResult
            } else {
                DecodeError::NotAnObject
            });
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
                            Lookup::Ambiguous => ResultTypeSeen::Ambiguous,
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

/// Lazily decoded objects longer than this have their UTF-8 checked after the walk (see
/// `decode_spans`). Below it the validator runs first: with this at 256, the ~450-byte
/// `typical` frames decoded 8 % slower and the ~1.1 KiB `escapes` frames 2.5 % (the tracking
/// kernel and the split validation cost more than the pass they spare).
pub(crate) const DEFER_UTF8_ABOVE: usize = 4096;

/// The index of the first byte at or after `i` that is not a blank on a line (space, tab,
/// `\r`: whitespace but `\n`).
#[inline(always)]
fn blanks_end(buf: &[u8], mut i: usize) -> usize {
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

/// What is wrong with `params` whose first byte is `first`, if anything: an object always
/// does, an array in JSON-RPC only (MCP's params are objects), any other value never.
#[inline(always)]
fn params_error(first: u8, mcp: bool) -> Option<DecodeError> {
    match first {
        b'{' => None,
        b'[' if !mcp => None,
        b'[' => Some(DecodeError::ParamsNotObject),
        _ => Some(DecodeError::BadParams),
    }
}

/// Whether the `id` token at `token` (quotes included, as [`Limits::max_id_len`] counts it) is
/// over the limit: -32600 in the general walk, `None` from the usual shapes.
#[inline(always)]
fn id_too_long(token: Span, limits: &Limits) -> bool {
    token.range().len() > limits.max_id_len
}

/// Whether the `method` string whose body is at `body` (escaped, between its quotes, as
/// [`Limits::max_method_len`] counts it) is over the limit: as [`id_too_long`].
#[inline(always)]
fn method_too_long(body: Span, limits: &Limits) -> bool {
    body.range().len() > limits.max_method_len
}

/// The index of the first byte at or after `i` that is not an ASCII digit.
#[inline(always)]
fn digits_end(frame: &[u8], mut i: usize) -> usize {
    while frame.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
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

    /// Envelope names are compared after unescaping, and in the hardened profile after case
    /// folding (with the two non-ASCII characters that fold to ASCII letters); a key is
    /// decoded once, and only its first eight characters are ever read.
    #[test]
    fn member_names_after_unescaping_and_folding() {
        let plain = |key: &str| member_of(key.as_bytes(), false);
        let escaped = |key: &str| member_of(key.as_bytes(), true);
        assert_eq!(plain("id"), Some(Member::Id));
        assert_eq!(escaped(r"\u0069d"), Some(Member::Id));
        assert_eq!(escaped(r"\u006a\u0073onrpc"), Some(Member::JsonRpc));
        assert_eq!(escaped(r"m\u0065thod"), Some(Member::Method));
        for other in [
            r"\u0069",
            r"\u0069dd",
            r"jsonrpc\u0020",
            r"\ud800d",
            r"\u0049d",
            r"\\id",
        ] {
            assert_eq!(escaped(other), None, "{other}");
        }
        let error_member = |key: &str, esc| lookup(&ERROR_MEMBERS, key.as_bytes(), esc);
        assert_eq!(error_member("code", false), Some(Member::ErrorCode));
        assert_eq!(error_member(r"\u0063ode", true), Some(Member::ErrorCode));
        assert_eq!(
            error_member(r"m\u0065ssage", true),
            Some(Member::ErrorMessage)
        );
        assert_eq!(error_member(r"dat\u0061", true), Some(Member::ErrorData));
        assert_eq!(error_member(r"dat\u0061", false), None);
        assert_eq!(error_member(r"\u0063odes", true), None);
        let folds = |key: &str, esc| case_folds_to_member(key.as_bytes(), esc);
        for (key, esc) in [
            ("ID", false),
            ("Method", false),
            ("JSONRPC", false),
            (r"par\u0041ms", true),
            (r"re\u017fult", true),
            ("re\u{17f}ult", false),
        ] {
            assert!(folds(key, esc), "{key}");
        }
        for (key, esc) in [
            ("I", false),
            ("IDD", false),
            ("Methods", false),
            (r"\u212a", true),
        ] {
            assert!(!folds(key, esc), "{key}");
        }
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
        }
    }

    /// The usual shapes' path (`decode_usual`) gives what the general walk gives, whenever it
    /// answers: on frames of those shapes and of near shapes, each mutated at every position
    /// (a byte dropped, replaced or inserted, the frame cut), under options that change what
    /// the path checks (dialect, mode, role, `resultType`s, every limit it meets).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_usual_shapes_path_agrees_with_the_walk() {
        let frames: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1234,"result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":50}}"#,
            r#"{"jsonrpc":"2.0","id":"r-3","method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2,{"b":null}],"c":"d\"e"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","x":1}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"other"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","resultType":"complete"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"result\u0054ype":"complete"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":[1]}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":"s"}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":"\u0041\"","method":"m\u00e9\\"}"#,
            r#"{"jsonrpc":"2.0","id":"","method":""}"#,
            r#"{"jsonrpc":"2.0","id":12,"method":"a","params":[1,{}]}"#,
            r#"{"jsonrpc":"2.0","id":12,"method":"a","params":5}"#,
            r#"{"jsonrpc":"2.0","id":12,"method":"a","params":{"x":[[[[1]]]]}}"#,
            r#"{"jsonrpc":"2.0","method":"a","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":0,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":-1,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":1e3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{},"id":2}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a"} "#,
            r#"{"jsonrpc":"2.0","id":1 ,"method":"a"}"#,
            r#"{"jsonrpc":"2.0", "id":1,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"a"}"#,
            // The TypeScript SDK's order: `jsonrpc` and `id` last.
            r#"{"method":"ping","jsonrpc":"2.0","id":7}"#,
            r#"{"result":{},"jsonrpc":"2.0","id":1234}"#,
            r#"{"method":"notifications/progress","params":{"progressToken":5,"progress":50},"jsonrpc":"2.0"}"#,
            r#"{"method":"tools/list","params":{},"jsonrpc":"2.0","id":"r-3"}"#,
            r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#,
            r#"{"result":{"content":[{"type":"text","text":"hi"}],"isError":false},"jsonrpc":"2.0","id":2}"#,
            r#"{"result":{"resultType":"other"},"jsonrpc":"2.0","id":2}"#,
            r#"{"result":[1],"jsonrpc":"2.0","id":2}"#,
            r#"{"result":{},"jsonrpc":"2.0"}"#,
            r#"{"result":{},"jsonrpc":"2.0","id":null}"#,
            r#"{"result":{},"jsonrpc":"2.0","id":1.5}"#,
            r#"{"method":"a","params":5,"jsonrpc":"2.0","id":1}"#,
            r#"{"method":"a","params":[1],"jsonrpc":"2.0","id":1}"#,
            r#"{"method":"a","jsonrpc":"2.0","id":1,"id":2}"#,
            r#"{"method":"m\u00e9","jsonrpc":"2.0","id":"\u0041\""}"#,
            r#"{"method":"a","jsonrpc":"2.0","jsonrpc":"2.0"}"#,
            r#"{"method":"a","result":{},"jsonrpc":"2.0","id":1}"#,
            r#"{"error":{"code":-1,"message":"m"},"jsonrpc":"2.0","id":1}"#,
            r#"{"method":"a","jsonrpc":"1.0","id":1}"#,
            r#"{"method":"a","jsonrpc":"2.0","id":0}"#,
            // `jsonrpc` first, `id` last.
            r#"{"jsonrpc":"2.0","method":"tools/list","params":{},"id":"r-3"}"#,
            r#"{"jsonrpc":"2.0","method":"ping","id":7}"#,
            r#"{"jsonrpc":"2.0","result":{"content":[]},"id":12}"#,
            r#"{"jsonrpc":"2.0","result":{},"id":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","id":2}"#,
            r#"{"jsonrpc":"2.0","method":"a","params":[1],"id":1.5}"#,
        ];
        let special = b"\"\\{}[],:0 \n\x001-.eEu";
        let mut variants: Vec<Vec<u8>> = Vec::new();
        for frame in frames {
            let frame = frame.as_bytes();
            variants.push(frame.to_vec());
            for at in 0..=frame.len() {
                variants.push(frame[..at].to_vec());
                if at < frame.len() {
                    let mut dropped = frame.to_vec();
                    dropped.remove(at);
                    variants.push(dropped);
                }
                for &b in special {
                    if at < frame.len() {
                        let mut replaced = frame.to_vec();
                        replaced[at] = b;
                        variants.push(replaced);
                    }
                    let mut inserted = frame.to_vec();
                    inserted.insert(at, b);
                    variants.push(inserted);
                }
            }
        }
        let mut options = Vec::new();
        for dialect in [Dialect::Mcp, Dialect::JsonRpc2] {
            for validation in [Validation::Lazy, Validation::Strict] {
                for result_types in [&["complete", "input_required"][..], &[], &["complete"]] {
                    let base = DecodeOptions {
                        validation,
                        result_types,
                        ..DecodeOptions::new(dialect)
                    };
                    options.push(base);
                    options.push(DecodeOptions {
                        role: Role::Client,
                        ..base
                    });
                    options.push(DecodeOptions {
                        hardened: true,
                        ..base
                    });
                    for max_depth in [0, 1, 2, 3] {
                        let mut o = base;
                        o.limits.max_depth = max_depth;
                        options.push(o);
                    }
                    for len in [0, 1, 2, 3, 4, 10] {
                        let mut o = base;
                        o.limits.max_id_len = len;
                        options.push(o);
                        let mut o = base;
                        o.limits.max_method_len = len;
                        options.push(o);
                    }
                }
            }
        }
        let mut answered = 0;
        for opts in options {
            let decoder = Decoder::new(opts);
            for frame in &variants {
                if let Some(usual) = decoder.decode_usual(frame) {
                    answered += 1;
                    assert_eq!(
                        decoder.decode_walked(frame),
                        Ok(usual),
                        "{opts:?} on {}",
                        String::from_utf8_lossy(frame)
                    );
                }
            }
        }
        // (The path is taken: most of the unmutated frames and many mutants are its shapes.)
        assert!(answered > 100_000, "{answered}");
        // In every order it takes.
        for frame in [
            &br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#[..],
            br#"{"method":"ping","jsonrpc":"2.0","id":7}"#,
            br#"{"jsonrpc":"2.0","method":"a","params":{}}"#,
            br#"{"method":"a","params":{},"jsonrpc":"2.0"}"#,
            br#"{"jsonrpc":"2.0","id":"x","result":{}}"#,
            br#"{"result":{},"jsonrpc":"2.0","id":"x"}"#,
            br#"{"jsonrpc":"2.0","method":"a","params":{},"id":1}"#,
            br#"{"jsonrpc":"2.0","result":{},"id":"x"}"#,
        ] {
            let usual = Decoder::mcp().decode_usual(frame);
            assert!(usual.is_some(), "{}", String::from_utf8_lossy(frame));
        }
    }

    /// `resultType` is looked up while the result is walked member by member; the outcome
    /// must be the fallback's (a walk of the whole result's members, taken when the fast walk
    /// gives up): the expectations below are that rule's.
    #[test]
    fn result_type_lookup_matches_get() {
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

    /// The id and method limits hold to the byte on both paths: a frame of a usual shape at
    /// a limit is decoded there, one byte over it falls to the general walk, and the walk
    /// (which alone decides the frames out of the usual order) refuses it.
    #[test]
    fn id_and_method_limits_are_exact_on_both_paths() {
        let mut options = DecodeOptions::new(Dialect::Mcp);
        options.limits.max_id_len = 4; // `"ab"`, or `1234`
        options.limits.max_method_len = 3; // `abc`, escaped form: `a\n` is 3 bytes
        let decoder = Decoder::new(options);
        let cases: [(&str, &str, Option<DecodeError>); 6] = [
            (r#""ab""#, "abc", None),
            ("1234", r"a\n", None),
            (r#""abc""#, "abc", Some(DecodeError::IdTooLong)),
            ("12345", "abc", Some(DecodeError::IdTooLong)),
            (r#""ab""#, "abcd", Some(DecodeError::MethodTooLong)),
            ("1234", r"ab\n", Some(DecodeError::MethodTooLong)),
        ];
        for (id, method, expected) in cases {
            let usual = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
            let unusual = format!(r#"{{"id":{id},"jsonrpc":"2.0","method":"{method}"}}"#);
            let straight = decoder.decode_usual(usual.as_bytes());
            assert_eq!(straight.is_some(), expected.is_none(), "{usual}");
            for frame in [&usual, &unusual] {
                let walked = decoder.decode_walked(frame.as_bytes());
                assert_eq!(walked.err().map(|r| r.error), expected, "{frame}");
                let decoded = decoder.decode(frame.as_bytes());
                assert_eq!(decoded.err().map(|r| r.error()), expected, "{frame}");
            }
        }
    }
}
