//! The names of a session's state files: a hash of the whole session id, so two ids never
//! share a file, whatever characters or length they have; and the names earlier versions
//! used (the id with unsafe characters replaced, cut at 128), migrated once.

use sha2::{Digest, Sha256};
use std::io;
use std::path::Path;

/// Hex characters of the hash kept in a name (128 bits).
const HASH_HEX: usize = 32;

/// The stem of `id`'s state files: `s-` and the start of the SHA-256 of the id in hex.
pub(crate) fn session_stem(id: &str) -> String {
    let digest = Sha256::digest(id.as_bytes());
    let mut stem = String::with_capacity(2 + HASH_HEX);
    stem.push_str("s-");
    for byte in &digest[..HASH_HEX / 2] {
        stem.push_str(&format!("{byte:02x}"));
    }
    stem
}

/// Whether an earlier version's file stem names exactly one session id, and which: only a
/// whole UUID does (the old names of other ids can be shared by several).
fn legacy_id(stem: &str) -> Option<&str> {
    let uuid = stem.len() == 36
        && stem.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    uuid.then_some(stem)
}

/// The suffixes of a session's files in the directories they live in.
const SUFFIXES: [(&str, &str); 3] = [
    ("sessions", ".json"),
    ("events", ".old.log"),
    ("events", ".log"),
];

/// Renames the files an earlier version named by a session's id (`<uuid>.json`,
/// `<uuid>.log`, `<uuid>.old.log`) below `host_dir` to their hashed names, drafts and
/// pending sends with them. A file already under its new name is not replaced. Returns how
/// many were moved.
pub(crate) fn migrate(host_dir: &Path) -> io::Result<usize> {
    let mut moved = 0;
    for (sub, suffix) in SUFFIXES {
        let dir = host_dir.join(sub);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let Some(id) = name
                .to_str()
                .and_then(|n| n.strip_suffix(suffix))
                .and_then(legacy_id)
            else {
                continue;
            };
            if !entry.file_type()?.is_file() {
                continue;
            }
            let to = dir.join(format!("{}{suffix}", session_stem(id)));
            if std::fs::symlink_metadata(&to).is_ok() {
                continue;
            }
            match std::fs::rename(entry.path(), &to) {
                Ok(()) => moved += 1,
                // Another instance moved it first.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    if moved > 0 {
        tracing::info!(moved, "state files renamed to their hashed names");
    }
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_shared_a_name_before_have_names_of_their_own() {
        assert_ne!(session_stem("x/y"), session_stem("x_y"));
        let long = "a".repeat(128);
        assert_ne!(
            session_stem(&format!("{long}1")),
            session_stem(&format!("{long}2"))
        );
        let stem = session_stem("../../etc/passwd");
        assert_eq!(stem.len(), 34);
        assert!(stem.starts_with("s-") && stem[2..].bytes().all(|b| b.is_ascii_hexdigit()));
        // Fixed across versions and machines: the files are found again.
        assert_eq!(
            session_stem("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af"),
            session_stem("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af")
        );
    }

    #[test]
    fn only_a_whole_uuid_names_one_session() {
        assert!(legacy_id("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af").is_some());
        for stem in [
            "x_y",
            "s1",
            "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81a",
            "3f9c1b60_4e2a",
        ] {
            assert!(legacy_id(stem).is_none(), "{stem}");
        }
    }
}
