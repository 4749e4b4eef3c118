use super::*;

/// A message of `kind` with the id `id` and `method`, and nothing else told of it.
fn observation<'a>(kind: &'a str, id: Id<'a>, method: Option<&'a str>) -> Observation<'a> {
    Observation::of(kind, Some(id), method)
}

/// Past the limit of requests in flight, a request is refused (not forwarded: its reply
/// could not be matched), a reused id is still a duplicate, and a reply makes room.
#[test]
fn requests_beyond_the_limit_are_refused() {
    let mut session = Session::with_max_in_flight(Dialect::Mcp, None, 2);
    let request = |session: &mut Session, token| {
        let v = session.observe(
            Dir::C2s,
            &observation("request", id(token), Some("ping")),
            0,
        );
        (v.forward, v.violation)
    };
    assert_eq!(request(&mut session, "1"), (true, None));
    assert_eq!(request(&mut session, "2"), (true, None));
    assert_eq!(
        request(&mut session, "3"),
        (false, Some(Violation::TooManyInFlight))
    );
    assert_eq!(
        request(&mut session, "1"),
        (false, Some(Violation::DuplicateId))
    );
    let reply = session.observe(Dir::S2c, &observation("success_response", id("3"), None), 0);
    assert_eq!(reply.violation, Some(Violation::UnknownReply));
    session.observe(Dir::S2c, &observation("success_response", id("1"), None), 0);
    assert_eq!(request(&mut session, "3"), (true, None));
    // The other direction has its own limit.
    let v = session.observe(Dir::S2c, &observation("request", id("1"), Some("ping")), 0);
    assert_eq!((v.forward, v.violation), (true, None));
}

/// A request reusing the id of one the client cancelled, or of one that timed out, is a
/// duplicate: refused (MCP), so that the old request's late reply, still possible, cannot
/// answer it; that late reply is then dropped.
#[test]
fn an_id_reused_after_its_cancellation_or_timeout_is_a_duplicate() {
    let mut session = Session::new(Dialect::Mcp, Some(1_000));
    let mut observe = |dir, o: &Observation<'_>, now| {
        let v = session.observe(dir, o, now);
        (v.forward, v.violation)
    };
    let request = |token, method| observation("request", id(token), Some(method));
    assert_eq!(observe(Dir::C2s, &request("5", "slow"), 0), (true, None));
    let mut cancel = observation("notification", id("0"), Some("notifications/cancelled"));
    cancel.id = None;
    cancel.cancels = Some(id("5"));
    observe(Dir::C2s, &cancel, 0);
    assert_eq!(
        observe(Dir::C2s, &request("5", "ping"), 0),
        (false, Some(Violation::DuplicateId))
    );
    let late = observation("success_response", id("5"), None);
    assert_eq!(
        observe(Dir::S2c, &late, 0),
        (false, Some(Violation::LateReply))
    );
    // A fresh id is fine; once it times out, it is taken too.
    assert_eq!(observe(Dir::C2s, &request("6", "slow"), 0), (true, None));
    assert_eq!(session.expire(1_000).len(), 1);
    let v = session.observe(Dir::C2s, &request("6", "ping"), 1_000);
    assert_eq!(
        (v.forward, v.violation),
        (false, Some(Violation::DuplicateId))
    );
}

/// MCP: a request reusing the id of one of the same side's answered requests is `reused_id`
/// (an id "MUST NOT have been previously used by the requestor within the same session"),
/// forwarded, and the next reply with the id answers it; the other side's ids are its own,
/// and JSON-RPC lets an answered id be used again.
#[test]
fn an_mcp_request_reusing_an_answered_id_is_flagged_and_forwarded() {
    for dialect in [Dialect::Mcp, Dialect::JsonRpc2] {
        let mut session = Session::new(dialect, None);
        let mut observe = |dir, o: &Observation<'_>| {
            let v = session.observe(dir, o, 0);
            (v.forward, v.violation)
        };
        let request = |method| observation("request", id("5"), Some(method));
        let reply = observation("success_response", id("5"), None);
        assert_eq!(observe(Dir::C2s, &request("tools/call")), (true, None));
        assert_eq!(observe(Dir::S2c, &reply), (true, None));
        // The server's request of the same id is no reuse: each side has its ids.
        assert_eq!(observe(Dir::S2c, &request("roots/list")), (true, None));
        assert_eq!(observe(Dir::C2s, &reply), (true, None));
        let reused = (dialect == Dialect::Mcp).then_some(Violation::ReusedId);
        assert_eq!(
            observe(Dir::C2s, &request("ping")),
            (true, reused),
            "{dialect:?}"
        );
        assert_eq!(observe(Dir::S2c, &reply), (true, None), "{dialect:?}");
    }
}

/// MCP 2026-07-28 forbids reusing only the id of a request still waiting ("The request ID
/// **MUST NOT** match the ID of any other request the sender has issued and not yet received
/// a response for"): a request reusing an answered id is no `reused_id` under it, whether the
/// session knows the version or the request names it with none known. Under an earlier
/// version it still is (an id "MUST NOT have been previously used by the requestor within the
/// same session"), and an id in flight is a `duplicate_id` under every version.
#[test]
fn an_answered_id_may_be_reused_from_2026_07_28() {
    let answered = |n| observation("success_response", id(n), None);
    let plain = |n| observation("request", id(n), Some("tools/call"));

    // The session's version, 2026-07-28.
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
    session.observe(Dir::S2c, &answered("1"), 1);
    assert_eq!(session.protocol_version(), Some("2026-07-28"));
    let v = session.observe(Dir::C2s, &versioned("1", "tools/call"), 2);
    assert_eq!((v.forward, v.violation), (true, None));
    let v = session.observe(Dir::C2s, &versioned("1", "tools/call"), 3);
    assert_eq!(
        (v.forward, v.violation),
        (false, Some(Violation::DuplicateId))
    );

    // No version known (the server refused the first request): the request's own.
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
    let mut refused = observation("error_response", id("1"), None);
    refused.error_code = Some(-32602);
    session.observe(Dir::S2c, &refused, 1);
    assert_eq!(session.protocol_version(), None);
    let v = session.observe(Dir::C2s, &versioned("1", "tools/list"), 2);
    assert_eq!((v.forward, v.violation), (true, None));

    // An earlier version, negotiated: flagged, even for a request naming a later one.
    let mut session = Session::new(Dialect::Mcp, None);
    negotiate(&mut session, "1", "2025-11-25", 0, 1);
    let v = session.observe(Dir::C2s, &plain("1"), 2);
    assert_eq!((v.forward, v.violation), (true, Some(Violation::ReusedId)));
    session.observe(Dir::S2c, &answered("1"), 3);
    let v = session.observe(Dir::C2s, &versioned("1", "tools/call"), 4);
    assert_eq!((v.forward, v.violation), (true, Some(Violation::ReusedId)));
}

/// Once a client request named no version (and none is known), the proxy no longer reads the
/// version a request names in its `_meta` (`Session::reads_request_versions`), while
/// `check --c2s --s2c` reads every request's: whether a request reusing an answered id is a
/// `reused_id` must not hang on the version the request names then, or the two disagree.
#[test]
fn an_unread_request_version_does_not_decide_a_reused_id() {
    let mut verdicts = Vec::new();
    for named in [None, Some("2026-07-28")] {
        let mut session = Session::new(Dialect::Mcp, None);
        session.observe(
            Dir::C2s,
            &observation("request", id("1"), Some("tools/list")),
            0,
        );
        session.observe(Dir::S2c, &observation("success_response", id("1"), None), 1);
        assert!(!session.reads_request_versions());
        let reused = Observation {
            protocol_version: named,
            ..observation("request", id("1"), Some("tools/call"))
        };
        let v = session.observe(Dir::C2s, &reused, 2);
        verdicts.push((v.forward, v.violation));
    }
    assert_eq!(verdicts, [(true, Some(Violation::ReusedId)); 2]);
}

/// Under MCP a server's request reusing an id in flight is refused too (not forwarded,
/// `duplicate_id`; the proxy answers no server), and the client's reply answers the first.
/// Under JSON-RPC it is forwarded, and waits behind the first.
#[test]
fn a_server_request_reusing_an_id_in_flight() {
    for (dialect, forwarded) in [(Dialect::Mcp, false), (Dialect::JsonRpc2, true)] {
        let mut session = Session::new(dialect, None);
        let request = |method| observation("request", id("7"), Some(method));
        let v = session.observe(Dir::S2c, &request("roots/list"), 0);
        assert_eq!((v.forward, v.violation), (true, None), "{dialect:?}");
        let v = session.observe(Dir::S2c, &request("ping"), 0);
        assert_eq!(
            (v.forward, v.violation),
            (forwarded, Some(Violation::DuplicateId)),
            "{dialect:?}"
        );
        let reply = observation("success_response", id("7"), None);
        let v = session.observe(Dir::C2s, &reply, 0);
        assert_eq!((v.forward, v.violation), (true, None), "{dialect:?}");
    }
}

/// The next deadline is the earliest still to expire something: a request's while it waits,
/// then, once it is answered, the next request's, then a batch's (once complete) until it is
/// answered; none once nothing waits.
#[test]
fn the_next_deadline_is_the_earliest_still_to_expire_something() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    let request = |token| observation("request", id(token), Some("slow"));
    let reply = |token| observation("success_response", id(token), None);
    assert_eq!(session.next_deadline(), None);
    session.observe(Dir::C2s, &request("1"), 0);
    session.observe(Dir::C2s, &request("2"), 10);
    session.observe(Dir::C2s, &without_id("batch", None), 20);
    session.observe_element(Dir::C2s, &request("3"), 20);
    assert_eq!(session.next_deadline(), Some(100));
    session.observe(Dir::S2c, &reply("1"), 30);
    assert_eq!(session.next_deadline(), Some(110), "1 was answered");
    session.observe(Dir::S2c, &reply("2"), 40);
    assert_eq!(session.next_deadline(), Some(120), "the batch's");
    session.observe(Dir::S2c, &reply("3"), 50);
    assert_eq!(session.next_deadline(), None, "the batch was answered");
    assert!(session.expire(u64::MAX).is_empty());
}

/// JSON-RPC: a request reusing the id of one that timed out is reported and forwarded (JSON-RPC
/// only warns), and waits like any other: the server's replies with that id are not all
/// dropped as late (the client would wait forever), and it times out in turn.
#[test]
fn a_jsonrpc_request_reusing_a_timed_out_id_is_forwarded_and_waits() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(1_000));
    // What timed out by `now`, then the verdict on `o`.
    let mut observe = |dir, o: &Observation<'_>, now| {
        let expired = session.expire(now).len();
        let v = session.observe(dir, o, now);
        (expired, v.forward, v.violation)
    };
    let request = observation("request", id("5"), Some("ping"));
    let reply = observation("success_response", id("5"), None);
    assert_eq!(observe(Dir::C2s, &request, 0), (0, true, None));
    let reused = (1, true, Some(Violation::DuplicateId));
    assert_eq!(observe(Dir::C2s, &request, 1_000), reused);
    // The first reply with its id answers it (it may be the old one's: the client reused the
    // id); the second is late.
    assert_eq!(observe(Dir::S2c, &reply, 1_001), (0, true, None));
    let late = (0, false, Some(Violation::LateReply));
    assert_eq!(observe(Dir::S2c, &reply, 1_002), late);
    // Unanswered, it times out.
    let reused = (0, true, Some(Violation::DuplicateId));
    assert_eq!(observe(Dir::C2s, &request, 1_003), reused);
    assert_eq!(session.expire(2_003).len(), 1);
}

/// JSON-RPC: a request reusing an id still in flight is reported and forwarded, and waits
/// behind the first: the first reply with the id answers the first request, the next one the
/// second. Unanswered, the second times out at its own deadline (the client is not left
/// waiting for it), and at the end of the session it is unanswered like any other. It counts
/// against `--max-in-flight`: beyond it, it is refused as any request is.
#[test]
fn a_jsonrpc_request_reusing_an_id_in_flight_waits_behind_the_first() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(1_000));
    let mut observe = |o: &Observation<'_>, now| {
        let dir = if o.kind == "request" {
            Dir::C2s
        } else {
            Dir::S2c
        };
        let v = session.observe(dir, o, now);
        (v.forward, v.violation)
    };
    let first = observation("request", id("5"), Some("first"));
    let second = observation("request", id("5"), Some("second"));
    let reply = observation("success_response", id("5"), None);
    assert_eq!(observe(&first, 0), (true, None));
    let reused = (true, Some(Violation::DuplicateId));
    assert_eq!(observe(&second, 10), reused);
    // The first reply answers the first request; the second still waits.
    assert_eq!(observe(&reply, 20), (true, None));
    assert!(session.is_waiting(Dir::C2s, id("5")));
    // It times out at its own deadline, not at the first's.
    assert!(session.expire(1_000).is_empty());
    let expired = session.expire(1_010);
    let methods: Vec<&str> = expired
        .iter()
        .map(|t| match t {
            Timeout::Request(e) => &*e.method,
            Timeout::Batch { .. } => panic!("no batch was sent"),
        })
        .collect();
    assert_eq!(methods, ["second"]);
    // Its reply, coming later, is late.
    let v = session.observe(Dir::S2c, &reply, 1_020);
    assert_eq!(
        (v.forward, v.violation),
        (false, Some(Violation::LateReply))
    );
    // Two replies answer both, in order: none is an unknown reply.
    for o in [&first, &second, &reply, &reply] {
        let v = session.observe(
            if o.kind == "request" {
                Dir::C2s
            } else {
                Dir::S2c
            },
            o,
            2_000,
        );
        assert!(v.forward && v.violation != Some(Violation::UnknownReply));
    }
    assert!(!session.is_waiting(Dir::C2s, id("5")));
    // Both left waiting at the end: both unanswered.
    session.observe(Dir::C2s, &first, 3_000);
    session.observe(Dir::C2s, &second, 3_000);
    let left = session.finish();
    let unanswered: Vec<&str> = left.iter().map(|u| &*u.method).collect();
    assert_eq!(unanswered, ["first", "second"]);
    // Within the limit of requests in flight.
    let mut session = Session::with_max_in_flight(Dialect::JsonRpc2, None, 1);
    let v = session.observe(Dir::C2s, &first, 0);
    assert_eq!((v.forward, v.violation), (true, None));
    let v = session.observe(Dir::C2s, &second, 0);
    assert_eq!(
        (v.forward, v.violation),
        (false, Some(Violation::TooManyInFlight))
    );
}

/// JSON-RPC: the requests waiting in line behind one of the same id count against
/// `--max-in-flight` for every request, not only for another one in line: with one in the
/// table and one in line, a request of a fresh id is one too many (alone, in a batch, or from
/// the server), until a reply makes room.
#[test]
fn requests_in_line_count_against_the_limit_for_fresh_ids() {
    let mut session = Session::with_max_in_flight(Dialect::JsonRpc2, None, 2);
    let mut observe = |dir, o: &Observation<'_>| {
        let v = session.observe(dir, o, 0);
        (v.forward, v.violation)
    };
    let request = |token| observation("request", id(token), Some("ping"));
    assert_eq!(observe(Dir::C2s, &request("1")), (true, None));
    let reused = (true, Some(Violation::DuplicateId));
    assert_eq!(observe(Dir::C2s, &request("1")), reused);
    let refused = (false, Some(Violation::TooManyInFlight));
    assert_eq!(observe(Dir::C2s, &request("2")), refused);
    // The first reply answers the first; the second takes its place in the table, and there
    // is room for one more.
    let reply = observation("success_response", id("1"), None);
    assert_eq!(observe(Dir::S2c, &reply), (true, None));
    assert_eq!(observe(Dir::C2s, &request("2")), (true, None));
    assert_eq!(observe(Dir::C2s, &request("3")), refused);
    let v = batch(&mut session, Dir::C2s, &[request("3")]);
    let untracked = (true, Some(Violation::TooManyInFlight));
    assert_eq!((v[0].forward, v[0].violation), untracked);
    assert!(!session.is_waiting(Dir::C2s, id("3")));
    let mut observe = |dir, o: &Observation<'_>| {
        let v = session.observe(dir, o, 0);
        (v.forward, v.violation)
    };
    // The other direction has its own limit.
    assert_eq!(observe(Dir::S2c, &request("1")), (true, None));
    assert_eq!(observe(Dir::S2c, &request("1")), reused);
    assert_eq!(observe(Dir::S2c, &request("2")), refused);
    // (The batch element too: untracked, but kept until its reply comes.)
    let unanswered = session.finish();
    assert_eq!(unanswered.len(), 5);
}

/// JSON-RPC: a request reusing an id in flight, spelled longer than that of the request
/// holding it, and too long for what the table leaves of the byte budget, is refused as
/// beyond the limits; the next one goes in line, and takes the first's place when it is
/// answered (the line never waits behind an id the table no longer holds: its requests would
/// never be answered nor time out, and would be unanswered at the end though the server
/// answered them).
#[test]
fn a_request_too_long_for_the_budget_is_refused_and_its_line_goes_on() {
    let mut session = Session::with_budget(Dialect::JsonRpc2, Some(1_000), MAX_IN_FLIGHT.get(), 64);
    let long = format!("1.{}", "0".repeat(40));
    let (short, long) = (id("1"), id_of(&long));
    let request = |id, method| observation("request", id, Some(method));
    // "2" with a 43-byte method (44 bytes with its id's spelling) and "1" (2): 46 of 64
    // bytes. "1.000…" needs 43; "1" in line 7 (its spelling, its key and its method).
    let method = "m".repeat(43);
    session.observe(Dir::C2s, &request(id("2"), &method), 0);
    session.observe(Dir::C2s, &request(short, "a"), 0);
    let v = session.observe(Dir::C2s, &request(long, "b"), 10);
    assert_eq!(
        (v.forward, v.violation),
        (false, Some(Violation::TooManyInFlight))
    );
    // "1" fits: in line, it is the table's in turn.
    let v = session.observe(Dir::C2s, &request(short, "c"), 20);
    assert_eq!(v.violation, Some(Violation::DuplicateId));
    let reply = observation("success_response", short, None);
    // The first reply answers "a"; "c" takes its place.
    assert_eq!(session.observe(Dir::S2c, &reply, 30).violation, None);
    assert!(session.is_waiting(Dir::C2s, short));
    // "c" times out at its own deadline.
    assert_eq!(session.expire(1_019).len(), 1);
    let expired = session.expire(1_020);
    let methods: Vec<&str> = expired
        .iter()
        .map(|t| match t {
            Timeout::Request(e) => &*e.method,
            Timeout::Batch { .. } => panic!("no batch was sent"),
        })
        .collect();
    assert_eq!(methods, ["c"]);
    assert!(session.finish().is_empty());
    assert_eq!(session.waiting[slot(Dir::C2s)].bytes(), 0);
}

/// JSON-RPC: while a request waits in line, a fresh id is taken within the budget as the
/// table counts it (its spelling and its method: the table keeps no key), not refused for a
/// key it does not keep.
#[test]
fn a_fresh_id_beside_a_line_counts_as_the_table_counts_it() {
    let mut session = Session::with_budget(Dialect::JsonRpc2, None, MAX_IN_FLIGHT.get(), 11);
    let request = |id| observation("request", id, Some("m"));
    // "1" in the table (2 bytes), "1" again in line (its spelling, its key `n+1e1` and its
    // method: 7).
    assert_eq!(
        session.observe(Dir::C2s, &request(id("1")), 0).violation,
        None
    );
    let v = session.observe(Dir::C2s, &request(id("1")), 0);
    assert_eq!(v.violation, Some(Violation::DuplicateId));
    assert_eq!(session.queued[slot(Dir::C2s)].len(), 1);
    assert_eq!(
        session.waiting[slot(Dir::C2s)].bytes() + session.queued[slot(Dir::C2s)].bytes(),
        9
    );
    // "2" holds 2 bytes in the table: 11 of 11.
    let v = session.observe(Dir::C2s, &request(id("2")), 0);
    assert_eq!((v.forward, v.violation), (true, None));
    assert_eq!(session.waiting[slot(Dir::C2s)].bytes(), 4);
    // "3" would take 13 of 11.
    let v = session.observe(Dir::C2s, &request(id("3")), 0);
    assert_eq!(v.violation, Some(Violation::TooManyInFlight));
}

/// JSON-RPC: the requests waiting in line are bounded by the bytes they hold, their ids as
/// spelled included: a number's key is short whatever its spelling ("1.000…" keys as 1), and
/// counting the key twice let a client queue a million ids of 64 KiB each as 10 bytes apiece.
#[test]
fn requests_in_line_are_bounded_by_the_bytes_of_their_ids_as_spelled() {
    let mut session = Session::with_budget(Dialect::JsonRpc2, None, MAX_IN_FLIGHT.get(), 1 << 20);
    let long = format!("1.{}", "0".repeat(64_000));
    let request = |id| observation("request", id, Some("m"));
    session.observe(Dir::C2s, &request(id("1")), 0);
    // Each holds 64,002 bytes of spelling, 5 of key, 1 of method: 16 fit in 1 MiB, 17 do not.
    for n in 0..17 {
        let v = session.observe(Dir::C2s, &request(id_of(&long)), 0);
        let want = if n < 16 {
            (true, Some(Violation::DuplicateId))
        } else {
            (false, Some(Violation::TooManyInFlight))
        };
        assert_eq!((v.forward, v.violation), want, "{n}");
    }
    assert_eq!(session.queued[slot(Dir::C2s)].len(), 16);
}

/// JSON-RPC: the requests in the table and those waiting in line behind one of the same id
/// share one byte budget, as they share `--max-in-flight` (the help text: a request is refused
/// when it "would take the ids and method names waiting in its direction past 256 MiB"): with
/// the table half full, the line takes only the other half, and while the line holds its half
/// a fresh id finds the table full.
#[test]
fn requests_in_line_share_the_byte_budget_of_the_table() {
    let mut session = Session::with_budget(Dialect::JsonRpc2, None, MAX_IN_FLIGHT.get(), 1 << 20);
    let spelled = |n: usize| format!("{n}.{}", "0".repeat(64_000));
    let tokens: Vec<String> = (1..=9).map(spelled).collect();
    let ids: Vec<Id<'_>> = tokens.iter().map(|t| id_of(t)).collect();
    let request = |id| observation("request", id, Some("m"));
    // Each holds 64,008 bytes (spelling, key, method): 8 in the table, 8 in line behind the
    // first fill 1 MiB (16 fit, 17 do not).
    for id in &ids[..8] {
        assert_eq!(session.observe(Dir::C2s, &request(*id), 0).violation, None);
    }
    for n in 0..9 {
        let v = session.observe(Dir::C2s, &request(ids[0]), 0);
        let want = if n < 8 {
            (true, Some(Violation::DuplicateId))
        } else {
            (false, Some(Violation::TooManyInFlight))
        };
        assert_eq!((v.forward, v.violation), want, "{n}");
    }
    let v = session.observe(Dir::C2s, &request(ids[8]), 0);
    assert_eq!(
        (v.forward, v.violation),
        (false, Some(Violation::TooManyInFlight))
    );
    // A reply to another id makes room for it.
    session.observe(Dir::S2c, &observation("success_response", ids[1], None), 1);
    assert_eq!(
        session.observe(Dir::C2s, &request(ids[8]), 2).violation,
        None
    );
}

/// A busy session with a long timeout: answered requests do not keep their deadlines,
/// and the ones still waiting time out as before.
#[test]
fn deadlines_of_answered_requests_are_dropped() {
    let mut session = Session::new(Dialect::Mcp, Some(60_000));
    for n in 0..10_000u32 {
        let token = n.to_string();
        let id = Id::from_token(token.as_bytes()).unwrap();
        session.observe(Dir::C2s, &observation("request", id, Some("ping")), 0);
        if n % 100 != 0 {
            session.observe(Dir::S2c, &observation("success_response", id, None), 1);
        }
        let live = session.waiting[slot(Dir::C2s)].len();
        assert!(
            session.deadlines.len() <= 2 * live + 65,
            "{n}: {}",
            session.deadlines.len()
        );
    }
    let expired = session.expire(60_000);
    let mut ids: Vec<_> = expired
        .iter()
        .map(|t| match t {
            Timeout::Request(e) => e.id.as_id().raw().to_vec(),
            Timeout::Batch { .. } => panic!("no batch was sent"),
        })
        .collect();
    ids.sort();
    let mut want: Vec<_> = (0..10_000u32)
        .step_by(100)
        .map(|n| n.to_string().into_bytes())
        .collect();
    want.sort();
    assert_eq!(ids, want);
    assert!(session.deadlines.is_empty());
}

/// JSON-RPC batches: each element is tracked as a message of its own; a null-id error
/// reply answers an invalid element (owed), and a batch of late replies only is dropped.
#[test]
fn batch_elements_are_tracked_one_by_one() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    let batch = without_id("batch", None);
    let invalid = without_id("invalid", None);
    // A batch of two requests and an invalid element.
    session.observe(Dir::C2s, &batch, 0);
    let sent: Vec<Verdict> = [
        observation("request", id("1"), Some("a")),
        observation("request", id("2"), Some("b")),
        invalid,
    ]
    .iter()
    .map(|o| session.observe_element(Dir::C2s, o, 0))
    .collect();
    assert_eq!(
        sent.iter().map(|v| v.violation).collect::<Vec<_>>(),
        [None, None, Some(Violation::Invalid)]
    );
    assert!(sent.iter().any(|v| v.forward));
    assert!(session.is_waiting(Dir::C2s, id("1")));
    // The reply: 1, the owed -32600 with a null id, and 1 again.
    session.observe(Dir::S2c, &batch, 1);
    let mut owed = observation("error_response", id("null"), None);
    owed.error_code = Some(-32600);
    let replies: Vec<Option<Violation>> = [
        observation("success_response", id("1"), None),
        owed,
        observation("success_response", id("1"), None),
    ]
    .iter()
    .map(|o| session.observe_element(Dir::S2c, o, 1).violation)
    .collect();
    assert_eq!(replies, [None, None, Some(Violation::UnknownReply)]);
    // A second null-id error reply is owed to nobody.
    let v = session.observe(Dir::S2c, &owed, 1);
    assert_eq!(v.violation, Some(Violation::ReplyWithoutId));
    // Its reply, in an array or alone, matches 2 while it waits.
    session.observe(Dir::S2c, &batch, 50);
    let reply = session.observe_element(
        Dir::S2c,
        &observation("success_response", id("2"), None),
        50,
    );
    assert_eq!((reply.forward, reply.violation), (true, None));
    assert!(session.batch_forwards(Dir::S2c));
    // Everything of the batch was answered: nothing times out.
    assert!(session.expire(100).is_empty());
    assert_eq!(session.counters.messages[&(Dir::C2s, "request")], 2);
    assert_eq!(session.counters.messages[&(Dir::S2c, "batch")], 2);
    // A later batch's request times out: the server's array of its late reply only is dropped.
    session.observe(Dir::C2s, &batch, 150);
    let c = observation("request", id("3"), Some("c"));
    session.observe_element(Dir::C2s, &c, 150);
    assert_eq!(session.expire(250).len(), 1);
    session.observe(Dir::S2c, &batch, 300);
    let late = observation("success_response", id("3"), None);
    let verdict = session.observe_element(Dir::S2c, &late, 300);
    assert_eq!(
        (verdict.forward, verdict.violation),
        (false, Some(Violation::LateReply))
    );
    assert!(!session.batch_forwards(Dir::S2c));
    assert!(session.finish().is_empty());
}

/// A batch from the server with an invalid element is dropped whole, and its elements
/// have no effect: the reply in it leaves its request waiting (to time out), the request
/// in it is not tracked.
#[test]
fn a_dropped_batch_has_no_effect() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    session.observe(Dir::C2s, &observation("request", id("1"), Some("a")), 0);
    let elements = [
        observation("success_response", id("1"), None),
        observation("request", id("9"), Some("ask")),
        without_id("invalid", None),
    ];
    assert!(Session::drops_batch(
        Dir::S2c,
        elements.iter().map(|o| o.kind)
    ));
    assert!(!Session::drops_batch(
        Dir::C2s,
        elements.iter().map(|o| o.kind)
    ));
    let batch_obs = without_id("batch", None);
    session.observe(Dir::S2c, &batch_obs, 1);
    session.drop_batch(Dir::S2c);
    let violations: Vec<_> = elements
        .iter()
        .map(|o| session.observe_element(Dir::S2c, o, 1).violation)
        .collect();
    assert_eq!(violations, [None, None, Some(Violation::Invalid)]);
    assert!(!session.batch_forwards(Dir::S2c));
    assert!(session.is_waiting(Dir::C2s, id("1")));
    assert!(!session.is_waiting(Dir::S2c, id("9")));
    assert_eq!(session.expire(100).len(), 1);
    // The next batch is not dropped.
    session.observe(Dir::S2c, &batch_obs, 2);
    let v = session.observe_element(Dir::S2c, &elements[1], 2);
    assert!(v.forward && session.batch_forwards(Dir::S2c));
}

/// Replies owed to invalid elements are bounded like the requests in flight, not by the
/// memory of recent ids: a batch of 5,000 invalid elements gets its 5,000 replies matched.
#[test]
fn owed_replies_are_bounded_like_requests_in_flight() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    let invalid = without_id("invalid", None);
    let mut error = observation("error_response", id("null"), None);
    error.error_code = Some(-32600);
    batch(&mut session, Dir::C2s, &vec![invalid; 5000]);
    let verdicts = batch(&mut session, Dir::S2c, &vec![error; 5000]);
    assert!(verdicts.iter().all(|v| v.violation.is_none()));
    let mut small = Session::with_max_in_flight(Dialect::JsonRpc2, None, 2);
    batch(&mut small, Dir::C2s, &[invalid, invalid, invalid]);
    let verdicts = batch(&mut small, Dir::S2c, &[error, error, error]);
    let unmatched = verdicts.iter().filter(|v| v.violation.is_some()).count();
    assert_eq!(unmatched, 1);
}

/// A client request of `method` naming MCP 2026-07-28 in its `_meta`.
fn versioned(n: &'static str, method: &'static str) -> Observation<'static> {
    Observation {
        protocol_version: Some("2026-07-28"),
        ..observation("request", id(n), Some(method))
    }
}

fn id(token: &'static str) -> Id<'static> {
    Id::from_token(token.as_bytes()).unwrap()
}

/// The client sends request `n` of `method` at time `t`.
fn request(session: &mut Session, n: &'static str, method: &'static str, t: u64) {
    session.observe(Dir::C2s, &observation("request", id(n), Some(method)), t);
}

/// The client's `initialize` (request `n`, sent at time `sent`), answered with `version`
/// at time `answered`.
fn negotiate(
    session: &mut Session,
    n: &'static str,
    version: &'static str,
    sent: u64,
    answered: u64,
) {
    request(session, n, "initialize", sent);
    let negotiated = Observation {
        protocol_version: Some(version),
        ..observation("success_response", id(n), None)
    };
    session.observe(Dir::S2c, &negotiated, answered);
}

/// An observation of `kind` without an id (a batch, a notification, an element whose id
/// could not be read).
fn without_id<'a>(kind: &'a str, method: Option<&'a str>) -> Observation<'a> {
    Observation {
        id: None,
        ..observation(kind, id("0"), method)
    }
}

/// Observes a batch of `elements` travelling in `dir`; their verdicts.
fn batch(session: &mut Session, dir: Dir, elements: &[Observation<'_>]) -> Vec<Verdict> {
    let batch = without_id("batch", None);
    session.observe(dir, &batch, 0);
    elements
        .iter()
        .map(|o| session.observe_element(dir, o, 0))
        .collect()
}

/// A reply owed to an invalid batch element is taken only by an error inside an array:
/// one the server never sends does not hide a later null-id error to a notification.
#[test]
fn an_owed_reply_comes_in_an_array() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    let invalid = without_id("invalid", None);
    batch(&mut session, Dir::C2s, &[invalid]);
    let note = without_id("notification", Some("n"));
    session.observe(Dir::C2s, &note, 1);
    let mut error = observation("error_response", id("null"), None);
    error.error_code = Some(-32601);
    let v = session.observe(Dir::S2c, &error, 2);
    assert_eq!(v.violation, Some(Violation::ReplyWithoutId));
    // Inside an array it is the owed reply.
    let verdicts = batch(&mut session, Dir::S2c, &[error]);
    assert_eq!(verdicts[0].violation, None);
    assert!(session.batch_forwards(Dir::S2c));
}

/// An error in an array with the id of a request in flight answers that request, before
/// an owed reply of the same id: the receiver may never have sent that one (it took the
/// invalid element for a response), and a stale owed entry must not take a request's
/// reply (the request would then time out with its reply already forwarded).
#[test]
fn a_request_in_flight_is_matched_before_an_owed_reply() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    batch(
        &mut session,
        Dir::C2s,
        &[observation("invalid", id("5"), None)],
    );
    batch(
        &mut session,
        Dir::C2s,
        &[observation("request", id("5"), Some("missing"))],
    );
    let mut error = observation("error_response", id("5"), None);
    error.error_code = Some(-32601);
    let verdicts = batch(&mut session, Dir::S2c, &[error]);
    assert_eq!(verdicts[0].violation, None);
    assert!(!session.is_waiting(Dir::C2s, id("5")));
    // The owed reply is still expected.
    assert!(session.owes_element_reply(Dir::C2s, Some(id("5"))));
}

/// MCP's `initialize` and protocol version mean nothing under plain JSON-RPC: a result
/// with `protocolVersion` 2026-07-28 to a request named `initialize` does not forbid the
/// server's requests.
#[test]
fn jsonrpc_has_no_initialize() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    session.observe(
        Dir::C2s,
        &observation("request", id("1"), Some("initialize")),
        0,
    );
    let mut reply = observation("success_response", id("1"), None);
    reply.protocol_version = Some("2026-07-28");
    session.observe(Dir::S2c, &reply, 1);
    let v = session.observe(Dir::S2c, &observation("request", id("9"), Some("x")), 2);
    assert_eq!((v.forward, v.violation), (true, None));
}

/// A server's notification of a listen stream is expected while the client's listen
/// request waits; after its result or cancellation, or naming a request never sent, it is
/// flagged (and forwarded). Only from the server, only under MCP.
#[test]
fn listen_stream_notifications_need_an_open_stream() {
    let event = |stream: &'static str| Observation {
        subscription: Some(id(stream)),
        ..without_id("notification", Some("notifications/tools/list_changed"))
    };
    let mut session = Session::new(Dialect::Mcp, None);
    let listen = observation("request", id("7"), Some("subscriptions/listen"));
    session.observe(Dir::C2s, &listen, 0);
    let open = session.observe(Dir::S2c, &event("7"), 1);
    assert_eq!((open.forward, open.violation), (true, None));
    let never = session.observe(Dir::S2c, &event("8"), 2);
    let flagged = (true, Some(Violation::UnknownSubscription));
    assert_eq!((never.forward, never.violation), flagged);
    assert_eq!(
        session.observe(Dir::C2s, &event("8"), 3).violation,
        None,
        "from the client"
    );
    session.observe(Dir::S2c, &observation("success_response", id("7"), None), 4);
    let closed = session.observe(Dir::S2c, &event("7"), 5);
    assert_eq!((closed.forward, closed.violation), flagged);
    // Cancelled by the client: closed too.
    let listen = observation("request", id("9"), Some("subscriptions/listen"));
    session.observe(Dir::C2s, &listen, 6);
    assert_eq!(session.observe(Dir::S2c, &event("9"), 7).violation, None);
    session.observe(Dir::C2s, &cancel_of("9"), 8);
    let cancelled = session.observe(Dir::S2c, &event("9"), 9);
    assert_eq!((cancelled.forward, cancelled.violation), flagged);

    let mut session = Session::new(Dialect::JsonRpc2, None);
    assert_eq!(session.observe(Dir::S2c, &event("7"), 0).violation, None);
}

/// A listen stream still open when the session ends is no unanswered request: it ends
/// with the session. Another request is.
#[test]
fn an_open_listen_stream_ends_with_the_session() {
    let mut session = Session::new(Dialect::Mcp, None);
    for (n, method) in [("1", "subscriptions/listen"), ("2", "tools/call")] {
        session.observe(Dir::C2s, &observation("request", id(n), Some(method)), 0);
    }
    let left: Vec<_> = session.finish().into_iter().map(|u| u.method).collect();
    assert_eq!(left, [Arc::from("tools/call")]);
    assert_eq!(session.counters.total_violations(), 1);
}

/// A listen stream is opened by a `subscriptions/listen` request only: a notification
/// naming another request of the client's, still waiting, is flagged too.
#[test]
fn a_stream_names_a_listen_request() {
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(
        Dir::C2s,
        &observation("request", id("5"), Some("tools/call")),
        0,
    );
    let event = Observation {
        subscription: Some(id("5")),
        ..without_id("notification", Some("notifications/tools/list_changed"))
    };
    let v = session.observe(Dir::S2c, &event, 1);
    assert_eq!(
        (v.forward, v.violation),
        (true, Some(Violation::UnknownSubscription))
    );
}

/// A session whose version, MCP 2026-07-28, the server accepted (request 1), and whose
/// client opened a listen stream (request 7).
fn listening_from_2026_07_28() -> Session {
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("1", "server/discover"), 0);
    session.observe(Dir::S2c, &observation("success_response", id("1"), None), 1);
    assert_eq!(session.protocol_version(), Some("2026-07-28"));
    session.observe(Dir::C2s, &versioned("7", "subscriptions/listen"), 2);
    session
}

/// A notification on the listen stream 7, from the server.
fn stream_event() -> Observation<'static> {
    Observation {
        subscription: Some(id("7")),
        ..without_id("notification", Some("notifications/tools/list_changed"))
    }
}

/// MCP 2026-07-28: a server's `notifications/cancelled` naming the client's listen request
/// tears its stream down, as the client's cancellation would: the request waits no more, a
/// later notification on the stream is unknown, and its result is late (not forwarded).
#[test]
fn a_server_cancellation_tears_down_a_listen_stream() {
    let mut session = listening_from_2026_07_28();
    assert_eq!(
        session.observe(Dir::S2c, &stream_event(), 3).violation,
        None
    );
    let teardown = session.observe(Dir::S2c, &cancel_of("7"), 4);
    assert_eq!((teardown.forward, teardown.violation), (true, None));
    assert_eq!(session.stopped_waiting(Dir::C2s), 2);
    let after = session.observe(Dir::S2c, &stream_event(), 5);
    let unknown = (true, Some(Violation::UnknownSubscription));
    assert_eq!((after.forward, after.violation), unknown);
    let result = session.observe(Dir::S2c, &observation("success_response", id("7"), None), 6);
    assert_eq!(
        (result.forward, result.violation),
        (false, Some(Violation::LateReply))
    );
    assert!(session.finish().is_empty());
}

/// MCP 2026-07-28: a server's `notifications/cancelled` for anything but a listen stream
/// still open is forbidden, flagged and forwarded unchanged: naming another request of the
/// client's (which stays waiting), a stream already closed, or an id nobody sent.
#[test]
fn a_server_cancellation_for_another_purpose_is_forbidden() {
    let mut session = listening_from_2026_07_28();
    session.observe(Dir::C2s, &versioned("2", "tools/call"), 3);
    let forbidden = (true, Some(Violation::ForbiddenCancellation));
    for (n, cancelled) in ["2", "99", "7", "7"].into_iter().enumerate() {
        if n == 2 {
            // Closed by its result: a cancellation naming it now is for no open stream.
            session.observe(Dir::S2c, &observation("success_response", id("7"), None), 4);
        }
        let v = session.observe(Dir::S2c, &cancel_of(cancelled), 5);
        assert_eq!((v.forward, v.violation), forbidden, "{cancelled}");
    }
    let reply = session.observe(Dir::S2c, &observation("success_response", id("2"), None), 6);
    assert_eq!(
        (reply.forward, reply.violation),
        (true, None),
        "still waiting"
    );
    let counted = session.counters.violations[&(Dir::S2c, Violation::ForbiddenCancellation)];
    assert_eq!(counted, 4);
}

/// Before 2026-07-28, or with no version known, a server's `notifications/cancelled` is the
/// server giving up on a request of its own: it leaves the client's listen request waiting
/// and is no violation.
#[test]
fn a_server_cancellation_before_2026_07_28_is_of_its_own_requests() {
    let mut negotiated = Session::new(Dialect::Mcp, None);
    negotiate(&mut negotiated, "1", "2025-11-25", 0, 1);
    for mut session in [negotiated, Session::new(Dialect::Mcp, None)] {
        request(&mut session, "7", "subscriptions/listen", 2);
        let v = session.observe(Dir::S2c, &cancel_of("7"), 3);
        assert_eq!((v.forward, v.violation), (true, None));
        assert_eq!(
            session.observe(Dir::S2c, &stream_event(), 4).violation,
            None
        );
    }
    // The server's own request, cancelled: its late reply is flagged as before.
    let mut session = Session::new(Dialect::Mcp, None);
    negotiate(&mut session, "1", "2025-11-25", 0, 1);
    session.observe(Dir::S2c, &observation("request", id("5"), Some("x")), 2);
    session.observe(Dir::S2c, &cancel_of("5"), 3);
    let late = session.observe(Dir::C2s, &observation("success_response", id("5"), None), 4);
    assert_eq!(late.violation, Some(Violation::LateReply));
}

/// MCP 2026-07-28 with no version known yet: a listen request that named 2026-07-28 in its
/// `_meta` (the first to name it, so no reply made it the session's) is torn down by the
/// server's `notifications/cancelled` naming it, as under the version known: its request waits
/// no more, a later notification on the stream is unknown, its result is late. Still no
/// `forbidden_cancellation` with no version known: a cancellation naming anything else is
/// the server's of a request of its own; so is one naming a listen stream that named no
/// version, or while a server request of the same id waits (which it then cancels).
#[test]
fn a_server_cancellation_tears_down_a_stream_that_named_2026_07_28() {
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("7", "subscriptions/listen"), 0);
    assert_eq!(session.protocol_version(), None);
    let teardown = session.observe(Dir::S2c, &cancel_of("7"), 1);
    assert_eq!((teardown.forward, teardown.violation), (true, None));
    assert_eq!(session.stopped_waiting(Dir::C2s), 1, "torn down");
    let after = session.observe(Dir::S2c, &stream_event(), 2);
    let unknown = (true, Some(Violation::UnknownSubscription));
    assert_eq!((after.forward, after.violation), unknown);
    let result = session.observe(Dir::S2c, &observation("success_response", id("7"), None), 3);
    let late = (false, Some(Violation::LateReply));
    assert_eq!((result.forward, result.violation), late);
    // Naming nothing open: the server's own request, as with no version known.
    let other = session.observe(Dir::S2c, &cancel_of("99"), 4);
    assert_eq!((other.forward, other.violation), (true, None));
    assert!(session.finish().is_empty());

    // A listen request that named no version: the old reading.
    let mut session = Session::new(Dialect::Mcp, None);
    request(&mut session, "7", "subscriptions/listen", 0);
    let v = session.observe(Dir::S2c, &cancel_of("7"), 1);
    assert_eq!((v.forward, v.violation), (true, None));
    assert_eq!(session.stopped_waiting(Dir::C2s), 0, "still open");
    assert_eq!(
        session.observe(Dir::S2c, &stream_event(), 2).violation,
        None
    );

    // A listen request that named an earlier version: the old reading.
    let mut session = Session::new(Dialect::Mcp, None);
    let earlier = Observation {
        protocol_version: Some("2025-11-25"),
        ..observation("request", id("7"), Some("subscriptions/listen"))
    };
    session.observe(Dir::C2s, &earlier, 0);
    session.observe(Dir::S2c, &cancel_of("7"), 1);
    assert_eq!(session.stopped_waiting(Dir::C2s), 0, "still open");

    // The server's own request of that id waits: it is the one cancelled.
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("7", "subscriptions/listen"), 0);
    session.observe(Dir::S2c, &observation("request", id("7"), Some("x")), 1);
    let v = session.observe(Dir::S2c, &cancel_of("7"), 2);
    assert_eq!((v.forward, v.violation), (true, None));
    assert_eq!(session.stopped_waiting(Dir::C2s), 0, "the stream is open");
    assert_eq!(session.stopped_waiting(Dir::S2c), 1, "the server's own");
    assert_eq!(
        session.observe(Dir::S2c, &stream_event(), 3).violation,
        None
    );
}

/// `subscriptions/listen` waits with no deadline while the version is unknown or from
/// 2026-07-28 on (learnt from a request's `_meta` too); under an earlier negotiated version
/// it is a request like any other, and times out.
#[test]
fn listen_has_no_deadline_from_2026_07_28_only() {
    let timed_out = |session: &mut Session| {
        session.observe(Dir::C2s, &versioned("7", "subscriptions/listen"), 100);
        !session.expire(1_000).is_empty()
    };
    assert!(
        !timed_out(&mut Session::new(Dialect::Mcp, Some(10))),
        "unknown"
    );

    let mut session = Session::new(Dialect::Mcp, Some(10));
    session.observe(Dir::C2s, &versioned("1", "server/discover"), 0);
    session.observe(Dir::S2c, &observation("success_response", id("1"), None), 1);
    assert_eq!(session.protocol_version(), Some("2026-07-28"));
    assert!(!timed_out(&mut session), "2026-07-28");

    let mut session = Session::new(Dialect::Mcp, Some(10));
    negotiate(&mut session, "1", "2025-11-25", 0, 1);
    assert!(timed_out(&mut session), "2025-11-25");

    assert!(
        timed_out(&mut Session::new(Dialect::JsonRpc2, Some(10))),
        "plain JSON-RPC"
    );
}

/// MCP 2026-07-28 has no `initialize`: each request names its version in `_meta`. The
/// version becomes the session's when the server answers such a request with a success
/// (the server's requests are then forbidden); a probe the server refuses leaves the
/// version to the `initialize` handshake the client falls back to.
#[test]
fn per_request_version_once_the_server_accepts_it() {
    let server_request = |session: &mut Session| {
        let v = session.observe(Dir::S2c, &observation("request", id("91"), Some("x")), 9);
        (v.forward, v.violation)
    };

    // Accepted: the version is the session's from the success on.
    let mut session = Session::new(Dialect::Mcp, None);
    assert!(session.reads_request_versions());
    session.observe(Dir::C2s, &versioned("1", "server/discover"), 0);
    assert_eq!(session.protocol_version(), None, "not before the reply");
    assert!(session.reads_request_versions());
    session.observe(Dir::C2s, &versioned("2", "tools/list"), 1);
    session.observe(Dir::S2c, &observation("success_response", id("2"), None), 2);
    assert_eq!(session.protocol_version(), Some("2026-07-28"));
    assert!(!session.reads_request_versions(), "known");
    let forbidden = (false, Some(Violation::ServerRequestForbidden));
    assert_eq!(server_request(&mut session), forbidden);

    // Refused, then the handshake: the handshake's version.
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("1", "server/discover"), 0);
    let mut refused = observation("error_response", id("1"), None);
    refused.error_code = Some(-32601);
    session.observe(Dir::S2c, &refused, 1);
    assert_eq!(session.protocol_version(), None);
    negotiate(&mut session, "2", "2025-11-25", 2, 3);
    assert_eq!(session.protocol_version(), Some("2025-11-25"));
    assert_eq!(server_request(&mut session), (true, None));
    // A later request naming another version changes nothing.
    session.observe(Dir::C2s, &versioned("3", "tools/list"), 4);
    session.observe(Dir::S2c, &observation("success_response", id("3"), None), 5);
    assert_eq!(session.protocol_version(), Some("2025-11-25"));

    // A client whose requests name no version is not speaking 2026-07-28: its requests
    // are not read for one any more.
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(
        Dir::C2s,
        &observation("request", id("1"), Some("tools/list")),
        0,
    );
    assert!(!session.reads_request_versions());

    // Plain JSON-RPC has no protocol version.
    let mut session = Session::new(Dialect::JsonRpc2, None);
    session.observe(Dir::C2s, &versioned("1", "x"), 0);
    session.observe(Dir::S2c, &observation("success_response", id("1"), None), 1);
    assert_eq!(session.protocol_version(), None);
    assert!(!session.reads_request_versions());
}

/// A server's success to a client's `tools/list` that lists tools with invalid
/// `x-mcp-header` annotations is flagged (and forwarded) from MCP 2026-07-28 on: the
/// session's version, or the one the request named (made the session's by this very
/// success). Not under an earlier version, nor with none known, nor for an error, another
/// method's reply, or plain JSON-RPC. The proxy reads the tools only
/// when `reads_tool_headers` says so.
#[test]
fn invalid_tool_headers_from_2026_07_28_only() {
    let listed = |n: &'static str| Observation {
        invalid_tools: Some("tool \"t\": x-mcp-header is not a string"),
        ..observation("success_response", id(n), None)
    };
    let flagged = (true, Some(Violation::InvalidToolHeaders));
    let verdict = |session: &mut Session, dir, o: &Observation<'_>| {
        let v = session.observe(dir, o, 0);
        (v.forward, v.violation)
    };

    // The request's own version, which its success makes the session's.
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
    assert!(session.reads_tool_headers(Dir::S2c, Some(id("1"))));
    assert!(
        !session.reads_tool_headers(Dir::C2s, Some(id("1"))),
        "from the client"
    );
    assert!(
        !session.reads_tool_headers(Dir::S2c, Some(id("2"))),
        "not waiting"
    );
    assert_eq!(verdict(&mut session, Dir::S2c, &listed("1")), flagged);
    assert!(
        !session.reads_tool_headers(Dir::S2c, Some(id("1"))),
        "answered"
    );
    // Known now: a later one too, and every tool valid is no violation.
    request(&mut session, "2", "tools/list", 0);
    assert!(session.reads_tool_headers(Dir::S2c, Some(id("2"))));
    let valid = observation("success_response", id("2"), None);
    assert_eq!(verdict(&mut session, Dir::S2c, &valid), (true, None));
    // An error answers it; another method's result is not a tool list.
    request(&mut session, "3", "tools/list", 0);
    let mut error = listed("3");
    (error.kind, error.error_code) = ("error_response", Some(-32603));
    assert_eq!(verdict(&mut session, Dir::S2c, &error), (true, None));
    request(&mut session, "4", "tools/call", 0);
    assert!(!session.reads_tool_headers(Dir::S2c, Some(id("4"))));
    assert_eq!(verdict(&mut session, Dir::S2c, &listed("4")), (true, None));

    // Under 2025-11-25 the annotation is an unknown keyword.
    let mut session = Session::new(Dialect::Mcp, None);
    negotiate(&mut session, "0", "2025-11-25", 0, 0);
    request(&mut session, "1", "tools/list", 0);
    assert!(!session.reads_tool_headers(Dir::S2c, Some(id("1"))));
    assert_eq!(verdict(&mut session, Dir::S2c, &listed("1")), (true, None));

    // No version known at all: not flagged (it may be an earlier session).
    let mut session = Session::new(Dialect::Mcp, None);
    request(&mut session, "1", "tools/list", 0);
    assert!(!session.reads_tool_headers(Dir::S2c, Some(id("1"))));
    assert_eq!(verdict(&mut session, Dir::S2c, &listed("1")), (true, None));

    // A tools/list that stopped waiting otherwise (cancelled) is not read for.
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
    let cancel = Observation {
        cancels: Some(id("1")),
        ..without_id("notification", Some("notifications/cancelled"))
    };
    session.observe(Dir::C2s, &cancel, 0);
    assert!(!session.reads_tool_headers(Dir::S2c, Some(id("1"))));
    assert_eq!(session.tools_lists_waiting, 0);

    let mut session = Session::new(Dialect::JsonRpc2, None);
    session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
    assert!(!session.reads_tool_headers(Dir::S2c, Some(id("1"))));
    assert_eq!(verdict(&mut session, Dir::S2c, &listed("1")), (true, None));
}

/// A client may send its next request before the server answers the last: a success to
/// any request that named the version tells it, not only to the latest (a listen stream
/// opened meanwhile is answered only when it closes).
#[test]
fn a_request_version_from_an_earlier_request() {
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
    session.observe(Dir::C2s, &versioned("2", "subscriptions/listen"), 1);
    session.observe(Dir::S2c, &observation("success_response", id("1"), None), 2);
    assert_eq!(session.protocol_version(), Some("2026-07-28"));

    // A request that timed out (or was cancelled) tells nothing by its late reply.
    let mut session = Session::new(Dialect::Mcp, Some(10));
    session.observe(Dir::C2s, &versioned("1", "tools/list"), 0);
    session.expire(20);
    session.observe(
        Dir::S2c,
        &observation("success_response", id("1"), None),
        21,
    );
    assert_eq!(session.protocol_version(), None);
}

/// The session takes a request's version only while [`Session::reads_request_versions`]
/// holds, as the proxy reads them only then: a merged check, whose records name every
/// request's version, must not learn one the proxy never read (a client whose first
/// request named none, then a request naming one, answered with a success).
#[test]
fn no_request_version_after_an_unversioned_request() {
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(
        Dir::C2s,
        &observation("request", id("1"), Some("tools/list")),
        0,
    );
    assert!(!session.reads_request_versions());
    let versioned = Observation {
        protocol_version: Some("2026-07-28"),
        ..observation("request", id("2"), Some("tools/list"))
    };
    session.observe(Dir::C2s, &versioned, 1);
    session.observe(Dir::S2c, &observation("success_response", id("2"), None), 2);
    assert_eq!(session.protocol_version(), None);
    let v = session.observe(Dir::S2c, &observation("request", id("9"), Some("x")), 3);
    assert_eq!(
        (v.forward, v.violation),
        (true, None),
        "as the proxy saw it"
    );
}

/// Inside an array, an error with the id of a request sent alone answers an invalid
/// element of that id (a request sent alone is answered alone, §6); with the id of a
/// request sent in a batch, that request.
#[test]
fn an_array_error_answers_a_request_sent_in_a_batch_not_one_sent_alone() {
    let mut error = observation("error_response", id("5"), None);
    error.error_code = Some(-32600);
    let invalid = observation("invalid", id("5"), None);
    let mut session = Session::new(Dialect::JsonRpc2, None);
    session.observe(Dir::C2s, &observation("request", id("5"), Some("slow")), 0);
    batch(&mut session, Dir::C2s, &[invalid]);
    batch(&mut session, Dir::S2c, &[error]);
    assert!(session.is_waiting(Dir::C2s, id("5")));
    assert!(!session.owes_element_reply(Dir::C2s, Some(id("5"))));
    let mut session = Session::new(Dialect::JsonRpc2, None);
    batch(&mut session, Dir::C2s, &[invalid]);
    batch(
        &mut session,
        Dir::C2s,
        &[observation("request", id("5"), Some("slow"))],
    );
    batch(&mut session, Dir::S2c, &[error]);
    assert!(!session.is_waiting(Dir::C2s, id("5")));
    assert!(session.owes_element_reply(Dir::C2s, Some(id("5"))));
}

/// What a batch timeout answers: the requests of the batch still waiting, and the owed
/// replies of its invalid elements still owed.
fn timed_out(timeouts: &[Timeout]) -> Vec<(Vec<String>, Vec<Option<String>>)> {
    let token = |id: &IdBuf| String::from_utf8_lossy(id.as_id().raw()).into_owned();
    timeouts
        .iter()
        .map(|t| match t {
            Timeout::Request(e) => (vec![token(&e.id)], vec![]),
            Timeout::Batch { requests, owed } => (
                requests.iter().map(|e| token(&e.id)).collect(),
                owed.iter().map(|id| id.as_ref().map(token)).collect(),
            ),
        })
        .collect()
}

/// A client batch times out as a unit, at its own deadline: what is left of it is
/// answered in one go, what was answered is not, and the server's late replies (with an
/// id or null) are late, not unknown (which JSON-RPC would forward).
#[test]
fn a_batch_times_out_as_a_unit() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    let (a, b, c) = (id("1"), id("2"), id("3"));
    let invalid = |token| Observation {
        id: Some(id(token)),
        ..without_id("invalid", None)
    };
    session.observe(Dir::C2s, &observation("request", id("0"), Some("alone")), 0);
    let sent = [
        observation("request", a, Some("a")),
        observation("request", b, Some("b")),
        invalid("9"),
        without_id("parse_error", None),
        without_id("notification", Some("n")),
    ];
    session.observe(Dir::C2s, &without_id("batch", None), 10);
    for o in &sent {
        session.observe_element(Dir::C2s, o, 10);
    }
    // A second batch, answered in full by an array before its deadline.
    session.observe(Dir::C2s, &without_id("batch", None), 20);
    session.observe_element(Dir::C2s, &observation("request", c, Some("c")), 20);
    session.observe_element(Dir::C2s, &invalid("8"), 20);
    session.observe(Dir::S2c, &without_id("batch", None), 30);
    session.observe_element(Dir::S2c, &observation("success_response", c, None), 30);
    let owed = Observation {
        id: Some(id("8")),
        ..without_id("error_response", None)
    };
    assert_eq!(session.observe_element(Dir::S2c, &owed, 30).violation, None);
    assert_eq!(
        session.batches.len(),
        1,
        "the answered batch is no longer kept"
    );
    // The server answers `b` alone (as no conforming server would): `a` is left.
    session.observe(Dir::S2c, &observation("success_response", b, None), 40);
    assert_eq!(timed_out(&session.expire(99)), []);
    assert_eq!(
        timed_out(&session.expire(100)),
        [(vec!["0".to_string()], vec![])],
        "the request sent alone, at its own deadline"
    );
    assert_eq!(
        timed_out(&session.expire(110)),
        [(vec!["1".to_string()], vec![Some("9".to_string()), None])],
        "the first batch, without `2`, answered"
    );
    assert_eq!(
        timed_out(&session.expire(10_000)),
        [],
        "the second batch was answered in full"
    );
    assert!(!session.is_waiting(Dir::C2s, a));
    // The server's array, late: every element is a late reply, so it is not forwarded.
    session.observe(Dir::S2c, &without_id("batch", None), 200);
    let late = [
        observation("success_response", a, None),
        Observation {
            id: Some(id("9")),
            ..without_id("error_response", None)
        },
        Observation {
            id: Some(Id::from_token(b"null").unwrap()),
            ..without_id("error_response", None)
        },
    ];
    for o in &late {
        let verdict = session.observe_element(Dir::S2c, o, 200);
        assert_eq!(verdict.violation, Some(Violation::LateReply), "{o:?}");
    }
    assert!(!session.batch_forwards(Dir::S2c));
    assert!(session.batches.is_empty() && session.open_batch.is_none());
    assert_eq!(owed_bytes(&session), 0);
}

/// Replaying a proxy log: the owed replies the proxy answered are forgotten as its
/// `owed_answered` events say, with the same effect as the live timeout.
#[test]
fn owed_replies_the_proxy_answered_are_forgotten() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    batch(&mut session, Dir::C2s, &[without_id("parse_error", None)]);
    assert!(session.owes_element_reply(Dir::C2s, None));
    assert!(session.forget_owed_reply(None));
    assert!(!session.forget_owed_reply(None), "owed once");
    assert!(!session.owes_element_reply(Dir::C2s, None));
    batch(
        &mut session,
        Dir::C2s,
        &[observation("invalid", id("1.0"), None)],
    );
    assert_eq!(owed_bytes(&session), 3 + IdKey::of(id("1")).encoded_len());
    assert!(session.forget_owed_reply(Some(id("1"))));
    assert_eq!(owed_bytes(&session), 0);
    session.observe(Dir::S2c, &without_id("batch", None), 0);
    let null = Observation {
        id: Some(Id::from_token(b"null").unwrap()),
        ..without_id("error_response", None)
    };
    let verdict = session.observe_element(Dir::S2c, &null, 0);
    assert_eq!(verdict.violation, Some(Violation::LateReply));
}

/// The requests waiting are bounded by bytes as well as by number: a request whose id and
/// method would take the direction past the budget is refused like one beyond the limit,
/// and a reply frees its bytes.
#[test]
fn requests_in_flight_are_bounded_by_bytes() {
    let mut session = Session::with_budget(Dialect::Mcp, Some(1_000), MAX_IN_FLIGHT.get(), 2 << 20);
    let method = "m".repeat(1000);
    let token = |n: usize| format!("\"{}{n:0>8}\"", "0".repeat(127_992));
    let tokens: Vec<String> = (0..17).map(token).collect();
    let ids: Vec<Id<'_>> = tokens.iter().map(|t| id_of(t)).collect();
    for (n, id) in ids.iter().enumerate() {
        let v = session.observe(Dir::C2s, &observation("request", *id, Some(&method)), 0);
        // Each counts its id's spelling (128,002 bytes) and its method (1,000): 16 × 129,002
        // bytes fit in 2 MiB, 17 do not.
        let refused = n == 16;
        assert_eq!(v.violation.is_some(), refused, "{n}");
        assert_eq!(v.forward, !refused, "{n}");
    }
    assert!(!session.is_waiting(Dir::C2s, ids[16]));
    session.observe(Dir::S2c, &observation("success_response", ids[0], None), 1);
    let v = session.observe(Dir::C2s, &observation("request", ids[16], Some(&method)), 2);
    assert_eq!(v.violation, None);
    assert_eq!(
        session.waiting[slot(Dir::C2s)].bytes(),
        16 * (128_002 + 1000)
    );
    // Timeouts free them too.
    assert_eq!(session.expire(10_000).len(), 16);
    assert_eq!(session.waiting[slot(Dir::C2s)].bytes(), 0);
}

/// MCP: a request whose progress token another request in flight from the same side
/// carries is flagged and forwarded; once the first is answered, the token is free again,
/// and the other side has tokens of its own.
#[test]
fn a_progress_token_shared_by_two_requests_in_flight_is_flagged() {
    let mut session = Session::new(Dialect::Mcp, None);
    let mut request = |dir, n: &'static str| {
        let o = Observation {
            progress_token: Some(id("\"p\"")),
            ..observation("request", id(n), Some("tools/call"))
        };
        let v = session.observe(dir, &o, 0);
        (v.forward, v.violation)
    };
    assert_eq!(request(Dir::C2s, "1"), (true, None));
    assert_eq!(
        request(Dir::C2s, "2"),
        (true, Some(Violation::DuplicateProgressToken))
    );
    assert_eq!(request(Dir::S2c, "1"), (true, None));
    for n in ["1", "2"] {
        session.observe(Dir::S2c, &observation("success_response", id(n), None), 0);
    }
    let o = Observation {
        progress_token: Some(id("\"p\"")),
        ..observation("request", id("3"), Some("tools/call"))
    };
    assert_eq!(session.observe(Dir::C2s, &o, 0).violation, None);
}

/// MCP 2025-11-25's progress utility: "For task-augmented requests, the `progressToken`
/// provided in the original request **MUST** continue to be used for progress notifications
/// throughout the task's lifetime, even after the `CreateTaskResult` has been returned. The
/// progress token remains valid and associated with the task until the task reaches a
/// terminal status." So progress on the token of a task-augmented request answered with a
/// `CreateTaskResult` is no `unknown_progress` while the task runs, and is once a terminal
/// status was seen ("Progress notifications for tasks **MUST** stop after the task reaches a
/// terminal status"): here a `notifications/tasks/status` that says `completed`.
#[test]
fn a_task_keeps_its_progress_token_until_it_ends() {
    let mut session = Session::new(Dialect::Mcp, None);
    let progress = Observation {
        progress_token: Some(id("\"p\"")),
        ..observation("notification", id("0"), Some("notifications/progress"))
    };
    let progress = Observation {
        id: None,
        ..progress
    };
    let task_call = Observation {
        progress_token: Some(id("\"p\"")),
        task_augmented: true,
        ..observation("request", id("1"), Some("tools/call"))
    };
    assert_eq!(session.observe(Dir::C2s, &task_call, 0).violation, None);
    // The session asks the reply's task of the proxy, which reads it then only.
    assert_eq!(
        session.reads_task(Dir::S2c, Some(id("1"))),
        Some(TaskReply::Created)
    );
    assert_eq!(session.reads_task(Dir::S2c, Some(id("2"))), None);
    let created = Observation {
        task: Some((id("\"t-1\""), false)),
        ..observation("success_response", id("1"), None)
    };
    assert_eq!(session.observe(Dir::S2c, &created, 0).violation, None);
    assert_eq!(session.observe(Dir::S2c, &progress, 0).violation, None);
    // Still the task's while it runs: another request of the client's with it is a duplicate.
    let reuse = Observation {
        progress_token: Some(id("\"p\"")),
        ..observation("request", id("2"), Some("tools/call"))
    };
    assert_eq!(
        session.observe(Dir::C2s, &reuse, 0).violation,
        Some(Violation::DuplicateProgressToken)
    );
    session.observe(Dir::S2c, &observation("success_response", id("2"), None), 0);
    let working = Observation {
        id: None,
        task: Some((id("\"t-1\""), false)),
        ..observation("notification", id("0"), Some("notifications/tasks/status"))
    };
    assert_eq!(session.observe(Dir::S2c, &working, 0).violation, None);
    assert_eq!(session.observe(Dir::S2c, &progress, 0).violation, None);
    let completed = Observation {
        task: Some((id("\"t-1\""), true)),
        ..working
    };
    assert_eq!(session.observe(Dir::S2c, &completed, 0).violation, None);
    assert_eq!(
        session.observe(Dir::S2c, &progress, 0).violation,
        Some(Violation::UnknownProgress)
    );
}

/// A task's progress token ends with the reply to `tasks/result`, which comes once the task
/// has ended ("`tasks/result` blocks until the task reaches a terminal status", MCP
/// 2025-11-25), and the session reads that reply's task only while one keeps a token. A
/// request that asked no task, or a task-augmented one answered by a plain result (a receiver
/// that does not run it as a task), ends its token with its reply, as before.
#[test]
fn a_task_progress_token_ends_with_the_tasks_result_reply() {
    let mut session = Session::new(Dialect::Mcp, None);
    let progress = Observation {
        id: None,
        progress_token: Some(id("\"p\"")),
        ..observation("notification", id("0"), Some("notifications/progress"))
    };
    let ask = |n, augmented| Observation {
        progress_token: Some(id("\"p\"")),
        task_augmented: augmented,
        ..observation("request", id(n), Some("tools/call"))
    };
    // Not task-augmented: the result ends the token, whatever it holds.
    session.observe(Dir::C2s, &ask("1", false), 0);
    assert_eq!(session.reads_task(Dir::S2c, Some(id("1"))), None);
    let reply = Observation {
        task: Some((id("\"t-1\""), false)),
        ..observation("success_response", id("1"), None)
    };
    session.observe(Dir::S2c, &reply, 0);
    assert_eq!(
        session.observe(Dir::S2c, &progress, 0).violation,
        Some(Violation::UnknownProgress)
    );
    // Task-augmented, answered by a plain result: no task, the token ends.
    session.observe(Dir::C2s, &ask("2", true), 0);
    session.observe(Dir::S2c, &observation("success_response", id("2"), None), 0);
    assert_eq!(
        session.observe(Dir::S2c, &progress, 0).violation,
        Some(Violation::UnknownProgress)
    );
    // A task: its token lasts until the reply to tasks/result.
    session.observe(Dir::C2s, &ask("3", true), 0);
    let created = Observation {
        task: Some((id("\"t-3\""), false)),
        ..observation("success_response", id("3"), None)
    };
    session.observe(Dir::S2c, &created, 0);
    session.observe(
        Dir::C2s,
        &observation("request", id("4"), Some("tasks/result")),
        0,
    );
    assert_eq!(
        session.reads_task(Dir::S2c, Some(id("4"))),
        Some(TaskReply::Result)
    );
    assert_eq!(session.observe(Dir::S2c, &progress, 0).violation, None);
    let result = Observation {
        task: Some((id("\"t-3\""), true)),
        ..observation("success_response", id("4"), None)
    };
    assert_eq!(session.observe(Dir::S2c, &result, 0).violation, None);
    assert_eq!(
        session.observe(Dir::S2c, &progress, 0).violation,
        Some(Violation::UnknownProgress)
    );
    // No task keeps a token now: a tasks/get's reply is not read.
    session.observe(
        Dir::C2s,
        &observation("request", id("5"), Some("tasks/get")),
        0,
    );
    assert_eq!(session.reads_task(Dir::S2c, Some(id("5"))), None);
}

/// A `notifications/progress` on `token` reporting `progress` (`None`: a value that could
/// not be read).
fn progress_of(token: &'static str, progress: Option<f64>) -> Observation<'static> {
    Observation {
        progress_token: Some(id(token)),
        progress,
        ..without_id("notification", Some("notifications/progress"))
    }
}

/// A request `n` of the client's asking progress on `token`.
fn asking_progress(n: &'static str, token: &'static str) -> Observation<'static> {
    Observation {
        progress_token: Some(id(token)),
        ..observation("request", id(n), Some("tools/call"))
    }
}

/// MCP: "The `progress` value **MUST** increase with each notification, even if the total
/// is unknown." On one active token, a report equal to the last (0.5 then 0.5) or below it
/// is flagged, and forwarded all the same (it is a valid message); the next is judged
/// against the last reported, and one greater passes. A report whose `progress` could not
/// be read is not judged and leaves the last as it was.
#[test]
fn progress_that_does_not_increase_is_flagged_and_forwarded() {
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &asking_progress("1", "\"p\""), 0);
    let mut report = |progress| {
        let v = session.observe(Dir::S2c, &progress_of("\"p\"", progress), 0);
        (v.forward, v.violation)
    };
    let not_increasing = (true, Some(Violation::ProgressNotIncreasing));
    assert_eq!(report(Some(0.5)), (true, None));
    assert_eq!(report(Some(0.5)), not_increasing, "equal");
    assert_eq!(report(Some(2.0)), (true, None));
    assert_eq!(report(Some(1.5)), not_increasing, "decreasing");
    assert_eq!(report(Some(1.75)), (true, None), "above the last reported");
    assert_eq!(report(None), (true, None), "not read: not judged");
    assert_eq!(report(Some(1.75)), not_increasing, "the last is still 1.75");
    assert_eq!(report(Some(1.8)), (true, None));
    assert_eq!(
        session.counters.violations[&(Dir::S2c, Violation::ProgressNotIncreasing)],
        3
    );
}

/// A token's history is its request's: once the request is answered (or cancelled) no
/// request carries the token, and a new request reusing it starts anew, so a report lower
/// than the old request's last is no violation. The other side's token of the same name has
/// a history of its own, and progress on a token no longer active is an `unknown_progress`
/// only.
#[test]
fn a_progress_token_reused_by_a_new_request_starts_a_new_history() {
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &asking_progress("1", "\"p\""), 0);
    let report = |session: &mut Session, dir, progress| {
        session
            .observe(dir, &progress_of("\"p\"", Some(progress)), 0)
            .violation
    };
    assert_eq!(report(&mut session, Dir::S2c, 5.0), None);
    // The server asks the client for progress on a token of the same name: its own.
    session.observe(
        Dir::S2c,
        &Observation {
            progress_token: Some(id("\"p\"")),
            ..observation("request", id("1"), Some("sampling/createMessage"))
        },
        0,
    );
    assert_eq!(report(&mut session, Dir::C2s, 1.0), None);
    session.observe(Dir::S2c, &observation("success_response", id("1"), None), 0);
    assert_eq!(
        report(&mut session, Dir::S2c, 1.0),
        Some(Violation::UnknownProgress),
        "no longer active"
    );
    session.observe(Dir::C2s, &asking_progress("2", "\"p\""), 0);
    assert_eq!(report(&mut session, Dir::S2c, 1.0), None, "a new history");
    assert_eq!(
        report(&mut session, Dir::S2c, 1.0),
        Some(Violation::ProgressNotIncreasing)
    );
    // Cancelled, the request ends its token's history too.
    let cancel = Observation {
        cancels: Some(id("2")),
        ..without_id("notification", Some("notifications/cancelled"))
    };
    session.observe(Dir::C2s, &cancel, 0);
    session.observe(Dir::C2s, &asking_progress("3", "\"p\""), 0);
    assert_eq!(report(&mut session, Dir::S2c, 0.5), None);
}

/// A task-augmented request's token stays active for its task after the
/// `CreateTaskResult` (MCP 2025-11-25): its history goes on with it, so a report not above
/// the last one before the result is flagged, until the task ends.
#[test]
fn a_task_keeps_its_progress_history() {
    let mut session = Session::new(Dialect::Mcp, None);
    let call = Observation {
        task_augmented: true,
        ..asking_progress("1", "\"p\"")
    };
    session.observe(Dir::C2s, &call, 0);
    let report = |session: &mut Session, progress| {
        session
            .observe(Dir::S2c, &progress_of("\"p\"", Some(progress)), 0)
            .violation
    };
    assert_eq!(report(&mut session, 3.0), None);
    let created = Observation {
        task: Some((id("\"t-1\""), false)),
        ..observation("success_response", id("1"), None)
    };
    session.observe(Dir::S2c, &created, 0);
    assert_eq!(
        report(&mut session, 3.0),
        Some(Violation::ProgressNotIncreasing)
    );
    assert_eq!(report(&mut session, 4.0), None);
}

/// What the session is told of `frame`, a notification decoded as the proxy and `check`
/// decode one (MCP).
fn notified(frame: &str) -> Described<'_> {
    let msg = rpcwire::Decoder::mcp()
        .decode(frame.as_bytes())
        .expect("a valid message");
    Described::of_message(&msg, true)
}

/// Observes the notification `frame` sent in `dir`; whether it is forwarded, and its
/// violation.
fn notify(session: &mut Session, dir: Dir, frame: &str) -> (bool, Option<Violation>) {
    let v = session.observe(dir, &notified(frame).observation(), 0);
    (v.forward, v.violation)
}

/// A `notifications/progress` with `params`.
fn progress_frame(params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{params}}}"#)
}

/// A `notifications/cancelled` with `params`.
fn cancelled_frame(params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{params}}}"#)
}

/// The first `initialize` answered with a version settles the session's: a second one,
/// answered with another version, does not move it (the proxy's decoders, set once, stay
/// on the first). An `initialize` refused with an error settles nothing.
#[test]
fn the_first_initialize_answered_settles_the_version() {
    let mut session = Session::new(Dialect::Mcp, None);
    request(&mut session, "0", "initialize", 0);
    session.observe(Dir::S2c, &observation("error_response", id("0"), None), 0);
    assert_eq!(session.protocol_version(), None);
    negotiate(&mut session, "1", "2025-03-26", 0, 0);
    assert_eq!(session.protocol_version(), Some("2025-03-26"));
    negotiate(&mut session, "2", "2025-11-25", 0, 0);
    assert_eq!(session.protocol_version(), Some("2025-03-26"));
}

/// An MCP session negotiated at `version`, with the client's request 1 in flight asking
/// progress on the token "p".
fn asking_progress_under(version: &'static str) -> Session {
    let mut session = Session::new(Dialect::Mcp, None);
    negotiate(&mut session, "0", version, 0, 0);
    session.observe(Dir::C2s, &asking_progress("1", "\"p\""), 0);
    session
}

/// MCP's `ProgressNotificationParams`: a `notifications/progress` without a `progressToken`
/// that is a string or an integer, without a numeric `progress`, or with a `total` that is
/// not a number (`null` included) is flagged `invalid_notification_params` under every
/// version, and forwarded (it asks nothing). It is no progress report: the token's last
/// progress stays as it was (1), and one on an unknown token is no `unknown_progress`.
#[test]
fn malformed_progress_params_are_flagged_forwarded_and_not_progress() {
    let invalid = (true, Some(Violation::InvalidNotificationParams));
    for version in mcp::versions::KNOWN {
        let mut session = asking_progress_under(version);
        let first = progress_frame(r#"{"progressToken":"p","progress":1}"#);
        assert_eq!(notify(&mut session, Dir::S2c, &first), (true, None));
        for params in [
            r#"{"progress":5}"#,
            r#"{"progressToken":null,"progress":5}"#,
            r#"{"progressToken":1.5,"progress":5}"#,
            r#"{"progressToken":["p"],"progress":5}"#,
            r#"{"progressToken":"p"}"#,
            r#"{"progressToken":"p","progress":"5"}"#,
            r#"{"progressToken":"p","progress":0.5,"total":"10"}"#,
            r#"{"progressToken":"p","progress":0.5,"total":null}"#,
            r#"{"progressToken":"q","progress":5,"total":false}"#,
        ] {
            let frame = progress_frame(params);
            assert_eq!(
                notify(&mut session, Dir::S2c, &frame),
                invalid,
                "{version} {params}"
            );
        }
        // (No params at all: both notifications require them.)
        let bare = r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#;
        assert_eq!(notify(&mut session, Dir::S2c, bare), invalid, "{version}");
        // The last progress on "p" is still 1: 1 again does not increase, 2 does.
        let again = progress_frame(r#"{"progressToken":"p","progress":1}"#);
        assert_eq!(
            notify(&mut session, Dir::S2c, &again),
            (true, Some(Violation::ProgressNotIncreasing)),
            "{version}"
        );
        let more = progress_frame(r#"{"progressToken":"p","progress":2}"#);
        assert_eq!(notify(&mut session, Dir::S2c, &more), (true, None));
        assert_eq!(
            session.counters.violations[&(Dir::S2c, Violation::InvalidNotificationParams)],
            10,
            "{version}"
        );
    }
}

/// Progress reports every version's schema accepts stay clean: a string or integer token,
/// numbers of any kind, a string `message`, members the schema does not name.
#[test]
fn valid_progress_params_stay_clean() {
    for version in mcp::versions::KNOWN {
        let mut session = Session::new(Dialect::Mcp, None);
        negotiate(&mut session, "0", version, 0, 0);
        session.observe(Dir::C2s, &asking_progress("1", "\"p\""), 0);
        session.observe(Dir::C2s, &asking_progress("2", "7"), 0);
        for params in [
            r#"{"progressToken":"p","progress":1}"#,
            r#"{"progressToken":"p","progress":1.5,"total":10}"#,
            r#"{"progressToken":"p","progress":2,"total":2.5,"message":"nearly"}"#,
            r#"{"progressToken":7,"progress":-1,"_meta":{"k":"v"},"extra":null}"#,
        ] {
            let frame = progress_frame(params);
            assert_eq!(
                notify(&mut session, Dir::S2c, &frame),
                (true, None),
                "{version} {params}"
            );
        }
        assert!(session.counters.violations.is_empty(), "{version}");
    }
}

/// `message` is a string from 2025-03-26 on; 2024-11-05 does not define it, so any value is
/// an unknown member's there. With no version known, it is not judged (the session may be
/// 2024-11-05's).
#[test]
fn a_message_that_is_not_a_string_is_flagged_from_2025_03_26() {
    let frame = progress_frame(r#"{"progressToken":"p","progress":1,"message":5}"#);
    for version in mcp::versions::KNOWN {
        let mut session = asking_progress_under(version);
        let expected = match *version {
            mcp::versions::V2024_11_05 => None,
            _ => Some(Violation::InvalidNotificationParams),
        };
        assert_eq!(
            notify(&mut session, Dir::S2c, &frame),
            (true, expected),
            "{version}"
        );
    }
    let mut session = Session::new(Dialect::Mcp, None);
    session.observe(Dir::C2s, &asking_progress("1", "\"p\""), 0);
    assert_eq!(notify(&mut session, Dir::S2c, &frame), (true, None));
}

/// MCP's `CancelledNotificationParams`: a `requestId` that is not a string or an integer,
/// or a `reason` that is not a string, is flagged under every version, forwarded, and
/// cancels nothing: the request stays in flight, and its result is matched.
#[test]
fn malformed_cancellations_are_flagged_forwarded_and_cancel_nothing() {
    let invalid = (true, Some(Violation::InvalidNotificationParams));
    for version in mcp::versions::KNOWN {
        let mut session = Session::new(Dialect::Mcp, None);
        negotiate(&mut session, "0", version, 0, 0);
        request(&mut session, "1", "tools/call", 0);
        for params in [
            r#"{"requestId":1.0}"#,
            r#"{"requestId":null}"#,
            r#"{"requestId":[1]}"#,
            r#"{"requestId":1,"requestId":2}"#,
            r#"{"requestId":1,"reason":7}"#,
            r#"{"requestId":1,"reason":null}"#,
        ] {
            let frame = cancelled_frame(params);
            assert_eq!(
                notify(&mut session, Dir::C2s, &frame),
                invalid,
                "{version} {params}"
            );
        }
        let bare = r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#;
        assert_eq!(notify(&mut session, Dir::C2s, bare), invalid, "{version}");
        // Not cancelled: the result answers a request still in flight.
        let result = observation("success_response", id("1"), None);
        assert_eq!(
            session.observe(Dir::S2c, &result, 0).violation,
            None,
            "{version}"
        );
        assert!(session.finish().is_empty());
    }
}

/// `requestId` is required by every version but 2025-11-25 (where it "MUST be provided for
/// cancelling non-task requests", tasks being cancelled by `tasks/cancel`): a cancellation
/// without one is flagged there, not under 2025-11-25, and not with no version known.
#[test]
fn a_cancellation_without_a_request_id_is_flagged_where_the_version_requires_one() {
    let frame = cancelled_frame(r#"{"reason":"user"}"#);
    for version in mcp::versions::KNOWN {
        let mut session = Session::new(Dialect::Mcp, None);
        negotiate(&mut session, "0", version, 0, 0);
        let expected = match *version {
            mcp::versions::V2025_11_25 => None,
            _ => Some(Violation::InvalidNotificationParams),
        };
        assert_eq!(
            notify(&mut session, Dir::C2s, &frame),
            (true, expected),
            "{version}"
        );
    }
    let mut session = Session::new(Dialect::Mcp, None);
    assert_eq!(notify(&mut session, Dir::C2s, &frame), (true, None));
}

/// A well-formed cancellation (with a string `reason`, or none) stays clean and cancels its
/// request, under every version: the result that follows is late.
#[test]
fn valid_cancellations_stay_clean_and_cancel() {
    for version in mcp::versions::KNOWN {
        let mut session = Session::new(Dialect::Mcp, None);
        negotiate(&mut session, "0", version, 0, 0);
        request(&mut session, "1", "tools/call", 0);
        request(&mut session, "\"b\"", "tools/call", 0);
        let by_number = cancelled_frame(r#"{"requestId":1,"reason":"user"}"#);
        let by_string = cancelled_frame(r#"{"requestId":"b","_meta":{}}"#);
        assert_eq!(notify(&mut session, Dir::C2s, &by_number), (true, None));
        assert_eq!(notify(&mut session, Dir::C2s, &by_string), (true, None));
        for n in ["1", "\"b\""] {
            let result = observation("success_response", id(n), None);
            assert_eq!(
                session.observe(Dir::S2c, &result, 0).violation,
                Some(Violation::LateReply),
                "{version}"
            );
        }
    }
}

/// A malformed cancellation naming the client's `initialize` is `cancelled_initialize`
/// still (not forwarded: initialize "MUST NOT be cancelled"); and plain JSON-RPC has no such
/// notifications, so their params are nobody's business there.
#[test]
fn cancelled_initialize_comes_first_and_jsonrpc_is_not_judged() {
    let mut session = Session::new(Dialect::Mcp, None);
    request(&mut session, "0", "initialize", 0);
    let frame = cancelled_frame(r#"{"requestId":0,"reason":7}"#);
    assert_eq!(
        notify(&mut session, Dir::C2s, &frame),
        (false, Some(Violation::CancelledInitialize))
    );

    let mut session = Session::new(Dialect::JsonRpc2, None);
    let o = notified(&frame);
    assert_eq!(
        session.observe(Dir::C2s, &o.observation(), 0).violation,
        None
    );
    let frame = progress_frame(r#"{"progress":"x"}"#);
    let o = notified(&frame);
    assert_eq!(
        session.observe(Dir::S2c, &o.observation(), 0).violation,
        None
    );
}

/// MCP: initialization "MUST be the first interaction between client and server": a client's
/// `initialize` once the server answered one with a success is `second_initialize`, not
/// forwarded nor tracked (it was forwarded, and tracked, unreported). One sent while the first
/// still waits, or after the server refused the first, is none; nor is a second one under
/// plain JSON-RPC, or in the replay of a log of a proxy that forwarded it.
#[test]
fn a_second_initialize_on_an_initialized_session_is_refused() {
    let observe = |session: &mut Session, o: &Observation<'_>| {
        let v = session.observe(Dir::C2s, o, 0);
        (v.forward, v.violation)
    };
    let initialize = |n| observation("request", id(n), Some("initialize"));
    let mut session = Session::new(Dialect::Mcp, None);
    negotiate(&mut session, "0", "2025-11-25", 0, 1);
    assert_eq!(
        observe(&mut session, &initialize("1")),
        (false, Some(Violation::SecondInitialize))
    );
    assert!(!session.is_waiting(Dir::C2s, id("1")));
    // Other requests go on as before, and the session's version stays the first one's.
    assert_eq!(
        observe(&mut session, &request_of("2", "tools/list")),
        (true, None)
    );
    assert_eq!(session.protocol_version(), Some("2025-11-25"));
    assert!(session.finish().iter().all(|u| &*u.method != "initialize"));

    // Before the first is answered, and after it is refused, a second is no violation.
    let mut session = Session::new(Dialect::Mcp, None);
    request(&mut session, "0", "initialize", 0);
    assert_eq!(observe(&mut session, &initialize("1")), (true, None));
    let refused = Observation {
        error_code: Some(-32602),
        ..observation("error_response", id("0"), None)
    };
    assert_eq!(session.observe(Dir::S2c, &refused, 0).violation, None);
    let refused = Observation {
        error_code: Some(-32602),
        ..observation("error_response", id("1"), None)
    };
    assert_eq!(session.observe(Dir::S2c, &refused, 0).violation, None);
    assert_eq!(observe(&mut session, &initialize("2")), (true, None));

    // Plain JSON-RPC has no initialize; a log of a proxy that forwarded it replays so.
    for mut session in [
        Session::new(Dialect::JsonRpc2, None),
        Session::new(Dialect::Mcp, None).refusing_second_initialize(false),
    ] {
        negotiate(&mut session, "0", "2025-11-25", 0, 1);
        assert_eq!(observe(&mut session, &initialize("1")), (true, None));
        assert!(session.is_waiting(Dir::C2s, id("1")));
    }
}

/// A progress token counts against the bytes too (it is bounded by the frame limit only,
/// not by the id limit), twice, and a reply gives it back.
#[test]
fn progress_tokens_count_against_the_bytes_in_flight() {
    let mut session = Session::with_budget(Dialect::Mcp, None, MAX_IN_FLIGHT.get(), 1 << 20);
    let token = format!("\"{}\"", "p".repeat(300_000));
    let request = |session: &mut Session, n: &str| {
        let o = Observation {
            progress_token: Some(id_of(&token)),
            ..observation("request", id_of(n), Some("tools/call"))
        };
        session.observe(Dir::C2s, &o, 0).violation
    };
    assert_eq!(request(&mut session, "1"), None);
    // Its key (300,001 bytes) twice, the id (its spelling `1`) and the method.
    assert_eq!(
        session.waiting[slot(Dir::C2s)].bytes(),
        2 * 300_001 + 1 + "tools/call".len()
    );
    assert_eq!(request(&mut session, "2"), Some(Violation::TooManyInFlight));
    session.observe(
        Dir::S2c,
        &observation("success_response", id_of("1"), None),
        1,
    );
    assert_eq!(session.waiting[slot(Dir::C2s)].bytes(), 0);
    assert_eq!(request(&mut session, "2"), None);
}

/// The bytes the replies owed to the client's invalid batch elements count.
fn owed_bytes(session: &Session) -> usize {
    session.owed_element_replies[slot(Dir::C2s)].bytes()
}

fn id_of(token: &str) -> Id<'_> {
    Id::from_token(token.as_bytes()).unwrap()
}

/// A client batch of one invalid element, as a JSON-RPC session sends it.
fn invalid_batch(session: &mut Session, id: Option<&'static str>, now: u64) {
    session.observe(Dir::C2s, &without_id("batch", None), now);
    let element = match id {
        Some(token) => Observation {
            id: Some(Id::from_token(token.as_bytes()).unwrap()),
            ..without_id("invalid", None)
        },
        None => without_id("parse_error", None),
    };
    session.observe_element(Dir::C2s, &element, now);
}

/// The server's array answering one invalid element: an error with this id (`null`).
fn owed_answer(session: &mut Session, token: &'static str, now: u64) -> Verdict {
    session.observe(Dir::S2c, &without_id("batch", None), now);
    let reply = Observation {
        id: Some(Id::from_token(token.as_bytes()).unwrap()),
        ..without_id("error_response", None)
    };
    session.observe_element(Dir::S2c, &reply, now)
}

/// A batch's deadline forgets its own owed replies, never another batch's; a batch
/// answered in time leaves no record.
#[test]
fn a_batch_deadline_forgets_only_its_own_owed_replies() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(300));
    invalid_batch(&mut session, None, 0); // A
    assert_eq!(owed_answer(&mut session, "null", 100).violation, None);
    invalid_batch(&mut session, None, 250); // B
    assert!(session.expire(301).is_empty(), "A was answered");
    assert_eq!(
        owed_answer(&mut session, "null", 395).violation,
        None,
        "B's, in time"
    );
    assert!(session.expire(10_000).is_empty());
    assert!(session.batches.is_empty());
    // Two batches with the same deadline: each forgets its own, oldest first.
    invalid_batch(&mut session, Some("7"), 20_000);
    invalid_batch(&mut session, None, 20_000);
    let timeouts = session.expire(20_300);
    assert_eq!(
        timed_out(&timeouts),
        [(vec![], vec![Some("7".to_string())]), (vec![], vec![None])]
    );
    // A thousand batches answered at once leave no record behind.
    for n in 0..1000 {
        invalid_batch(&mut session, None, 30_000 + n);
        owed_answer(&mut session, "null", 30_000 + n);
    }
    assert!(session.batches.is_empty());
    assert!(session.expire(40_000).is_empty());
    assert!(session.deadlines.is_empty());
}

/// §5.1 lets a server answer an invalid element whose id it read with a null id: after
/// the proxy answered it at the batch's deadline, such a reply is late too, once: the
/// late reply, with the id or null, takes it.
#[test]
fn a_late_null_reply_to_an_element_with_an_id_is_late() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    invalid_batch(&mut session, Some("5"), 0);
    assert_eq!(
        timed_out(&session.expire(100)),
        [(vec![], vec![Some("5".to_string())])]
    );
    let verdict = owed_answer(&mut session, "null", 400);
    assert_eq!(verdict.violation, Some(Violation::LateReply));
    assert!(!session.batch_forwards(Dir::S2c));
    // Answered late with its id, the element is owed nothing more: a null-id error in an
    // array afterwards answers a notification.
    invalid_batch(&mut session, Some("6"), 1000);
    session.expire(1100);
    assert_eq!(
        owed_answer(&mut session, "6", 1200).violation,
        Some(Violation::LateReply)
    );
    let stray = owed_answer(&mut session, "null", 1300);
    assert_eq!(stray.violation, Some(Violation::ReplyWithoutId));
    assert!(session.batch_forwards(Dir::S2c), "JSON-RPC forwards it");
}

/// The tokens of what a dropped batch answered: its requests, and the owed replies.
fn in_place(session: &mut Session) -> (Vec<String>, Vec<Option<String>>) {
    let token = |id: &IdBuf| String::from_utf8_lossy(id.as_id().raw()).into_owned();
    let answered = session.take_answered_in_place();
    (
        answered.requests.iter().map(token).collect(),
        answered
            .owed
            .iter()
            .map(|id| id.as_ref().map(token))
            .collect(),
    )
}

/// A dropped server array holding a reply to a request of a client batch makes the proxy
/// answer all that is left of that batch, in one array: its requests still waiting, the
/// one the array answered or not, and the replies still owed to its invalid elements. With
/// or without a timeout, nothing of it is left for the batch's deadline, the server's
/// replies coming later are late, and another batch's owed replies are still owed.
#[test]
fn a_dropped_array_answers_all_that_is_left_of_the_batch_it_answers() {
    for timeout in [None, Some(100)] {
        let mut session = Session::new(Dialect::JsonRpc2, timeout);
        let invalid = |token| observation("invalid", id(token), None);
        batch(&mut session, Dir::C2s, &[invalid("8")]);
        let sent = [
            invalid("9"),
            without_id("parse_error", None),
            observation("request", id("1"), Some("a")),
            observation("request", id("2"), Some("b")),
        ];
        batch(&mut session, Dir::C2s, &sent);
        session.observe(Dir::S2c, &without_id("batch", None), 0);
        session.drop_batch(Dir::S2c);
        let dropped = [
            observation("success_response", id("1"), None),
            without_id("invalid", None),
        ];
        for o in &dropped {
            session.observe_element(Dir::S2c, o, 0);
        }
        assert_eq!(
            in_place(&mut session),
            (
                vec!["1".to_string(), "2".to_string()],
                vec![Some("9".to_string()), None]
            ),
            "{timeout:?}"
        );
        assert!(session.owes_element_reply(Dir::C2s, Some(id("8"))));
        assert!(!session.owes_element_reply(Dir::C2s, Some(id("9"))));
        assert!(!session.is_waiting(Dir::C2s, id("2")));
        if timeout.is_some() {
            assert_eq!(
                timed_out(&session.expire(100)),
                [(vec![], vec![Some("8".to_string())])],
                "the first batch's owed reply; nothing of the second"
            );
        }
        let late = owed_answer(&mut session, "9", 200);
        assert_eq!(late.violation, Some(Violation::LateReply), "{timeout:?}");
        let reply = session.observe(
            Dir::S2c,
            &observation("success_response", id("2"), None),
            200,
        );
        assert_eq!(reply.violation, Some(Violation::LateReply), "{timeout:?}");
    }
}

/// A dropped server array holding only a reply owed to an invalid element (the batch had
/// no request) makes the proxy answer the batch's owed replies in place too; with a null
/// id, the oldest batch with an element whose id could not be read.
#[test]
fn a_dropped_array_of_owed_replies_answers_their_batch() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    let sent = [
        observation("invalid", id("9"), None),
        without_id("parse_error", None),
    ];
    batch(&mut session, Dir::C2s, &sent);
    invalid_batch(&mut session, None, 0);
    for reply in ["9", "null"] {
        session.observe(Dir::S2c, &without_id("batch", None), 0);
        session.drop_batch(Dir::S2c);
        let error = Observation {
            id: Some(id(reply)),
            ..without_id("error_response", None)
        };
        session.observe_element(Dir::S2c, &error, 0);
        let expected = match reply {
            "9" => vec![Some("9".to_string()), None],
            _ => vec![None],
        };
        assert_eq!(in_place(&mut session), (vec![], expected), "{reply}");
    }
    assert!(!session.owes_element_reply(Dir::C2s, None));
    assert_eq!(owed_bytes(&session), 0);
}

/// A success inside an array answering a reply owed to an invalid element is reported
/// (the server took the element for a request) and takes the owed reply: the proxy does
/// not answer the element again at its batch's deadline, and a later null-id error is
/// not taken for it. A request waiting with the same id is answered first.
#[test]
fn a_success_answering_an_owed_reply_takes_it() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    invalid_batch(&mut session, Some("5"), 0);
    let success = observation("success_response", id("5"), None);
    let verdicts = batch(&mut session, Dir::S2c, &[success]);
    assert_eq!(verdicts[0].violation, Some(Violation::SuccessToInvalid));
    assert!(verdicts[0].forward && session.batch_forwards(Dir::S2c));
    assert!(!session.owes_element_reply(Dir::C2s, Some(id("5"))));
    assert_eq!(timed_out(&session.expire(100)), []);
    // With a null id, for an element whose id could not be read.
    let mut session = Session::new(Dialect::JsonRpc2, None);
    invalid_batch(&mut session, None, 0);
    let null = Observation {
        id: Some(id("null")),
        ..without_id("success_response", None)
    };
    let verdicts = batch(&mut session, Dir::S2c, &[null]);
    assert_eq!(verdicts[0].violation, Some(Violation::SuccessToInvalid));
    let stray = owed_answer(&mut session, "null", 1);
    assert_eq!(stray.violation, Some(Violation::ReplyWithoutId));
    // A request of that id waiting is answered first.
    invalid_batch(&mut session, Some("5"), 2);
    batch(
        &mut session,
        Dir::C2s,
        &[observation("request", id("5"), Some("m"))],
    );
    let verdicts = batch(&mut session, Dir::S2c, &[success]);
    assert_eq!(verdicts[0].violation, None);
    assert!(session.owes_element_reply(Dir::C2s, Some(id("5"))));
}

/// An error inside an array answering a request of a batch lets off a success of its id that
/// later takes an invalid element's reply (nothing on the wire tells which of the two the
/// error answered) only while such an element was owed when the error came: the proxy, which
/// observes messages as they arrive, reports the success to an element the client sent after
/// the error (it was let off too); a merge of two streams, which knows no arrival order, lets
/// it off whenever the element came ([`Session::without_arrival_order`]).
#[test]
fn a_success_to_an_element_sent_after_an_error_of_its_id_is_reported_live() {
    let mut error = observation("error_response", id("3"), None);
    error.error_code = Some(-32600);
    let success = observation("success_response", id("3"), None);
    for (live, element_first) in [(true, false), (true, true), (false, false)] {
        let session = Session::new(Dialect::JsonRpc2, None);
        let mut session = match live {
            true => session,
            false => session.without_arrival_order(),
        };
        batch(
            &mut session,
            Dir::C2s,
            &[observation("request", id("3"), Some("m"))],
        );
        if element_first {
            invalid_batch(&mut session, Some("3"), 0);
        }
        batch(&mut session, Dir::S2c, std::slice::from_ref(&error));
        if !element_first {
            invalid_batch(&mut session, Some("3"), 0);
        }
        let verdicts = batch(&mut session, Dir::S2c, std::slice::from_ref(&success));
        let expected = (live && !element_first).then_some(Violation::SuccessToInvalid);
        assert_eq!(
            verdicts[0].violation, expected,
            "live: {live}, element first: {element_first}"
        );
        assert!(!session.owes_element_reply(Dir::C2s, Some(id("3"))));
    }
}

/// A reply with the id of an invalid element sent alone (not in an array, as §6 asks)
/// answers the element when no request of that id waits: it is owed nothing more, so the
/// proxy does not answer it again at its batch's deadline. A null-id reply alone still
/// answers nothing (it answers a notification).
#[test]
fn a_reply_alone_with_an_owed_id_answers_the_element() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    invalid_batch(&mut session, Some("5"), 0);
    invalid_batch(&mut session, None, 0);
    let mut error = observation("error_response", id("5"), None);
    error.error_code = Some(-32600);
    let verdict = session.observe(Dir::S2c, &error, 1);
    assert_eq!((verdict.forward, verdict.violation), (true, None));
    assert!(!session.owes_element_reply(Dir::C2s, Some(id("5"))));
    let null = Observation {
        id: Some(id("null")),
        ..error
    };
    let verdict = session.observe(Dir::S2c, &null, 1);
    assert_eq!(verdict.violation, Some(Violation::ReplyWithoutId));
    assert_eq!(
        timed_out(&session.expire(100)),
        [(vec![], vec![None])],
        "only the element without an id"
    );
}

/// The deadlines of batches answered in time do not pile up in the heap until they fall
/// due, even when no request ever stops waiting (batches of invalid elements only).
#[test]
fn deadlines_of_answered_batches_are_dropped() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(3_600_000));
    for n in 0..10_000 {
        invalid_batch(&mut session, None, n);
        assert_eq!(owed_answer(&mut session, "null", n).violation, None);
        assert!(session.deadlines.len() <= 2 * session.batches.len() + 65);
    }
    assert!(session.batches.is_empty());
}

/// The id tokens `"b-0"`, `"b-1"`, … of `n` elements of batch `b`.
fn batch_id_tokens(b: usize, n: usize) -> Vec<String> {
    (0..n).map(|e| format!("\"{b}-{e}\"")).collect()
}

/// The ids those tokens spell.
fn ids_of(tokens: &[String]) -> Vec<Id<'_>> {
    tokens
        .iter()
        .map(|t| Id::from_token(t.as_bytes()).unwrap())
        .collect()
}

/// A client batch keeps the ids of its requests only while they wait: a batch whose
/// requests are answered but one does not hold all their ids until that one is (without a
/// timeout, forever), or batches of thousands of requests, each with one left waiting,
/// would hold every id they ever sent, outside the budget of the requests in flight.
#[test]
fn a_batch_keeps_only_the_ids_of_its_requests_still_waiting() {
    const BATCHES: usize = 50;
    const REQUESTS: usize = 200;
    let mut session = Session::new(Dialect::JsonRpc2, None);
    for b in 0..BATCHES {
        let tokens = batch_id_tokens(b, REQUESTS);
        let ids = ids_of(&tokens);
        session.observe(Dir::C2s, &without_id("batch", None), 0);
        for id in &ids {
            session.observe_element(Dir::C2s, &observation("request", *id, Some("m")), 0);
        }
        // All but the first answered (alone, as a server may for a batch it splits).
        for id in &ids[1..] {
            let v = session.observe(Dir::S2c, &observation("success_response", *id, None), 0);
            assert_eq!(v.violation, None);
        }
    }
    assert_eq!(session.waiting[slot(Dir::C2s)].len(), BATCHES);
    assert_eq!(session.batches.len(), BATCHES);
    let kept: usize = session.batches.values().map(|b| b.requests.len()).sum();
    assert!(
        kept <= 16 * BATCHES,
        "{kept} ids kept for {BATCHES} requests waiting"
    );
}

/// The same for the replies owed to a batch's invalid elements: a batch with one left owed
/// does not hold the ids of all the others, answered, until it is (without a timeout,
/// forever).
#[test]
fn a_batch_keeps_only_the_ids_of_its_replies_still_owed() {
    const BATCHES: usize = 50;
    const ELEMENTS: usize = 200;
    let mut session = Session::new(Dialect::JsonRpc2, None);
    for b in 0..BATCHES {
        let tokens = batch_id_tokens(b, ELEMENTS);
        let ids = ids_of(&tokens);
        session.observe(Dir::C2s, &without_id("batch", None), 0);
        for id in &ids {
            let invalid = Observation {
                id: Some(*id),
                ..without_id("invalid", None)
            };
            session.observe_element(Dir::C2s, &invalid, 0);
        }
        // All but the first answered, in the server's array.
        session.observe(Dir::S2c, &without_id("batch", None), 0);
        for id in &ids[1..] {
            let error = Observation {
                id: Some(*id),
                ..without_id("error_response", None)
            };
            assert_eq!(session.observe_element(Dir::S2c, &error, 0).violation, None);
        }
    }
    assert_eq!(session.batches.len(), BATCHES);
    let kept: usize = session.batches.values().map(|b| b.owed.len()).sum();
    assert!(
        kept <= 16 * BATCHES,
        "{kept} ids kept for {BATCHES} replies owed"
    );
    // What is left is still answered in place of a dropped array, by its own id.
    let first = session.batches.keys().min().copied().unwrap();
    let (_, owed) = session.take_rest_of_batch(first);
    assert_eq!(
        owed,
        [Some(IdBuf::from(Id::from_token(br#""0-0""#).unwrap()))]
    );
    let rest: Vec<u64> = session.batches.keys().copied().collect();
    for no in rest {
        assert_eq!(session.take_rest_of_batch(no).1.len(), 1);
    }
    assert_eq!(owed_bytes(&session), 0);
}

/// MCP's `tasks/result` waits until its task ends (the receiver "MUST block the response
/// until the task reaches a terminal status", 2025-11-25): no timeout applies to it, as to a
/// listen stream; it is still unanswered if the session ends first. Another request times out.
#[test]
fn tasks_result_never_times_out() {
    let mut session = Session::new(Dialect::Mcp, Some(100));
    session.observe(
        Dir::C2s,
        &observation("request", id("1"), Some("tasks/result")),
        0,
    );
    session.observe(
        Dir::C2s,
        &observation("request", id("2"), Some("tasks/get")),
        0,
    );
    assert_eq!(
        timed_out(&session.expire(1_000_000)),
        [(vec!["2".into()], vec![])]
    );
    assert!(session.is_waiting(Dir::C2s, id("1")));
    // Plain JSON-RPC has no tasks: a method of that name is a request like any other.
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    session.observe(
        Dir::C2s,
        &observation("request", id("1"), Some("tasks/result")),
        0,
    );
    assert_eq!(
        timed_out(&session.expire(100)),
        [(vec!["1".into()], vec![])]
    );
}

/// A timeout too long to reach (`--timeout-ms 18446744073709551615`, "never") never expires:
/// its deadline is not computed past `u64::MAX`, which panicked, or wrapped round to a
/// deadline already past, timing out every request and batch at once.
#[test]
fn a_timeout_too_long_to_reach_never_expires() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(u64::MAX));
    request(&mut session, "1", "ping", 5);
    batch(
        &mut session,
        Dir::C2s,
        &[observation("request", id("2"), Some("a"))],
    );
    request(&mut session, "3", "ping", 7);
    assert_eq!(timed_out(&session.expire(1_000_000)), []);
    assert!(session.is_waiting(Dir::C2s, id("1")));
    assert!(session.is_waiting(Dir::C2s, id("2")));
}

/// Replies owed to invalid elements are bounded by bytes as well as by number, as the
/// requests in flight are: each keeps its element's id, which may be 64 KiB long, so a
/// million of them would otherwise hold 64 GB. Past the budget an element is not owed a
/// reply, and the server's reply to it is unmatched, as past `--max-in-flight`.
#[test]
fn owed_replies_are_bounded_by_bytes() {
    let mut session = Session::with_budget(Dialect::JsonRpc2, None, MAX_IN_FLIGHT.get(), 1 << 20);
    let tokens: Vec<String> = (0..20).map(|n| format!("\"{n:0>64000}\"")).collect();
    let invalid: Vec<Observation<'_>> = tokens
        .iter()
        .map(|t| Observation {
            id: Some(id_of(t)),
            ..without_id("invalid", None)
        })
        .collect();
    batch(&mut session, Dir::C2s, &invalid);
    let errors: Vec<Observation<'_>> = tokens
        .iter()
        .map(|t| Observation {
            id: Some(id_of(t)),
            error_code: Some(-32600),
            ..without_id("error_response", None)
        })
        .collect();
    let verdicts = batch(&mut session, Dir::S2c, &errors);
    // Each id takes 64,002 bytes of spelling and 64,001 of key: 8 fit in 1 MiB, 9 do not.
    let matched = verdicts.iter().filter(|v| v.violation.is_none()).count();
    assert_eq!(matched, 8, "{verdicts:?}");
    assert_eq!(owed_bytes(&session), 0);
}

/// Replies owed to invalid elements count each id as it is kept, its spelling (in its
/// batch's record) and its key, as the requests waiting do: a number's key is short whatever
/// its spelling ("1.000…" keys as 1), and counting the key alone let a client have a million
/// elements with ids of 64 KiB each owed as 5 bytes apiece. Each gives its bytes back however
/// it goes: answered by the server, answered by the proxy at its batch's deadline or in place
/// of a dropped array, or with the session.
#[test]
fn owed_replies_are_bounded_by_the_bytes_of_their_ids_as_spelled() {
    let mut session =
        Session::with_budget(Dialect::JsonRpc2, Some(100), MAX_IN_FLIGHT.get(), 1 << 20);
    let tokens: Vec<String> = (0..20)
        .map(|n| format!("{n}.{}", "0".repeat(64_000)))
        .collect();
    let invalid: Vec<Observation<'_>> = tokens
        .iter()
        .map(|t| Observation {
            id: Some(id_of(t)),
            ..without_id("invalid", None)
        })
        .collect();
    let errors: Vec<Observation<'_>> = tokens
        .iter()
        .map(|t| Observation {
            id: Some(id_of(t)),
            error_code: Some(-32600),
            ..without_id("error_response", None)
        })
        .collect();
    // Each holds 64,002 or 64,003 bytes of spelling and a few of key: 16 fit in 1 MiB, 17 do
    // not. Answered by the server:
    batch(&mut session, Dir::C2s, &invalid);
    let verdicts = batch(&mut session, Dir::S2c, &errors);
    let matched = verdicts.iter().filter(|v| v.violation.is_none()).count();
    assert_eq!(matched, 16);
    assert_eq!(owed_bytes(&session), 0);
    // Answered by the proxy at their batch's deadline:
    batch(&mut session, Dir::C2s, &invalid);
    let expired = timed_out(&session.expire(1_000));
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0].1.len(), 16);
    assert_eq!(owed_bytes(&session), 0);
    // Answered by the proxy in place of a dropped array:
    batch(&mut session, Dir::C2s, &invalid);
    session.observe(Dir::S2c, &without_id("batch", None), 2_000);
    session.drop_batch(Dir::S2c);
    session.observe_element(Dir::S2c, &errors[0], 2_000);
    assert_eq!(in_place(&mut session).1.len(), 16);
    assert_eq!(owed_bytes(&session), 0);
    // Owed when the session ends:
    batch(&mut session, Dir::C2s, &invalid);
    session.close_batch();
    assert_eq!(
        session
            .batches
            .values()
            .map(|b| b.owed.len())
            .sum::<usize>(),
        16
    );
    assert!(owed_bytes(&session) > 16 * 64_002);
    session.finish();
    assert_eq!(owed_bytes(&session), 0);
}

/// Error replies are counted by code for the first 256 codes in each direction, the rest
/// under `(other)`, as method names are: a peer inventing codes (any integer) must not grow
/// the counters, nor the summary printed at every `--stats-every`, without bound.
#[test]
fn error_codes_counted_are_capped() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    for code in 0..10_000 {
        let reply = Observation {
            error_code: Some(-code),
            ..observation("error_response", id("7"), None)
        };
        session.observe(Dir::S2c, &reply, 0);
    }
    // Each direction has its own 256.
    let reply = Observation {
        error_code: Some(5),
        ..observation("error_response", id("7"), None)
    };
    session.observe(Dir::C2s, &reply, 0);
    session.observe(Dir::C2s, &reply, 0);
    let counters = session.counters.to_json();
    let by_code = counters["errors_by_code"].as_object().unwrap();
    assert_eq!(by_code.len(), 256 + 1 + 1);
    assert_eq!(by_code["s2c/0"], 1);
    assert_eq!(by_code["s2c/(other)"], 10_000 - 256);
    assert_eq!(by_code["c2s/5"], 2);
}

/// JSON-RPC: the late reply to a request with a null id (which the specification
/// discourages, but allows) that timed out is late, as with any other id: not forwarded,
/// since the proxy answered the request already. (It was taken for a reply to a
/// notification, forwarded, and the client got two replies to one request.)
#[test]
fn the_late_reply_to_a_timed_out_request_with_a_null_id_is_late() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(100));
    let null = id("null");
    session.observe(Dir::C2s, &observation("request", null, Some("a")), 0);
    assert_eq!(
        timed_out(&session.expire(100)),
        [(vec!["null".into()], vec![])]
    );
    for kind in ["success_response", "error_response"] {
        let late = session.observe(Dir::S2c, &observation(kind, null, None), 200);
        assert_eq!(
            (late.forward, late.violation),
            (false, Some(Violation::LateReply)),
            "{kind}"
        );
    }
}

/// JSON-RPC: a long line of requests reusing one id, answered one by one, is pruned of its
/// deadlines as it goes: each request answered leaves the table to the next in line, and the
/// deadlines kept stay within twice those still waiting. (Pruning asks, for each deadline,
/// whether its request waits in line: a search of the line by arrival number, where a walk
/// made 60,000 requests take 20 s in a debug build, holding the proxy's lock.)
#[test]
fn deadlines_of_a_long_line_are_pruned_as_it_is_answered() {
    let n = 20_000;
    let mut session = Session::new(Dialect::JsonRpc2, Some(60_000));
    for _ in 0..n {
        session.observe(Dir::C2s, &observation("request", id("1"), Some("ping")), 0);
    }
    for left in (0..n).rev() {
        let v = session.observe(Dir::S2c, &observation("success_response", id("1"), None), 1);
        assert_eq!(v.violation, None);
        assert!(session.deadlines.len() <= 2 * left + 65, "{left}");
    }
    assert!(session.expire(u64::MAX).is_empty());
}

/// The id a message goes on with, as text (`None`: its own).
fn forwarded_as(v: &Verdict) -> Option<String> {
    v.forward_id.as_ref().map(|id| id.to_string())
}

/// JSON-RPC, rewriting as the proxy does: a client request reusing an id whose reply could
/// still come (one in flight, one timed out) goes to the server under a minted id, which no
/// other request holds; the server's reply to it goes back with the client's id, whatever
/// the order of the replies, and the late reply to the old request is late.
#[test]
fn a_reused_jsonrpc_id_goes_upstream_under_a_minted_one() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(1_000)).rewriting_reused_ids();
    let request = |token, method| observation("request", id(token), Some(method));
    let reply = |token| observation("success_response", id_of(token), None);
    let first = session.observe(Dir::C2s, &request("7", "a"), 0);
    assert_eq!(forwarded_as(&first), None, "a fresh id goes on as it is");
    // Reused while in flight: a number, counting down from 2^53 - 1.
    let second = session.observe(Dir::C2s, &request("7", "b"), 0);
    assert_eq!(second.violation, Some(Violation::DuplicateId));
    assert_eq!(forwarded_as(&second).as_deref(), Some("9007199254740990"));
    // The server answers the second first: its reply goes back as 7, and the first's too.
    let answer = session.observe(Dir::S2c, &reply("9007199254740990"), 0);
    assert_eq!(
        (answer.violation, forwarded_as(&answer).as_deref()),
        (None, Some("7"))
    );
    let answer = session.observe(Dir::S2c, &reply("7"), 0);
    assert_eq!((answer.violation, forwarded_as(&answer)), (None, None));
    // A string id, reused after its timeout: a minted string; the timeout answers the client
    // with its own id, and names the minted one for the server.
    session.observe(Dir::C2s, &request("\"x\"", "slow"), 0);
    let timeouts = session.expire(1_000);
    assert_eq!(timeouts.len(), 1);
    let again = session.observe(Dir::C2s, &request("\"x\"", "again"), 1_000);
    assert_eq!(forwarded_as(&again).as_deref(), Some("\"rpcwire-2\""));
    let late = session.observe(Dir::S2c, &reply("\"x\""), 1_001);
    assert_eq!(
        (late.forward, late.violation),
        (false, Some(Violation::LateReply))
    );
    // The client sending the minted id itself while it is in use: rewritten in turn.
    let collision = session.observe(Dir::C2s, &request("\"rpcwire-2\"", "c"), 1_002);
    assert_eq!(forwarded_as(&collision).as_deref(), Some("\"rpcwire-3\""));
    // A rewritten request that times out: the client's id, and the server's.
    let timeouts = session.expire(2_500);
    let expired: Vec<_> = timeouts
        .iter()
        .map(|t| match t {
            Timeout::Request(e) => (e.id.to_string(), e.upstream().to_string()),
            Timeout::Batch { .. } => panic!("no batch"),
        })
        .collect();
    assert_eq!(
        expired,
        [
            ("\"x\"".to_string(), "\"rpcwire-2\"".to_string()),
            ("\"rpcwire-2\"".to_string(), "\"rpcwire-3\"".to_string())
        ]
    );
    // Its late reply is late.
    let late = session.observe(Dir::S2c, &reply("\"rpcwire-3\""), 2_600);
    assert_eq!(late.violation, Some(Violation::LateReply));
}

/// MCP never rewrites: a reused id is refused, as before. Nor does a session merging two
/// recorded streams (not told to rewrite), whose server read the client's ids as they were.
#[test]
fn only_a_rewriting_jsonrpc_session_mints_ids() {
    let request = |token, method| observation("request", id(token), Some(method));
    let mut mcp = Session::new(Dialect::Mcp, None).rewriting_reused_ids();
    mcp.observe(Dir::C2s, &request("7", "a"), 0);
    let v = mcp.observe(Dir::C2s, &request("7", "b"), 0);
    assert_eq!(
        (v.forward, v.violation, v.forward_id),
        (false, Some(Violation::DuplicateId), None)
    );
    let mut merged = Session::new(Dialect::JsonRpc2, None);
    merged.observe(Dir::C2s, &request("7", "a"), 0);
    let v = merged.observe(Dir::C2s, &request("7", "b"), 0);
    assert_eq!(
        (v.forward, v.violation, v.forward_id),
        (true, Some(Violation::DuplicateId), None)
    );
}

/// JSON-RPC, rewriting: a client request reusing an id that waits only as the client's id of
/// a request forwarded under a minted one is still a duplicate (the client has two requests of
/// that id in flight), though it goes on under its own id (no reply with it can come for
/// another request); so is one reusing the client's id of a minted request that timed out.
#[test]
fn reusing_the_client_id_of_a_rewritten_request_is_a_duplicate() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(1_000)).rewriting_reused_ids();
    let request = |token, method| observation("request", id(token), Some(method));
    let reply = |token| observation("success_response", id_of(token), None);
    session.observe(Dir::C2s, &request("7", "a"), 0);
    let second = session.observe(Dir::C2s, &request("7", "b"), 0);
    let minted = forwarded_as(&second).expect("minted");
    // The first is answered: 7 waits only as the client's id of the second.
    session.observe(Dir::S2c, &reply("7"), 0);
    let third = session.observe(Dir::C2s, &request("7", "c"), 0);
    assert_eq!(
        (third.forward, third.violation, forwarded_as(&third)),
        (true, Some(Violation::DuplicateId), None)
    );
    // Each reply goes back as 7, to its own request.
    assert_eq!(
        forwarded_as(&session.observe(Dir::S2c, &reply(&minted), 0)).as_deref(),
        Some("7")
    );
    assert_eq!(session.observe(Dir::S2c, &reply("7"), 0).violation, None);
    // A minted request timing out: the client reusing its id right after is a duplicate too.
    session.observe(Dir::C2s, &request("8", "slow"), 0);
    let again = session.observe(Dir::C2s, &request("8", "slow too"), 0);
    let minted = forwarded_as(&again).expect("minted");
    session.observe(Dir::S2c, &reply("8"), 0);
    assert_eq!(session.expire(1_000).len(), 1);
    let after = session.observe(Dir::C2s, &request("8", "after"), 1_000);
    assert_eq!(after.violation, Some(Violation::DuplicateId));
    // The late reply to the minted one is late.
    let late = session.observe(Dir::S2c, &reply(&minted), 1_001);
    assert_eq!(late.violation, Some(Violation::LateReply));
}

/// JSON-RPC, rewriting: a client request of an id the session minted, while the server may
/// still answer the minted one, goes on under another minted id, but is no duplicate: the
/// client never sent that id before (the collision is the proxy's doing). Alone, in flight
/// or timed out, or inside a batch.
#[test]
fn a_client_id_equal_to_a_minted_one_is_no_duplicate() {
    let request = |token, method| observation("request", id_of(token), Some(method));
    // A session that minted an id for a reused 7, and that id.
    let minting = || {
        let mut session = Session::new(Dialect::JsonRpc2, Some(1_000)).rewriting_reused_ids();
        session.observe(Dir::C2s, &request("7", "a"), 0);
        let v = session.observe(Dir::C2s, &request("7", "b"), 0);
        assert_eq!(v.violation, Some(Violation::DuplicateId));
        let minted = forwarded_as(&v).unwrap();
        (session, minted)
    };
    // In flight, alone: under another minted id.
    let (mut session, minted) = minting();
    let same = session.observe(Dir::C2s, &request(&minted, "c"), 0);
    assert_eq!(same.violation, None);
    assert!(forwarded_as(&same).is_some_and(|m| m != minted));
    // In flight, inside a batch: under another minted id too.
    let (mut session, minted) = minting();
    session.observe(Dir::C2s, &without_id("batch", None), 0);
    let element = session.observe_element(Dir::C2s, &request(&minted, "d"), 0);
    assert_eq!((element.forward, element.violation), (true, None));
    assert!(forwarded_as(&element).is_some_and(|m| m != minted));
    // Timed out (the minted id is remembered for its late reply): under another minted id.
    let (mut session, minted) = minting();
    assert_eq!(session.expire(1_000).len(), 2);
    let after = session.observe(Dir::C2s, &request(&minted, "e"), 1_000);
    assert_eq!(after.violation, None);
    assert!(forwarded_as(&after).is_some_and(|m| m != minted));
}
/// JSON-RPC, rewriting: a reply inside an array never answers a request the session sent
/// alone under a minted id (§6: the server answers a request sent alone alone). A client's
/// batch request of the same id goes on under another minted id, so such a reply answers
/// nothing (a session rewriting requests sent alone only left that request untracked, the
/// reply its). The minted request's reply, alone, still goes back with the client's id.
#[test]
fn a_reply_in_an_array_does_not_take_a_minted_request() {
    let mut session = Session::new(Dialect::JsonRpc2, None).rewriting_reused_ids();
    let request = |token, method| observation("request", id_of(token), Some(method));
    let reply = |token| observation("success_response", id_of(token), None);
    session.observe(Dir::C2s, &request("7", "a"), 0);
    let minted = forwarded_as(&session.observe(Dir::C2s, &request("7", "b"), 0)).unwrap();
    // The client's batch holds a request of the minted id, as its own.
    session.observe(Dir::C2s, &without_id("batch", None), 0);
    session.observe_element(Dir::C2s, &request(&minted, "c"), 0);
    // The server answers the batch first, in an array.
    session.observe(Dir::S2c, &without_id("batch", None), 0);
    let in_array = session.observe_element(Dir::S2c, &reply(&minted), 0);
    // (The element went on under another minted id: a reply of this one is unknown.)
    assert_eq!(
        (
            in_array.forward,
            in_array.violation,
            forwarded_as(&in_array)
        ),
        (true, Some(Violation::UnknownReply), None)
    );
    // Then the minted request, alone: back to the client as 7.
    let alone = session.observe(Dir::S2c, &reply(&minted), 0);
    assert_eq!(forwarded_as(&alone).as_deref(), Some("7"), "{alone:?}");
    assert_eq!(alone.violation, None);
}

/// A request with the id `token`, of `method`.
fn request_of<'a>(token: &'a str, method: &'a str) -> Observation<'a> {
    observation("request", id_of(token), Some(method))
}

/// A success reply with the id `token`.
fn reply_of(token: &str) -> Observation<'_> {
    observation("success_response", id_of(token), None)
}

/// JSON-RPC, rewriting: a batch element reusing an id in flight goes to the server under a
/// minted id and is tracked by it; the server's reply to it, inside its array, goes back with
/// the client's id, and so would one alone. The reply to the request first holding the id
/// answers that one, as it is.
#[test]
fn an_array_reply_to_a_minted_element_gets_the_client_id_back() {
    for alone in [false, true] {
        let mut session = Session::new(Dialect::JsonRpc2, None).rewriting_reused_ids();
        session.observe(Dir::C2s, &request_of("7", "a"), 0);
        let sent = batch(
            &mut session,
            Dir::C2s,
            &[request_of("7", "b"), request_of("8", "c")],
        );
        let minted = forwarded_as(&sent[0]).expect("minted");
        assert_eq!(sent[0].violation, Some(Violation::DuplicateId));
        assert_eq!((forwarded_as(&sent[1]), sent[1].violation), (None, None));
        assert!(session.is_waiting(Dir::C2s, id_of(&minted)));
        let first = session.observe(Dir::S2c, &reply_of("7"), 0);
        assert_eq!((first.violation, forwarded_as(&first)), (None, None));
        let answers = if alone {
            vec![session.observe(Dir::S2c, &reply_of(&minted), 0)]
        } else {
            batch(&mut session, Dir::S2c, &[reply_of(&minted), reply_of("8")])
        };
        assert_eq!(
            (answers[0].forward, answers[0].violation),
            (true, None),
            "{alone}"
        );
        assert_eq!(forwarded_as(&answers[0]).as_deref(), Some("7"), "{alone}");
        if !alone {
            assert_eq!(
                (answers[1].violation, forwarded_as(&answers[1])),
                (None, None)
            );
            assert!(session.batch_forwards(Dir::S2c));
        }
        let left = session.finish();
        assert_eq!(left.len(), usize::from(alone), "8 unanswered when alone");
    }
}

/// JSON-RPC, rewriting: a batch element reusing an id that timed out goes on under a minted
/// id; the late reply to the old request keeps the old id and is late (cut from its array),
/// the reply to the element goes back with the client's id. When the batch times out in turn,
/// the proxy answers the element with the client's id, and names the minted one as the
/// server's; a dropped server array answering it is answered with the client's id too.
#[test]
fn a_minted_element_timed_out_or_answered_in_place_keeps_the_client_id() {
    let mut session = Session::new(Dialect::JsonRpc2, Some(1_000)).rewriting_reused_ids();
    session.observe(Dir::C2s, &request_of("7", "slow"), 0);
    assert_eq!(session.expire(1_000).len(), 1);
    let sent = batch(&mut session, Dir::C2s, &[request_of("7", "again")]);
    let minted = forwarded_as(&sent[0]).expect("minted");
    let array = batch(&mut session, Dir::S2c, &[reply_of("7"), reply_of(&minted)]);
    assert_eq!(
        (array[0].forward, array[0].violation),
        (false, Some(Violation::LateReply))
    );
    assert_eq!(
        (array[1].violation, forwarded_as(&array[1]).as_deref()),
        (None, Some("7"))
    );
    // Again, the batch left to time out.
    let sent = batch(&mut session, Dir::C2s, &[request_of("7", "third")]);
    let minted = forwarded_as(&sent[0]).expect("minted");
    let timeouts = session.expire(3_000);
    let [Timeout::Batch { requests, .. }] = &timeouts[..] else {
        panic!("one batch: {timeouts:?}");
    };
    let expired: Vec<_> = requests
        .iter()
        .map(|e| (e.id.to_string(), e.upstream().to_string()))
        .collect();
    assert_eq!(expired, [("7".to_string(), minted.clone())]);
    let late = batch(&mut session, Dir::S2c, &[reply_of(&minted)]);
    assert_eq!(late[0].violation, Some(Violation::LateReply));
    // Once more, answered in place of a dropped server array.
    let sent = batch(&mut session, Dir::C2s, &[request_of("7", "fourth")]);
    let minted = forwarded_as(&sent[0]).expect("minted");
    session.observe(Dir::S2c, &without_id("batch", None), 4_000);
    session.drop_batch(Dir::S2c);
    session.observe_element(Dir::S2c, &reply_of(&minted), 4_000);
    let in_place = session.take_answered_in_place();
    let ids: Vec<_> = in_place.requests.iter().map(ToString::to_string).collect();
    assert_eq!(ids, ["7"]);
}

/// The replay of a proxy log agrees with the proxy: a session rewriting requests sent alone
/// only (the logs of proxies from before batch elements were rewritten) forwards a batch
/// element reusing an id as it came, untracked, as those proxies did; one rewriting both
/// mints an id for it, as the present proxy does, and gives the same verdicts when the same
/// messages are observed again (the minted ids are a function of what came before).
#[test]
fn a_replay_mints_the_ids_the_proxy_minted_for_batch_elements() {
    let mut older = Session::new(Dialect::JsonRpc2, None).rewriting(IdRewriting::Alone);
    older.observe(Dir::C2s, &request_of("7", "a"), 0);
    let element = batch(&mut older, Dir::C2s, &[request_of("7", "b")]);
    assert_eq!(
        (
            element[0].forward,
            element[0].violation,
            forwarded_as(&element[0])
        ),
        (true, Some(Violation::DuplicateId), None)
    );
    let alone = older.observe(Dir::C2s, &request_of("7", "c"), 0);
    assert!(forwarded_as(&alone).is_some(), "alone, still rewritten");
    // The present proxy and its replay, message for message.
    let run = || {
        let mut session = Session::new(Dialect::JsonRpc2, Some(1_000)).rewriting_reused_ids();
        let mut verdicts = vec![session.observe(Dir::C2s, &request_of("7", "a"), 0)];
        verdicts.extend(batch(
            &mut session,
            Dir::C2s,
            &[request_of("7", "b"), request_of("7", "c")],
        ));
        let minted: Vec<_> = verdicts.iter().filter_map(forwarded_as).collect();
        verdicts.extend(batch(
            &mut session,
            Dir::S2c,
            &[reply_of(&minted[1]), reply_of(&minted[0])],
        ));
        verdicts.push(session.observe(Dir::S2c, &reply_of("7"), 0));
        let unanswered = session.finish().len();
        (verdicts, session.counters.violations.clone(), unanswered)
    };
    let live = run();
    assert_eq!(live, run());
    let restored: Vec<_> = live.0[3..5].iter().map(forwarded_as).collect();
    assert_eq!(restored, [Some("7".to_string()), Some("7".to_string())]);
    assert_eq!(live.2, 0);
}

/// JSON-RPC, rewriting, beyond the limit of requests in flight: a batch element whose id the
/// server may still answer goes with its batch untracked, but under a minted id, so that
/// its reply, alone or inside an array, is told from any other and goes back with the
/// client's id (its one reply: the element was kept; a second is unknown). Here the
/// element's id is one the session minted for a request sent alone: a server answering the
/// element alone (§6 wants an array) answered that request, under the element's own id.
#[test]
fn an_untracked_element_whose_id_the_server_may_answer_goes_under_a_minted_id() {
    for alone in [false, true] {
        let mut session =
            Session::with_max_in_flight(Dialect::JsonRpc2, None, 2).rewriting_reused_ids();
        session.observe(Dir::C2s, &request_of("7", "a"), 0);
        let second = session.observe(Dir::C2s, &request_of("7", "b"), 0);
        let minted = forwarded_as(&second).expect("minted");
        // The table is full: the element goes untracked.
        let sent = batch(&mut session, Dir::C2s, &[request_of(&minted, "c")]);
        assert_eq!(
            (sent[0].forward, sent[0].violation),
            (true, Some(Violation::TooManyInFlight))
        );
        let upstream = forwarded_as(&sent[0]).unwrap_or_else(|| minted.clone());
        assert_ne!(upstream, minted, "under an id of its own");
        let answers = if alone {
            vec![session.observe(Dir::S2c, &reply_of(&upstream), 0)]
        } else {
            batch(&mut session, Dir::S2c, &[reply_of(&upstream)])
        };
        assert_eq!(
            (answers[0].forward, answers[0].violation),
            (true, None),
            "{alone}"
        );
        assert_eq!(forwarded_as(&answers[0]), Some(minted.clone()), "{alone}");
        // The request sent alone still waits, and its reply goes back as 7.
        let reply = session.observe(Dir::S2c, &reply_of(&minted), 0);
        assert_eq!(
            (reply.violation, forwarded_as(&reply).as_deref()),
            (None, Some("7")),
            "{alone}"
        );
        // The element's reply is taken: a second one is unknown, and goes on as it came.
        let again = session.observe(Dir::S2c, &reply_of(&upstream), 0);
        assert_eq!(
            (again.violation, forwarded_as(&again)),
            (Some(Violation::UnknownReply), None)
        );
        let first = session.observe(Dir::S2c, &reply_of("7"), 0);
        assert_eq!((first.violation, forwarded_as(&first)), (None, None));
        assert!(session.finish().is_empty());
    }
}

/// JSON-RPC, rewriting: a batch element beyond the limit of requests in flight with a fresh id
/// goes untracked under that id, and a later request of the same id goes under a minted id,
/// so that the server's reply to the element, alone or in an array, never answers it; nor is
/// any id minted later equal to the element's. The session remembers the last [`RECENT`] such
/// ids: a request of an older one goes under its own id, once that element is no longer kept
/// (its reply came).
///
/// [`RECENT`]: recent::RECENT
#[test]
fn a_request_reusing_the_id_of_an_untracked_element_goes_under_a_minted_id() {
    let mut session =
        Session::with_max_in_flight(Dialect::JsonRpc2, None, 2).rewriting_reused_ids();
    session.observe(Dir::C2s, &request_of("1", "a"), 0);
    session.observe(Dir::C2s, &request_of("2", "b"), 0);
    // The table is full: the element goes untracked, under its own id, which is the first
    // the session would mint.
    let first_minted = "9007199254740990".to_string();
    let sent = batch(
        &mut session,
        Dir::C2s,
        &[request_of("5", "c"), request_of(&first_minted, "d")],
    );
    for element in &sent {
        assert_eq!(
            (element.violation, forwarded_as(element)),
            (Some(Violation::TooManyInFlight), None)
        );
    }
    session.observe(Dir::S2c, &reply_of("1"), 0);
    // 2 waits: its reuse goes under a minted id, not the element's.
    let again = session.observe(Dir::C2s, &request_of("2", "e"), 0);
    let minted = forwarded_as(&again).expect("minted");
    assert_ne!(minted, first_minted);
    session.observe(Dir::S2c, &reply_of("2"), 0);
    // 5 is in flight nowhere, but the server may answer the element: under a minted id too.
    let five = session.observe(Dir::C2s, &request_of("5", "f"), 0);
    let five_upstream = forwarded_as(&five).expect("minted");
    // The elements' replies, in an array or alone (§6 wants an array), answer the elements
    // (kept), no request; a second is unknown.
    let answers = batch(&mut session, Dir::S2c, &[reply_of("5")]);
    assert_eq!(answers[0].violation, None);
    let alone = session.observe(Dir::S2c, &reply_of(&first_minted), 0);
    assert_eq!((alone.violation, forwarded_as(&alone)), (None, None));
    let again = session.observe(Dir::S2c, &reply_of(&first_minted), 0);
    assert_eq!(again.violation, Some(Violation::UnknownReply));
    // The requests' own replies go back with the client's ids.
    for (upstream, client) in [(&minted, "2"), (&five_upstream, "5")] {
        let reply = session.observe(Dir::S2c, &reply_of(upstream), 0);
        assert_eq!(
            (reply.violation, forwarded_as(&reply).as_deref()),
            (None, Some(client))
        );
    }
    assert!(session.finish().is_empty());

    // The oldest forgotten, and its element answered: a request of its id goes under that id.
    let mut session =
        Session::with_max_in_flight(Dialect::JsonRpc2, None, 1).rewriting_reused_ids();
    session.observe(Dir::C2s, &request_of("1", "a"), 0);
    let tokens: Vec<String> = (0..=recent::RECENT).map(|n| format!("\"e{n}\"")).collect();
    let elements: Vec<_> = tokens.iter().map(|t| request_of(t, "b")).collect();
    batch(&mut session, Dir::C2s, &elements);
    session.observe(Dir::S2c, &reply_of("1"), 0);
    let element = session.observe(Dir::S2c, &reply_of("\"e0\""), 0);
    assert_eq!(element.violation, None);
    let oldest = session.observe(Dir::C2s, &request_of("\"e0\"", "c"), 0);
    assert_eq!((oldest.violation, forwarded_as(&oldest)), (None, None));
    session.observe(Dir::S2c, &reply_of("\"e0\""), 0);
    let newer = session.observe(Dir::C2s, &request_of("\"e1\"", "c"), 0);
    assert!(forwarded_as(&newer).is_some());
}

/// The client ids of the requests a batch timeout answers.
fn timed_out_ids(timeouts: &[Timeout]) -> Vec<String> {
    let mut ids = vec![];
    for timeout in timeouts {
        match timeout {
            Timeout::Request(e) => ids.push(e.id.to_string()),
            Timeout::Batch { requests, .. } => {
                ids.extend(requests.iter().map(|e| e.id.to_string()));
            }
        }
    }
    ids
}

/// JSON-RPC, rewriting as the proxy does: a batch element beyond `--max-in-flight` goes with
/// its batch untracked, but it is not forgotten. At its batch's deadline the proxy's array
/// answers it with the batch's other requests (its reply, coming later, is late, and the
/// server's array holding only late replies is dropped: one array answers the batch); without
/// a deadline, one the server never answers is unanswered at the end; one answered is not.
/// Under its own id or under a minted one (an id the server may still answer).
#[test]
fn an_untracked_batch_element_is_answered_at_its_deadline_and_reported_unanswered() {
    for reused in [false, true] {
        let element = if reused { "1" } else { "2" };
        // At the deadline.
        let mut session =
            Session::with_max_in_flight(Dialect::JsonRpc2, Some(1_000), 1).rewriting_reused_ids();
        let sent = batch(
            &mut session,
            Dir::C2s,
            &[request_of("1", "a"), request_of(element, "b")],
        );
        assert_eq!(
            (sent[1].forward, sent[1].violation),
            (true, Some(Violation::TooManyInFlight))
        );
        let upstream = forwarded_as(&sent[1]).unwrap_or_else(|| element.to_string());
        assert_eq!(forwarded_as(&sent[1]).is_some(), reused);
        let expired = session.expire(1_000);
        assert_eq!(timed_out_ids(&expired), ["1", element], "{reused}");
        if let [Timeout::Batch { requests, .. }] = &expired[..] {
            let upstream_id = requests[1].upstream_id.as_ref().map(|id| id.to_string());
            assert_eq!(upstream_id, reused.then(|| upstream.clone()));
        } else {
            panic!("one batch: {expired:?}");
        }
        // The server's array, later: late replies only, dropped.
        let answers = batch(
            &mut session,
            Dir::S2c,
            &[reply_of("1"), reply_of(&upstream)],
        );
        for answer in &answers {
            assert_eq!(
                (answer.forward, answer.violation),
                (false, Some(Violation::LateReply)),
                "{reused}"
            );
        }
        assert!(!session.batch_forwards(Dir::S2c));
        assert!(session.finish().is_empty());

        // Never answered, no deadline: unanswered at the end, with the id it went under.
        let mut session =
            Session::with_max_in_flight(Dialect::JsonRpc2, None, 1).rewriting_reused_ids();
        batch(
            &mut session,
            Dir::C2s,
            &[request_of("1", "a"), request_of(element, "b")],
        );
        let left = session.finish();
        let left: Vec<_> = left
            .iter()
            .map(|u| (u.id.to_string(), u.upstream_id.is_some(), &*u.method))
            .collect();
        assert_eq!(
            left,
            [("1".into(), false, "a"), (element.into(), reused, "b")],
            "{reused}"
        );

        // Answered: nothing left.
        let mut session =
            Session::with_max_in_flight(Dialect::JsonRpc2, Some(1_000), 1).rewriting_reused_ids();
        let sent = batch(
            &mut session,
            Dir::C2s,
            &[request_of("1", "a"), request_of(element, "b")],
        );
        let upstream = forwarded_as(&sent[1]).unwrap_or_else(|| element.to_string());
        let answers = batch(
            &mut session,
            Dir::S2c,
            &[reply_of("1"), reply_of(&upstream)],
        );
        assert!(
            answers.iter().all(|a| a.forward && a.violation.is_none()),
            "{reused}"
        );
        assert_eq!(forwarded_as(&answers[1]).is_some(), reused);
        assert!(session.expire(1_000).is_empty());
        assert!(session.finish().is_empty());
    }
}

/// A dropped server array that answers a client batch holding an untracked element: the
/// proxy's array in its place answers the element too.
#[test]
fn a_dropped_array_answers_the_untracked_elements_of_its_batch_in_place() {
    let mut session =
        Session::with_max_in_flight(Dialect::JsonRpc2, None, 1).rewriting_reused_ids();
    batch(
        &mut session,
        Dir::C2s,
        &[request_of("1", "a"), request_of("2", "b")],
    );
    session.observe(Dir::S2c, &without_id("batch", None), 0);
    session.drop_batch(Dir::S2c);
    session.observe_element(Dir::S2c, &reply_of("1"), 0);
    let in_place = session.take_answered_in_place();
    let ids: Vec<String> = in_place.requests.iter().map(|id| id.to_string()).collect();
    assert_eq!(ids, ["1", "2"]);
    // Its reply, coming later, is late.
    let late = session.observe(Dir::S2c, &reply_of("2"), 0);
    assert_eq!(late.violation, Some(Violation::LateReply));
    assert!(session.finish().is_empty());
}

/// JSON-RPC, rewriting: a request reusing an id in flight while the table is full has one
/// violation, the one that decides what becomes of it: `too_many_in_flight` (sent alone it is
/// refused, in a batch it goes untracked under a minted id, so the reuse answers nothing
/// wrongly), not `duplicate_id` (which MCP, refusing the reuse itself, reports first).
#[test]
fn a_reused_id_beyond_the_limit_is_reported_as_beyond_the_limit() {
    let mut session =
        Session::with_max_in_flight(Dialect::JsonRpc2, None, 1).rewriting_reused_ids();
    session.observe(Dir::C2s, &request_of("7", "a"), 0);
    let alone = session.observe(Dir::C2s, &request_of("7", "b"), 0);
    assert_eq!(
        (alone.forward, alone.violation),
        (false, Some(Violation::TooManyInFlight))
    );
    let sent = batch(&mut session, Dir::C2s, &[request_of("7", "c")]);
    assert_eq!(
        (sent[0].forward, sent[0].violation),
        (true, Some(Violation::TooManyInFlight))
    );
    assert!(forwarded_as(&sent[0]).is_some_and(|id| id != "7"));
    let counted = &session.counters.violations;
    assert_eq!(counted.get(&(Dir::C2s, Violation::DuplicateId)), None);
    assert_eq!(
        counted.get(&(Dir::C2s, Violation::TooManyInFlight)),
        Some(&2)
    );
}

/// JSON-RPC, rewriting: while a batch element beyond the limits is kept, waiting for its
/// reply, a request of the id it went under (its own, or one minted for it) goes under a
/// minted id, however many elements went untracked since: the memory of those ids
/// (`untracked_own_ids`, [`UntrackedRewrites`](untracked::UntrackedRewrites)) forgets the
/// oldest, but the element kept still waits for a reply with its id, and a request under
/// that id would take the element's reply (and the element the request's).
#[test]
fn a_request_with_the_id_of_a_kept_untracked_element_goes_under_a_minted_id() {
    // The element's id: its own (fresh), or minted (it reuses 1, in flight).
    for reused in [false, true] {
        let mut session =
            Session::with_max_in_flight(Dialect::JsonRpc2, None, 1).rewriting_reused_ids();
        session.observe(Dir::C2s, &request_of("1", "a"), 0);
        let tokens: Vec<String> = (0..=recent::RECENT)
            .map(|n| match reused {
                true => "1".to_string(),
                false => format!("\"e{n}\""),
            })
            .collect();
        let elements: Vec<_> = tokens.iter().map(|t| request_of(t, "b")).collect();
        let sent = batch(&mut session, Dir::C2s, &elements);
        let upstream = forwarded_as(&sent[0]).unwrap_or_else(|| tokens[0].clone());
        session.observe(Dir::S2c, &reply_of("1"), 0);
        // The first element is kept; its id's rewrite, or its own id, is forgotten.
        let request = session.observe(Dir::C2s, &request_of(&upstream, "c"), 0);
        let minted = forwarded_as(&request);
        assert!(
            minted.as_ref().is_some_and(|m| *m != upstream),
            "{reused}: {minted:?}"
        );
        // The server's reply to the element answers the element, with the client's id.
        let element = session.observe(Dir::S2c, &reply_of(&upstream), 0);
        assert_eq!(
            (element.violation, forwarded_as(&element)),
            (None, reused.then(|| "1".to_string())),
            "{reused}"
        );
        // Its reply to the request answers the request, with the client's id.
        let reply = session.observe(Dir::S2c, &reply_of(&minted.unwrap()), 0);
        assert_eq!(
            (reply.violation, forwarded_as(&reply)),
            (None, Some(upstream.clone())),
            "{reused}"
        );
    }
}

/// JSON-RPC: a server's batch element beyond `--max-in-flight` goes with its batch untracked,
/// and is kept until its reply comes, as a client's is: the client's reply to it, in an array
/// or alone, is its own, no violation (a second is unknown); never answered, it is
/// unanswered at the end. (No deadline: the proxy never answers a server's request itself.)
/// A session replaying the log of a proxy that did not keep them forgets it.
#[test]
fn an_untracked_server_batch_element_is_kept_until_its_reply_comes() {
    for keep in [true, false] {
        let mut session = Session::with_max_in_flight(Dialect::JsonRpc2, None, 1)
            .keeping_untracked_server_elements(keep);
        session.observe(Dir::S2c, &request_of("1", "a"), 0);
        let sent = batch(
            &mut session,
            Dir::S2c,
            &[request_of("5", "b"), request_of("6", "c")],
        );
        for element in &sent {
            assert_eq!(
                (element.forward, element.violation),
                (true, Some(Violation::TooManyInFlight))
            );
        }
        let answers = batch(&mut session, Dir::C2s, &[reply_of("5")]);
        let alone = session.observe(Dir::C2s, &reply_of("5"), 0);
        let unknown = Some(Violation::UnknownReply);
        let kept = if keep { None } else { unknown };
        assert_eq!(
            (answers[0].violation, alone.violation),
            (kept, unknown),
            "{keep}"
        );
        let left: Vec<_> = session
            .finish()
            .iter()
            .map(|u| (u.dir, u.id.to_string(), u.upstream_id.is_some()))
            .collect();
        let mut expected = vec![(Dir::S2c, "1".to_string(), false)];
        if keep {
            expected.push((Dir::S2c, "6".to_string(), false));
        }
        assert_eq!(left, expected, "{keep}");
    }
}

/// MCP's `notifications/cancelled` naming `token`.
fn cancel_of(token: &str) -> Observation<'_> {
    Observation {
        cancels: Some(id_of(token)),
        ..without_id("notification", Some("notifications/cancelled"))
    }
}

/// MCP (2025-03-26's batches, as the session models them): a client batch element beyond
/// `--max-in-flight`, kept, that the client cancels ends as a cancelled request does: its
/// bytes are given back, its batch no longer waits for it (the record goes once the rest is
/// answered, and its deadline answers the rest only), its reply, coming later, is late, a
/// request reusing its id is a duplicate, and it is not unanswered at the end.
#[test]
fn a_cancelled_untracked_client_element_is_no_longer_kept() {
    // Answered: the batch's record goes, nothing is kept, the element's reply is late.
    let mut session = Session::with_max_in_flight(Dialect::Mcp, Some(1_000), 1);
    let sent = batch(
        &mut session,
        Dir::C2s,
        &[request_of("1", "a"), request_of("2", "b")],
    );
    assert_eq!(sent[1].violation, Some(Violation::TooManyInFlight));
    assert!(!session.untracked_elements.is_empty());
    let cancelled = session.observe(Dir::C2s, &cancel_of("2"), 0);
    assert_eq!((cancelled.forward, cancelled.violation), (true, None));
    assert!(session.untracked_elements.is_empty(), "given back");
    let answers = batch(&mut session, Dir::S2c, &[reply_of("1")]);
    assert_eq!(answers[0].violation, None);
    assert!(session.batches.is_empty(), "nothing of the batch waits");
    let late = session.observe(Dir::S2c, &reply_of("2"), 0);
    assert_eq!(
        (late.forward, late.violation),
        (false, Some(Violation::LateReply))
    );
    let reused = session.observe(Dir::C2s, &request_of("2", "c"), 0);
    assert_eq!(reused.violation, Some(Violation::DuplicateId));
    assert!(session.expire(1_000).is_empty());
    assert!(session.finish().is_empty());

    // Never answered: its batch's deadline answers what is left of it, the element not.
    let mut session = Session::with_max_in_flight(Dialect::Mcp, Some(1_000), 1);
    batch(
        &mut session,
        Dir::C2s,
        &[request_of("1", "a"), request_of("2", "b")],
    );
    session.observe(Dir::C2s, &cancel_of("2"), 0);
    assert_eq!(timed_out_ids(&session.expire(1_000)), ["1"]);
    assert!(session.finish().is_empty());

    // No deadline: not unanswered at the end (the request it went beyond is).
    let mut session = Session::with_max_in_flight(Dialect::Mcp, None, 1);
    batch(
        &mut session,
        Dir::C2s,
        &[request_of("1", "a"), request_of("2", "b")],
    );
    session.observe(Dir::C2s, &cancel_of("2"), 0);
    let left: Vec<_> = session.finish().iter().map(|u| u.id.to_string()).collect();
    assert_eq!(left, ["1"]);
}

/// MCP: a server batch element beyond `--max-in-flight`, kept, that the server cancels is
/// kept no more: the client's reply to it is late, and it is not unanswered at the end.
#[test]
fn a_cancelled_untracked_server_element_is_no_longer_kept() {
    let mut session = Session::with_max_in_flight(Dialect::Mcp, None, 1);
    session.observe(Dir::S2c, &request_of("1", "a"), 0);
    let sent = batch(
        &mut session,
        Dir::S2c,
        &[request_of("5", "b"), request_of("6", "c")],
    );
    assert!(
        sent.iter()
            .all(|v| v.violation == Some(Violation::TooManyInFlight))
    );
    session.observe(Dir::S2c, &cancel_of("5"), 0);
    let late = batch(&mut session, Dir::C2s, &[reply_of("5")]);
    assert_eq!(
        (late[0].forward, late[0].violation),
        (false, Some(Violation::LateReply))
    );
    let left: Vec<_> = session
        .finish()
        .iter()
        .map(|u| (u.dir, u.id.to_string()))
        .collect();
    assert_eq!(
        left,
        [(Dir::S2c, "1".to_string()), (Dir::S2c, "6".to_string())]
    );
}

/// MCP (2025-03-26's batches, as the session models them): while a batch element beyond
/// `--max-in-flight` is kept, waiting for its reply, its id is in use as a request's waiting
/// is, whichever side sent it: a request reusing it, alone or in a later batch, is a duplicate,
/// refused (MCP forbids reusing an id while its reply may still come), though the table has
/// room for it. Once the element's reply came, the id is free again.
#[test]
fn reusing_the_id_of_a_kept_untracked_element_is_a_duplicate() {
    for dir in [Dir::C2s, Dir::S2c] {
        let mut session = Session::with_max_in_flight(Dialect::Mcp, None, 1);
        session.observe(dir, &request_of("1", "a"), 0);
        let sent = batch(&mut session, dir, &[request_of("2", "b")]);
        assert_eq!(
            sent[0].violation,
            Some(Violation::TooManyInFlight),
            "{dir:?}"
        );
        // Room in the table: the reuse is refused as a duplicate, not as beyond the limit.
        session.observe(dir.other(), &reply_of("1"), 0);
        let alone = session.observe(dir, &request_of("2", "c"), 0);
        let duplicate = (false, Some(Violation::DuplicateId));
        assert_eq!((alone.forward, alone.violation), duplicate, "{dir:?}");
        let in_batch = batch(&mut session, dir, &[request_of("2", "d")]);
        assert_eq!(
            in_batch[0].violation,
            Some(Violation::DuplicateId),
            "{dir:?}"
        );
        assert!(!session.is_waiting(dir, id("2")), "{dir:?}");
        // The element's reply is its own; the id is then free.
        let reply = session.observe(dir.other(), &reply_of("2"), 0);
        assert_eq!(reply.violation, None, "{dir:?}");
        let fresh = session.observe(dir, &request_of("2", "e"), 0);
        assert_eq!((fresh.forward, fresh.violation), (true, None), "{dir:?}");
        let left: Vec<_> = session.finish().iter().map(|u| u.id.to_string()).collect();
        assert_eq!(left, ["2"], "{dir:?}");
    }
}

/// JSON-RPC: the same, as a warning (the request is forwarded, as one reusing the id of a
/// request waiting is). A client's element kept under an id the session minted counts by the
/// client's id, as a request waiting under a minted id does: the client reusing its own id is
/// a duplicate, the client sending the minted id is not (it never sent that one).
#[test]
fn reusing_the_id_of_a_kept_untracked_element_is_a_jsonrpc_duplicate() {
    let mut session =
        Session::with_max_in_flight(Dialect::JsonRpc2, None, 2).rewriting_reused_ids();
    session.observe(Dir::C2s, &request_of("7", "a"), 0);
    session.observe(Dir::C2s, &request_of("8", "b"), 0);
    // The table is full, and the server may still answer 7: the element goes under a minted id.
    let sent = batch(&mut session, Dir::C2s, &[request_of("7", "c")]);
    let minted = forwarded_as(&sent[0]).expect("minted");
    session.observe(Dir::S2c, &reply_of("7"), 0);
    session.observe(Dir::S2c, &reply_of("8"), 0);
    let same_as_minted = session.observe(Dir::C2s, &request_of(&minted, "d"), 0);
    assert_eq!(
        (same_as_minted.forward, same_as_minted.violation),
        (true, None)
    );
    let reused = session.observe(Dir::C2s, &request_of("7", "e"), 0);
    assert_eq!(
        (reused.forward, reused.violation),
        (true, Some(Violation::DuplicateId))
    );
    // The element's reply goes back as 7, its own.
    let reply = session.observe(Dir::S2c, &reply_of(&minted), 0);
    assert_eq!(
        (reply.violation, forwarded_as(&reply).as_deref()),
        (None, Some("7"))
    );

    // The server's, kept under its own id.
    let mut session = Session::with_max_in_flight(Dialect::JsonRpc2, None, 1);
    session.observe(Dir::S2c, &request_of("1", "a"), 0);
    batch(&mut session, Dir::S2c, &[request_of("5", "b")]);
    session.observe(Dir::C2s, &reply_of("1"), 0);
    let reused = session.observe(Dir::S2c, &request_of("5", "c"), 0);
    assert_eq!(
        (reused.forward, reused.violation),
        (true, Some(Violation::DuplicateId))
    );
}

/// Replaying a proxy log, the requests of a client batch time out as the log says
/// (`time_out`), it may be right after the batch's elements, before any other message: the
/// batch's record goes once nothing of it is left, a kept element included, as at the proxy
/// (whose timeouts close the batch first), not stay for the rest of the replay.
#[test]
fn a_batch_timed_out_as_a_log_says_leaves_no_record() {
    let mut session = Session::with_max_in_flight(Dialect::JsonRpc2, None, 1);
    let sent = batch(
        &mut session,
        Dir::C2s,
        &[request_of("1", "a"), request_of("2", "b")],
    );
    assert_eq!(sent[1].violation, Some(Violation::TooManyInFlight));
    assert!(session.time_out(id("1")));
    assert!(session.time_out(id("2")));
    session.observe(Dir::C2s, &request_of("3", "c"), 0);
    assert!(session.batches.is_empty(), "{:?}", session.batches);
    assert!(session.open_batch.is_none());
}

/// Replaying a proxy log, the replies the proxy sent itself to the invalid elements of a
/// timed-out batch (`owed_answered`) are owed no more by that batch either: with its requests
/// timed out, its record goes, before or after the next message.
#[test]
fn owed_replies_a_log_says_the_proxy_answered_leave_no_record() {
    for closed in [false, true] {
        let mut session = Session::new(Dialect::JsonRpc2, None);
        batch(
            &mut session,
            Dir::C2s,
            &[request_of("1", "a"), observation("invalid", id("5"), None)],
        );
        if closed {
            session.observe(Dir::C2s, &request_of("3", "c"), 0);
        }
        assert!(session.time_out(id("1")));
        assert!(session.forget_owed_reply(Some(id("5"))));
        session.observe(Dir::C2s, &request_of("4", "d"), 0);
        assert!(
            session.batches.is_empty(),
            "{closed}: {:?}",
            session.batches
        );
    }
}

/// The ids of the client's batch elements kept beyond the limits stay within
/// [`RECENT_BYTES`](recent::RECENT_BYTES) all told, wherever they are held (their batches'
/// records included), batch after batch, each with an element owed a reply that keeps its
/// record after the server answered the others. (Beyond the byte budget of the requests in
/// flight, 64 bytes here, not beyond `--max-in-flight`, which would refuse the owed replies
/// too.)
#[test]
fn the_ids_of_kept_elements_stay_within_their_budget() {
    let mut session = Session::with_budget(Dialect::JsonRpc2, None, MAX_IN_FLIGHT.get(), 64);
    for round in 0..4 {
        let tokens: Vec<String> = (0..20)
            .map(|n| format!("\"{:0>65000}\"", round * 100 + n))
            .collect();
        let mut elements: Vec<_> = tokens.iter().map(|t| request_of(t, "b")).collect();
        elements.push(without_id("invalid", None));
        batch(&mut session, Dir::C2s, &elements);
        assert!(!session.untracked_elements.is_empty());
        let held = session.kept_id_bytes();
        assert!(held <= recent::RECENT_BYTES, "{round}: {held} bytes");
        let replies: Vec<_> = tokens.iter().map(|t| reply_of(t)).collect();
        batch(&mut session, Dir::S2c, &replies);
        assert!(session.untracked_elements.is_empty());
        let held = session.kept_id_bytes();
        assert!(
            held <= recent::RECENT_BYTES,
            "{round}: {held} bytes answered"
        );
    }
    assert_eq!(session.batches.len(), 4, "each kept by its owed reply");
}

/// A client batch's record holds the ids of its requests still waiting, and no other: one
/// that stops waiting gives its copy back at once. Else a record kept by one thing left (here
/// an invalid element whose id could not be read, owed a reply that never comes, which counts
/// no bytes) held the ids of the rest of its batch outside every budget: a client sending such
/// batches of 16 requests with ids of 64 KiB each, answered at once, had the proxy hold 1 MiB
/// a batch, for as many batches as replies may be owed (`--max-in-flight`, 131,072 by default).
#[test]
fn a_batch_record_holds_only_the_ids_of_its_requests_still_waiting() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    for round in 0..100 {
        let tokens: Vec<String> = (0..8)
            .map(|n| format!("\"{:0>1000}\"", round * 100 + n))
            .collect();
        let mut elements: Vec<_> = tokens.iter().map(|t| request_of(t, "b")).collect();
        elements.push(without_id("invalid", None));
        batch(&mut session, Dir::C2s, &elements);
        let replies: Vec<_> = tokens.iter().map(|t| reply_of(t)).collect();
        batch(&mut session, Dir::S2c, &replies);
        assert_eq!(session.batch_record_id_bytes(), 0, "{round}");
    }
    assert_eq!(session.batches.len(), 100, "each kept by its owed reply");
}

/// The copy of its id a client batch's record keeps for each of its requests waiting counts
/// against the budget of the requests waiting, beside the spelling the table holds: the
/// requests of a batch held up to twice the ids the budget counted.
#[test]
fn a_batch_records_ids_count_against_the_budget() {
    // Each request: an id of 30 bytes (its spelling, in the table and in its batch's record)
    // and a one-byte method: 61 bytes. Two fit in 128, a third does not.
    let mut session = Session::with_budget(Dialect::JsonRpc2, None, MAX_IN_FLIGHT.get(), 128);
    let tokens: Vec<String> = (0..3).map(|n| format!("\"{n:0>28}\"")).collect();
    let elements: Vec<_> = tokens.iter().map(|t| request_of(t, "m")).collect();
    let verdicts = batch(&mut session, Dir::C2s, &elements);
    let violations: Vec<_> = verdicts.iter().map(|v| v.violation).collect();
    assert_eq!(
        violations,
        [None, None, Some(Violation::TooManyInFlight)],
        "{verdicts:?}"
    );
    session.close_batch();
    let held = session.batch_record_id_bytes();
    assert_eq!(held, 2 * 30);
    assert_eq!(session.waiting[slot(Dir::C2s)].bytes(), 2 * 30 + held + 2);
    // Answered, the requests give back their bytes, the record's copies with them.
    let replies: Vec<_> = tokens.iter().map(|t| reply_of(t)).collect();
    batch(&mut session, Dir::S2c, &replies);
    assert_eq!(session.batch_record_id_bytes(), 0);
    assert_eq!(session.waiting[slot(Dir::C2s)].bytes(), 0);
}

/// The same for the replies owed to a batch's invalid elements: one the server answered gives
/// its spelling back at once, while a request never answered keeps the record; what is left
/// is answered as before.
#[test]
fn a_batch_record_holds_only_the_ids_of_its_replies_still_owed() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    let mut waiting = 0;
    for round in 0..100 {
        let tokens: Vec<String> = (0..8)
            .map(|n| format!("\"{:0>1000}\"", round * 100 + n))
            .collect();
        let mut elements: Vec<_> = tokens
            .iter()
            .map(|t| Observation {
                id: Some(id_of(t)),
                ..without_id("invalid", None)
            })
            .collect();
        let request = format!("{round}");
        elements.push(request_of(&request, "b"));
        batch(&mut session, Dir::C2s, &elements);
        let errors: Vec<_> = tokens
            .iter()
            .map(|t| Observation {
                error_code: Some(-32600),
                ..observation("error_response", id_of(t), None)
            })
            .collect();
        let verdicts = batch(&mut session, Dir::S2c, &errors);
        assert!(
            verdicts.iter().all(|v| v.violation.is_none()),
            "{verdicts:?}"
        );
        waiting += request.len();
        assert_eq!(session.batch_record_id_bytes(), waiting, "{round}");
    }
    let first = session.batches.keys().min().copied().unwrap();
    let (requests, owed) = session.take_rest_of_batch(first);
    let requests: Vec<_> = requests.iter().map(|(id, _)| id.to_string()).collect();
    assert_eq!((requests, owed), (vec!["0".to_string()], vec![]));
}

/// MCP (2025-03-26's batches): a request the client cancels in the batch that sent it stops
/// waiting, and its batch's record counts it so: a record is not left waiting for it, for the
/// rest of the session (none with no timeout), holding its id.
#[test]
fn a_request_cancelled_in_its_own_batch_leaves_no_record() {
    let mut session = Session::new(Dialect::Mcp, None);
    batch(
        &mut session,
        Dir::C2s,
        &[request_of("1", "slow"), cancel_of("1")],
    );
    session.close_batch();
    assert!(!session.is_waiting(Dir::C2s, id("1")));
    assert!(session.batches.is_empty(), "{:?}", session.batches);
    assert_eq!(session.batch_record_id_bytes(), 0);
}

/// How many requests the bursts below put in flight each way (the JSON-RPC client three times
/// as many: within `MAX_IN_FLIGHT`).
const BURST: usize = 40_000;

/// Every table of `session` that grows with the requests in flight has no more room than
/// [`room::KEPT_ROOM`], though `peak` (its rooms at the burst's peak) shows the burst grew
/// those named in `grown` past four times that.
fn assert_room_given_back(session: &Session, peak: &[(String, usize)], grown: &[&str]) {
    for name in grown {
        let (_, at_peak) = peak.iter().find(|(n, _)| n == name).expect(name);
        assert!(
            *at_peak > 4 * room::KEPT_ROOM,
            "{name} grew to {at_peak} only"
        );
    }
    let kept: Vec<_> = session
        .rooms()
        .into_iter()
        .filter(|(_, room)| *room > room::KEPT_ROOM)
        .collect();
    assert!(kept.is_empty(), "room kept after the burst: {kept:?}");
}

/// MCP: a burst of requests in flight each way, the client's with a progress token and a
/// deadline, all answered: the tables of the requests waiting, of their deadlines and of the
/// progress tokens give their room back (they kept the burst's for the rest of the session).
#[test]
fn an_mcp_burst_answered_leaves_no_room_behind() {
    let tokens: Vec<String> = (0..BURST).map(|n| n.to_string()).collect();
    let ids = ids_of(&tokens);
    let mut session = Session::new(Dialect::Mcp, Some(60_000));
    for id in &ids {
        let request = Observation {
            progress_token: Some(*id),
            ..observation("request", *id, Some("tools/call"))
        };
        assert_eq!(session.observe(Dir::C2s, &request, 0).violation, None);
        let request = observation("request", *id, Some("ping"));
        assert_eq!(session.observe(Dir::S2c, &request, 0).violation, None);
    }
    let peak = session.rooms();
    for id in &ids {
        let reply = observation("success_response", *id, None);
        assert_eq!(session.observe(Dir::S2c, &reply, 1).violation, None);
        assert_eq!(session.observe(Dir::C2s, &reply, 1).violation, None);
    }
    assert_eq!(session.next_deadline(), None);
    let grown = [
        "waiting c2s",
        "waiting s2c",
        "progress_tokens c2s",
        "deadlines",
    ];
    assert_room_given_back(&session, &peak, &grown);
}

/// A burst of client requests none of which is answered in time (a server that stalls): as
/// they time out, the tables of the requests waiting and of their deadlines give their room
/// back.
#[test]
fn a_burst_timed_out_leaves_no_room_behind() {
    let tokens: Vec<String> = (0..BURST).map(|n| n.to_string()).collect();
    let ids = ids_of(&tokens);
    let mut session = Session::new(Dialect::JsonRpc2, Some(1_000));
    for id in &ids {
        let request = observation("request", *id, Some("m"));
        assert_eq!(session.observe(Dir::C2s, &request, 0).violation, None);
    }
    let peak = session.rooms();
    assert_eq!(session.expire(1_000).len(), BURST);
    assert_eq!(session.stopped_waiting(Dir::C2s), BURST as u64);
    assert_eq!(session.next_deadline(), None);
    assert_room_given_back(&session, &peak, &["waiting c2s", "deadlines"]);
}

/// JSON-RPC, as the proxy runs it: a burst of client requests each sent twice (the second
/// under a minted id), of server requests each sent twice (the second in line behind the
/// first), and of client batches each holding a request and an invalid element (a batch's
/// record, a reply owed), all answered: every table gives its room back.
#[test]
fn a_jsonrpc_burst_answered_leaves_no_room_behind() {
    let tokens: Vec<String> = (0..BURST).map(|n| n.to_string()).collect();
    let ids = ids_of(&tokens);
    let batch_tokens = batch_id_tokens(0, BURST);
    let batch_ids = ids_of(&batch_tokens);
    let owed_tokens = batch_id_tokens(1, BURST);
    let owed_ids = ids_of(&owed_tokens);
    let mut session = Session::new(Dialect::JsonRpc2, Some(60_000)).rewriting_reused_ids();
    let mut minted = vec![];
    for id in &ids {
        let request = observation("request", *id, Some("m"));
        assert_eq!(session.observe(Dir::C2s, &request, 0).violation, None);
        let again = session.observe(Dir::C2s, &request, 0);
        minted.push(again.forward_id.expect("a minted id"));
        assert_eq!(session.observe(Dir::S2c, &request, 0).violation, None);
        let in_line = session.observe(Dir::S2c, &request, 0);
        assert_eq!(in_line.violation, Some(Violation::DuplicateId));
    }
    for (request, owed) in batch_ids.iter().zip(&owed_ids) {
        let invalid = Observation {
            id: Some(*owed),
            ..without_id("invalid", None)
        };
        batch(
            &mut session,
            Dir::C2s,
            &[observation("request", *request, Some("m")), invalid],
        );
    }
    let peak = session.rooms();
    for (id, minted) in ids.iter().zip(&minted) {
        let reply = observation("success_response", *id, None);
        assert_eq!(session.observe(Dir::S2c, &reply, 1).violation, None);
        let reply = observation("success_response", minted.as_id(), None);
        assert_eq!(session.observe(Dir::S2c, &reply, 1).violation, None);
        let reply = observation("success_response", *id, None);
        assert_eq!(session.observe(Dir::C2s, &reply, 1).violation, None);
        assert_eq!(session.observe(Dir::C2s, &reply, 1).violation, None);
    }
    for (request, owed) in batch_ids.iter().zip(&owed_ids) {
        let error = Observation {
            id: Some(*owed),
            ..without_id("error_response", None)
        };
        let answers = batch(
            &mut session,
            Dir::S2c,
            &[observation("success_response", *request, None), error],
        );
        let violations: Vec<_> = answers.iter().map(|v| v.violation).collect();
        assert_eq!(violations, [None, None]);
    }
    assert_eq!(session.next_deadline(), None);
    let grown = [
        "waiting c2s",
        "waiting s2c",
        "rewritten_client_ids",
        "queued lines s2c",
        "owed by id c2s",
        "owed order c2s",
        "batches",
        "deadlines",
    ];
    assert_room_given_back(&session, &peak, &grown);
}

/// JSON-RPC: a burst of server requests all reusing one id waits in one line behind the
/// first, and is answered but for the last two (one in the table, one in line): the line,
/// never emptied (an emptied line goes with its room), gives its room back as it drains.
#[test]
fn a_long_line_behind_one_id_answered_leaves_no_room_behind() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    let request = request_of("1", "m");
    assert_eq!(session.observe(Dir::S2c, &request, 0).violation, None);
    for _ in 1..BURST {
        let in_line = session.observe(Dir::S2c, &request, 0);
        assert_eq!(in_line.violation, Some(Violation::DuplicateId));
    }
    let peak = session.rooms();
    for _ in 2..BURST {
        assert_eq!(session.observe(Dir::C2s, &reply_of("1"), 1).violation, None);
    }
    assert_eq!(session.queued[slot(Dir::S2c)].len(), 1);
    assert_room_given_back(&session, &peak, &["queued longest line s2c"]);
}

/// JSON-RPC: a client batch of invalid elements all with one id, and as many whose id could
/// not be read, is answered by the server's array but for one of each: the list of the
/// replies the batch is owed under that id (and without one), never emptied, gives its room
/// back as it drains.
#[test]
fn the_replies_owed_to_one_batch_answered_leave_no_room_behind() {
    let mut session = Session::new(Dialect::JsonRpc2, None);
    let with_id = Observation {
        id: Some(id("1")),
        ..without_id("invalid", None)
    };
    let without = without_id("invalid", None);
    let mut elements = vec![with_id; BURST];
    elements.extend(vec![without; BURST]);
    batch(&mut session, Dir::C2s, &elements);
    session.close_batch();
    let peak = session.rooms();
    let error = |id| Observation {
        id: Some(id),
        ..without_id("error_response", None)
    };
    let mut errors = vec![error(id("1")); BURST - 1];
    errors.extend(vec![error(id("null")); BURST - 1]);
    let verdicts = batch(&mut session, Dir::S2c, &errors);
    assert!(verdicts.iter().all(|v| v.violation.is_none()));
    let owed = &session.owed_element_replies[slot(Dir::C2s)];
    let batch_no = *session.batches.keys().next().expect("a batch owed two");
    assert_eq!(owed.count(Some(&IdKey::of(id("1"))), batch_no), 1);
    assert_eq!(owed.count(None, batch_no), 1);
    assert_room_given_back(&session, &peak, &["owed largest batch c2s"]);
}

/// JSON-RPC: a burst of invalid elements, each with an id of its own, answered by null-id
/// errors (§5.1 allows them): each takes the oldest owed, and the order kept for them gives
/// its room back as they come.
#[test]
fn a_burst_owed_answered_with_null_ids_leaves_no_room_behind() {
    let tokens = batch_id_tokens(1, BURST);
    let ids = ids_of(&tokens);
    let mut session = Session::new(Dialect::JsonRpc2, None);
    let invalid: Vec<_> = ids
        .iter()
        .map(|id| Observation {
            id: Some(*id),
            ..without_id("invalid", None)
        })
        .collect();
    batch(&mut session, Dir::C2s, &invalid);
    session.close_batch();
    let peak = session.rooms();
    let error = Observation {
        id: Some(id("null")),
        ..without_id("error_response", None)
    };
    let verdicts = batch(&mut session, Dir::S2c, &vec![error; BURST]);
    assert!(verdicts.iter().all(|v| v.violation.is_none()));
    assert!(!session.owes_element_reply(Dir::C2s, None));
    assert_room_given_back(&session, &peak, &["owed order c2s", "owed by id c2s"]);
}

/// JSON-RPC: a burst of client batches, each of one request, none answered in time: as each
/// batch is answered at its deadline, the table of the batches' records gives its room back.
#[test]
fn a_burst_of_batches_timed_out_leaves_no_room_behind() {
    let tokens = batch_id_tokens(0, BURST);
    let ids = ids_of(&tokens);
    let mut session = Session::new(Dialect::JsonRpc2, Some(1_000));
    for id in &ids {
        batch(
            &mut session,
            Dir::C2s,
            &[observation("request", *id, Some("m"))],
        );
    }
    session.close_batch();
    let peak = session.rooms();
    let timeouts = session.expire(1_000);
    assert_eq!(timeouts.len(), BURST);
    assert!(timeouts.iter().all(|t| matches!(t, Timeout::Batch { .. })));
    assert!(session.batches.is_empty());
    assert_room_given_back(&session, &peak, &["batches", "deadlines", "waiting c2s"]);
}

/// A merged check tells the requests that stopped waiting since the message observed last
/// began: once a server's array has answered a client batch of many requests, the next
/// message leaves no room behind for them (the list kept the largest array's room).
#[test]
fn the_stops_of_a_large_array_leave_no_room_behind() {
    let tokens = batch_id_tokens(0, BURST);
    let ids = ids_of(&tokens);
    let mut session = Session::new(Dialect::JsonRpc2, None).telling_stops();
    let requests: Vec<_> = ids
        .iter()
        .map(|id| observation("request", *id, Some("m")))
        .collect();
    batch(&mut session, Dir::C2s, &requests);
    let replies: Vec<_> = ids
        .iter()
        .map(|id| observation("success_response", *id, None))
        .collect();
    batch(&mut session, Dir::S2c, &replies);
    assert_eq!(
        session.last_stops(Dir::C2s, BURST as u64).unwrap().len(),
        BURST
    );
    let peak = session.rooms();
    session.observe(Dir::C2s, &observation("request", id("1"), Some("m")), 0);
    assert_room_given_back(&session, &peak, &["stops c2s"]);
}

/// MCP (2025-03-26's batches): a client batch element reusing an id in flight goes on under
/// a minted id (the proxy answers no element itself), a `duplicate_id`; the same request sent
/// alone is refused.
#[test]
fn an_mcp_batch_element_reusing_an_id_is_rewritten() {
    let mut session = Session::new(Dialect::Mcp, None).rewriting_reused_ids();
    negotiate(&mut session, "0", "2025-03-26", 0, 0);
    request(&mut session, "1", "a", 0);
    let alone = session.observe(Dir::C2s, &request_of("1", "b"), 0);
    assert_eq!(
        (alone.forward, alone.violation, alone.forward_id),
        (false, Some(Violation::DuplicateId), None)
    );
    let sent = batch(&mut session, Dir::C2s, &[request_of("1", "c")]);
    assert_eq!(sent[0].violation, Some(Violation::DuplicateId));
    assert!(sent[0].forward_id.is_some(), "{:?}", sent[0]);
}

/// A server's batch element reusing an id in flight waits behind the request holding it, in
/// either dialect: the client's first reply with the id answers the first, its second the
/// element (it was untracked, and that reply unknown). A session replaying the log of a proxy
/// that forwarded it untracked does as that proxy did.
#[test]
fn a_server_batch_element_reusing_an_id_waits_in_line() {
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for queue in [true, false] {
            let mut session = Session::new(dialect, None).queuing_reused_server_elements(queue);
            if dialect == Dialect::Mcp {
                negotiate(&mut session, "0", "2025-03-26", 0, 0);
            }
            session.observe(Dir::S2c, &request_of("7", "a"), 0);
            let sent = batch(&mut session, Dir::S2c, &[request_of("7", "b")]);
            assert_eq!(sent[0].violation, Some(Violation::DuplicateId));
            let first = session.observe(Dir::C2s, &reply_of("7"), 0);
            assert_eq!(first.violation, None);
            let second = batch(&mut session, Dir::C2s, &[reply_of("7")]);
            let expected = (!queue).then_some(Violation::UnknownReply);
            assert_eq!(second[0].violation, expected, "{dialect:?}, {queue}");
            assert!(session.finish().is_empty(), "{dialect:?}, {queue}");
        }
    }
}

/// A server's task-augmented request (an element of an MCP 2025-03-26 batch with a progress
/// token and a `task`) waiting in line behind one holding its id is answered as any other is:
/// in line its token is not kept, and it is no task request then (it entered the table
/// uncounted, and its reply took one off the count of task requests waiting: an overflow,
/// which panicked in debug builds and wrapped the count in release).
#[test]
fn a_task_augmented_server_element_waiting_in_line_is_answered() {
    let mut session = Session::new(Dialect::Mcp, None).queuing_reused_server_elements(true);
    negotiate(&mut session, "0", "2025-03-26", 0, 0);
    session.observe(Dir::S2c, &request_of("7", "a"), 0);
    let task_call = Observation {
        progress_token: Some(id("\"p\"")),
        task_augmented: true,
        ..request_of("7", "tools/call")
    };
    let sent = batch(&mut session, Dir::S2c, &[task_call]);
    assert_eq!(sent[0].violation, Some(Violation::DuplicateId));
    assert_eq!(session.observe(Dir::C2s, &reply_of("7"), 0).violation, None);
    let second = batch(&mut session, Dir::C2s, &[reply_of("7")]);
    assert_eq!(second[0].violation, None);
    assert!(session.finish().is_empty());
}

/// What the session is told of `frame`, a message decoded as the proxy decodes one sent in
/// `dir` (MCP), with the result of `initialize` read as the proxy reads it while it is awaited.
fn described_as_proxy<'a>(session: &Session, dir: Dir, frame: &'a str) -> Described<'a> {
    let decoder = match dir {
        Dir::C2s => rpcwire::Decoder::mcp(),
        Dir::S2c => rpcwire::Decoder::mcp_client().for_protocol_version("2025-11-25"),
    };
    let msg = decoder.decode(frame.as_bytes()).expect("a valid message");
    let mut described = Described::of_message(&msg, true);
    if let Some(id) = msg.id()
        && session.is_initialize_reply(dir, id)
    {
        described.read_protocol_version(&msg);
        described.read_initialize_result(&msg);
    }
    described
}

/// Observes `frame` sent in `dir`; whether it is forwarded, and its violation.
fn observe_frame(session: &mut Session, dir: Dir, frame: &str) -> (bool, Option<Violation>) {
    let described = described_as_proxy(session, dir, frame);
    let v = session.observe(dir, &described.observation(), 0);
    (v.forward, v.violation)
}

/// MCP's `InitializeRequestParams` and `InitializeResult`: a client's `initialize` whose params
/// lack a member, give one twice or of another type, and a server's success to it whose
/// result does, are flagged `invalid_initialize` and forwarded; the request waits as any
/// other (its reply is matched, no `unknown_reply`), and a result naming a version settles the
/// session's. A valid handshake, and the same params under JSON-RPC (which has no
/// `initialize`), are clean.
#[test]
fn a_handshake_that_breaks_its_schema_is_flagged_and_forwarded() {
    let invalid = (true, Some(Violation::InvalidInitialize));
    let init = |id: &str, params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{params}}}"#)
    };
    let result =
        |id: &str, result: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
    let good_params = r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#;
    let good_result = r#"{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}"#;

    for params in [
        r#"{"capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
        r#"{"protocolVersion":20251125,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
        r#"{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"}}"#,
        r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":"c"}"#,
        r#"{"protocolVersion":"2025-11-25","protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{}}"#,
    ] {
        let mut session = Session::new(Dialect::Mcp, None);
        assert_eq!(
            observe_frame(&mut session, Dir::C2s, &init("0", params)),
            invalid,
            "{params}"
        );
        // The server's reply answers it, and settles the version.
        let answer = result("0", good_result);
        assert_eq!(
            observe_frame(&mut session, Dir::S2c, &answer),
            (true, None),
            "{params}"
        );
        assert_eq!(session.protocol_version(), Some("2025-06-18"));
    }

    for (bad, fault) in [
        (
            r#"{"capabilities":{},"serverInfo":{"name":"s","version":"1"}}"#,
            ParamsFault::ProtocolVersion,
        ),
        (
            r#"{"protocolVersion":"2025-06-18","capabilities":{}}"#,
            ParamsFault::ServerInfo,
        ),
        (
            r#"{"protocolVersion":"2025-06-18","capabilities":[],"serverInfo":{}}"#,
            ParamsFault::Capabilities,
        ),
        (
            r#"{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{},"instructions":7}"#,
            ParamsFault::Instructions,
        ),
        (
            r#"{"protocolVersion":"2025-06-18","capabilities":{},"capabilities":{},"serverInfo":{}}"#,
            ParamsFault::Capabilities,
        ),
    ] {
        let mut session = Session::new(Dialect::Mcp, None);
        assert_eq!(
            observe_frame(&mut session, Dir::C2s, &init("0", good_params)),
            (true, None)
        );
        let answer = result("0", bad);
        assert_eq!(
            described_as_proxy(&session, Dir::S2c, &answer).params_fault,
            Some(fault),
            "{bad}"
        );
        assert_eq!(
            observe_frame(&mut session, Dir::S2c, &answer),
            invalid,
            "{bad}"
        );
        let settled = (fault != ParamsFault::ProtocolVersion).then_some("2025-06-18");
        assert_eq!(session.protocol_version(), settled, "{bad}");
        assert_eq!(
            session.counters.violations[&(Dir::S2c, Violation::InvalidInitialize)],
            1
        );
    }

    // A valid handshake is clean; another result with the shape of a bad one is no handshake.
    let mut session = Session::new(Dialect::Mcp, None);
    assert_eq!(
        observe_frame(&mut session, Dir::C2s, &init("0", good_params)),
        (true, None)
    );
    assert_eq!(
        observe_frame(&mut session, Dir::S2c, &result("0", good_result)),
        (true, None)
    );
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    assert_eq!(observe_frame(&mut session, Dir::C2s, list), (true, None));
    let odd = result("1", r#"{"tools":[],"protocolVersion":7}"#);
    assert_eq!(observe_frame(&mut session, Dir::S2c, &odd), (true, None));

    // JSON-RPC has no `initialize`: a request of that name is any request.
    let mut session = Session::new(Dialect::JsonRpc2, None);
    let frame = init("0", "{}");
    let msg = rpcwire::Decoder::jsonrpc()
        .decode(frame.as_bytes())
        .unwrap();
    let described = Described::of_message(&msg, false);
    assert_eq!(described.params_fault, None);
    let v = session.observe(Dir::C2s, &described.observation(), 0);
    assert_eq!(v.violation, None);
}
