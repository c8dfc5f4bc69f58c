//! Markdown tables rendered simply: ` a │ b ` rows, a `─┼─` rule under the header, columns
//! shrunk (cells truncated with `…`) when the table is wider than the space.

use ratatui::style::Style;
use ratatui::text::Span;

use gobare_api::text;

#[derive(Debug, Default)]
pub(crate) struct Table {
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

/// Column widths that fit `avail` cells including separators: the widest column gives up a
/// cell at a time.
fn column_widths(table: &Table, avail: usize) -> Vec<usize> {
    let ncols = std::iter::once(&table.header)
        .chain(&table.rows)
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    let mut widths = vec![0usize; ncols];
    for row in std::iter::once(&table.header).chain(&table.rows) {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(text::width(cell));
        }
    }
    let overhead = 2 + 3 * ncols.saturating_sub(1);
    while widths.iter().sum::<usize>() + overhead > avail {
        let Some(widest) = (0..ncols).max_by_key(|&i| widths[i]) else {
            break;
        };
        if widths[widest] <= 1 {
            break;
        }
        widths[widest] -= 1;
    }
    widths
}

fn row_text(cells: &[String], widths: &[usize]) -> String {
    let mut out = String::from(" ");
    for (i, w) in widths.iter().enumerate() {
        if i > 0 {
            out.push_str(" │ ");
        }
        let cell = cells.get(i).map(String::as_str).unwrap_or("");
        let cell = text::truncate(cell, *w);
        out.push_str(&cell);
        out.push_str(&" ".repeat(w - text::width(&cell)));
    }
    out.push(' ');
    out
}

/// The table as lines of at most `avail` cells.
pub(crate) fn render(
    table: &Table,
    avail: usize,
    header_style: Style,
    rule_style: Style,
    text_style: Style,
) -> Vec<Vec<Span<'static>>> {
    let widths = column_widths(table, avail);
    if widths.is_empty() {
        return Vec::new();
    }
    // Even one cell per column may not fit: the whole row is then cut.
    let fit = |s: String| text::truncate(&s, avail).into_owned();
    let mut out = Vec::new();
    // A header of blank cells (`| | |`, a common way to write a table without one) is a
    // blank line and a rule over nothing: the rows stand alone.
    if table.header.iter().any(|cell| !cell.trim().is_empty()) {
        out.push(vec![Span::styled(
            fit(row_text(&table.header, &widths)),
            header_style,
        )]);
        let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        out.push(vec![Span::styled(
            fit(format!("─{}─", rule.join("─┼─"))),
            rule_style,
        )]);
    }
    for row in &table.rows {
        out.push(vec![Span::styled(fit(row_text(row, &widths)), text_style)]);
    }
    out
}
