//! Nibble lookup tables: a byte class tested with two `pshufb` lookups.
//!
//! A set of bytes is split by high nibble into "rows" (the low nibbles present for that high
//! nibble). Each distinct row gets one bit; `LO[l]` holds the bits of the rows containing low
//! nibble `l`, `HI[h]` the bit of row `h`. Then `b` is in the set iff
//! `LO[b & 15] & HI[b >> 4] != 0`. Every set used here has at most 8 distinct rows.

use crate::scan::scalar;

/// `(LO, HI)` tables for the set `member`.
const fn nibble_luts(member: &[bool; 256]) -> ([u8; 16], [u8; 16]) {
    nibble_luts_from(member, 0, 8)
}

/// `(LO, HI)` tables for the set `member`, its rows on bits `first..end` (so that tables of
/// disjoint bit ranges can be merged and tested with one lookup).
const fn nibble_luts_from(member: &[bool; 256], first: u32, end: u32) -> ([u8; 16], [u8; 16]) {
    let mut lo = [0u8; 16];
    let mut hi = [0u8; 16];
    // rows[k] = the 16-bit low-nibble set of the k-th distinct row.
    let mut rows = [0u16; 8];
    let mut nrows = 0;
    let mut h = 0;
    while h < 16 {
        let mut row = 0u16;
        let mut l = 0;
        while l < 16 {
            if member[h * 16 + l] {
                row |= 1 << l;
            }
            l += 1;
        }
        if row != 0 {
            let mut k = 0;
            while k < nrows && rows[k] != row {
                k += 1;
            }
            if k == nrows {
                assert!(first + (nrows as u32) < end, "too many distinct rows");
                rows[k] = row;
                nrows += 1;
            }
            let bit = 1u8 << (first + k as u32);
            hi[h] = bit;
            let mut l = 0;
            while l < 16 {
                if row & (1 << l) != 0 {
                    lo[l] |= bit;
                }
                l += 1;
            }
        }
        h += 1;
    }
    (lo, hi)
}

const fn set_of(bytes: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
}

/// Bytes allowed outside strings in lazy mode: the oracle's `LAZY_ALLOWED` plus `"`.
const fn outside_set() -> [bool; 256] {
    let mut t = scalar::lazy_allowed_table();
    t[b'"' as usize] = true;
    t
}

/// A pair of nibble tables: `LO[b & 15] & HI[b >> 4]` classifies byte `b`.
pub(super) type Lut = ([u8; 16], [u8; 16]);

pub(super) const OUTSIDE_LUT: Lut = nibble_luts(&outside_set());

/// [`OUTSIDE_LUT`] without `\n`: for a value that must lie on one line (inside strings a
/// `\n` is a control byte, which the kernel hands to the oracle already).
pub(super) const OUTSIDE_LINE_LUT: Lut = nibble_luts(&{
    let mut t = outside_set();
    t[b'\n' as usize] = false;
    t
});

/// The characters that may follow a backslash: bits 0..=3 of [`ESCAPE_LUT`].
pub(super) const ESCAPE_BITS: u8 = 0x0f;
/// Hex digits (the four after `\u`): bits 4..=6.
pub(super) const HEX_BITS: u8 = 0x70;
/// `u` alone, on bit 7, where `movemask` reads it without a compare.
const U_BIT: u8 = 0x80;
const _: () = assert!(U_BIT == 0x80, "movemask reads bit 7");
/// The three classes escapes need, in one pair of tables: one lookup classifies a block for
/// all three.
pub(super) const ESCAPE_LUT: ([u8; 16], [u8; 16]) = merge_luts(
    merge_luts(
        luts_on_bits(&set_of(b"\"\\/bfnrtu"), ESCAPE_BITS),
        luts_on_bits(&set_of(b"0123456789abcdefABCDEF"), HEX_BITS),
    ),
    luts_on_bits(&set_of(b"u"), U_BIT),
);

/// [`nibble_luts_from`] on the contiguous run of bits set in `bits`.
const fn luts_on_bits(member: &[bool; 256], bits: u8) -> ([u8; 16], [u8; 16]) {
    nibble_luts_from(member, bits.trailing_zeros(), 8 - bits.leading_zeros())
}

/// The union of tables whose rows use disjoint bits.
const fn merge_luts(a: ([u8; 16], [u8; 16]), b: ([u8; 16], [u8; 16])) -> ([u8; 16], [u8; 16]) {
    let mut out = a;
    let mut i = 0;
    while i < 16 {
        out.0[i] |= b.0[i];
        out.1[i] |= b.1[i];
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_lut(b: u8, lut: &([u8; 16], [u8; 16])) -> bool {
        lut.0[(b & 15) as usize] & lut.1[(b >> 4) as usize] != 0
    }

    #[test]
    fn nibble_tables_match_sets() {
        let outside = outside_set();
        let esc = set_of(b"\"\\/bfnrtu");
        for b in 0..=255u8 {
            assert_eq!(
                in_lut(b, &OUTSIDE_LUT),
                outside[b as usize],
                "outside {b:#x}"
            );
            assert_eq!(
                in_lut(b, &OUTSIDE_LINE_LUT),
                outside[b as usize] && b != b'\n',
                "outside on one line {b:#x}"
            );
            let class = |bits: u8| {
                ESCAPE_LUT.0[(b & 15) as usize] & ESCAPE_LUT.1[(b >> 4) as usize] & bits != 0
            };
            assert_eq!(class(ESCAPE_BITS), esc[b as usize], "escape {b:#x}");
            assert_eq!(class(HEX_BITS), b.is_ascii_hexdigit(), "hex {b:#x}");
            assert_eq!(class(U_BIT), b == b'u', "u {b:#x}");
        }
    }
}
