//! [`Collector`]: the reply to a batch whose requests are answered one by one, in any order.

use bytes::{BufMut, Bytes, BytesMut};
use smallvec::SmallVec;

use crate::encode::finish_elements;

/// The reply to a JSON-RPC batch, collected as its replies come: each request's when it is
/// answered, in any order (a server's handlers on tasks of their own; a gateway's requests
/// sent upstream one by one), and each invalid element's error at once. It owns the array it
/// writes, and hands it out, one line, when the last reply owed has come; or nothing at all
/// when the array would be empty, as the specification says (see [the module](super)).
///
/// For each element of the batch, in one pass ([`Batch::decode`](crate::Batch::decode)):
/// - a request: [`owe`](Self::owe) a reply, and keep the [`Owed`] handle with the request
///   (moved into the handler's task, which sends it back with its reply, over a channel say,
///   to the task that owns the collector; a gateway keeps it as [`IdRemapper`]'s value: see
///   [`Owed`]);
/// - an invalid element: [`push`](Self::push) its error reply
///   ([`Rejection::reply`](crate::Rejection::reply), written by
///   [`encode::write_reply`](crate::encode::write_reply));
/// - a notification: nothing.
///
/// Then [`seal`](Self::seal) it: no element more. Each request's reply is then
/// [`answer`](Self::answer)ed, or [`forgo`](Self::forgo)ne when it will never come (MCP: a
/// request its client cancelled gets no response). `seal`, `answer` and `forgo` say whether
/// the batch is [done](Status::Done): sealed, with no reply still owed. Before it is sealed a
/// batch is never done, however many of its replies have come: a quick first answer must not
/// end the array before the second element is owed.
///
/// The replies are written as [`BatchReply::push`](crate::encode::BatchReply::push) writes
/// them (its line end removed; several lines, several elements; an element too deep for the
/// array replaced by an error), in the order they come. A writer is handed a buffer of its
/// own, empty: whatever it does there (takes it, clears it, panics) touches no other reply.
///
/// Misuse (a handle answered twice or not this collector's, an element after the seal,
/// anything after the reply was handed out) is a [`CollectorError`], never a panic, and
/// changes nothing: every reply already written stays, and the writer is not called.
///
/// ```
/// use rpcwire::batch::{Collector, Status};
/// use rpcwire::{encode, Decoder, Message, RawJson};
///
/// let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"slow"},{"jsonrpc":"2.0","id":2,"method":"fast"},
///   1,{"jsonrpc":"2.0","method":"log"},{"jsonrpc":"2.0","id":3,"method":"cancelled"}]"#;
/// let decoder = Decoder::jsonrpc();
/// let Ok(Message::Batch(batch)) = decoder.decode(frame) else { panic!() };
/// let mut collector = Collector::new();
/// let mut handlers = Vec::new(); // what each handler's task would take
/// for element in batch.decode(&decoder) {
///     match element {
///         Ok(Message::Request(req)) => handlers.push((collector.owe().unwrap(), req.id)),
///         Ok(_) => {} // a notification: no reply
///         Err(rejection) => {
///             if let Some(reply) = rejection.reply() {
///                 collector.push(|out| encode::write_reply(out, &reply, None)).unwrap();
///             }
///         }
///     }
/// }
/// assert_eq!(collector.seal().unwrap(), Status::Waiting(3));
///
/// // The handlers finish in any order; the third request was cancelled.
/// let [(slow, id1), (fast, id2), (cancelled, _)] = handlers[..] else { panic!() };
/// let result = |r: &'static [u8]| RawJson::new(r).unwrap();
/// let status = collector.answer(fast, |out| encode::write_response(out, id2, result(b"2")));
/// assert_eq!(status.unwrap(), Status::Waiting(2));
/// assert_eq!(collector.forgo(cancelled).unwrap(), Status::Waiting(1));
/// let status = collector.answer(slow, |out| encode::write_response(out, id1, result(b"1")));
/// let Ok(Status::Done(Some(line))) = status else { panic!() };
/// assert_eq!(&line[..], &br#"[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}},{"jsonrpc":"2.0","id":2,"result":2},{"jsonrpc":"2.0","id":1,"result":1}]
/// "#[..]);
///
/// // A batch of notifications, or whose every request was cancelled: nothing is sent.
/// let mut collector = Collector::new();
/// let owed = collector.owe().unwrap();
/// assert_eq!(collector.seal().unwrap(), Status::Waiting(1));
/// assert_eq!(collector.forgo(owed).unwrap(), Status::Done(None));
/// ```
///
/// [`IdRemapper`]: crate::IdRemapper
pub struct Collector {
    /// The array so far: empty, or `[` and the elements written, joined by `,`.
    array: BytesMut,
    /// How many bytes of `array` hold whole elements: a writer that panicked may have left a
    /// separator after them, which the next element or the end cuts off.
    written: usize,
    /// How many elements `array` holds.
    elements: usize,
    /// Bit `i` set: the reply owed under handle `i` was answered or forgone.
    settled: SmallVec<[u64; 2]>,
    /// How many replies were owed (the next handle's index).
    owed: u32,
    /// How many owed replies are neither answered nor forgone.
    waiting: u32,
    /// The most replies [`owe`](Self::owe) owes.
    max_owed: u32,
    /// The collector's tag, in each handle it hands out: a handle of another collector's is
    /// told apart even when its index is one this collector handed out too.
    tag: u32,
    sealed: bool,
    done: bool,
}

impl Default for Collector {
    /// [`Collector::new`].
    fn default() -> Self {
        Collector::new()
    }
}

/// A tag for a new collector: each one's differs from the last 2^32 - 1 collectors' (a
/// counter; on a target without 32-bit atomics, 0 for all, and a handle of another collector
/// is then told apart only when its index is past this one's handles).
fn next_tag() -> u32 {
    #[cfg(target_has_atomic = "32")]
    {
        use core::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }
    #[cfg(not(target_has_atomic = "32"))]
    {
        0
    }
}

impl core::fmt::Debug for Collector {
    /// The counts, not the replies' bytes (which may be megabytes).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Collector")
            .field("owed", &self.owed)
            .field("waiting", &self.waiting)
            .field("elements", &self.elements)
            .field("bytes", &self.written)
            .field("sealed", &self.sealed)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// A reply owed for one request of a batch: the handle [`Collector::owe`] hands out, to
/// [`answer`](Collector::answer) or [`forgo`](Collector::forgo) it with. Small and `Copy`:
/// keep it with the request, moved into its handler's task, or, in a gateway, as the value
/// [`IdRemapper::forward_request_with`] keeps and hands back in the reply's, the expiry's or
/// the cancellation's [`Origin`] (with which batch it is of: the handle names its collector,
/// and another collector refuses it as [`UnknownOwed`](CollectorError::UnknownOwed), but
/// finding the collector is the caller's). Every handle must be answered or
/// forgone, or the batch is never done; when its client goes
/// ([`IdRemapper::drop_client`]), its batches' collectors go with it, and nothing is owed.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::batch::{Collector, Owed, Status};
/// use rpcwire::{encode, Decoder, Dialect, ErrorCode, IdRemapper, Message};
///
/// // Each request upstream keeps its batch (an index into `batches`) and its owed reply.
/// let mut remap: IdRemapper<&str, (usize, Owed)> = IdRemapper::new(64).dialect(Dialect::JsonRpc2);
/// let mut batches = vec![Collector::new()];
/// let mut upstream = BytesMut::new();
/// let frame = br#"[{"jsonrpc":"2.0","id":"a","method":"add","params":[1,2]},{"jsonrpc":"2.0","id":"b","method":"slow"}]"#;
/// let decoder = Decoder::jsonrpc();
/// let Ok(Message::Batch(batch)) = decoder.decode(frame) else { panic!() };
/// for (element, raw) in batch.decode(&decoder).zip(batch.raw.elements()) {
///     let Ok(Message::Request(req)) = element else { unreachable!() };
///     let owed = batches[0].owe().unwrap();
///     let forwarded = remap.forward_request_with("client", (0, owed), raw.as_bytes(), &req, Some(30_000), &mut upstream);
///     if let Err(refused) = forwarded {
///         batches[0].answer(owed, |out| refused.write_reply(out, req.id)).unwrap();
///     }
/// }
/// assert_eq!(batches[0].seal().unwrap(), Status::Waiting(2));
///
/// // The upstream answers our token 1: its reply joins the array under the client's id.
/// let reply = br#"{"jsonrpc":"2.0","id":1,"result":3}"#;
/// let reply_id = Decoder::jsonrpc_client().decode(reply).unwrap().id().unwrap();
/// let mut routed = BytesMut::new();
/// let (batch, owed) = remap.route_reply(reply, reply_id, &mut routed).unwrap().value;
/// let status = batches[batch].answer(owed, |out| out.extend_from_slice(&routed));
/// assert_eq!(status.unwrap(), Status::Waiting(1));
///
/// // The other expires: answered with the gateway's own error (cancelled, it would be
/// // forgone: `forward_cancel`'s origin, then `forgo`).
/// for (_token, origin) in remap.expire(30_000) {
///     let (batch, owed) = origin.value;
///     let status = batches[batch].answer(owed, |out| {
///         encode::write_error(out, origin.id.as_id(), ErrorCode::INTERNAL_ERROR, "timed out", None)
///     });
///     let Ok(Status::Done(Some(line))) = status else { panic!() };
///     assert_eq!(&line[..], &br#"[{"jsonrpc":"2.0","id":"a","result":3},{"jsonrpc":"2.0","id":"b","error":{"code":-32603,"message":"timed out"}}]
/// "#[..]);
/// }
/// ```
///
/// [`IdRemapper::forward_request_with`]: crate::IdRemapper::forward_request_with
/// [`IdRemapper::drop_client`]: crate::IdRemapper::drop_client
/// [`Origin`]: crate::Origin
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[must_use = "an owed reply must be answered or forgone, or the batch is never done"]
pub struct Owed {
    index: u32,
    /// The tag of the collector that handed it out.
    tag: u32,
}

impl Owed {
    /// Which of its collector's owed replies this is: 0 for the first [`Collector::owe`]
    /// handed out, 1 for the second, and so on.
    pub const fn index(self) -> usize {
        self.index as usize
    }
}

/// Whether a batch's reply is whole: what [`Collector::seal`], [`answer`](Collector::answer)
/// and [`forgo`](Collector::forgo) return.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[must_use = "a batch that is done hands out its reply, the one time, to be sent"]
pub enum Status {
    /// Not yet: this many owed replies are still to come, or the batch is not sealed (it may
    /// be owed more).
    Waiting(usize),
    /// Sealed, and every owed reply answered or forgone: the reply to send, one line
    /// (`[...]` and `\n`), or `None` when there is none (the batch was owed no reply, or
    /// every one was forgone), and nothing at all is sent. Handed out once: the collector
    /// takes nothing more.
    Done(Option<Bytes>),
}

/// Why a [`Collector`] refused a call. The call changed nothing.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CollectorError {
    /// The handle's reply was answered or forgone already.
    AlreadySettled,
    /// This collector owes no reply under the handle: it is another collector's.
    UnknownOwed,
    /// The batch was sealed: no more replies are owed, nor pushed, and it is sealed once.
    AlreadySealed,
    /// The batch is done and its reply was handed out: the collector takes nothing more.
    AlreadyDone,
    /// The collector owes as many replies as it may: [`Collector::with_max_owed`]'s bound, or
    /// for [`Collector::new`] the default
    /// [`Limits::max_batch_len`](crate::Limits::max_batch_len), past which a batch the decoder
    /// reads holds no more requests.
    TooManyOwed {
        /// That bound: the most replies the collector owes (`max_owed`, at most `u32::MAX`).
        limit: u32,
    },
}

impl CollectorError {
    fn as_str(self) -> &'static str {
        match self {
            CollectorError::AlreadySettled => "the owed reply was answered or forgone already",
            CollectorError::UnknownOwed => "the collector owes no reply under this handle",
            CollectorError::AlreadySealed => "the batch was sealed: it takes no more elements",
            CollectorError::AlreadyDone => "the batch is done: its reply was handed out",
            CollectorError::TooManyOwed { .. } => "the collector owes as many replies as it may",
        }
    }
}

/// The description, and the bound for [`TooManyOwed`](CollectorError::TooManyOwed).
///
/// ```
/// use rpcwire::batch::CollectorError;
/// assert_eq!(
///     CollectorError::TooManyOwed { limit: 2 }.to_string(),
///     "the collector owes as many replies as it may: its limit is 2"
/// );
/// ```
impl core::fmt::Display for CollectorError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())?;
        if let CollectorError::TooManyOwed { limit } = *self {
            write!(f, ": its limit is {limit}")?;
        }
        Ok(())
    }
}

impl core::error::Error for CollectorError {}

/// The room made in the array before each element, so that a usual reply is written in
/// place and the array grows by doubling (a writer that outgrows its room gets a buffer of
/// its own, copied into the array after).
const ELEMENT_ROOM: usize = 256;

impl Collector {
    /// An empty collector, which owes at most
    /// [`Limits::DEFAULT`](crate::Limits::DEFAULT)'s `max_batch_len` replies (100,000: a
    /// decoder with the default limits refuses a longer batch). Allocates nothing until the
    /// first element.
    pub fn new() -> Self {
        Self::with_max_owed(crate::Limits::DEFAULT.max_batch_len)
    }

    /// An empty collector that owes at most `max_owed` replies (up to `u32::MAX`): the
    /// [`max_batch_len`](crate::Limits::max_batch_len) of a decoder whose limit was raised.
    /// Past it, [`owe`](Self::owe) is refused ([`CollectorError::TooManyOwed`]): a reply is
    /// owed for a request of the batch, so a caller owing more owes for something else.
    pub fn with_max_owed(max_owed: usize) -> Self {
        Collector {
            array: BytesMut::new(),
            written: 0,
            elements: 0,
            settled: SmallVec::new(),
            owed: 0,
            waiting: 0,
            max_owed: u32::try_from(max_owed).unwrap_or(u32::MAX),
            tag: next_tag(),
            sealed: false,
            done: false,
        }
    }

    /// A reply is owed for one request of the batch: returns its handle, to
    /// [`answer`](Self::answer) or [`forgo`](Self::forgo) it with.
    ///
    /// # Errors
    ///
    /// [`AlreadySealed`](CollectorError::AlreadySealed) after [`seal`](Self::seal),
    /// [`AlreadyDone`](CollectorError::AlreadyDone) once done,
    /// [`TooManyOwed`](CollectorError::TooManyOwed) past the collector's bound.
    pub fn owe(&mut self) -> Result<Owed, CollectorError> {
        self.check_open()?;
        if self.owed >= self.max_owed {
            return Err(CollectorError::TooManyOwed {
                limit: self.max_owed,
            });
        }
        let owed = Owed {
            index: self.owed,
            tag: self.tag,
        };
        if owed.index() / 64 == self.settled.len() {
            self.settled.push(0);
        }
        self.owed += 1;
        self.waiting += 1;
        Ok(owed)
    }

    /// Appends a reply owed to no request, written at once by `write` as
    /// [`answer`](Self::answer) writes: an invalid element's error reply (see
    /// [`Rejection::reply`](crate::Rejection::reply)).
    ///
    /// # Errors
    ///
    /// [`AlreadySealed`](CollectorError::AlreadySealed) after [`seal`](Self::seal),
    /// [`AlreadyDone`](CollectorError::AlreadyDone) once done: `write` is not called.
    pub fn push(&mut self, write: impl FnOnce(&mut BytesMut)) -> Result<(), CollectorError> {
        self.check_open()?;
        self.write_element(write);
        Ok(())
    }

    /// No element more: every reply the batch is owed was owed by now. Returns whether the
    /// batch is done (nothing owed is still to come), and if so its reply.
    ///
    /// # Errors
    ///
    /// [`AlreadySealed`](CollectorError::AlreadySealed) when it was sealed already,
    /// [`AlreadyDone`](CollectorError::AlreadyDone) once done.
    pub fn seal(&mut self) -> Result<Status, CollectorError> {
        self.check_open()?;
        self.sealed = true;
        Ok(self.status())
    }

    /// Appends the reply owed under `owed`, written by `write` as
    /// [`BatchReply::push`](crate::encode::BatchReply::push) writes an element (any writer of
    /// [`encode`](crate::encode), its line end removed: a response, an error, a frame routed
    /// back from upstream). `write` is handed a buffer of its own, empty, to write the reply
    /// in; it cannot reach the replies written before. A writer that writes nothing (or only
    /// whitespace) settles the reply with no element; one that writes several lines writes
    /// an element of each (a notification or a request among them is the caller's mistake: see
    /// [`BatchReply`](crate::encode::BatchReply)); an element too deep for the array is
    /// replaced by an error with its id. If `write` panics, nothing changes: the reply is
    /// still owed.
    ///
    /// Returns whether the batch is done, and if so its reply.
    ///
    /// # Errors
    ///
    /// [`AlreadyDone`](CollectorError::AlreadyDone) once done,
    /// [`UnknownOwed`](CollectorError::UnknownOwed) for a handle this collector did not hand
    /// out, [`AlreadySettled`](CollectorError::AlreadySettled) for a reply answered or
    /// forgone already: `write` is not called.
    pub fn answer(
        &mut self,
        owed: Owed,
        write: impl FnOnce(&mut BytesMut),
    ) -> Result<Status, CollectorError> {
        let (word, bit) = self.check_owed(owed)?;
        self.write_element(write);
        Ok(self.settle(word, bit))
    }

    /// The reply owed under `owed` will never come: a request its client cancelled (MCP has
    /// the receiver "SHOULD ... Not send a response for the cancelled request"). A request
    /// that timed out, or whose upstream went away, is better [`answer`](Self::answer)ed with
    /// an error of the caller's: its client waits for a reply. A forgone reply takes no place
    /// in the array; when none is left to send, nothing is sent.
    ///
    /// Returns whether the batch is done, and if so its reply.
    ///
    /// # Errors
    ///
    /// As [`answer`](Self::answer)'s.
    pub fn forgo(&mut self, owed: Owed) -> Result<Status, CollectorError> {
        let (word, bit) = self.check_owed(owed)?;
        Ok(self.settle(word, bit))
    }

    /// How many owed replies are still to come (neither answered nor forgone).
    pub fn waiting(&self) -> usize {
        self.waiting as usize
    }

    /// Whether the batch was [sealed](Self::seal).
    pub fn is_sealed(&self) -> bool {
        self.sealed
    }

    /// Whether the batch is done and its reply was handed out.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Refuses an element after the seal, and anything once done.
    fn check_open(&self) -> Result<(), CollectorError> {
        if self.done {
            Err(CollectorError::AlreadyDone)
        } else if self.sealed {
            Err(CollectorError::AlreadySealed)
        } else {
            Ok(())
        }
    }

    /// Where `owed`'s bit is in `settled`, when its reply is still to come.
    fn check_owed(&self, owed: Owed) -> Result<(usize, u64), CollectorError> {
        if self.done {
            return Err(CollectorError::AlreadyDone);
        }
        if owed.tag != self.tag || owed.index >= self.owed {
            return Err(CollectorError::UnknownOwed);
        }
        let (word, bit) = (owed.index() / 64, 1 << (owed.index() % 64));
        if self.settled[word] & bit != 0 {
            return Err(CollectorError::AlreadySettled);
        }
        Ok((word, bit))
    }

    /// Marks the reply of `settled[word] & bit` settled; returns the status it leaves.
    fn settle(&mut self, word: usize, bit: u64) -> Status {
        self.settled[word] |= bit;
        self.waiting -= 1;
        self.status()
    }

    /// Whether the batch is done; when it is, ends it and hands out its reply.
    fn status(&mut self) -> Status {
        if !self.sealed || self.waiting > 0 {
            return Status::Waiting(self.waiting());
        }
        self.done = true;
        self.settled = SmallVec::new();
        let mut array = core::mem::take(&mut self.array);
        if self.elements == 0 {
            return Status::Done(None);
        }
        array.truncate(self.written);
        array.extend_from_slice(b"]\n");
        Status::Done(Some(array.freeze()))
    }

    /// Appends the elements `write` writes (see [`answer`](Self::answer)), in a buffer of its
    /// own: the array after its last element, split off, so that a usual reply is written in
    /// place and joins the array again at no cost.
    fn write_element(&mut self, write: impl FnOnce(&mut BytesMut)) {
        let array = &mut self.array;
        array.truncate(self.written);
        array.reserve(1 + ELEMENT_ROOM);
        array.put_u8(if self.elements == 0 { b'[' } else { b',' });
        let mut element = array.split_off(array.len());
        write(&mut element);
        let added = finish_elements(&mut element, 0);
        array.unsplit(element);
        if added == 0 {
            array.truncate(self.written);
        } else {
            self.elements += added;
            self.written = array.len();
        }
    }
}
