//! The proxy's clock: whole milliseconds since it started, the unit of the session's deadlines
//! and of the log's `t_ms`, read one way for a message's arrival and the other for the timer.

use std::time::Duration;

use rpcwire::pending::DeadlineClock;
use tokio::time::Instant;

/// Milliseconds since the proxy started, read with the library's [`DeadlineClock`] (the one
/// place that rounds them).
///
/// A deadline is a message's arrival plus the timeout, in whole milliseconds, and the session
/// finds it due when the timer's reading reaches it ([`Session::expire`]). Both readings rounded
/// down, a request that arrived at 10.9 ms (read as 10) would fall due at 10 + T.0 ms, only
/// T − 0.9 ms after it came (with T = 1, after 0.1 ms). So an arrival is read rounded up (the
/// first whole millisecond at or after it: [`DeadlineClock::deadline_in`] of no timeout) and
/// the timer's reading rounded down ([`DeadlineClock::now`]): a deadline is then never reached
/// before the whole timeout has passed, and is reached less than a millisecond after. The
/// session keeps its plain integer rule (due when `arrival + T <= now`), and a log's records
/// keep the times it used.
///
/// [`Session::expire`]: crate::session::Session::expire
pub(super) struct Clock {
    deadlines: DeadlineClock,
}

impl Clock {
    /// A clock that reads 0 at this instant.
    pub(super) fn new() -> Clock {
        Clock {
            deadlines: DeadlineClock::new(),
        }
    }

    /// The time of a message read now: milliseconds since the start, rounded up.
    pub(super) fn arrival_ms(&self) -> u64 {
        self.deadlines.deadline_in(Duration::ZERO)
    }

    /// The time now, for the timer's [`Session::expire`] and the log's other records:
    /// milliseconds since the start, rounded down.
    ///
    /// [`Session::expire`]: crate::session::Session::expire
    pub(super) fn now_ms(&self) -> u64 {
        self.deadlines.now()
    }

    /// The instant the clock reads `ms` (one no timer reaches, when that is out of range).
    pub(super) fn instant_of(&self, ms: u64) -> Instant {
        self.deadlines.instant_of(ms)
    }
}

#[cfg(test)]
mod tests {
    use rpcwire::{Dialect, Id};

    use super::*;
    use crate::session::{Dir, Observation, Session};

    /// A client request `ping` with the id `id`.
    fn ping(id: &str) -> Observation<'_> {
        Observation::of("request", Id::from_token(id.as_bytes()), Some("ping"))
    }

    /// Moves tokio's paused time on to `micros` microseconds after `start`.
    async fn advance_to(start: Instant, micros: u64) {
        let at = start + Duration::from_micros(micros);
        tokio::time::advance(at.saturating_duration_since(Instant::now())).await;
    }

    /// A request read just before a millisecond boundary (at 10.9 ms) under a 1 ms timeout is
    /// not timed out by the timer at 11.0 ms nor at 11.8 ms (less than 1 ms after it came), and
    /// is at 12.0 ms (1.1 ms after: late by less than a millisecond).
    #[tokio::test(start_paused = true)]
    async fn a_request_read_just_before_a_millisecond_is_not_timed_out_early() {
        let (clock, start) = (Clock::new(), Instant::now());
        let mut session = Session::new(Dialect::Mcp, Some(1));
        advance_to(start, 10_900).await;
        session.observe(Dir::C2s, &ping("1"), clock.arrival_ms());
        for early in [11_000, 11_800] {
            advance_to(start, early).await;
            assert!(
                session.expire(clock.now_ms()).is_empty(),
                "timed out at {early} µs"
            );
        }
        advance_to(start, 12_000).await;
        assert_eq!(session.expire(clock.now_ms()).len(), 1);
    }

    /// A request read on a millisecond boundary times out exactly the timeout later (neither
    /// reading rounds a whole millisecond), and one read just after it within a millisecond
    /// after its whole timeout.
    #[tokio::test(start_paused = true)]
    async fn a_request_times_out_within_a_millisecond_after_its_timeout() {
        let (clock, start) = (Clock::new(), Instant::now());
        let mut session = Session::new(Dialect::Mcp, Some(5));
        advance_to(start, 10_000).await;
        session.observe(Dir::C2s, &ping("1"), clock.arrival_ms());
        advance_to(start, 10_001).await;
        session.observe(Dir::C2s, &ping("2"), clock.arrival_ms());
        let mut timed_out_at = async |micros| {
            advance_to(start, micros).await;
            session.expire(clock.now_ms()).len()
        };
        assert_eq!(timed_out_at(14_999).await, 0);
        assert_eq!(timed_out_at(15_000).await, 1, "the one read at 10 ms");
        assert_eq!(timed_out_at(15_999).await, 0);
        assert_eq!(timed_out_at(16_000).await, 1, "the one read at 10.001 ms");
    }

    /// Arrivals round up, the timer's readings down; whole milliseconds are read as they are.
    #[tokio::test(start_paused = true)]
    async fn arrivals_round_up_and_the_timer_rounds_down() {
        let (clock, start) = (Clock::new(), Instant::now());
        for (micros, read) in [
            (0, (0, 0)),
            (1, (1, 0)),
            (10_900, (11, 10)),
            (11_000, (11, 11)),
        ] {
            advance_to(start, micros).await;
            assert_eq!((clock.arrival_ms(), clock.now_ms()), read, "{micros} µs");
        }
    }
}
