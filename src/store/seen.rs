//! When the user last looked at the fleet (Unix ms, in `fleet_seen` beside the sessions'
//! files): the fleet opened after that shows what happened since. A session's own last
//! visit is its saved cursor and save time ([`super::SessionState`]).

use super::{StateStore, private_fs, write_atomic};
use std::io;

/// The largest `fleet_seen` read: one number.
const SEEN_FILE_MAX: u64 = 64;

impl StateStore {
    /// When the fleet was last seen; `None` never (or unreadable).
    pub(crate) fn fleet_seen(&self) -> Option<i64> {
        let bytes = private_fs::read_bounded(&self.dir().join("fleet_seen"), SEEN_FILE_MAX).ok()?;
        String::from_utf8(bytes).ok()?.trim().parse().ok()
    }

    /// The fleet was seen at `at_ms`.
    pub(crate) fn set_fleet_seen(&self, at_ms: i64) -> io::Result<()> {
        self.private_dirs(&[])?;
        write_atomic(&self.dir().join("fleet_seen"), at_ms.to_string().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mark_reads_back_and_garbage_reads_as_never() {
        let dir = tempfile::tempdir().unwrap();
        let store = StateStore::open(dir.path(), &"https://api.example".parse().unwrap()).unwrap();
        assert_eq!(store.fleet_seen(), None);
        store.set_fleet_seen(1_789_000_000_000).unwrap();
        assert_eq!(store.fleet_seen(), Some(1_789_000_000_000));
        std::fs::write(store.dir().join("fleet_seen"), "soon").unwrap();
        assert_eq!(store.fleet_seen(), None);
    }
}
