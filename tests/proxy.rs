//! `rpcwire proxy` end to end against `tests/servers/echo_server.py`, a fault-injecting MCP
//! stdio server: byte-for-byte forwarding, violations (each reported once, never forwarded),
//! timeouts, exit status, signals, EOF, usage errors, and the offline replay of its log.
#![cfg(feature = "cli")]

mod cli_reference;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_rpcwire");
const WAIT: Duration = Duration::from_secs(20);

fn echo_server() -> String {
    format!(
        "{}/tests/servers/echo_server.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("proxy-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Waits until the echo server has recorded, in `path` (its `server-in` or `server-out`), a
/// message that `seen` accepts: it has read or sent it (fails after `WAIT`). For a step that
/// must come after the server's: a fixed sleep is too short on a loaded machine.
fn await_recorded(path: &std::path::Path, seen: impl Fn(&Value) -> bool) {
    let deadline = Instant::now() + WAIT;
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        // (Whole lines only: the server may be writing the last one.)
        let found = text
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .any(|m| seen(&m));
        if found {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "not recorded in {}: {text}",
            path.display()
        );
        thread::sleep(Duration::from_millis(10));
    }
}

/// A running proxy: what it prints arrives line by line on `lines`.
struct Proxy {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Vec<u8>>,
    stderr: thread::JoinHandle<String>,
    /// Everything sent to the proxy's stdin.
    sent: Vec<u8>,
    /// Everything read from the proxy's stdout so far.
    received: Vec<u8>,
    /// The file the server behind the proxy opens once it has started, if it is known.
    started: Option<PathBuf>,
}

/// What a finished proxy left.
struct Finished {
    code: Option<i32>,
    signal: Option<i32>,
    stderr: String,
    /// Every byte the client received.
    received: Vec<u8>,
    sent: Vec<u8>,
}

/// Waits for the proxy to exit, failing (after killing it) past `deadline`.
fn wait_exit(child: &mut Child, deadline: Instant) -> std::process::ExitStatus {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the proxy did not exit in time");
        }
        thread::sleep(Duration::from_millis(10));
    }
}

impl Proxy {
    fn spawn(options: &[&str], server: &[&str]) -> Proxy {
        Proxy::spawn_with_stderr(options, server, Stdio::piped(), None)
    }

    /// A proxy whose stderr is `stderr`, read by `drained` (when `None`, `stderr` is a pipe
    /// read here, from the start).
    fn spawn_with_stderr(
        options: &[&str],
        server: &[&str],
        stderr: Stdio,
        drained: Option<thread::JoinHandle<String>>,
    ) -> Proxy {
        let mut child = Command::new(BIN)
            .arg("proxy")
            .args(options)
            .arg("--")
            .args(server)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            loop {
                let mut line = vec![];
                match stdout.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stderr = drained.unwrap_or_else(|| {
            let mut stderr = child.stderr.take().unwrap();
            thread::spawn(move || {
                let mut s = String::new();
                let _ = stderr.read_to_string(&mut s);
                s
            })
        });
        Proxy {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            sent: vec![],
            received: vec![],
            started: None,
        }
    }

    /// Waits until the server has started (it has opened `started`, its `--record-in` file
    /// in a fresh scratch directory, which the python servers do before they read a line),
    /// failing after `WAIT`. Before a first request the server must answer within a timeout:
    /// a loaded machine may take longer than that to start python.
    fn await_server_started(&self) {
        let started = self
            .started
            .as_ref()
            .expect("a server that says it started");
        let deadline = Instant::now() + WAIT;
        while !started.exists() {
            assert!(
                Instant::now() < deadline,
                "the server did not start in time"
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// The echo server behind the proxy, recording what it reads and writes in `dir`.
    fn echo(options: &[&str], dir: &std::path::Path) -> Proxy {
        let (rin, rout) = (dir.join("server-in"), dir.join("server-out"));
        let mut p = Proxy::spawn(
            options,
            &[
                "python3",
                &echo_server(),
                "--record-in",
                rin.to_str().unwrap(),
                "--record-out",
                rout.to_str().unwrap(),
            ],
        );
        p.started = Some(rin);
        p
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.sent.extend_from_slice(bytes);
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, msg: &Value) {
        self.send_raw(format!("{msg}\n").as_bytes());
    }

    /// The next line the proxy prints, parsed (fails the test after `WAIT`).
    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(WAIT)
            .expect("a line from the proxy in time");
        self.received.extend_from_slice(&line);
        serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&line)))
    }

    /// Pings (ids 1, 2, …) until the server answers one rather than the proxy's timeout;
    /// returns how many pings it took.
    fn ping_until_answered(&mut self) -> u64 {
        self.ping_until_answered_as(|n| json!(n))
    }

    /// Pings with the ids `id(1)`, `id(2)`, … until the server answers one rather than the
    /// proxy's timeout (each reply must be the one to the ping just sent); returns how many
    /// pings it took. For a ping under a short `--timeout-ms` that the server must answer: a
    /// loaded machine may hold the server back longer than the timeout.
    fn ping_until_answered_as(&mut self, id: impl Fn(u64) -> Value) -> u64 {
        let mut pings = 0;
        loop {
            pings += 1;
            self.send(&request(id(pings), "ping"));
            let reply = self.recv();
            assert_eq!(reply["id"], id(pings), "{reply}");
            if reply.get("result").is_some() {
                return pings;
            }
            assert_eq!(reply["error"]["message"], "Request timed out", "{reply}");
        }
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Closes the proxy's stdin and waits for it to exit with status 0 (as [`Proxy::finish`]).
    fn finish_cleanly(mut self) -> Finished {
        self.close_stdin();
        let done = self.finish();
        assert_eq!(done.code, Some(0), "{}", done.stderr);
        done
    }

    /// Waits for the proxy to exit (fails after `WAIT`), collecting the rest of its output.
    fn finish(mut self) -> Finished {
        use std::os::unix::process::ExitStatusExt;
        let status = wait_exit(&mut self.child, Instant::now() + WAIT);
        while let Ok(line) = self.lines.recv_timeout(WAIT) {
            self.received.extend_from_slice(&line);
        }
        Finished {
            code: status.code(),
            signal: status.signal(),
            stderr: self.stderr.join().unwrap(),
            received: self.received,
            sent: self.sent,
        }
    }
}

impl Finished {
    /// Every line the client received, parsed: fails on anything that is not JSON.
    fn messages(&self) -> Vec<Value> {
        self.received
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| {
                serde_json::from_slice(l)
                    .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(l)))
            })
            .collect()
    }
}

/// `rpcwire check --json ARGS`: its exit status and its records.
fn check_json(args: &[String]) -> (Option<i32>, Vec<Value>) {
    let out = Command::new(BIN)
        .args(["check", "--json"])
        .args(args)
        .output()
        .unwrap();
    let records = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.code(), records)
}

fn read_log(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The log's records flagged `violation`.
fn flagged<'a>(log: &'a [Value], violation: &str) -> Vec<&'a Value> {
    log.iter().filter(|r| r["violation"] == violation).collect()
}

/// The log's `violation` fields, counted as `dir/violation`.
fn violations(log: &[Value]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for r in log {
        if let Some(v) = r.get("violation").and_then(Value::as_str) {
            *out.entry(format!("{}/{v}", r["dir"].as_str().unwrap()))
                .or_default() += 1;
        }
    }
    out
}

/// The counters the proxy printed at exit (the log's last record).
fn summary(log: &[Value]) -> Value {
    log.last().unwrap()["summary"].clone()
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect()
}

fn request(id: Value, method: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method})
}

#[test]
fn clean_session_is_forwarded_byte_for_byte_both_ways() {
    let dir = scratch("clean");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(&["--log", log.to_str().unwrap()], &dir);
    p.send(&initialize_request(0, "2025-11-25"));
    assert_eq!(p.recv()["id"], 0);
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    // Unusual but valid spellings travel untouched: whitespace, member order, escapes,
    // non-ASCII, big numbers, a string id with an escape.
    p.send_raw(
        b"{ \"id\" : \"a\\u00e9\\\"b\" , \"method\":\"tools/list\",\"params\":{\"x\":[1, 2.5e3, -0.0, \"\\ud83d\\ude00\", \"\xc3\xa9\", 123456789012345678901234567890]},\"jsonrpc\":\"2.0\" }\n",
    );
    assert_eq!(p.recv()["id"], "a\u{e9}\"b");
    // A server-to-client request, answered by the client.
    p.send(&request(json!(2), "ask"));
    let server_request = p.recv();
    assert_eq!(server_request["id"], "srv-1");
    assert_eq!(server_request["method"], "roots/list");
    p.send(&json!({"jsonrpc":"2.0","id":"srv-1","result":{"roots":[]}}));
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":2,"result":{"echo":"ask"}})
    );
    p.send(&request(json!(3), "ping"));
    assert_eq!(p.recv()["id"], 3);
    let done = p.finish_cleanly();
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(dir.join("server-in")).unwrap()),
        String::from_utf8_lossy(&done.sent),
        "c2s: the server read exactly what the client wrote"
    );
    assert_eq!(
        String::from_utf8_lossy(&done.received),
        String::from_utf8_lossy(&std::fs::read(dir.join("server-out")).unwrap()),
        "s2c: the client read exactly what the server wrote"
    );
    let log = read_log(&log);
    assert_eq!(violations(&log), BTreeMap::new());
    assert_eq!(summary(&log)["total_violations"], 0);
    assert_eq!(summary(&log)["messages"]["c2s/request"], 4);
    assert_eq!(summary(&log)["messages"]["s2c/request"], 1);
    assert_eq!(summary(&log)["messages"]["c2s/success_response"], 1);
    // 4 replies + the server's notification at end of input.
    assert_eq!(summary(&log)["messages"]["s2c/success_response"], 4);
    assert_eq!(summary(&log)["messages"]["s2c/notification"], 1);
    assert!(!done.stderr.contains("violation\""), "{}", done.stderr);
    assert!(
        done.stderr.contains("\"total_violations\":0"),
        "{}",
        done.stderr
    );
}

/// MCP 2025-11-25's progress utility: "For task-augmented requests, the `progressToken`
/// provided in the original request **MUST** continue to be used for progress notifications
/// throughout the task's lifetime, even after the `CreateTaskResult` has been returned", and
/// "**MUST** stop after the task reaches a terminal status". The proxy used to flag the
/// task's progress after its `CreateTaskResult` as `unknown_progress`; only the report after
/// the task's `completed` status is one. The log replays alike (it records the request's
/// `task_augmented` and the task each message tells of).
#[test]
fn a_task_progress_is_known_until_the_task_ends() {
    let dir = scratch("task-progress");
    let created = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t-1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}}}"#;
    let progress = |n: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"p","progress":{n}}}}}"#
        )
    };
    let completed = r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}}"#;
    let script = json!({"0": [
        {"send": created},
        {"send": progress(1)},
        {"send": completed},
        {"send": progress(2)}
    ]});
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","task":{"ttl":60000},"_meta":{"progressToken":"p"}}}));
    let got: Vec<Value> = (0..4).map(|_| p.recv()).collect();
    assert_eq!(got[3]["params"]["progress"], 2, "forwarded all the same");
    p.close_stdin();
    p.finish();
    let records = replayed_with_violations(&log, &[("s2c/unknown_progress", 1)]);
    // The one flagged is the report after the `completed` status, not the one before it.
    let at = |what: &dyn Fn(&Value) -> bool| -> Vec<usize> {
        (0..records.len()).filter(|&i| what(&records[i])).collect()
    };
    let flagged = at(&|r| r["violation"] == "unknown_progress");
    let reports = at(&|r| r["method"] == "notifications/progress");
    let completed = at(&|r| r["method"] == "notifications/tasks/status");
    assert_eq!((reports.len(), completed.len()), (2, 1), "{records:#?}");
    assert!(reports[0] < completed[0] && completed[0] < reports[1]);
    assert_eq!(flagged, [reports[1]], "{records:#?}");
    let request = records
        .iter()
        .find(|r| r["method"] == "tools/call")
        .unwrap();
    assert_eq!(request["task_augmented"], true, "{request}");
    let status = records
        .iter()
        .find(|r| r["method"] == "notifications/tasks/status")
        .unwrap();
    assert_eq!(
        (&status["task"], &status["task_ended"]),
        (&json!("\"t-1\""), &json!(true))
    );
}

/// MCP: "The `progress` value **MUST** increase with each notification, even if the total
/// is unknown." The proxy flags a report on an active token that is not greater than the last
/// one on it (1 then 1, then 0.5), forwards it all the same, and judges a token reused by a
/// request after the first one's result afresh. A report whose `progress` is not a number is
/// `invalid_notification_params`, not judged, and leaves the last as it was. The log records
/// each report's `progress`, and replays alike; a log without it and without `params_fault`
/// (an older proxy's) cannot judge, and replays with no violation.
#[test]
fn progress_that_does_not_increase_is_flagged_forwarded_and_replayed() {
    let dir = scratch("progress-increase");
    let progress = |n: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"p","progress":{n}}}}}"#
        )
    };
    let result = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#);
    let unreadable = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":"much"}}"#;
    let script = json!({
        "0": [
            {"send": progress("1")},
            {"send": progress("1")},
            {"send": progress("0.5")},
            {"send": unreadable},
            {"send": progress("2")},
            {"send": result(1)}
        ],
        "1": [{"send": progress("0.25")}, {"send": result(2)}]
    });
    let (mut p, log) = scripted(&dir, &[], script);
    let ask = |id: u32| json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}});
    p.send(&ask(1));
    let got: Vec<Value> = (0..6).map(|_| p.recv()).collect();
    let forwarded: Vec<&Value> = got[..5].iter().map(|m| &m["params"]["progress"]).collect();
    assert_eq!(
        forwarded,
        [&json!(1), &json!(1), &json!(0.5), &json!("much"), &json!(2)],
        "forwarded all the same"
    );
    p.send(&ask(2));
    assert_eq!(p.recv()["params"]["progress"], 0.25);
    p.recv();
    p.close_stdin();
    p.finish();
    let records = replayed_with_violations(
        &log,
        &[
            ("s2c/progress_not_increasing", 2),
            ("s2c/invalid_notification_params", 1),
        ],
    );
    let reports: Vec<(&Value, &Value)> = records
        .iter()
        .filter(|r| r["method"] == "notifications/progress")
        .map(|r| (&r["progress"], &r["violation"]))
        .collect();
    let flagged = json!("progress_not_increasing");
    assert_eq!(
        reports,
        [
            (&json!(1.0), &Value::Null),
            (&json!(1.0), &flagged),
            (&json!(0.5), &flagged),
            (&Value::Null, &json!("invalid_notification_params")),
            (&json!(2.0), &Value::Null),
            (&json!(0.25), &Value::Null),
        ]
    );
    // The same log without the fields, as a proxy before it wrote them: nothing to judge.
    let older: String = read_log(&log)
        .into_iter()
        .map(|mut r| {
            r.as_object_mut().unwrap().remove("progress");
            r.as_object_mut().unwrap().remove("params_fault");
            format!("{r}\n")
        })
        .collect();
    let older_log = dir.join("older.ndjson");
    std::fs::write(&older_log, older).unwrap();
    let (code, records) = check_json(&["--session-log".into(), older_log.display().to_string()]);
    assert_eq!(code, Some(0), "{records:#?}");
}

/// MCP's `ProgressNotificationParams` and `CancelledNotificationParams` (2025-06-18, as
/// negotiated): the proxy flags a progress report with a `total` that is not a number, or
/// without a `progressToken`, and a cancellation whose `reason` is not a string, or that has
/// no `requestId`, as `invalid_notification_params`, on stderr (saying what is wrong) and in
/// the log (with `params_fault`), and forwards each unchanged. None counts: the malformed
/// report (5) leaves the token's last progress at 1, so 2 is clean; the malformed
/// cancellation leaves request 1 in flight, so its result reaches the client. The log
/// replays alike.
#[test]
fn notifications_whose_params_break_the_schema_are_flagged_forwarded_and_replayed() {
    let dir = scratch("notification-params");
    let progress = |params: &str| {
        format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{params}}}"#)
    };
    let script = json!({
        "0": [{"send": r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#}],
        "1": [
            {"send": progress(r#"{"progressToken":"p","progress":1}"#)},
            {"send": progress(r#"{"progressToken":"p","progress":5,"total":"10"}"#)},
            {"send": progress(r#"{"progress":6}"#)},
            {"send": progress(r#"{"progressToken":"p","progress":2}"#)}
        ],
        "3": [{"send": r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#}]
    });
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&initialize_request(0, "2025-06-18"));
    assert_eq!(p.recv()["result"]["protocolVersion"], "2025-06-18");
    p.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}));
    let reports: Vec<Value> = (0..4).map(|_| p.recv()["params"].clone()).collect();
    assert_eq!(
        reports,
        [
            json!({"progressToken":"p","progress":1}),
            json!({"progressToken":"p","progress":5,"total":"10"}),
            json!({"progress":6}),
            json!({"progressToken":"p","progress":2}),
        ],
        "forwarded unchanged"
    );
    let bad_reason = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":42}}"#;
    let no_request_id =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"user"}}"#;
    p.send_raw(format!("{bad_reason}\n{no_request_id}\n").as_bytes());
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":1,"result":{"content":[]}})
    );
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    // The server read both cancellations as sent.
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    assert!(server_in.contains(bad_reason) && server_in.contains(no_request_id));
    for said in [
        "s2c: invalid_notification_params (kind notification, id -): total given twice or not a number: ",
        "s2c: invalid_notification_params (kind notification, id -): progressToken missing, given twice, or not a string or an integer: ",
        "c2s: invalid_notification_params (kind notification, id -): reason given twice or not a string: ",
        "c2s: invalid_notification_params (kind notification, id -): requestId missing: ",
    ] {
        assert_eq!(
            done.stderr.matches(said).count(),
            1,
            "{said}\n{}",
            done.stderr
        );
    }
    let records = replayed_with_violations(
        &log,
        &[
            ("s2c/invalid_notification_params", 2),
            ("c2s/invalid_notification_params", 2),
        ],
    );
    let faults: Vec<(&Value, &Value)> = flagged(&records, "invalid_notification_params")
        .into_iter()
        .map(|r| (&r["method"], &r["params_fault"]))
        .collect();
    assert_eq!(
        faults,
        [
            (&json!("notifications/progress"), &json!("total")),
            (&json!("notifications/progress"), &json!("progress_token")),
            (&json!("notifications/cancelled"), &json!("reason")),
            (&json!("notifications/cancelled"), &json!("no_request_id")),
        ]
    );
}

/// MCP's `InitializeRequestParams` and `InitializeResult`: the proxy flags a client's
/// `initialize` without `clientInfo`, and the server's success to a second one whose result
/// has no `serverInfo` and `capabilities` that are no object, as `invalid_initialize`, on
/// stderr (saying which member) and in the log (with `params_fault`), and forwards each
/// unchanged; the first request waits as any other (its error reply reaches the client, no
/// `unknown_reply`), and the result naming a version settles the session's. The log replays
/// alike.
#[test]
fn a_handshake_that_breaks_its_schema_is_flagged_forwarded_and_replayed() {
    let dir = scratch("invalid-initialize");
    let script = json!({
        "0": [{"send": r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Invalid params: clientInfo is required"}}"#}],
        "1": [{"send": r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":[]}}"#}]
    });
    let (mut p, log) = scripted(&dir, &[], script);
    let no_client_info = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#;
    p.send_raw(format!("{no_client_info}\n").as_bytes());
    assert_eq!(p.recv()["error"]["code"], -32602);
    p.send(&initialize_request(1, "2025-06-18"));
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":[]}}),
        "forwarded unchanged"
    );
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    assert!(server_in.contains(no_client_info), "{server_in}");
    for said in [
        "c2s: invalid_initialize (kind request, id 0): clientInfo missing, given twice, or not an object: ",
        "s2c: invalid_initialize (kind success_response, id 1): capabilities missing, given twice, or not an object: ",
    ] {
        assert_eq!(
            done.stderr.matches(said).count(),
            1,
            "{said}\n{}",
            done.stderr
        );
    }
    let records = replayed_with_violations(
        &log,
        &[("c2s/invalid_initialize", 1), ("s2c/invalid_initialize", 1)],
    );
    let faults: Vec<(&Value, &Value)> = flagged(&records, "invalid_initialize")
        .into_iter()
        .map(|r| (&r["id"], &r["params_fault"]))
        .collect();
    assert_eq!(
        faults,
        [
            (&json!("0"), &json!("client_info")),
            (&json!("1"), &json!("capabilities")),
        ]
    );
}

/// The stderr line of a batch element flagged `invalid_initialize` says which member, as a
/// whole frame's does: the server's success to a second `initialize` (sent while the first
/// waited), answered in a 2025-03-26 array with a result without `serverInfo`.
#[test]
fn an_initialize_result_flagged_in_an_array_names_its_member_on_stderr() {
    let dir = scratch("invalid-initialize-element");
    let second =
        r#"[{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}]"#;
    let script = json!({"1": [{"send": initialize_reply("2025-03-26")}, {"send": second}]});
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&initialize_request(0, "2025-03-26"));
    p.send(&initialize_request(1, "2025-03-26"));
    assert_eq!(p.recv()["id"], 0);
    assert_eq!(p.recv()[0]["id"], 1);
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let said = "s2c: invalid_initialize (kind success_response, id 1, element 0 of a batch): \
                serverInfo missing, given twice, or not an object: {";
    assert_eq!(done.stderr.matches(said).count(), 1, "{}", done.stderr);
    replayed_with_violations(&log, &[("s2c/invalid_initialize", 1)]);
}

#[test]
fn progress_after_the_result_is_reported_and_forwarded() {
    let dir = scratch("progress");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(&["--log", log.to_str().unwrap()], &dir);
    let ask = |id: u32, token: Value| json!({"jsonrpc":"2.0","id":id,"method":"progress","params":{"_meta":{"progressToken":token}}});
    let progress = |token: Value, n: u32| json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":token,"progress":n}});
    // The server reports once while the request waits, answers, then reports again.
    p.send(&ask(1, json!("tok")));
    assert_eq!(p.recv(), progress(json!("tok"), 1));
    assert_eq!(p.recv()["id"], 1);
    assert_eq!(
        p.recv(),
        progress(json!("tok"), 2),
        "forwarded all the same"
    );
    // An integer token, the same way.
    p.send(&ask(2, json!(5)));
    for _ in 0..3 {
        p.recv();
    }
    let done = p.finish_cleanly();
    let records = read_log(&log);
    assert_eq!(violations(&records), counts(&[("s2c/unknown_progress", 2)]));
    let tokens: Vec<&Value> = records
        .iter()
        .filter(|r| r["violation"] == "unknown_progress")
        .map(|r| &r["progress_token"])
        .collect();
    assert_eq!(
        tokens,
        [&json!("\"tok\""), &json!("5")],
        "the log names each token"
    );
    assert_eq!(done.stderr.matches("s2c: unknown_progress").count(), 2);
    // Offline, the log gives the same; so do the two recorded streams (the second report on
    // each token comes after its result in the server's own order).
    for args in [
        vec!["--session-log".to_string(), log.display().to_string()],
        vec![
            "--c2s".to_string(),
            dir.join("server-in").display().to_string(),
            "--s2c".to_string(),
            dir.join("server-out").display().to_string(),
        ],
    ] {
        let (code, records) = check_json(&args);
        assert_eq!(code, Some(1), "{args:?}");
        assert_eq!(
            records.last().unwrap()["summary"]["violations"],
            json!({"s2c/unknown_progress": 2}),
            "{args:?}"
        );
    }
}

/// The fault-injection session: every fault the echo server and a client can commit.
fn fault_session(dir: &std::path::Path) -> (Finished, Vec<Value>) {
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(
        &["--log", log.to_str().unwrap(), "--max-frame", "4096"],
        dir,
    );
    // A non-JSON line on the server's stdout before the reply.
    p.send(&request(json!(1), "pollute"));
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":1,"result":{"echo":"pollute"}})
    );
    // A reply sent twice: the client sees it once.
    p.send(&request(json!(2), "twice"));
    assert_eq!(p.recv()["id"], 2);
    // A reply with an id nobody sent.
    p.send(&request(json!(3), "unknown"));
    // An error reply to a notification.
    p.send(&json!({"jsonrpc":"2.0","method":"answer_notification"}));
    // A duplicate in-flight id from the client: rejected locally, never forwarded.
    p.send(&request(json!(7), "slow"));
    p.send(&request(json!(7), "slow"));
    let dup = p.recv();
    assert_eq!(dup["id"], 7);
    assert_eq!(dup["error"]["code"], -32600);
    assert_eq!(
        dup["error"]["message"],
        "Invalid Request: id reused while a reply to it may still come"
    );
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":7,"result":{"echo":"slow"}})
    );
    // Garbage and an over-long line from the client: answered with -32700, never forwarded.
    p.send_raw(b"{oops\n");
    let parse_error = p.recv();
    assert_eq!(parse_error["error"]["code"], -32700);
    assert!(parse_error.get("id").is_none(), "MCP's form: no id member");
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}\n",
        "x".repeat(5000)
    );
    p.send_raw(long.as_bytes());
    assert_eq!(p.recv()["error"]["code"], -32700);
    p.send(&request(json!(9), "ping"));
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":9,"result":{"echo":"ping"}})
    );
    // A client reply to a server request that never was: dropped, not answered.
    p.send(&json!({"jsonrpc":"2.0","id":"srv-9","result":{}}));
    p.close_stdin();
    let done = p.finish();
    let log = read_log(&log);
    (done, log)
}

/// MCP: a client request reusing the id of one already answered breaks "MUST NOT have been
/// previously used by the requestor within the same session": reported as `reused_id`, and
/// forwarded (the first reply came: the next one with the id answers the new request).
#[test]
fn an_answered_id_used_again_is_reported_and_forwarded() {
    let dir = scratch("reused-answered-id");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(&["--log", log.to_str().unwrap()], &dir);
    p.send(&request(json!(5), "tools/call"));
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":5,"result":{"echo":"tools/call"}})
    );
    p.send(&request(json!(5), "ping"));
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":5,"result":{"echo":"ping"}})
    );
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(
        done.stderr.matches("c2s: reused_id").count(),
        1,
        "{}",
        done.stderr
    );
    let log = read_log(&log);
    assert_eq!(violations(&log), counts(&[("c2s/reused_id", 1)]));
}

/// A report of a message that is not valid says why, before the frame: the reason the
/// decoder gives (the client is answered -32600 all the same).
#[test]
fn an_invalid_message_is_reported_with_its_reason() {
    let dir = scratch("invalid-reason");
    let mut p = Proxy::echo(&[], &dir);
    p.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"x\",\"params\":null}\n");
    assert_eq!(p.recv()["error"]["code"], -32600);
    let done = p.finish_cleanly();
    assert!(
        done.stderr.contains(
            "rpcwire proxy: c2s: invalid (kind invalid, id 3): params must be an object: \
             {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"x\",\"params\":null} [not forwarded]\n"
        ),
        "{}",
        done.stderr
    );
}

/// A report on stderr shows a frame's first 120 bytes, and `…` after them when the frame is
/// longer: a frame cut there is not taken for the whole of a shorter one.
#[test]
fn a_long_frame_reported_on_stderr_is_marked_as_cut() {
    let dir = scratch("report-cut");
    let mut p = Proxy::echo(&[], &dir);
    let long = format!("not json {}", "x".repeat(200));
    p.send_raw(format!("not json short\n{long}\n").as_bytes());
    assert_eq!(p.recv()["error"]["code"], -32700);
    assert_eq!(p.recv()["error"]["code"], -32700);
    let done = p.finish_cleanly();
    let reports: Vec<&str> = done
        .stderr
        .lines()
        .filter(|l| l.starts_with("rpcwire proxy: c2s: not_json "))
        .collect();
    assert_eq!(reports.len(), 2, "{}", done.stderr);
    assert!(
        reports[0].ends_with(": not json short [not forwarded]"),
        "{}",
        reports[0]
    );
    assert!(
        reports[1].ends_with(&format!(": {}… [not forwarded]", &long[..120])),
        "{}",
        reports[1]
    );
}

#[test]
fn faults_are_reported_once_and_never_forwarded() {
    let dir = scratch("faults");
    let (done, log) = fault_session(&dir);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(
        violations(&log),
        counts(&[
            ("c2s/duplicate_id", 1),
            ("c2s/not_json", 1),
            ("c2s/too_long", 1),
            ("c2s/unknown_reply", 1),
            // Request 3 was answered with the wrong id only.
            ("c2s/unanswered", 1),
            ("s2c/not_json", 1),
            ("s2c/reply_without_id", 1),
            // The second reply to 2 and the reply to "no-such-id".
            ("s2c/unknown_reply", 2),
        ])
    );
    assert_eq!(summary(&log)["total_violations"], 9);
    assert_eq!(summary(&log)["violations"]["s2c/unknown_reply"], 2);
    // Each is reported once on stderr too.
    for (what, n) in [
        ("s2c: not_json", 1),
        ("s2c: unknown_reply", 2),
        ("s2c: reply_without_id", 1),
        ("c2s: duplicate_id", 1),
        ("c2s: not_json", 1),
        ("c2s: too_long", 1),
        ("c2s: unknown_reply", 1),
        ("c2s: unanswered request 3 (unknown)", 1),
    ] {
        assert_eq!(
            done.stderr.matches(what).count(),
            n,
            "{what}: {}",
            done.stderr
        );
    }
    // The client saw valid messages only, and exactly these.
    let got = done.messages();
    let ids: Vec<&Value> = got.iter().map(|m| &m["id"]).collect();
    assert_eq!(
        ids,
        [
            &json!(1),
            &json!(2),
            &json!(7),
            &json!(7),
            &Value::Null,
            &Value::Null,
            &json!(9),
            &Value::Null
        ],
        "{got:#?}"
    );
    assert_eq!(got[7]["method"], "notifications/stdin_closed");
    assert!(!String::from_utf8_lossy(&done.received).contains("debug:"));
    assert!(!String::from_utf8_lossy(&done.received).contains("no-such-id"));
    // The server never saw the garbage, the over-long line nor the duplicate.
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    assert_eq!(server_in.lines().count(), 6, "{server_in}");
    assert!(!server_in.contains("oops") && !server_in.contains("xxxx"));
    assert_eq!(server_in.matches("\"id\":7").count(), 1);
    // The log's `reply` is what the proxy sent in the line's place: nothing for a server's
    // faults and for the client's stray reply.
    for record in log.iter().filter(|r| r["violation"].is_string()) {
        let want = match (record["dir"].as_str(), record["violation"].as_str()) {
            (Some("c2s"), Some("duplicate_id")) => json!({"code":-32600,"id":"7"}),
            (Some("c2s"), Some("not_json" | "too_long")) => {
                json!({"code":-32700,"id":"<absent>"})
            }
            _ => Value::Null,
        };
        assert_eq!(record["reply"], want, "{record}");
    }
}

#[test]
fn fault_log_replayed_offline_gives_the_same_violations() {
    let dir = scratch("replay");
    let (_, log) = fault_session(&dir);
    let log_path = dir.join("log.ndjson").display().to_string();
    let (code, records) = check_json(&["--session-log".to_string(), log_path]);
    assert_eq!(code, Some(1), "violations: exit 1");
    let offline = records.last().unwrap()["summary"].clone();
    assert_eq!(offline["violations"], summary(&log)["violations"]);
    assert_eq!(offline["messages"], summary(&log)["messages"]);
    assert_eq!(offline["errors_by_code"], summary(&log)["errors_by_code"]);
    assert_eq!(violations(&records), violations(&log));
}

#[test]
fn timeout_answers_the_client_cancels_on_the_server_and_drops_the_late_reply() {
    let dir = scratch("timeout");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(
        &["--log", log.to_str().unwrap(), "--timeout-ms", "100"],
        &dir,
    );
    // Wait until the server is up: its start is slow on a loaded machine, and would shift the
    // timing below. A ping that times out meanwhile is counted below: it times out, is
    // cancelled, and its answer comes late.
    let pings = p.ping_until_answered();
    let early_timeouts = pings - 1;
    // The proxy's timeout, not the server's reply (which it would forward had it come first).
    // (Not timed: a loaded machine may hold the client back for any time.)
    p.send(&request(json!("s"), "slow"));
    let reply = p.recv();
    assert_eq!(reply["id"], "s");
    assert_eq!(reply["error"]["code"], -32603);
    assert_eq!(reply["error"]["message"], "Request timed out");
    assert_eq!(
        reply["error"]["data"],
        json!({"method":"slow","timeoutMs":100})
    );
    // The server answers "slow" late (dropped), then reads the cancellation; this one comes
    // once the server is idle again, so that it does not time out too (one that does, the
    // server held back on a loaded machine, is tried again, and counted below). Its id is
    // new: the early pings' ids may have timed out, and reusing one is a duplicate_id.
    await_recorded(&dir.join("server-in"), |m| {
        m["method"] == "notifications/cancelled" && m["params"]["requestId"] == "s"
    });
    let after = |n| json!(format!("after-{n}"));
    let afters = p.ping_until_answered_as(after);
    let done = p.finish_cleanly();
    let ids: Vec<Value> = done.messages().iter().map(|m| m["id"].clone()).collect();
    let mut expected: Vec<Value> = (1..=pings).map(|n| json!(n)).collect();
    expected.push(json!("s"));
    expected.extend((1..=afters).map(after));
    expected.push(Value::Null);
    assert_eq!(ids, expected, "one reply for \"s\"");
    let server_in: Vec<Value> = std::fs::read_to_string(dir.join("server-in"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The server read the request, then its cancellation.
    let slow = server_in.iter().position(|m| m["id"] == "s").unwrap();
    assert_eq!(server_in[slow + 1]["method"], "notifications/cancelled");
    assert_eq!(server_in[slow + 1]["params"]["requestId"], "s");
    let log = read_log(&log);
    let late = 1 + early_timeouts + (afters - 1);
    assert_eq!(
        violations(&log),
        counts(&[("c2s/timed_out", late), ("s2c/late_reply", late)])
    );
    assert_eq!(
        done.stderr.matches("s2c: late_reply").count(),
        late as usize,
        "{}",
        done.stderr
    );
}

/// A server that stops reading while the proxy is blocked writing to it (its pipe full): the
/// client still gets its timeouts, for every request the proxy read. (The timer waited for its
/// cancellations to reach the server before it looked at the clock again: blocked behind the
/// full pipe, it answered no later request.)
#[test]
fn timeouts_keep_coming_while_the_server_does_not_read() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    // Says it is up, reads one line, says so, then never reads again.
    let server = r#"echo '{"jsonrpc":"2.0","method":"up"}'; head -n 1 >/dev/null
echo '{"jsonrpc":"2.0","method":"read_one"}'; exec sleep 60"#;
    let mut p = Proxy::spawn(&["--quiet", "--timeout-ms", "1000"], &["sh", "-c", server]);
    // Request 1 once the server runs, so that it reads it before its timeout; a loaded
    // machine may still hold `head` back longer, and the timeout then comes first.
    assert_eq!(p.recv()["method"], "up");
    p.send(&request(json!(1), "tools/call"));
    let mut replies = vec![];
    loop {
        let next = p.recv();
        if next["method"] == "read_one" {
            break;
        }
        replies.push(next);
    }
    // A later deadline for the next request (the proxy's clock counts milliseconds).
    thread::sleep(Duration::from_millis(5));
    // Larger than the pipe to the server: the proxy reads it whole, then blocks writing it.
    let pad = "x".repeat(4 << 20);
    let params = json!({"name": "t", "arguments": {"pad": pad}});
    p.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}));
    while replies.len() < 2 {
        replies.push(p.recv());
    }
    for (reply, id) in replies.iter().zip([1, 2]) {
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["message"], "Request timed out", "{reply}");
    }
    kill(Pid::from_raw(p.child.id() as i32), Signal::SIGTERM).unwrap();
    assert_eq!(p.finish().code, Some(128 + 15));
}

/// A server that closes its stdin but keeps running: the proxy goes on reading the client's
/// input and checking it, as it goes on reading the server's when the client stops reading,
/// so every request still gets its timeout. (It stopped reading at the first write that
/// failed: the client's later requests stayed in the pipe, unread, unlogged and never
/// answered, --timeout-ms or not, for as long as the server ran.)
#[test]
fn requests_after_the_server_closed_its_stdin_still_time_out() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let dir = scratch("server-stdin-closed");
    let log = dir.join("log.ndjson");
    let server = r#"exec <&-; echo '{"jsonrpc":"2.0","method":"stdin_closed"}'; exec sleep 60"#;
    let options = [
        "--dialect",
        "jsonrpc",
        "--timeout-ms",
        "100",
        "--log",
        log.to_str().unwrap(),
    ];
    let mut p = Proxy::spawn(&options, &["sh", "-c", server]);
    assert_eq!(p.recv()["method"], "stdin_closed");
    // The first write to the server fails; each request after it must be read all the same.
    for id in 1..=3 {
        p.send(&request(json!(id), "ping"));
        let reply = p.recv();
        assert_eq!(reply["id"], id);
        assert_eq!(reply["error"]["message"], "Request timed out");
    }
    kill(Pid::from_raw(p.child.id() as i32), Signal::SIGTERM).unwrap();
    let done = p.finish();
    assert_eq!(done.code, Some(128 + 15), "{}", done.stderr);
    let log = read_log(&log);
    assert_eq!(violations(&log), counts(&[("c2s/timed_out", 3)]));
}

/// The peak resident set of process `pid`, in bytes (Linux `VmHWM`).
#[cfg(target_os = "linux")]
fn peak_rss(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// A server that never reads its stdin while the client keeps writing: the proxy blocks on
/// the full pipe (backpressure, its memory bounded by its pipes and one read, whatever the
/// client sends) and still forwards what the server writes meanwhile.
#[test]
#[cfg(target_os = "linux")]
fn a_server_that_never_reads_holds_the_client_back_not_the_proxys_memory() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let server = r#"while :; do echo '{"jsonrpc":"2.0","method":"tick"}'; sleep 0.05; done"#;
    let mut p = Proxy::spawn(&["--quiet"], &["sh", "-c", server]);
    // 32 MiB of notifications, in 64 KiB writes; `written` counts what the proxy took.
    const FLOOD: usize = 32 << 20;
    let note = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
    let mut block = Vec::new();
    while block.len() < (64 << 10) - note.len() {
        block.extend_from_slice(note);
        block.push(b'\n');
    }
    let written = Arc::new(AtomicUsize::new(0));
    let mut stdin = p.stdin.take().unwrap();
    let writer = {
        let written = written.clone();
        thread::spawn(move || {
            while written.load(Ordering::Relaxed) < FLOOD {
                if stdin.write_all(&block).is_err() {
                    return;
                }
                written.fetch_add(block.len(), Ordering::Relaxed);
            }
        })
    };
    // A second of the server's output, while the client writes: the pipes and one read fill
    // within a few megabytes, and the client is held back there.
    for _ in 0..20 {
        assert_eq!(p.recv()["method"], "tick");
    }
    let (taken, held_back) = (written.load(Ordering::Relaxed), !writer.is_finished());
    let peak = peak_rss(p.child.id());
    kill(Pid::from_raw(p.child.id() as i32), Signal::SIGTERM).unwrap();
    let done = p.finish();
    assert_eq!(done.code, Some(128 + 15), "{}", done.stderr);
    assert!(
        held_back,
        "the proxy took all the {taken} bytes the server never read"
    );
    assert!(
        taken < 8 << 20,
        "the proxy took {taken} bytes the server never read"
    );
    assert!(
        peak < 48 << 20,
        "the proxy's peak RSS is {} KiB",
        peak >> 10
    );
    // (The proxy gone, the write fails: the writer ends.)
    writer.join().unwrap();
}

/// Reads the proxy's next reply, which must be its timeout of the request `id`: how long after
/// `sent` it came.
fn recv_timeout_of(p: &mut Proxy, id: Value, sent: Instant) -> Duration {
    let reply = p.recv();
    let waited = sent.elapsed();
    assert_eq!(
        (&reply["id"], &reply["error"]["message"]),
        (&id, &json!("Request timed out"))
    );
    waited
}

/// No request is answered with a timeout before its whole `--timeout-ms` has passed, as the
/// client measures it: from before it writes the request to after it reads the reply, which
/// holds all of the proxy's wait. (With the clock's readings all rounded down, a request read
/// late in a millisecond timed out at the start of the next but one, under `--timeout-ms 1`
/// after as little as a tenth of a millisecond.) In the log each timeout comes at least the
/// timeout after its request, and the replay of the log agrees with the live run.
#[test]
fn no_request_times_out_before_its_timeout_has_passed() {
    const REQUESTS: u64 = 500;
    const TIMEOUT: u64 = 1;
    let dir = scratch("timeout-never-early");
    let log = dir.join("log.ndjson");
    let options = [
        "--quiet",
        "--dialect",
        "jsonrpc",
        "--log",
        log.to_str().unwrap(),
        "--timeout-ms",
        &TIMEOUT.to_string(),
    ];
    // A server that reads everything and answers nothing.
    let mut p = Proxy::spawn(&options, &["sh", "-c", "exec cat >/dev/null"]);
    for n in 1..=REQUESTS {
        // Sent at instants spread over the proxy's milliseconds, not each right after the
        // timer's last tick (when the last reply came): some late in a millisecond.
        thread::sleep(Duration::from_micros(n * 379 % 1000));
        let sent = Instant::now();
        p.send(&request(json!(n), "slow"));
        let waited = recv_timeout_of(&mut p, json!(n), sent);
        assert!(
            waited >= Duration::from_millis(TIMEOUT),
            "request {n} timed out after {waited:?}"
        );
    }
    p.finish_cleanly();
    let records = replayed_with_violations(&log, &[("c2s/timed_out", REQUESTS)]);
    let t_ms = |record: &Value| record["t_ms"].as_u64().expect("a t_ms");
    let sent_at: BTreeMap<String, u64> = records
        .iter()
        .filter(|r| r["kind"] == "request")
        .map(|r| (r["id"].to_string(), t_ms(r)))
        .collect();
    let timeouts: Vec<_> = records.iter().filter(|r| r["event"] == "timeout").collect();
    assert_eq!(timeouts.len() as u64, REQUESTS);
    for timeout in timeouts {
        let sent = sent_at[&timeout["id"].to_string()];
        assert!(
            t_ms(timeout) >= sent + TIMEOUT,
            "{timeout} for a request at {sent} ms"
        );
    }
}

/// A request is answered with its timeout soon after its whole `--timeout-ms` has passed,
/// wherever its deadline falls: the timer sleeps until the next deadline. (It looked on a tick
/// of a quarter of the timeout, and answered a request up to 250 ms late: with these requests
/// 41 ms apart, half of them 123 ms late or more.) The proxy's own delay is a millisecond or
/// two, but a loaded machine can hold any one reply back by far more, so the bounds are on
/// the median lateness, which catches the tick, and, far looser, on each reply's.
#[test]
fn a_request_times_out_soon_after_its_timeout() {
    const REQUESTS: u32 = 12;
    const TIMEOUT: Duration = Duration::from_millis(1000);
    // On a 2-core machine under 32 busy processes, single replies came up to 148 ms late, and
    // the median at most 57 ms late.
    const MEDIAN_SLACK: Duration = Duration::from_millis(100);
    const SLACK: Duration = Duration::from_millis(1000);
    let options = ["--quiet", "--dialect", "jsonrpc", "--timeout-ms", "1000"];
    // A server that reads everything and answers nothing.
    let mut p = Proxy::spawn(&options, &["sh", "-c", "exec cat >/dev/null"]);
    // All in flight at once, their deadlines spread over a timeout's quarter and more.
    let mut sent = vec![];
    for n in 0..REQUESTS {
        sent.push(Instant::now());
        p.send(&request(json!(n), "slow"));
        thread::sleep(Duration::from_millis(41));
    }
    let mut late = vec![];
    for (n, sent) in sent.into_iter().enumerate() {
        let waited = recv_timeout_of(&mut p, json!(n), sent);
        assert!(
            (TIMEOUT..TIMEOUT + SLACK).contains(&waited),
            "request {n} timed out after {waited:?}"
        );
        late.push(waited - TIMEOUT);
    }
    p.finish_cleanly();
    late.sort();
    let median = late[late.len() / 2];
    assert!(median < MEDIAN_SLACK, "replies this late: {late:?}");
}

/// MCP: initialize "MUST NOT be cancelled". When it times out, the client gets its -32603,
/// but the server no cancellation (and its late result is dropped, as any late reply).
#[test]
fn a_timed_out_initialize_is_not_cancelled_on_the_server() {
    let dir = scratch("timeout-initialize");
    let log = dir.join("log.ndjson");
    // (Short, well before the server's late reply to initialize, half a second on: the pings
    // the server must answer are tried again when they time out.)
    let mut p = Proxy::echo(
        &["--log", log.to_str().unwrap(), "--timeout-ms", "100"],
        &dir,
    );
    // The server is up (a ping that times out meanwhile is tried again).
    let pings = p.ping_until_answered() as usize;
    let mut initialize = request(json!("init"), "initialize");
    initialize["params"] = json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}, "slow": true});
    p.send(&initialize);
    let reply = p.recv();
    assert_eq!(
        (&reply["id"], &reply["error"]["code"]),
        (&json!("init"), &json!(-32603))
    );
    // Once the server has answered it late, so that the ping does not time out too (one that
    // does, the server held back on a loaded machine, is tried again, and counted below).
    await_recorded(&dir.join("server-out"), |m| m["id"] == "init");
    let afters = p.ping_until_answered_as(|n| json!(format!("after-{n}"))) as usize;
    let done = p.finish_cleanly();
    let (cancelled, server_in) = cancelled_on_server(&dir);
    assert!(!cancelled.contains(&json!("init")), "{server_in}");
    assert_eq!(
        cancelled.len(),
        pings - 1 + afters - 1,
        "only the pings that timed out"
    );
    let log = read_log(&log);
    // The pings that timed out, and initialize.
    let late = (pings + afters - 1) as u64;
    assert_eq!(
        violations(&log),
        counts(&[("c2s/timed_out", late), ("s2c/late_reply", late)])
    );
    assert!(
        done.stderr.contains("(initialize is never cancelled)"),
        "{}",
        done.stderr
    );
}

/// A client that sends `initialize` twice, the first not answered yet: both are `initialize`,
/// which "MUST NOT be cancelled". The client's cancellation of the first is
/// `cancelled_initialize` (not forwarded), and when both time out the server gets no
/// cancellation of either. The proxy used to know only the latest as `initialize`: it
/// forwarded the client's cancellation of the first, and cancelled the first on the server
/// at its timeout.
#[test]
fn every_initialize_waiting_is_never_cancelled() {
    let dir = scratch("initialize-twice");
    // A server that answers nothing.
    let (mut p, log) = scripted(&dir, &["--timeout-ms", "1000"], json!({}));
    p.await_server_started();
    let initialize = |id: u64| initialize_request(id, "2025-11-25");
    p.send(&initialize(0));
    p.send(&initialize(1));
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}));
    for id in [0, 1] {
        let reply = p.recv();
        assert_eq!(
            (&reply["id"], &reply["error"]["message"]),
            (&json!(id), &json!("Request timed out")),
            "{reply}"
        );
    }
    let done = p.finish_cleanly();
    assert!(
        !done.stderr.contains("cancelled on the server"),
        "{}",
        done.stderr
    );
    assert_eq!(
        done.stderr
            .matches("(initialize is never cancelled)")
            .count(),
        2,
        "{}",
        done.stderr
    );
    let (cancelled, server_in) = cancelled_on_server(&dir);
    assert!(cancelled.is_empty(), "{server_in}");
    let records = read_log(&log);
    assert_eq!(
        violations(&records),
        counts(&[("c2s/cancelled_initialize", 1), ("c2s/timed_out", 2)]),
        "{records:#?}"
    );
    replayed_with_violations(
        &log,
        &[("c2s/cancelled_initialize", 1), ("c2s/timed_out", 2)],
    );
}

/// MCP: initialization "MUST be the first interaction between client and server". A client's
/// `initialize` once the server answered one is `second_initialize`: never forwarded (the
/// server never reads it), answered -32600 under its id; the session goes on. (It was
/// forwarded, unreported.)
#[test]
fn a_second_initialize_is_refused_and_answered() {
    let dir = scratch("second-initialize");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(&["--log", log.to_str().unwrap()], &dir);
    let initialize = |id: u64| initialize_request(id, "2025-11-25");
    p.send(&initialize(0));
    assert_eq!(p.recv()["id"], 0);
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    p.send(&initialize(1));
    let reply = p.recv();
    assert_eq!(
        (&reply["id"], &reply["error"]["code"]),
        (&json!(1), &json!(-32600)),
        "{reply}"
    );
    p.send(&request(json!(2), "tools/list"));
    assert_eq!(p.recv()["result"]["echo"], "tools/list");
    let done = p.finish_cleanly();
    assert!(
        done.stderr
            .contains("c2s: second_initialize (kind request, id 1)"),
        "{}",
        done.stderr
    );
    assert!(done.stderr.contains("[not forwarded]"), "{}", done.stderr);
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    assert_eq!(
        server_in.matches("\"initialize\"").count(),
        1,
        "{server_in}"
    );
    let records = read_log(&log);
    assert_eq!(
        violations(&records),
        counts(&[("c2s/second_initialize", 1)]),
        "{records:#?}"
    );
    replayed_with_violations(&log, &[("c2s/second_initialize", 1)]);
}

/// An `initialize` "selects legacy semantics" (MCP 2026-07-28 has none), whose results "MAY
/// follow any JSON object structure": a server's reply to it holding a `resultType` of its
/// own reaches the client and sets the session's version, under which a later result's
/// `resultType` is not checked either. The proxy read the reply by 2026-07-28's rules, its
/// decoders' own while no version is known, and dropped it as an invalid response: the
/// client never heard back, and the session never learnt its version.
#[test]
fn an_initialize_reply_holding_a_result_type_of_its_own_is_forwarded() {
    let dir = scratch("initialize-result-type");
    let reply = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"},"resultType":"legacy"}}"#;
    let later = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"page"}}"#;
    let script = json!({"0": [{"send": reply}], "2": [{"send": later}]});
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&initialize_request(0, "2025-06-18"));
    let got = p.recv();
    assert_eq!(
        (&got["id"], &got["result"]["resultType"]),
        (&json!(0), &json!("legacy"))
    );
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    p.send(&request(json!(1), "tools/list"));
    assert_eq!(p.recv()["result"]["resultType"], "page");
    p.close_stdin();
    p.finish();
    let records = replayed_with_violations(&log, &[]);
    let reply = records.iter().find(|r| r["id"] == "0" && r["dir"] == "s2c");
    assert_eq!(
        reply.map(|r| &r["kind"]),
        Some(&json!("success_response")),
        "{records:#?}"
    );
}

/// JSON-RPC allows a null id; the reply echoes it (§5). That is a request and its answer,
/// not a reply to a notification and an unanswered request.
#[test]
fn a_jsonrpc_request_with_a_null_id_is_answered() {
    let dir = scratch("null-id");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(
        &["--dialect", "jsonrpc", "--log", log.to_str().unwrap()],
        &dir,
    );
    p.send(&request(Value::Null, "ping"));
    let reply = p.recv();
    assert_eq!(
        (&reply["id"], &reply["result"]),
        (&Value::Null, &json!({"echo":"ping"}))
    );
    p.finish_cleanly();
    let records = read_log(&log);
    assert_eq!(violations(&records), counts(&[]), "{records:#?}");
    // Replayed offline, and checked from the two recorded streams, the same.
    let (code, records) = check_json(&["--session-log".into(), log.display().to_string()]);
    assert_eq!(code, Some(0), "{records:#?}");
    let streams = [
        "--dialect".to_string(),
        "jsonrpc".into(),
        "--c2s".into(),
        dir.join("server-in").display().to_string(),
        "--s2c".into(),
        dir.join("server-out").display().to_string(),
    ];
    let (code, records) = check_json(&streams);
    assert_eq!(code, Some(0), "{records:#?}");
    assert_eq!(
        records[0]["kind"], "request",
        "the request comes before its reply"
    );
}

/// A success with a null id when no request with a null id waits answers nothing, as an error
/// with a null id does: both are `reply_without_id` (forwarded under JSON-RPC, which leaves
/// unmatched replies to the peer), and the help text and the CLI reference (docs/cli.md) say
/// so, not "an error reply" only.
#[test]
fn a_null_id_success_answering_nothing_is_a_reply_without_id_as_documented() {
    let dir = scratch("null-id-success");
    let script = json!({"0": [
        {"send": "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}"},
        {"send": "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"},
    ]});
    let (mut p, log) = jsonrpc_scripted(&dir, &[], script);
    p.send(&request(json!(1), "ping"));
    assert_eq!(p.recv(), json!({"jsonrpc":"2.0","id":null,"result":{}}));
    assert_eq!(p.recv(), json!({"jsonrpc":"2.0","id":1,"result":{}}));
    p.finish_cleanly();
    let records = read_log(&log);
    assert_eq!(
        violations(&records),
        counts(&[("s2c/reply_without_id", 1)]),
        "{records:#?}"
    );
    // What the documentation says of `reply_without_id`: the words before it in the help
    // text (since the previous violation), and its row in docs/cli.md's table.
    let out = Command::new(BIN)
        .args(["proxy", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = help.find("(reply_without_id)").expect("documented");
    let since = help[..at].rfind("), ").expect("a violation before it");
    let described = &help[since..at];
    assert!(
        described.contains("null id") && !described.contains("error replies"),
        "{described}"
    );
    let reference =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md")).unwrap();
    let row = reference
        .lines()
        .find(|l| l.starts_with("| `reply_without_id`"))
        .expect("a row of the table");
    assert!(
        row.contains("success") && !row.contains("an error reply with a null id:"),
        "{row}"
    );
}

#[test]
fn requests_beyond_max_in_flight_are_answered_and_not_forwarded() {
    let dir = scratch("max-in-flight");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(
        &["--max-in-flight", "1", "--log", log.to_str().unwrap()],
        &dir,
    );
    p.send(&request(json!(1), "slow"));
    p.send(&request(json!(2), "ping"));
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: too many requests in flight"}})
    );
    assert_eq!(p.recv()["result"]["echo"], "slow");
    // Room again once 1 is answered.
    p.send(&request(json!(2), "ping"));
    assert_eq!(p.recv()["result"]["echo"], "ping");
    p.finish_cleanly();
    let records = read_log(&log);
    assert_eq!(
        violations(&records),
        counts(&[("c2s/too_many_in_flight", 1)])
    );
    let refused = flagged(&records, "too_many_in_flight");
    assert_eq!(refused[0]["reply"], json!({"code":-32603,"id":"2"}));
    let sent: Vec<String> = std::fs::read_to_string(dir.join("server-in"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["method"].to_string())
        .collect();
    assert_eq!(
        sent,
        ["\"slow\"", "\"ping\""],
        "the refused request never reached the server"
    );
    // Replayed offline, with the limit recorded in the log's header: the same.
    let (code, replayed) = check_json(&["--session-log".into(), log.display().to_string()]);
    assert_eq!(code, Some(1));
    assert_eq!(violations(&replayed), violations(&records));
}

#[test]
fn a_reused_id_under_jsonrpc_is_forwarded_and_answered_by_the_server_only() {
    // JSON-RPC does not forbid reusing an id in flight: the proxy reports it and forwards it;
    // a local -32600 as well would be a second reply to the same id.
    let dir = scratch("jsonrpc-reused-id");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(
        &["--dialect", "jsonrpc", "--log", log.to_str().unwrap()],
        &dir,
    );
    p.send(&request(json!(7), "slow"));
    p.send(&request(json!(7), "slow"));
    p.send(&request(json!(8), "ping"));
    let mut replies = [p.recv(), p.recv(), p.recv()];
    replies.sort_by_key(|r| r["id"].as_i64());
    assert_eq!(
        replies
            .iter()
            .map(|r| (&r["id"], r.get("error").is_some()))
            .collect::<Vec<_>>(),
        [(&json!(7), false), (&json!(7), false), (&json!(8), false)]
    );
    p.finish_cleanly();
    let records = read_log(&log);
    let reused = flagged(&records, "duplicate_id");
    assert_eq!(reused.len(), 1, "{records:#?}");
    assert_eq!(reused[0]["reply"], Value::Null);
}

/// JSON-RPC: a request reusing an id still in flight is forwarded and waits behind the first
/// (the first reply with the id answers the first): under --timeout-ms, the server never
/// answering it, the client gets the proxy's -32603 for it instead of waiting forever.
#[test]
fn a_jsonrpc_request_reusing_an_id_in_flight_times_out_in_turn() {
    let dir = scratch("jsonrpc-reused-in-flight-times-out");
    // One reply with id 7, once both requests are read.
    let script = json!({
        "0": [{"send": WARM_UP_REPLY}],
        "2": [{"send": "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"first\"}"}],
    });
    let (mut p, log) = jsonrpc_scripted(&dir, &["--timeout-ms", TIMEOUT_MS], script);
    warm_up(&mut p);
    p.send(&request(json!(7), "first"));
    p.send(&request(json!(7), "second"));
    assert_eq!(p.recv(), json!({"jsonrpc":"2.0","id":7,"result":"first"}));
    let timed_out = p.recv();
    assert_eq!(timed_out["id"], 7, "{timed_out}");
    assert_eq!(timed_out["error"]["code"], -32603, "{timed_out}");
    assert_eq!(
        timed_out["error"]["data"]["method"], "second",
        "{timed_out}"
    );
    p.finish_cleanly();
    let records = replayed_alike(&log);
    assert_eq!(
        violations(&records),
        counts(&[("c2s/duplicate_id", 1), ("c2s/timed_out", 1)]),
        "{records:#?}"
    );
}

/// Signals reach the server's whole process group: a server started through a wrapper that
/// does not relay them (`sh -c`) ends too, and the proxy with it, though the client keeps
/// its end open.
#[test]
fn sigterm_reaches_a_server_started_through_a_wrapper() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let mut p = Proxy::spawn(&["--quiet"], &["sh", "-c", "cat; echo after >&2"]);
    p.send(&json!({"jsonrpc":"2.0","method":"hello"}));
    assert_eq!(p.recv()["method"], "hello", "cat is up");
    kill(Pid::from_raw(p.child.id() as i32), Signal::SIGTERM).unwrap();
    let started = Instant::now();
    let done = p.finish();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(done.code, Some(128 + 15), "{}", done.stderr);
}

/// A signal as soon as the server has started is forwarded to it too, and the proxy exits
/// with its status: the proxy caught signals only once a task of its runtime first ran, and
/// one sent before that ended it by default (killed by SIGTERM, no exit code) in most of 200
/// tries, its server left running. (Linux: the server is found as the proxy's child in /proc.)
#[cfg(target_os = "linux")]
#[test]
fn a_signal_right_after_the_server_started_is_forwarded() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    for _ in 0..20 {
        let p = Proxy::spawn(&["--quiet"], &["sh", "-c", "cat"]);
        let pid = p.child.id();
        let children = format!("/proc/{pid}/task/{pid}/children");
        let started = Instant::now();
        while std::fs::read_to_string(&children).is_ok_and(|c| c.trim().is_empty()) {
            assert!(started.elapsed() < Duration::from_secs(10), "no server");
        }
        kill(Pid::from_raw(pid as i32), Signal::SIGTERM).unwrap();
        let done = p.finish();
        assert_eq!(done.code, Some(128 + 15), "{}", done.stderr);
    }
}

#[test]
fn the_servers_exit_status_becomes_the_proxys() {
    // The server exits with 3 while the client still holds its end open.
    let mut p = Proxy::spawn(&[], &["python3", &echo_server()]);
    // Timed once the server is up: a loaded machine may take seconds to start python.
    p.send(&request(json!(1), "ping"));
    assert_eq!(p.recv()["id"], 1);
    p.send(&json!({"jsonrpc":"2.0","method":"exit"}));
    let started = Instant::now();
    let done = p.finish();
    assert_eq!(done.code, Some(3), "{}", done.stderr);
    assert!(started.elapsed() < Duration::from_secs(5));
    // Ended by a signal: 128 + the signal.
    let p = Proxy::spawn(&[], &["sh", "-c", "kill -9 $$"]);
    assert_eq!(p.finish().code, Some(128 + 9));
}

#[test]
fn sigterm_to_the_proxy_reaches_the_server() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let mut p = Proxy::spawn(&[], &["python3", &echo_server()]);
    p.send(&request(json!(1), "ping"));
    assert_eq!(p.recv()["id"], 1, "the server is up");
    kill(Pid::from_raw(p.child.id() as i32), Signal::SIGTERM).unwrap();
    assert_eq!(p.recv()["method"], "notifications/sigterm");
    let done = p.finish();
    assert_eq!(done.signal, None, "the proxy handled it");
    assert_eq!(done.code, Some(42), "the server's own exit status");
}

/// The server exits while the client does not read what it wrote last: the proxy waits for
/// the client to take it, but a signal still ends that wait (it was swallowed once the server
/// had exited: only SIGKILL stopped the proxy).
#[test]
fn a_signal_ends_the_wait_for_a_client_that_does_not_read() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let dir = scratch("signal-after-exit");
    let exited = dir.join("exited");
    // 1.5 MiB: more than the pipe to the client holds, less than it and the server's together.
    // (SIGTERM ignored: it may come before the server's exit, which is then still its own.)
    let server = format!(
        "import signal, sys\n\
         signal.signal(signal.SIGTERM, signal.SIG_IGN)\n\
         line = b'{{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{{\"p\":\"' + b'x' * 1000 + b'\"}}}}\\n'\n\
         sys.stdout.buffer.write(line * 1536)\n\
         sys.stdout.buffer.flush()\n\
         open({:?}, 'w').close()\n\
         sys.exit(5)\n",
        exited.to_str().unwrap()
    );
    let mut child = Command::new(BIN)
        .args(["proxy", "--quiet", "--", "python3", "-c", &server])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Never read (held open: the proxy's writes block rather than fail).
    let _stdout = child.stdout.take();
    let deadline = Instant::now() + WAIT;
    while !exited.exists() {
        assert!(Instant::now() < deadline, "the server wrote it all in time");
        thread::sleep(Duration::from_millis(10));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let status = wait_exit(&mut child, deadline);
    assert_eq!(status.code(), Some(5), "the server's own exit status");
}

/// A proxy whose server writes 1.5 MiB (more than the pipe to the client holds, less than it
/// and the server's together) and exits, with the lines it writes to stderr as they come.
fn proxy_for_a_server_that_writes_and_exits() -> (std::process::Child, mpsc::Receiver<String>) {
    let server = "import sys\n\
         line = b'{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"p\":\"' + b'x' * 1000 + b'\"}}\\n'\n\
         sys.stdout.buffer.write(line * 1536)\n";
    let mut child = Command::new(BIN)
        .args(["proxy", "--", "python3", "-c", server])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, lines)
}

/// The server exits while the client does not read what it wrote last: what the proxy says
/// on stderr while it waits names the client, not a process the server left behind holding
/// its stdout (what it said, which sent one looking for a process that is not there).
#[test]
fn waiting_for_a_client_that_does_not_read_is_reported_as_such() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let (mut child, lines) = proxy_for_a_server_that_writes_and_exits();
    // Never read (held open: the proxy's writes block rather than fail).
    let _stdout = child.stdout.take();
    // What the proxy says once it has waited for the server's output a while.
    let said = lines.recv_timeout(WAIT).expect("a line on stderr in time");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let _ = child.wait();
    assert!(said.contains("the client"), "{said}");
    assert!(!said.contains("left behind"), "{said}");
}

/// The server exits while the client does not read what it wrote last, and the client then
/// reads it all: nothing is lost, however long the client took (the proxy gave up after 2 s,
/// taking the client for a process left behind holding the server's stdout, and exited
/// with the rest of the server's output unread).
#[test]
fn a_client_that_reads_late_gets_all_the_server_wrote_before_its_exit() {
    let (mut child, lines) = proxy_for_a_server_that_writes_and_exits();
    let mut stdout = child.stdout.take().unwrap();
    // Not read until the proxy says it waited for the server's output a while.
    let said = lines.recv_timeout(WAIT).expect("a line on stderr in time");
    let mut received = vec![];
    stdout.read_to_end(&mut received).unwrap();
    let _ = child.wait();
    let lines = received.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(lines, 1536, "{said}");
}

#[test]
fn client_eof_closes_the_servers_stdin() {
    let mut p = Proxy::spawn(&[], &["python3", &echo_server()]);
    p.send(&request(json!(1), "ping"));
    assert_eq!(p.recv()["id"], 1);
    p.close_stdin();
    assert_eq!(p.recv()["method"], "notifications/stdin_closed");
    assert_eq!(p.finish().code, Some(0));
}

#[test]
fn unanswered_requests_are_reported_at_exit() {
    let dir = scratch("unanswered");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(&["--log", log.to_str().unwrap()], &dir);
    p.send(&request(json!(5), "noreply"));
    p.send(&request(json!(6), "ping"));
    assert_eq!(p.recv()["id"], 6);
    let done = p.finish_cleanly();
    assert_eq!(
        done.stderr
            .matches("c2s: unanswered request 5 (noreply)")
            .count(),
        1,
        "{}",
        done.stderr
    );
    let log = read_log(&log);
    assert_eq!(violations(&log), counts(&[("c2s/unanswered", 1)]));
    let event = log.iter().find(|r| r["event"] == "unanswered").unwrap();
    assert_eq!(event["id"], "5");
    assert_eq!(event["method"], "noreply");
}

#[test]
fn help_documents_every_option() {
    let out = Command::new(BIN)
        .args(["proxy", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    for option in [
        "--dialect",
        "--validate",
        "--max-frame",
        "--timeout-ms",
        "--drop-invalid",
        "--max-in-flight",
        "--log",
        "--stats-every",
        "--quiet",
        "<CMD>",
    ] {
        // The option, then its description on the next line.
        let at = help
            .find(&format!("  {option}"))
            .unwrap_or_else(|| panic!("{option} missing from:\n{help}"));
        let description = help[at..].lines().nth(1).unwrap().trim();
        assert!(description.len() > 10, "{option} has no description");
    }
    for topic in [
        "exit",
        "signal",
        "unknown_reply",
        "late_reply",
        "too_many_in_flight",
        "unknown_progress",
        "progress_not_increasing",
        "invalid_notification_params",
        "params_fault",
        "cancelled_initialize",
        "success_to_invalid",
        "unanswered",
        "upstream_id",
        "rpcwire-N",
        "Example",
    ] {
        assert!(help.contains(topic), "{topic} missing from:\n{help}");
    }
}

#[test]
fn errors_print_one_clear_line_and_exit_2() {
    let cases: [(&[&str], &str); 12] = [
        (
            &["proxy", "--", "/nonexistent/server"],
            "cannot start `/nonexistent/server`",
        ),
        (
            &["proxy", "--bogus", "--", "cat"],
            "unexpected argument '--bogus'",
        ),
        (&["proxy"], "<CMD>"),
        // The server's command without the `--` before it: said where it goes.
        (
            &["proxy", "node", "server.js"],
            "the server's command goes after `--`",
        ),
        (
            &["proxy", "--timeout-ms", "soon", "--", "cat"],
            "--timeout-ms",
        ),
        (
            &["proxy", "--log", "/nonexistent/dir/log", "--", "cat"],
            "cannot write the log",
        ),
        (
            &["proxy", "--max-in-flight", "0", "--", "cat"],
            "--max-in-flight",
        ),
        // `-` names a standard stream elsewhere (check's input); the log is a file.
        (&["proxy", "--log", "-", "--", "cat"], "name a file"),
        // A timeout of 0 ms fails every request, however fast the server answers.
        (&["proxy", "--timeout-ms", "0", "--", "cat"], "--timeout-ms"),
        // A limit of 0 refuses every message (every batch) whatever it holds.
        (&["proxy", "--max-frame", "0", "--", "cat"], "--max-frame"),
        (&["proxy", "--max-batch", "0", "--", "cat"], "--max-batch"),
        // Counters every 0 seconds mean nothing (it printed them every second).
        (
            &["proxy", "--stats-every", "0", "--", "cat"],
            "--stats-every",
        ),
    ];
    for (args, expect) in cases {
        let out = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("rpcwire"), "{args:?}: {stderr}");
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
        // Each limit of 0 is refused in the same words.
        if args.get(2) == Some(&"0") {
            assert!(stderr.contains("0 is not in 1.."), "{args:?}: {stderr}");
        }
    }
}

/// Asserts that the proxy refused its `--log` before anything started: exit 2 and one
/// stderr line, `cannot write the log …`, naming `reason`.
fn assert_log_refused(status: std::process::ExitStatus, stderr: &str, reason: &str) {
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("cannot write the log"), "{stderr}");
    assert!(stderr.contains(reason), "{stderr}");
}

/// A `--log` naming the proxy's own standard output or input (`/dev/stdout`, `/dev/stdin`),
/// pipes here as a client's are, is refused as `-` is, before anything starts: the records
/// went into the client's stream (stdout), or were read back as the client's messages, each
/// making a record of its own, so the proxy never ended (stdin).
#[test]
fn a_log_on_the_clients_own_stream_is_refused() {
    for (log, stream) in [
        ("/dev/stdout", "standard output"),
        ("/dev/stdin", "standard input"),
    ] {
        let mut child = Command::new(BIN)
            .args(["proxy", "--log", log, "--", "cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The client's stdin stays open, as a client's does while it waits for replies (the
        // proxy may have exited already: the write may fail).
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        let status = wait_exit(&mut child, Instant::now() + WAIT);
        drop(stdin);
        let (mut out, mut err) = (vec![], String::new());
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_log_refused(status, &err, stream);
        assert!(
            err.contains(&format!("cannot write the log {log}")),
            "{err}"
        );
        assert!(out.is_empty(), "{log}: {}", String::from_utf8_lossy(&out));
    }
}

/// A log that is the file the proxy's stderr goes to (`2>x --log x`) is refused: the log
/// would empty the reports written there and mix its records with the later ones. (It was
/// taken: the file held the log's header, the session ran, exit 0.)
#[test]
fn a_log_on_the_proxys_own_stderr_file_is_refused() {
    let dir = scratch("log-stderr-file");
    let file = dir.join("stderr.txt");
    let stderr = std::fs::File::create(&file).unwrap();
    let mut child = Command::new(BIN)
        .args(["proxy", "--log", file.to_str().unwrap(), "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let status = wait_exit(&mut child, Instant::now() + WAIT);
    let written = std::fs::read_to_string(&file).unwrap();
    assert_log_refused(status, &written, "standard error");
}

/// `--log /dev/stdout` is judged by what standard output is: a regular file (a client's
/// output redirected) is refused, and left as it was (not emptied); `/dev/null`, a character
/// device and no stream of messages, is taken.
#[test]
fn a_log_on_stdout_is_refused_as_a_file_and_taken_as_dev_null() {
    let dir = scratch("log-stdout-kinds");
    let file = dir.join("out.ndjson");
    let earlier = "{\"an\":\"earlier output\"}\n";
    std::fs::write(&file, earlier).unwrap();
    let out = Command::new(BIN)
        .args(["proxy", "--log", "/dev/stdout", "--", "cat"])
        .stdin(Stdio::null())
        .stdout(
            std::fs::OpenOptions::new()
                .append(true)
                .open(&file)
                .unwrap(),
        )
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("standard output"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), earlier);

    let out = Command::new(BIN)
        .args(["proxy", "--log", "/dev/stdout", "--", "cat"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("cannot write the log"), "{err}");
}

/// A `--log` on a named pipe nobody reads yet is refused at once (exit 2, one line): opening
/// it blocked until a reader came, deaf to SIGTERM, which the proxy catches to forward to a
/// server it had not started.
#[test]
fn a_log_on_a_named_pipe_with_no_reader_is_refused_at_once() {
    let dir = scratch("log-fifo");
    let fifo = dir.join("log.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let mut child = Command::new(BIN)
        .args(["proxy", "--log", fifo.to_str().unwrap(), "--", "cat"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_exit(&mut child, Instant::now() + WAIT);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_log_refused(status, &err, "a named pipe with no reader");
}

/// A named pipe whose reader is there is opened without blocking (to refuse one with no
/// reader), but written as any file: a write blocks while the reader is slow, it does not fail
/// with `EAGAIN` and end the log. Here the reader waits before it reads, and the proxy writes
/// the log's first megabyte into the pipe's 64 KiB meanwhile.
#[test]
fn a_log_on_a_named_pipe_waits_for_a_slow_reader() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = scratch("log-fifo-slow");
    let fifo = dir.join("log.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    // The reader is there before the proxy opens the pipe (a blocking open would wait for it).
    let reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(&fifo)
        .unwrap();
    nix::fcntl::fcntl(
        &reader,
        nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::empty()),
    )
    .unwrap();
    let note = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
    let n = 10_000;
    let mut child = Command::new(BIN)
        .args(["proxy", "--log", fifo.to_str().unwrap(), "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = format!("{note}\n").repeat(n);
    let writer = thread::spawn(move || stdin.write_all(input.as_bytes()));
    let read = thread::spawn(move || {
        thread::sleep(Duration::from_millis(1500));
        let mut log = String::new();
        BufReader::new(reader).read_to_string(&mut log).unwrap();
        log
    });
    let status = wait_exit(&mut child, Instant::now() + WAIT);
    writer.join().unwrap().unwrap();
    let log = read.join().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!err.contains("writing the log failed"), "{err}");
    // The header, a record per message each way, the summary.
    assert_eq!(log.lines().count(), 1 + 2 * n + 1, "{err}");
}

/// `--log /dev/stdout` with standard output a socket (as some clients give their servers)
/// fails to open with `ENXIO`, as a named pipe with no reader does: the refusal names the
/// error, not a named pipe the path is not.
#[test]
fn a_log_on_a_socket_is_not_told_as_a_named_pipe() {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let mut child = Command::new(BIN)
        .args(["proxy", "--log", "/dev/stdout", "--", "cat"])
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_exit(&mut child, Instant::now() + WAIT);
    drop(ours);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_log_refused(status, &err, "cannot write the log /dev/stdout");
    assert!(!err.contains("named pipe"), "{err}");
}

/// A server command that cannot start leaves the `--log` of an earlier run as it was (it was
/// emptied before the command was tried), and creates no log where there was none, nor where a
/// symbolic link names a file that does not exist; a run whose server starts replaces an
/// earlier log whole.
#[test]
fn a_server_that_cannot_start_leaves_the_log_as_it_was() {
    let dir = scratch("log-kept");
    let (old, fresh) = (dir.join("old.ndjson"), dir.join("fresh.ndjson"));
    let (link, target) = (dir.join("link.ndjson"), dir.join("target.ndjson"));
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let earlier = "{\"an\":\"earlier run\"}\n".repeat(1000);
    std::fs::write(&old, &earlier).unwrap();
    for log in [&old, &fresh, &link] {
        let out = Command::new(BIN)
            .args(["proxy", "--log", log.to_str().unwrap(), "--"])
            .arg(dir.join("no-such-server"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("cannot start"), "{stderr}");
    }
    assert_eq!(std::fs::read_to_string(&old).unwrap(), earlier);
    assert!(!fresh.exists());
    assert!(!target.exists(), "the link's file was left behind");
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    let out = Command::new(BIN)
        .args(["proxy", "--log", old.to_str().unwrap(), "--", "true"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let log = read_log(&old);
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log[0].get("rpcwire_proxy").is_some(), "{log:?}");
    assert!(log[1].get("summary").is_some(), "{log:?}");
}

/// Writes `writes` to an echo proxy (`name` its scratch directory), whose pings (ids 1, 2, …)
/// the server answers in order, and returns what the server read.
fn server_reads(name: &str, writes: &[&[u8]], pings: u64) -> String {
    let dir = scratch(name);
    let mut p = Proxy::echo(&[], &dir);
    for write in writes {
        p.send_raw(write);
    }
    for id in 1..=pings {
        assert_eq!(p.recv()["id"], id);
    }
    p.finish_cleanly();
    std::fs::read_to_string(dir.join("server-in")).unwrap()
}

#[test]
fn crlf_becomes_lf_and_blank_lines_are_dropped() {
    assert_eq!(
        server_reads(
            "crlf",
            &[b"\r\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n"],
            1
        ),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
    );
}

#[test]
fn lines_before_a_crlf_line_in_the_same_read_are_forwarded() {
    // Two valid lines in one write, the second ending in `\r\n`: the first, queued as a run
    // of the chunk, must go on before the second, which goes with `\n`.
    let write = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n";
    assert_eq!(
        server_reads("lf-then-crlf", &[write], 2),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
         {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"
    );
}

/// Lines ending in `\n` or `\r\n`, blank lines, lines that are not JSON and messages holding
/// a `\r` as whitespace, written in chunks of random sizes (so that a read holds any mix of
/// them, and lines cut across reads): the server gets every valid message once, in order, each
/// ending in `\n`, a `\r` inside one a space; the last, without a newline, too. (A `\r\n`
/// line dropped the lines of the same read before it.)
#[test]
fn every_valid_line_reaches_the_server_whatever_the_reads() {
    let dir = scratch("mixed-line-ends");
    let mut p = Proxy::echo(&[], &dir);
    // A fixed seed: the same stream each run (a linear congruential generator).
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) % n
    };
    let (mut stream, mut expected) = (Vec::new(), Vec::new());
    for i in 0..400 {
        let message = format!(r#"{{"jsonrpc":"2.0","method":"n/{i}"}}"#);
        match next(6) {
            0 | 1 => {
                stream.extend_from_slice(message.as_bytes());
                stream.extend_from_slice(if next(2) == 0 { b"\n" } else { b"\r\n" });
                expected.extend_from_slice(message.as_bytes());
                expected.push(b'\n');
            }
            2 => {
                // A `\r` as JSON whitespace: a space on the way.
                let inner = message.replacen(',', ",\r", 1);
                stream.extend_from_slice(inner.as_bytes());
                stream.extend_from_slice(b"\r\n");
                expected.extend_from_slice(inner.replace('\r', " ").as_bytes());
                expected.push(b'\n');
            }
            3 => stream.extend_from_slice(if next(2) == 0 { b"\n" } else { b" \r\n" }),
            // Not JSON: answered to the client, never forwarded.
            _ => stream.extend_from_slice(if next(2) == 0 {
                b"{oops\n"
            } else {
                b"{oops\r\n"
            }),
        }
    }
    let last = r#"{"jsonrpc":"2.0","method":"n/last"}"#;
    stream.extend_from_slice(last.as_bytes());
    expected.extend_from_slice(last.as_bytes());
    expected.push(b'\n');
    let mut rest = &stream[..];
    while !rest.is_empty() {
        let (chunk, after) = rest.split_at((1 + next(160) as usize).min(rest.len()));
        p.send_raw(chunk);
        rest = after;
        if next(4) == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    p.finish_cleanly();
    let got = std::fs::read(dir.join("server-in")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&expected)
    );
}

#[test]
fn a_carriage_return_inside_a_message_goes_on_as_a_space() {
    // JSON whitespace, but a line end to a reader in universal-newline mode (Python's text
    // stdin, which MCP's Python SDK reads): forwarded as it came, the server would see two
    // lines that are not JSON.
    let writes: [&[u8]; 2] = [
        b"{\"jsonrpc\":\"2.0\",\r\"id\":1,\"method\":\"ping\"\r}\r\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
    ];
    assert_eq!(
        server_reads("inner-cr", &writes, 2),
        "{\"jsonrpc\":\"2.0\", \"id\":1,\"method\":\"ping\" }\n\
         {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"
    );
}

#[test]
fn lines_arriving_in_one_read_are_sorted_one_by_one() {
    let dir = scratch("one-read");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(&["--drop-invalid", "--log", log.to_str().unwrap()], &dir);
    // Valid, garbage, valid with CRLF, blank, a reply nobody asked for, valid without a
    // newline: in one write, so most likely in one read.
    p.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\nnot json\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}\r\n\n{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"c\"}",
    );
    let done = p.finish_cleanly();
    assert_eq!(
        std::fs::read_to_string(dir.join("server-in")).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n\
         {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}\n\
         {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"c\"}\n"
    );
    // Dropped, so the log records no reply.
    let log = read_log(&log);
    let garbage = log.iter().find(|r| r["violation"] == "not_json").unwrap();
    assert_eq!(garbage["reply"], Value::Null);
    // The client got the three replies and the server's notification at end of input: no
    // error for the dropped lines.
    let got = done.messages();
    let ids: Vec<&Value> = got.iter().map(|m| &m["id"]).collect();
    assert_eq!(
        ids,
        [&json!(1), &json!(2), &json!(3), &Value::Null],
        "{got:?}"
    );
    assert!(got.iter().all(|m| m.get("error").is_none()), "{got:?}");
}

#[test]
fn method_counters_are_capped() {
    let dir = scratch("methods");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(&["--quiet", "--log", log.to_str().unwrap()], &dir);
    for i in 0..300 {
        p.send(&request(json!(i), &format!("m{i}")));
        assert_eq!(p.recv()["result"]["echo"], format!("m{i}"));
    }
    p.close_stdin();
    assert_eq!(p.finish().code, Some(0));
    let summary = summary(&read_log(&log));
    let by_method = summary["requests_by_method"].as_object().unwrap();
    let c2s: Vec<&String> = by_method.keys().filter(|k| k.starts_with("c2s/")).collect();
    assert_eq!(c2s.len(), 256 + 1, "{c2s:?}");
    assert_eq!(by_method["c2s/(other)"], 300 - 256);
    assert_eq!(by_method["c2s/m0"], 1);
    assert_eq!(summary["total_violations"], 0);
}

#[test]
fn an_over_long_line_in_pieces_is_answered_once_and_the_next_line_survives() {
    let dir = scratch("long-pieces");
    let mut p = Proxy::echo(&["--max-frame", "4096"], &dir);
    let head = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}",
        "x".repeat(3000)
    );
    p.send_raw(head.as_bytes());
    std::thread::sleep(std::time::Duration::from_millis(100));
    // The limit is crossed here, before the newline; the next request shares the read.
    let tail = format!(
        "{}\"}}}}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n",
        "x".repeat(3000)
    );
    p.send_raw(tail.as_bytes());
    let first = p.recv();
    assert_eq!(first["error"]["code"], -32700, "{first}");
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":2,"result":{"echo":"ping"}})
    );
    let done = p.finish_cleanly();
    // The line is not held to be shown: stderr gives the limit and the option instead.
    assert!(
        done.stderr.contains(
            "c2s: too_long (kind framing_error, id -): a line longer than the frame limit of \
             4096 bytes; --max-frame sets the limit [not forwarded]"
        ),
        "{}",
        done.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("server-in")).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"
    );
}

/// An over-long line's log record carries its size when the proxy knows it: a line whose end
/// it read together with its start (the framer then cuts it whole). One whose end had not come
/// when the limit was crossed is reported then and discarded as it comes, never held: its size
/// is not known, and its record has no `size` (not a wrong 0).
#[test]
fn an_over_long_lines_record_has_its_size_when_known() {
    let dir = scratch("long-size");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(
        &["--max-frame", "4096", "--log", log.to_str().unwrap()],
        &dir,
    );
    // Whole, in one write (one read: a pipe write is read whole or in pages of 4 KiB, and a
    // page does not cross the limit without its newline).
    let whole = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}\r\n",
        "x".repeat(5000)
    );
    p.send_raw(whole.as_bytes());
    assert_eq!(p.recv()["error"]["code"], -32700);
    // Its start only: the proxy answers it once the limit is crossed, before its end comes.
    p.send_raw(format!("{{\"pad\":\"{}", "y".repeat(6000)).as_bytes());
    assert_eq!(p.recv()["error"]["code"], -32700);
    p.send_raw(format!("{}\"}}\n", "y".repeat(3000)).as_bytes());
    p.send(&request(json!(2), "ping"));
    assert_eq!(p.recv()["result"]["echo"], "ping");
    p.finish_cleanly();
    let records = read_log(&log);
    let too_long = flagged(&records, "too_long");
    assert_eq!(too_long.len(), 2, "{records:#?}");
    // The frame's length, as for any other line: without its `\r\n`.
    assert_eq!(
        too_long[0]["size"],
        json!(whole.len() - 2),
        "{}",
        too_long[0]
    );
    assert!(too_long[1].get("size").is_none(), "{}", too_long[1]);
    // The replay reads such records as the proxy wrote them.
    let (code, replayed) = check_json(&["--session-log".into(), log.display().to_string()]);
    assert_eq!(code, Some(1));
    assert_eq!(violations(&replayed), violations(&records));
}

/// The echo server behind a proxy in the JSON-RPC dialect, logging to `dir/log.ndjson`.
fn jsonrpc_echo(dir: &std::path::Path, options: &[&str]) -> (Proxy, PathBuf) {
    let log = dir.join("log.ndjson");
    let mut all = vec!["--dialect", "jsonrpc", "--log", log.to_str().unwrap()];
    all.extend_from_slice(options);
    (Proxy::echo(&all, dir), log)
}

/// Replays a proxy log offline and checks that it gives the live run's counters and
/// violations; returns the live log.
fn replayed_alike(log: &std::path::Path) -> Vec<Value> {
    let live = read_log(log);
    let (code, records) = check_json(&["--session-log".into(), log.display().to_string()]);
    let offline = &records.last().unwrap()["summary"];
    let expected = summary(&live);
    for counter in [
        "violations",
        "messages",
        "errors_by_code",
        "requests_by_method",
    ] {
        assert_eq!(
            offline[counter], expected[counter],
            "{counter}: {records:#?}"
        );
    }
    assert_eq!(violations(&records), violations(&live));
    let clean = expected["total_violations"] == 0;
    assert_eq!(code, Some(if clean { 0 } else { 1 }));
    live
}

/// The id and error code of each reply in the array `reply` (fails when it is no array).
fn ids_and_codes(reply: &Value) -> Vec<(&Value, &Value)> {
    reply
        .as_array()
        .unwrap_or_else(|| panic!("an array: {reply}"))
        .iter()
        .map(|r| (&r["id"], &r["error"]["code"]))
        .collect()
}

/// The proxy exited cleanly, and the server read exactly what the client wrote (each batch
/// whole, byte for byte).
fn server_read_what_the_client_sent(dir: &std::path::Path, done: &Finished) {
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(dir.join("server-in")).unwrap()),
        String::from_utf8_lossy(&done.sent)
    );
}

/// [`replayed_alike`], and the log's violations, counted as `dir/violation`, are `expected`;
/// returns the live log.
fn replayed_with_violations(log: &std::path::Path, expected: &[(&str, u64)]) -> Vec<Value> {
    let records = replayed_alike(log);
    assert_eq!(violations(&records), counts(expected), "{records:#?}");
    records
}

/// Checks the two streams the echo server recorded in `dir` (`check --c2s --s2c`): their
/// violations, counted as `dir/violation`, and the summary.
fn check_streams(dir: &std::path::Path) -> (BTreeMap<String, u64>, Value) {
    let (_, records) = check_json(&[
        "--dialect".into(),
        "jsonrpc".into(),
        "--c2s".into(),
        dir.join("server-in").display().to_string(),
        "--s2c".into(),
        dir.join("server-out").display().to_string(),
    ]);
    let summary = records.last().unwrap()["summary"].clone();
    (violations(&records), summary)
}

fn call(id: Value, method: &str) -> String {
    request(id, method).to_string()
}

/// A batch of requests, as one line.
fn batch_of(calls: &[(Value, &str)]) -> Vec<u8> {
    let calls: Vec<String> = calls.iter().map(|(id, m)| call(id.clone(), m)).collect();
    format!("[{}]\n", calls.join(",")).into_bytes()
}

/// JSON-RPC 2.0 §6: the requests inside a batch are tracked one by one and matched by the
/// elements of the batch the server answers with; the batch travels byte for byte.
#[test]
fn a_jsonrpc_batch_is_tracked_element_by_element() {
    let dir = scratch("batch-clean");
    let (mut p, log) = jsonrpc_echo(&dir, &[]);
    let note = json!({"jsonrpc":"2.0","method":"note"});
    p.send_raw(
        format!(
            "[{}, {note} ,{}]\n",
            call(json!(1), "a"),
            call(json!("two"), "b")
        )
        .as_bytes(),
    );
    let reply = p.recv();
    let ids: Vec<&Value> = reply.as_array().unwrap().iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!("two")]);
    // A batch of one, answered with an array of one.
    p.send_raw(&batch_of(&[(json!(3), "c")]));
    assert_eq!(p.recv()[0]["id"], 3);
    p.close_stdin();
    let done = p.finish();
    server_read_what_the_client_sent(&dir, &done);
    assert_eq!(
        String::from_utf8_lossy(&done.received),
        String::from_utf8_lossy(&std::fs::read(dir.join("server-out")).unwrap())
    );
    let records = replayed_with_violations(&log, &[]);
    let summary = summary(&records);
    for (counter, n) in [
        ("c2s/batch", 2),
        ("c2s/request", 3),
        ("c2s/notification", 1),
        ("s2c/batch", 2),
        ("s2c/success_response", 3),
    ] {
        assert_eq!(summary["messages"][counter], n, "{counter}: {summary}");
    }
    assert_eq!(summary["requests_by_method"]["c2s/b"], 1);
    // The two recorded streams give the same.
    let (streams, offline) = check_streams(&dir);
    assert_eq!(streams, counts(&[]));
    assert_eq!(offline["messages"], summary["messages"]);
    // The log: the batch's record, then one per element, with its index.
    let first = records.iter().position(|r| r["kind"] == "batch").unwrap();
    let batch: Vec<(&Value, &Value, &Value)> = records[first..first + 4]
        .iter()
        .map(|r| (&r["kind"], &r["id"], &r["element"]))
        .collect();
    assert_eq!(
        batch,
        [
            (&json!("batch"), &Value::Null, &Value::Null),
            (&json!("request"), &json!("1"), &json!(0)),
            (&json!("notification"), &Value::Null, &json!(1)),
            (&json!("request"), &json!("\"two\""), &json!(2)),
        ]
    );
}

#[test]
fn a_batch_reusing_an_id_in_flight_is_reported_per_element() {
    let dir = scratch("batch-duplicate");
    let (mut p, log) = jsonrpc_echo(&dir, &[]);
    // 7 is in flight when the batch reuses it; 9 twice in one batch.
    p.send(&request(json!(7), "slow"));
    p.send_raw(
        format!(
            "[{},{}]\n[{},{}]\n",
            call(json!(7), "ping"),
            call(json!(8), "ping"),
            call(json!(9), "ping"),
            call(json!(9), "ping")
        )
        .as_bytes(),
    );
    assert_eq!(p.recv()["id"], 7);
    // Each reused id goes to the server under a minted one, and its reply comes back with
    // the client's: every reply answers its own request.
    let ids = |reply: Value| -> Vec<Value> {
        reply
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].clone())
            .collect()
    };
    assert_eq!(ids(p.recv()), [json!(7), json!(8)]);
    assert_eq!(ids(p.recv()), [json!(9), json!(9)]);
    let done = p.finish_cleanly();
    let records = replayed_alike(&log);
    assert_eq!(
        violations(&records),
        counts(&[("c2s/duplicate_id", 2)]),
        "{records:#?}"
    );
    assert_eq!(
        done.stderr
            .matches("c2s: duplicate_id (kind request, id 7, element 0 of a batch)")
            .count(),
        1,
        "{}",
        done.stderr
    );
    assert!(
        done.stderr.contains("[forwarded as id 9007199254740990]"),
        "{}",
        done.stderr
    );
    let read = server_read(&dir);
    assert_eq!(
        (&read[1][0]["id"], &read[1][1]["id"], &read[2][0]["id"]),
        (&json!(9007199254740990u64), &json!(8), &json!(9))
    );
    assert_eq!(read[2][1]["id"], json!(9007199254740989u64));
    assert_eq!(
        std::fs::read_to_string(dir.join("server-in"))
            .unwrap()
            .lines()
            .count(),
        3,
        "every batch forwarded"
    );
}

#[test]
fn an_unanswered_batch_request_is_reported_at_exit() {
    let dir = scratch("batch-unanswered");
    let (mut p, log) = jsonrpc_echo(&dir, &[]);
    p.send_raw(&batch_of(&[(json!(1), "noreply"), (json!(2), "ping")]));
    assert_eq!(
        p.recv(),
        json!([{"jsonrpc":"2.0","id":2,"result":{"echo":"ping"}}])
    );
    let done = p.finish_cleanly();
    assert_eq!(
        done.stderr
            .matches("c2s: unanswered request 1 (noreply)")
            .count(),
        1,
        "{}",
        done.stderr
    );
    replayed_with_violations(&log, &[("c2s/unanswered", 1)]);
    let (streams, _) = check_streams(&dir);
    assert_eq!(streams, counts(&[("c2s/unanswered", 1)]));
}

/// A batch times out as a unit (JSON-RPC 2.0 §6: one array answers a batch): at
/// `--timeout-ms` the client gets one array, the proxy's, answering what is left of the batch
/// as the server would have (a -32603 for each request, a -32600 for each invalid element),
/// and the server's array, coming later, holds only late replies: it is dropped, so the client
/// never gets two arrays for one batch. Nothing is cancelled: JSON-RPC has no cancellation.
#[test]
fn a_batch_times_out_as_a_unit() {
    let dir = scratch("batch-timeout");
    let (mut p, log) = jsonrpc_echo(&dir, &["--timeout-ms", "100"]);
    let pings = p.ping_until_answered();
    let note = json!({"jsonrpc":"2.0","method":"note"});
    let batch = format!(
        "[{},{},1,{note}]\n",
        call(json!("s"), "slow"),
        call(json!("t"), "slow")
    );
    p.send_raw(batch.as_bytes());
    let reply = p.recv();
    let got = ids_and_codes(&reply);
    assert_eq!(
        got,
        [
            (&json!("s"), &json!(-32603)),
            (&json!("t"), &json!(-32603)),
            (&Value::Null, &json!(-32600))
        ],
        "{reply}"
    );
    // The echo server answers the two slow requests after a second: by then its array is
    // late, and the next line the client gets is the reply to a ping sent after it (once the
    // server has sent the array, so that the ping does not time out too; one that does, the
    // server held back on a loaded machine, is tried again: the server answers one).
    await_recorded(&dir.join("server-out"), Value::is_array);
    let afters = p.ping_until_answered_as(|n| json!(format!("after-{n}")));
    p.finish_cleanly();
    let server_out = std::fs::read_to_string(dir.join("server-out")).unwrap();
    assert!(
        server_out.contains(r#"{"echo": "slow"}"#),
        "the server did answer: {server_out}"
    );
    let records = replayed_alike(&log);
    let v = violations(&records);
    // The pings sent while the server started, the batch's two requests, and the pings sent
    // after it that timed out.
    let early = pings - 1 + afters - 1;
    assert_eq!(v["c2s/timed_out"], early + 2, "{v:?}");
    assert_eq!(v["c2s/invalid"], 1, "{v:?}");
    // Late: the replies to those pings, and the server's array's three elements.
    assert_eq!(v["s2c/late_reply"], early + 3, "{v:?}");
    let owed: Vec<&Value> = records
        .iter()
        .filter(|r| r["event"] == "owed_answered")
        .map(|r| &r["id"])
        .collect();
    assert_eq!(
        owed,
        [&Value::Null],
        "the log says which owed reply the proxy sent"
    );
    let cancelled = std::fs::read_to_string(dir.join("server-in"))
        .unwrap()
        .matches("notifications/cancelled")
        .count();
    assert_eq!(cancelled, 0, "JSON-RPC has no cancellation to send");
}

/// JSON-RPC 2.0 §6: the server answers each invalid element of a batch itself, so the batch
/// is forwarded whole and the proxy answers nothing; the server's null-id error replies to
/// those elements are owed, not replies to notifications. An empty batch is one invalid
/// request: answered locally with one -32600, as the server would.
#[test]
fn invalid_batch_elements_are_reported_and_answered_by_the_server() {
    let dir = scratch("batch-invalid");
    let (mut p, log) = jsonrpc_echo(&dir, &[]);
    let batch = format!("[1,{},{{\"foo\":\"bar\"}}]\n", call(json!(5), "ping"));
    p.send_raw(batch.as_bytes());
    let reply = p.recv();
    let got = ids_and_codes(&reply);
    assert_eq!(
        got,
        [
            (&Value::Null, &json!(-32600)),
            (&json!(5), &Value::Null),
            (&Value::Null, &json!(-32600))
        ]
    );
    p.send_raw(b"[]\n");
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}})
    );
    p.finish_cleanly();
    assert_eq!(
        std::fs::read_to_string(dir.join("server-in")).unwrap(),
        batch,
        "the batch, byte for byte; not the empty one"
    );
    let records = replayed_with_violations(&log, &[("c2s/invalid", 3)]);
    assert_eq!(summary(&records)["errors_by_code"]["s2c/-32600"], 2);
    // The server never read the empty batch.
    assert_eq!(check_streams(&dir).0, counts(&[("c2s/invalid", 2)]));
}

/// A client batch of more elements than `--max-batch` is one invalid request: answered
/// locally with one -32600 (not an array of errors, which could be dozens of times the size
/// of the batch), never forwarded; a batch of exactly the limit is forwarded whole.
#[test]
fn a_batch_over_max_batch_is_answered_once_and_not_forwarded() {
    let dir = scratch("batch-over-limit");
    let (mut p, log) = jsonrpc_echo(&dir, &["--max-batch", "2"]);
    let over = format!("[1,{},1]\n", call(json!(5), "ping"));
    p.send_raw(over.as_bytes());
    assert_eq!(
        p.recv(),
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}})
    );
    let at_limit = format!("[1,{}]\n", call(json!(6), "ping"));
    p.send_raw(at_limit.as_bytes());
    let got = p.recv();
    assert_eq!(
        ids_and_codes(&got),
        [(&Value::Null, &json!(-32600)), (&json!(6), &Value::Null)]
    );
    let done = p.finish_cleanly();
    assert_eq!(
        std::fs::read_to_string(dir.join("server-in")).unwrap(),
        at_limit,
        "only the batch within the limit"
    );
    // Stderr names the limit and the option that sets it, not only the library's field.
    assert!(
        done.stderr.contains(
            "c2s: invalid (kind invalid, id -): batch has more elements than its limit of 2 \
             (max_batch_len); --max-batch sets the limit: [1,"
        ),
        "{}",
        done.stderr
    );
    replayed_with_violations(&log, &[("c2s/invalid", 2)]);
}

/// A client batch over `--max-batch` made only of replies is an `invalid_response`: owed no
/// reply (as docs/cli.md's `--max-batch` row says), and not forwarded.
#[test]
fn a_client_batch_of_replies_over_max_batch_is_not_answered() {
    let dir = scratch("batch-of-replies-over-limit");
    let (mut p, log) = jsonrpc_echo(&dir, &["--max-batch", "2"]);
    let reply = |id: u32| json!({"jsonrpc": "2.0", "id": id, "result": 1}).to_string();
    p.send_raw(format!("[{},{},{}]\n", reply(1), reply(2), reply(3)).as_bytes());
    let ping = format!("{}\n", call(json!(7), "ping"));
    p.send_raw(ping.as_bytes());
    // The first line back is the ping's answer: nothing answered the batch.
    assert_eq!(p.recv()["id"], json!(7));
    p.finish_cleanly();
    assert_eq!(
        std::fs::read_to_string(dir.join("server-in")).unwrap(),
        ping,
        "only the ping"
    );
    replayed_with_violations(&log, &[("c2s/invalid_response", 1)]);
}

/// A batch of many invalid elements: each is in the log, but stderr shows the first 16 and
/// counts the rest on one line (a hostile batch of millions must not flood it, nor be held in
/// memory to be printed).
#[test]
fn stderr_shows_the_first_elements_of_a_batch_and_counts_the_rest() {
    let dir = scratch("batch-many");
    let (mut p, log) = jsonrpc_echo(&dir, &[]);
    let batch = format!("[{}]\n", vec!["1"; 20].join(","));
    p.send_raw(batch.as_bytes());
    assert_eq!(p.recv().as_array().unwrap().len(), 20);
    let done = p.finish_cleanly();
    let element_lines = done
        .stderr
        .lines()
        .filter(|l| l.contains("of a batch"))
        .count();
    assert_eq!(element_lines, 16, "{}", done.stderr);
    assert!(
        done.stderr
            .contains("c2s: 4 more violations in elements of the same batch"),
        "{}",
        done.stderr
    );
    replayed_with_violations(&log, &[("c2s/invalid", 20)]);
}

/// The scripted server (tests/servers/scripted.py) behind a JSON-RPC proxy: `script` maps the
/// index of each line it reads to the lines it writes then.
fn jsonrpc_scripted(dir: &std::path::Path, options: &[&str], script: Value) -> (Proxy, PathBuf) {
    let mut all = vec!["--dialect", "jsonrpc"];
    all.extend_from_slice(options);
    scripted(dir, &all, script)
}

/// The scripted server behind a proxy with `options`, logging to `dir/log.ndjson`.
fn scripted(dir: &std::path::Path, options: &[&str], script: Value) -> (Proxy, PathBuf) {
    let log = dir.join("log.ndjson");
    let mut all = vec!["--log", log.to_str().unwrap()];
    all.extend_from_slice(options);
    let server = format!("{}/tests/servers/scripted.py", env!("CARGO_MANIFEST_DIR"));
    let record = dir.join("server-in");
    let command = [
        "python3",
        &server,
        &script.to_string(),
        "--record-in",
        record.to_str().unwrap(),
    ];
    let mut p = Proxy::spawn(&all, &command);
    p.started = Some(record);
    (p, log)
}

/// A server batch dropped whole (it holds an invalid element) has no effect: the reply in
/// it leaves its request waiting, so the client gets the proxy's -32603 when it times out
/// instead of hanging.
#[test]
fn a_dropped_server_batch_leaves_its_requests_waiting() {
    let dir = scratch("batch-dropped-waits");
    let script = json!({"1": [{"send": "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1},42]"}]});
    let (mut p, log) = jsonrpc_scripted(&dir, &["--timeout-ms", "100"], script);
    p.send(&request(json!(0), "first"));
    p.send(&request(json!(1), "ping"));
    let first = p.recv();
    assert_eq!(first["id"], 0, "{first}");
    let second = p.recv();
    assert_eq!(
        (&second["id"], &second["error"]["code"]),
        (&json!(1), &json!(-32603)),
        "{second}"
    );
    p.close_stdin();
    p.finish();
    replayed_with_violations(&log, &[("s2c/invalid", 1), ("c2s/timed_out", 2)]);
}

/// A batch from the server with an invalid element never reaches the client (alone, `42` is
/// dropped too): the client gets valid messages only.
#[test]
fn a_server_batch_with_an_invalid_element_is_dropped() {
    let dir = scratch("batch-s2c-invalid");
    let script = json!({"0": [
        {"send": "[42,{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]"},
        {"send": "42"},
        {"send": "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}"}
    ]});
    let (mut p, log) = jsonrpc_scripted(&dir, &[], script);
    p.send(&request(json!(1), "ping"));
    let first = p.recv();
    p.close_stdin();
    let done = p.finish();
    assert_eq!(first["id"], 1, "the client got {first}");
    assert_eq!(done.messages().len(), 1, "{:?}", done.messages());
    replayed_with_violations(&log, &[("s2c/invalid", 2)]);
}

/// `check --c2s --s2c` matches the server's reply to an invalid batch element as the proxy
/// does: it used to take it for a reply the client stream had to catch up with, and then
/// reported a legitimate reuse of id 1 as a duplicate.
#[test]
fn streams_match_the_reply_to_an_invalid_element() {
    let dir = scratch("batch-streams-owed");
    let (mut p, log) = jsonrpc_echo(&dir, &[]);
    p.send_raw(format!("[1,{}]\n", call(json!(1), "ping")).as_bytes());
    assert_eq!(p.recv().as_array().unwrap().len(), 2);
    p.send(&request(json!(1), "ping"));
    assert_eq!(p.recv()["id"], 1);
    p.close_stdin();
    p.finish();
    let live = violations(&replayed_alike(&log));
    assert_eq!(live, counts(&[("c2s/invalid", 1)]));
    assert_eq!(check_streams(&dir).0, live);
}

/// Under plain JSON-RPC, `notifications/cancelled` is a notification like any other: the
/// server's reply to request 1 still reaches the client.
#[test]
fn jsonrpc_has_no_cancellation() {
    let dir = scratch("jsonrpc-cancel");
    let (mut p, log) = jsonrpc_echo(&dir, &[]);
    p.send(&request(json!(1), "slow"));
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}));
    p.send(&request(json!(2), "ping"));
    let first = p.recv();
    p.close_stdin();
    p.finish();
    assert_eq!(first["id"], 1, "{:?}", violations(&read_log(&log)));
}

/// Under plain JSON-RPC a timeout is not described in MCP's terms (initialize).
#[test]
fn a_jsonrpc_timeout_does_not_mention_initialize() {
    let dir = scratch("jsonrpc-timeout-message");
    let (mut p, _log) = jsonrpc_echo(&dir, &["--timeout-ms", "100"]);
    p.ping_until_answered();
    p.send(&request(json!("s"), "slow"));
    p.recv();
    p.close_stdin();
    let done = p.finish();
    assert!(done.stderr.contains("timed_out"), "{}", done.stderr);
    assert!(!done.stderr.contains("initialize"), "{}", done.stderr);
}

/// A session mixing --drop-invalid, batches with invalid elements, a nested array, a
/// duplicate id within one batch, a batch of notifications, an over-long line and timeouts
/// replays to the live counters.
#[test]
fn a_mixed_batch_session_replays_alike() {
    let dir = scratch("batch-replay-mixed");
    let options = [
        "--timeout-ms",
        "100",
        "--drop-invalid",
        "--max-frame",
        "4096",
    ];
    let (mut p, log) = jsonrpc_echo(&dir, &options);
    let pings = p.ping_until_answered();
    // (The ids below are not the pings': one of those that timed out, reused, is a
    // duplicate_id, and its reply late.)
    // The server answers these batches at once, but a loaded machine may hold it back past
    // the timeout: a request the proxy answered with its timeout instead is counted.
    let mut held_back = 0;
    let mut recv_array = |p: &mut Proxy| {
        let reply = p.recv();
        let elements = reply.as_array().unwrap().clone();
        held_back += elements
            .iter()
            .filter(|r| r["error"]["message"] == "Request timed out")
            .count() as u64;
        elements.len()
    };
    p.send_raw(b"[1]\n{\"jsonrpc\":\"2.0\"}\n");
    assert_eq!(recv_array(&mut p), 1);
    let nested = format!("[[{}],{}]\n", call(json!("x"), "x"), call(json!("y"), "y"));
    p.send_raw(nested.as_bytes());
    assert_eq!(recv_array(&mut p), 2);
    p.send_raw(&batch_of(&[(json!("d"), "a"), (json!("d"), "b")]));
    assert_eq!(recv_array(&mut p), 2);
    p.send_raw(b"[{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]\n");
    p.send_raw(format!("{}\n", "x".repeat(5000)).as_bytes());
    p.send(&request(json!("u"), "noreply"));
    p.send_raw(&batch_of(&[(json!("s"), "slow"), (json!("t"), "noreply")]));
    // "u" times out, then the batch as a unit: one array for "s" and "t". The server's
    // array, 0.5 s later, answers "s" only: late, dropped.
    let reply = p.recv();
    assert_eq!(
        reply["id"], "u",
        "the timeout of the request sent alone: {reply}"
    );
    assert_eq!(p.recv().as_array().unwrap().len(), 2);
    await_recorded(&dir.join("server-out"), |m| {
        m.as_array()
            .is_some_and(|a| a.iter().any(|r| r["id"] == "s"))
    });
    p.close_stdin();
    let done = p.finish();
    let late = done.messages().into_iter().find(|m| {
        let replies = m.as_array().map_or(std::slice::from_ref(m), Vec::as_slice);
        replies
            .iter()
            .any(|r| r["id"] == "s" && r.get("result").is_some())
    });
    assert_eq!(late, None, "the server's late array reached the client");
    let records = replayed_alike(&log);
    let v = violations(&records);
    assert_eq!(
        (v.get("c2s/timed_out"), v.get("c2s/unanswered")),
        (Some(&(pings + 2 + held_back)), None),
        "{v:?}"
    );
}

/// A server batch dropped whole that holds replies to requests sent in a batch (which are not
/// timed out): the proxy answers those requests itself, in one array of -32603 errors, so the
/// client does not wait for them forever; the session replays alike.
#[test]
fn a_dropped_server_array_answering_a_batch_is_answered_by_the_proxy() {
    let dir = scratch("batch-dropped-answered");
    let script = json!({"0": [{"send": "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2},42]"}]});
    let (mut p, log) = jsonrpc_scripted(&dir, &[], script);
    p.send_raw(&batch_of(&[(json!(1), "a"), (json!(2), "b")]));
    let reply = p.recv();
    let got = ids_and_codes(&reply);
    assert_eq!(
        got,
        [(&json!(1), &json!(-32603)), (&json!(2), &json!(-32603))]
    );
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.messages().len(), 1, "{:?}", done.messages());
    replayed_with_violations(&log, &[("s2c/invalid", 1)]);
}

/// A result holding `resultType: 42` is forwarded in a session that negotiated a version
/// before 2026-07-28 (where `resultType` means nothing) and dropped as invalid in one that
/// negotiated 2026-07-28, whose results must carry a known `resultType` (the client then gets
/// the proxy's timeout reply instead).
#[test]
fn result_type_is_checked_from_the_negotiated_version_on() {
    for (version, valid) in [("2025-11-25", true), ("2026-07-28", false)] {
        let initialized = format!(
            r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{version}","capabilities":{{}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
        );
        // The reply to `initialize`, and the result to the tools/call in the same write: the
        // proxy may read them as one chunk.
        let script = json!({
            "0": [{"send": format!("{initialized}\n{}", r#"{"jsonrpc":"2.0","id":9,"result":{"resultType":42}}"#)}],
            "2": [{"send": r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":42}}"#}]
        });
        let dir = scratch(&format!("result-type-{version}"));
        let (mut p, log) = scripted(&dir, &["--timeout-ms", "1500"], script);
        // Initialize once the server has started: it must answer it before the timeout.
        p.await_server_started();
        p.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize",
            "params":{"protocolVersion":version,"capabilities":{},
                      "clientInfo":{"name":"c","version":"1"}}}));
        let reply = p.recv();
        assert_eq!(reply["result"]["protocolVersion"], version, "{reply}");
        p.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        p.send(&request(json!(1), "tools/call"));
        let reply = p.recv();
        assert_eq!(reply["id"], 1, "{reply}");
        if valid {
            assert_eq!(reply["result"]["resultType"], 42, "{version}: {reply}");
        } else {
            assert_eq!(reply["error"]["code"], -32603, "{version}: {reply}");
        }
        p.close_stdin();
        p.finish();
        let records = read_log(&log);
        let expected = if valid {
            counts(&[("s2c/unknown_reply", 1)])
        } else {
            counts(&[("s2c/invalid_response", 2), ("c2s/timed_out", 1)])
        };
        assert_eq!(violations(&records), expected, "{version}");
    }
}

/// MCP 2026-07-28 has no `initialize`: each request names its version in `_meta`. Once the
/// server answered such a request with a success (here `server/discover`), the session follows
/// that version, under which a server sends no requests: the proxy drops one and flags it.
/// When the server refused the probe, no version is known, and its request is forwarded.
#[test]
fn per_request_version_once_the_server_accepts_it() {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let server_request = r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#;
    for accepted in [true, false] {
        let dir = scratch(&format!("per-request-version-{accepted}"));
        let probe_reply = if accepted {
            r#"{"jsonrpc":"2.0","id":0,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete"}}"#
        } else {
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}"#
        };
        let script = json!({
            "0": [{"send": probe_reply}, {"send": server_request}],
            "1": [{"send": r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}"#}]
        });
        let (mut p, log) = scripted(&dir, &[], script);
        p.send(&json!({"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":meta}}));
        assert_eq!(p.recv()["id"], 0);
        p.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
            "params":{"name":"t","_meta":meta}}));
        // The tools/call's result comes after the server's request, forwarded or not.
        while p.recv()["id"] != 1 {}
        p.close_stdin();
        let received = p.finish().messages();
        let ids: Vec<&Value> = received.iter().map(|m| &m["id"]).collect();
        if accepted {
            assert_eq!(ids, [&json!(0), &json!(1)], "{received:?}");
        } else {
            assert_eq!(ids, [&json!(0), &json!("s1"), &json!(1)], "{received:?}");
        }
        let records = read_log(&log);
        let expected: &[(&str, u64)] = if accepted {
            &[("s2c/server_request_forbidden", 1)]
        } else {
            // (The client never answers it.)
            &[("s2c/unanswered", 1)]
        };
        assert_eq!(
            violations(&records),
            counts(expected),
            "accepted: {accepted}"
        );
        replayed_with_violations(&log, expected);
        let versions: Vec<&Value> = records
            .iter()
            .filter(|r| r["dir"] == "c2s" && r["kind"] == "request")
            .map(|r| &r["protocol_version"])
            .collect();
        // Each request's own, read while the session has no version: once the probe was
        // accepted, no more.
        let second = if accepted {
            json!(null)
        } else {
            json!("2026-07-28")
        };
        assert_eq!(versions, [&json!("2026-07-28"), &second]);
    }
}

/// A lone request the scripted server answers at once (its line 0), sent and answered first:
/// the server is up before what a test times (with a timeout of `TIMEOUT_MS`, long enough
/// for it to start on a loaded machine).
fn warm_up(p: &mut Proxy) {
    p.await_server_started();
    p.send(&request(json!(0), "warm-up"));
    let reply = p.recv();
    assert_eq!(reply["result"], 0, "the server's reply: {reply}");
}

/// The timeout of the tests that start with [`warm_up`], and how long they wait for it (the
/// proxy looks at its deadlines every 250 ms at most).
const TIMEOUT_MS: &str = "1500";
const PAST_TIMEOUT: Duration = Duration::from_millis(2500);

/// The scripted server's reply to the warm-up request.
const WARM_UP_REPLY: &str = r#"{"jsonrpc":"2.0","id":0,"result":0}"#;

/// A client's `initialize` request `id` asking for MCP `version`.
fn initialize_request(id: u64, version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{"protocolVersion":version,
        "capabilities":{},"clientInfo":{"name":"t","version":"1"}}})
}

/// A server's reply to `initialize` (id 0) naming MCP `version` (2025-03-26: the one version
/// with batches).
fn initialize_reply(version: &str) -> String {
    json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":version,"capabilities":{},
        "serverInfo":{"name":"s","version":"1"}}})
    .to_string()
}

/// After the server's reply to `initialize` named `version`, under which MCP has no batches,
/// a client's batch is refused with -32600 and never reaches the server; the replay agrees.
fn a_batch_is_refused_after(dir: &std::path::Path, version: &str) {
    let script = json!({"0": [{"send": initialize_reply(version)}]});
    let (mut p, log) = scripted(dir, &[], script);
    p.send(&initialize_request(0, "2025-03-26"));
    assert_eq!(p.recv()["result"]["protocolVersion"], version);
    p.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n");
    let refused = p.recv();
    assert_eq!(refused["error"]["code"], -32600, "{version}: {refused}");
    p.close_stdin();
    p.finish();
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    assert!(!server_in.contains("ping"), "{version}: {server_in}");
    replayed_with_violations(&log, &[("c2s/invalid", 1)]);
}

/// A dropped server array that answered a client batch: the proxy answers all that is left of
/// the batch in one array (a -32603 for each request, the one the array answered or not, and a
/// -32600 for each invalid element), with or without a timeout, and nothing more at the
/// batch's deadline.
#[test]
fn a_dropped_server_array_answers_all_that_is_left_of_the_batch_in_one_array() {
    for options in [&[][..], &["--timeout-ms", TIMEOUT_MS][..]] {
        let dir = scratch(&format!("batch-dropped-owed-{}", options.len()));
        let dropped = r#"[{"jsonrpc":"2.0","id":1,"result":1},42]"#;
        let script = json!({"0": [{"send": WARM_UP_REPLY}], "1": [{"send": dropped}]});
        let (mut p, log) = jsonrpc_scripted(&dir, options, script);
        warm_up(&mut p);
        let invalid = r#"{"jsonrpc":"2.0","id":7,"method":"m","params":1}"#;
        let requests = [call(json!(1), "a"), call(json!(2), "b")];
        p.send_raw(format!("[{},{},{invalid},1]\n", requests[0], requests[1]).as_bytes());
        let reply = p.recv();
        let got = ids_and_codes(&reply);
        assert_eq!(
            got,
            [
                (&json!(1), &json!(-32603)),
                (&json!(2), &json!(-32603)),
                (&json!(7), &json!(-32600)),
                (&Value::Null, &json!(-32600))
            ],
            "{options:?}: {reply}"
        );
        // Past the batch's deadline: nothing more for it.
        thread::sleep(PAST_TIMEOUT);
        p.close_stdin();
        let done = p.finish();
        assert_eq!(done.messages().len(), 2, "{:?}", done.messages());
        let records = replayed_alike(&log);
        assert_eq!(
            violations(&records),
            counts(&[("c2s/invalid", 2), ("s2c/invalid", 1)]),
            "{options:?}"
        );
    }
}

/// A server array the client needs that also holds a late reply (to a request the proxy
/// answered at its timeout) reaches the client without it: the other elements byte for byte,
/// in a new array; the client never gets two replies to one request.
#[test]
fn a_late_reply_inside_a_needed_array_is_cut_from_it() {
    let dir = scratch("batch-late-cut");
    let array =
        r#"[ {"jsonrpc":"2.0","id":"x","result":1} , {"jsonrpc":"2.0","id":2,"result": [2] } ]"#;
    let (done, log) = array_answering_a_timed_out_request(&dir, array);
    let last = done.received.split_inclusive(|&b| b == b'\n').next_back();
    assert_eq!(
        String::from_utf8_lossy(last.unwrap()),
        "[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\": [2] }]\n"
    );
    assert_eq!(done.messages().len(), 3, "{:?}", done.messages());
    assert!(
        done.stderr.contains("[cut from the batch]"),
        "{}",
        done.stderr
    );
    replayed_with_violations(&log, &[("c2s/timed_out", 1), ("s2c/late_reply", 1)]);
}

/// A JSON-RPC session whose server answers, with `array`, the client's request `"x"` after
/// it timed out and a batch of one request (`2`) the client sent next: what the client got,
/// and the log.
fn array_answering_a_timed_out_request(dir: &std::path::Path, array: &str) -> (Finished, PathBuf) {
    let script = json!({"0": [{"send": WARM_UP_REPLY}], "2": [{"send": array}]});
    let (mut p, log) = jsonrpc_scripted(dir, &["--timeout-ms", TIMEOUT_MS], script);
    warm_up(&mut p);
    p.send(&request(json!("x"), "slow"));
    expect_timed_out(&mut p, "x");
    p.send_raw(&batch_of(&[(json!(2), "b")]));
    p.recv();
    p.close_stdin();
    (p.finish(), log)
}

/// The array a late reply is cut from is made anew, but its other elements still go on with
/// each `\r` inside them a space, as in a message forwarded as it came: a reader in
/// universal-newline mode would end a line there.
#[test]
fn an_array_a_late_reply_is_cut_from_carries_no_carriage_return() {
    let dir = scratch("batch-late-cut-cr");
    let array = "[{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":1},{\"jsonrpc\":\"2.0\",\r\"id\":2,\"result\":2}]";
    let (done, _) = array_answering_a_timed_out_request(&dir, array);
    let last = done.received.split_inclusive(|&b| b == b'\n').next_back();
    assert_eq!(
        String::from_utf8_lossy(last.unwrap()),
        "[{\"jsonrpc\":\"2.0\", \"id\":2,\"result\":2}]\n"
    );
}

/// A server answering an invalid batch element with a success (it took the element for a
/// request): reported, forwarded as the element's one reply, and the proxy does not answer
/// the element again at the batch's deadline.
#[test]
fn a_success_to_an_invalid_element_is_its_one_reply() {
    let dir = scratch("batch-success-to-invalid");
    let answer = r#"[{"jsonrpc":"2.0","id":5,"result":1}]"#;
    let script = json!({"0": [{"send": WARM_UP_REPLY}], "1": [{"send": answer}]});
    let (mut p, log) = jsonrpc_scripted(&dir, &["--timeout-ms", TIMEOUT_MS], script);
    warm_up(&mut p);
    p.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"m\",\"params\":1}]\n");
    assert_eq!(p.recv(), serde_json::from_str::<Value>(answer).unwrap());
    // Past the batch's deadline: nothing more for it.
    thread::sleep(PAST_TIMEOUT);
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.messages().len(), 2, "{:?}", done.messages());
    replayed_with_violations(&log, &[("c2s/invalid", 1), ("s2c/success_to_invalid", 1)]);
}

/// A JSON-RPC session whose client sends `lines` after the warm-up, and whose server, once
/// it read them all, answers with `answers`: the violations the log holds (checked against
/// its replay) once the client got every answer.
fn violations_of_answers(name: &str, lines: &[&str], answers: &[&str]) -> BTreeMap<String, u64> {
    let dir = scratch(name);
    let sends: Vec<Value> = answers.iter().map(|a| json!({"send": a})).collect();
    let mut script = json!({"0": [{"send": WARM_UP_REPLY}]});
    script[lines.len().to_string()] = Value::from(sends);
    let (mut p, log) = jsonrpc_scripted(&dir, &[], script);
    warm_up(&mut p);
    for line in lines {
        p.send_raw(format!("{line}\n").as_bytes());
    }
    for answer in answers {
        assert_eq!(p.recv(), serde_json::from_str::<Value>(answer).unwrap());
    }
    p.close_stdin();
    p.finish();
    violations(&replayed_alike(&log))
}

/// A null-id error inside the server's array, answering a batch element whose id could not
/// be read, is that element's reply, not the one of a request with a null id sent alone and
/// still waiting: the server's reply alone answers that request, no `reply_without_id`.
#[test]
fn a_null_id_error_in_an_array_does_not_answer_a_null_id_request_sent_alone() {
    let found = violations_of_answers(
        "batch-null-error-lone-null-request",
        &[
            r#"[{"jsonrpc":"2.0","id":2,"method":"c"},5]"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"d"}"#,
        ],
        &[
            r#"[{"jsonrpc":"2.0","id":2,"result":"c"},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]"#,
            r#"{"jsonrpc":"2.0","id":null,"result":"d"}"#,
        ],
    );
    assert_eq!(found, counts(&[("c2s/invalid", 1)]));
}

/// Replies to two batches come in any order (§6): a server answering a batch holding an
/// invalid element of id 3 before an earlier batch holding a request of id 3 (the error
/// first, then the success) answered each rightly, as does one answering a request and an
/// invalid element of one batch, both of a null id, in any order inside its array. No
/// `success_to_invalid`.
#[test]
fn a_success_after_an_error_of_its_id_answered_the_request() {
    let error = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"Invalid Request"}}}}"#
        )
    };
    let found = violations_of_answers(
        "batch-replies-other-order",
        &[
            r#"[{"jsonrpc":"2.0","id":3,"method":"m"}]"#,
            r#"[{"jsonrpc":"1.0","id":3,"method":"m"}]"#,
        ],
        &[
            &format!("[{}]", error("3")),
            r#"[{"jsonrpc":"2.0","id":3,"result":"ok"}]"#,
        ],
    );
    assert_eq!(found, counts(&[("c2s/invalid", 1)]));
    let found = violations_of_answers(
        "batch-null-replies-other-order",
        &[r#"[{"jsonrpc":"2.0","id":null,"method":"a"},5]"#],
        &[&format!(
            r#"[{},{{"jsonrpc":"2.0","id":null,"result":"a"}}]"#,
            error("null")
        )],
    );
    assert_eq!(found, counts(&[("c2s/invalid", 1)]));
}

/// The same success is `success_to_invalid` when the client sent the invalid element after
/// the error came: the error answered the request (no element of its id was owed yet), so the
/// success answers the element, which the server took for a request. The replay of the log
/// agrees.
#[test]
fn a_success_to_an_element_sent_after_an_error_of_its_id_is_reported() {
    let dir = scratch("batch-error-then-element");
    let error = r#"[{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request"}}]"#;
    let success = r#"[{"jsonrpc":"2.0","id":3,"result":"ok"}]"#;
    let script = json!({
        "0": [{"send": WARM_UP_REPLY}],
        "1": [{"send": error}],
        "2": [{"send": success}]
    });
    let (mut p, log) = jsonrpc_scripted(&dir, &[], script);
    warm_up(&mut p);
    p.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\"}]\n");
    assert_eq!(p.recv(), serde_json::from_str::<Value>(error).unwrap());
    p.send_raw(b"[{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"m\"}]\n");
    assert_eq!(p.recv(), serde_json::from_str::<Value>(success).unwrap());
    p.close_stdin();
    p.finish();
    let found = violations(&replayed_alike(&log));
    let expected = [("c2s/invalid", 1), ("s2c/success_to_invalid", 1)];
    assert_eq!(found, counts(&expected));
}

/// MCP 2025-03-26 allowed batches (its receivers must accept them): once the session
/// negotiated it, the proxy forwards a client's batch as a JSON-RPC one, whole and byte for
/// byte, its requests tracked, an invalid element (an `initialize`, which that version
/// forbids in a batch) reported and left to the server to answer in its array, which goes
/// back whole; the server's batch of requests reaches the client, and the client's array
/// answers it. The replay of the log agrees. Under 2025-06-18, which removed batches, a
/// batch is refused with -32600 and never reaches the server.
#[test]
fn the_proxy_forwards_mcp_batches_under_2025_03_26_only() {
    let batch = concat!(
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}},"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"},"#,
        r#"{"jsonrpc":"2.0","id":"two","method":"tools/list"}]"#,
    );
    let answers = concat!(
        r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"two","result":{"tools":[]}},"#,
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid Request"}}]"#
    );
    let asks = r#"[{"jsonrpc":"2.0","id":"s1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}]"#;
    let dir = scratch("mcp-2025-03-26-batch");
    let script = json!({"0": [{"send": initialize_reply("2025-03-26")}], "1": [{"send": answers}, {"send": asks}]});
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&initialize_request(0, "2025-03-26"));
    assert_eq!(p.recv()["result"]["protocolVersion"], "2025-03-26");
    p.send_raw(format!("{batch}\n").as_bytes());
    let answered = p.recv();
    assert_eq!(answered, serde_json::from_str::<Value>(answers).unwrap());
    assert_eq!(p.recv(), serde_json::from_str::<Value>(asks).unwrap());
    let reply = r#"[{"jsonrpc":"2.0","id":"s1","result":{}}]"#;
    p.send_raw(format!("{reply}\n").as_bytes());
    p.close_stdin();
    p.finish();
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    let expected = format!(
        "{}\n{batch}\n{reply}\n",
        initialize_request(0, "2025-03-26")
    );
    assert_eq!(server_in, expected);
    replayed_with_violations(&log, &[("c2s/invalid", 1)]);

    a_batch_is_refused_after(&scratch("mcp-2025-06-18-batch"), "2025-06-18");
}

/// In an MCP 2025-03-26 batch, a reply the proxy would not forward alone is cut from it: one
/// to no request the server sent (`unknown_reply`); the rest goes on, a cancellation of a
/// request answered already included. At `--timeout-ms` the batch gets one array of -32603s,
/// and each of its requests is cancelled on the server, as one sent alone is.
#[test]
fn an_mcp_batch_loses_what_mcp_would_not_forward_and_is_cancelled_when_it_times_out() {
    let dir = scratch("mcp-2025-03-26-batch-cut");
    let init = initialize_request(0, "2025-03-26");
    let script = json!({"0": [{"send": initialize_reply("2025-03-26")}]});
    let (mut p, log) = scripted(&dir, &["--timeout-ms", TIMEOUT_MS], script);
    // (The deadline runs from when the proxy reads a request: not before the server is up.)
    p.await_server_started();
    p.send(&init);
    assert_eq!(p.recv()["result"]["protocolVersion"], "2025-03-26");
    let unknown = r#"{"jsonrpc":"2.0","id":"never-asked","result":{}}"#;
    let cancels_init =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}"#;
    let (a, b) = (
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":"b","method":"ping"}"#,
    );
    p.send_raw(format!("[{a},{unknown},{cancels_init},{b}]\n").as_bytes());
    // Nothing answers: the batch times out.
    let answered = p.recv();
    let elements = answered.as_array().unwrap_or_else(|| panic!("{answered}"));
    let ids: Vec<_> = elements
        .iter()
        .map(|e| (e["id"].clone(), e["error"]["code"].clone()))
        .collect();
    assert_eq!(
        ids,
        [(json!("a"), json!(-32603)), (json!("b"), json!(-32603))],
        "{answered}"
    );
    for id in ["a", "b"] {
        await_recorded(&dir.join("server-in"), |m| {
            m["method"] == "notifications/cancelled" && m["params"]["requestId"] == id
        });
    }
    p.close_stdin();
    p.finish();
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    let lines: Vec<&str> = server_in.lines().collect();
    assert_eq!(lines[1], format!("[{a},{cancels_init},{b}]"), "{server_in}");
    assert_eq!(lines.len(), 4, "{server_in}");
    replayed_with_violations(&log, &[("c2s/unknown_reply", 1), ("c2s/timed_out", 2)]);
}

/// A dropped server array (it holds an invalid element) holding replies to two client
/// batches is answered in their place with one array for each batch, as one array answers
/// one batch (JSON-RPC 2.0 §6): not with one array for both, which fits neither. Under MCP
/// 2025-03-26 as under JSON-RPC.
#[test]
fn a_dropped_server_array_answering_two_batches_gets_an_array_for_each() {
    let dir = scratch("mcp-2025-03-26-dropped-two-batches");
    let init = initialize_request(0, "2025-03-26");
    let dropped =
        r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}},42]"#;
    let script = json!({"0": [{"send": initialize_reply("2025-03-26")}], "2": [{"send": dropped}]});
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&init);
    assert_eq!(p.recv()["result"]["protocolVersion"], "2025-03-26");
    // (Both batches in one write: the server reads both before it answers.)
    let batches = format!(
        "{}{}",
        String::from_utf8(batch_of(&[(json!(1), "ping"), (json!(2), "ping")])).unwrap(),
        String::from_utf8(batch_of(&[(json!(3), "ping"), (json!(4), "ping")])).unwrap()
    );
    p.send_raw(batches.as_bytes());
    for ids in [[1, 2], [3, 4]] {
        let answered = p.recv();
        let expected: Vec<(Value, Value)> =
            ids.iter().map(|&id| (json!(id), json!(-32603))).collect();
        let got: Vec<(Value, Value)> = ids_and_codes(&answered)
            .into_iter()
            .map(|(id, code)| (id.clone(), code.clone()))
            .collect();
        assert_eq!(got, expected, "{answered}");
    }
    p.close_stdin();
    p.finish();
    replayed_with_violations(&log, &[("s2c/invalid", 1)]);
}

/// Batches are MCP 2025-03-26's alone: a server naming a version that is none of its
/// revisions but sorts between 2025-03-26 and 2025-06-18 as text (`2025-03-26x`,
/// `2025-05-01`) negotiated no version with batches, so a client's batch is refused with
/// -32600 and never reaches the server, as under any other version. They were forwarded.
#[test]
fn no_mcp_batch_is_forwarded_under_a_version_that_only_sorts_like_2025_03_26() {
    for version in ["2025-03-26x", "2025-05-01"] {
        a_batch_is_refused_after(&scratch(&format!("mcp-batch-under-{version}")), version);
    }
}

/// An MCP 2025-03-26 batch element reusing an id the server may still answer (`duplicate_id`:
/// one in flight, or one timed out lately) goes on under a minted id, as a JSON-RPC one does:
/// the proxy answers no element itself (one sent alone is refused with -32600), and under the
/// client's id the server's replies to the two requests could not be told apart. Each reply
/// reaches the client once, with the client's id: a batch holding nothing but such an element
/// went neither to the server nor answered (the client waited for its array forever, a
/// timeout notwithstanding), and the second of two replies to one id was cut as unknown.
#[test]
fn an_mcp_batch_element_reusing_an_id_goes_on_under_a_minted_id() {
    let dir = scratch("mcp-2025-03-26-batch-duplicate");
    let log = dir.join("log.ndjson");
    let options = ["--log", log.to_str().unwrap(), "--timeout-ms", TIMEOUT_MS];
    let mut p = Proxy::echo(&options, &dir);
    p.await_server_started();
    p.send(&initialize_request(0, "2025-03-26"));
    assert_eq!(p.recv()["result"]["protocolVersion"], "2025-03-26");
    // "a" in flight (the server answers it in 0.5 s), then a batch reusing its id.
    p.send(&request(json!("a"), "slow"));
    p.send(&json!([request(json!("a"), "ping")]));
    let echo = |id: &str, method: &str| json!({"jsonrpc":"2.0","id":id,"result":{"echo":method}});
    assert_eq!(p.recv(), echo("a", "slow"));
    assert_eq!(p.recv(), json!([echo("a", "ping")]));
    // "b" times out in its batch, then a batch reuses it while its late reply may come.
    p.send(&json!([request(json!("b"), "noreply")]));
    let timed_out = p.recv();
    assert_eq!(timed_out[0]["error"]["code"], -32603, "{timed_out}");
    p.send(&json!([request(json!("b"), "ping")]));
    assert_eq!(p.recv(), json!([echo("b", "ping")]));
    p.finish_cleanly();
    // The server read each element under an id of the proxy's.
    let read = server_read(&dir);
    let batches: Vec<&Value> = read.iter().filter(|m| m.is_array()).collect();
    let ids: Vec<&Value> = batches.iter().map(|b| &b[0]["id"]).collect();
    assert_eq!(ids.len(), 3, "{read:?}");
    assert_eq!(ids[1], &json!("b"), "{read:?}");
    for minted in [ids[0], ids[2]] {
        assert!(minted != &json!("a") && minted != &json!("b"), "{read:?}");
    }
    replayed_with_violations(&log, &[("c2s/duplicate_id", 2), ("c2s/timed_out", 1)]);
}

/// A server's MCP 2025-03-26 batch element reusing the id of its request in flight goes on
/// and waits behind that request: the client's first reply with the id answers the first, its
/// second, in an array, the element, and both reach the server. (The element went untracked,
/// and the second reply was cut as an unknown one: the server never got it.)
#[test]
fn a_server_batch_element_reusing_an_id_gets_the_clients_second_reply() {
    let dir = scratch("mcp-server-batch-duplicate");
    let script = json!({"0": [
        {"send": initialize_reply("2025-03-26")},
        {"send": r#"{"jsonrpc":"2.0","id":"s","method":"roots/list"}"#},
        {"send": r#"[{"jsonrpc":"2.0","id":"s","method":"ping"}]"#},
    ]});
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&initialize_request(0, "2025-03-26"));
    assert_eq!(p.recv()["result"]["protocolVersion"], "2025-03-26");
    assert_eq!(p.recv()["method"], "roots/list");
    assert_eq!(p.recv()[0]["method"], "ping");
    let (first, second) = (
        r#"{"jsonrpc":"2.0","id":"s","result":{"roots":[]}}"#,
        r#"[{"jsonrpc":"2.0","id":"s","result":{}}]"#,
    );
    p.send_raw(format!("{first}\n{second}\n").as_bytes());
    await_recorded(&dir.join("server-in"), |m| m.is_array());
    p.close_stdin();
    p.finish();
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    let lines: Vec<&str> = server_in.lines().collect();
    assert_eq!(lines[1..], [first, second], "{server_in}");
    replayed_with_violations(&log, &[("s2c/duplicate_id", 1)]);
}

/// MCP 2026-07-28's `subscriptions/listen` waits as long as its stream is open (the server's
/// result closes it): no timeout applies to it, and the server is never told to cancel it. A
/// request sent beside it still times out. A change on the stream after its result is
/// flagged and forwarded.
#[test]
fn a_listen_stream_never_times_out() {
    let dir = scratch("listen-no-timeout");
    let stamp = json!({"io.modelcontextprotocol/subscriptionId": "listen-1"});
    let ack = json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",
        "params":{"_meta":stamp,"notifications":{"toolsListChanged":true}}});
    let changed = json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":stamp}});
    let script = json!({
        "0": [{"send": r#"{"jsonrpc":"2.0","id":0,"result":{}}"#}],
        "1": [{"send": ack.to_string()}],
        // (Line 3 is the proxy's cancellation of request 2.)
        "4": [
            {"send": changed.to_string()},
            {"send": r#"{"jsonrpc":"2.0","id":"listen-1","result":{}}"#},
            {"send": r#"{"jsonrpc":"2.0","id":3,"result":{}}"#},
            // On the stream its result closed: flagged, forwarded.
            {"send": changed.to_string()}
        ]
    });
    let (mut p, log) = scripted(&dir, &["--timeout-ms", TIMEOUT_MS], script);
    // (MCP's warm-up: a result is an object.)
    p.await_server_started();
    p.send(&request(json!(0), "warm-up"));
    assert_eq!(p.recv()["result"], json!({}));
    p.send(
        &json!({"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen",
        "params":{"notifications":{"toolsListChanged":true},
                  "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}),
    );
    assert_eq!(p.recv(), ack);
    p.send(&request(json!(2), "slow"));
    expect_timed_out(&mut p, 2);
    // The stream has been open for longer than the timeout by now; wait some more.
    thread::sleep(PAST_TIMEOUT);
    p.send(&request(json!(3), "close"));
    assert_eq!(p.recv(), changed);
    let closed = p.recv();
    assert_eq!(
        (&closed["id"], &closed["result"]),
        (&json!("listen-1"), &json!({}))
    );
    assert_eq!(p.recv()["id"], 3);
    assert_eq!(p.recv(), changed);
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.messages().len(), 7, "{:?}", done.messages());
    let expected = [("c2s/timed_out", 1), ("s2c/unknown_subscription", 1)];
    replayed_with_violations(&log, &expected);
    let (cancelled, server_in) = cancelled_on_server(&dir);
    assert_eq!(cancelled, [json!(2)], "{server_in}");
}

/// MCP 2026-07-28: a server's `notifications/cancelled` naming the client's listen request
/// tears its stream down (forwarded, no violation): a change on it afterwards is flagged, and
/// its result, late, is dropped. A server cancellation for any other purpose is flagged and
/// forwarded unchanged. The log's replay agrees.
#[test]
fn a_server_cancellation_tears_down_a_listen_stream() {
    let dir = scratch("listen-torn-down");
    let version = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let stamp = json!({"io.modelcontextprotocol/subscriptionId": "listen-1"});
    let ack = json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",
        "params":{"_meta":stamp,"notifications":{"toolsListChanged":true}}});
    let changed = json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":stamp}});
    let cancelled = |id: Value| json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id}});
    let script = json!({
        "0": [{"send": r#"{"jsonrpc":"2.0","id":0,"result":{}}"#}],
        "1": [
            {"send": ack.to_string()},
            {"send": cancelled(json!("listen-1")).to_string()},
            // On the stream the cancellation closed: flagged, forwarded.
            {"send": changed.to_string()},
            // Late: dropped.
            {"send": r#"{"jsonrpc":"2.0","id":"listen-1","result":{}}"#},
            // For no stream: forbidden, forwarded.
            {"send": cancelled(json!(0)).to_string()}
        ]
    });
    let (mut p, log) = scripted(&dir, &[], script);
    // The server accepts the version a request names: it is the session's.
    p.send(&json!({"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":version}}));
    assert_eq!(p.recv()["result"], json!({}));
    p.send(
        &json!({"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen",
        "params":{"notifications":{"toolsListChanged":true},"_meta":version}}),
    );
    assert_eq!(p.recv(), ack);
    assert_eq!(p.recv(), cancelled(json!("listen-1")));
    assert_eq!(p.recv(), changed);
    assert_eq!(p.recv(), cancelled(json!(0)));
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.messages().len(), 5, "{:?}", done.messages());
    let expected = [
        ("s2c/unknown_subscription", 1),
        ("s2c/late_reply", 1),
        ("s2c/forbidden_cancellation", 1),
    ];
    replayed_with_violations(&log, &expected);
}

/// MCP 2026-07-28 with no version known yet: the client's first request is a listen stream
/// naming 2026-07-28 in its `_meta`, so no reply has made that version the session's. The
/// server's `notifications/cancelled` naming it tears the stream down all the same (not read
/// as the server giving up on a request of its own): a change on it afterwards is flagged,
/// and its result, late, is dropped. The log's replay agrees.
#[test]
fn a_server_cancellation_tears_down_a_listen_stream_that_named_2026_07_28() {
    let dir = scratch("listen-torn-down-first");
    let version = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let stamp = json!({"io.modelcontextprotocol/subscriptionId": "listen-1"});
    let ack = json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",
        "params":{"_meta":stamp,"notifications":{"toolsListChanged":true}}});
    let changed = json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":stamp}});
    let cancelled = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"listen-1"}});
    let script = json!({
        "0": [
            {"send": ack.to_string()},
            {"send": cancelled.to_string()},
            // On the stream the cancellation closed: flagged, forwarded.
            {"send": changed.to_string()},
            // Late: dropped.
            {"send": r#"{"jsonrpc":"2.0","id":"listen-1","result":{}}"#}
        ]
    });
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(
        &json!({"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen",
        "params":{"notifications":{"toolsListChanged":true},"_meta":version}}),
    );
    assert_eq!(p.recv(), ack);
    assert_eq!(p.recv(), cancelled);
    assert_eq!(p.recv(), changed);
    p.close_stdin();
    let done = p.finish();
    assert_eq!(done.messages().len(), 3, "{:?}", done.messages());
    let expected = [("s2c/unknown_subscription", 1), ("s2c/late_reply", 1)];
    replayed_with_violations(&log, &expected);
}

/// A server that closes its stdout but runs on (as docs/cli.md says): the session goes on
/// until it exits. The proxy still forwards the client's messages (the server reads them) and
/// answers a request's timeout itself; the client's input ends only when the server exits,
/// and a request still waiting then is unanswered, logged at exit.
#[test]
fn a_server_closing_its_stdout_ends_the_session_only_when_it_exits() {
    let dir = scratch("server-stdout-closed");
    let script = json!({
        "0": [
            {"send": r#"{"jsonrpc":"2.0","id":0,"result":{}}"#},
            {"close_stdout": true}
        ],
        // Exits a while after its input ends.
        "eof": [{"sleep": 0.5}]
    });
    // (A timeout long enough for the server's first reply on a loaded machine: the ping
    // must be answered by the server, not timed out.)
    let (mut p, log) = scripted(&dir, &["--timeout-ms", "3000"], script);
    p.send(&request(json!(0), "ping"));
    let first = p.recv();
    assert_eq!(
        (&first["id"], &first["result"]),
        (&json!(0), &json!({})),
        "{first}"
    );
    p.send(&request(json!(1), "ping"));
    assert_eq!(expect_timed_out(&mut p, 1)["id"], 1);
    await_recorded(&dir.join("server-in"), |m| m["id"] == 1);
    // Sent as the client's input ends: left waiting when the server exits.
    p.send(&json!({"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"t"}}));
    let closed = Instant::now();
    p.close_stdin();
    let done = p.finish();
    assert!(
        closed.elapsed() >= Duration::from_millis(500),
        "after the exit"
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(
        done.stderr.contains("unanswered request 2 (tasks/result)"),
        "{}",
        done.stderr
    );
    let records = replayed_with_violations(&log, &[("c2s/timed_out", 1), ("c2s/unanswered", 1)]);
    let t_ms = |event: &str| {
        let record = records.iter().find(|r| r["event"] == event).unwrap();
        record["t_ms"].as_u64().unwrap()
    };
    assert!(t_ms("unanswered") >= t_ms("timeout") + 500, "{records:#?}");
}

/// The ids of the `notifications/cancelled` the scripted server read (it records its input in
/// `dir`), and that input, for a failure's message.
fn cancelled_on_server(dir: &std::path::Path) -> (Vec<Value>, String) {
    let server_in = std::fs::read_to_string(dir.join("server-in")).unwrap();
    let cancelled = server_in
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|m| m["method"] == "notifications/cancelled")
        .map(|m| m["params"]["requestId"].clone())
        .collect();
    (cancelled, server_in)
}

/// MCP 2026-07-28: a `tools/list` result listing a tool whose `x-mcp-header` annotations are
/// invalid (here on a `number` parameter), which its clients must drop, is flagged once,
/// naming the tool and why (on stderr and in the log's `invalid_tools`), and forwarded byte
/// for byte. Not flagged: a result whose tools are all valid, an error, a result whose
/// `tools` is no array or absent (not this check's business), and the same result in a
/// 2025-11-25 session, where `x-mcp-header` is an unknown keyword. The log replays alike.
#[test]
fn invalid_tool_headers_are_flagged_from_2026_07_28_and_forwarded_unchanged() {
    let good = json!({"name": "good", "inputSchema": {"type": "object", "properties":
        {"region": {"type": "string", "x-mcp-header": "Region"}}}});
    let bad = json!({"name": "bad", "inputSchema": {"type": "object", "properties":
        {"n": {"type": "number", "x-mcp-header": "N"}}}});
    let result = |id: u64, result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
    let listed = |id: u64, tools: Value| {
        result(id, json!({"tools": tools, "resultType": "complete"})).to_string()
    };
    let invalid = listed(1, json!([good, bad]));
    let reason = r#"tool "bad": x-mcp-header is on a parameter whose type is not string, integer or boolean (x-mcp-header "N" on property "n")"#;
    for version in ["2026-07-28", "2025-11-25"] {
        let flags = version == "2026-07-28";
        let dir = scratch(&format!("tool-headers-{version}"));
        // The server's lines, in the order it writes them (one per client line read), and
        // the client's requests. A 2026-07-28 client names its version in each request; an
        // earlier one negotiates it with `initialize`.
        let mut answers = vec![];
        let mut requests = vec![];
        if !flags {
            requests.push(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": version, "capabilities": {},
                           "clientInfo": {"name": "c", "version": "1"}}}));
            answers.push(Some(
                result(
                    0,
                    json!({"protocolVersion": version, "capabilities": {},
                                 "serverInfo": {"name": "s", "version": "1"}}),
                )
                .to_string(),
            ));
            requests.push(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            answers.push(None);
        }
        let malformed = [
            listed(2, json!([good])),
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"no tools"}}"#.into(),
            listed(4, json!({"bad": bad})),
            result(5, json!({"resultType": "complete"})).to_string(),
        ];
        for (id, answer) in (1..).zip([invalid.clone()].into_iter().chain(malformed)) {
            let meta = json!({"io.modelcontextprotocol/protocolVersion": version});
            let params = if flags {
                json!({"_meta": meta})
            } else {
                json!({})
            };
            requests.push(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list",
                "params": params}));
            answers.push(Some(answer));
        }
        let script: serde_json::Map<String, Value> = answers
            .iter()
            .enumerate()
            .filter_map(|(n, a)| a.as_ref().map(|a| (n.to_string(), json!([{"send": a}]))))
            .collect();
        let (mut p, log) = scripted(&dir, &[], Value::Object(script));
        for (request, answer) in requests.iter().zip(&answers) {
            p.send(request);
            if answer.is_some() {
                let got = p.recv();
                assert_eq!(got["id"], request["id"], "{version}: {got}");
            }
        }
        let done = p.finish_cleanly();
        // Every answer reached the client byte for byte, the flagged one too.
        let written: String = answers.iter().flatten().map(|a| format!("{a}\n")).collect();
        assert_eq!(
            String::from_utf8_lossy(&done.received),
            written,
            "{version}"
        );
        let line = format!(
            "rpcwire proxy: s2c: invalid_tool_headers (kind success_response, id 1): {reason}\n"
        );
        assert_eq!(
            done.stderr.contains(&line),
            flags,
            "{version}: {}",
            done.stderr
        );
        let expected: &[(&str, u64)] = if flags {
            &[("s2c/invalid_tool_headers", 1)]
        } else {
            &[]
        };
        let records = replayed_with_violations(&log, expected);
        // The tools and why, on the flagged reply's record only (the others are not read).
        let read: Vec<(&Value, &Value)> = records
            .iter()
            .filter(|r| r.get("invalid_tools").is_some())
            .map(|r| (&r["id"], &r["invalid_tools"]))
            .collect();
        if flags {
            assert_eq!(read, [(&json!("1"), &json!(reason))], "{version}");
        } else {
            assert_eq!(read, [], "{version}");
        }
    }
}

/// A small deterministic generator (xorshift64*) for random sessions.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// What the random server may still answer: a request (its id), or an invalid element (its
/// numeric id, when it has one).
#[derive(Clone, Copy)]
enum Answerable {
    Request(u64),
    Invalid(Option<u64>),
}

/// The server's reply to `item`: a result or an error for a request, a -32600 for an invalid
/// element (now and then a success instead, or a null id for one with an id).
fn random_reply(rng: &mut Rng, item: Answerable) -> String {
    match item {
        Answerable::Request(n) if rng.chance(80) => {
            format!(r#"{{"jsonrpc":"2.0","id":"r{n}","result":{n}}}"#)
        }
        Answerable::Request(n) => {
            format!(r#"{{"jsonrpc":"2.0","id":"r{n}","error":{{"code":-32601,"message":"no"}}}}"#)
        }
        Answerable::Invalid(Some(n)) if rng.chance(20) => {
            format!(r#"{{"jsonrpc":"2.0","id":{n},"result":1}}"#)
        }
        Answerable::Invalid(Some(n)) if rng.chance(80) => {
            format!(r#"{{"jsonrpc":"2.0","id":{n},"error":{{"code":-32600,"message":"bad"}}}}"#)
        }
        Answerable::Invalid(_) => {
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#.to_string()
        }
    }
}

/// One random JSON-RPC session after the warm-up: the client's lines (lone requests; batches
/// of requests, invalid elements with and without an id, notifications), each with a pause
/// before it (0 or `pause` ms), and the scripted server's answers, each thing answered at most
/// once, after it was read, sometimes late (a sleep of `sleep` s first), alone (not with a
/// null id) or inside arrays, in arrays the proxy drops (with `42` in them), or never. (The server's
/// error messages are not the proxy's: a reply the proxy made is told apart by its message.)
fn random_session(
    rng: &mut Rng,
    warm_up_reply: &str,
    pause: u64,
    sleep: f64,
) -> (Vec<(u64, String)>, Value) {
    let mut lines = vec![];
    let mut open: Vec<Answerable> = vec![];
    let mut script = serde_json::Map::new();
    script.insert("0".into(), json!([{ "send": warm_up_reply }]));
    let mut next_id = 0u64;
    for line in 1..=8 {
        let text = random_line(rng, &mut next_id, &mut open);
        lines.push((if rng.chance(50) { pause } else { 0 }, text));
        let steps = random_steps(rng, &mut open, sleep);
        script.insert(line.to_string(), steps);
    }
    (lines, Value::Object(script))
}

/// A client line of [`random_session`]: a lone request, or a batch of one to four elements
/// numbered from `next_id` on; what the server may answer of it joins `open`.
fn random_line(rng: &mut Rng, next_id: &mut u64, open: &mut Vec<Answerable>) -> String {
    let mut elements = vec![];
    for _ in 0..=rng.below(4) {
        *next_id += 1;
        let n = *next_id;
        match rng.below(10) {
            0..=5 => {
                elements.push(call(json!(format!("r{n}")), "m"));
                open.push(Answerable::Request(n));
            }
            6 | 7 => {
                let id = 1000 + n;
                elements.push(format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"m","params":1}}"#
                ));
                open.push(Answerable::Invalid(Some(id)));
            }
            8 => {
                elements.push("1".to_string());
                open.push(Answerable::Invalid(None));
            }
            _ => elements.push(r#"{"jsonrpc":"2.0","method":"note"}"#.to_string()),
        }
    }
    let lone_request = elements.len() == 1 && elements[0].contains("\"r");
    if lone_request && rng.chance(50) {
        elements.remove(0)
    } else {
        format!("[{}]", elements.join(","))
    }
}

/// What the server of [`random_session`] does after reading a line: sometimes a sleep of
/// `sleep` s, then up to two writes, each answering up to four things taken from `open`.
fn random_steps(rng: &mut Rng, open: &mut Vec<Answerable>, sleep: f64) -> Value {
    let mut steps = vec![];
    if rng.chance(30) {
        steps.push(json!({ "sleep": sleep }));
    }
    for _ in 0..rng.below(3) {
        if open.is_empty() {
            break;
        }
        let mut replies = vec![];
        // (A null-id reply alone answers a notification: §6 answers a batch in an array.)
        let mut alone = rng.chance(50);
        for _ in 0..=rng.below(3) {
            if open.is_empty() {
                break;
            }
            let item = open.swap_remove(rng.below(open.len() as u64) as usize);
            let reply = random_reply(rng, item);
            alone &= !reply.contains("\"id\":null");
            replies.push(reply);
        }
        let send = if replies.len() == 1 && alone {
            replies.remove(0)
        } else {
            if rng.chance(15) {
                replies.push("42".to_string());
            }
            format!("[{}]", replies.join(","))
        };
        steps.push(json!({ "send": send }));
    }
    Value::Array(steps)
}

/// How many replies the client got to each request and to each invalid element with an id
/// (by wire token: `"r1"`, `1001`).
fn replies_by_id(messages: &[Value]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for reply in messages
        .iter()
        .flat_map(|m| m.as_array().map_or(std::slice::from_ref(m), Vec::as_slice))
    {
        let is_reply = reply.get("result").is_some() || reply.get("error").is_some();
        if is_reply && !reply["id"].is_null() {
            *out.entry(reply["id"].to_string()).or_default() += 1;
        }
    }
    out
}

/// The client batches (`lines`, by index) that arrays made by the proxy answered, each array
/// once: a reply the proxy made is one with a message of its own.
fn batches_answered_by_proxy_arrays(lines: &[(u64, String)], messages: &[Value]) -> Vec<usize> {
    let proxy_made = |reply: &Value| {
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        [
            "Request timed out",
            "Internal error: invalid reply from server",
            "Invalid Request",
        ]
        .contains(&message)
    };
    let batch_of = |reply: &Value| {
        let token = format!("\"id\":{}", reply["id"]);
        lines
            .iter()
            .position(|(_, l)| l.starts_with('[') && l.contains(&token))
    };
    let mut out = vec![];
    for array in messages.iter().filter_map(Value::as_array) {
        let mut batches: Vec<usize> = array
            .iter()
            .filter(|r| proxy_made(r) && !r["id"].is_null())
            .filter_map(batch_of)
            .collect();
        batches.sort_unstable();
        batches.dedup();
        out.extend(batches);
    }
    out
}

/// Random JSON-RPC sessions with batches, invalid elements, late, dropped and missing replies,
/// with and without a timeout: the replay of each proxy log gives the live run's counters and
/// violations, the client never gets two replies to one request or invalid element, nor two
/// arrays from the proxy for one batch, and with a timeout every request gets a reply.
#[test]
fn random_batch_sessions_replay_alike() {
    random_batch_sessions(Dialect::JsonRpc2);
}

/// [`random_batch_sessions_replay_alike`] under MCP 2025-03-26, whose batches the proxy
/// forwards as JSON-RPC's but for MCP's rules (a reply nobody can match cut from its array, a
/// timed-out request cancelled on the server, whose reading of the cancellation moves its
/// script on a line: its replies may then come before the request, unknown).
#[test]
fn random_mcp_2025_03_26_batch_sessions_replay_alike() {
    random_batch_sessions(Dialect::Mcp);
}

/// The dialect of a random batch session: under MCP, it negotiates 2025-03-26 first.
#[derive(Clone, Copy)]
enum Dialect {
    JsonRpc2,
    Mcp,
}

/// Sixteen sessions of [`random_batch_session`], two at a time.
fn random_batch_sessions(dialect: Dialect) {
    // Two at a time, a proxy and a server each: the tests beside it time the proxy too.
    let threads: Vec<_> = (0..2u64)
        .map(|thread| {
            thread::spawn(move || {
                (1..=8)
                    .map(|n| random_batch_session(8 * thread + n, dialect))
                    .sum::<usize>()
            })
        })
        .collect();
    let proxy_arrays: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    // The check that no batch gets two arrays from the proxy has arrays to look at.
    assert!(proxy_arrays > 0, "no seed made the proxy answer a batch");
}

/// One session of [`random_batch_sessions_replay_alike`], from its seed; returns how many
/// batches the proxy answered with arrays of its own.
fn random_batch_session(seed: u64, dialect: Dialect) -> usize {
    let timeout = seed.is_multiple_of(2);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (pause, sleep) = if timeout { (250, 0.6) } else { (0, 0.0) };
    let warm_up_reply = match dialect {
        Dialect::JsonRpc2 => WARM_UP_REPLY.to_string(),
        Dialect::Mcp => initialize_reply("2025-03-26"),
    };
    let (lines, script) = random_session(&mut rng, &warm_up_reply, pause, sleep);
    let name = match dialect {
        Dialect::JsonRpc2 => "random-batches",
        Dialect::Mcp => "random-mcp-batches",
    };
    let dir = scratch(&format!("{name}-{seed}"));
    let options: &[&str] = if timeout {
        &["--timeout-ms", TIMEOUT_MS]
    } else {
        &[]
    };
    let (mut p, log) = match dialect {
        Dialect::JsonRpc2 => jsonrpc_scripted(&dir, options, script.clone()),
        Dialect::Mcp => scripted(&dir, options, script.clone()),
    };
    match dialect {
        Dialect::JsonRpc2 => warm_up(&mut p),
        Dialect::Mcp => {
            p.await_server_started();
            p.send(&initialize_request(0, "2025-03-26"));
            assert_eq!(p.recv()["result"]["protocolVersion"], "2025-03-26");
        }
    }
    for (pause, line) in &lines {
        thread::sleep(Duration::from_millis(*pause));
        p.send_raw(format!("{line}\n").as_bytes());
    }
    // Past every deadline: they run from when the proxy read each line.
    thread::sleep(if timeout {
        PAST_TIMEOUT
    } else {
        Duration::from_millis(500)
    });
    p.close_stdin();
    let done = p.finish();
    let got = done.messages();
    let context = format!("seed {seed}: {got:?}\n{lines:?}\n{script}");
    replayed_alike(&log);
    let replies = replies_by_id(&got);
    assert!(replies.values().all(|&n| n == 1), "{replies:?}: {context}");
    let mut batches = batches_answered_by_proxy_arrays(&lines, &got);
    let all = batches.len();
    batches.sort_unstable();
    batches.dedup();
    assert_eq!(batches.len(), all, "a batch got two arrays: {context}");
    let requests = (1..=8 * 4)
        .map(|n| format!("\"r{n}\""))
        .filter(|token| lines.iter().any(|(_, l)| l.contains(token)));
    for token in requests.filter(|_| timeout) {
        assert_eq!(replies.get(&token), Some(&1), "{token}: {context}");
    }
    if timeout {
        // One reply each (with an id or a null one) to the requests and invalid elements.
        let sent = lines.iter().map(|(_, l)| answerable(l)).sum::<usize>();
        assert_eq!(reply_count(&got), 1 + sent, "warm-up included: {context}");
    }
    all
}

/// How many requests and invalid elements a line of [`random_line`] holds: the elements
/// with an id, and those that are no object (its notifications have no id).
fn answerable(line: &str) -> usize {
    let line: Value = serde_json::from_str(line).unwrap();
    let elements = line
        .as_array()
        .map_or(std::slice::from_ref(&line), Vec::as_slice);
    elements
        .iter()
        .filter(|e| e.get("id").is_some() || !e.is_object())
        .count()
}

/// How many replies `messages` hold, arrays opened.
fn reply_count(messages: &[Value]) -> usize {
    messages
        .iter()
        .flat_map(|m| m.as_array().map_or(std::slice::from_ref(m), Vec::as_slice))
        .filter(|r| r.get("result").is_some() || r.get("error").is_some())
        .count()
}

/// A batch travels byte for byte, rewritten only to cut late replies: a malformed response
/// inside a client batch that also holds a request goes on with it (it is reported, as
/// `invalid_response`, not cut).
#[test]
fn a_client_batch_with_a_malformed_response_travels_whole() {
    let dir = scratch("batch-malformed-response");
    let (mut p, log) = jsonrpc_echo(&dir, &[]);
    let malformed = r#"{"jsonrpc":"2.0","id":"x","result":1,"error":{"code":1,"message":"m"}}"#;
    p.send_raw(format!("[{},{malformed}]\n", call(json!(1), "a")).as_bytes());
    let reply = p.recv();
    assert_eq!(reply[0]["id"], 1, "{reply}");
    p.close_stdin();
    let done = p.finish();
    server_read_what_the_client_sent(&dir, &done);
    replayed_with_violations(&log, &[("c2s/invalid_response", 1)]);
}

/// A client that closed the read end of the proxy's stderr: what the proxy would say there
/// is lost, and nothing else (it panicked on the first violation it printed, leaving the
/// client without the reply, the valid request after it never forwarded, the client hung).
#[test]
fn a_closed_stderr_loses_the_reports_only() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = Command::new(BIN)
        .args([
            "proxy",
            "--stats-every",
            "1",
            "--",
            "python3",
            &echo_server(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(writer)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"garbage\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .unwrap();
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let next = || -> Value {
        serde_json::from_str(&rx.recv_timeout(WAIT).expect("a line in time")).unwrap()
    };
    assert_eq!(next()["error"]["code"], -32700);
    assert_eq!(next()["id"], 1);
    // The counters, every second, go nowhere too.
    thread::sleep(Duration::from_millis(1500));
    drop(stdin);
    assert_eq!(next()["method"], "notifications/stdin_closed");
    let deadline = Instant::now() + WAIT;
    let status = wait_exit(&mut child, deadline);
    assert_eq!(status.code(), Some(0), "the server's status, not a panic's");
}

/// `--stats-every` puts the counters in the log as they are printed, for whoever follows the
/// log during the session (they stayed in the log's buffer until the proxy exited).
#[test]
fn periodic_counters_reach_the_log_file_during_the_session() {
    let dir = scratch("stats-in-log");
    let log = dir.join("log.ndjson");
    let mut p = Proxy::echo(
        &["--stats-every", "1", "--log", log.to_str().unwrap()],
        &dir,
    );
    p.send(&request(json!(1), "ping"));
    assert_eq!(p.recv()["id"], 1);
    let deadline = Instant::now() + WAIT;
    let stats = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let found = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            // Counters taken once the reply was seen: a line of them may come between the
            // request and its reply, when the server is slow to answer.
            .find(|r| r["stats"]["messages"]["s2c/success_response"] == 1);
        if let Some(stats) = found {
            break stats;
        }
        assert!(
            Instant::now() < deadline,
            "no stats after the reply in the log: {text}"
        );
        thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(stats["stats"]["requests_by_method"]["c2s/ping"], 1);
    // The records before them are in the log too, the reply's among them.
    let log_now = read_log(&log);
    assert!(log_now.iter().any(|r| r["kind"] == "success_response"));
    p.finish_cleanly();
}

/// `--stats-every` with a stderr nobody drains (a pipe already full): the counters' line
/// waits for stderr without holding the session's lock, so the proxy goes on forwarding both
/// ways (it stalled both directions from the first tick, the line written under the lock).
/// The counters are in the log meanwhile, and the line reaches stderr once it is read.
#[test]
fn a_stderr_nobody_drains_does_not_stall_forwarding_with_stats_every() {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let dir = scratch("stats-stderr-full");
    let log = dir.join("log.ndjson");
    let (reader, mut writer) = std::io::pipe().unwrap();
    // Full: written to without blocking until it takes no more.
    fcntl(&writer, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).unwrap();
    let filler = [b'.'; 4096];
    let mut filled = 0;
    loop {
        match writer.write(&filler) {
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) => panic!("filling the pipe: {e}"),
        }
    }
    fcntl(&writer, FcntlArg::F_SETFL(OFlag::empty())).unwrap();
    assert!(filled > 0);
    let (drain, drained) = read_when_told(reader);
    let mut p = Proxy::spawn_with_stderr(
        &["--stats-every", "1", "--log", log.to_str().unwrap()],
        &["python3", &echo_server()],
        writer.into(),
        Some(drained),
    );
    // Past the first tick, its counters in the log: its line waits for stderr. (Waited for,
    // not slept: a loaded machine may start the proxy's clock late.)
    let deadline = Instant::now() + WAIT;
    let counted = || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .any(|r| r.get("stats").is_some())
    };
    while !counted() {
        assert!(Instant::now() < deadline, "no counters in the log in time");
        thread::sleep(Duration::from_millis(50));
    }
    for id in 1..=2 {
        p.send(&request(json!(id), "ping"));
        assert_eq!(p.recv()["id"], id, "forwarded both ways");
    }
    let logged = read_log(&log);
    assert!(
        logged.iter().any(|r| r.get("stats").is_some()),
        "{logged:?}"
    );
    drain.send(()).unwrap();
    let done = p.finish_cleanly();
    let stderr = done.stderr.trim_start_matches('.');
    assert!(stderr.contains("rpcwire proxy: stats: "), "{stderr}");
    assert!(stderr.contains("rpcwire proxy: summary: "), "{stderr}");
}

/// The number in each `not_json` report of a line `not json NNNNN …` on `stderr`, in the
/// order printed, and the reports counted as dropped (the sum of the `N reports dropped`
/// lines).
fn not_json_reports(stderr: &str) -> (Vec<usize>, usize) {
    let mut printed = vec![];
    let mut dropped = 0;
    for line in stderr.lines() {
        if line.starts_with("rpcwire proxy: c2s: not_json ") {
            let (_, rest) = line.split_once(": not json ").expect("the line shown");
            printed.push(rest[..5].parse().unwrap());
        } else if let Some(rest) = line.strip_prefix("rpcwire proxy: ") {
            if let Some(n) = rest.strip_suffix(" reports dropped: stderr was not keeping up") {
                dropped += n.parse::<usize>().unwrap();
            } else if rest == "1 report dropped: stderr was not keeping up" {
                dropped += 1;
            }
        }
    }
    (printed, dropped)
}

/// Reads `reader` (a proxy's stderr) to its end once told to by the sender returned, not
/// before: a stderr nobody reads meanwhile.
fn read_when_told(
    mut reader: std::io::PipeReader,
) -> (mpsc::Sender<()>, thread::JoinHandle<String>) {
    let (drain, drain_now) = mpsc::channel::<()>();
    let drained = thread::spawn(move || {
        let _ = drain_now.recv();
        let mut s = String::new();
        let _ = reader.read_to_string(&mut s);
        s
    });
    (drain, drained)
}

/// A proxy in front of the echo server whose stderr is a pipe nobody reads until the sender
/// returned is sent to ([`read_when_told`]).
fn echo_proxy_with_stderr_held() -> (Proxy, mpsc::Sender<()>) {
    let (reader, writer) = std::io::pipe().unwrap();
    let (drain, drained) = read_when_told(reader);
    let p = Proxy::spawn_with_stderr(
        &[],
        &["python3", &echo_server()],
        writer.into(),
        Some(drained),
    );
    (p, drain)
}

/// Reads `reader` (a proxy's stderr) to its end slowly but steadily: 4 KiB every 25 ms.
fn read_slowly(mut reader: std::io::PipeReader) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut all = vec![];
        let mut piece = [0u8; 4096];
        loop {
            match reader.read(&mut piece) {
                Ok(0) | Err(_) => break,
                Ok(n) => all.extend_from_slice(&piece[..n]),
            }
            thread::sleep(Duration::from_millis(25));
        }
        String::from_utf8(all).unwrap()
    })
}

/// Sends `bad` lines that are not JSON (`not json NNNNN` and some padding, each reported on
/// stderr), then a ping, from a thread of its own (a proxy stalled on its stderr stops
/// reading its stdin), and waits for the ping's reply, at most 60 s: a hang fails the test
/// (killing the proxy). Checks the client got a -32700 for each line before; leaves stdin
/// open.
fn bad_lines_then_a_ping(p: &mut Proxy, bad: usize) {
    let mut stdin = p.stdin.take().expect("stdin open");
    let mut bytes = vec![];
    for i in 0..bad {
        writeln!(bytes, "not json {i:05} {}", "x".repeat(100)).unwrap();
    }
    writeln!(bytes, "{}", request(json!(1), "ping")).unwrap();
    p.sent.extend_from_slice(&bytes);
    let writing = thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
        stdin
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut parse_errors = 0;
    let reply = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = p.lines.recv_timeout(left) else {
            let _ = p.child.kill();
            panic!(
                "no reply to the ping in 60 s: the proxy hung ({parse_errors} -32700 replies came)"
            );
        };
        p.received.extend_from_slice(&line);
        let reply: Value = serde_json::from_slice(&line).unwrap();
        if reply["id"] == 1 {
            break reply;
        }
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
        parse_errors += 1;
    };
    assert_eq!(reply["result"]["echo"], "ping", "{reply}");
    assert_eq!(parse_errors, bad);
    p.stdin = Some(writing.join().unwrap());
}

/// A client that pipes the proxy's stderr and never reads it (the pipe fills at 64 KiB): the
/// reports wait in a queue of their own, and once it is full they are dropped and counted, so
/// the forwarding goes on (it blocked writing a report to the full pipe, and the whole session
/// hung). Once stderr is read, each report is there or counted in a `reports dropped` line,
/// the printed ones in order, and the summary comes last.
#[test]
fn a_stderr_nobody_reads_drops_reports_and_never_stalls_forwarding() {
    // About 140 bytes a report: some 700 KB, more than ten times a pipe's 64 KiB, and more
    // than the queue's 4,096 lines with what the pipe holds.
    const BAD: usize = 5000;
    let (mut p, drain) = echo_proxy_with_stderr_held();
    bad_lines_then_a_ping(&mut p, BAD);
    drain.send(()).unwrap();
    let done = p.finish_cleanly();
    let (printed, dropped) = not_json_reports(&done.stderr);
    assert!(dropped > 0, "no reports dropped line: {}", done.stderr);
    assert_eq!(printed.len() + dropped, BAD, "{}", done.stderr);
    assert!(printed.is_sorted(), "{}", done.stderr);
    let last = done.stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("rpcwire proxy: summary: "), "{last}");
    assert!(last.contains(&format!("\"c2s/not_json\":{BAD}")), "{last}");
}

/// A stderr nobody ever reads does not keep the proxy from exiting either: once the session
/// is over, the proxy waits for stderr to take its last lines only while it takes some (2 s
/// without any, and it exits without them), with the server's status.
#[test]
fn a_stderr_nobody_ever_reads_does_not_keep_the_proxy_from_exiting() {
    const BAD: usize = 5000;
    let (mut p, drain) = echo_proxy_with_stderr_held();
    bad_lines_then_a_ping(&mut p, BAD);
    p.close_stdin();
    // Not read until the proxy has exited.
    let status = wait_exit(&mut p.child, Instant::now() + WAIT);
    drain.send(()).unwrap();
    let done = p.finish();
    assert_eq!(status.code(), Some(0), "{}", done.stderr);
    // What the pipe took is whole lines of reports, in order; the summary did not fit.
    let (printed, _) = not_json_reports(&done.stderr);
    assert!(
        !printed.is_empty() && printed.is_sorted(),
        "{}",
        done.stderr
    );
    assert!(!done.stderr.contains("summary"), "{}", done.stderr);
}

/// A reader that keeps up gets every report, in order, and no `reports dropped` line: fewer
/// reports than the queue holds (4,096 lines) never fill it, however slow stderr is.
#[test]
fn a_stderr_read_as_it_comes_gets_every_report_in_order() {
    const BAD: usize = 3000;
    let mut p = Proxy::spawn(&[], &["python3", &echo_server()]);
    bad_lines_then_a_ping(&mut p, BAD);
    let done = p.finish_cleanly();
    let (printed, dropped) = not_json_reports(&done.stderr);
    assert_eq!(printed, (0..BAD).collect::<Vec<_>>(), "{}", done.stderr);
    assert_eq!(dropped, 0, "{}", done.stderr);
    assert!(!done.stderr.contains("dropped"), "{}", done.stderr);
    let last = done.stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("rpcwire proxy: summary: "), "{last}");
}

/// Every field a message's record in the `--log` file can carry is named where `--help`
/// describes the log (a batch dropped whole carries `dropped`, which it did not name; an MCP
/// task-augmented request `task_augmented`, a message telling of a task `task` and
/// `task_ended`, which it did not name either).
#[test]
fn every_field_of_a_log_record_is_documented() {
    let out = Command::new(BIN)
        .args(["proxy", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let at = help.find("  --log <FILE>").unwrap();
    let end = help[at..].find("  --stats-every").unwrap();
    let described = &help[at..at + end];
    let dir = scratch("log-fields");
    // A server batch with an invalid element (dropped whole), and a batch from the client.
    let script = json!({"0": [{"send": "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1},42]"}]});
    let (mut p, log) = jsonrpc_scripted(&dir, &["--timeout-ms", "100"], script);
    p.send_raw(&batch_of(&[(json!(1), "ping"), (json!(2), "ping")]));
    p.recv();
    p.close_stdin();
    p.finish();
    let mut records = read_log(&log);
    // An MCP task-augmented request, its `CreateTaskResult` and the task's end.
    let dir = scratch("log-fields-task");
    let created = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t-1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}}}"#;
    let completed = r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}}"#;
    let script = json!({"0": [{"send": created}, {"send": completed}]});
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","task":{"ttl":60000},"_meta":{"progressToken":"p"}}}));
    p.recv();
    p.recv();
    p.close_stdin();
    p.finish();
    records.extend(read_log(&log));
    let mut fields = std::collections::BTreeSet::new();
    for r in records.iter().filter(|r| r.get("kind").is_some()) {
        fields.extend(r.as_object().unwrap().keys().cloned());
    }
    for expected in ["dropped", "task_augmented", "task", "task_ended"] {
        assert!(fields.contains(expected), "{expected} not in {records:#?}");
    }
    for field in fields {
        assert!(
            described.contains(&field),
            "{field} missing from:\n{described}"
        );
    }
}

/// Every field of the log's records that are not messages (the header, the events, the
/// counters of the summary) is named in docs/cli.md's `rpcwire proxy` section (the events' and
/// the counters' fields were not).
#[test]
fn every_field_of_a_logs_other_records_is_documented() {
    let described = cli_reference::section("## `rpcwire proxy`");
    let dir = scratch("log-other-fields");
    let (mut p, log) = jsonrpc_echo(&dir, &["--timeout-ms", "100"]);
    // A batch the server answers late, with an invalid element: at its timeout the proxy
    // answers both, a `timeout` and an `owed_answered` event; and a request reusing the id of
    // the batch's request while it is in flight, under a minted id, never answered. (Sent
    // before the timeout, not after it: a request reusing a timed-out id gets a minted id only
    // until the late reply comes, half a second on, and a loaded machine may take that long.)
    p.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"slow\"},1]\n");
    p.send(&request(json!(1), "noreply"));
    for _ in 0..2 {
        p.recv();
    }
    p.close_stdin();
    p.finish();
    let records = read_log(&log);
    let mut fields = std::collections::BTreeSet::new();
    for r in records.iter().filter(|r| r.get("kind").is_none()) {
        for (key, value) in r.as_object().unwrap() {
            fields.insert(key.clone());
            if let Some(inner) = value.as_object().filter(|_| key != "stats") {
                fields.extend(inner.keys().cloned());
            }
        }
    }
    for expected in [
        "owed_answered",
        "upstream_id",
        "requests_by_method",
        "total_violations",
    ] {
        let seen = fields.contains(expected) || records.iter().any(|r| r["event"] == expected);
        assert!(seen, "{expected} not in {records:#?}");
    }
    for field in fields {
        assert!(
            described.contains(&format!("`{field}`"))
                || described.contains(&format!("\"{field}\"")),
            "{field} missing from docs/cli.md's `rpcwire proxy`"
        );
    }
}

/// A log record's `protocol_version` is that of the reply to `initialize` (or of a request's
/// `_meta`), as documented: not the `protocolVersion` member of any other result that comes
/// while the reply to `initialize` is awaited, nor of a client's result (those were recorded,
/// though the session never took them for the version).
#[test]
fn only_the_reply_to_initialize_records_a_protocol_version() {
    let dir = scratch("version-of-initialize-only");
    let script = json!({
        "1": [
            {"send": "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2024-11-05\"}}"},
            {"send": "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"roots/list\"}"}
        ],
        "2": [
            {"send": "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}"}
        ]
    });
    let (mut p, log) = scripted(&dir, &[], script);
    p.send(&initialize_request(0, "2025-11-25"));
    p.send(&request(json!(1), "ping"));
    assert_eq!(p.recv()["id"], 1);
    assert_eq!(p.recv()["id"], "s");
    p.send(&json!({"jsonrpc":"2.0","id":"s","result":{"roots":[],"protocolVersion":"2025-03-26"}}));
    assert_eq!(p.recv()["id"], 0);
    p.finish_cleanly();
    let versions: Vec<(String, String, Value)> = read_log(&log)
        .iter()
        .filter(|r| r["kind"] == "success_response")
        .map(|r| {
            let dir = r["dir"].as_str().unwrap().to_owned();
            let id = r["id"].as_str().unwrap().to_owned();
            (dir, id, r["protocol_version"].clone())
        })
        .collect();
    assert_eq!(
        versions,
        [
            ("s2c".into(), "1".into(), Value::Null),
            ("c2s".into(), "\"s\"".into(), Value::Null),
            ("s2c".into(), "0".into(), json!("2025-11-25")),
        ]
    );
}

/// What stderr shows of a bad line is one line of text: a carriage return in it (a line end
/// to a universal-newline reader, which read one report as two) and other control characters
/// (a terminal's escape sequences, from a peer, raw or in a method name decoded) are shown
/// escaped.
#[test]
fn stderr_shows_control_characters_of_a_bad_line_escaped() {
    let mut p = Proxy::spawn(&[], &["sh", "-c", "cat >/dev/null"]);
    p.send_raw(b"not json\rstill\x1b[31m red\x07\n");
    assert_eq!(p.recv()["error"]["code"], -32700);
    // A method name is decoded: its escapes are control characters again.
    p.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"m\\u001b[2J\"}\n");
    let done = p.finish_cleanly();
    assert!(
        done.stderr.contains(r"unanswered request 9 (m\x1b[2J)"),
        "{:?}",
        done.stderr
    );
    let report = done
        .stderr
        .lines()
        .find(|l| l.contains("not_json"))
        .unwrap_or_else(|| panic!("{}", done.stderr));
    assert!(
        !done.stderr.contains(['\r', '\x1b', '\x07']),
        "{:?}",
        done.stderr
    );
    assert!(
        report.ends_with(r"not json\rstill\x1b[31m red\x07 [not forwarded]"),
        "{report:?}"
    );
    // Where the line stops being JSON: its second byte (`n` may begin `null`).
    assert!(
        report.contains("(kind parse_error, id -, at byte 1)"),
        "{report:?}"
    );
}

/// The server of tests/servers/late_reply.py behind a JSON-RPC proxy with `options`, logging
/// to `dir/log.ndjson` and recording what it reads in `dir/server-in`; warmed up (it answers
/// a request with its method as the result, except `hold`, which it answers late).
fn late_reply_server(dir: &std::path::Path, options: &[&str]) -> (Proxy, PathBuf) {
    let log = dir.join("log.ndjson");
    let mut all = vec!["--dialect", "jsonrpc", "--log", log.to_str().unwrap()];
    all.extend_from_slice(options);
    let server = format!("{}/tests/servers/late_reply.py", env!("CARGO_MANIFEST_DIR"));
    let record = dir.join("server-in");
    let mut p = Proxy::spawn(
        &all,
        &["python3", &server, "--record-in", record.to_str().unwrap()],
    );
    p.started = Some(record);
    p.await_server_started();
    p.send(&request(json!(0), "warm-up"));
    assert_eq!(p.recv(), json!({"jsonrpc":"2.0","id":0,"result":"warm-up"}));
    (p, log)
}

/// Sends a request `hold` with `id`, which `late_reply.py` leaves unanswered, and waits for
/// the proxy's timeout reply to it (the server's late reply then comes with its next answer).
fn hold_until_timed_out(p: &mut Proxy, id: i64) {
    p.send(&request(json!(id), "hold"));
    expect_timed_out(p, id);
}

/// The next line the client reads is the proxy's -32603 for its request `id`, timed out; it
/// is returned for further checks.
fn expect_timed_out(p: &mut Proxy, id: impl Into<Value>) -> Value {
    let id: Value = id.into();
    let timed_out = p.recv();
    assert_eq!(
        (&timed_out["id"], &timed_out["error"]["code"]),
        (&id, &json!(-32603)),
        "{timed_out}"
    );
    timed_out
}

/// The requests the server read (dir/server-in), parsed.
fn server_read(dir: &std::path::Path) -> Vec<Value> {
    std::fs::read(dir.join("server-in"))
        .unwrap()
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// JSON-RPC: a client reusing the id of a request that timed out gets the server's reply to
/// its new request, never the late reply to the old one. The proxy forwards the new request
/// under an id it mints and restores the client's on the reply, byte for byte; the late reply
/// keeps the old id, and is dropped as late.
#[test]
fn a_jsonrpc_id_reused_after_its_timeout_gets_its_own_reply_not_the_late_one() {
    let dir = scratch("jsonrpc-reused-after-timeout");
    let (mut p, log) = late_reply_server(&dir, &["--timeout-ms", TIMEOUT_MS]);
    hold_until_timed_out(&mut p, 7);
    p.send(&request(json!(7), "again"));
    let reply = p.recv();
    assert_eq!(reply, json!({"jsonrpc":"2.0","id":7,"result":"again"}));
    let done = p.finish_cleanly();
    assert_eq!(
        done.messages().len(),
        3,
        "nothing more: {:?}",
        done.messages()
    );
    // The server read the new request under another id than the client's.
    let read = server_read(&dir);
    let upstream = &read[2]["id"];
    assert_eq!(read[2]["method"], "again");
    assert_ne!(upstream, &json!(7));
    let records = replayed_with_violations(
        &log,
        &[
            ("c2s/duplicate_id", 1),
            ("c2s/timed_out", 1),
            ("s2c/late_reply", 1),
        ],
    );
    // The log shows each message with the id it came with, and the id it went on with.
    let again = flagged(&records, "duplicate_id")[0];
    assert_eq!(
        (&again["id"], &again["method"]),
        (&json!("7"), &json!("again"))
    );
    assert_eq!(again["upstream_id"], json!(upstream.to_string()));
    let late = flagged(&records, "late_reply")[0];
    assert_eq!(late["id"], "7");
    let answer = records
        .iter()
        .find(|r| r["dir"] == "s2c" && r["client_id"] == "7")
        .unwrap_or_else(|| panic!("the restored reply: {records:#?}"));
    assert_eq!(answer["id"], json!(upstream.to_string()));
}

/// JSON-RPC: the same inside a batch. A batch element reusing the id of a request that timed
/// out goes to the server under a minted id (the batch rebuilt, its other elements byte for
/// byte), and the server's array comes back with the client's id restored: the client gets
/// its reply, never the late reply to the old request (which took the element's place while
/// the batch went on as it was).
#[test]
fn a_jsonrpc_id_reused_in_a_batch_after_its_timeout_gets_its_own_reply_not_the_late_one() {
    let dir = scratch("jsonrpc-reused-in-batch-after-timeout");
    let (mut p, log) = late_reply_server(&dir, &["--timeout-ms", TIMEOUT_MS]);
    hold_until_timed_out(&mut p, 7);
    p.send_raw(
        b"[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"again\"}, {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"other\"}]\n",
    );
    let reply = p.recv();
    assert_eq!(
        reply,
        json!([
            {"jsonrpc":"2.0","id":7,"result":"again"},
            {"jsonrpc":"2.0","id":8,"result":"other"}
        ])
    );
    let done = p.finish_cleanly();
    assert_eq!(
        done.messages().len(),
        3,
        "nothing more: {:?}",
        done.messages()
    );
    // The server read the element under another id than the client's, the other as it was.
    let read = server_read(&dir);
    let upstream = &read[2][0]["id"];
    assert_eq!(read[2][0]["method"], "again");
    assert!(upstream.is_u64() && upstream != &json!(7), "{upstream}");
    assert_eq!(read[2][1], request(json!(8), "other"));
    let records = replayed_with_violations(
        &log,
        &[
            ("c2s/duplicate_id", 1),
            ("c2s/timed_out", 1),
            ("s2c/late_reply", 1),
        ],
    );
    // The element's records show the id it came with, and the id it went on with.
    let again = flagged(&records, "duplicate_id")[0];
    assert_eq!((&again["id"], &again["element"]), (&json!("7"), &json!(0)));
    assert_eq!(again["upstream_id"], json!(upstream.to_string()));
    let answer = records
        .iter()
        .find(|r| r["dir"] == "s2c" && r["client_id"] == "7")
        .unwrap_or_else(|| panic!("the restored reply: {records:#?}"));
    assert_eq!(
        (&answer["id"], &answer["element"]),
        (&json!(upstream.to_string()), &json!(0))
    );
}

/// JSON-RPC: a batch element reusing the id of a request sent alone and still in flight goes
/// on under a minted id and is tracked: the server's reply to the first answers the first,
/// its array answers the element, with the client's id restored, and nothing is unknown or
/// left unanswered.
#[test]
fn a_jsonrpc_id_in_flight_reused_in_a_batch_is_tracked_under_a_minted_id() {
    let dir = scratch("jsonrpc-in-flight-reused-in-batch");
    let (mut p, log) = late_reply_server(&dir, &[]);
    p.send(&request(json!(5), "hold"));
    p.send(&json!([request(json!(5), "now")]));
    assert_eq!(p.recv(), json!({"jsonrpc":"2.0","id":5,"result":"late"}));
    assert_eq!(p.recv(), json!([{"jsonrpc":"2.0","id":5,"result":"now"}]));
    p.finish_cleanly();
    let read = server_read(&dir);
    assert_ne!(read[2][0]["id"], json!(5), "{read:?}");
    replayed_with_violations(&log, &[("c2s/duplicate_id", 1)]);
}

/// JSON-RPC: a batch element beyond `--max-in-flight` goes with its batch untracked, under a
/// minted id when a request sent alone holds the client's. The server's array reply to it
/// answers the element (back with the client's id), never the request sent alone, which keeps
/// waiting and gets the proxy's -32603 at its deadline (it was taken as answered, its deadline
/// gone: the client waited for it forever).
#[test]
fn an_untracked_batch_element_reusing_an_id_sent_alone_does_not_answer_it() {
    let dir = scratch("untracked-element-reusing-alone-id");
    let options = ["--max-in-flight", "1", "--timeout-ms", TIMEOUT_MS];
    let (mut p, log) = late_reply_server(&dir, &options);
    p.send(&request(json!(5), "never"));
    p.send(&json!([request(json!(5), "b")]));
    assert_eq!(p.recv(), json!([{"jsonrpc":"2.0","id":5,"result":"b"}]));
    let timed_out = expect_timed_out(&mut p, 5);
    assert_eq!(timed_out["error"]["data"]["method"], "never", "{timed_out}");
    p.finish_cleanly();
    let read = server_read(&dir);
    assert_ne!(read[2][0]["id"], json!(5), "{read:?}");
    replayed_with_violations(&log, &[("c2s/too_many_in_flight", 1), ("c2s/timed_out", 1)]);
}

/// JSON-RPC: a batch element beyond `--max-in-flight` reusing the id of a request that timed
/// out goes with its batch untracked, but under a minted id: the server's reply to it, inside
/// its array, goes back with the client's id, and the late reply to the old request is still
/// dropped as late. (Under the client's id, its reply was taken for the late one and cut: the
/// client never got a reply for that element.)
#[test]
fn an_untracked_batch_element_reusing_a_timed_out_id_gets_its_own_reply() {
    let dir = scratch("untracked-element-reusing-timed-out-id");
    let options = ["--max-in-flight", "1", "--timeout-ms", TIMEOUT_MS];
    let (mut p, log) = late_reply_server(&dir, &options);
    hold_until_timed_out(&mut p, 7);
    // 9 takes the one place in flight; 7 goes beyond it.
    p.send(&json!([
        request(json!(9), "hold"),
        request(json!(7), "again")
    ]));
    // The server answers the held 7 (late, dropped) and 9 alone, then its array.
    assert_eq!(p.recv(), json!({"jsonrpc":"2.0","id":9,"result":"late"}));
    assert_eq!(p.recv(), json!([{"jsonrpc":"2.0","id":7,"result":"again"}]));
    let done = p.finish_cleanly();
    assert_eq!(
        done.messages().len(),
        4,
        "nothing more: {:?}",
        done.messages()
    );
    // The server read the element under another id than the client's, the other as it was.
    let read = server_read(&dir);
    let upstream = &read[2][1]["id"];
    assert_eq!(read[2][1]["method"], "again");
    assert!(upstream.is_u64() && upstream != &json!(7), "{upstream}");
    assert_eq!(read[2][0], request(json!(9), "hold"));
    // Its reply is the element's (kept, though beyond the limit), and goes back as 7.
    let records = replayed_with_violations(
        &log,
        &[
            ("c2s/timed_out", 1),
            ("c2s/too_many_in_flight", 1),
            ("s2c/late_reply", 1),
        ],
    );
    let element = flagged(&records, "too_many_in_flight")[0];
    assert_eq!(
        (&element["id"], &element["upstream_id"]),
        (&json!("7"), &json!(upstream.to_string()))
    );
    let answer = records
        .iter()
        .find(|r| r["dir"] == "s2c" && r["id"] == json!(upstream.to_string()))
        .expect("the element's reply");
    assert_eq!(
        (&answer["client_id"], &answer["violation"]),
        (&json!("7"), &Value::Null)
    );
}

/// JSON-RPC: a batch element beyond `--max-in-flight` reusing the id of a request waiting in
/// another batch goes on under a minted id: the server's reply to it does not answer that
/// request, which keeps waiting and gets the proxy's -32603 at its batch's deadline. (Under
/// the client's id, the reply took that request as answered: its deadline was gone, and the
/// client waited for it forever.)
#[test]
fn an_untracked_batch_element_reusing_an_id_of_another_batch_does_not_answer_it() {
    let dir = scratch("untracked-element-reusing-batch-id");
    let options = ["--max-in-flight", "1", "--timeout-ms", TIMEOUT_MS];
    let (mut p, log) = late_reply_server(&dir, &options);
    p.send(&json!([request(json!(5), "never")]));
    p.send(&json!([request(json!(5), "b")]));
    assert_eq!(p.recv(), json!([{"jsonrpc":"2.0","id":5,"result":"b"}]));
    let timed_out = p.recv();
    assert_eq!(
        ids_and_codes(&timed_out),
        [(&json!(5), &json!(-32603))],
        "{timed_out}"
    );
    p.finish_cleanly();
    let read = server_read(&dir);
    assert_ne!(read[2][0]["id"], json!(5), "{read:?}");
    replayed_with_violations(&log, &[("c2s/timed_out", 1), ("c2s/too_many_in_flight", 1)]);
}

/// JSON-RPC: a batch element beyond `--max-in-flight` with a fresh id goes with its batch,
/// untracked; a request sent alone later with the same id, once there is room, is tracked,
/// and the server's array reply to the element does not answer it: the element's reply
/// reaches the client, and the request still waits, and gets the proxy's
/// -32603 at its deadline. (The element went under the client's id: its array reply took the
/// request as answered, no violation, its deadline gone, and the client waited for it
/// forever.) The request reuses the id of the element, kept, whose reply may still come: a
/// duplicate_id, as the reuse of the id of a request waiting is.
#[test]
fn an_untracked_batch_element_does_not_answer_a_later_request_of_its_id() {
    let dir = scratch("untracked-element-then-request-of-its-id");
    // A timeout of its own: the element must reach the proxy while 1 and 2 are in flight
    // (before their deadline), and the server must answer it before its batch's deadline; 2 s
    // of margin on either side for a loaded machine.
    let options = ["--max-in-flight", "2", "--timeout-ms", "4000"];
    let (mut p, log) = late_reply_server(&dir, &options);
    // 1 and 2 take the places in flight; the element 5 goes beyond them, held by the server.
    // It is sent well after them, so that its batch's deadline is well after theirs: the
    // server answers it in between.
    p.send(&request(json!(1), "hold"));
    p.send(&request(json!(2), "hold"));
    std::thread::sleep(Duration::from_millis(2_000));
    p.send(&json!([request(json!(5), "later")]));
    for id in [1, 2] {
        expect_timed_out(&mut p, id);
    }
    // There is room again: 5 sent alone is tracked; the server never answers it.
    p.send(&request(json!(5), "never"));
    // The server answers the held 1 and 2 (late, dropped), the element in an array, then 9.
    p.send(&request(json!(9), "go"));
    assert_eq!(p.recv(), json!([{"jsonrpc":"2.0","id":5,"result":"late"}]));
    assert_eq!(p.recv(), json!({"jsonrpc":"2.0","id":9,"result":"go"}));
    let timed_out = expect_timed_out(&mut p, 5);
    assert_eq!(timed_out["error"]["data"]["method"], "never", "{timed_out}");
    p.finish_cleanly();
    replayed_with_violations(
        &log,
        &[
            ("c2s/duplicate_id", 1),
            ("c2s/timed_out", 3),
            ("c2s/too_many_in_flight", 1),
            ("s2c/late_reply", 2),
        ],
    );
}

/// JSON-RPC: a batch element beyond `--max-in-flight` goes with its batch untracked, but
/// the proxy keeps it until its reply comes: at its batch's deadline the client gets the
/// proxy's array for what is left of the batch, a -32603 for the element (its reply is then
/// late, and dropped); a request sent alone with its id is then a reuse of a timed-out id.
/// (It got nothing: the server's array, coming later, was its only reply, and a server that
/// never answered left the client waiting forever.)
#[test]
fn an_untracked_batch_element_is_answered_at_its_batch_deadline() {
    let dir = scratch("untracked-element-timed-out");
    let options = ["--max-in-flight", "2", "--timeout-ms", TIMEOUT_MS];
    let (mut p, log) = late_reply_server(&dir, &options);
    p.send(&request(json!(1), "hold"));
    p.send(&request(json!(2), "hold"));
    p.send(&json!([
        request(json!(5), "later"),
        request(json!(6), "hold")
    ]));
    for id in [1, 2] {
        expect_timed_out(&mut p, id);
    }
    let timed_out = p.recv();
    assert_eq!(
        ids_and_codes(&timed_out),
        [(&json!(5), &json!(-32603)), (&json!(6), &json!(-32603))],
        "{timed_out}"
    );
    assert_eq!(timed_out[0]["error"]["data"]["method"], "later");
    // The server answers the held 1, 2, 6 and the element (late, dropped), then 9.
    p.send(&request(json!(9), "go"));
    assert_eq!(p.recv(), json!({"jsonrpc":"2.0","id":9,"result":"go"}));
    let done = p.finish_cleanly();
    assert_eq!(done.messages().len(), 5, "{:?}", done.messages());
    replayed_with_violations(
        &log,
        &[
            ("c2s/timed_out", 4),
            ("c2s/too_many_in_flight", 2),
            ("s2c/late_reply", 4),
        ],
    );
}

/// JSON-RPC, without a timeout: a batch element beyond `--max-in-flight` that the server
/// never answers is reported unanswered at exit, as a tracked request is.
#[test]
fn an_untracked_batch_element_never_answered_is_unanswered() {
    let dir = scratch("untracked-element-unanswered");
    let (mut p, log) = late_reply_server(&dir, &["--max-in-flight", "1"]);
    p.send(&request(json!(1), "hold"));
    p.send(&json!([request(json!(5), "never")]));
    let done = p.finish_cleanly();
    assert!(
        done.stderr
            .contains("rpcwire proxy: c2s: unanswered request 5 (never)"),
        "{}",
        done.stderr
    );
    replayed_with_violations(
        &log,
        &[("c2s/too_many_in_flight", 1), ("c2s/unanswered", 2)],
    );
}

/// JSON-RPC: a server's batch element beyond `--max-in-flight` goes with its batch untracked,
/// but the proxy keeps it until the client's reply comes, as it keeps a client's: that reply,
/// in an array, is its own (no unknown_reply), and one never answered is unanswered at exit.
#[test]
fn an_untracked_server_batch_element_is_kept_until_its_reply_comes() {
    let dir = scratch("untracked-server-element");
    let batch = json!([request(json!("s2"), "b"), request(json!("s3"), "c")]);
    let script = json!({"0": [
        {"send": json!({"jsonrpc":"2.0","id":0,"result":0}).to_string()},
        {"send": request(json!("s1"), "a").to_string()},
        {"send": batch.to_string()}
    ]});
    let (mut p, log) = jsonrpc_scripted(&dir, &["--max-in-flight", "1"], script);
    p.send(&request(json!(0), "go"));
    assert_eq!(p.recv()["id"], 0);
    assert_eq!(p.recv()["id"], "s1");
    assert_eq!(p.recv(), batch);
    p.send(&json!({"jsonrpc":"2.0","id":"s1","result":1}));
    p.send(&json!([{"jsonrpc":"2.0","id":"s2","result":2}]));
    let done = p.finish_cleanly();
    assert!(
        done.stderr
            .contains("rpcwire proxy: s2c: unanswered request \"s3\" (c)"),
        "{}",
        done.stderr
    );
    replayed_with_violations(
        &log,
        &[("s2c/too_many_in_flight", 2), ("s2c/unanswered", 1)],
    );
}

/// A reader that takes stderr steadily but slowly (4 KiB every 25 ms, some 160 KB/s) gets every
/// line of the end too: thousands of requests left unanswered, then the summary, more than it
/// can take in 2 s. The proxy waits for stderr while it takes some, and it does, a piece at a
/// time (the end's lines went in one write, which took longer than the 2 s the proxy waits for
/// stderr to take anything, and it exited with most of them untold).
#[test]
fn a_slow_stderr_reader_that_keeps_reading_gets_the_last_lines() {
    const UNANSWERED: usize = 10_000;
    let (reader, writer) = std::io::pipe().unwrap();
    let drained = read_slowly(reader);
    let mut p = Proxy::spawn_with_stderr(
        &[],
        &["python3", &echo_server()],
        writer.into(),
        Some(drained),
    );
    let mut bytes = vec![];
    for id in 1..=UNANSWERED {
        writeln!(bytes, "{}", request(json!(id), "noreply")).unwrap();
    }
    p.send_raw(&bytes);
    p.send(&request(json!(0), "ping"));
    assert_eq!(p.recv()["id"], 0);
    p.close_stdin();
    let status = wait_exit(&mut p.child, Instant::now() + Duration::from_secs(120));
    let done = p.finish();
    assert_eq!(status.code(), Some(0), "{}", done.stderr);
    let told = done
        .stderr
        .lines()
        .filter(|l| l.starts_with("rpcwire proxy: c2s: unanswered request "))
        .count();
    assert_eq!(told, UNANSWERED);
    let last = done.stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("rpcwire proxy: summary: "), "{last}");
}

/// The client's reports that come while the proxy is ending (the server exited, the client
/// still sends lines that are not JSON) follow those queued before them: with a slow stderr
/// reader, the queue still holds thousands of lines when the end comes, and those said then
/// went to stderr directly, ahead of them. Each report printed is in the order of its line.
#[test]
fn reports_said_while_the_proxy_ends_come_after_those_queued() {
    let (reader, writer) = std::io::pipe().unwrap();
    let drained = read_slowly(reader);
    // A server that reads nothing, and exits after a second.
    let mut p =
        Proxy::spawn_with_stderr(&[], &["sh", "-c", "sleep 1"], writer.into(), Some(drained));
    let mut stdin = p.stdin.take().unwrap();
    // Lines that are not JSON, 5,000 a second for 6 s, until the proxy is gone.
    let writing = thread::spawn(move || {
        for i in 0..30_000 {
            if writeln!(stdin, "not json {i:05} {}", "x".repeat(100)).is_err() {
                break;
            }
            if i % 50 == 49 {
                let _ = stdin.flush();
                thread::sleep(Duration::from_millis(10));
            }
        }
    });
    let status = wait_exit(&mut p.child, Instant::now() + Duration::from_secs(120));
    writing.join().unwrap();
    let done = p.finish();
    assert_eq!(status.code(), Some(0), "{}", done.stderr);
    let (printed, _) = not_json_reports(&done.stderr);
    assert!(printed.len() > 4096, "{}", printed.len());
    let out_of_order = printed.windows(2).find(|w| w[0] > w[1]);
    assert_eq!(out_of_order, None, "{} printed", printed.len());
}

/// A stderr nobody reads, and a client whose reports are long (replies answering nothing,
/// under ids of 60 KiB, each shown in its report): the lines waiting for stderr are bounded in
/// bytes as well as in number, so the proxy does not hold thousands of them (the queue held
/// its 4,096 lines whatever their length, up to some 500 MB of ids and methods of 64 KiB).
#[cfg(target_os = "linux")]
#[test]
fn long_reports_waiting_for_stderr_are_bounded_in_bytes() {
    const REPLIES: usize = 1200;
    let (mut p, drain) = echo_proxy_with_stderr_held();
    let mut stdin = p.stdin.take().unwrap();
    let writing = thread::spawn(move || {
        let mut line = vec![];
        for n in 0..REPLIES {
            line.clear();
            let id = format!("{n:06}{}", "i".repeat(60 << 10));
            writeln!(
                line,
                "{}",
                json!({"jsonrpc": "2.0", "id": id, "result": {}})
            )
            .unwrap();
            stdin.write_all(&line).unwrap();
        }
        writeln!(stdin, "{}", request(json!(1), "ping")).unwrap();
        stdin
    });
    let reply = p
        .lines
        .recv_timeout(Duration::from_secs(120))
        .expect("the ping's reply");
    let reply: Value = serde_json::from_slice(&reply).unwrap();
    assert_eq!(reply["id"], 1);
    let peak = peak_rss(p.child.id());
    p.stdin = Some(writing.join().unwrap());
    drain.send(()).unwrap();
    let done = p.finish_cleanly();
    let last = done.stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains(&format!("\"c2s/unknown_reply\":{REPLIES}")),
        "{last}"
    );
    assert!(peak < 48 << 20, "the proxy took {} MB", peak >> 20);
}

/// A proxy of `server` whose client thread panics once the client has sent something (the
/// fault a debug build injects under `RPCWIRE_TEST_PANIC_IN_CLIENT_THREAD`).
fn proxy_that_panics(server: &[&str], stderr: Stdio) -> Child {
    Command::new(BIN)
        .args(["proxy", "--"])
        .args(server)
        .env("RPCWIRE_TEST_PANIC_IN_CLIENT_THREAD", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// A panic on a forwarding thread (injected in a debug build by
/// `RPCWIRE_TEST_PANIC_IN_CLIENT_THREAD`, where a bug would make one) ends the proxy with the
/// status of a panic, 101, after its report, while the client is still connected; it used to
/// hang, the server's stdin left open, the server waiting for input and the proxy for the
/// server. (The fault is compiled into debug builds only: a release build of the test, whose
/// proxy would forward the ping and wait for the client, skips it.)
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the fault is injected in debug builds only"
)]
fn a_panic_on_a_forwarding_thread_ends_the_proxy() {
    let mut child = proxy_that_panics(&["python3", &echo_server()], Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .unwrap();
    let status = wait_exit(&mut child, Instant::now() + WAIT);
    assert_eq!(status.code(), Some(101), "{status:?}");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        stderr.contains("injected by RPCWIRE_TEST_PANIC_IN_CLIENT_THREAD"),
        "{stderr}"
    );
    drop(stdin);
}

/// Whether process `pid` is gone (or a zombie waiting to be reaped: it runs no more).
fn process_gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        // The state follows the command's closing parenthesis.
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X'))
    })
}

/// At a panic the proxy ends its server too: SIGTERM to the server's process group, as a
/// forwarded signal, so that a server that does not end at the end of its input (here a
/// `sleep`) is not left running with no client.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the fault is injected in debug builds only"
)]
fn a_panic_ends_a_server_that_ignores_the_end_of_its_input() {
    let dir = scratch("panic-server");
    let pid_file = dir.join("server.pid");
    let script = format!("echo $$ > {}; exec sleep 60", pid_file.display());
    let mut child = proxy_that_panics(&["sh", "-c", &script], Stdio::null());
    let deadline = Instant::now() + WAIT;
    let server = loop {
        let text = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if let Ok(pid) = text.trim().parse::<u32>() {
            break pid;
        }
        assert!(Instant::now() < deadline, "the server started in time");
        thread::sleep(Duration::from_millis(10));
    };
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .unwrap();
    let status = wait_exit(&mut child, deadline);
    assert_eq!(status.code(), Some(101), "{status:?}");
    while !process_gone(server) {
        if Instant::now() > deadline {
            let _ = Command::new("kill").arg(server.to_string()).status();
            panic!("the server {server} still runs after the proxy's panic");
        }
        thread::sleep(Duration::from_millis(10));
    }
    drop(stdin);
}

/// A log that cannot be written (a full disk: `/dev/full`) ends at its first failed write,
/// never the session: stderr tells it as it happens (before the next counters' line, not only
/// at exit, which is all it said before), once, and again after the summary at exit.
#[test]
fn a_log_write_that_fails_is_told_at_once_and_ends_the_log_not_the_session() {
    let dir = scratch("log-full");
    let mut p = Proxy::echo(&["--stats-every", "1", "--log", "/dev/full"], &dir);
    p.send(&request(json!(1), "ping"));
    assert_eq!(p.recv()["id"], 1);
    // Past two ticks: the first flush fails, the next counters follow.
    let deadline = Instant::now() + WAIT;
    thread::sleep(Duration::from_millis(2500));
    p.send(&request(json!(2), "ping"));
    assert_eq!(p.recv()["id"], 2, "the session goes on");
    assert!(Instant::now() < deadline);
    let done = p.finish_cleanly();
    let lines: Vec<&str> = done.stderr.lines().collect();
    let told: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("rpcwire proxy: writing the log failed ("))
        .collect();
    assert_eq!(told.len(), 1, "told once: {}", done.stderr);
    assert!(
        lines[told[0]].ends_with("): it ends here; the session goes on"),
        "{}",
        done.stderr
    );
    let stats_after = lines[told[0]..]
        .iter()
        .any(|l| l.starts_with("rpcwire proxy: stats: "));
    assert!(stats_after, "told during the session: {}", done.stderr);
    let summary = lines
        .iter()
        .position(|l| l.starts_with("rpcwire proxy: summary: "))
        .expect("a summary");
    let ended = lines
        .iter()
        .position(|l| l.starts_with("rpcwire proxy: the log ended early: writing it failed ("))
        .expect("told again at exit");
    assert!(summary < ended, "{}", done.stderr);
}
