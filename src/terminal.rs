//! Entering and leaving the full-screen terminal, and giving it back intact on every way out:
//! normal quit and error return (dropping the [`Tui`]), panic (a hook that
//! restores before the message is printed), SIGTERM/SIGHUP ([`TerminationSignals`], which the
//! app's select loop awaits before returning normally), and Ctrl+Z ([`Tui::suspend`]).
//!
//! Restoring is idempotent: the first call undoes everything, later calls do nothing, so the
//! guard, the panic hook and an explicit call can all run without doubling escape sequences.
//!
//! The terminal can also vanish (its window closed, the ssh connection dropped): the kernel
//! sends SIGHUP (to the session leader only: when that is not us and does not pass it on, a
//! watcher thread notices the hang-up instead) and fails every later write with EIO.
//! Restoring then lets go of it (`release_dead_terminal`) so nothing written on the way out
//! can fail, and `hung_up` tells such an ending from a failure.

pub(crate) mod background;
pub(crate) mod late_answers;
pub(crate) mod paste_tail;
pub(crate) mod title;

use std::io::{self, Stdout, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::cursor::{Hide, Show};
use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// Whether the terminal is currently in our full-screen state (what [`restore`] must undo).
static ENTERED: AtomicBool = AtomicBool::new(false);
/// Whether mouse capture is on, so [`restore`] turns it off only when needed.
static MOUSE: AtomicBool = AtomicBool::new(false);
/// The terminal was entered line by line ([`enter_lines`]): nothing to leave but raw mode
/// and the input modes.
static LINES: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();
/// stdout was a hung-up terminal and now writes to `/dev/null` ([`release_dead_terminal`]).
static STDOUT_RELEASED: AtomicBool = AtomicBool::new(false);

/// The application's terminal plus the guard that restores it when dropped.
pub struct Tui {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    mouse: bool,
    /// Entered line by line (the screen-reader mode): never cleared, no mouse.
    lines: bool,
    _guard: TerminalGuard,
}

impl Drop for Tui {
    fn drop(&mut self) {
        // Before the fields drop: ratatui's `Terminal` shows the cursor again when dropped and
        // `eprintln!`s if that fails, which on a dead terminal fails too and panics (inside the
        // panic hook, an abort). Restoring first lets go of a dead terminal.
        restore();
    }
}

/// Restores the terminal when dropped (normal return, `?` error return, unwinding).
pub(crate) struct TerminalGuard(());

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// A terminal that was never entered, for tests that drive the app without one: drawing
/// goes nowhere (a fixed viewport, so nothing asks the terminal its size).
#[cfg(test)]
pub(crate) fn detached() -> Tui {
    use ratatui::{TerminalOptions, Viewport, layout::Rect};
    let terminal = Terminal::with_options(
        CrosstermBackend::new(io::stdout()),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, 120, 40)),
        },
    )
    .expect("a fixed viewport needs no terminal");
    Tui {
        terminal,
        mouse: false,
        lines: false,
        _guard: TerminalGuard(()),
    }
}

/// Enters raw mode and the alternate screen with bracketed paste, hidden cursor, keyboard
/// disambiguation (so Shift+Enter differs from Enter where the terminal supports it) and,
/// if `mouse`, mouse capture. Installs the restoring panic hook (once, chaining whatever hook
/// is already installed — install color-eyre's first).
pub fn enter(mouse: bool) -> io::Result<Tui> {
    enter_as(mouse, false)
}

/// Enters raw mode with the same input modes as [`enter`] but stays on the main screen
/// with the cursor shown and no mouse: the screen-reader mode writes lines, never a screen.
pub(crate) fn enter_lines() -> io::Result<Tui> {
    enter_as(false, true)
}

fn enter_as(mouse: bool, lines: bool) -> io::Result<Tui> {
    install_panic_hook();
    let guard = TerminalGuard(());
    LINES.store(lines, Ordering::SeqCst);
    enter_modes(mouse)?; // on error, `guard` drops and undoes what was done
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    Ok(Tui {
        terminal,
        mouse,
        lines,
        _guard: guard,
    })
}

fn enter_modes(mouse: bool) -> io::Result<()> {
    ENTERED.store(true, Ordering::SeqCst);
    enable_raw_mode()?;
    let mut out = io::stdout();
    if LINES.load(Ordering::SeqCst) {
        execute!(out, EnableBracketedPaste, EnableFocusChange)?;
    } else {
        execute!(
            out,
            EnterAlternateScreen,
            EnableBracketedPaste,
            EnableFocusChange,
            Hide
        )?;
    }
    // Terminals without the kitty keyboard protocol ignore this; querying support first
    // would cost a round trip (and a timeout on terminals that never answer).
    let _ = execute!(
        out,
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
    );
    if mouse {
        execute!(out, EnableMouseCapture)?;
        MOUSE.store(true, Ordering::SeqCst);
    }
    Ok(())
}

/// Gives the terminal back: keyboard flags popped, mouse capture and bracketed paste off,
/// main screen, cursor shown, raw mode off. Safe to call any number of times and from a panic
/// hook; errors are ignored (the terminal may already be gone, e.g. after SIGHUP). A terminal
/// that is gone is let go of: see [`release_dead_terminal`].
pub(crate) fn restore() {
    restore_if_entered();
}

/// [`restore`], telling whether there was anything to restore.
fn restore_if_entered() -> bool {
    let entered = ENTERED.swap(false, Ordering::SeqCst);
    if entered {
        write_restore();
    }
    release_dead_terminal();
    entered
}

fn write_restore() {
    let mut out = io::stdout();
    if let Some(bytes) = title::restore_bytes() {
        let _ = out.write_all(bytes);
    }
    let _ = execute!(out, PopKeyboardEnhancementFlags);
    if MOUSE.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, DisableMouseCapture);
    }
    if LINES.load(Ordering::SeqCst) {
        let _ = execute!(out, DisableFocusChange, DisableBracketedPaste, Show);
    } else {
        let _ = execute!(
            out,
            DisableFocusChange,
            DisableBracketedPaste,
            LeaveAlternateScreen,
            Show
        );
    }
    let _ = out.flush();
    let _ = disable_raw_mode();
}

/// Whether `fd` is a terminal that was hung up: the kernel then fails every terminal request
/// on it with EIO (on another kind of file, or a live terminal, `tcgetattr` succeeds or fails
/// with ENOTTY).
fn is_hung_up(fd: BorrowedFd<'_>) -> bool {
    // SAFETY: termios is plain data; tcgetattr only fills it in.
    let mut termios: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open for the duration of the call and `termios` is a valid out-pointer.
    let rc = unsafe { libc::tcgetattr(fd.as_raw_fd(), &mut termios) };
    rc == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::EIO)
}

/// Whether the terminal the app draws on has gone away (its window closed, the connection
/// dropped). An error from drawing or reading after that is the user leaving, not a failure.
pub(crate) fn hung_up() -> bool {
    // Once let go of, stdout is /dev/null: the flag remembers what it was.
    STDOUT_RELEASED.load(Ordering::SeqCst) || is_hung_up(io::stdout().as_fd())
}

/// Points stdout and stderr, where they are a hung-up terminal, at `/dev/null`. Every write
/// to them would fail from now on, and some writers do not take that quietly: ratatui's
/// `Terminal` reports a failed cursor show with `eprintln!`, which panics when stderr fails,
/// and so would an error message or a panic report on the way out (a panic in the panic
/// hook aborts the process). Nobody can read them any more anyway.
fn release_dead_terminal() {
    if release_if_hung_up(io::stdout().as_fd()) {
        STDOUT_RELEASED.store(true, Ordering::SeqCst);
    }
    release_if_hung_up(io::stderr().as_fd());
}

/// Makes `fd` refer to `/dev/null` if it is a hung-up terminal; tells whether it did.
fn release_if_hung_up(fd: BorrowedFd<'_>) -> bool {
    if !is_hung_up(fd) {
        return false;
    }
    let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else {
        return false;
    };
    // SAFETY: dup2 atomically makes `fd`'s number refer to /dev/null; both descriptors are
    // open, and `null` is closed after (the copy stays).
    unsafe { libc::dup2(null.as_raw_fd(), fd.as_raw_fd()) != -1 }
}

/// Chains a hook that restores the terminal before the previous hook prints the panic, so the
/// message lands on the normal screen, readable. Idempotent.
///
/// A panic on another thread (a tokio task, say) would otherwise leave the app running on a
/// terminal it no longer controls (cooked mode, main screen), so when the terminal was ours
/// the process then exits with status 101, as a panic on the main thread would.
pub(crate) fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let was_entered = restore_if_entered();
            previous(info);
            if was_entered && std::thread::current().name() != Some("main") {
                std::process::exit(101);
            }
        }));
    });
}

/// Which signal asked the process to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    Terminate,
    HangUp,
    Interrupt,
}

/// Listeners for SIGTERM, SIGHUP and SIGINT, and for the terminal hanging up without a SIGHUP
/// (see `watch_for_hang_up`). Creating it installs the handlers (from then on these signals no
/// longer kill the process outright), so create it before entering the terminal and await
/// [`TerminationSignals::recv`] in the app's select loop; after it resolves, return normally
/// so the guard restores the terminal. (SIGINT only arrives from `kill`: in raw mode Ctrl+C is
/// a key.) Must be created inside a tokio runtime.
pub struct TerminationSignals {
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl TerminationSignals {
    pub fn new() -> io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        watch_for_hang_up();
        Ok(TerminationSignals {
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    /// Resolves with the next termination signal, or [`Termination::HangUp`] once the
    /// terminal has hung up. Cancel-safe (usable in `tokio::select!`).
    pub async fn recv(&mut self) -> Termination {
        tokio::select! {
            _ = self.term.recv() => Termination::Terminate,
            _ = self.hup.recv() => Termination::HangUp,
            _ = self.int.recv() => Termination::Interrupt,
            () = terminal_hung_up() => Termination::HangUp,
        }
    }
}

/// The hang-up watcher saw stdin's terminal hang up.
static STDIN_HUNG_UP: AtomicBool = AtomicBool::new(false);
static HANG_UP_WATCH: Once = Once::new();

fn hang_up_notify() -> &'static tokio::sync::Notify {
    static NOTIFY: std::sync::OnceLock<tokio::sync::Notify> = std::sync::OnceLock::new();
    NOTIFY.get_or_init(tokio::sync::Notify::new)
}

/// Starts (once per process) a thread that waits for stdin's terminal to hang up.
///
/// The kernel sends SIGHUP on a hang-up only to the terminal's session leader. When that is
/// not us and it neither dies nor passes the signal on (`sh -c 'trap "" HUP; gobare-tui …; :'`),
/// no signal comes, and crossterm's reader then spins on the dead terminal without ever
/// reporting an error (crossterm issue #793): a core burnt forever. A blocking `poll` with no
/// events requested sleeps while the terminal lives (input and output do not wake it: only
/// POLLHUP/POLLERR/POLLNVAL are reported) and returns once it hangs up. Not a terminal: no
/// thread.
fn watch_for_hang_up() {
    HANG_UP_WATCH.call_once(|| {
        let stdin = io::stdin();
        if !std::io::IsTerminal::is_terminal(&stdin) {
            return;
        }
        // Our own descriptor, so the thread never polls a number reused by something else.
        let Ok(fd) = stdin.as_fd().try_clone_to_owned() else {
            return;
        };
        let spawned = std::thread::Builder::new()
            .name("hang-up watch".into())
            .spawn(move || {
                if wait_for_hang_up(fd.as_fd()) {
                    STDIN_HUNG_UP.store(true, Ordering::SeqCst);
                    hang_up_notify().notify_waiters();
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("no hang-up watch: {e}");
        }
    });
}

/// Blocks until `fd` reports a hang-up or an error (`true`); `false` if `poll` itself failed.
/// Stopped (Ctrl+Z) and resumed, or interrupted by a signal, it simply waits on.
fn wait_for_hang_up(fd: BorrowedFd<'_>) -> bool {
    let mut pollfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: 0,
        revents: 0,
    };
    loop {
        // SAFETY: `pollfd` is one valid pollfd for the duration of the call; `fd` stays open.
        let rc = unsafe { libc::poll(&mut pollfd, 1, -1) };
        if rc > 0 {
            return true; // with no events asked for, only POLLHUP/POLLERR/POLLNVAL come back
        }
        if rc < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return false;
        }
    }
}

/// Resolves once the hang-up watcher has seen the terminal hang up; never without one.
async fn terminal_hung_up() {
    let notify = hang_up_notify();
    loop {
        let notified = notify.notified();
        tokio::pin!(notified);
        // Registered before the flag is read, so a hang-up between the two is not missed.
        notified.as_mut().enable();
        if STDIN_HUNG_UP.load(Ordering::SeqCst) {
            return;
        }
        notified.await;
    }
}

impl std::ops::Deref for Tui {
    type Target = Terminal<CrosstermBackend<Stdout>>;

    fn deref(&self) -> &Self::Target {
        &self.terminal
    }
}

impl std::ops::DerefMut for Tui {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.terminal
    }
}

impl Tui {
    /// Ctrl+Z: gives the terminal back, stops the process (as the shell expects of SIGTSTP),
    /// and once resumed (`fg`) re-enters and clears so the next draw repaints everything.
    pub fn suspend(&mut self) -> io::Result<()> {
        restore();
        // SAFETY: raise only sends a signal to this process; the default SIGTSTP action stops
        // the process until SIGCONT, after which raise returns.
        unsafe {
            libc::raise(libc::SIGTSTP);
        }
        enter_modes(self.mouse)?;
        self.clear_screen()
    }

    /// Gives the terminal to `run` (a child process on it) and takes it back after,
    /// cleared so the next draw repaints everything.
    pub fn run_outside<T>(&mut self, run: impl FnOnce() -> T) -> io::Result<T> {
        restore();
        let out = run();
        enter_modes(self.mouse)?;
        self.clear_screen()?;
        Ok(out)
    }

    /// The next draw repaints everything; line by line, nothing is cleared (what was
    /// written stays written) and the line front writes its input line again.
    fn clear_screen(&mut self) -> io::Result<()> {
        if self.lines {
            return Ok(());
        }
        self.terminal.clear()
    }

    /// Turns mouse capture on or off while running (off lets the terminal select text).
    pub fn set_mouse_capture(&mut self, on: bool) -> io::Result<()> {
        if on == self.mouse || self.lines {
            return Ok(());
        }
        if on {
            execute!(io::stdout(), EnableMouseCapture)?;
        } else {
            execute!(io::stdout(), DisableMouseCapture)?;
        }
        self.mouse = on;
        MOUSE.store(on, Ordering::SeqCst);
        Ok(())
    }

    pub fn mouse_capture(&self) -> bool {
        self.mouse
    }
}

/// The process's one stream of terminal events. crossterm reads the terminal through a
/// global reader; an `EventStream` dropped and a new one made (the app, then the fleet, then
/// the app again) can leave a waker thread of the first behind and lose keys, so every screen
/// borrows this one instead.
pub(crate) fn events() -> &'static tokio::sync::Mutex<crossterm::event::EventStream> {
    static EVENTS: std::sync::OnceLock<tokio::sync::Mutex<crossterm::event::EventStream>> =
        std::sync::OnceLock::new();
    EVENTS.get_or_init(|| tokio::sync::Mutex::new(crossterm::event::EventStream::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{File, OpenOptions};
    use std::os::unix::fs::OpenOptionsExt;

    /// A new pseudo-terminal: (master, slave). Opened close-on-exec (std's default) so no
    /// process spawned meanwhile keeps the master open.
    fn pty() -> (File, File) {
        let master = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open("/dev/ptmx")
            .expect("open /dev/ptmx");
        let mut name = [0 as libc::c_char; 128];
        // SAFETY: plain calls on an open master fd; `name` is a valid buffer of its length.
        unsafe {
            assert_eq!(libc::grantpt(master.as_raw_fd()), 0);
            assert_eq!(libc::unlockpt(master.as_raw_fd()), 0);
            assert_eq!(
                libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()),
                0
            );
        }
        // SAFETY: ptsname_r wrote a NUL-terminated path into `name`.
        let path = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) };
        let slave = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(path.to_str().expect("pty path"))
            .expect("open pty slave");
        (master, slave)
    }

    #[test]
    fn a_terminal_is_hung_up_once_its_other_side_closes_and_a_file_never_is() {
        let (master, slave) = pty();
        assert!(!is_hung_up(slave.as_fd()), "live terminal");
        drop(master);
        assert!(is_hung_up(slave.as_fd()), "terminal whose master closed");
        let file = tempfile::tempfile().unwrap();
        assert!(!is_hung_up(file.as_fd()), "regular file");
    }

    #[test]
    fn the_hang_up_wait_sleeps_while_the_terminal_lives_and_returns_once_it_hangs_up() {
        let (master, slave) = pty();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let watched = slave.try_clone().unwrap();
        let watcher = std::thread::spawn(move || {
            let hung_up = wait_for_hang_up(watched.as_fd());
            done_tx.send(hung_up).unwrap();
        });
        // Traffic both ways on a live terminal does not end the wait.
        let (mut m, mut s) = (&master, &slave);
        m.write_all(b"keys\n").unwrap();
        s.write_all(b"output").unwrap();
        let wait = std::time::Duration::from_millis(300);
        assert!(
            done_rx.recv_timeout(wait).is_err(),
            "returned on a live terminal"
        );
        drop(master);
        assert_eq!(
            done_rx.recv_timeout(std::time::Duration::from_secs(5)),
            Ok(true),
            "no hang-up seen after the master closed"
        );
        watcher.join().unwrap();
    }

    #[test]
    fn a_hung_up_terminal_is_let_go_of_so_writes_to_it_succeed() {
        let (master, mut slave) = pty();
        assert!(!release_if_hung_up(slave.as_fd()), "live terminal kept");
        drop(master);
        assert!(
            slave.write_all(b"x").is_err(),
            "a dead terminal fails writes"
        );
        assert!(release_if_hung_up(slave.as_fd()));
        slave
            .write_all(b"goes nowhere")
            .expect("writes to /dev/null");
        assert!(!is_hung_up(slave.as_fd()));
    }
}
