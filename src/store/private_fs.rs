//! The file system under the state directory, as a shared machine allows it: directories
//! are the user's own and private (0700), nothing is reached through a symbolic link, and
//! every read is bounded. A link, a device or a FIFO planted where a state file goes is
//! refused, never followed, truncated or read without end.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The mode of every state directory.
const PRIVATE: u32 = 0o700;

/// The mode of every state file [`open`] creates, or finds looser.
const PRIVATE_FILE: u32 = 0o600;

/// What to do with a directory found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DirVerdict {
    /// It is the user's own and private.
    Use,
    /// The user's own, open to others: tightened to 0700, then used.
    Tighten,
    /// Not to be used: why.
    Refuse(String),
}

/// The facts about a directory entry that decide whether it may hold state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) symlink: bool,
    pub(crate) dir: bool,
    pub(crate) uid: u32,
    pub(crate) mode: u32,
}

impl Found {
    fn of(meta: &fs::Metadata) -> Found {
        Found {
            symlink: meta.file_type().is_symlink(),
            dir: meta.is_dir(),
            uid: meta.uid(),
            mode: meta.mode(),
        }
    }
}

/// Whether a directory with these facts may hold the state of user `me` (the rule of
/// OpenSSH's StrictModes: the user's own, and writable by nobody else).
pub(crate) fn judge(found: Found, me: u32) -> DirVerdict {
    if found.symlink {
        DirVerdict::Refuse("it is a symbolic link".into())
    } else if !found.dir {
        DirVerdict::Refuse("it is not a directory".into())
    } else if found.uid != me {
        DirVerdict::Refuse(format!(
            "it belongs to user {}, not to you (user {me})",
            found.uid
        ))
    } else if found.mode & 0o077 != 0 {
        DirVerdict::Tighten
    } else {
        DirVerdict::Use
    }
}

/// The real user id of this process.
fn my_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// A directory that must not hold state, and why: the error inside the `io::Error` the
/// functions here return for it (see [`is_refusal`]).
#[derive(Debug)]
pub(crate) struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Whether `e` is a directory refused by [`judge`] (rather than a disk that failed).
pub(crate) fn is_refusal(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Refused>())
}

/// Makes `dir` (one level; its parent exists) a private directory of the user's, or says
/// why it cannot be one. Missing, it is created 0700; the user's own but looser, it is
/// tightened; a link (unless `follow`), a file, or someone else's directory is refused.
fn private_dir(dir: &Path, follow: bool) -> io::Result<()> {
    match fs::DirBuilder::new().mode(PRIVATE).create(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    let meta = if follow {
        fs::metadata(dir)?
    } else {
        fs::symlink_metadata(dir)?
    };
    let found = Found::of(&meta);
    match judge(found, my_uid()) {
        DirVerdict::Use => Ok(()),
        DirVerdict::Tighten => {
            let mode = format!("{:o}", found.mode & 0o777);
            tracing::warn!(dir = %dir.display(), mode, "state directory tightened to 0700");
            fs::set_permissions(dir, fs::Permissions::from_mode(PRIVATE))
        }
        DirVerdict::Refuse(why) => Err(io::Error::other(Refused(format!(
            "refusing the state directory {}: {why}; remove it, or set XDG_STATE_HOME \
             to a directory of your own",
            dir.display()
        )))),
    }
}

/// [`private_dir`] for `root` (its parents created as needed; a link the user made to a
/// directory of theirs is followed) and then each of `subdirs` below it in turn, each
/// checked before the next is made inside it.
pub(crate) fn private_dirs(root: &Path, subdirs: &[&str]) -> io::Result<()> {
    if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(PRIVATE)
            .create(parent)?;
    }
    private_dir(root, true)?;
    let mut dir = root.to_path_buf();
    for sub in subdirs {
        dir.push(sub);
        private_dir(&dir, false)?;
    }
    Ok(())
}

/// Removes the symbolic links directly in `dir` (a private directory of files this app
/// names, such as the daily logs, where a link is never its own): a file opened by a
/// library that follows links then cannot write through one. Returns how many went.
pub(crate) fn remove_links(dir: &Path) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_symlink() {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Opens the regular file at `path` with `options`, never through a symbolic link (the
/// last component; the directories above are [`private_dir`]s) and never blocking on a
/// FIFO or device planted there. A file it creates is 0600 whatever the umask, and one of
/// the user's found open to others is tightened to 0600.
pub(crate) fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    let file = options
        .mode(PRIVATE_FILE)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    if meta.mode() & 0o077 != 0
        && meta.uid() == my_uid()
        && let Err(e) = file.set_permissions(fs::Permissions::from_mode(PRIVATE_FILE))
    {
        tracing::warn!(file = %path.display(), "cannot make the state file private: {e}");
    }
    Ok(file)
}

/// The regular file at `path` for reading, as [`open`].
pub(crate) fn open_read(path: &Path) -> io::Result<File> {
    open(path, OpenOptions::new().read(true))
}

/// The whole of the file at `path` when it holds at most `max` bytes; a larger one is an
/// error (`FileTooLarge`), found before it is read.
pub(crate) fn read_bounded(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_read(path)?;
    let len = file.metadata()?.len();
    let too_large = || {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("{} is larger than {max} bytes", path.display()),
        )
    };
    if len > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0) + 1);
    // A file that grows while read is bounded all the same.
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    const ME: u32 = 1000;

    fn dir(uid: u32, mode: u32) -> Found {
        Found {
            symlink: false,
            dir: true,
            uid,
            mode: 0o040_000 | mode,
        }
    }

    #[test]
    fn a_private_own_directory_is_used_a_looser_one_tightened_others_refused() {
        assert_eq!(judge(dir(ME, 0o700), ME), DirVerdict::Use);
        assert_eq!(judge(dir(ME, 0o775), ME), DirVerdict::Tighten);
        assert_eq!(judge(dir(ME, 0o701), ME), DirVerdict::Tighten);
        assert_eq!(
            judge(dir(1001, 0o700), ME),
            DirVerdict::Refuse("it belongs to user 1001, not to you (user 1000)".into())
        );
        let link = Found {
            symlink: true,
            dir: false,
            ..dir(ME, 0o777)
        };
        assert_eq!(
            judge(link, ME),
            DirVerdict::Refuse("it is a symbolic link".into())
        );
        let file = Found {
            dir: false,
            ..dir(ME, 0o600)
        };
        assert_eq!(
            judge(file, ME),
            DirVerdict::Refuse("it is not a directory".into())
        );
    }

    #[test]
    fn directories_are_made_0700_and_a_looser_one_is_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("state/gobare-tui");
        private_dirs(&root, &["hosts", "h"]).unwrap();
        for d in [&root, &root.join("hosts"), &root.join("hosts/h")] {
            assert_eq!(fs::metadata(d).unwrap().mode() & 0o777, 0o700, "{d:?}");
        }
        fs::set_permissions(&root, fs::Permissions::from_mode(0o775)).unwrap();
        private_dirs(&root, &[]).unwrap();
        assert_eq!(fs::metadata(&root).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn a_directory_of_someone_else_is_refused_with_what_to_do() {
        if my_uid() != 0 {
            return; // only root can give a directory away
        }
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("gobare-tui");
        fs::create_dir(&root).unwrap();
        std::os::unix::fs::chown(&root, Some(65_534), None).unwrap();
        let err = private_dirs(&root, &[]).unwrap_err();
        assert!(is_refusal(&err));
        let err = err.to_string();
        assert!(err.contains("belongs to user 65534"), "{err}");
        assert!(err.contains("set XDG_STATE_HOME"), "{err}");
    }

    #[test]
    fn a_linked_directory_is_refused_and_its_target_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim");
        fs::create_dir(&victim).unwrap();
        fs::set_permissions(&victim, fs::Permissions::from_mode(0o755)).unwrap();
        let root = tmp.path().join("root");
        fs::create_dir(&root).unwrap();
        symlink(&victim, root.join("events")).unwrap();
        let err = private_dirs(&root, &["events"]).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(fs::metadata(&victim).unwrap().mode() & 0o777, 0o755);

        // The root itself may be the user's link to a directory of theirs.
        let linked_root = tmp.path().join("linked");
        symlink(&victim, &linked_root).unwrap();
        private_dirs(&linked_root, &[]).unwrap();
        assert_eq!(fs::metadata(&victim).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn links_in_a_directory_of_own_files_are_removed_and_their_targets_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        let logs = tmp.path().join("logs");
        fs::create_dir(&logs).unwrap();
        fs::write(logs.join("gobare-tui.2026-01-01.log"), "old log").unwrap();
        symlink(&victim, logs.join("gobare-tui.2026-01-02.log")).unwrap();
        assert_eq!(remove_links(&logs).unwrap(), 1);
        assert_eq!(fs::read_dir(&logs).unwrap().count(), 1);
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn files_are_never_opened_through_a_link_nor_read_unbounded() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        let link = tmp.path().join("link");
        symlink(&victim, &link).unwrap();
        assert!(open(&link, OpenOptions::new().write(true).truncate(true)).is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");

        let zero = tmp.path().join("zero");
        symlink("/dev/zero", &zero).unwrap();
        assert!(read_bounded(&zero, 1 << 20).is_err());

        let fifo = tmp.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = read_bounded(&fifo, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);

        let big = tmp.path().join("big");
        File::create(&big).unwrap().set_len(2 << 30).unwrap();
        let err = read_bounded(&big, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(read_bounded(&victim, 4).unwrap(), b"keep");
    }
}
