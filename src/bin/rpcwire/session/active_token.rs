//! An active progress token (MCP): how many of one side's requests and tasks carry it, and
//! the last `progress` reported on it, which the next report must pass. MCP's progress
//! utility (2025-03-26 on) says:
//!
//! > The `progress` value **MUST** increase with each notification, even if the total is
//! > unknown.

/// A progress token that requests waiting, or tasks running, of one side carry. Its history
/// is its entry's: once no request or task carries the token, the entry goes, and a request
/// carrying the token again starts a new one.
#[derive(Debug, Default)]
pub(super) struct ActiveToken {
    /// How many requests waiting, and tasks keeping it, carry the token (a token reused while
    /// in flight is counted, not lost).
    pub(super) users: u32,
    /// The `progress` of the last `notifications/progress` on the token whose `progress`
    /// could be read, if any.
    last_progress: Option<f64>,
}

impl ActiveToken {
    /// A `notifications/progress` on the token reports `progress`: whether it is greater than
    /// the last one reported (the first always is). It becomes the last either way: the next
    /// report is judged against what the receiver saw last.
    pub(super) fn report(&mut self, progress: f64) -> bool {
        let increases = self.last_progress.is_none_or(|last| progress > last);
        self.last_progress = Some(progress);
        increases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each report must be greater than the one before it, floats compared as they are: an
    /// equal one is not, a smaller one is not, and the one after a smaller one is judged
    /// against that smaller one.
    #[test]
    fn each_report_must_pass_the_last() {
        let mut token = ActiveToken::default();
        let reports = [0.5, 0.5, 0.75, 0.25, 0.5, 1e300, f64::MAX];
        let increases = reports.map(|p| token.report(p));
        assert_eq!(increases, [true, false, true, false, true, true, true]);
    }
}
