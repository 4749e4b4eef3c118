//! End to end against real peers: the official MCP TypeScript SDK client (`tests/e2e/client.mjs`)
//! drives `rpcwire proxy` in front of the reference `server-everything`, with both sides of the
//! proxy recorded in the same run. Needs Node ≥ 20 and npm; runs `npm ci` in `tests/e2e` when
//! `node_modules` is missing, and fails (never skips) when that is impossible.
#![cfg(feature = "cli")]

mod peers;

use std::collections::BTreeMap;
use std::process::Command;

use peers::{BIN, first_difference, lines};
use serde_json::Value;

#[test]
fn sdk_client_and_server_everything_through_the_proxy() {
    let node = peers::node_packages();
    let out = peers::out_dir("e2e");
    // The client's own checks (it exits non-zero on any failure).
    let mut client = Command::new("node");
    client.arg(node.join("client.mjs")).arg(BIN).arg(&out);
    peers::run_client(client);

    let read = |name: &str| std::fs::read(out.join(name)).unwrap();
    let (client_out, server_in) = (read("client-out"), read("server-in"));
    let (server_out, client_in) = (read("server-out"), read("client-in"));
    // The SDK writes one JSON object and "\n" per message, never a blank line or a CR, so the
    // proxy's normalisation (CRLF to LF, blank lines dropped) must leave it untouched.
    assert!(!client_out.contains(&b'\r') && !server_out.contains(&b'\r'));
    assert!(
        client_out == server_in,
        "c2s: the server did not read what the client wrote: {}",
        first_difference(&client_out, &server_in)
    );
    // Every line server-everything wrote on stdout is JSON (no stdout pollution)...
    let server_messages = lines(&server_out);
    assert!(
        server_out == client_in,
        "s2c: the client did not read what the server wrote: {}",
        first_difference(&server_out, &client_in)
    );
    let client_messages = lines(&client_out);

    // The session held what the script claims.
    let methods = |msgs: &[Value]| -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for msg in msgs {
            if let Some(method) = msg["method"].as_str() {
                *m.entry(method.to_string()).or_default() += 1;
            }
        }
        m
    };
    let c2s = methods(&client_messages);
    for (method, at_least) in [
        ("initialize", 1),
        ("notifications/initialized", 1),
        ("ping", 2),
        ("tools/list", 1),
        ("tools/call", 5),
        ("notifications/cancelled", 1),
        ("resources/list", 1),
        ("resources/read", 2),
        ("prompts/list", 1),
        ("prompts/get", 1),
        ("rpcwire/unknown-method", 1),
    ] {
        assert!(
            c2s.get(method).copied().unwrap_or(0) >= at_least,
            "{method}: {c2s:?}"
        );
    }
    let s2c = methods(&server_messages);
    assert!(
        s2c.get("notifications/progress").copied().unwrap_or(0) >= 4,
        "{s2c:?}"
    );
    assert_eq!(
        s2c.get("roots/list"),
        Some(&1),
        "the server's request to the client"
    );
    assert!(server_messages.iter().any(|m| m["error"]["code"] == -32601));

    // The proxy saw a clean session, but for what the client's SDK reported as findings about
    // server-everything (progress notifications after a cancellation or a result): the proxy
    // flags those, as unknown_progress, and forwards them. Maybe not all of them: a report that
    // passed the proxy before the client's cancellation did is still on time there, and the
    // SDK may handle a report it received before the result after it. What the proxy must
    // flag is what the wire shows: progress the client received after its request's result.
    let findings: Value = serde_json::from_slice(&read("findings.json")).unwrap();
    let findings = findings.as_array().unwrap();
    for f in findings {
        println!("finding: {f}");
    }
    let mut late_tokens: Vec<String> = findings
        .iter()
        .map(|f| {
            let kind = f["finding"].as_str();
            assert!(
                matches!(
                    kind,
                    Some("progress notification after the result")
                        | Some("progress notification after cancellation")
                ),
                "a finding of an unknown kind: {kind:?}"
            );
            f["notification"]["params"]["progressToken"].to_string()
        })
        .collect();
    let log = lines(&read("proxy.log"));
    let flagged: Vec<&Value> = log
        .iter()
        .filter(|r| r.get("violation").is_some_and(|v| !v.is_null()))
        .collect();
    let flagged_tokens: Vec<String> = flagged
        .iter()
        .map(|r| {
            assert_eq!(
                (&r["violation"], &r["dir"]),
                (&Value::from("unknown_progress"), &Value::from("s2c")),
                "{r}"
            );
            r["progress_token"].as_str().unwrap().to_string()
        })
        .collect();
    for token in &flagged_tokens {
        let finding = late_tokens.iter().position(|t| t == token);
        let finding = finding.unwrap_or_else(|| panic!("not a finding: {flagged:#?}"));
        late_tokens.swap_remove(finding);
    }
    // Progress on the wire after its request's result (the client's requests and the
    // server's messages in the order the client received them).
    let token_of_request: BTreeMap<String, String> = client_messages
        .iter()
        .filter(|m| m["method"].is_string() && m.get("id").is_some())
        .filter_map(|m| {
            let token = m["params"]["_meta"].get("progressToken")?;
            Some((m["id"].to_string(), token.to_string()))
        })
        .collect();
    let mut answered_tokens: Vec<String> = vec![];
    let mut wire_late: Vec<String> = vec![];
    for m in lines(&client_in) {
        if m.get("result").is_some() || m.get("error").is_some() {
            answered_tokens.extend(token_of_request.get(&m["id"].to_string()).cloned());
        } else if m["method"] == "notifications/progress" {
            let token = m["params"]["progressToken"].to_string();
            if answered_tokens.contains(&token) {
                wire_late.push(token);
            }
        }
    }
    let mut unflagged = flagged_tokens.clone();
    for token in &wire_late {
        let at = unflagged.iter().position(|t| t == token);
        let at = at.unwrap_or_else(|| {
            panic!("progress on {token} after its result, not flagged: {flagged:#?}")
        });
        unflagged.swap_remove(at);
    }
    let summary = &log.last().unwrap()["summary"];
    assert_eq!(
        summary["total_violations"].as_u64(),
        Some(flagged.len() as u64),
        "{summary}"
    );
    assert_eq!(
        summary["messages"]["c2s/request"].as_u64().unwrap() as usize,
        client_messages
            .iter()
            .filter(|m| m["method"].is_string() && m.get("id").is_some())
            .count()
    );

    // Offline, the same session gives the same: the log replayed; and the two recordings
    // merged, where no progress after a cancellation can be told from progress before it (no
    // timing), at most the same.
    for offline in peers::check_offline(&out) {
        let (source, stdout) = (offline.source, &offline.stdout);
        let late = offline.violations.get("s2c/unknown_progress");
        let late = late.and_then(Value::as_u64).unwrap_or(0);
        assert_eq!(
            offline.violations.len(),
            usize::from(late > 0),
            "{source}: {stdout}"
        );
        if source == "streams" {
            assert!(late <= flagged.len() as u64, "{source}: {stdout}");
        } else {
            assert_eq!(late, flagged.len() as u64, "{source}: {stdout}");
        }
        assert_eq!(
            offline.exit_code,
            Some(i32::from(late > 0)),
            "{source}: {stdout}"
        );
    }
}
