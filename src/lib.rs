//! # rpcwire
//!
//! A zero-copy, one-pass codec for JSON-RPC 2.0 as the Model Context Protocol (MCP) uses it:
//! newline framing over `BytesMut`, lazy envelope decoding into borrowed views, validation of
//! every JSON-RPC 2.0 and MCP envelope rule with the exact error reply a server must send (or
//! none), and encoding of the four message shapes with raw payload splicing.
//!
//! The core is sans-IO: it works on `&[u8]`, [`bytes::BytesMut`] and [`bytes::Bytes`].
//!
//! ```
//! use bytes::BytesMut;
//! use rpcwire::{encode, Decoder, Message, RawJson};
//!
//! let decoder = Decoder::mcp();
//! let mut framer = decoder.line_framer(); // the decoder's frame limit
//! let mut input = BytesMut::from(&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"[..]);
//! let mut out = BytesMut::new();
//! while let Some(frame) = framer.decode(&mut input).unwrap() {
//!     match decoder.decode(&frame) {
//!         Ok(Message::Request(req)) => encode::write_response(&mut out, req.id, RawJson::EMPTY_OBJECT),
//!         Ok(_) => {}
//!         Err(rejection) => {
//!             if let Some(reply) = rejection.reply() {
//!                 encode::write_reply(&mut out, &reply, None);
//!             }
//!         }
//!     }
//! }
//! assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
//! ```
//!
//! ## Map
//! - Framing: [`LineFramer`] / [`Lines`] (newline-delimited, MCP stdio), [`SseFramer`]
//!   (Streamable HTTP event streams), [`ContentLengthFramer`] (LSP-style headers), all three
//!   behind the [`Framer`] trait; and their writers: [`write_sse_event`] (with
//!   [`write_sse_retry`] and [`write_sse_comment`]) and [`write_content_length_frame`] frame a
//!   message written by [`encode`].
//! - Decoding: [`Decoder`] with [`DecodeOptions`] → [`Message`] or [`Rejection`];
//!   [`OwnedMessage`] keeps the frame's `Bytes`; [`batch`] splits JSON-RPC batches;
//!   [`Decoder::decode_lines`] decodes every line of a complete buffer ([`DecodeLines`]).
//! - tokio: `codec` (feature `tokio`), tokio-util codecs for the three framings, which read
//!   a bad frame as an item; the newline codec writes messages straight into the sink's
//!   buffer, the SSE and `Content-Length` ones frame a line encoded in a scratch buffer of
//!   their own (a `Content-Length` header needs the length first).
//! - Payloads: [`RawJson`] / [`JsonStr`] with lazy member lookup; typed access in `typed`
//!   (feature `serde`).
//! - MCP: [`mcp`] (method names, cancellation and progress, 2026-07-28's per-request `_meta`,
//!   `resultType`, listen streams, protocol versions);
//!   [`DecodeOptions::for_protocol_version`] for the rules that change with the version.
//! - Encoding: [`encode`] (the four shapes, error replies, id rewriting).
//! - Reply matching: [`PendingTable`] (ids we mint), [`InFlight`] (the peer's ids),
//!   [`IdRemapper`] (a proxy's id rewriting both ways).
//! - MCP over HTTP: [`headers`] (2026-07-28 header mirroring: the headers a client sends, a
//!   tool's `x-mcp-header` annotations, and the server's check; an `Mcp-Session-Id` checked).
//! - Scanning: [`scan`] (the one skip primitive, SIMD with a scalar oracle).
//!
//! ## How do I …
//! - dispatch on a request's method: `match &*req.method.decode()` against the constants of
//!   [`mcp::methods`] (borrowed, no allocation, unless the name holds escapes); answer an
//!   unknown one with [`encode::write_method_not_found`] (-32601). Never answer a
//!   [`Message::Notification`], even an unknown one. A whole stdio server:
//!   [A server's side](#a-servers-side).
//! - log what arrived: [`JsonStr`] (a method), [`RawJson`], [`ErrorObject`] (an error
//!   reply's code and message) and [`Rejection`] (why a frame was refused, with its id)
//!   implement `Display`. A method or an error message is the peer's decoded text, line
//!   breaks included: where a peer must not split a log line, print it with `{:?}`.
//! - say where a frame stops being JSON: [`Decoder::parse_error_offset`] (a cold path, for
//!   logs: it decodes prefixes of the frame again).
//! - answer a rejected frame: [`Rejection::reply`] gives the code and id, or `None` when
//!   nothing may be sent; [`encode::write_reply`] writes it (as in the example above).
//! - answer an over-long line: [`LineFramer::decode`] reports it once as
//!   [`FrameError::TooLong`] and goes on; [`Decoder::parse_error_reply`] is its reply (and
//!   that of a `Content-Length` body refused for its charset,
//!   [`ContentLengthError::UnsupportedCharset`]).
//! - read as a client: [`Decoder::mcp_client`] (or [`Decoder::jsonrpc_client`]) reads what a
//!   server writes; [`Decoder::mcp`] reads what a client writes.
//!   What a client answers of it, and what it never does: [A client's side](#a-clients-side).
//! - choose a validation mode: [`Validation::Strict`] in a proxy that forwards payloads to a
//!   peer it does not control; [`Validation::Lazy`] (the default) when you parse the payloads
//!   fully yourself anyway. Your parser then answers what Lazy let through (`{"a" 1}` in
//!   `params`) with its own error (`typed`'s -32602, whose `TypedError::is_syntax` tells
//!   such a value from one of the wrong shape), not -32700, and params nobody reads
//!   (`ping`'s) are never checked: a server that must answer every request that is not JSON
//!   with -32700, as JSON-RPC 2.0 says, decodes with [`Validation::Strict`].
//!   [`Decoder::strict`] makes a decoder strict (`Decoder::mcp().strict()`).
//! - forward a message as it came, as one line (an SSE event's or a `Content-Length` body's
//!   line breaks become spaces): [`encode::write_frame`].
//! - answer a JSON-RPC batch: [`Batch::decode`] decodes its elements one at a time, and
//!   [`encode::BatchReply`] writes the array of replies (nothing when none is owed), or
//!   [`batch::Collector`] collects it as the replies come, in any order; a batch of more
//!   elements than [`Limits::max_batch_len`] is refused whole, with one reply.
//! - forward a message under a new id: [`encode::write_with_id`]; for many clients over one
//!   upstream, [`IdRemapper`] mints the ids and restores them on the replies. A proxy that
//!   rewrites even one client's ids rewrites its `notifications/cancelled` too: its
//!   `requestId` is the client's own id, which upstream may be another request's token.
//!   [`IdRemapper::forward_cancel`] does it (an `IdRemapper<()>` serves one client);
//!   `write_with_id` and a [`PendingTable`] alone leave it to the caller.
//! - keep a message past its frame's borrow (a request served on a task of its own, across
//!   `.await`; a reply handed to the task that awaits it): an [`OwnedMessage`] is the frame's
//!   `Bytes` and its spans, `Send + 'static`, made without a copy (`codec`'s items are
//!   these); borrow its [`message`](OwnedMessage::message) inside the task. Of a part alone,
//!   [`Id::to_owned_id`] keeps an id ([`IdBuf`]), and [`OwnedMessage::params_bytes`],
//!   [`result_bytes`](OwnedMessage::result_bytes) or [`slice`](OwnedMessage::slice) a
//!   payload as `Bytes`, still without a copy:
//!
//!   ```
//!   use bytes::Bytes;
//!   use rpcwire::{Decoder, IdBuf, Message, OwnedMessage};
//!   let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"add"}}"#);
//!   let msg = OwnedMessage::decode(&Decoder::mcp(), frame).unwrap();
//!   let Message::Request(req) = msg.message() else { panic!() };
//!   let id: IdBuf = req.id.to_owned_id();
//!   let params: Bytes = msg.params_bytes().unwrap();
//!   let served = std::thread::spawn(move || (id.to_string(), params));
//!   let (id, params) = served.join().unwrap();
//!   assert_eq!((id.as_str(), &params[..]), (r#""r1""#, &br#"{"name":"add"}"#[..]));
//!   ```
//! - match replies to my requests: [`PendingTable`] mints the ids ([`Token::to_id`] writes
//!   one as a request's id, [`PendingTable::complete`] matches the reply by its id); [`InFlight`]
//!   tracks the peer's ids.
//! - time out my requests: a deadline on each in the [`PendingTable`] (or [`IdRemapper`]),
//!   which [`PendingTable::expire`] hands back; under tokio, `pending::DeadlineClock` (feature
//!   `tokio`) is the clock and the timer of the task that expires them. MCP has the sender
//!   of a request that timed out tell the peer: [`mcp::write_cancelled_token`] for each
//!   (never for `initialize`, which MCP forbids cancelling).
//! - cancel a request I sent: [`PendingTable::cancel`] (a reply that still comes is then
//!   [`Miss::Stale`]) and [`mcp::write_cancelled_token`].
//! - follow the progress of a request I sent: give its [`Token`] as its
//!   `_meta.progressToken` too ([`mcp::write_request_with_progress_token`] writes the
//!   request under it with the token spliced into its raw params,
//!   [`mcp::write_request_with_progress`] with any id and token; with feature `serde` a
//!   `Token` serializes as that integer);
//!   read each `notifications/progress` with [`mcp::Progress::from_notification`], and
//!   [`Token::from_id`] of its `token` finds the request ([`PendingTable::get`]; progress may
//!   move its deadline, [`PendingTable::set_deadline`]). A token no request in flight that
//!   asked for progress carries is ignored, never answered.
//! - stop a request the peer cancelled: keep its requests in flight in an [`InFlight`] (by
//!   id, compared as JSON values: `"\u0061"` is `"a"`), and on a notification that
//!   [`mcp::Cancelled::from_notification`] reads, `remove` its `request_id` and stop the
//!   work; MCP has the receiver send no reply to it then ("SHOULD ... Not send a response
//!   for the cancelled request"). A notification that names no request in flight is ignored,
//!   never answered, and so is one that names `initialize` ("The initialize request MUST NOT
//!   be cancelled by clients": a server that keeps it in flight too, to catch a reused id,
//!   answers it all the same, or the session never starts).
//! - follow the session's MCP version: [`DecodeOptions::for_protocol_version`]. A client that
//!   sends `initialize` ([`mcp::write_initialize`]) reads the answer under the version it asked for
//!   (`Decoder::mcp_client().for_protocol_version(requested)`), not a decoder's default
//!   2026-07-28 rules: that revision has no `initialize`, and its `resultType` check refuses
//!   an earlier server's result holding a `resultType` of its own. Then
//!   [`mcp::InitializeResult`] reads the answer and [`mcp::versions::accept`]`(answered,
//!   supported)` checks its version: the one to decode the session by, or `None` (a version
//!   the client does not speak: disconnect). A client of 2026-07-28 has no `initialize`: it
//!   names in each request the version [`mcp::versions::choose`] picks from the server's
//!   `server/discover`, with its capabilities, as members of the params' `_meta` that it
//!   writes ([`mcp::write_request_with_meta`] splices them into its params; [`mcp::RequestMeta`]
//!   shows them written with serde too).
//! - answer `initialize`: [`mcp::Initialize`] reads the params (a member missing, twice or
//!   of another type gets -32602: [`mcp::HandshakeError::write_reply`]);
//!   [`mcp::versions::negotiate`]`(requested, supported)` is the version
//!   to answer with: the client's `params.protocolVersion` when the server speaks it, else the
//!   latest it speaks that has `initialize` (2026-07-28, [`mcp::versions::LATEST`], has none);
//!   `None`, when it speaks none of those, is a -32602 ([`mcp::versions::write_unsupported`]
//!   writes it, with the versions it speaks). [`mcp::write_initialize_result`] writes the
//!   answer. Then decode by that version's rules: [`Decoder::for_protocol_version`] (under
//!   tokio, `LineCodec::set_decoder` on the `FramedRead`'s `decoder_mut()`;
//!   `examples/mcp_stub_server.rs`). Until the client's `notifications/initialized`, the server
//!   sends it only pings and logging ("SHOULD NOT send requests other than pings and logging
//!   before receiving the initialized notification"); whether it serves the client's requests
//!   before then is its own choice (MCP does not forbid it).
//! - answer a request of MCP 2026-07-28: each names its version in `_meta`
//!   ([`mcp::RequestMeta`]); one the server does not speak gets -32022
//!   ([`mcp::versions::write_unsupported`]). Every result carries a `resultType`:
//!   [`mcp::write_result`]`(out, id, result, version)` writes `"resultType":"complete"` into a
//!   result that has none from that revision on (and the result as it is before it).
//! - answer an `input_required` result (MCP 2026-07-28's multi round-trip requests) as a
//!   client: [`mcp::InputRequired`] reads the server's requests and state, and
//!   [`mcp::write_retry`] sends the request again with the answers; a server asks with
//!   [`mcp::write_input_required`], and reads the retry's answers and state with
//!   [`mcp::Retry`] (a malformed one gets -32602: [`mcp::RetryReadError::write_reply`]).
//! - read strictly, or as a client, with options of my own: set the fields that differ on
//!   [`DecodeOptions`] (its example) and build the decoder with [`Decoder::new`].
//! - read what MCP's own messages say: [`mcp::Cancelled`] (which request a peer gave up on),
//!   [`mcp::Progress`], [`mcp::Task`] (a task's id and whether its status is terminal) and
//!   [`mcp::related_task`]; each reads only the members it needs.
//! - read stdin (or any byte stream): see [Reading a stream](#reading-a-stream) below; under
//!   tokio, `codec::LineCodec` (feature `tokio`) over `tokio::io::stdin()` in a `FramedRead`
//!   (`LineCodec::from(Decoder::mcp())`, with the decoder's frame limit;
//!   `examples/mcp_stub_server.rs`), or in one `Framed` over stdin and stdout joined: the
//!   `codec` module's *A server loop*.
//! - speak SSE or `Content-Length`: [`SseFramer`] and [`ContentLengthFramer`] (or
//!   [`Decoder::sse_framer`], [`Decoder::content_length_framer`]) read them, [`write_sse_event`]
//!   and [`write_content_length_frame`] write them; under tokio, `codec::SseCodec` and
//!   `codec::ContentLengthCodec`.
//! - resume an SSE stream after a reconnection: send [`SseFramer::last_event_id_header`] as
//!   `Last-Event-ID` (none when it is `None`: no id, or one reset to empty), and read the new stream with the same
//!   framer once [`SseFramer::decode_eof`] has ended the old one (returned `Ok(None)`; an
//!   event the drop cut short is lost, and its id with it: the server sends it again). Under
//!   tokio, the same `codec::SseCodec`, taken out of the old `FramedRead` with `into_parts`
//!   (its `ended_inside_event` says whether the stream was cut).
//!
//! ## Reading a stream
//!
//! A framer follows one buffer: append each read to it, take frames until the framer needs
//! more bytes, and at end of stream take what is left ([`Framer::frames`] with `eof` does
//! both). An over-long line is an error item, after which the next line comes.
//!
//! ```
//! use std::io::Read;
//! use bytes::BytesMut;
//! use rpcwire::{encode, Decoder, Framer, Message, RawJson};
//!
//! /// Answers every request read from `input` (`std::io::stdin().lock()`, say) into `out`.
//! fn serve(mut input: impl Read, out: &mut BytesMut) -> std::io::Result<()> {
//!     let decoder = Decoder::mcp();
//!     let mut framer = decoder.line_framer();
//!     let mut buf = BytesMut::new();
//!     let mut chunk = vec![0; 64 << 10];
//!     loop {
//!         let n = match input.read(&mut chunk) {
//!             Ok(n) => n,
//!             Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
//!             Err(e) => return Err(e),
//!         };
//!         buf.extend_from_slice(&chunk[..n]);
//!         let eof = n == 0;
//!         for frame in framer.frames(&mut buf, eof) {
//!             let Ok(frame) = frame else {
//!                 // An over-long line (`FrameError::TooLong`), skipped by the framer.
//!                 encode::write_reply(out, &decoder.parse_error_reply(), None);
//!                 continue;
//!             };
//!             match decoder.decode(&frame) {
//!                 Ok(Message::Request(req)) => {
//!                     encode::write_response(out, req.id, RawJson::EMPTY_OBJECT)
//!                 }
//!                 Ok(_) => {}
//!                 Err(rejection) => {
//!                     if let Some(reply) = rejection.reply() {
//!                         encode::write_reply(out, &reply, None);
//!                     }
//!                 }
//!             }
//!         }
//!         if eof {
//!             return Ok(());
//!         }
//!     }
//! }
//!
//! let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
//! let mut out = BytesMut::new();
//! serve(&input[..], &mut out).unwrap();
//! // The second line has no newline: it comes at end of stream.
//! assert_eq!(
//!     &out[..],
//!     b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"
//! );
//! ```
//!
//! ## A server's side
//!
//! A stdio server reads what a client writes with [`Decoder::mcp`] (made
//! [`strict`](Decoder::strict), to answer every frame that is not JSON with -32700: see
//! *choose a validation mode* above), and each frame is one of:
//!
//! - a request: answered by its method ([`mcp::methods`]). `initialize` gets the version
//!   [`mcp::versions::negotiate`] picks from the params [`mcp::Initialize`] reads
//!   ([`mcp::write_initialize_result`]), and the session decodes by that version's rules from
//!   then on; a method the server does not serve gets -32601
//!   ([`encode::write_method_not_found`]);
//! - a notification: never answered, whatever its method;
//! - a reply to a request of the server's: matched with its [`PendingTable`], never answered;
//! - a frame refused: answered with [`Rejection::reply`] when it gives one (a line that is not
//!   JSON gets -32700, with no id in MCP), and an over-long line with
//!   [`Decoder::parse_error_reply`].
//!
//! ```
//! use bytes::BytesMut;
//! use rpcwire::mcp::{self, methods, versions};
//! use rpcwire::{encode, Decoder, ErrorCode, Framer, Message, RawJson};
//!
//! const SPEAKS: &[&str] = &[versions::V2025_06_18, versions::V2025_11_25];
//!
//! /// Answers one frame of the client's into `out`; `decoder` follows the session's version.
//! fn answer(frame: &[u8], decoder: &mut Decoder, out: &mut BytesMut) {
//!     let req = match decoder.decode(frame) {
//!         Ok(Message::Request(req)) => req,
//!         Ok(_) => return, // a notification, or a reply to a request of ours
//!         Err(rejection) => {
//!             if let Some(reply) = rejection.reply() {
//!                 encode::write_reply(out, &reply, None);
//!             }
//!             return;
//!         }
//!     };
//!     match &*req.method.decode() {
//!         methods::INITIALIZE => {
//!             let init = match mcp::Initialize::from_request(&req) {
//!                 Ok(init) => init,
//!                 Err(e) => return e.write_reply(out, req.id), // -32602
//!             };
//!             let requested = init.protocol_version.decode();
//!             let Some(version) = versions::negotiate(&requested, SPEAKS) else {
//!                 let code = ErrorCode::INVALID_PARAMS;
//!                 return versions::write_unsupported(out, req.id, code, &requested, SPEAKS);
//!             };
//!             let capabilities = RawJson::new(br#"{"tools":{}}"#).unwrap();
//!             let server_info = RawJson::new(br#"{"name":"demo","version":"0.1"}"#).unwrap();
//!             mcp::write_initialize_result(out, req.id, version, capabilities, server_info, None)
//!                 .expect("both are objects");
//!             *decoder = decoder.for_protocol_version(version);
//!         }
//!         methods::PING => encode::write_response(out, req.id, RawJson::EMPTY_OBJECT),
//!         methods::TOOLS_LIST => {
//!             encode::write_response(out, req.id, RawJson::new(br#"{"tools":[]}"#).unwrap())
//!         }
//!         _ => encode::write_method_not_found(out, req.id, req.method),
//!     }
//! }
//!
//! let session = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
//! {"jsonrpc":"2.0","method":"notifications/initialized"}
//! {"jsonrpc":"2.0","id":1,"method":"ping"}
//! {"jsonrpc":"2.0","id":"t","method":"tools/list"}
//! {"jsonrpc":"2.0","id":2,"method":"prompts/list"}
//! {"jsonrpc":"2.0","method":"notifications/unknown"}
//! not json
//! {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name" "add"}}
//! "#;
//! let mut decoder = Decoder::mcp().strict();
//! let mut framer = decoder.line_framer();
//! let mut input = BytesMut::from(&session[..]); // each read appended here
//! let mut out = BytesMut::new(); // written to stdout, and flushed, after each read
//! for frame in framer.frames(&mut input, true) {
//!     match frame {
//!         Ok(frame) => answer(&frame, &mut decoder, &mut out),
//!         Err(_too_long) => encode::write_reply(&mut out, &decoder.parse_error_reply(), None),
//!     }
//! }
//! assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"demo","version":"0.1"}}}
//! {"jsonrpc":"2.0","id":1,"result":{}}
//! {"jsonrpc":"2.0","id":"t","result":{"tools":[]}}
//! {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"prompts/list"}}
//! {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}
//! {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}
//! "#[..]);
//! ```
//!
//! The same loop under tokio reads `codec::Incoming` items and writes `codec::Outgoing` ones:
//! see the `codec` module (feature `tokio`).
//!
//! ## A client's side
//!
//! A client reads what a server writes with [`Decoder::mcp_client`], by the rules of the
//! version it asked for until the server's answer to `initialize` settles the session's
//! ([`mcp::versions::accept`]). Its requests go out under the ids its [`PendingTable`] mints,
//! and each frame the server writes is one of:
//!
//! - a reply: [`PendingTable::complete`] finds its request, or tells a late one
//!   ([`Miss::Stale`]: answered, cancelled or timed out already) from one to an id never sent
//!   ([`Miss::Unknown`]). An error reply whose id is absent or `null` (Python peers' form)
//!   answers a line the server could not read, and names no request
//!   ([`ErrorResponse::request_id`] is `None`);
//! - a request of the server's (`ping`, `roots/list`, `sampling/createMessage`, and from
//!   2025-06-18 `elicitation/create`, all up to 2025-11-25): answered, one of a method the
//!   client does not serve with -32601;
//! - a notification: never answered. Progress finds its request by its token, if that
//!   request asked for progress;
//! - a frame refused: a malformed reply fails the request its id names
//!   ([`Rejection::is_response`], [`Rejection::id`]); an invalid request of the server's is
//!   answered when the reply names its id ([`Rejection::reply_to_request`]). Nothing else
//!   is: a line that is not JSON may have been a reply, a frame with a `method` beside a
//!   `result` or an `error` too, and a frame without an id a notification.
//!
//! ```
//! use bytes::BytesMut;
//! use rpcwire::mcp::{self, versions};
//! use rpcwire::{encode, Decoder, Message, Miss, PendingTable, RawJson, Token};
//!
//! const SPEAKS: &[&str] = &[versions::V2025_06_18, versions::V2025_11_25];
//! // Each request in flight: its method, and whether it asked for progress. Times in ms.
//! let mut pending = PendingTable::<(&str, bool)>::new();
//! let mut out = BytesMut::new();
//!
//! let init = pending.insert_with_deadline((mcp::methods::INITIALIZE, false), 10_000).unwrap();
//! let params = br#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#;
//! let params = RawJson::new(params).unwrap();
//! encode::write_request(&mut out, init.to_id(&mut [0; 20]), mcp::methods::INITIALIZE, Some(params));
//! let mut decoder = Decoder::mcp_client().for_protocol_version(versions::V2025_11_25);
//!
//! // The server answers with an earlier version, which the client speaks too.
//! let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
//! let Ok(Message::Response(r)) = decoder.decode(answer.as_bytes()) else { panic!() };
//! assert_eq!(pending.complete(r.id), Ok((mcp::methods::INITIALIZE, false)));
//! // (A result missing a member, or holding one twice, fails the handshake.)
//! let answered = mcp::InitializeResult::from_result(r.result).unwrap().protocol_version;
//! let version = versions::accept(&answered.decode(), SPEAKS).expect("else the client disconnects");
//! decoder = decoder.for_protocol_version(version);
//! encode::write_notification(&mut out, mcp::methods::INITIALIZED, None);
//!
//! // A call that asks for progress on its own id.
//! let call = pending.insert_with_deadline(("tools/call", true), 30_000).unwrap();
//! let params = RawJson::new(br#"{"name":"slow"}"#).unwrap();
//! mcp::write_request_with_progress_token(&mut out, call, "tools/call", Some(params)).unwrap();
//!
//! let from_server = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":CALL,"progress":1}}
//! {"jsonrpc":"2.0","id":"s1","method":"ping"}
//! {"jsonrpc":"2.0","id":"s2","method":"elicitation/create","params":{}}
//! {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}
//! {"jsonrpc":"2.0","id":CALL,"result":{"content":[]}}
//! {"jsonrpc":"2.0","id":CALL,"result":{"content":[]}}
//! {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}
//! {"jsonrpc":"2.0","id":"s3","method":"ping","params":[]}
//! {"jsonrpc":"2.0","method":"notifications/progress","params":[]}
//! not json
//! "#.replace("CALL", &call.to_string());
//! out.clear();
//! let mut replies = Vec::new();
//! for line in decoder.decode_lines(from_server.as_bytes()) {
//!     match line.expect("no over-long line").message {
//!         Ok(Message::Response(r)) => replies.push(pending.complete(r.id).map(|(m, _)| m)),
//!         Ok(Message::ErrorResponse(e)) => match e.request_id() {
//!             Some(id) => replies.push(pending.complete(id).map(|(m, _)| m)),
//!             None => {} // the server could not read a line: log it
//!         },
//!         Ok(Message::Request(req)) => match &*req.method.decode() {
//!             mcp::methods::PING => encode::write_response(&mut out, req.id, RawJson::EMPTY_OBJECT),
//!             _ => encode::write_method_not_found(&mut out, req.id, req.method),
//!         },
//!         Ok(Message::Notification(n)) => {
//!             if let Some(progress) = mcp::Progress::from_notification(&n)
//!                 && let Some(token) = Token::from_id(progress.token)
//!                 && pending.get(token).is_some_and(|&(_, asked)| asked)
//!             {
//!                 pending.set_deadline(token, Some(/* now + 30 s */ 31_000)); // MCP lets it
//!             }
//!         }
//!         Ok(Message::Batch(_)) => {} // refused unless the session is 2025-03-26's
//!         Err(rejection) if rejection.is_response() => {
//!             if let Some(id) = rejection.id() {
//!                 replies.push(pending.complete(id).map(|(m, _)| m)); // fail that request
//!             }
//!         }
//!         Err(rejection) => {
//!             if let Some(reply) = rejection.reply_to_request() {
//!                 encode::write_reply(&mut out, &reply, None);
//!             }
//!         }
//!     }
//! }
//! assert_eq!(replies, [Ok("tools/call"), Err(Miss::Stale)]);
//! assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":"s1","result":{}}
//! {"jsonrpc":"2.0","id":"s2","error":{"code":-32601,"message":"Method not found","data":"elicitation/create"}}
//! {"jsonrpc":"2.0","id":"s3","error":{"code":-32600,"message":"Invalid Request"}}
//! "#[..]);
//!
//! // A request that times out is cancelled on the server (never `initialize`).
//! let slow = pending.insert_with_deadline(("tools/call", false), 60_000).unwrap();
//! out.clear();
//! for (token, (method, _)) in pending.expire(60_000) {
//!     if method != mcp::methods::INITIALIZE {
//!         mcp::write_cancelled_token(&mut out, token, Some("timed out"));
//!     }
//! }
//! assert!(out.starts_with(format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{slow},"#).as_bytes()));
//! ```
//!
//! ## Features
//! - `std` (default): runtime CPU detection for the SIMD scanner. Without it the core
//!   (framing, decoding, encoding) is `#![no_std]` + `alloc`, and its error types still
//!   implement `core::error::Error` (which `std::error::Error` is).
//! - `tokio`: `tokio_util::codec` integration: `codec`'s codecs for the newline, SSE and
//!   `Content-Length` framings; `pending::DeadlineClock` for a table's deadlines.
//! - `serde`: typed access to payloads (`typed`), and `Serialize` for [`Token`], which
//!   serializes as its integer (a progress token in params written with serde).
//! - `cli`: the `rpcwire` command-line tool.
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![doc(test(attr(deny(unused_imports, unused_variables, unused_mut))))]
#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(unsafe_code)]
// A builder method that takes `self` and returns it changed does nothing when its result is
// dropped (`options.for_protocol_version(v);` on a `Copy` options value): each says so.
#![warn(clippy::return_self_not_must_use)]
// Public fallible and panicking functions say when they fail; code in the docs is in backticks.
#![warn(
    clippy::missing_errors_doc,
    clippy::missing_panics_doc,
    clippy::doc_markdown
)]

extern crate alloc;

pub mod batch;
#[cfg(feature = "tokio")]
pub mod codec;
mod decode_lines;
mod decoder;
pub mod encode;
mod error;
pub mod frame;
pub mod headers;
mod id;
mod inflight;
mod inline_bytes;
mod json;
mod limits;
pub mod mcp;
mod message;
pub mod pending;
#[cfg(test)]
mod proptest_cases;
mod remap;
mod reuse;
pub mod scan;
#[cfg(feature = "serde")]
pub mod typed;

pub use decode_lines::{DecodeLines, DecodedLine};
pub use decoder::{DecodeOptions, Decoder, Dialect, Role};
pub use error::{CodeRange, DecodeError, ErrorCode, Member};
pub use frame::{ContentLengthError, ContentLengthFramer, write_content_length_frame};
pub use frame::{FrameError, Framer, Frames, LineFramer, Lines, SseWriteError};
pub use frame::{SseEvent, SseFramer, write_sse_comment, write_sse_event, write_sse_retry};
pub use id::{Id, IdBuf, IdKind};
pub use inflight::{IdKey, InFlight, InFlightError, ReservedId};
pub use json::{Elements, JsonKind, JsonStr, Lookup, Members, RawJson};
pub use limits::Limits;
pub use message::{
    Batch, ErrorObject, ErrorResponse, Kind, Message, Notification, OwnedMessage, OwnedRejection,
    Rejection, Reply, ReplyId, Request, Response,
};
pub use pending::{Miss, PendingTable, TableFull, Token, VacantEntry};
#[doc(hidden)]
pub use remap::RemapFootprint;
pub use remap::{IdRemapper, Origin, ProgressRoute, RemapError, StreamCancel};
pub use reuse::REUSE_KEEP;
pub use scan::{ScanError, Validation};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
