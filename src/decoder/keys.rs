//! The envelope's member names: found by their raw bytes when spelled plainly (one masked
//! compare for `"name":`), else compared after unescaping; and, for the hardened profile,
//! the names that case-fold to one of them.

use crate::error::Member;
use crate::json::JsonStr;

/// The envelope members by name, for keys compared after unescaping.
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
pub(super) fn member_of(key: &[u8], has_escapes: bool) -> Option<Member> {
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
pub(super) const ERROR_MEMBERS: [(&[u8], Member); 3] = [
    (b"code", Member::ErrorCode),
    (b"message", Member::ErrorMessage),
    (b"data", Member::ErrorData),
];

/// The member of `table` a key names, compared after unescaping (an escaped key is decoded
/// once, at most eight characters of it).
pub(super) fn lookup(table: &[(&[u8], Member)], key: &[u8], has_escapes: bool) -> Option<Member> {
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
pub(super) fn plain_member_key(frame: &[u8], i: usize) -> Option<(Member, usize)> {
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

/// The envelope member a key that is not one case-folds to, if any (`ID`, `Method`, the
/// Unicode folds U+017F `ſ` → `s` and U+212A `K` → `k`, and U+0130 `İ` and U+0131 `ı`,
/// which Java's `equalsIgnoreCase` matches with `i`, as .NET's ordinal case-insensitive
/// comparison does `ı`).
pub(super) fn case_folds_to_member(key: &[u8], has_escapes: bool) -> Option<Member> {
    let (mut chars, len) = short_key(key, has_escapes)?;
    for c in &mut chars[..len] {
        *c = match *c {
            '\u{017f}' => 's',
            '\u{212a}' => 'k',
            '\u{0130}' | '\u{0131}' => 'i',
            c => c.to_ascii_lowercase(),
        };
    }
    KEYS.iter()
        .find(|(name, _)| spells(name, &chars[..len]))
        .map(|&(_, member)| member)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Member;

    /// Envelope names are compared after unescaping, and in the hardened profile after case
    /// folding (with `ſ`, `ı` and `İ`, characters that are not ASCII and fold to a member's
    /// letters); a key a character shorter or longer than a name, or that escapes something
    /// else, names no member. (That an escaped key is decoded once, eight characters at
    /// most, is how `short_key` is written; no assert here sees it.)
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
        let folds = |key: &str, esc| case_folds_to_member(key.as_bytes(), esc).is_some();
        for (key, esc) in [
            ("ID", false),
            ("Method", false),
            ("JSONRPC", false),
            (r"par\u0041ms", true),
            (r"re\u017fult", true),
            ("re\u{17f}ult", false),
            ("\u{131}d", false),
            (r"\u0130D", true),
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
        assert_eq!(
            case_folds_to_member("\u{131}D".as_bytes(), false),
            Some(Member::Id)
        );
    }

    /// Each plainly spelled envelope key is found by the one masked compare, with the index
    /// after its colon; a key that only starts like one, or has a space before its colon, or
    /// is cut short, is left to the general path (`None`). (A wrong table only sends keys
    /// down that path, which reads them the same: no decode sees it, only this.)
    #[test]
    fn plain_keys_are_found_by_the_masked_compare() {
        for (key, member) in [
            ("jsonrpc", Member::JsonRpc),
            ("id", Member::Id),
            ("method", Member::Method),
            ("params", Member::Params),
            ("result", Member::Result),
            ("error", Member::Error),
        ] {
            let frame = format!("{{\"{key}\":1234567890}}");
            let after_colon = key.len() + 4;
            assert_eq!(
                plain_member_key(frame.as_bytes(), 1),
                Some((member, after_colon)),
                "{key}"
            );
            let spaced = format!("{{\"{key}\" :1234567890}}");
            assert_eq!(plain_member_key(spaced.as_bytes(), 1), None, "{key}");
        }
        for frame in [
            &br#"{"ids":1234567890}"#[..],
            br#"{"jsonrpcx":"2.0"}"#,
            br#"{"jsonrpc" :"2.0"}"#,
            br#"{"i":12345678901}"#,
            br#"{"id":1}"#,
        ] {
            assert_eq!(plain_member_key(frame, 1), None);
        }
    }
}
