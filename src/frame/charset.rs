//! The charset a `Content-Type` value declares, as far as `Content-Length` framing needs it:
//! whether a body it heads may be read as UTF-8.
//!
//! The value is read as RFC 9110 writes a media type (§8.3.1, §5.6.6):
//! `type "/" subtype *( OWS ";" OWS [ name "=" value ] )`, each name a token, each value a
//! token or a quoted-string (§5.6.4), in which `\` quotes the byte after it.

/// Whether a body under this `Content-Type` value (blanks around it removed) may be read as
/// UTF-8: the value is a media type, and each of its `charset` parameters (the name in any
/// case) is `utf-8` or `utf8` (in any case, quoted or not). With no `charset` the body is
/// UTF-8, the LSP base protocol's default.
///
/// A value that is not a media type (no `/`, a blank around `=`, an empty or unterminated
/// value, anything but `;` after a parameter) is `false`: which charset it meant cannot be
/// told, and a body read in the wrong one is misread without a sign. So is a `charset` given
/// twice when either names another charset.
pub(super) fn content_type_is_utf8(value: &[u8]) -> bool {
    read_content_type(value) == Some(true)
}

/// [`content_type_is_utf8`], with `None` for a value that is not a media type.
fn read_content_type(value: &[u8]) -> Option<bool> {
    let mut cursor = Cursor(value);
    cursor.token()?;
    cursor.eat(b'/').then_some(())?;
    cursor.token()?;
    let mut utf8 = true;
    loop {
        cursor.skip_blanks();
        if cursor.0.is_empty() {
            return Some(utf8);
        }
        cursor.eat(b';').then_some(())?;
        cursor.skip_blanks();
        // `;;` and a `;` at the end are empty parameters, which RFC 9110 allows.
        if matches!(cursor.0.first(), None | Some(b';')) {
            continue;
        }
        let name = cursor.token()?;
        cursor.eat(b'=').then_some(())?;
        let names_utf8 = cursor.value_is_utf8()?;
        if name.eq_ignore_ascii_case(b"charset") && !names_utf8 {
            utf8 = false;
        }
    }
}

/// Whether a charset name (unquoted) is UTF-8's: `utf-8`, or `utf8`, which the LSP base
/// protocol asks to be read as `utf-8` for backwards compatibility.
fn is_utf8_name(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"utf-8") || name.eq_ignore_ascii_case(b"utf8")
}

/// The unread rest of a `Content-Type` value.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    /// Takes `b` if it comes next.
    fn eat(&mut self, b: u8) -> bool {
        match self.0.split_first() {
            Some((&first, rest)) if first == b => {
                self.0 = rest;
                true
            }
            _ => false,
        }
    }

    /// Takes the spaces and tabs that come next (RFC 9110's OWS).
    fn skip_blanks(&mut self) {
        let blanks = self.0.iter().take_while(|&&b| b == b' ' || b == b'\t');
        self.0 = &self.0[blanks.count()..];
    }

    /// Takes the token that comes next (one or more `tchar`s); `None` when there is none.
    fn token(&mut self) -> Option<&'a [u8]> {
        let len = self
            .0
            .iter()
            .take_while(|&&b| super::content_length::is_tchar(b))
            .count();
        let (token, rest) = self.0.split_at(len);
        self.0 = rest;
        (len > 0).then_some(token)
    }

    /// Takes a parameter's value, a token or a quoted-string, and tells whether it names
    /// UTF-8; `None` when there is no value, or a quoted-string is not closed.
    fn value_is_utf8(&mut self) -> Option<bool> {
        if self.eat(b'"') {
            self.quoted_is_utf8()
        } else {
            self.token().map(is_utf8_name)
        }
    }

    /// Takes the rest of a quoted-string (its opening quote taken) and tells whether its
    /// text, each `\`-quoted byte unquoted, names UTF-8. The header line's bytes are all
    /// `qdtext` or quotable (the framer refused control characters and bytes that are not
    /// ASCII), so only a missing closing quote makes it malformed.
    fn quoted_is_utf8(&mut self) -> Option<bool> {
        // The longest name of UTF-8 is 5 bytes: a longer text is another charset, but is
        // still read to its closing quote.
        let mut text = [0u8; 5];
        let mut len = 0;
        loop {
            let (&b, rest) = self.0.split_first()?;
            self.0 = rest;
            let b = match b {
                b'"' => return Some(len <= text.len() && is_utf8_name(&text[..len])),
                b'\\' => {
                    let (&quoted, rest) = self.0.split_first()?;
                    self.0 = rest;
                    quoted
                }
                _ => b,
            };
            if let Some(slot) = text.get_mut(len) {
                *slot = b;
            }
            len += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::content_type_is_utf8;

    #[test]
    fn utf8_by_default_or_by_name() {
        for value in [
            "application/vscode-jsonrpc",
            "application/vscode-jsonrpc; charset=utf-8",
            "application/vscode-jsonrpc; charset=utf8",
            "application/json;charset=UTF-8",
            "application/json ;\tCharSet=\"Utf8\"",
            "application/json; charset=\"u\\tf-8\"",
            "application/json; a=b; charset=utf-8;",
            "application/json;;charset=utf-8",
            "application/json; charset=utf-8; charset=UTF8",
            "application/json; x=\"; charset=latin1\"",
            "application/json; x=\"a\\\"; charset=latin1\"",
            "application/json; charsets=latin1",
        ] {
            assert!(content_type_is_utf8(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn another_charset_or_a_malformed_value_is_not_utf8() {
        for value in [
            "application/json; charset=latin1",
            "application/json; charset=\"iso-8859-1\"",
            "application/json; charset=utf-16",
            "application/json; charset=utf-8x",
            "application/json; charset=\"utf-8 \"",
            "application/json; charset=\"utf-8\\\"\"",
            "application/json; charset=\"utf-8-and-more\"",
            "application/json; charset=\"\"",
            "application/json; charset=utf-8; charset=latin1",
            "application/json; charset=latin1; charset=utf-8",
            // Not media types: which charset was meant cannot be told.
            "application/json; charset=",
            "application/json; charset",
            "application/json; charset = utf-8",
            "application/json; charset=\"utf-8",
            "application/json; charset=\"utf-8\\",
            "application/json; charset=utf-8 latin1",
            "application/json; charset=\"utf-8\"x",
            "application/json charset=utf-8",
            "application/json; =utf-8",
            "\"application/json; charset=utf8\"",
            "application",
            "application/",
            "/json",
            "",
        ] {
            assert!(!content_type_is_utf8(value.as_bytes()), "{value}");
        }
    }
}
