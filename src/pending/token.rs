//! [`Token`]: the integer id the pending table mints for a request we send.

use core::fmt;

/// The id of a request we sent, as minted by a [`PendingTable`](super::PendingTable).
///
/// A token is an integer in `0..=2^53 − 1` ([`Token::MAX`]), so a JavaScript peer that reads
/// ids as doubles echoes it exactly. The table packs a slot index and that slot's generation
/// into it (see [`PendingTable`](super::PendingTable#tokens)); to everyone else it is an
/// opaque number, written on the wire as a plain decimal integer.
///
/// ```
/// use rpcwire::pending::Token;
///
/// let token = Token::from_wire(b"4097").unwrap();
/// let mut buf = [0u8; 20];
/// assert_eq!(token.to_wire(&mut buf), b"4097");
/// assert_eq!(token.get(), 4097);
/// assert_eq!(token.to_string(), "4097");
///
/// // Only canonical integers are tokens: a string id or `1.0` never matches one.
/// assert_eq!(Token::from_wire(b"\"4097\""), None);
/// assert_eq!(Token::from_wire(b"1.0"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Token(u64);

/// `"00" "01" … "99"`: two digits per division when writing a token.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

impl Token {
    /// The largest token, `2^53 − 1` (9 007 199 254 740 991, 16 digits): the largest integer a
    /// double holds exactly.
    pub const MAX: Token = Token((1 << 53) - 1);

    /// Longest wire form of a token, in bytes (the 16 digits of [`Token::MAX`]).
    pub const MAX_WIRE_LEN: usize = 16;

    /// The token with this value, or `None` above [`Token::MAX`].
    ///
    /// Use it when the id was already parsed as an integer; [`Token::from_wire`] parses the
    /// raw bytes.
    #[inline]
    pub const fn new(value: u64) -> Option<Token> {
        if value <= Token::MAX.0 {
            Some(Token(value))
        } else {
            None
        }
    }

    /// A token the table composed itself (always `<= MAX`).
    #[inline]
    pub(super) const fn minted(value: u64) -> Token {
        debug_assert!(value <= Token::MAX.0);
        Token(value)
    }

    /// The token's integer value.
    #[inline]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Parses the raw wire token of a reply's `id`: a canonical JSON integer
    /// `0|[1-9][0-9]*` no larger than [`Token::MAX`].
    ///
    /// Everything else is `None`: a string id (`"1"` with its quotes), a negative number, a
    /// fraction or exponent (`1.0`, `1e3`), a leading zero (`01`), a number above
    /// `2^53 − 1`, surrounding whitespace, the empty slice. We only ever send canonical
    /// integers, so an id in any other form cannot be one of ours, even when it denotes the
    /// same number.
    #[inline]
    pub fn from_wire(raw: &[u8]) -> Option<Token> {
        match raw {
            [] => None,
            [b'0'] => Some(Token(0)),
            [b'0', ..] => None,
            _ if raw.len() > Token::MAX_WIRE_LEN => None,
            _ => {
                // At most 16 digits: below 10^16, no overflow.
                let mut value = 0u64;
                for &byte in raw {
                    let digit = byte.wrapping_sub(b'0');
                    if digit > 9 {
                        return None;
                    }
                    value = value * 10 + u64::from(digit);
                }
                Token::new(value)
            }
        }
    }

    /// Writes the token as decimal digits into `out` and returns the written tail of it.
    ///
    /// The output is the exact wire form a reply must echo, and round-trips through
    /// [`Token::from_wire`]. Hand-written rather than the `itoa` crate: a token has at most
    /// 16 digits, writing straight into the caller's buffer saves `itoa`'s copy out of its
    /// own buffer, and the crate keeps one dependency fewer.
    #[inline]
    pub fn to_wire<'b>(&self, out: &'b mut [u8; 20]) -> &'b [u8] {
        let mut n = self.0;
        let mut pos = out.len();
        while n >= 100 {
            let pair = (n % 100) as usize * 2;
            n /= 100;
            pos -= 2;
            out[pos..pos + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        }
        if n >= 10 {
            let pair = n as usize * 2;
            pos -= 2;
            out[pos..pos + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        } else {
            pos -= 1;
            out[pos] = b'0' + n as u8;
        }
        &out[pos..]
    }
}

impl Token {
    /// The token as a message id (an integer) written into `out`: what the writers of
    /// [`encode`](crate::encode) take.
    ///
    /// ```
    /// use rpcwire::Token;
    /// let token = Token::new(42).unwrap();
    /// assert_eq!(token.to_id(&mut [0; 20]).raw(), b"42");
    /// ```
    #[inline]
    pub fn to_id<'b>(&self, out: &'b mut [u8; 20]) -> crate::Id<'b> {
        // `to_wire` writes `0|[1-9][0-9]*`: a canonical integer token.
        crate::Id::new(self.to_wire(out), crate::IdKind::Integer)
    }

    /// The token a decoded id names, [`from_wire`](Self::from_wire) of its wire token: `None`
    /// for an id that cannot be one we minted (a string, `1.0`, a negative number). For an id
    /// that is not a reply's, which [`PendingTable::complete`](super::PendingTable::complete)
    /// does not take: the progress token of a `notifications/progress` on a request that gave
    /// its own token as `_meta.progressToken`, say, to [`get`](super::PendingTable::get) the
    /// request and move its deadline ([`set_deadline`](super::PendingTable::set_deadline)).
    ///
    /// ```
    /// use rpcwire::{mcp, Decoder, Message, PendingTable, Token};
    /// let mut pending = PendingTable::new();
    /// let token = pending.insert_with_deadline("tools/call", 1_000).unwrap();
    /// let frame = format!(
    ///     r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#
    /// );
    /// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else { panic!() };
    /// let progress = mcp::Progress::from_notification(&n).unwrap();
    /// assert_eq!(Token::from_id(progress.token), Some(token));
    /// assert!(pending.set_deadline(token, Some(2_000)));
    ///
    /// // A string, even of the same digits, is no token of ours.
    /// let quoted = format!(r#""{token}""#);
    /// assert_eq!(Token::from_id(rpcwire::Id::from_token(quoted.as_bytes()).unwrap()), None);
    /// ```
    #[inline]
    pub fn from_id(id: crate::Id<'_>) -> Option<Token> {
        Token::from_wire(id.raw())
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl From<Token> for u64 {
    #[inline]
    fn from(token: Token) -> u64 {
        token.0
    }
}

/// A token serializes as the integer it is on the wire, so that a typed request can carry it
/// as its id or as its `_meta.progressToken`.
///
/// ```
/// use rpcwire::pending::PendingTable;
/// let mut pending = PendingTable::with_capacity_limit(8);
/// let token = pending.insert(()).unwrap();
/// let meta = serde_json::json!({ "progressToken": token });
/// assert_eq!(meta.to_string(), format!(r#"{{"progressToken":{}}}"#, token.get()));
/// ```
#[cfg(feature = "serde")]
impl serde::Serialize for Token {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn wire(token: Token) -> alloc::vec::Vec<u8> {
        let mut buf = [0u8; 20];
        token.to_wire(&mut buf).to_vec()
    }

    #[test]
    fn wire_round_trip() {
        let mut samples = alloc::vec![0, 1, 9, 10, 99, 100, 101, 999, 1_000, 4_294_967_296];
        let mut p = 1u64;
        while p <= Token::MAX.0 {
            samples.extend([p - 1, p, p + 1]);
            p *= 10;
        }
        samples.extend([Token::MAX.0 - 1, Token::MAX.0]);
        for value in samples {
            let token = Token::new(value).unwrap();
            let bytes = wire(token);
            assert_eq!(bytes, value.to_string().as_bytes());
            assert_eq!(Token::from_wire(&bytes), Some(token));
        }
    }

    #[test]
    fn from_wire_rejections() {
        for raw in [
            &b"\"1\""[..],
            b"-1",
            b"-0",
            b"01",
            b"00",
            b"1.0",
            b"1e3",
            b"1E3",
            b"9007199254740992",
            b"18446744073709551616",
            b"99999999999999999999999",
            b"",
            b" 1",
            b"1 ",
            b"+1",
            b"null",
            b"0x10",
            b"1/",
            b"1:",
        ] {
            assert_eq!(
                Token::from_wire(raw),
                None,
                "{:?}",
                core::str::from_utf8(raw)
            );
        }
        assert_eq!(Token::from_wire(b"0"), Some(Token(0)));
        assert_eq!(Token::from_wire(b"9007199254740991"), Some(Token::MAX));
    }

    #[test]
    fn new_bounds() {
        assert_eq!(Token::new(Token::MAX.get()), Some(Token::MAX));
        assert_eq!(Token::new(Token::MAX.get() + 1), None);
        assert_eq!(Token::new(u64::MAX), None);
    }
}
