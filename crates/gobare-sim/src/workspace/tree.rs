//! A workspace's files as one session holds them: a map shared with every other session
//! until this one changes it (copy on write), whose paths and contents stay shared after
//! the copy. A new workspace costs one pointer to the scenarios' repository; its first
//! change copies the map's entries (reference counts, not bytes); a snapshot is a pointer.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;

/// Files by path, as `crate::workspace::files::Files` (the same type, named here so that this module
/// depends on none of the workspace's others).
type Files = BTreeMap<String, Vec<u8>>;

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Tree(Arc<BTreeMap<Arc<str>, Bytes>>);

impl Tree {
    pub(crate) fn from_files(files: Files) -> Tree {
        Tree(Arc::new(
            files
                .into_iter()
                .map(|(path, bytes)| (Arc::from(path), Bytes::from(bytes)))
                .collect(),
        ))
    }

    pub(crate) fn get(&self, path: &str) -> Option<&[u8]> {
        self.0.get(path).map(|b| &b[..])
    }

    pub(crate) fn insert(&mut self, path: &str, bytes: Vec<u8>) {
        let map = Arc::make_mut(&mut self.0);
        match map.get_mut(path) {
            Some(held) => *held = Bytes::from(bytes),
            None => {
                map.insert(Arc::from(path), Bytes::from(bytes));
            }
        }
    }

    pub(crate) fn remove(&mut self, path: &str) {
        if self.0.contains_key(path) {
            Arc::make_mut(&mut self.0).remove(path);
        }
    }

    /// Writes every file of `files`, replacing what is there.
    pub(crate) fn extend(&mut self, files: Files) {
        for (path, bytes) in files {
            self.insert(&path, bytes);
        }
    }

    /// Writes the files of `files` this tree lacks, as seed files are written after the
    /// clone (§6.2: only if not already present).
    pub(crate) fn write_missing(&mut self, files: &Files) {
        for (path, bytes) in files {
            if self.get(path).is_none() {
                self.insert(path, bytes.clone());
            }
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.0.iter().map(|(path, bytes)| (&**path, &bytes[..]))
    }

    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(|path| &**path)
    }

    /// How this tree differs from `base`: the files it holds with other bytes (or that
    /// `base` lacks), and the paths of `base` it lacks.
    pub(crate) fn changes_from(&self, base: &Tree) -> (Files, Vec<String>) {
        if Arc::ptr_eq(&self.0, &base.0) {
            return (Files::new(), Vec::new());
        }
        let changed = self
            .iter()
            .filter(|(path, bytes)| base.get(path) != Some(*bytes))
            .map(|(path, bytes)| (path.to_string(), bytes.to_vec()))
            .collect();
        let removed = base
            .paths()
            .filter(|path| self.get(path).is_none())
            .map(str::to_string)
            .collect();
        (changed, removed)
    }

    /// `base` with `changed` written and `removed` taken away: the inverse of
    /// [`Tree::changes_from`].
    pub(crate) fn with_changes(base: &Tree, changed: Files, removed: &[String]) -> Tree {
        let mut tree = base.clone();
        tree.extend(changed);
        for path in removed {
            tree.remove(path);
        }
        tree
    }

    /// Whether `other` is this very map, not a copy of it.
    #[cfg(test)]
    pub(crate) fn shares_map_with(&self, other: &Tree) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Tree {
        Tree::from_files(
            [("a.rs", "a"), ("src/b.rs", "b")]
                .into_iter()
                .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
                .collect(),
        )
    }

    #[test]
    fn a_copy_shares_the_map_until_it_changes() {
        let base = base();
        let mut copy = base.clone();
        assert!(copy.shares_map_with(&base));
        copy.insert("a.rs", b"A".to_vec());
        assert!(!copy.shares_map_with(&base));
        assert_eq!(base.get("a.rs"), Some(&b"a"[..]), "the base is untouched");
        assert_eq!(copy.get("a.rs"), Some(&b"A"[..]));
    }

    #[test]
    fn changes_from_a_base_give_the_tree_back() {
        let base = base();
        let mut tree = base.clone();
        tree.insert("a.rs", b"A".to_vec());
        tree.insert("new.md", b"n".to_vec());
        tree.remove("src/b.rs");
        let (changed, removed) = tree.changes_from(&base);
        assert_eq!(changed.keys().collect::<Vec<_>>(), ["a.rs", "new.md"]);
        assert_eq!(removed, ["src/b.rs"]);
        assert_eq!(Tree::with_changes(&base, changed, &removed), tree);
        assert_eq!(base.clone().changes_from(&base), (Files::new(), Vec::new()));
    }

    #[test]
    fn seed_files_fill_only_what_is_missing() {
        let mut tree = base();
        let seeds: Files = [("a.rs", "seeded"), ("c.md", "c")]
            .into_iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect();
        tree.write_missing(&seeds);
        assert_eq!(tree.get("a.rs"), Some(&b"a"[..]));
        assert_eq!(tree.get("c.md"), Some(&b"c"[..]));
    }
}
