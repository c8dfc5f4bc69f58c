//! One frame: the screen draws everything; the app adds only the replay progress it owns,
//! then writes the frame's links over it (see [`crate::ui::hyperlink`]).

use super::App;
use crate::ui::hyperlink;
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
        hyperlink::write(tui.backend_mut(), screen.hyperlinks())?;
        Ok(())
    }
}
