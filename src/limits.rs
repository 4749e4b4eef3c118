//! Finite limits applied while framing and decoding.

/// Upper bounds the framer and the decoder enforce on hostile input: the decoder all five (in
/// [`DecodeOptions::limits`](crate::DecodeOptions::limits)); a framer `max_frame`, given to
/// its constructor (`LineFramer::new(limits.max_frame)`), so that an over-long frame is never
/// buffered whole.
///
/// Every limit is finite by default, so a peer can never make the codec buffer, recurse or
/// allocate without bound.
///
/// A frame over `max_frame` or `max_depth` is refused as a parse error (-32700, id `null` or
/// absent), as `serde_json`-based servers refuse it: the frame is not read to its end, so its
/// id is not trusted even when it came first. An `id` or `method` over its limit makes an
/// invalid request (-32600) instead, whose reply echoes the id unless the id is what is too
/// long; so does a batch over `max_batch_len`, with a `null` id (or none, as
/// [`DecodeOptions::unreadable_id`](crate::DecodeOptions::unreadable_id) says).
///
/// ```
/// use rpcwire::Limits;
/// let limits = Limits { max_frame: 1 << 20, ..Limits::default() };
/// assert_eq!(limits.max_depth, 128);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Longest frame (one line, one SSE event's data, one Content-Length body), in bytes,
    /// not counting the line terminator. Default: 16 MiB.
    pub max_frame: usize,
    /// Deepest nesting of arrays and objects, the envelope object counting as depth 1.
    /// Default: 128, `serde_json`'s recursion limit (which lets 127 levels through: a proxy that
    /// must never forward what a `serde_json` backend refuses sets 127).
    pub max_depth: u32,
    /// Longest raw `id` token, in bytes, quotes included. Default: 64 KiB + 2.
    pub max_id_len: usize,
    /// Longest raw `method` string, in bytes (escaped form). Default: 64 KiB.
    pub max_method_len: usize,
    /// Most elements of a batch: one with more is refused whole, with one -32600 (no array
    /// answers it) whose id is that of an unreadable id (`null` in JSON-RPC). Default: 100,000.
    ///
    /// The bound is on the reply, not the request: each element that is not a valid request
    /// is owed an error of about 80 bytes, so a 16 MiB frame of `1,` (eight million elements)
    /// would be owed a reply of some 640 MB, which no peer with these limits could read. At
    /// the default, the errors owed to a batch come to at most about 8 MB, half a default
    /// frame (plus the ids they echo, no longer than the batch itself).
    pub max_batch_len: usize,
}

impl Limits {
    /// The defaults: 16 MiB frames, depth 128, 64 KiB ids and methods, batches of 100,000
    /// elements.
    pub const DEFAULT: Limits = Limits {
        max_frame: 16 << 20,
        max_depth: 128,
        max_id_len: (64 << 10) + 2,
        max_method_len: 64 << 10,
        max_batch_len: 100_000,
    };

    /// Tighter limits for a security proxy in front of strict backends: 256-byte ids and
    /// methods, depth 64, batches of 1,000 elements (the limit of common JSON-RPC servers
    /// such as go-ethereum's).
    pub const HARDENED: Limits = Limits {
        max_frame: 16 << 20,
        max_depth: 64,
        max_id_len: 256,
        max_method_len: 256,
        max_batch_len: 1_000,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
