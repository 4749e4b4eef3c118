//! A server's check of the per-request `_meta` fields of MCP 2026-07-28: the version a request
//! names, and the fields every request must carry.

use bytes::BytesMut;

use crate::encode;
use crate::error::ErrorCode;
use crate::json::JsonStr;
use crate::message::ReplyId;

use super::{RequestMeta, meta_keys, versions};

/// Why [`RequestMeta::check`] refused a request of MCP 2026-07-28, and the error to answer it
/// with ([`write_reply`](Self::write_reply); on HTTP, with `400 Bad Request`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestMetaError<'a> {
    /// `_meta` names no protocol version: none, one that is not a string, or one given twice
    /// (or in a `_meta` given twice or too malformed to read whole), which peers may read
    /// either way. A malformed request: -32602 Invalid params.
    MissingProtocolVersion,
    /// `_meta` names a version the server does not serve per request: -32022
    /// `UnsupportedProtocolVersion`, with the versions it supports.
    UnsupportedVersion {
        /// The version the request names, as the client wrote it.
        requested: JsonStr<'a>,
    },
    /// `_meta` has no `io.modelcontextprotocol/clientCapabilities` object (absent, of another
    /// type, or given twice). A malformed request: -32602 Invalid params.
    MissingClientCapabilities,
}

impl RequestMetaError<'_> {
    /// The JSON-RPC error code of the reply: -32022 for an unsupported version, else -32602.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::UnsupportedVersion { .. } => ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION,
            Self::MissingProtocolVersion | Self::MissingClientCapabilities => {
                ErrorCode::INVALID_PARAMS
            }
        }
    }

    /// Appends the error reply to the request `id`: for an unsupported version,
    /// [`versions::write_unsupported`] with -32022 and `supported` (every version the server
    /// speaks, those of `initialize` included, as MCP's example lists them); else -32602
    /// naming the missing field.
    pub fn write_reply<'i>(
        &self,
        out: &mut BytesMut,
        id: impl Into<ReplyId<'i>>,
        supported: &[&str],
    ) {
        let message = match self {
            Self::UnsupportedVersion { requested } => {
                let requested = requested.decode();
                versions::write_unsupported(out, id, self.code(), &requested, supported);
                return;
            }
            Self::MissingProtocolVersion => {
                "Invalid params: _meta must name io.modelcontextprotocol/protocolVersion once, a string"
            }
            Self::MissingClientCapabilities => {
                "Invalid params: _meta must hold io.modelcontextprotocol/clientCapabilities once, an object"
            }
        };
        encode::write_error(out, id, self.code(), message, None);
    }
}

impl core::fmt::Display for RequestMetaError<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::MissingProtocolVersion => {
                write!(f, "_meta names no {}", meta_keys::PROTOCOL_VERSION)
            }
            Self::UnsupportedVersion { requested } => {
                write!(f, "unsupported protocol version {:?}", requested.decode())
            }
            Self::MissingClientCapabilities => {
                write!(f, "_meta holds no {}", meta_keys::CLIENT_CAPABILITIES)
            }
        }
    }
}

impl core::error::Error for RequestMetaError<'_> {}

impl<'a> RequestMeta<'a> {
    /// A server's check of a request of MCP 2026-07-28 or later, before it serves it: the
    /// version the request is made under, one of `supported` (the versions the server
    /// speaks), to serve it by ([`write_result`](super::write_result),
    /// [`for_protocol_version`](crate::DecodeOptions::for_protocol_version)), or the error to
    /// refuse it with.
    ///
    /// For requests only (notifications carry no required field). A server of earlier
    /// versions too (dual-era) calls it for a request whose `_meta` names a version, or one
    /// outside any `initialize` session; a request of such a session names none, and is
    /// served by the session's version. A server that serves no version per request (none
    /// of `supported` is 2026-07-28 or later) is a legacy one, and has no use for it: -32022
    /// "identifies a modern server", and a client that gets it retries with a listed version
    /// of 2026-07-28 or later instead of falling back to `initialize` (a listed earlier one
    /// is `initialize`'s, refused per request).
    ///
    /// # Errors
    ///
    /// The [`RequestMetaError`] to refuse the request with
    /// ([`write_reply`](RequestMetaError::write_reply)), checked in this order (the
    /// specification orders none of them):
    ///
    /// - no protocol version ([`RequestMetaError::MissingProtocolVersion`]): "A request
    ///   missing any required field is malformed; the server **MUST** reject it with
    ///   JSON-RPC error code `-32602` (Invalid params)";
    /// - a version not in `supported`, exactly, or one of `initialize` (before 2026-07-28),
    ///   which is negotiated at `initialize` and not served per request
    ///   ([`RequestMetaError::UnsupportedVersion`]): "If the server does not implement the
    ///   requested version (whether the version is unknown to the server, or is a known
    ///   version the server has chosen not to support), it **MUST** respond with an
    ///   `UnsupportedProtocolVersionError` listing the versions it does support";
    /// - no client capabilities ([`RequestMetaError::MissingClientCapabilities`]): the other
    ///   required field (`{}` declares none, and is there).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::mcp::{versions, RequestMeta};
    /// use rpcwire::{Decoder, Message};
    ///
    /// const SUPPORTED: &[&str] = &[versions::V2025_11_25, versions::V2026_07_28];
    /// let reply = |frame: &[u8]| {
    ///     let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    ///     let mut out = BytesMut::new();
    ///     match RequestMeta::from_request(&req).check(SUPPORTED) {
    ///         Ok(version) => out.extend_from_slice(version.as_bytes()),
    ///         Err(e) => e.write_reply(&mut out, req.id, SUPPORTED),
    ///     }
    ///     String::from_utf8(out.to_vec()).unwrap()
    /// };
    /// let caps = r#""io.modelcontextprotocol/clientCapabilities":{}"#;
    /// let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28",{caps}}}}}}}"#);
    /// assert_eq!(reply(frame.as_bytes()), "2026-07-28");
    ///
    /// let frame = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2099-01-01",{caps}}}}}}}"#);
    /// assert_eq!(
    ///     reply(frame.as_bytes()),
    ///     r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25","2026-07-28"],"requested":"2099-01-01"}}}
    /// "#
    /// );
    ///
    /// let frame = br#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}"#;
    /// assert!(reply(frame).starts_with(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"#));
    /// ```
    pub fn check<'s>(&self, supported: &[&'s str]) -> Result<&'s str, RequestMetaError<'a>> {
        let requested = self
            .protocol_version
            .ok_or(RequestMetaError::MissingProtocolVersion)?;
        let version = supported
            .iter()
            .copied()
            .find(|v| requested.eq_str(v) && versions::is_at_least(v, versions::V2026_07_28))
            .ok_or(RequestMetaError::UnsupportedVersion { requested })?;
        if self.client_capabilities.is_none() {
            return Err(RequestMetaError::MissingClientCapabilities);
        }
        Ok(version)
    }
}
