//! Where the report of a session's check goes, and how it says each message, each event (a
//! timeout, a request left unanswered) and the summary: as text or as JSON lines.

use std::io::{self, Write};

use rpcwire::Id;
use serde_json::json;

use crate::check::{Record, count, shown};
use crate::session::{Dir, Session, Violation};

/// Where the report goes.
pub(super) struct Report<W: Write> {
    /// The output: the standard output, buffered (a buffer in the tests).
    pub(super) out: W,
    /// Whether each record is a JSON line (`--json`) rather than text.
    pub(super) json: bool,
}

impl<W: Write> Report<W> {
    /// Reports the record `r`, read from `dir`'s stream, and its violation `v`: every record
    /// as JSON, only those with a violation as text.
    pub(super) fn message(&mut self, dir: Dir, r: &Record, v: Option<Violation>) -> io::Result<()> {
        if self.json {
            let mut record = r.to_json();
            let map = record.as_object_mut().expect("an object");
            map.insert("dir".into(), json!(dir.as_str()));
            map.insert("violation".into(), json!(v.map(Violation::as_str)));
            if let Some(tools) = &r.invalid_tools {
                map.insert("invalid_tools".into(), json!(tools));
            }
            if let Some(fault) = r.params_fault {
                map.insert("params_fault".into(), json!(fault.as_str()));
            }
            serde_json::to_writer(&mut self.out, &record)?;
            self.out.write_all(b"\n")
        } else if let Some(v) = v {
            // What is wrong with a tools/list result: its tools, and why; with a notification's
            // params: which member.
            let why = match (v, &r.invalid_tools, r.params_fault) {
                (Violation::InvalidToolHeaders, Some(tools), _) => format!(" ({tools})"),
                (
                    Violation::InvalidNotificationParams | Violation::InvalidInitialize,
                    _,
                    Some(fault),
                ) => {
                    format!(" ({})", fault.why())
                }
                _ => String::new(),
            };
            writeln!(
                self.out,
                "{} {}: {}{why}",
                dir.as_str(),
                r.to_text(),
                v.as_str()
            )
        } else {
            Ok(())
        }
    }

    /// Reports the event `event` (`timeout`, `unanswered`) of the request `id` (`method`),
    /// sent from `dir`, with its violation, if any; `line`: the line of the proxy log that
    /// records it, which the readable report names.
    pub(super) fn event(
        &mut self,
        event: &str,
        dir: Dir,
        id: Id<'_>,
        method: &str,
        v: Option<Violation>,
        line: Option<u64>,
    ) -> io::Result<()> {
        let id = String::from_utf8_lossy(id.raw());
        if self.json {
            let record = json!({"event": event, "dir": dir.as_str(), "id": id, "method": method, "violation": v.map(Violation::as_str)});
            serde_json::to_writer(&mut self.out, &record)?;
            self.out.write_all(b"\n")
        } else {
            // The id and the method are the sender's: escaped, as a message's record's are.
            let v = v.map_or("-", Violation::as_str);
            let line = line.map_or(String::new(), |line| format!(" (line {line})"));
            writeln!(
                self.out,
                "{} {event}{line} request {} ({}): {v}",
                dir.as_str(),
                shown(&id),
                shown(method)
            )
        }
    }

    /// Reports the requests left waiting, then the summary; returns whether the session is
    /// free of violations.
    pub(super) fn finish(mut self, mut session: Session, frames: [u64; 2]) -> io::Result<bool> {
        for unanswered in session.finish() {
            self.event(
                "unanswered",
                unanswered.dir,
                unanswered.id.as_id(),
                &unanswered.method,
                Some(Violation::Unanswered),
                None,
            )?;
        }
        let counters = &session.counters;
        let valid = counters.total_violations() == 0;
        if self.json {
            let mut summary = counters.to_json();
            let map = summary.as_object_mut().expect("an object");
            map.insert("valid".into(), json!(valid));
            map.insert("frames".into(), json!({"c2s": frames[0], "s2c": frames[1]}));
            serde_json::to_writer(&mut self.out, &json!({ "summary": summary }))?;
            self.out.write_all(b"\n")?;
        } else {
            writeln!(
                self.out,
                "session: {} client to server, {} server to client, {}",
                count(frames[0], "message"),
                frames[1],
                if valid {
                    "no violation".to_string()
                } else {
                    count(counters.total_violations(), "violation")
                }
            )?;
            for ((dir, v), n) in &counters.violations {
                writeln!(self.out, "  {} {}: {n}", dir.as_str(), v.as_str())?;
            }
            for (dir, codes) in &counters.errors_by_code {
                for (code, n) in codes.iter() {
                    let dir = dir.as_str();
                    writeln!(self.out, "  {dir} error responses with code {code}: {n}")?;
                }
            }
            for (dir, codes) in &counters.errors_by_code {
                if codes.other() > 0 {
                    let (dir, n) = (dir.as_str(), codes.other());
                    writeln!(self.out, "  {dir} error responses with other codes: {n}")?;
                }
            }
        }
        self.out.flush()?;
        Ok(valid)
    }
}
