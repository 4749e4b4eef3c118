//! How a batch kept peeked while the other stream moves on relates to the session, asked again
//! at each step: each element looked at a bounded number of times, not once a step.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io;

use rpcwire::{Decoder, Dialect, IdKey, Message};

use super::ahead::{Lookahead, Sent};
use super::need::{Concern, Need, need_of};
use crate::check::Record;
use crate::session::{Described, Dir, Session, kind_of, may_answer};

/// How a peeked batch relates to the session: the other stream first while any element needs
/// it (the peer answers only what it has read); else, under JSON-RPC, as a reply to an id that
/// stopped waiting lately when an element is one ([`Need::Stale`], whose tie-breaks the merge
/// then applies to the batch, as to such a reply alone); else this one while any element
/// matches.
///
/// The batch stays peeked while the other stream moves on, one message a step, and the answer
/// is asked again at each step: looking at all its elements each time made a batch of `n`
/// replies, pulling `n` messages, cost `n²` decodes. What the steps change only turns an
/// element from needing the other stream into matching, as requests arrive, so the elements
/// found not to need it are not looked at again, unless a request of the other side stops
/// waiting, which may turn one back (a batch element kept beyond the limits counts as a
/// request: [`Session::awaits_reply`]). None does while the batch is peeked but by a
/// cancellation (MCP 2025-03-26, the one version of MCP with batches): under JSON-RPC, which
/// has no cancellation, the requests of one side stop waiting only by the other side's
/// replies, which come after the peeked batch in its own stream (and no merge has timeouts).
///
/// A request stopping waiting concerns only the elements that depend on it: those answering
/// its id, those reporting progress on its token, those of a listen stream it opened
/// ([`Concern`]). Those are looked at again, and no other: looking at them all again made a
/// stream with a cancellation at each step cost `n²` decodes as well. Elements with the same
/// concern have the same need, so each concern is looked at through its first element only,
/// and a cancellation looks again at a bounded number of them (at most one of each kind).
pub(super) struct BatchNeed {
    /// For each concern of the elements that may answer the other side (responses,
    /// notifications), in the order they first come: the byte range, in the frame, of its
    /// first element. (The other elements need nothing.)
    concerns: Vec<(usize, usize)>,
    /// The concerns of each id, by its key.
    by_key: HashMap<IdKey, Vec<usize>>,
    /// The first concern not yet found not to need the other stream.
    next: usize,
    /// Past a JSON-RPC reply to an id that stopped waiting lately, the first concern not yet
    /// found not to wait for the other stream ([`BatchNeed::stale_unless_waiting`]).
    strict: usize,
    /// Those before `next` that a request stopping waiting may have turned to need the other
    /// stream: looked at again, in order, before the batch is found not to need it.
    unsettled: BTreeSet<usize>,
    /// Of those before `next`, settled, which match a request waiting (the others need
    /// nothing), and how many do.
    matches: Vec<bool>,
    /// How many of those match (the `true`s of `matches`).
    matching: usize,
    /// The session's count of requests that stopped waiting in the other direction, as of
    /// the last look.
    stopped: u64,
    /// How many elements were looked at, for the tests.
    #[cfg(test)]
    examined: usize,
}
impl BatchNeed {
    /// The elements of the batch `r`, read from `dir`'s stream, as `session` will ask about
    /// them.
    pub(super) fn of(decoder: &Decoder, r: &Record, session: &Session, dir: Dir) -> BatchNeed {
        let frame = r.batch.as_deref().unwrap_or_default();
        let mcp = session.dialect() == Dialect::Mcp;
        let mut seen = HashSet::new();
        let mut concerns = vec![];
        let mut by_key: HashMap<IdKey, Vec<usize>> = HashMap::new();
        if r.elements_may_answer {
            let Ok(Message::Batch(batch)) = decoder.decode(frame) else {
                unreachable!("a batch's record keeps the batch's frame");
            };
            for (raw, element) in batch.raw.elements().zip(batch.decode(decoder)) {
                if !may_answer(kind_of(&element)) {
                    continue;
                }
                let described = Described::of(element.as_ref(), mcp);
                let Some(concern) = Concern::of(&described.observation(), dir, session.dialect())
                else {
                    continue;
                };
                if seen.contains(&concern) {
                    continue;
                }
                if let Some(key) = concern.key() {
                    by_key.entry(key.clone()).or_default().push(concerns.len());
                }
                seen.insert(concern);
                // (A subslice of the frame: its offset.)
                let start = raw.as_bytes().as_ptr() as usize - frame.as_ptr() as usize;
                concerns.push((start, start + raw.as_bytes().len()));
            }
        }
        BatchNeed {
            matches: vec![false; concerns.len()],
            concerns,
            by_key,
            next: 0,
            strict: 0,
            unsettled: BTreeSet::new(),
            matching: 0,
            stopped: session.stopped_waiting(dir.other()),
            #[cfg(test)]
            examined: 0,
        }
    }

    /// How the batch `r`, read from `dir`'s stream, relates to the session now: the concerns
    /// unsettled by the requests that stopped waiting are looked at again first, then those
    /// not looked at yet, up to the first that needs the other stream (`ahead` says whether
    /// the other stream sends what an element waits on: [`Side::sends`](super::side::Side::sends)).
    pub(super) fn need(
        &mut self,
        session: &Session,
        dir: Dir,
        r: &Record,
        decoder: &Decoder,
        ahead: &mut dyn FnMut(&Sent) -> io::Result<Lookahead>,
    ) -> io::Result<Need> {
        self.unsettle_stopped(session, dir);
        let frame = r.batch.as_deref().unwrap_or_default();
        while let Some(&concern) = self.unsettled.first() {
            match self.look(concern, session, dir, frame, decoder, ahead)? {
                Need::OtherSide => return Ok(Need::OtherSide),
                Need::Stale => {
                    return self
                        .stale_unless_waiting(self.next, session, dir, frame, decoder, ahead);
                }
                need => {
                    self.unsettled.remove(&concern);
                    self.settle(concern, need);
                }
            }
        }
        while self.next < self.concerns.len() {
            match self.look(self.next, session, dir, frame, decoder, ahead)? {
                Need::OtherSide => return Ok(Need::OtherSide),
                Need::Stale => {
                    let after = self.next + 1;
                    return self.stale_unless_waiting(after, session, dir, frame, decoder, ahead);
                }
                need => {
                    self.settle(self.next, need);
                    self.next += 1;
                }
            }
        }
        Ok(if self.matching > 0 {
            Need::Matches
        } else {
            Need::Nothing
        })
    }

    /// The need of a batch one of whose elements is a JSON-RPC reply to an id that stopped
    /// waiting lately ([`Need::Stale`], as it is alone: the merge's tie-breaks apply to the
    /// batch), unless an element from the concern `from` on waits for the other stream
    /// ([`Need::OtherSide`]), which the batch then does. Those found not to, up to `strict`,
    /// are not looked at again: what the steps change turns an element from needing the other
    /// stream into matching, as requests arrive, and a request stopping waiting turns one that
    /// matched into a reply to an id that stopped waiting lately, not into one needing the
    /// other stream (but when its id is no longer among those remembered, which this misses).
    fn stale_unless_waiting(
        &mut self,
        from: usize,
        session: &Session,
        dir: Dir,
        frame: &[u8],
        decoder: &Decoder,
        ahead: &mut dyn FnMut(&Sent) -> io::Result<Lookahead>,
    ) -> io::Result<Need> {
        self.strict = self.strict.max(from);
        while self.strict < self.concerns.len() {
            match self.look(self.strict, session, dir, frame, decoder, ahead)? {
                Need::OtherSide => return Ok(Need::OtherSide),
                _ => self.strict += 1,
            }
        }
        Ok(Need::Stale)
    }

    /// The concerns looked at already that the requests of the other side which stopped
    /// waiting since the last look depend on are unsettled: all of them, when the session
    /// does not tell which stopped.
    fn unsettle_stopped(&mut self, session: &Session, dir: Dir) {
        let stopped = session.stopped_waiting(dir.other());
        let since = stopped.saturating_sub(self.stopped);
        self.stopped = stopped;
        if since == 0 {
            return;
        }
        let Some(stops) = session.last_stops(dir.other(), since) else {
            (0..self.next).for_each(|concern| self.unsettle(concern));
            return;
        };
        for (id, token) in stops {
            for key in std::iter::once(id).chain(token) {
                let concerns = self.by_key.get(key).map_or(&[][..], Vec::as_slice);
                let looked_at: Vec<usize> = concerns
                    .iter()
                    .copied()
                    .filter(|&c| c < self.next)
                    .collect();
                looked_at.into_iter().for_each(|c| self.unsettle(c));
            }
        }
    }

    /// The concern `concern`, looked at already, is to be looked at again.
    fn unsettle(&mut self, concern: usize) {
        if self.unsettled.insert(concern) && std::mem::take(&mut self.matches[concern]) {
            self.matching -= 1;
        }
    }

    /// The concern `concern` was found not to need the other stream: `need`.
    fn settle(&mut self, concern: usize, need: Need) {
        let matches = need == Need::Matches;
        self.matches[concern] = matches;
        self.matching += usize::from(matches);
    }

    /// How the first element of the concern `concern` relates to the session.
    fn look(
        &mut self,
        concern: usize,
        session: &Session,
        dir: Dir,
        frame: &[u8],
        decoder: &Decoder,
        ahead: &mut dyn FnMut(&Sent) -> io::Result<Lookahead>,
    ) -> io::Result<Need> {
        #[cfg(test)]
        {
            self.examined += 1;
        }
        let (start, end) = self.concerns[concern];
        let element = decoder.decode(&frame[start..end]);
        let described = Described::of(element.as_ref(), session.dialect() == Dialect::Mcp);
        // A reply to an id the other stream never sends (the look ahead reaches its end)
        // waits for nothing, as alone. A JSON-RPC reply to an id that stopped waiting lately
        // is one as alone ([`Need::Stale`]: it pulls as one to an id not sent yet, but goes
        // first when the other stream pulls this one). Under MCP (whose batches the tool
        // reads in a session that negotiated 2025-03-26 only) it waits for the other stream
        // to send it again, or end: the merge's MCP tie-break for such a reply alone reads
        // one message, not an element of a batch.
        let observation = described.observation();
        Ok(match need_of(session, dir, &observation, true) {
            need @ (Need::Stale | Need::OtherSide) => {
                let concern = Concern::of(&observation, dir, session.dialect());
                let mcp = session.dialect() == Dialect::Mcp;
                match concern.as_ref().and_then(Concern::sent) {
                    Some(key) if ahead(&key)? == Lookahead::Never => Need::Nothing,
                    _ if need == Need::Stale && mcp => Need::OtherSide,
                    _ => need,
                }
            }
            need => need,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use rpcwire::{DecodeOptions, Id, Role};

    use crate::check::element_records;
    use crate::replay::observe::observe;

    /// A server batch of `n` replies, to ids `0..n`.
    fn batch_of_replies(server: &Decoder, n: usize) -> Record {
        let replies: Vec<String> = (0..n)
            .map(|n| format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{}}}}"#))
            .collect();
        record(server, &format!("[{}]", replies.join(",")))
    }

    /// The record `check` reads of `line`.
    fn record(decoder: &Decoder, line: &str) -> Record {
        let frame = Bytes::copy_from_slice(line.as_bytes());
        crate::check::classify(decoder, &frame, 0, 0)
    }

    /// A JSON-RPC decoder for the stream `dir` writes.
    fn decoder(dir: Dir) -> Decoder {
        let mut options = DecodeOptions::new(Dialect::JsonRpc2);
        options.role = match dir {
            Dir::C2s => Role::Server,
            Dir::S2c => Role::Client,
        };
        Decoder::new(options)
    }

    /// A server batch of replies to requests not sent yet stays peeked while the client's
    /// stream sends them, each followed by a `notifications/cancelled` (for the request
    /// before it; under JSON-RPC a notification like any other, which stops no request): each
    /// element is looked at a bounded number of times (at most twice), not once a step (a
    /// batch of 5,000 replies would cost 12.5 million looks).
    #[test]
    fn a_peeked_batch_looks_at_each_element_a_bounded_number_of_times() {
        const N: usize = 5_000;
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let batch = batch_of_replies(&server, N);
        let mut session = Session::new(Dialect::JsonRpc2, None);
        let mut need = BatchNeed::of(&server, &batch, &session, Dir::S2c);
        for n in 0..N {
            let now = need
                .need(&session, Dir::S2c, &batch, &server, &mut |_| {
                    Ok(Lookahead::Unknown)
                })
                .unwrap();
            assert!(now == Need::OtherSide, "{n}");
            let request = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"m"}}"#);
            observe(&mut session, Dir::C2s, &record(&client, &request), 0);
            let cancel = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{}}}}}"#,
                n.saturating_sub(1)
            );
            observe(&mut session, Dir::C2s, &record(&client, &cancel), 0);
        }
        assert!(
            need.need(&session, Dir::S2c, &batch, &server, &mut |_| Ok(
                Lookahead::Unknown
            ))
            .unwrap()
                == Need::Matches
        );
        assert!(need.examined <= 2 * N, "{} looks", need.examined);
    }

    /// JSON-RPC: a client batch of second replies to server requests already answered, and
    /// one reply to a request the server has not sent yet, is a batch of such replies
    /// ([`Need::Stale`]) only if nothing in it waits for the server's stream: it waits
    /// ([`Need::OtherSide`]) until that request comes, and is [`Need::Stale`] after. While it
    /// waits, the server's stream moving on one request a step, its elements are looked at a
    /// bounded number of times, not once a step each.
    #[test]
    fn a_batch_of_second_replies_is_stale_unless_one_waits() {
        const N: usize = 2_000;
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let mut session = Session::new(Dialect::JsonRpc2, None).telling_stops();
        for n in 0..N {
            let request = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"m"}}"#);
            observe(&mut session, Dir::S2c, &record(&server, &request), 0);
            let reply = format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{}}}}"#);
            observe(&mut session, Dir::C2s, &record(&client, &reply), 0);
        }
        let mut replies: Vec<String> = (0..N)
            .map(|n| format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{}}}}"#))
            .collect();
        replies.push(r#"{"jsonrpc":"2.0","id":"x","result":{}}"#.into());
        let batch = record(&client, &format!("[{}]", replies.join(",")));
        let mut need = BatchNeed::of(&client, &batch, &session, Dir::C2s);
        let mut now = |session: &Session| {
            need.need(session, Dir::C2s, &batch, &client, &mut |_| {
                Ok(Lookahead::Unknown)
            })
            .unwrap()
        };
        for n in 0..N {
            assert!(now(&session) == Need::OtherSide, "{n}");
            let request = format!(r#"{{"jsonrpc":"2.0","id":"o{n}","method":"m"}}"#);
            observe(&mut session, Dir::S2c, &record(&server, &request), 0);
        }
        let request = r#"{"jsonrpc":"2.0","id":"x","method":"m"}"#;
        observe(&mut session, Dir::S2c, &record(&server, request), 0);
        assert!(now(&session) == Need::Stale);
        // Once a step the first second reply and the reply that waits, once each in between.
        assert!(need.examined <= 3 * N + 4, "{} looks", need.examined);
    }

    /// JSON-RPC: a client batch whose first element is a second reply (to a server request
    /// answered already) and whose second answers a request not sent yet looks at each once:
    /// the second reply, found [`Need::Stale`], is not looked at again when the elements after
    /// it are asked whether they wait for the server's stream (the second does).
    #[test]
    fn a_stale_element_is_looked_at_once() {
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let mut session = Session::new(Dialect::JsonRpc2, None).telling_stops();
        let request = record(&server, r#"{"jsonrpc":"2.0","id":0,"method":"m"}"#);
        observe(&mut session, Dir::S2c, &request, 0);
        let reply = record(&client, r#"{"jsonrpc":"2.0","id":0,"result":{}}"#);
        observe(&mut session, Dir::C2s, &reply, 0);
        let batch = record(
            &client,
            r#"[{"jsonrpc":"2.0","id":0,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]"#,
        );
        let mut need = BatchNeed::of(&client, &batch, &session, Dir::C2s);
        let now = need
            .need(&session, Dir::C2s, &batch, &client, &mut |_| {
                Ok(Lookahead::Unknown)
            })
            .unwrap();
        assert!(now == Need::OtherSide);
        assert_eq!(need.examined, 2);
    }

    /// MCP: a server batch's progress on a token no request carries yet waits for the
    /// client's stream. The client then sends a request carrying it and cancels it, in one
    /// step (as a client batch's elements are observed), and later sends another carrying it
    /// again (a token, unlike an id, may be sent again once its request is done). The element,
    /// not settled yet, counts once as matching: a stop concerns only the elements settled
    /// already. (Unsettled too, it was looked at twice and counted twice as matching.)
    #[test]
    fn an_element_not_settled_yet_counts_once_as_matching() {
        // (The client's requests read as MCP, for their progress tokens.)
        let mut options = DecodeOptions::new(Dialect::Mcp);
        options.role = Role::Server;
        let (client, server) = (Decoder::new(options), decoder(Dir::S2c));
        let batch = record(
            &server,
            r#"[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}]"#,
        );
        let mut session = Session::new(Dialect::Mcp, None).telling_stops();
        let mut need = BatchNeed::of(&server, &batch, &session, Dir::S2c);
        let mut now = |session: &Session| {
            need.need(session, Dir::S2c, &batch, &server, &mut |_| {
                Ok(Lookahead::Unknown)
            })
            .unwrap()
        };
        assert!(now(&session) == Need::OtherSide);
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"t"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        ] {
            observe(&mut session, Dir::C2s, &record(&client, line), 0);
        }
        assert!(now(&session) == Need::OtherSide);
        let again = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"t"}}}"#;
        observe(&mut session, Dir::C2s, &record(&client, again), 0);
        assert!(now(&session) == Need::Matches);
        assert_eq!((need.matching, need.examined), (1, 3));
    }

    /// MCP: a server batch of a reply to a request waiting (matching) and a success with a
    /// null id (which answers nothing under MCP: needing nothing) is asked again after the
    /// client cancels another request; the session not telling which stopped, both elements
    /// are looked at again, and the batch still counts one element matching: unsettling the
    /// one that needed nothing takes nothing from the count. (Taken from it, the count went
    /// below zero.)
    #[test]
    fn unsettling_an_element_that_needed_nothing_leaves_the_count_matching() {
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let batch = record(
            &server,
            r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":null,"result":{}}]"#,
        );
        let mut session = Session::new(Dialect::Mcp, None);
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"b"}"#,
        ] {
            observe(&mut session, Dir::C2s, &record(&client, line), 0);
        }
        let mut need = BatchNeed::of(&server, &batch, &session, Dir::S2c);
        let mut now = |session: &Session| {
            need.need(session, Dir::S2c, &batch, &server, &mut |_| {
                Ok(Lookahead::Unknown)
            })
            .unwrap()
        };
        assert!(now(&session) == Need::Matches);
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        observe(&mut session, Dir::C2s, &record(&client, cancel), 0);
        assert!(now(&session) == Need::Matches);
        assert_eq!((need.matching, need.examined), (1, 4));
    }

    /// MCP (2025-03-26's batches): a server batch of replies to requests not sent yet stays
    /// peeked while the client's stream sends them, and between them a request and its
    /// cancellation: a cancellation looks again only at the elements it concerns (none here),
    /// not at all those looked at already, so the looks stay linear in the steps (a batch of
    /// 2,000 replies cost 4 million). One that concerns an element
    /// looks at it again: the reply to a request cancelled needs the other stream again.
    #[test]
    fn a_cancellation_looks_again_only_at_the_elements_it_concerns() {
        const N: usize = 2_000;
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let batch = batch_of_replies(&server, N);
        let mut session = Session::new(Dialect::Mcp, None).telling_stops();
        let mut need = BatchNeed::of(&server, &batch, &session, Dir::S2c);
        // The client sends `line`; how the batch then relates to the session.
        let mut send = |session: &mut Session, line: &str| {
            observe(session, Dir::C2s, &record(&client, line), 0);
            need.need(session, Dir::S2c, &batch, &server, &mut |_| {
                Ok(Lookahead::Unknown)
            })
            .unwrap()
        };
        let cancel = |id: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
            )
        };
        for n in 0..N {
            let other = format!(r#""x{n}""#);
            let request = format!(r#"{{"jsonrpc":"2.0","id":{other},"method":"m"}}"#);
            assert!(send(&mut session, &request) == Need::OtherSide, "{n}");
            assert!(
                send(&mut session, &cancel(&other)) == Need::OtherSide,
                "{n}"
            );
            let request = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"m"}}"#);
            let now = send(&mut session, &request);
            assert!(
                now == if n + 1 < N {
                    Need::OtherSide
                } else {
                    Need::Matches
                }
            );
        }
        assert!(send(&mut session, &cancel("0")) == Need::OtherSide);
        // Once a step, the element the batch waits on, and once more each as it matches.
        assert!(need.examined <= 3 * N + 1 + N, "{} looks", need.examined);
    }

    /// A peeked batch's element answering a batch element kept beyond the limits matches it,
    /// as one answering a request waiting does, and no longer once the client cancels that
    /// element (MCP 2025-03-26, the one version with batches): the elements already looked at
    /// are looked at again, as when a request waiting is cancelled, not taken to match still.
    /// (Here the batch's other element, the error owed to an invalid element, matches once
    /// that element is sent: nothing else stops waiting.)
    #[test]
    fn a_peeked_reply_to_a_kept_element_matches_until_it_is_cancelled() {
        let (client, server) = (decoder(Dir::C2s), decoder(Dir::S2c));
        let batch = record(
            &server,
            r#"[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"m"}}]"#,
        );
        let mut session = Session::with_max_in_flight(Dialect::Mcp, None, 1);
        let mut need = BatchNeed::of(&server, &batch, &session, Dir::S2c);
        let send = |session: &mut Session, line: &str| {
            let r = record(&client, line);
            observe(session, Dir::C2s, &r, 0);
            for element in element_records(&client, &r) {
                observe(session, Dir::C2s, &element, 0);
            }
        };
        send(&mut session, r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#);
        send(&mut session, r#"[{"jsonrpc":"2.0","id":2,"method":"b"}]"#);
        assert!(session.awaits_reply(Dir::C2s, Id::from_token(b"2").unwrap()));
        // The reply to 2 matches; the error owed to 5, not sent yet, needs the client's stream.
        assert!(
            need.need(&session, Dir::S2c, &batch, &server, &mut |_| Ok(
                Lookahead::Unknown
            ))
            .unwrap()
                == Need::OtherSide
        );
        assert_eq!(need.matching, 1, "the reply to the kept element matches");
        send(
            &mut session,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        );
        assert!(!session.awaits_reply(Dir::C2s, Id::from_token(b"2").unwrap()));
        send(&mut session, r#"[{"jsonrpc":"2.0","id":5}]"#);
        assert!(session.owes_element_reply(Dir::C2s, Id::from_token(b"5")));
        assert!(
            need.need(&session, Dir::S2c, &batch, &server, &mut |_| Ok(
                Lookahead::Unknown
            ))
            .unwrap()
                == Need::OtherSide
        );
        assert_eq!(
            need.matching, 0,
            "the reply to the cancelled element matches no more"
        );
    }
}
