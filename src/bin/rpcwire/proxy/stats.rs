//! The counters `--stats-every` prints: logged under the session's lock as they are taken,
//! but written to stderr by a thread of their own once the lock is released, so that a stderr
//! nobody drains stalls neither the forwarding (which waits on the lock) nor the runtime's
//! thread (which answers the timeouts).

use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};

/// The stderr side of `--stats-every`: the latest line not written yet, and the thread that
/// writes it.
pub(super) struct StatsPrinter {
    /// The latest line handed over that the thread has not taken yet: while stderr blocks,
    /// each tick's line replaces the last (the counters only grow; the latest tells them
    /// all), so at most one waits.
    latest: Arc<Mutex<Option<String>>>,
    /// Wakes the thread; holds at most one wake-up, the line being in `latest`.
    wake: SyncSender<()>,
}

impl StatsPrinter {
    /// Starts the thread that writes the lines to stderr. It blocks on a stderr that is not
    /// drained, alone, and ends when the printer is dropped (or with the process).
    pub(super) fn spawn() -> StatsPrinter {
        let latest = Arc::new(Mutex::new(None::<String>));
        let (wake, woken) = sync_channel::<()>(1);
        let pending = latest.clone();
        std::thread::spawn(move || {
            while woken.recv().is_ok() {
                let line = pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                if let Some(line) = line {
                    say!("{line}");
                }
            }
        });
        StatsPrinter { latest, wake }
    }

    /// Hands `line` to the thread, never waiting for stderr: a line the thread has not taken
    /// yet is replaced.
    pub(super) fn print(&self, line: String) {
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(line);
        // (Full: a wake-up is pending already, and will find this line.)
        let _ = self.wake.try_send(());
    }

    /// Gives up the line the thread has not taken yet, if any: at exit, the summary says it
    /// all.
    pub(super) fn discard(&self) {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}
