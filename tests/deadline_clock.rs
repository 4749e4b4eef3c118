//! `DeadlineClock` driving a `PendingTable`'s deadlines, on tokio's paused clock (time moves
//! only when the test advances it, so each assertion holds at an exact millisecond).
#![cfg(feature = "tokio")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rpcwire::PendingTable;
use rpcwire::pending::DeadlineClock;
use tokio::sync::mpsc;

type Table = Arc<Mutex<PendingTable<&'static str>>>;

/// The timer task of `DeadlineClock`'s doc: sends `(request, now)` for each expired one.
fn spawn_timer(
    clock: Arc<DeadlineClock>,
    table: Table,
) -> mpsc::UnboundedReceiver<(&'static str, u64)> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let next = table.lock().unwrap().next_wakeup();
            clock.wait(next).await;
            let now = clock.now();
            let expired: Vec<_> = table.lock().unwrap().expire(now).collect();
            for (_, request) in expired {
                if tx.send((request, now)).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// Lets the spawned task run to its next await, time standing still.
async fn settle() {
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
}

fn setup() -> (Arc<DeadlineClock>, Table) {
    (
        Arc::new(DeadlineClock::new()),
        Arc::new(Mutex::new(PendingTable::new())),
    )
}

#[tokio::test(start_paused = true)]
async fn a_request_expires_at_its_deadline_and_not_a_millisecond_before() {
    let (clock, table) = setup();
    let deadline = clock.deadline_in(Duration::from_millis(100));
    assert_eq!(deadline, 100);
    table
        .lock()
        .unwrap()
        .insert_with_deadline("a", deadline)
        .unwrap();
    let mut expired = spawn_timer(clock.clone(), table.clone());
    settle().await;
    tokio::time::advance(Duration::from_millis(99)).await;
    settle().await;
    assert!(expired.try_recv().is_err(), "expired before its deadline");
    assert_eq!(table.lock().unwrap().len(), 1);
    tokio::time::advance(Duration::from_millis(1)).await;
    settle().await;
    assert_eq!(expired.try_recv(), Ok(("a", 100)));
    assert!(table.lock().unwrap().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_nudge_wakes_the_timer_for_a_sooner_deadline() {
    let (clock, table) = setup();
    table
        .lock()
        .unwrap()
        .insert_with_deadline("late", 10_000)
        .unwrap();
    let mut expired = spawn_timer(clock.clone(), table.clone());
    settle().await;
    // The timer sleeps until 10 s; a request due at 50 ms comes, and the timer is told.
    tokio::time::advance(Duration::from_millis(20)).await;
    let soon = clock.deadline_in(Duration::from_millis(30));
    table
        .lock()
        .unwrap()
        .insert_with_deadline("soon", soon)
        .unwrap();
    clock.nudge();
    tokio::time::advance(Duration::from_millis(30)).await;
    settle().await;
    assert_eq!(expired.try_recv(), Ok(("soon", 50)));
    assert!(expired.try_recv().is_err());
    tokio::time::advance(Duration::from_millis(9_950)).await;
    settle().await;
    assert_eq!(expired.try_recv(), Ok(("late", 10_000)));
}

#[tokio::test(start_paused = true)]
async fn a_timer_with_no_deadline_waits_for_a_nudge() {
    let (clock, table) = setup();
    let mut expired = spawn_timer(clock.clone(), table.clone());
    settle().await;
    tokio::time::advance(Duration::from_secs(3600)).await;
    table
        .lock()
        .unwrap()
        .insert_with_deadline("a", clock.deadline_in(Duration::from_millis(5)))
        .unwrap();
    clock.nudge();
    tokio::time::advance(Duration::from_millis(5)).await;
    settle().await;
    assert_eq!(expired.try_recv(), Ok(("a", 3_600_005)));
}

#[tokio::test(start_paused = true)]
async fn a_nudge_while_no_task_waits_is_kept_for_the_next_wait() {
    let clock = DeadlineClock::new();
    clock.nudge();
    // (Paused, tokio moves the clock on whenever every task waits: a wait that did not return
    // at once would end in the timeout.)
    let waited = tokio::time::timeout(Duration::from_millis(1), clock.wait(None)).await;
    assert!(waited.is_ok());
    assert_eq!(clock.now(), 0);
    // Taken: the next wait sleeps.
    let waited = tokio::time::timeout(Duration::from_millis(1), clock.wait(None)).await;
    assert!(waited.is_err());
}

#[tokio::test(start_paused = true)]
async fn deadlines_beyond_any_clock_saturate() {
    let clock = Arc::new(DeadlineClock::new());
    assert_eq!(clock.deadline_in(Duration::MAX), u64::MAX);
    let far = clock.instant_of(u64::MAX);
    assert!(far > tokio::time::Instant::now() + Duration::from_secs(86_400 * 365));
    // A wait for it ends with a nudge.
    let waiting = tokio::spawn({
        let clock = clock.clone();
        async move { clock.wait(Some(u64::MAX)).await }
    });
    settle().await;
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(!waiting.is_finished());
    clock.nudge();
    let woke = tokio::time::timeout(Duration::from_secs(1), waiting).await;
    assert!(matches!(woke, Ok(Ok(()))));
}

/// The clock counts whole milliseconds, but a timeout is measured from the true present: a
/// deadline never falls due before its whole timeout has passed, however far into its
/// millisecond the present is, and a timeout shorter than a millisecond is not due at once.
#[tokio::test(start_paused = true)]
async fn a_deadline_is_never_less_than_its_timeout_away() {
    let clock = DeadlineClock::new();
    tokio::time::advance(Duration::from_micros(900)).await;
    let asked = tokio::time::Instant::now();
    assert_eq!(clock.now(), 0);
    for (timeout, deadline) in [
        (Duration::ZERO, 1),
        (Duration::from_micros(100), 1),
        (Duration::from_micros(500), 2),
        (Duration::from_millis(1), 2),
        (Duration::from_micros(1_100), 2),
        (Duration::from_millis(100), 101),
    ] {
        assert_eq!(clock.deadline_in(timeout), deadline, "{timeout:?}");
        assert!(clock.instant_of(deadline) >= asked + timeout, "{timeout:?}");
    }

    let mut table = PendingTable::new();
    let sub_ms = clock.deadline_in(Duration::from_micros(500));
    table.insert_with_deadline("a", sub_ms).unwrap();
    assert_eq!(table.expire(clock.now()).count(), 0, "due at once");
    tokio::time::advance(Duration::from_micros(400)).await;
    let early = table.expire(clock.now()).count();
    assert_eq!(early, 0, "due 400 µs into a 500 µs timeout");
    // At 2 ms, the first whole millisecond after the timeout passed (at 1.4 ms).
    tokio::time::advance(Duration::from_micros(700)).await;
    assert_eq!(table.expire(clock.now()).count(), 1);
}
