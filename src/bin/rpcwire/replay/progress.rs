//! The progress line on stderr while a large input is read, only when stderr is a terminal.

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Files from this size on get a progress line on stderr, when stderr is a terminal.
const PROGRESS_FROM: u64 = 64 << 20;

/// A progress line on stderr for large inputs, only when stderr is a terminal.
pub(crate) struct Progress {
    total: u64,
    done: u64,
    enabled: bool,
    last: Instant,
    shown: bool,
}

impl Progress {
    pub fn new(total: u64) -> Progress {
        Progress {
            total,
            done: 0,
            enabled: total >= PROGRESS_FROM && io::stderr().is_terminal(),
            last: Instant::now(),
            shown: false,
        }
    }

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

    pub fn finish(&mut self) {
        if self.shown {
            say!("\rrpcwire check: {} MB, done.          ", self.done >> 20);
            self.shown = false;
        }
    }
}

pub(super) fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}
