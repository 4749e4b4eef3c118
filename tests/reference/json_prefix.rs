//! A recogniser of the starts of JSON texts: RFC 8259's grammar read byte by byte by
//! recursive descent, then UTF-8, sharing nothing with rpcwire's decoder. For each byte string
//! it says whether it is a whole JSON text, the start of one cut short, or where it stops
//! being one: the oracle of `Decoder::parse_error_offset` in strict mode.

/// What the recogniser says of a byte string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A whole JSON text, whitespace around it allowed.
    Whole,
    /// The start of one, cut short (nothing at all is one too).
    Cut,
    /// No JSON text has this byte here: the offset of the first byte (of its character).
    BadAt(usize),
}

/// Why the recogniser stopped inside a value.
enum Stop {
    /// The bytes ran out: what came so far can still be completed.
    End,
    /// A byte no JSON text has there.
    Bad(usize),
}

/// A recursive-descent reader of RFC 8259's grammar over bytes. It treats every byte of 0x80
/// and above as allowed inside strings and nowhere else; UTF-8 is judged apart.
struct Grammar<'a> {
    bytes: &'a [u8],
    at: usize,
    /// How many more arrays and objects may open inside the ones open.
    depth_left: usize,
}

impl Grammar<'_> {
    fn next(&self) -> Result<u8, Stop> {
        self.bytes.get(self.at).copied().ok_or(Stop::End)
    }

    fn bad(&self) -> Stop {
        Stop::Bad(self.at)
    }

    fn expect(&mut self, byte: u8) -> Result<(), Stop> {
        if self.next()? != byte {
            return Err(self.bad());
        }
        self.at += 1;
        Ok(())
    }

    fn whitespace(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Result<(), Stop> {
        self.whitespace();
        match self.next()? {
            b'{' => self.members(),
            b'[' => self.elements(),
            b'"' => self.string(),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.bad()),
        }
    }

    /// Opens an array or object: bad when one more is too deep.
    fn open(&mut self) -> Result<(), Stop> {
        if self.depth_left == 0 {
            return Err(self.bad());
        }
        self.depth_left -= 1;
        self.at += 1;
        Ok(())
    }

    /// Closes an array or object (its closer read).
    fn close(&mut self) -> Result<(), Stop> {
        self.depth_left += 1;
        self.at += 1;
        Ok(())
    }

    fn members(&mut self) -> Result<(), Stop> {
        self.open()?;
        self.whitespace();
        if self.next()? == b'}' {
            return self.close();
        }
        loop {
            self.whitespace();
            if self.next()? != b'"' {
                return Err(self.bad());
            }
            self.string()?;
            self.whitespace();
            self.expect(b':')?;
            self.value()?;
            self.whitespace();
            match self.next()? {
                b',' => self.at += 1,
                b'}' => return self.close(),
                _ => return Err(self.bad()),
            }
        }
    }

    fn elements(&mut self) -> Result<(), Stop> {
        self.open()?;
        self.whitespace();
        if self.next()? == b']' {
            return self.close();
        }
        loop {
            self.value()?;
            self.whitespace();
            match self.next()? {
                b',' => self.at += 1,
                b']' => return self.close(),
                _ => return Err(self.bad()),
            }
        }
    }

    fn word(&mut self, word: &[u8]) -> Result<(), Stop> {
        word.iter().try_for_each(|&b| self.expect(b))
    }

    fn string(&mut self) -> Result<(), Stop> {
        self.at += 1;
        loop {
            match self.next()? {
                b'"' => {
                    self.at += 1;
                    return Ok(());
                }
                b'\\' => {
                    self.at += 1;
                    match self.next()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                        b'u' => {
                            self.at += 1;
                            for _ in 0..4 {
                                if !self.next()?.is_ascii_hexdigit() {
                                    return Err(self.bad());
                                }
                                self.at += 1;
                            }
                        }
                        _ => return Err(self.bad()),
                    }
                }
                0x00..=0x1f => return Err(self.bad()),
                _ => self.at += 1,
            }
        }
    }

    /// Digits, at least one.
    fn digits(&mut self) -> Result<(), Stop> {
        if !self.next()?.is_ascii_digit() {
            return Err(self.bad());
        }
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        Ok(())
    }

    /// A number; its optional parts are looked for without running out (`1` is whole).
    fn number(&mut self) -> Result<(), Stop> {
        if self.next()? == b'-' {
            self.at += 1;
        }
        match self.next()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits()?,
            _ => return Err(self.bad()),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.digits()?;
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.next()?, b'+' | b'-') {
                self.at += 1;
            }
            self.digits()?;
        }
        Ok(())
    }
}

/// The recogniser: RFC 8259's grammar with at most `max_depth` arrays and objects open at
/// once, then UTF-8 (a text cut inside a character is cut short, not bad).
pub fn recognise(bytes: &[u8], max_depth: usize) -> Verdict {
    let mut grammar = Grammar {
        bytes,
        at: 0,
        depth_left: max_depth,
    };
    let syntax = match grammar.value() {
        Ok(()) => {
            grammar.whitespace();
            if grammar.at == bytes.len() {
                Verdict::Whole
            } else {
                Verdict::BadAt(grammar.at)
            }
        }
        Err(Stop::End) => Verdict::Cut,
        Err(Stop::Bad(at)) => Verdict::BadAt(at),
    };
    let utf8 = match core::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_some() => Some(e.valid_up_to()),
        _ => None,
    };
    match (syntax, utf8) {
        (Verdict::BadAt(at), Some(u)) => Verdict::BadAt(at.min(u)),
        (_, Some(u)) => Verdict::BadAt(u),
        (verdict, None) => verdict,
    }
}

/// What `Decoder::parse_error_offset` answers for `bytes` in strict mode, nesting at most
/// `max_depth` deep: nothing for a whole JSON text, the length for one cut short, else where
/// it stops being JSON.
pub fn parse_error_offset(bytes: &[u8], max_depth: usize) -> Option<usize> {
    match recognise(bytes, max_depth) {
        Verdict::Whole => None,
        Verdict::Cut => Some(bytes.len()),
        Verdict::BadAt(at) => Some(at),
    }
}
