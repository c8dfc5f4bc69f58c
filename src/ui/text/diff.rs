//! A unified diff → coloured, sanitized lines cut to a width.

use ratatui::text::{Line, Span};

use crate::ui::theme::Theme;
use gobare_api::text;

/// Renders `diff` (server text) as at most `max_lines` lines no wider than `width`: additions,
/// deletions and hunk headers coloured, file headers dim. When lines are left out, the last
/// line says how many (`… N more lines`) and counts toward `max_lines`.
pub(crate) fn render(
    diff: &str,
    width: u16,
    theme: &Theme,
    max_lines: usize,
) -> Vec<Line<'static>> {
    let width = usize::from(width);
    if width == 0 || max_lines == 0 {
        return Vec::new();
    }
    let mut source = text::lines(diff);
    if source.last().is_some_and(|l| l.is_empty()) {
        source.pop(); // the diff's final newline
    }
    let shown = if source.len() > max_lines {
        max_lines - 1
    } else {
        source.len()
    };
    let mut out: Vec<Line<'static>> = source[..shown]
        .iter()
        .map(|l| {
            let style = line_style(l, theme);
            Line::from(Span::styled(text::truncate(l, width).into_owned(), style))
        })
        .collect();
    let hidden = source.len() - shown;
    if hidden > 0 {
        let plural = if hidden == 1 { "" } else { "s" };
        let marker = format!("… {hidden} more line{plural}");
        out.push(Line::from(Span::styled(
            text::truncate(&marker, width).into_owned(),
            theme.dim,
        )));
    }
    out
}

/// The colour of one diff line: file headers dim, hunk headers, additions and deletions.
pub(crate) fn line_style(line: &str, theme: &Theme) -> ratatui::style::Style {
    const HEADERS: &[&str] = &[
        "+++",
        "---",
        "diff ",
        "index ",
        "new file",
        "deleted file",
        "similarity",
        "rename ",
        "old mode",
        "new mode",
        "Binary files",
    ];
    if HEADERS.iter().any(|h| line.starts_with(h)) {
        theme.diff_header
    } else if line.starts_with("@@") {
        theme.diff_hunk
    } else if line.starts_with('+') {
        theme.diff_add
    } else if line.starts_with('-') {
        theme.diff_del
    } else if line.starts_with('\\') {
        theme.dim // "\ No newline at end of file"
    } else {
        theme.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n ctx\n-old\n+new\n\\ No newline at end of file\n";

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn lines_are_coloured_by_kind() {
        let theme = Theme::default();
        let lines = render(DIFF, 80, &theme, 100);
        let styles: Vec<_> = lines.iter().map(|l| l.spans[0].style).collect();
        assert_eq!(
            styles,
            vec![
                theme.diff_header,
                theme.diff_header,
                theme.diff_header,
                theme.diff_hunk,
                theme.text,
                theme.diff_del,
                theme.diff_add,
                theme.dim
            ]
        );
        assert_eq!(plain(&lines)[5], "-old");
    }

    #[test]
    fn long_lines_are_truncated_to_width() {
        let lines = render("+abcdefghijkl\n", 6, &Theme::default(), 10);
        assert_eq!(plain(&lines), vec!["+abcd…"]);
    }

    #[test]
    fn excess_lines_become_a_marker() {
        let lines = render(DIFF, 80, &Theme::default(), 3);
        assert_eq!(
            plain(&lines),
            vec!["diff --git a/f b/f", "--- a/f", "… 6 more lines"]
        );
        let exact = render(DIFF, 80, &Theme::default(), 8);
        assert_eq!(exact.len(), 8);
        assert!(!plain(&exact).iter().any(|l| l.contains("more line")));
    }

    #[test]
    fn hostile_text_is_sanitized() {
        let lines = render(
            "+\x1b]52;c;eA==\x07\r\n-\u{202e}x\n",
            80,
            &Theme::default(),
            10,
        );
        assert_eq!(plain(&lines), vec!["+␛]52;c;eA==␇", "-⟨U+202E⟩x"]);
    }

    #[test]
    fn tabs_do_not_break_width() {
        let lines = render("+\tx\t\ty", 8, &Theme::default(), 10);
        assert!(text::width(&plain(&lines)[0]) <= 8);
    }

    proptest::proptest! {
        #[test]
        fn fits_width_and_line_budget(
            diff in "([-+@ \\\\]?[a-z世\t\u{1b}\u{202e}]{0,30}\n){0,20}",
            width in 1u16..60,
            max_lines in 1usize..25,
        ) {
            let lines = render(&diff, width, &Theme::default(), max_lines);
            proptest::prop_assert!(lines.len() <= max_lines);
            for line in &lines {
                proptest::prop_assert!(text::width(&line.to_string()) <= usize::from(width));
                proptest::prop_assert!(!line.to_string().contains('\x1b'), "escape passed through");
            }
        }
    }
}
