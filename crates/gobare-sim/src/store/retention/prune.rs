//! The store's deletes of one retention step: each removes at most a few hundred rows, the
//! oldest first, so one step holds the store for a moment only.

use rusqlite::params;

use crate::store::Store;

impl Store {
    /// The lowest `seq` stored (0 for none).
    pub(crate) fn min_seq(&self) -> u64 {
        self.conn
            .query_row("SELECT COALESCE(MIN(seq), 0) FROM events", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_or(0, |s| s.max(0) as u64)
    }

    /// Drops the `most` oldest events: how many went, and the highest `seq` among them.
    pub(crate) fn drop_oldest_events(&self, most: u64) -> rusqlite::Result<(u64, Option<u64>)> {
        if most == 0 {
            return Ok((0, None));
        }
        let through: Option<i64> = self
            .conn
            .prepare_cached("SELECT MAX(seq) FROM (SELECT seq FROM events ORDER BY seq LIMIT ?1)")?
            .query_row(params![most as i64], |r| r.get(0))?;
        let Some(through) = through else {
            return Ok((0, None));
        };
        let dropped = self
            .conn
            .prepare_cached("DELETE FROM events WHERE seq <= ?1")?
            .execute(params![through])?;
        Ok((dropped as u64, Some(through.max(0) as u64)))
    }

    /// Drops up to `most` of the oldest items of the history through `seq`; how many went.
    /// Items are appended in `seq` order, so those are the first rows.
    pub(crate) fn drop_items_through(&self, seq: u64, most: usize) -> rusqlite::Result<usize> {
        self.conn
            .prepare_cached(
                "DELETE FROM items WHERE n IN (SELECT n FROM items ORDER BY n LIMIT ?2)
                 AND seq <= ?1",
            )?
            .execute(params![seq as i64, most as i64])
    }

    /// Drops up to `most` of the oldest artifacts (with their bytes) of the history through
    /// `seq`; how many went. Artifacts are published in `seq` order, so those are the first
    /// rows.
    pub(crate) fn drop_artifacts_through(&self, seq: u64, most: usize) -> rusqlite::Result<usize> {
        self.conn
            .prepare_cached(
                "DELETE FROM artifacts WHERE rowid IN
                   (SELECT rowid FROM artifacts ORDER BY rowid LIMIT ?2)
                 AND seq <= ?1",
            )?
            .execute(params![seq as i64, most as i64])
    }

    /// Drops up to `most` of the turns that left memory with the history through `seq`:
    /// the session and list position of each one that went.
    pub(crate) fn drop_turns_through(
        &self,
        seq: u64,
        most: usize,
    ) -> rusqlite::Result<Vec<(String, usize)>> {
        let mut delete = self.conn.prepare_cached(
            "DELETE FROM turns WHERE rowid IN
               (SELECT rowid FROM turns WHERE seq <= ?1 ORDER BY seq LIMIT ?2)
             RETURNING session_id, ord",
        )?;
        let rows = delete.query_map(params![seq as i64, most as i64], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })?;
        rows.map(|r| r.map(|(s, ord)| (s, usize::try_from(ord).unwrap_or(0))))
            .collect()
    }
}
