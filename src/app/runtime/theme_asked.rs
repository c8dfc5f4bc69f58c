//! The `auto` theme's question to the terminal (OSC 11), answered on a thread of its own
//! so the session's stream is caught up meanwhile: a terminal that answers late or never
//! (the wait is up to [`TIMEOUT`]) no longer holds the catch-up back, only the first frame,
//! which needs the theme. Until the answer is in, nothing else reads the terminal.

use std::thread::JoinHandle;

use tokio::sync::oneshot;

use crate::terminal::background::{self, TIMEOUT};
use crate::ui::theme::ThemeName;

/// The question asked and its answer on the way.
#[derive(Debug)]
pub(crate) struct ThemeAsked {
    answer: oneshot::Receiver<ThemeName>,
    reader: JoinHandle<ThemeName>,
}

/// `name` when it needs no question (not `auto`, or `COLORFGBG` says); else the question
/// is asked now and its answer comes with [`ThemeAsked`].
pub(crate) fn ask(name: ThemeName) -> Result<ThemeName, ThemeAsked> {
    if name != ThemeName::Auto || std::env::var_os("COLORFGBG").is_some() {
        return Ok(name);
    }
    if background::ask().is_err() {
        return Ok(name);
    }
    let (tx, answer) = oneshot::channel();
    let reader = std::thread::Builder::new()
        .name("theme-answer".into())
        .spawn(move || {
            let name = from_answer(background::answer_is_light(TIMEOUT));
            // Nobody waits on the channel when the answer is joined instead.
            let _ = tx.send(name);
            name
        });
    match reader {
        Ok(reader) => Err(ThemeAsked { answer, reader }),
        // No thread: the answer read here, as it always could be.
        Err(_) => Ok(from_answer(background::answer_is_light(TIMEOUT))),
    }
}

impl ThemeAsked {
    /// The answer, once in (at most [`TIMEOUT`] after the question).
    pub(crate) async fn answered(&mut self) -> ThemeName {
        (&mut self.answer).await.unwrap_or(ThemeName::Auto)
    }

    /// The answer, waited for here (before anything else reads the terminal, or before it
    /// is given back to the shell: a late answer would reach it as typed text).
    pub(crate) fn wait(self) -> ThemeName {
        self.reader.join().unwrap_or(ThemeName::Auto)
    }
}

/// `auto` as the terminal's answer picks it.
fn from_answer(light: Option<bool>) -> ThemeName {
    match light {
        Some(true) => ThemeName::Light,
        Some(false) => ThemeName::Dark,
        None => ThemeName::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_light_or_dark_answer_picks_its_theme_and_none_stays_auto() {
        assert_eq!(from_answer(Some(true)), ThemeName::Light);
        assert_eq!(from_answer(Some(false)), ThemeName::Dark);
        assert_eq!(from_answer(None), ThemeName::Auto);
    }

    #[test]
    fn a_named_theme_asks_nothing() {
        assert!(matches!(ask(ThemeName::Dark), Ok(ThemeName::Dark)));
        assert!(matches!(ask(ThemeName::Light), Ok(ThemeName::Light)));
    }
}
