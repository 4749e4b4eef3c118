//! Requests the *peer* has in flight: ids we did not choose, keyed by their canonical form,
//! for duplicate detection, reply bookkeeping and cancellation. The matching rules are in
//! [`InFlight`]'s docs (this module's text is not rendered).

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hasher};
use core::marker::PhantomData;

use hashbrown::HashTable;
use hashbrown::hash_table;
use smallvec::SmallVec;

use crate::error::ErrorCode;
use crate::id::{Id, IdBuf, IdKind};
use crate::inline_bytes::InlineBytes;
use crate::json::NumberParts;

/// The canonical form of an id: a type tag and the normalized value. Inline (no allocation)
/// for typical ids: numbers, strings of up to 29 bytes, and UUID strings
/// (`"0f8fad5b-d9cb-469f-a165-70867728950e"`, whose 36 characters pack into 16 bytes).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdKey(InlineBytes<KEY_INLINE>);

/// Where a key is built, before it becomes an [`IdKey`]: a zeroed stack buffer of the inline
/// size, so that a key that fits (almost every one) moves into the `IdKey` as one fixed-size
/// copy, and the heap past it (a string id of more than 29 bytes, not a UUID; a number
/// spelt with many digits).
pub(crate) struct KeyBuf {
    inline: [u8; KEY_INLINE],
    len: usize,
    /// Empty, or the whole key once it is longer than `inline`.
    spilled: Vec<u8>,
}

/// The bytes an [`IdKey`] holds inline.
const KEY_INLINE: usize = 30;

impl KeyBuf {
    fn new() -> Self {
        KeyBuf {
            inline: [0; KEY_INLINE],
            len: 0,
            spilled: Vec::new(),
        }
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        self.extend_from_slice(&[byte]);
    }

    #[inline]
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        if self.spilled.is_empty() {
            if let Some(room) = self.inline.get_mut(self.len..self.len + bytes.len()) {
                room.copy_from_slice(bytes);
                self.len += bytes.len();
                return;
            }
            self.spilled.extend_from_slice(&self.inline[..self.len]);
        }
        self.spilled.extend_from_slice(bytes);
    }

    fn as_slice(&self) -> &[u8] {
        if self.spilled.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spilled
        }
    }

    fn finish(self) -> IdKey {
        IdKey(if self.spilled.is_empty() {
            // The bytes past `len` are still zeros, as `InlineBytes` keeps them.
            InlineBytes::Inline {
                len: self.len as u8,
                bytes: self.inline,
            }
        } else {
            // Longer than `KEY_INLINE`, as `InlineBytes` keeps only such keys on the heap.
            InlineBytes::Heap(self.spilled.into_boxed_slice())
        })
    }
}

impl IdKey {
    /// The length of the key's canonical form, in bytes (about the id's token length): for
    /// a caller bounding the memory of the keys it keeps.
    pub fn encoded_len(&self) -> usize {
        self.0.as_slice().len()
    }

    /// The key of `id` under the strict rules.
    pub fn of(id: Id<'_>) -> IdKey {
        Self::with(id, false)
    }

    /// The key of `id`; with `lenient`, a string holding a JSON number keys as that number.
    pub fn with(id: Id<'_>, lenient: bool) -> IdKey {
        let mut key = KeyBuf::new();
        match id.as_str() {
            None if id.is_null() => key.push(b'z'),
            None => push_number(&mut key, id.raw()),
            Some(s) => {
                let mut unescaped = SmallVec::<[u8; 64]>::new();
                // Without escapes, the body is its own decoded form.
                let decoded = if s.has_escapes() {
                    s.extend_wtf8(&mut unescaped);
                    &unescaped[..]
                } else {
                    s.raw()
                };
                if lenient && is_number(decoded) {
                    push_number(&mut key, decoded);
                } else if let Some((tag, packed)) = pack_uuid(decoded) {
                    key.push(tag);
                    key.extend_from_slice(&packed);
                } else {
                    key.push(b's');
                    key.extend_from_slice(decoded);
                }
            }
        }
        key.finish()
    }
}

/// Whether `bytes` are one JSON number, whole.
fn is_number(bytes: &[u8]) -> bool {
    crate::scan::scalar::number_end(bytes, 0).ok() == Some(bytes.len())
}

/// The most digits of an integer [`Canonical`] writes out in full.
const PLAIN_DIGITS: usize = 40;

/// An id's canonical form, as [`InFlight`] hashes and compares it (it keeps none): a type
/// tag and the normalized value, two ids having the same form exactly when they match. Unlike
/// an [`IdKey`], which is kept and so packs UUIDs, the form is most often the token itself,
/// borrowed: a string's body without escapes (tag `s`), a canonical integer of up to
/// [`PLAIN_DIGITS`] digits (tag `n`). Other ids build theirs on the stack (past
/// [`KEY_INLINE`] bytes, on the heap): an escaped string's decoded body; a number spelt
/// otherwise, as the integer's canonical token when it is one of up to [`PLAIN_DIGITS`]
/// digits (`1.0` as `1`), else as its [`IdKey`] under tag `N`.
pub(crate) enum Canonical<'a> {
    /// The tag and the body, borrowed from the token.
    Borrowed(u8, &'a [u8]),
    /// The tag, then the body.
    Built(KeyBuf),
}

impl<'a> Canonical<'a> {
    /// The form of `id`; with `lenient`, a string holding a JSON number has that number's.
    pub(crate) fn of(id: Id<'a>, lenient: bool) -> Self {
        match id.kind() {
            IdKind::Null => Canonical::Borrowed(b'z', b""),
            IdKind::Integer => Self::number(id.raw(), true),
            IdKind::Number => Self::number(id.raw(), false),
            IdKind::String { has_escapes: false } => {
                let body = id.as_str().expect("a string id").raw();
                if lenient && is_number(body) {
                    Self::number(body, crate::json::is_integer_token(body))
                } else {
                    Canonical::Borrowed(b's', body)
                }
            }
            IdKind::String { has_escapes: true } => {
                let mut decoded = SmallVec::<[u8; 64]>::new();
                id.as_str().expect("a string id").extend_wtf8(&mut decoded);
                let mut key = KeyBuf::new();
                if lenient && is_number(&decoded) {
                    let number = Canonical::number(&decoded, false);
                    let (tag, body) = number.parts();
                    key.push(tag);
                    key.extend_from_slice(body);
                } else {
                    key.push(b's');
                    key.extend_from_slice(&decoded);
                }
                Canonical::Built(key)
            }
        }
    }

    /// The form of a number token; `integer` if the token is known to be a canonical
    /// integer (`-?(0|[1-9][0-9]*)`), else it is taken the long way.
    fn number(token: &'a [u8], integer: bool) -> Self {
        let digits = token.strip_prefix(b"-").unwrap_or(token);
        if integer && digits.len() <= PLAIN_DIGITS && token != b"-0" {
            return Canonical::Borrowed(b'n', token);
        }
        // Normalized (`n`, the sign, the significant digits, `e`, the exponent: the value
        // is 0.digits × 10^exponent), then written out if it is an integer short enough.
        let mut normalized = KeyBuf::new();
        push_number(&mut normalized, token);
        let body = &normalized.as_slice()[1..];
        if body == b"0" {
            return Canonical::Borrowed(b'n', b"0");
        }
        let (sign, rest) = body.split_first().expect("a sign");
        let at = rest.iter().position(|&b| b == b'e').expect("an exponent");
        let (significant, exponent) = (&rest[..at], &rest[at + 1..]);
        let exponent = match exponent {
            [d] => usize::from(d - b'0'),
            [d, e] if *d != b'-' => usize::from(d - b'0') * 10 + usize::from(e - b'0'),
            _ => usize::MAX,
        };
        let mut form = KeyBuf::new();
        if (significant.len()..=PLAIN_DIGITS).contains(&exponent) {
            form.push(b'n');
            if *sign == b'-' {
                form.push(b'-');
            }
            form.extend_from_slice(significant);
            for _ in significant.len()..exponent {
                form.push(b'0');
            }
        } else {
            form.push(b'N');
            form.extend_from_slice(body);
        }
        Canonical::Built(form)
    }

    /// The type tag and the value's bytes.
    fn parts(&self) -> (u8, &[u8]) {
        match self {
            Canonical::Borrowed(tag, body) => (*tag, body),
            Canonical::Built(key) => {
                let (tag, body) = key.as_slice().split_first().expect("a tag");
                (*tag, body)
            }
        }
    }

    /// Feeds the form to `state`: its tag and its bytes, the same way however it is held.
    pub(crate) fn write_to(&self, state: &mut impl Hasher) {
        let (tag, body) = self.parts();
        state.write_u8(tag);
        state.write(body);
    }

    /// The form's hash.
    fn hash(&self, hasher: &impl BuildHasher) -> u64 {
        let mut state = hasher.build_hasher();
        self.write_to(&mut state);
        state.finish()
    }

    /// Whether `other`, the id of an entry, has this form (this being `id`'s).
    pub(crate) fn matches(&self, id: Id<'_>, other: Id<'_>, lenient: bool) -> bool {
        // The same spelling is the same id; only differing spellings need `other`'s form.
        id.raw() == other.raw() || Canonical::of(other, lenient).parts() == self.parts()
    }
}

/// A string in UUID form (RFC 9562 §4: 8-4-4-4-12 hex digits), all its letters lowercase
/// (tag `u`) or all uppercase (tag `U`), as its 16 bytes: the key of a UUID string id then
/// fits inline. Each tag's strings and byte arrays correspond one to one, so two string ids
/// have equal keys exactly when they are equal (one in mixed case keys as any string, `s`).
fn pack_uuid(s: &[u8]) -> Option<(u8, [u8; 16])> {
    let s: &[u8; 36] = s.try_into().ok()?;
    if [s[8], s[13], s[18], s[23]] != [b'-'; 4] {
        return None;
    }
    // Each group of hex digits, as (its first byte, its bytes of value).
    const GROUPS: [(usize, usize); 5] = [(0, 4), (9, 2), (14, 2), (19, 2), (24, 6)];
    let mut packed = [0u8; 16];
    // The classes of the digits seen ([`HEX`]'s flags), or'ed: one table load a digit and no
    // branch.
    let mut seen = 0u8;
    let mut out = 0;
    for (start, len) in GROUPS {
        for pair in s[start..start + 2 * len].chunks_exact(2) {
            let (high, low) = (HEX[usize::from(pair[0])], HEX[usize::from(pair[1])]);
            seen |= high | low;
            packed[out] = (high << 4) | (low & 0x0f);
            out += 1;
        }
    }
    match seen & !0x0f {
        // Digits only keys as lowercase.
        0 | HEX_LOWER => Some((b'u', packed)),
        HEX_UPPER => Some((b'U', packed)),
        // Not a hex digit, or letters of both cases.
        _ => None,
    }
}

/// [`HEX`]'s flag of a lowercase letter `a`-`f`.
const HEX_LOWER: u8 = 0x10;
/// [`HEX`]'s flag of an uppercase letter `A`-`F`.
const HEX_UPPER: u8 = 0x20;
/// [`HEX`]'s flag of a byte that is no hex digit.
const NOT_HEX: u8 = 0x40;

/// Each byte's value as a hex digit in its low nibble, with the flag of its class.
static HEX: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = HEX_LOWER | (10 + i as u8);
        table[b'A' as usize + i] = HEX_UPPER | (10 + i as u8);
        i += 1;
    }
    table
};

/// Appends `n` + the number normalized as sign, significant digits and exponent, so that
/// numerically equal spellings give equal keys.
fn push_number(key: &mut KeyBuf, token: &[u8]) {
    key.push(b'n');
    let (negative, rest) = match token.strip_prefix(b"-") {
        Some(r) => (true, r),
        None => (false, token),
    };
    // Plain integers (almost every numeric id) directly: the same key as the general path
    // below, without splitting the token.
    if let Some((&first, _)) = rest.split_first()
        && rest.iter().all(u8::is_ascii_digit)
        && (first != b'0' || rest.len() == 1)
    {
        if first == b'0' {
            key.push(b'0');
            return;
        }
        let end = rest.iter().rposition(|&d| d != b'0').map_or(0, |i| i + 1);
        key.push(if negative { b'-' } else { b'+' });
        key.extend_from_slice(&rest[..end]);
        key.push(b'e');
        key.extend_from_slice(itoa::Buffer::new().format(rest.len()).as_bytes());
        return;
    }
    let NumberParts {
        int,
        frac,
        exponent_negative: exp_negative,
        exponent: exp_digits,
        ..
    } = NumberParts::of(token);
    let digits = int.iter().chain(frac).copied();
    let leading_zeros = digits.clone().take_while(|&d| d == b'0').count();
    let significant: SmallVec<[u8; 24]> = digits.skip(leading_zeros).collect();
    let end = significant
        .iter()
        .rposition(|&d| d != b'0')
        .map_or(0, |i| i + 1);
    if end == 0 {
        key.push(b'0');
        return;
    }
    key.push(if negative { b'-' } else { b'+' });
    key.extend_from_slice(&significant[..end]);
    key.push(b'e');
    // Position of the decimal point relative to the first significant digit.
    let shift = int.len() as i64 - leading_zeros as i64;
    push_sum(key, shift, exp_negative, exp_digits);
}

/// Appends `shift ± exponent` in decimal, exactly: `exponent` is the digits of a JSON
/// exponent, of any length (a frame may spell `1e99999999999999999999`, and such ids must not
/// collide). `shift` is below 2^33 in magnitude (a frame's length).
fn push_sum(key: &mut KeyBuf, shift: i64, negative: bool, exponent: &[u8]) {
    let exponent = match exponent.iter().position(|&d| d != b'0') {
        Some(first) => &exponent[first..],
        None => &exponent[..0],
    };
    let value = |digits: &[u8]| {
        digits
            .iter()
            .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'))
    };
    // Up to 18 digits the exponent and the sum fit an i64.
    if exponent.len() <= 18 {
        let exponent = value(exponent);
        let sum = shift + if negative { -exponent } else { exponent };
        key.extend_from_slice(itoa::Buffer::new().format(sum).as_bytes());
        return;
    }
    // Longer, it outweighs `shift`, so the sum has its sign and the magnitude
    // `exponent ∓ shift`: the low 18 digits take `shift`, and the carry or borrow (at most
    // one) goes into the high digits.
    const LOW: i64 = 1_000_000_000_000_000_000;
    let (high, low) = exponent.split_at(exponent.len() - 18);
    let low = value(low) + if negative { -shift } else { shift };
    let (carry, low) = (low.div_euclid(LOW), low.rem_euclid(LOW));
    let mut high: SmallVec<[u8; 24]> = SmallVec::from_slice(high);
    // `carry` is -1, 0 or 1: step the high digits by it, from the last.
    let (from, to) = if carry > 0 {
        (b'9', b'0')
    } else {
        (b'0', b'9')
    };
    if carry != 0 {
        for d in high.iter_mut().rev() {
            if *d != from {
                *d = if carry > 0 { *d + 1 } else { *d - 1 };
                break;
            }
            *d = to;
        }
        if carry > 0 && high[0] == b'0' {
            high.insert(0, b'1');
        }
    }
    if negative {
        key.push(b'-');
    }
    // A borrow may leave leading zeros (`1000…` - 1); the high part stays non-zero, since the
    // exponent was at least 10^18 and `shift` is far smaller.
    let first = high.iter().position(|&d| d != b'0').unwrap_or(high.len());
    key.extend_from_slice(&high[first..]);
    let mut padded = [b'0'; 18];
    let mut digits = itoa::Buffer::new();
    let low = digits.format(low).as_bytes();
    padded[18 - low.len()..].copy_from_slice(low);
    key.extend_from_slice(&padded);
}

/// Why a request could not be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InFlightError {
    /// The same id is already in flight. MCP forbids it ("The request ID MUST NOT have been
    /// previously used by the requestor within the same session") but prescribes no answer;
    /// [`code`](Self::code) is -32600, the second request being an invalid one, and the first
    /// is left untouched. The peer then gets two replies with that id, the -32600 and, later,
    /// the first request's own: the wire cannot tell them apart, which is the peer's doing.
    /// (A proxy may instead drop the second request unanswered, or, under plain JSON-RPC,
    /// which only advises unique ids, forward it.)
    Duplicate,
    /// The table holds its maximum number of requests.
    Full {
        /// That maximum: the table's [`capacity_limit`](InFlight::capacity_limit).
        limit: usize,
    },
    /// The request's id and the extra bytes it came with would take the bytes the table's
    /// entries hold over their budget ([`InFlight::max_bytes`]).
    OverBudget {
        /// The budget, in bytes: the table's [`byte_limit`](InFlight::byte_limit).
        budget: usize,
    },
}

impl InFlightError {
    /// The error code of the reply the peer gets for a request the table refused, as
    /// [`RemapError::code`](crate::RemapError::code) gives it: -32600 for a reused id, -32603
    /// when the table is full or over its budget.
    ///
    /// ```
    /// use rpcwire::{ErrorCode, InFlightError};
    /// assert_eq!(InFlightError::Duplicate.code(), ErrorCode::INVALID_REQUEST);
    /// assert_eq!(InFlightError::Full { limit: 16 }.code(), ErrorCode::INTERNAL_ERROR);
    /// ```
    pub const fn code(self) -> ErrorCode {
        match self {
            InFlightError::Duplicate => ErrorCode::INVALID_REQUEST,
            InFlightError::Full { .. } | InFlightError::OverBudget { .. } => {
                ErrorCode::INTERNAL_ERROR
            }
        }
    }

    /// Writes the error reply the peer gets for the request the table refused: its
    /// [`code`](Self::code), and this error's text as the message, under the request's id
    /// (an [`Id`], or any [`ReplyId`](crate::ReplyId)). The message does not name the
    /// limit (which [`Display`](core::fmt::Display) does): how large the table is, is the
    /// operator's to tell a peer or not.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Id, InFlightError};
    /// let mut out = BytesMut::new();
    /// InFlightError::Full { limit: 16 }.write_reply(&mut out, Id::from_token(br#""a""#).unwrap());
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"the table of requests in flight is full"}}
    /// "#[..]);
    /// ```
    pub fn write_reply<'i>(self, out: &mut bytes::BytesMut, id: impl Into<crate::ReplyId<'i>>) {
        crate::encode::write_error(out, id, self.code(), self.as_str(), None);
    }

    fn as_str(self) -> &'static str {
        match self {
            InFlightError::Duplicate => "a request with this id is already in flight",
            InFlightError::Full { .. } => "the table of requests in flight is full",
            InFlightError::OverBudget { .. } => {
                "the requests in flight would hold more bytes than their budget"
            }
        }
    }
}

/// The reply's message, and the limit for an error about one.
///
/// ```
/// use rpcwire::InFlightError;
/// assert_eq!(
///     InFlightError::Full { limit: 16 }.to_string(),
///     "the table of requests in flight is full: its limit is 16"
/// );
/// ```
impl core::fmt::Display for InFlightError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())?;
        match *self {
            InFlightError::Full { limit } => write!(f, ": its limit is {limit}"),
            InFlightError::OverBudget { budget } => write!(f, " of {budget} bytes"),
            InFlightError::Duplicate => Ok(()),
        }
    }
}

impl core::error::Error for InFlightError {}

/// The peer's requests in flight, with a value of ours for each (when it arrived, where to
/// route the reply, …).
///
/// Ids match as JSON values, by their canonical form ([`IdKey`]; the rules of the shared
/// conformance vectors):
/// - the type is part of the key: the string `"1"` never matches the number `1`;
/// - numbers match by value, whatever their spelling: `1` = `1.0` = `10e-1`, `0` = `-0`,
///   exactly, at any size (no rounding through `f64`);
/// - strings match after unescaping: `"\u0061"` = `"a"` (code unit by code unit, as RFC 8259
///   §8.3 says: a lone surrogate `"\ud800"` matches only itself, not `"\udc00"` or `"\ufffd"`);
/// - optionally ([`lenient`](Self::lenient), off by default), a string holding a JSON number
///   matches that number, for gateways that stringify ids.
///
/// ```
/// use rpcwire::{Id, InFlight, InFlightError};
/// let mut table = InFlight::new(1024);
/// table.insert(Id::from_token(b"1").unwrap(), "first").unwrap();
/// assert_eq!(table.insert(Id::from_token(b"1.0").unwrap(), "again"), Err(InFlightError::Duplicate));
/// assert!(table.insert(Id::from_token(br#""1""#).unwrap(), "a string").is_ok());
/// assert_eq!(table.remove(Id::from_token(b"1").unwrap()).map(|(_, v)| v), Some("first"));
///
/// table.insert(Id::from_token(b"10e-1").unwrap(), "spelt").unwrap();
/// assert_eq!(table.insert(Id::from_token(b"1").unwrap(), "again"), Err(InFlightError::Duplicate));
/// table.insert(Id::from_token(br#""\u0061""#).unwrap(), "escaped").unwrap();
/// assert_eq!(table.remove(Id::from_token(br#""a""#).unwrap()).map(|(_, v)| v), Some("escaped"));
/// ```
#[derive(Clone)]
pub struct InFlight<T, S = foldhash::quality::RandomState> {
    /// The entries, hashed by their ids' canonical forms ([`Canonical`]), which are not
    /// kept: an entry's form is rebuilt from its spelling only to compare it with a lookup
    /// spelt differently, and when the table grows or shrinks.
    table: HashTable<Entry<T>>,
    hasher: S,
    capacity: usize,
    lenient: bool,
    /// What the entries hold ([`Entry::bytes`]), and its budget.
    bytes: usize,
    max_bytes: usize,
}

/// A request in flight: its id as it was spelled, the caller's value, and what it counts
/// against [`InFlight::max_bytes`].
#[derive(Clone)]
struct Entry<T> {
    id: IdBuf,
    value: T,
    /// Its id's cost ([`id_cost`]) and the extra bytes it was registered with.
    bytes: usize,
}

/// What an entry's id counts against [`InFlight::max_bytes`]: its spelling, the one copy the
/// table keeps (inline up to 38 bytes, on the heap beyond).
fn id_cost(id: Id<'_>) -> usize {
    id.raw().len()
}

/// The default of [`InFlight::max_bytes`] (and `IdRemapper::max_bytes`): 64 MiB of ids
/// (an id may be as long as a frame, so the count of entries alone does not bound the
/// table's memory).
pub(crate) const DEFAULT_MAX_BYTES: usize = 64 << 20;

impl<T> InFlight<T> {
    /// A table of at most `capacity` requests, hashed with a randomly keyed fast hash
    /// (foldhash, seeded per table) so a peer cannot choose colliding ids in advance.
    pub fn new(capacity: usize) -> Self {
        Self::with_hasher(capacity, foldhash::quality::RandomState::default())
    }
}

impl<T, S: BuildHasher> InFlight<T, S> {
    /// A table with the given hasher.
    pub fn with_hasher(capacity: usize, hasher: S) -> Self {
        InFlight {
            table: HashTable::new(),
            hasher,
            capacity,
            lenient: false,
            bytes: 0,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    /// Bounds the bytes the entries hold together: each its id (as long as its spelling) and the extra bytes it was registered with by
    /// [`insert_with_extra`](Self::insert_with_extra) or
    /// [`reserve_with_extra`](Self::reserve_with_extra) (what the caller's value holds of
    /// the peer's bytes, such as a method name or a progress token, also as long as a frame
    /// may be). Beyond it a new request is refused as [`InFlightError::OverBudget`]. A peer
    /// may send ids as long as its frames, so a table of `capacity` entries could otherwise
    /// hold `capacity` times the frame limit. 64 MiB unless set.
    ///
    /// ```
    /// use rpcwire::{Id, InFlight, InFlightError};
    /// // Each id here counts the 2 bytes of its spelling.
    /// let mut table = InFlight::new(1024).max_bytes(20);
    /// let call = "tools/call";
    /// table.insert_with_extra(Id::from_token(b"10").unwrap(), call.len(), call).unwrap();
    /// assert_eq!(table.bytes(), 12);
    /// // 12 + 2 + 9 would pass 20: refused, however few the entries.
    /// let two = Id::from_token(b"20").unwrap();
    /// let read = "resources/read";
    /// assert_eq!(table.insert_with_extra(two, 9, read), Err(InFlightError::OverBudget { budget: 20 }));
    /// // A reply gives the bytes back.
    /// table.remove(Id::from_token(b"10").unwrap()).unwrap();
    /// assert_eq!(table.bytes(), 0);
    /// table.insert_with_extra(two, 9, read).unwrap();
    /// ```
    #[must_use]
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// The bytes the entries hold, as [`max_bytes`](Self::max_bytes) counts them.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The most bytes the entries may hold: [`max_bytes`](Self::max_bytes)' bound.
    ///
    /// ```
    /// use rpcwire::InFlight;
    /// let table: InFlight<()> = InFlight::new(16).max_bytes(4096);
    /// assert_eq!((table.capacity_limit(), table.byte_limit()), (16, 4096));
    /// ```
    pub fn byte_limit(&self) -> usize {
        self.max_bytes
    }

    /// The most requests the table holds at once (the `capacity` it was made with).
    pub fn capacity_limit(&self) -> usize {
        self.capacity
    }

    /// Match a string holding a number against that number (off by default). A builder
    /// setting, for a table not yet used.
    ///
    /// # Panics
    ///
    /// When the table holds requests: they are keyed by the old setting, and could no longer
    /// be found (or two of them would become one).
    #[must_use]
    pub fn lenient(mut self, yes: bool) -> Self {
        assert!(
            self.table.is_empty(),
            "InFlight::lenient on a table that holds requests"
        );
        self.lenient = yes;
        self
    }

    /// The entry of the request with this id.
    fn find(&self, id: Id<'_>) -> Option<&Entry<T>> {
        let key = Canonical::of(id, self.lenient);
        let lenient = self.lenient;
        self.table.find(key.hash(&self.hasher), |entry| {
            key.matches(id, entry.id.as_id(), lenient)
        })
    }

    /// The place of the request with this id, to change or remove it.
    fn find_entry(&mut self, id: Id<'_>) -> Option<hash_table::OccupiedEntry<'_, Entry<T>>> {
        let key = Canonical::of(id, self.lenient);
        let lenient = self.lenient;
        self.table
            .find_entry(key.hash(&self.hasher), |entry| {
                key.matches(id, entry.id.as_id(), lenient)
            })
            .ok()
    }

    /// An entry's hash, when the table moves it (growing or shrinking).
    fn rehash<'s>(hasher: &'s S, lenient: bool) -> impl Fn(&Entry<T>) -> u64 + 's {
        move |entry| Canonical::of(entry.id.as_id(), lenient).hash(hasher)
    }

    /// Registers a request; a duplicate leaves the existing entry untouched.
    ///
    /// # Errors
    ///
    /// Nothing is registered (the table is left as it was, its room,
    /// [`capacity`](Self::capacity), included), and the first that applies is returned:
    /// - [`InFlightError::Duplicate`] when a request of the same id is in flight (ids
    ///   compared as JSON values; under [`lenient`](Self::lenient), a string holding a
    ///   number as that number), however full the table;
    /// - [`InFlightError::Full`] when the table holds [`capacity_limit`](Self::capacity_limit)
    ///   requests;
    /// - [`InFlightError::OverBudget`] when the id's bytes would take the entries' bytes past
    ///   [`byte_limit`](Self::byte_limit).
    ///
    /// ```
    /// use rpcwire::{Id, InFlight, InFlightError};
    /// let id = |token: &'static [u8]| Id::from_token(token).unwrap();
    /// let mut table = InFlight::new(1).max_bytes(2);
    /// assert_eq!(table.insert(id(b"100"), ()), Err(InFlightError::OverBudget { budget: 2 }));
    /// table.insert(id(b"1"), ()).unwrap();
    /// assert_eq!(table.insert(id(b"1.0"), ()), Err(InFlightError::Duplicate));
    /// assert_eq!(table.insert(id(b"100"), ()), Err(InFlightError::Full { limit: 1 }));
    /// ```
    pub fn insert(&mut self, id: Id<'_>, value: T) -> Result<(), InFlightError> {
        self.insert_with_extra(id, 0, value)
    }

    /// Registers a request that holds `extra_bytes` beside its id, counted against
    /// [`max_bytes`](Self::max_bytes) with it until the request leaves the table (see there
    /// for an example); otherwise as [`insert`](Self::insert).
    ///
    /// # Errors
    ///
    /// As for [`insert`](Self::insert), [`InFlightError::OverBudget`] counting the
    /// `extra_bytes` with the id's.
    pub fn insert_with_extra(
        &mut self,
        id: Id<'_>,
        extra_bytes: usize,
        value: T,
    ) -> Result<(), InFlightError> {
        self.reserve_with_extra(id, extra_bytes)?.insert(value);
        Ok(())
    }

    /// Claims `id` before its value exists, as [`insert`](Self::insert) would check it: for a
    /// value made only once the request is known to be new (the handle of a task spawned to
    /// serve it). Dropping the reservation leaves the table's requests and bytes as they
    /// were; its room ([`capacity`](Self::capacity)) may have grown to take the id.
    ///
    /// # Errors
    ///
    /// Those of [`insert`](Self::insert), for the same tables and ids.
    ///
    /// ```
    /// use rpcwire::{Id, InFlight, InFlightError};
    /// let mut table = InFlight::new(16);
    /// let id = Id::from_token(b"7").unwrap();
    /// let reserved = table.reserve(id).unwrap();
    /// let handle = "task serving 7"; // spawned now that 7 is known to be new
    /// reserved.insert(handle);
    /// assert_eq!(table.reserve(id).unwrap_err(), InFlightError::Duplicate);
    /// ```
    pub fn reserve(&mut self, id: Id<'_>) -> Result<ReservedId<'_, T, S>, InFlightError> {
        self.reserve_with_extra(id, 0)
    }

    /// [`reserve`](Self::reserve) for a request that holds `extra_bytes` beside its id, as
    /// [`insert_with_extra`](Self::insert_with_extra) counts them.
    ///
    /// # Errors
    ///
    /// Those of [`insert_with_extra`](Self::insert_with_extra), for the same tables, ids and
    /// `extra_bytes`.
    pub fn reserve_with_extra(
        &mut self,
        id: Id<'_>,
        extra_bytes: usize,
    ) -> Result<ReservedId<'_, T, S>, InFlightError> {
        // Checked sums: a count past `usize::MAX` is over any budget (a saturated one would
        // let the entry in, and the count wrap at its insertion).
        let held = id_cost(id).checked_add(extra_bytes);
        let total = held.and_then(|cost| self.bytes.checked_add(cost));
        let full = self.table.len() >= self.capacity;
        let over_budget = total.is_none_or(|total| total > self.max_bytes);
        let cost = held.unwrap_or(usize::MAX);
        let key = Canonical::of(id, self.lenient);
        let lenient = self.lenient;
        let hash = key.hash(&self.hasher);
        let matches = |entry: &Entry<T>| key.matches(id, entry.id.as_id(), lenient);
        // `entry` makes room for the id before it looks (the table's allocation doubled when
        // its room was exactly full), so a refusal is decided by `find` first: always past a
        // limit, and under them when the table has no room left, for a duplicate.
        if full || over_budget || self.table.len() == self.table.capacity() {
            // A reused id is a duplicate, however full the table (MCP answers it -32600).
            if self.table.find(hash, matches).is_some() {
                return Err(InFlightError::Duplicate);
            }
            if full {
                return Err(InFlightError::Full {
                    limit: self.capacity,
                });
            }
            if over_budget {
                return Err(InFlightError::OverBudget {
                    budget: self.max_bytes,
                });
            }
        }
        match self
            .table
            .entry(hash, matches, Self::rehash(&self.hasher, lenient))
        {
            hash_table::Entry::Occupied(_) => Err(InFlightError::Duplicate),
            hash_table::Entry::Vacant(entry) => Ok(ReservedId {
                entry,
                id: id.to_owned_id(),
                bytes: (&mut self.bytes, cost),
                hasher: PhantomData,
            }),
        }
    }

    /// Whether a request with this id is in flight.
    pub fn contains(&self, id: Id<'_>) -> bool {
        self.find(id).is_some()
    }

    /// The value of the request with this id.
    pub fn get(&self, id: Id<'_>) -> Option<&T> {
        self.find(id).map(|entry| &entry.value)
    }

    /// The value of the request with this id, to update in place (its id and the bytes it
    /// counts stay as they were).
    pub fn get_mut(&mut self, id: Id<'_>) -> Option<&mut T> {
        self.find_entry(id).map(|entry| &mut entry.into_mut().value)
    }

    /// Removes the request this reply (or cancellation) names; returns the id exactly as the
    /// request spelled it, and the value.
    pub fn remove(&mut self, id: Id<'_>) -> Option<(IdBuf, T)> {
        let (entry, _) = self.find_entry(id)?.remove();
        self.bytes -= entry.bytes;
        Some((entry.id, entry.value))
    }

    /// Number of requests in flight.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether none is in flight.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// How many requests the table has room for without reallocating (at least
    /// [`len`](Self::len); not its bound, [`capacity_limit`](Self::capacity_limit)). It grows
    /// with the peak number in flight and does not go down by itself: see
    /// [`shrink_to_fit`](Self::shrink_to_fit).
    pub fn capacity(&self) -> usize {
        self.table.capacity()
    }

    /// Gives back the memory a burst of requests left behind: the table shrinks as far as
    /// the requests in flight allow. Every one is still found by its id. A pass over the room
    /// the table had; the next inserts past the new room allocate again.
    ///
    /// ```
    /// use rpcwire::{Id, InFlight};
    /// let mut table = InFlight::new(4096);
    /// let ids: Vec<String> = (0..1000).map(|n| n.to_string()).collect();
    /// for id in &ids {
    ///     table.insert(Id::from_token(id.as_bytes()).unwrap(), ()).unwrap();
    /// }
    /// // The burst is answered but for one request.
    /// for id in &ids[1..] {
    ///     table.remove(Id::from_token(id.as_bytes()).unwrap()).unwrap();
    /// }
    /// let before = table.capacity();
    /// table.shrink_to_fit();
    /// assert!(table.capacity() < before);
    /// assert!(table.contains(Id::from_token(b"0").unwrap()));
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.table
            .shrink_to_fit(Self::rehash(&self.hasher, self.lenient));
    }

    /// [`shrink_to_fit`](Self::shrink_to_fit), keeping room for at least `min_capacity`
    /// requests if it had that much (as `HashMap::shrink_to` does: never grows): a table that
    /// expects bursts of about that many keeps their room and gives back only what a larger
    /// one left.
    ///
    /// ```
    /// use rpcwire::{Id, InFlight};
    /// let mut table = InFlight::new(4096);
    /// let ids: Vec<String> = (0..1000).map(|n| n.to_string()).collect();
    /// for id in &ids {
    ///     table.insert(Id::from_token(id.as_bytes()).unwrap(), ()).unwrap();
    /// }
    /// table.drain().for_each(drop);
    /// table.shrink_to(100);
    /// assert!(table.capacity() >= 100 && table.capacity() < 1000);
    /// ```
    pub fn shrink_to(&mut self, min_capacity: usize) {
        self.table
            .shrink_to(min_capacity, Self::rehash(&self.hasher, self.lenient));
    }

    /// Every request in flight, in no particular order: its id, exactly as the request spelled
    /// it, and its value.
    ///
    /// ```
    /// use rpcwire::{Id, InFlight};
    /// let mut table = InFlight::new(16);
    /// table.insert(Id::from_token(b"1").unwrap(), "tools/call").unwrap();
    /// table.insert(Id::from_token(br#""b""#).unwrap(), "prompts/get").unwrap();
    /// let mut calls: Vec<_> = table.iter().map(|(id, method)| (id.raw().to_vec(), *method)).collect();
    /// calls.sort();
    /// assert_eq!(calls, [(br#""b""#.to_vec(), "prompts/get"), (b"1".to_vec(), "tools/call")]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (Id<'_>, &T)> + '_ {
        self.table
            .iter()
            .map(|entry| (entry.id.as_id(), &entry.value))
    }

    /// Every request in flight, its value to update in place (as [`get_mut`](Self::get_mut):
    /// its id and the bytes it counts stay as they were), in no particular order.
    ///
    /// ```
    /// use rpcwire::{Id, InFlight};
    /// // Steps of work done for each call a server runs.
    /// let mut running = InFlight::new(16);
    /// running.insert(Id::from_token(b"1").unwrap(), 0_u32).unwrap();
    /// running.insert(Id::from_token(b"2").unwrap(), 5).unwrap();
    /// for (_, steps) in running.iter_mut() {
    ///     *steps += 1;
    /// }
    /// assert_eq!(running.get(Id::from_token(b"2").unwrap()), Some(&6));
    /// ```
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Id<'_>, &mut T)> + '_ {
        self.table
            .iter_mut()
            .map(|entry| (entry.id.as_id(), &mut entry.value))
    }

    /// Keeps the requests for which `keep` returns `true` and removes the others, giving back
    /// the bytes they counted (as [`remove`](Self::remove) does). `keep` sees each request's
    /// id, exactly as it was spelled, and its value, to update in place: a server's periodic
    /// tick can report progress on every call it runs and, for a call that finished, write its
    /// reply and let it go, in one pass.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{encode, Id, InFlight, RawJson};
    /// // Steps of work left for each call.
    /// let mut running = InFlight::new(16);
    /// running.insert(Id::from_token(b"1").unwrap(), 1_u32).unwrap();
    /// running.insert(Id::from_token(b"2").unwrap(), 3).unwrap();
    /// let mut out = BytesMut::new();
    /// running.retain(|id, left| {
    ///     *left -= 1;
    ///     if *left == 0 {
    ///         encode::write_response(&mut out, id, RawJson::EMPTY_OBJECT);
    ///     }
    ///     *left > 0
    /// });
    /// assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    /// assert_eq!(running.len(), 1);
    /// assert_eq!(running.bytes(), 1); // the id `2` alone
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(Id<'_>, &mut T) -> bool) {
        let bytes = &mut self.bytes;
        self.table.retain(|entry| {
            let kept = keep(entry.id.as_id(), &mut entry.value);
            if !kept {
                *bytes -= entry.bytes;
            }
            kept
        });
    }

    /// Removes and returns every request (the connection ended: they stay unanswered).
    pub fn drain(&mut self) -> impl Iterator<Item = (IdBuf, T)> + '_ {
        // (The map is empty once `drain` returns, whether or not the iterator is run.)
        self.bytes = 0;
        self.table.drain().map(|entry| (entry.id, entry.value))
    }
}

/// An id claimed in an [`InFlight`] table by [`InFlight::reserve`]: the request is registered
/// when its value is [`insert`](Self::insert)ed.
#[must_use = "dropping the reservation registers nothing: insert the request's value"]
pub struct ReservedId<'a, T, S> {
    entry: hash_table::VacantEntry<'a, Entry<T>>,
    id: IdBuf,
    /// The table's count of bytes, and what this request adds to it once inserted.
    bytes: (&'a mut usize, usize),
    /// The table's hasher type, which the reservation does not need (the place is found).
    hasher: PhantomData<fn() -> S>,
}

impl<T, S: BuildHasher> ReservedId<'_, T, S> {
    /// The id, exactly as the request spelled it.
    pub fn id(&self) -> Id<'_> {
        self.id.as_id()
    }

    /// Registers the request with `value`.
    pub fn insert(self, value: T) {
        let (held, bytes) = self.bytes;
        *held += bytes;
        self.entry.insert(Entry {
            id: self.id,
            value,
            bytes,
        });
    }
}

impl<T, S> core::fmt::Debug for ReservedId<'_, T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReservedId").field("id", &self.id).finish()
    }
}

impl<T: core::fmt::Debug, S> core::fmt::Debug for InFlight<T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map()
            .entries(self.table.iter().map(|entry| (&entry.id, &entry.value)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;

    /// A refused insert leaves the table's room as it was, also when the entries fill it
    /// exactly (3, 7, 14, 28 in hashbrown's steps): a duplicate, under the limits or past
    /// them, a table at its limit, an id past the byte budget. (Making room before the
    /// refusal doubled the table.)
    #[test]
    fn a_refused_insert_does_not_grow_the_table() {
        let tokens: Vec<String> = (0..=60).map(|i| format!("{i}")).collect();
        let id = |i: usize| Id::from_token(tokens[i].as_bytes()).unwrap();
        let filled = |table: InFlight<()>, n: usize| {
            let mut table = table;
            for i in 0..n {
                table.insert(id(i), ()).unwrap();
            }
            table
        };
        for limit in 1..60 {
            let full = filled(InFlight::new(limit), limit);
            // Room for one more entry, but not for its bytes.
            let budget = filled(InFlight::new(limit + 1), limit).bytes();
            let over_budget = filled(InFlight::new(limit + 1).max_bytes(budget), limit);
            // Under both limits, a duplicate is all that is refused.
            let mut open = filled(InFlight::new(limit + 1), limit);
            let room = open.capacity();
            assert_eq!(open.insert(id(0), ()), Err(InFlightError::Duplicate));
            assert_eq!(open.capacity(), room, "limit {limit}, under the limits");
            for (mut table, refusal) in [
                (full, InFlightError::Full { limit }),
                (over_budget, InFlightError::OverBudget { budget }),
            ] {
                let room = table.capacity();
                for (id, error) in [(id(0), InFlightError::Duplicate), (id(limit), refusal)] {
                    assert_eq!(table.insert(id, ()), Err(error), "limit {limit}");
                    assert_eq!(table.capacity(), room, "limit {limit}, {error:?}");
                }
            }
        }
    }

    /// Keys up to `KEY_INLINE` bytes stay inline, longer ones go to the heap, and a key is
    /// the same whichever way it was built: a string id of each length around the edge,
    /// plain and with its last character escaped (decoded first, then keyed).
    #[test]
    fn keys_around_the_inline_size() {
        for len in 20..40 {
            let text: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            let plain = format!("\"{text}\"");
            let last = text.as_bytes()[len - 1];
            let escaped = format!("\"{}\\u{:04x}\"", &text[..len - 1], last);
            let key = IdKey::of(Id::from_token(plain.as_bytes()).unwrap());
            assert_eq!(key, IdKey::of(Id::from_token(escaped.as_bytes()).unwrap()));
            assert_eq!(key.encoded_len(), len + 1);
            let inline = matches!(key.0, InlineBytes::Inline { .. });
            assert_eq!(inline, len < KEY_INLINE, "{len}");
            // One byte more or less is another id.
            let shorter = format!("\"{}\"", &text[..len - 1]);
            assert_ne!(key, IdKey::of(Id::from_token(shorter.as_bytes()).unwrap()));
        }
    }
}
