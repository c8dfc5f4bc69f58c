//! No file of the crate names, through the paths it uses, a file that names it back.
//!
//! [`import_cycles`] reads every `.rs` file under a crate's `src/`, follows the module paths
//! each one names (`crate::…`, `super::…`, `self::…`, and a parent's paths into its child
//! modules; `use` lines, grouped imports and inline paths alike) to the file that holds the
//! module, and reports every set of files that reach each other. It depends on nothing
//! but std and knows nothing of this crate, so any crate's test can call it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One file naming another: where (1-based line) it first does.
type Edges = BTreeMap<(String, String), usize>;

/// The strongly connected groups of files under `src` (a crate's source directory, its
/// root being `lib.rs`, else `main.rs`; `src/bin` is not walked), each a sorted list of
/// paths relative to `src` followed by the references that tie them. Empty when the
/// file-level graph is acyclic.
pub(crate) fn import_cycles(src: &Path) -> Vec<String> {
    let files = rust_files(src);
    let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
    for rel in &files {
        let path = module_path(rel);
        // lib.rs and main.rs are both the root: the library's paths win.
        if !modules.contains_key(&path) || rel == "lib.rs" {
            modules.insert(path, rel.clone());
        }
    }
    let mut edges = Edges::new();
    for rel in &files {
        let text = std::fs::read_to_string(src.join(rel))
            .unwrap_or_else(|e| panic!("reading {}: {e}", src.join(rel).display()));
        for (target, line) in references(&text, &module_path(rel), &modules) {
            if target != *rel {
                edges.entry((rel.clone(), target)).or_insert(line);
            }
        }
    }
    strongly_connected(&files, &edges)
        .into_iter()
        .map(|group| {
            let ties: Vec<String> = edges
                .iter()
                .filter(|((from, to), _)| group.contains(from) && group.contains(to))
                .map(|((from, to), line)| format!("  {from}:{line} -> {to}"))
                .collect();
            format!("{}\n{}", group.join(" <-> "), ties.join("\n"))
        })
        .collect()
}

/// `.rs` files under `dir`, relative to it, `/`-separated, sorted.
fn rust_files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()));
        for entry in entries {
            let path: PathBuf = entry.expect("a directory entry").path();
            let rel = path.strip_prefix(root).expect("under the root");
            if path.is_dir() {
                if rel != Path::new("bin") {
                    walk(root, &path, out);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                let parts: Vec<_> = rel.iter().map(|p| p.to_string_lossy()).collect();
                out.push(parts.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// `routes/mod.rs` → `[routes]`, `routes/body.rs` → `[routes, body]`, `lib.rs` → `[]`.
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] || parts == ["main"] {
        parts.pop();
    }
    parts
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Path, // `::`
    Other(char),
}

/// Identifiers, `::` and punctuation with their lines; comments, strings, characters
/// and numbers are skipped, so prose and literals mentioning `crate::x` do not count.
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let skip_to = |from: usize, to: usize, line: &mut usize| {
        *line += c[from..to.min(c.len())]
            .iter()
            .filter(|&&ch| ch == '\n')
            .count();
        to
    };
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            let end = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
            i = end;
        } else if ch == '/' && at(i + 1) == '*' {
            let (mut depth, mut j) = (1, i + 2);
            while j < c.len() && depth > 0 {
                if c[j] == '/' && at(j + 1) == '*' {
                    depth += 1;
                    j += 1;
                } else if c[j] == '*' && at(j + 1) == '/' {
                    depth -= 1;
                    j += 1;
                }
                j += 1;
            }
            i = skip_to(i, j, &mut line);
        } else if ch == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            i = skip_to(i, j + 1, &mut line);
        } else if ch == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                let end = (i + 2..c.len()).find(|&j| c[j] == '\'').unwrap_or(c.len());
                i = end + 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            if (word == "r" || word == "br") && (at(i) == '#' || at(i) == '"') {
                let hashes = (i..c.len()).take_while(|&j| c[j] == '#').count();
                if at(i + hashes) == '"' {
                    let close: String = std::iter::once('"')
                        .chain(std::iter::repeat_n('#', hashes))
                        .collect();
                    let body = i + hashes + 1;
                    let rest: String = c[body..].iter().collect();
                    let end = rest.find(&close).map_or(c.len(), |k| {
                        body + rest[..k].chars().count() + close.chars().count()
                    });
                    i = skip_to(i, end, &mut line);
                    continue;
                }
                if word == "r" && hashes == 1 {
                    // A raw identifier: r#name.
                    i += 1;
                    continue;
                }
            }
            if word == "b" && (at(i) == '"' || at(i) == '\'') {
                continue;
            }
            out.push((Tok::Ident(word), line));
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            if ch == '\n' {
                line += 1;
            } else if !ch.is_whitespace() {
                out.push((Tok::Other(ch), line));
            }
            i += 1;
        }
    }
    out
}

/// The files `text` (the file of module `own`) names, with the line of each reference.
fn references(
    text: &str,
    own: &[String],
    modules: &BTreeMap<Vec<String>, String>,
) -> Vec<(String, usize)> {
    let toks = tokens(text);
    let ident = |i: usize| match toks.get(i) {
        Some((Tok::Ident(s), _)) => Some(s.as_str()),
        _ => None,
    };
    let is = |i: usize, t: &Tok| toks.get(i).is_some_and(|(x, _)| x == t);
    let mut found = Vec::new();
    // Inline modules (`mod tests { … }`) open at a brace depth; `super` inside one is
    // the file's own module.
    let (mut inline, mut depth): (Vec<(String, usize)>, usize) = (Vec::new(), 0);
    let mut i = 0;
    while i < toks.len() {
        if is(i, &Tok::Other('{')) {
            depth += 1;
        } else if is(i, &Tok::Other('}')) {
            depth = depth.saturating_sub(1);
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
        } else if ident(i) == Some("mod")
            && let Some(name) = ident(i + 1)
            && is(i + 2, &Tok::Other('{'))
        {
            inline.push((name.to_string(), depth));
            depth += 1;
            i += 3;
            continue;
        }
        let current: Vec<String> = own
            .iter()
            .cloned()
            .chain(inline.iter().map(|(n, _)| n.clone()))
            .collect();
        let starts_path = match ident(i) {
            Some("crate" | "super" | "self") => is(i + 1, &Tok::Path),
            Some(name) => {
                is(i + 1, &Tok::Path) && {
                    let mut child = current.clone();
                    child.push(name.to_string());
                    modules.contains_key(&child)
                }
            }
            None => false,
        };
        let continues_path = i > 0 && is(i - 1, &Tok::Path);
        if starts_path && !continues_path {
            let line = toks[i].1;
            let mut leaves = Vec::new();
            i = path_tree(&toks, i, Vec::new(), &mut leaves);
            for leaf in leaves {
                if let Some(file) = resolve(&leaf, &current, modules) {
                    found.push((file, line));
                }
            }
            continue;
        }
        i += 1;
    }
    found
}

/// Reads one path from `i` (`a::b`, `a::{b, c::d}`, `a::*`), pushing every full path it
/// names; returns the index after it.
fn path_tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match toks.get(i).map(|(t, _)| t) {
            Some(Tok::Ident(s)) => {
                prefix.push(s.clone());
                i += 1;
                if toks.get(i).is_some_and(|(t, _)| *t == Tok::Path) {
                    i += 1;
                    continue;
                }
                out.push(prefix);
                return i;
            }
            Some(Tok::Other('{')) => {
                i += 1;
                while i < toks.len() && toks[i].0 != Tok::Other('}') {
                    let before = i;
                    i = path_tree(toks, i, prefix.clone(), out);
                    if toks.get(i).is_some_and(|(t, _)| *t == Tok::Other(',')) {
                        i += 1;
                    }
                    if i == before {
                        i += 1;
                    }
                }
                return i + 1;
            }
            _ => {
                out.push(prefix);
                return i;
            }
        }
    }
}

/// The file holding the deepest module `segments` names, seen from module `current`.
fn resolve(
    segments: &[String],
    current: &[String],
    modules: &BTreeMap<Vec<String>, String>,
) -> Option<String> {
    let mut path: Vec<String> = match segments.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        _ => current.to_vec(),
    };
    let skip = usize::from(segments.first().is_some_and(|s| s == "crate"));
    for seg in &segments[skip..] {
        match seg.as_str() {
            "super" => {
                path.pop()?;
            }
            "self" => {}
            s => path.push(s.to_string()),
        }
    }
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]).cloned())
}

/// Tarjan's algorithm: groups of two or more files that reach each other.
fn strongly_connected(files: &[String], edges: &Edges) -> Vec<Vec<String>> {
    struct Walk<'a> {
        next: BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        groups: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.next.get(v).cloned().unwrap_or_default() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.groups.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        next: BTreeMap::new(),
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        groups: Vec::new(),
    };
    for (from, to) in edges.keys() {
        walk.next.entry(from).or_default().push(to);
    }
    for f in files {
        if !walk.index.contains_key(f.as_str()) {
            walk.visit(f);
        }
    }
    walk.groups.sort();
    walk.groups
}

#[test]
fn the_simulator_has_no_import_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let cycles = import_cycles(&src);
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// A throwaway crate source directory holding `files` (relative path, text).
fn source_tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("directories");
        std::fs::write(path, text).expect("a source file");
    }
    dir
}

#[test]
fn the_checker_finds_cycles_through_use_lines_groups_and_inline_paths() {
    let dir = source_tree(&[
        ("lib.rs", "mod a; mod b; mod c; mod routes;"),
        // a ↔ b: a `use` line one way, an inline path the other.
        ("a.rs", "use crate::b::Thing;\npub fn f() {}"),
        ("b.rs", "pub struct Thing;\nfn g() { super::a::f() }"),
        // c → a only: not part of a cycle.
        ("c.rs", "use crate::{a, b::{Thing as T}};"),
        // A parent naming its child and the child naming the parent back.
        (
            "routes/mod.rs",
            "mod sessions;\nfn router() { sessions::list() }\nfn deleted() {}",
        ),
        ("routes/sessions.rs", "pub fn list() { super::deleted() }"),
    ]);
    let cycles = import_cycles(dir.path());
    assert_eq!(cycles.len(), 2, "{cycles:#?}");
    assert!(cycles[0].starts_with("a.rs <-> b.rs\n"), "{}", cycles[0]);
    assert!(cycles[0].contains("a.rs:1 -> b.rs") && cycles[0].contains("b.rs:2 -> a.rs"));
    assert!(
        cycles[1].starts_with("routes/mod.rs <-> routes/sessions.rs\n"),
        "{}",
        cycles[1]
    );
}

#[test]
fn the_checker_ignores_prose_literals_own_tests_and_one_way_paths() {
    let dir = source_tree(&[
        ("lib.rs", "mod a; mod b;\npub use a::A;"),
        (
            "a.rs",
            "//! Not `crate::b` in a doc comment.\n\
             /* nor crate::b here */\n\
             pub struct A;\n\
             const S: &str = \"crate::b::X\";\n\
             const R: &str = r#\"super::b\"#;\n\
             const C: char = '\"';\n\
             fn f<'a>(x: &'a str) -> &'a str { x }\n\
             #[cfg(test)]\nmod tests { use super::*; }",
        ),
        ("b.rs", "use crate::a::A;\npub(crate) fn g(_: A) {}"),
    ]);
    assert_eq!(import_cycles(dir.path()), Vec::<String>::new());
}
