//! The directory a download lands in, held open: reached from the chosen directory one
//! component at a time without following a link (`openat` + `O_NOFOLLOW`), and then used
//! only through its handle. A directory swapped for a symbolic link while the server holds
//! its answer changes nothing: the file is made, named and removed in the directory that
//! was checked.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The open directory of one download target, and the target's name in it.
#[derive(Debug)]
pub(crate) struct Beneath {
    dir: OwnedFd,
    name: CString,
    /// `dir/rel`, for messages only.
    path: PathBuf,
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// `openat(at, name, flags)` as an owned descriptor.
fn open_at(
    at: libc::c_int,
    name: &CString,
    flags: libc::c_int,
    mode: libc::c_uint,
) -> io::Result<OwnedFd> {
    // SAFETY: `name` is NUL-terminated; the descriptor returned is new and owned here.
    let fd = check(unsafe { libc::openat(at, name.as_ptr(), flags | libc::O_CLOEXEC, mode) })?;
    // SAFETY: `fd` was just opened and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

impl Beneath {
    /// Opens the directory of `dir/rel` (`rel` relative, already checked), each component
    /// below `dir` without following a link. `dir` itself is the person's choice and is
    /// taken as it is.
    pub(crate) fn open(dir: &Path, rel: &Path) -> io::Result<Beneath> {
        let name = rel
            .file_name()
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        let mut fd = open_at(
            libc::AT_FDCWD,
            &c_name(dir.as_os_str())?,
            libc::O_RDONLY | libc::O_DIRECTORY,
            0,
        )?;
        for part in rel.parent().into_iter().flat_map(Path::components) {
            let Component::Normal(part) = part else {
                return Err(io::Error::from(io::ErrorKind::InvalidInput));
            };
            fd = open_at(
                fd.as_raw_fd(),
                &c_name(part)?,
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
                0,
            )?;
        }
        Ok(Beneath {
            dir: fd,
            name: c_name(name)?,
            path: dir.join(rel),
        })
    }

    /// `dir/rel`, to name it in messages.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the new file `temp` in the directory (never an existing one, never through
    /// a link).
    pub(crate) fn create(&self, temp: &OsStr) -> io::Result<File> {
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
        Ok(File::from(open_at(
            self.dir.as_raw_fd(),
            &c_name(temp)?,
            flags,
            0o644,
        )?))
    }

    /// Removes `temp` from the directory.
    pub(crate) fn remove(&self, temp: &OsStr) -> io::Result<()> {
        let temp = c_name(temp)?;
        // SAFETY: a valid descriptor and a NUL-terminated name.
        check(unsafe { libc::unlinkat(self.dir.as_raw_fd(), temp.as_ptr(), 0) }).map(drop)
    }

    /// Gives `temp` the target's name; without `force`, never over an existing file (a
    /// hard link names it only when the name is free).
    pub(crate) fn place(&self, temp: &OsStr, force: bool) -> io::Result<()> {
        let temp = c_name(temp)?;
        let dir = self.dir.as_raw_fd();
        if force {
            // SAFETY: valid descriptors and NUL-terminated names.
            return check(unsafe { libc::renameat(dir, temp.as_ptr(), dir, self.name.as_ptr()) })
                .map(drop);
        }
        // SAFETY: valid descriptors and NUL-terminated names.
        match check(unsafe { libc::linkat(dir, temp.as_ptr(), dir, self.name.as_ptr(), 0) }) {
            // SAFETY: as above.
            Ok(_) => check(unsafe { libc::unlinkat(dir, temp.as_ptr(), 0) }).map(drop),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
            // A file system without hard links: check, then rename.
            Err(_) => {
                // SAFETY: a zeroed stat is a valid buffer for fstatat to fill.
                let mut stat = unsafe { std::mem::zeroed::<libc::stat>() };
                // SAFETY: valid descriptor, NUL-terminated name, a buffer of the right type.
                let found = unsafe {
                    libc::fstatat(
                        dir,
                        self.name.as_ptr(),
                        &mut stat,
                        libc::AT_SYMLINK_NOFOLLOW,
                    )
                };
                if found == 0 {
                    return Err(io::Error::from(io::ErrorKind::AlreadyExists));
                }
                // SAFETY: valid descriptors and NUL-terminated names.
                check(unsafe { libc::renameat(dir, temp.as_ptr(), dir, self.name.as_ptr()) })
                    .map(drop)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_directory_swapped_for_a_link_after_the_check_still_gets_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, outside) = (tmp.path().join("dir"), tmp.path().join("outside"));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        let held = Beneath::open(&dir, Path::new("sub/report.md")).unwrap();
        // The swap, while the server holds its answer.
        std::fs::rename(dir.join("sub"), dir.join("checked")).unwrap();
        symlink(&outside, dir.join("sub")).unwrap();
        let mut file = held.create(OsStr::new(".report.part")).unwrap();
        file.write_all(b"bytes").unwrap();
        held.place(OsStr::new(".report.part"), false).unwrap();
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        assert_eq!(
            std::fs::read(dir.join("checked/report.md")).unwrap(),
            b"bytes"
        );
    }

    #[test]
    fn a_link_on_the_way_is_refused_and_no_file_is_replaced_without_force() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, outside) = (tmp.path().join("dir"), tmp.path().join("outside"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir(&outside).unwrap();
        symlink(&outside, dir.join("sub")).unwrap();
        assert!(Beneath::open(&dir, Path::new("sub/x")).is_err());

        let held = Beneath::open(&dir, Path::new("t")).unwrap();
        std::fs::write(dir.join("t"), "old").unwrap();
        held.create(OsStr::new(".t.part")).unwrap();
        let err = held.place(OsStr::new(".t.part"), false).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(dir.join("t")).unwrap(), "old");
        held.place(OsStr::new(".t.part"), true).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("t")).unwrap(), "");
        symlink(&outside, dir.join(".planted")).unwrap();
        assert!(held.create(OsStr::new(".planted")).is_err());
    }
}
