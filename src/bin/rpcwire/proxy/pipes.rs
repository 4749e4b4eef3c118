//! The pipes' I/O: blocking reads into a side's buffer, and vectored writes of what is
//! forwarded straight into the other side's pipe.

use std::io::{self, IoSlice, Read, Write};
use std::sync::{Mutex, PoisonError};

use bytes::{Buf, Bytes, BytesMut};
use smallvec::SmallVec;

/// Bytes asked for per read.
pub(super) const READ: usize = 256 << 10;
/// Pipe buffer size asked for (the pipes to and from the server, and ours when they are pipes).
const PIPE: usize = 1 << 20;

/// What one writer gets at a time: runs of forwarded lines (slices of the reader's buffer,
/// not copies) and local replies, written in order with vectored writes. (Not a JSON-RPC
/// batch: those travel inside the parts like any other line.)
pub(super) type Parts = Vec<Bytes>;

/// Parts being written: what is left of them.
struct Unwritten {
    parts: Parts,
    /// The first part not written in full.
    next: usize,
}

impl Unwritten {
    /// All of `parts`, none written yet.
    fn new(parts: Parts) -> Self {
        Unwritten { parts, next: 0 }
    }

    /// Whether every part was written.
    fn is_done(&self) -> bool {
        self.next == self.parts.len()
    }

    /// The next parts to hand to one `writev` (at most 64, on the stack).
    fn slices(&self) -> SmallVec<[IoSlice<'_>; 64]> {
        let parts = &self.parts[self.next..];
        parts.iter().take(64).map(|b| IoSlice::new(b)).collect()
    }

    /// Drops the first `n` bytes left (a write took them).
    fn advance(&mut self, mut n: usize) {
        while n > 0 {
            let part = &mut self.parts[self.next];
            let take = n.min(part.len());
            part.advance(take);
            n -= take;
            if part.is_empty() {
                self.next += 1;
            }
        }
    }
}

/// Writes every one of `parts` to a blocking writer.
fn write_parts(out: &mut impl Write, parts: Parts) -> io::Result<()> {
    let mut left = Unwritten::new(parts);
    while !left.is_done() {
        let written = out.write_vectored(&left.slices());
        match written {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => left.advance(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    out.flush()
}

/// One side's input (the server's stdin, our stdout), written by whichever thread has
/// something for it, straight from that thread: no queue and no writer task between a read
/// and the write that forwards it (each hop was a thread wake-up per message on the round
/// trip). `None` once closed or broken.
pub(super) struct Sink<W>(Mutex<Option<W>>);

impl<W: Write> Sink<W> {
    /// A sink writing to `out`.
    pub(super) fn new(out: W) -> Self {
        Sink(Mutex::new(Some(out)))
    }

    /// The writer, locked (`None` once closed); a lock poisoned by a panic in another thread
    /// is taken as it is.
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Option<W>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes all the parts (blocking while the reader is behind: backpressure); `false`
    /// when the sink is closed or the write fails (the sink is then closed).
    pub(super) fn send(&self, parts: Parts) -> bool {
        let mut out = self.lock();
        let Some(w) = out.as_mut() else {
            return false;
        };
        let sent = write_parts(w, parts).is_ok();
        if !sent {
            *out = None;
        }
        sent
    }

    /// Closes the sink (the reader sees the end of its input).
    pub(super) fn close(&self) {
        self.lock().take();
    }
}

/// The most a side's read buffer keeps once what it read is sorted: room for two reads (a
/// read's worth, and a line left unfinished). A buffer grown past it by a long line (up to
/// the frame limit) is given back once that line is gone, so that a long-lived proxy does
/// not hold the longest line it ever read, for each side.
const READ_KEEP: usize = 2 * READ;

/// One side's input: the buffer its reads go into, and the bytes of one read.
pub(super) struct Input {
    scratch: Vec<u8>,
    buf: BytesMut,
}

impl Input {
    /// An input with nothing read yet.
    pub(super) fn new() -> Self {
        Input {
            scratch: vec![0; READ],
            buf: BytesMut::with_capacity(READ),
        }
    }

    /// Reads once from `input` and hands the buffer to `sort`, with whether the input ended
    /// (0 bytes read: its end, or an error), to take what it can of it; returns the number of
    /// bytes read. A buffer a long line grew past [`READ_KEEP`] is then replaced by one of a
    /// read's size, holding what `sort` left (when that is no more than a read: a line still
    /// growing keeps its buffer).
    pub(super) fn read_and_sort(
        &mut self,
        input: &mut impl Read,
        sort: impl FnOnce(&mut BytesMut, bool),
    ) -> usize {
        let n = loop {
            match input.read(&mut self.scratch) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other.unwrap_or(0),
            }
        };
        self.buf.extend_from_slice(&self.scratch[..n]);
        // (What the buffer can hold from where it starts: no more than its allocation.)
        let grown = self.buf.capacity() > READ_KEEP;
        sort(&mut self.buf, n == 0);
        if grown && self.buf.len() <= READ {
            let mut fresh = BytesMut::with_capacity(READ);
            fresh.extend_from_slice(&self.buf);
            self.buf = fresh;
        }
        n
    }
}

/// All the bytes of `buf`, to send: `buf` keeps its memory for the next ones (no allocation
/// per message once it has room for them) only up to [`rpcwire::REUSE_KEEP`]; past that, it
/// goes with the bytes, so that one large burst of replies is not held after it is sent.
pub(super) fn take_all(buf: &mut BytesMut) -> Bytes {
    if buf.capacity() > rpcwire::REUSE_KEEP {
        std::mem::take(buf).freeze()
    } else {
        buf.split().freeze()
    }
}

/// Asks for a bigger pipe buffer (Linux, up to the unprivileged maximum of 1 MiB): fewer,
/// larger reads and writes, and fewer wake-ups on both sides. Not a pipe, or not allowed:
/// nothing changes.
pub(super) fn widen_pipe(fd: impl std::os::fd::AsFd) {
    #[cfg(target_os = "linux")]
    {
        use nix::fcntl::{FcntlArg, fcntl};
        let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(PIPE as i32));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpcwire::LineFramer;

    /// The bytes `buf` holds from where it starts to the end of its memory, once it is the
    /// only owner of that memory (a small write reclaims all of it then).
    fn room(buf: &mut BytesMut) -> usize {
        buf.reserve(1);
        buf.capacity()
    }

    /// A 4 MiB line, then a short one: once the long line is sorted and gone, the side's
    /// buffer holds no more than `READ_KEEP` (it held the long line's memory for good).
    #[test]
    fn a_long_line_is_not_held_after_it() {
        let long = [&vec![b'1'; 4 << 20][..], b"\n[2]\n"].concat();
        let mut reader = &long[..];
        let mut input = Input::new();
        let mut framer = LineFramer::new(8 << 20);
        let mut lines = Vec::new();
        while input.read_and_sort(&mut reader, |buf, eof| {
            let chunk = if eof {
                framer.decode_chunk_eof(buf)
            } else {
                framer.decode_chunk(buf)
            };
            // Sent, and dropped: the proxy writes a chunk before it reads again.
            lines.extend(chunk.unwrap().map(|c| c.len()));
        }) > 0
        {}
        assert_eq!(lines.iter().sum::<usize>(), long.len());
        assert!(input.buf.is_empty());
        let kept = room(&mut input.buf);
        assert!(kept <= READ_KEEP, "the buffer holds {kept} bytes");
    }

    /// Replies of 1 MiB, sent, then short ones: the buffer keeps no more than `REUSE_KEEP` (it
    /// held the large ones' memory for good); short ones reuse it.
    #[test]
    fn a_large_burst_of_replies_is_not_held_after_it() {
        let mut replies = BytesMut::new();
        replies.extend_from_slice(&vec![b' '; 1 << 20]);
        drop(take_all(&mut replies));
        replies.extend_from_slice(b"{}\n");
        assert_eq!(&take_all(&mut replies)[..], b"{}\n");
        let kept = room(&mut replies);
        assert!(kept <= rpcwire::REUSE_KEEP, "the buffer holds {kept} bytes");
        // The same memory: where the buffer starts moves by no more than a reply.
        let memory = replies.as_ptr() as usize;
        replies.extend_from_slice(b"{}\n");
        drop(take_all(&mut replies));
        replies.extend_from_slice(b"{}\n");
        let moved = (replies.as_ptr() as usize).abs_diff(memory);
        assert!(moved <= 3, "short replies reuse it (moved by {moved})");
    }
}
