//! Plain JSON-RPC 2.0 (`Decoder::jsonrpc`), with rpcwire doing every decode, encode and id
//! match.
//!
//! A tiny server offers three methods of different latency (`lookup_weather` 0.3 s, `convert`
//! 0.1 s, `get_time` at once). A client sends ids 1, 2 and 3 at once, minted by its
//! `PendingTable`. It prints each reply as it arrives (3, 2, 1), matched by id to the request
//! it answers. Then the server gets four more inputs: three get the error reply a server must
//! send (-32602 for a missing argument, -32601 for an unknown method, -32700 for cut-off
//! JSON), and a notification gets nothing (printed as `None`).
//!
//! Run with `cargo run --release --example rpc_demo`.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use rpcwire::encode::BatchReply;
use rpcwire::{
    Decoder, ErrorCode, Id, LineFramer, Message, PendingTable, RawJson, ReplyId, Request, encode,
};

/// What the server sends back for one incoming line: the reply and how long computing it
/// takes, or `None` when nothing may be sent. A batch gets one array of replies, when the
/// slowest is done.
pub fn handle(decoder: &Decoder, line: &[u8]) -> Option<(Duration, Bytes)> {
    let mut out = BytesMut::new();
    match decoder.decode(line) {
        Ok(Message::Request(req)) => {
            let delay = dispatch(&req, &mut out);
            Some((delay, out.freeze()))
        }
        Ok(Message::Batch(batch)) => {
            let mut replies = BatchReply::open(&mut out);
            let mut delay = Duration::ZERO;
            for element in batch.decode(decoder) {
                match element {
                    Ok(Message::Request(req)) => {
                        replies.push(|out| delay = delay.max(dispatch(&req, out)))
                    }
                    Ok(_) => {}
                    Err(rejection) => {
                        if let Some(reply) = rejection.reply() {
                            replies.push(|out| encode::write_reply(out, &reply, None));
                        }
                    }
                }
            }
            // Only notifications: no reply at all, not an empty array.
            replies.close().then(|| (delay, out.freeze()))
        }
        // Never answer a notification (nor a response), not even with an error.
        Ok(_) => None,
        Err(rejection) => {
            let reply = rejection.reply()?;
            encode::write_reply(&mut out, &reply, None);
            Some((Duration::ZERO, out.freeze()))
        }
    }
}

/// Runs one request's method; returns the simulated latency.
fn dispatch(req: &Request<'_>, out: &mut BytesMut) -> Duration {
    let json = |s: &'static str| RawJson::new(s.as_bytes()).expect("static JSON");
    let method = req.method.decode();
    match &*method {
        "lookup_weather" => {
            encode::write_response(out, req.id, json(r#"{"city": "Oslo", "temp_c": 11}"#));
            Duration::from_millis(300)
        }
        "convert" => {
            let value = req
                .params
                .and_then(|p| p.get("inches"))
                .and_then(|v| v.as_f64());
            // Past f64 (`1e308` inches) the centimetres are `inf`, which no JSON number spells.
            let cm = value.map(|inches| (inches * 2.54 * 100.0).round() / 100.0);
            match cm.filter(|cm| cm.is_finite()) {
                Some(cm) => {
                    let cm = cm.to_string();
                    encode::write_response(out, req.id, RawJson::new(cm.as_bytes()).unwrap());
                }
                None => {
                    let data = json(r#""convert needs a numeric argument \"inches\"""#);
                    let code = ErrorCode::INVALID_PARAMS;
                    let message = code.default_message().unwrap_or_default();
                    encode::write_error(out, ReplyId::Id(req.id), code, message, Some(data));
                }
            }
            Duration::from_millis(100)
        }
        // A fixed clock keeps the demo's output reproducible.
        "get_time" => {
            encode::write_response(out, req.id, json(r#""14:05""#));
            Duration::ZERO
        }
        _ => {
            // -32601 carries the unknown method's name in `data`.
            encode::write_method_not_found(out, req.id, req.method);
            Duration::ZERO
        }
    }
}

#[allow(dead_code)]
fn main() {
    let server = Decoder::jsonrpc();
    let client = Decoder::jsonrpc_client();

    // The client sends three requests at once; its pending table mints their ids (1, 2, 3)
    // and remembers what each asked for.
    let requests = [
        ("lookup_weather", r#"{"city": "Oslo"}"#),
        ("convert", r#"{"inches": 5}"#),
        ("get_time", "{}"),
    ];
    let mut pending = PendingTable::new();
    let mut wire = BytesMut::new();
    for (method, params) in requests {
        let entry = pending.vacant_entry().expect("room for three");
        let mut digits = [0u8; 20];
        let id = Id::from_token(entry.token().to_wire(&mut digits)).expect("an integer token");
        encode::write_request(&mut wire, id, method, RawJson::new(params.as_bytes()));
        entry.insert(method);
    }

    // The server reads them off the wire and answers each when its work is done.
    let (to_client, from_server) = mpsc::channel::<Bytes>();
    let mut framer = LineFramer::new(1 << 20);
    while let Some(line) = framer.decode(&mut wire).expect("short lines") {
        if let Some((delay, reply)) = handle(&server, &line) {
            let to_client = to_client.clone();
            thread::spawn(move || {
                thread::sleep(delay);
                let _ = to_client.send(reply);
            });
        }
    }
    drop(to_client);

    // Replies arrive in the order they finish; the id says which request each answers.
    for reply in from_server {
        let line = &reply[..reply.len() - 1];
        let msg = client
            .decode(line)
            .expect("the server writes valid responses");
        let answers = msg
            .id()
            .and_then(|id| pending.complete(id).ok())
            .unwrap_or("<unknown id>");
        println!(
            "arrived: {} -> answers {answers}",
            String::from_utf8_lossy(line)
        );
    }
    assert!(pending.is_empty(), "every request was answered");
    println!();

    // Four bad inputs: a missing argument, an unknown method, cut-off JSON, a notification.
    let bad = [
        r#"{"jsonrpc": "2.0", "id": 4, "method": "convert", "params": {}}"#,
        r#"{"jsonrpc": "2.0", "id": 5, "method": "teleport", "params": {"to": "Mars"}}"#,
        r#"{"jsonrpc": "2.0", "id": 6, "method": "get_ti"#,
        r#"{"jsonrpc": "2.0", "method": "log", "params": {"msg": "hi"}}"#,
    ];
    for line in bad {
        match handle(&server, line.as_bytes()) {
            Some((_, reply)) => print!("{}", String::from_utf8_lossy(&reply)),
            None => println!("None"),
        }
    }
}
