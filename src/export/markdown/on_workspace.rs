//! The export's Markdown for the workspace and the stream: created, paused, resumed, recovery,
//! preview, artifacts, and event types this build does not know.

use super::*;

impl<W: Write> Writing<'_, W> {
    pub(super) fn workspace(&mut self, payload: &EventPayload) -> io::Result<()> {
        use EventPayload as P;
        let Writing {
            out,
            facts,
            scratch,
            at,
            ..
        } = self;
        let at = *at;
        match payload {
            P::WorkspaceRecoveryFailed(m) => {
                message(out, "Error: workspace recovery failed", at, &m.message)?
            }
            P::SandboxCreated(_) => note(out, "workspace created", at)?,
            P::SandboxPaused(_) => note(out, "workspace paused", at)?,
            P::SandboxResumed(_) => note(out, "workspace resumed", at)?,
            P::PreviewReady(p) => {
                let url = inline(&p.url.as_deref().map(clean_line).unwrap_or_default());
                // The port too, as the transcript shows it (and search finds it).
                match p.port {
                    Some(port) => note(out, format_args!("preview ready on :{port}: {url}"), at)?,
                    None => note(out, format_args!("preview ready: {url}"), at)?,
                }
            }
            // Listed in its turn's closing line when the lists read had it.
            P::ArtifactCreated(a) if !facts.lists_artifact(&a.id) => {
                let path = inline_code(&clean_line(&a.path));
                note(out, format_args!("artifact: {path}"), at)?
            }
            P::ReplayTruncated(_) => {}
            P::Unknown { kind, raw } => {
                let kind = inline_code(&clean_line(kind));
                heading(out, format_args!("Event {kind}"), at)?;
                json_block(out, scratch, raw)?;
            }
            _ => {}
        }
        Ok(())
    }
}
