//! Events of one family into entries: the workspace and the stream itself: previews, recovery, artifacts, a truncated replay, and types this build does not know.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use gobare_api::event_family::WorkspaceEvent;

impl Transcript {
    pub(super) fn apply_workspace_event(
        &mut self,
        at: Option<i64>,
        ev: WorkspaceEvent<'_>,
    ) -> bool {
        use WorkspaceEvent as P;
        match ev {
            P::PreviewReady(p) => {
                self.push(
                    at,
                    EntryKind::Preview {
                        port: p.port,
                        url: p.url.clone(),
                    },
                );
                true
            }
            P::WorkspaceRecoveryFailed(m) => {
                self.push(
                    at,
                    EntryKind::RecoveryFailed {
                        message: m.message.clone(),
                    },
                );
                true
            }
            P::ArtifactCreated(a) => {
                self.push(
                    at,
                    EntryKind::Artifact {
                        id: a.id.as_str().into(),
                        path: a.path.as_str().into(),
                        size_bytes: a.size_bytes,
                    },
                );
                true
            }
            P::ReplayTruncated(t) => {
                self.push(
                    at,
                    EntryKind::ReplayTruncated {
                        from_seq: t.from_seq,
                    },
                );
                true
            }
            P::SandboxCreated(_) | P::SandboxPaused(_) | P::SandboxResumed(_) => false,
            P::Unknown { kind, raw } => {
                self.push(
                    at,
                    EntryKind::Unknown {
                        kind: clip(kind, 80),
                        excerpt: compact_json(raw, 200),
                    },
                );
                true
            }
        }
    }
}
