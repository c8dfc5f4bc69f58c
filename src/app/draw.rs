//! One frame: the screen draws everything; the app adds only the replay progress it owns,
//! then writes the frame's links over it (see [`crate::ui::hyperlink`]).

use super::App;
use color_eyre::Result;

impl App {
    pub(super) fn draw(&mut self) -> Result<()> {
        // Relative times ("3 m ago") are as of this frame; setting the clock asks no frame.
        self.view
            .apply(crate::session::Update::Tick(gobare_api::clock::unix_ms()));
        let App {
            tui,
            view,
            screen,
            theme,
            replay,
            ..
        } = self;
        let label = replay.label();
        tui.draw(|f| screen.draw(f, view, theme, label.as_deref()))?;
        self.write_links();
        self.page_back_when_at_the_top();
        Ok(())
    }
}
