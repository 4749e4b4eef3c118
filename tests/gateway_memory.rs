//! What `examples/gateway.rs` keeps with each request in flight: only what it reads of it
//! again (whether it opened a listen stream), not its method. A method may be as long as a
//! client's line (1 MiB), and what the gateway keeps beside the remapper's entry counts
//! against no client's share (`max_bytes_per_client` counts ids and progress tokens).

mod held_bytes;

use held_bytes::held;

#[allow(dead_code)]
#[path = "../examples/gateway.rs"]
mod gateway;

#[global_allocator]
static GLOBAL: held_bytes::HeldBytes = held_bytes::HeldBytes;

/// 64 requests in flight whose methods are 16 KiB long (1 MiB in all) grow what the gateway
/// holds by far less than their methods: it kept each method as a `String` with its request.
#[test]
fn a_gateway_keeps_no_method_with_a_request_in_flight() {
    let mut gw = gateway::Gateway::new(1);
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    gw.client_read(0, format!("{initialize}\n").as_bytes(), 0);
    let result = r#"{"jsonrpc":"2.0","id":"gateway-initialize","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    gw.upstream_line(result.as_bytes(), 0);
    gw.upstream.clear();
    gw.clients[0].clear();

    let method = "m".repeat(16 << 10);
    let request = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#) + "\n";
    // One first, so that the read and write buffers have grown to a line's size.
    gw.client_read(0, request(0).as_bytes(), 0);
    gw.upstream.clear();
    let before = held();
    for id in 1..=64 {
        gw.client_read(0, request(id).as_bytes(), 0);
        assert!(!gw.upstream.is_empty(), "request {id} forwarded");
        gw.upstream.clear();
    }
    assert!(gw.clients[0].is_empty(), "none refused");
    let grown = held() - before;
    let methods = 64 * method.len() as isize;
    assert!(
        grown < methods / 8,
        "{grown} bytes kept for 64 requests whose methods hold {methods}"
    );
}

/// A gateway of 16 clients, each initialized, with 1,000 pings each in flight upstream (its
/// buffers to the upstream emptied), and the tokens they went under, in order.
fn a_burst_in_flight() -> (gateway::Gateway, Vec<u64>) {
    let mut gw = gateway::Gateway::new(16);
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    for client in 0..16 {
        gw.client_read(client, format!("{initialize}\n").as_bytes(), 0);
    }
    let result = r#"{"jsonrpc":"2.0","id":"gateway-initialize","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    gw.upstream_line(result.as_bytes(), 0);
    gw.upstream.clear();

    let mut tokens = Vec::new();
    for client in 0..16 {
        for id in 1..=1000 {
            let ping = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#) + "\n";
            gw.client_read(client, ping.as_bytes(), 0);
            let sent: serde_json::Value = serde_json::from_slice(&gw.upstream).unwrap();
            tokens.push(sent["id"].as_u64().expect("forwarded under a token"));
            gw.upstream.clear();
        }
    }
    (gw, tokens)
}

/// A burst of 16,000 requests from 16 clients, all answered: the gateway's next tick gives
/// back the room they left in its remapper (more than 512 KiB here), which it held before.
#[test]
fn a_gateway_gives_back_a_bursts_room_on_its_tick() {
    let (mut gw, tokens) = a_burst_in_flight();
    for token in tokens {
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
        gw.upstream_line(reply.as_bytes(), 0);
    }
    let answered: usize = gw
        .clients
        .iter()
        .map(|c| c.iter().filter(|&&b| b == b'\n').count())
        .sum();
    assert_eq!(
        answered,
        16 * 1001,
        "every ping answered (and every initialize)"
    );
    for client in &mut gw.clients {
        *client = bytes::BytesMut::new();
    }
    gw.upstream = bytes::BytesMut::new();

    let before = held();
    gw.tick(1);
    let given_back = before - held();
    assert!(
        given_back > 512 << 10,
        "the tick gave back {given_back} bytes"
    );
}

/// A burst whose last request stays in flight pins the remapper's room up to it: the tick
/// gives back what it can, and while that entry stays, the next ticks have nothing to give
/// back. The gateway tries again a timeout later, not on every tick (each try a pass over
/// what the remapper keeps, for nothing while the entry stays): a tick just after that
/// request is answered gives nothing back, one a timeout after the last try gives back the
/// room. (Every tick shrank the remapper while the table was mostly empty, however often
/// the room stayed pinned.)
#[test]
fn a_gateway_does_not_retry_a_pinned_shrink_on_every_tick() {
    let (mut gw, mut tokens) = a_burst_in_flight();
    let reply = |token: u64| format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
    // All answered but the last, which holds the table's last place.
    let last = tokens.pop().unwrap();
    for token in tokens {
        gw.upstream_line(reply(token).as_bytes(), 0);
    }
    for client in &mut gw.clients {
        *client = bytes::BytesMut::new();
    }
    gw.upstream = bytes::BytesMut::new();
    gw.tick(1);

    // The last is answered: its room could go, but the next tick does not try.
    gw.upstream_line(reply(last).as_bytes(), 1);
    gw.clients[15] = bytes::BytesMut::new();
    let before = held();
    gw.tick(2);
    let given_back = before - held();
    assert!(
        given_back < 4 << 10,
        "the tick just after gave back {given_back} bytes"
    );
    // A timeout after the last try, it does.
    let before = held();
    gw.tick(1 + 30_000);
    let given_back = before - held();
    assert!(
        given_back > 512 << 10,
        "the tick a timeout later gave back {given_back} bytes"
    );
}
