//! The persisted event log in the [`Store`]: appended by `seq`, replayed by `seq` through
//! its primary key, and bounded: past the retention bound the oldest events go, with what
//! was kept for them (`crate::store::retention`).

use std::sync::Arc;

use rusqlite::params;

use crate::store::Store;

/// One rendered event, shared by the log and every stream.
#[derive(Debug)]
pub(crate) struct Frame {
    pub(crate) seq: Option<u64>,
    pub(crate) kind: String,
    pub(crate) session_id: String,
    /// The compact envelope JSON (the `data:` line).
    pub(crate) json: String,
}

impl Store {
    /// Appends one persisted frame.
    pub(crate) fn append(&self, frame: &Frame) {
        let mut insert = match self.conn.prepare_cached(
            "INSERT INTO events (seq, session_id, kind, json) VALUES (?1, ?2, ?3, ?4)",
        ) {
            Ok(stmt) => stmt,
            Err(e) => return tracing::error!("the event store refuses writes: {e}"),
        };
        let seq = frame.seq.map(|s| s as i64);
        if let Err(e) = insert.execute(params![seq, frame.session_id, frame.kind, frame.json]) {
            tracing::error!("an event was not stored: {e}");
        }
    }

    /// Opens a transaction; `false` when it could not be (writes then commit one by one).
    pub(crate) fn begin(&self) -> bool {
        match self.conn.execute_batch("BEGIN") {
            Ok(()) => true,
            Err(e) => {
                tracing::error!("the store refuses a transaction: {e}");
                false
            }
        }
    }

    /// Commits what [`Store::begin`] opened.
    pub(crate) fn commit(&self) {
        if let Err(e) = self.conn.execute_batch("COMMIT") {
            tracing::error!("a batch of events was not stored: {e}");
        }
    }

    /// Frames with `after < seq <= upto` that `keep` wants, in `seq` order, at most
    /// `limit`; `session` narrows the walk to one session's events (through their index:
    /// a session's replay does not read the whole log).
    pub(crate) fn replay(
        &self,
        after: u64,
        upto: u64,
        limit: usize,
        session: Option<&str>,
        keep: impl Fn(&Frame) -> bool,
    ) -> Vec<Arc<Frame>> {
        let mut out = Vec::new();
        let after = after.min(i64::MAX as u64) as i64;
        let upto = upto.min(i64::MAX as u64) as i64;
        let sql = match session {
            Some(_) => {
                "SELECT seq, session_id, kind, json FROM events
                 WHERE session_id = ?3 AND seq > ?1 AND seq <= ?2 ORDER BY seq"
            }
            None => {
                "SELECT seq, session_id, kind, json FROM events
                 WHERE seq > ?1 AND seq <= ?2 ORDER BY seq"
            }
        };
        let Ok(mut select) = self.conn.prepare_cached(sql) else {
            return out;
        };
        let rows = match session {
            Some(id) => select.query(params![after, upto, id]),
            None => select.query(params![after, upto]),
        };
        let Ok(mut rows) = rows else {
            return out;
        };
        while out.len() < limit {
            let Ok(Some(row)) = rows.next() else {
                break;
            };
            let frame = Frame {
                seq: row.get::<_, i64>(0).ok().map(|s| s as u64),
                session_id: row.get(1).unwrap_or_default(),
                kind: row.get(2).unwrap_or_default(),
                json: row.get(3).unwrap_or_default(),
            };
            if keep(&frame) {
                out.push(Arc::new(frame));
            }
        }
        out
    }

    /// The highest `seq` stored (0 for none).
    pub(crate) fn max_seq(&self) -> u64 {
        self.conn
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM events", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_or(0, |s| s.max(0) as u64)
    }

    /// How many events are stored.
    pub(crate) fn event_count(&self) -> u64 {
        self.conn
            .query_row("SELECT COUNT(*) FROM events", [], |r| r.get::<_, i64>(0))
            .map_or(0, |n| n.max(0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(seq: u64, session: &str) -> Frame {
        Frame {
            seq: Some(seq),
            kind: "agent.message".into(),
            session_id: session.into(),
            json: format!("{{\"seq\":{seq}}}"),
        }
    }

    fn seqs(v: Vec<Arc<Frame>>) -> Vec<u64> {
        v.iter().map(|f| f.seq.unwrap()).collect()
    }

    #[test]
    fn frames_come_back_after_the_cursor_in_order_filtered_and_capped() {
        let store = Store::open_temp().unwrap();
        for seq in 1..=10 {
            store.append(&frame(seq, if seq % 2 == 0 { "a" } else { "b" }));
        }
        assert_eq!(
            seqs(store.replay(6, u64::MAX, usize::MAX, None, |_| true)),
            [7, 8, 9, 10]
        );
        assert_eq!(
            seqs(store.replay(0, u64::MAX, 3, Some("a"), |_| true)),
            [2, 4, 6]
        );
        assert_eq!(
            store.replay(3, u64::MAX, 1, None, |_| true)[0].json,
            "{\"seq\":4}"
        );
        assert_eq!(
            seqs(store.replay(2, 5, usize::MAX, None, |_| true)),
            [3, 4, 5]
        );
        assert_eq!(store.max_seq(), 10);
    }
}
