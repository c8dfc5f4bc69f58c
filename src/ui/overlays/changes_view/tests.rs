//! Snapshots of the changes view (unified, side by side, the changed words marked, an
//! incomplete file, each theme) and its review: marked lines and comments become one
//! message quoting file and lines.

use super::{ChangesView, ViewFile};
use crate::changes::perf::hunks;
use crate::changes::session_changes::{Range, SessionChanges};
use crate::ui::overlays::{Overlay, OverlayAction, OverlayKey, ViewKey, ViewScope};
use crate::ui::theme::{Depth, Theme};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gobare_api::model::{ChangeKind, Event, EventPayload, FileChange};
use insta::{assert_debug_snapshot, assert_snapshot};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;

const LIB_BEFORE: &str = "//! Billing.\n\nuse crate::storage::Storage;\n\npub struct BillingService {\n    pool: PgPool,\n}\n\nimpl BillingService {\n    pub fn total(&self) -> u64 {\n        let total = 0;\n        total\n    }\n}\n";
const LIB_MIDDLE: &str = "//! Billing.\n\nuse crate::storage::Storage;\n\npub struct BillingService<S: Storage> {\n    storage: Arc<S>,\n}\n\nimpl BillingService {\n    pub fn total(&self) -> u64 {\n        let total = 0;\n        total\n    }\n}\n";
const LIB_AFTER: &str = "//! Billing.\n\nuse crate::storage::Storage;\n\npub struct BillingService<S: Storage> {\n    storage: Arc<S>,\n}\n\nimpl BillingService {\n    pub fn total(&self) -> u64 {\n        let mut total = 0;\n        total\n    }\n}\n";

fn change(seq: u64, path: &str, kind: ChangeKind, diff: Option<String>) -> Event {
    Event {
        kind: std::borrow::Cow::Borrowed("file.changed"),
        internal_type: None,
        session_id: None,
        seq: Some(seq),
        created_at: Some(seq as i64),
        payload: EventPayload::FileChanged(FileChange {
            path: format!("/workspace/{path}"),
            change_type: kind,
            diff,
            tool_call_id: None,
        }),
    }
}

/// A session that edits one file twice, creates one, removes one, and changes one
/// without a diff.
fn files() -> Vec<ViewFile> {
    let mut changes = SessionChanges::new(Range::Session);
    let events = [
        change(
            1,
            "src/billing.rs",
            ChangeKind::Modified,
            Some(hunks(LIB_BEFORE, LIB_MIDDLE)),
        ),
        change(
            2,
            "notes/plan.md",
            ChangeKind::Created,
            Some(hunks("", "# Plan\n\n- migrate billing\n")),
        ),
        change(
            3,
            "src/billing.rs",
            ChangeKind::Modified,
            Some(hunks(LIB_MIDDLE, LIB_AFTER)),
        ),
        change(
            4,
            "docs/old.md",
            ChangeKind::Deleted,
            Some(hunks("# Old\n", "")),
        ),
        change(5, "src/config.toml", ChangeKind::Modified, None),
    ];
    for e in &events {
        changes.feed(e);
    }
    ViewFile::list(&changes)
}

fn view() -> ChangesView {
    let mut view = ChangesView::loading("turn 2");
    view.loaded(Ok(files()));
    view
}

fn draw(view: &mut ChangesView, w: u16, h: u16, theme: &Theme) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    view.render(buf.area, &mut buf, theme);
    buf
}

fn text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let line: String = (0..area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Selects `path` with `]`.
fn select(view: &mut ChangesView, path: &str) {
    for _ in 0..10 {
        if view.files()[view.file].path == path {
            return;
        }
        view.handle(ViewKey::NextFile);
    }
    panic!("no {path}");
}

#[test]
fn unified_with_the_file_list() {
    let mut v = view();
    select(&mut v, "src/billing.rs");
    assert_snapshot!(text(&draw(&mut v, 120, 26, &Theme::no_color())));
}

#[test]
fn side_by_side_from_160_columns_and_by_the_key_below() {
    let mut v = view();
    select(&mut v, "src/billing.rs");
    let wide = text(&draw(&mut v, 170, 26, &Theme::no_color()));
    assert!(wide.contains("hunk 1 of 1 · side by side"), "{wide}");
    assert_snapshot!("side_by_side", wide);
    v.handle(ViewKey::SideBySide);
    let back = text(&draw(&mut v, 170, 26, &Theme::no_color()));
    assert!(!back.contains("hunk 1 of 1 · side by side"), "{back}");
    let mut narrow = view();
    select(&mut narrow, "src/billing.rs");
    draw(&mut narrow, 100, 26, &Theme::no_color());
    narrow.handle(ViewKey::SideBySide);
    assert!(
        text(&draw(&mut narrow, 100, 26, &Theme::no_color()))
            .contains("hunk 1 of 1 · side by side")
    );
}

#[test]
fn an_incomplete_file_says_why_and_that_the_patch_leaves_it_out() {
    let mut v = view();
    select(&mut v, "src/config.toml");
    let shown = text(&draw(&mut v, 120, 12, &Theme::no_color()));
    assert!(shown.contains("! "), "{shown}");
    assert_snapshot!(shown);
}

#[test]
fn the_changed_words_are_marked_inside_an_edited_line() {
    let mut v = view();
    select(&mut v, "src/billing.rs");
    let buf = draw(&mut v, 100, 26, &Theme::dark(Depth::Indexed256));
    let row = (0..buf.area.height)
        .find(|&y| text_row(&buf, y).contains("let mut total"))
        .expect("the edited line is drawn");
    let line = text_row(&buf, row);
    let at = line.find("mut ").unwrap();
    let x = u16::try_from(line[..at].chars().count()).unwrap();
    assert!(
        buf[(x, row)].modifier.contains(Modifier::REVERSED),
        "the added word is marked"
    );
    let total = u16::try_from(line[..line.find("total").unwrap()].chars().count()).unwrap();
    assert!(
        !buf[(total, row)].modifier.contains(Modifier::REVERSED),
        "the rest is not"
    );
    assert_debug_snapshot!(buf);
}

fn text_row(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect()
}

#[test]
fn the_view_in_each_theme() {
    for (name, theme) in [
        ("dark_16", Theme::dark(Depth::Ansi16)),
        ("light_256", Theme::light(Depth::Indexed256)),
        ("high_contrast", Theme::high_contrast()),
        (
            "colour_blind_dark_256",
            Theme::color_blind(Depth::Indexed256, false),
        ),
    ] {
        let mut v = view();
        select(&mut v, "src/billing.rs");
        insta::assert_debug_snapshot!(format!("theme_{name}"), draw(&mut v, 90, 18, &theme));
    }
}

fn typed(view: &mut ChangesView, s: &str) {
    for c in s.chars() {
        let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(view.unrouted(key), OverlayKey::Handled);
    }
}

#[test]
fn marked_lines_and_comments_are_sent_as_one_message_quoting_file_and_lines() {
    let mut v = view();
    select(&mut v, "src/billing.rs");
    draw(&mut v, 120, 30, &Theme::no_color());
    // Nothing to send yet: S says how to begin.
    assert_eq!(v.handle(ViewKey::SendReview), OverlayKey::Handled);
    assert_eq!(v.scope(), ViewScope::Changes);
    // The struct's two removed and two added lines, marked with v and ↓, commented.
    to_line(&mut v, "-pub struct BillingService {");
    v.handle(ViewKey::Mark);
    for _ in 0..3 {
        v.handle(ViewKey::Down);
    }
    v.handle(ViewKey::Comment);
    assert_eq!(v.scope(), ViewScope::ChangesComment);
    typed(&mut v, "keep the pool until the migration lands");
    v.handle(ViewKey::Open);
    // One line further down.
    to_line(&mut v, "+        let mut total");
    v.handle(ViewKey::Comment);
    typed(&mut v, "why mut?");
    v.handle(ViewKey::Open);
    // V marks the whole hunk; Esc lets the mark go before it closes anything.
    v.handle(ViewKey::MarkHunk);
    assert_eq!(v.handle(ViewKey::Close), OverlayKey::Handled);
    assert!(v.anchor.is_none());
    let drawn = text(&draw(&mut v, 120, 30, &Theme::no_color()));
    assert!(drawn.contains("2 comments"), "{drawn}");
    assert!(drawn.contains("» why mut?"), "{drawn}");
    // S asks; only y sends.
    v.handle(ViewKey::SendReview);
    assert_eq!(v.scope(), ViewScope::ChangesSend);
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(v.unrouted(enter), OverlayKey::Ignored);
    assert_eq!(v.scope(), ViewScope::ChangesSend);
    let OverlayKey::Act(OverlayAction::SendReview { text: message }) = v.handle(ViewKey::Yes)
    else {
        panic!("y sends");
    };
    assert_eq!(
        message,
        "Review of the changes in turn 2:\n\
         \n\
         In src/billing.rs lines 5–6:\n\
         > -pub struct BillingService {\n\
         > -    pool: PgPool,\n\
         > +pub struct BillingService<S: Storage> {\n\
         > +    storage: Arc<S>,\n\
         keep the pool until the migration lands\n\
         \n\
         In src/billing.rs line 11:\n\
         > +        let mut total = 0;\n\
         why mut?\n"
    );
    assert!(!text(&draw(&mut v, 120, 30, &Theme::no_color())).contains("comments"));
}

/// Moves the cursor to the row showing `line` (its sign first).
fn to_line(v: &mut ChangesView, line: &str) {
    v.handle(ViewKey::Top);
    for _ in 0..40 {
        if text_at_cursor(v).starts_with(line) {
            return;
        }
        v.handle(ViewKey::Down);
    }
    panic!("no row {line:?}");
}

fn text_at_cursor(v: &ChangesView) -> String {
    use super::rows::RowKind;
    let row = &v.rows[v.cursor];
    let halves: Vec<&super::rows::Half> = match (&row.left, &row.right) {
        (Some(l), _) if l.kind == RowKind::Context => vec![l],
        (l, r) => l.iter().chain(r.iter()).collect(),
    };
    halves
        .iter()
        .map(|h| {
            let sign = match h.kind {
                RowKind::Removed => "-",
                RowKind::Added => "+",
                RowKind::Context => " ",
            };
            format!("{sign}{}", h.text)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_paste_goes_into_a_comment_as_one_line_and_nowhere_else() {
    let mut v = view();
    select(&mut v, "src/billing.rs");
    draw(&mut v, 120, 30, &Theme::no_color());
    assert!(!v.paste("not a comment"), "no comment is being written");
    to_line(&mut v, "+        let mut total");
    v.handle(ViewKey::Comment);
    assert!(v.paste("first line\r\nsecond\u{1b}[31m line"));
    v.handle(ViewKey::Open);
    let OverlayKey::Handled = v.handle(ViewKey::SendReview) else {
        panic!("S asks");
    };
    let OverlayKey::Act(OverlayAction::SendReview { text }) = v.handle(ViewKey::Yes) else {
        panic!("y sends");
    };
    assert!(text.ends_with("\nfirst line second[31m line\n"), "{text}");
}

#[test]
fn reading_again_keeps_the_file_and_the_comments() {
    let mut v = view();
    select(&mut v, "src/billing.rs");
    draw(&mut v, 120, 30, &Theme::no_color());
    to_line(&mut v, "+        let mut total");
    v.handle(ViewKey::Comment);
    typed(&mut v, "why mut?");
    v.handle(ViewKey::Open);
    assert_eq!(
        v.handle(ViewKey::Refresh),
        OverlayKey::Act(OverlayAction::ReloadChanges)
    );
    v.loaded(Ok(files()));
    assert_eq!(v.files()[v.file].path, "src/billing.rs");
    let shown = text(&draw(&mut v, 120, 30, &Theme::no_color()));
    assert!(
        shown.contains("1 comment") && shown.contains("read again"),
        "{shown}"
    );
}

#[test]
fn bidi_controls_in_a_file_name_are_shown_in_the_list_and_the_header() {
    let mut changes = SessionChanges::new(Range::Session);
    changes.feed(&change(
        1,
        "src/\u{202e}evil\u{2066}.rs",
        ChangeKind::Created,
        Some(hunks("", "fn main() {}\n")),
    ));
    let mut v = ChangesView::loading("turn 1");
    v.loaded(Ok(ViewFile::list(&changes)));
    let shown = text(&draw(&mut v, 160, 12, &Theme::no_color()));
    let marked = "src/⟨U+202E⟩evil⟨U+2066⟩.rs";
    assert_eq!(shown.matches(marked).count(), 2, "{shown}");
    assert!(!shown.contains("src/evil.rs"), "{shown}");
}
