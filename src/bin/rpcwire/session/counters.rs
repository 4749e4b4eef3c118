//! The counters a session keeps, for alerts and summaries.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use serde_json::{json, Value};

use super::{Dir, Violation};

/// Distinct method names counted per direction; more go under [`OTHER_METHODS`].
pub const MAX_METHODS: usize = 256;
/// The counter of the requests whose method came after the first [`MAX_METHODS`].
pub const OTHER_METHODS: &str = "(other)";

/// Distinct error codes counted per direction; more go under [`OTHER_CODES`].
pub const MAX_ERROR_CODES: usize = 256;
/// The counter of the error replies whose code came after the first [`MAX_ERROR_CODES`].
pub const OTHER_CODES: &str = "(other)";

/// The numbers worth alerting on.
#[derive(Debug, Default)]
pub struct Counters {
    pub messages: BTreeMap<(Dir, &'static str), u64>,
    /// At most [`MAX_METHODS`] names per direction; the rest are counted as `(other)`.
    pub requests_by_method: BTreeMap<Dir, BTreeMap<Arc<str>, u64>>,
    /// At most [`MAX_ERROR_CODES`] codes per direction; the rest are counted in
    /// `other_error_codes`.
    pub errors_by_code: BTreeMap<(Dir, i64), u64>,
    pub other_error_codes: BTreeMap<Dir, u64>,
    /// How many codes `errors_by_code` holds per direction (so that a new code is counted in
    /// constant time, not by counting the codes already there).
    distinct_error_codes: BTreeMap<Dir, usize>,
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
        if let Some(count) = self.errors_by_code.get_mut(&(dir, code)) {
            *count += 1;
            return;
        }
        let distinct = self.distinct_error_codes.entry(dir).or_default();
        if *distinct < MAX_ERROR_CODES {
            *distinct += 1;
            self.errors_by_code.insert((dir, code), 1);
        } else {
            // A peer inventing codes must not grow the counters without bound.
            *self.other_error_codes.entry(dir).or_default() += 1;
        }
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
            "errors_by_code": map(self.errors_by_code.iter().map(|((d, c), n)| (format!("{}/{c}", d.as_str()), *n)).chain(self.other_error_codes.iter().map(|(d, n)| (format!("{}/{OTHER_CODES}", d.as_str()), *n))).collect()),
            "violations": map(self.violations.iter().map(|((d, v), n)| (format!("{}/{}", d.as_str(), v.as_str()), *n)).collect()),
            "total_violations": self.total_violations(),
        })
    }
}
