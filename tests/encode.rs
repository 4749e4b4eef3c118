//! `encode::write_json_string` escapes exactly as serde_json does, byte for byte: every ASCII
//! character (and pairs of them, where a word-at-a-time scan could misplace the first) at
//! every position around its 8-byte words, and random strings.

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::encode;

fn escaped(s: &str) -> String {
    let mut out = BytesMut::new();
    encode::write_json_string(&mut out, s);
    String::from_utf8(out.to_vec()).expect("UTF-8")
}

fn serde(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

#[test]
fn every_ascii_character_at_every_position() {
    for len in 1..20 {
        for at in 0..len {
            for c in (0u8..0x80).map(char::from).chain(['é', '\u{2028}']) {
                let mut s: Vec<char> = vec!['a'; len];
                s[at] = c;
                let s: String = s.into_iter().collect();
                assert_eq!(escaped(&s), serde(&s), "{s:?}");
            }
        }
    }
}

#[test]
fn pairs_of_characters_within_a_word() {
    for first in 0..9 {
        for second in first + 1..9 {
            for a in 0u8..0x80 {
                for b in 0u8..0x80 {
                    let mut s = [b'x'; 9];
                    (s[first], s[second]) = (a, b);
                    let s = std::str::from_utf8(&s).unwrap();
                    assert_eq!(escaped(s), serde(s), "{s:?}");
                }
            }
        }
    }
}

proptest! {
    #[test]
    fn random_strings(s in any::<String>()) {
        prop_assert_eq!(escaped(&s), serde(&s));
    }

    #[test]
    fn strings_dense_in_escapes(s in "[\\x00-\\x22\\\\\\x7fé a-z]{0,64}") {
        prop_assert_eq!(escaped(&s), serde(&s));
    }
}
