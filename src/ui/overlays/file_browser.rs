//! The workspace files overlay (`f` in the panes): the last snapshot's tree with when it
//! was taken, directories opened and closed in place, find by name, withheld files
//! explained, a file opened in the pager. The app fetches; this view only asks.

use super::pager::Pager;
use crate::readable::{times, units};
use crate::ui::overlays::{self, Overlay, OverlayAction, OverlayKey, ViewKey, ViewScope};
use crate::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gobare_api::files::FileTree;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};
use std::collections::HashSet;

const WITHHELD: &str =
    "not readable: the server withholds env files and key material (listed, never served)";
/// Characters of a find query.
const FIND_MAX: usize = 64;

/// One row of the tree: a file, or a directory its files' paths imply.
#[derive(Debug, Clone, PartialEq)]
struct Node {
    /// Relative to `/workspace`, sanitized.
    path: String,
    depth: usize,
    dir: bool,
    size: Option<u64>,
    readable: bool,
}

impl Node {
    fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

struct Tree {
    /// Depth first, each directory before what it holds.
    nodes: Vec<Node>,
    files: usize,
    captured_at: Option<i64>,
    missing: bool,
    truncated: bool,
}

impl Tree {
    fn of(listing: FileTree) -> Tree {
        let mut entries: Vec<(String, Option<u64>, bool, bool)> = listing
            .data
            .into_iter()
            .map(|f| {
                let path = f.path.strip_prefix("/workspace").unwrap_or(&f.path);
                let path = text::line(path.trim_matches('/')).into_owned();
                let dir = f.kind.as_deref() == Some("directory");
                (path, f.size_bytes, f.readable, dir)
            })
            .filter(|(p, ..)| !p.is_empty())
            .collect();
        // Component by component: with `/` as the lowest byte, plain byte order is that.
        entries.sort_by_cached_key(|e| e.0.replace('/', "\0"));
        entries.dedup_by(|a, b| a.0 == b.0);
        let mut nodes: Vec<Node> = Vec::with_capacity(entries.len() * 5 / 4);
        let mut files = 0;
        // The directories of the previous path: a new path opens only those it does not share.
        let mut open: Vec<String> = Vec::new();
        for (path, size, readable, dir) in entries {
            let parts: Vec<&str> = path.split('/').collect();
            let parents = &parts[..parts.len() - 1];
            let shared = open
                .iter()
                .zip(parents)
                .take_while(|(o, p)| o.rsplit('/').next() == Some(**p))
                .count();
            open.truncate(shared);
            for (depth, part) in parents.iter().enumerate().skip(shared) {
                let dir_path = match open.last() {
                    Some(up) => format!("{up}/{part}"),
                    None => (*part).to_string(),
                };
                nodes.push(Node {
                    path: dir_path.clone(),
                    depth,
                    dir: true,
                    size: None,
                    readable: true,
                });
                open.push(dir_path);
            }
            if dir {
                // Listed as a directory itself: one row, and its files (if any) go below it.
                if nodes.last().is_some_and(|n| n.path == path) {
                    continue;
                }
                open.push(path.clone());
            } else {
                files += 1;
            }
            let depth = parents.len();
            nodes.push(Node {
                path,
                depth,
                dir,
                size: if dir { None } else { size },
                readable,
            });
        }
        Tree {
            nodes,
            files,
            captured_at: listing.captured_at,
            missing: listing.state.as_deref() == Some("missing"),
            truncated: listing.truncated,
        }
    }
}

enum Listing {
    Loading,
    Failed(String),
    Ready(Tree),
}

pub(crate) struct FileBrowser {
    listing: Listing,
    /// When the listing arrived (Unix ms), for "3m ago".
    listed_at: i64,
    expanded: HashSet<String>,
    /// Rows shown (indices into the tree's nodes), rebuilt on every change.
    shown: Vec<usize>,
    selected: usize,
    top: usize,
    rows: usize,
    /// The name being found, while finding.
    find: Option<String>,
    status: Option<String>,
    /// A file opened from the tree; closing it comes back here.
    pager: Option<Pager>,
}

impl FileBrowser {
    pub(crate) fn loading() -> FileBrowser {
        FileBrowser {
            listing: Listing::Loading,
            listed_at: 0,
            expanded: HashSet::new(),
            shown: Vec::new(),
            selected: 0,
            top: 0,
            rows: 10,
            find: None,
            status: None,
            pager: None,
        }
    }

    /// The tree arrived at `now_ms` (or why not: a tree already shown stays, with the
    /// reason under it). Open directories stay open.
    pub(crate) fn listed(&mut self, result: Result<FileTree, String>, now_ms: i64) {
        match (result, &self.listing) {
            (Ok(tree), _) => {
                self.listed_at = now_ms;
                self.listing = Listing::Ready(Tree::of(tree));
                self.status = None;
            }
            (Err(why), Listing::Ready(_)) => {
                self.set_status(&format!("could not read the file tree: {why}"));
            }
            (Err(why), _) => self.listing = Listing::Failed(text::line(&why).into_owned()),
        }
        self.reshow();
    }

    pub(crate) fn set_status(&mut self, status: &str) {
        self.status = Some(text::one_line(status, 400));
    }

    pub(crate) fn show(&mut self, pager: Pager) {
        self.pager = Some(pager);
    }

    fn nodes(&self) -> &[Node] {
        match &self.listing {
            Listing::Ready(tree) => &tree.nodes,
            _ => &[],
        }
    }

    /// Rebuilds the rows shown: the open part of the tree, or the files matching the find.
    fn reshow(&mut self) {
        let Listing::Ready(tree) = &self.listing else {
            self.shown.clear();
            return;
        };
        self.shown.clear();
        match &self.find {
            Some(query) => {
                let query = query.to_lowercase();
                self.shown.extend(
                    tree.nodes
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| !n.dir && n.name().to_lowercase().contains(&query))
                        .map(|(i, _)| i),
                );
            }
            None => {
                // Below a closed directory until the depth comes back up to it.
                let mut closed_at: Option<usize> = None;
                for (i, n) in tree.nodes.iter().enumerate() {
                    if let Some(d) = closed_at {
                        if n.depth > d {
                            continue;
                        }
                        closed_at = None;
                    }
                    self.shown.push(i);
                    if n.dir && !self.expanded.contains(&n.path) {
                        closed_at = Some(n.depth);
                    }
                }
            }
        }
        self.selected = self.selected.min(self.shown.len().saturating_sub(1));
    }

    fn current(&self) -> Option<&Node> {
        self.nodes().get(*self.shown.get(self.selected)?)
    }

    fn move_by(&mut self, by: isize) {
        let last = self.shown.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(by).min(last);
    }

    /// Enter: a directory opens or closes, a file is asked for (unless withheld).
    fn open(&mut self) -> OverlayKey {
        let Some(node) = self.current().cloned() else {
            return OverlayKey::Ignored;
        };
        if node.dir {
            if !self.expanded.remove(&node.path) {
                self.expanded.insert(node.path);
            }
            self.reshow();
            return OverlayKey::Handled;
        }
        if !node.readable {
            self.status = Some(format!("{}: {WITHHELD}", node.name()));
            return OverlayKey::Handled;
        }
        self.status = Some(format!("opening {}…", node.path));
        OverlayKey::Act(OverlayAction::OpenFile { path: node.path })
    }

    fn header(&self, tree: &Tree) -> String {
        if tree.missing || tree.captured_at.is_none() {
            return "no snapshot yet: r takes one (it wakes a paused workspace)".into();
        }
        let at = tree.captured_at.unwrap_or_default();
        let files = match tree.files {
            1 => "1 file".to_string(),
            n => format!("{n} files"),
        };
        let cut = if tree.truncated {
            " · the server cut the list short"
        } else {
            ""
        };
        format!(
            "snapshot from {} ({}) · {files}{cut} · r takes a new one",
            times::ago(at, self.listed_at),
            times::utc(at)
        )
    }

    fn row(&self, n: &Node, width: usize) -> String {
        let marker = match (n.dir, self.expanded.contains(&n.path)) {
            (true, true) => "▾ ",
            (true, false) => "▸ ",
            (false, _) => "  ",
        };
        let (indent, name) = if self.find.is_some() {
            (String::new(), n.path.as_str())
        } else {
            ("  ".repeat(n.depth), n.name())
        };
        let tail = match (n.readable, n.size) {
            (false, _) => "  not readable".to_string(),
            (true, Some(size)) => format!("  {:>9}", units::size(size)),
            (true, None) => String::new(),
        };
        let head = format!("{indent}{marker}");
        let room = width
            .saturating_sub(text::width(&head) + text::width(&tail))
            .max(8);
        let name = text::one_line_within(name, room);
        let pad = room.saturating_sub(text::width(&name));
        format!("{head}{name}{}{tail}", " ".repeat(pad))
    }
}

impl Overlay for FileBrowser {
    fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if let Some(pager) = &mut self.pager {
            pager.render(area, buf, theme);
            return;
        }
        let area = overlays::area(area);
        // Borders, the header, the rows, the find or status line.
        self.rows = usize::from(area.height.saturating_sub(4)).max(1);
        let width = usize::from(area.width.saturating_sub(2));
        let mut lines: Vec<Line<'static>> = Vec::new();
        match &self.listing {
            Listing::Loading => lines.push(Line::styled("reading the file tree…", theme.dim)),
            Listing::Failed(why) => lines.push(Line::styled(
                format!("could not read the file tree: {why}"),
                theme.error,
            )),
            Listing::Ready(tree) => {
                lines.push(Line::styled(self.header(tree), theme.dim));
                if self.selected < self.top {
                    self.top = self.selected;
                } else if self.selected >= self.top + self.rows {
                    self.top = self.selected + 1 - self.rows;
                }
                self.top = self.top.min(self.shown.len().saturating_sub(1));
                let end = (self.top + self.rows).min(self.shown.len());
                for (at, &i) in self.shown[self.top..end].iter().enumerate() {
                    let n = &tree.nodes[i];
                    let style = if self.top + at == self.selected {
                        theme.selection
                    } else if !n.readable {
                        theme.dim
                    } else if n.dir {
                        theme.accent
                    } else {
                        theme.text
                    };
                    lines.push(Line::styled(self.row(n, width), style));
                }
                if self.shown.is_empty() && self.find.is_some() {
                    lines.push(Line::styled("no file has that in its name", theme.dim));
                }
            }
        }
        while lines.len() < self.rows + 1 {
            lines.push(Line::default());
        }
        // While finding, the find line is the last; a status goes just above it.
        if let (Some(_), Some(status)) = (&self.find, &self.status) {
            lines.truncate(self.rows);
            lines.push(Line::styled(status.clone(), theme.text));
        }
        lines.push(match (&self.find, &self.status) {
            (Some(query), _) => Line::from(vec![
                Span::styled("find: ", theme.key_hint),
                Span::styled(query.clone(), theme.text),
                Span::styled("▏", theme.dim),
            ]),
            (None, Some(status)) => Line::styled(status.clone(), theme.text),
            (None, None) => Line::default(),
        });
        let keys = format!(" {} ", crate::keys::table::view_hints(self.scope()));
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_focused)
            .title(Span::styled(" Workspace files ", theme.title))
            .title_bottom(Span::styled(keys, theme.dim));
        Clear.render(area, buf);
        Paragraph::new(lines).block(block).render(area, buf);
    }

    fn scope(&self) -> ViewScope {
        match (&self.pager, &self.find) {
            (Some(pager), _) => pager.scope(),
            (None, Some(_)) => ViewScope::FilesFinding,
            (None, None) => ViewScope::Files,
        }
    }

    fn handle(&mut self, key: ViewKey) -> OverlayKey {
        if let Some(pager) = &mut self.pager {
            return match pager.handle(key) {
                OverlayKey::Close => {
                    self.pager = None;
                    OverlayKey::Handled
                }
                other => other,
            };
        }
        let page = isize::try_from(self.rows.max(2) - 1).unwrap_or(1);
        match key {
            ViewKey::Up => self.move_by(-1),
            ViewKey::Down => self.move_by(1),
            ViewKey::PageUp => self.move_by(-page),
            ViewKey::PageDown => self.move_by(page),
            ViewKey::Open => return self.open(),
            ViewKey::StopFinding => {
                self.find = None;
                self.status = None;
                self.selected = 0;
                self.reshow();
            }
            ViewKey::Close => return OverlayKey::Close,
            ViewKey::Top => self.selected = 0,
            ViewKey::Bottom => self.move_by(isize::MAX),
            ViewKey::Expand => match self.current() {
                Some(n) if n.dir && !self.expanded.contains(&n.path) => return self.open(),
                _ => {}
            },
            ViewKey::Collapse => match self.current() {
                Some(n) if n.dir && self.expanded.contains(&n.path) => return self.open(),
                _ => {}
            },
            ViewKey::Find => {
                self.find = Some(String::new());
                self.selected = 0;
                self.reshow();
            }
            ViewKey::Refresh => {
                self.status = Some("taking a new snapshot (it wakes a paused workspace)…".into());
                return OverlayKey::Act(OverlayAction::ListFiles { snapshot: true });
            }
            _ => return OverlayKey::Ignored,
        }
        OverlayKey::Handled
    }

    fn unrouted(&mut self, key: KeyEvent) -> OverlayKey {
        if self.pager.is_some() {
            return OverlayKey::Ignored;
        }
        self.find_key(key)
    }
}

impl FileBrowser {
    /// A key while finding: letters are the name.
    fn find_key(&mut self, key: KeyEvent) -> OverlayKey {
        let Some(query) = &mut self.find else {
            return OverlayKey::Ignored;
        };
        match key.code {
            KeyCode::Backspace => {
                query.pop();
            }
            KeyCode::Char(c)
                if !key.modifiers.contains(KeyModifiers::CONTROL)
                    && !c.is_control()
                    && query.chars().count() < FIND_MAX =>
            {
                query.push(c);
            }
            _ => return OverlayKey::Ignored,
        }
        self.status = None;
        self.selected = 0;
        self.reshow();
        OverlayKey::Handled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::overlays::press;
    use serde_json::json;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn tree(paths: &[&str]) -> FileTree {
        let data: Vec<_> = paths
            .iter()
            .map(|p| {
                json!({"object": "workspace_file", "type": "file", "path": p, "size_bytes": 1200,
                       "readable": !p.ends_with(".env")})
            })
            .collect();
        serde_json::from_value(json!({"object": "list", "data": data,
            "captured_at": 1_000_000, "state": "ready", "truncated": false}))
        .unwrap()
    }

    fn drawn(b: &mut FileBrowser, w: u16, h: u16) -> String {
        let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
        b.render(buf.area, &mut buf, &Theme::default());
        crate::ui::text::buffer_text::rows(&buf)
    }

    fn browser(paths: &[&str]) -> FileBrowser {
        let mut b = FileBrowser::loading();
        b.listed(Ok(tree(paths)), 1_000_000 + 180_000);
        b
    }

    #[test]
    fn directories_come_before_their_files_and_open_in_place() {
        let mut b = browser(&["src/main.rs", "README.md", "src/ui/a.rs", "a.txt", ".env"]);
        let Listing::Ready(t) = &b.listing else {
            panic!()
        };
        let rows: Vec<(&str, usize, bool)> = t
            .nodes
            .iter()
            .map(|n| (n.path.as_str(), n.depth, n.dir))
            .collect();
        assert_eq!(
            rows,
            [
                (".env", 0, false),
                ("README.md", 0, false),
                ("a.txt", 0, false),
                ("src", 0, true),
                ("src/main.rs", 1, false),
                ("src/ui", 1, true),
                ("src/ui/a.rs", 2, false),
            ]
        );
        let screen = drawn(&mut b, 90, 14);
        assert!(
            screen.contains("snapshot from 3m ago") && screen.contains("5 files"),
            "{screen}"
        );
        assert!(screen.contains("▸ src") && !screen.contains("main.rs"));
        press(&mut b, key(KeyCode::End));
        assert_eq!(press(&mut b, key(KeyCode::Enter)), OverlayKey::Handled);
        let screen = drawn(&mut b, 90, 14);
        assert!(
            screen.contains("▾ src") && screen.contains("main.rs"),
            "{screen}"
        );
        assert!(screen.contains("▸ ui") && !screen.contains("a.rs "));
        press(&mut b, key(KeyCode::Down));
        assert_eq!(
            press(&mut b, key(KeyCode::Enter)),
            OverlayKey::Act(OverlayAction::OpenFile {
                path: "src/main.rs".into()
            })
        );
    }

    #[test]
    fn withheld_files_say_why_and_are_not_asked_for() {
        let mut b = browser(&[".env", "a.txt"]);
        assert!(drawn(&mut b, 90, 10).contains("not readable"));
        assert_eq!(press(&mut b, key(KeyCode::Enter)), OverlayKey::Handled);
        let screen = drawn(&mut b, 120, 10);
        assert!(
            screen.contains(".env: not readable: the server withholds env files"),
            "{screen}"
        );
    }

    #[test]
    fn find_by_name_lists_matching_files_with_their_paths() {
        let mut b = browser(&["src/main.rs", "src/ui/main_view.rs", "docs/x.md"]);
        press(&mut b, key(KeyCode::Char('/')));
        for c in "MAIN".chars() {
            press(&mut b, key(KeyCode::Char(c)));
        }
        let screen = drawn(&mut b, 90, 12);
        assert!(screen.contains("find: MAIN"), "{screen}");
        assert!(screen.contains("src/main.rs") && screen.contains("src/ui/main_view.rs"));
        assert!(!screen.contains("x.md"));
        // `q` and `r` are part of the name while finding.
        assert_eq!(press(&mut b, key(KeyCode::Char('q'))), OverlayKey::Handled);
        assert!(drawn(&mut b, 90, 12).contains("no file has that in its name"));
        press(&mut b, key(KeyCode::Backspace));
        press(&mut b, key(KeyCode::Down));
        assert_eq!(
            press(&mut b, key(KeyCode::Enter)),
            OverlayKey::Act(OverlayAction::OpenFile {
                path: "src/ui/main_view.rs".into()
            })
        );
        press(&mut b, key(KeyCode::Esc));
        assert!(drawn(&mut b, 90, 12).contains("▸ docs"));
    }

    #[test]
    fn no_snapshot_and_refresh_say_what_they_do() {
        let mut b = FileBrowser::loading();
        let missing = serde_json::from_value(json!({"object": "list", "data": [],
            "captured_at": null, "state": "missing", "truncated": false}))
        .unwrap();
        b.listed(Ok(missing), 0);
        assert!(drawn(&mut b, 90, 10).contains("no snapshot yet: r takes one"));
        assert_eq!(
            press(&mut b, key(KeyCode::Char('r'))),
            OverlayKey::Act(OverlayAction::ListFiles { snapshot: true })
        );
        assert!(drawn(&mut b, 90, 10).contains("taking a new snapshot"));
        b.listed(Ok(tree(&["a.txt"])), 0);
        b.listed(Err("conflict: not ready".into()), 0);
        let screen = drawn(&mut b, 90, 10);
        assert!(
            screen.contains("a.txt") && screen.contains("could not read the file tree: conflict"),
            "a failed refresh keeps the tree shown: {screen}"
        );
    }

    /// The first frame of the browser over a 10,000-file listing: JSON decode, tree, draw.
    /// Budget < 100 ms; run with `cargo test --release --lib file_browser -- --ignored
    /// --nocapture`.
    #[test]
    #[ignore = "performance figure: run with --ignored --nocapture"]
    fn first_frame_of_10k_files() {
        let data: Vec<_> = (0..10_000)
            .map(|i| {
                json!({"object": "workspace_file", "type": "file", "size_bytes": i,
                   "path": format!("src/mod{}/sub{}/file{i}.rs", i % 50, i % 7), "readable": true})
            })
            .collect();
        let body = serde_json::to_vec(&json!({"object": "list", "data": data,
            "captured_at": 1, "state": "ready", "truncated": false}))
        .unwrap();
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let mut times = Vec::new();
        for _ in 0..5 {
            let started = std::time::Instant::now();
            let listing: FileTree = serde_json::from_slice(&body).unwrap();
            let decoded = started.elapsed();
            let mut b = FileBrowser::loading();
            b.listed(Ok(listing), 2);
            let built = started.elapsed();
            let mut buf = Buffer::empty(Rect::new(0, 0, 160, 48));
            b.render(buf.area, &mut buf, &Theme::default());
            times.push((started.elapsed(), decoded, built - decoded));
        }
        times.sort();
        let (total, decode, tree) = times[2];
        println!(
            "perf: file browser, 10,000 files ({} KB listing), decode + tree + first frame: \
             median {:.1} ms (decode {:.1}, tree {:.1}; min {:.1}, max {:.1}; budget < 100 ms)",
            body.len() / 1000,
            ms(total),
            ms(decode),
            ms(tree),
            ms(times[0].0),
            ms(times[4].0)
        );
    }
}
