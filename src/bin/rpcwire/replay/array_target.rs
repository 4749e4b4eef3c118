//! Where a server's array of replies goes in a merge of two streams: after the client batch
//! it answers. One array answers one batch (JSON-RPC 2.0 §6), so an array that fits a client
//! batch ([`ArrayReplies`]: each reply answers a distinct element of that batch still owed
//! one, tried as [`FITS`] orders them) goes as soon as one it fits was observed, and pulls the
//! client's stream until the one it fits, found by looking ahead there, was. Placed by one of
//! its replies, as a reply alone is, it could go before the batch it answers, its other
//! replies taken for those of another batch or of a request sent alone, which a correct
//! server's arrays, answering batches in any order, were reported for. An array that fits no
//! batch found (a server's wrong reply in it, or a batch past the look ahead) is placed
//! element by element ([`BatchNeed`]).
//!
//! [`BatchNeed`]: super::batch_need::BatchNeed

use std::io::{self, Write};

use rpcwire::{Decoder, Id};

use super::need::Need;
use super::observe::wire_id;
use super::progress::Progress;
use super::side::Side;
use crate::check::{Record, element_records};
use crate::session::{ArrayReplies, BatchOwed, FITS, Session};

/// A server's array of replies peeked, and the client batch it answers.
pub(super) struct ArrayTarget {
    replies: ArrayReplies,
    batch: Batch,
}

/// The client batch an array of replies answers.
enum Batch {
    /// One observed already, by its number: the array goes now.
    Observed(u64),
    /// The one the client's stream sends as this frame: the client's stream goes first until
    /// it has.
    Ahead(u64),
    /// None found: the array is placed element by element.
    Unknown,
}

/// How the server's peeked record relates to the session when it is an array of replies that
/// fits a client batch (`None`: it is not, and is placed element by element): it matches once
/// a batch it fits was observed, and needs the client's stream until then.
pub(super) fn array_need(
    server: &mut Side,
    client: &mut Side,
    session: &Session,
    progress: &mut Progress,
    report: &mut dyn Write,
) -> io::Result<Option<Need>> {
    let Some(r) = server.peeked().filter(|r| r.kind == "batch") else {
        return Ok(None);
    };
    if server.peeked_array.is_none() {
        let replies = array_replies(&server.decoder, r);
        let mut batch = Batch::Unknown;
        for fit in FITS.into_iter().filter(|_| !replies.is_empty()) {
            if let Some(no) = session.batch_fitting(&replies, fit) {
                batch = Batch::Observed(no);
            } else if let Some(frame) = client.batch_fitting(&replies, fit, progress, report)? {
                batch = Batch::Ahead(frame);
            } else {
                continue;
            }
            break;
        }
        server.peeked_array = Some(ArrayTarget { replies, batch });
    }
    let target = server.peeked_array.as_mut().expect("set");
    if let Batch::Ahead(frame) = target.batch {
        if client.peeked().is_some_and(|c| c.frame <= frame) {
            return Ok(Some(Need::OtherSide));
        }
        // Observed: it fits it unless the session took it otherwise (beyond its limits). (An
        // earlier batch it answers whole first, as above.)
        let replies = &target.replies;
        let fitting = FITS
            .into_iter()
            .find_map(|fit| session.batch_fitting(replies, fit));
        target.batch = match fitting {
            Some(no) => Batch::Observed(no),
            None => Batch::Unknown,
        };
    }
    Ok(match target.batch {
        Batch::Observed(_) => Some(Need::Matches),
        _ => None,
    })
}

impl ArrayTarget {
    /// The number of the client batch observed that the array answers, if it was found, and
    /// the array's replies.
    pub(super) fn observed_batch(&self) -> Option<(u64, &ArrayReplies)> {
        match self.batch {
            Batch::Observed(no) => Some((no, &self.replies)),
            _ => None,
        }
    }
}

/// The replies of the array `r` read from the server's stream (none unless each of its
/// elements is a success or an error).
fn array_replies(decoder: &Decoder, r: &Record) -> ArrayReplies {
    let mut replies = ArrayReplies::default();
    for element in element_records(decoder, r) {
        match element.kind {
            "success_response" | "error_response" => {
                replies.add(element.kind == "success_response", wire_id(&element.id));
            }
            _ => return ArrayReplies::default(),
        }
    }
    replies
}

/// What the client batch `r` owes replies to: its requests with an id, and its invalid
/// elements (each owed an error, with its id or a null one).
pub(super) fn batch_owed(decoder: &Decoder, r: &Record) -> BatchOwed {
    let mut owed = BatchOwed::default();
    for element in element_records(decoder, r) {
        if let Some((_, id)) = &element.reply {
            owed.add(false, Id::from_token(id.as_bytes()));
        } else if element.kind == "request" {
            owed.add(true, wire_id(&element.id));
        }
    }
    owed
}
