//! `rpcwire proxy -- CMD ARGS...`: a validating MCP stdio proxy.
//!
//! Spawns the server, forwards every valid message byte for byte in both directions (a line's
//! `\r\n` becomes `\n`, a `\r` inside a message a space; blank lines are dropped), tracks the
//! requests in flight both ways, and reports violations. (Under JSON-RPC, a client request
//! reusing an id whose reply could still come goes under an id the session mints, and its reply
//! back with the client's: `session/rewrite.rs`.) It never writes a byte to either side
//! that is not a valid message, as `--validate` checks it (lazily: payloads delimited only).
//!
//! Each direction is one plain thread that reads a side's pipe, validates and sorts what it
//! read, and writes what it forwards straight into the other side's pipe; a small runtime
//! waits for the server and runs the timeouts and signal forwarding.
//!
//! The arguments and the run are here; the rest, one concept a file: the items read from a
//! side and the replies the proxy sends the client in their place ([`item`]), what one side
//! does with the lines it reads ([`sorter`]), the state the sides share and what it records of
//! each item ([`state`]), the log's records ([`log`]), the arrays the proxy sends in place of
//! a batch ([`batch`]), the pipes' I/O ([`pipes`]), the clock of the deadlines ([`clock`])
//! and the proxy's lines on stderr during the session, which a stderr nobody reads must not
//! hold up ([`reporter`]).

mod batch;
mod clock;
mod item;
mod log;
mod pipes;
mod reporter;
mod sorter;
mod state;

use std::fs::{File, OpenOptions};
use std::io::{self, Stdout, Write};
use std::num::NonZeroUsize;
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use clap::Args;
use clap::builder::TypedValueParser as _;
use rpcwire::mcp;
use rpcwire::{Dialect, ErrorCode, IdBuf, RawJson, encode, encode::BatchReply};
use serde_json::json;

use self::batch::push_owed_replies;
use self::clock::Clock;
use self::log::LogFile;
use self::pipes::{Input, Sink, take_all, widen_pipe};
use self::reporter::Reporter;
use self::sorter::Sorter;
use self::state::{Shared, State, printable};
use crate::check::{DialectArg, ValidateArg, at_least_one};
use crate::session::{Dir, Expired, Session, Timeout, Violation};

/// Options of `rpcwire proxy`.
#[derive(Debug, Args)]
#[command(
    after_help = "\
Exit status: the server's (128 + N when a signal N ended it), or 2 when the proxy cannot
start (a usage error, a --log it cannot write, a server that cannot start).

Example:
  rpcwire proxy --log session.ndjson --timeout-ms 30000 -- node server.js stdio
  rpcwire check --session-log session.ndjson

'rpcwire proxy --help' says what is forwarded and what is reported.",
    after_long_help = "\
Forwards every valid message byte for byte (a line's \\r\\n becomes \\n, a \\r inside a message a space
(whitespace to JSON, a line end to some readers), blank lines are dropped) and
tracks the requests in flight both ways. Reported (on stderr, and in the --log file as the
`violation` of a record): invalid messages from either side (never forwarded; an invalid client
message gets the error reply the protocol calls for, unless --drop-invalid), non-JSON lines from either side (not_json; from the server, stdout pollution), over-long
lines (too_long), duplicate ids, in flight or cancelled or timed out lately (duplicate_id; under MCP a
client's is answered with -32600, but for an element of a batch; under JSON-RPC a client's, sent alone, is forwarded under an id
the proxy mints (a number counting down from 2^53-2 for a numeric id, else a string
\"rpcwire-N\", never one the server may still answer) and its reply goes back with the client's id
restored, so the late reply to the old request is dropped as late and never answers the new
one; it waits like any other request, with a deadline of its own, and counts against
--max-in-flight; inside a batch (under MCP too), the batch goes on rebuilt with that element under the minted
id, and the server's reply to it, in its array or alone, with the client's id restored; a
server's waits behind the request holding the id, the first reply answering the first),
under MCP before 2026-07-28 a request reusing the id of one of its side's answered lately
(reused_id: MCP ids are never used again in a session; forwarded), requests beyond --max-in-flight or 256 MiB of ids, method names and progress tokens waiting
(too_many_in_flight;
never forwarded, a client's is answered with
-32603; a server's is dropped), replies to unknown or already answered
ids (unknown_reply), replies after a cancellation or a timeout (late_reply), replies with a null id
that answer no request, an error to a notification or to a line whose id could not be read or,
under JSON-RPC, a success while no request with a null id waits (reply_without_id), timed-out
requests (timed_out), and requests left unanswered at
exit (unanswered). Under MCP, none of these is forwarded. Also reported under MCP, and forwarded
(it asks nothing of the receiver): progress notifications on a token no request in flight
carries, after its result or cancellation (unknown_progress); progress notifications whose
progress is not greater than the last one on their token while it is active, which must increase
with each notification (progress_not_increasing); progress and cancellation notifications
whose params break the schema of the negotiated version (invalid_notification_params: no
progressToken that is a string or an integer, no numeric progress, a total that is not a number,
a message that is not a string from 2025-03-26 on; a requestId that is not a string or an
integer, or none except under 2025-11-25, a reason that is not a string), which count as neither
progress nor a cancellation; a request whose progress token
another request in flight from the same side carries (duplicate_progress_token: the request is
valid, but the progress of the two cannot be told apart); from 2026-07-28 on, a server's
tools/list result listing a tool whose x-mcp-header annotations are invalid, which its clients
must drop (invalid_tool_headers: the tools and why are reported); from 2026-07-28 on, a server's
notifications/cancelled naming no listen stream of the client's still open, its one purpose
(forbidden_cancellation; one naming such a stream closes it, as the client's cancellation would,
also while no version is known when the listen request named 2026-07-28 in its _meta); a
client's initialize whose params, or the server's success to it whose result, break the schema
(invalid_initialize: protocolVersion a string, capabilities and clientInfo or serverInfo objects,
each once, instructions a string; the member is reported).
And under MCP, not forwarded: a
client's cancellation of its initialize request, which must not be cancelled (cancelled_initialize;
the request stays in flight), and a client's initialize once the server answered one with a
success, initialization being the session's first interaction (second_initialize; answered with
-32600). Counters are printed at exit.

With --dialect jsonrpc, and under MCP once the session negotiated 2025-03-26 (the one version
with batches: in any other, or before the version is known, an MCP batch is invalid, answered
with -32600 or dropped), a batch (JSON-RPC 2.0 section 6) travels whole, byte for byte, never
split (an array the receiver needs goes on without the late replies it holds, and under MCP
without the replies nobody can match, and with the ids the proxy rewrites, as a new array of its
elements, each otherwise byte for byte), and each of its
elements is tracked and reported as a message of its own: its requests go in flight
(duplicate_id, unanswered apply per element; one beyond --max-in-flight is reported and goes
with its batch, untracked, but it is kept until its reply comes, at most 4,096 at once each way:
its reply is no violation, a request reusing its id meanwhile is a duplicate_id, a client's
batch's timeout answers it, and never answered it is
unanswered at exit (one not kept: its reply is an unknown_reply); one reusing an id goes on
under a minted id, as one sent alone, untracked or not: the reply to an untracked one goes back
with its id; a later request with the id of one that went untracked under its own goes under a
minted id), its replies are matched (unknown_reply, late_reply, reply_without_id). An invalid element from the client is reported
(invalid) but not answered by the proxy: the server answers it in its own array (a success there
is success_to_invalid, forwarded as the element's one reply). A client batch times out as a unit
(one array answers a batch): at --timeout-ms the client gets one array from the proxy for what is
left of it, a -32603 for each request and a -32600 for each invalid element (under MCP each
request is cancelled on the server too), and the server's array, coming later, is late. A batch is not forwarded when it holds nothing the receiver needs,
and dropped whole when it comes from the server with an invalid element (the client gets valid
messages only; its elements then have no effect: a reply in it leaves its request waiting, but a batch it answered
gets one array from the proxy at once for all that is left of it, a -32603 for each request and a
-32600 for each invalid element). At most --max-in-flight replies to invalid elements, and 256 MiB
of their ids, are expected at once. An empty batch or one that is not JSON is an invalid line:
answered with one -32600 or -32700.
Cancellation and initialize are MCP's: plain JSON-RPC has neither.

The proxy's own lines on stderr during the session (the reports, the counters of --stats-every)
go through a queue of 4,096 lines and 2 MiB, written by a thread of their own: a stderr nobody reads (a
client that pipes it and never drains it) never holds up the forwarding or the timeouts. While
the queue is full, a line is dropped and counted (the --log file has every record), and once
the queue is written out, one line tells how many:
`rpcwire proxy: N reports dropped: stderr was not keeping up`. The summary at exit comes after
every line queued; a reader that keeps up misses none, in the same order. At exit the proxy
waits for stderr only while it takes some: after 2 s with nothing taken it exits without the
lines left.

The server's stderr is passed through; SIGINT, SIGTERM and SIGHUP are forwarded to its process
group (a server started through a wrapper such as `sh -c` gets them too); the proxy exits with the
server's status (128 + N when a signal N ended it), or 2 when it cannot start.

Example:
  rpcwire proxy --log session.ndjson --timeout-ms 30000 -- node server.js stdio
  rpcwire check --session-log session.ndjson"
)]
pub struct ProxyArgs {
    /// The rule set.
    #[arg(long, value_enum, default_value = "mcp")]
    dialect: DialectArg,
    /// How much of each payload is validated.
    #[arg(long = "validate", value_enum, default_value = "strict")]
    validate: ValidateArg,
    /// Longest frame accepted, in bytes. At least 1.
    #[arg(long, value_name = "BYTES", value_parser = at_least_one(), default_value_t = rpcwire::Limits::DEFAULT.max_frame)]
    max_frame: usize,
    /// Most elements of a client's batch (or a server's). At least 1.
    ///
    /// One with more is not forwarded; a client's is answered with one -32600 error, as a
    /// server with this limit answers it.
    #[arg(long, value_name = "ELEMENTS", value_parser = at_least_one(), default_value_t = rpcwire::Limits::DEFAULT.max_batch_len)]
    max_batch: usize,
    /// Fail a client request that the server has not answered after this many milliseconds.
    ///
    /// The client gets a -32603 "Request timed out" error reply, an MCP server a
    /// `notifications/cancelled` (not for initialize, which must not be cancelled; plain
    /// JSON-RPC has no cancellation); the server's late reply is dropped. MCP 2026-07-28's
    /// `subscriptions/listen`, a stream its result closes, never times out, nor does MCP's
    /// `tasks/result`, which waits until its task ends. At least 1.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: Option<u64>,
    /// Drop invalid client messages and over-long lines silently instead of answering them
    /// with the error reply the protocol calls for.
    #[arg(long)]
    drop_invalid: bool,
    /// Most requests tracked in flight in each direction.
    ///
    /// A server's JSON-RPC requests waiting behind one of the same id, and a client's
    /// forwarded under a minted id, are included. One more is not forwarded (its reply could
    /// not be matched), and a client's gets a -32603 error reply (inside a batch, JSON-RPC's
    /// or MCP 2025-03-26's, it goes with its batch, untracked, under a minted id when it reuses an id whose
    /// reply could still come). So is one that would take the ids, method
    /// names and progress tokens waiting in its direction past 256 MiB. Besides those bytes,
    /// each waiting request costs the proxy up to about 480 bytes (its slot in a hash table,
    /// and the table's free slots), up to about 180 more with a progress token and 150 more
    /// under --timeout-ms: up to about 106 MB in each direction at the default (about 63 MB
    /// without progress tokens and deadlines). That is a burst's peak: once answered, its
    /// memory is given back (a table less than a quarter full shrinks to about twice what it
    /// holds, keeping room for 4,096 entries).
    #[arg(long, value_name = "N", default_value_t = crate::session::MAX_IN_FLIGHT,
          value_parser = at_least_one().try_map(NonZeroUsize::try_from))]
    max_in_flight: NonZeroUsize,
    /// Write one NDJSON record per message, and the counters, to this file; `rpcwire check
    /// --session-log FILE` replays it.
    ///
    /// Each record per message (dir, t_ms, kind, id, upstream_id: the id the proxy
    /// minted for a client request reusing an id, also on its timeout and unanswered events,
    /// client_id: the client's id restored on the reply to it, method, error_code, cancels,
    /// protocol_version, progress_token, progress: a progress notification's value, when it
    /// could be read, params_fault: what is wrong with a progress or cancellation
    /// notification's params, with a client's initialize params or with the result of the
    /// server's success to it, subscription, task_augmented: true on an MCP request asking
    /// progress for a task, task: the task a message tells of, task_ended: true when it has
    /// ended, invalid_tools: the tools a tools/list
    /// result lists with invalid x-mcp-header annotations, when read, size: the frame's length,
    /// left out for an over-long line the proxy reported before its end came (discarded as it
    /// comes, never held, its length is not known), reply: the error reply the proxy sent in
    /// its place, violation; a batch's record is followed by one per
    /// element, with its index as element, and has dropped: true when the batch is dropped
    /// whole, its elements without effect: a server's batch with an invalid element); and
    /// timeout, owed_answered (a reply to an invalid element of a timed-out batch, sent by the
    /// proxy) and unanswered events.
    #[arg(long, value_name = "FILE", value_parser = log_file())]
    log: Option<PathBuf>,
    /// Print the counters to stderr (and to the --log file, which is flushed then) every this
    /// many seconds, at least 1; without it, only at exit.
    ///
    /// The line goes to stderr as the reports do, through their queue: a stderr nobody drains
    /// holds up no message.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    stats_every: Option<u64>,
    /// Do not print each violation to stderr (the summary at exit is still printed).
    #[arg(long)]
    quiet: bool,
    /// The server to run, and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// Runs `rpcwire proxy`.
pub fn run(args: &ProxyArgs) -> ExitCode {
    exit_on_panic();
    // The runtime only waits: for the server, the timeouts' deadlines and signals (the forwarding
    // is on plain threads), so one thread is enough.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            say!("rpcwire proxy: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let code = runtime.block_on(proxy(args));
    // Reading our stdin is a blocking read on a helper thread that cannot be cancelled: when
    // the server exits first, do not wait for the client to close its end.
    runtime.shutdown_background();
    code
}

async fn proxy(args: &ProxyArgs) -> ExitCode {
    // Caught from the start: a signal before the task forwarding them first ran would end
    // the proxy as signals do by default (no exit status of the server's), its server left
    // running.
    let signals = caught_signals();
    // The log is opened before the server starts, so that a log that cannot be written
    // starts nothing, but emptied only once the server has started: a command that cannot
    // start leaves the log of an earlier run as it was.
    let log = match &args.log {
        Some(path) => match PendingLog::open(path) {
            Ok(log) => Some(log),
            Err(e) => {
                say!(
                    "rpcwire proxy: cannot write the log {}: {e}",
                    path.display()
                );
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut child = match Command::new(&args.command[0])
        .args(&args.command[1..])
        // Its own process group: a terminal's ^C reaches the server once, through us.
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(child) => {
            // (A pid fits an i32: `pid_t`.)
            let _ = SERVER_GROUP.set(child.id() as i32);
            child
        }
        Err(e) => {
            say!("rpcwire proxy: cannot start `{}`: {e}", args.command[0]);
            if let Some(log) = log {
                log.abandon();
            }
            return ExitCode::from(2);
        }
    };
    let log = match log.map(PendingLog::start).transpose() {
        Ok(log) => log,
        Err(e) => {
            say!("rpcwire proxy: cannot write the log: {e}");
            // (The server has started: it is ended, having read nothing, rather than left
            // running without its proxy.)
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(child.id() as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
            let _ = child.wait();
            return ExitCode::from(2);
        }
    };
    let mut state = State {
        // A JSON-RPC request reusing an id whose reply could still come goes to the server
        // under an id the session mints, so that each reply answers one request exactly.
        session: Session::with_max_in_flight(
            crate::check::dialect(args.dialect),
            args.timeout_ms,
            args.max_in_flight.get(),
        )
        .rewriting_reused_ids(),
        log,
    };
    let header = json!({"rpcwire_proxy": {
        "version": env!("CARGO_PKG_VERSION"),
        "dialect": crate::check::dialect_name(args.dialect),
        "timeout_ms": args.timeout_ms,
        "max_in_flight": args.max_in_flight,
        "rewrites_reused_ids": true,
        "rewrites_reused_ids_in_batches": true,
        "rewrites_reused_ids_of_untracked_elements": true,
        "rewrites_ids_of_untracked_elements_reused": true,
        "keeps_untracked_elements": true,
        "keeps_untracked_server_elements": true,
        "refuses_second_initialize": true,
        "queues_reused_server_elements": true,
        "command": &args.command,
    }});
    state.write_log(header.to_string().as_bytes());
    let shared = Arc::new(Shared {
        state: Mutex::new(state),
        clock: Clock::new(),
        quiet: args.quiet,
        mcp: crate::check::dialect(args.dialect) == Dialect::Mcp,
        negotiated: OnceLock::new(),
        reporter: Reporter::spawn(),
    });

    // Blocking pipes, each read by a thread of its own that writes what it forwards
    // straight to the other side (see `Sink`).
    let server_in = child.stdin.take().expect("piped stdin");
    let server_out = child.stdout.take().expect("piped stdout");
    for fd in [
        server_in.as_fd(),
        server_out.as_fd(),
        io::stdin().as_fd(),
        io::stdout().as_fd(),
    ] {
        widen_pipe(fd);
    }
    let server_in = Arc::new(Sink::new(server_in));
    let client_out = Arc::new(Sink::new(io::stdout()));

    // Client → server. A read of stdin cannot be cancelled: when the server exits first, we
    // exit without waiting for this thread.
    {
        let (shared, server_in, client_out) =
            (shared.clone(), server_in.clone(), client_out.clone());
        let sorter = Sorter::new(Dir::C2s, args);
        std::thread::spawn(move || forward_client_to_server(shared, server_in, client_out, sorter));
    }

    // Server → client, until the server's stdout ends. Whether the thread is reading the
    // server's stdout, not writing to the client, tells what it waits for when the server
    // has exited.
    let reading_server = Arc::new(AtomicBool::new(false));
    let s2c = {
        let (shared, client_out) = (shared.clone(), client_out.clone());
        let reading = reading_server.clone();
        let sorter = Sorter::new(Dir::S2c, args);
        std::thread::spawn(move || {
            forward_server_to_client(shared, client_out, reading, server_out, sorter)
        })
    };

    // Timeouts: answer the client locally, cancel on the server.
    let timer = args
        .timeout_ms
        .map(|ms| spawn_timeouts(ms, &shared, &server_in, &client_out));
    // The counters, logged under the lock at each tick, reach stderr through the reporter's
    // queue, as the reports do.
    let stats = args.stats_every.map(|secs| {
        let shared = shared.clone();
        tokio::spawn(async move {
            // (At least 1: refused at parsing.)
            let mut tick = tokio::time::interval(stats_period(secs));
            tick.tick().await;
            loop {
                tick.tick().await;
                shared.reporter.say(shared.log_counters("stats"));
            }
        })
    });

    // Signals go to the server; we exit when it does.
    let pid = child.id();
    let (signalled_tx, mut signalled) = tokio::sync::watch::channel(false);
    let signals = tokio::spawn(forward_signals(signals, pid, signalled_tx));

    let status = match tokio::task::spawn_blocking(move || child.wait()).await {
        Ok(status) => status,
        Err(e) => Err(io::Error::other(e)),
    };
    if PANICKED.load(Ordering::SeqCst) {
        // `exit_on_panic` ended the server and is exiting with a panic's status: not the
        // server's, which this thread would otherwise race it to.
        std::future::pending::<()>().await;
    }
    // The server is gone: its stdin closes (a process it left behind, holding its pipes,
    // sees the end of its input); what it wrote is still delivered, then our stdout is done.
    // Not waiting forever for a leftover process that keeps its stdout open. Each step may
    // block on a side's sink, held by a thread blocked writing to a peer that does not read
    // (the client's thread writing to a leftover process; the server's writing to a client
    // that does not read): off the runtime's thread.
    let output_done = async {
        // (Not awaited: the output is drained meanwhile.)
        drop(tokio::task::spawn_blocking(move || server_in.close()));
        let mut drained = tokio::task::spawn_blocking(move || s2c.join());
        // The server's output is drained for as long as it takes the client to read it; a
        // process left behind holding the server's stdout open is waited for only until the
        // thread has spent `DRAIN_AFTER_EXIT` in all reading that stdout (not writing to the
        // client), as sampled every `DRAIN_POLL`.
        let (mut waited, mut read_for, mut told) = (Duration::ZERO, Duration::ZERO, false);
        while tokio::time::timeout(DRAIN_POLL, &mut drained)
            .await
            .is_err()
        {
            waited += DRAIN_POLL;
            if reading_server.load(Ordering::Relaxed) {
                read_for += DRAIN_POLL;
                if read_for >= DRAIN_AFTER_EXIT {
                    if !args.quiet {
                        shared.reporter.say(
                            "rpcwire proxy: the server exited but its stdout is still open (a process it left behind?); not waiting for it".into()
                        );
                    }
                    break;
                }
            } else if waited >= DRAIN_AFTER_EXIT && !told {
                told = true;
                if !args.quiet {
                    shared.reporter.say(
                        "rpcwire proxy: the server exited, and the client has not taken its last output yet; waiting for it".into()
                    );
                }
            }
        }
        let client_out = client_out.clone();
        let _ = tokio::task::spawn_blocking(move || {
            if let Some(out) = client_out.lock().as_mut() {
                let _ = out.flush();
            }
        })
        .await;
    };
    // A client that does not read what the server wrote last is waited for, unless we were
    // told to end: then for as long as a leftover process is.
    let signalled_then_grace = async {
        if signalled.wait_for(|s| *s).await.is_err() {
            // (No signal handling: nothing ends the wait.)
            std::future::pending::<()>().await;
        }
        tokio::time::sleep(DRAIN_AFTER_EXIT).await;
    };
    tokio::select! {
        () = output_done => {}
        () = signalled_then_grace => if !args.quiet {
            shared.reporter.say(
                "rpcwire proxy: signalled, and the client has not taken the server's last output; not waiting for it".into()
            );
        }
    }
    if let Some(t) = timer {
        t.abort();
    }
    if let Some(task) = stats {
        task.abort();
    }
    signals.abort();

    // The requests left unanswered, logged under the lock and told on stderr after every
    // line queued for it (and the count of those dropped, if any), then the summary: the
    // reporter's last lines.
    let mut unanswered_lines = vec![];
    {
        let mut state = shared.lock();
        if let Some(log) = state.log.as_mut() {
            log.session_ended();
        }
        let now = shared.clock.now_ms();
        let unanswered = state.session.finish();
        for u in &unanswered {
            if !args.quiet {
                unanswered_lines.push(format!(
                    "rpcwire proxy: {}: unanswered request {} ({}){}",
                    u.dir.as_str(),
                    printable(&String::from_utf8_lossy(u.id.as_id().raw())),
                    printable(&u.method),
                    match &u.upstream_id {
                        Some(upstream) => format!(
                            ", forwarded as {}",
                            printable(&String::from_utf8_lossy(upstream.as_id().raw()))
                        ),
                        None => String::new(),
                    }
                ));
            }
            let v = Violation::Unanswered;
            let upstream_id = u.upstream_id.as_ref().map(IdBuf::as_id);
            let (id, method) = (u.id.as_id(), &u.method);
            state.log_event(now, "unanswered", u.dir, id, upstream_id, method, v);
        }
    }
    let mut last = unanswered_lines;
    last.push(shared.log_counters("summary"));
    let log_failure = shared.lock().log.as_mut().and_then(LogFile::finish);
    last.extend(log_failure);
    if let Err(e) = &status {
        last.push(format!("rpcwire proxy: waiting for the server: {e}"));
    }
    // (When stderr took nothing for a while, the lines are lost: the status is not.)
    shared.reporter.finish(last);
    match status {
        Ok(status) => exit_code(status),
        Err(_) => ExitCode::from(2),
    }
}

/// The `--log` file, opened for writing before the server starts but not emptied yet.
struct PendingLog {
    file: File,
    path: PathBuf,
    /// The file opening it created, when it did not exist: `path`, or the file a symbolic
    /// link at `path` named but that did not exist.
    created: Option<PathBuf>,
}

impl PendingLog {
    /// Opens the log at `path` for writing, creating it if it does not exist, leaving what an
    /// existing one holds as it is.
    ///
    /// Opened without blocking: a named pipe with no reader is refused (`ENXIO`) rather than
    /// waited for, as `open` would block, in a proxy that handles its signals by forwarding
    /// them to a server not started yet (SIGTERM left it waiting for good). Writes then block
    /// as any file's.
    fn open(path: &Path) -> io::Result<PendingLog> {
        use nix::fcntl::{FcntlArg, OFlag, fcntl};
        use std::os::unix::fs::OpenOptionsExt;
        let nonblocking = OFlag::O_NONBLOCK.bits();
        // (`ENXIO` is a named pipe's with no reader, but also a socket's, which has no file
        // to open: `/dev/stdout` when it is one. Told as a named pipe only when it is one.)
        let no_reader = |e: io::Error| {
            use std::os::unix::fs::FileTypeExt;
            let fifo = || std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
            if e.raw_os_error() == Some(nix::errno::Errno::ENXIO as i32) && fifo() {
                io::Error::new(
                    e.kind(),
                    "a named pipe with no reader: start its reader first",
                )
            } else {
                e
            }
        };
        let (file, created) = match OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(nonblocking)
            .open(path)
        {
            Ok(file) => (file, Some(path.to_owned())),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // A name that exists: a file, or a symbolic link, which may name no file (the
                // open below then creates that file, to be removed as one created).
                let dangling = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink())
                    && std::fs::metadata(path).is_err();
                let file = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .custom_flags(nonblocking)
                    .open(path)
                    .map_err(no_reader)?;
                let created = if dangling {
                    std::fs::canonicalize(path).ok()
                } else {
                    None
                };
                (file, created)
            }
            Err(e) => return Err(no_reader(e)),
        };
        let flags = OFlag::from_bits_retain(fcntl(&file, FcntlArg::F_GETFL)?);
        fcntl(&file, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK))?;
        if let Some(stream) = standard_stream(&file) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("it is the proxy's {stream}: name another file"),
            ));
        }
        Ok(PendingLog {
            file,
            path: path.to_owned(),
            created,
        })
    }

    /// The log, emptied (as `File::create` empties it: a regular file; a device or a pipe has
    /// nothing to empty), once the server has started.
    fn start(self) -> io::Result<LogFile> {
        let regular = self.file.metadata()?.is_file();
        if regular && self.created.is_none() {
            self.file
                .set_len(0)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.path.display())))?;
        }
        Ok(LogFile::new(self.file))
    }

    /// Gives the log up, the server not started: a file it created is removed, an existing
    /// one left as it was.
    fn abandon(self) {
        if let Some(created) = &self.created {
            let _ = std::fs::remove_file(created);
        }
    }
}

/// The client's side: reads our stdin and forwards what is valid to the server's stdin (the
/// proxy's own replies go to the client), until the client's input ends; then closes the
/// server's stdin.
fn forward_client_to_server(
    shared: Arc<Shared>,
    server_in: Arc<Sink<ChildStdin>>,
    client_out: Arc<Sink<Stdout>>,
    mut sorter: Sorter,
) {
    let stdin = io::stdin();
    let mut stdin = stdin.lock();
    let mut input = Input::new();
    // A fault tests/proxy.rs injects in a debug build: a panic on this thread once the
    // client has sent something, where a bug would make one (see `exit_on_panic`).
    #[cfg(debug_assertions)]
    let injected_panic = std::env::var_os("RPCWIRE_TEST_PANIC_IN_CLIENT_THREAD").is_some();
    loop {
        let n = input.read_and_sort(&mut stdin, |buf, eof| sorter.sort(&shared, buf, eof));
        #[cfg(debug_assertions)]
        assert!(
            !(injected_panic && n > 0),
            "injected by RPCWIRE_TEST_PANIC_IN_CLIENT_THREAD"
        );
        if !sorter.replies.is_empty() {
            client_out.send(vec![take_all(&mut sorter.replies)]);
        }
        // Once the server's stdin is gone (the sink closed) but the server runs on, keep
        // reading the client's, checking it, as the server's side does without a reader:
        // stopping would leave the client's later requests unread in the pipe, never timed
        // out nor logged, and the client blocked writing once the pipe fills.
        if !sorter.forward.is_empty() {
            server_in.send(std::mem::take(&mut sorter.forward));
        }
        if n == 0 {
            break;
        }
    }
    // Client EOF: the server sees the end of its input.
    server_in.close();
}

/// Ends the process at a panic on any thread, after the panic's usual report, with the exit
/// status a panic on the main thread gives (101). A forwarding thread that panicked would
/// otherwise leave the server's stdin open (the main thread and the timer hold it too) and the
/// session's lock poisoned: the server waiting for input, the proxy waiting for the server,
/// and a client facing a proxy that neither forwards nor exits.
///
/// Exiting closes the server's pipes, so the server sees the end of its input; its process
/// group is sent SIGTERM first too, as a signal to the proxy would be forwarded, so that a
/// server that does not end at the end of its input (one with work of its own) is not left
/// running with no client.
fn exit_on_panic() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        PANICKED.store(true, Ordering::SeqCst);
        if let Some(&group) = SERVER_GROUP.get() {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(group),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        std::process::exit(101);
    }));
}

/// The server's process group (its pid: it leads a group of its own), for `exit_on_panic`.
static SERVER_GROUP: OnceLock<i32> = OnceLock::new();

/// Set by `exit_on_panic` before it ends the server: the server's exit is then not the
/// session's end.
static PANICKED: AtomicBool = AtomicBool::new(false);

/// The server's side: reads the server's stdout and forwards what is valid to our stdout,
/// until the server's stdout ends; `reading` is set while it waits on that stdout (not while
/// it writes to the client).
fn forward_server_to_client(
    shared: Arc<Shared>,
    client_out: Arc<Sink<Stdout>>,
    reading: Arc<AtomicBool>,
    mut server_out: ChildStdout,
    mut sorter: Sorter,
) {
    let mut input = Input::new();
    loop {
        reading.store(true, Ordering::Relaxed);
        let n = input.read_and_sort(&mut server_out, |buf, eof| {
            reading.store(false, Ordering::Relaxed);
            sorter.sort(&shared, buf, eof);
        });
        // Without a reader on our stdout (the sink closed), keep reading the
        // server's, checking it.
        if !sorter.forward.is_empty() {
            client_out.send(std::mem::take(&mut sorter.forward));
        }
        if n == 0 {
            break;
        }
    }
}

/// Spawns the timeouts' task: each client request (or batch) left unanswered for `ms` is
/// answered locally at its deadline (less than a millisecond or two after: the clock's and
/// the timer's resolution), and each request is cancelled on the server where the protocol
/// allows it (from a thread of its own).
fn spawn_timeouts(
    ms: u64,
    shared: &Arc<Shared>,
    server_in: &Arc<Sink<ChildStdin>>,
    client_out: &Arc<Sink<Stdout>>,
) -> tokio::task::JoinHandle<()> {
    // The cancellations reach the server from a thread of their own: a server that stops
    // reading leaves the client's thread blocked writing to it, holding its sink, and
    // the timer must go on answering the client meanwhile. (What waits here is bounded
    // by the requests in flight: while the client's thread is blocked, no more are read.)
    let (cancel, cancels_rx) = std::sync::mpsc::channel::<Bytes>();
    {
        let server_in = server_in.clone();
        std::thread::spawn(move || {
            while let Ok(first) = cancels_rx.recv() {
                let mut parts = vec![first];
                parts.extend(cancels_rx.try_iter());
                server_in.send(parts);
            }
        });
    }
    let (shared, client_out) = (shared.clone(), client_out.clone());
    tokio::spawn(async move {
        // When to look next, in the clock's milliseconds (at first, at once).
        let mut look_at = 0;
        loop {
            tokio::time::sleep_until(shared.clock.instant_of(look_at)).await;
            let expired = {
                let mut state = shared.lock();
                let now = shared.clock.now_ms();
                let expired = state.session.expire(now);
                look_at = next_look(now, state.session.next_deadline(), ms);
                for timeout in &expired {
                    let (requests, owed) = match timeout {
                        Timeout::Request(e) => (std::slice::from_ref(e), &[][..]),
                        Timeout::Batch { requests, owed } => (&requests[..], &owed[..]),
                    };
                    for e in requests {
                        let v = Violation::TimedOut;
                        let upstream_id = e.upstream_id.as_ref().map(IdBuf::as_id);
                        let (id, method) = (e.id.as_id(), &e.method);
                        state.log_event(now, "timeout", Dir::C2s, id, upstream_id, method, v);
                    }
                    for id in owed {
                        state.log_owed_answered(now, id.as_ref().map(IdBuf::as_id));
                    }
                }
                expired
            };
            if expired.is_empty() {
                continue;
            }
            let (mut replies, mut cancels) = (BytesMut::new(), BytesMut::new());
            let report = |e: &Expired| {
                if shared.quiet {
                    return;
                }
                shared.reporter.say(format!(
                    "rpcwire proxy: c2s: timed_out (request {}, {}): answered locally{}",
                    printable(&String::from_utf8_lossy(e.id.as_id().raw())),
                    printable(&e.method),
                    if e.cancel_on_server {
                        ", cancelled on the server"
                    } else if shared.mcp {
                        " (initialize is never cancelled)"
                    } else {
                        ""
                    }
                ));
            };
            // (Under the id the server knows it by. One that is not a string or an integer
            // names no request to cancel: nothing is sent.)
            let mut cancel_on_server = |e: &Expired| {
                if e.cancel_on_server {
                    let reason = format!("timed out after {ms} ms");
                    let _ = mcp::write_cancelled(&mut cancels, e.upstream(), Some(&reason));
                }
            };
            for timeout in expired {
                match timeout {
                    Timeout::Request(e) => {
                        write_timeout_reply(&mut replies, &e, ms);
                        report(&e);
                        cancel_on_server(&e);
                    }
                    // One array for what is left of the batch, as the server would have
                    // answered it: a second one would answer the same batch twice. (Each of
                    // its requests cancelled on the server alone: MCP 2025-03-26's.)
                    Timeout::Batch { requests, owed } => {
                        let mut array = BatchReply::open(&mut replies);
                        for e in &requests {
                            array.push(|out| write_timeout_reply(out, e, ms));
                            report(e);
                            cancel_on_server(e);
                        }
                        push_owed_replies(&mut array, &owed);
                        if !shared.quiet && !owed.is_empty() {
                            shared.reporter.say(format!(
                                "rpcwire proxy: c2s: a batch timed out: {} invalid elements answered locally",
                                owed.len()
                            ));
                        }
                        let _ = array.close();
                    }
                }
            }
            // A blocking write, off the runtime's threads. Either side may be gone
            // already (the client closed its stdin but still reads replies, or the
            // reverse): its sink is closed then.
            let client_out = client_out.clone();
            let _ = tokio::task::spawn_blocking(move || {
                client_out.send(vec![replies.freeze()]);
            })
            .await;
            if !cancels.is_empty() {
                let _ = cancel.send(cancels.freeze());
            }
        }
    })
}

/// When the timeouts' task looks next, having looked at `now` (all in the clock's
/// milliseconds): at the session's next deadline, and no later than `ms` on. The task sleeps
/// until each deadline, not on a tick of its own, which would answer a request up to a tick
/// late and wake an idle proxy. A deadline set after this look is a message's read after it,
/// so at least `ms` on. (But for the rest of a chunk being observed meanwhile: its lines share
/// one clock reading, taken before; those are answered late by as long as that took.)
fn next_look(now: u64, next_deadline: Option<u64>, ms: u64) -> u64 {
    let at_the_latest = now.saturating_add(ms);
    next_deadline.map_or(at_the_latest, |deadline| deadline.min(at_the_latest))
}

/// Which of the proxy's standard streams `file` is, if it is one of them (`/dev/stdout`,
/// `/proc/self/fd/0`, or the file stderr was sent to): records written to the client's
/// stream would reach the client as lines of it, or be read back as the client's messages,
/// each read making a record (a loop that never ends); written to stderr's file, they would
/// be emptied out of it with the reports written before, and mixed with those after. A
/// character device (a terminal, `/dev/null`) is no stream of messages, and is not refused.
fn standard_stream(file: &File) -> Option<&'static str> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let log = file.metadata().ok()?;
    if log.file_type().is_char_device() {
        return None;
    }
    let same = |fd: std::os::fd::BorrowedFd<'_>| {
        let stream = File::from(fd.try_clone_to_owned().ok()?).metadata().ok()?;
        Some(stream.dev() == log.dev() && stream.ino() == log.ino())
    };
    if same(io::stdout().as_fd()) == Some(true) {
        Some("standard output, the client's stream")
    } else if same(io::stdin().as_fd()) == Some(true) {
        Some("standard input, the client's stream")
    } else if same(io::stderr().as_fd()) == Some(true) {
        Some("standard error, where its reports go")
    } else {
        None
    }
}

/// `--log`'s file: any path but `-`, which names a standard stream where a command takes one
/// (`check`'s input): here standard output is the client's stream, and a file named `-` is
/// rarely what was meant (`./-` names one).
fn log_file() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    clap::builder::PathBufValueParser::new().try_map(|path: PathBuf| match path == Path::new("-") {
        true => Err("`-` is no file here (standard output is the client's stream): name a file, `./-` for one named `-`"),
        false => Ok(path),
    })
}

/// The period of `--stats-every SECS`: at most about 30 years, the far future of tokio's
/// timers (and of the deadline clock's), which no session outlives. A longer period would
/// print no more lines, but the instant of its next tick would overflow where the tokio in
/// use does not cap periods itself (1.54 does; the manifest takes any tokio 1.x).
fn stats_period(secs: u64) -> Duration {
    const FAR_FUTURE_SECS: u64 = 86_400 * 365 * 30;
    Duration::from_secs(secs.min(FAR_FUTURE_SECS))
}

/// SIGINT, SIGTERM and SIGHUP, caught from now on (`None` when they cannot be).
fn caught_signals() -> Option<[tokio::signal::unix::Signal; 3]> {
    use tokio::signal::unix::{SignalKind, signal};
    Some([
        signal(SignalKind::interrupt()).ok()?,
        signal(SignalKind::terminate()).ok()?,
        signal(SignalKind::hangup()).ok()?,
    ])
}

/// Forwards the `caught` SIGINT, SIGTERM and SIGHUP to the server's process group (`pid`'s),
/// telling `signalled_tx` each time; nothing when they could not be caught.
async fn forward_signals(
    caught: Option<[tokio::signal::unix::Signal; 3]>,
    pid: u32,
    signalled_tx: tokio::sync::watch::Sender<bool>,
) {
    use nix::sys::signal::Signal;
    let Some([mut int, mut term, mut hup]) = caught else {
        return;
    };
    loop {
        let sig = tokio::select! {
            _ = int.recv() => Signal::SIGINT,
            _ = term.recv() => Signal::SIGTERM,
            _ = hup.recv() => Signal::SIGHUP,
        };
        // To the server's whole process group (its own, see `proxy`): a server started
        // through a wrapper (`sh -c`, a launcher) that does not relay signals ends too.
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid as i32), sig);
        let _ = signalled_tx.send(true);
    }
}

/// Writes the client's reply to a timed-out request: a -32603 "Request timed out".
fn write_timeout_reply(out: &mut BytesMut, expired: &Expired, timeout_ms: u64) {
    let data = format!(
        "{{\"method\":{},\"timeoutMs\":{timeout_ms}}}",
        json!(&*expired.method)
    );
    encode::write_error(
        out,
        expired.id.as_id(),
        ErrorCode::INTERNAL_ERROR,
        "Request timed out",
        RawJson::new(data.as_bytes()),
    );
}

/// How long the server's stdout is still read after it exited while nothing comes (a process
/// it left behind holds it open), and how long a signal leaves a client that does not read.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);
/// How often the drain of the server's output after its exit is looked at.
const DRAIN_POLL: Duration = Duration::from_millis(100);

/// The server's exit status as ours: its code, or 128 + the signal that ended it.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitCode::from(code as u8),
        (None, Some(sig)) => ExitCode::from(128u8.wrapping_add(sig as u8)),
        _ => ExitCode::from(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any `--stats-every` gives a tick whose instant can be reached by adding its period to
    /// now, whatever tokio does with it; a sane period is kept as given.
    #[test]
    fn every_stats_period_has_a_next_tick() {
        let now = std::time::Instant::now();
        for secs in [1, 3_600, u64::MAX / 1_000, u64::MAX] {
            let period = stats_period(secs);
            assert!(now.checked_add(period).is_some(), "--stats-every {secs}");
            assert!(period >= Duration::from_secs(secs.min(86_400 * 365)));
        }
        assert_eq!(stats_period(3_600), Duration::from_secs(3_600));
    }
}
