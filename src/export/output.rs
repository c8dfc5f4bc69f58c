//! Where an export goes: stdout, or a file that appears only when complete (written under
//! a temporary name beside it, renamed over it on success, removed on failure).

use super::file_thread::FileThread;
use super::writeback::{self, Writeback};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Buffer size between the writer and the pipe.
const BUFFER: usize = 256 * 1024;

/// An export's destination, buffered; a file is written by a thread of its own.
pub(crate) enum Output {
    Stdout(BufWriter<io::Stdout>),
    File {
        temp: FileThread<Writeback<NamedTempFile>>,
        path: PathBuf,
    },
}

impl Output {
    /// `path` (via a temporary file in the same directory, so the rename stays on one file
    /// system) or stdout when `None`.
    pub(crate) fn open(path: Option<&Path>) -> io::Result<Output> {
        let Some(path) = path else {
            return Ok(Output::Stdout(BufWriter::with_capacity(
                BUFFER,
                io::stdout(),
            )));
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".gobare-export-")
            .suffix(".part")
            .tempfile_in(dir)?;
        Ok(Output::File {
            temp: FileThread::start(Writeback::new(temp, writeback::EVERY))?,
            path: path.to_path_buf(),
        })
    }

    /// Flushes, and puts a file in its place. Dropping an `Output` without this removes
    /// the temporary file.
    pub(crate) fn commit(self) -> io::Result<()> {
        match self {
            Output::Stdout(mut out) => out.flush(),
            Output::File { temp, path } => {
                let temp = temp.finish()?.into_inner();
                temp.as_file().sync_all()?;
                temp.persist(&path).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File { temp, .. } => temp.write(buf),
        }
    }

    /// Inlined: the export writes many short pieces per event.
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.write_all(buf),
            Output::File { temp, .. } => temp.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File { temp, .. } => temp.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_file_appears_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.md");
        std::fs::write(&path, "the previous export").unwrap();
        let mut out = Output::open(Some(&path)).unwrap();
        out.write_all(b"# new\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "the previous export"
        );
        assert_eq!(names_in(dir.path()).len(), 2, "a temporary file beside it");
        out.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# new\n");
        assert_eq!(names_in(dir.path()), ["session.md"]);
    }

    #[test]
    fn a_failed_export_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let mut out = Output::open(Some(&path)).unwrap();
        out.write_all(b"{}\n").unwrap();
        drop(out);
        assert!(names_in(dir.path()).is_empty());
    }
}
