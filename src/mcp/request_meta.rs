//! The per-request `_meta` fields of MCP 2026-07-28, as a server reads them
//! ([`RequestMeta`]).

use crate::json::{JsonKind, JsonStr, RawJson};
use crate::message::{Message, Request};

use super::meta_keys;

/// The per-request `_meta` fields of MCP 2026-07-28.
///
/// A server reads them ([`from_request`](Self::from_request)) and checks them
/// ([`check`](Self::check)). A client writes them into the params of each request it sends
/// (`server/discover` included, whose params hold nothing else): the version it speaks to
/// the server ([`versions::choose`], [`DiscoverResult::choose`]) under
/// [`meta_keys::PROTOCOL_VERSION`], and its capabilities, an object (`{}` declares none),
/// under [`meta_keys::CLIENT_CAPABILITIES`]; its identity, optional, under
/// [`meta_keys::CLIENT_INFO`]. [`write_request_with_meta`] splices them into the params the
/// client has, whatever those hold. Or they are members of the params the client writes, a
/// `_meta` field of its params struct with serde, say. Write one `_meta`: a wrapper that
/// `#[serde(flatten)]`s params holding a `_meta` of their own and adds another writes the
/// member twice (`serde_json` does, and the `serde` feature's `typed::to_raw` lets it through:
/// RFC 8259 allows it), and a server reads such a request as naming no version (-32602). A
/// progress token goes into that same `_meta` ([`write_request_with_progress_token`] adds it
/// to the `_meta` the params hold):
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, versions, RequestMeta};
/// use rpcwire::{Decoder, Message, PendingTable, RawJson};
///
/// #[derive(serde::Serialize)]
/// struct Meta<'a> {
///     #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
///     protocol_version: &'a str,
///     #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
///     client_capabilities: serde_json::Value,
/// }
/// #[derive(serde::Serialize)]
/// struct CallTool<'a> {
///     name: &'a str,
///     #[serde(rename = "_meta")]
///     meta: Meta<'a>,
/// }
///
/// let meta = Meta { protocol_version: versions::V2026_07_28, client_capabilities: serde_json::json!({}) };
/// let params = serde_json::to_vec(&CallTool { name: "slow", meta }).unwrap();
/// let mut pending = PendingTable::new();
/// let token = pending.insert("tools/call").unwrap();
/// let mut out = BytesMut::new();
/// let params = RawJson::new(&params).unwrap();
/// mcp::write_request_with_progress_token(&mut out, token, "tools/call", Some(params))?;
///
/// // What the server reads: the version, the capabilities and the progress token.
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(&out[..out.len() - 1]) else { panic!() };
/// assert_eq!(RequestMeta::from_request(&req).check(&[versions::V2026_07_28]), Ok(versions::V2026_07_28));
/// assert!(mcp::requested_progress_token(&req).is_some());
/// # Ok::<(), mcp::ProgressRequestError>(())
/// ```
///
/// [`versions::choose`]: super::versions::choose
/// [`DiscoverResult::choose`]: super::DiscoverResult::choose
/// [`write_request_with_meta`]: super::write_request_with_meta
/// [`write_request_with_progress_token`]: super::write_request_with_progress_token
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestMeta<'a> {
    /// `io.modelcontextprotocol/protocolVersion`
    pub protocol_version: Option<JsonStr<'a>>,
    /// `io.modelcontextprotocol/clientCapabilities` (raw object)
    pub client_capabilities: Option<RawJson<'a>>,
    /// `io.modelcontextprotocol/clientInfo` (raw object)
    pub client_info: Option<RawJson<'a>>,
}

impl<'a> RequestMeta<'a> {
    /// Reads the fields from a request's or notification's `params._meta`. A field that is
    /// absent, of another type, or ambiguous (given twice, or in a `_meta` given twice or too
    /// malformed to read whole) is `None` alike. Where the difference matters (a gateway
    /// choosing a request's options by its version must refuse an ambiguous one, which the
    /// server behind it may read either way, rather than fall back to the session's), look
    /// the field up with [`RawJson::lookup_path`]:
    ///
    /// ```
    /// use rpcwire::mcp::{meta_keys, RequestMeta};
    /// use rpcwire::{Decoder, Lookup};
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#;
    /// let msg = Decoder::mcp().decode(frame).unwrap();
    /// assert_eq!(RequestMeta::from_message(&msg).protocol_version, None);
    /// let path = ["_meta", meta_keys::PROTOCOL_VERSION];
    /// assert_eq!(msg.params().unwrap().lookup_path(&path), Lookup::Ambiguous);
    /// ```
    pub fn from_message(msg: &Message<'a>) -> Self {
        Self::from_params(msg.params())
    }

    /// [`from_message`](Self::from_message) for a handler that holds the [`Request`] alone
    /// (as [`requested_progress_token`] is [`progress_token`]'s): the version a 2026-07-28
    /// request names, to serve it by or refuse it with, as [`check`](Self::check) does
    /// (-32602 when it names none, -32022 with the supported versions when the server does
    /// not speak it).
    ///
    /// ```
    /// use rpcwire::mcp::{versions, RequestMeta, RequestMetaError};
    /// use rpcwire::{Decoder, Message};
    ///
    /// const SPEAKS: &[&str] = &[versions::V2026_07_28];
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// let meta = RequestMeta::from_request(&req);
    /// assert_eq!(meta.protocol_version.unwrap().decode(), "2099-01-01");
    /// assert!(matches!(meta.check(SPEAKS), Err(RequestMetaError::UnsupportedVersion { .. })));
    /// ```
    ///
    /// [`requested_progress_token`]: super::requested_progress_token
    /// [`progress_token`]: super::progress_token
    pub fn from_request(r: &Request<'a>) -> Self {
        Self::from_params(r.params)
    }

    /// The fields of `params._meta`.
    fn from_params(params: Option<RawJson<'a>>) -> Self {
        let Some(meta) = params.and_then(|p| p.get("_meta")) else {
            return RequestMeta::default();
        };
        let object = |key| meta.get(key).filter(|v| v.kind() == JsonKind::Object);
        RequestMeta {
            protocol_version: meta
                .get(meta_keys::PROTOCOL_VERSION)
                .and_then(|v| v.as_str()),
            client_capabilities: object(meta_keys::CLIENT_CAPABILITIES),
            client_info: object(meta_keys::CLIENT_INFO),
        }
    }
}
