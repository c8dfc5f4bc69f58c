//! The export's Markdown for the workspace and the stream: created, paused, resumed, recovery,
//! preview, artifacts, and event types this build does not know.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use crate::session::vocabulary::workspace as words;
use gobare_api::event_family::WorkspaceEvent;

impl<W: Write> Writing<'_, W> {
    pub(super) fn workspace(&mut self, event: WorkspaceEvent<'_>) -> io::Result<()> {
        use WorkspaceEvent as P;
        let Writing {
            out,
            facts,
            scratch,
            at,
            ..
        } = self;
        let at = *at;
        match event {
            P::WorkspaceRecoveryFailed(m) => {
                message(out, words::RECOVERY_FAILED_HEADING, at, &m.message)?
            }
            P::SandboxCreated(_) => note(out, words::CREATED, at)?,
            P::SandboxPaused(_) => note(out, words::PAUSED, at)?,
            P::SandboxResumed(_) => note(out, words::RESUMED, at)?,
            P::PreviewReady(p) => {
                let url = inline(&p.url.as_deref().map(clean_line).unwrap_or_default());
                // The port too, as the transcript shows it (and search finds it).
                let ready = words::PREVIEW_READY;
                match p.port {
                    Some(port) => note(out, format_args!("{ready} on :{port}: {url}"), at)?,
                    None => note(out, format_args!("{ready}: {url}"), at)?,
                }
            }
            // Listed in its turn's closing line when the lists read had it.
            P::ArtifactCreated(a) => {
                if !facts.lists_artifact(&a.id) {
                    let path = inline_code(&clean_line(&a.path));
                    note(out, format_args!("{}: {path}", words::ARTIFACT), at)?
                }
            }
            P::ReplayTruncated(_) => {}
            P::Unknown { kind, raw } => {
                let kind = inline_code(&clean_line(kind));
                heading(
                    out,
                    format_args!("{} {kind}", words::UNKNOWN_EVENT_HEADING),
                    at,
                )?;
                json_block(out, scratch, raw)?;
            }
        }
        Ok(())
    }
}
