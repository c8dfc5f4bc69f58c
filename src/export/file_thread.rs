//! An export file written by a thread of its own: the export fills a buffer and hands it
//! over whole, so the system calls (the copy into the page cache, the file system's
//! bookkeeping, the writeback started) are not on the thread that renders the export (for
//! JSON lines, the one that also reads the socket): 50 MB of JSON lines took a fifth of
//! that thread's time.
//!
//! Buffers go back and forth (a bounded number in flight), so memory stays flat and no
//! new buffer's pages are touched for the first time after the first few. An error
//! writing stops the thread; the next write, flush or [`FileThread::finish`] reports it.

use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

/// Bytes gathered before a buffer is handed over.
const BUFFER: usize = 256 * 1024;
/// Buffers handed over and not written yet, at most.
const IN_FLIGHT: usize = 4;

/// What the file's thread is asked.
enum ToFile {
    Bytes(Vec<u8>),
    /// Answered once everything handed over before it is written.
    Flush(Sender<()>),
}

/// `W` written on a thread of its own ([`FileThread::start`]).
pub(crate) struct FileThread<W: Write + Send + 'static> {
    buffer: Vec<u8>,
    to_file: Option<SyncSender<ToFile>>,
    /// Buffers written, to be filled again.
    spent: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<io::Result<W>>>,
}

impl<W: Write + Send + 'static> FileThread<W> {
    pub(crate) fn start(inner: W) -> io::Result<Self> {
        let (to_file, asked) = mpsc::sync_channel(IN_FLIGHT);
        let (give_back, spent) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("export-file".into())
            .spawn(move || write_all(inner, &asked, &give_back))?;
        Ok(FileThread {
            buffer: Vec::with_capacity(BUFFER),
            to_file: Some(to_file),
            spent,
            thread: Some(thread),
        })
    }

    /// Everything written, and the file back: the thread's error if it had one.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        self.hand_over()?;
        self.to_file = None;
        self.join()
    }

    /// Hands the buffer over, and takes a spent one (or a new one) to fill.
    fn hand_over(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let mut next = self
            .spent
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BUFFER));
        next.clear();
        let full = std::mem::replace(&mut self.buffer, next);
        self.send(ToFile::Bytes(full))
    }

    /// A piece that fills the buffer: as much as fits, handed over, then the rest.
    #[inline(never)]
    fn write_across(&mut self, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            let room = BUFFER.saturating_sub(self.buffer.len()).max(1);
            let (now, rest) = buf.split_at(room.min(buf.len()));
            self.buffer.extend_from_slice(now);
            buf = rest;
            if self.buffer.len() >= BUFFER {
                self.hand_over()?;
            }
        }
        Ok(())
    }

    fn send(&mut self, asked: ToFile) -> io::Result<()> {
        let sent = match &self.to_file {
            Some(to_file) => to_file.send(asked).is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        // The thread stopped at an error: that error.
        self.to_file = None;
        match self.join() {
            Ok(_) => Err(io::Error::other("the export's file was already closed")),
            Err(e) => Err(e),
        }
    }

    fn join(&mut self) -> io::Result<W> {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(written)) => written,
            Some(Err(_)) => Err(io::Error::other("the export's file thread panicked")),
            None => Err(io::Error::other("the export's file was already closed")),
        }
    }
}

impl<W: Write + Send + 'static> Write for FileThread<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    /// Inlined where the export writes (many short pieces per event): a piece that fits
    /// is one copy, with no call.
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if buf.len() < BUFFER.saturating_sub(self.buffer.len()) {
            self.buffer.extend_from_slice(buf);
            return Ok(());
        }
        self.write_across(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.hand_over()?;
        let (done, written) = mpsc::channel();
        self.send(ToFile::Flush(done))?;
        match written.recv() {
            Ok(()) => Ok(()),
            Err(_) => {
                self.to_file = None;
                self.join().map(|_| ())
            }
        }
    }
}

impl<W: Write + Send + 'static> Drop for FileThread<W> {
    /// Stops the thread and waits for it, so that the file it holds is closed (and a
    /// temporary one removed) before the process can exit.
    fn drop(&mut self) {
        self.to_file = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The file's thread: each buffer written and given back, until the sender is gone.
fn write_all<W: Write>(
    mut inner: W,
    asked: &Receiver<ToFile>,
    give_back: &Sender<Vec<u8>>,
) -> io::Result<W> {
    while let Ok(next) = asked.recv() {
        match next {
            ToFile::Bytes(bytes) => {
                inner.write_all(&bytes)?;
                let _ = give_back.send(bytes);
            }
            ToFile::Flush(done) => {
                inner.flush()?;
                let _ = done.send(());
            }
        }
    }
    inner.flush()?;
    Ok(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what reached it; fails once it holds `fail_after` bytes.
    struct Sink {
        got: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
        fail_after: usize,
    }

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let mut got = self.got.lock().unwrap();
            if got.len() + buf.len() > self.fail_after {
                return Err(io::Error::other("disk full"));
            }
            got.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn sink(fail_after: usize) -> (Sink, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
        let got = std::sync::Arc::default();
        let sink = Sink {
            got: std::sync::Arc::clone(&got),
            fail_after,
        };
        (sink, got)
    }

    #[test]
    fn everything_written_arrives_in_order() {
        let (sink, got) = sink(usize::MAX);
        let mut file = FileThread::start(sink).unwrap();
        let mut expected = Vec::new();
        for i in 0..200_000u32 {
            let line = format!("line {i}\n");
            file.write_all(line.as_bytes()).unwrap();
            expected.extend_from_slice(line.as_bytes());
        }
        // One write larger than a buffer, across its boundary.
        let large = vec![b'x'; 3 * BUFFER + 17];
        file.write_all(&large).unwrap();
        expected.extend_from_slice(&large);
        file.flush().unwrap();
        assert_eq!(
            got.lock().unwrap().len(),
            expected.len(),
            "flushed: all there"
        );
        file.write_all(b"tail").unwrap();
        expected.extend_from_slice(b"tail");
        file.finish().unwrap();
        assert!(*got.lock().unwrap() == expected);
    }

    #[test]
    fn an_error_writing_is_reported_not_lost() {
        let (sink, _) = sink(BUFFER + 10);
        let mut file = FileThread::start(sink).unwrap();
        let chunk = vec![b'y'; 1000];
        let mut failed = None;
        for _ in 0..10_000 {
            if let Err(e) = file.write_all(&chunk) {
                failed = Some(e);
                break;
            }
        }
        let failed = failed.map_or_else(|| file.finish().err(), Some);
        assert_eq!(failed.expect("an error").to_string(), "disk full");
    }
}
