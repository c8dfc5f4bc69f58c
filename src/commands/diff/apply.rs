//! `diff --apply`: the patch checked against the checkout before git sees it, applied with
//! `git apply`, and never left half-applied without a word.
//!
//! `git apply --check` passes patches that `git apply` then fails half-way through (a file
//! `zz` and a file `zz/b` in one patch: `src/a.txt` and `zz` were written before the failure).
//! So a patch that makes a file where it also needs a directory is refused here, before git
//! runs; what the patch touches is kept aside, and put back if git fails after its check
//! (what cannot be put back is named). A change to a path the checkout has as a symbolic
//! link re-points the link (git keeps the entry's mode): that is said, with both targets.

use crate::changes::compose::{FileDiff, Status};
use crate::cli::UsageError;
use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use gobare_api::text;
use std::collections::BTreeSet;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The most bytes of the checkout's files kept aside to put back (past it, a file's change
/// is still named, not restored).
const KEPT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// What was applied, to be said.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// Symbolic links the patch re-pointed: (path, target before, target after).
    pub(crate) relinked: Vec<(String, String, String)>,
}

/// `diffs` applied to `dir` with `git apply` (after `git apply --check`); on refusal,
/// nothing changed, and on a failure after the check, what git wrote put back.
pub(crate) fn apply(dir: &Path, diffs: &[(&str, &FileDiff)], patch: &str) -> Result<Applied> {
    if !dir.is_dir() {
        return Err(UsageError(format!("--apply: {} is not a directory", shown_path(dir))).into());
    }
    let clashes = clashes(dir, diffs);
    if !clashes.is_empty() {
        bail!(
            "the patch does not apply to {}: {}; nothing was changed",
            shown_path(dir),
            clashes.join("; ")
        );
    }
    let mut file = tempfile::NamedTempFile::new().wrap_err("cannot write the patch")?;
    file.write_all(patch.as_bytes())?;
    file.flush()?;
    // Paths are relative to `dir`, also when it is a subdirectory of a repository.
    let prefix = Command::new("git")
        .args(["rev-parse", "--show-prefix"])
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let git_apply = |check: bool| -> Result<std::process::Output> {
        let mut git = Command::new("git");
        git.arg("apply").current_dir(dir);
        if check {
            git.arg("--check");
        }
        if !prefix.is_empty() {
            git.arg(format!("--directory={prefix}"));
        }
        git.arg(file.path())
            .output()
            .map_err(|e| eyre!("cannot run git: {e}"))
    };
    let checked = git_apply(true)?;
    if !checked.status.success() {
        bail!(
            "the patch does not apply to {}; nothing was changed:\n{}",
            shown_path(dir),
            String::from_utf8_lossy(&checked.stderr).trim_end()
        );
    }
    let before = Before::take(dir, diffs);
    let applied = git_apply(false)?;
    if !applied.status.success() {
        let why = String::from_utf8_lossy(&applied.stderr);
        let unrestored = before.put_back(dir);
        if unrestored.is_empty() {
            bail!(
                "git apply failed after its check passed; what it wrote was put back, \
                 nothing was changed:\n{}",
                why.trim_end()
            );
        }
        bail!(
            "git apply failed after its check passed, and {} could not be put back as it was: \
             {}\n{}",
            plural(unrestored.len(), "file"),
            unrestored
                .iter()
                .map(|p| text::one_line(p, 300))
                .collect::<Vec<_>>()
                .join(", "),
            why.trim_end()
        );
    }
    Ok(Applied {
        relinked: before.relinked(dir),
    })
}

/// Why the patch cannot be applied whole: a path it writes as a file where it, or the
/// checkout, also needs a directory (or the other way round).
fn clashes(dir: &Path, diffs: &[(&str, &FileDiff)]) -> Vec<String> {
    let kept: BTreeSet<&str> = diffs
        .iter()
        .filter(|(_, d)| d.status != Status::Deleted)
        .map(|(p, _)| *p)
        .collect();
    let deleted: BTreeSet<&str> = diffs
        .iter()
        .filter(|(_, d)| d.status == Status::Deleted)
        .map(|(p, _)| *p)
        .collect();
    let mut out = Vec::new();
    for path in &kept {
        for parent in parents(path) {
            if kept.contains(parent) {
                out.push(format!(
                    "it writes {} as a file and {} inside it",
                    text::one_line(parent, 200),
                    text::one_line(path, 200)
                ));
            } else if !deleted.contains(parent)
                && std::fs::symlink_metadata(dir.join(parent)).is_ok_and(|m| !m.is_dir())
            {
                out.push(format!(
                    "it writes {} inside {}, which is not a directory here",
                    text::one_line(path, 200),
                    text::one_line(parent, 200)
                ));
            }
        }
    }
    out
}

/// `a/b/c` → `a`, `a/b`.
fn parents(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(i, _)| &path[..i])
}

/// What a path was before git ran.
#[derive(Debug)]
enum Was {
    Missing,
    File {
        bytes: Vec<u8>,
        mode: u32,
    },
    Link(PathBuf),
    /// Too large to keep, a directory, or unreadable: only its change can be named.
    Unkept(Option<(u64, Option<std::time::SystemTime>)>),
}

/// The checkout's state at every path the patch touches, and the directories it may make.
struct Before {
    paths: Vec<(String, Was)>,
    /// Parent directories that did not exist (made by git), deepest last.
    missing_dirs: Vec<String>,
}

impl Before {
    fn take(dir: &Path, diffs: &[(&str, &FileDiff)]) -> Before {
        let mut kept_bytes = 0u64;
        let mut paths = Vec::new();
        let mut missing_dirs = BTreeSet::new();
        for (path, _) in diffs {
            let at = dir.join(path);
            for parent in parents(path) {
                if std::fs::symlink_metadata(dir.join(parent)).is_err() {
                    missing_dirs.insert(parent.to_string());
                }
            }
            let was = match std::fs::symlink_metadata(&at) {
                Err(_) => Was::Missing,
                Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&at) {
                    Ok(target) => Was::Link(target),
                    Err(_) => Was::Unkept(None),
                },
                Ok(m) if m.is_file() && kept_bytes + m.len() <= KEPT_MAX_BYTES => {
                    match std::fs::read(&at) {
                        Ok(bytes) => {
                            kept_bytes += bytes.len() as u64;
                            Was::File {
                                bytes,
                                mode: m.permissions().mode(),
                            }
                        }
                        Err(_) => Was::Unkept(Some((m.len(), m.modified().ok()))),
                    }
                }
                Ok(m) => Was::Unkept(Some((m.len(), m.modified().ok()))),
            };
            paths.push((path.to_string(), was));
        }
        Before {
            paths,
            missing_dirs: missing_dirs.into_iter().collect(),
        }
    }

    /// Puts every path back as it was; the paths that are not as they were after it.
    fn put_back(&self, dir: &Path) -> Vec<String> {
        let mut unrestored = Vec::new();
        for (path, was) in &self.paths {
            let at = dir.join(path);
            let now = std::fs::symlink_metadata(&at);
            let restored = match was {
                Was::Missing => match now {
                    Err(_) => true,
                    Ok(m) if m.is_dir() => std::fs::remove_dir(&at).is_ok(),
                    Ok(_) => std::fs::remove_file(&at).is_ok(),
                },
                Was::File { bytes, mode } => {
                    let same = now.as_ref().is_ok_and(|m| m.is_file())
                        && std::fs::read(&at).is_ok_and(|b| &b == bytes);
                    same || {
                        if now.as_ref().is_ok_and(|m| !m.is_dir()) {
                            let _ = std::fs::remove_file(&at);
                        }
                        std::fs::write(&at, bytes).is_ok()
                            && std::fs::set_permissions(&at, std::fs::Permissions::from_mode(*mode))
                                .is_ok()
                    }
                }
                Was::Link(target) => {
                    std::fs::read_link(&at).is_ok_and(|t| &t == target) || {
                        if now.as_ref().is_ok_and(|m| !m.is_dir()) {
                            let _ = std::fs::remove_file(&at);
                        }
                        std::os::unix::fs::symlink(target, &at).is_ok()
                    }
                }
                Was::Unkept(seen) => now.ok().map(|m| (m.len(), m.modified().ok())) == *seen,
            };
            if !restored {
                unrestored.push(path.clone());
            }
        }
        // Directories git made for new files, emptied again above.
        for made in self.missing_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir.join(made));
        }
        unrestored
    }

    /// The links that point elsewhere now: (path, before, after).
    fn relinked(&self, dir: &Path) -> Vec<(String, String, String)> {
        self.paths
            .iter()
            .filter_map(|(path, was)| {
                let Was::Link(before) = was else {
                    return None;
                };
                let after = std::fs::read_link(dir.join(path)).ok()?;
                (after != *before).then(|| {
                    (
                        path.clone(),
                        before.to_string_lossy().into_owned(),
                        after.to_string_lossy().into_owned(),
                    )
                })
            })
            .collect()
    }
}

fn shown_path(dir: &Path) -> String {
    text::one_line(&dir.display().to_string(), 300)
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests;
