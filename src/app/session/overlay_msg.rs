//! What the artifacts and workspace-files jobs (`app::session::overlay_jobs`) report back to
//! the loop.

use crate::ui::overlays::changes_view::ViewFile;
use crate::ui::overlays::save_progress::SaveProgress;
use gobare_api::files::{FileContent, FileTree};
use gobare_api::model::Artifact;
use gobare_api::paging::Listed;

/// What an outputs job brought back.
#[derive(Debug)]
pub(crate) enum OverlayMsg {
    ArtifactsListed(Result<Listed<Artifact>, String>),
    /// The first bytes of an artifact (`true`: there were more).
    ArtifactRead {
        artifact: Box<Artifact>,
        result: Result<(Vec<u8>, bool), String>,
    },
    /// Bytes so far of a save.
    SaveProgress(SaveProgress),
    /// A save ended: what was saved, or why not.
    Saved(Result<String, String>),
    FilesListed(Result<FileTree, String>),
    /// The changes view's files, and the first warning met reading them.
    ChangesRead {
        files: Result<Vec<ViewFile>, String>,
        warning: Option<String>,
    },
    FileRead {
        path: String,
        result: Result<FileContent, String>,
    },
    /// The organization's model credentials, for the model switch.
    CredentialsRead(Result<gobare_api::credentials::Credentials, String>),
}
