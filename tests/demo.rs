//! The examples run: `examples/rpc_demo.rs` prints the primer's lines (replies in completion
//! order matched to their requests, then the four bad inputs' replies),
//! `examples/gateway.rs` routes every line of its scenario, `examples/http_headers.rs` hands its
//! client every tool but the invalid one, `examples/streamable_http.rs`
//! answers every request of its scenario, its client reading the event streams, and
//! `examples/mcp_client.rs` plays its scenario against `examples/mcp_stub_server.rs` over
//! stdio.

use std::process::Command;

#[path = "../examples/rpc_demo.rs"]
mod rpc_demo;
// (Only their functions called here are used.)
#[allow(dead_code)]
#[path = "../examples/gateway.rs"]
mod gateway;
#[allow(dead_code)]
#[path = "../examples/http_headers.rs"]
mod http_headers;
#[allow(dead_code)]
#[path = "../examples/streamable_http.rs"]
mod streamable_http;

/// Where `cargo test` built the example `name`.
fn example_path(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    dir.join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// Runs the example `name` (built by `cargo test` next to the test binaries' directory) and
/// returns its output lines. A plain `cargo test` rebuilds the examples first; one filtered
/// with `--test demo` does not, so build them too (`cargo build --examples`; with
/// `--all-features` for `mcp_client` and `mcp_stub_server`, which need `tokio` and `serde`) after
/// editing one.
fn run_example(name: &str) -> Vec<String> {
    let example = example_path(name);
    let out = Command::new(&example)
        .output()
        .unwrap_or_else(|e| panic!("run {} (built by `cargo test`): {e}", example.display()));
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn rpc_demo_prints_the_primer_lines() {
    assert_eq!(
        run_example("rpc_demo"),
        [
            r#"arrived: {"jsonrpc":"2.0","id":3,"result":"14:05"} -> answers get_time"#,
            r#"arrived: {"jsonrpc":"2.0","id":2,"result":12.7} -> answers convert"#,
            r#"arrived: {"jsonrpc":"2.0","id":1,"result":{"city": "Oslo", "temp_c": 11}} -> answers lookup_weather"#,
            "",
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params","data":"convert needs a numeric argument \"inches\""}}"#,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found","data":"teleport"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            "None",
        ]
    );
}

/// `examples/rpc_demo.rs`'s server answers every request, whatever number `convert` is given:
/// one whose centimetres are past `f64` gets -32602 (the result was `inf`, which is no JSON
/// number, and the server panicked on it).
#[test]
fn rpc_demo_server_refuses_a_conversion_past_f64() {
    let server = rpcwire::Decoder::jsonrpc();
    let line = br#"{"jsonrpc":"2.0","id":7,"method":"convert","params":{"inches":1e308}}"#;
    let (_, reply) = rpc_demo::handle(&server, line).expect("a reply");
    let reply: serde_json::Value = serde_json::from_slice(&reply).expect("a JSON reply");
    assert_eq!(reply["id"], 7);
    assert_eq!(reply["error"]["code"], -32602);
}

/// `examples/rpc_demo.rs`'s server answers a batch (JSON-RPC 2.0 allows them) with one
/// array, and a batch of notifications with nothing. (It answered no batch.)
#[test]
fn rpc_demo_server_answers_a_batch() {
    let server = rpcwire::Decoder::jsonrpc();
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"get_time"},{"jsonrpc":"2.0","method":"log"},{"jsonrpc":"2.0","id":2,"method":"teleport"},1]"#;
    let (_, reply) = rpc_demo::handle(&server, batch).expect("a reply");
    assert_eq!(
        std::str::from_utf8(&reply).unwrap(),
        concat!(
            r#"[{"jsonrpc":"2.0","id":1,"result":"14:05"},"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"teleport"}},"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]"#,
            "\n"
        )
    );
    let notifications = br#"[{"jsonrpc":"2.0","method":"log"}]"#;
    assert!(rpc_demo::handle(&server, notifications).is_none());
}

/// `examples/gateway.rs`: two clients with the same ids, progress tokens and listen streams
/// through one upstream; every line the gateway writes, in order.
#[test]
fn gateway_example_routes_every_line() {
    assert_eq!(
        run_example("gateway"),
        [
            // The handshake: one `initialize` upstream, under the gateway's id; a request before
            // the client's `initialize` is answered is refused; once the upstream answers, it gets
            // `notifications/initialized` and each client the result under its own id.
            r#"-> upstream: {"jsonrpc":"2.0","id":"gateway-initialize","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c0","version":"1"}}}"#,
            r#"-> client 0: {"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid Request: initialize first"}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"-> client 0: {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"upstream","version":"1"}}}"#,
            r#"-> client 1: {"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"upstream","version":"1"}}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":1}}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fast","_meta":{"progressToken":2}}}"#,
            r#"-> client 1: {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#,
            r#"-> client 0: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":50}}"#,
            r#"-> client 1: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            r#"(dropped from upstream: {"jsonrpc":"2.0","id":1,"result":{"content":[]}})"#,
            r#"-> upstream: {"jsonrpc":"2.0","id":262145,"method":"ping"}"#,
            r#"-> client 1: {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: invalid reply upstream"}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","id":524289,"method":"tools/list"}"#,
            r#"-> client 0: {"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"the client already has a request with this id in flight"}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":524289,"reason":"timed out"}}"#,
            r#"-> client 0: {"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Request timed out"}}"#,
            // Two listen streams with one id: no timeout, each change to its own client. Client
            // 0's asks for progress: progress on it must not give it a timeout either.
            r#"-> upstream: {"jsonrpc":"2.0","id":786433,"method":"subscriptions/listen","params":{"_meta":{"progressToken":786433}}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","id":262146,"method":"subscriptions/listen","params":{}}"#,
            r#"-> client 0: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"lp","progress":1}}"#,
            r#"-> client 0: {"jsonrpc":"2.0","id":"l","result":{}}"#,
            r#"-> client 1: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}}"#,
            r#"-> client 1: {"jsonrpc":"2.0","id":"l","result":{}}"#,
            // Client 0 goes away with a call and a listen stream open: both are cancelled
            // upstream and forgotten (a listen stream has no deadline: it would stay forever),
            // and the call's late reply goes nowhere.
            r#"-> upstream: {"jsonrpc":"2.0","id":524290,"method":"tools/call","params":{"name":"slow"}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","id":1048577,"method":"subscriptions/listen","params":{}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1048577,"reason":"the client went away"}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":524290,"reason":"the client went away"}}"#,
            r#"(dropped from upstream: {"jsonrpc":"2.0","id":524290,"result":{"content":[]}})"#,
            // The upstream's own requests are answered, for no client to answer them: a
            // `ping`, and -32601 for what the gateway does not offer (they went unanswered).
            r#"-> upstream: {"jsonrpc":"2.0","id":"s1","result":{}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","id":"s2","error":{"code":-32601,"message":"Method not found","data":"roots/list"}}"#,
            // An invalid request of the upstream's, its id readable, gets -32600.
            r#"-> upstream: {"jsonrpc":"2.0","id":"s3","error":{"code":-32600,"message":"Invalid Request"}}"#,
            // The upstream goes away with client 1's call and listen stream in flight: each
            // is answered (a listen stream has no deadline: it would wait forever).
            r#"-> upstream: {"jsonrpc":"2.0","id":786434,"method":"tools/call","params":{"name":"fast"}}"#,
            r#"-> upstream: {"jsonrpc":"2.0","id":1310721,"method":"subscriptions/listen","params":{}}"#,
            r#"-> client 1: {"jsonrpc":"2.0","id":"l2","error":{"code":-32603,"message":"Internal error: the upstream went away"}}"#,
            r#"-> client 1: {"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error: the upstream went away"}}"#,
            // A request after that is answered at once, not forwarded into the closed upstream.
            r#"-> client 1: {"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Internal error: the upstream went away"}}"#,
        ]
    );
}

/// `examples/gateway.rs` routes to a client only the notifications of a listen stream
/// (`mcp::methods::LISTEN_STREAM`) stamped with the id of a `subscriptions/listen` request
/// (as `IdRemapper::route_subscription` asks of its caller): a stamp naming a client's call,
/// or another notification stamped with a listen request's id, is no stream's, and goes to
/// no client. (Any notification stamped with any request's token went to its client.)
#[test]
fn gateway_routes_only_listen_stream_notifications() {
    let (mut gw, call, listen) = gateway_with_a_call_and_a_listen_stream();
    let (call, listen) = (&call, &listen);
    let stamped = |method: &str, token: &serde_json::Value| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{token}}}}}}}"#
        )
    };
    gw.upstream_line(
        stamped("notifications/tools/list_changed", call).as_bytes(),
        1,
    );
    gw.upstream_line(stamped("notifications/message", listen).as_bytes(), 1);
    assert!(gw.clients[0].is_empty(), "{:?}", gw.clients[0]);
    // The stream's own notification still goes to its client.
    gw.upstream_line(
        stamped("notifications/tools/list_changed", listen).as_bytes(),
        1,
    );
    assert!(!gw.clients[0].is_empty());
}

/// The official Tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`) delivers
/// its `notifications/tasks` on a listen stream ("To begin listening for task status
/// notifications, clients send a `subscriptions/listen` request to the server including a
/// list of task IDs"), stamped as every notification of a stream is ("The server MUST include
/// this key on every notification delivered via a subscriptions/listen stream"):
/// `examples/gateway.rs` routes it to the stream's client, as the stream's other
/// notifications.
#[test]
fn gateway_routes_a_task_status_notification_of_a_listen_stream() {
    let (mut gw, _, listen) = gateway_with_a_call_and_a_listen_stream();
    let status = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"t-1","status":"working","createdAt":"2026-07-28T10:00:00Z","lastUpdatedAt":"2026-07-28T10:00:00Z","ttlMs":null,"_meta":{{"io.modelcontextprotocol/subscriptionId":{listen}}}}}}}"#
    );
    gw.upstream_line(status.as_bytes(), 1);
    assert_eq!(
        json_lines(&gw.clients[0].split()),
        [
            serde_json::json!({"jsonrpc":"2.0","method":"notifications/tasks","params":{
            "taskId":"t-1","status":"working","createdAt":"2026-07-28T10:00:00Z",
            "lastUpdatedAt":"2026-07-28T10:00:00Z","ttlMs":null,
            "_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}})
        ]
    );
}

/// `examples/gateway.rs` sends the upstream's teardown of a listen stream (MCP 2026-07-28: a
/// `notifications/cancelled` naming the listen request's token) to the stream's client under
/// the client's id, and the stream is closed; a cancellation naming a client's call goes to no
/// client, and the call still gets its reply.
#[test]
fn gateway_routes_a_listen_streams_teardown_to_its_client() {
    let (mut gw, call, listen) = gateway_with_a_call_and_a_listen_stream();
    let (call, listen) = (&call, &listen);
    let cancelled = |token: &serde_json::Value| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{token}}}}}"#
        )
    };
    gw.upstream_line(cancelled(call).as_bytes(), 1);
    assert!(gw.clients[0].is_empty(), "{:?}", gw.clients[0]);
    gw.upstream_line(cancelled(listen).as_bytes(), 1);
    assert_eq!(
        json_lines(&gw.clients[0].split()),
        [
            serde_json::json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l"}})
        ]
    );
    // The stream is closed: its result goes nowhere. The call is still answered.
    let result =
        |token: &serde_json::Value| format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
    gw.upstream_line(result(listen).as_bytes(), 1);
    assert!(gw.clients[0].is_empty(), "{:?}", gw.clients[0]);
    gw.upstream_line(result(call).as_bytes(), 1);
    assert_eq!(json_lines(&gw.clients[0].split())[0]["id"], 1);
}

/// An `examples/gateway.rs` of one client that sent a `tools/call` (id 1) and a
/// `subscriptions/listen` (id `"l"`), both forwarded: the gateway and the two upstream tokens.
fn gateway_with_a_call_and_a_listen_stream()
-> (gateway::Gateway, serde_json::Value, serde_json::Value) {
    let mut gw = initialized_gateway(1);
    gw.client_read(
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}\n\
          {\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"subscriptions/listen\",\"params\":{}}\n",
        0,
    );
    let upstream = gw.upstream.split();
    let tokens: Vec<serde_json::Value> = json_lines(&upstream)
        .into_iter()
        .map(|line| line["id"].clone())
        .collect();
    let [call, listen] =
        <[serde_json::Value; 2]>::try_from(tokens).expect("two requests forwarded");
    (gw, call, listen)
}

/// The lines `out` holds, each read as JSON.
fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    out.split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).unwrap())
        .collect()
}

/// A client's `initialize` line, with id `id` (a JSON token), asking for `version`.
fn initialize_line(id: &str, version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
    ) + "\n"
}

/// An `examples/gateway.rs` of `clients` clients, each through the handshake, nothing left
/// to write.
fn initialized_gateway(clients: usize) -> gateway::Gateway {
    let mut gw = gateway::Gateway::new(clients);
    for client in 0..clients {
        gw.client_read(client, initialize_line("0", "2025-11-25").as_bytes(), 0);
    }
    let result = r#"{"jsonrpc":"2.0","id":"gateway-initialize","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    gw.upstream_line(result.as_bytes(), 0);
    gw.upstream.clear();
    gw.clients.iter_mut().for_each(|out| out.clear());
    gw
}

/// `examples/gateway.rs` owns the upstream session: however many clients initialize, the
/// upstream gets one `initialize` and, after its result, one `notifications/initialized`
/// (MCP: the client MUST send it, and a server may refuse other requests before it); each
/// client gets that result under its own id, and the clients' own
/// `notifications/initialized` stay with the gateway. A client's request before its
/// `initialize` is answered is refused, not forwarded. (The gateway forwarded every
/// `initialize` and no `notifications/initialized`.)
#[test]
fn gateway_initializes_the_upstream_once() {
    let mut gw = gateway::Gateway::new(2);
    let call = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}\n";
    gw.client_read(0, initialize_line("1", "2025-06-18").as_bytes(), 0);
    gw.client_read(0, call, 0);
    gw.client_read(1, initialize_line("\"a\"", "2025-11-25").as_bytes(), 1);
    let upstream = json_lines(&gw.upstream.split());
    let [initialize] = &upstream[..] else {
        panic!("one initialize upstream: {upstream:?}")
    };
    assert_eq!(initialize["method"], "initialize");
    assert_eq!(initialize["params"]["protocolVersion"], "2025-06-18");
    let early = json_lines(&gw.clients[0].split());
    assert_eq!(early.len(), 1, "{early:?}");
    assert_eq!(early[0]["id"], 7);
    assert!(early[0]["error"]["code"].is_i64(), "{early:?}");

    let result = serde_json::json!({"jsonrpc":"2.0","id":initialize["id"],"result":{
        "protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}});
    gw.upstream_line(result.to_string().as_bytes(), 2);
    let upstream = json_lines(&gw.upstream.split());
    assert_eq!(
        upstream,
        [serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"})]
    );
    for (client, id) in [(0, serde_json::json!(1)), (1, serde_json::json!("a"))] {
        let replies = json_lines(&gw.clients[client].split());
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert_eq!(replies[0]["id"], id);
        assert_eq!(replies[0]["result"], result["result"]);
    }

    // The clients' own `notifications/initialized` go nowhere; a client initializing later is
    // answered from the session, nothing sent upstream; requests now go through.
    let initialized = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    gw.client_read(0, initialized, 3);
    gw.client_read(1, initialized, 3);
    assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
    gw.client_closed(1);
    gw.client_read(1, initialize_line("2", "2025-06-18").as_bytes(), 4);
    assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
    let replies = json_lines(&gw.clients[1].split());
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["id"], 2);
    assert_eq!(replies[0]["result"], result["result"]);
    gw.client_read(0, call, 5);
    let upstream = json_lines(&gw.upstream.split());
    assert_eq!(upstream.len(), 1, "{upstream:?}");
    assert_eq!(upstream[0]["method"], "tools/list");
}

/// `examples/gateway.rs`'s handshake failing: an `initialize` that times out is answered
/// here (ours is never cancelled upstream, as MCP says), and an upstream error goes to every
/// client waiting, after which the next `initialize` goes upstream again.
#[test]
fn gateway_answers_a_failed_handshake() {
    let mut gw = gateway::Gateway::new(2);
    gw.client_read(0, initialize_line("1", "2025-11-25").as_bytes(), 0);
    gw.tick(60_000);
    let timed_out = json_lines(&gw.clients[0].split());
    assert_eq!(timed_out[0]["error"]["code"], -32603, "{timed_out:?}");
    assert_eq!(
        json_lines(&gw.upstream.split()).len(),
        1,
        "only the initialize"
    );
    gw.client_read(0, initialize_line("2", "2025-11-25").as_bytes(), 60_000);
    gw.client_read(1, initialize_line("3", "2025-11-25").as_bytes(), 60_000);
    assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
    let refused = r#"{"jsonrpc":"2.0","id":"gateway-initialize","error":{"code":-32602,"message":"Unsupported protocol version"}}"#;
    gw.upstream_line(refused.as_bytes(), 60_001);
    for (client, id) in [(0, 2), (1, 3)] {
        let replies = json_lines(&gw.clients[client].split());
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert_eq!(
            (
                replies[0]["id"].clone(),
                replies[0]["error"]["code"].clone()
            ),
            (id.into(), (-32602).into())
        );
    }
    assert!(
        gw.upstream.is_empty(),
        "no notifications/initialized: {:?}",
        gw.upstream
    );
    gw.client_read(1, initialize_line("4", "2025-11-25").as_bytes(), 60_002);
    let upstream = json_lines(&gw.upstream.split());
    assert_eq!(upstream.len(), 1, "{upstream:?}");
    assert_eq!(upstream[0]["method"], "initialize");
}

/// `examples/gateway.rs` answers a request that comes after the upstream went away with
/// -32603 at once, and writes nothing upstream: no reply would ever come. So too a client's
/// `initialize`, waiting or new. (It forwarded them into the closed upstream's buffer, and
/// the client waited until its timeout; an `initialize` forever, had none been set.)
#[test]
fn gateway_answers_requests_after_the_upstream_went_away() {
    let mut gw = initialized_gateway(1);
    let mut fresh = gateway::Gateway::new(1);
    fresh.client_read(0, initialize_line("1", "2025-11-25").as_bytes(), 0);
    fresh.upstream.clear();
    // The initialized gateway has no request waiting; the fresh one its client's
    // `initialize` (id 1), which is answered too.
    for (gw, waiting_ids) in [(&mut gw, &[][..]), (&mut fresh, &[1][..])] {
        gw.upstream_closed();
        let waiting = json_lines(&gw.clients[0].split());
        assert_eq!(waiting.len(), waiting_ids.len(), "{waiting:?}");
        for (reply, id) in waiting.iter().zip(waiting_ids) {
            assert_eq!(reply["id"], *id);
            assert_eq!(reply["error"]["code"], -32603, "{reply}");
        }
        gw.client_read(
            0,
            b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}\n",
            1,
        );
        gw.client_read(0, initialize_line("9", "2025-11-25").as_bytes(), 1);
        assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
        let replies = json_lines(&gw.clients[0].split());
        assert_eq!(replies.len(), 2, "{replies:?}");
        for (reply, id) in replies.iter().zip([8, 9]) {
            assert_eq!(reply["id"], id);
            assert_eq!(reply["error"]["code"], -32603, "{reply}");
        }
    }
}

/// `examples/http_headers.rs`: the `tools/list` result its client gets keeps every tool but the
/// one whose annotation is invalid, in order.
#[test]
fn http_headers_example_drops_only_the_invalid_tool() {
    let lines = run_example("http_headers");
    let to_client = lines
        .iter()
        .find_map(|line| line.strip_prefix("to the client: "))
        .expect("the result the client gets");
    let reply: serde_json::Value = serde_json::from_str(to_client).unwrap();
    let names: Vec<&str> = reply["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["execute_sql", "get_weather", "legacy"]);
    assert_eq!(reply["result"]["nextCursor"], "page-2");
}

/// `examples/http_headers.rs`'s bridge hands its client a reply to `tools/list` that is no
/// success as it came, for the client to judge: it panicked on an error reply
/// (`unreachable!`) and on one it could not decode (`expect`). So too a success without one
/// list of tools to filter: `tools` twice became an empty list.
#[test]
fn http_headers_bridge_passes_on_what_is_no_success() {
    let mut tools = std::collections::HashMap::new();
    let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"down"}}"#;
    let twice = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"tools":[]}}"#;
    let not_a_list = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":{"name":"a"}}}"#;
    for reply in [&error[..], b"{oops", twice, not_a_list] {
        let to_client = http_headers::filter_tools_list(reply, &mut tools);
        assert_eq!(to_client, [reply, b"\n"].concat());
    }
    assert!(tools.is_empty());
}

/// `examples/http_headers.rs`'s server checks a POST's headers against the annotations of the
/// tool its body calls (it used `execute_sql`'s for every call), answers a notification's
/// mismatch without an id (MCP's form: it wrote `"id":null`), and a body it cannot decode
/// with that error's reply (it panicked).
#[test]
fn http_headers_server_checks_the_called_tool() {
    use rpcwire::headers::{ToolHeaders, mirror_headers};
    use rpcwire::{Decoder, RawJson};
    let annotated = |schema: &'static str| {
        ToolHeaders::from_input_schema(RawJson::new(schema.as_bytes()).unwrap()).unwrap()
    };
    let tools = std::collections::HashMap::from([
        (
            "execute_sql".to_owned(),
            annotated(
                r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}"#,
            ),
        ),
        (
            "get_weather".to_owned(),
            annotated(r#"{"type":"object","properties":{"region":{"type":"string"}}}"#),
        ),
    ]);
    let headers_of = |body: &[u8]| -> Vec<(String, Vec<u8>)> {
        let msg = Decoder::mcp().decode(body).unwrap();
        let tool = msg
            .params()
            .and_then(|p| p.get("name")?.as_str())
            .and_then(|name| tools.get(&*name.decode()));
        let headers = mirror_headers(&msg, None, tool).unwrap();
        headers
            .iter()
            .map(|(h, v)| (h.to_string(), v.as_bytes().to_vec()))
            .collect()
    };
    let reply = |r: Result<(), bytes::BytesMut>| {
        let r = r.expect_err("an error reply");
        serde_json::from_slice::<serde_json::Value>(&r).unwrap()
    };

    // `get_weather` mirrors no argument: its region needs no header.
    let weather = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_weather","arguments":{"region":"eu"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    assert_eq!(
        http_headers::server_check(&tools, &headers_of(weather), weather),
        Ok(())
    );

    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let mut headers = headers_of(note);
    for (name, value) in &mut headers {
        if name == "Mcp-Method" {
            *value = b"ping".to_vec();
        }
    }
    let error = reply(http_headers::server_check(&tools, &headers, note));
    assert_eq!(error["error"]["code"], -32020);
    assert!(error.get("id").is_none(), "{error}");

    let error = reply(http_headers::server_check(&tools, &headers, b"{oops"));
    assert_eq!(error["error"]["code"], -32700);
}

/// The headers of a POST to `examples/streamable_http.rs` with nothing else to say: a JSON
/// body, and an `Accept` that takes both answers, as the transport requires of a client.
const JSON_POST: &[streamable_http::Field] = &[
    ("Content-Type", b"application/json"),
    ("Accept", b"application/json, text/event-stream"),
];

/// The headers of a POST to `examples/streamable_http.rs` in session `s` (of 2025-11-25),
/// which `Server::new(SESSION_S)` makes in advance: a request of an earlier revision than
/// 2026-07-28 is read by its session's version, and needs one.
const IN_SESSION_S: &[streamable_http::Field] = &[
    ("Mcp-Session-Id", b"s"),
    ("MCP-Protocol-Version", b"2025-11-25"),
    ("Content-Type", b"application/json"),
    ("Accept", b"application/json, text/event-stream"),
];

/// Session `s`, of 2025-11-25, made in advance.
const SESSION_S: &[(&str, &str)] = &[("s", "2025-11-25")];

/// `examples/streamable_http.rs`: a Streamable HTTP server core and its client, every response
/// and every event the client reads, in order.
#[test]
fn streamable_http_example_answers_every_post() {
    assert_eq!(
        run_example("streamable_http"),
        [
            r#"client: MCP-Protocol-Version: 2026-07-28"#,
            r#"client: Mcp-Method: tools/call"#,
            r#"client: Mcp-Name: execute_sql"#,
            r#"client: Mcp-Param-Region: eu-west-1"#,
            r#"client: Content-Type: application/json"#,
            r#"client: Accept: application/json, text/event-stream"#,
            // 2026-07-28 has no resumption: no event ids, no priming, no `retry`, no GET.
            r#"POST tools/call -> 200 text/event-stream"#,
            r#"  | data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1.0,"total":2.0}}"#,
            r#"  | data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":2.0,"total":2.0}}"#,
            // Every result of 2026-07-28 says its type.
            r#"  | data: {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"1 row"}]}}"#,
            r#"client: event (no id): notification"#,
            r#"client: event (no id): notification"#,
            r#"client: event (no id): success_response"#,
            r#"GET, MCP-Protocol-Version: 2026-07-28 -> 405 (no body)"#,
            r#"  Allow: POST"#,
            // `initialize` creates a session, named in `Mcp-Session-Id` (random: not printed).
            r#"POST initialize -> 200 application/json"#,
            r#"  Mcp-Session-Id: (a new session)"#,
            r#"  | {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"streamable_http example","version":"1"}}}"#,
            r#"POST ping (the new session) -> 200 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":1,"result":{}}"#,
            // A session's stream is resumed after a cut; a DELETE ends the session.
            r#"POST tools/call (the new session) -> 200 text/event-stream"#,
            r#"  | id: 0/0"#,
            r#"  | data:"#,
            r#"  | retry: 1000"#,
            r#"  | id: 0/1"#,
            r#"  | data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1.0,"total":2.0}}"#,
            r#"  | id: 0/2"#,
            r#"  | data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":2.0,"total":2.0}}"#,
            r#"  | id: 0/3"#,
            r#"  | data: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"1 row"}]}}"#,
            r#"client: event 0/0: priming"#,
            r#"client: event (no id): retry 1000 ms"#,
            r#"client: event 0/1: notification"#,
            r#"client: cut off; 1000 ms later: GET, Last-Event-ID: 0/1"#,
            r#"GET -> 200 text/event-stream"#,
            r#"  | id: 0/2"#,
            r#"  | data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":2.0,"total":2.0}}"#,
            r#"  | id: 0/3"#,
            r#"  | data: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"1 row"}]}}"#,
            r#"client: event 0/2: notification"#,
            r#"client: event 0/3: success_response"#,
            r#"GET, Last-Event-ID: 9/0 -> 400 (no body)"#,
            r#"DELETE -> 204 (no body)"#,
            r#"POST ping (the session ended) -> 404 (no body)"#,
            // A client MUST accept both JSON and an event stream, and send JSON.
            r#"POST tools/call, Accept: application/json -> 406 (no body)"#,
            r#"POST tools/call, Content-Type: text/plain -> 415 (no body)"#,
            r#"POST tools/call, Origin: http://evil.example -> 403 (no body)"#,
            r#"POST ping, no Mcp-Session-Id -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: Mcp-Session-Id is required"}}"#,
            r#"POST prompts/list (2026-07-28) -> 404 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":"prompts/list"}}"#,
            r#"POST tools/call, Mcp-Method: tools/list -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch: Mcp-Method header does not match the request body"}}"#,
            r#"POST tools/call, no Mcp-Param-Region -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch: required Mcp-Param-Region header is missing"}}"#,
            r#"POST ping, _meta naming two versions -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: _meta names its protocol version twice"}}"#,
            r#"POST ping (session of 2025-11-25) -> 200 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"POST ping, MCP-Protocol-Version: 2025-06-18 -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":3,"error":{"code":-32020,"message":"Header mismatch: MCP-Protocol-Version is not the session's version"}}"#,
            r#"POST ping, MCP-Protocol-Version: 2025-11-25 and 2026-07-28 -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":3,"error":{"code":-32020,"message":"Header mismatch: MCP-Protocol-Version header appears more than once"}}"#,
            r#"POST ping, MCP-Protocol-Version: 2024-11-05 -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-03-26","2025-06-18","2025-11-25","2026-07-28"],"requested":"2024-11-05"}}}"#,
            r#"POST batch (session of 2025-11-25) -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}"#,
            r#"POST batch (session of 2025-03-26) -> 200 application/json"#,
            r#"  | [{"jsonrpc":"2.0","id":4,"result":{}},{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"1 row"}]}},{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"Invalid Request"}}]"#,
            r#"POST notifications/cancelled -> 202 (no body)"#,
            r#"POST {oops -> 400 application/json"#,
            r#"  | {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#,
            r#"POST a response with result 1 -> 400 (no body)"#,
        ]
    );
}

/// `examples/streamable_http.rs` answers a POST of `initialize` without `Mcp-Session-Id` as
/// MCP's Streamable HTTP says: it creates a session, negotiates its version (the client's if
/// the server speaks it, else the server's latest with sessions), and sends the session's id
/// in `Mcp-Session-Id`; the session's requests are then read by that version. An
/// `initialize` inside a session is refused. (It answered every `initialize` with -32601:
/// sessions were made in advance only.)
#[test]
fn streamable_http_initialize_creates_a_session() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[]);
    let accept: &[u8] = b"application/json, text/event-stream";
    let initialize = |version: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
        )
    };
    let json: Field = ("Content-Type", b"application/json");
    let created = server.post(
        &[json, ("Accept", accept)],
        initialize("2025-06-18").as_bytes(),
    );
    assert_eq!(created.status, 200);
    let reply: serde_json::Value = serde_json::from_slice(&created.body).unwrap();
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["protocolVersion"], "2025-06-18", "{reply}");
    let session = created.session_id.expect("an Mcp-Session-Id");
    assert!(
        session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{session}"
    );

    let ping = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let in_session = |version: &'static [u8]| -> Vec<Field> {
        vec![
            json,
            ("Accept", accept),
            ("Mcp-Session-Id", session.as_bytes()),
            ("MCP-Protocol-Version", version),
        ]
    };
    assert_eq!(server.post(&in_session(b"2025-06-18"), ping).status, 200);
    assert_eq!(server.post(&in_session(b"2025-11-25"), ping).status, 400);
    let again = server.post(
        &in_session(b"2025-06-18"),
        initialize("2025-06-18").as_bytes(),
    );
    assert_eq!(again.status, 400);
    assert!(again.session_id.is_none());

    // A version the server does not speak: it answers with its latest, in a new session.
    let other = server.post(
        &[json, ("Accept", accept)],
        initialize("2024-11-05").as_bytes(),
    );
    let reply: serde_json::Value = serde_json::from_slice(&other.body).unwrap();
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25", "{reply}");
    assert_ne!(other.session_id.as_deref(), Some(&*session));
    // One it speaks, but not at `initialize` (2026-07-28 has none): the same.
    let newest = server.post(
        &[json, ("Accept", accept)],
        initialize("2026-07-28").as_bytes(),
    );
    let reply: serde_json::Value = serde_json::from_slice(&newest.body).unwrap();
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25", "{reply}");
}

/// `examples/streamable_http.rs` refuses an `initialize` whose params break the schema
/// (`InitializeRequestParams`: `protocolVersion` a string, `capabilities` and `clientInfo`
/// objects, each once) with -32602 naming the member, and creates no session for it. (It read
/// `protocolVersion` alone: params without `clientInfo`, or with two versions, made a session.)
#[test]
fn streamable_http_refuses_initialize_params_that_break_the_schema() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[]);
    let headers: &[Field] = &[
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let cases = [
        (
            r#"{"protocolVersion":"2025-06-18","capabilities":{}}"#,
            "Invalid params: clientInfo is required",
        ),
        (
            r#"{"protocolVersion":20250618,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
            "Invalid params: protocolVersion must be a string",
        ),
        (
            r#"{"protocolVersion":"2025-06-18","protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
            "Invalid params: protocolVersion is given twice",
        ),
        (
            r#"{"protocolVersion":"2025-06-18","capabilities":[],"clientInfo":{"name":"c","version":"1"}}"#,
            "Invalid params: capabilities must be an object",
        ),
    ];
    for (params, message) in cases {
        let body = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"initialize","params":{params}}}"#);
        let refused = server.post(headers, body.as_bytes());
        assert_eq!(refused.status, 200, "{params}");
        assert!(refused.session_id.is_none(), "{params}");
        let reply: serde_json::Value = serde_json::from_slice(&refused.body).unwrap();
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert_eq!(reply["error"]["message"], message, "{reply}");
    }
}

/// `examples/streamable_http.rs` checks a POST's `Accept` and `Content-Type` as MCP's
/// Streamable HTTP asks: "The client MUST include an Accept header, listing both
/// application/json and text/event-stream" (else 406 Not Acceptable; a range such as `*/*`
/// lists a type, one of weight `q=0` refuses it), and the body is JSON (else 415
/// Unsupported Media Type; parameters such as `charset` are allowed). (It checked neither.)
#[test]
fn streamable_http_checks_accept_and_content_type() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(SESSION_S);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let json: &[u8] = b"application/json";
    let both: &[u8] = b"application/json, text/event-stream";
    let cases: &[(&[Field], u16)] = &[
        (&[("Content-Type", json), ("Accept", json)], 406),
        (
            &[("Content-Type", json), ("Accept", b"text/event-stream")],
            406,
        ),
        (&[("Content-Type", json)], 406),
        (
            &[
                ("Content-Type", json),
                ("Accept", b"application/json, text/event-stream;q=0"),
            ],
            406,
        ),
        (
            &[
                ("Content-Type", json),
                ("Accept", b"*/*, text/event-stream; q=0.0"),
            ],
            406,
        ),
        (&[("Content-Type", b"text/plain"), ("Accept", both)], 415),
        (
            &[("Content-Type", b"application/jsonl"), ("Accept", both)],
            415,
        ),
        (&[("Accept", both)], 415),
        (
            &[
                ("Content-Type", b"application/json; charset=utf-8"),
                ("Accept", both),
            ],
            200,
        ),
        (
            &[
                ("content-type", b"Application/JSON"),
                ("accept", b"application/*;q=0.5"),
                ("accept", b"text/*"),
            ],
            200,
        ),
        (&[("Content-Type", json), ("Accept", b"*/*")], 200),
    ];
    let session: &[Field] = &[
        ("Mcp-Session-Id", b"s"),
        ("MCP-Protocol-Version", b"2025-11-25"),
    ];
    for &(headers, status) in cases {
        let headers = &[session, headers].concat();
        assert_eq!(server.post(headers, ping).status, status, "{headers:?}");
        let status = if status == 200 { 202 } else { status };
        assert_eq!(server.post(headers, note).status, status, "{headers:?}");
    }
}

/// `examples/streamable_http.rs`'s client reads on past an event longer than its framer takes,
/// which is the server's to send: the framer reports it once and skips it (the client
/// panicked, `expect`ing no over-long event).
#[test]
fn streamable_http_client_reads_past_an_over_long_event() {
    let mut framer = rpcwire::SseFramer::new(64);
    let long = format!("id: 0\ndata: \"{}\"\n\n", "x".repeat(100));
    let next = "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n";
    streamable_http::read_stream(&mut framer, format!("{long}{next}").as_bytes());
    assert_eq!(framer.last_event_id(), Some(&b"1"[..]));
}

/// `examples/streamable_http.rs`'s client reads the message of an event that also sets the
/// reconnection time (WHATWG lets any event carry a `retry`), where it saw the `retry` alone
/// and never decoded the message; and it takes an event of another type for what it is, not
/// for a message.
#[test]
fn streamable_http_client_reads_a_message_that_comes_with_a_retry() {
    let mut framer = rpcwire::SseFramer::new(1024);
    let mut buf = bytes::BytesMut::from(
        &b"retry: 500\nid: 3\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n\
           event: endpoint\ndata: /messages\n\nid: 4\ndata:\nretry: 9\n\n"[..],
    );
    let decoder = rpcwire::Decoder::mcp_client();
    let mut next = || framer.decode(&mut buf).unwrap().unwrap();
    let described = [next(), next(), next()].map(|e| streamable_http::describe(&decoder, &e));
    assert_eq!(
        described,
        [
            "event 3: notification, retry 500 ms",
            "event (no id): endpoint event",
            "event 4: retry 9 ms",
        ]
    );
}

/// `examples/streamable_http.rs` replays a stream only to its own session: a GET naming
/// another session, or none, gets 400, not the events of a stream it never opened. (Any
/// client could read any session's results by counting stream numbers.)
#[test]
fn streamable_http_replays_a_stream_to_its_own_session_only() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("a", "2025-11-25"), ("b", "2025-11-25")]);
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_sql","arguments":{"query":"SELECT secret"},"_meta":{"progressToken":"p"}}}"#;
    let post: &[Field] = &[
        ("Mcp-Session-Id", b"a"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    assert_eq!(server.post(post, call).status, 200);
    let own: &[Field] = &[("Mcp-Session-Id", b"a"), ("Last-Event-ID", b"0/0")];
    assert_eq!(server.resume(own).status, 200);
    let other: &[Field] = &[("Mcp-Session-Id", b"b"), ("Last-Event-ID", b"0/0")];
    assert_eq!(server.resume(other).status, 400);
    let none: &[Field] = &[("Last-Event-ID", b"0/0")];
    assert_eq!(server.resume(none).status, 400);
}

/// `examples/streamable_http.rs` sends the priming event (an event id and an empty `data:`
/// line) and the `retry` only to a session of 2025-11-25 or later, the revision that brought
/// them (SEP-1699): a reader hands the priming event out as a message with empty data (and
/// some, such as httpx-sse, the `retry`-only event too), which a client of an earlier
/// revision takes for a JSON-RPC message and fails to parse (as the SDKs' clients did, which
/// is why their servers send both from 2025-11-25 on only). An earlier session's events still
/// have ids, and its stream is resumed from them.
#[test]
fn streamable_http_primes_only_a_session_of_2025_11_25_or_later() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("old", "2025-06-18"), ("new", "2025-11-25")]);
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_sql","arguments":{"query":"SELECT 1"},"_meta":{"progressToken":"p"}}}"#;
    for (session, version, primed) in [
        (&b"old"[..], &b"2025-06-18"[..], false),
        (b"new", b"2025-11-25", true),
    ] {
        let post: &[Field] = &[
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", version),
            ("Content-Type", b"application/json"),
            ("Accept", b"application/json, text/event-stream"),
        ];
        let response = server.post(post, call);
        assert_eq!(response.content_type, Some("text/event-stream"));
        let shown = String::from_utf8_lossy(&response.body).into_owned();

        // Every event, those without data included.
        let mut framer = rpcwire::SseFramer::new(1 << 20).yield_empty_events(true);
        let mut body = bytes::BytesMut::from(&response.body[..]);
        let (mut ids, mut empty) = (vec![], vec![]);
        while let Some(event) = framer.decode_eof(&mut body).unwrap() {
            match event.data.is_empty() {
                true => empty.push((event.id, event.retry)),
                false => ids.push(event.id.expect("a message event with an id")),
            }
        }
        // (The second stream the server opened: number 1.)
        let priming = vec![(Some(b"1/0"[..].into()), None), (None, Some(1000))];
        let expected = if primed { priming } else { vec![] };
        assert_eq!(empty, expected, "{shown}");
        assert_eq!(ids.len(), 3, "two progress and the result: {shown}");
        let resume: &[Field] = &[("Mcp-Session-Id", session), ("Last-Event-ID", &ids[0])];
        let replay = server.resume(resume);
        assert_eq!(replay.status, 200);
        let replayed = replay.body[..].split(|&b| b == b'\n');
        assert_eq!(replayed.filter(|l| l.starts_with(b"data: ")).count(), 2);
    }
}

/// `examples/streamable_http.rs` keeps the latest 1024 streams for replay, not every one a
/// client makes it open: the oldest is forgotten.
#[test]
fn streamable_http_forgets_the_oldest_stream() {
    use streamable_http::Server;
    let mut server = Server::new(SESSION_S);
    let ping =
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}"#;
    let post = IN_SESSION_S;
    for _ in 0..=1024 {
        assert_eq!(server.post(post, ping).status, 200);
    }
    let resume = |id: &[u8]| {
        server
            .resume(&[("Mcp-Session-Id", b"s"), ("Last-Event-ID", id)])
            .status
    };
    assert_eq!(resume(b"0/0"), 400);
    assert_eq!(resume(b"1/0"), 200);
    assert_eq!(resume(b"1024/0"), 200);
}

/// `examples/streamable_http.rs` never answers a response the client POSTs: one it refuses
/// (an unsupported `MCP-Protocol-Version`, the header twice) gets 400 with an error reply
/// that has no id, as for a notification ("a JSON-RPC error response that has no id"). It
/// wrote the response's own id, which the client reads as the reply to its own request of
/// that id.
#[test]
fn streamable_http_refuses_a_response_without_its_id() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("old", "2025-11-25")]);
    let response = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let unsupported: &[Field] = &[
        ("MCP-Protocol-Version", b"2024-11-05"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let twice: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let other: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2025-06-18"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    for headers in [unsupported, twice, other] {
        let refused = server.post(headers, response);
        assert_eq!(refused.status, 400);
        let reply: serde_json::Value = serde_json::from_slice(&refused.body).unwrap();
        assert!(reply.get("error").is_some(), "{reply}");
        assert!(reply.get("id").is_none(), "{reply}");
    }
}

/// `examples/streamable_http.rs` answers a `tools/call` of a tool it does not have with
/// -32602, as MCP says ("Unknown tool: invalid params"): the method exists. (It answered
/// -32601 Method not found.)
#[test]
fn streamable_http_answers_an_unknown_tool_with_invalid_params() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("old", "2025-11-25")]);
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"drop_table","arguments":{}}}"#;
    let headers: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let answered = server.post(headers, call);
    assert_eq!(answered.status, 200);
    let reply: serde_json::Value = serde_json::from_slice(&answered.body).unwrap();
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

/// `examples/streamable_http.rs` answers a GET without `Last-Event-ID` (a client opening a
/// stream of the server's own messages, which this server does not offer) with 405, as MCP
/// says: "The server MUST either return Content-Type: text/event-stream in response to this
/// HTTP GET, or else return HTTP 405 Method Not Allowed". (It answered 400.)
#[test]
fn streamable_http_offers_no_stream_to_a_get_without_last_event_id() {
    use streamable_http::{Field, Server};
    let server = Server::new(&[("a", "2025-11-25")]);
    let get: &[Field] = &[("Mcp-Session-Id", b"a"), ("Accept", b"text/event-stream")];
    let response = server.resume(get);
    assert_eq!(response.status, 405);
    assert!(response.body.is_empty());
}

/// `examples/streamable_http.rs` resumes a stream whose every event the client has seen with
/// an empty event stream: still `text/event-stream`, as a GET's 200 must be. (The response
/// had no content type: it was given by the body, which was empty.)
#[test]
fn streamable_http_resumes_a_finished_stream_as_an_event_stream() {
    use streamable_http::Server;
    let mut server = Server::new(SESSION_S);
    let ping =
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}"#;
    let post = IN_SESSION_S;
    let answered = server.post(post, ping);
    assert_eq!(answered.content_type, Some("text/event-stream"));
    // Events 0/0 (priming), 0/1 and 0/2 (progress), 0/3 (the result).
    let resumed = server.resume(&[("Mcp-Session-Id", b"s"), ("Last-Event-ID", b"0/3")]);
    assert_eq!(resumed.status, 200);
    assert!(resumed.body.is_empty());
    assert_eq!(resumed.content_type, Some("text/event-stream"));
}

/// `examples/streamable_http.rs` resumes a stream only from an event id it gave: one past
/// the end of the stream, or one written otherwise than the server wrote it (`0/01`,
/// `0/+1`), names no event of it, and gets 400 as any id the server never gave (the spec
/// lets a server replay or not, and says nothing of such an id: a client sending one is
/// broken, or guessing). (It answered 200 with an empty stream, as if the client had read
/// every event.) The last event's id is a resumption with nothing to replay: 200, empty.
#[test]
fn streamable_http_refuses_an_event_id_past_the_end_of_its_stream() {
    use streamable_http::Server;
    let mut server = Server::new(SESSION_S);
    let ping =
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}"#;
    let post = IN_SESSION_S;
    assert_eq!(server.post(post, ping).status, 200);
    // Events 0/0 (priming), 0/1 and 0/2 (progress), 0/3 (the result).
    let resume = |id: &[u8]| server.resume(&[("Mcp-Session-Id", b"s"), ("Last-Event-ID", id)]);
    let last = resume(b"0/3");
    assert_eq!((last.status, last.body.is_empty()), (200, true));
    for never_given in [
        &b"0/4"[..],
        b"0/18446744073709551615",
        b"0/01",
        b"0/+1",
        b"+0/1",
        b"0/ 1",
    ] {
        let refused = resume(never_given);
        assert_eq!(
            refused.status,
            400,
            "{}",
            String::from_utf8_lossy(never_given)
        );
    }
}

/// `examples/streamable_http.rs` answers a request naming a session it does not know with 404
/// (MCP: a server "MUST respond to requests containing that session ID with HTTP 404 Not
/// Found", which tells the client to start a new session). It read such a request as one of
/// no session, by 2025-03-26's rules: batches and all.
#[test]
fn streamable_http_answers_an_unknown_session_with_404() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("a", "2025-03-26")]);
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    let known: &[Field] = &[
        ("Mcp-Session-Id", b"a"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    assert_eq!(server.post(known, batch).status, 200);
    let unknown: &[Field] = &[
        ("Mcp-Session-Id", b"gone"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let refused = server.post(unknown, batch);
    assert_eq!(refused.status, 404);
    assert!(refused.body.is_empty());
    let get: &[Field] = &[("Mcp-Session-Id", b"gone"), ("Last-Event-ID", b"0/0")];
    assert_eq!(server.resume(get).status, 404);
}

/// `examples/streamable_http.rs` answers a request whose `Mcp-Session-Id` cannot be a session
/// id (MCP: "The session ID MUST only contain visible ASCII characters") with 400, a malformed
/// header, where an unknown session gets 404; the spaces around a known id are no part of it.
#[test]
fn streamable_http_refuses_a_malformed_session_id_with_400() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("a", "2025-11-25")]);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let with_session = |id: &'static [u8]| -> [Field<'static>; 4] {
        [
            ("Mcp-Session-Id", id),
            ("MCP-Protocol-Version", b"2025-11-25"),
            ("Content-Type", b"application/json"),
            ("Accept", b"application/json, text/event-stream"),
        ]
    };
    assert_eq!(server.post(&with_session(b" a\t"), ping).status, 200);
    assert_eq!(server.post(&with_session(b"gone"), ping).status, 404);
    for malformed in [&b"a b"[..], b"a\x7f", "\u{e9}".as_bytes(), b" "] {
        let refused = server.post(&with_session(malformed), ping);
        assert_eq!(refused.status, 400, "{malformed:?}");
        let get = [
            ("Mcp-Session-Id", malformed),
            ("Last-Event-ID", &b"0/0"[..]),
        ];
        assert_eq!(server.resume(&get).status, 400, "{malformed:?}");
    }
}

/// `examples/streamable_http.rs` lists its tool, with the schema whose `x-mcp-header`
/// annotation its client mirrors (the example's client "knows the tool's annotations from
/// `tools/list`"; the server answered it with -32601).
#[test]
fn streamable_http_lists_its_tool() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("old", "2025-11-25")]);
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let headers: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let listed = server.post(headers, list);
    assert_eq!(listed.status, 200);
    let reply: serde_json::Value = serde_json::from_slice(&listed.body).unwrap();
    let tool = &reply["result"]["tools"][0];
    assert_eq!(tool["name"], "execute_sql", "{reply}");
    let region = &tool["inputSchema"]["properties"]["region"];
    assert_eq!(region["x-mcp-header"], "Region");
}

/// `examples/streamable_http.rs` answers a request of MCP 2026-07-28 as that revision's schema
/// says: every result carries its `resultType` ("Servers implementing this protocol version
/// MUST include this field"), `tools/list`'s and `server/discover`'s their caching hints
/// (`CacheableResult`: `ttlMs` and `cacheScope`), and it has `server/discover` ("Servers
/// **MUST** implement `server/discover`"). A session of an earlier revision gets results
/// without them, and no `server/discover`. (Its results of 2026-07-28 had no `resultType`, its
/// list no hints, and `server/discover` got 404.)
#[test]
fn streamable_http_answers_2026_with_result_types_and_discovery() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("old", "2025-11-25")]);
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let post = |server: &mut Server, method: &'static str, id: u32| {
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{meta}}}}}"#);
        let answered = server.post(&modern_post(method), body.as_bytes());
        assert_eq!(answered.status, 200, "{method}");
        let reply: serde_json::Value = serde_json::from_slice(&answered.body).unwrap();
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
        reply
    };
    let listed = post(&mut server, "tools/list", 1);
    assert_eq!(listed["result"]["tools"][0]["name"], "execute_sql");
    assert_eq!(listed["result"]["ttlMs"], 60000, "{listed}");
    assert_eq!(listed["result"]["cacheScope"], "public", "{listed}");
    let discovered = post(&mut server, "server/discover", 2);
    assert_eq!(
        discovered["result"]["supportedVersions"],
        serde_json::json!(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]),
        "{discovered}"
    );
    assert_eq!(
        discovered["result"]["capabilities"]["tools"],
        serde_json::json!({})
    );
    assert_eq!(discovered["result"]["cacheScope"], "public", "{discovered}");

    let old: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let listed = server.post(old, br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
    let reply: serde_json::Value = serde_json::from_slice(&listed.body).unwrap();
    let result = reply["result"].as_object().unwrap();
    assert_eq!(result.keys().collect::<Vec<_>>(), ["tools"], "{reply}");
    let discover = server.post(
        old,
        br#"{"jsonrpc":"2.0","id":4,"method":"server/discover"}"#,
    );
    let reply: serde_json::Value = serde_json::from_slice(&discover.body).unwrap();
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

/// `examples/streamable_http.rs` answers a request of MCP 2026-07-28 whose
/// `MCP-Protocol-Version` has whitespace around the version (no part of the value: RFC 9110,
/// 5.5, "A field value does not include leading or trailing whitespace"; `HeaderCheck` reads
/// it so, and lets the request through) as one of 2026-07-28: its results carry their
/// `resultType` and caching hints, and it has `server/discover`. (It chose the answer's rules
/// by the header's raw text, `" 2026-07-28"`, which sorts before 2026-07-28: results without
/// `resultType`, and -32601 to `server/discover`.) A GET or a DELETE, and a request of an
/// earlier session, read the header the same way.
#[test]
fn streamable_http_reads_the_version_header_without_its_whitespace() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[]);
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    for version in [&b" 2026-07-28"[..], b"\t2026-07-28 ", b"  2026-07-28\t"] {
        let shown = String::from_utf8_lossy(version);
        for method in ["tools/list", "server/discover"] {
            let body =
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{meta}}}}}"#);
            let headers: Vec<Field> = vec![
                ("MCP-Protocol-Version", version),
                ("Mcp-Method", method.as_bytes()),
                ("Content-Type", b"application/json"),
                ("Accept", b"application/json, text/event-stream"),
            ];
            let answered = server.post(&headers, body.as_bytes());
            let reply: serde_json::Value = serde_json::from_slice(&answered.body).unwrap();
            assert_eq!(answered.status, 200, "{shown:?} {method}: {reply}");
            assert_eq!(
                reply["result"]["resultType"], "complete",
                "{shown:?} {method}: {reply}"
            );
            assert_eq!(
                reply["result"]["ttlMs"], 60000,
                "{shown:?} {method}: {reply}"
            );
        }
        // A GET or a DELETE of it: 405, 2026-07-28 has neither (not 400, for a version the
        // server does not speak).
        let bodiless: &[Field] = &[("MCP-Protocol-Version", version)];
        for response in [server.resume(bodiless), server.delete(bodiless)] {
            assert_eq!(response.status, 405, "{shown:?}");
        }
    }
    // An earlier session's header is read the same way, for a POST, a GET or a DELETE.
    let mut server = Server::new(&[("s", "2025-11-25")]);
    let in_session: &[Field] = &[
        ("Mcp-Session-Id", b"s"),
        ("MCP-Protocol-Version", b" 2025-11-25\t"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let ping =
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}"#;
    assert_eq!(server.post(in_session, ping).status, 200);
    let get = [
        in_session[..2].to_vec(),
        vec![("Last-Event-ID", &b"0/0"[..])],
    ]
    .concat();
    assert_eq!(server.resume(&get).status, 200);
    assert_eq!(server.delete(&get).status, 204);
}

/// `examples/streamable_http.rs` holds a request of an earlier session to the version the
/// session negotiated, even when its header (and body) name 2026-07-28: it is still the
/// session's request, and the version is not the session's. (It checked the headers against
/// the body only, and served it.)
#[test]
fn streamable_http_holds_a_session_to_its_version() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("old", "2025-11-25")]);
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let headers: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2026-07-28"),
        ("Mcp-Method", b"tools/list"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let refused = server.post(headers, list);
    assert_eq!(refused.status, 400);
    let reply: serde_json::Value = serde_json::from_slice(&refused.body).unwrap();
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["error"]["code"], -32020, "{reply}");
    // Without the session, the same request is served.
    assert_eq!(server.post(&headers[1..], list).status, 200);
}

/// The headers of a request of MCP 2026-07-28 to `examples/streamable_http.rs`, whose method
/// is `method`: its version and method mirrored, a JSON body, an `Accept` of both answers.
fn modern_post(method: &'static str) -> Vec<streamable_http::Field<'static>> {
    vec![
        ("MCP-Protocol-Version", b"2026-07-28"),
        ("Mcp-Method", method.as_bytes()),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ]
}

/// `examples/streamable_http.rs` validates the `Origin` of every request, as MCP's
/// Streamable HTTP says ("Servers MUST validate the Origin header on all incoming connections
/// to prevent DNS rebinding attacks"; "If the Origin header is present and invalid, servers
/// MUST respond with HTTP 403 Forbidden"): a page of another origin gets 403 for a POST, a
/// GET or a DELETE, whatever else it sends; one of its allowed origins, or a request without
/// `Origin` (no browser's), is served. (It read no `Origin`: any web page could call it.)
#[test]
fn streamable_http_refuses_a_foreign_origin_with_403() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("s", "2025-11-25")]);
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let with_origin = |origin: &'static [u8]| {
        let mut headers = modern_post("tools/list");
        headers.push(("Origin", origin));
        headers
    };
    assert_eq!(server.post(&modern_post("tools/list"), list).status, 200);
    assert_eq!(
        server
            .post(&with_origin(b"http://localhost:3000"), list)
            .status,
        200
    );
    for foreign in [
        &b"http://evil.example"[..],
        b"http://localhost:3000.evil.example",
        b"http://localhost:3001",
        b"null",
    ] {
        let refused = server.post(&with_origin(foreign), list);
        assert_eq!(refused.status, 403, "{}", String::from_utf8_lossy(foreign));
        assert!(refused.session_id.is_none());
        let get: &[Field] = &[
            ("Mcp-Session-Id", b"s"),
            ("Last-Event-ID", b"0/0"),
            ("Origin", foreign),
        ];
        assert_eq!(server.resume(get).status, 403);
        assert_eq!(server.delete(get).status, 403);
    }
    // Two `Origin` headers, one foreign: refused, whichever a proxy reads.
    let mut twice = with_origin(b"http://localhost:3000");
    twice.push(("origin", b"http://evil.example"));
    assert_eq!(server.post(&twice, list).status, 403);
    // The session survived the foreign DELETEs.
    let own: &[Field] = &[("Mcp-Session-Id", b"s"), ("Last-Event-ID", b"0/0")];
    assert_ne!(server.resume(own).status, 404);
}

/// `examples/streamable_http.rs` creates a session at every `initialize`, and reads a request
/// of an earlier revision than 2026-07-28 by its session's version: it requires the session,
/// as MCP says ("Servers that require a session ID SHOULD respond to requests without an
/// Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request"). A request
/// of 2026-07-28, a revision without sessions, needs none. (It served such a request as one
/// of 2025-03-26, or of the version its header named, with no session behind it.)
#[test]
fn streamable_http_requires_the_session_of_an_earlier_revision() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("s", "2025-11-25")]);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let named: &[Field] = &[
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    for (headers, body) in [
        (JSON_POST, &ping[..]),
        (JSON_POST, note),
        (named, ping),
        (named, note),
    ] {
        let refused = server.post(headers, body);
        assert_eq!(refused.status, 400, "{}", String::from_utf8_lossy(body));
    }
    let refused = server.post(named, ping);
    let reply: serde_json::Value = serde_json::from_slice(&refused.body).unwrap();
    assert_eq!(reply["id"], 1, "{reply}");
    // In the session, the same requests are served.
    let in_session = [named, &[("Mcp-Session-Id", &b"s"[..])]].concat();
    assert_eq!(server.post(&in_session, ping).status, 200);
    assert_eq!(server.post(&in_session, note).status, 202);
    // `initialize` needs none: it creates one.
    let initialize = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    assert_eq!(server.post(JSON_POST, initialize).status, 200);
    // A request of 2026-07-28 names its version itself.
    let modern = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    assert_eq!(server.post(&modern_post("tools/list"), modern).status, 200);
}

/// `examples/streamable_http.rs` ends a session on a DELETE naming it (MCP: "Clients that no
/// longer need a particular session ... SHOULD send an HTTP DELETE to the MCP endpoint with
/// the Mcp-Session-Id header"): 204, and 404 for every request naming it from then on. A
/// DELETE naming no session gets 400, an unknown one 404, one naming a version the server
/// does not speak 400 (as a GET: "If the server receives a request with an invalid or
/// unsupported MCP-Protocol-Version, it MUST respond with 400"). Its `handle` answers any other
/// method than GET, POST and DELETE with 405 and the methods it allows. (It had no DELETE:
/// a client could not end its session, and a runner had nothing to answer.)
#[test]
fn streamable_http_deletes_a_session() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("a", "2025-11-25"), ("b", "2025-11-25")]);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let post = |session: &'static [u8]| -> Vec<Field> {
        vec![
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", b"2025-11-25"),
            ("Content-Type", b"application/json"),
            ("Accept", b"application/json, text/event-stream"),
        ]
    };
    let a: &[Field] = &[("Mcp-Session-Id", b"a")];
    let deleted = server.handle("DELETE", a, b"");
    assert_eq!((deleted.status, deleted.body.is_empty()), (204, true));
    assert_eq!(server.post(&post(b"a"), ping).status, 404);
    assert_eq!(server.delete(a).status, 404);
    assert_eq!(server.post(&post(b"b"), ping).status, 200);
    assert_eq!(server.delete(&[]).status, 400);
    assert_eq!(server.delete(&[("Mcp-Session-Id", b"gone")]).status, 404);

    let b: &[Field] = &[("Mcp-Session-Id", b"b")];
    for method in ["PUT", "PATCH", "OPTIONS", "delete"] {
        let refused = server.handle(method, b, b"");
        assert_eq!(refused.status, 405, "{method}");
        assert_eq!(refused.allow, Some("GET, POST, DELETE"), "{method}");
    }
    assert_eq!(server.handle("POST", &post(b"b"), ping).status, 200);

    // A GET or DELETE naming a version the server does not speak: 400, as any request.
    let unsupported: &[Field] = &[
        ("Mcp-Session-Id", b"b"),
        ("MCP-Protocol-Version", b"2024-11-05"),
    ];
    assert_eq!(server.resume(unsupported).status, 400);
    assert_eq!(server.delete(unsupported).status, 400);
    assert_eq!(server.post(&post(b"b"), ping).status, 200);
}

/// `examples/streamable_http.rs` answers a request of 2026-07-28 naming a method it does not
/// have with 404 and -32601, as that revision says ("If the server does not implement the
/// requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code
/// -32601"): `initialize` among them, which the revision has not (no session is created).
/// A session of an earlier revision gets -32601 with 200, as before. (Every version got 200.)
#[test]
fn streamable_http_answers_an_unknown_method_of_2026_with_404() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("old", "2025-11-25")]);
    let list = br#"{"jsonrpc":"2.0","id":7,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}"#;
    let refused = server.post(&modern_post("prompts/list"), list);
    assert_eq!(refused.status, 404);
    assert_eq!(refused.content_type, Some("application/json"));
    let reply: serde_json::Value = serde_json::from_slice(&refused.body).unwrap();
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (7.into(), (-32601).into()),
        "{reply}"
    );

    let initialize = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let refused = server.post(&modern_post("initialize"), initialize);
    assert_eq!(refused.status, 404);
    assert!(refused.session_id.is_none());

    let old: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let list = br#"{"jsonrpc":"2.0","id":7,"method":"prompts/list"}"#;
    let answered = server.post(old, list);
    assert_eq!(answered.status, 200);
    let reply: serde_json::Value = serde_json::from_slice(&answered.body).unwrap();
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

/// `examples/streamable_http.rs` answers a request of 2026-07-28 naming a method that
/// revision removed (`ping`, `logging/setLevel`, `resources/subscribe`: its changelog, "Remove
/// `ping`, `logging/setLevel`, and `notifications/roots/list_changed`", and
/// `subscriptions/listen` in place of `resources/subscribe`) with 404 and -32601, as one it
/// does not implement; a session of 2025-11-25 still gets its `ping` answered. (It answered a
/// `ping` of 2026-07-28 with `{"resultType":"complete"}`.)
#[test]
fn streamable_http_answers_a_method_2026_removed_with_404() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("old", "2025-11-25")]);
    for method in ["ping", "logging/setLevel", "resources/subscribe"] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        );
        let refused = server.post(&modern_post(method), body.as_bytes());
        assert_eq!(refused.status, 404, "{method}");
        let reply: serde_json::Value = serde_json::from_slice(&refused.body).unwrap();
        assert_eq!(reply["id"], 5, "{method}: {reply}");
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
    }
    let old: &[Field] = &[
        ("Mcp-Session-Id", b"old"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let ping = br#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#;
    let answered = server.post(old, ping);
    assert_eq!(answered.status, 200);
    let reply: serde_json::Value = serde_json::from_slice(&answered.body).unwrap();
    assert_eq!(reply["result"], serde_json::json!({}), "{reply}");
}

/// `examples/streamable_http.rs` refuses a request of 2026-07-28 without the client
/// capabilities every request of that revision carries in `_meta` with 400 and -32602 ("A
/// request missing any required field is malformed; the server MUST reject it with JSON-RPC
/// error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad
/// Request"), and serves it with them, `{}` declaring none. (It served it without them.)
#[test]
fn streamable_http_refuses_a_2026_request_without_client_capabilities() {
    use streamable_http::Server;
    let mut server = Server::new(&[]);
    for caps in ["", r#","io.modelcontextprotocol/clientCapabilities":null"#] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"{caps}}}}}}}"#
        );
        let refused = server.post(&modern_post("tools/list"), body.as_bytes());
        assert_eq!(refused.status, 400, "{caps}");
        let reply: serde_json::Value = serde_json::from_slice(&refused.body).unwrap();
        assert_eq!(reply["id"], 4, "{caps}: {reply}");
        assert_eq!(reply["error"]["code"], -32602, "{caps}: {reply}");
    }
    let body = br#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let answered = server.post(&modern_post("tools/list"), body);
    assert_eq!(answered.status, 200);
}

/// `examples/streamable_http.rs` answers a request of 2026-07-28 with a stream that cannot be
/// resumed, as that revision says ("Resumable SSE streams via Last-Event-ID are not
/// supported"; closing the stream cancels the request, after which the server "MUST NOT send
/// any further messages for it"): no event id, no priming event, no `retry`, nothing kept to
/// replay. A GET or DELETE of 2026-07-28 gets 405. (It primed a client of 2026-07-28 to
/// reconnect, and replayed the request's messages after the stream was closed.)
#[test]
fn streamable_http_does_not_resume_a_stream_of_2026() {
    use streamable_http::Server;
    let mut server = Server::new(&[]);
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}"#;
    let answered = server.post(&modern_post("tools/list"), list);
    assert_eq!(answered.status, 200);
    assert_eq!(answered.content_type, Some("text/event-stream"));
    let body = String::from_utf8_lossy(&answered.body).into_owned();
    let events: Vec<&str> = body.split("\n\n").filter(|e| !e.is_empty()).collect();
    assert_eq!(events.len(), 3, "{body}");
    assert!(events.iter().all(|e| e.starts_with("data: {")), "{body}");
    assert_eq!(server.resume(&[("Last-Event-ID", b"0/0")]).status, 400);

    let modern: &[streamable_http::Field] = &[("MCP-Protocol-Version", b"2026-07-28")];
    for response in [server.resume(modern), server.delete(modern)] {
        assert_eq!(response.status, 405);
        assert_eq!(response.allow, Some("POST"));
    }
}

/// `examples/mcp_client.rs` against `examples/mcp_stub_server.rs`: the handshake, four calls at
/// once (progress moving a deadline, the server's own requests answered), a timeout, a call
/// given up, an error, and the stale reply the stub sends after a cancellation, dropped.
#[cfg(all(feature = "tokio", feature = "serde"))]
#[test]
fn mcp_client_example_plays_its_scenario() {
    assert_eq!(
        run_example("mcp_client"),
        [
            "initialize: stub-server 0.1.0, protocol 2025-11-25, capabilities: tools",
            "tools/list: echo, add, slow, ask, hang",
            "4 calls at once:",
            "  echo -> hello",
            "  add -> 2 + 3 = 5",
            "  slow (timeout 800 ms, moved by each progress) -> done in 5 steps; progress 1/5 2/5 3/5 4/5 5/5",
            "  ask -> ping -> {}, roots/list -> error -32601",
            "server asked: ping (answered {}), roots/list (answered -32601 Method not found)",
            "hang (timeout 300 ms) -> timed out",
            "slow (given up after progress 1/50) -> cancelled",
            "nope -> error -32602: Unknown tool",
            "dropped replies: 1 stale, 0 unknown; in flight: 0",
            "server exited: 0",
        ]
    );
}

/// `examples/mcp_client.rs` takes an error reply whose id is `null` (the form Python peers
/// write for a line they could not read) for one without an id, as MCP's schema writes it: a
/// reply that names no request, reported as such, not counted as a reply to an id never sent.
#[cfg(all(unix, feature = "tokio", feature = "serde"))]
#[test]
fn mcp_client_example_reports_a_null_id_error_as_naming_no_request() {
    // A server that answers `initialize` (id 1, the table's first token), then writes the
    // error, then answers `tools/list` (id 262145: the first slot's next generation).
    let server = r#"read l; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sh","version":"1"}}}'
read l; echo '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
read l; echo '{"jsonrpc":"2.0","id":262145,"result":{"tools":[]}}'
while read l; do :; done"#;
    let out = Command::new(example_path("mcp_client"))
        .args(["sh", "-c", server])
        .output()
        .expect("run mcp_client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("tools/list: \n"), "{stdout}");
    assert!(
        stderr.contains("client: error reply without an id: ErrorResponse"),
        "{stderr}"
    );
}

/// `examples/mcp_client.rs` spawns the stub server from next to its own executable, which
/// `cargo run --example mcp_client` does not build: without it, the client says what to build
/// rather than failing with a bare "No such file or directory".
#[cfg(all(feature = "tokio", feature = "serde"))]
#[test]
fn mcp_client_example_says_to_build_the_stub_server() {
    let dir = std::env::temp_dir().join(format!("rpcwire-mcp-client-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let client = dir.join(format!("mcp_client{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(example_path("mcp_client"), &client).unwrap();
    let out = Command::new(&client)
        .output()
        .expect("run the copied mcp_client");
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cargo build --example mcp_stub_server --features tokio,serde"),
        "{stderr}"
    );
}

/// Waits for `child` to exit, at most `within` (then kills it: `None`); its exit status and
/// everything it wrote to stdout (which the test's inputs keep within a pipe's buffer).
#[cfg(all(feature = "tokio", feature = "serde"))]
fn wait_within(
    child: &mut std::process::Child,
    within: std::time::Duration,
) -> Option<(std::process::ExitStatus, String)> {
    use std::io::Read;
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > within {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    Some((status, out))
}

/// Runs `examples/mcp_stub_server.rs` on `input` (then end of input, as a client that goes
/// away) and returns its output lines, or `None` if it has not exited `within` later.
#[cfg(all(feature = "tokio", feature = "serde"))]
fn run_stub_server(input: &str, within: std::time::Duration) -> Option<Vec<String>> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(example_path("mcp_stub_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run mcp_stub_server (built by `cargo test`)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let (status, out) = wait_within(&mut child, within)?;
    assert!(
        status.success(),
        "the stub server failed: {status}; wrote {out}"
    );
    Some(out.lines().map(str::to_owned).collect())
}

/// The stub server's `add` adds any two integers a client sends: a sum past `i64` is no
/// reason to crash (it did, with an overflow panic, taking every other request with it).
#[cfg(all(feature = "tokio", feature = "serde"))]
#[test]
fn mcp_stub_server_adds_past_i64() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":9223372036854775807,"b":1}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        "\n",
    );
    let lines = run_stub_server(input, std::time::Duration::from_secs(10)).expect("exits");
    assert_eq!(lines.len(), 2, "{lines:?}");
    let sum: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(sum["id"], 1);
    assert_eq!(
        sum["result"]["content"][0]["text"],
        "9223372036854775807 + 1 = 9223372036854775808"
    );
    assert_eq!(lines[1], r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
}

/// The stub server refuses an `initialize` whose params break the schema (here without
/// `clientInfo`, and with `protocolVersion` twice) with -32602 naming the member, and answers a
/// valid one. (It answered every `initialize`, whatever its params.)
#[cfg(all(feature = "tokio", feature = "serde"))]
#[test]
fn mcp_stub_server_refuses_initialize_params_that_break_the_schema() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
    );
    let lines = run_stub_server(input, std::time::Duration::from_secs(10)).expect("exits");
    assert_eq!(
        lines[..2],
        [
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: clientInfo is required"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: protocolVersion is given twice"}}"#,
        ],
        "{lines:?}"
    );
    let answer: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
    assert_eq!(answer["id"], 3);
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );
    assert_eq!(lines.len(), 3, "{lines:?}");
}

/// The stub server refuses a request reusing the id of one still running (a `hang`), whatever
/// its method, a quick `echo` or `ping` too: two replies with one id could not be told apart
/// (it answered them, before the id of a running request was checked for every request).
#[cfg(all(feature = "tokio", feature = "serde"))]
#[test]
fn mcp_stub_server_refuses_an_id_still_running() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hang","arguments":{}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
        "\n",
    );
    let lines = run_stub_server(input, std::time::Duration::from_secs(10)).expect("exits");
    assert_eq!(lines.len(), 3, "{lines:?}");
    for line in &lines[..2] {
        let reply: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            (&reply["id"], &reply["error"]["code"]),
            (&5.into(), &(-32600).into()),
            "{line}"
        );
    }
    assert_eq!(lines[2], r#"{"jsonrpc":"2.0","id":6,"result":{}}"#);
}

/// A client that goes away in the middle of its requests (an `ask` waiting for its answer, a
/// long `slow`, a `hang`) leaves nothing running: the stub server exits at once (it waited
/// for the `ask` forever, and for the `slow` to the end of its steps).
#[cfg(all(feature = "tokio", feature = "serde"))]
#[test]
fn mcp_stub_server_exits_when_its_client_goes_away_mid_request() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"steps":1000,"ms":1000}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hang","arguments":{}}}"#,
        "\n",
    );
    // (Its `slow` alone would run 1000 s: the bound leaves a loaded machine time to start
    // the process.)
    let lines = run_stub_server(input, std::time::Duration::from_secs(20))
        .expect("the stub server exits when its input ends");
    // At most the question `ask` sent, if it did before the client left.
    let ask = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert!(lines.iter().all(|line| line == ask), "{lines:?}");
}

/// `examples/tokio_server.rs` goes on serving after an error accepting a connection: a peer
/// that opens more connections than the process has file descriptors makes `accept` fail
/// (EMFILE), and the server ended there, for every client.
#[cfg(all(unix, feature = "tokio"))]
#[test]
fn tokio_server_survives_running_out_of_file_descriptors() {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpStream;
    use std::process::Stdio;
    use std::time::Duration;

    let mut server = Command::new("sh")
        .args(["-c", "ulimit -n 32 && exec \"$0\" 127.0.0.1:0"])
        .arg(example_path("tokio_server"))
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tokio_server (built by `cargo test --features tokio`)");
    let mut log = BufReader::new(server.stderr.take().unwrap()).lines();
    let first = log.next().unwrap().unwrap();
    let addr = first
        .strip_prefix("listening on ")
        .expect("the address")
        .to_owned();
    // Drain the rest of its log, so that the server never blocks writing it.
    std::thread::spawn(move || log.for_each(drop));

    // More connections than the server has descriptors for, held open a moment.
    let held: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    drop(held);
    std::thread::sleep(Duration::from_millis(500));

    let answered = (|| {
        let mut client = TcpStream::connect(&addr).ok()?;
        client.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        client
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}\n")
            .ok()?;
        let mut reply = String::new();
        BufReader::new(client).read_line(&mut reply).ok()?;
        Some(reply)
    })();
    let exited = server.try_wait().unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(exited, None, "the server exited");
    assert_eq!(
        answered.as_deref(),
        Some("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")
    );
}

/// `examples/mcp_stub_server.rs` reads its client by the rules of the version `initialize`
/// settled (2025-11-25), under which a result's `resultType` is a member like any other: the
/// client's answer to the `ask` tool's `ping` carrying one is an answer, and `ask` goes on to
/// its next question. (It read every session by 2026-07-28's rules, refused that answer as an
/// invalid response, and `ask` waited for it forever.)
#[cfg(all(feature = "tokio", feature = "serde"))]
#[test]
fn mcp_stub_server_reads_its_client_by_the_negotiated_version() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::time::Duration;
    let mut child = Command::new(example_path("mcp_stub_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run mcp_stub_server (built by `cargo test`)");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut send = |line: &str| stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
    send(
        r#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    send(
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"ask","arguments":{}}}"#,
    );
    // (A bound on a hang, long enough for a loaded machine to start the process.)
    let next = || lines.recv_timeout(Duration::from_secs(20)).ok();
    let init: serde_json::Value = serde_json::from_str(&next().expect("initialize")).unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let ping: serde_json::Value = serde_json::from_str(&next().expect("a ping")).unwrap();
    assert_eq!(ping["method"], "ping");
    let answer =
        serde_json::json!({"jsonrpc":"2.0","id":ping["id"],"result":{"resultType":"later"}});
    send(&answer.to_string());
    let question = next();
    let _ = child.kill();
    let _ = child.wait();
    let question: serde_json::Value =
        serde_json::from_str(&question.expect("the next question")).unwrap();
    assert_eq!(question["method"], "roots/list");
}

/// `examples/mcp_stub_server.rs` holds no more than a few replies for a client that sends
/// and does not read them: it stops reading until its stdout drains. (It read on, queueing
/// every reply in memory: a flood of pings grew it without bound.)
#[cfg(all(target_os = "linux", feature = "tokio", feature = "serde"))]
#[test]
fn mcp_stub_server_holds_few_replies_for_a_client_that_does_not_read() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(example_path("mcp_stub_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run mcp_stub_server (built by `cargo test`)");
    let rss_kib = |pid: u32| -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    // 64 MiB of pings, from a thread: once the stub stops reading, the writes block.
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1234567,\"method\":\"ping\"}\n".repeat(1 << 14);
        for _ in 0..(64 << 20) / ping.len() {
            if stdin.write_all(&ping).is_err() {
                return;
            }
        }
    });
    std::thread::sleep(std::time::Duration::from_secs(3));
    let after = rss_kib(child.id());
    child.kill().unwrap();
    child.wait().unwrap();
    // (A few MiB for the process itself; the flood's replies would take hundreds.)
    assert!(after < 48 * 1024, "RSS grew to {after} KiB");
}

/// `examples/mcp_stub_server.rs` keeps at most as many requests running as its table of
/// running requests holds (1024), `ask`s included, which wait for the client's answers: the
/// next is refused with -32603. (An `ask` was never counted: a client that never answers
/// could keep any number waiting, and past the table of questions, 65536, the task panicked
/// and the request went unanswered.)
#[cfg(all(feature = "tokio", feature = "serde"))]
#[test]
fn mcp_stub_server_bounds_the_asks_waiting_for_answers() {
    let ask = |id: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ask","arguments":{{}}}}}}"#
        ) + "\n"
    };
    let input: String = (1..=1025).map(ask).collect();
    let lines = run_stub_server(&input, std::time::Duration::from_secs(10)).expect("exits");
    let refused =
        r#"{"jsonrpc":"2.0","id":1025,"error":{"code":-32603,"message":"too many requests"}}"#;
    assert!(
        lines.iter().any(|line| line == refused),
        "{:?}",
        &lines[lines.len().saturating_sub(3)..]
    );
}

/// `examples/mcp_client.rs` runs `server` (a shell script) as its server and returns its
/// exit status and output lines, or `None` if it has not exited `within` later.
#[cfg(all(unix, feature = "tokio", feature = "serde"))]
fn run_mcp_client(
    server: &str,
    within: std::time::Duration,
) -> Option<(std::process::ExitStatus, Vec<String>)> {
    use std::process::Stdio;
    let mut client = Command::new(example_path("mcp_client"))
        .args(["sh", "-c", server])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run mcp_client (built by `cargo test --all-features`)");
    let (status, out) = wait_within(&mut client, within)?;
    Some((status, out.lines().map(str::to_owned).collect()))
}

/// `examples/mcp_client.rs` refuses a session in a protocol version it does not speak (MCP:
/// "If the client does not support the version in the server's response, it SHOULD
/// disconnect"): it fails `initialize` and exits. (It took any version the server named, and
/// even set its decoder by it.)
#[cfg(all(unix, feature = "tokio", feature = "serde"))]
#[test]
fn mcp_client_refuses_a_protocol_version_it_does_not_speak() {
    let server = r#"read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\),.*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2099-01-01","capabilities":{},"serverInfo":{"name":"future","version":"1"}}}\n' "$id"
cat >/dev/null"#;
    let (status, lines) = run_mcp_client(server, std::time::Duration::from_secs(10))
        .expect("the client gives up on the session");
    assert!(!status.success(), "{lines:?}");
    assert!(lines.is_empty(), "{lines:?}");
}

/// `examples/mcp_client.rs` reads a 2025-03-26 server's batch element by element: the reply
/// to its `tools/list` inside it reaches the call, and the server's requests in it (`ping`,
/// and `roots/list`, which it refuses) are answered with one array, in their order; the
/// notification gets nothing. (It dropped every batch: the call timed out and the server's
/// requests went unanswered.)
#[cfg(all(unix, feature = "tokio", feature = "serde"))]
#[test]
fn mcp_client_reads_a_batch_of_a_2025_03_26_server() {
    let dir = std::env::temp_dir().join(format!("rpcwire-batch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let heard = dir.join("heard");
    let server = format!(
        r#"read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\),.*/\1/')
printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-03-26","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"batcher","version":"1"}}}}}}\n' "$id"
read -r initialized
read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\),.*/\1/')
printf '[{{"jsonrpc":"2.0","id":77,"method":"ping"}},{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"hi"}}}},{{"jsonrpc":"2.0","id":%s,"result":{{"tools":[{{"name":"t1","inputSchema":{{"type":"object"}}}}]}}}},{{"jsonrpc":"2.0","id":"r","method":"roots/list"}}]\n' "$id"
cat >'{}'"#,
        heard.display()
    );
    let (status, lines) = run_mcp_client(&server, std::time::Duration::from_secs(20))
        .expect("the client ends its session");
    let heard = std::fs::read_to_string(&heard).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(status.success(), "{lines:?}");
    assert!(lines.iter().any(|l| l == "tools/list: t1"), "{lines:?}");
    assert_eq!(
        heard,
        concat!(
            r#"[{"jsonrpc":"2.0","id":77,"result":{}},"#,
            r#"{"jsonrpc":"2.0","id":"r","error":{"code":-32601,"message":"Method not found","data":"roots/list"}}]"#,
            "\n"
        )
    );
}

/// `examples/mcp_client.rs` gives `tools/list` a deadline, as `initialize` has one: a server
/// that answers the handshake and then never answers does not hang the client. (It waited
/// forever.)
#[cfg(all(unix, feature = "tokio", feature = "serde"))]
#[test]
fn mcp_client_gives_up_on_a_tools_list_never_answered() {
    let server = r#"read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\),.*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"mute","version":"1"}}}\n' "$id"
cat >/dev/null"#;
    // `tools/list` times out after 10 s.
    let (status, lines) = run_mcp_client(server, std::time::Duration::from_secs(20))
        .expect("the client gives up on tools/list");
    assert!(!status.success(), "{lines:?}");
    assert!(
        lines.iter().all(|l| !l.starts_with("tools/list")),
        "{lines:?}"
    );
}

/// `examples/mcp_client.rs` takes progress only on the token of a request that asked for it
/// (MCP: progress "MUST only reference tokens that were provided in an active request"):
/// progress naming the id of its `initialize`, which asked for none, does not keep it from
/// timing out. (Tokens are ids: the progress moved the deadline, and a server that sent it
/// every second kept the client waiting forever.)
#[cfg(all(unix, feature = "tokio", feature = "serde"))]
#[test]
fn mcp_client_takes_progress_only_where_it_asked_for_some() {
    let server = r#"read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\),.*/\1/')
n=0
while :; do
  n=$((n+1))
  printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%s}}\n' "$id" "$n"
  sleep 1
done"#;
    // `initialize` times out after 10 s.
    let (status, lines) =
        run_mcp_client(server, std::time::Duration::from_secs(20)).expect("initialize times out");
    assert!(!status.success(), "{lines:?}");
    assert!(lines.is_empty(), "{lines:?}");
}

/// `examples/mcp_client.rs` holds few replies for a server that floods it with requests and
/// does not read its stdin: it stops reading the server until they are written. (It read on,
/// queueing a reply and a transcript line for each: it grew without bound.)
#[cfg(all(target_os = "linux", feature = "tokio", feature = "serde"))]
#[test]
fn mcp_client_holds_few_replies_for_a_server_that_does_not_read() {
    use std::process::Stdio;
    let ping = r#"{"jsonrpc":"2.0","id":1234567,"method":"ping"}"#;
    let mut client = Command::new(example_path("mcp_client"))
        .args(["yes", ping])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run mcp_client (built by `cargo test --all-features`)");
    std::thread::sleep(std::time::Duration::from_secs(3));
    let status = std::fs::read_to_string(format!("/proc/{}/status", client.id())).unwrap();
    client.kill().unwrap();
    client.wait().unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let rss_kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    // (A few MiB for the process itself; the flood's replies would take hundreds.)
    assert!(rss_kib < 48 * 1024, "RSS grew to {rss_kib} KiB");
}

/// `examples/streamable_http.rs` reads an `Accept` whose parameter is a quoted string holding
/// a comma (RFC 9110's `quoted-string`) as one media range: the comma splits no range. (It
/// split there, and took the rest of the quoted string for a range of its own: a range
/// refusing the event stream that no client wrote, or one listing JSON.)
#[test]
fn streamable_http_reads_commas_inside_quoted_accept_parameters() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(SESSION_S);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let cases: &[(&[u8], u16)] = &[
        (
            br#"text/plain;a="x,text/event-stream;q=0;b=", application/json, text/event-stream"#,
            200,
        ),
        (
            br#"text/html;a=", application/json;", text/event-stream"#,
            406,
        ),
        (
            br#"text/event-stream;a="\",application/json", application/json;q=0.5"#,
            200,
        ),
    ];
    for &(accept, status) in cases {
        let headers: &[Field] = &[
            ("Mcp-Session-Id", b"s"),
            ("MCP-Protocol-Version", b"2025-11-25"),
            ("Content-Type", b"application/json"),
            ("Accept", accept),
        ];
        let answered = server.post(headers, ping);
        assert_eq!(
            answered.status,
            status,
            "{}",
            String::from_utf8_lossy(accept)
        );
    }
}

/// `examples/gateway.rs` answers a client's second `initialize` sent while its first waits
/// for the upstream with -32600, as it does one sent after its first was answered: a
/// session is initialized once. (It queued both, and answered the client's one handshake
/// twice.)
#[test]
fn gateway_refuses_a_second_initialize_while_the_first_waits() {
    let mut gw = gateway::Gateway::new(1);
    gw.client_read(0, initialize_line("1", "2025-11-25").as_bytes(), 0);
    gw.client_read(0, initialize_line("2", "2025-11-25").as_bytes(), 0);
    let refused = json_lines(&gw.clients[0].split());
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["id"], 2);
    assert_eq!(refused[0]["error"]["code"], -32600, "{refused:?}");
    assert_eq!(json_lines(&gw.upstream.split()).len(), 1, "one initialize");
    let result = r#"{"jsonrpc":"2.0","id":"gateway-initialize","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    gw.upstream_line(result.as_bytes(), 1);
    let replies = json_lines(&gw.clients[0].split());
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["id"], 1);
    assert!(replies[0]["result"].is_object(), "{replies:?}");
}
/// `examples/gateway.rs` sends its `initialize` upstream with a progress token of its own
/// when the client's asks for progress, never the client's: the client's token, sent as it
/// was, may be one the gateway mints for another client's request, and the upstream's
/// progress on the handshake would reach that client as its own progress. (It sent the
/// client's token.)
#[test]
fn gateway_sends_no_client_progress_token_in_its_initialize() {
    let mut gw = gateway::Gateway::new(2);
    // Client 1's ping (before its handshake, as MCP allows) asks for progress: upstream it is
    // token 1, and so is its progress token.
    gw.client_read(
        1,
        b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"_meta\":{\"progressToken\":\"mine\"}}}\n",
        0,
    );
    let ping = json_lines(&gw.upstream.split());
    let token = ping[0]["id"].clone();
    assert_eq!(ping[0]["params"]["_meta"]["progressToken"], token);
    // Client 0 initializes, asking for progress under that same number.
    let initialize = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"_meta":{{"progressToken":{token}}},"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
    ) + "\n";
    gw.client_read(0, initialize.as_bytes(), 0);
    let upstream = json_lines(&gw.upstream.split());
    let [sent] = &upstream[..] else {
        panic!("one initialize: {upstream:?}")
    };
    assert_eq!(sent["method"], "initialize");
    assert_eq!(sent["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(sent["params"]["clientInfo"]["name"], "c");
    let progress_token = sent["params"]["_meta"]["progressToken"].clone();
    assert!(
        progress_token.is_string(),
        "a token the gateway never mints: {sent}"
    );
    // The upstream reports progress on the handshake: client 1 hears nothing of it.
    let progress = serde_json::json!({"jsonrpc":"2.0","method":"notifications/progress",
        "params":{"progressToken":progress_token,"progress":1}});
    gw.upstream_line(progress.to_string().as_bytes(), 1);
    assert!(gw.clients[1].is_empty(), "{:?}", gw.clients[1]);

    // A progress token the remapper could not rewrite either is refused, as for any request.
    let mut gw = gateway::Gateway::new(1);
    let bad = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"_meta":{"progressToken":{}},"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    gw.client_read(0, format!("{bad}\n").as_bytes(), 0);
    assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
    let refused = json_lines(&gw.clients[0].split());
    assert_eq!(refused[0]["error"]["code"], -32602, "{refused:?}");
}

/// `examples/gateway.rs` refuses a client's `initialize` under the id of its request in
/// flight (a `ping`, which may go before the handshake), and a request under the id of its
/// `initialize` waiting, with -32600, as it refuses any reused id: each would be answered
/// twice under one id, and a cancellation naming it would reach the other. (It took both.)
#[test]
fn gateway_refuses_an_id_reused_around_the_handshake() {
    let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    // A ping in flight, then an initialize under its id.
    let mut gw = gateway::Gateway::new(1);
    gw.client_read(0, ping, 0);
    gw.client_read(0, initialize_line("1", "2025-11-25").as_bytes(), 0);
    let upstream = json_lines(&gw.upstream.split());
    assert_eq!(upstream.len(), 1, "only the ping: {upstream:?}");
    let refused = json_lines(&gw.clients[0].split());
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["error"]["code"], -32600, "{refused:?}");
    // An initialize waiting, then a ping under its id.
    let mut gw = gateway::Gateway::new(1);
    gw.client_read(0, initialize_line("1", "2025-11-25").as_bytes(), 0);
    gw.client_read(0, ping, 0);
    let upstream = json_lines(&gw.upstream.split());
    assert_eq!(upstream.len(), 1, "only the initialize: {upstream:?}");
    let refused = json_lines(&gw.clients[0].split());
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["error"]["code"], -32600, "{refused:?}");
}

/// `examples/gateway.rs` with MCP 2025-11-25 tasks: client 0's task-augmented call creates a
/// task; client 1 naming it in `tasks/get`, `tasks/result` or `tasks/cancel` is answered
/// -32602 as for a task not found, nothing sent upstream; client 0's `tasks/result`, which
/// blocks until the task ends, gets no timeout, and its result reaches client 0; after the
/// task ended, within its ttl, client 1 still cannot fetch it, and client 0's `tasks/list`
/// lists its own task only; once its ttl passed, it is refused to every client. (A foreign
/// task's requests went upstream, and `tasks/result` timed out after 30 s.)
#[test]
fn gateway_keeps_a_task_to_its_client() {
    let mut gw = initialized_gateway(2);
    gw.client_read(
        0,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","task":{"ttl":600000}}}
"#,
        0,
    );
    let upstream = json_lines(&gw.upstream.split());
    let token = upstream[0]["id"].clone();
    let created = serde_json::json!({"jsonrpc":"2.0","id":token,"result":{"task":{
        "taskId":"t-1","status":"working","createdAt":"2025-11-25T10:30:00Z",
        "lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":600000}}});
    gw.upstream_line(created.to_string().as_bytes(), 1);
    assert_eq!(json_lines(&gw.clients[0].split())[0]["id"], 1);

    let op = |id: u32, method: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"taskId":"t-1"}}}}"#)
            + "\n"
    };
    let not_found = |id: u32| serde_json::json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}});
    let refuse_all = |gw: &mut gateway::Gateway, now: u64| {
        for (id, method) in [(2, "tasks/get"), (3, "tasks/result"), (4, "tasks/cancel")] {
            gw.client_read(1, op(id, method).as_bytes(), now);
            assert_eq!(
                json_lines(&gw.clients[1].split()),
                [not_found(id)],
                "{method}"
            );
        }
        assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
    };
    refuse_all(&mut gw, 2);

    // The owner's `tasks/result` waits past the usual timeout.
    gw.client_read(0, op(5, "tasks/result").as_bytes(), 3);
    let fetch = json_lines(&gw.upstream.split());
    assert_eq!(fetch[0]["method"], "tasks/result");
    gw.tick(3 + 10 * 30_000);
    assert!(gw.clients[0].is_empty(), "{:?}", gw.clients[0]);
    assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
    let result = serde_json::json!({"jsonrpc":"2.0","id":fetch[0]["id"],"result":{"content":[],
        "_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}});
    let now = 4 + 10 * 30_000;
    gw.upstream_line(result.to_string().as_bytes(), now);
    let got = json_lines(&gw.clients[0].split());
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["id"], 5);
    assert_eq!(got[0]["result"]["content"], serde_json::json!([]));

    // Ended, within its ttl: still client 0's.
    refuse_all(&mut gw, now);
    gw.client_read(
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tasks/list\"}\n",
        now,
    );
    let list = json_lines(&gw.upstream.split());
    let task = |id: &str| serde_json::json!({"taskId":id,"status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":600000});
    let listed = serde_json::json!({"jsonrpc":"2.0","id":list[0]["id"],"result":{"tasks":[task("t-0"),task("t-1")]}});
    gw.upstream_line(listed.to_string().as_bytes(), now);
    assert_eq!(
        json_lines(&gw.clients[0].split()),
        [serde_json::json!({"jsonrpc":"2.0","id":6,"result":{"tasks":[task("t-1")]}})]
    );
    // Its ttl passed (from the CreateTaskResult, at 1): the gateway no longer keeps it, and
    // refuses it to every client, its own too (the upstream may have deleted it).
    gw.tick(1 + 600_000);
    refuse_all(&mut gw, 1 + 600_000);
    gw.client_read(0, op(7, "tasks/get").as_bytes(), 1 + 600_000);
    assert_eq!(json_lines(&gw.clients[0].split()), [not_found(7)]);
    assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
}

/// `examples/gateway.rs` owns the upstream session from its `initialize`, so every task
/// created in it came back through the gateway: a `tasks/get`, `tasks/result` or
/// `tasks/cancel` naming a task the gateway does not keep (never created, past its ttl, its
/// record given up for room) is answered -32602 as for a task not found, as a task of
/// another client's is, and nothing goes upstream. (It went upstream, failing open: a client
/// whose request pushed another client's record out could then fetch that client's task.) A
/// task id that does not read as one string is refused as the remapper refuses it.
#[test]
fn gateway_refuses_a_task_it_does_not_keep() {
    let mut gw = initialized_gateway(1);
    for (id, method) in [(1, "tasks/get"), (2, "tasks/result"), (3, "tasks/cancel")] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"taskId":"t-9"}}}}"#
        ) + "\n";
        gw.client_read(0, line.as_bytes(), 0);
        let not_found = serde_json::json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}});
        assert_eq!(json_lines(&gw.clients[0].split()), [not_found], "{method}");
        assert!(gw.upstream.is_empty(), "{method}: {:?}", gw.upstream);
    }
    let line = r#"{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":7}}"#;
    gw.client_read(0, format!("{line}\n").as_bytes(), 0);
    let refused = json_lines(&gw.clients[0].split());
    assert_eq!(refused[0]["error"]["code"], -32602, "{refused:?}");
    assert!(gw.upstream.is_empty(), "{:?}", gw.upstream);
    // `tasks/list` names no task: it goes upstream.
    let line = r#"{"jsonrpc":"2.0","id":5,"method":"tasks/list"}"#;
    gw.client_read(0, format!("{line}\n").as_bytes(), 0);
    assert_eq!(json_lines(&gw.upstream.split())[0]["method"], "tasks/list");
}

/// The Tasks extension of MCP 2026-07-28 names a task in two more requests, which the
/// remapper checks as it checks `tasks/get`: `tasks/update` (its `params.taskId`) and a
/// `subscriptions/listen` asking for task statuses (its `params.notifications.taskIds`, whose
/// `notifications/tasks` carry the task's result). `examples/gateway.rs`, failing closed,
/// answers one naming a task it does not keep -32602 as for a task not found, and sends
/// nothing upstream. (Both went upstream: a client whose request pushed another client's
/// record out could then answer that task's input requests, or read its result on a
/// stream.) A listen request naming no task, or tasks the client's own, goes upstream.
#[test]
fn gateway_refuses_an_extension_request_naming_a_task_it_does_not_keep() {
    let mut gw = initialized_gateway(1);
    let not_found = |id: u32| serde_json::json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}});
    let update = r#"{"jsonrpc":"2.0","id":1,"method":"tasks/update","params":{"taskId":"t-9","inputResponses":{}}}"#;
    let listen = r#"{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"taskIds":["t-9"]}}}"#;
    for (id, line) in [(1, update), (2, listen)] {
        gw.client_read(0, format!("{line}\n").as_bytes(), 0);
        assert_eq!(
            json_lines(&gw.clients[0].split()),
            [not_found(id)],
            "{line}"
        );
        assert!(gw.upstream.is_empty(), "{line}: {:?}", gw.upstream);
    }
    let listen = r#"{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"taskIds":[]}}}"#;
    gw.client_read(0, format!("{listen}\n").as_bytes(), 0);
    assert_eq!(
        json_lines(&gw.upstream.split())[0]["method"],
        "subscriptions/listen"
    );
}

/// `examples/gateway.rs` keeps nothing of a closed connection's for the next one in its
/// slot: a line written for the old connection and not yet sent (here the refusal of a
/// request sent before its `initialize`) is dropped with it, so the new connection in the
/// slot gets its own replies only. (It got the old connection's refusal, under an id the
/// new client may have in flight, before its own result.)
#[test]
fn gateway_keeps_no_line_of_a_closed_client_for_the_next() {
    let mut gw = initialized_gateway(1);
    gw.client_closed(0);
    gw.client_read(
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
        0,
    );
    assert_eq!(json_lines(&gw.clients[0])[0]["error"]["code"], -32600);
    // The connection goes before that refusal was written to it.
    gw.client_closed(0);
    // A new connection in slot 0 initializes, under id 1 too.
    gw.client_read(0, initialize_line("1", "2025-11-25").as_bytes(), 0);
    let got = json_lines(&gw.clients[0].split());
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["id"], 1);
    assert_eq!(got[0]["result"]["protocolVersion"], "2025-11-25");
}

/// `examples/gateway.rs` refuses a client's request under a notification's method (-32601:
/// no server offers a `notifications/…` method) instead of forwarding it. Forwarded, its
/// params went as the client wrote them: a `notifications/cancelled` request's `requestId`
/// is the client's own id, which an upstream acting on the method read as the gateway's token
/// of another client's request. (`IdRemapper::forward_cancel` rewrites a cancellation sent
/// as a notification; one sent as a request went upstream untouched.)
#[test]
fn gateway_refuses_a_request_under_a_notifications_method() {
    let mut gw = initialized_gateway(2);
    gw.client_read(
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}\n",
        0,
    );
    let token = json_lines(&gw.upstream.split())[0]["id"].clone();
    for method in ["notifications/cancelled", "notifications/initialized"] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{"requestId":{token}}}}}"#
        ) + "\n";
        gw.client_read(1, line.as_bytes(), 0);
        assert!(gw.upstream.is_empty(), "{method}: {:?}", gw.upstream);
        let refused = json_lines(&gw.clients[1].split());
        assert_eq!(refused.len(), 1, "{method}: {refused:?}");
        assert_eq!(refused[0]["id"], 7);
        assert_eq!(refused[0]["error"]["code"], -32601, "{method}");
    }
    // Client 0's call is still in flight, and answered.
    let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"content":[]}}}}"#);
    gw.upstream_line(reply.as_bytes(), 1);
    assert_eq!(json_lines(&gw.clients[0].split())[0]["id"], 1);
}

/// `examples/streamable_http.rs` holds a GET and a DELETE of an earlier session to the
/// session's version, as a POST: a header naming another version the server speaks is not
/// the session's, and gets 400 ("If the server receives a request with an invalid or
/// unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"), as does the
/// version sent twice. The session's own version, or none, is served. (A GET or DELETE
/// was checked only for a version the server speaks: it resumed the session's stream, or
/// ended the session.)
#[test]
fn streamable_http_holds_a_get_and_a_delete_to_the_sessions_version() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(SESSION_S);
    let ping =
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}"#;
    assert_eq!(server.post(IN_SESSION_S, ping).status, 200);
    let get = |version: &'static [u8]| -> Vec<Field> {
        vec![
            ("Mcp-Session-Id", b"s"),
            ("Last-Event-ID", b"0/0"),
            ("MCP-Protocol-Version", version),
        ]
    };
    for other in [&b"2025-06-18"[..], b"2025-03-26"] {
        let version = String::from_utf8_lossy(other);
        let refused = server.resume(&get(other));
        assert_eq!(refused.status, 400, "GET, {version}");
        assert!(refused.body.is_empty(), "GET, {version}");
        assert_eq!(server.delete(&get(other)).status, 400, "DELETE, {version}");
    }
    let twice = [
        &get(b"2025-11-25")[..],
        &[("MCP-Protocol-Version", b"2025-06-18")],
    ]
    .concat();
    assert_eq!(server.resume(&twice).status, 400);
    assert_eq!(server.delete(&twice).status, 400);
    // The session survived: its own version, or none, is served.
    assert_eq!(server.resume(&get(b"2025-11-25")).status, 200);
    assert_eq!(server.resume(&get(b"2025-11-25")[..2]).status, 200);
    assert_eq!(server.delete(&get(b"2025-11-25")).status, 204);
}

/// `examples/streamable_http.rs` answers a request whose `Origin` it does not allow with 403,
/// whatever its method: "If the Origin header is present and invalid, servers MUST respond
/// with HTTP 403 Forbidden". (A method other than GET, POST and DELETE got 405, its `Origin`
/// unread.) An allowed origin's, or one without `Origin`, still gets 405.
#[test]
fn streamable_http_forbids_a_foreign_origin_whatever_the_method() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(SESSION_S);
    let foreign: &[Field] = &[("Origin", b"http://evil.example")];
    for method in ["PUT", "PATCH", "OPTIONS", "HEAD", "get"] {
        assert_eq!(server.handle(method, foreign, b"").status, 403, "{method}");
    }
    let allowed: &[Field] = &[("Origin", b"http://localhost:3000")];
    let refused = server.handle("PUT", allowed, b"");
    assert_eq!(
        (refused.status, refused.allow),
        (405, Some("GET, POST, DELETE"))
    );
    assert_eq!(server.handle("PUT", &[], b"").status, 405);
}

/// `examples/streamable_http.rs` keeps at most 16 MiB of streams for replay (the newest
/// always), not 1024 of any size: each stream keeps the progress token of its request in
/// every progress event, and a client sending 16 MiB tokens had it keep some 32 GiB. Here
/// each stream keeps a 1 MiB token twice: the oldest are forgotten, the latest kept.
#[test]
fn streamable_http_bounds_the_bytes_of_its_kept_streams() {
    use streamable_http::Server;
    let mut server = Server::new(SESSION_S);
    let ping = |token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"_meta":{{"progressToken":"{token}"}}}}}}"#
        )
    };
    let token = "x".repeat(1 << 20);
    for _ in 0..16 {
        let answered = server.post(IN_SESSION_S, ping(&token).as_bytes());
        assert_eq!(answered.content_type, Some("text/event-stream"));
    }
    let resume = |server: &Server, id: &[u8]| {
        server
            .resume(&[("Mcp-Session-Id", b"s"), ("Last-Event-ID", id)])
            .status
    };
    assert_eq!(resume(&server, b"0/0"), 400);
    assert_eq!(resume(&server, b"8/0"), 400);
    assert_eq!(resume(&server, b"9/0"), 200);
    assert_eq!(resume(&server, b"15/0"), 200);
    // A stream over the bound on its own is kept, the only one: its client may resume it.
    let huge = "x".repeat(9 << 20);
    assert_eq!(
        server.post(IN_SESSION_S, ping(&huge).as_bytes()).status,
        200
    );
    assert_eq!(resume(&server, b"15/0"), 400);
    assert_eq!(resume(&server, b"16/2"), 200);
}

/// `examples/streamable_http.rs` answers a batch (of 2025-03-26) of responses and
/// notifications with 202 only when it takes every one: one it refuses without a reply (a
/// malformed response, which has no id to answer) gets 400, as when sent alone ("If the
/// server cannot accept the input, it MUST return an HTTP error status code"). It answered
/// 202 Accepted, as if it had taken the response it dropped.
#[test]
fn streamable_http_refuses_a_batch_with_a_malformed_response() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("b", "2025-03-26")]);
    let headers: &[Field] = &[
        ("Mcp-Session-Id", b"b"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    let malformed = r#"{"jsonrpc":"2.0","id":7,"result":1}"#;
    let notification = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let response = r#"{"jsonrpc":"2.0","id":8,"result":{}}"#;
    assert_eq!(server.post(headers, malformed.as_bytes()).status, 400);
    for batch in [
        format!("[{malformed}]"),
        format!("[{notification},{malformed}]"),
    ] {
        let refused = server.post(headers, batch.as_bytes());
        assert_eq!(refused.status, 400, "{batch}");
        assert!(refused.body.is_empty(), "{batch}");
    }
    let taken = format!("[{notification},{response}]");
    let accepted = server.post(headers, taken.as_bytes());
    assert_eq!((accepted.status, accepted.body.is_empty()), (202, true));
}

/// `examples/streamable_http.rs` refuses a request naming two sessions (`Mcp-Session-Id`
/// twice) with 400, as it does a version sent twice: a runner that binds each session to its
/// user and reads another copy than the first would check one session and let the request
/// reach the other. (It served the first session named.)
#[test]
fn streamable_http_refuses_two_session_ids() {
    use streamable_http::{Field, Server};
    let mut server = Server::new(&[("a", "2025-11-25"), ("b", "2025-11-25")]);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let twice: &[Field] = &[
        ("Mcp-Session-Id", b"b"),
        ("mcp-session-id", b"a"),
        ("MCP-Protocol-Version", b"2025-11-25"),
        ("Content-Type", b"application/json"),
        ("Accept", b"application/json, text/event-stream"),
    ];
    assert_eq!(server.post(twice, ping).status, 400);
    let get = [twice[0], twice[1], ("Last-Event-ID", &b"0/0"[..])];
    assert_eq!(server.resume(&get).status, 400);
    assert_eq!(server.delete(&twice[..2]).status, 400);
    // Both sessions are still there.
    assert_eq!(server.post(&twice[1..], ping).status, 200);
    assert_eq!(
        server
            .post(&[&twice[..1], &twice[2..]].concat(), ping)
            .status,
        200
    );
}

/// `examples/http_headers.rs`'s bridge, reading a later `tools/list` (after
/// `notifications/tools/list_changed`) in which a tool it kept has become invalid or lost its
/// schema, forgets that tool's annotations: it kept mirroring the old ones for a tool its client
/// no longer sees, and its server checked calls against them.
#[test]
fn http_headers_bridge_forgets_a_tool_no_longer_valid() {
    let mut tools = std::collections::HashMap::new();
    let list = |tools_json: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{tools_json}]}}}}"#)
    };
    let valid =
        r#"{"name":"a","inputSchema":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}}"#;
    http_headers::filter_tools_list(list(valid).as_bytes(), &mut tools);
    assert!(tools.contains_key("a"));
    let invalid =
        r#"{"name":"a","inputSchema":{"properties":{"r":{"type":"number","x-mcp-header":"R"}}}}"#;
    http_headers::filter_tools_list(list(invalid).as_bytes(), &mut tools);
    assert!(
        !tools.contains_key("a"),
        "a dropped tool's annotations are kept"
    );
    http_headers::filter_tools_list(list(valid).as_bytes(), &mut tools);
    http_headers::filter_tools_list(list(r#"{"name":"a"}"#).as_bytes(), &mut tools);
    assert!(
        !tools.contains_key("a"),
        "annotations of a schema no longer listed are kept"
    );
}

/// `examples/http_headers.rs`'s bridge hands on the members of a `tools/list` result beside
/// `tools` with their keys as they came: it decoded each key and escaped it again, which turned
/// a lone surrogate escape (no UTF-8 form) into U+FFFD and rewrote other escapes.
#[test]
fn http_headers_bridge_keeps_other_keys_as_they_came() {
    let mut tools = std::collections::HashMap::new();
    let reply = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[],"x\ud800":1,"caf\u00e9":2}}"#;
    let to_client = http_headers::filter_tools_list(reply, &mut tools);
    assert_eq!(to_client, [&reply[..], b"\n"].concat());
}
