//! The table of requests we sent and still wait on: [`PendingTable`] mints the id of each
//! request ([`Token`]), matches a reply's raw id back to the request, tells a late reply to a
//! request we gave up on ([`Miss::Stale`]) from an id we never sent ([`Miss::Unknown`]), and
//! hands back requests whose deadline passed.
//!
//! Sans-IO: no clock inside. Deadlines and `now` are plain `u64`s in a monotonic unit the
//! caller picks (milliseconds, ticks, …). Under tokio, `DeadlineClock` (feature `tokio`)
//! is a clock in milliseconds and the timer that wakes a task at the next deadline.

#[cfg(feature = "tokio")]
mod clock;
mod token;
mod wheel;

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use clock::DeadlineClock;
pub use token::Token;

use alloc::vec::Vec;
use core::{fmt, mem};
use wheel::{NIL, Wheel};

/// Tokens below it are of a generation in the lower half of their slot's (the generation bits
/// are the top `53 − index_bits` of a token's 53).
const HALF_TOKEN_SPACE: u64 = 1 << 52;

/// Why a reply's id matched no request in flight: neither is forwarded or answered; a
/// client logs a `Stale` reply (a request it gave up on was answered after all) apart from
/// an `Unknown` one (the peer names an id it was never sent).
///
/// ```
/// use rpcwire::{Id, Miss, PendingTable};
/// let mut table = PendingTable::new();
/// let token = table.insert("ping").unwrap();
/// table.cancel(token);
/// let mut buf = [0; 20];
/// assert_eq!(table.complete(token.to_id(&mut buf)), Err(Miss::Stale));
/// assert_eq!(table.complete(Id::from_token(br#""1""#).unwrap()), Err(Miss::Unknown));
/// assert_eq!(Miss::Stale.to_string(), "reply to a request no longer in flight");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Miss {
    /// The id was never minted by this table: an integer we never sent, a string id, a
    /// non-canonical number (`1.0`, `01`), anything that is not a token.
    Unknown,
    /// The id was minted, but its request is no longer in flight: it was answered, cancelled,
    /// expired or drained. A late or duplicate reply; never matched to a newer request that
    /// reuses the slot.
    Stale,
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Miss::Unknown => "reply to an id that was never sent",
            Miss::Stale => "reply to a request no longer in flight",
        })
    }
}

impl core::error::Error for Miss {}

/// The table holds [`capacity_limit`](PendingTable::capacity_limit) requests already: the
/// value that could not be inserted is handed back in [`value`](Self::value), beside the
/// [`limit`](Self::limit) the table is at.
///
/// A request of our own is then not sent. A client's request that a proxy was to forward
/// under a token of this table is answered -32603 ([`code`](Self::code),
/// [`write_reply`](Self::write_reply)), as a full [`InFlight`](crate::InFlight) or
/// [`IdRemapper`](crate::IdRemapper) answers it
/// ([`InFlightError::code`](crate::InFlightError::code),
/// [`RemapError::code`](crate::RemapError::code)).
///
/// ```
/// use rpcwire::{PendingTable, TableFull};
/// let mut table = PendingTable::with_capacity_limit(2);
/// table.insert("first").unwrap();
/// table.insert("second").unwrap();
/// let full = table.insert("third").unwrap_err();
/// assert_eq!(full, TableFull { value: "third", limit: 2 });
/// assert_eq!(full.to_string(), "pending table is full: its limit is 2");
/// assert_eq!(format!("{full:?}"), "TableFull { limit: 2, .. }");
/// assert_eq!(table.vacant_entry().unwrap_err(), TableFull { value: (), limit: 2 });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableFull<T> {
    /// The value that was not inserted (`()` for [`vacant_entry`](PendingTable::vacant_entry),
    /// which takes none).
    pub value: T,
    /// The most requests the table holds at once: its
    /// [`capacity_limit`](PendingTable::capacity_limit).
    pub limit: usize,
}

impl<T> TableFull<T> {
    /// The value that was not inserted.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// The error code of the reply a client's request gets when a proxy could not forward it
    /// for want of a token: -32603, as [`InFlightError::code`](crate::InFlightError::code)
    /// gives for a full table of the peer's requests.
    ///
    /// ```
    /// use rpcwire::{ErrorCode, TableFull};
    /// let full = TableFull { value: "a request", limit: 16 };
    /// assert_eq!(full.code(), ErrorCode::INTERNAL_ERROR);
    /// ```
    pub const fn code(&self) -> crate::ErrorCode {
        crate::ErrorCode::INTERNAL_ERROR
    }

    /// Writes the error reply a client's request gets when a proxy could not forward it for
    /// want of a token: [`code`](Self::code), and this error's text as the message, under the
    /// client's id (an [`Id`](crate::Id), or any [`ReplyId`](crate::ReplyId)). The message
    /// does not name the limit (which [`Display`](core::fmt::Display) does), as
    /// [`InFlightError::write_reply`](crate::InFlightError::write_reply)'s does not: how large
    /// the table is, is the operator's to tell a client or not. It takes `&self`, so the
    /// value handed back is still [`into_inner`](Self::into_inner)'s.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{Id, PendingTable};
    /// let mut upstream = PendingTable::with_capacity_limit(1);
    /// upstream.insert("first").unwrap();
    /// let full = upstream.insert("second").unwrap_err();
    /// let mut out = BytesMut::new();
    /// full.write_reply(&mut out, Id::from_token(br#""c7""#).unwrap());
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":"c7","error":{"code":-32603,"message":"pending table is full"}}
    /// "#[..]);
    /// assert_eq!(full.into_inner(), "second");
    /// ```
    pub fn write_reply<'i>(&self, out: &mut bytes::BytesMut, id: impl Into<crate::ReplyId<'i>>) {
        crate::encode::write_error(out, id, self.code(), TABLE_FULL, None);
    }
}

/// [`TableFull`]'s text: the message of its reply, and its `Display` before the limit.
const TABLE_FULL: &str = "pending table is full";

/// The limit, not the value: `T` need not be `Debug`, and the value is the caller's own
/// (`unwrap` on a full table's insert prints `TableFull { limit: N, .. }`).
impl<T> fmt::Debug for TableFull<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableFull")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// The reply's message, and the limit (which the reply's message leaves out).
impl<T> fmt::Display for TableFull<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{TABLE_FULL}: its limit is {}", self.limit)
    }
}

impl<T> core::error::Error for TableFull<T> {}

/// A slot's payload: the request value, or a link in the free list.
#[derive(Debug, Clone)]
enum Entry<T> {
    Vacant {
        next_free: u32,
    },
    Occupied {
        value: T,
        /// On the timer wheel (has a deadline).
        timed: bool,
    },
}

/// One slab slot.
#[derive(Debug, Clone)]
struct Slot<T> {
    entry: Entry<T>,
    /// Occupied: the live token. Vacant: the token the slot mints next (its generation is one
    /// past every token issued from it). Above [`Token::MAX`]: retired, every generation used.
    token: u64,
}

/// The requests we sent and still wait on, keyed by the [`Token`] we minted as their id.
///
/// A generational slab: a `Vec` of slots and a free list. Insert, lookup and remove are a few
/// array accesses — no hashing, and no allocation once the slab has grown to the peak number
/// in flight (but for a slot that takes a retired one's place: see [Tokens](#tokens)). The
/// slab keeps that peak until [`shrink_to_fit`](PendingTable::shrink_to_fit) gives back what
/// a burst left.
/// Optional deadlines live on a timer wheel keyed by slot index, so
/// [`expire`](PendingTable::expire) costs amortised O(1) per expired entry, not a scan.
///
/// The table holds at most [`capacity_limit`](PendingTable::capacity_limit) requests
/// ([`DEFAULT_CAPACITY_LIMIT`](PendingTable::DEFAULT_CAPACITY_LIMIT) unless set); an insert
/// beyond it fails with [`TableFull`], handing the value back.
///
/// # Tokens
///
/// A token is `generation << index_bits | (slot index + 1)`, at most `2^53 − 1` so that
/// JavaScript peers read it exactly. `index_bits` is one more than the bits needed to write
/// the capacity limit (18 for the default limit, 32 at most), the generation gets the
/// remaining `53 − index_bits` bits (35 by default, 21 at least). The low part is never 0, so
/// token `0` is never minted, and a fresh table mints `1, 2, 3, …` while every request stays
/// in flight. A slot freed (answered, cancelled, expired) is taken first by the next request,
/// under its next generation: after `1` is answered, the next token is `2^18 + 1` = 262145
/// by default. So ids soon look large and unordered; they are opaque.
///
/// ```
/// use rpcwire::PendingTable;
/// let mut table = PendingTable::new();
/// let first = table.insert(()).unwrap();
/// assert_eq!((first.get(), table.insert(()).unwrap().get()), (1, 2));
/// table.remove(first).unwrap();
/// assert_eq!(table.insert(()).unwrap().get(), (1 << 18) + 1);
/// ```
///
/// Freeing a slot bumps its generation, so a reply that arrives after its request was
/// answered, cancelled, expired or drained finds a different generation and is reported as
/// [`Miss::Stale`] — never matched to the newer request in that slot. A slot whose
/// generations are used up is retired rather than wrapped, and the table takes a fresh slot
/// index instead (the index space is at least twice the limit). So **no token is ever minted
/// twice** until the token space is used up (every slot but those in flight retired: about
/// 2^53 ≈ 9·10^15 inserts, 28 years at ten million requests a second, and never fewer than
/// half as many, a quarter in a table that [`shrink_to`](PendingTable::shrink_to) shrank); only then do retired slots come back with generation 0, and a reply that
/// late could alias a new request. From then on a miss on a slot that came back is
/// [`Miss::Stale`] whatever its generation (each was minted once); a slot that never retired
/// still tells the two apart (but for the generations a
/// [`shrink_to`](PendingTable::shrink_to) skipped, below the one its slot started at). Retiring costs one slot
/// per `2^(53 − index_bits)` inserts (one per 34 billion by default); the slab never holds
/// more than `2^index_bits − 1` (< 4 × the limit) slots.
///
/// # Deadlines
///
/// [`insert_with_deadline`](PendingTable::insert_with_deadline) takes a deadline in the
/// caller's monotonic unit; [`expire(now)`](PendingTable::expire) hands back every entry whose
/// deadline is `<= now`. Granularity is one unit: nothing is rounded, an entry is due exactly
/// when `now` reaches its deadline. Any `u64` deadline works (eleven wheel levels of 64
/// buckets cover the whole range). `now` should not go backwards; a smaller `now` than an
/// earlier call's simply finds nothing new. Removing an entry before its deadline unlinks it
/// from the wheel at once, so nothing accumulates under any insert/remove load.
/// [`next_wakeup`](PendingTable::next_wakeup) says when the next `expire` is worth calling.
///
/// # Example
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::pending::{Miss, PendingTable};
/// use rpcwire::{encode, Decoder};
///
/// let mut pending = PendingTable::with_capacity_limit(1024);
/// let mut wire = BytesMut::new();
///
/// // Learn the id first, write the request under it, then commit it.
/// let entry = pending.vacant_entry().unwrap();
/// let mut buf = [0; 20]; // `Token::to_id` writes the digits here
/// encode::write_request(&mut wire, entry.token().to_id(&mut buf), "tools/list", None);
/// entry.insert_with_deadline("tools/list", /* now + 30 s, in ms */ 30_000);
/// assert_eq!(&wire[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n");
///
/// // Or insert first, and write the request after (as the lock-holding callers do).
/// let ping = pending.insert("ping").unwrap();
/// encode::write_request(&mut wire, ping.to_id(&mut [0; 20]), "ping", None);
///
/// // A reply comes back: decode it as a client, match its raw id token.
/// let decoder = Decoder::mcp_client();
/// let reply = decoder.decode(br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#).unwrap();
/// assert_eq!(pending.complete_wire(reply.id().unwrap().raw()), Ok("tools/list"));
/// // The same id again is a duplicate/late reply; a string id was never ours.
/// assert_eq!(pending.complete_wire(b"1"), Err(Miss::Stale));
/// assert_eq!(pending.complete_wire(br#""1""#), Err(Miss::Unknown));
///
/// // Time passes: nothing else had a deadline.
/// assert_eq!(pending.expire(60_000).count(), 0);
///
/// // The connection drops: everything still in flight comes back.
/// let left: Vec<_> = pending.drain().collect();
/// assert_eq!(left, [(ping, "ping")]);
/// assert!(pending.is_empty());
/// ```
pub struct PendingTable<T> {
    slots: Vec<Slot<T>>,
    /// Head of the free list of vacant, non-retired slots (LIFO: the hottest slot first).
    free_head: u32,
    len: usize,
    limit: usize,
    /// `2^index_bits − 1`: the token bits holding `index + 1`.
    index_mask: u64,
    /// `2^index_bits`: one generation.
    generation_step: u64,
    /// Most slots the index bits can address.
    max_slots: usize,
    /// One bit per slot index that came back at generation 0 after it retired (so every
    /// generation of it was minted): empty until the token space is used up.
    wrapped: Vec<u64>,
    /// The generation (times `generation_step`) a slot added past the slab's end starts at:
    /// past every generation minted at an index [`shrink_to`](Self::shrink_to) cut off, so
    /// that none of their tokens is minted again. 0 until the slab is shrunk.
    fresh_generation: u64,
    /// The longest the slab was when a shrink cut slots off (0 until then): the indexes below
    /// it and past the slab's end minted only tokens below `fresh_generation`.
    shrunk_from: usize,
    wheel: Wheel,
}

impl<T> PendingTable<T> {
    /// Capacity limit of [`PendingTable::new`]: 65 536 requests in flight.
    pub const DEFAULT_CAPACITY_LIMIT: usize = 1 << 16;

    /// Largest capacity limit, `2^31 − 1`; larger requests are clamped to it.
    pub const MAX_CAPACITY_LIMIT: usize = (1 << 31) - 1;

    /// An empty table holding at most
    /// [`DEFAULT_CAPACITY_LIMIT`](PendingTable::DEFAULT_CAPACITY_LIMIT) requests. Does not
    /// allocate.
    pub const fn new() -> Self {
        Self::with_capacity_limit(Self::DEFAULT_CAPACITY_LIMIT)
    }

    /// An empty table holding at most `max_in_flight` requests (clamped to
    /// [`MAX_CAPACITY_LIMIT`](PendingTable::MAX_CAPACITY_LIMIT)). Does not allocate: the
    /// slab grows with the peak number in flight, and by a slot for each slot retired (see
    /// [Tokens](PendingTable#tokens)), never past `2^index_bits − 1` slots (< 4 × the limit).
    pub const fn with_capacity_limit(max_in_flight: usize) -> Self {
        let limit = if max_in_flight > Self::MAX_CAPACITY_LIMIT {
            Self::MAX_CAPACITY_LIMIT
        } else {
            max_in_flight
        };
        // One bit more than the limit needs: room for retired slots.
        let index_bits = usize::BITS - limit.leading_zeros() + 1;
        // (In u64: up to 32 index bits, whose mask is still a `usize` on 32-bit targets.)
        Self::with_layout(limit, index_bits, ((1u64 << index_bits) - 1) as usize)
    }

    /// A table with an explicit token layout (tests shrink the generation or slot space).
    const fn with_layout(limit: usize, index_bits: u32, max_slots: usize) -> Self {
        PendingTable {
            slots: Vec::new(),
            free_head: NIL,
            len: 0,
            limit,
            index_mask: (1 << index_bits) - 1,
            generation_step: 1 << index_bits,
            max_slots,
            wrapped: Vec::new(),
            fresh_generation: 0,
            shrunk_from: 0,
            wheel: Wheel::new(),
        }
    }

    /// Number of requests in flight.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no request is in flight.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Most requests the table holds at once.
    #[inline]
    pub fn capacity_limit(&self) -> usize {
        self.limit
    }

    /// Inserts a request without a deadline and returns the token to send as its id.
    ///
    /// # Errors
    ///
    /// [`TableFull`], handing `value` back, when [`len`](PendingTable::len) has reached
    /// the capacity limit.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{encode, PendingTable, RawJson};
    /// let mut pending = PendingTable::new();
    /// // A new table is far below its limit (65 536): the insert cannot fail here.
    /// let token = pending.insert("tools/call").unwrap();
    /// let params = RawJson::new(br#"{"name":"get_weather"}"#).unwrap();
    /// let mut wire = BytesMut::new();
    /// encode::write_request(&mut wire, token.to_id(&mut [0; 20]), "tools/call", Some(params));
    /// assert_eq!(&wire[..], &br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather"}}
    /// "#[..]);
    /// assert_eq!(pending.get(token), Some(&"tools/call"));
    /// ```
    #[inline]
    pub fn insert(&mut self, value: T) -> Result<Token, TableFull<T>> {
        self.insert_scheduled(value, None)
    }

    /// Inserts a request that [`expire`](PendingTable::expire) hands back once `now`
    /// reaches `deadline` (in the caller's time unit), and returns its token.
    ///
    /// A deadline already past is due on the next `expire`.
    ///
    /// # Errors
    ///
    /// As for [`insert`](PendingTable::insert): [`TableFull`], handing `value` back, at the
    /// capacity limit.
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// let mut pending = PendingTable::new();
    /// let now = 1_000; // the caller's monotonic clock, in milliseconds here
    /// let call = pending.insert_with_deadline("tools/call", now + 30_000).unwrap();
    /// assert_eq!(pending.expire(now + 29_999).count(), 0);
    /// assert_eq!(pending.expire(now + 30_000).collect::<Vec<_>>(), [(call, "tools/call")]);
    /// assert!(pending.is_empty());
    /// ```
    #[inline]
    pub fn insert_with_deadline(&mut self, value: T, deadline: u64) -> Result<Token, TableFull<T>> {
        self.insert_scheduled(value, Some(deadline))
    }

    /// Reserves the next slot so its token can be written into the request frame before the
    /// request is committed with [`VacantEntry::insert`].
    ///
    /// Dropping the entry without inserting leaves the table as it was.
    ///
    /// The entry borrows the table until it is committed or dropped. Where the table sits
    /// behind a lock, [`insert`](PendingTable::insert) first and writing the request after
    /// is as correct and holds the lock for less: no reply can come before its request is
    /// sent (a write that then fails takes the entry back with
    /// [`remove`](PendingTable::remove)).
    ///
    /// # Errors
    ///
    /// [`TableFull`] (its `value` `()`) when [`len`](PendingTable::len) has reached the
    /// capacity limit.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{encode, PendingTable};
    /// let mut pending = PendingTable::new();
    /// let mut wire = BytesMut::new();
    ///
    /// // A reservation dropped without an insert leaves the table as it was.
    /// let unused = pending.vacant_entry().unwrap().token();
    ///
    /// let entry = pending.vacant_entry().unwrap();
    /// assert_eq!(entry.token(), unused);
    /// encode::write_request(&mut wire, entry.token().to_id(&mut [0; 20]), "ping", None);
    /// let token = entry.insert("ping");
    /// assert_eq!(&wire[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    /// assert_eq!(pending.get(token), Some(&"ping"));
    /// ```
    ///
    /// With a deadline, [`VacantEntry::insert_with_deadline`]: see the
    /// [`PendingTable` example](PendingTable#example).
    #[inline]
    pub fn vacant_entry(&mut self) -> Result<VacantEntry<'_, T>, TableFull<()>> {
        if self.len >= self.limit {
            return Err(self.full(()));
        }
        let Some(index) = self.next_vacant_index() else {
            return Err(self.full(()));
        };
        let token = match self.slots.get(index) {
            Some(slot) => slot.token,
            None => self.fresh_token(index),
        };
        Ok(VacantEntry {
            table: self,
            index,
            token: Token::minted(token),
        })
    }

    /// The request in flight under `token`.
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// struct Call {
    ///     method: &'static str,
    ///     progress: u32,
    /// }
    /// let mut pending = PendingTable::new();
    /// let token = pending.insert(Call { method: "tools/call", progress: 0 }).unwrap();
    /// // A `notifications/progress` for the request came.
    /// if let Some(call) = pending.get_mut(token) {
    ///     call.progress += 1;
    /// }
    /// assert_eq!(pending.get(token).map(|c| (c.method, c.progress)), Some(("tools/call", 1)));
    /// pending.remove(token).unwrap();
    /// assert!(pending.get(token).is_none());
    /// ```
    #[inline]
    pub fn get(&self, token: Token) -> Option<&T> {
        let index = self.live_index(token)?;
        match &self.slots[index].entry {
            Entry::Occupied { value, .. } => Some(value),
            Entry::Vacant { .. } => None,
        }
    }

    /// The request in flight under `token`, mutably (see [`get`](Self::get)'s example).
    #[inline]
    pub fn get_mut(&mut self, token: Token) -> Option<&mut T> {
        let index = self.live_index(token)?;
        match &mut self.slots[index].entry {
            Entry::Occupied { value, .. } => Some(value),
            Entry::Vacant { .. } => None,
        }
    }

    /// Whether a request is in flight under `token`.
    #[inline]
    pub fn contains(&self, token: Token) -> bool {
        self.live_index(token).is_some()
    }

    /// Removes the request in flight under `token` and returns it.
    ///
    /// # Errors
    ///
    /// When no request is in flight under `token`: [`Miss::Stale`] when the table minted it
    /// (its request was answered, cancelled, expired or drained), [`Miss::Unknown`] when it
    /// never did. The table is left as it was. (A token never minted may miss as
    /// [`Miss::Stale`] at a slot index a [`shrink_to`](Self::shrink_to) cut off, or once the
    /// token space is used up: see [Tokens](PendingTable#tokens).)
    ///
    /// ```
    /// use rpcwire::{Miss, PendingTable, Token};
    /// let mut pending = PendingTable::new();
    /// let token = pending.insert("resources/read").unwrap();
    /// // Writing the request failed: take the entry back.
    /// assert_eq!(pending.remove(token), Ok("resources/read"));
    /// assert_eq!(pending.remove(token), Err(Miss::Stale));
    /// let never_minted = Token::new(2).unwrap();
    /// assert_eq!(pending.remove(never_minted), Err(Miss::Unknown));
    /// ```
    #[inline]
    pub fn remove(&mut self, token: Token) -> Result<T, Miss> {
        match self.live_index(token) {
            Some(index) => Ok(self.free(index)),
            None => Err(self.miss(token)),
        }
    }

    /// Matches a reply by the raw wire token of its `id` and removes the request.
    ///
    /// `raw_id` is the id exactly as it appears in the reply (`42`, `"abc"` with quotes).
    ///
    /// # Errors
    ///
    /// [`Miss::Unknown`] when `raw_id` is not a token ([`Token::from_wire`]: anything but a
    /// canonical integer up to [`Token::MAX`]); else those of [`remove`](Self::remove).
    ///
    /// The [`PendingTable` example](PendingTable#example) matches a response; an error
    /// response is matched the same way, by its id:
    ///
    /// ```
    /// use rpcwire::{Decoder, Miss, PendingTable};
    /// let mut pending = PendingTable::new();
    /// pending.insert("tools/call").unwrap(); // sent with id 1
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}}"#;
    /// let reply = Decoder::mcp_client().decode(frame).unwrap();
    /// assert_eq!(pending.complete_wire(reply.id().unwrap().raw()), Ok("tools/call"));
    /// // Late: the request was answered already.
    /// assert_eq!(pending.complete_wire(b"1"), Err(Miss::Stale));
    /// // Ids we never send: the same number written otherwise, a string.
    /// assert_eq!(pending.complete_wire(b"1.0"), Err(Miss::Unknown));
    /// assert_eq!(pending.complete_wire(b"\"req-1\""), Err(Miss::Unknown));
    /// ```
    #[inline]
    pub fn complete_wire(&mut self, raw_id: &[u8]) -> Result<T, Miss> {
        match Token::from_wire(raw_id) {
            Some(token) => self.remove(token),
            None => Err(Miss::Unknown),
        }
    }

    /// Matches a reply by its decoded id (a response's or error response's `id`) and removes
    /// the request: [`complete_wire`](Self::complete_wire) of `id.raw()`.
    ///
    /// # Errors
    ///
    /// Those of [`complete_wire`](Self::complete_wire): [`Miss::Unknown`] for an id that is
    /// not a token, else [`Miss::Stale`] or [`Miss::Unknown`] as [`remove`](Self::remove)
    /// says.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{encode, Decoder, Message, Miss, PendingTable, RawJson};
    ///
    /// let mut table = PendingTable::new();
    /// let token = table.insert("tools/list").unwrap();
    /// // The server's reply, as it would come back.
    /// let mut buf = [0; 20];
    /// let mut reply = BytesMut::new();
    /// encode::write_response(&mut reply, token.to_id(&mut buf), RawJson::EMPTY_OBJECT);
    /// let Ok(Message::Response(resp)) = Decoder::mcp_client().decode(&reply[..reply.len() - 1])
    /// else { panic!() };
    /// assert_eq!(table.complete(resp.id), Ok("tools/list"));
    /// assert_eq!(table.complete(resp.id), Err(Miss::Stale));
    /// ```
    #[inline]
    pub fn complete(&mut self, id: crate::Id<'_>) -> Result<T, Miss> {
        self.complete_wire(id.raw())
    }

    /// Gives the request under `token` a new deadline, or none (`None`): MCP lets progress
    /// reset a request's timeout. O(1). Returns `false` (nothing changed) when `token` is not
    /// in flight.
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// let mut table = PendingTable::new();
    /// let token = table.insert_with_deadline("tools/call", 100).unwrap();
    /// assert!(table.set_deadline(token, Some(250)));
    /// assert_eq!(table.expire(200).count(), 0);
    /// assert_eq!(table.expire(250).count(), 1);
    /// assert!(!table.set_deadline(token, Some(300)));
    /// ```
    pub fn set_deadline(&mut self, token: Token, deadline: Option<u64>) -> bool {
        let Some(index) = self.live_index(token) else {
            return false;
        };
        let Entry::Occupied { timed, .. } = &mut self.slots[index].entry else {
            unreachable!("a live token names an occupied slot");
        };
        if mem::replace(timed, deadline.is_some()) {
            self.wheel.unschedule(index as u32);
        }
        if let Some(deadline) = deadline {
            self.wheel.schedule(index as u32, deadline);
        }
        true
    }

    /// Whether the request under `token` has a deadline; `None` when it is not in flight.
    /// Progress resets the timeout of a request that has one, and must not give one to a
    /// request that waits without (an MCP `subscriptions/listen` stream, say).
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// let mut table = PendingTable::new();
    /// let (timed, open) = (table.insert_with_deadline((), 100).unwrap(), table.insert(()).unwrap());
    /// assert_eq!((table.has_deadline(timed), table.has_deadline(open)), (Some(true), Some(false)));
    /// table.cancel(open);
    /// assert_eq!(table.has_deadline(open), None);
    /// ```
    pub fn has_deadline(&self, token: Token) -> Option<bool> {
        let index = self.live_index(token)?;
        match &self.slots[index].entry {
            Entry::Occupied { timed, .. } => Some(*timed),
            Entry::Vacant { .. } => unreachable!("a live token names an occupied slot"),
        }
    }

    /// The deadline of the request under `token`; `None` when it has none or is not in
    /// flight.
    pub(crate) fn deadline(&self, token: Token) -> Option<u64> {
        self.wheel.deadline(self.live_index(token)? as u32)
    }

    /// Removes the request under `token` if it is in flight, e.g. when we cancel it.
    ///
    /// The same as [`remove`](PendingTable::remove) without the reason of a miss: the table
    /// keeps no record of the cancellation beyond the slot's generation, so a reply that
    /// still arrives is [`Miss::Stale`].
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{mcp, Miss, PendingTable};
    /// let mut pending = PendingTable::new();
    /// let token = pending.insert("tools/call").unwrap();
    /// // The user gave up: tell the server, and stop waiting.
    /// let mut wire = BytesMut::new();
    /// mcp::write_cancelled_token(&mut wire, token, Some("user cancelled"));
    /// assert_eq!(pending.cancel(token), Some("tools/call"));
    /// assert_eq!(pending.cancel(token), None);
    /// // The server answered before it read the cancellation: the reply is stale.
    /// let reply_id = token.to_wire(&mut [0; 20]).to_vec();
    /// assert_eq!(pending.complete_wire(&reply_id), Err(Miss::Stale));
    /// ```
    #[inline]
    pub fn cancel(&mut self, token: Token) -> Option<T> {
        let index = self.live_index(token)?;
        Some(self.free(index))
    }

    /// Removes every request whose deadline is `<= now` and yields them with their tokens.
    ///
    /// Costs amortised O(1) per entry (and a few bit scans per call), however many entries
    /// are in flight and however far `now` moved. Entries the iterator has not yielded when
    /// it is dropped stay in the table and come out of the next `expire`.
    ///
    /// ```
    /// use rpcwire::{Miss, PendingTable};
    /// let mut pending = PendingTable::new();
    /// let list = pending.insert_with_deadline("tools/list", 5_000).unwrap();
    /// let call = pending.insert_with_deadline("tools/call", 30_000).unwrap();
    /// let listen = pending.insert("subscriptions/listen").unwrap(); // no deadline
    ///
    /// assert_eq!(pending.expire(4_999).count(), 0);
    /// assert_eq!(pending.expire(5_000).collect::<Vec<_>>(), [(list, "tools/list")]);
    /// // Its reply, should it still come, is late.
    /// assert_eq!(pending.remove(list), Err(Miss::Stale));
    ///
    /// // However far time jumps, each due request comes out once; one without a deadline never.
    /// assert_eq!(pending.expire(u64::MAX).collect::<Vec<_>>(), [(call, "tools/call")]);
    /// assert_eq!(pending.expire(u64::MAX).count(), 0);
    /// assert!(pending.contains(listen));
    /// ```
    #[inline]
    pub fn expire(&mut self, now: u64) -> Expired<'_, T> {
        Expired { table: self, now }
    }

    /// The token of an entry whose deadline is `<= now`, taken off the wheel (it has no
    /// deadline now) but left in the table: for a caller that keeps some of the entries that
    /// fall due, under their tokens ([`cancel`](Self::cancel) removes one). `None` when none
    /// is due.
    pub(crate) fn pop_due(&mut self, now: u64) -> Option<Token> {
        let index = self.wheel.pop_due(now)? as usize;
        let slot = &mut self.slots[index];
        if let Entry::Occupied { timed, .. } = &mut slot.entry {
            *timed = false;
        }
        Some(Token::minted(slot.token))
    }

    /// A time before which no deadline falls due, or `None` when no entry has a deadline:
    /// when to call [`expire`](PendingTable::expire) next.
    ///
    /// Exact for deadlines in the same 64-unit block as the last `expire`'s `now` (equal
    /// above the low 6 bits), when that `expire`'s iterator ran to its end; a lower bound
    /// (the start of a coarser wheel bucket) otherwise, in which case the `expire` at that
    /// time yields nothing and a later wakeup follows. (An iterator dropped early leaves the
    /// table processed up to the deadline it yielded last, not up to its `now`.)
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// let mut pending = PendingTable::new();
    /// assert_eq!(pending.next_wakeup(), None);
    /// pending.insert_with_deadline("ping", 40).unwrap();
    /// pending.insert_with_deadline("tools/call", 30_000).unwrap();
    /// pending.insert("subscriptions/listen").unwrap();
    ///
    /// // A timer loop: sleep until the wakeup, expire, ask again. A wakeup may come early
    /// // (a lower bound), and then its `expire` yields nothing; no deadline is missed.
    /// let mut timed_out = Vec::new();
    /// while let Some(wake) = pending.next_wakeup() {
    ///     // (sleep until `wake`)
    ///     timed_out.extend(pending.expire(wake).map(|(_, method)| (wake, method)));
    /// }
    /// assert_eq!(timed_out, [(40, "ping"), (30_000, "tools/call")]);
    /// assert_eq!(pending.len(), 1); // the request without a deadline is still in flight
    /// ```
    pub fn next_wakeup(&self) -> Option<u64> {
        self.wheel.next_wakeup()
    }

    /// Every request in flight with its token, in no particular order, the table left as it
    /// is: to list them (a status page, a count by method), or to find one by its value.
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// let mut table = PendingTable::new();
    /// let ping = table.insert("ping").unwrap();
    /// let call = table.insert("tools/call").unwrap();
    /// table.remove(ping).unwrap();
    /// let found: Vec<_> = table.iter().filter(|&(_, &m)| m == "tools/call").collect();
    /// assert_eq!(found, [(call, &"tools/call")]);
    /// assert_eq!(table.iter().len(), 1);
    /// ```
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            slots: self.slots.iter(),
            remaining: self.len,
        }
    }

    /// As [`iter`](Self::iter), each value mutable where it is (a count of its progress
    /// notifications, a state it moved to); the tokens and deadlines stay as they are.
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// let mut table = PendingTable::new();
    /// let a = table.insert(0u32).unwrap();
    /// let b = table.insert(10).unwrap();
    /// for (_, seen) in &mut table {
    ///     *seen += 1;
    /// }
    /// assert_eq!((table.get(a), table.get(b)), (Some(&1), Some(&11)));
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        IterMut {
            slots: self.slots.iter_mut(),
            remaining: self.len,
        }
    }

    /// Removes every request (the connection is gone) and yields them with their tokens.
    ///
    /// The table is empty afterwards, even if the iterator is dropped early, and stays
    /// usable: replies to the drained tokens are [`Miss::Stale`].
    ///
    /// ```
    /// use rpcwire::{Miss, PendingTable};
    /// let mut pending = PendingTable::new();
    /// pending.insert("ping").unwrap();
    /// let call = pending.insert_with_deadline("tools/call", 30_000).unwrap();
    /// // The connection dropped: fail every request still waiting.
    /// let mut failed: Vec<_> = pending.drain().map(|(_, method)| method).collect();
    /// failed.sort();
    /// assert_eq!(failed, ["ping", "tools/call"]);
    /// assert!(pending.is_empty() && pending.next_wakeup().is_none());
    /// assert_eq!(pending.remove(call), Err(Miss::Stale));
    ///
    /// // Not read at all, a drain empties the table all the same.
    /// pending.insert("ping").unwrap();
    /// drop(pending.drain());
    /// assert!(pending.is_empty());
    /// ```
    pub fn drain(&mut self) -> Drain<'_, T> {
        Drain {
            table: self,
            next: 0,
        }
    }

    /// How many requests the slab has slots for without reallocating (live, free and retired
    /// slots, and room for more). It grows with the peak number in flight and does not go
    /// down by itself: see [`shrink_to_fit`](Self::shrink_to_fit).
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// let mut table = PendingTable::new();
    /// assert_eq!(table.capacity(), 0);
    /// table.insert(()).unwrap();
    /// assert!(table.capacity() >= 1);
    /// ```
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Gives back the memory a burst of requests left behind: as
    /// [`shrink_to`](Self::shrink_to)`(0)`.
    ///
    /// ```
    /// use rpcwire::{Miss, PendingTable};
    /// let mut table = PendingTable::new();
    /// let kept = table.insert("kept").unwrap();
    /// let burst: Vec<_> = (0..1000).map(|_| table.insert("burst").unwrap()).collect();
    /// for token in &burst {
    ///     table.remove(*token).unwrap();
    /// }
    /// let before = table.capacity();
    /// table.shrink_to_fit();
    /// assert!(table.capacity() < before);
    /// // The request in flight is still found, the burst's tokens are still stale, and no
    /// // new request gets one of them.
    /// assert_eq!(table.get(kept), Some(&"kept"));
    /// assert_eq!(table.remove(burst[999]), Err(Miss::Stale));
    /// let next = table.insert("next").unwrap();
    /// assert!(!burst.contains(&next));
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.shrink_to(0);
    }

    /// Gives back the memory a burst of requests left behind, keeping room for at least
    /// `min_capacity` requests if it had that much (as `Vec::shrink_to` does: never grows):
    /// the free slots at the end of the slab are cut off, and the slab and the timer wheel's
    /// per-slot storage shrink to what is left. Requests in flight keep their tokens and deadlines, and a token that missed
    /// before still misses: a slot the table adds again at an index cut off starts at a
    /// generation past every one minted there (the latest among the slots cut off), so no
    /// token is minted twice. O(slab length); the next inserts past the new end allocate
    /// again.
    ///
    /// What stays:
    ///
    /// - the slots up to the last request in flight (a token names its slot's index, which
    ///   cannot move), and retired slots (see [Tokens](PendingTable#tokens));
    /// - a free slot in the later half of its generations, and those before it: every slot
    ///   added again would start past its generation, and mint fewer than half of a slot's
    ///   tokens before it retires. Cutting only slots in their lower half, shrinks can at most
    ///   halve the number of inserts before the token space is used up (see
    ///   [Tokens](PendingTable#tokens)). A slot gets to its later half after
    ///   `2^(52 − index_bits)` requests, 17 billion by default;
    /// - every slot, once the token space has been used up.
    ///
    /// A token never minted, of a generation below the one a slot added after a shrink starts
    /// at, misses as [`Miss::Stale`] rather than [`Miss::Unknown`] at an index the shrink cut
    /// off (it can never match a request either way); at an index past the longest length the
    /// slab has had, where a slot added later starts at that generation too, it misses as
    /// [`Miss::Unknown`], as any token of a slot never made does.
    ///
    /// ```
    /// use rpcwire::PendingTable;
    /// let mut table = PendingTable::new();
    /// let burst: Vec<_> = (0..1000).map(|i| table.insert(i).unwrap()).collect();
    /// for token in &burst[10..] {
    ///     table.remove(*token).unwrap();
    /// }
    /// table.shrink_to(100);
    /// assert!(table.capacity() >= 100 && table.capacity() < 1000);
    /// assert!(burst[..10].iter().enumerate().all(|(i, t)| table.get(*t) == Some(&i)));
    /// ```
    pub fn shrink_to(&mut self, min_capacity: usize) {
        let old_len = self.slots.len();
        let mut new_len = old_len;
        let mut fresh_generation = self.fresh_generation;
        // (After the token space was used up, every generation of a slot may have been
        // minted: none can be cut off.)
        while new_len > 0 && self.wrapped.is_empty() {
            let slot = &self.slots[new_len - 1];
            // A free slot in the lower half of its generations (a retired one is above it).
            if !matches!(slot.entry, Entry::Vacant { .. }) || slot.token >= HALF_TOKEN_SPACE {
                break;
            }
            let generation = slot.token - new_len as u64;
            fresh_generation = fresh_generation.max(generation);
            new_len -= 1;
        }
        if new_len < old_len {
            self.unlink_free_from(new_len);
            self.slots.truncate(new_len);
            self.fresh_generation = fresh_generation;
            self.shrunk_from = self.shrunk_from.max(old_len);
        }
        self.slots.shrink_to(min_capacity);
        self.wheel.shrink_to(new_len, min_capacity);
    }

    /// Takes the slots from index `from` on off the free list (keeping the others' order).
    #[cold]
    fn unlink_free_from(&mut self, from: usize) {
        let mut previous: Option<usize> = None;
        let mut link = self.free_head;
        while link != NIL {
            let index = link as usize;
            let Entry::Vacant { next_free } = self.slots[index].entry else {
                unreachable!("the free list holds vacant slots");
            };
            if index >= from {
                match previous {
                    None => self.free_head = next_free,
                    Some(previous) => self.slots[previous].entry = Entry::Vacant { next_free },
                }
            } else {
                previous = Some(index);
            }
            link = next_free;
        }
    }

    /// Memory-use figures, for soak tests.
    #[doc(hidden)]
    pub fn debug_footprint(&self) -> Footprint {
        Footprint {
            slots: self.slots.len(),
            slot_capacity: self.slots.capacity(),
            wheel_bucket_storage: self.wheel.bucket_storage(),
            wheel_link_storage: self.wheel.link_storage(),
            scheduled: self.wheel.scheduled(),
        }
    }

    /// The slot index of `token` if it is live.
    #[inline]
    fn live_index(&self, token: Token) -> Option<usize> {
        // A low part of 0 wraps to an index far out of range.
        let index = (token.get() & self.index_mask).wrapping_sub(1) as usize;
        let slot = self.slots.get(index)?;
        (slot.token == token.get() && matches!(slot.entry, Entry::Occupied { .. })).then_some(index)
    }

    /// Why `token` (not live) missed.
    #[cold]
    fn miss(&self, token: Token) -> Miss {
        let low = token.get() & self.index_mask;
        let Some(index) = low.checked_sub(1).map(|index| index as usize) else {
            return Miss::Unknown;
        };
        let Some(slot) = self.slots.get(index) else {
            // Past the slab's end: a slot the slab was shrunk past minted every token below
            // the generation the index starts at again.
            return if index < self.shrunk_from && token.get() < self.fresh_token(index) {
                Miss::Stale
            } else {
                Miss::Unknown
            };
        };
        // Same low bits, so comparing whole tokens compares generations. Every generation
        // below the slot's current one was issued; in a slot that wrapped, every one was.
        if token.get() < slot.token || self.has_wrapped(index) {
            Miss::Stale
        } else {
            Miss::Unknown
        }
    }

    #[inline]
    fn insert_scheduled(&mut self, value: T, deadline: Option<u64>) -> Result<Token, TableFull<T>> {
        if self.len >= self.limit {
            return Err(self.full(value));
        }
        match self.next_vacant_index() {
            Some(index) => Ok(self.occupy(index, value, deadline)),
            None => Err(self.full(value)),
        }
    }

    /// The error of an insert the table refused, handing `value` back.
    #[inline]
    fn full<V>(&self, value: V) -> TableFull<V> {
        TableFull {
            value,
            limit: self.limit,
        }
    }

    /// The slot the next insert takes: the free list's head, else a new slot.
    #[inline]
    fn next_vacant_index(&mut self) -> Option<usize> {
        if self.free_head != NIL {
            Some(self.free_head as usize)
        } else if self.slots.len() < self.max_slots {
            Some(self.slots.len())
        } else {
            self.recycle_retired();
            (self.free_head != NIL).then_some(self.free_head as usize)
        }
    }

    /// Fills the vacant slot `index` (from [`next_vacant_index`](Self::next_vacant_index)).
    #[inline]
    fn occupy(&mut self, index: usize, value: T, deadline: Option<u64>) -> Token {
        let token = if index == self.slots.len() {
            let token = self.fresh_token(index);
            self.slots.push(Slot {
                entry: Entry::Occupied {
                    value,
                    timed: deadline.is_some(),
                },
                token,
            });
            token
        } else {
            let slot = &mut self.slots[index];
            if let Entry::Vacant { next_free } = slot.entry {
                self.free_head = next_free;
            }
            slot.entry = Entry::Occupied {
                value,
                timed: deadline.is_some(),
            };
            slot.token
        };
        self.len += 1;
        if let Some(deadline) = deadline {
            self.wheel.schedule(index as u32, deadline);
        }
        Token::minted(token)
    }

    /// Empties the occupied slot `index`: off the wheel, next generation, onto the free list
    /// (or retired when its generations are used up).
    #[inline]
    fn free(&mut self, index: usize) -> T {
        let slot = &mut self.slots[index];
        slot.token += self.generation_step;
        let retired = slot.token > Token::MAX.get();
        let next_free = if retired { NIL } else { self.free_head };
        let Entry::Occupied { value, timed } =
            mem::replace(&mut slot.entry, Entry::Vacant { next_free })
        else {
            unreachable!("free() on a vacant slot");
        };
        if timed {
            self.wheel.unschedule(index as u32);
        }
        if !retired {
            self.free_head = index as u32;
        }
        self.len -= 1;
        value
    }

    /// The token space is used up: bring every retired slot back at generation 0.
    ///
    /// Runs at most once per ~2^53 inserts, so its scan of the slab does not matter.
    #[cold]
    fn recycle_retired(&mut self) {
        // (The slab holds every slot it may by now: a bit each is a small part of it.)
        if self.wrapped.is_empty() {
            self.wrapped.resize(self.slots.len().div_ceil(64), 0);
        }
        for (index, slot) in self.slots.iter_mut().enumerate() {
            if slot.token > Token::MAX.get() {
                slot.token = index as u64 + 1;
                slot.entry = Entry::Vacant {
                    next_free: self.free_head,
                };
                self.free_head = index as u32;
                self.wrapped[index / 64] |= 1 << (index % 64);
            }
        }
    }

    /// The token a slot added at `index` (the slab's end) mints first.
    #[inline]
    fn fresh_token(&self, index: usize) -> u64 {
        self.fresh_generation + index as u64 + 1
    }

    /// Whether slot `index` came back at generation 0 after it retired.
    fn has_wrapped(&self, index: usize) -> bool {
        self.wrapped
            .get(index / 64)
            .is_some_and(|bits| bits & (1 << (index % 64)) != 0)
    }
}

impl<T> Default for PendingTable<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for PendingTable<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for slot in &self.slots {
            if let Entry::Occupied { value, .. } = &slot.entry {
                map.entry(&slot.token, value);
            }
        }
        map.finish()
    }
}

/// A reserved slot whose [`token`](VacantEntry::token) is known before the request is
/// committed; from [`PendingTable::vacant_entry`].
///
/// Dropping it without inserting leaves the table unchanged.
pub struct VacantEntry<'a, T> {
    table: &'a mut PendingTable<T>,
    index: usize,
    token: Token,
}

impl<'a, T> VacantEntry<'a, T> {
    /// The token [`insert`](VacantEntry::insert) will file the request under.
    #[inline]
    pub fn token(&self) -> Token {
        self.token
    }

    /// Commits the request without a deadline; returns [`token`](VacantEntry::token) (see
    /// [`PendingTable::vacant_entry`]'s example).
    #[inline]
    pub fn insert(self, value: T) -> Token {
        self.table.occupy(self.index, value, None)
    }

    /// Commits the request with a deadline (see [`PendingTable::insert_with_deadline`]).
    #[inline]
    pub fn insert_with_deadline(self, value: T, deadline: u64) -> Token {
        self.table.occupy(self.index, value, Some(deadline))
    }
}

impl<T> fmt::Debug for VacantEntry<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VacantEntry")
            .field("token", &self.token)
            .finish()
    }
}

/// The requests whose deadline passed, from [`PendingTable::expire`].
#[must_use = "expired entries stay in the table until the iterator yields them"]
pub struct Expired<'a, T> {
    table: &'a mut PendingTable<T>,
    now: u64,
}

impl<T> Iterator for Expired<'_, T> {
    type Item = (Token, T);

    #[inline]
    fn next(&mut self) -> Option<(Token, T)> {
        let table = &mut *self.table;
        let index = table.wheel.pop_due(self.now)? as usize;
        let token = Token::minted(table.slots[index].token);
        Some((token, table.free(index)))
    }
}

// The iterator holds the table: no request can be inserted, nor a deadline moved, while it
// lives, so none falls due after the last one it yields.
impl<T> core::iter::FusedIterator for Expired<'_, T> {}

impl<T> fmt::Debug for Expired<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Expired").field("now", &self.now).finish()
    }
}

/// Every request in flight, from [`PendingTable::drain`]; empties the table even when
/// dropped early.
pub struct Drain<'a, T> {
    table: &'a mut PendingTable<T>,
    /// Next slot index to look at.
    next: usize,
}

impl<T> Iterator for Drain<'_, T> {
    type Item = (Token, T);

    fn next(&mut self) -> Option<(Token, T)> {
        while self.next < self.table.slots.len() {
            let index = self.next;
            self.next += 1;
            let slot = &self.table.slots[index];
            if matches!(slot.entry, Entry::Occupied { .. }) {
                let token = Token::minted(slot.token);
                return Some((token, self.table.free(index)));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.table.len, Some(self.table.len))
    }
}

impl<T> ExactSizeIterator for Drain<'_, T> {}

// Past the last slot it stays past it.
impl<T> core::iter::FusedIterator for Drain<'_, T> {}

impl<T> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        self.for_each(drop);
    }
}

impl<T> fmt::Debug for Drain<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Drain")
            .field("remaining", &self.table.len)
            .finish()
    }
}

/// The requests in flight, from [`PendingTable::iter`] (and `for … in &table`).
#[must_use = "iterators are lazy and do nothing unless consumed"]
pub struct Iter<'a, T> {
    slots: core::slice::Iter<'a, Slot<T>>,
    /// Occupied slots not yet yielded.
    remaining: usize,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = (Token, &'a T);

    fn next(&mut self) -> Option<(Token, &'a T)> {
        for slot in self.slots.by_ref() {
            if let Entry::Occupied { value, .. } = &slot.entry {
                self.remaining -= 1;
                return Some((Token::minted(slot.token), value));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

impl<T> core::iter::FusedIterator for Iter<'_, T> {}

/// (Not derived: that would need `T: Clone`, and only references are cloned.)
impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            slots: self.slots.clone(),
            remaining: self.remaining,
        }
    }
}

impl<T> fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("remaining", &self.remaining)
            .finish()
    }
}

impl<'a, T> IntoIterator for &'a PendingTable<T> {
    type Item = (Token, &'a T);
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

/// The requests in flight, each value mutable, from [`PendingTable::iter_mut`] (and
/// `for … in &mut table`).
#[must_use = "iterators are lazy and do nothing unless consumed"]
pub struct IterMut<'a, T> {
    slots: core::slice::IterMut<'a, Slot<T>>,
    /// Occupied slots not yet yielded.
    remaining: usize,
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = (Token, &'a mut T);

    fn next(&mut self) -> Option<(Token, &'a mut T)> {
        for slot in self.slots.by_ref() {
            if let Entry::Occupied { value, .. } = &mut slot.entry {
                self.remaining -= 1;
                return Some((Token::minted(slot.token), value));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for IterMut<'_, T> {}

impl<T> core::iter::FusedIterator for IterMut<'_, T> {}

impl<T> fmt::Debug for IterMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IterMut")
            .field("remaining", &self.remaining)
            .finish()
    }
}

impl<'a, T> IntoIterator for &'a mut PendingTable<T> {
    type Item = (Token, &'a mut T);
    type IntoIter = IterMut<'a, T>;

    fn into_iter(self) -> IterMut<'a, T> {
        self.iter_mut()
    }
}

/// Memory-use figures of a [`PendingTable`] (see `debug_footprint`), for soak tests.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Slots in the slab (live, free and retired).
    pub slots: usize,
    /// Allocated slot capacity.
    pub slot_capacity: usize,
    /// List heads the timer wheel allocated (fixed once allocated, until a shrink finds
    /// nothing on the wheel).
    pub wheel_bucket_storage: usize,
    /// Per-slot links the timer wheel allocated (at most one per slot).
    pub wheel_link_storage: usize,
    /// Entries on the timer wheel.
    pub scheduled: usize,
}

#[cfg(test)]
mod tests;
