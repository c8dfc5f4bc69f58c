//! The shape of the source tree, checked: no file-level import cycle in any crate, and
//! DESIGN.md's file map lists exactly the files there are, each with what its module doc says.
//!
//! `UPDATE_FILE_MAP=1 cargo test layout` rewrites the map from the module docs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const CRATE_SOURCES: [&str; 4] = [
    "crates/gobare-api/src",
    "crates/gobare-sim/src",
    "crates/gobare-test-support/src",
    "src",
];
const MAP_START: &str = "<!-- file-map:start -->";
const MAP_END: &str = "<!-- file-map:end -->";

/// Every `.rs` file under `dir`, sorted, as paths relative to the repository root.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![Path::new(ROOT).join(dir)];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path.strip_prefix(ROOT).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file inside its crate (`src/app/mod.rs` → `["app"]`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Unit tests live beside their module; they are part of it, not a file with its own edges.
fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().unwrap().to_string_lossy();
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// Every production file under `dir` (not a test file) as (path, code without tests).
fn production_code(dir: &str) -> Vec<(String, String)> {
    rust_files(Path::new(dir))
        .into_iter()
        .filter(|f| !is_test_file(f))
        .map(|f| {
            let text = std::fs::read_to_string(Path::new(ROOT).join(&f)).unwrap();
            (f.display().to_string(), code_without_tests(&text))
        })
        .collect()
}

/// The code of a file without its `#[cfg(test)] mod tests { … }` block and comments.
fn code_without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    let mut depth = 0i32;
    let mut pending_cfg_test = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if skipping {
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
            if depth <= 0 {
                skipping = false;
            }
            continue;
        }
        if trimmed.starts_with("#[cfg(test)]") {
            pending_cfg_test = true;
            continue;
        }
        if pending_cfg_test && trimmed.starts_with("mod ") && trimmed.ends_with('{') {
            skipping = true;
            depth = 1;
            pending_cfg_test = false;
            continue;
        }
        pending_cfg_test = false;
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The module paths a file refers to through `crate::…` and `super::…` (in `use` lines and
/// inline), resolved to the longest prefix that is a file of the crate.
fn references(
    code: &str,
    module: &[String],
    is_mod_file: bool,
    files: &BTreeMap<Vec<String>, PathBuf>,
) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    let bytes = code.as_bytes();
    for (i, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
            continue;
        }
        // `super` from `a/b.rs` (module a::b) is `a`; from `a/b/mod.rs` (also a::b) it is `a`.
        let mut path: Vec<String> = if code[i..].starts_with("crate::") {
            Vec::new()
        } else {
            module[..module.len().saturating_sub(1)].to_vec()
        };
        let _ = is_mod_file;
        let rest = &code[i..];
        let mut segments = rest.split("::").skip(1);
        let mut after_supers = rest.starts_with("super::");
        for seg in segments.by_ref() {
            let name: String = seg
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name == "super" && after_supers {
                path.pop();
                continue;
            }
            after_supers = false;
            if name.is_empty() {
                // `crate::{a, b::c}`: each listed module.
                if let Some(list) = seg.strip_prefix('{') {
                    let list = list.split('}').next().unwrap_or("");
                    for item in list.split(',') {
                        let first = item.trim().split("::").next().unwrap_or("").trim();
                        let mut p = path.clone();
                        p.push(first.to_string());
                        if files.contains_key(&p) {
                            out.insert(p);
                        }
                    }
                }
                break;
            }
            path.push(name);
            if !files.contains_key(&path) {
                path.pop();
                break;
            }
            if !seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                break;
            }
        }
        if path != module && files.contains_key(&path) {
            out.insert(path);
        }
    }
    out
}

/// Strongly connected components of more than one file (Tarjan).
fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        next: usize,
        found: Vec<Vec<Vec<String>>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Vec<String>) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let Some((w, _)) = self.graph.get_key_value(w) else {
                    continue;
                };
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
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

/// The file-level import graph of the crate whose sources are under `src`.
fn import_graph(src: &str) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let src = Path::new(src);
    let files: BTreeMap<Vec<String>, PathBuf> = rust_files(src)
        .into_iter()
        // `main.rs` only calls the library, through its name rather than `crate::`.
        .filter(|f| !is_test_file(f) && !f.ends_with("main.rs"))
        .map(|f| (module_of(src, &f), f))
        .collect();
    files
        .iter()
        .map(|(module, file)| {
            let text = std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap();
            let is_mod_file = file.ends_with("mod.rs");
            let refs = references(&code_without_tests(&text), module, is_mod_file, &files);
            (module.clone(), refs)
        })
        .collect()
}

#[test]
fn no_crate_has_an_import_cycle_between_files() {
    let mut report = Vec::new();
    for src in CRATE_SOURCES {
        for cycle in cycles(&import_graph(src)) {
            let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
            report.push(format!("{src}: {}", names.join(" ↔ ")));
        }
    }
    assert!(report.is_empty(), "import cycles:\n{}", report.join("\n"));
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let a = vec!["a".to_string()];
    let b = vec!["b".to_string()];
    let files: BTreeMap<Vec<String>, PathBuf> =
        [(a.clone(), "a.rs".into()), (b.clone(), "b.rs".into())]
            .into_iter()
            .collect();
    let mut graph = BTreeMap::new();
    graph.insert(
        a.clone(),
        references("use crate::b::Thing;", &a, false, &files),
    );
    graph.insert(
        b.clone(),
        references("fn f() { super::a::g() }", &b, false, &files),
    );
    assert_eq!(cycles(&graph).len(), 1, "{graph:?}");
    graph.insert(b.clone(), BTreeSet::new());
    assert!(cycles(&graph).is_empty());
}

/// What a file says it is: the first sentence of its module doc.
fn summary(file: &Path) -> String {
    let text = std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap();
    let doc: Vec<&str> = text
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim())
        .take_while(|l| !l.is_empty())
        .collect();
    let doc = doc.join(" ");
    let sentence = match doc.find(". ") {
        Some(end) => &doc[..=end],
        None => doc.as_str(),
    };
    sentence.replace('|', "\\|")
}

fn expected_map() -> String {
    let mut out = String::from("| file | what it is |\n| --- | --- |\n");
    for src in CRATE_SOURCES {
        for file in rust_files(Path::new(src)) {
            if is_test_file(&file) {
                continue;
            }
            out.push_str(&format!("| `{}` | {} |\n", file.display(), summary(&file)));
        }
    }
    out
}

#[test]
fn design_file_map_matches_the_tree() {
    let path = Path::new(ROOT).join("docs/DESIGN.md");
    let design = std::fs::read_to_string(&path).unwrap();
    let start = design.find(MAP_START).expect("DESIGN.md has a file map") + MAP_START.len();
    let end = design.find(MAP_END).expect("the file map ends");
    let expected = expected_map();
    let actual = design[start..end].trim_matches('\n');
    if std::env::var_os("UPDATE_FILE_MAP").is_some() {
        let updated = format!("{}\n{}{}", &design[..start], expected, &design[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    for src in CRATE_SOURCES {
        for file in rust_files(Path::new(src)) {
            assert!(
                is_test_file(&file) || !summary(&file).is_empty(),
                "{} has no module doc (`//!`) saying what it is",
                file.display()
            );
        }
    }
    assert_eq!(
        actual,
        expected.trim_matches('\n'),
        "DESIGN.md's file map is stale: run `UPDATE_FILE_MAP=1 cargo test layout`"
    );
}

/// The folders that drive the others: nothing below them reaches back up into them.
const TOP_FOLDERS: [&str; 2] = ["app", "commands"];
/// What may import a top folder: the crate's root and the command-line entry, which sit
/// above both; and `commands`, which starts the runtime in `app`.
fn may_reach_top(module: &[String], target: &str) -> bool {
    match module.first().map(String::as_str) {
        None | Some("entry") => true,
        Some("commands") => target == "app" || target == "commands",
        Some("app") => target == "app",
        Some(_) => false,
    }
}

/// Every arrow from a lower folder up into `app/` or `commands/` (and from `app/` up into
/// `commands/`), as "from → to".
fn arrows_back_up(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let mut found = Vec::new();
    for (module, refs) in graph {
        for target in refs {
            let Some(top) = target.first().map(String::as_str) else {
                continue;
            };
            if TOP_FOLDERS.contains(&top) && !may_reach_top(module, top) {
                found.push(format!("{} → {}", module.join("::"), target.join("::")));
            }
        }
    }
    found
}

#[test]
fn nothing_below_app_and_commands_reaches_back_up_into_them() {
    let found = arrows_back_up(&import_graph("src"));
    assert!(
        found.is_empty(),
        "arrows back up into app/ or commands/:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_back_up_check_finds_an_arrow_back_up() {
    let ui = vec!["ui".to_string(), "pane".to_string()];
    let app = vec!["app".to_string(), "keys".to_string()];
    let files: BTreeMap<Vec<String>, PathBuf> = [
        (vec!["ui".to_string()], "ui/mod.rs".into()),
        (ui.clone(), "ui/pane.rs".into()),
        (vec!["app".to_string()], "app/mod.rs".into()),
        (app.clone(), "app/keys.rs".into()),
    ]
    .into_iter()
    .collect();
    let mut graph = BTreeMap::new();
    graph.insert(
        app.clone(),
        references("use crate::ui::pane::Pane;", &app, false, &files),
    );
    graph.insert(ui.clone(), BTreeSet::new());
    assert!(arrows_back_up(&graph).is_empty(), "{graph:?}");
    graph.insert(
        ui.clone(),
        references("crate::app::keys::hint()", &ui, false, &files),
    );
    assert_eq!(
        arrows_back_up(&graph),
        vec!["ui::pane → app::keys".to_string()]
    );
}

/// The one file that enters the terminal, reads its events and runs the one loop over them.
const RUNTIME: &str = "src/app/runtime/mod.rs";
/// The other `select!`s of the crate, none of which touches the terminal: each races one
/// piece of IO against its end, or runs a task without a screen.
const OTHER_SELECTS: [(&str, &str); 9] = [
    ("src/commands/tail.rs", "prints frames, reads no key"),
    (
        "src/downloads/save.rs",
        "a download against its cancellation",
    ),
    ("src/commands/follow.rs", "prints lines, reads no key"),
    (
        "src/commands/wait.rs",
        "follows a stream until a deadline, reads no key",
    ),
    ("src/commands/export.rs", "a replay against Ctrl+C"),
    ("src/commands/diff.rs", "a replay against Ctrl+C"),
    ("src/commands/sim.rs", "the simulator until Ctrl+C"),
    ("src/app/fleet/live.rs", "the fleet's network task"),
    (
        "src/export/markdown_thread.rs",
        "a wait for turn facts against the export's end",
    ),
];

/// What in `files` (path, code without tests) breaks "one runtime": the terminal entered,
/// its events read, or a frame drawn outside [`RUNTIME`]'s loop, or a `select!` anywhere
/// but there and the known ones.
fn second_loops(files: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (path, code) in files {
        if path == RUNTIME || path == "src/terminal.rs" {
            continue;
        }
        for needle in [
            "terminal::enter(",
            "terminal::enter_lines(",
            "terminal::events(",
        ] {
            if code.contains(needle) {
                found.push(format!("{path}: {needle}…) outside the runtime"));
            }
        }
        if code.contains("select!") {
            match OTHER_SELECTS.iter().find(|(p, _)| p == path) {
                None => found.push(format!("{path}: a second select! loop")),
                Some(_) if code.contains(".draw(") || code.contains("crossterm::event") => {
                    found.push(format!("{path}: a select! that touches the terminal"))
                }
                Some(_) => {}
            }
        }
    }
    found
}

#[test]
fn one_runtime_enters_the_terminal_and_runs_the_one_loop() {
    let files = production_code("src");
    let runtime = &files
        .iter()
        .find(|(p, _)| p == RUNTIME)
        .expect("the runtime")
        .1;
    assert_eq!(
        runtime.matches("select!").count(),
        1,
        "one select! in the runtime"
    );
    let found = second_loops(&files);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_loop_check_finds_a_second_loop_and_a_second_enter() {
    let fleet = |code: &str| vec![("src/commands/fleet.rs".to_string(), code.to_string())];
    assert!(second_loops(&fleet("fn run() {}")).is_empty());
    assert_eq!(second_loops(&fleet("loop { tokio::select! { } }")).len(), 1);
    assert_eq!(
        second_loops(&fleet("let t = terminal::enter(false)?;")).len(),
        1
    );
}

/// The app's rooms: the runtime runs one front at a time, the two fronts stand side by side,
/// and what both use is below them.
const APP_ROOMS: [&str; 4] = ["fleet", "runtime", "session", "shared"];

/// May a module in app room `from` import app room `to`?
fn app_room_may_reach(from: &str, to: &str) -> bool {
    from == to
        || match from {
            "runtime" => true,
            "session" | "fleet" => to == "shared",
            _ => false,
        }
}

/// Every arrow between the app's rooms that the rooms' order forbids: a front into the
/// other front or into the runtime, `shared` into anything above it.
fn arrows_between_app_rooms(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let room = |module: &[String]| match module {
        [app, room, ..] if app == "app" => Some(room.clone()),
        _ => None,
    };
    let mut found = Vec::new();
    for (module, refs) in graph {
        let Some(from) = room(module) else { continue };
        for target in refs {
            if let Some(to) = room(target)
                && !app_room_may_reach(&from, &to)
            {
                found.push(format!("{} → {}", module.join("::"), target.join("::")));
            }
        }
    }
    found
}

#[test]
fn the_app_is_a_runtime_two_fronts_and_what_they_share() {
    let mut entries: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("src/app"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    let mut expected: Vec<String> = APP_ROOMS.iter().map(|r| r.to_string()).collect();
    expected.push("mod.rs".to_string());
    expected.sort();
    assert_eq!(
        entries, expected,
        "src/app holds its rooms and nothing else"
    );
    let found = arrows_between_app_rooms(&import_graph("src"));
    assert!(
        found.is_empty(),
        "arrows between the app's rooms that their order forbids:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_rooms_check_finds_a_front_reaching_into_the_other() {
    let module = |path: &[&str]| path.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    let mut graph = BTreeMap::new();
    graph.insert(
        module(&["app", "fleet", "inbox"]),
        [module(&["app", "shared", "sender"])].into_iter().collect(),
    );
    graph.insert(
        module(&["app", "runtime"]),
        [module(&["app", "session"]), module(&["app", "fleet"])]
            .into_iter()
            .collect(),
    );
    assert!(arrows_between_app_rooms(&graph).is_empty(), "{graph:?}");
    graph.insert(
        module(&["app", "session", "acting"]),
        [module(&["app", "fleet", "live"])].into_iter().collect(),
    );
    graph.insert(
        module(&["app", "shared", "saved_session"]),
        [module(&["app", "session", "saving"])]
            .into_iter()
            .collect(),
    );
    assert_eq!(
        arrows_between_app_rooms(&graph),
        vec![
            "app::session::acting → app::fleet::live".to_string(),
            "app::shared::saved_session → app::session::saving".to_string(),
        ]
    );
}

/// What only IO code says: a spawned task, an await, the network, the disk.
const IO_MARKS: [&str; 7] = [
    ".await",
    "tokio::spawn",
    "gobare_api::client",
    "gobare_api::stream",
    "std::fs",
    "std::net",
    "reqwest",
];

#[test]
fn the_fleet_model_does_no_io() {
    let mut found = Vec::new();
    for (path, code) in production_code("src/fleet") {
        for mark in IO_MARKS {
            if code.contains(mark) {
                found.push(format!("{path}: {mark}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "src/fleet is the fleet's pure model; its IO belongs to the fleet front (src/app/fleet):\n{}",
        found.join("\n")
    );
}

/// The one file under `app/` that starts background work, and the one thread with a reason of
/// its own (it blocks on the terminal's answer, which no runtime thread may do).
const JOBS: &str = "src/app/shared/jobs.rs";
const OWN_THREADS: [&str; 1] = ["src/app/runtime/theme_asked.rs"];

/// Files under `app/` (path, code without tests) that start background work themselves.
fn spawns_outside_jobs(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(path, _)| path != JOBS && !OWN_THREADS.contains(&path.as_str()))
        .filter(|(_, code)| {
            [
                "tokio::spawn",
                "task::spawn_blocking",
                "thread::spawn",
                "thread::Builder",
            ]
            .iter()
            .any(|needle| code.contains(needle))
        })
        .map(|(path, _)| path.clone())
        .collect()
}

#[test]
fn background_work_in_the_app_has_one_face() {
    let files = production_code("src/app");
    let found = spawns_outside_jobs(&files);
    assert!(
        found.is_empty(),
        "start background work through app::shared::jobs (a kind of Job, listed there):\n{}",
        found.join("\n")
    );
    let planted = vec![(
        "src/app/session/x.rs".to_string(),
        "fn f() { tokio::spawn(async {}); }".to_string(),
    )];
    assert_eq!(spawns_outside_jobs(&planted), ["src/app/session/x.rs"]);
}

/// Most modules a folder holds before it is split into rooms of its own.
const MOST_MODULES: usize = 25;

/// Every folder of the crates with more than [`MOST_MODULES`] production modules.
fn folders_over(most: usize) -> Vec<String> {
    let mut per_folder: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for src in CRATE_SOURCES {
        for file in rust_files(Path::new(src)) {
            if !is_test_file(&file) {
                *per_folder
                    .entry(file.parent().unwrap().to_path_buf())
                    .or_default() += 1;
            }
        }
    }
    per_folder
        .into_iter()
        .filter(|(_, n)| *n > most)
        .map(|(folder, n)| format!("{} ({n})", folder.display()))
        .collect()
}

#[test]
fn no_folder_holds_more_than_twenty_five_modules() {
    let over = folders_over(MOST_MODULES);
    assert!(over.is_empty(), "split these into rooms: {over:?}");
    assert!(!folders_over(1).is_empty(), "the count sees folders");
}
