//! Text shaped for the screen: agent Markdown, diffs and highlighted code to styled lines,
//! laid out to a width, with the hyperlinks written over a finished frame.

#[cfg(test)]
pub(crate) mod buffer_text;
pub(crate) mod diff;
pub(crate) mod frame_lines;
pub(crate) mod highlight;
pub(crate) mod hyperlink;
pub(crate) mod markdown;
pub(crate) mod styled;
