//! `rpcwire check` on a whole session, offline: the proxy's session checks (`session/`) over
//! a log written by `rpcwire proxy --log` (`--session-log FILE`) or over the two streams of a
//! session (`--c2s FILE --s2c FILE`).
//!
//! Either way the report is flushed before each read of the input that may wait, so a live
//! log or stream (a pipe whose writer stays) is reported as it comes, as `check` of one stream
//! is.
//!
//! A proxy log is replayed in its own order, which is the order the live proxy saw (the log is
//! written under the session's lock), with its timeout events; the result is the live run's.
//! A JSON-RPC batch is a `batch` record followed by one record per element (with its index
//! as `element`), each observed as the proxy did.
//!
//! Two streams carry no timestamps, so they are merged causally, one message at a time, by
//! these rules in this order:
//! 1. a reply (either way) to a request that is waiting goes first: a reply is matched as early
//!    as the streams allow, before a cancellation or a reused id that follows it elsewhere.
//!    (A batch element beyond the limits of the requests in flight, kept until its reply
//!    comes, is waiting as a request is.)
//!    A `notifications/progress` (MCP) counts as a reply to the request carrying its token:
//!    it goes first while that request waits, and otherwise pulls the other stream forward as
//!    in rule 2. So does an error with a null id sent alone while a line of the other stream
//!    whose id could not be read waits for it (JSON-RPC 2.0 §5.1: a peer reads every line of
//!    the streams, so it answers those too; such a reply is no violation);
//! 2. a server reply to an id the client has not sent yet pulls the client's stream forward,
//!    one message at a time, until it has — unless the client's next message is itself a
//!    reply to a server request not seen yet, a deadlock the streams only reach when a peer
//!    broke the protocol (and mirrored, a client reply waits for the server's request by rule
//!    3). A reply to an id the other stream never sends pulls nothing: it goes where it comes,
//!    an `unknown_reply`. (Pulled to the end of the other stream, it let a cancellation go
//!    before the reply, behind it, to the request cancelled, which was then reported late; a
//!    JSON-RPC request sending an id again before the reply to the first, a `duplicate_id`.)
//!    Which of the two it is, is found by looking ahead in the other stream ([`ahead`],
//!    [`side::Side::sends`]), bounded (4,096 messages, 1 MiB of frames): an id not found there
//!    pulls, as one not sent yet, until it is sent or the look ahead reaches the stream's end
//!    without it (a stream a fatal framing error cut never does: its rest may send it; a
//!    stream that is not a regular file is not read ahead, but for its next message: a live
//!    stream's records, and the other stream's, would wait for the look ahead to fill). A
//!    reply (either way) to an id whose request stopped waiting lately (answered or cancelled:
//!    one of the last 4,096, fewer when their ids pass 1 MiB), progress on its token or a
//!    notification of its listen stream, was sent already. Under MCP, which forbids a sender
//!    to use an id again in a session, it is a second reply (or a late one) unless the other
//!    stream sends the id again, so it waits only while the other stream's next message is a
//!    request with that id or a notification other than a cancellation (an error, also while
//!    it is an invalid line owed an error of that id), and otherwise goes first. A progress token may be sent again once its request is done, after other
//!    requests of a client that pipelines: progress on it waits for a request the look ahead
//!    finds carrying it again, goes first when the look ahead reaches the other stream's end
//!    without one, and otherwise waits as such a reply does. Under JSON-RPC, which lets a
//!    client send an id again once it is answered, and has no cancellation, it pulls as a
//!    reply to an id not sent yet does (and goes first when that id is never sent). Either
//!    way, a client's such reply never holds back a server reply pulling the client's stream:
//!    it goes first (the server could not have sent a request that the client's reply
//!    answered after that server reply, which waits on a client request sent after the
//!    client's reply);
//! 3. otherwise the server's stream goes first, and the client's only when the server's ends.
//!
//! A JSON-RPC batch is one message for the merge, its elements observed one by one after it.
//! A server's array of replies that fits a client batch (each reply answers a distinct element
//! of it still owed one: one array answers one batch) is placed after that batch, whatever its
//! replies alone would do: it goes first (rule 1) once one it fits was observed, and pulls the
//! client's stream (rule 2) until the one it fits, found by looking ahead there, was (one it
//! answers whole before one it fits in part, strictly before leniently); its errors then take
//! the replies owed to that batch's invalid elements before any other's ([`array_target`]). Any other batch pulls the
//! other stream forward (rule 2) while any of its replies answers a request not seen yet which
//! the look ahead does not find never sent; else, when one answers a request
//! that stopped waiting lately, it is placed as that reply alone is (rule 2: it pulls, but a
//! client's goes first when the server's next message pulls the client's stream; it waited
//! as a reply to an id not sent yet, and that server message went before the request it
//! answers); else it goes first (rule 1) when any answers a request that is waiting.
//!
//! So every client reply to a server request waits (rule 2 mirrored by rule 3) for the server
//! request it answers. A real violation (a reply nobody asked for, a reused id, a request
//! never answered, progress after its request's result or on a token nobody sent, progress
//! that does not increase) is still found; what no merge can know is the real timing, so late
//! replies, progress after a cancellation and timeouts are only found in a proxy log.
//!
//! [`run`] is here; the rest, one concept a file: the replay of a proxy log ([`log`]); for two
//! streams, each stream read a message at a time ([`side`]), the messages read ahead of the
//! next one and what they send ([`ahead`]), how a message relates to what the
//! session waits on ([`need`]), the same for a batch kept peeked ([`batch_need`]), the client
//! batch a server's array answers ([`array_target`]) and the merge itself ([`merge`]); shared by both, what the session is told of a record ([`observe`]), the
//! report ([`report`]) and the progress line ([`progress`]).

mod ahead;
mod array_target;
mod batch_need;
mod log;
mod merge;
mod need;
mod observe;
mod progress;
mod report;
mod side;

use std::io::{self, BufWriter};
use std::path::Path;

use self::log::replay_log;
use self::merge::merge_streams;
use self::report::Report;
use crate::check::{CheckArgs, ReportOut};
use crate::session::Session;

/// Runs the session checks; `Ok(true)` when there is no violation.
pub fn run(
    args: &CheckArgs,
    log: Option<&Path>,
    c2s: Option<&Path>,
    s2c: Option<&Path>,
) -> io::Result<bool> {
    let report = Report {
        out: BufWriter::new(ReportOut::lock()),
        json: args.json,
    };
    match (log, c2s, s2c) {
        (Some(log), _, _) => replay_log(args, log, report),
        (None, Some(c2s), Some(s2c)) if c2s.as_os_str() == "-" && s2c.as_os_str() == "-" => {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "--c2s and --s2c cannot both be the standard input (-)",
            ))
        }
        (None, Some(c2s), Some(s2c)) => {
            let session = Session::new(args.dialect(), None);
            merge_streams(args, c2s, s2c, session, report)
        }
        _ => unreachable!("clap requires --session-log or both --c2s and --s2c"),
    }
}
