//! A short immutable byte string kept inline: the storage of [`IdBuf`](crate::IdBuf) and
//! [`IdKey`](crate::IdKey).
//!
//! Hand-written rather than a `SmallVec`: a `SmallVec` keeps a whole capacity word beside its
//! inline bytes (a `SmallVec<[u8; 24]>` takes 32 bytes), and these bytes never grow once made,
//! so a length byte and a boxed slice do: `InlineBytes<30>` holds 30 bytes in the same 32, and
//! `InlineBytes<38>` a UUID string id with its quotes in 40. Safe code only.

use alloc::boxed::Box;

/// Up to `N` bytes inline (`N` < 256), longer ones in a boxed slice of their exact length.
/// Every value of `N` bytes or fewer is inline, so equal contents have equal representations.
#[derive(Clone)]
pub(crate) enum InlineBytes<const N: usize> {
    /// `len` bytes at the start of `bytes`; the rest are zeros.
    Inline { len: u8, bytes: [u8; N] },
    /// More than `N` bytes.
    Heap(Box<[u8]>),
}

impl<const N: usize> InlineBytes<N> {
    /// A copy of `bytes`: inline when it fits, else one allocation of its length.
    #[inline]
    pub(crate) fn new(bytes: &[u8]) -> Self {
        const { assert!(N < 256) };
        if bytes.len() <= N {
            let mut inline = [0; N];
            inline[..bytes.len()].copy_from_slice(bytes);
            InlineBytes::Inline {
                len: bytes.len() as u8,
                bytes: inline,
            }
        } else {
            InlineBytes::Heap(bytes.into())
        }
    }

    /// The bytes.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            InlineBytes::Inline { len, bytes } => &bytes[..usize::from(*len)],
            InlineBytes::Heap(bytes) => bytes,
        }
    }
}

impl<const N: usize> PartialEq for InlineBytes<N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            // The bytes past `len` are zeros in both: the whole arrays compare, a fixed-size
            // comparison the compiler inlines, where slices of any length need a call.
            (
                InlineBytes::Inline { len, bytes },
                InlineBytes::Inline {
                    len: other_len,
                    bytes: other_bytes,
                },
            ) => len == other_len && bytes == other_bytes,
            _ => self.as_slice() == other.as_slice(),
        }
    }
}

impl<const N: usize> Eq for InlineBytes<N> {}

/// As the slice hashes, whatever the representation.
impl<const N: usize> core::hash::Hash for InlineBytes<N> {
    #[inline]
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl<const N: usize> core::fmt::Debug for InlineBytes<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_slice(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::InlineBytes;

    #[test]
    fn sizes_hold_what_the_docs_say() {
        assert_eq!(size_of::<InlineBytes<30>>(), 32);
        assert_eq!(size_of::<InlineBytes<38>>(), 40);
        // What the proxy's and the remapper's documented memory per request counts on.
        assert_eq!(size_of::<crate::IdBuf>(), 40);
        assert_eq!(size_of::<crate::IdKey>(), 32);
    }

    #[test]
    fn short_and_long_contents_read_back_and_compare_by_content() {
        for len in [0, 1, 29, 30, 31, 200] {
            let bytes: alloc::vec::Vec<u8> = (0..len).map(|i| i as u8 ^ 0x5a).collect();
            let b = InlineBytes::<30>::new(&bytes);
            assert_eq!(b.as_slice(), &bytes[..]);
            assert_eq!(matches!(b, InlineBytes::Inline { .. }), len <= 30);
            assert_eq!(b.clone(), b);
            if len > 0 {
                assert_ne!(b, InlineBytes::<30>::new(&bytes[..len - 1]));
            }
        }
    }
}
