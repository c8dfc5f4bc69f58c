//! `x` in the panes: the session's Markdown export written to a new file in the current
//! directory, in the background (the stream is read again from seq 0 on a connection of its
//! own), and a notice that says where it went.

use super::SessionFront;
use super::msg::AppMsg;
use crate::export::output::Output;
use crate::export::run::{self, Format};
use crate::session::Severity;
use color_eyre::eyre::WrapErr;
use gobare_api::text;
use std::path::PathBuf;

impl SessionFront {
    /// Starts an export unless one is already under way.
    pub(crate) fn act_export(&mut self) {
        if self.exporting {
            self.notice(Some("an export is already being written…".into()));
            return;
        }
        let path = match export_path(&self.session_id) {
            Ok(path) => path,
            Err(e) => {
                let text = format!("cannot export: no current directory ({e})");
                self.notice_at(Severity::Error, text);
                return;
            }
        };
        self.exporting = true;
        let options = self.stream_options.clone();
        let id = self.session_id.clone();
        let title = self.session.title().map(str::to_string);
        let client = crate::app::shared::jobs::Job::Export.client(&self.client);
        let tx = self.msgs.clone();
        let notice = format!("exporting the session to {}…", shown(&path));
        crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::Export, async move {
            let warn = |w: &str| tracing::warn!("export: {w}");
            let format = Format::Markdown;
            let open = || {
                Output::open(Some(&path))
                    .wrap_err_with(|| format!("cannot export to {}", shown(&path)))
            };
            let result = run::export(&client, options, &id, format, title.as_deref(), open, warn)
                .await
                .map(|read| read.events)
                .map_err(|e| text::one_line(&format!("{e:#}"), 300));
            let _ = tx.send(AppMsg::Exported { path, result });
        });
        self.notice(Some(notice));
    }

    pub(crate) fn on_exported(&mut self, path: PathBuf, result: Result<u64, String>) {
        self.exporting = false;
        match result {
            Ok(events) => {
                let text = format!("exported {events} events to {}", shown(&path));
                self.notice(Some(text));
            }
            Err(e) => self.notice_at(Severity::Error, format!("the export failed: {e}")),
        }
    }
}

/// Characters of the session id in the file's name: enough to tell sessions apart in one
/// directory (as `list` shows them), short enough to read.
const SHORT_ID_CHARS: usize = 8;

/// A new file in the current directory, named by [`export_file_name`] for now.
fn export_path(session_id: &str) -> std::io::Result<PathBuf> {
    let now_ms = gobare_api::clock::unix_ms();
    Ok(std::env::current_dir()?.join(export_file_name(session_id, now_ms)))
}

/// `gobare-<short id>-2026-12-02T15-41-16Z.md`: the session and the UTC second, with `-`
/// for `:` (which some file systems refuse), so names sort by time and read as one.
fn export_file_name(session_id: &str, now_ms: i64) -> String {
    let id: String = session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(SHORT_ID_CHARS)
        .collect();
    let id = id.trim_end_matches('-');
    let (day, clock) = gobare_api::clock::utc_date_and_clock(now_ms);
    format!("gobare-{id}-{day}T{}Z.md", clock.replace(':', "-"))
}

fn shown(path: &std::path::Path) -> String {
    text::one_line(&path.display().to_string(), 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_named_by_the_short_id_and_the_utc_second() {
        // 2026-12-02 15:41:16.789 UTC.
        let at = 1_796_226_076_789;
        assert_eq!(
            export_file_name("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af", at),
            "gobare-3f9c1b60-2026-12-02T15-41-16Z.md"
        );
        assert_eq!(
            export_file_name("ab/../..\\x:y", at),
            "gobare-abxy-2026-12-02T15-41-16Z.md",
            "only letters, digits and hyphens of the id"
        );
    }
}
