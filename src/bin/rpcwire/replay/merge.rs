//! Merging the two streams of a session (`--c2s FILE --s2c FILE`) causally, one message at a
//! time, by the rules of [`super`].

use std::io::{self, Write};
use std::path::Path;

use rpcwire::{Decoder, Dialect, Id, IdKey, Message, Role};

use super::array_target::array_need;
use super::need::Need;
use super::observe::{observe, wire_id};
use super::progress::{Progress, file_size};
use super::report::Report;
use super::side::Side;
use crate::check::{CheckArgs, Record, batch_elements, element_records};
use crate::session::{Dir, ParamsFault, Session, kind_of};

/// Merges the streams `c2s` and `s2c` through `session` (a fresh one, of `args`' dialect), and
/// reports the result.
pub(super) fn merge_streams<W: Write>(
    args: &CheckArgs,
    c2s: &Path,
    s2c: &Path,
    session: Session,
    mut report: Report<W>,
) -> io::Result<bool> {
    let mut session = session.telling_stops().without_arrival_order();
    let mut progress = Progress::new(file_size(c2s) + file_size(s2c));
    let mut client = Side::new(args, c2s, Role::Server)?;
    let mut server = Side::new(args, s2c, Role::Client)?;
    let dialect = session.dialect();
    loop {
        // Each side's need, what it waits on looked for ahead in the other stream.
        let out = &mut report.out;
        client.peek(&mut progress, out)?;
        server.peek(&mut progress, out)?;
        let c = client.peek_need(&session, Dir::C2s, &mut |key| {
            server.sends(key, &mut progress, out)
        })?;
        let s = match array_need(&mut server, &mut client, &session, &mut progress, out)? {
            Some(need) => Some(need),
            None => server.peek_need(&session, Dir::S2c, &mut |key| {
                client.sends(key, &mut progress, out)
            })?,
        };
        let dir = match (c, s) {
            (None, None) => break,
            (Some(_), None) => Dir::C2s,
            (None, Some(_)) => Dir::S2c,
            (_, Some(Need::Matches)) => Dir::S2c,
            (Some(Need::Matches), _) => Dir::C2s,
            // (A client's reply to an id that stopped waiting, or its progress on a token that
            // did, never holds back a server reply pulling the client's stream, even when the
            // server sends that token again: the server sent it after the reply that pulls,
            // once it had read the client's message.)
            (
                Some(Need::Nothing | Need::Stale | Need::Again),
                Some(Need::OtherSide | Need::Again),
            ) => Dir::C2s,
            // A reply to an id that stopped waiting (progress on its token, a notification of
            // its stream) waits for the other stream only through what may come before the id
            // (the token) sent again.
            (Some(Need::Nothing), Some(Need::Stale))
                if may_precede_stale(dialect, client.peeked(), server.peeked()) =>
            {
                Dir::C2s
            }
            (Some(Need::Stale), Some(Need::Nothing))
                if !may_precede_stale(dialect, server.peeked(), client.peeked()) =>
            {
                Dir::C2s
            }
            _ => Dir::S2c,
        };
        // (The client batch a server's array answers, as placed.)
        let array = match dir {
            Dir::C2s => None,
            Dir::S2c => server.peeked_array.take(),
        };
        let side = match dir {
            Dir::C2s => &mut client,
            Dir::S2c => &mut server,
        };
        let mut r = side.next(&mut progress, &mut report.out)?.expect("peeked");
        if side.is_ndjson() {
            r.line = Some(r.frame + 1);
        }
        if r.kind == "success_response" && session.reads_tool_headers(dir, wire_id(&r.id)) {
            r.invalid_tools = side.invalid_tools();
        }
        // The result of `initialize`, held to its schema as the proxy holds it: only the
        // reply the session says answers it.
        if r.kind == "success_response"
            && wire_id(&r.id).is_some_and(|id| session.is_initialize_reply(dir, id))
        {
            r.params_fault = side.initialize_result_fault();
        }
        // The task a reply tells of, read as the proxy reads it: only for the replies the
        // session reads it of.
        if r.kind == "success_response"
            && let Some(reply) = session.reads_task(dir, wire_id(&r.id))
        {
            r.task = side.task_of_reply(reply);
        }
        let violation = if r.kind == "framing_error" && r.reply.is_none() {
            // Not an over-long frame: where the stream can be read no further.
            Some(session.observe_bad_framing(dir))
        } else if r.unsupported_charset {
            Some(session.observe_unsupported_charset(dir))
        } else {
            observe(&mut session, dir, &r, 0)
        };
        // Its peer reads every line: an invalid one is owed an error, with its id, or, when its
        // id could not be read, a null one (JSON-RPC 2.0 §5.1; MCP 2025-11-25 leaves it out).
        if let Some((_, id)) = &r.reply {
            session.owe_line_reply(dir, Id::from_token(id.as_bytes()));
        }
        let kinds = batch_elements(&side.decoder, &r).map(|element| kind_of(&element));
        if Session::drops_batch(dir, kinds) {
            session.drop_batch(dir);
        }
        report.message(dir, &r, violation)?;
        if let Some((batch, replies)) = array.as_ref().and_then(|a| a.observed_batch()) {
            session.answer_array_for(batch, replies);
        }
        for mut element in element_records(&side.decoder, &r) {
            // (An element may be the reply to `initialize` too: a second one's, sent while
            // the first waited, answered in a 2025-03-26 array.)
            if element.kind == "success_response"
                && wire_id(&element.id).is_some_and(|id| session.is_initialize_reply(dir, id))
            {
                let at = element.element.unwrap_or_default() as usize;
                element.params_fault = element_initialize_result_fault(&side.decoder, &r, at);
            }
            let violation = observe(&mut session, dir, &element, 0);
            report.message(dir, &element, violation)?;
        }
        if let Some(version) = session.protocol_version() {
            client.adopt_protocol_version(version);
            server.adopt_protocol_version(version);
        }
    }
    progress.finish();
    report.finish(session, [client.index, server.index])
}

/// The fault of the result of element `at` of the batch `r`, the reply to `initialize`, when
/// it breaks `InitializeResult`: the batch decoded again, only for such an element.
fn element_initialize_result_fault(
    decoder: &Decoder,
    r: &Record,
    at: usize,
) -> Option<ParamsFault> {
    match batch_elements(decoder, r).nth(at)? {
        Ok(Message::Response(reply)) => ParamsFault::of_initialize_result(reply.result),
        _ => None,
    }
}

/// Whether `next`, the next message of one stream, goes before `stale`, the other's next: a
/// reply to an id whose request stopped waiting lately, progress on its token or a
/// notification of its listen stream ([`Need::Stale`]), under `dialect`: asked when the look
/// ahead in the other stream did not settle where `stale` goes ([`Side::peek_need`]).
///
/// Under MCP, which forbids a sender to use an id again in a session, `next` goes first when
/// it sends that id (that token, which a request may carry again once the first is done)
/// again, in a request `stale` may then answer (report on, belong to), or when it is a
/// notification other than a cancellation, which changes nothing the rest of `stale`'s stream
/// is matched against, and may come before such a request; or, `stale` being an error, when
/// it is an invalid line owed an error of that id (sent with it while its request waited),
/// which `stale` may then answer. Anything else (a request of
/// another id, a cancellation, a batch, a line that is not a valid message) lets `stale` go
/// first, as the second reply (the progress after the result) it then is: taken before it, a
/// cancellation made a later reply to the request it cancels a `late_reply`, and the stream
/// went on so to its end.
///
/// Under JSON-RPC, which lets a client send an id again once its request is answered (a
/// client drawing ids from a pool may have others in flight before it), and which has no
/// cancellation to go before a reply, `next` always does: `stale` waits as a reply to an id
/// not sent yet does.
fn may_precede_stale(dialect: Dialect, next: Option<&Record>, stale: Option<&Record>) -> bool {
    if dialect == Dialect::JsonRpc2 {
        return true;
    }
    let (Some(next), Some(stale)) = (next, stale) else {
        return false;
    };
    let key = |token: &Option<String>| wire_id(token).map(IdKey::of);
    // What of a request `stale` depends on ([`need_of`](super::need::need_of)'s branches).
    let (sent, awaited) = match (stale.kind, stale.method.as_deref()) {
        ("notification", Some(rpcwire::mcp::methods::PROGRESS)) => {
            (&next.progress_token, &stale.progress_token)
        }
        ("notification", _) => (&next.id, &stale.subscription),
        _ => (&next.id, &stale.id),
    };
    // An invalid line sent with that id (while its request waited) is owed an error of it: an
    // error after the request's reply may be the line's.
    let owed = next
        .reply
        .as_ref()
        .and_then(|(_, id)| Id::from_token(id.as_bytes()));
    if stale.kind == "error_response"
        && key(awaited).is_some_and(|k| owed.map(IdKey::of) == Some(k))
    {
        return true;
    }
    match next.kind {
        "request" => key(sent).is_some() && key(sent) == key(awaited),
        "notification" => next.method.as_deref() != Some(rpcwire::mcp::methods::CANCELLED),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check --json --dialect jsonrpc --c2s C2S --s2c S2C` of the streams `c2s` and `s2c`
    /// (written under the system's temporary directory, as `name`), merged through a session
    /// of at most one request in flight each way: each record's direction, id and violation.
    fn merge_one_in_flight(name: &str, c2s: &str, s2c: &str) -> Vec<(String, String, String)> {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: CheckArgs,
        }
        let dir = std::env::temp_dir().join(format!("rpcwire-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (c2s_path, s2c_path) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
        std::fs::write(&c2s_path, c2s).unwrap();
        std::fs::write(&s2c_path, s2c).unwrap();
        let args = <Cli as clap::Parser>::parse_from([
            "check".as_ref(),
            "--json".as_ref(),
            "--dialect".as_ref(),
            "jsonrpc".as_ref(),
            "--c2s".as_ref(),
            c2s_path.as_os_str(),
            "--s2c".as_ref(),
            s2c_path.as_os_str(),
        ])
        .args;
        let mut out = vec![];
        let report = Report {
            out: &mut out,
            json: true,
        };
        let session = Session::with_max_in_flight(Dialect::JsonRpc2, None, 1);
        merge_streams(&args, &c2s_path, &s2c_path, session, report).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => "-".into(),
            other => other.to_string(),
        };
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .filter(|record| record.get("summary").is_none())
            .map(|r| (text(&r["dir"]), text(&r["id"]), text(&r["violation"])))
            .collect()
    }

    /// A batch element beyond the limit of requests in flight, kept until its reply comes,
    /// waits for it as a request does: the server's reply to it goes first (rule 1), before
    /// the client's next request, which the merge would otherwise take first (rule 2, as if
    /// the reply answered an id not sent yet). Taken first, that request found the table still
    /// full (the reply to 1 had not come) and was refused as beyond the limit, and the reply
    /// to it then answered nothing.
    #[test]
    fn a_reply_to_a_kept_element_goes_first() {
        let c2s = [
            r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
            r#"[{"jsonrpc":"2.0","id":2,"method":"b"}]"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"c"}"#,
        ];
        let s2c = [
            r#"[{"jsonrpc":"2.0","id":2,"result":{}}]"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        ];
        let records = merge_one_in_flight(
            "kept-element-first",
            &(c2s.join("\n") + "\n"),
            &(s2c.join("\n") + "\n"),
        );
        let expected = [
            ("c2s", "1", "-"),
            ("c2s", "-", "-"),
            ("c2s", "2", "too_many_in_flight"),
            ("s2c", "-", "-"),
            ("s2c", "2", "-"),
            ("s2c", "1", "-"),
            ("c2s", "3", "-"),
            ("s2c", "3", "-"),
        ];
        let expected: Vec<_> = expected
            .iter()
            .map(|(d, i, v)| (d.to_string(), i.to_string(), v.to_string()))
            .collect();
        assert_eq!(records, expected);
    }
}
