//! One frame: the screen draws everything; the app adds only the replay progress it owns.

use super::App;
use color_eyre::Result;

impl App {
    pub(super) fn draw(&mut self) -> Result<()> {
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
        self.page_back_when_at_the_top();
        Ok(())
    }
}
