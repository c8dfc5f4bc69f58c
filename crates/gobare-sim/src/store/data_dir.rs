//! A data directory on a shared machine (`sim --data DIR`, the demo's store): the user's
//! own, written by nobody else, kept 0700 with its files 0600, and nothing in it reached
//! through a symbolic link. A directory another user owns or can write, or one of the
//! simulator's files there that is a link, not a plain file or someone else's, is refused
//! before anything in it is read or written: a planted `lock` link would be truncated, a
//! planted store would be served.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

const PRIVATE_DIR: u32 = 0o700;
const PRIVATE_FILE: u32 = 0o600;

/// The files the simulator and the demo keep in a data directory.
const KEPT_FILES: [&str; 5] = [
    "lock",
    "sim.sqlite",
    "sim.sqlite-wal",
    "sim.sqlite-shm",
    "port",
];

fn my_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

fn refused(dir: &Path, why: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "refusing the data directory {}: {why}; use a directory of your own that \
             others cannot write",
            dir.display()
        ),
    )
}

/// Makes `dir` (and missing parents, 0700) ready to hold the store, or says why it must
/// not: the directory must be the user's and not writable by others (a link the user made
/// to such a directory is followed); the user's own but readable by others, it is
/// tightened to 0700. Each kept file must be absent or a plain file of the user's (tightened
/// to 0600); a link there is refused, never followed.
pub(crate) fn prepare(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR)
        .create(dir)?;
    let meta = fs::metadata(dir)?;
    let me = my_uid();
    if !meta.is_dir() {
        return Err(refused(dir, "it is not a directory"));
    }
    if meta.uid() != me {
        return Err(refused(
            dir,
            format!("it belongs to user {}, not to you (user {me})", meta.uid()),
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(refused(
            dir,
            format!("others can write it (mode {:o})", meta.mode() & 0o777),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(PRIVATE_DIR))?;
    }
    for name in KEPT_FILES {
        let path = dir.join(name);
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        if meta.file_type().is_symlink() {
            return Err(refused(dir, format!("{name} is a symbolic link")));
        }
        if !meta.is_file() {
            return Err(refused(dir, format!("{name} is not a plain file")));
        }
        if meta.uid() != me {
            return Err(refused(
                dir,
                format!("{name} belongs to user {}", meta.uid()),
            ));
        }
        if meta.mode() & 0o077 != 0 {
            fs::set_permissions(&path, fs::Permissions::from_mode(PRIVATE_FILE))?;
        }
    }
    Ok(())
}

/// Opens (creating it 0600) a file of a prepared directory for writing, without
/// truncating it and never through a link.
pub(crate) fn open_private(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(PRIVATE_FILE)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Writes `contents` to `path` whole, as a 0600 file reached through no link (what the
/// demo notes beside its store).
pub fn write_private_file(path: &Path, contents: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let mut file = open_private(path)?;
    file.set_len(0)?;
    file.write_all(contents)
}

/// Reads at most `most` bytes of `path`, never through a link.
pub fn read_private_file(path: &Path, most: u64) -> io::Result<Vec<u8>> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a plain file"));
    }
    let mut out = Vec::new();
    file.take(most).read_to_end(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().mode() & 0o777
    }

    #[test]
    fn a_new_directory_is_private_and_a_loose_one_of_the_users_is_tightened() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        prepare(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&root.path().join("a")), 0o700);

        let loose = root.path().join("loose");
        fs::create_dir(&loose).unwrap();
        fs::set_permissions(&loose, fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(loose.join("sim.sqlite"), b"").unwrap();
        fs::set_permissions(loose.join("sim.sqlite"), fs::Permissions::from_mode(0o644)).unwrap();
        prepare(&loose).unwrap();
        assert_eq!(mode(&loose), 0o700);
        assert_eq!(mode(&loose.join("sim.sqlite")), 0o600);
    }

    #[test]
    fn a_directory_others_can_write_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("shared");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o1777)).unwrap();
        let e = prepare(&dir).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
        assert!(e.to_string().contains("others can write"), "{e}");
    }

    #[test]
    fn a_link_where_a_kept_file_goes_is_refused_and_its_target_untouched() {
        let root = tempfile::tempdir().unwrap();
        let victim = root.path().join("victim");
        fs::write(&victim, b"precious").unwrap();
        for name in KEPT_FILES {
            let dir = root.path().join(format!("d-{name}"));
            fs::create_dir(&dir).unwrap();
            std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
            let e = prepare(&dir).unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{name}: {e}");
            assert!(open_private(&dir.join(name)).is_err(), "{name}");
            assert!(write_private_file(&dir.join(name), b"x").is_err(), "{name}");
        }
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
    }

    #[test]
    fn another_users_directory_or_file_is_refused() {
        if my_uid() != 0 {
            // Only root can hand a directory to another user.
            return;
        }
        let root = tempfile::tempdir().unwrap();
        let theirs = root.path().join("theirs");
        fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let e = prepare(&theirs).unwrap_err();
        assert!(e.to_string().contains("belongs to user 65534"), "{e}");

        let mine = root.path().join("mine");
        fs::create_dir(&mine).unwrap();
        fs::write(mine.join("sim.sqlite"), b"planted").unwrap();
        std::os::unix::fs::chown(mine.join("sim.sqlite"), Some(65534), None).unwrap();
        let e = prepare(&mine).unwrap_err();
        assert!(
            e.to_string().contains("sim.sqlite belongs to user 65534"),
            "{e}"
        );
    }

    #[test]
    fn a_private_file_is_written_0600_and_read_bounded() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("port");
        write_private_file(&path, b"47801").unwrap();
        write_private_file(&path, b"4780").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(read_private_file(&path, 16).unwrap(), b"4780");
        assert_eq!(read_private_file(&path, 2).unwrap(), b"47");
    }
}
