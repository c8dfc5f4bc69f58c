//! Entries of one family laid out: the workspace, its outputs and the stream itself.

use super::*;

pub(super) fn lines(
    entry: &Entry,
    width: u16,
    _expanded: bool,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let w = usize::from(width);
    match &entry.kind {
        EntryKind::RecoveryFailed { message } => {
            error_lines(out, "workspace recovery failed", message, w, theme)
        }
        EntryKind::Artifact {
            path, size_bytes, ..
        } => {
            let size = size_bytes.map(|b| format!(" ({b} B)")).unwrap_or_default();
            out.push(truncate(
                Line::styled(
                    format!("  ⇪ artifact {}{size}", text::line(path)),
                    theme.accent,
                ),
                w,
            ));
        }
        EntryKind::Preview { port, url } => {
            let port = port.map(|p| format!(":{p} ")).unwrap_or_default();
            let url = url.as_deref().map(text::line).unwrap_or_default();
            out.push(truncate(
                Line::styled(format!("  ⇗ preview ready {port}{url}"), theme.accent),
                w,
            ));
        }
        EntryKind::ReplayTruncated { from_seq } => {
            let from = from_seq.map_or("?".to_string(), |s| s.to_string());
            out.push(truncate(
                Line::styled(
                    // The stream task reconnects from `from_seq` at once (§7.6): nothing is lost.
                    format!("  ⋯ long history: the server cut the replay at seq {from}; the rest is being collected"),
                    theme.warning,
                ),
                w,
            ));
        }
        EntryKind::Unknown { kind, excerpt } => {
            out.push(truncate(
                Line::from(vec![
                    Span::styled(format!("  · {} ", text::line(kind)), theme.dim),
                    Span::styled(text::line(excerpt).into_owned(), theme.dim),
                ]),
                w,
            ));
        }
        _ => {}
    }
}
