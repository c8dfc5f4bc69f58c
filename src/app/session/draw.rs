//! One frame: the screen draws everything; the app adds only the replay progress it owns,
//! then writes the frame's links over it (see [`crate::ui::text::hyperlink`]).

use super::SessionFront;
use color_eyre::Result;

impl SessionFront {
    pub(crate) fn draw(&mut self) -> Result<()> {
        // Relative times ("3m ago") are as of this frame; setting the clock asks no frame.
        self.prepare_frame();
        self.decision_drawn();
        if self.spoken.is_some() {
            return self.write_lines();
        }
        let away = self.away_on_screen();
        let SessionFront {
            tui,
            session,
            screen,
            theme,
            replay,
            ..
        } = self;
        let label = catching_up_label(replay, session);
        tui.draw(|f| frame(f, screen, session, theme, label.as_deref(), away.as_ref()))?;
        self.write_links();
        self.page_back_when_at_the_top();
        Ok(())
    }

    /// The screen-reader mode's frame: what is new, as lines, and the input line.
    fn write_lines(&mut self) -> Result<()> {
        use std::io::Write;
        let width = self.tui.size().map_or(80, |s| s.width);
        let catching_up = self.replay.is_active();
        let Some(spoken) = &mut self.spoken else {
            return Ok(());
        };
        self.screen.prepare_prompt(&self.session);
        let bytes = spoken.frame(&self.session, &self.screen, catching_up, width);
        if !bytes.is_empty() {
            let backend = self.tui.backend_mut();
            backend.write_all(&bytes)?;
            backend.flush()?;
        }
        Ok(())
    }

    /// The prompt's decision is on screen from this frame (Tab decides it a moment later).
    fn decision_drawn(&mut self) {
        let current = crate::ui::prompt::PromptState::current(self.session.actions());
        let now = super::decided_hold::key_time();
        self.decision_seen
            .drawn(current.map(|a| a.call_id.as_str()), now);
    }

    /// What a frame needs before the screen draws it: the clock, the input box's title.
    pub(crate) fn prepare_frame(&mut self) {
        self.gather_budgets();
        self.session
            .apply(crate::session::Update::Tick(gobare_api::clock::unix_ms()));
        let title = crate::keys::table::mode_title(
            self.screen.mode(),
            self.screen.focus().title(),
            self.key_situation(),
        );
        self.screen.set_mode_title(title);
        let (hint, panes) =
            crate::keys::table::status_hint(self.screen.mode(), self.screen.focus().title());
        self.screen.set_status_hint(hint, panes);
    }

    /// What the input box's title hints depend on now.
    pub(crate) fn key_situation(&self) -> crate::keys::table::Situation {
        let decision = crate::keys::decision::Decision::of(self.session.actions());
        let picked = self
            .screen
            .prompt
            .highlighted_option(self.session.actions())
            .is_some();
        crate::keys::table::Situation {
            waiting: !self.session.actions().nothing_listed(),
            running: self.session.turn_running(),
            enter_answers: self.enter_answers(),
            decision,
            enter_decides: picked || self.box_answers(),
        }
    }
}

/// One frame's drawing: the screen with the replay's progress `label`, and the "while you
/// were away" digest over it when one is shown.
pub(crate) fn frame(
    f: &mut ratatui::Frame,
    screen: &mut crate::ui::Screen,
    session: &crate::session::Session,
    theme: &crate::ui::theme::Theme,
    label: Option<&str>,
    away: Option<&crate::away::digest::Digest>,
) {
    screen.draw(f, session, theme, label);
    if let Some(digest) = away {
        crate::ui::away_banner::render(
            f.area(),
            f.buffer_mut(),
            std::slice::from_ref(digest),
            false,
            digest.away_ms(),
            0,
            theme,
        );
    }
}

/// "loading history…" or "replaying… N events" while history comes in; nothing while the
/// status bar says the stream has been silent: then nothing is loading.
fn catching_up_label(
    replay: &super::reading::replay::ReplayProgress,
    session: &crate::session::Session,
) -> Option<String> {
    replay
        .label()
        .filter(|_| !crate::ui::footer::silence_is_news(session))
}

#[cfg(test)]
mod tests {
    use super::catching_up_label;
    use crate::app::session::reading::replay::ReplayProgress;
    use crate::session::{Session, Update};
    use gobare_api::stream::ConnectionState;

    #[test]
    fn nothing_is_said_to_load_while_the_stream_is_silent() {
        let replay = ReplayProgress::new(true);
        let mut session = Session::new("s1");
        session.apply(Update::Tick(1_000_000));
        session.apply(Update::Connection(ConnectionState::Open {
            silent_before: 0,
        }));
        session.set_stream_silence(Some(1_000_000 - 2_000), false);
        assert_eq!(
            catching_up_label(&replay, &session).as_deref(),
            Some("loading history…"),
            "a stream just opened may still bring history"
        );
        session.set_stream_silence(Some(1_000_000 - 25_000), false);
        assert_eq!(catching_up_label(&replay, &session), None);
        session.apply(Update::Connection(ConnectionState::Open {
            silent_before: 1,
        }));
        session.set_stream_silence(Some(1_000_000 - 50_000), true);
        assert_eq!(catching_up_label(&replay, &session), None);
    }
}
