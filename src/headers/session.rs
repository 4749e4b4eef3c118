//! `Mcp-Session-Id`: the session a Streamable HTTP server may assign in its reply to
//! `initialize`, which the client then sends on every request of the session.

use super::trim_ows;

/// `Mcp-Session-Id`: the session id a server assigns with its `initialize` reply, and the
/// client sends back on every later request of the session (Streamable HTTP, 2025-03-26 to
/// 2025-11-25; 2026-07-28 has no sessions).
pub const SESSION_ID: &str = "Mcp-Session-Id";

/// Why an `Mcp-Session-Id` value is not a session id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SessionIdError {
    /// The value is empty, or spaces and tabs alone.
    Empty,
    /// The value holds a byte outside visible ASCII.
    NotVisibleAscii {
        /// Where, counted from the value's start (the spaces and tabs around it included).
        at: usize,
        /// The byte.
        byte: u8,
    },
}

impl core::fmt::Display for SessionIdError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SessionIdError::Empty => f.write_str("Mcp-Session-Id header is empty"),
            SessionIdError::NotVisibleAscii { at, byte } => write!(
                f,
                "Mcp-Session-Id header holds byte 0x{byte:02x} at {at}, outside visible ASCII \
                 (0x21-0x7e)"
            ),
        }
    }
}

impl core::error::Error for SessionIdError {}

/// Reads an `Mcp-Session-Id` header value: the session id as text, or why it is none.
///
/// The transport specification: "The session ID **MUST** only contain visible ASCII
/// characters (ranging from 0x21 to 0x7E)". The spaces and tabs around the value are HTTP's
/// optional whitespace, no part of a field value, and are stripped, as
/// [`decode_header_value`](super::decode_header_value) strips them.
///
/// A server checks the id a client sends before it looks the session up (a request whose id
/// is malformed gets `400 Bad Request`, as one without the header does where the server
/// requires sessions); a client checks the one a server assigns before it echoes it on every
/// request. The specification sets no length limit; an HTTP server's header size limit bounds
/// it.
///
/// # Errors
///
/// - [`SessionIdError::Empty`] when nothing is left once the spaces and tabs around the
///   value are stripped;
/// - [`SessionIdError::NotVisibleAscii`] for the first byte left outside 0x21–0x7E: a space
///   or a tab inside the value, a control byte, a byte that is not ASCII. Its `at` is its
///   index in `value`, the whitespace stripped before it counted.
///
/// ```
/// use rpcwire::headers::{SessionIdError, session_id};
/// assert_eq!(session_id(b"1868a90c-3a4b-4a6f-9e2d-55d0b8c1b7a2"), Ok("1868a90c-3a4b-4a6f-9e2d-55d0b8c1b7a2"));
/// assert_eq!(session_id(b" abc~!\t"), Ok("abc~!"));
/// assert_eq!(session_id(b"a b"), Err(SessionIdError::NotVisibleAscii { at: 1, byte: b' ' }));
/// assert_eq!(session_id("séance".as_bytes()), Err(SessionIdError::NotVisibleAscii { at: 1, byte: 0xc3 }));
/// assert_eq!(session_id(b" \t"), Err(SessionIdError::Empty));
/// ```
// The one `expect` cannot fail: it runs on visible ASCII only, which is UTF-8.
#[allow(clippy::missing_panics_doc)]
pub fn session_id(value: &[u8]) -> Result<&str, SessionIdError> {
    let (start, id) = trim_ows(value);
    if id.is_empty() {
        return Err(SessionIdError::Empty);
    }
    if let Some(i) = id.iter().position(|b| !(0x21..=0x7e).contains(b)) {
        return Err(SessionIdError::NotVisibleAscii {
            at: start + i,
            byte: id[i],
        });
    }
    // Visible ASCII is UTF-8.
    Ok(core::str::from_utf8(id).expect("visible ASCII is UTF-8"))
}
