//! [`DeadlineClock`]: the clock and the timer that a table's deadlines need under tokio.

use core::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// The clock and the timer of a table with deadlines ([`PendingTable`](super::PendingTable),
/// [`IdRemapper`](crate::IdRemapper)) under tokio: [`now`](Self::now) is the tables' `now`
/// (milliseconds since the clock was made), [`deadline_in`](Self::deadline_in) a deadline in
/// that unit, and [`wait`](Self::wait) sleeps until the table's next deadline, or until
/// [`nudge`](Self::nudge) says a deadline was set that may come sooner.
///
/// The tables stay sans-IO; one task of the caller's expires them: it reads
/// `next_wakeup()`, waits, and collects `expire(clock.now())`, each under the caller's own
/// lock. A nudge that comes while no task waits is kept for the next `wait` (tokio's
/// [`Notify::notify_one`]), so a deadline set between the read and the wait is not missed.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use std::time::Duration;
/// use rpcwire::pending::DeadlineClock;
/// use rpcwire::PendingTable;
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let clock = Arc::new(DeadlineClock::new());
/// let table = Arc::new(Mutex::new(PendingTable::<&str>::new()));
///
/// // The timer task: expires what is due, then sleeps until the next deadline.
/// let (expired_tx, mut expired_rx) = tokio::sync::mpsc::unbounded_channel();
/// tokio::spawn({
///     let (clock, table) = (clock.clone(), table.clone());
///     async move {
///         loop {
///             let next = table.lock().unwrap().next_wakeup();
///             clock.wait(next).await;
///             let now = clock.now();
///             for (_token, request) in table.lock().unwrap().expire(now) {
///                 expired_tx.send((request, now)).unwrap();
///             }
///         }
///     }
/// });
///
/// // A request with a 30 s timeout: its deadline set, the timer told.
/// let deadline = clock.deadline_in(Duration::from_secs(30));
/// table.lock().unwrap().insert_with_deadline("tools/call", deadline).unwrap();
/// clock.nudge();
///
/// let (request, at) = expired_rx.recv().await.unwrap();
/// assert_eq!((request, at), ("tools/call", 30_000));
/// # });
/// ```
#[derive(Debug)]
pub struct DeadlineClock {
    start: Instant,
    changed: Notify,
}

impl DeadlineClock {
    /// A clock whose `now` is 0 at this instant.
    pub fn new() -> Self {
        DeadlineClock {
            start: Instant::now(),
            changed: Notify::new(),
        }
    }

    /// Milliseconds since the clock was made: the `now` of the tables' `expire`.
    pub fn now(&self) -> u64 {
        millis(self.start.elapsed())
    }

    /// The deadline `timeout` from now, in the clock's milliseconds (saturating): the first
    /// whole millisecond at which the whole `timeout` has passed, so that an entry never
    /// falls due early.
    ///
    /// (Counted from the present instant, not from [`now`](Self::now): `now` drops the
    /// fraction of the current millisecond, and a deadline `now + timeout` would fall due up
    /// to a millisecond before `timeout` has passed, a sub-millisecond timeout at once.)
    pub fn deadline_in(&self, timeout: Duration) -> u64 {
        millis_ceil(self.start.elapsed().saturating_add(timeout))
    }

    /// The instant of a deadline in the clock's milliseconds.
    pub fn instant_of(&self, deadline: u64) -> Instant {
        self.start
            .checked_add(Duration::from_millis(deadline))
            .unwrap_or_else(far_future)
    }

    /// Tells the task in [`wait`](Self::wait) that a deadline was set or moved, which may
    /// come before the one it sleeps until; if no task waits, the next `wait` returns at once.
    /// (A deadline moved later needs no nudge: the task wakes early, finds nothing due, and
    /// sleeps again.)
    pub fn nudge(&self) {
        self.changed.notify_one();
    }

    /// Sleeps until `next_wakeup` (a table's [`next_wakeup`](super::PendingTable::next_wakeup);
    /// `None`: no deadline, so until a nudge) or until [`nudge`](Self::nudge), whichever comes
    /// first. Then collect the table's `expire(clock.now())`: after a nudge it may hand back
    /// nothing.
    pub async fn wait(&self, next_wakeup: Option<u64>) {
        let changed = self.changed.notified();
        match next_wakeup {
            // Either way it returns: the deadline passed (`Err(Elapsed)`) or a nudge came.
            Some(deadline) => _ = tokio::time::timeout_at(self.instant_of(deadline), changed).await,
            None => changed.await,
        }
    }
}

impl Default for DeadlineClock {
    fn default() -> Self {
        DeadlineClock::new()
    }
}

/// Whole milliseconds, rounded down, saturating at `u64::MAX`.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Milliseconds, rounded up to the next whole one, saturating at `u64::MAX`.
fn millis_ceil(d: Duration) -> u64 {
    let partial = !d.subsec_nanos().is_multiple_of(1_000_000);
    millis(d).saturating_add(u64::from(partial))
}

/// An instant no timer reaches (tokio's own "far future": about 30 years on).
fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(86_400 * 365 * 30)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The far future `instant_of` falls back to (for a deadline past what an `Instant`
    /// holds: on a platform whose `Instant` is narrower than `u64::MAX` milliseconds) is
    /// tokio's, 30 years on: an instant no timer reaches.
    #[test]
    fn the_far_future_is_thirty_years_on() {
        let thirty_years = Duration::from_secs(86_400 * 365 * 30);
        let before = Instant::now();
        let far = far_future();
        assert!(far >= before + thirty_years);
        assert!(far <= Instant::now() + thirty_years);
    }
}
