//! What configures a [`Decoder`](super::Decoder): the dialect, the reader's role, the
//! validation mode, the limits and the profiles a session's protocol version decides.

use crate::limits::Limits;
use crate::message::ReplyId;
use crate::scan::Validation;

/// Which set of rules a frame is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// Plain JSON-RPC 2.0: batches allowed; ids may be strings, any number, or null;
    /// `params` an object or an array; `result` any value.
    JsonRpc2,
    /// MCP (2025-06-18 and later): no batches (2025-03-26's are
    /// [`DecodeOptions::for_protocol_version`]'s); ids are strings or canonical integers, never
    /// null (but in an error response, whose id may be `null` or absent when the request's
    /// could not be read); `params` and `result` are objects; `result.resultType`, when
    /// present, must be a known value ([`DecodeOptions::result_types`]).
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

/// Everything that configures a [`Decoder`](crate::Decoder).
///
/// [`Decoder::mcp`](crate::Decoder::mcp), [`mcp_client`](crate::Decoder::mcp_client),
/// [`jsonrpc`](crate::Decoder::jsonrpc) and [`jsonrpc_client`](crate::Decoder::jsonrpc_client)
/// are the dialect's defaults for each role. For anything else, set the fields that differ
/// over [`DecodeOptions::new`] (or a decoder's [`options`](crate::Decoder::options)) and
/// build the decoder with [`Decoder::new`](crate::Decoder::new): a gateway's upstream side,
/// say, reads what a server writes, strictly.
///
/// ```
/// use rpcwire::{DecodeOptions, Decoder, Dialect, Role, Validation};
/// let upstream = Decoder::new(DecodeOptions {
///     role: Role::Client,
///     validation: Validation::Strict,
///     ..DecodeOptions::new(Dialect::Mcp)
/// });
/// // The same as the client preset, made strict.
/// let strict = DecodeOptions { validation: Validation::Strict, ..*Decoder::mcp_client().options() };
/// assert_eq!(upstream, Decoder::new(strict));
/// // Lazy validation lets `[1 2]` through in a result; strict refuses it (-32700).
/// let reply = br#"{"jsonrpc":"2.0","id":1,"result":{"a":[1 2]}}"#;
/// assert!(Decoder::mcp_client().decode(reply).is_ok());
/// assert!(upstream.decode(reply).unwrap_err().error().is_parse_error());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecodeOptions {
    /// The rule set.
    pub dialect: Dialect,
    /// How much of the payloads is validated.
    pub validation: Validation,
    /// Who reads the stream.
    pub role: Role,
    /// Frame, depth, id, method and batch limits. A framer enforces the frame limit it is given as it
    /// reads; the decoder refuses a longer frame too (one that came another way). A framer
    /// does not pass its limit to the decoder: when a framer's is higher, raise this one too,
    /// or its longer frames become `FrameTooLong` (-32700); [`Decoder::line_framer`] and its
    /// siblings build framers with this limit.
    ///
    /// [`Decoder::line_framer`]: crate::Decoder::line_framer
    pub limits: Limits,
    /// The reply id used when the request's id cannot be read: `Null` (JSON-RPC; Python MCP
    /// peers) or `Absent` (MCP's schema; TypeScript MCP peers reject `"id":null`). The
    /// dialect's form by default: `Absent` for MCP, `Null` for JSON-RPC.
    ///
    /// ```
    /// use rpcwire::{DecodeOptions, Dialect, ReplyId};
    /// assert_eq!(DecodeOptions::new(Dialect::Mcp).unreadable_id, ReplyId::Absent);
    /// assert_eq!(DecodeOptions::new(Dialect::JsonRpc2).unreadable_id, ReplyId::Null);
    /// ```
    pub unreadable_id: ReplyId<'static>,
    /// Reject top-level members that are not envelope members (default: ignore them).
    pub reject_unknown_members: bool,
    /// The hardened profile for proxies in front of strict backends: reject member names that
    /// case-fold to an envelope name, lone surrogates in `method` and string ids, C0 control
    /// characters (U+0000–U+001F) in `method`, numeric ids that are not integers within
    /// ±(2^53 − 1), and a carriage return inside a frame (a line end to some peers). Pair it
    /// with [`Limits::HARDENED`].
    pub hardened: bool,
    /// `resultType` values accepted in MCP results (an absent `resultType` means `complete`).
    /// The default is MCP 2026-07-28's: `complete` and `input_required` (a multi round-trip
    /// request: the server asks the client for input, the client retries), and `task`, the
    /// task handle of its official Tasks extension ([`RESULT_TYPES`](Self::RESULT_TYPES)).
    /// Empty: no check,
    /// for sessions under an earlier version, where `resultType` is an extra member like any
    /// other (the result is then skipped whole, not walked member by member).
    /// [`for_protocol_version`](Self::for_protocol_version) sets it from the version.
    pub result_types: &'static [&'static str],
    /// Whether a JSON array is a batch ([`Message::Batch`], its elements decoded one by one;
    /// in the MCP dialect each held to MCP's rules, and an `initialize` request refused as
    /// `InitializeInBatch`; one of more elements than [`Limits::max_batch_len`] refused whole
    /// as -32600, `BatchTooLong`) or refused whole as -32600 (`BatchNotAllowed`). The dialect's
    /// default: JSON-RPC 2.0 allows them; MCP does not (it removed them in 2025-06-18), except
    /// under 2025-03-26, whose receivers must accept them ([`for_protocol_version`]).
    ///
    /// [`Message::Batch`]: crate::Message::Batch
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

    /// These options with the whole hardened profile: [`hardened`](Self::hardened) on and
    /// [`Limits::HARDENED`] (limits set before are replaced; adjust them after).
    ///
    /// ```
    /// use rpcwire::{DecodeOptions, Decoder, Dialect, Limits};
    /// let options = DecodeOptions::default().hardened_profile();
    /// assert!(options.hardened);
    /// assert_eq!(options.limits, Limits::HARDENED);
    /// // A float id is valid JSON-RPC, but not under the hardened profile.
    /// let float_id = br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#;
    /// assert!(Decoder::jsonrpc().decode(float_id).is_ok());
    /// let hardened = Decoder::new(DecodeOptions::new(Dialect::JsonRpc2).hardened_profile());
    /// assert!(hardened.decode(float_id).is_err());
    /// ```
    #[must_use]
    pub const fn hardened_profile(mut self) -> Self {
        self.hardened = true;
        self.limits = Limits::HARDENED;
        self
    }

    /// The `resultType` values MCP 2026-07-28 defines, `complete` and `input_required`, and
    /// `task`, the `CreateTaskResult` of its official Tasks extension
    /// (`io.modelcontextprotocol/tasks`, whose "resultType field MUST be set to \"task\""):
    /// the default [`result_types`](Self::result_types), and what
    /// [`for_protocol_version`](Self::for_protocol_version) sets from that version on.
    ///
    /// The core specification lets extensions add values: "The set of supported `ResultType`
    /// values MUST be created from the set defined in the core protocol and include any
    /// additional values of supported extensions that are advertised via capabilities". A
    /// decoder does not see the capabilities, and one in a proxy decides for no client: it
    /// accepts the official extension's value, which a client that advertised the extension
    /// waits for, and leaves a client that did not to refuse it. A list of one's own adds
    /// the values of other extensions.
    pub const RESULT_TYPES: &'static [&'static str] = &["complete", "input_required", "task"];

    /// These options for messages of the MCP revision `version`: the one a session negotiated
    /// (the `protocolVersion` of the server's reply to `initialize`), or, from 2026-07-28 on,
    /// which has no `initialize`, the one a request names in its `_meta`
    /// ([`RequestMeta::check`](crate::mcp::RequestMeta::check)) or a client chose from the
    /// server's `server/discover` result
    /// ([`DiscoverResult::choose`](crate::mcp::DiscoverResult::choose)). It sets the fields
    /// the version decides, whole, whatever they held before:
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
    /// Versions compare as text ([`versions::is_at_least`](crate::mcp::versions::is_at_least)),
    /// so a version from the wire (a header, a request's `_meta`) should be one of those the
    /// application supports before it is given here: `"2099-01-01"`, which no revision is,
    /// would be read as one after 2026-07-28 (batches alone need the exact `"2025-03-26"`).
    /// The decoder checks envelopes only: under 2026-07-28 a server's request is still a valid
    /// message to a `Role::Client` decoder, though that version has the server send none.
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
    #[must_use]
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

/// The MCP dialect's options, reading as a server: `DecodeOptions::new(Dialect::Mcp)`.
///
/// ```
/// use rpcwire::{DecodeOptions, Dialect, Role};
/// let options = DecodeOptions::default();
/// assert_eq!((options.dialect, options.role), (Dialect::Mcp, Role::Server));
/// ```
impl Default for DecodeOptions {
    fn default() -> Self {
        Self::new(Dialect::Mcp)
    }
}
