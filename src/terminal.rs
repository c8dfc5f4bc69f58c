//! Entering and leaving the full-screen terminal, and giving it back intact on every way out:
//! normal quit ([`TerminalGuard`]'s Drop), error return (the same Drop), panic (a hook that
//! restores before the message is printed), SIGTERM/SIGHUP ([`termination_signal`], which the
//! app's select loop awaits before returning normally), and Ctrl+Z ([`Tui::suspend`]).
//!
//! Restoring is idempotent: the first call undoes everything, later calls do nothing, so the
//! guard, the panic hook and an explicit call can all run without doubling escape sequences.

use std::io::{self, Stdout, Write};
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
static PANIC_HOOK: Once = Once::new();

/// The application's terminal plus the guard that restores it when dropped.
pub struct Tui {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    mouse: bool,
    _guard: TerminalGuard,
}

/// Restores the terminal when dropped (normal return, `?` error return, unwinding).
pub struct TerminalGuard(());

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Enters raw mode and the alternate screen with bracketed paste, hidden cursor, keyboard
/// disambiguation (so Shift+Enter differs from Enter where the terminal supports it) and,
/// if `mouse`, mouse capture. Installs the restoring panic hook (once, chaining whatever hook
/// is already installed — install color-eyre's first).
pub fn enter(mouse: bool) -> io::Result<Tui> {
    install_panic_hook();
    let guard = TerminalGuard(());
    enter_modes(mouse)?; // on error, `guard` drops and undoes what was done
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    Ok(Tui {
        terminal,
        mouse,
        _guard: guard,
    })
}

fn enter_modes(mouse: bool) -> io::Result<()> {
    ENTERED.store(true, Ordering::SeqCst);
    enable_raw_mode()?;
    let mut out = io::stdout();
    execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableFocusChange,
        Hide
    )?;
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
/// hook; errors are ignored (the terminal may already be gone, e.g. after SIGHUP).
pub fn restore() {
    restore_if_entered();
}

/// [`restore`], telling whether there was anything to restore.
fn restore_if_entered() -> bool {
    if !ENTERED.swap(false, Ordering::SeqCst) {
        return false;
    }
    let mut out = io::stdout();
    let _ = execute!(out, PopKeyboardEnhancementFlags);
    if MOUSE.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, DisableMouseCapture);
    }
    let _ = execute!(
        out,
        DisableFocusChange,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        Show
    );
    let _ = out.flush();
    let _ = disable_raw_mode();
    true
}

/// Chains a hook that restores the terminal before the previous hook prints the panic, so the
/// message lands on the normal screen, readable. Idempotent.
///
/// A panic on another thread (a tokio task, say) would otherwise leave the app running on a
/// terminal it no longer controls (cooked mode, main screen), so when the terminal was ours
/// the process then exits with status 101, as a panic on the main thread would.
pub fn install_panic_hook() {
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

/// Listeners for SIGTERM, SIGHUP and SIGINT. Creating it installs the handlers (from then on
/// these signals no longer kill the process outright), so create it before entering the
/// terminal and await [`TerminationSignals::recv`] in the app's select loop; after it resolves,
/// return normally so the guard restores the terminal. (SIGINT only arrives from `kill`: in
/// raw mode Ctrl+C is a key.) Must be created inside a tokio runtime.
pub struct TerminationSignals {
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl TerminationSignals {
    pub fn new() -> io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(TerminationSignals {
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    /// Resolves with the next termination signal. Cancel-safe (usable in `tokio::select!`).
    pub async fn recv(&mut self) -> Termination {
        tokio::select! {
            _ = self.term.recv() => Termination::Terminate,
            _ = self.hup.recv() => Termination::HangUp,
            _ = self.int.recv() => Termination::Interrupt,
        }
    }
}

/// One-shot form of [`TerminationSignals`]: installs the handlers and resolves on the first
/// signal. Handlers are installed at the first poll, so prefer `TerminationSignals::new()`
/// early when a signal could arrive before the loop starts.
pub async fn termination_signal() -> io::Result<Termination> {
    Ok(TerminationSignals::new()?.recv().await)
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
        self.terminal.clear()
    }

    /// Turns mouse capture on or off while running (off lets the terminal select text).
    pub fn set_mouse_capture(&mut self, on: bool) -> io::Result<()> {
        if on == self.mouse {
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

    /// Restores now (the guard's later Drop then does nothing).
    pub fn restore(&mut self) {
        restore();
    }
}

/// The process's one stream of terminal events. crossterm reads the terminal through a
/// global reader; an `EventStream` dropped and a new one made (the app, then the picker, then
/// the app again) can leave a waker thread of the first behind and lose keys, so every screen
/// borrows this one instead.
pub fn events() -> &'static tokio::sync::Mutex<crossterm::event::EventStream> {
    static EVENTS: std::sync::OnceLock<tokio::sync::Mutex<crossterm::event::EventStream>> =
        std::sync::OnceLock::new();
    EVENTS.get_or_init(|| tokio::sync::Mutex::new(crossterm::event::EventStream::new()))
}
