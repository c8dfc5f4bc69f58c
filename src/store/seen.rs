//! When the user last looked at the fleet (Unix ms, in `fleet_seen` beside the sessions'
//! files): the fleet opened after that shows what happened since. A session's own last
//! visit is its saved cursor and save time ([`super::SessionState`]).

use super::{StateStore, private_fs, write_atomic};
use std::io;

/// The largest `fleet_seen` read: one number.
const SEEN_FILE_MAX: u64 = 64;

impl StateStore {
    /// When the fleet was last seen, and the org stream's cursor then (written after the
    /// time, when known): a replay from it is what the fleet missed.
    pub(crate) fn fleet_seen_with_cursor(&self) -> Option<(i64, Option<u64>)> {
        let bytes = private_fs::read_bounded(&self.dir().join("fleet_seen"), SEEN_FILE_MAX).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let mut parts = text.split_whitespace();
        let at = parts.next()?.parse().ok()?;
        Some((at, parts.next().and_then(|c| c.parse().ok())))
    }

    /// The fleet was seen at `at_ms`, its org stream at `cursor`.
    pub(crate) fn set_fleet_seen(&self, at_ms: i64, cursor: Option<u64>) -> io::Result<()> {
        self.private_dirs(&[])?;
        let text = match cursor {
            Some(seq) => format!("{at_ms} {seq}"),
            None => at_ms.to_string(),
        };
        write_atomic(&self.dir().join("fleet_seen"), text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mark_reads_back_and_garbage_reads_as_never() {
        let dir = tempfile::tempdir().unwrap();
        let store = StateStore::open(dir.path(), &"https://api.example".parse().unwrap()).unwrap();
        assert_eq!(store.fleet_seen_with_cursor(), None);
        store.set_fleet_seen(1_789_000_000_000, None).unwrap();
        assert_eq!(
            store.fleet_seen_with_cursor(),
            Some((1_789_000_000_000, None))
        );
        store.set_fleet_seen(1_789_000_000_000, Some(4812)).unwrap();
        assert_eq!(
            store.fleet_seen_with_cursor(),
            Some((1_789_000_000_000, Some(4812)))
        );
        std::fs::write(store.dir().join("fleet_seen"), "soon").unwrap();
        assert_eq!(store.fleet_seen_with_cursor(), None);
    }
}
