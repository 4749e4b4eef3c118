//! The `_meta` key-name rules of MCP ([`MetaKey`]).

/// Why a `_meta` key name breaks MCP's naming rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MetaKeyError {
    /// A prefix label is empty, does not start with a letter, does not end with a letter or
    /// digit, or holds a character other than letters, digits and hyphens.
    BadPrefixLabel,
    /// The name is not empty and does not begin and end with an alphanumeric character, or
    /// holds a character other than alphanumerics, `-`, `_` and `.` (an empty name is allowed).
    BadName,
}

impl core::fmt::Display for MetaKeyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            MetaKeyError::BadPrefixLabel => "a _meta key prefix label breaks MCP's naming rules",
            MetaKeyError::BadName => "a _meta key name breaks MCP's naming rules",
        })
    }
}

impl core::error::Error for MetaKeyError {}

/// A `_meta` key that follows MCP's rules: an optional prefix (`labels.separated.by.dots/`)
/// and a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetaKey<'a> {
    /// The prefix without its slash, if any.
    pub prefix: Option<&'a str>,
    /// The name.
    pub name: &'a str,
}

impl<'a> MetaKey<'a> {
    /// Checks `key` against the rules: the prefix is what comes before its last `/`, the
    /// name what comes after it (the whole key when it has none).
    ///
    /// # Errors
    ///
    /// - [`MetaKeyError::BadPrefixLabel`] when a label of the prefix (split at each `.`) is
    ///   empty, does not start with an ASCII letter, does not end with an ASCII letter or
    ///   digit, or holds a character other than those and `-`;
    /// - else [`MetaKeyError::BadName`] when the name is not empty and does not begin and end
    ///   with an ASCII letter or digit, or holds a character other than those, `-`, `_` and
    ///   `.`.
    ///
    /// ```
    /// use rpcwire::mcp::MetaKey;
    /// let k = MetaKey::parse("io.modelcontextprotocol/protocolVersion").unwrap();
    /// assert!(k.is_reserved());
    /// assert!(!MetaKey::parse("progressToken").unwrap().is_reserved());
    /// assert!(MetaKey::parse("-bad/x").is_err());
    /// ```
    pub fn parse(key: &'a str) -> Result<Self, MetaKeyError> {
        let (prefix, name) = match key.rfind('/') {
            Some(at) => (Some(&key[..at]), &key[at + 1..]),
            None => (None, key),
        };
        if let Some(prefix) = prefix {
            for label in prefix.split('.') {
                let b = label.as_bytes();
                let ok = b.first().is_some_and(u8::is_ascii_alphabetic)
                    && b.last().is_some_and(u8::is_ascii_alphanumeric)
                    && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-');
                if !ok {
                    return Err(MetaKeyError::BadPrefixLabel);
                }
            }
        }
        let b = name.as_bytes();
        let ok = b.is_empty()
            || (b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(c)));
        if !ok {
            return Err(MetaKeyError::BadName);
        }
        Ok(MetaKey { prefix, name })
    }

    /// Whether the prefix is reserved for MCP: its second label is `modelcontextprotocol` or
    /// `mcp` (MCP 2025-11-25 and later: `io.modelcontextprotocol/`, `dev.mcp/`,
    /// `com.mcp.tools/` are reserved, `com.example.mcp/` is not). Labels are compared
    /// ignoring ASCII case, as domain labels are. (MCP 2025-06-18 worded it the other way
    /// round, `modelcontextprotocol` or `mcp` followed by a label: it reserved
    /// `modelcontextprotocol.io/` and `tools.mcp.com/` instead, and not
    /// `io.modelcontextprotocol/`.)
    pub fn is_reserved(&self) -> bool {
        let second = self.prefix.and_then(|p| p.split('.').nth(1));
        second.is_some_and(|l| {
            l.eq_ignore_ascii_case("modelcontextprotocol") || l.eq_ignore_ascii_case("mcp")
        })
    }
}
