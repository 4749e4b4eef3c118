//! `server/discover` (MCP 2026-07-28), a server's side: its result, written with
//! [`write_discover_result`], with the caching hints every such result carries
//! ([`CacheHint`]); and a client's side: the result, read with [`DiscoverResult`], and the
//! caching hints of any result, read with [`CacheHint::from_result`].

use bytes::BytesMut;

use crate::encode;
use crate::id::Id;
use crate::json::{JsonKind, JsonStr, Lookup, NumberParts, RawJson};
use crate::scan;

use super::meta_keys;

/// Who may keep a cached result (MCP 2026-07-28 `cacheScope`), "analogous to HTTP
/// Cache-Control: public vs Cache-Control: private".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CacheScope {
    /// `"public"`: "The response does not contain user-specific data. Any client or
    /// intermediary (e.g., shared gateway, caching proxy) MAY cache the response and serve
    /// it across authorization contexts."
    Public,
    /// `"private"`: "The response MAY be cached and reused only within the same
    /// authorization context."
    Private,
}

impl CacheScope {
    /// The scope's name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// The caching hints of a result of MCP 2026-07-28 that supports caching (`CacheableResult`:
/// `server/discover`'s, the listings' and `resources/read`'s, when complete): both members are
/// required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheHint {
    /// `ttlMs`: how many milliseconds the client may consider the result fresh (`0`: not at
    /// all).
    pub ttl_ms: u64,
    /// `cacheScope`: who may keep it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// Stale at once and never shared: `ttlMs` 0, `cacheScope` `"private"`, the hint that
    /// promises nothing.
    pub const NONE: CacheHint = CacheHint {
        ttl_ms: 0,
        scope: CacheScope::Private,
    };

    /// The hint a cacheable result carries, as a gateway or a client keeping results reads
    /// it: its `ttlMs` and `cacheScope` (the schema's `CacheableResult`, both required;
    /// `cacheScope` one of `"private"` and `"public"`), read lazily, with no allocation.
    /// `None`, nothing to cache by, when either is absent, given twice (or in an object too
    /// malformed to read whole), or not of its type: `ttlMs` a non-negative integer that fits
    /// `u64`, in any spelling (`1.0`, `1e3` and `-0` are integers, as JSON Schema's `integer`
    /// says; `1.5` is not); `cacheScope` `"public"` or `"private"`, escapes decoded.
    ///
    /// Which results are cacheable (`server/discover`'s, the listings' and
    /// `resources/read`'s) is the caller's to know: the method of the request answered. A
    /// `"public"` result "MAY" be served "across authorization contexts"; a `"private"` one
    /// "MAY be cached and reused only within the same authorization context".
    ///
    /// ```
    /// use rpcwire::mcp::{CacheHint, CacheScope};
    /// use rpcwire::{Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[],"ttlMs":30000,"cacheScope":"public"}}"#;
    /// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
    /// let hint = CacheHint::from_result(r.result);
    /// assert_eq!(hint, Some(CacheHint { ttl_ms: 30_000, scope: CacheScope::Public }));
    ///
    /// // A result without the hint (one of an earlier version, say) has none.
    /// let frame = br#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#;
    /// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
    /// assert_eq!(CacheHint::from_result(r.result), None);
    /// ```
    pub fn from_result(result: RawJson<'_>) -> Option<CacheHint> {
        let [ttl, scope] = result.lookup_each(["ttlMs", "cacheScope"]);
        let (Lookup::Found(ttl), Lookup::Found(scope)) = (ttl, scope) else {
            return None;
        };
        Some(CacheHint {
            ttl_ms: ttl_ms(ttl)?,
            scope: cache_scope(scope)?,
        })
    }
}

/// Why [`write_discover_result`] wrote nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiscoverWriteError {
    /// `capabilities` is not an object (a `ServerCapabilities`).
    CapabilitiesNotAnObject,
    /// The server's identity is not an object (an `Implementation`).
    ServerInfoNotAnObject,
}

impl core::fmt::Display for DiscoverWriteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::CapabilitiesNotAnObject => "capabilities must be an object",
            Self::ServerInfoNotAnObject => "serverInfo must be an object",
        })
    }
}

impl core::error::Error for DiscoverWriteError {}

/// Appends a server's answer to the `server/discover` request `id` (MCP 2026-07-28:
/// "`server/discover` lets a client query a server's supported protocol versions,
/// capabilities, and identity before sending any other requests. Servers **MUST**
/// implement it."): a `DiscoverResult`, `resultType` `"complete"`, `supportedVersions`
/// (each of `supported_versions`), `capabilities` (the server's, as an object),
/// `instructions` when given (free text, escaped here), the cache's `ttlMs` and
/// `cacheScope`, and, when given, the server's identity (an `Implementation`, `name` and
/// `version`) in `_meta`, as [`meta_keys::SERVER_INFO`], which "Servers **SHOULD** include
/// ... in every result's `_meta`".
///
/// The schema, "the source of truth", requires `resultType`, `supportedVersions`,
/// `capabilities`, `ttlMs` and `cacheScope`; `instructions` and `_meta` are optional. (The
/// discover page's example also shows a `serverInfo` member beside them, which the schema
/// has not; the identity goes in `_meta` here.) The request "carries no body parameters
/// beyond the standard `_meta`", checked as any other's
/// ([`RequestMeta::check`](super::RequestMeta::check)).
///
/// `supported_versions` is the list the server names in an `UnsupportedProtocolVersionError`
/// too ([`versions::write_unsupported`](super::versions::write_unsupported)); the client
/// picks one for its requests.
///
/// # Errors
/// Nothing is appended: [`DiscoverWriteError::CapabilitiesNotAnObject`] or
/// [`ServerInfoNotAnObject`](DiscoverWriteError::ServerInfoNotAnObject) for a value that is
/// not an object. (What they hold is the caller's.)
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, versions, CacheHint, CacheScope};
/// use rpcwire::{Decoder, Id, Message, RawJson};
///
/// let mut out = BytesMut::new();
/// let id = Id::from_token(br#""discover-1""#).unwrap();
/// let capabilities = RawJson::new(br#"{"tools":{},"resources":{}}"#).unwrap();
/// let me = RawJson::new(br#"{"name":"ExampleServer","version":"1.0.0"}"#).unwrap();
/// let cache = CacheHint { ttl_ms: 3_600_000, scope: CacheScope::Public };
/// mcp::write_discover_result(&mut out, id, &[versions::V2026_07_28], capabilities, Some(me), Some("Weather tools."), cache)?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":"discover-1","result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{}},"instructions":"Weather tools.","ttlMs":3600000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ExampleServer","version":"1.0.0"}}}}
/// "#[..]
/// );
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(&out[..out.len() - 1]) else { panic!() };
/// assert_eq!(r.result.get("ttlMs").and_then(|t| t.as_i64()), Some(3_600_000));
/// # Ok::<(), mcp::DiscoverWriteError>(())
/// ```
pub fn write_discover_result(
    out: &mut BytesMut,
    id: Id<'_>,
    supported_versions: &[&str],
    capabilities: RawJson<'_>,
    server_info: Option<RawJson<'_>>,
    instructions: Option<&str>,
    cache: CacheHint,
) -> Result<(), DiscoverWriteError> {
    if capabilities.kind() != JsonKind::Object {
        return Err(DiscoverWriteError::CapabilitiesNotAnObject);
    }
    if server_info.is_some_and(|info| info.kind() != JsonKind::Object) {
        return Err(DiscoverWriteError::ServerInfoNotAnObject);
    }
    encode::write_response_head(out, id);
    out.extend_from_slice(br#"{"resultType":"complete","supportedVersions":"#);
    encode::write_json_string_array(out, supported_versions);
    out.extend_from_slice(br#","capabilities":"#);
    encode::write_raw_json(out, capabilities);
    if let Some(instructions) = instructions {
        out.extend_from_slice(br#","instructions":"#);
        encode::write_json_string(out, instructions);
    }
    out.extend_from_slice(br#","ttlMs":"#);
    out.extend_from_slice(itoa::Buffer::new().format(cache.ttl_ms).as_bytes());
    out.extend_from_slice(br#","cacheScope":""#);
    out.extend_from_slice(cache.scope.as_str().as_bytes());
    out.extend_from_slice(b"\"");
    if let Some(info) = server_info {
        out.extend_from_slice(br#","_meta":{"#);
        encode::write_json_string(out, meta_keys::SERVER_INFO);
        out.extend_from_slice(b":");
        encode::write_raw_json(out, info);
        out.extend_from_slice(b"}");
    }
    out.extend_from_slice(b"}}\n");
    Ok(())
}

/// The result of `server/discover` (MCP 2026-07-28), as a client or a gateway reads it: the
/// versions the server speaks (choose one with [`choose`](Self::choose)), its capabilities
/// as a raw object, its optional instructions, the cache's hint, and the server's identity
/// from `_meta` when given; what [`write_discover_result`] writes.
///
/// The schema's `DiscoverResult` requires `"cacheScope"`, `"capabilities"`, `"resultType"`,
/// `"supportedVersions"` and `"ttlMs"`; `cacheScope` is one of `"private"` and `"public"`.
/// A required member that is missing, and any member read here that is given twice or is
/// not of its schema type, is refused with a [`DiscoverReadError`]: `resultType` and
/// `instructions` strings, `supportedVersions` an array of strings, `capabilities` an
/// object, `ttlMs` a non-negative integer that fits `u64` (in any spelling, as JSON Schema's
/// `integer` takes it: `1.0`, `1e3`, `-0`; `1.5` and `-1` are refused), `cacheScope`
/// `"public"` or `"private"`, `_meta` an object, and in it [`meta_keys::SERVER_INFO`]
/// (optional: "Servers **SHOULD** include" it) an object. Nothing is allocated: each member
/// is a view of the frame, read further when needed.
///
/// ```
/// use rpcwire::mcp::{versions, CacheScope, DiscoverResult};
/// use rpcwire::{Decoder, Message};
///
/// let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"ttlMs":60000,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// let discover = DiscoverResult::from_result(r.result)?;
/// assert_eq!(discover.choose(&[versions::V2026_07_28]), Some(versions::V2026_07_28));
/// assert_eq!(discover.supported_versions().count(), 2);
/// assert!(discover.capabilities.get("tools").is_some());
/// assert_eq!((discover.cache.ttl_ms, discover.cache.scope), (60_000, CacheScope::Private));
/// assert_eq!(discover.server_info.and_then(|i| i.get("name")).unwrap().as_bytes(), br#""s""#);
/// assert!(discover.instructions.is_none());
/// # Ok::<(), rpcwire::mcp::DiscoverReadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscoverResult<'a> {
    /// `supportedVersions`: an array of strings (each checked to be one).
    pub supported_versions: RawJson<'a>,
    /// `capabilities` (an object, a `ServerCapabilities`).
    pub capabilities: RawJson<'a>,
    /// `instructions`, when the server gives them.
    pub instructions: Option<JsonStr<'a>>,
    /// `ttlMs` and `cacheScope`.
    pub cache: CacheHint,
    /// `_meta`'s [`meta_keys::SERVER_INFO`] (an object, an `Implementation`), when given.
    pub server_info: Option<RawJson<'a>>,
}

impl<'a> DiscoverResult<'a> {
    /// Reads `result`, the result of a `server/discover` request.
    ///
    /// # Errors
    ///
    /// A [`DiscoverReadError`], checked in this order:
    /// - [`NotAnObject`](DiscoverReadError::NotAnObject) when `result` is not an object;
    /// - [`Malformed`](DiscoverReadError::Malformed) when it cannot be read member by member,
    ///   or [`Duplicated`](DiscoverReadError::Duplicated) for a member read here given twice;
    /// - then for `resultType`, `supportedVersions`, `capabilities`, `instructions`, `ttlMs`,
    ///   `cacheScope` and `_meta` in turn: [`Missing`](DiscoverReadError::Missing) when a
    ///   required one is absent, [`WrongType`](DiscoverReadError::WrongType) when it is not
    ///   of the type [`DiscoverResult`] lists;
    /// - in `_meta`, the server info: [`Malformed`](DiscoverReadError::Malformed) when
    ///   `_meta` cannot be read member by member,
    ///   [`Duplicated`](DiscoverReadError::Duplicated) when it is given twice,
    ///   [`WrongType`](DiscoverReadError::WrongType) when it is not an object.
    pub fn from_result(result: RawJson<'a>) -> Result<Self, DiscoverReadError> {
        use DiscoverMember as M;
        if result.kind() != JsonKind::Object {
            return Err(DiscoverReadError::NotAnObject);
        }
        const MEMBERS: [DiscoverMember; 7] = [
            M::ResultType,
            M::SupportedVersions,
            M::Capabilities,
            M::Instructions,
            M::TtlMs,
            M::CacheScope,
            M::Meta,
        ];
        let found = result.lookup_each(MEMBERS.map(DiscoverMember::name));
        let mut values = [None; 7];
        for ((lookup, member), value) in found.into_iter().zip(MEMBERS).zip(&mut values) {
            *value = present(lookup, member)?;
        }
        let [
            result_type,
            versions,
            capabilities,
            instructions,
            ttl,
            scope,
            meta,
        ] = values;
        let required = |v: Option<RawJson<'a>>, m| v.ok_or(DiscoverReadError::Missing(m));
        let string = |v: RawJson<'a>, m| v.as_str().ok_or(DiscoverReadError::WrongType(m));
        string(required(result_type, M::ResultType)?, M::ResultType)?;
        let versions = required(versions, M::SupportedVersions)?;
        if !is_array_of_strings(versions) {
            return Err(DiscoverReadError::WrongType(M::SupportedVersions));
        }
        let capabilities = required(capabilities, M::Capabilities)?;
        if capabilities.kind() != JsonKind::Object {
            return Err(DiscoverReadError::WrongType(M::Capabilities));
        }
        let instructions = instructions
            .map(|v| string(v, M::Instructions))
            .transpose()?;
        let ttl_ms =
            ttl_ms(required(ttl, M::TtlMs)?).ok_or(DiscoverReadError::WrongType(M::TtlMs))?;
        let scope = cache_scope(required(scope, M::CacheScope)?)
            .ok_or(DiscoverReadError::WrongType(M::CacheScope))?;
        let server_info = match meta {
            None => None,
            Some(meta) if meta.kind() != JsonKind::Object => {
                return Err(DiscoverReadError::WrongType(M::Meta));
            }
            Some(meta) => present(meta.lookup(meta_keys::SERVER_INFO), M::ServerInfo)?,
        };
        if server_info.is_some_and(|info| info.kind() != JsonKind::Object) {
            return Err(DiscoverReadError::WrongType(M::ServerInfo));
        }
        Ok(DiscoverResult {
            supported_versions: versions,
            capabilities,
            instructions,
            cache: CacheHint { ttl_ms, scope },
            server_info,
        })
    }

    /// The versions the server speaks (`supportedVersions`), in its order, as JSON strings.
    pub fn supported_versions(&self) -> impl Iterator<Item = JsonStr<'a>> + use<'a> {
        self.supported_versions
            .elements()
            .filter_map(|v| v.as_str())
    }

    /// The version a client that speaks `supported` talks to this server in:
    /// [`versions::choose`](super::versions::choose) of `supportedVersions`, the latest both
    /// speak; `None` when they share none. One of 2026-07-28 or later is named in each
    /// request's `_meta`; an earlier one (both speak no later one) is negotiated with
    /// `initialize` instead, which a server refuses per request
    /// ([`RequestMeta::check`](super::RequestMeta::check)).
    pub fn choose<'s>(&self, supported: &[&'s str]) -> Option<&'s str> {
        super::versions::choose(self.supported_versions, supported)
    }
}

/// `Some` for a member found once, `None` for an absent one; an error for one given twice or
/// in an object too malformed to read.
fn present(
    lookup: Lookup<'_>,
    member: DiscoverMember,
) -> Result<Option<RawJson<'_>>, DiscoverReadError> {
    match lookup {
        Lookup::Found(v) => Ok(Some(v)),
        Lookup::Absent => Ok(None),
        Lookup::Ambiguous => Err(DiscoverReadError::Duplicated(member)),
        Lookup::Malformed => Err(DiscoverReadError::Malformed),
    }
}

/// Whether `value` is an array, read to its end, whose every element is a string.
fn is_array_of_strings(value: RawJson<'_>) -> bool {
    if value.kind() != JsonKind::Array {
        return false;
    }
    let mut elements = value.elements();
    elements.by_ref().all(|v| v.as_str().is_some()) && !elements.stopped_early()
}

/// `ttlMs`: a non-negative integer that fits `u64`, in any spelling. The schema's type is
/// JSON Schema's `integer`, "a number with a zero fractional part" (2020-12 validation, 6.1.1),
/// so `1.0`, `1e3` and `-0` are integers as `1`, `1000` and `0` are (ajv's and Python's
/// `jsonschema`'s validators, and the SDKs' number types, take them). The value is exact: a
/// spelling is read as its decimal digits, never through an `f64`.
fn ttl_ms(value: RawJson<'_>) -> Option<u64> {
    let token = value.as_bytes();
    if scan::scalar::number_end(token, 0) != Ok(token.len()) {
        return None; // no number (a member of a lazily read object is only delimited)
    }
    let NumberParts {
        negative,
        int,
        frac,
        exponent_negative,
        exponent,
    } = NumberParts::of(token);
    // The value is the digits of `int` and `frac` × 10^(`exponent` − `frac`'s length).
    // Saturating: an exponent past `i64` is far past any `u64` (or any fraction) either way.
    let magnitude = exponent.iter().fold(0i64, |n, &d| {
        n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    let exponent = if exponent_negative {
        -magnitude
    } else {
        magnitude
    };
    let digits = || int.iter().chain(frac).copied();
    let leading = digits().take_while(|&d| d == b'0').count();
    let total = int.len() + frac.len();
    if leading == total {
        return Some(0); // every digit is zero: `0`, `-0`, `0.0e7`
    }
    let trailing = digits().rev().take_while(|&d| d == b'0').count();
    let significant = total - leading - trailing;
    let shift = exponent
        .saturating_sub(i64::try_from(frac.len()).ok()?)
        .saturating_add(i64::try_from(trailing).ok()?);
    // Negative, or a fraction (its last significant digit after the point), or past `u64`'s
    // 20 digits.
    if negative || shift < 0 || i64::try_from(significant).ok()?.saturating_add(shift) > 20 {
        return None;
    }
    let value = digits()
        .skip(leading)
        .take(significant)
        .try_fold(0u64, |n, d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })?;
    value.checked_mul(10u64.checked_pow(u32::try_from(shift).ok()?)?)
}

/// `cacheScope`: `"public"` or `"private"` (escapes decoded).
fn cache_scope(value: RawJson<'_>) -> Option<CacheScope> {
    let name = value.as_str()?;
    [CacheScope::Public, CacheScope::Private]
        .into_iter()
        .find(|scope| name.eq_str(scope.as_str()))
}

/// A member of a `server/discover` result that [`DiscoverResult`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiscoverMember {
    /// `resultType` (a string).
    ResultType,
    /// `supportedVersions` (an array of strings).
    SupportedVersions,
    /// `capabilities` (an object).
    Capabilities,
    /// `instructions` (a string, optional).
    Instructions,
    /// `ttlMs` (a non-negative integer).
    TtlMs,
    /// `cacheScope` (`"public"` or `"private"`).
    CacheScope,
    /// `_meta` (an object, optional).
    Meta,
    /// `_meta`'s [`meta_keys::SERVER_INFO`] (an object, optional).
    ServerInfo,
}

impl DiscoverMember {
    /// The member's JSON name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::ResultType => "resultType",
            Self::SupportedVersions => "supportedVersions",
            Self::Capabilities => "capabilities",
            Self::Instructions => "instructions",
            Self::TtlMs => "ttlMs",
            Self::CacheScope => "cacheScope",
            Self::Meta => "_meta",
            Self::ServerInfo => meta_keys::SERVER_INFO,
        }
    }

    /// The JSON type the schema gives the member.
    const fn expected(self) -> &'static str {
        match self {
            Self::ResultType | Self::Instructions => "a string",
            Self::SupportedVersions => "an array of strings",
            Self::Capabilities | Self::Meta | Self::ServerInfo => "an object",
            Self::TtlMs => "a non-negative integer",
            Self::CacheScope => r#""public" or "private""#,
        }
    }
}

/// Why [`DiscoverResult::from_result`] read nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiscoverReadError {
    /// The result is not an object.
    NotAnObject,
    /// The result (or its `_meta`) cannot be read member by member (lazy validation let
    /// through members out of order, `{"a" 1}`), so whether a member is there, or there
    /// twice, is unknown.
    Malformed,
    /// A required member is not there.
    Missing(DiscoverMember),
    /// A member is there twice: peers may read either.
    Duplicated(DiscoverMember),
    /// A member is not of the schema's type.
    WrongType(DiscoverMember),
}

impl DiscoverReadError {
    /// The member the error is about, if one.
    pub const fn member(self) -> Option<DiscoverMember> {
        match self {
            Self::Missing(m) | Self::Duplicated(m) | Self::WrongType(m) => Some(m),
            Self::NotAnObject | Self::Malformed => None,
        }
    }
}

impl core::fmt::Display for DiscoverReadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotAnObject => f.write_str("the result is not an object"),
            Self::Malformed => f.write_str("the object cannot be read member by member"),
            Self::Missing(m) => write!(f, "{} is required", m.name()),
            Self::Duplicated(m) => write!(f, "{} is given twice", m.name()),
            Self::WrongType(m) => write!(f, "{} must be {}", m.name(), m.expected()),
        }
    }
}

impl core::error::Error for DiscoverReadError {}
