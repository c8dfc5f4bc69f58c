//! A program running in a pseudo-terminal, watched through a `vt100` screen; [`Launch`]
//! starts the workspace's binary in one with an isolated home.
//!
//! A reader thread feeds everything the program writes into a `vt100::Parser` and a raw byte
//! log, and wakes waiters through a condvar, so tests wait for what they expect to see rather
//! than sleeping.
//!
//! [`Pty::hang_up`] closes the terminal as a closed emulator window does: every handle to the
//! master side goes, so the kernel hangs up the slave (SIGHUP to the program, its session
//! leader; EOF on reads and EIO on writes from then on).

use std::fs::File;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use portable_pty::{Child, MasterPty, PtySize, native_pty_system};
pub use portable_pty::{CommandBuilder, ExitStatus};

pub mod keys;
mod launch;

pub use launch::Launch;

/// Device Status Report: "where is the cursor?"
const CURSOR_QUERY: &[u8] = b"\x1b[6n";
/// What the app asks a terminal to learn its background colour (OSC 11).
const BACKGROUND_QUERY: &[u8] = b"\x1b]11;?";

struct Output {
    parser: vt100::Parser,
    raw: Vec<u8>,
    /// The slave side closed: the program (and anything it spawned) is gone.
    closed: bool,
}

type Shared = Arc<(Mutex<Output>, Condvar)>;

/// Where keys are written, and the reader thread's cursor-position answers too; `None` once
/// hung up.
type Writer = Arc<Mutex<Option<File>>>;

pub struct Pty {
    /// The pty's master side (resize, termios); `None` once hung up.
    master: Option<Box<dyn MasterPty + Send>>,
    writer: Writer,
    child: Box<dyn Child + Send + Sync>,
    shared: Shared,
    reader: Option<JoinHandle<()>>,
    /// Dropping this wakes the reader thread and makes it close its handle to the master.
    stop_reader: Option<UnixStream>,
}

fn size(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n.max(1)).expect("non-zero")
}

/// A handle of our own on the master side. Not portable-pty's `take_writer`: its writer
/// types a newline and Ctrl+D into the terminal when dropped, which a window that closes
/// never does (and the program would take for keys).
fn dup_master(master: &dyn MasterPty) -> File {
    let fd = master.as_raw_fd().expect("pty master fd");
    // SAFETY: `fd` stays open for the duration of this call (`master` owns it).
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    File::from(fd.try_clone_to_owned().expect("dup pty master")) // close-on-exec
}

/// Waits until `fd` can be read (or has hung up). `false`: `stop` was closed instead.
fn readable_unless_stopped(fd: BorrowedFd<'_>, stop: BorrowedFd<'_>) -> bool {
    let mut fds = [
        libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: stop.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // SAFETY: `fds` is a valid array of two pollfd for the duration of the call.
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if rc >= 0 {
            return fds[1].revents == 0;
        }
        let err = std::io::Error::last_os_error();
        assert_eq!(err.kind(), std::io::ErrorKind::Interrupted, "poll: {err}");
    }
}

impl Pty {
    /// Starts `cmd` in a new pseudo-terminal of `cols` × `rows`.
    pub fn spawn(cmd: CommandBuilder, cols: u16, rows: u16) -> Pty {
        Pty::spawn_with_background(cmd, cols, rows, None)
    }

    /// [`Pty::spawn`] in a terminal that answers the background-colour question (OSC 11)
    /// with `rgb` (`ffff/ffff/ffff`), and the attributes question after it, as xterm does.
    pub fn spawn_with_background(
        cmd: CommandBuilder,
        cols: u16,
        rows: u16,
        rgb: Option<&'static str>,
    ) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let child = pair.slave.spawn_command(cmd).expect("spawn in pty");
        // Only the child may hold the slave open, so its exit closes the pty (reader sees EOF).
        drop(pair.slave);
        // The master is open three times: `pair.master`, the writer and the reader thread's
        // handle. `hang_up` closes all three.
        let mut reader = dup_master(&*pair.master);
        let writer: Writer = Arc::new(Mutex::new(Some(dup_master(&*pair.master))));
        let answer = Arc::clone(&writer);
        let (stop_reader, stopped) = UnixStream::pair().expect("reader stop socket");
        let shared: Shared = Arc::new((
            Mutex::new(Output {
                parser: vt100::Parser::new(size(rows), size(cols), 0),
                raw: Vec::new(),
                closed: false,
            }),
            Condvar::new(),
        ));
        let feed = Arc::clone(&shared);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                if !readable_unless_stopped(reader.as_fd(), stopped.as_fd()) {
                    return; // hung up: `reader` (our handle on the master) closes here
                }
                let n = reader.read(&mut buf).unwrap_or(0); // EIO once the slave closes
                let (lock, cvar) = &*feed;
                let mut out = lock.lock().unwrap_or_else(PoisonError::into_inner);
                if n == 0 {
                    out.closed = true;
                    cvar.notify_all();
                    return;
                }
                let scan_from = out.raw.len().saturating_sub(CURSOR_QUERY.len() - 1);
                out.parser.process(&buf[..n]);
                out.raw.extend_from_slice(&buf[..n]);
                // Answer cursor position queries as a real terminal does (ratatui's
                // `Terminal::clear` asks for one and gives up without an answer).
                let queries = out.raw[scan_from..]
                    .windows(CURSOR_QUERY.len())
                    .filter(|w| *w == CURSOR_QUERY)
                    .count();
                let asked_background = rgb.is_some_and(|_| {
                    let from = out.raw.len().saturating_sub(n + BACKGROUND_QUERY.len());
                    out.raw[from..]
                        .windows(BACKGROUND_QUERY.len())
                        .any(|w| w == BACKGROUND_QUERY)
                });
                if asked_background {
                    let reply =
                        format!("\x1b]11;rgb:{}\x1b\\\x1b[?62;22c", rgb.unwrap_or_default());
                    let mut w = answer.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(w) = w.as_mut() {
                        let _ = w.write_all(reply.as_bytes()).and_then(|()| w.flush());
                    }
                }
                if queries > 0 {
                    let (row, col) = out.parser.screen().cursor_position();
                    let reply = format!("\x1b[{};{}R", row + 1, col + 1).repeat(queries);
                    let mut w = answer.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(w) = w.as_mut() {
                        let _ = w.write_all(reply.as_bytes()).and_then(|()| w.flush());
                    }
                }
                cvar.notify_all();
            }
        });
        Pty {
            master: Some(pair.master),
            writer,
            child,
            shared,
            reader: Some(reader),
            stop_reader: Some(stop_reader),
        }
    }

    fn master(&self) -> &dyn MasterPty {
        self.master.as_deref().expect("the terminal was hung up")
    }

    fn output(&self) -> MutexGuard<'_, Output> {
        self.shared.0.lock().expect("pty output lock")
    }

    /// The visible screen as text, rows separated by newlines.
    pub fn screen_text(&self) -> String {
        self.output().parser.screen().contents()
    }

    /// Runs `f` on the current screen state (modes, cursor, cells).
    pub fn with_screen<T>(&self, f: impl FnOnce(&vt100::Screen) -> T) -> T {
        f(self.output().parser.screen())
    }

    /// Everything the program has written so far, escape sequences included.
    pub fn raw_bytes(&self) -> Vec<u8> {
        self.output().raw.clone()
    }

    /// Waits until `pred` holds for the screen, re-checking on each new output. Panics with
    /// the screen's contents on timeout or if the program exits first.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&vt100::Screen) -> bool, timeout: Duration) {
        if !self.wait_for_or_exit(what, pred, timeout) {
            panic!("program exited waiting for {what}; {}", self.last_output());
        }
    }

    /// The screen and the tail of the raw output, for failure messages.
    fn last_output(&self) -> String {
        let out = self.shared.0.lock().expect("pty output lock");
        format!(
            "screen:\n{}\nraw tail: {:?}",
            out.parser.screen().contents(),
            String::from_utf8_lossy(&out.raw[out.raw.len().saturating_sub(400)..])
        )
    }

    /// Waits until `pred` holds (true) or the program has exited (false).
    pub fn wait_for_or_exit(
        &self,
        what: &str,
        pred: impl Fn(&vt100::Screen) -> bool,
        timeout: Duration,
    ) -> bool {
        let deadline = Instant::now() + timeout;
        let (lock, cvar) = &*self.shared;
        let mut out = lock.lock().expect("pty output lock");
        loop {
            if pred(out.parser.screen()) {
                return true;
            }
            if out.closed {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                drop(out); // don't poison the lock the reader thread needs
                panic!("timed out waiting for {what}; {}", self.last_output());
            }
            out = cvar
                .wait_timeout(out, deadline - now)
                .expect("pty output lock")
                .0;
        }
    }

    /// Whether `pred` comes to hold within `within` (false when it does not, or the program
    /// exits first): for a step retried on a screen that answers, never a timeout's panic.
    pub fn holds_within(&self, pred: impl Fn(&vt100::Screen) -> bool, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        let (lock, cvar) = &*self.shared;
        let mut out = lock.lock().expect("pty output lock");
        loop {
            if pred(out.parser.screen()) {
                return true;
            }
            let now = Instant::now();
            if out.closed || now >= deadline {
                return false;
            }
            out = cvar
                .wait_timeout(out, deadline - now)
                .expect("pty output lock")
                .0;
        }
    }

    /// Waits until `text` is on the screen.
    pub fn wait_for_text(&self, text: &str, timeout: Duration) {
        self.wait_for(
            &format!("{text:?}"),
            |s| s.contents().contains(text),
            timeout,
        );
    }

    /// Types `keys` (raw bytes: `"\r"` is Enter, `"\x1a"` Ctrl+Z).
    pub fn send_keys(&mut self, keys: &str) {
        let mut w = self.writer.lock().expect("pty writer lock");
        let w = w.as_mut().expect("the terminal was hung up");
        w.write_all(keys.as_bytes()).expect("write to pty");
        w.flush().expect("flush pty");
    }

    /// Pastes `text` as a terminal with bracketed paste on does: wrapped in `ESC[200~` …
    /// `ESC[201~`, so the program receives one paste event rather than keystrokes.
    pub fn send_paste(&mut self, text: &str) {
        self.send_keys(&format!("\x1b[200~{text}\x1b[201~"));
    }

    /// Resizes the terminal (the program gets SIGWINCH) and the screen model with it.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.master()
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize pty");
        self.output().parser.set_size(size(rows), size(cols));
    }

    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("child pid")
    }

    /// Waits for the program to exit and its output to be fully read (unless hung up: then
    /// there is no output any more). Kills it and panics after `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        if self.reader.is_some() {
            let (lock, cvar) = &*self.shared;
            let mut out = lock.lock().expect("pty output lock");
            while !out.closed {
                let now = Instant::now();
                if now >= deadline {
                    drop(out);
                    self.give_up_waiting(timeout);
                }
                out = cvar
                    .wait_timeout(out, deadline - now)
                    .expect("pty output lock")
                    .0;
            }
        }
        if let Some(reader) = self.reader.take() {
            reader.join().expect("reader thread");
        }
        // With the output closed the program is gone or going; after a hang-up nothing
        // tells us when, so poll its status until the deadline.
        loop {
            if let Some(status) = self.child.try_wait().expect("child status") {
                return status;
            }
            if Instant::now() >= deadline {
                self.give_up_waiting(timeout);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn give_up_waiting(&mut self, timeout: Duration) -> ! {
        let _ = self.child.kill();
        panic!(
            "program did not exit within {timeout:?}:\n{}",
            self.screen_text()
        );
    }

    /// Closes the terminal as a terminal emulator whose window closes does: every handle to
    /// the master side is closed, so the kernel hangs up the slave — SIGHUP to the program
    /// (the session leader), and reads and writes on its terminal fail from then on. The
    /// screen keeps what was shown until now; keys, resizes and [`Pty::is_cooked`] are gone.
    /// Wait for the program with [`Pty::wait_exit`].
    pub fn hang_up(&mut self) {
        drop(self.stop_reader.take());
        if let Some(reader) = self.reader.take() {
            reader.join().expect("reader thread");
        }
        self.writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        self.master = None;
    }

    /// Whether the terminal's line discipline is back in cooked mode (canonical input and
    /// echo on), i.e. raw mode was turned off. Read from the pty itself, not from the screen.
    pub fn is_cooked(&self) -> bool {
        let fd = self.master().as_raw_fd().expect("pty master fd");
        // SAFETY: termios is plain data; tcgetattr fills it from a valid open fd.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::tcgetattr(fd, &mut t) };
        assert_eq!(rc, 0, "tcgetattr: {}", std::io::Error::last_os_error());
        t.c_lflag & libc::ICANON != 0 && t.c_lflag & libc::ECHO != 0
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        // Never leave a test program running behind a failed assertion.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
    }
}
