//! MCP 2026-07-28's multi round-trip requests: a result with `resultType: "input_required"`
//! asks the client for input before the server answers ([`InputRequired`]: its
//! `inputRequests`, each a request the client answers under its key, and its opaque
//! `requestState`), and the client sends the request again with its answers
//! (`inputResponses`) and the state ([`write_retry`]). A server asks with
//! [`write_input_required`], and reads the retry with [`Retry`]. The retry is a request of
//! its own, with an id of its own.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use smallvec::SmallVec;

use bytes::BytesMut;

use crate::encode;
use crate::id::{Id, IdKind};
use crate::json::{JsonKind, JsonStr, Lookup, Members, RawJson};

use super::RESULT_TYPE;

/// An `input_required` result, as a client reads it: the requests the server asks it to
/// answer first (`inputRequests`, read one by one with [`requests`](Self::requests)), and the
/// `requestState` to send back as it is. The schema's rules are checked when it is read:
/// at least one of the two is there, `inputRequests` is an object of requests (each an
/// object with a string `method`, its `params` an object if given), each key once, and
/// `requestState` a string. A server "MAY send this in response to `tools/call`,
/// `prompts/get`, or `resources/read`"; which request it answered is the caller's to know.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, InputRequired};
/// use rpcwire::{Decoder, Id, Message, RawJson};
///
/// let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object"}}},"roots":{"method":"roots/list"}},"requestState":"s-41"}}"#;
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// let asked = InputRequired::from_result(r.result).unwrap();
/// let methods: Vec<_> = asked.requests().map(|q| (q.key.decode(), q.method.decode())).collect();
/// assert_eq!(methods, [("name".into(), "elicitation/create".into()), ("roots".into(), "roots/list".into())]);
///
/// // The client answers each under its key, and sends the request again, with a new id.
/// let name = RawJson::new(br#"{"action":"accept","content":{"name":"Ada"}}"#).unwrap();
/// let roots = RawJson::new(br#"{"roots":[]}"#).unwrap();
/// let params = RawJson::new(br#"{"name":"greet"}"#).unwrap();
/// let mut out = BytesMut::new();
/// let id = Id::from_token(b"2").unwrap();
/// let answers = [("name", name), ("roots", roots)];
/// mcp::write_retry(&mut out, id, "tools/call", Some(params), &answers, asked.request_state)?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}},"roots":{"roots":[]}},"requestState":"s-41"}}
/// "#[..]
/// );
/// # Ok::<(), mcp::RetryError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputRequired<'a> {
    /// `inputRequests`: the server's requests, by the key the client answers each under (an
    /// object; [`requests`](Self::requests) reads them).
    pub input_requests: Option<RawJson<'a>>,
    /// `requestState`: the server's state, opaque, to send back as it is ([`write_retry`]).
    pub request_state: Option<JsonStr<'a>>,
}

/// One request of an [`InputRequired`] result's `inputRequests`: a `sampling/createMessage`,
/// `elicitation/create` or `roots/list`, say, which the client answers as it would answer
/// the server's request, its result given under `key` in the retry's `inputResponses`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputRequest<'a> {
    /// The key the answer goes under.
    pub key: JsonStr<'a>,
    /// The request's `method`.
    pub method: JsonStr<'a>,
    /// The request's `params` (an object), if given.
    pub params: Option<RawJson<'a>>,
}

/// Why [`InputRequired::from_result`] read nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputRequiredError {
    /// The result's `resultType` is not `"input_required"` (or not one string), or cannot
    /// be read: the result cannot be read member by member (lazy validation lets through
    /// `{"a" 1}`).
    NotInputRequired,
    /// `inputRequests` cannot be read member by member, or holds a key twice; or the result
    /// holds `inputRequests` or `requestState` twice.
    Malformed,
    /// Neither `inputRequests` nor `requestState` is there: the result asks for nothing and
    /// hands back nothing to retry with.
    NothingAsked,
    /// `inputRequests` is not an object of requests (each an object with one string
    /// `method`, and `params` an object if given).
    BadInputRequests,
    /// `requestState` is not a string.
    BadRequestState,
}

impl core::fmt::Display for InputRequiredError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NotInputRequired => "the result's resultType is not input_required",
            Self::Malformed => "the result cannot be read member by member, once each",
            Self::NothingAsked => "an input_required result needs inputRequests or requestState",
            Self::BadInputRequests => "inputRequests must be an object of requests with a method",
            Self::BadRequestState => "requestState must be a string",
        })
    }
}

impl core::error::Error for InputRequiredError {}

impl<'a> InputRequired<'a> {
    /// Reads `result`, a result whose `resultType` is `"input_required"`
    /// ([`ResultType::of`](super::ResultType::of) tells which results are), checking the
    /// schema's rules (see [`InputRequired`]).
    ///
    /// # Errors
    ///
    /// An [`InputRequiredError`], checked in this order:
    /// - [`NotInputRequired`](InputRequiredError::NotInputRequired) when `resultType` is not
    ///   the one string `"input_required"` (absent, another value, or given twice), and when
    ///   the result cannot be read member by member, which leaves its `resultType` unknown;
    /// - [`Malformed`](InputRequiredError::Malformed) when the result holds `inputRequests`
    ///   or `requestState` twice;
    /// - [`NothingAsked`](InputRequiredError::NothingAsked) when it holds neither;
    /// - [`BadRequestState`](InputRequiredError::BadRequestState) when `requestState` is not
    ///   a string;
    /// - [`BadInputRequests`](InputRequiredError::BadInputRequests) when `inputRequests` is
    ///   not an object, or one of its requests is not an object with one string `method`
    ///   and at most one `params`, an object;
    /// - [`Malformed`](InputRequiredError::Malformed) when `inputRequests` cannot be read to
    ///   its end, or holds a key twice.
    ///
    /// ```
    /// use rpcwire::mcp::{InputRequired, InputRequiredError};
    /// use rpcwire::RawJson;
    /// let read = |json: &'static [u8]| InputRequired::from_result(RawJson::new(json).unwrap());
    /// let unreadable = read(br#"{"resultType":"input_required","requestState":"s" "x":1}"#);
    /// assert_eq!(unreadable, Err(InputRequiredError::NotInputRequired));
    /// let twice = read(br#"{"resultType":"input_required","requestState":"s","requestState":"t"}"#);
    /// assert_eq!(twice, Err(InputRequiredError::Malformed));
    /// ```
    pub fn from_result(result: RawJson<'a>) -> Result<Self, InputRequiredError> {
        let [result_type, requests, state] =
            result.lookup_each([RESULT_TYPE, "inputRequests", "requestState"]);
        let asks = match result_type {
            Lookup::Found(t) => t.as_str().is_some_and(|t| t.eq_str("input_required")),
            _ => false,
        };
        if !asks {
            return Err(InputRequiredError::NotInputRequired);
        }
        let input_requests = optional(requests)?;
        let request_state = optional(state)?;
        if input_requests.is_none() && request_state.is_none() {
            return Err(InputRequiredError::NothingAsked);
        }
        let request_state = match request_state {
            Some(state) => Some(state.as_str().ok_or(InputRequiredError::BadRequestState)?),
            None => None,
        };
        if let Some(requests) = input_requests {
            check_requests(requests)?;
        }
        Ok(InputRequired {
            input_requests,
            request_state,
        })
    }

    /// The requests of `inputRequests`, in their order (none when it is absent). The
    /// iteration ends early at a member that is not a request, which only an `InputRequired`
    /// built by hand rather than by [`from_result`](Self::from_result) can hold.
    pub fn requests(&self) -> InputRequests<'a> {
        InputRequests {
            members: self
                .input_requests
                .unwrap_or(RawJson::EMPTY_OBJECT)
                .members(),
        }
    }
}

/// The requests of an [`InputRequired`] result ([`InputRequired::requests`]).
#[derive(Debug, Clone)]
pub struct InputRequests<'a> {
    members: Members<'a>,
}

impl<'a> Iterator for InputRequests<'a> {
    type Item = InputRequest<'a>;

    fn next(&mut self) -> Option<InputRequest<'a>> {
        // (Each was checked by `from_result`: an object with one string `method`.)
        let (key, request) = self.members.next()?;
        let [method, params] = request.lookup_each(["method", "params"]);
        Some(InputRequest {
            key,
            method: match method {
                Lookup::Found(method) => method.as_str()?,
                _ => return None,
            },
            params: match params {
                Lookup::Found(params) => Some(params),
                _ => None,
            },
        })
    }
}

/// A member that may be absent, refused when it is there twice or cannot be read.
fn optional(found: Lookup<'_>) -> Result<Option<RawJson<'_>>, InputRequiredError> {
    match found {
        Lookup::Absent => Ok(None),
        Lookup::Found(value) => Ok(Some(value)),
        Lookup::Ambiguous | Lookup::Malformed => Err(InputRequiredError::Malformed),
    }
}

/// Checks `inputRequests`: an object, each key once, each value a request.
fn check_requests(requests: RawJson<'_>) -> Result<(), InputRequiredError> {
    if requests.kind() != JsonKind::Object {
        return Err(InputRequiredError::BadInputRequests);
    }
    let mut members = requests.members();
    for (_, request) in members.by_ref() {
        if request.kind() != JsonKind::Object {
            return Err(InputRequiredError::BadInputRequests);
        }
        let [method, params] = request.lookup_each(["method", "params"]);
        let method_ok = matches!(method, Lookup::Found(m) if m.as_str().is_some());
        let params_ok = match params {
            Lookup::Absent => true,
            Lookup::Found(p) => p.kind() == JsonKind::Object,
            Lookup::Ambiguous | Lookup::Malformed => false,
        };
        if !method_ok || !params_ok {
            return Err(InputRequiredError::BadInputRequests);
        }
    }
    if members.stopped_early() {
        return Err(InputRequiredError::Malformed);
    }
    // A key given twice: the client's answers would be read either way.
    if any_twice(requests.members().map(|(key, _)| code_units(key))) {
        return Err(InputRequiredError::Malformed);
    }
    Ok(())
}

/// Whether any of `keys` comes twice: compared pairwise when they are few, sorted when they
/// are many, so that a hostile result of a hundred thousand keys costs n log n, not n².
/// Each key is its string's code units ([`code_units`] of a key read, the bytes of a `&str`).
/// The keys are taken once: a key read from an object costs a walk over its value, and
/// walking the members again for each pair would read a few large answers some ten times.
fn any_twice<'k>(mut keys: impl Iterator<Item = Cow<'k, [u8]>>) -> bool {
    const PAIRWISE: usize = 16;
    let few: SmallVec<[Cow<'k, [u8]>; PAIRWISE + 1]> = keys.by_ref().take(PAIRWISE + 1).collect();
    if few.len() <= PAIRWISE {
        return few
            .iter()
            .enumerate()
            .any(|(i, key)| few[..i].contains(key));
    }
    let mut sorted: Vec<Cow<'k, [u8]>> = few.into_iter().chain(keys).collect();
    sorted.sort_unstable();
    sorted.windows(2).any(|pair| pair[0] == pair[1])
}

/// Whether `value` is an object whose members can be read, each followed by a comma or the
/// closing brace (what lazy validation let through is read no further than that).
fn readable_object(value: RawJson<'_>) -> bool {
    if value.kind() != JsonKind::Object {
        return false;
    }
    let mut members = value.members();
    members.by_ref().for_each(drop);
    !members.stopped_early()
}

/// A key read, as the code units of its string (WTF-8): two keys are one exactly when these
/// are equal, as RFC 8259 compares strings. (Decoded text would not do: it shows every lone
/// surrogate, `\ud800` as `\ud801`, as U+FFFD, and would make them one key.) Borrowed for a
/// key without escapes, which is its own form.
fn code_units(key: JsonStr<'_>) -> Cow<'_, [u8]> {
    if !key.has_escapes() {
        return Cow::Borrowed(key.raw());
    }
    let mut units = Vec::with_capacity(key.raw().len());
    key.extend_wtf8(&mut units);
    Cow::Owned(units)
}

/// Why [`write_retry`] wrote nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryError {
    /// The request id is neither a string nor an integer, as MCP's requests' must be.
    BadId,
    /// `params` is not an object that can be read member by member.
    NotAnObject,
    /// An answer is given twice under one key.
    DuplicateKey,
}

impl core::fmt::Display for RetryError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::BadId => "a request id must be a string or an integer",
            Self::NotAnObject => "params must be an object read member by member",
            Self::DuplicateKey => "an answer is given twice under one key",
        })
    }
}

impl core::error::Error for RetryError {}

/// Appends the request `method` sent again after an `input_required` result
/// ([`InputRequired`]): `params` as they were (member by member, without the
/// `inputResponses` and `requestState` of an earlier round, if any), then `inputResponses`
/// holding each of `answers` (the result of the input request of that key, as the client
/// would answer the server's request) when there is any, and `requestState` when the server
/// gave one, as it gave it. `id` is the retry's own (a new request). The result is written
/// as [`encode::write_request`] writes params: their line breaks become spaces.
///
/// # Errors
/// Nothing is appended: [`RetryError::BadId`] for an id that is not a string or an
/// integer, [`NotAnObject`](RetryError::NotAnObject) for params that are not an object read
/// member by member, [`DuplicateKey`](RetryError::DuplicateKey) for two answers under one key.
pub fn write_retry(
    out: &mut BytesMut,
    id: Id<'_>,
    method: &str,
    params: Option<RawJson<'_>>,
    answers: &[(&str, RawJson<'_>)],
    request_state: Option<JsonStr<'_>>,
) -> Result<(), RetryError> {
    if matches!(id.kind(), IdKind::Null | IdKind::Number) {
        return Err(RetryError::BadId);
    }
    let params = params.unwrap_or(RawJson::EMPTY_OBJECT);
    if params.kind() != JsonKind::Object {
        return Err(RetryError::NotAnObject);
    }
    // The params are read once, as they are written; a refusal takes back what was.
    let start = out.len();
    encode::write_request_head(out, id, method);
    out.extend_from_slice(b",\"params\":{");
    let mut first = true;
    let mut comma = |out: &mut BytesMut| {
        if !core::mem::take(&mut first) {
            out.extend_from_slice(b",");
        }
    };
    let mut members = params.members();
    for (key, value) in members.by_ref() {
        if key.eq_str(INPUT_RESPONSES) || key.eq_str(REQUEST_STATE) {
            continue;
        }
        comma(out);
        out.extend_from_slice(b"\"");
        out.extend_from_slice(key.raw());
        out.extend_from_slice(b"\":");
        encode::write_raw_json(out, value);
    }
    let refused = if members.stopped_early() {
        Some(RetryError::NotAnObject)
    } else if any_twice(answers.iter().map(|(key, _)| Cow::Borrowed(key.as_bytes()))) {
        Some(RetryError::DuplicateKey)
    } else {
        None
    };
    if let Some(refused) = refused {
        out.truncate(start);
        return Err(refused);
    }
    if !answers.is_empty() {
        comma(out);
        out.extend_from_slice(b"\"inputResponses\":{");
        for (i, (key, answer)) in answers.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",");
            }
            encode::write_json_string(out, key);
            out.extend_from_slice(b":");
            encode::write_raw_json(out, *answer);
        }
        out.extend_from_slice(b"}");
    }
    if let Some(state) = request_state {
        comma(out);
        out.extend_from_slice(b"\"requestState\":\"");
        out.extend_from_slice(state.raw());
        out.extend_from_slice(b"\"");
    }
    out.extend_from_slice(b"}}\n");
    Ok(())
}

/// The member of a retry's params that holds the client's answers.
const INPUT_RESPONSES: &str = "inputResponses";
/// The member that carries the server's state back.
const REQUEST_STATE: &str = "requestState";

/// Why [`write_input_required`] wrote nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputRequiredWriteError {
    /// Neither a request nor a state: "at least one of `inputRequests` or `requestState`
    /// MUST be present".
    NothingAsked,
    /// Two requests under one key: the client's answers would be read either way.
    DuplicateKey,
    /// A request's `params` is not an object.
    ParamsNotAnObject,
}

impl core::fmt::Display for InputRequiredWriteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NothingAsked => "an input_required result needs a request or a state",
            Self::DuplicateKey => "two input requests under one key",
            Self::ParamsNotAnObject => "an input request's params must be an object",
        })
    }
}

impl core::error::Error for InputRequiredWriteError {}

/// Appends a server's `input_required` result to the request `id` (MCP 2026-07-28; a server
/// "MAY send this in response to `tools/call`, `prompts/get`, or `resources/read`"):
/// `"resultType":"input_required"`, then `inputRequests` holding each of `requests`
/// (`(key, method, params)`: the request the client answers under `key`, a
/// `sampling/createMessage`, `elicitation/create` or `roots/list`, say) when there is any,
/// then `requestState` (opaque to the client, which sends it back in its retry) when given.
/// The client's retry is a new request: read its answers and the state with
/// [`Retry::from_request`].
///
/// Three rules of the specification are the caller's, not checked here: the request
/// answered is one that may be ([`may_require_input`](super::methods::may_require_input):
/// "Servers **MUST NOT** send `InputRequiredResult` responses on any other client
/// requests"), each input request is one of
/// [`INPUT_REQUESTS`](super::methods::INPUT_REQUESTS)
/// ([`is_input_request`](super::methods::is_input_request)), and the client declared the
/// capability each needs ([`input_request_capability`](super::methods::input_request_capability),
/// in the request's [`RequestMeta::client_capabilities`](super::RequestMeta::client_capabilities)).
///
/// # Errors
/// Nothing is appended: [`InputRequiredWriteError::NothingAsked`] with neither a request nor
/// a state, [`DuplicateKey`](InputRequiredWriteError::DuplicateKey) for two requests under
/// one key, [`ParamsNotAnObject`](InputRequiredWriteError::ParamsNotAnObject) for `params`
/// that are not an object.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, InputRequired};
/// use rpcwire::{Decoder, Id, Message, RawJson};
///
/// let mut out = BytesMut::new();
/// let ask = RawJson::new(br#"{"message":"Your name?","requestedSchema":{"type":"object"}}"#).unwrap();
/// let id = Id::from_token(b"1").unwrap();
/// mcp::write_input_required(&mut out, id, &[("name", "elicitation/create", Some(ask))], Some("round-1"))?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object"}}}},"requestState":"round-1"}}
/// "#[..]
/// );
/// // What the client reads of it.
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(&out[..out.len() - 1]) else { panic!() };
/// let asked = InputRequired::from_result(r.result).unwrap();
/// assert_eq!(asked.requests().next().unwrap().method.decode(), "elicitation/create");
/// # Ok::<(), mcp::InputRequiredWriteError>(())
/// ```
pub fn write_input_required(
    out: &mut BytesMut,
    id: Id<'_>,
    requests: &[(&str, &str, Option<RawJson<'_>>)],
    request_state: Option<&str>,
) -> Result<(), InputRequiredWriteError> {
    if requests.is_empty() && request_state.is_none() {
        return Err(InputRequiredWriteError::NothingAsked);
    }
    if any_twice(
        requests
            .iter()
            .map(|(key, _, _)| Cow::Borrowed(key.as_bytes())),
    ) {
        return Err(InputRequiredWriteError::DuplicateKey);
    }
    if requests
        .iter()
        .any(|(_, _, params)| params.is_some_and(|p| p.kind() != JsonKind::Object))
    {
        return Err(InputRequiredWriteError::ParamsNotAnObject);
    }
    encode::write_response_head(out, id);
    out.extend_from_slice(br#"{"resultType":"input_required""#);
    if !requests.is_empty() {
        out.extend_from_slice(br#","inputRequests":{"#);
        for (i, (key, method, params)) in requests.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",");
            }
            encode::write_json_string(out, key);
            out.extend_from_slice(br#":{"method":"#);
            encode::write_json_string(out, method);
            if let Some(params) = params {
                out.extend_from_slice(br#","params":"#);
                encode::write_raw_json(out, *params);
            }
            out.extend_from_slice(b"}");
        }
        out.extend_from_slice(b"}");
    }
    if let Some(state) = request_state {
        out.extend_from_slice(br#","requestState":"#);
        encode::write_json_string(out, state);
    }
    out.extend_from_slice(b"}}\n");
    Ok(())
}

/// A request's `inputResponses` and `requestState`, as a server reads them (MCP 2026-07-28):
/// the client's retry of a request the server answered with an `input_required` result
/// ([`write_input_required`]), carrying its answers, each under the key of the input request
/// it answers, and the server's state, as the server gave it. A request that carries neither
/// is a first request, not a retry ([`is_retry`](Self::is_retry) is `false`).
///
/// The schema's rules are checked when it is read: `inputResponses` is an object of results
/// (each an object: a `CreateMessageResult`, an `ElicitResult`, a `ListRootsResult`; read
/// member by member, what its members hold unread), each key once, and `requestState` a
/// string, each of the two members given once. A request that breaks them is refused with a
/// [`RetryReadError`], whose
/// [`write_reply`](RetryReadError::write_reply) is the -32602 answer. Whether the state is one
/// the server gave, and whether each answer fits the request asked under its key, is the
/// server's to judge.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, Retry};
/// use rpcwire::{Decoder, Message, RawJson};
///
/// // The first call: the server asks the client for a name.
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert!(!Retry::from_request(&req)?.is_retry());
/// let ask = RawJson::new(br#"{"message":"Your name?","requestedSchema":{"type":"object"}}"#).unwrap();
/// let mut out = BytesMut::new();
/// mcp::write_input_required(&mut out, req.id, &[("name", "elicitation/create", Some(ask))], Some("s-1")).unwrap();
///
/// // The client's retry, a request of its own, carries the answer and the state.
/// let frame = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":"s-1"}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let retry = Retry::from_request(&req)?;
/// assert!(retry.is_retry());
/// assert_eq!(retry.request_state.unwrap().decode(), "s-1");
/// let name = retry.response("name").and_then(|r| r.get_path(&["content", "name"]));
/// assert_eq!(name.and_then(|n| n.as_str()).unwrap().decode(), "Ada");
/// assert_eq!(retry.response("roots"), None);
///
/// // An answer given twice under one key gets the -32602 a server owes.
/// let frame = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","inputResponses":{"name":{},"name":{}},"requestState":"s-1"}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let refused = Retry::from_request(&req).unwrap_err();
/// out.clear();
/// refused.write_reply(&mut out, req.id);
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: inputResponses holds a key twice"}}
/// "#[..]
/// );
/// # Ok::<(), mcp::RetryReadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry<'a> {
    /// `inputResponses`: the client's answers, by the key of the input request each answers
    /// (an object; [`response`](Self::response) finds one, [`responses`](Self::responses)
    /// reads them all).
    pub input_responses: Option<RawJson<'a>>,
    /// `requestState`: the state the server gave in its `input_required` result, sent back
    /// as it was.
    pub request_state: Option<JsonStr<'a>>,
}

/// Why [`Retry::from_request`] read nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryReadError {
    /// The params are not an object, or cannot be read member by member (lazy validation
    /// lets through `{"a" 1}`), or hold `inputResponses` or `requestState` twice: peers may
    /// read either.
    Malformed,
    /// `inputResponses` is not an object of objects, or it or one of its answers cannot be
    /// read member by member (lazy validation lets through `{"action" "accept"}`).
    BadInputResponses,
    /// `inputResponses` holds a key twice: the server would read either answer.
    DuplicateKey,
    /// `requestState` is not a string.
    BadRequestState,
}

impl RetryReadError {
    /// Appends a server's answer to a retry whose `inputResponses` or `requestState` were
    /// refused: -32602 Invalid params, with this error as its message.
    pub fn write_reply<'i>(self, out: &mut BytesMut, id: impl Into<crate::ReplyId<'i>>) {
        // An error path: one small allocation for the message's text.
        let message = alloc::format!("Invalid params: {self}");
        encode::write_error(out, id, crate::ErrorCode::INVALID_PARAMS, &message, None);
    }
}

impl core::fmt::Display for RetryReadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Malformed => "params cannot be read member by member, once each",
            Self::BadInputResponses => "inputResponses must be an object of results",
            Self::DuplicateKey => "inputResponses holds a key twice",
            Self::BadRequestState => "requestState must be a string",
        })
    }
}

impl core::error::Error for RetryReadError {}

impl<'a> Retry<'a> {
    /// Reads the `inputResponses` and `requestState` of `r`'s params, checking the schema's
    /// rules (see [`Retry`]). An object without either (or no params) reads as a first
    /// request. Call this for the methods a server answers with `input_required`
    /// (`tools/call`, `prompts/get`, `resources/read`), whose params are an object.
    ///
    /// # Errors
    ///
    /// A [`RetryReadError`], whose [`write_reply`](RetryReadError::write_reply) is the
    /// -32602 a server owes, checked in this order:
    /// - [`Malformed`](RetryReadError::Malformed) when the params are not an object (a
    ///   JSON-RPC peer's array; MCP's decoders refuse one), not a first request; when they
    ///   cannot be read member by member; or when they hold `inputResponses` or
    ///   `requestState` twice;
    /// - [`BadRequestState`](RetryReadError::BadRequestState) when `requestState` is not a
    ///   string;
    /// - [`BadInputResponses`](RetryReadError::BadInputResponses) when `inputResponses` is
    ///   not an object, cannot be read to its end, or holds an answer that is not an object
    ///   or cannot be read member by member;
    /// - [`DuplicateKey`](RetryReadError::DuplicateKey) when `inputResponses` holds a key
    ///   twice.
    pub fn from_request(r: &crate::Request<'a>) -> Result<Self, RetryReadError> {
        let Some(params) = r.params else {
            return Ok(Retry {
                input_responses: None,
                request_state: None,
            });
        };
        if params.kind() != JsonKind::Object {
            return Err(RetryReadError::Malformed);
        }
        let [responses, state] = params.lookup_each([INPUT_RESPONSES, REQUEST_STATE]);
        let member = |found| optional(found).map_err(|_| RetryReadError::Malformed);
        let (responses, state) = (member(responses)?, member(state)?);
        let request_state = match state {
            Some(state) => Some(state.as_str().ok_or(RetryReadError::BadRequestState)?),
            None => None,
        };
        if let Some(responses) = responses {
            if responses.kind() != JsonKind::Object {
                return Err(RetryReadError::BadInputResponses);
            }
            let mut members = responses.members();
            if members.by_ref().any(|(_, answer)| !readable_object(answer))
                || members.stopped_early()
            {
                return Err(RetryReadError::BadInputResponses);
            }
            if any_twice(responses.members().map(|(key, _)| code_units(key))) {
                return Err(RetryReadError::DuplicateKey);
            }
        }
        Ok(Retry {
            input_responses: responses,
            request_state,
        })
    }

    /// Whether the request is a retry: it carries `inputResponses` or `requestState`.
    pub fn is_retry(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }

    /// The client's answer to the input request asked under `key`, if it gave one (keys
    /// compared as the strings their escapes spell, [`JsonStr::eq_str`]: `"n\u0061me"` is
    /// `"name"`, and a key holding a lone surrogate, `"\ud800"`, is no `&str`, not even
    /// `"\u{fffd}"`).
    pub fn response(&self, key: &str) -> Option<RawJson<'a>> {
        self.responses()
            .find(|(k, _)| k.eq_str(key))
            .map(|(_, answer)| answer)
    }

    /// Every answer, with the key it was given under, in the order the client wrote them
    /// (none when there is no `inputResponses`).
    pub fn responses(&self) -> Members<'a> {
        self.input_responses
            .unwrap_or(RawJson::EMPTY_OBJECT)
            .members()
    }
}
