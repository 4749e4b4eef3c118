//! MCP protocol revisions (`protocolVersion` values) where a rule of this crate changes.
//!
//! Revisions are dates, `YYYY-MM-DD`, so they order as strings: [`is_at_least`]
//! compares them so. A version that is not a date compares as a string too: a draft's name
//! starting with a letter (`DRAFT-2026-v1`) orders after every dated revision and gets the
//! newest rules; one starting with a digit or a sign below `2` (`1.0`, or an empty string)
//! orders before them.

/// 2024-11-05: the first dated revision.
pub const V2024_11_05: &str = "2024-11-05";
/// 2025-03-26: JSON-RPC batches allowed.
pub const V2025_03_26: &str = "2025-03-26";
/// 2025-06-18: batches removed.
pub const V2025_06_18: &str = "2025-06-18";
/// 2025-11-25: an error reply's `id` may be left out (to a request whose id cannot be
/// read); URL elicitation; tasks. ([`for_protocol_version`] does not set
/// [`unreadable_id`] from it: peers of every version differ on that form, so it is a
/// per-peer setting, left out by default in the MCP dialect.)
///
/// [`for_protocol_version`]: crate::DecodeOptions::for_protocol_version
/// [`unreadable_id`]: crate::DecodeOptions::unreadable_id
pub const V2025_11_25: &str = "2025-11-25";
/// 2026-07-28: `resultType` on results, per-request `_meta`, no requests from the
/// server (a result with `resultType: "input_required"` asks the client instead), the
/// split of the -32000..-32099 error codes.
pub const V2026_07_28: &str = "2026-07-28";

/// Every revision this crate knows the rules of, oldest first: the list to check a
/// `protocolVersion` or an `MCP-Protocol-Version` header read from the wire against
/// before handing it to [`for_protocol_version`] (which trusts its input), unless the
/// application supports fewer.
///
/// ```
/// use rpcwire::mcp::versions::{KNOWN, LATEST, V2024_11_05};
/// assert_eq!((KNOWN[0], KNOWN[KNOWN.len() - 1]), (V2024_11_05, LATEST));
/// assert!(KNOWN.windows(2).all(|w| w[0] < w[1]));
/// ```
///
/// [`for_protocol_version`]: crate::DecodeOptions::for_protocol_version
pub const KNOWN: &[&str] = &[
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
];

/// The latest revision this crate knows. It has no `initialize` (each request names its
/// version in `_meta`, [`RequestMeta`](crate::mcp::RequestMeta)), so it is not one to
/// offer or answer in an `initialize` handshake: [`V2025_11_25`] is the latest that has
/// one, and [`negotiate`] never answers with a later one.
///
/// ```
/// use rpcwire::mcp::versions::{negotiate, KNOWN, LATEST, V2025_11_25};
/// assert_eq!(negotiate(LATEST, KNOWN), Some(V2025_11_25));
/// ```
pub const LATEST: &str = V2026_07_28;

/// The version a server answers an `initialize` with, given the client's `requested`
/// (its `params.protocolVersion`) and the versions the server `supported`s: MCP's version
/// negotiation ("If the server supports the requested protocol version, it MUST respond
/// with the same version. Otherwise, the server MUST respond with another protocol
/// version it supports. This SHOULD be the latest version supported by the server."; the
/// client then disconnects if it does not speak the answer).
///
/// `requested` when it is in `supported` (exactly), else the latest of `supported`, as
/// this module orders versions (as strings, whatever order the list is in). Versions
/// without `initialize` take no part: 2026-07-28 and later (a session of those negotiates
/// nothing; a client learns what a server speaks from `server/discover`, and each request
/// names its version in `_meta`), so a server may pass the whole list it speaks (the one
/// it also hands [`HeaderError::write_reply`](crate::headers::HeaderError::write_reply),
/// say), and a client asking `initialize` for 2026-07-28 gets the latest before it.
/// `None` when `supported` holds no version with `initialize`: the server has no version
/// to answer with, and refuses the request (MCP's example: -32602 "Unsupported protocol
/// version", with `data: {"supported": [...], "requested": "..."}`).
///
/// The answer borrows `supported`, not `requested` (which usually borrows the frame).
///
/// ```
/// use rpcwire::mcp::versions::{negotiate, KNOWN, V2025_06_18, V2025_11_25};
/// const SUPPORTED: &[&str] = &["2025-06-18", "2025-11-25", "2026-07-28"];
/// assert_eq!(negotiate("2025-06-18", SUPPORTED), Some(V2025_06_18));
/// // One the server does not speak, or one with no `initialize`: its latest that has one.
/// assert_eq!(negotiate("2024-11-05", SUPPORTED), Some(V2025_11_25));
/// assert_eq!(negotiate("2026-07-28", SUPPORTED), Some(V2025_11_25));
/// // Every version this crate knows the rules of.
/// assert_eq!(negotiate("2024-11-05", KNOWN), Some("2024-11-05"));
/// // Nothing to answer with.
/// assert_eq!(negotiate("2025-06-18", &["2026-07-28"]), None);
/// ```
pub fn negotiate<'a>(requested: &str, supported: &[&'a str]) -> Option<&'a str> {
    let with_initialize = supported.iter().copied().filter(|v| has_initialize(v));
    with_initialize
        .clone()
        .find(|v| *v == requested)
        .or_else(|| with_initialize.max())
}

/// The client's side of [`negotiate`]: the version of `supported` (the versions the
/// client speaks) that is `answered`, the `protocolVersion` of the server's answer to its
/// `initialize`, exactly; `None` when the client does not speak it, or when it is one
/// without `initialize` (2026-07-28 and later, which no server answers `initialize` with:
/// [`negotiate`] never does). MCP: "If the client does not support the version in the
/// server's response, it SHOULD disconnect"; on `Some`, the session follows that version
/// ([`for_protocol_version`], which trusts its input: the answer is the client's own
/// string, checked, and it outlives the frame).
///
/// ```
/// use rpcwire::mcp::versions::{accept, V2025_06_18};
/// use rpcwire::Decoder;
/// const SPEAKS: &[&str] = &["2025-06-18", "2025-11-25"];
/// // The client asked for 2025-11-25; the server answered with an earlier one it speaks.
/// let version = accept("2025-06-18", SPEAKS).unwrap();
/// assert_eq!(version, V2025_06_18);
/// let decoder = Decoder::mcp_client().for_protocol_version(version);
/// # let _ = decoder;
/// // One it does not speak (disconnect), and one that has no `initialize`.
/// assert_eq!(accept("2024-11-05", SPEAKS), None);
/// assert_eq!(accept("2026-07-28", &["2025-11-25", "2026-07-28"]), None);
/// ```
///
/// [`for_protocol_version`]: crate::DecodeOptions::for_protocol_version
pub fn accept<'a>(answered: &str, supported: &[&'a str]) -> Option<&'a str> {
    supported
        .iter()
        .copied()
        .find(|v| *v == answered && has_initialize(v))
}

/// The version a client talks to a server in, given what the server's `server/discover`
/// result `offered` (its `supportedVersions`, a JSON array of strings, escapes decoded)
/// and the versions the client `supported`s: the latest both speak, as this module orders
/// versions. One of 2026-07-28 or later the client names in each request's `_meta`; an
/// earlier one (both speak no later one, as `supportedVersions` may list the versions of
/// `initialize` too) it negotiates with `initialize` ([`accept`] reads the answer), and a
/// server refuses it per request ([`RequestMeta::check`](crate::mcp::RequestMeta::check)).
/// `None` when they share none (or `offered` is not an array).
///
/// The answer borrows `supported`, not the frame.
///
/// ```
/// use rpcwire::mcp::versions::{choose, V2025_11_25, V2026_07_28};
/// use rpcwire::{Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2025-11-25","2026-07-28","2027-01-01"],"capabilities":{}}}"#;
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// let offered = r.result.get("supportedVersions").unwrap();
/// assert_eq!(choose(offered, &[V2025_11_25, V2026_07_28]), Some(V2026_07_28));
/// // A client of 2025-11-25 alone speaks it to this server, through `initialize`.
/// assert_eq!(choose(offered, &[V2025_11_25]), Some(V2025_11_25));
/// assert_eq!(choose(offered, &["2024-11-05"]), None);
/// ```
pub fn choose<'a>(offered: crate::RawJson<'_>, supported: &[&'a str]) -> Option<&'a str> {
    let offers = |version: &str| {
        offered
            .elements()
            .any(|v| v.as_str().is_some_and(|offer| offer.eq_str(version)))
    };
    supported.iter().copied().filter(|v| offers(v)).max()
}

/// Whether `version` is one of the [`KNOWN`] revisions, exactly.
///
/// ```
/// use rpcwire::mcp::versions::is_known;
/// assert!(is_known("2025-06-18"));
/// assert!(!is_known("2025-06-19") && !is_known(" 2025-06-18") && !is_known("DRAFT-2026-v1"));
/// ```
pub fn is_known(version: &str) -> bool {
    KNOWN.contains(&version)
}

/// Whether `version` has `initialize`: every revision before 2026-07-28.
fn has_initialize(version: &str) -> bool {
    !is_at_least(version, V2026_07_28)
}

/// Whether `version` is `revision` or a later one.
///
/// ```
/// use rpcwire::mcp::versions::{is_at_least, V2026_07_28};
/// assert!(is_at_least("2026-07-28", V2026_07_28));
/// assert!(!is_at_least("2025-11-25", V2026_07_28));
/// assert!(is_at_least("DRAFT-2026-v1", V2026_07_28));
/// ```
pub fn is_at_least(version: &str, revision: &str) -> bool {
    version >= revision
}

/// Whether `version` has JSON-RPC batches: 2025-03-26, exactly (its receivers must
/// accept them, and 2025-06-18, the next revision, removed them). Not compared as text,
/// as [`is_at_least`] does: every revision that could have them is published, so a
/// version from the wire that sorts between the two (`"2025-03-26x"`, `"2025-05-01"`) is
/// none of them, and has none.
///
/// ```
/// use rpcwire::mcp::versions::has_batches;
/// assert!(has_batches("2025-03-26"));
/// assert!(!has_batches("2024-11-05") && !has_batches("2025-06-18"));
/// assert!(!has_batches("2025-05-01") && !has_batches("2025-03-26x"));
/// ```
pub fn has_batches(version: &str) -> bool {
    version == V2025_03_26
}

/// Whether results under `version` carry a `resultType` to check (2026-07-28 on). Under
/// an earlier version `resultType` is an extra member like any other: see
/// [`DecodeOptions::for_protocol_version`](crate::DecodeOptions::for_protocol_version).
pub fn has_result_type(version: &str) -> bool {
    is_at_least(version, V2026_07_28)
}

/// Appends the error reply to a request made under a protocol version the server does not
/// support: `code`, the message "Unsupported protocol version", and MCP's `data`,
/// `{"supported": [...], "requested": "..."}`, the versions the server speaks, for the
/// client to retry with one. `code` is -32022
/// ([`ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION`](crate::ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION))
/// for a request of 2026-07-28 or later, whose `_meta` names a version the server does
/// not implement ([`RequestMeta::check`](crate::mcp::RequestMeta::check) finds it, and
/// its error's reply is this one; "it **MUST** return an `UnsupportedProtocolVersionError`", on stdio as on
/// HTTP, where it goes with 400 and is also
/// [`HeaderError::UnsupportedVersion`](crate::headers::HeaderError::UnsupportedVersion)'s
/// reply), and -32602 (Invalid params) for an `initialize` the server has no version to
/// answer with ([`negotiate`] gave `None`: the lifecycle's example; 2026-07-28 leaves that
/// code to the server, and asks the list of it: "A server that supports only modern
/// versions **SHOULD** name the protocol versions it supports in any error it returns to
/// an `initialize` request"). `id` is the request's [`Id`](crate::Id), or any
/// [`ReplyId`](crate::ReplyId).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::versions::{self, KNOWN};
/// use rpcwire::{ErrorCode, Id};
/// let mut out = BytesMut::new();
/// let id = Id::from_token(b"3").unwrap();
/// let code = ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION;
/// versions::write_unsupported(&mut out, id, code, "2099-01-01", &KNOWN[3..]);
/// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25","2026-07-28"],"requested":"2099-01-01"}}}
/// "#[..]);
/// ```
pub fn write_unsupported<'i>(
    out: &mut bytes::BytesMut,
    id: impl Into<crate::ReplyId<'i>>,
    code: crate::ErrorCode,
    requested: &str,
    supported: &[&str],
) {
    let mut data = bytes::BytesMut::new();
    data.extend_from_slice(b"{\"supported\":");
    crate::encode::write_json_string_array(&mut data, supported);
    data.extend_from_slice(b",\"requested\":");
    crate::encode::write_json_string(&mut data, requested);
    data.extend_from_slice(b"}");
    let data = crate::RawJson::new(&data);
    crate::encode::write_error(out, id, code, "Unsupported protocol version", data);
}
