//! The messages of one stream read ahead of the one peeked, bounded, and what ids and progress
//! tokens they send: for the merge to tell a reply to an id the other stream never sends from
//! one to an id it has not sent yet ([`Lookahead`]).

use std::collections::{HashMap, HashSet, VecDeque};

use bytes::Bytes;
use rpcwire::{Decoder, Id, IdKey};

use super::observe::wire_id;
use crate::check::{Record, element_records};

/// At most this many messages are read ahead of the one peeked...
pub(super) const AHEAD_MESSAGES: usize = 4096;
/// ...and no more once their frames hold this many bytes (the last one read may pass it, by
/// at most a frame: `--max-frame`).
pub(super) const AHEAD_BYTES: usize = 1 << 20;

/// What a message sends that a message of the other stream may wait on: an id (a request's,
/// or that of a line owed an error carrying it; `null` for a line whose id could not be read,
/// owed an error with a null id under JSON-RPC), or a progress token a request carries.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Sent {
    /// An id, by its key.
    Id(IdKey),
    /// A progress token a request carries, by its key.
    Token(IdKey),
}

/// Whether the rest of a stream, from the message peeked on, sends an id (a token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lookahead {
    /// It does, within the messages read ahead.
    Sent,
    /// It does not: the messages read ahead reach the end of the stream.
    Never,
    /// Not within the bound of the messages read ahead, which does not reach the end.
    Unknown,
}

/// What `r` (of a stream `decoder` reads; a batch's elements included) sends. Responses send
/// nothing; a request sends its id, and its progress token; any other message its id, when it
/// has a readable one (an invalid request, owed an error with its id), and `null` when it is
/// owed an error with a null id. (More than a reply can match is harmless: a message found to
/// be sent is waited for, as a reply to an id not sent yet is; when it comes and matches
/// nothing, the need is asked again.)
/// Each once: a batch of a million elements whose ids cannot be read sends `null` once, not a
/// million times; and a set: the merge asks a peeked batch at each step whether it sends an
/// id, and a list made each step scan the whole batch's ids.
pub(super) fn sent_by(decoder: &Decoder, r: &Record) -> HashSet<Sent> {
    let mut sent = HashSet::new();
    if r.kind != "batch" {
        add_sent(r, &mut sent);
        return sent;
    }
    for element in element_records(decoder, r) {
        add_sent(&element, &mut sent);
    }
    sent
}

/// Adds what `r`, a message sent alone or an element of a batch, sends to `sent`.
fn add_sent(r: &Record, sent: &mut HashSet<Sent>) {
    if matches!(
        r.kind,
        "success_response" | "error_response" | "invalid_response" | "batch"
    ) {
        return;
    }
    if let Some(id) = wire_id(&r.id) {
        sent.insert(Sent::Id(IdKey::of(id)));
    }
    if r.kind == "request"
        && let Some(token) = wire_id(&r.progress_token)
    {
        sent.insert(Sent::Token(IdKey::of(token)));
    }
    if r.reply
        .as_ref()
        .is_some_and(|(_, id)| id == "null" || id == "<absent>")
        && let Some(id) = Id::from_token(b"null")
    {
        sent.insert(Sent::Id(IdKey::of(id)));
    }
}

/// A message read ahead: its record, its frame (`None` for a framing error), what it sends.
pub(super) struct Entry {
    pub record: Record,
    pub frame: Option<Bytes>,
    pub sent: HashSet<Sent>,
}

/// The messages of a stream read ahead of the one peeked, in order, and how many of them send
/// each id (token).
#[derive(Default)]
pub(super) struct Window {
    entries: VecDeque<Entry>,
    /// The bytes of their frames.
    bytes: usize,
    /// How many of them send each id (token).
    counts: HashMap<Sent, u32>,
}

impl Window {
    /// Whether another message may be read ahead.
    pub fn has_room(&self) -> bool {
        self.entries.len() < AHEAD_MESSAGES && self.bytes < AHEAD_BYTES
    }

    /// Whether a message read ahead sends `key`.
    pub fn sends(&self, key: &Sent) -> bool {
        self.counts.contains_key(key)
    }

    /// The messages read ahead, in order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }

    /// Adds a message read ahead. Its frame is copied: a frame cut from the read buffer holds
    /// that buffer's whole allocation, which a window of frames far apart would multiply.
    pub fn push(&mut self, mut entry: Entry) {
        if let Some(frame) = &mut entry.frame {
            *frame = Bytes::copy_from_slice(frame);
            if entry.record.batch.is_some() {
                entry.record.batch = Some(frame.clone());
            }
            self.bytes += frame.len();
        }
        for key in &entry.sent {
            *self.counts.entry(key.clone()).or_default() += 1;
        }
        self.entries.push_back(entry);
    }

    /// Takes the first message read ahead.
    pub fn pop(&mut self) -> Option<Entry> {
        let entry = self.entries.pop_front()?;
        self.bytes -= entry.frame.as_ref().map_or(0, Bytes::len);
        for key in &entry.sent {
            if let Some(n) = self.counts.get_mut(key) {
                *n -= 1;
                if *n == 0 {
                    self.counts.remove(key);
                }
            }
        }
        Some(entry)
    }

    /// Reads every message again with `decoder` (a stream's decoder once the session's
    /// version is known), each record made by `classify` of its frame and old record.
    pub fn reclassify(
        &mut self,
        decoder: &Decoder,
        mut classify: impl FnMut(&Bytes, &Record) -> Record,
    ) {
        let entries = std::mem::take(&mut self.entries);
        *self = Window::default();
        for mut entry in entries {
            if let Some(frame) = &entry.frame {
                entry.record = classify(frame, &entry.record);
                entry.sent = sent_by(decoder, &entry.record);
            }
            self.push(entry);
        }
    }
}
