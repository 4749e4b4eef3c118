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

/// Reads into `buf` (through `scratch`): the number of bytes read, 0 at the end of the input
/// or on an error.
pub(super) fn read_into(input: &mut impl Read, scratch: &mut [u8], buf: &mut BytesMut) -> usize {
    let n = loop {
        match input.read(scratch) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => break other.unwrap_or(0),
        }
    };
    buf.extend_from_slice(&scratch[..n]);
    n
}

/// Asks for a bigger pipe buffer (Linux, up to the unprivileged maximum of 1 MiB): fewer,
/// larger reads and writes, and fewer wake-ups on both sides. Not a pipe, or not allowed:
/// nothing changes.
pub(super) fn widen_pipe(fd: impl std::os::fd::AsFd) {
    #[cfg(target_os = "linux")]
    {
        use nix::fcntl::{fcntl, FcntlArg};
        let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(PIPE as i32));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}
