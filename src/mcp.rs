//! MCP on top of the envelope: method names, the cancellation and progress notifications
//! (read, and written with [`write_cancelled`], [`write_cancelled_token`] and
//! [`write_progress`]), tasks ([`Task`], [`related_task`], [`is_task_augmented`]),
//! per-request `_meta` fields ([`RequestMeta`], and a server's check of them,
//! [`RequestMeta::check`]), the stream a `subscriptions/listen`
//! notification belongs to ([`subscription_id`]), `resultType` (read with [`ResultType`],
//! written on a 2026-07-28 result with [`write_result`]), the protocol versions and the
//! one a server answers `initialize` with ([`versions`]), the log level a 2026-07-28 request
//! names ([`requested_log_level`], [`may_log`]), the handshake's params and result
//! ([`Initialize`], [`InitializeResult`]), 2026-07-28's multi round-trip requests
//! ([`InputRequired`], [`write_retry`]; a server's side: [`write_input_required`],
//! [`Retry`]), a server's `server/discover` result ([`write_discover_result`]), and the
//! `_meta` key-name rules.
//!
//! Every extractor reads only the members it needs, with the lazy field access of
//! [`RawJson`](crate::RawJson); none parses the whole payload.

pub mod extensions;
pub mod meta_keys;
pub mod methods;
pub mod versions;

mod cancelled;
mod discover;
mod id_like;
mod initialize;
mod input_required;
mod logging;
mod meta_key;
mod meta_request;
mod progress;
mod progress_request;
mod request_check;
mod request_meta;
mod result_type;
mod subscription;
mod task;
pub use cancelled::{Cancelled, write_cancelled, write_cancelled_token};
pub use discover::{
    CacheHint, CacheScope, DiscoverMember, DiscoverReadError, DiscoverResult, DiscoverWriteError,
    write_discover_result,
};
pub use initialize::{
    HandshakeError, HandshakeMember, Initialize, InitializeResult, write_initialize,
    write_initialize_result,
};
pub use input_required::{
    InputRequest, InputRequests, InputRequired, InputRequiredError, InputRequiredWriteError, Retry,
    RetryError, RetryReadError, write_input_required, write_retry,
};
pub use logging::{LogLevel, UnknownLogLevel, log_message_level, may_log, requested_log_level};
pub use meta_key::{MetaKey, MetaKeyError};
pub use meta_request::{MetaRequestError, MetaValue, write_request_with_meta};
pub(crate) use progress::progress_task_and_extension_members;
pub use progress::{
    Progress, progress_token, reported_progress_token, requested_progress_token, write_progress,
};
pub use progress_request::{
    ProgressRequestError, write_request_with_progress, write_request_with_progress_token,
};
pub use request_check::RequestMetaError;
pub use request_meta::RequestMeta;
pub(crate) use result_type::RESULT_TYPE;
pub use result_type::{ResultError, ResultType, write_result};
pub use subscription::subscription_id;
pub(crate) use task::task_member_asks_for_task;
pub use task::{Task, is_task_augmented, related_task};
