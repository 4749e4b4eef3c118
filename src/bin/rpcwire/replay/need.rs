//! How a message relates to what the session waits on ([`Need`]), which orders the merge of
//! two streams (the rules of [`super`]); and, for an element of a batch, what that depends on
//! ([`Concern`]), kept beside [`need_of`] because it follows its branches.

use rpcwire::{Dialect, Id, IdKey};

use super::ahead::Sent;
use super::observe::observation;
use crate::check::Record;
use crate::session::{Dir, Observation, Session};

/// How a message relates to what the session waits on.
#[derive(PartialEq, Eq)]
pub(super) enum Need {
    /// A reply to a request that is waiting (or progress on it).
    Matches,
    /// A reply to an id not (yet) waited on (or progress on a token not yet sent): the other
    /// stream must move on first.
    OtherSide,
    /// A reply to an id whose request stopped waiting lately (answered or cancelled), progress
    /// on its token or a notification of its listen stream: a second reply, or a late one,
    /// unless the other stream sends the id (the token) again; how far it waits for that
    /// depends on the dialect ([`super::merge`]).
    Stale,
    /// Such a message ([`Need::Stale`]), MCP progress on a token, which the other stream sends
    /// again, in a request found by looking ahead in it ([`super::side::Side::sends`]): it
    /// waits for that request, as [`Need::OtherSide`] does. (A token, unlike an MCP id, may be
    /// sent again once its request is done.)
    Again,
    /// Anything else.
    Nothing,
}

/// How the record `r` (not a batch: [`BatchNeed`](super::batch_need::BatchNeed)), read from
/// `dir`'s stream, relates to the session.
pub(super) fn need(session: &Session, dir: Dir, r: &Record) -> Need {
    need_of(session, dir, &observation(r), r.element.is_some())
}
/// How one message (an element of a batch: `in_batch`) relates to the session. (What it reads
/// of an element of a batch is its [`Concern`], which follows its branches.)
pub(super) fn need_of(session: &Session, dir: Dir, o: &Observation<'_>, in_batch: bool) -> Need {
    let is_progress = o.kind == "notification"
        && o.method == Some(rpcwire::mcp::methods::PROGRESS)
        && session.tracks_progress();
    if is_progress {
        return match o.progress_token {
            Some(token) if session.progress_is_active(dir, token) => Need::Matches,
            Some(token) if session.token_stopped_lately(dir, token) => Need::Stale,
            Some(_) => Need::OtherSide,
            None => Need::Nothing,
        };
    }
    // A notification of a listen stream needs the client's listen request first.
    if let (Some(stream), Dir::S2c, Dialect::Mcp) = (o.subscription, dir, session.dialect()) {
        return if session.is_waiting(Dir::C2s, stream) {
            Need::Matches
        } else if session.stopped_waiting_lately(Dir::C2s, stream) {
            Need::Stale
        } else {
            Need::OtherSide
        };
    }
    if !matches!(o.kind, "success_response" | "error_response") {
        return Need::Nothing;
    }
    let requester = match dir {
        Dir::C2s => Dir::S2c,
        Dir::S2c => Dir::C2s,
    };
    // An error without an id, sent alone, is read as one with a null id: under MCP it is the
    // reply to a line whose id could not be read (2025-11-25 leaves the id out).
    let id = match o.id {
        None if !in_batch && o.kind == "error_response" => Id::from_token(b"null"),
        id => id,
    };
    // A reply may answer an invalid element of a batch (the session matches it so: an error
    // in an array before any request of that id sent alone, a success as a violation; with a
    // null id, only inside an array). A success waits for the other stream first, as a reply
    // to an id not yet sent does: it answers a request of its id the other stream may still
    // send (§6 leaves the replies to different batches in any order), and takes the owed
    // reply, as a violation, only once it does not.
    let may_answer_owed =
        (in_batch || id.is_some_and(|id| !id.is_null())) && o.kind == "error_response";
    if may_answer_owed && session.owes_element_reply(requester, id) {
        return Need::Matches;
    }
    match id {
        // (A batch element kept beyond the limits waits as a request does.)
        Some(id) if session.awaits_reply(requester, id) => Need::Matches,
        // An error answers an invalid line owed it: one with its id, or a null-id error one
        // whose id could not be read (§5.1); alone, or inside an array, as the reply to a
        // request sent alone may come.
        Some(id) if o.kind == "error_response" && session.owes_line_reply(requester, Some(id)) => {
            Need::Matches
        }
        // A null id answers only a JSON-RPC request whose id was null, or, as an error, a line
        // whose id could not be read.
        Some(id)
            if !id.is_null()
                || session.dialect() == Dialect::JsonRpc2
                || o.kind == "error_response" =>
        {
            if session.stopped_waiting_lately(requester, id) {
                Need::Stale
            } else {
                Need::OtherSide
            }
        }
        _ => Need::Nothing,
    }
}
/// What the need of an element of a batch read from `dir`'s stream depends on, that a request
/// of the other side stopping waiting may change ([`need_of`], which reads nothing else of
/// an element of a batch): the progress token it reports on, the listen stream it belongs
/// to, or the id of the reply. `None`: an element that needs nothing, whatever the session
/// holds.
#[derive(PartialEq, Eq, Hash)]
pub(super) enum Concern {
    /// A progress notification, on its token (`None`: it names none).
    Progress(Option<IdKey>),
    /// A notification of a listen stream, by the listen request's id.
    Stream(IdKey),
    /// A reply, by its id (`None`: it has none), and whether it is a success (which waits for
    /// the other stream where an error answers an invalid element: [`need_of`]).
    Reply(Option<IdKey>, bool),
}

impl Concern {
    /// The concern of `o`, an element of a batch read from `dir`'s stream, under `dialect`
    /// (the branches of [`need_of`], in its order).
    pub(super) fn of(o: &Observation<'_>, dir: Dir, dialect: Dialect) -> Option<Concern> {
        let is_progress = o.kind == "notification"
            && o.method == Some(rpcwire::mcp::methods::PROGRESS)
            && dialect == Dialect::Mcp;
        if is_progress {
            return Some(Concern::Progress(o.progress_token.map(IdKey::of)));
        }
        if let (Some(stream), Dir::S2c, Dialect::Mcp) = (o.subscription, dir, dialect) {
            return Some(Concern::Stream(IdKey::of(stream)));
        }
        matches!(o.kind, "success_response" | "error_response")
            .then(|| Concern::Reply(o.id.map(IdKey::of), o.kind == "success_response"))
    }

    /// What of the other stream it waits on, if anything: the id or the progress token a
    /// request sends ([`Side::sends`](super::side::Side::sends)).
    pub(super) fn sent(&self) -> Option<Sent> {
        match self {
            Concern::Progress(token) => token.clone().map(Sent::Token),
            Concern::Stream(key) => Some(Sent::Id(key.clone())),
            Concern::Reply(id, _) => id.clone().map(Sent::Id),
        }
    }

    /// The key of the id it depends on, if any.
    pub(super) fn key(&self) -> Option<&IdKey> {
        match self {
            Concern::Progress(key) | Concern::Reply(key, _) => key.as_ref(),
            Concern::Stream(key) => Some(key),
        }
    }
}
