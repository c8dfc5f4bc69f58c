//! Decode-and-apply: arbitrary `data:` payloads (one per line) decoded as events, applied
//! to the model with alternating seqs, then every pane drawn. Nothing may panic.
#![no_main]

use gobare_api::model::Event;
use gobare_tui::session::{Session, Update};
use gobare_tui::ui::{Pane, Screen, theme::Theme};
use libfuzzer_sys::fuzz_target;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fuzz_target!(|input: &[u8]| {
    let text = String::from_utf8_lossy(input);
    let mut view = Session::new("s").with_origin("fuzz", true);
    for line in text.split('\n') {
        match Event::parse(line) {
            Ok(ev) => {
                view.apply(Update::Event(ev));
            }
            Err(e) => {
                view.apply(Update::Skipped {
                    reason: e.0.into_owned(),
                });
            }
        }
    }
    let mut ui = Screen::new();
    ui.toggle_nearest_expandable(&view);
    let theme = Theme::default();
    let mut term = Terminal::new(TestBackend::new(90, 30)).unwrap();
    term.draw(|f| ui.draw(f, &view, &theme, None)).unwrap();
    for pane in Pane::ALL {
        ui.navigate(pane);
        ui.set_zoomed(true);
        term.draw(|f| ui.draw(f, &view, &theme, None)).unwrap();
    }
});
