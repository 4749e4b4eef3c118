//! The counters a session keeps, for alerts and summaries.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{Dir, Violation};

/// Distinct method names counted per direction; more go under [`OTHER_METHODS`].
pub const MAX_METHODS: usize = 256;
/// The counter of the requests whose method came after the first [`MAX_METHODS`].
pub const OTHER_METHODS: &str = "(other)";

/// Distinct error codes counted per direction; more go under [`OTHER_CODES`].
pub const MAX_ERROR_CODES: usize = 256;
/// The counter of the error replies whose code came after the first [`MAX_ERROR_CODES`].
pub const OTHER_CODES: &str = "(other)";

/// Counts by code: the first [`MAX_ERROR_CODES`] distinct codes each under its own, the rest
/// together (a peer inventing codes must not grow the counters, nor a summary, without bound).
#[derive(Debug, Default)]
pub struct CodeCounts {
    counts: BTreeMap<i64, u64>,
    other: u64,
}

impl CodeCounts {
    /// Counts one `code`.
    pub fn add(&mut self, code: i64) {
        if let Some(count) = self.counts.get_mut(&code) {
            *count += 1;
        } else if self.counts.len() < MAX_ERROR_CODES {
            self.counts.insert(code, 1);
        } else {
            self.other += 1;
        }
    }

    /// The codes counted under their own, in order, with their counts.
    pub fn iter(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        self.counts.iter().map(|(&code, &n)| (code, n))
    }

    /// How many came with a code past the first [`MAX_ERROR_CODES`].
    pub fn other(&self) -> u64 {
        self.other
    }

    /// As JSON: each code's count by its decimal spelling, the rest under [`OTHER_CODES`]
    /// (when there are any), each key after `prefix`.
    pub fn to_json_entries(
        &self,
        prefix: &str,
    ) -> impl Iterator<Item = (String, u64)> + '_ + use<'_> {
        let other = (self.other > 0).then(|| (format!("{prefix}{OTHER_CODES}"), self.other));
        let prefix = prefix.to_string();
        self.iter()
            .map(move |(code, n)| (format!("{prefix}{code}"), n))
            .chain(other)
    }
}

/// The numbers worth alerting on.
#[derive(Debug, Default)]
pub struct Counters {
    pub messages: BTreeMap<(Dir, &'static str), u64>,
    /// At most [`MAX_METHODS`] names per direction; the rest are counted as `(other)`.
    pub requests_by_method: BTreeMap<Dir, BTreeMap<Arc<str>, u64>>,
    /// Per direction, at most [`MAX_ERROR_CODES`] codes, the rest together.
    pub errors_by_code: BTreeMap<Dir, CodeCounts>,
    pub violations: BTreeMap<(Dir, Violation), u64>,
}

impl Counters {
    /// Counts a request; returns its method name, shared with the counter when counted
    /// under its own name.
    pub(super) fn count_method(&mut self, dir: Dir, method: &str) -> Arc<str> {
        let by_method = self.requests_by_method.entry(dir).or_default();
        // One lookup for the key and its count (a map has no `get_key_value_mut`).
        let same = (Bound::Included(method), Bound::Included(method));
        if let Some((name, count)) = by_method.range_mut::<str, _>(same).next() {
            *count += 1;
            return name.clone();
        }
        let name: Arc<str> = method.into();
        if by_method.len() < MAX_METHODS {
            by_method.insert(name.clone(), 1);
        } else if let Some(other) = by_method.get_mut(OTHER_METHODS) {
            // A peer inventing method names must not grow the counters without bound.
            *other += 1;
        } else {
            by_method.insert(OTHER_METHODS.into(), 1);
        }
        name
    }

    /// Counts an error reply by its code.
    pub(super) fn count_error(&mut self, dir: Dir, code: i64) {
        self.errors_by_code.entry(dir).or_default().add(code);
    }

    pub fn total_violations(&self) -> u64 {
        self.violations.values().sum()
    }

    pub fn to_json(&self) -> Value {
        let map = |m: Vec<(String, u64)>| {
            Value::Object(m.into_iter().map(|(k, v)| (k, json!(v))).collect())
        };
        json!({
            "messages": map(self.messages.iter().map(|((d, k), n)| (format!("{}/{k}", d.as_str()), *n)).collect()),
            "requests_by_method": map(self.requests_by_method.iter().flat_map(|(d, m)| m.iter().map(move |(m, n)| (format!("{}/{m}", d.as_str()), *n))).collect()),
            "errors_by_code": map(self.errors_by_code.iter().flat_map(|(d, codes)| codes.to_json_entries(&format!("{}/", d.as_str())).collect::<Vec<_>>()).collect()),
            "violations": map(self.violations.iter().map(|((d, v), n)| (format!("{}/{}", d.as_str(), v.as_str()), *n)).collect()),
            "total_violations": self.total_violations(),
        })
    }
}
