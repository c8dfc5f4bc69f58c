//! How one row of the fleet is laid out and painted: its columns for the width (the least
//! useful dropped first), the header above them, and each cell's text and style.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::usage_cell::UsageCell;
use super::{
    AGE_COLS, ARTIFACT_COLS, MAX_INDENT_LEVELS, QUEUE_COLS, STATUS_COLS, TURN_COLS, UNTITLED,
    USAGE_COLS, WORKSPACE_COLS,
};
use crate::fleet::model::FleetRow;
use crate::fleet::order::{Shown, SortBy};
use crate::readable::times::age;
use crate::session::attention::Attention;
use crate::ui::theme::Theme;
use gobare_api::model::WorkspaceState;
use gobare_api::text;

pub(super) fn label(row: &FleetRow) -> (&str, bool) {
    match row.label() {
        Some(label) => (label, row.title.is_some()),
        None => (UNTITLED, false),
    }
}

/// The columns after the label and status that a row of `width` shows: all of them when
/// they fit beside a label of [`LABEL_MIN_COLS`], else the least useful dropped first
/// (artifacts, usage, workspace, queue, last activity, then the turn), never a cut column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    turn: bool,
    queue: bool,
    workspace: bool,
    artifacts: bool,
    usage: bool,
    age: bool,
}

/// The label keeps at least this much before a column is given up for it.
const LABEL_MIN_COLS: usize = 24;

impl Columns {
    const ALL: Columns = Columns {
        turn: true,
        queue: true,
        workspace: true,
        artifacts: true,
        usage: true,
        age: true,
    };

    fn for_width(width: usize) -> Columns {
        let mut columns = Columns::ALL;
        let drops: [fn(&mut Columns); 6] = [
            |c| c.artifacts = false,
            |c| c.usage = false,
            |c| c.workspace = false,
            |c| c.queue = false,
            |c| c.age = false,
            |c| c.turn = false,
        ];
        for drop in drops {
            if width >= columns.fixed() + LABEL_MIN_COLS {
                break;
            }
            drop(&mut columns);
        }
        columns
    }

    /// Columns taken besides the label: the marker, the status and each shown column
    /// with its leading space, and one at the end.
    fn fixed(self) -> usize {
        let shown = |on: bool, cols: usize| if on { cols + 1 } else { 0 };
        2 + STATUS_COLS
            + 1
            + shown(self.turn, TURN_COLS)
            + shown(self.queue, QUEUE_COLS)
            + shown(self.workspace, WORKSPACE_COLS)
            + shown(self.artifacts, ARTIFACT_COLS)
            + shown(self.usage, USAGE_COLS)
            + shown(self.age, AGE_COLS)
            + 1
    }

    /// The label's columns: what the others leave, but at least half a very narrow screen
    /// (the line is cut there instead).
    fn label(self, width: usize) -> usize {
        width
            .saturating_sub(self.fixed())
            .max((width / 2).min(LABEL_MIN_COLS))
    }
}

/// `text` right- or left-aligned in `cols` with its leading space, when `on`.
fn column(on: bool, text: &str, cols: usize, right: bool) -> String {
    match (on, right) {
        (false, _) => String::new(),
        (true, true) => format!(" {text:>cols$}"),
        (true, false) => format!(" {text:<cols$}"),
    }
}

pub(super) fn header(width: usize, sort: SortBy, theme: &Theme) -> Line<'static> {
    let c = Columns::for_width(width);
    let label_cols = c.label(width);
    // Which order each band is in, where the eye reads the columns (`s` changes it).
    let session = format!("Session · by {}", sort.label());
    let text = format!(
        "  {:<label_cols$} {:<STATUS_COLS$}{}{}{}{}{}{}",
        text::truncate(&session, label_cols),
        "Status",
        column(c.turn, "Turn", TURN_COLS, false),
        column(c.queue, "Q", QUEUE_COLS, true),
        column(c.workspace, "Workspace", WORKSPACE_COLS, false),
        column(c.artifacts, "Art", ARTIFACT_COLS, true),
        column(c.usage, "Usage", USAGE_COLS, true),
        column(c.age, "Last", AGE_COLS, true),
    );
    Line::from(Span::styled(
        text::truncate(&text, width).into_owned(),
        theme.dim,
    ))
}

pub(super) fn row(
    shown: &Shown<'_>,
    usage: &UsageCell,
    selected: bool,
    width: usize,
    theme: &Theme,
    now_ms: i64,
) -> Line<'static> {
    let r = shown.row;
    let c = Columns::for_width(width);
    let label_cols = c.label(width);
    let (label_text, label_style) = label_cell(shown, theme);
    let (status, status_style) = status_label(r, theme);
    let (workspace, workspace_style) = workspace_label(r.workspace.as_ref(), theme);
    let figures = Figures::of(r, usage, c, now_ms);
    let marker = if selected { "› " } else { "  " };
    let mut spans = vec![
        Span::styled(marker, theme.accent),
        padded(&label_text, label_cols, label_style),
        Span::styled(format!(" {status:<STATUS_COLS$}"), status_style),
        Span::styled(figures.turn_and_queue, theme.accent),
    ];
    if c.workspace {
        spans.push(padded(&workspace, WORKSPACE_COLS, workspace_style));
    }
    spans.push(Span::styled(figures.counts, theme.dim));
    if !figures.stale_usage.is_empty() {
        spans.push(Span::styled(figures.stale_usage, theme.warning));
    }
    spans.push(Span::styled(figures.last, theme.dim));
    if selected {
        for span in &mut spans {
            span.style = span.style.patch(theme.selection);
        }
    }
    // Narrow screens: cut the whole line rather than let columns collide.
    if label_cols + c.fixed() <= width {
        return Line::from(spans);
    }
    cut(spans, width)
}

/// A row's label: its place in the crew, its title (or what stands for one), its labels.
fn label_cell(shown: &Shown<'_>, theme: &Theme) -> (String, Style) {
    let (text_label, titled) = label(shown.row);
    let indent = if shown.depth == 0 {
        String::new()
    } else {
        // Past a few levels the indent would only push the label off the row.
        let levels = usize::from(shown.depth - 1).min(MAX_INDENT_LEVELS);
        format!("{}└ ", "  ".repeat(levels))
    };
    let labels = crate::sessions::labels::words_of(&shown.row.labels)
        .map(|l| format!("  [{l}]"))
        .unwrap_or_default();
    let style = if titled { theme.text } else { theme.dim };
    (format!("{indent}{text_label}{labels}"), style)
}

/// The figures right of the status as the columns shown lay them out. Columns of one
/// style share a span: fewer spans, less to lay out per frame. Status, clock and counts
/// are ASCII this client wrote; the workspace state is the server's.
struct Figures {
    /// The turn's clock and the queue.
    turn_and_queue: String,
    /// The artifacts and a usage read lately.
    counts: String,
    /// A usage read long ago, marked where the figure is (its age on the selected row's
    /// line).
    stale_usage: String,
    /// The last activity's age.
    last: String,
}

impl Figures {
    fn of(r: &FleetRow, usage: &UsageCell, c: Columns, now_ms: i64) -> Figures {
        let turn = turn_label(r, now_ms);
        let queue = if r.queued > 0 {
            format!("+{}", r.queued)
        } else {
            String::new()
        };
        let artifacts = if r.artifacts > 0 {
            r.artifacts.to_string()
        } else {
            String::new()
        };
        let stale = usage.stale_ms.is_some();
        let usage_text = if stale {
            format!("{}?", usage.text)
        } else {
            usage.text.clone()
        };
        Figures {
            turn_and_queue: format!(
                "{}{} ",
                column(c.turn, &turn, TURN_COLS, false),
                column(c.queue, &queue, QUEUE_COLS, true),
            ),
            counts: format!(
                "{}{}",
                column(c.artifacts, &artifacts, ARTIFACT_COLS, true),
                column(c.usage && !stale, &usage_text, USAGE_COLS, true),
            ),
            stale_usage: column(c.usage && stale, &usage_text, USAGE_COLS, true),
            last: column(c.age, &age(now_ms - r.last_activity), AGE_COLS, true),
        }
    }
}

/// `spans` cut to `width` cells, dropping what no longer fits.
fn cut(spans: Vec<Span<'static>>, width: usize) -> Line<'static> {
    let mut left = width;
    let spans = spans
        .into_iter()
        .filter_map(|span| {
            if left == 0 {
                return None;
            }
            let text = text::truncate(&span.content, left).into_owned();
            left -= text::width(&text).min(left);
            Some(Span::styled(text, span.style))
        })
        .collect::<Vec<_>>();
    Line::from(spans)
}

fn status_label(row: &FleetRow, theme: &Theme) -> (String, Style) {
    match row.attention() {
        Attention::NeedsYou => match row.needs() {
            Some(needs) => (
                format!("needs you: {}", needs.as_str().replace('_', " ")),
                theme.badge,
            ),
            None => ("needs you".into(), theme.badge),
        },
        Attention::Failed => ("failed".into(), theme.error),
        Attention::Working => ("working".into(), theme.accent),
        Attention::Idle => ("idle".into(), theme.dim),
    }
}

/// How long the current turn has run, in whole seconds.
/// Ms from `now_ms` until the whole second at or after `tick_ms + ms`: what changes `ms`
/// after a tick shows at the tick that follows.
pub(super) fn at_tick(tick_ms: i64, ms: i64, now_ms: i64) -> i64 {
    let at = tick_ms + ms;
    let at = at + (1000 - at.rem_euclid(1000)) % 1000;
    (at - now_ms).max(1)
}

pub(super) fn turn_seconds(row: &FleetRow, now_ms: i64) -> Option<u64> {
    row.turn_started_at
        .map(|started| ((now_ms - started).max(0) / 1000) as u64)
}

/// The current turn's elapsed time and todo progress: "3m 12s 2/5".
fn turn_label(row: &FleetRow, now_ms: i64) -> String {
    let Some(elapsed) = turn_seconds(row, now_ms) else {
        return String::new();
    };
    let elapsed = seconds(elapsed);
    match row.todos {
        Some((done, total)) if total > 0 => format!("{elapsed} {done}/{total}"),
        _ => elapsed,
    }
}

/// A duration of whole seconds as every screen of the app says one: "42s", "3m 12s".
fn seconds(secs: u64) -> String {
    crate::readable::times::duration(i64::try_from(secs.saturating_mul(1000)).unwrap_or(i64::MAX))
}

fn workspace_label(state: Option<&WorkspaceState>, theme: &Theme) -> (String, Style) {
    match state {
        Some(WorkspaceState::Unknown) => ("starting".into(), theme.dim),
        Some(WorkspaceState::Running) => ("running".into(), theme.ok),
        Some(WorkspaceState::Paused) => ("paused".into(), theme.dim),
        Some(WorkspaceState::Destroyed) => ("destroyed".into(), theme.dim),
        Some(WorkspaceState::Recovering) => ("recovering".into(), theme.warning),
        Some(WorkspaceState::RecoveryFailed) => ("recovery failed".into(), theme.error),
        Some(WorkspaceState::Other(s)) => (text::line(s).into_owned(), theme.dim),
        None => ("unknown".into(), theme.dim),
    }
}

/// Sanitized text cut or padded to exactly `cols` cells.
fn padded(raw: &str, cols: usize, style: Style) -> Span<'static> {
    let line = text::line(raw);
    let cut = text::truncate(&line, cols);
    let pad = cols.saturating_sub(text::width(&cut));
    Span::styled(format!("{cut}{}", " ".repeat(pad)), style)
}
