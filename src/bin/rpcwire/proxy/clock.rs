//! The proxy's clock: whole milliseconds since it started, the unit of the session's deadlines
//! and of the log's `t_ms`, read one way for a message's arrival and the other for the timer.

use std::time::{Duration, Instant};

/// Milliseconds since the proxy started.
///
/// A deadline is a message's arrival plus the timeout, in whole milliseconds, and the session
/// finds it due when the timer's reading reaches it ([`Session::expire`]). Both readings rounded
/// down, a request that arrived at 10.9 ms (read as 10) would fall due at 10 + T.0 ms, only
/// T − 0.9 ms after it came (with T = 1, after 0.1 ms). So an arrival is read rounded up (the
/// first whole millisecond at or after it, as `pending::DeadlineClock::deadline_in` has it) and
/// the timer's reading rounded down: a deadline is then never reached before the whole timeout
/// has passed, and is reached less than a millisecond after. The session keeps its plain
/// integer rule (due when `arrival + T <= now`), and a log's records keep the times it used.
///
/// [`Session::expire`]: crate::session::Session::expire
pub(super) struct Clock {
    start: Instant,
}

impl Clock {
    /// A clock that reads 0 at this instant.
    pub(super) fn new() -> Clock {
        Clock {
            start: Instant::now(),
        }
    }

    /// The time of a message read now: milliseconds since the start, rounded up.
    pub(super) fn arrival_ms(&self) -> u64 {
        self.arrival_ms_at(Instant::now())
    }

    /// The time now, for the timer's [`Session::expire`] and the log's other records:
    /// milliseconds since the start, rounded down.
    ///
    /// [`Session::expire`]: crate::session::Session::expire
    pub(super) fn now_ms(&self) -> u64 {
        self.now_ms_at(Instant::now())
    }

    /// The instant the clock reads `ms` (one no timer reaches, when that is out of range).
    pub(super) fn instant_of(&self, ms: u64) -> Instant {
        self.start
            .checked_add(Duration::from_millis(ms))
            .unwrap_or_else(far_future)
    }

    /// [`Clock::arrival_ms`] of a message read at `at`.
    fn arrival_ms_at(&self, at: Instant) -> u64 {
        millis_ceil(at.saturating_duration_since(self.start))
    }

    /// [`Clock::now_ms`] at `at`.
    fn now_ms_at(&self, at: Instant) -> u64 {
        millis(at.saturating_duration_since(self.start))
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
    use rpcwire::{Dialect, Id};

    use super::*;
    use crate::session::{Dir, Observation, Session};

    /// A client request `ping` with the id `id`.
    fn ping(id: &str) -> Observation<'_> {
        Observation {
            kind: "request",
            id: Id::from_token(id.as_bytes()),
            method: Some("ping"),
            error_code: None,
            cancels: None,
            protocol_version: None,
            progress_token: None,
            subscription: None,
            invalid_tools: None,
            task_augmented: false,
            task: None,
        }
    }

    /// The instant `micros` microseconds after the clock's start.
    fn after(clock: &Clock, micros: u64) -> Instant {
        clock.start + Duration::from_micros(micros)
    }

    /// A request read just before a millisecond boundary (at 10.9 ms) under a 1 ms timeout is
    /// not timed out by the timer at 11.0 ms nor at 11.8 ms (less than 1 ms after it came), and
    /// is at 12.0 ms (1.1 ms after: late by less than a millisecond).
    #[test]
    fn a_request_read_just_before_a_millisecond_is_not_timed_out_early() {
        let clock = Clock::new();
        let mut session = Session::new(Dialect::Mcp, Some(1));
        let arrival = clock.arrival_ms_at(after(&clock, 10_900));
        session.observe(Dir::C2s, &ping("1"), arrival);
        for early in [11_000, 11_800] {
            let now = clock.now_ms_at(after(&clock, early));
            assert!(session.expire(now).is_empty(), "timed out at {early} µs");
        }
        let now = clock.now_ms_at(after(&clock, 12_000));
        assert_eq!(session.expire(now).len(), 1);
    }

    /// A request read on a millisecond boundary times out exactly the timeout later (neither
    /// reading rounds a whole millisecond), and one read just after it within a millisecond
    /// after its whole timeout.
    #[test]
    fn a_request_times_out_within_a_millisecond_after_its_timeout() {
        let clock = Clock::new();
        let mut session = Session::new(Dialect::Mcp, Some(5));
        session.observe(
            Dir::C2s,
            &ping("1"),
            clock.arrival_ms_at(after(&clock, 10_000)),
        );
        session.observe(
            Dir::C2s,
            &ping("2"),
            clock.arrival_ms_at(after(&clock, 10_001)),
        );
        let timed_out_at = |session: &mut Session, micros| {
            session.expire(clock.now_ms_at(after(&clock, micros))).len()
        };
        assert_eq!(timed_out_at(&mut session, 14_999), 0);
        assert_eq!(
            timed_out_at(&mut session, 15_000),
            1,
            "the one read at 10 ms"
        );
        assert_eq!(timed_out_at(&mut session, 15_999), 0);
        assert_eq!(
            timed_out_at(&mut session, 16_000),
            1,
            "the one read at 10.001 ms"
        );
    }

    /// Arrivals round up, the timer's readings down; whole milliseconds are read as they are.
    #[test]
    fn arrivals_round_up_and_the_timer_rounds_down() {
        let clock = Clock::new();
        let read = |micros| {
            let at = after(&clock, micros);
            (clock.arrival_ms_at(at), clock.now_ms_at(at))
        };
        assert_eq!(read(0), (0, 0));
        assert_eq!(read(1), (1, 0));
        assert_eq!(read(10_900), (11, 10));
        assert_eq!(read(11_000), (11, 11));
        // An instant before the start (none is read, but none panics) reads 0.
        if let Some(before) = clock.start.checked_sub(Duration::from_millis(1)) {
            assert_eq!(
                (clock.arrival_ms_at(before), clock.now_ms_at(before)),
                (0, 0)
            );
        }
    }
}
