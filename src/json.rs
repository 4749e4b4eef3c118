//! Borrowed views of JSON text: [`JsonStr`] (a string kept raw) and [`RawJson`] (a delimited
//! value), with lazy member lookup that never builds a tree.

use alloc::borrow::Cow;
use alloc::string::String;

use crate::error::DecodeError;
use crate::scan::{self, Validation, scalar::skip_ws};

/// A JSON string as it appears on the wire: the bytes between the quotes, still escaped, and
/// whether any backslash occurs. Unescaping happens only when asked for.
///
/// `==` and `Hash` compare the wire spellings: `"a"` and `"\u0061"` are the same string to
/// JSON but not equal here. Compare with [`eq_str`](Self::eq_str) (or the [`decode`](Self::decode)d
/// strings) to compare what they say.
///
/// ```
/// use rpcwire::JsonStr;
/// let s = JsonStr::from_raw(br"tools\/call", true);
/// assert_eq!(s.decode(), "tools/call");
/// assert!(s.eq_str("tools/call"));
/// assert_ne!(s, JsonStr::from_raw(b"tools/call", false));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct JsonStr<'a> {
    raw: &'a [u8],
    has_escapes: bool,
}

impl<'a> JsonStr<'a> {
    /// Wraps the raw body of a string (between the quotes). `has_escapes` must be `true` when
    /// `raw` contains a backslash; the body must already be valid JSON string content.
    #[inline]
    pub const fn from_raw(raw: &'a [u8], has_escapes: bool) -> Self {
        JsonStr { raw, has_escapes }
    }

    /// The escaped bytes between the quotes, exactly as on the wire.
    #[inline]
    pub const fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Whether the raw form contains escape sequences.
    #[inline]
    pub const fn has_escapes(&self) -> bool {
        self.has_escapes
    }

    /// The decoded string: borrowed when there is nothing to unescape. A lone surrogate
    /// escape (`\ud800`) decodes to U+FFFD; see [`JsonStr::has_lone_surrogate`].
    pub fn decode(&self) -> Cow<'a, str> {
        if !self.has_escapes {
            // The frame was UTF-8-validated as a whole before any string was handed out.
            return match core::str::from_utf8(self.raw) {
                Ok(s) => Cow::Borrowed(s),
                Err(_) => Cow::Owned(String::from_utf8_lossy(self.raw).into_owned()),
            };
        }
        let mut out = String::with_capacity(self.raw.len());
        for c in self.chars() {
            out.push(c);
        }
        Cow::Owned(out)
    }

    /// Compares the decoded string with `s` without allocating, code unit by code unit (RFC
    /// 8259 §8.3): a lone surrogate escape equals no `&str` (which cannot hold one), although
    /// [`Self::decode`] and [`Self::chars`] show it as U+FFFD.
    pub fn eq_str(&self, s: &str) -> bool {
        if !self.has_escapes {
            return self.raw == s.as_bytes();
        }
        let mut rest = s.chars();
        for unit in Unescape::new(self.raw) {
            match unit {
                Unit::Char(c) if rest.next() == Some(c) => {}
                _ => return false,
            }
        }
        rest.next().is_none()
    }

    /// Whether a `\uD800`–`\uDFFF` escape appears without its pair (valid JSON, but not
    /// representable as Unicode; I-JSON forbids it).
    pub fn has_lone_surrogate(&self) -> bool {
        self.has_escapes && Unescape::new(self.raw).any(|u| matches!(u, Unit::LoneSurrogate(_)))
    }

    /// Whether the decoded string contains a control character (U+0000–U+001F), which can
    /// only come from an escape.
    pub fn has_control(&self) -> bool {
        self.has_escapes && self.chars().any(|c| (c as u32) < 0x20)
    }

    /// The decoded characters, one at a time (lone surrogates as U+FFFD).
    pub fn chars(&self) -> impl Iterator<Item = char> + 'a + use<'a> {
        Unescape::new(self.raw).map(|u| match u {
            Unit::Char(c) => c,
            Unit::LoneSurrogate(_) => char::REPLACEMENT_CHARACTER,
        })
    }

    /// Appends the decoded string as WTF-8: UTF-8, with a lone surrogate as the three bytes
    /// UTF-8 would give its code point (bytes valid UTF-8 never holds). Two strings give the
    /// same bytes exactly when they hold the same UTF-16 code units, which [`Self::chars`]
    /// cannot tell apart for lone surrogates (all U+FFFD).
    pub(crate) fn extend_wtf8(&self, out: &mut impl Extend<u8>) {
        if !self.has_escapes {
            out.extend(self.raw.iter().copied());
            return;
        }
        let mut utf8 = [0u8; 4];
        for unit in Unescape::new(self.raw) {
            match unit {
                Unit::Char(c) => out.extend(c.encode_utf8(&mut utf8).bytes()),
                Unit::LoneSurrogate(u) => out.extend([
                    0xe0 | (u >> 12) as u8,
                    0x80 | ((u >> 6) & 0x3f) as u8,
                    0x80 | (u & 0x3f) as u8,
                ]),
            }
        }
    }
}

impl core::fmt::Debug for JsonStr<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}", self.decode())
    }
}

/// The decoded string, without quotes (a lone surrogate escape as U+FFFD, as
/// [`JsonStr::chars`] gives it); nothing is allocated. For logs: `{}` of a method name.
///
/// The text is the peer's, as it is: an escaped line break or control character is printed
/// as that character, so a peer can split or forge a line of a log written with `{}`. `{:?}`
/// prints it quoted and escaped.
///
/// ```
/// use rpcwire::{Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert_eq!(format!("calling {}", req.method), "calling tools/call");
///
/// let frame = br#"{"jsonrpc":"2.0","method":"a\nINFO forged"}"#;
/// let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert_eq!(format!("{}", n.method), "a\nINFO forged");
/// assert_eq!(format!("{:?}", n.method), r#""a\nINFO forged""#);
/// ```
impl core::fmt::Display for JsonStr<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if !self.has_escapes
            && let Ok(s) = core::str::from_utf8(self.raw)
        {
            return f.write_str(s);
        }
        self.chars()
            .try_for_each(|c| core::fmt::Write::write_char(f, c))
    }
}

enum Unit {
    Char(char),
    /// A `\uD800`–`\uDFFF` escape without its pair: the code unit.
    LoneSurrogate(u16),
}

/// Decodes an escaped string body. The body was validated by the scanner, so every escape is
/// well formed; stray cases still decode to something rather than panic.
struct Unescape<'a> {
    raw: &'a [u8],
    pos: usize,
}

impl<'a> Unescape<'a> {
    fn new(raw: &'a [u8]) -> Self {
        Unescape { raw, pos: 0 }
    }

    /// The four hex digits at `at`, exactly: `from_str_radix` alone would also take a sign
    /// (`\u+041` as `A`).
    fn hex4(&self, at: usize) -> Option<u32> {
        let h = self.raw.get(at..at + 4)?;
        h.iter()
            .try_fold(0, |n, &d| Some(n << 4 | char::from(d).to_digit(16)?))
    }
}

impl Iterator for Unescape<'_> {
    type Item = Unit;

    fn next(&mut self) -> Option<Unit> {
        let raw = self.raw;
        let b = *raw.get(self.pos)?;
        if b != b'\\' {
            // One UTF-8 sequence.
            let len = match b {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let end = (self.pos + len).min(raw.len());
            let c = core::str::from_utf8(&raw[self.pos..end])
                .ok()
                .and_then(|s| s.chars().next())
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            self.pos = end;
            return Some(Unit::Char(c));
        }
        let esc = raw.get(self.pos + 1).copied().unwrap_or(b'\\');
        self.pos += 2;
        let c = match esc {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let Some(hi) = self.hex4(self.pos) else {
                    // Not four hex digits (the scanner lets no such escape through).
                    self.pos = raw.len();
                    return Some(Unit::Char(char::REPLACEMENT_CHARACTER));
                };
                self.pos += 4;
                if (0xd800..0xdc00).contains(&hi) {
                    let lo = if raw.get(self.pos..self.pos + 2) == Some(b"\\u") {
                        self.hex4(self.pos + 2)
                    } else {
                        None
                    };
                    match lo {
                        Some(lo) if (0xdc00..0xe000).contains(&lo) => {
                            self.pos += 6;
                            let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                            return Some(Unit::Char(char::from_u32(c).unwrap_or('\u{fffd}')));
                        }
                        _ => return Some(Unit::LoneSurrogate(hi as u16)),
                    }
                }
                match char::from_u32(hi) {
                    Some(c) => c,
                    // A low surrogate first.
                    None => return Some(Unit::LoneSurrogate(hi as u16)),
                }
            }
            other => other as char,
        };
        Some(Unit::Char(c))
    }
}

/// What a member lookup found ([`RawJson::lookup`], [`RawJson::lookup_path`]):
/// [`RawJson::get`] reads both misses as `None`, where a caller may have to refuse an
/// ambiguous member rather than fall back as for an absent one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lookup<'a> {
    /// No such member (or not an object).
    Absent,
    /// Exactly one.
    Found(RawJson<'a>),
    /// More than one: which one counts is ambiguous (parsers disagree on which one wins).
    Ambiguous,
    /// The object's members cannot all be read, so the key may come past the spot that stops
    /// the reading: lazy validation let through an object that is not JSON (`{"a":1 "b":2}`),
    /// which a strict peer refuses as a parse error. (Found once or twice before that spot,
    /// the key is `Malformed` all the same.)
    Malformed,
}

/// The type of a JSON value, read from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonKind {
    /// `{...}`
    Object,
    /// `[...]`
    Array,
    /// `"..."`
    String,
    /// A number.
    Number,
    /// `true` or `false`.
    Bool,
    /// `null`.
    Null,
}

impl JsonKind {
    /// The kind of the value starting with byte `b` (`None` if no JSON value starts so).
    #[inline]
    pub const fn of_first_byte(b: u8) -> Option<JsonKind> {
        Some(match b {
            b'{' => JsonKind::Object,
            b'[' => JsonKind::Array,
            b'"' => JsonKind::String,
            b'-' | b'0'..=b'9' => JsonKind::Number,
            b't' | b'f' => JsonKind::Bool,
            b'n' => JsonKind::Null,
            _ => return None,
        })
    }
}

/// The nesting limit of [`RawJson::new`] and [`RawJson::new_strict`]: a value's, inside an
/// envelope that the default limit counts as one level.
pub(crate) const VALUE_MAX_DEPTH: u32 = crate::Limits::DEFAULT.max_depth - 1;

/// One complete JSON value, borrowed from a frame exactly as it was received.
///
/// Member lookup walks the object once with the same skip primitive as the decoder.
///
/// ```
/// use rpcwire::RawJson;
/// let v = RawJson::new(br#"{"name":"get_weather","_meta":{"progressToken":7}}"#).unwrap();
/// assert_eq!(v.get("name").unwrap().as_str().unwrap().decode(), "get_weather");
/// assert_eq!(v.get_path(&["_meta", "progressToken"]).unwrap().as_bytes(), b"7");
/// assert_eq!(v.pointer("/_meta/progressToken").unwrap().as_bytes(), b"7");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawJson<'a> {
    bytes: &'a [u8],
}

impl RawJson<'static> {
    /// `{}`: the result of a `ping`, params with nothing in them.
    ///
    /// ```
    /// use rpcwire::RawJson;
    /// assert_eq!(RawJson::EMPTY_OBJECT, RawJson::new(b"{}").unwrap());
    /// ```
    pub const EMPTY_OBJECT: RawJson<'static> = RawJson { bytes: b"{}" };
    /// `[]`.
    pub const EMPTY_ARRAY: RawJson<'static> = RawJson { bytes: b"[]" };
    /// `null`.
    pub const NULL: RawJson<'static> = RawJson { bytes: b"null" };
}

impl<'a> RawJson<'a> {
    /// Checks (lazily, see [`Validation::Lazy`]) that `bytes` is exactly one JSON value,
    /// surrounding whitespace allowed, nested at most 127 levels deep as the decoder's values
    /// are (one under [`Limits::DEFAULT`]`.max_depth`, which counts the envelope), and wraps
    /// the value without the whitespace. A value this deep is one `serde_json` reads (its
    /// recursion limit lets 127 levels through), and sent as params or a result it makes a
    /// frame the default decoder reads (an error's `data` sits one level deeper:
    /// [`encode::write_error`](crate::encode::write_error) leaves out a `data` this deep). (A
    /// walk down a value costs its depth times its size: the limit keeps that finite for
    /// untrusted bytes.)
    ///
    /// Lazy validation delimits the value without reading its every token: `[1 2]` and
    /// `{"a"::1}` pass. Bytes that go to a peer as a payload, from a source not trusted to
    /// write JSON, want [`Self::new_strict`].
    ///
    /// [`Limits::DEFAULT`]: crate::Limits::DEFAULT
    pub fn new(bytes: &'a [u8]) -> Option<Self> {
        Self::with_max_depth(bytes, VALUE_MAX_DEPTH)
    }

    /// [`Self::new`] with another nesting limit (`1` allows a container of scalars,
    /// `u32::MAX` any depth). A value deeper than [`Self::new`] takes, sent as params or a
    /// result, makes a line the default decoder refuses without reading its id (see
    /// [`encode`](crate::encode)).
    pub fn with_max_depth(bytes: &'a [u8], max_depth: u32) -> Option<Self> {
        Self::checked(bytes, max_depth, Validation::Lazy)
    }

    /// [`Self::new`], with the value fully validated by RFC 8259 ([`Validation::Strict`]):
    /// what a strict peer accepts.
    ///
    /// ```
    /// use rpcwire::RawJson;
    /// assert!(RawJson::new(b"[1 2]").is_some()); // delimited, not read token by token
    /// assert!(RawJson::new_strict(b"[1 2]").is_none());
    /// assert!(RawJson::new_strict(b" [1, 2.5e3, \"\\u00e9\"] ").is_some());
    /// ```
    pub fn new_strict(bytes: &'a [u8]) -> Option<Self> {
        Self::checked(bytes, VALUE_MAX_DEPTH, Validation::Strict)
    }

    /// [`Self::new`], saying why `bytes` is not one value.
    ///
    /// # Errors
    ///
    /// [`DecodeError::InvalidUtf8`] when `bytes` is not UTF-8 (checked first);
    /// [`DecodeError::Empty`] when it is nothing but whitespace; [`DecodeError::Syntax`] with
    /// what the scanner met (a bad byte, the end of the input, a container nested too deep
    /// …); [`DecodeError::TrailingData`] when more than whitespace follows the value.
    ///
    /// ```
    /// use rpcwire::{DecodeError, RawJson, ScanError};
    /// assert_eq!(RawJson::parse(b" [1,2] ").unwrap().as_bytes(), b"[1,2]");
    /// assert_eq!(RawJson::parse(b"[1,2] x"), Err(DecodeError::TrailingData));
    /// assert_eq!(RawJson::parse(b"[1,"), Err(DecodeError::Syntax(ScanError::UnexpectedEnd)));
    /// assert_eq!(RawJson::parse(b"  "), Err(DecodeError::Empty));
    /// assert_eq!(RawJson::parse(b"\"\xff\""), Err(DecodeError::InvalidUtf8));
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Self::parse_checked(bytes, VALUE_MAX_DEPTH, Validation::Lazy)
    }

    /// [`Self::new_strict`], saying why `bytes` is not one value.
    ///
    /// # Errors
    ///
    /// As for [`Self::parse`], with every token read: a value [`Self::parse`] takes may be
    /// [`DecodeError::Syntax`] here.
    ///
    /// ```
    /// use rpcwire::{DecodeError, RawJson, ScanError};
    /// assert_eq!(RawJson::parse_strict(b"[1 2]"), Err(DecodeError::Syntax(ScanError::UnexpectedByte)));
    /// ```
    pub fn parse_strict(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Self::parse_checked(bytes, VALUE_MAX_DEPTH, Validation::Strict)
    }

    /// `bytes`, one value with surrounding whitespace, checked as `validation` says.
    pub(crate) fn checked(bytes: &'a [u8], max_depth: u32, validation: Validation) -> Option<Self> {
        Self::parse_checked(bytes, max_depth, validation).ok()
    }

    /// [`Self::checked`], saying why not. UTF-8 first, as the decoder judges a frame.
    fn parse_checked(
        bytes: &'a [u8],
        max_depth: u32,
        validation: Validation,
    ) -> Result<Self, DecodeError> {
        if simdutf8::basic::from_utf8(bytes).is_err() {
            return Err(DecodeError::InvalidUtf8);
        }
        let start = skip_ws(bytes, 0);
        if start == bytes.len() {
            return Err(DecodeError::Empty);
        }
        let end = scan::skip_value(bytes, start, 0, max_depth, validation)?;
        if skip_ws(bytes, end) != bytes.len() {
            return Err(DecodeError::TrailingData);
        }
        Ok(RawJson {
            bytes: &bytes[start..end],
        })
    }

    /// Wraps bytes already known to hold exactly one delimited JSON value.
    #[inline]
    pub(crate) const fn trusted(bytes: &'a [u8]) -> Self {
        RawJson { bytes }
    }

    /// The value's exact bytes.
    #[inline]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The value's exact text.
    #[inline]
    pub fn as_text(&self) -> &'a str {
        // Frames are UTF-8-validated before any value is handed out.
        core::str::from_utf8(self.bytes).unwrap_or("")
    }

    /// The value's type.
    #[inline]
    pub fn kind(&self) -> JsonKind {
        self.bytes
            .first()
            .and_then(|&b| JsonKind::of_first_byte(b))
            .unwrap_or(JsonKind::Null)
    }

    /// The string, when this value is one.
    pub fn as_str(&self) -> Option<JsonStr<'a>> {
        let b = self.bytes;
        if b.len() >= 2 && b[0] == b'"' {
            let body = &b[1..b.len() - 1];
            Some(JsonStr::from_raw(
                body,
                memchr::memchr(b'\\', body).is_some(),
            ))
        } else {
            None
        }
    }

    /// The number, when this value is an integer that fits `i64` (`-0` is `0`, where
    /// `serde_json` reads the float `-0.0`).
    pub fn as_i64(&self) -> Option<i64> {
        parse_i64(self.bytes)
    }

    /// The number, when this value is a number that `f64` can hold, correctly rounded; one
    /// beyond its range, `1e400`, is `None`, as `serde_json` refuses it. (A decimal that rounds
    /// to `f64::MAX`, `1.7976931348623158e308`, is `f64::MAX`, where `serde_json`, rounding
    /// some decimals a unit off, refuses it.) A member of a lazily validated object is only
    /// delimited, so the number's spelling is checked here too.
    ///
    /// ```
    /// use rpcwire::RawJson;
    /// assert_eq!(RawJson::new(b"1.7976931348623158e308").unwrap().as_f64(), Some(f64::MAX));
    /// assert_eq!(RawJson::new(b"1e400").unwrap().as_f64(), None);
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        let b = self.bytes;
        if scan::scalar::number_end(b, 0) != Ok(b.len()) {
            return None;
        }
        let n: f64 = core::str::from_utf8(b).ok()?.parse().ok()?;
        n.is_finite().then_some(n)
    }

    /// The member `key` of this object (keys compared after unescaping). `None` when this is
    /// not an object, when the key is absent, and when the key occurs more than once: a
    /// duplicated member is ambiguous (parsers disagree on which one wins), and rpcwire's rule
    /// for ambiguity is the envelope's: refuse it. The same holds for an object whose members
    /// cannot all be read (lazy validation lets `{"a":1 "b":2}` through): `None` for every key.
    pub fn get(&self, key: &str) -> Option<RawJson<'a>> {
        match self.lookup(key) {
            Lookup::Found(v) => Some(v),
            Lookup::Absent | Lookup::Ambiguous | Lookup::Malformed => None,
        }
    }

    /// Follows a path of object keys (`["_meta", "progressToken"]`), each as [`Self::get`]
    /// takes it.
    pub fn get_path(&self, path: &[&str]) -> Option<RawJson<'a>> {
        path.iter().try_fold(*self, |v, k| v.get(k))
    }

    /// The value a JSON Pointer (RFC 6901) refers to: `""` is this value, and each
    /// `/`-prefixed token goes one level down, to an object's member (the token with `~1`
    /// read as `/` and `~0` as `~`, looked up as [`Self::get`] does: a duplicated member is
    /// `None`) or an array's element (a token `0` or a decimal index without leading zeros).
    /// `None` when there is no such value, and for a string that is no JSON Pointer (not
    /// empty and not starting with `/`, or with a `~` not followed by `0` or `1`).
    ///
    /// ```
    /// use rpcwire::RawJson;
    /// let v = RawJson::new(br#"{"content":[{"type":"text","text":"hi"}],"a/b":{"~":1}}"#).unwrap();
    /// assert_eq!(v.pointer("/content/0/text").unwrap().as_bytes(), br#""hi""#);
    /// assert_eq!(v.pointer("/a~1b/~0").unwrap().as_bytes(), b"1");
    /// assert_eq!(v.pointer("").unwrap(), v);
    /// assert_eq!(v.pointer("/content/01"), None); // not an index
    /// assert_eq!(v.pointer("/content/-"), None); // past the last element
    /// assert_eq!(v.pointer("content"), None); // not a JSON Pointer
    /// ```
    pub fn pointer(&self, pointer: &str) -> Option<RawJson<'a>> {
        if pointer.is_empty() {
            return Some(*self);
        }
        pointer
            .strip_prefix('/')?
            .split('/')
            .try_fold(*self, |v, token| v.pointer_step(token))
    }

    /// One step of [`Self::pointer`]: the member or element `token` names.
    fn pointer_step(&self, token: &str) -> Option<RawJson<'a>> {
        match self.kind() {
            JsonKind::Object if token.contains('~') => self.get(&unescape_pointer_token(token)?),
            JsonKind::Object => self.get(token),
            JsonKind::Array => {
                let canonical = token == "0"
                    || (!token.starts_with('0') && token.bytes().all(|b| b.is_ascii_digit()));
                if !canonical {
                    return None;
                }
                // (An index too large for `usize` is past the end of any array.)
                self.elements().nth(token.parse().ok()?)
            }
            _ => None,
        }
    }

    /// [`Self::get`], telling an absent member from a duplicated one and from one in an
    /// object too malformed to read whole.
    ///
    /// ```
    /// use rpcwire::{Lookup, RawJson};
    /// let meta = RawJson::new(br#"{"v":"2025-11-25","v":"2026-07-28"}"#).unwrap();
    /// assert_eq!(meta.get("v"), None);
    /// assert_eq!(meta.lookup("v"), Lookup::Ambiguous);
    /// assert_eq!(meta.lookup("w"), Lookup::Absent);
    ///
    /// // Delimited but not JSON: a missing colon stops the reading of the members.
    /// let params = RawJson::new(br#"{"name":"echo","arguments" {}}"#).unwrap();
    /// assert_eq!(params.lookup("name"), Lookup::Malformed);
    /// assert_eq!(params.lookup("w"), Lookup::Malformed);
    /// ```
    pub fn lookup(&self, key: &str) -> Lookup<'a> {
        let [found] = self.lookup_each([key]);
        found
    }

    /// [`Self::lookup`] of several keys in one pass over the members.
    ///
    /// ```
    /// use rpcwire::{Lookup, RawJson};
    /// let params = RawJson::new(br#"{"progressToken":7,"progress":50,"progress":60}"#).unwrap();
    /// let [token, progress, total] = params.lookup_each(["progressToken", "progress", "total"]);
    /// assert_eq!(token, Lookup::Found(RawJson::new(b"7").unwrap()));
    /// assert_eq!(progress, Lookup::Ambiguous);
    /// assert_eq!(total, Lookup::Absent);
    /// ```
    pub fn lookup_each<const N: usize>(&self, keys: [&str; N]) -> [Lookup<'a>; N] {
        let mut found = [Lookup::Absent; N];
        let mut members = self.members();
        for (k, v) in members.by_ref() {
            for (key, found) in keys.iter().zip(&mut found) {
                if k.eq_str(key) {
                    *found = match found {
                        Lookup::Absent => Lookup::Found(v),
                        _ => Lookup::Ambiguous,
                    };
                }
            }
        }
        // Past a malformed spot a key may occur again, unseen.
        if members.stopped_early() {
            return [Lookup::Malformed; N];
        }
        found
    }

    /// [`Self::get_path`], telling an absent member from a duplicated one and from one in a
    /// malformed object on the way, as [`Self::lookup`] does; the first miss on the path
    /// decides.
    pub fn lookup_path(&self, path: &[&str]) -> Lookup<'a> {
        path.iter().fold(Lookup::Found(*self), |at, key| match at {
            Lookup::Found(v) => v.lookup(key),
            other => other,
        })
    }

    /// The members of this object, in order (empty when this is not an object). A member is
    /// yielded only when a comma or the closing brace follows it: iteration stops early on
    /// malformed content that lazy validation let through (`{"n":01}` has no members to read).
    pub fn members(&self) -> Members<'a> {
        Members {
            at: Cursor::new(self, JsonKind::Object),
        }
    }

    /// The elements of this array, in order (empty when this is not an array). As with
    /// [`Self::members`], an element is yielded only when a comma or `]` follows it.
    pub fn elements(&self) -> Elements<'a> {
        Elements {
            at: Cursor::new(self, JsonKind::Array),
        }
    }
}

impl core::fmt::Debug for RawJson<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_text())
    }
}

/// The value's exact text, as [`RawJson::as_text`] gives it.
///
/// ```
/// use rpcwire::RawJson;
/// let v = RawJson::new(br#" {"tools": []} "#).unwrap();
/// assert_eq!(v.to_string(), r#"{"tools": []}"#);
/// ```
impl core::fmt::Display for RawJson<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_text())
    }
}

/// A JSON Pointer's reference token unescaped (RFC 6901 §4: `~1` is `/`, `~0` is `~`);
/// `None` for a `~` followed by anything else.
fn unescape_pointer_token(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '~' => match chars.next()? {
                '0' => '~',
                '1' => '/',
                _ => return None,
            },
            c => c,
        });
    }
    Some(out)
}

/// Skips the value at `i` inside an already delimited value; returns the index after it.
fn skip_inner(bytes: &[u8], i: usize) -> Option<usize> {
    scan::skip_value(bytes, i, 0, u32::MAX, Validation::Lazy).ok()
}

/// Iterator over an object's members: `(key, value)`.
#[derive(Debug, Clone)]
#[must_use = "iterators are lazy: nothing is read until the members are"]
pub struct Members<'a> {
    at: Cursor<'a>,
}

/// Where an iteration over a container's items is.
#[derive(Debug, Clone)]
struct Cursor<'a> {
    /// The container, brackets included.
    bytes: &'a [u8],
    /// After the opening bracket (1) or after the last item yielded; `None` once the
    /// iteration has ended (so that the end of `bytes` before a closing bracket is a
    /// container cut short, not an iteration already over).
    pos: Option<usize>,
    /// The iteration stopped before the closing bracket.
    malformed: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor before the first item; ended (cleanly) when `kind` is not the container's.
    fn new(value: &RawJson<'a>, kind: JsonKind) -> Self {
        Cursor {
            bytes: value.bytes,
            pos: (value.kind() == kind).then_some(1),
            malformed: false,
        }
    }

    /// What comes next, from where the iteration is ([`next_item`]); `End` again once it
    /// has ended.
    fn next_item(&self, close: u8) -> Next {
        match self.pos {
            Some(pos) => next_item(self.bytes, pos, close),
            None => Next::End,
        }
    }

    /// The end of the iteration: at the closing bracket (`malformed` false) or not.
    fn finish<T>(&mut self, malformed: bool) -> Option<T> {
        self.pos = None;
        self.malformed |= malformed;
        None
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (JsonStr<'a>, RawJson<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.at.bytes;
        let i = match self.at.next_item(b'}') {
            Next::Item(i) => i,
            Next::End => return self.at.finish(false),
            Next::Malformed => return self.at.finish(true),
        };
        let member = (b.get(i) == Some(&b'"'))
            .then(|| scan::string_end(b, i + 1).ok())
            .flatten()
            .and_then(|(close, esc)| {
                let colon = skip_ws(b, close + 1);
                if b.get(colon) != Some(&b':') {
                    return None;
                }
                let start = skip_ws(b, colon + 1);
                Some((close, esc, start, item_end(b, start, b'}')?))
            });
        let Some((close, esc, start, end)) = member else {
            return self.at.finish(true);
        };
        self.at.pos = Some(end);
        Some((
            JsonStr::from_raw(&b[i + 1..close], esc),
            RawJson::trusted(&b[start..end]),
        ))
    }
}

impl Members<'_> {
    /// Whether the iteration stopped at a malformed spot (lazy validation checks no token
    /// order) rather than at the closing brace: the members seen may not be all of them.
    /// Meaningful once `next` has returned `None`; `false` before that.
    ///
    /// ```
    /// use rpcwire::RawJson;
    /// let object = RawJson::new(br#"{"a":1 "b":2}"#).unwrap(); // lazily valid
    /// let mut members = object.members();
    /// assert!(members.next().is_none());
    /// assert!(members.stopped_early());
    /// ```
    pub fn stopped_early(&self) -> bool {
        self.at.malformed
    }
}

/// What comes next in a container: see [`next_item`].
enum Next {
    /// An item starts here.
    Item(usize),
    /// The closing bracket.
    End,
    /// Anything else: a comma before the first item, or after the last; the end of the
    /// bytes before the closing bracket.
    Malformed,
}

/// What comes next in the container `b` (closed by `close`), from `pos`: 1 (just after the
/// opening bracket), or the end of the previous item, which [`item_end`] saw followed by a
/// comma or the closing bracket.
fn next_item(b: &[u8], pos: usize, close: u8) -> Next {
    let i = skip_ws(b, pos);
    let after_an_item = pos > 1;
    match b.get(i) {
        Some(b',') if after_an_item => Next::Item(skip_ws(b, i + 1)),
        Some(&c) if c == close => Next::End,
        Some(&c) if c != b',' && !after_an_item => Next::Item(i),
        // (`None` too: the container was cut short, and what it held past the cut is unknown.)
        _ => Next::Malformed,
    }
}

/// The end of the value at `start`, when a comma or `close` follows it. Lazy validation
/// leaves token order unchecked: a value followed by anything else (`01`, `1 2`, `1:2`) is not
/// one to hand out as read.
fn item_end(b: &[u8], start: usize, close: u8) -> Option<usize> {
    let end = skip_inner(b, start)?;
    matches!(b.get(skip_ws(b, end)), Some(&c) if c == b',' || c == close).then_some(end)
}

/// Iterator over an array's elements.
#[derive(Debug, Clone)]
#[must_use = "iterators are lazy: nothing is read until the elements are"]
pub struct Elements<'a> {
    at: Cursor<'a>,
}

impl<'a> Iterator for Elements<'a> {
    type Item = RawJson<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.at.bytes;
        let start = match self.at.next_item(b']') {
            Next::Item(i) => i,
            Next::End => return self.at.finish(false),
            Next::Malformed => return self.at.finish(true),
        };
        let Some(end) = item_end(b, start, b']') else {
            return self.at.finish(true);
        };
        self.at.pos = Some(end);
        Some(RawJson::trusted(&b[start..end]))
    }
}

/// Once it has returned `None`, an iteration stays ended (and [`stopped_early`](Members::stopped_early) as it was).
impl core::iter::FusedIterator for Members<'_> {}

/// Once it has returned `None`, an iteration stays ended (and [`stopped_early`](Elements::stopped_early) as it was).
impl core::iter::FusedIterator for Elements<'_> {}

impl Elements<'_> {
    /// Whether the iteration stopped at a malformed spot rather than at the closing bracket
    /// (see [`Members::stopped_early`]).
    pub fn stopped_early(&self) -> bool {
        self.at.malformed
    }
}

/// Parses a canonical JSON integer token (`-?(0|[1-9][0-9]*)`) that fits `i64`.
pub(crate) fn parse_i64(t: &[u8]) -> Option<i64> {
    if !is_integer_token(t) {
        return None;
    }
    core::str::from_utf8(t).ok()?.parse().ok()
}

/// Whether `t` is a canonical JSON integer token `-?(0|[1-9][0-9]*)`, of any size.
/// A JSON number token's parts, as its grammar spells them (`-?int(.frac)?([eE][+-]?exp)?`):
/// the value is `int` and `frac`'s digits, with the point after `int`, times ten to the
/// exponent. For a token the grammar accepts (the caller checks it first); any other is split
/// all the same, into parts that mean nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumberParts<'a> {
    /// A minus sign first.
    pub(crate) negative: bool,
    /// The digits before the point.
    pub(crate) int: &'a [u8],
    /// The digits after the point (empty without one).
    pub(crate) frac: &'a [u8],
    /// A minus sign on the exponent.
    pub(crate) exponent_negative: bool,
    /// The exponent's digits, leading zeros and all (empty without an exponent).
    pub(crate) exponent: &'a [u8],
}

impl<'a> NumberParts<'a> {
    /// Splits `token` into its parts.
    pub(crate) fn of(token: &'a [u8]) -> Self {
        let (negative, rest) = match token.strip_prefix(b"-") {
            Some(rest) => (true, rest),
            None => (false, token),
        };
        let (mantissa, exponent) = match rest.iter().position(|&b| b == b'e' || b == b'E') {
            Some(at) => (&rest[..at], &rest[at + 1..]),
            None => (rest, &b""[..]),
        };
        let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
            Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
            None => (mantissa, &b""[..]),
        };
        let (exponent_negative, exponent) = match exponent.first() {
            Some(b'-') => (true, &exponent[1..]),
            Some(b'+') => (false, &exponent[1..]),
            _ => (false, exponent),
        };
        NumberParts {
            negative,
            int,
            frac,
            exponent_negative,
            exponent,
        }
    }
}

pub(crate) fn is_integer_token(t: &[u8]) -> bool {
    let digits = t.strip_prefix(b"-").unwrap_or(t);
    match digits {
        [] => false,
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A container cut short ends its iteration as malformed, never as if it were whole. The
    /// public constructors delimit every value, so only a span handed over as `trusted` can be
    /// cut short; the iterators must not depend on every caller getting that right.
    #[test]
    fn an_iteration_over_a_container_cut_short_stops_early() {
        for cut in [&b"["[..], b"[ ", b"[\n\t", b"[1", b"[1,2", b"[1, "] {
            let mut elements = RawJson::trusted(cut).elements();
            elements.by_ref().for_each(drop);
            let cut = String::from_utf8_lossy(cut);
            assert!(elements.stopped_early(), "{cut}");
            assert!(elements.next().is_none());
            assert!(elements.stopped_early(), "{cut}");
        }
        for cut in [&b"{"[..], b"{ ", b"{\"a\"", b"{\"a\":1", b"{\"a\":1 ,"] {
            let object = RawJson::trusted(cut);
            let mut members = object.members();
            members.by_ref().for_each(drop);
            let cut = String::from_utf8_lossy(cut);
            assert!(members.stopped_early(), "{cut}");
            assert!(members.next().is_none());
            assert!(members.stopped_early(), "{cut}");
            assert_eq!(object.lookup("a"), Lookup::Malformed, "{cut}");
        }
    }

    /// A `\u` escape is four hex digits and nothing else: a sign (which `from_str_radix`
    /// takes) or a byte that is no digit decodes as a broken escape, never as a character.
    #[test]
    fn a_unicode_escape_is_four_hex_digits_exactly() {
        assert_eq!(
            JsonStr::from_raw(br"\u0041\u00e9", true).decode(),
            "A\u{e9}"
        );
        assert_eq!(
            JsonStr::from_raw(br"\uD83D\ude00", true).decode(),
            "\u{1f600}"
        );
        for broken in [&br"\u+041"[..], br"\u-041", br"\u 041", br"\u004G"] {
            let decoded = JsonStr::from_raw(broken, true).decode();
            assert_eq!(decoded, "\u{fffd}", "{}", String::from_utf8_lossy(broken));
        }
    }
}
