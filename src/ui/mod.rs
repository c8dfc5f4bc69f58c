//! Views: the [`Screen`] and the panes and widgets it owns, drawn from the model
//! ([`crate::session::SessionView`]) onto a ratatui frame.

pub(crate) mod artifact_list;
pub(crate) mod away_banner;
pub(crate) mod budget_view;
#[cfg(test)]
pub(crate) mod buffer_text;
pub mod changes_view;
pub(crate) mod component;
pub mod composer;
pub(crate) mod confirm;
pub(crate) mod diff;
pub(crate) mod events;
pub(crate) mod file_browser;
pub mod fleet;
pub(crate) mod fleet_help;
pub(crate) mod fleet_legend;
pub(crate) mod footer;
pub(crate) mod frame_lines;
pub(crate) mod help;
pub(crate) mod highlight;
pub(crate) mod hyperlink;
pub mod inbox;
pub(crate) mod inspector;
pub(crate) mod layout;
pub(crate) mod markdown;
pub(crate) mod overlay;
pub(crate) mod pager;
pub(crate) mod pane;
pub(crate) mod policy_lines;
pub mod prompt;
pub(crate) mod save_progress;
pub(crate) mod screen;
pub(crate) mod screen_reader;
pub(crate) mod search;
mod styled;
pub mod theme;
pub(crate) mod transcript;
pub(crate) mod turn;
pub(crate) mod workspace;

#[cfg(test)]
mod tests;

pub use layout::Areas;
pub use pane::Pane;
pub use screen::Screen;
