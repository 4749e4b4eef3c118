//! The body of the `mcp_readers` fuzz target: the readers of `rpcwire::mcp`, which take
//! hostile input from the wire, on every message the MCP decoder gives for one frame.
//!
//! `data[0]` picks the role, the validation, the list of versions a server supports and the
//! protocol version the decoder follows; the rest is one frame. Each message (or each element
//! of a batch) goes through every reader that applies, and the answers are checked against
//! what the readers document: every borrowed value lies inside the frame; `RequestMeta::check`
//! answers only a supported version of 2026-07-28 or later, or an error whose reply a client
//! reads as that error; `may_log` is `requested_log_level` compared; `is_removed` is false
//! before 2026-07-28; the version functions answer from their lists; and where serde_json
//! accepts the frame, what a reader reads is the member serde_json reads (the same bytes, a
//! string decoded the same).
//!
//! A module of its own beside the other bodies in `mod.rs`. It panics (with an assertion
//! message) on a finding and never otherwise.

use bytes::BytesMut;
use rpcwire::mcp::{
    self, CacheHint, Cancelled, DiscoverResult, Initialize, InitializeResult, InputRequired,
    LogLevel, MetaKey, Progress, RequestMeta, ResultType, Retry, Task, meta_keys, methods,
    versions,
};
use rpcwire::scan::Validation;
use rpcwire::{
    DecodeOptions, Decoder, Dialect, ErrorCode, Id, JsonKind, JsonStr, Message, RawJson, Request,
    Role,
};
use serde_json::value::RawValue;

use super::reference::{self, Members, Unescaped};

/// Lists of the versions a server supports: every known one, 2026-07-28 alone, none, ones
/// only before it, and ones that are no published revision but sort after it.
const SUPPORTED: [&[&str]; 8] = [
    versions::KNOWN,
    &[versions::V2026_07_28],
    &[
        versions::V2025_06_18,
        versions::V2025_11_25,
        versions::V2026_07_28,
    ],
    &[versions::V2024_11_05],
    &[],
    &["2027-01-01", versions::V2026_07_28, "DRAFT-2026-v1"],
    &[versions::V2025_11_25],
    &["2026-07-28x", versions::V2026_07_28, versions::V2025_03_26],
];

/// The protocol version the decoder follows (`None`: the decoder's defaults).
const DECODER_VERSIONS: [Option<&str>; 8] = [
    None,
    Some(versions::V2024_11_05),
    Some(versions::V2025_03_26),
    Some(versions::V2025_06_18),
    Some(versions::V2025_11_25),
    Some(versions::V2026_07_28),
    None,
    Some("2027-01-01"),
];

/// Versions `is_removed` and the version functions are asked about, beside those the frame
/// names.
const VERSIONS: [&str; 10] = [
    versions::V2024_11_05,
    versions::V2025_03_26,
    versions::V2025_06_18,
    versions::V2025_11_25,
    versions::V2026_07_28,
    "2026-07-27",
    "2026-07-28x",
    "2027-01-01",
    "DRAFT-2026-v1",
    "",
];

/// The task methods, whose requests are never task-augmented.
const TASK_METHODS: [&str; 5] = [
    methods::TASKS_GET,
    methods::TASKS_RESULT,
    methods::TASKS_CANCEL,
    methods::TASKS_LIST,
    methods::TASKS_UPDATE,
];

/// One frame through the MCP decoder `data[0]` configures; every message it gives through
/// every reader that applies.
pub fn mcp_readers(data: &[u8]) {
    let [config, frame @ ..] = data else {
        return;
    };
    let mut opts = DecodeOptions::new(Dialect::Mcp);
    opts.role = if config & 1 == 0 {
        Role::Server
    } else {
        Role::Client
    };
    if config & 2 != 0 {
        opts.validation = Validation::Strict;
    }
    let supported = SUPPORTED[usize::from(config >> 2 & 7)];
    if let Some(version) = DECODER_VERSIONS[usize::from(config >> 5)] {
        opts = opts.for_protocol_version(version);
    }
    let decoder = Decoder::new(opts);
    let frame_ref: Option<&RawValue> = serde_json::from_slice(frame).ok();
    let Ok(msg) = decoder.decode(frame) else {
        return;
    };
    let f = Frame { frame, supported };
    if let Message::Batch(batch) = &msg {
        // Each element with serde_json's reading of it, when serde_json reads the array.
        let elements: Option<Vec<&RawValue>> = serde_json::from_slice(frame).ok();
        for (i, element) in batch.decode(&decoder).enumerate() {
            if let Ok(element) = element {
                let reference = elements.as_ref().and_then(|e| e.get(i).copied());
                f.message(&element, reference);
            }
        }
    } else {
        f.message(&msg, frame_ref);
    }
}

/// The frame and the server's versions, for the checks.
struct Frame<'a> {
    frame: &'a [u8],
    supported: &'a [&'a str],
}

impl<'a> Frame<'a> {
    /// Asserts that `part` is borrowed from the frame.
    fn inside(&self, part: &[u8], what: &str) {
        let start = self.frame.as_ptr() as usize;
        let at = part.as_ptr() as usize;
        assert!(
            at >= start && at + part.len() <= start + self.frame.len(),
            "{what} {:?} lies outside the frame",
            String::from_utf8_lossy(part)
        );
    }

    fn inside_str(&self, s: Option<JsonStr<'_>>, what: &str) {
        if let Some(s) = s {
            self.inside(s.raw(), what);
            check_log_level_text(s);
        }
    }

    fn inside_json(&self, v: Option<RawJson<'_>>, what: &str) {
        if let Some(v) = v {
            self.inside(v.as_bytes(), what);
        }
    }

    fn inside_id(&self, id: Option<Id<'_>>, what: &str) {
        if let Some(id) = id {
            self.inside(id.raw(), what);
        }
    }

    /// Every reader that applies to `msg`; `reference` is serde_json's reading of its object,
    /// when serde_json reads the frame.
    fn message(&self, msg: &Message<'_>, reference: Option<&RawValue>) {
        let meta = RequestMeta::from_message(msg);
        self.request_meta(&meta, msg.params(), reference);
        assert_eq!(
            mcp::progress_token(msg),
            match msg {
                Message::Request(r) => mcp::requested_progress_token(r),
                Message::Notification(n) => mcp::reported_progress_token(n),
                _ => None,
            },
            "progress_token reads another member than its request's or notification's reader"
        );
        match msg {
            Message::Request(r) => {
                assert_eq!(RequestMeta::from_request(r), meta, "from_request");
                self.request(r, &meta, reference);
            }
            Message::Notification(n) => {
                self.method(n.method);
                let params = reference.and_then(|r| member(r, &["params"]));
                if let Some(c) = Cancelled::from_notification(n) {
                    assert!(n.method.eq_str(methods::CANCELLED), "Cancelled of {n:?}");
                    self.inside(c.request_id.raw(), "Cancelled::request_id");
                    self.inside_str(c.reason, "Cancelled::reason");
                    if let Some(params) = params {
                        same(
                            member(params, &["requestId"]),
                            c.request_id.raw(),
                            "requestId",
                        );
                        same_str(member(params, &["reason"]), c.reason, "reason");
                    }
                }
                if let Some(p) = Progress::from_notification(n) {
                    assert!(n.method.eq_str(methods::PROGRESS), "Progress of {n:?}");
                    self.inside(p.token.raw(), "Progress::token");
                    self.inside_str(p.message, "Progress::message");
                    if let Some(params) = params {
                        same(member(params, &["progressToken"]), p.token.raw(), "token");
                        if p.message.is_some() {
                            same_str(member(params, &["message"]), p.message, "message");
                        }
                    }
                }
                if let Some(t) = Task::from_notification(n) {
                    self.inside(t.id.raw(), "Task::id");
                    self.inside_str(t.status, "Task::status");
                    let terminal = t.status.is_some_and(|s| {
                        matches!(&*s.decode(), "completed" | "failed" | "cancelled")
                            && !s.has_lone_surrogate()
                    });
                    assert_eq!(t.is_terminal(), terminal, "is_terminal of {t:?}");
                    if let Some(params) = params {
                        same(member(params, &["taskId"]), t.id.raw(), "taskId");
                    }
                }
                let sub = mcp::subscription_id(n);
                self.inside_id(sub, "subscription_id");
                if let (Some(sub), Some(params)) = (sub, params) {
                    let path = ["_meta", meta_keys::SUBSCRIPTION_ID];
                    same(member(params, &path), sub.raw(), "subscriptionId");
                }
                if let Some(level) = mcp::log_message_level(n) {
                    assert!(n.method.eq_str(methods::MESSAGE), "log level of {n:?}");
                    let found = params.and_then(|p| member(p, &["level"]));
                    if let Some(found) = found {
                        assert_eq!(
                            decoded(found),
                            level.as_str(),
                            "level, against serde_json's"
                        );
                    }
                }
                self.inside_id(mcp::reported_progress_token(n), "reported_progress_token");
                if let Some(params) = n.params {
                    self.inside_id(mcp::related_task(params), "related_task");
                    self.meta_keys(params);
                }
            }
            Message::Response(res) => {
                let result = reference.and_then(|r| member(r, &["result"]));
                self.result(res.result, result);
            }
            Message::ErrorResponse(e) => {
                if let Some(data) = e.error.data {
                    self.inside_id(mcp::related_task(data), "related_task");
                }
            }
            Message::Batch(_) => {}
        }
    }

    /// `RequestMeta` (of any message): inside the frame, the members serde_json reads.
    fn request_meta(
        &self,
        meta: &RequestMeta<'_>,
        params: Option<RawJson<'_>>,
        reference: Option<&RawValue>,
    ) {
        self.inside_str(meta.protocol_version, "protocol_version");
        self.inside_json(meta.client_capabilities, "client_capabilities");
        self.inside_json(meta.client_info, "client_info");
        for object in [meta.client_capabilities, meta.client_info]
            .into_iter()
            .flatten()
        {
            assert_eq!(object.kind(), JsonKind::Object, "{object:?} is no object");
        }
        if params.is_none() {
            assert_eq!(*meta, RequestMeta::default(), "_meta read without params");
            return;
        }
        let Some(params) = reference.and_then(|r| member(r, &["params"])) else {
            return;
        };
        let version = member(params, &["_meta", meta_keys::PROTOCOL_VERSION]);
        let version = version.filter(|v| v.get().starts_with('"'));
        assert_eq!(
            meta.protocol_version.map(|v| v.decode().into_owned()),
            version.map(decoded),
            "the protocol version, against serde_json's"
        );
        for (read, key) in [
            (meta.client_capabilities, meta_keys::CLIENT_CAPABILITIES),
            (meta.client_info, meta_keys::CLIENT_INFO),
        ] {
            let found = member(params, &["_meta", key]).filter(|v| v.get().starts_with('{'));
            assert_eq!(
                read.map(|v| v.as_bytes().as_ptr()),
                found.map(|v| v.get().as_ptr()),
                "{key}, against serde_json's"
            );
        }
    }

    /// The method readers on any request's or notification's method.
    fn method(&self, method: JsonStr<'_>) {
        self.inside(method.raw(), "method");
        check_log_level_text(method);
        let text = method.decode();
        let text = (!method.has_lone_surrogate()).then_some(&*text);
        assert_eq!(
            methods::may_require_input(method),
            text.is_some_and(|t| methods::MAY_REQUIRE_INPUT.contains(&t)),
            "may_require_input({method:?})"
        );
        for version in VERSIONS {
            let removed = methods::is_removed(method, version);
            if version < versions::V2026_07_28 {
                assert!(!removed, "{method:?} removed in {version}");
            } else {
                assert_eq!(
                    removed,
                    text.is_some_and(|t| methods::REMOVED_IN_2026_07_28.contains(&t)),
                    "is_removed({method:?}, {version})"
                );
            }
        }
    }

    fn request(&self, r: &Request<'_>, meta: &RequestMeta<'_>, reference: Option<&RawValue>) {
        self.method(r.method);
        let params = reference.and_then(|r| member(r, &["params"]));
        if let Some(version) = meta.protocol_version {
            self.versions(&version.decode());
        }

        // The server's check of the request's `_meta`.
        match meta.check(self.supported) {
            Ok(version) => {
                assert!(
                    self.supported.contains(&version),
                    "check answers {version}, not supported"
                );
                assert!(
                    versions::is_at_least(version, versions::V2026_07_28),
                    "check answers {version}, before 2026-07-28"
                );
                let requested = meta.protocol_version.expect("a version checked");
                assert!(
                    requested.eq_str(version),
                    "{requested:?} checked as {version}"
                );
                assert!(
                    meta.client_capabilities.is_some(),
                    "checked without capabilities"
                );
            }
            Err(e) => {
                match e {
                    mcp::RequestMetaError::MissingProtocolVersion => {
                        assert!(meta.protocol_version.is_none(), "{e:?} of {meta:?}")
                    }
                    mcp::RequestMetaError::UnsupportedVersion { requested } => {
                        assert_eq!(Some(requested), meta.protocol_version, "{e:?}");
                        let served = self.supported.iter().any(|v| {
                            requested.eq_str(v) && versions::is_at_least(v, versions::V2026_07_28)
                        });
                        assert!(!served, "{e:?} of a version served, {:?}", self.supported);
                    }
                    mcp::RequestMetaError::MissingClientCapabilities => {
                        assert!(meta.client_capabilities.is_none(), "{e:?} of {meta:?}")
                    }
                    _ => {}
                }
                let mut out = BytesMut::new();
                e.write_reply(&mut out, r.id, self.supported);
                assert_error_reply(&out, r.id, e.code());
            }
        }

        // The log level the request names.
        let level = mcp::requested_log_level(r);
        for l in LogLevel::ALL {
            assert_eq!(
                mcp::may_log(r, l),
                level.is_some_and(|min| l >= min),
                "may_log({l}) with {level:?}"
            );
        }
        if let Some(params) = params {
            let named = member(params, &["_meta", meta_keys::LOG_LEVEL])
                .filter(|v| v.get().starts_with('"'))
                .and_then(|v| decoded(v).parse::<LogLevel>().ok());
            assert_eq!(level, named, "requested_log_level, against serde_json's");
        }

        // The progress token asked for, and whether a task is.
        let token = mcp::requested_progress_token(r);
        self.inside_id(token, "requested_progress_token");
        if let Some(params) = params {
            let found = member(params, &["_meta", meta_keys::PROGRESS_TOKEN])
                .filter(|v| is_string_or_integer(v.get()));
            assert_eq!(
                token.map(|t| t.raw().as_ptr()),
                found.map(|v| v.get().as_ptr()),
                "requested_progress_token, against serde_json's"
            );
            if params.get().starts_with('{') {
                let tasks = members_named(params, "task");
                let asks = match tasks.as_slice() {
                    [] => false,
                    [one] => one.get().starts_with('{'),
                    _ => true,
                };
                let task_method = TASK_METHODS.iter().any(|m| r.method.eq_str(m));
                assert_eq!(
                    mcp::is_task_augmented(r),
                    asks && !task_method,
                    "is_task_augmented"
                );
            }
        }

        // The handshake.
        match Initialize::from_request(r) {
            Ok(init) => {
                assert!(r.method.eq_str(methods::INITIALIZE), "Initialize of {r:?}");
                self.inside(init.protocol_version.raw(), "Initialize::protocol_version");
                self.inside(init.capabilities.as_bytes(), "Initialize::capabilities");
                self.inside(init.client_info.as_bytes(), "Initialize::client_info");
                assert_eq!(init.capabilities.kind(), JsonKind::Object);
                assert_eq!(init.client_info.kind(), JsonKind::Object);
                let version = init.protocol_version.decode();
                self.versions(&version);
                if let Some(params) = params {
                    let found = member(params, &["protocolVersion"]);
                    same_str(found, Some(init.protocol_version), "protocolVersion");
                }
            }
            Err(e) => {
                if e == mcp::HandshakeError::NotInitialize {
                    assert!(!r.method.eq_str(methods::INITIALIZE), "{r:?}: {e}");
                }
                let mut out = BytesMut::new();
                e.write_reply(&mut out, r.id);
                assert_error_reply(&out, r.id, ErrorCode::INVALID_PARAMS);
            }
        }

        // A retry of an `input_required` round.
        match Retry::from_request(r) {
            Ok(retry) => {
                self.inside_json(retry.input_responses, "Retry::input_responses");
                self.inside_str(retry.request_state, "Retry::request_state");
                assert_eq!(
                    retry.is_retry(),
                    retry.input_responses.is_some() || retry.request_state.is_some()
                );
                let mut keys = Vec::new();
                for (key, answer) in retry.responses() {
                    self.inside(key.raw(), "Retry response key");
                    self.inside(answer.as_bytes(), "Retry response");
                    assert_eq!(answer.kind(), JsonKind::Object, "an answer {answer:?}");
                    let text = key.decode();
                    if !key.has_lone_surrogate() {
                        let first = retry.response(&text).map(|a| a.as_bytes().as_ptr());
                        assert_eq!(
                            first,
                            Some(answer.as_bytes().as_ptr()),
                            "response({text:?})"
                        );
                        assert!(!keys.contains(&text), "{text:?} twice in a retry");
                    }
                    keys.push(text);
                }
                if let Some(params) = params {
                    let found = member(params, &["requestState"]);
                    same_str(found, retry.request_state, "requestState");
                    let responses = member(params, &["inputResponses"]);
                    assert_eq!(
                        retry.input_responses.map(|v| v.as_bytes().as_ptr()),
                        responses.map(|v| v.get().as_ptr()),
                        "inputResponses, against serde_json's"
                    );
                }
            }
            Err(e) => {
                let mut out = BytesMut::new();
                e.write_reply(&mut out, r.id);
                assert_error_reply(&out, r.id, ErrorCode::INVALID_PARAMS);
            }
        }
        if let Some(p) = r.params {
            self.inside_id(mcp::related_task(p), "related_task");
            self.meta_keys(p);
        }
    }

    /// The readers of a result: its type, an `input_required` round, a handshake's answer,
    /// a discovery's versions.
    fn result(&self, result: RawJson<'_>, reference: Option<&RawValue>) {
        self.inside(result.as_bytes(), "result");
        let ty = ResultType::of(result);
        if let ResultType::Other(s) = ty {
            self.inside(s.raw(), "ResultType::Other");
            assert!(
                !s.eq_str("complete") && !s.eq_str("input_required"),
                "{ty:?}"
            );
        }
        if let Some(reference) = reference {
            let types: Vec<&RawValue> = if reference.get().starts_with('{') {
                members_named(reference, "resultType")
            } else {
                Vec::new()
            };
            let expected = match types.as_slice() {
                [] => "complete".to_string(),
                [one] if one.get().starts_with('"') => decoded(one),
                _ => "malformed".to_string(),
            };
            let read = match ty {
                ResultType::Complete => "complete".to_string(),
                ResultType::InputRequired => "input_required".to_string(),
                ResultType::Other(s) => s.decode().into_owned(),
                ResultType::Malformed => "malformed".to_string(),
            };
            assert_eq!(read, expected, "ResultType, against serde_json's");
        }

        match InputRequired::from_result(result) {
            Ok(asks) => {
                assert_eq!(ty, ResultType::InputRequired, "InputRequired of {ty:?}");
                self.inside_json(asks.input_requests, "InputRequired::input_requests");
                self.inside_str(asks.request_state, "InputRequired::request_state");
                let n = asks.input_requests.map_or(0, |r| r.members().count());
                let mut read = 0;
                for request in asks.requests() {
                    self.inside(request.key.raw(), "InputRequest::key");
                    self.method(request.method);
                    self.inside_json(request.params, "InputRequest::params");
                    if let Some(p) = request.params {
                        assert_eq!(p.kind(), JsonKind::Object, "input request params {p:?}");
                    }
                    read += 1;
                }
                assert_eq!(read, n, "requests() stops short of inputRequests");
                if let Some(reference) = reference {
                    same_str(
                        member(reference, &["requestState"]),
                        asks.request_state,
                        "requestState",
                    );
                }
            }
            Err(mcp::InputRequiredError::NotInputRequired) => {
                assert_ne!(ty, ResultType::InputRequired, "NotInputRequired");
            }
            Err(_) => {}
        }

        if let Ok(init) = InitializeResult::from_result(result) {
            self.inside(
                init.protocol_version.raw(),
                "InitializeResult::protocol_version",
            );
            self.inside(
                init.capabilities.as_bytes(),
                "InitializeResult::capabilities",
            );
            self.inside(init.server_info.as_bytes(), "InitializeResult::server_info");
            self.inside_str(init.instructions, "InitializeResult::instructions");
            self.versions(&init.protocol_version.decode());
            if let Some(reference) = reference {
                let found = member(reference, &["protocolVersion"]);
                same_str(found, Some(init.protocol_version), "protocolVersion");
            }
        }

        if let Some(offered) = result.get("supportedVersions") {
            let chosen = versions::choose(offered, self.supported);
            if let Some(v) = chosen {
                assert!(
                    self.supported.contains(&v),
                    "choose answers {v}, not supported"
                );
            }
            let offers: Option<Vec<&RawValue>> = reference
                .and_then(|r| member(r, &["supportedVersions"]))
                .and_then(|o| serde_json::from_str(o.get()).ok());
            if let Some(offers) = offers {
                let texts: Vec<Vec<u8>> = offers
                    .iter()
                    .filter(|o| o.get().starts_with('"'))
                    .filter_map(|o| serde_json::from_str::<Unescaped>(o.get()).ok())
                    .map(|u| u.0)
                    .collect();
                let expected = self
                    .supported
                    .iter()
                    .copied()
                    .filter(|v| texts.iter().any(|t| t == v.as_bytes()))
                    .max();
                assert_eq!(chosen, expected, "choose, against serde_json's offers");
            }
        }
        let cache = CacheHint::from_result(result);
        if let Ok(d) = DiscoverResult::from_result(result) {
            self.inside(d.supported_versions.as_bytes(), "supportedVersions");
            self.inside(d.capabilities.as_bytes(), "DiscoverResult::capabilities");
            self.inside_str(d.instructions, "DiscoverResult::instructions");
            self.inside_json(d.server_info, "DiscoverResult::server_info");
            assert_eq!(d.capabilities.kind(), JsonKind::Object, "capabilities");
            for version in d.supported_versions() {
                self.inside(version.raw(), "a supported version");
            }
            let chosen = versions::choose(d.supported_versions, self.supported);
            assert_eq!(d.choose(self.supported), chosen, "DiscoverResult::choose");
            // The two readers of the cache's hint read it alike.
            assert_eq!(
                cache,
                Some(d.cache),
                "CacheHint::from_result of a discover result"
            );
            if let Some(reference) = reference {
                let versions = member(reference, &["supportedVersions"]);
                same(
                    versions,
                    d.supported_versions.as_bytes(),
                    "supportedVersions",
                );
                same_str(
                    member(reference, &["instructions"]),
                    d.instructions,
                    "instructions",
                );
            }
        }
        if let (Some(cache), Some(reference)) = (cache, reference) {
            let scope = member(reference, &["cacheScope"]).map(decoded);
            assert_eq!(scope.as_deref(), Some(cache.scope.as_str()), "cacheScope");
            // An integer token is the value's digits; another spelling of an integer (`1e3`,
            // `1.0`) is the same number (compared as `f64`s, each the nearest to it).
            let ttl = member(reference, &["ttlMs"]).expect("ttlMs").get();
            if ttl.bytes().all(|b| b.is_ascii_digit()) {
                assert_eq!(ttl, cache.ttl_ms.to_string(), "ttlMs");
            } else {
                let number: f64 = ttl.parse().expect("a JSON number");
                assert_eq!(number, cache.ttl_ms as f64, "ttlMs {ttl}");
            }
        }
        self.inside_id(mcp::related_task(result), "related_task");
        self.meta_keys(result);
    }

    /// The version functions on a version read from the frame.
    fn versions(&self, version: &str) {
        check_versions(version, self.supported);
    }

    /// `MetaKey::parse` on each key of `value._meta`.
    fn meta_keys(&self, value: RawJson<'_>) {
        let Some(meta) = value.get("_meta") else {
            return;
        };
        for (key, _) in meta.members() {
            self.inside(key.raw(), "_meta key");
            if !key.has_lone_surrogate() {
                check_meta_key(&key.decode());
            }
        }
    }
}

/// `LogLevel::from_json` agrees with `str::parse` on the decoded text.
fn check_log_level_text(s: JsonStr<'_>) {
    let parsed = if s.has_lone_surrogate() {
        None
    } else {
        s.decode().parse::<LogLevel>().ok()
    };
    assert_eq!(LogLevel::from_json(s), parsed, "LogLevel::from_json({s:?})");
}

/// The version functions on `version`, with the server's `supported` versions.
fn check_versions(version: &str, supported: &[&str]) {
    let pre = |v: &str| v < versions::V2026_07_28;
    assert_eq!(
        versions::is_known(version),
        versions::KNOWN.contains(&version)
    );
    for revision in VERSIONS {
        assert_eq!(
            versions::is_at_least(version, revision),
            version >= revision
        );
    }
    let negotiated = versions::negotiate(version, supported);
    let with_initialize = supported.iter().copied().filter(|v| pre(v));
    match negotiated {
        Some(v) => {
            assert!(supported.contains(&v) && pre(v), "negotiate answers {v}");
            if supported.contains(&version) && pre(version) {
                assert_eq!(v, version, "negotiate answers another than the one asked");
            } else {
                assert_eq!(Some(v), with_initialize.max(), "negotiate: not the latest");
            }
        }
        None => assert_eq!(with_initialize.count(), 0, "negotiate answers nothing"),
    }
    let accepted = versions::accept(version, supported);
    let expected = (supported.contains(&version) && pre(version)).then_some(version);
    assert_eq!(accepted, expected, "accept({version:?}, {supported:?})");
    check_meta_key(version);
}

/// `MetaKey::parse` against MCP's rules for a `_meta` key: an optional prefix of
/// dot-separated labels (a letter first, a letter or digit last, letters, digits and hyphens
/// between) ending in `/`, then a name that is empty or begins and ends with a letter or
/// digit, with letters, digits, `-`, `_` and `.` between.
fn check_meta_key(key: &str) {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let label_ok = |l: &str| {
        l.starts_with(|c: char| c.is_ascii_alphabetic())
            && l.ends_with(|c: char| c.is_ascii_alphanumeric())
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    let name_ok = name.is_empty()
        || (name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name.ends_with(|c: char| c.is_ascii_alphanumeric())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)));
    let ok = prefix.is_none_or(|p| p.split('.').all(label_ok)) && name_ok;
    match MetaKey::parse(key) {
        Ok(k) => {
            assert!(ok, "MetaKey::parse takes {key:?}");
            assert_eq!(
                (k.prefix, k.name),
                (prefix, name),
                "MetaKey::parse({key:?})"
            );
            let reserved = prefix.and_then(|p| p.split('.').nth(1)).is_some_and(|l| {
                l.eq_ignore_ascii_case("modelcontextprotocol") || l.eq_ignore_ascii_case("mcp")
            });
            assert_eq!(k.is_reserved(), reserved, "is_reserved of {key:?}");
        }
        Err(e) => assert!(!ok, "MetaKey::parse refuses {key:?}: {e}"),
    }
}

/// `out` is one line that MCP's client decoder (lazy and strict) reads as an error response
/// to `id` with `code`.
fn assert_error_reply(out: &[u8], id: Id<'_>, code: ErrorCode) {
    let text = String::from_utf8_lossy(out);
    let Some(line) = out.strip_suffix(b"\n") else {
        panic!("an error reply without its line end: {text}");
    };
    assert!(
        !line.contains(&b'\n'),
        "an error reply of two lines: {text}"
    );
    for decoder in [Decoder::mcp_client(), Decoder::mcp_client().strict()] {
        match decoder.decode(line) {
            Ok(Message::ErrorResponse(e)) => {
                assert_eq!(e.error.code, code, "the reply's code: {text}");
                assert_eq!(
                    e.id.map(|i| i.raw()),
                    Some(id.raw()),
                    "the reply's id: {text}"
                );
            }
            other => panic!("the reply {text} decodes as {other:?}"),
        }
    }
}

/// The member at `path` under `value`, as serde_json reads it: found when each key names
/// exactly one member of an object (a duplicated key is found nowhere, as rpcwire's `get`
/// has it).
fn member<'v>(value: &'v RawValue, path: &[&str]) -> Option<&'v RawValue> {
    let mut at = value;
    for key in path {
        if !at.get().starts_with('{') {
            return None;
        }
        match members_named(at, key).as_slice() {
            [one] => at = one,
            _ => return None,
        }
    }
    Some(at)
}

/// Every value of the members of the object `value` named `key` (unescaped), in wire order.
fn members_named<'v>(value: &'v RawValue, key: &str) -> Vec<&'v RawValue> {
    let members: Members<'v> = serde_json::from_str(value.get()).expect("an object");
    members
        .0
        .into_iter()
        .filter(|(k, _)| k == key.as_bytes())
        .map(|(_, v)| v)
        .collect()
}

/// A string value decoded by serde_json (a lone surrogate as U+FFFD, as `JsonStr::decode`
/// has it).
fn decoded(value: &RawValue) -> String {
    let bytes = serde_json::from_str::<Unescaped>(value.get())
        .expect("a string")
        .0;
    reference::wtf8_lossy(&bytes)
}

/// `-?(0|[1-9][0-9]*)` or a string: what MCP takes as an id or a token.
fn is_string_or_integer(token: &str) -> bool {
    let d = token.strip_prefix('-').unwrap_or(token);
    token.starts_with('"')
        || d == "0"
        || (d.starts_with(|c: char| matches!(c, '1'..='9'))
            && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `read` is the member serde_json found, byte for byte in place.
fn same(found: Option<&RawValue>, read: &[u8], what: &str) {
    assert_eq!(
        found.map(|v| v.get().as_ptr()),
        Some(read.as_ptr()),
        "{what}: another member than serde_json's"
    );
    assert_eq!(found.map(|v| v.get().len()), Some(read.len()), "{what}");
}

/// A string member read as serde_json reads it: present as a string exactly when read, and
/// decoded the same.
fn same_str(found: Option<&RawValue>, read: Option<JsonStr<'_>>, what: &str) {
    let found = found.filter(|v| v.get().starts_with('"'));
    assert_eq!(
        read.map(|s| s.decode().into_owned()),
        found.map(decoded),
        "{what}, against serde_json's"
    );
}
