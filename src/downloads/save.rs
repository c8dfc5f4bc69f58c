//! Writing a download to disk: handed in batches of about a MiB to a thread of its own, into a
//! temporary file beside the final one, renamed only once every announced byte has arrived,
//! so that a dropped or short download never leaves a partial file under the final name. The
//! CLI and the app both save through it.

use super::beneath::Beneath;
use bytes::Bytes;
use color_eyre::eyre::{Result, eyre};
use gobare_api::download::Download;
use std::ffi::{OsStr, OsString};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

/// Bytes gathered from the network before they go to the writer thread together: one
/// hand-over per batch instead of one per chunk (chunks on loopback are often a few kB).
const WRITE_BATCH: usize = 1 << 20;
/// The most one `write` call takes. The page cache sizes its folios by the write, and
/// large ones were up to ten times slower to fill than small ones when memory was
/// fragmented (`dd` of 1 GB to ext4 on Linux 6.18: 1 MiB writes 0.55–6.7 s, 16 KiB writes
/// 0.7–0.85 s, run after run), which is also the size `curl` writes.
const WRITE_PIECE: usize = 16 * 1024;
/// Batches received but not yet written; the network waits beyond that.
const WRITE_QUEUE: usize = 4;

/// Streams `download` to `target`, telling `progress` each chunk's size. Without `force` an
/// existing `target` is never replaced, even one that appeared during the download. When
/// `stop` resolves first the download ends with an "interrupted" error. Returns the bytes
/// written. No partial file outlives it, even when the future is dropped half-way.
pub(crate) async fn save(
    mut download: Download,
    beneath: &Beneath,
    force: bool,
    progress: &mut (dyn FnMut(u64) + Send),
    stop: impl Future<Output = ()>,
) -> Result<u64> {
    let target = beneath.path();
    let temp = temp_name(target);
    let temp_file = temp.file_name().unwrap_or_default().to_os_string();
    let file = beneath
        .create(&temp_file)
        .map_err(|e| io_error(e, "cannot create", &temp))?;
    let mut guard = TempFile(Some((beneath, temp_file.clone())));
    // Disk writes run on their own thread while the next chunks arrive; chunks are moved
    // to it in batches, never copied.
    let (batches, mut queued) = tokio::sync::mpsc::channel::<Vec<Bytes>>(WRITE_QUEUE);
    let writer = tokio::task::spawn_blocking(move || {
        let mut out = file;
        while let Some(batch) = queued.blocking_recv() {
            write_batch(&mut out, &batch)?;
        }
        out.flush()
    });
    let write = async {
        let (mut batch, mut gathered) = (Vec::new(), 0);
        // The path is named by the caller; the API error's own text says what failed.
        while let Some(chunk) = download.chunk().await.map_err(|e| eyre!("{e}"))? {
            let len = chunk.len();
            gathered += len;
            batch.push(chunk);
            progress(len as u64);
            if gathered >= WRITE_BATCH {
                gathered = 0;
                if batches.send(std::mem::take(&mut batch)).await.is_err() {
                    // The writer stopped: its error says why.
                    break;
                }
            }
        }
        if !batch.is_empty() {
            let _ = batches.send(batch).await;
        }
        drop(batches);
        writer
            .await
            .map_err(|e| eyre!("the writer thread failed: {e}"))?
            .map_err(|e| io_error(e, "cannot write", target))?;
        Ok::<u64, color_eyre::Report>(download.received())
    };
    let written = tokio::select! {
        written = write => written,
        () = stop => Err(eyre!("interrupted")),
    };
    let placed = match written {
        Ok(n) => place(beneath, &temp_file, force).map(|()| n),
        Err(e) => Err(e),
    };
    if placed.is_ok() {
        guard.0 = None;
    }
    placed
}

/// Writes every byte of `batch`, [`WRITE_PIECE`] at a time.
fn write_batch(out: &mut impl Write, batch: &[Bytes]) -> std::io::Result<()> {
    for piece in batch.iter().flat_map(|chunk| chunk.chunks(WRITE_PIECE)) {
        out.write_all(piece)?;
    }
    Ok(())
}

/// Removes the temporary file when dropped, unless it was placed.
struct TempFile<'a>(Option<(&'a Beneath, OsString)>);

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if let Some((beneath, name)) = self.0.take() {
            let _ = beneath.remove(&name);
        }
    }
}

/// Resolves on Ctrl+C or SIGTERM (the command line's way to stop a download); the handlers
/// are in place when this returns.
#[cfg(unix)]
pub(crate) fn interrupted() -> std::io::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
    })
}

#[cfg(not(unix))]
pub(crate) fn interrupted() -> std::io::Result<impl Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

/// A hidden name beside `target`, unique to this run.
fn temp_name(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let unique = uuid::Uuid::new_v4().simple().to_string();
    target.with_file_name(format!(".{name}.{}.part", &unique[..12]))
}

/// Gives the complete temporary file its final name, in the directory checked. Without
/// `force` a hard link makes the "does not exist yet" check and the naming one step.
fn place(beneath: &Beneath, temp: &OsStr, force: bool) -> Result<()> {
    let target = beneath.path();
    match beneath.place(temp, force) {
        Ok(()) => Ok(()),
        Err(e) if !force && e.kind() == ErrorKind::AlreadyExists => Err(eyre!(
            "{} exists (use --force to overwrite it)",
            target.display()
        )),
        Err(e) => Err(io_error(e, "cannot rename to", target)),
    }
}

/// One clear line for a file-system error; a full disk says so.
fn io_error(e: std::io::Error, what: &str, path: &Path) -> color_eyre::Report {
    if e.kind() == ErrorKind::StorageFull {
        eyre!("the disk is full: {what} {}", path.display())
    } else {
        eyre!("{what} {}: {e}", path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_named() {
        let e = std::io::Error::from_raw_os_error(libc::ENOSPC);
        let message = io_error(e, "cannot write", Path::new("/d/x")).to_string();
        assert_eq!(message, "the disk is full: cannot write /d/x");
    }

    /// Records the size of each write.
    #[derive(Default)]
    struct Recorder(Vec<u8>, Vec<usize>);

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.extend_from_slice(buf);
            self.1.push(buf.len());
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_batch_is_written_whole_in_small_pieces() {
        let big: Vec<u8> = (0..40_000).map(|i| (i % 251) as u8).collect();
        let batch = vec![
            Bytes::from_static(b"abc"),
            Bytes::new(),
            Bytes::from(big.clone()),
        ];
        let mut out = Recorder::default();
        write_batch(&mut out, &batch).unwrap();
        assert_eq!(out.0, [b"abc".as_slice(), &big].concat());
        assert_eq!(
            out.1,
            [3, WRITE_PIECE, WRITE_PIECE, 40_000 - 2 * WRITE_PIECE]
        );
    }

    #[test]
    fn the_temporary_name_is_hidden_and_beside_the_target() {
        let t = temp_name(Path::new("/d/sub/report.md"));
        assert_eq!(t.parent(), Some(Path::new("/d/sub")));
        let name = t.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(".report.md.") && name.ends_with(".part"),
            "{name}"
        );
    }

    #[test]
    fn placing_never_replaces_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let (temp, target) = (dir.path().join(".t.part"), dir.path().join("t"));
        std::fs::write(&temp, "new").unwrap();
        std::fs::write(&target, "old").unwrap();
        let beneath = Beneath::open(dir.path(), Path::new("t")).unwrap();
        let name = OsStr::new(".t.part");
        let err = place(&beneath, name, false).unwrap_err().to_string();
        assert!(
            err.contains("exists (use --force to overwrite it)"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        place(&beneath, name, true).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert!(!temp.exists());
    }
}
