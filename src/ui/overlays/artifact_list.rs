//! The artifacts overlay (`a` in the panes): the session's artifacts (path, size, turn,
//! time), opened in a pager or saved, one, all or a turn's archive. The app fetches and
//! saves; this view asks before an overwrite and shows what happened.

use super::pager::Pager;
use super::save_progress::SaveProgress;
use crate::readable::{times, units};
use crate::ui::overlays::{self, Overlay, OverlayAction, OverlayKey, ViewKey, ViewScope};
use crate::ui::theme::Theme;
use crossterm::event::KeyEvent;
use gobare_api::model::Artifact;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

/// The most cells a turn id takes in a row.
const TURN_COLS: usize = 24;

enum Listing {
    Loading,
    Failed(String),
    Ready(Vec<Artifact>),
}

pub(crate) struct ArtifactList {
    listing: Listing,
    selected: usize,
    top: usize,
    rows: usize,
    /// Where saves go, as shown.
    save_dir: String,
    /// What the last action did (sanitized).
    status: Option<String>,
    /// A download under way, drawn as a bar in the status row until the next status.
    progress: Option<SaveProgress>,
    /// A question waiting for y or n, and what y does.
    asking: Option<(String, OverlayAction)>,
    /// An artifact opened from the list; closing it comes back here.
    pager: Option<Pager>,
}

impl ArtifactList {
    /// The list while it loads; saves go to `save_dir` (shown as given).
    pub(crate) fn loading(save_dir: String) -> ArtifactList {
        ArtifactList {
            listing: Listing::Loading,
            selected: 0,
            top: 0,
            rows: 10,
            save_dir,
            status: None,
            progress: None,
            asking: None,
            pager: None,
        }
    }

    /// The listing arrived (or why not, already a sentence).
    pub(crate) fn listed(&mut self, result: Result<Vec<Artifact>, String>) {
        self.listing = match result {
            Ok(list) => Listing::Ready(list),
            Err(why) => Listing::Failed(text::line(&why).into_owned()),
        };
        self.selected = 0;
        self.top = 0;
    }

    /// A status line: what is being done, a saved path, an error. It replaces any progress.
    pub(crate) fn set_status(&mut self, status: &str) {
        self.status = Some(text::one_line(status, 400));
        self.progress = None;
    }

    /// A download's progress, drawn as a bar in the status row.
    pub(crate) fn set_progress(&mut self, progress: SaveProgress) {
        self.progress = Some(progress);
    }

    /// Asks `question`; `y` then requests `action`.
    pub(crate) fn ask(&mut self, question: &str, action: OverlayAction) {
        self.asking = Some((text::one_line(question, 400), action));
    }

    /// Shows an opened artifact over the list.
    pub(crate) fn show(&mut self, pager: Pager) {
        self.pager = Some(pager);
    }

    fn artifacts(&self) -> &[Artifact] {
        match &self.listing {
            Listing::Ready(list) => list,
            _ => &[],
        }
    }

    fn current(&self) -> Option<&Artifact> {
        self.artifacts().get(self.selected)
    }

    fn move_by(&mut self, by: isize) {
        let last = self.artifacts().len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(by).min(last);
    }

    /// The turn column's width for these rows: the widest id shown, at most [`TURN_COLS`]
    /// cells, so the times line up.
    fn turn_cols(shown: &[Artifact]) -> usize {
        shown
            .iter()
            .map(|a| text::width(&text::one_line_within(&a.turn_id, TURN_COLS)))
            .max()
            .unwrap_or(0)
    }

    /// Every width in cells: ids and paths are the server's, and a wide character must
    /// not push the size, turn or time off the overlay.
    fn row(a: &Artifact, width: usize, turn_cols: usize) -> String {
        let size = units::size(a.size_bytes);
        let time = a.created_at.map(times::utc).unwrap_or_else(|| "-".into());
        let turn = text::one_line_within(&a.turn_id, turn_cols);
        let turn_pad = " ".repeat(turn_cols.saturating_sub(text::width(&turn)));
        let tail = format!("  {size:>9}  {turn}{turn_pad}  {time}");
        let room = width.saturating_sub(text::width(&tail)).max(12);
        let path = a
            .path
            .strip_prefix("/workspace/outputs/")
            .unwrap_or(&a.path);
        let path = text::one_line_within(path, room);
        let pad = room.saturating_sub(text::width(&path));
        format!("{path}{}{tail}", " ".repeat(pad))
    }

    /// The list's lines, scrolled so the selection shows (or why there is no list), and
    /// the count for the title.
    fn list_lines(&mut self, width: usize, theme: &Theme) -> (Vec<Line<'static>>, String) {
        let list = match &self.listing {
            Listing::Loading => {
                return (
                    vec![Line::styled("loading the artifacts…", theme.dim)],
                    String::new(),
                );
            }
            Listing::Failed(why) => {
                let failed = format!("could not list the artifacts: {why}");
                return (vec![Line::styled(failed, theme.error)], String::new());
            }
            Listing::Ready(list) if list.is_empty() => {
                let none = Line::styled(
                    "no artifacts yet: files the agent writes under /workspace/outputs \
                     appear here once its turn settles",
                    theme.dim,
                );
                return (vec![none], " · 0".into());
            }
            Listing::Ready(list) => list,
        };
        if self.selected < self.top {
            self.top = self.selected;
        } else if self.selected >= self.top + self.rows {
            self.top = self.selected + 1 - self.rows;
        }
        let end = (self.top + self.rows).min(list.len());
        let turn_cols = Self::turn_cols(&list[self.top..end]);
        let lines = list[self.top..end]
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let style = if self.top + i == self.selected {
                    theme.selection
                } else {
                    theme.text
                };
                Line::styled(Self::row(a, width, turn_cols), style)
            })
            .collect();
        (lines, format!(" · {}", list.len()))
    }

    /// The last row: the question asked, the status, or nothing (a bar is drawn over it).
    fn status_line(&self, bar: bool, theme: &Theme) -> Line<'static> {
        match (&self.asking, bar, &self.status) {
            (Some((question, _)), _, _) => Line::from(vec![
                Span::styled(question.clone(), theme.warning),
                Span::styled(
                    format!("  {}", crate::keys::table::view_hints(ViewScope::Overwrite)),
                    theme.key_hint,
                ),
            ]),
            // The progress bar is drawn over this row.
            (None, true, _) => Line::default(),
            (None, false, Some(status)) => Line::styled(status.clone(), theme.text),
            (None, false, None) => Line::default(),
        }
    }
}

impl Overlay for ArtifactList {
    fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if let Some(pager) = &mut self.pager {
            pager.render(area, buf, theme);
            return;
        }
        let area = overlays::area(area);
        // Borders, then the list, then two lines: where saves go and the status.
        self.rows = usize::from(area.height.saturating_sub(4)).max(1);
        let width = usize::from(area.width.saturating_sub(2));
        let (mut lines, count) = self.list_lines(width, theme);
        while lines.len() < self.rows {
            lines.push(Line::default());
        }
        lines.push(Line::styled(
            format!("saves to {}", self.save_dir),
            theme.dim,
        ));
        let bar = self
            .asking
            .is_none()
            .then_some(self.progress.as_ref())
            .flatten();
        lines.push(self.status_line(bar.is_some(), theme));
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_focused)
            .title(Span::styled(format!(" Artifacts{count} "), theme.title))
            .title_bottom(Span::styled(
                format!(" {} ", crate::keys::table::view_hints(ViewScope::Artifacts)),
                theme.dim,
            ));
        let status_row = Rect {
            x: area.x + 1,
            y: (area.y + area.height).saturating_sub(2),
            width: area.width.saturating_sub(2),
            height: 1,
        };
        Clear.render(area, buf);
        Paragraph::new(lines).block(block).render(area, buf);
        if let Some(progress) = bar
            && area.height >= 4
        {
            progress.render(status_row, buf, theme);
        }
    }

    fn scope(&self) -> ViewScope {
        match (&self.pager, &self.asking) {
            (Some(pager), _) => pager.scope(),
            (None, Some(_)) => ViewScope::Overwrite,
            (None, None) => ViewScope::Artifacts,
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
        if let Some((_, action)) = &self.asking {
            return match key {
                ViewKey::Yes => {
                    let action = action.clone();
                    self.asking = None;
                    OverlayKey::Act(action)
                }
                ViewKey::No => {
                    self.asking = None;
                    self.status = Some("nothing saved: the existing files are kept".into());
                    OverlayKey::Handled
                }
                // Only y or n answers; nothing else slips past the question.
                _ => OverlayKey::Handled,
            };
        }
        let page = isize::try_from(self.rows.max(2) - 1).unwrap_or(1);
        match key {
            ViewKey::Close => return OverlayKey::Close,
            ViewKey::Up => self.move_by(-1),
            ViewKey::Down => self.move_by(1),
            ViewKey::PageUp => self.move_by(-page),
            ViewKey::PageDown => self.move_by(page),
            ViewKey::Top => self.selected = 0,
            ViewKey::Bottom => self.move_by(isize::MAX),
            ViewKey::Open => {
                return match self.current() {
                    Some(a) => OverlayKey::Act(OverlayAction::OpenArtifact(Box::new(a.clone()))),
                    None => OverlayKey::Ignored,
                };
            }
            ViewKey::Save => {
                return match self.current() {
                    Some(a) => OverlayKey::Act(OverlayAction::SaveArtifacts {
                        artifacts: vec![a.clone()],
                        overwrite: false,
                    }),
                    None => OverlayKey::Ignored,
                };
            }
            ViewKey::SaveAll if !self.artifacts().is_empty() => {
                return OverlayKey::Act(OverlayAction::SaveArtifacts {
                    artifacts: self.artifacts().to_vec(),
                    overwrite: false,
                });
            }
            ViewKey::SaveTurn => {
                return match self.current() {
                    Some(a) => OverlayKey::Act(OverlayAction::SaveArchive {
                        turn: a.turn_id.clone(),
                        overwrite: false,
                    }),
                    None => OverlayKey::Ignored,
                };
            }
            _ => return OverlayKey::Ignored,
        }
        OverlayKey::Handled
    }

    fn unrouted(&mut self, key: KeyEvent) -> OverlayKey {
        let _ = key;
        // While asking, nothing but y or n slips past the question.
        if self.asking.is_some() && self.pager.is_none() {
            OverlayKey::Handled
        } else {
            OverlayKey::Ignored
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::overlays::press;
    use crossterm::event::KeyCode;
    use crossterm::event::KeyModifiers;
    use serde_json::json;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn artifact(id: &str, path: &str) -> Artifact {
        serde_json::from_value(json!({"id": id, "turn_id": "turn_1", "path": path,
            "size_bytes": 1500, "created_at": 1_796_134_247_000_i64}))
        .unwrap()
    }

    fn drawn(list: &mut ArtifactList) -> String {
        let mut buf = Buffer::empty(Rect::new(0, 0, 100, 16));
        list.render(buf.area, &mut buf, &Theme::default());
        crate::ui::text::buffer_text::rows(&buf)
    }

    #[test]
    fn lists_path_size_turn_and_time_and_acts_on_the_selection() {
        let mut list = ArtifactList::loading("./gobare-artifacts/ses_1/".into());
        assert!(drawn(&mut list).contains("loading"));
        let (a, b) = (
            artifact("a1", "/workspace/outputs/report.md"),
            artifact("a2", "/workspace/outputs/evil\u{1b}[2J.txt"),
        );
        list.listed(Ok(vec![a.clone(), b.clone()]));
        let screen = drawn(&mut list);
        assert!(screen.contains("report.md"), "{screen}");
        assert!(screen.contains("1.5 kB") && screen.contains("turn_1"));
        assert!(screen.contains("2026-12-01 14:10:47Z"));
        assert!(screen.contains("saves to ./gobare-artifacts/ses_1/"));
        assert!(!screen.contains('\u{1b}'), "{screen:?}");

        assert_eq!(press(&mut list, key(KeyCode::Down)), OverlayKey::Handled);
        assert_eq!(
            press(&mut list, key(KeyCode::Enter)),
            OverlayKey::Act(OverlayAction::OpenArtifact(Box::new(b.clone())))
        );
        assert_eq!(
            press(&mut list, key(KeyCode::Char('S'))),
            OverlayKey::Act(OverlayAction::SaveArtifacts {
                artifacts: vec![a, b],
                overwrite: false
            })
        );
        assert_eq!(
            press(&mut list, key(KeyCode::Char('t'))),
            OverlayKey::Act(OverlayAction::SaveArchive {
                turn: "turn_1".into(),
                overwrite: false
            })
        );
        assert_eq!(
            press(&mut list, key(KeyCode::Char('x'))),
            OverlayKey::Ignored
        );
        assert_eq!(press(&mut list, key(KeyCode::Esc)), OverlayKey::Close);
    }

    #[test]
    fn an_overwrite_takes_a_y_and_anything_else_keeps_the_file() {
        let a = artifact("a1", "/workspace/outputs/report.md");
        let mut list = ArtifactList::loading("d".into());
        list.listed(Ok(vec![a.clone()]));
        let again = OverlayAction::SaveArtifacts {
            artifacts: vec![a],
            overwrite: true,
        };
        list.ask("report.md exists: overwrite it?", again.clone());
        assert!(drawn(&mut list).contains("report.md exists: overwrite it?"));
        assert_eq!(press(&mut list, key(KeyCode::Enter)), OverlayKey::Handled);
        assert_eq!(
            press(&mut list, key(KeyCode::Char('s'))),
            OverlayKey::Handled
        );
        assert_eq!(
            press(&mut list, key(KeyCode::Char('n'))),
            OverlayKey::Handled
        );
        assert!(drawn(&mut list).contains("nothing saved"));
        list.ask("again?", again.clone());
        assert_eq!(
            press(&mut list, key(KeyCode::Char('y'))),
            OverlayKey::Act(again)
        );
    }

    #[test]
    fn a_download_shows_as_a_bar_in_the_status_row_until_it_ends() {
        let mut list = ArtifactList::loading("/home/u/Downloads/gobare-artifacts/ses_1/".into());
        list.listed(Ok(vec![artifact("a1", "/workspace/outputs/big.bin")]));
        list.set_progress(SaveProgress::new(
            "big.bin",
            300_000_000,
            Some(1_000_000_000),
            std::time::Duration::from_secs(3),
        ));
        insta::assert_snapshot!(drawn(&mut list));
        list.set_status("saved /home/u/Downloads/gobare-artifacts/ses_1/big.bin (1.0 GB)");
        let screen = drawn(&mut list);
        assert!(
            !screen.contains('█') && screen.contains("saved /home/u/"),
            "{screen}"
        );
    }

    #[test]
    fn wide_names_keep_size_turn_and_time_inside_the_overlay() {
        let mut list = ArtifactList::loading("d".into());
        list.listed(Ok(vec![
            artifact("a1", "/workspace/outputs/report.md"),
            artifact(
                "a2",
                &format!("/workspace/outputs/{}.md", "数据分析结果".repeat(12)),
            ),
            artifact("a3", &format!("/workspace/outputs/{}", "🚀".repeat(60))),
            Artifact {
                turn_id: "回合".repeat(20),
                ..artifact("a4", "/workspace/outputs/wide-turn.txt")
            },
        ]));
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 12)).unwrap();
        term.draw(|f| list.render(f.area(), f.buffer_mut(), &Theme::no_color()))
            .unwrap();
        let screen = term.backend().to_string();
        let rows: Vec<&str> = screen.lines().filter(|l| l.contains("kB")).collect();
        assert_eq!(rows.len(), 4, "{screen}");
        for row in &rows {
            assert!(row.contains("  2026-12-01 14:10:47Z"), "{screen}");
            assert!(
                row.contains("14:10:47Z│"),
                "the time ends at the border: {screen}"
            );
        }
        insta::assert_snapshot!(screen);
    }

    #[test]
    fn an_opened_artifact_closes_back_to_the_list() {
        let mut list = ArtifactList::loading("d".into());
        list.listed(Ok(vec![artifact("a1", "/workspace/outputs/a.txt")]));
        list.show(Pager::plain("a.txt", "hello pager", &Theme::default()));
        assert!(drawn(&mut list).contains("hello pager"));
        assert_eq!(press(&mut list, key(KeyCode::Esc)), OverlayKey::Handled);
        assert!(drawn(&mut list).contains("Artifacts · 1"));
    }
}
