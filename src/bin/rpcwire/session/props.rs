//! A property test of the session: random streams of messages in both directions, under
//! random settings, with ids, progress tokens and task ids drawn from small pools so that they
//! collide and are reused (and the ids the session minted, which the server's replies carry).
//! After every step the session's counters must agree with what its tables hold, and under a
//! timeout every client request and batch waiting must have its deadline; at its end every
//! request still waiting must be reported unanswered once; a success telling of invalid
//! `x-mcp-header` annotations (which the proxy reads only when the session asks) must be
//! flagged `invalid_tool_headers` once, and nothing else so; the reply to `initialize` whose
//! result breaks the schema, and a client's `initialize` whose params do (unless it has a
//! violation of its own, and never clean), `invalid_initialize` once, and nothing else so; a framing error or a charset
//! other than UTF-8 counts one message and one flag. (A debug build: an arithmetic
//! overflow panics, and fails the test as any panic does.)
//!
//! The messages are described as the proxy describes them ([`Described`]): a reply's task
//! and protocol version, and a request's version, are read only when the session asks for
//! them ([`Session::reads_task`], [`Session::is_initialize_reply`],
//! [`Session::reads_request_versions`]).

use std::collections::HashMap;

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use rpcwire::mcp::{methods, versions};

use super::*;

/// The ids of requests and replies: few, so that they collide; one a string longer than any
/// other (and than the ids the session mints). The last two only under JSON-RPC (an MCP id is
/// a string or an integer, never null): `1.0` keys as `1`.
const IDS: [&str; 6] = [
    "1",
    "2",
    "\"a\"",
    "\"a string id longer than any the session mints, and than the others here\"",
    "1.0",
    "null",
];

/// How many of [`IDS`] an MCP session draws from.
const MCP_IDS: usize = 4;

/// How many of the ids the session minted last a reply or a timeout may name beside the
/// pool's (the server answers a request by the id it was sent under).
const MINTED_NAMED: usize = 3;

/// The progress tokens requests ask progress on.
const TOKENS: [&str; 3] = ["\"p\"", "\"q\"", "7"];

/// The ids of the tasks replies and status notifications tell of.
const TASKS: [&str; 2] = ["\"t1\"", "\"t2\""];

/// The methods of requests: those the session treats apart, and one it does not.
const METHODS: [&str; 8] = [
    "ping",
    "tools/call",
    methods::TOOLS_LIST,
    methods::INITIALIZE,
    methods::TASKS_GET,
    methods::TASKS_RESULT,
    methods::TASKS_CANCEL,
    methods::SUBSCRIPTIONS_LISTEN,
];

/// What the proxy tells of a `tools/list` success with invalid `x-mcp-header` annotations
/// ([`invalid_tool_headers`]).
const BAD_TOOLS: &str = "tool \"t\": x-mcp-header: not a string";

/// The largest numeric id the session mints, plus one (`rewrite::MINTED_NUMBERS_FROM`).
const MINTED_NUMBERS_FROM: i64 = (1 << 53) - 1;

fn id(token: &'static str) -> Id<'static> {
    Id::from_token(token.as_bytes()).unwrap()
}

/// One message, or one element of a batch, as drawn (indices into the pools).
#[derive(Debug, Clone)]
enum Msg {
    Request {
        id: usize,
        method: usize,
        token: Option<usize>,
        /// `params.task` (2025-11-25's task-augmented request).
        task: bool,
        /// Whether an MCP `initialize`'s params break the schema (as the proxy reads every
        /// request's: [`ParamsFault::of_initialize`]).
        bad_params: bool,
    },
    Reply {
        /// `None`: a null id; past the pool, one of the ids minted last.
        id: Option<usize>,
        error: bool,
        /// The task the success tells of (read only when the session asks), and whether it
        /// ended.
        task: Option<(usize, bool)>,
        /// The `protocolVersion` of a success (read only for the reply to `initialize`).
        version: usize,
        /// Whether a success lists tools with invalid `x-mcp-header` annotations (read only
        /// when the session asks: [`Session::reads_tool_headers`]).
        bad_tools: bool,
        /// Whether a success's result breaks `InitializeResult` (read only for the reply to
        /// `initialize`: [`Session::is_initialize_reply`]).
        bad_result: bool,
    },
    Progress {
        token: usize,
        progress: Option<u8>,
    },
    /// A cancellation, of an id of the pool or (past it) of one the session minted last.
    Cancel {
        id: usize,
    },
    /// 2025-11-25's `notifications/tasks/status`, or the 2026-07-28 Tasks extension's
    /// `notifications/tasks` (`extension`).
    TaskStatus {
        task: usize,
        ended: bool,
        extension: bool,
    },
    /// A notification of a listen stream, naming the listen request's id (past the pool, one
    /// of the ids minted last: the server knows the request by it).
    StreamEvent {
        subscription: usize,
    },
    /// An invalid message, whose id could be read or not.
    Invalid {
        id: Option<usize>,
    },
}

/// One step of a session.
#[derive(Debug, Clone)]
enum Step {
    Alone(Dir, Msg),
    /// A batch: under JSON-RPC and MCP 2025-03-26; its elements sent alone otherwise.
    Batch(Dir, Vec<Msg>),
    /// Time passes by this many milliseconds, and what is due expires.
    Wait(u64),
    /// The replay of a log names a request timed out (by the id the server knows it by: past
    /// the pool, one of the ids minted last).
    TimeOut(usize),
    /// A merge of two streams meets a line whose id could not be read.
    OweNullReply(Dir),
    /// The replay of a log names an owed reply the proxy answered itself.
    ForgetOwedReply(Option<usize>),
    /// A merge of two streams meets a framing error ([`Session::observe_bad_framing`]).
    BadFraming(Dir),
    /// A merge of two streams meets a body in a charset other than UTF-8
    /// ([`Session::observe_unsupported_charset`]).
    UnsupportedCharset(Dir),
}

/// How a session is made: each setting a caller uses (the proxy, `check`, the replay of a
/// log of some proxy version).
#[derive(Debug, Clone)]
struct Setup {
    mcp: bool,
    /// 0: none negotiated; else the index in [`versions::KNOWN`] plus one.
    version: usize,
    /// With none negotiated, the version the client's requests name in their `_meta`, if
    /// any (the index in [`versions::KNOWN`]): a client trying a version before it knows.
    named: Option<usize>,
    timeout_ms: Option<u64>,
    max_in_flight: usize,
    max_bytes: usize,
    rewriting: usize,
    keeps_untracked: bool,
    keeps_untracked_server: bool,
    queues_server_elements: bool,
    refuses_second_initialize: bool,
    /// A merge of two streams (`check --c2s --s2c`).
    merge: bool,
}

fn dir() -> impl Strategy<Value = Dir> {
    prop_oneof![Just(Dir::C2s), Just(Dir::S2c)]
}

fn msg() -> impl Strategy<Value = Msg> {
    // (`tools/list` the more often: its success is read for `x-mcp-header` annotations.)
    let tools_list = METHODS
        .iter()
        .position(|&m| m == methods::TOOLS_LIST)
        .unwrap();
    let method = prop_oneof![3 => 0..METHODS.len(), 1 => Just(tools_list)];
    prop_oneof![
        4 => (
            0..IDS.len(),
            method,
            option::of(0..TOKENS.len()),
            any::<bool>(),
            prop::bool::weighted(0.3),
        )
            .prop_map(|(id, method, token, task, bad_params)| Msg::Request {
                id,
                method,
                token,
                task,
                bad_params,
            }),
        4 => (
            option::weighted(0.9, 0..IDS.len() + MINTED_NAMED),
            prop::bool::weighted(0.2),
            option::of((0..TASKS.len(), any::<bool>())),
            0..versions::KNOWN.len(),
            any::<bool>(),
            prop::bool::weighted(0.3),
        )
            .prop_map(|(id, error, task, version, bad_tools, bad_result)| Msg::Reply {
                id,
                error,
                task,
                version,
                bad_tools,
                bad_result,
            }),
        1 => (0..TOKENS.len(), option::of(0..4u8))
            .prop_map(|(token, progress)| Msg::Progress { token, progress }),
        // (A minted id the more often: a server cancels a listen stream by the id it knows.)
        2 => prop_oneof![0..IDS.len(), IDS.len()..IDS.len() + MINTED_NAMED]
            .prop_map(|id| Msg::Cancel { id }),
        1 => (0..TASKS.len(), any::<bool>(), any::<bool>())
            .prop_map(|(task, ended, extension)| Msg::TaskStatus { task, ended, extension }),
        1 => (0..IDS.len() + MINTED_NAMED).prop_map(|subscription| Msg::StreamEvent { subscription }),
        1 => option::of(0..IDS.len()).prop_map(|id| Msg::Invalid { id }),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        10 => (dir(), msg()).prop_map(|(dir, msg)| Step::Alone(dir, msg)),
        3 => (dir(), vec(msg(), 1..5)).prop_map(|(dir, msgs)| Step::Batch(dir, msgs)),
        1 => (0..40u64).prop_map(Step::Wait),
        1 => (0..IDS.len() + MINTED_NAMED).prop_map(Step::TimeOut),
        1 => dir().prop_map(Step::OweNullReply),
        1 => option::of(0..IDS.len()).prop_map(Step::ForgetOwedReply),
        1 => prop_oneof![
            dir().prop_map(Step::BadFraming),
            dir().prop_map(Step::UnsupportedCharset),
        ],
    ]
}

fn setup() -> impl Strategy<Value = Setup> {
    let tool_headers = 1
        + (versions::KNOWN.iter())
            .position(|&v| v == versions::V2026_07_28)
            .unwrap();
    (
        (
            any::<bool>(),
            // (2025-03-26 the more often: the one MCP version with batches; and 2026-07-28:
            // the first with `x-mcp-header` annotations.)
            prop_oneof![1 => Just(2), 1 => Just(tool_headers), 2 => 0..=versions::KNOWN.len()],
            option::of(1..30u64),
            prop_oneof![1..4usize, Just(MAX_IN_FLIGHT.get())],
            prop_oneof![3 => Just(MAX_IN_FLIGHT_BYTES), 1 => 10..80usize],
            option::of(0..versions::KNOWN.len()),
        ),
        (
            0..IdRewriting::LEVELS.len(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (mcp, version, timeout_ms, max_in_flight, max_bytes, named),
                (rewriting, keeps_untracked, keeps_untracked_server, queues, refuses, merge),
            )| Setup {
                mcp,
                version,
                named,
                timeout_ms,
                max_in_flight,
                max_bytes,
                rewriting,
                keeps_untracked,
                keeps_untracked_server,
                queues_server_elements: queues,
                refuses_second_initialize: refuses,
                merge,
            },
        )
}

/// A session under test, with what the stream has told it so far.
struct Run {
    session: Session,
    mcp: bool,
    /// A merge of two streams: the client batch a server's array of replies answers is
    /// found as `check --c2s --s2c` finds it ([`Session::batch_fitting`]).
    merge: bool,
    /// The version the client's requests name in their `_meta` (2026-07-28's).
    names: Option<&'static str>,
    now: u64,
    stopped: [u64; 2],
    /// The ids the session minted for the client's requests, as its verdicts told them.
    minted: Vec<IdBuf>,
}

impl Run {
    fn new(setup: &Setup) -> Run {
        let dialect = if setup.mcp {
            Dialect::Mcp
        } else {
            Dialect::JsonRpc2
        };
        let session = Session::with_budget(
            dialect,
            setup.timeout_ms,
            setup.max_in_flight,
            setup.max_bytes,
        )
        .rewriting(IdRewriting::LEVELS[setup.rewriting])
        .keeping_untracked_elements(setup.keeps_untracked)
        .keeping_untracked_server_elements(setup.keeps_untracked_server)
        .queuing_reused_server_elements(setup.queues_server_elements)
        .refusing_second_initialize(setup.refuses_second_initialize);
        let session = if setup.merge {
            session.telling_stops().without_arrival_order()
        } else {
            session
        };
        let version = setup
            .version
            .checked_sub(1)
            .map(|v| versions::KNOWN[v])
            .filter(|_| setup.mcp);
        let names = match version {
            Some(v) => Some(v).filter(|&v| v == versions::V2026_07_28),
            None => setup
                .named
                .map(|v| versions::KNOWN[v])
                .filter(|_| setup.mcp),
        };
        let mut run = Run {
            session,
            mcp: setup.mcp,
            merge: setup.merge,
            names,
            now: 0,
            stopped: [0, 0],
            minted: vec![],
        };
        // The version negotiated: by `initialize`, or (2026-07-28) by a request naming it.
        if let Some(version) = version {
            let first = if names.is_some() {
                "ping"
            } else {
                methods::INITIALIZE
            };
            let request = Msg::Request {
                id: 0,
                method: METHODS.iter().position(|&m| m == first).unwrap(),
                token: None,
                task: false,
                bad_params: false,
            };
            let reply = Msg::Reply {
                id: Some(0),
                error: false,
                task: None,
                version: versions::KNOWN.iter().position(|&v| v == version).unwrap(),
                bad_tools: false,
                bad_result: false,
            };
            run.step(&Step::Alone(Dir::C2s, request));
            run.step(&Step::Alone(Dir::S2c, reply));
        }
        run
    }

    /// The id at `n` in the pool this session draws from.
    fn id(&self, n: usize) -> Id<'static> {
        id(IDS[if self.mcp { n % MCP_IDS } else { n % IDS.len() }])
    }

    /// The id at `n` in the pool, or past it one of the ids minted last (`minted`: those the
    /// session minted), if any.
    fn id_or_minted<'a>(&self, n: usize, minted: &'a [IdBuf]) -> Id<'a> {
        match n.checked_sub(IDS.len()) {
            Some(back) if back < minted.len() => minted[minted.len() - 1 - back].as_id(),
            _ => self.id(n),
        }
    }

    /// Every id a request may wait by: the pool's, and those the session minted so far.
    fn candidate_ids(&self) -> Vec<IdBuf> {
        let pool = IDS[..if self.mcp { MCP_IDS } else { IDS.len() }]
            .iter()
            .map(|&t| id(t).to_owned_id());
        let minted = (1..=self.session.minted).flat_map(|n| {
            let number = MINTED_NUMBERS_FROM
                .checked_sub_unsigned(n)
                .filter(|&n| n >= 0)
                .map(IdBuf::from_i64);
            let token = format!("\"rpcwire-{n}\"");
            let string = Id::from_token(token.as_bytes()).unwrap().to_owned_id();
            number.into_iter().chain([string])
        });
        pool.chain(minted).collect()
    }

    /// `msg`, sent in `dir`, as the proxy describes it to the session now (`minted`: the ids
    /// the session minted so far).
    fn describe<'a>(&self, dir: Dir, msg: &Msg, minted: &'a [IdBuf]) -> Observation<'a> {
        let mcp = self.mcp;
        let notification = |method| Observation::of("notification", None, Some(method));
        match *msg {
            Msg::Request {
                id,
                method,
                token,
                task,
                bad_params,
            } => {
                let method = METHODS[method];
                let token = token.filter(|_| mcp).map(|t| self::id(TOKENS[t]));
                let names = self
                    .names
                    .filter(|_| dir == Dir::C2s && self.session.reads_request_versions());
                Observation {
                    progress_token: token,
                    // (`mcp::is_task_augmented`: never a task method.)
                    task_augmented: task
                        && token.is_some()
                        && TaskReply::of_task_request(method).is_none()
                        && method != methods::TASKS_LIST,
                    protocol_version: names,
                    params_fault: (mcp && bad_params && method == methods::INITIALIZE)
                        .then_some(ParamsFault::ClientInfo),
                    ..Observation::of("request", Some(self.id(id)), Some(method))
                }
            }
            Msg::Reply {
                id,
                error,
                task,
                version,
                bad_tools,
                bad_result,
            } => {
                let id = id.map_or(self::id("null"), |n| self.id_or_minted(n, minted));
                if error {
                    return Observation {
                        error_code: Some(-32603),
                        ..Observation::of("error_response", Some(id), None)
                    };
                }
                let initialize_reply = self.session.is_initialize_reply(dir, id);
                let version = initialize_reply.then_some(versions::KNOWN[version]);
                let task = self.session.reads_task(dir, Some(id)).zip(task).map(
                    |(reply, (task, ended))| {
                        (self::id(TASKS[task]), ended || reply == TaskReply::Result)
                    },
                );
                let invalid_tools = (bad_tools && self.session.reads_tool_headers(dir, Some(id)))
                    .then_some(BAD_TOOLS);
                Observation {
                    protocol_version: version,
                    task,
                    invalid_tools,
                    params_fault: (bad_result && initialize_reply)
                        .then_some(ParamsFault::ServerInfo),
                    ..Observation::of("success_response", Some(id), None)
                }
            }
            Msg::Progress { token, progress } => Observation {
                progress_token: Some(self::id(TOKENS[token])).filter(|_| mcp),
                progress: progress.map(f64::from).filter(|_| mcp),
                ..notification(methods::PROGRESS)
            },
            Msg::Cancel { id } => Observation {
                cancels: Some(self.id_or_minted(id, minted)),
                ..notification(methods::CANCELLED)
            },
            Msg::TaskStatus {
                task,
                ended,
                extension,
            } => {
                let method = if extension {
                    methods::TASKS_NOTIFICATION
                } else {
                    methods::TASKS_STATUS
                };
                Observation {
                    task: Some((self::id(TASKS[task]), ended)).filter(|_| mcp),
                    ..notification(method)
                }
            }
            Msg::StreamEvent { subscription } => Observation {
                subscription: Some(self.id_or_minted(subscription, minted)).filter(|_| mcp),
                ..notification(methods::RESOURCES_UPDATED)
            },
            Msg::Invalid { id } => Observation::of("invalid", id.map(|n| self.id(n)), None),
        }
    }

    /// Whether a batch may be sent now: JSON-RPC's, or MCP 2025-03-26's.
    fn batches_allowed(&self) -> bool {
        !self.mcp || self.session.protocol_version() == Some(versions::V2025_03_26)
    }

    fn step(&mut self, step: &Step) {
        match step {
            Step::Alone(dir, msg) => {
                let minted = self.minted.clone();
                let o = self.describe(*dir, msg, &minted);
                let before = self.flags(*dir);
                let verdict = self.session.observe(*dir, &o, self.now);
                self.assert_flagged(*dir, &o, &verdict, before, false);
                self.note_minted(&o, verdict);
            }
            Step::Batch(dir, msgs) if !self.batches_allowed() => {
                for msg in msgs {
                    self.step(&Step::Alone(*dir, msg.clone()));
                }
            }
            Step::Batch(dir, msgs) => {
                let dir = *dir;
                let minted = self.minted.clone();
                let kinds: Vec<_> = (msgs.iter())
                    .map(|m| self.describe(dir, m, &minted).kind)
                    .collect();
                let all_replies = kinds
                    .iter()
                    .all(|k| matches!(*k, "success_response" | "error_response"));
                let dropped = Session::drops_batch(dir, kinds.into_iter());
                // (A merge: the batch an array of replies answers, when one fits it.)
                let mut replies = ArrayReplies::default();
                let answers = (self.merge && dir == Dir::S2c && all_replies)
                    .then(|| {
                        for msg in msgs {
                            let o = self.describe(dir, msg, &minted);
                            replies.add(o.kind == "success_response", o.id);
                        }
                        FITS.into_iter()
                            .find_map(|fit| self.session.batch_fitting(&replies, fit))
                    })
                    .flatten();
                self.session
                    .observe(dir, &Observation::of("batch", None, None), self.now);
                if dropped {
                    self.session.drop_batch(dir);
                }
                if let Some(batch) = answers {
                    self.session.answer_array_for(batch, &replies);
                }
                for msg in msgs {
                    let minted = self.minted.clone();
                    let o = self.describe(dir, msg, &minted);
                    let before = self.flags(dir);
                    let verdict = self.session.observe_element(dir, &o, self.now);
                    self.assert_flagged(dir, &o, &verdict, before, dropped);
                    self.note_minted(&o, verdict);
                }
                self.session.batch_forwards(dir);
                if dropped {
                    self.session.take_answered_in_place();
                }
            }
            Step::Wait(ms) => {
                self.now += ms;
                self.session.expire(self.now);
                self.session.next_deadline();
            }
            Step::TimeOut(n) => {
                let minted = self.minted.clone();
                self.session.time_out(self.id_or_minted(*n, &minted));
            }
            Step::OweNullReply(dir) => self.session.owe_line_reply(*dir, None),
            Step::ForgetOwedReply(n) => {
                let id = n.map(|n| self.id(n));
                self.session.forget_owed_reply(id);
            }
            Step::BadFraming(dir) => self.observe_framing_error(
                *dir,
                Violation::BadFraming,
                Session::observe_bad_framing,
            ),
            Step::UnsupportedCharset(dir) => self.observe_framing_error(
                *dir,
                Violation::UnsupportedCharset,
                Session::observe_unsupported_charset,
            ),
        }
        for dir in [Dir::C2s, Dir::S2c] {
            let stopped = self.session.stopped_waiting(dir);
            assert!(
                stopped >= self.stopped[slot(dir)],
                "stopped_waiting went down"
            );
            self.stopped[slot(dir)] = stopped;
        }
        self.session.assert_consistent(&self.candidate_ids());
    }

    /// How many times the session flagged `v` in `dir`.
    fn flagged(&self, dir: Dir, v: Violation) -> u64 {
        let count = self.session.counters.violations.get(&(dir, v));
        count.copied().unwrap_or(0)
    }

    /// How many messages of `kind` the session counted in `dir`.
    fn counted(&self, dir: Dir, kind: &str) -> u64 {
        let count = self.session.counters.messages.get(&(dir, kind_name(kind)));
        count.copied().unwrap_or(0)
    }

    /// The counts of `invalid_tool_headers` and `invalid_initialize` flagged in `dir`.
    fn flags(&self, dir: Dir) -> [u64; 2] {
        [
            self.flagged(dir, Violation::InvalidToolHeaders),
            self.flagged(dir, Violation::InvalidInitialize),
        ]
    }

    /// Panics unless the message `o` just observed in `dir` (its `verdict`; `before`: the
    /// counts of [`Run::flags`] before it) flagged `invalid_tool_headers` once if it told of
    /// invalid tools (which the proxy reads only when the session asks), and not otherwise;
    /// and `invalid_initialize` once for the reply to `initialize` whose result breaks the
    /// schema, and for a client's MCP `initialize` whose params do, unless the request has a
    /// violation of its own (a reused id, say: one verdict, one violation), never clean;
    /// never otherwise, nor for an element of a batch the session `dropped` (a server's
    /// holding an invalid element: none of its elements has any effect, the reply to
    /// `initialize` included, which never reaches the client).
    fn assert_flagged(
        &self,
        dir: Dir,
        o: &Observation<'_>,
        verdict: &Verdict,
        before: [u64; 2],
        dropped: bool,
    ) {
        let [tools, handshake] = self.flags(dir);
        assert_eq!(
            tools - before[0],
            u64::from(o.invalid_tools.is_some()),
            "invalid_tool_headers flagged for {:?} {:?}",
            o.kind,
            o.id
        );
        let flagged = handshake - before[1];
        let bad_initialize = self.mcp
            && dir == Dir::C2s
            && o.kind == "request"
            && o.method == Some(methods::INITIALIZE)
            && o.params_fault.is_some();
        let expected = match o.kind {
            "success_response" => o.params_fault.is_some() && !dropped,
            _ if bad_initialize => {
                assert!(
                    verdict.violation.is_some(),
                    "an initialize breaking its schema is clean: {o:?}"
                );
                verdict.violation == Some(Violation::InvalidInitialize)
            }
            _ => false,
        };
        assert_eq!(
            flagged,
            u64::from(expected),
            "invalid_initialize flagged for {:?} {:?} {:?}",
            o.kind,
            o.id,
            verdict.violation
        );
    }

    /// A framing error of the kind `v` met in `dir` (`observe`: the session's call for it):
    /// counted as one message and flagged once, and nothing else changes hands.
    fn observe_framing_error(
        &mut self,
        dir: Dir,
        v: Violation,
        observe: fn(&mut Session, Dir) -> Violation,
    ) {
        let (flags, messages) = (self.flagged(dir, v), self.counted(dir, "framing_error"));
        assert_eq!(observe(&mut self.session, dir), v);
        assert_eq!(self.flagged(dir, v), flags + 1, "{v:?} flagged");
        let counted = self.counted(dir, "framing_error");
        assert_eq!(counted, messages + 1, "framing errors counted");
    }

    /// Notes the id the session minted for the request `o`, if it did.
    fn note_minted(&mut self, o: &Observation<'_>, verdict: Verdict) {
        if let ("request", Some(minted)) = (o.kind, verdict.forward_id) {
            self.minted.push(minted);
        }
    }

    /// The session ends: every request still waiting (in the table, in line behind one of
    /// its id, or a batch element kept) is reported unanswered, once, but an open listen
    /// stream; and nothing is left waiting.
    fn finish(&mut self) {
        let session = &self.session;
        let mut expected: HashMap<(Dir, IdKey), usize> = HashMap::new();
        let mut total = 0;
        for dir in [Dir::C2s, Dir::S2c] {
            let waiting = session.waiting_requests(dir, &self.candidate_ids());
            let in_line = session.queued[slot(dir)].requests();
            let kept = session.kept(dir).elements();
            let all = waiting
                .iter()
                .map(|(key, w)| (key, *w))
                .chain(in_line)
                .chain(kept);
            for (key, w) in all {
                if !(dir == Dir::C2s && session.is_stream(&w.method)) {
                    *expected.entry((dir, key.clone())).or_default() += 1;
                    total += 1;
                }
            }
        }
        let flagged = |session: &Session| {
            [Dir::C2s, Dir::S2c].map(|dir| {
                let count = session
                    .counters
                    .violations
                    .get(&(dir, Violation::Unanswered));
                count.copied().unwrap_or(0)
            })
        };
        let before = flagged(&self.session);
        let reported = self.session.finish();
        let after = flagged(&self.session);
        let mut told: HashMap<(Dir, IdKey), usize> = HashMap::new();
        for u in &reported {
            let upstream = u.upstream_id.as_ref().unwrap_or(&u.id);
            *told
                .entry((u.dir, IdKey::of(upstream.as_id())))
                .or_default() += 1;
        }
        assert_eq!(reported.len(), total, "requests reported unanswered");
        assert_eq!(told, expected, "requests reported unanswered, by id");
        for dir in [Dir::C2s, Dir::S2c] {
            let flagged = after[slot(dir)] - before[slot(dir)];
            let reported = reported.iter().filter(|u| u.dir == dir).count();
            assert_eq!(flagged, reported as u64, "unanswered flagged {dir:?}");
        }
        for dir in [Dir::C2s, Dir::S2c] {
            assert!(self.session.waiting[slot(dir)].is_empty());
            assert_eq!(self.session.queued[slot(dir)].len(), 0);
            assert!(self.session.kept(dir).is_empty());
        }
        assert!(self.session.finish().is_empty(), "reported twice");
    }
}

impl Session {
    /// The requests waiting in the table of `dir`, found by the ids in `candidates` (which
    /// must hold every one: checked), each once, by key.
    fn waiting_requests(&self, dir: Dir, candidates: &[IdBuf]) -> Vec<(IdKey, &Waiting)> {
        let table = &self.waiting[slot(dir)];
        let mut found: HashMap<IdKey, &Waiting> = HashMap::new();
        for id in candidates {
            if let Some(w) = table.get(id.as_id()) {
                found.insert(IdKey::of(id.as_id()), w);
            }
        }
        assert_eq!(
            found.len(),
            table.len(),
            "the candidate ids find every request"
        );
        found.into_iter().collect()
    }

    /// Panics unless every count the session keeps of its requests, tokens, tasks and
    /// batches agrees with what its tables hold.
    fn assert_consistent(&self, candidates: &[IdBuf]) {
        let mut tools_lists = 0;
        for dir in [Dir::C2s, Dir::S2c] {
            let i = slot(dir);
            let waiting = self.waiting_requests(dir, candidates);
            self.queued[i].assert_consistent();
            self.kept(dir).assert_consistent();
            self.task_tokens[i].assert_consistent();
            self.owed_element_replies[i].assert_consistent();

            // Each task request waiting is counted, and only those.
            let tasks = waiting.iter().filter(|(_, w)| w.task_augmented).count();
            assert_eq!(
                self.task_requests_waiting[i], tasks,
                "task requests {dir:?}"
            );
            for (_, w) in &waiting {
                // (Only a request asking progress is a task request.)
                assert!(!w.task_augmented || w.progress_token.is_some());
            }
            tools_lists += waiting.iter().filter(|(_, w)| w.lists_tools).count();

            // Each active token is carried by as many requests waiting and tasks as it
            // counts; none by no one.
            let mut users: HashMap<IdKey, u32> = HashMap::new();
            let carried = waiting.iter().filter_map(|(_, w)| w.progress_token());
            for token in carried.chain(self.task_tokens[i].tokens()) {
                *users.entry(token.clone()).or_default() += 1;
            }
            let counted: HashMap<IdKey, u32> = self.progress_tokens[i]
                .iter()
                .map(|(token, active)| (token.clone(), active.users))
                .collect();
            assert_eq!(counted, users, "users of the progress tokens {dir:?}");

            // Requests in line carry no token and are neither task requests nor `tools/list`
            // (nothing counts them, and each enters the table as it is when its turn comes);
            // elements kept carry no token (nor does anything read their other marks).
            for (_, w) in self.queued[i].requests() {
                assert!(w.progress_token.is_none() && !w.task_augmented && !w.lists_tools);
            }
            for (_, w) in self.kept(dir).elements() {
                assert!(
                    w.progress_token.is_none(),
                    "an element kept carries a token"
                );
            }

            // A line waits behind an id the table holds.
            for (key, _) in self.queued[i].requests() {
                assert!(
                    waiting.iter().any(|(k, _)| k == key),
                    "a line behind an id not waiting {dir:?}"
                );
            }

            // The client's ids minted over, counted by the requests waiting under them.
            if dir == Dir::C2s {
                let mut rewritten: HashMap<IdKey, u32> = HashMap::new();
                for (_, w) in &waiting {
                    if let Some(client_id) = &w.client_id {
                        *rewritten.entry(IdKey::of(client_id.as_id())).or_default() += 1;
                    }
                }
                assert_eq!(
                    self.rewritten_client_ids, rewritten,
                    "client ids minted over"
                );
            }
        }
        assert_eq!(self.tools_lists_waiting, tools_lists, "tools/list waiting");

        // Each client batch's record holds its requests waiting, each under the id it waits
        // by, and counts its elements kept; a record with nothing left is gone.
        let open = self.open_batch.iter().map(|(no, _, wait)| (*no, wait));
        let records: Vec<(u64, &BatchWait)> = open
            .chain(self.batches.iter().map(|(no, wait)| (*no, wait)))
            .collect();
        for &(no, wait) in &records {
            for (seq, id) in &wait.requests {
                let w = self.waiting[slot(Dir::C2s)].get(id.as_id());
                assert!(
                    w.is_some_and(|w| w.seq == *seq && w.batch == no),
                    "batch {no} holds request {seq} not waiting"
                );
            }
            let kept = self.untracked_elements.keys_of_batch(no).len();
            assert_eq!(wait.untracked_left, kept, "elements kept of batch {no}");
        }
        // Each reply owed to an invalid element of a client batch is in its batch's record,
        // with the id it carries, and the record holds no other.
        let owed = self.owed_element_replies[slot(Dir::C2s)].entries();
        for &(no, wait) in &records {
            let mut with_id: Vec<(u64, IdKey)> = owed
                .iter()
                .filter(|(key, batch, _)| key.is_some() && *batch == no)
                .map(|(key, _, place)| (*place, (*key).unwrap().clone()))
                .collect();
            with_id.sort_by_key(|(place, _)| *place);
            let recorded: Vec<(u64, IdKey)> = (wait.owed.iter())
                .map(|(place, id)| (*place, IdKey::of(id.as_id())))
                .collect();
            assert_eq!(recorded, with_id, "replies owed with an id to batch {no}");
            let without_id = owed
                .iter()
                .filter(|(key, batch, _)| key.is_none() && *batch == no)
                .count();
            assert_eq!(
                wait.owed_without_id, without_id,
                "replies owed to batch {no}"
            );
        }
        for (_, batch, _) in &owed {
            assert!(
                *batch == 0 || records.iter().any(|(no, _)| no == batch),
                "a reply owed to batch {batch}, not recorded"
            );
        }
        for (no, wait) in &self.batches {
            let answered = wait.requests.is_empty()
                && wait.owed.is_empty()
                && wait.owed_without_id == 0
                && wait.untracked_left == 0;
            assert!(!answered, "batch {no} answered, still recorded");
        }
        // Under a timeout, each client request waiting (in the table or in line) has its
        // deadline, by its number, but one sent in a batch, whose batch's deadline answers
        // it, and one that may wait by design (a listen stream, `tasks/result`: left out
        // whatever the version); and each client batch recorded has its own.
        if self.timeout_ms.is_some() {
            let request_deadline = |key: &IdKey, seq: u64| {
                self.deadlines.iter().any(|Reverse(d)| {
                    d.seq == seq
                        && matches!(&d.of, DeadlineOf::Request(id) if IdKey::of(id.as_id()) == *key)
                })
            };
            let waiting = self.waiting_requests(Dir::C2s, candidates);
            let in_line = self.queued[slot(Dir::C2s)].requests();
            let requests = waiting.iter().map(|(key, w)| (key, *w)).chain(in_line);
            for (key, w) in requests {
                let by_design = [methods::SUBSCRIPTIONS_LISTEN, methods::TASKS_RESULT];
                if w.batch == 0 && !by_design.contains(&&*w.method) {
                    assert!(
                        request_deadline(key, w.seq),
                        "request {} has no deadline",
                        w.seq
                    );
                }
            }
            for no in self.batches.keys() {
                let has = (self.deadlines.iter())
                    .any(|Reverse(d)| matches!(d.of, DeadlineOf::Batch(n) if n == *no));
                assert!(has, "batch {no} has no deadline");
            }
        }
        for (key, w) in self.waiting_requests(Dir::C2s, candidates) {
            if w.batch != 0 {
                let record = records.iter().find(|(no, _)| *no == w.batch);
                let held = record.and_then(|(_, wait)| wait.requests.get(&w.seq));
                assert!(
                    held.is_some_and(|id| IdKey::of(id.as_id()) == key),
                    "request {} of batch {} not in its record",
                    w.seq,
                    w.batch
                );
            }
        }
    }
}

// The library's own helper, which this crate cannot reach (it is test code).
#[path = "../../../proptest_cases.rs"]
mod proptest_cases;

proptest! {
    #![proptest_config(proptest_cases::cases(512))]

    /// Random sessions: every step keeps the session's counts in agreement with its tables
    /// (and panics nowhere: no overflow), and the end reports every request still waiting
    /// unanswered, once.
    #[test]
    fn random_sessions_keep_their_counts_and_report_every_request_left(
        setup in setup(),
        steps in vec(step(), 0..60),
    ) {
        let mut run = Run::new(&setup);
        for step in &steps {
            run.step(step);
        }
        run.finish();
    }
}
