//! A JSON-RPC server over TCP with tokio and rpcwire's codec: every request gets its `params`
//! echoed back as the result (spliced raw, never re-serialized), bad lines get the error reply
//! the protocol calls for, notifications get nothing — and a bad line never ends the stream.
//!
//! Run with `cargo run --example tokio_server --features tokio -- 127.0.0.1:7777`, then e.g.
//! `printf '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}\n' | nc 127.0.0.1 7777`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rpcwire::codec::{Incoming, LineCodec, Outgoing};
use rpcwire::{Decoder, Message, RawJson};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::Framed;

/// The reply to one incoming item, if any (written by the codec straight into its buffer).
pub fn answer(item: &Incoming) -> Option<Outgoing<'_>> {
    match item {
        Incoming::Message(msg) => match msg.message() {
            Message::Request(req) => Some(Outgoing::Response {
                id: req.id,
                result: req.params.unwrap_or(RawJson::EMPTY_OBJECT),
            }),
            // Notifications and responses are never answered.
            _ => None,
        },
        // A rejected frame or an over-long line: the error reply it calls for, if any.
        _ => item.reply().map(Outgoing::Reply),
    }
}

/// Serves one connection until the peer closes it.
pub async fn serve_connection(stream: TcpStream, decoder: Decoder) -> std::io::Result<()> {
    let mut framed = Framed::new(stream, LineCodec::new(decoder, 1 << 20));
    while let Some(item) = framed.next().await {
        let item = item?;
        if let Some(reply) = answer(&item) {
            framed.send(reply).await?;
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
