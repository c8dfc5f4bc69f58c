//! Enters the full-screen terminal through `gobare_tui::terminal`, draws a line, then leaves
//! in the way the first argument asks, so `tests/suite/pty_terminal.rs` can check that every way out
//! gives the terminal back:
//!
//! - `keys` (default) / `mouse`: `q` quits normally, `e` returns an error, `p` panics,
//!   `t` panics on another thread,
//!   `z` suspends (Ctrl+Z path) and resumes, `m` toggles mouse capture; a resize is drawn
//!   as `SIZE <cols>x<rows>`, a paste as `PASTED <n> lines`, other keys as `KEY <code> <mods>`.
//! - `sigterm`: waits in a tokio runtime for SIGTERM/SIGHUP, then returns normally.

use std::io;

use crossterm::event::{self, Event, KeyCode, KeyEventKind};
use gobare_tui::terminal::{self, Tui};
use ratatui::widgets::Paragraph;

fn draw(tui: &mut Tui, text: &str) -> io::Result<()> {
    tui.terminal
        .draw(|f| f.render_widget(Paragraph::new(text.to_string()), f.area()))?;
    Ok(())
}

fn run_keys(mouse: bool) -> io::Result<()> {
    let mut tui = terminal::enter(mouse)?;
    // crossterm opens its event source (and its SIGWINCH handler) on first use: do it
    // before saying READY, or a resize sent right after READY is lost.
    event::poll(std::time::Duration::ZERO)?;
    draw(&mut tui, "READY")?;
    loop {
        let key = match event::read()? {
            Event::Key(key) => key,
            Event::Resize(cols, rows) => {
                draw(&mut tui, &format!("SIZE {cols}x{rows}"))?;
                continue;
            }
            Event::Paste(text) => {
                draw(&mut tui, &format!("PASTED {} lines", text.lines().count()))?;
                continue;
            }
            _ => continue,
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        match key.code {
            KeyCode::Char('q') => return Ok(()),
            KeyCode::Char('e') => return Err(io::Error::other("requested error")),
            KeyCode::Char('p') => panic!("requested panic"),
            KeyCode::Char('t') => {
                let _ = std::thread::spawn(|| panic!("worker panic")).join();
                draw(&mut tui, "SURVIVED a worker panic")?;
            }
            KeyCode::Char('z') => {
                tui.suspend()?;
                draw(&mut tui, "RESUMED")?;
            }
            KeyCode::Char('m') => {
                let on = !tui.mouse_capture();
                tui.set_mouse_capture(on)?;
                draw(&mut tui, if on { "MOUSE ON" } else { "MOUSE OFF" })?;
            }
            code => draw(&mut tui, &format!("KEY {code:?} {:?}", key.modifiers))?,
        }
    }
}

fn run_until_signal() -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        // Listen before announcing readiness, so a signal sent on READY is never missed.
        let mut signals = terminal::TerminationSignals::new()?;
        let mut tui = terminal::enter(true)?;
        draw(&mut tui, "READY")?;
        let which = signals.recv().await;
        drop(tui);
        println!("RESTORED after {which:?}");
        Ok(())
    })
}

fn main() -> io::Result<()> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "keys".into());
    let result = match mode.as_str() {
        "sigterm" => run_until_signal(),
        "mouse" => run_keys(true),
        _ => run_keys(false),
    };
    if result.is_ok() {
        println!("RESTORED");
    }
    result
}
