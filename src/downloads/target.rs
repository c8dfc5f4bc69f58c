//! Where a downloaded artifact lands: its path below `/workspace/outputs/`, checked so that
//! nothing a server says can place a file outside the chosen directory.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Where artifacts live in the workspace (§6.7); their local path is what follows.
pub(crate) const OUTPUTS: &str = "/workspace/outputs/";

/// Why an artifact path cannot be saved under the directory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refused {
    #[error("it is not under {OUTPUTS}")]
    NotUnderOutputs,
    #[error("it names no file")]
    Empty,
    #[error("it climbs out of the directory (\"..\")")]
    Climbs,
    #[error("it has an empty, \".\" or unprintable component")]
    OddComponent,
}

/// The relative path an artifact at workspace path `path` is saved at. Pure: only the text
/// is judged; [`prepare`] checks the disk.
pub(crate) fn relative(path: &str) -> Result<PathBuf, Refused> {
    let rest = path.strip_prefix(OUTPUTS).ok_or(Refused::NotUnderOutputs)?;
    if rest.is_empty() {
        return Err(Refused::Empty);
    }
    let mut out = PathBuf::new();
    for part in rest.split('/') {
        match part {
            ".." => return Err(Refused::Climbs),
            "" | "." => return Err(Refused::OddComponent),
            p if p
                .chars()
                .any(|c| c == '\0' || gobare_api::text::is_unsafe(c)) =>
            {
                return Err(Refused::OddComponent);
            }
            p => out.push(p),
        }
    }
    Ok(out)
}

/// Why a checked relative path still cannot be written under the directory.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Blocked {
    #[error("{} is a symbolic link; it could lead outside the directory", .0.display())]
    Symlink(PathBuf),
    #[error("{} exists (use --force to overwrite it)", .0.display())]
    Exists(PathBuf),
    #[error("{} is in the way: it is not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("{} is a directory", .0.display())]
    IsADirectory(PathBuf),
    #[error("cannot inspect {}: {}", .0.display(), .1)]
    Io(PathBuf, std::io::Error),
}

/// Checks that `dir/rel` can be written without following a symbolic link anywhere below
/// `dir` and, unless `force`, without replacing a file. With `create`, missing directories
/// on the way are made. Returns the final path.
pub(crate) fn prepare(
    dir: &Path,
    rel: &Path,
    force: bool,
    create: bool,
) -> Result<PathBuf, Blocked> {
    let mut at = dir.to_path_buf();
    let mut parts = rel.components().peekable();
    while let Some(part) = parts.next() {
        at.push(part);
        let last = parts.peek().is_none();
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Err(Blocked::Symlink(at)),
            Ok(m) if last && m.is_dir() => return Err(Blocked::IsADirectory(at)),
            Ok(_) if last && !force => return Err(Blocked::Exists(at)),
            Ok(m) if !last && !m.is_dir() => return Err(Blocked::NotADirectory(at)),
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {
                if !last && create {
                    match std::fs::create_dir(&at) {
                        Ok(()) => {}
                        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                        Err(e) => return Err(Blocked::Io(at, e)),
                    }
                }
            }
            Err(e) => return Err(Blocked::Io(at, e)),
        }
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_below_outputs_keep_their_shape() {
        assert_eq!(
            relative("/workspace/outputs/report.md"),
            Ok(PathBuf::from("report.md"))
        );
        assert_eq!(
            relative("/workspace/outputs/charts/q3/a.png"),
            Ok(PathBuf::from("charts/q3/a.png"))
        );
    }

    #[test]
    fn hostile_paths_are_refused() {
        let cases = [
            ("/workspace/outputs/../../etc/passwd", Refused::Climbs),
            ("/workspace/outputs/a/../../b", Refused::Climbs),
            ("/workspace/outputs/..", Refused::Climbs),
            ("/etc/passwd", Refused::NotUnderOutputs),
            ("../x", Refused::NotUnderOutputs),
            ("workspace/outputs/x", Refused::NotUnderOutputs),
            ("/workspace/outputs", Refused::NotUnderOutputs),
            ("/workspace/outputs/", Refused::Empty),
            ("/workspace/outputs//etc/passwd", Refused::OddComponent),
            ("/workspace/outputs/a//b", Refused::OddComponent),
            ("/workspace/outputs/./a", Refused::OddComponent),
            ("/workspace/outputs/a/", Refused::OddComponent),
            ("/workspace/outputs/a\u{1b}[2J", Refused::OddComponent),
            ("/workspace/outputs/a\0b", Refused::OddComponent),
        ];
        for (path, why) in cases {
            assert_eq!(relative(path), Err(why), "{path:?}");
        }
    }

    #[test]
    fn symlinks_existing_files_and_blockers_are_refused_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        std::fs::write(dir.path().join("there.txt"), "old").unwrap();

        let p = |rel: &str, force| prepare(dir.path(), Path::new(rel), force, true);
        assert!(matches!(p("link/x.txt", true), Err(Blocked::Symlink(_))));
        assert!(matches!(p("link", true), Err(Blocked::Symlink(_))));
        assert!(matches!(p("there.txt", false), Err(Blocked::Exists(_))));
        assert_eq!(p("there.txt", true).unwrap(), dir.path().join("there.txt"));
        assert!(matches!(
            p("there.txt/x", true),
            Err(Blocked::NotADirectory(_))
        ));
        assert_eq!(
            p("new/deep/x.txt", false).unwrap(),
            dir.path().join("new/deep/x.txt")
        );
        assert!(dir.path().join("new/deep").is_dir());
        assert!(matches!(p("new", true), Err(Blocked::IsADirectory(_))));
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
