//! `x` in the panes: the session's Markdown export written to a new file in the current
//! directory, in the background (the stream is read again from seq 0 on a connection of its
//! own), and a notice that says where it went.

use super::App;
use super::msg::AppMsg;
use crate::export::output::Output;
use crate::export::run::{self, Format};
use crate::session::Severity;
use gobare_api::text;
use std::path::PathBuf;

impl App {
    /// Starts an export unless one is already under way.
    pub(super) fn act_export(&mut self) {
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
        let out = match Output::open(Some(&path)) {
            Ok(out) => out,
            Err(e) => {
                let text = format!("cannot export to {}: {e}", shown(&path));
                self.notice_at(Severity::Error, text);
                return;
            }
        };
        self.exporting = true;
        let options = self.stream_options.clone();
        let id = self.session_id.clone();
        let title = self.view.title().map(str::to_string);
        let client = self.client.clone();
        let tx = self.msgs.clone();
        let notice = format!("exporting the session to {}…", shown(&path));
        tokio::spawn(async move {
            let warn = |w: &str| tracing::warn!("export: {w}");
            let format = Format::Markdown;
            let result = run::export(&client, options, &id, format, title.as_deref(), out, warn)
                .await
                .map(|read| read.events)
                .map_err(|e| text::one_line(&format!("{e:#}"), 300));
            let _ = tx.send(AppMsg::Exported { path, result });
        });
        self.notice(Some(notice));
    }

    pub(super) fn on_exported(&mut self, path: PathBuf, result: Result<u64, String>) {
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

/// `gobare-<session>-<unix seconds>.md` in the current directory: a new name each time,
/// so an export never replaces an earlier one.
fn export_path(session_id: &str) -> std::io::Result<PathBuf> {
    let id: String = session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(64)
        .collect();
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Ok(std::env::current_dir()?.join(format!("gobare-{id}-{secs}.md")))
}

fn shown(path: &std::path::Path) -> String {
    text::one_line(&path.display().to_string(), 200)
}
