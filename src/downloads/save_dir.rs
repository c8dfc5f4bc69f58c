//! Where the app saves a session's artifacts: `[downloads] dir` from the config file, else the
//! user's download directory, else the current directory; always a full path, so the notice
//! that says where a file went can be followed.

use std::path::{Path, PathBuf};

/// The folder made in the download (or current) directory for the app's saves.
const FOLDER: &str = "gobare-artifacts";
/// Characters of the session id naming its directory.
const SESSION_PREFIX: usize = 16;

/// The directory under which each session gets its own: `configured` (relative to `cwd`
/// when relative), else `<download>/gobare-artifacts`, else `<cwd>/gobare-artifacts`.
pub(crate) fn root(configured: Option<&Path>, download: Option<&Path>, cwd: &Path) -> PathBuf {
    match (configured, download) {
        (Some(dir), _) => cwd.join(dir),
        (None, Some(download)) => cwd.join(download).join(FOLDER),
        (None, None) => cwd.join(FOLDER),
    }
}

/// The user's download directory: `$XDG_DOWNLOAD_DIR` when it is an absolute path, else the
/// platform's (on Linux `XDG_DOWNLOAD_DIR` in `user-dirs.dirs`), if there is one.
pub(crate) fn download_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_DOWNLOAD_DIR").map(PathBuf::from)
        && dir.is_absolute()
    {
        return Some(dir);
    }
    directories::UserDirs::new()?
        .download_dir()
        .map(Path::to_path_buf)
}

/// [`root`] for this process: the configured directory, the download directory, the
/// current directory (`.` when even that cannot be read).
pub(crate) fn root_here(configured: Option<&Path>) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    root(configured, download_dir().as_deref(), &cwd)
}

/// A session's own directory under `root`, named by the printable start of its id.
pub(crate) fn for_session(root: &Path, session_id: &str) -> PathBuf {
    let prefix: String = gobare_api::text::line(session_id)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(SESSION_PREFIX)
        .collect();
    root.join(prefix)
}

/// `~/…` in a configured path, with the home directory (no other expansion).
pub(crate) fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), directories::BaseDirs::new()) {
        (Some(rest), Some(dirs)) => dirs.home_dir().join(rest),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_directory_wins_then_downloads_then_the_current_one() {
        let cwd = Path::new("/home/u/work");
        let dl = Some(Path::new("/home/u/Downloads"));
        assert_eq!(
            root(Some(Path::new("/srv/out")), dl, cwd),
            Path::new("/srv/out")
        );
        assert_eq!(
            root(Some(Path::new("out")), dl, cwd),
            Path::new("/home/u/work/out")
        );
        assert_eq!(
            root(None, dl, cwd),
            Path::new("/home/u/Downloads/gobare-artifacts")
        );
        assert_eq!(
            root(None, None, cwd),
            Path::new("/home/u/work/gobare-artifacts")
        );
    }

    #[test]
    fn a_session_directory_is_named_by_a_clean_id_prefix() {
        let root = Path::new("/d");
        assert_eq!(
            for_session(root, "ses_0123456789abcdef0123"),
            Path::new("/d/ses_0123456789ab")
        );
        assert_eq!(for_session(root, "../../x"), Path::new("/d/x"));
    }

    #[test]
    fn only_a_leading_tilde_is_expanded() {
        let home = directories::BaseDirs::new()
            .unwrap()
            .home_dir()
            .to_path_buf();
        assert_eq!(expand_home("~/out"), home.join("out"));
        assert_eq!(expand_home("a/~/b"), Path::new("a/~/b"));
        assert_eq!(expand_home("~user/x"), Path::new("~user/x"));
    }
}
