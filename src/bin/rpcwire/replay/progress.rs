//! The progress line on stderr while a large input is read, only when stderr is a terminal.

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Files from this size on get a progress line on stderr, when stderr is a terminal.
const PROGRESS_FROM: u64 = 64 << 20;

/// A progress line on stderr for large inputs, only when stderr is a terminal.
pub(crate) struct Progress {
    /// The size of the input, in bytes.
    total: u64,
    /// How many bytes of it were read.
    done: u64,
    /// Whether the line is shown at all: a large input, and stderr a terminal.
    enabled: bool,
    /// When the line was last written (at most every 250 ms).
    last: Instant,
    /// Whether the line was written, and so is to be finished.
    shown: bool,
}

impl Progress {
    /// The progress line of an input of `total` bytes.
    pub fn new(total: u64) -> Progress {
        Progress {
            total,
            done: 0,
            enabled: total >= PROGRESS_FROM && io::stderr().is_terminal(),
            last: Instant::now(),
            shown: false,
        }
    }

    /// Counts `bytes` more read, and writes the line again when it is due.
    pub fn add(&mut self, bytes: u64) {
        self.done += bytes;
        if self.enabled && self.last.elapsed() >= Duration::from_millis(250) {
            self.last = Instant::now();
            self.shown = true;
            // (A closed stderr loses the meter, nothing else.)
            let _ = write!(
                io::stderr(),
                "\rrpcwire check: {} of {} MB ({}%)",
                self.done >> 20,
                self.total >> 20,
                self.done * 100 / self.total.max(1)
            );
        }
    }

    /// Ends the line, when it was shown, with how much was read.
    pub fn finish(&mut self) {
        if self.shown {
            say!("\rrpcwire check: {} MB, done.          ", self.done >> 20);
            self.shown = false;
        }
    }
}

impl Drop for Progress {
    /// Ends a line left shown (a replay stopped by an error), so that the error's message
    /// starts a line of its own rather than being written over the meter's.
    fn drop(&mut self) {
        if self.shown {
            let _ = writeln!(io::stderr());
        }
    }
}

/// The size of the file at `path`, for the progress line: 0 when it cannot be known (`-`, the
/// standard input; a file whose metadata cannot be read).
pub(super) fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}
