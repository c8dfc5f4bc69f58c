//! Entries of one family laid out: the workspace, its outputs and the stream itself.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use crate::session::vocabulary::workspace as words;

pub(super) fn lines(
    entry: WorkspaceEntry<'_>,
    width: u16,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let w = usize::from(width);
    match entry {
        WorkspaceEntry::RecoveryFailed { message } => {
            error_lines(out, words::RECOVERY_FAILED, message, w, theme)
        }
        WorkspaceEntry::Artifact { path, size_bytes } => {
            let size = size_bytes.map(|b| format!(" ({b} B)")).unwrap_or_default();
            out.push(truncate(
                Line::styled(
                    format!("  ⇪ {} {}{size}", words::ARTIFACT, text::line(path)),
                    theme.accent,
                ),
                w,
            ));
        }
        WorkspaceEntry::Preview { port, url } => {
            let port = port.map(|p| format!(":{p} ")).unwrap_or_default();
            let url = url.map(text::line).unwrap_or_default();
            out.push(truncate(
                Line::styled(
                    format!("  ⇗ {} {port}{url}", words::PREVIEW_READY),
                    theme.accent,
                ),
                w,
            ));
        }
        WorkspaceEntry::ReplayTruncated { from_seq } => {
            out.push(truncate(
                Line::styled(
                    // The stream task reconnects from `from_seq` at once (§7.6): nothing is lost.
                    format!("  ⋯ {}", words::replay_cut("seq", from_seq)),
                    theme.warning,
                ),
                w,
            ));
        }
        WorkspaceEntry::Unknown { kind, excerpt } => {
            out.push(truncate(
                Line::from(vec![
                    Span::styled(format!("  · {} ", text::line(kind)), theme.dim),
                    Span::styled(text::line(excerpt).into_owned(), theme.dim),
                ]),
                w,
            ));
        }
    }
}
