//! An MCP server over TCP with tokio and rpcwire's codec: every request gets its `params`
//! echoed back as the result (spliced raw, never re-serialized), bad lines get the error reply
//! the protocol calls for, notifications get nothing — and a bad line never ends the stream.
//! `main` reads with `Decoder::mcp()`, MCP's rules: `params` given as an array (plain
//! JSON-RPC's by-position form) and a batch are each answered -32600. Given a decoder that
//! lets batches through (`Decoder::jsonrpc()`, for a plain JSON-RPC 2.0 server, in `serve`),
//! it answers array `params` too, and a batch with one array.
//!
//! Run with `cargo run --example tokio_server --features tokio -- 127.0.0.1:7777`, then e.g.
//! `printf '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}\n' | nc 127.0.0.1 7777`.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use rpcwire::codec::{Incoming, LineCodec, Outgoing};
use rpcwire::encode::BatchReply;
use rpcwire::{Decoder, Message, RawJson};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::Framed;

/// The reply to one incoming item, if any (written by the codec straight into its buffer).
/// A batch's replies are [`answer_batch`]'s.
pub fn answer(item: &Incoming) -> Option<Outgoing<'_>> {
    match item {
        Incoming::Message(msg) => answer_message(msg.message()),
        // A rejected frame or an over-long line: the error reply it calls for, if any.
        _ => item.reply().map(Outgoing::Reply),
    }
}

fn answer_message(msg: Message<'_>) -> Option<Outgoing<'_>> {
    match msg {
        Message::Request(req) => Some(Outgoing::Response {
            id: req.id,
            result: req.params.unwrap_or(RawJson::EMPTY_OBJECT),
        }),
        // Notifications and responses are never answered.
        _ => None,
    }
}

/// The replies to a batch (which a JSON-RPC decoder lets through; MCP's refuses it, but in a
/// 2025-03-26 session) as one array line: an element for each request and each invalid
/// element. `None` when there is none to send (a batch of notifications), or for no batch.
pub fn answer_batch(item: &Incoming, decoder: &Decoder) -> Option<Bytes> {
    let Incoming::Message(msg) = item else {
        return None;
    };
    let Message::Batch(batch) = msg.message() else {
        return None;
    };
    let mut out = BytesMut::new();
    let mut replies = BatchReply::open(&mut out);
    for element in batch.decode(decoder) {
        let reply = match element {
            Ok(msg) => answer_message(msg),
            Err(rejection) => rejection.reply().map(Outgoing::Reply),
        };
        if let Some(reply) = reply {
            replies.push(|out| reply.write(out));
        }
    }
    replies.close().then(|| out.freeze())
}

/// Serves one connection until the peer closes it.
pub async fn serve_connection(stream: TcpStream, decoder: Decoder) -> std::io::Result<()> {
    let mut framed = Framed::new(stream, LineCodec::new(decoder, 1 << 20));
    while let Some(item) = framed.next().await {
        let item = item?;
        if let Some(reply) = answer(&item) {
            framed.send(reply).await?;
        } else if let Some(replies) = answer_batch(&item, framed.codec().decoder()) {
            framed.send(replies).await?;
        }
    }
    Ok(())
}

/// Accepts connections forever, one task each.
pub async fn serve(listener: TcpListener, decoder: Decoder) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(serve_connection(stream, decoder));
            }
            // A failed accept ends no server: it is a connection reset before it was accepted,
            // or the process out of file descriptors (which many connections cause), and the
            // pause lets some connections close.
            Err(e) => {
                eprintln!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

#[allow(dead_code)]
#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:7777".into());
    let listener = TcpListener::bind(&addr).await?;
    eprintln!("listening on {}", listener.local_addr()?);
    serve(listener, Decoder::mcp()).await;
    Ok(())
}
