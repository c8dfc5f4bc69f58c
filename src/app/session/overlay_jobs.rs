//! The artifacts (`a`) and workspace files (`f`) overlays from the app's side: opening them,
//! and carrying out what they ask (list, open, save) off the loop. Every job reports back
//! as one [`OverlayMsg`]; saves go through `downloads::save`, as the CLI's do.

use super::SessionFront;
use super::msg::AppMsg;
pub(crate) use super::overlay_msg::OverlayMsg;
use crate::app::shared::abort_on_drop::AbortOnDrop;
use crate::downloads::beneath::Beneath;
use crate::downloads::target::{self, Blocked};
use crate::downloads::{self, save, save_dir};
use crate::readable::units;
use crate::ui::overlays::OverlayAction;
use crate::ui::overlays::artifact_list::ArtifactList;
use crate::ui::overlays::changes_view::ChangesView;
use crate::ui::overlays::file_browser::FileBrowser;
use crate::ui::overlays::pager::Pager;
use crate::ui::overlays::save_progress::SaveProgress;
use crate::ui::theme::Theme;
use base64::Engine;
use gobare_api::client::ApiClient;
use gobare_api::files::FileContent;
use gobare_api::model::Artifact;
use gobare_api::text;
use ratatui::text::Line;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::AbortHandle;

/// At most this much of an artifact is read to show it; more is said, not shown.
const SHOW_MAX_BYTES: u64 = 2 * 1024 * 1024;
/// Least time between two progress updates (each draws a frame).
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

fn shown(dir: &Path) -> String {
    format!("{}/", dir.display())
}

impl SessionFront {
    /// Where this session's artifacts are saved.
    fn save_dir(&self) -> PathBuf {
        save_dir::for_session(&self.downloads_root, &self.session_id)
    }

    /// `a`: the artifacts list, loading.
    pub(crate) fn act_open_artifacts(&mut self) {
        let dir = self.save_dir();
        self.screen
            .open_overlay(Box::new(ArtifactList::loading(shown(&dir))));
        let (client, id) = (self.client.clone(), self.session_id.clone());
        self.spawn_for_overlay(async move {
            let listed = downloads::list_all(&client, &id, None).await;
            OverlayMsg::ArtifactsListed(listed.map_err(|e| e.summary()))
        });
    }

    /// `f`: the workspace's file tree, loading.
    pub(crate) fn act_open_files(&mut self) {
        self.screen.open_overlay(Box::new(FileBrowser::loading()));
        self.list_files(false);
    }

    fn list_files(&mut self, snapshot: bool) {
        let (client, id) = (self.client.clone(), self.session_id.clone());
        self.spawn_for_overlay(async move {
            let tree = if snapshot {
                client.refresh_files(&id).await
            } else {
                client.list_files(&id, false).await
            };
            OverlayMsg::FilesListed(tree.map_err(|e| e.summary()))
        });
    }

    fn spawn_overlay_job(
        &self,
        job: impl Future<Output = OverlayMsg> + Send + 'static,
    ) -> AbortHandle {
        let tx = self.msgs.clone();
        crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::Overlays, async move {
            let _ = tx.send(AppMsg::Overlay(job.await));
        })
        .abort_handle()
    }

    /// A job that fills the open overlay: it ends when the overlay closes.
    pub(crate) fn spawn_for_overlay(
        &mut self,
        job: impl Future<Output = OverlayMsg> + Send + 'static,
    ) {
        let handle = self.spawn_overlay_job(job);
        self.screen.tie_to_overlay(Box::new(AbortOnDrop(handle)));
    }

    /// What an overlay asked for.
    pub(crate) fn act_overlay(&mut self, action: OverlayAction) {
        match action {
            OverlayAction::OpenArtifact(artifact) => self.read_artifact(artifact),
            OverlayAction::SaveArtifacts {
                artifacts,
                overwrite,
            } => self.save_artifacts(artifacts, overwrite),
            OverlayAction::SaveArchive { turn, overwrite } => self.save_archive(turn, overwrite),
            OverlayAction::ListFiles { snapshot } => self.list_files(snapshot),
            OverlayAction::SendReview { text } => self.send_review(text),
            OverlayAction::ReloadChanges => self.read_changes_again(),
            OverlayAction::ReplaceRules(asked) => self.act_replace_rules(*asked),
            OverlayAction::SetLabels(labels) => self.act_set_labels(labels),
            OverlayAction::SwitchModel { model, credential } => {
                self.act_switch_model(model, credential)
            }
            OverlayAction::OpenFile { path } => {
                let (client, id) = (self.client.clone(), self.session_id.clone());
                self.spawn_for_overlay(async move {
                    let result = client.file_content(&id, &path).await;
                    OverlayMsg::FileRead {
                        path,
                        result: result.map_err(|e| e.summary()),
                    }
                });
            }
        }
        self.request_frame();
    }

    fn read_artifact(&mut self, artifact: Box<Artifact>) {
        if let Some(list) = self.screen.overlay_as::<ArtifactList>() {
            list.set_status(&format!("opening {}…", text::one_line(&artifact.path, 80)));
        }
        let (client, id) = (self.client.clone(), self.session_id.clone());
        self.spawn_for_overlay(async move {
            let result = read_head(&client, &id, &artifact.id).await;
            OverlayMsg::ArtifactRead { artifact, result }
        });
    }

    /// `s` / `S`: checks every target first (nothing is written when one is refused), asks
    /// before replacing a file, then saves off the loop.
    fn save_artifacts(&mut self, artifacts: Vec<Artifact>, overwrite: bool) {
        let dir = self.save_dir();
        let Some(list) = self.screen.overlay_as::<ArtifactList>() else {
            return;
        };
        let planned = match downloads::plan(&artifacts) {
            Ok(planned) => planned,
            Err(refused) => return list.set_status(&refused.join("; ")),
        };
        let mut existing = Vec::new();
        for (rel, _) in &planned {
            match target::prepare(&dir, rel, overwrite, false) {
                Ok(_) => {}
                Err(Blocked::Exists(path)) => existing.push(path),
                Err(e) => return list.set_status(&format!("refusing {e}")),
            }
        }
        if !existing.is_empty() {
            let question = match existing.as_slice() {
                [one] => format!("{} exists: overwrite it?", one.display()),
                many => format!(
                    "{} files exist in {}: overwrite them?",
                    many.len(),
                    shown(&dir)
                ),
            };
            let again = OverlayAction::SaveArtifacts {
                artifacts,
                overwrite: true,
            };
            return list.ask(&question, again);
        }
        let jobs: Vec<(PathBuf, Artifact)> = planned
            .into_iter()
            .map(|(rel, a)| (rel, a.clone()))
            .collect();
        list.set_status(&format!("saving {} to {}…", count(jobs.len()), shown(&dir)));
        let (client, id, tx) = (
            self.client.clone(),
            self.session_id.clone(),
            self.msgs.clone(),
        );
        self.spawn_overlay_job(async move {
            let result = save_all(&client, &id, &dir, jobs, overwrite, &tx).await;
            OverlayMsg::Saved(result)
        });
    }

    /// `t`: the selected artifact's turn as one tar file, `<turn>.tar`.
    fn save_archive(&mut self, turn: String, overwrite: bool) {
        let dir = self.save_dir();
        let Some(list) = self.screen.overlay_as::<ArtifactList>() else {
            return;
        };
        // The turn id names the file: judged as strictly as an artifact path.
        let rel = match target::relative(&format!("{}{turn}.tar", target::OUTPUTS)) {
            Ok(rel) if rel.components().count() == 1 => rel,
            _ => {
                return list.set_status(&format!(
                    "refusing the archive: the turn id {} cannot name a file",
                    text::one_line(&turn, 60)
                ));
            }
        };
        match target::prepare(&dir, &rel, overwrite, false) {
            Ok(_) => {}
            Err(Blocked::Exists(path)) => {
                let again = OverlayAction::SaveArchive {
                    turn,
                    overwrite: true,
                };
                return list.ask(&format!("{} exists: overwrite it?", path.display()), again);
            }
            Err(e) => return list.set_status(&format!("refusing {e}")),
        }
        list.set_status(&format!("saving the archive of {} …", text::line(&turn)));
        let (client, id, tx) = (
            self.client.clone(),
            self.session_id.clone(),
            self.msgs.clone(),
        );
        self.spawn_overlay_job(async move {
            let result = async {
                std::fs::create_dir_all(&dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                let path = target::prepare(&dir, &rel, overwrite, true)
                    .map_err(|e| format!("refusing {e}"))?;
                let beneath = Beneath::open(&dir, &rel)
                    .map_err(|e| format!("refusing {}: {e}", path.display()))?;
                let body = client
                    .artifact_archive(&id, Some(&turn))
                    .await
                    .map_err(|e| format!("could not download the archive: {}", e.summary()))?;
                let label = format!("{}.tar", text::line(&turn));
                let bytes = save_one(body, &beneath, overwrite, &label, &tx).await?;
                Ok(format!("saved {} ({})", path.display(), units::size(bytes)))
            }
            .await;
            OverlayMsg::Saved(result)
        });
    }

    pub(crate) fn on_overlay_msg(&mut self, msg: OverlayMsg) {
        self.request_frame();
        let theme = self.theme.clone();
        match msg {
            OverlayMsg::ArtifactsListed(result) => {
                if let Some(list) = self.screen.overlay_as::<ArtifactList>() {
                    let cut = result.as_ref().ok().and_then(|listed| listed.cut);
                    list.listed(result.map(|listed| listed.items));
                    if let Some(cut) = cut {
                        list.set_status(&format!("showing part of the artifacts: {cut}"));
                    }
                }
            }
            OverlayMsg::ArtifactRead { artifact, result } => {
                if let Some(list) = self.screen.overlay_as::<ArtifactList>() {
                    match result {
                        Ok((bytes, more)) => {
                            list.set_status("");
                            list.show(artifact_pager(&artifact, &bytes, more, &theme));
                        }
                        Err(why) => list.set_status(&format!("could not open it: {why}")),
                    }
                }
            }
            OverlayMsg::SaveProgress(progress) => {
                if let Some(list) = self.screen.overlay_as::<ArtifactList>() {
                    list.set_progress(progress);
                }
            }
            OverlayMsg::Saved(result) => {
                let line = match &result {
                    Ok(done) => done.clone(),
                    Err(why) => format!("not saved: {why}"),
                };
                match self.screen.overlay_as::<ArtifactList>() {
                    Some(list) => list.set_status(&line),
                    None => self.notice(Some(line)),
                }
            }
            OverlayMsg::ChangesRead { files, warning } => {
                if let Some(view) = self.screen.overlay_as::<ChangesView>() {
                    view.loaded(files);
                    if let Some(warning) = warning {
                        view.set_status(&warning);
                    }
                }
            }
            OverlayMsg::FilesListed(result) => {
                if let Some(browser) = self.screen.overlay_as::<FileBrowser>() {
                    browser.listed(result, gobare_api::clock::unix_ms());
                }
            }
            OverlayMsg::CredentialsRead(result) => self.on_credentials_read(result),
            OverlayMsg::FileRead { path, result } => {
                if let Some(browser) = self.screen.overlay_as::<FileBrowser>() {
                    match result {
                        Ok(content) => browser.show(file_pager(&path, &content, &theme)),
                        Err(why) => browser.set_status(&format!("could not open {path}: {why}")),
                    }
                }
            }
        }
    }
}

/// "1 artifact", "3 artifacts".
fn count(n: usize) -> String {
    if n == 1 {
        "1 artifact".into()
    } else {
        format!("{n} artifacts")
    }
}

/// Up to [`SHOW_MAX_BYTES`] of an artifact's content; `true` when there was more.
async fn read_head(
    client: &ApiClient,
    session: &str,
    artifact: &str,
) -> Result<(Vec<u8>, bool), String> {
    let mut body = client
        .artifact_content(session, artifact)
        .await
        .map_err(|e| e.summary())?;
    let mut bytes = Vec::new();
    while let Some(chunk) = body.chunk().await.map_err(|e| e.summary())? {
        let room = usize::try_from(SHOW_MAX_BYTES).unwrap_or(usize::MAX) - bytes.len();
        if chunk.len() >= room {
            bytes.extend_from_slice(&chunk[..room]);
            let more =
                chunk.len() > room || body.content_length().is_some_and(|n| n > SHOW_MAX_BYTES);
            return Ok((bytes, more));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes, false))
}

/// Each planned artifact into `dir`, one after the other.
async fn save_all(
    client: &ApiClient,
    session: &str,
    dir: &Path,
    jobs: Vec<(PathBuf, Artifact)>,
    overwrite: bool,
    tx: &UnboundedSender<AppMsg>,
) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (n, mut total) = (jobs.len(), 0);
    let mut last = PathBuf::new();
    for (rel, a) in jobs {
        let path =
            target::prepare(dir, &rel, overwrite, true).map_err(|e| format!("refusing {e}"))?;
        let beneath =
            Beneath::open(dir, &rel).map_err(|e| format!("refusing {}: {e}", path.display()))?;
        let body = client.artifact_content(session, &a.id).await.map_err(|e| {
            format!(
                "could not download {}: {}",
                text::line(&a.path),
                e.summary()
            )
        })?;
        let label = text::one_line(&rel.to_string_lossy(), 60);
        total += save_one(body, &beneath, overwrite, &label, tx).await?;
        last = path;
    }
    Ok(match n {
        1 => format!("saved {} ({})", last.display(), units::size(total)),
        _ => format!(
            "saved {} to {} ({})",
            count(n),
            shown(dir),
            units::size(total)
        ),
    })
}

/// One download to `path`, reporting progress (bytes, rate) a few times a second, and
/// only when bytes arrived: a stalled download draws nothing.
async fn save_one(
    body: gobare_api::download::Download,
    path: &Beneath,
    overwrite: bool,
    label: &str,
    tx: &UnboundedSender<AppMsg>,
) -> Result<u64, String> {
    let total = body.content_length();
    let started = Instant::now();
    let (mut done, mut drawn) = (0, started);
    let mut progress = |n: u64| {
        done += n;
        let now = Instant::now();
        if now - drawn >= PROGRESS_EVERY {
            drawn = now;
            let progress = SaveProgress::new(label, done, total, now - started);
            let _ = tx.send(AppMsg::Overlay(OverlayMsg::SaveProgress(progress)));
        }
    };
    // The app ends saves by quitting: the task is dropped and the temporary file with it.
    save::save(body, path, overwrite, &mut progress, std::future::pending())
        .await
        .map_err(|e| e.to_string())
}

/// Whether `bytes` read as text: UTF-8 (a character cut at the end of a partial read
/// allowed) without NUL.
fn as_text(bytes: &[u8], partial: bool) -> Option<&str> {
    if bytes.contains(&0) {
        return None;
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Some(s),
        Err(e) if partial && e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()
        }
        Err(_) => None,
    }
}

/// An artifact's pager: its text highlighted by its name, or what it is when binary.
pub(crate) fn artifact_pager(
    artifact: &Artifact,
    bytes: &[u8],
    more: bool,
    theme: &Theme,
) -> Pager {
    let name = artifact.path.as_str();
    let kind = artifact
        .content_type
        .as_deref()
        .unwrap_or("application/octet-stream");
    let size = units::size(artifact.size_bytes);
    match as_text(bytes, more) {
        Some(content) => {
            let title = if more {
                format!(
                    "{name} · the first {} of {size}; s in the list saves it all",
                    units::size(bytes.len() as u64)
                )
            } else {
                format!("{name} · {size}")
            };
            Pager::highlighted(&title, name, content, theme)
        }
        None => binary_pager(name, kind, &size, theme),
    }
}

fn binary_pager(name: &str, kind: &str, size: &str, theme: &Theme) -> Pager {
    let lines = vec![
        Line::styled(
            format!("binary file: {}, {size}", text::line(kind)),
            theme.text,
        ),
        Line::styled(
            "its bytes are not shown here; s in the list saves it",
            theme.dim,
        ),
    ];
    Pager::new(&format!("{name} · {size}"), lines)
}

/// A workspace file's pager.
pub(crate) fn file_pager(path: &str, file: &FileContent, theme: &Theme) -> Pager {
    let note = if file.truncated {
        " · cut short by the server"
    } else {
        ""
    };
    if file.encoding.as_deref() == Some("base64") {
        let size = base64::engine::general_purpose::STANDARD
            .decode(file.content.as_bytes())
            .map(|b| units::size(b.len() as u64))
            .unwrap_or_else(|_| "unknown size".into());
        return binary_pager(path, "not text", &format!("{size}{note}"), theme);
    }
    Pager::highlighted(&format!("{path}{note}"), path, &file.content, theme)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_text_even_cut_mid_character_and_binary_is_not() {
        assert_eq!(as_text(b"hello", false), Some("hello"));
        assert_eq!(as_text("héllo".as_bytes().split_at(2).0, true), Some("h"));
        assert_eq!(as_text(b"a\0b", false), None);
        assert_eq!(as_text(&[0xff, 0xfe], false), None);
    }

    #[test]
    fn a_binary_artifact_shows_its_size_and_type_only() {
        let a: Artifact = serde_json::from_value(json!({"id": "a", "turn_id": "t",
            "path": "/workspace/outputs/chart.png", "size_bytes": 2048,
            "content_type": "image/png"}))
        .unwrap();
        let mut pager = artifact_pager(
            &a,
            &[0x89, b'P', b'N', b'G', 0, 1],
            false,
            &Theme::default(),
        );
        let mut buf = ratatui::buffer::Buffer::empty(ratatui::layout::Rect::new(0, 0, 80, 10));
        crate::ui::overlays::Overlay::render(&mut pager, buf.area, &mut buf, &Theme::default());
        let screen: String = (0..10)
            .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
            .collect();
        assert!(
            screen.contains("binary file: image/png, 2.0 kB"),
            "{screen}"
        );
    }
}
