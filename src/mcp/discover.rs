//! `server/discover` (MCP 2026-07-28), a server's side: its result, written with
//! [`write_discover_result`], with the caching hints every such result carries
//! ([`CacheHint`]).

use bytes::BytesMut;

use crate::encode;
use crate::id::Id;
use crate::json::{JsonKind, RawJson};

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
    out.extend_from_slice(br#"{"resultType":"complete","supportedVersions":["#);
    for (i, version) in supported_versions.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",");
        }
        encode::write_json_string(out, version);
    }
    out.extend_from_slice(br#"],"capabilities":"#);
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
