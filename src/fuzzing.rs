//! Seams for the fuzz targets in `fuzz/` (feature `fuzzing`, off in every other build):
//! the export's Markdown writer and the redactor, otherwise private to the crate.

use gobare_api::model::Event;

/// `events` exported as Markdown, as `gobare-tui export` writes them.
pub fn export_markdown(session_id: &str, title: Option<&str>, events: &[Event]) -> String {
    let mut writer = crate::export::markdown::MarkdownWriter::new(
        Vec::new(),
        session_id,
        title,
        crate::export::turn_facts::TurnFacts::default(),
    )
    .expect("writing to memory");
    for event in events {
        writer.event(event).expect("writing to memory");
    }
    let (out, _) = writer
        .finish(events.len() as u64, None)
        .expect("writing to memory");
    String::from_utf8(out).expect("the writer writes UTF-8")
}

/// `text` with every credential it holds replaced.
pub fn redact(text: &str) -> String {
    crate::redact::redact(text).into_owned()
}
