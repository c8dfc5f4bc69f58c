//! An export file whose pages go to the disk while it is written: every [`EVERY`] bytes,
//! the range written since is handed to the kernel's writeback without waiting
//! (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, Linux), so the `fsync` that commits the file
//! waits for the last range only instead of all of it. The `fsync` stays: this only starts
//! early what it would do.

use std::io::{self, Write};
use std::os::fd::AsFd;

/// How much is written between two writebacks started.
pub(crate) const EVERY: u64 = 4 * 1024 * 1024;

/// `W` (a file), with writeback started every `every` bytes.
pub(crate) struct Writeback<W> {
    inner: W,
    every: u64,
    /// Bytes written, and where the range not yet handed to writeback starts.
    written: u64,
    started: u64,
}

impl<W: AsFd + Write> Writeback<W> {
    pub(crate) fn new(inner: W, every: u64) -> Self {
        Writeback {
            inner,
            every,
            written: 0,
            started: 0,
        }
    }

    pub(crate) fn into_inner(self) -> W {
        self.inner
    }

    /// Starts writeback of what was written since the last start.
    fn start(&mut self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let (Ok(offset), Ok(len)) = (
                libc::off64_t::try_from(self.started),
                libc::off64_t::try_from(self.written - self.started),
            ) else {
                return;
            };
            let fd = self.inner.as_fd().as_raw_fd();
            // SAFETY: a plain system call on a file descriptor this value owns (through
            // `inner`); it reads no memory of ours. A failure only leaves the work to `fsync`.
            unsafe { libc::sync_file_range(fd, offset, len, libc::SYNC_FILE_RANGE_WRITE) };
        }
        self.started = self.written;
    }
}

impl<W: AsFd + Write> Write for Writeback<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= self.every {
            self.start();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_written_arrives_and_writeback_starts_at_each_step() {
        let mut file = Writeback::new(tempfile::tempfile().unwrap(), 1000);
        let mut expected = Vec::new();
        for i in 0..700u32 {
            let line = format!("line {i}\n");
            file.write_all(line.as_bytes()).unwrap();
            expected.extend_from_slice(line.as_bytes());
            assert!(file.written - file.started < 1000);
        }
        assert_eq!(file.written, expected.len() as u64);
        assert!(file.started >= expected.len() as u64 - 1000);
        let mut file = file.into_inner();
        use std::io::{Read, Seek};
        file.rewind().unwrap();
        let mut back = Vec::new();
        file.read_to_end(&mut back).unwrap();
        assert_eq!(back, expected);
    }
}
