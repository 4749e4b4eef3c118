//! [`StreamCancel`]: what [`IdRemapper::route_stream_cancel`] made of an upstream
//! `notifications/cancelled`.

use super::Origin;
use crate::pending::Miss;
// For the docs' links only.
#[cfg(doc)]
use super::IdRemapper;

/// What [`IdRemapper::route_stream_cancel`] made of an upstream `notifications/cancelled`.
///
/// Only [`Routed`](Self::Routed) wrote anything: the gateway sends that frame to the
/// origin's client, and drops the notification in the other two cases. (Not `Copy`: the
/// origin owns the client's id.)
#[must_use = "a routed teardown is written for its client, who must be sent it"]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamCancel<C, T = ()> {
    /// The upstream tore down a `subscriptions/listen` stream: the frame for its client is
    /// written, with the client's id restored, and the stream's request is forgotten. Here
    /// is the request's origin (the client to send the frame to).
    Routed(Origin<C, T>),
    /// No stream's teardown: not a `notifications/cancelled` whose `requestId` reads as one
    /// string or integer, or one naming a request in flight that is no
    /// `subscriptions/listen` (which stays in flight: MCP's servers must not cancel it).
    NotAStream,
    /// It names no request in flight: a token never minted, or no token at all
    /// ([`Miss::Unknown`]); a request no longer in flight, answered, cancelled, expired or
    /// torn down already ([`Miss::Stale`]).
    Miss(Miss),
}
