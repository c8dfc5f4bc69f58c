//! Views: the [`Screen`] and the panes and widgets it owns, drawn from the model
//! ([`crate::session::Session`]) onto a ratatui frame.

pub(crate) mod away_banner;
pub(crate) mod budget_view;
pub(crate) mod component;
pub mod composer;
pub(crate) mod confirm;
pub(crate) mod events;
pub mod fleet;
pub(crate) mod fleet_help;
pub(crate) mod fleet_legend;
pub(crate) mod footer;
pub(crate) mod help;
pub mod inbox;
pub(crate) mod layout;
pub mod overlays;
pub(crate) mod pane;
pub(crate) mod policy_lines;
pub mod prompt;
pub(crate) mod screen;
pub(crate) mod screen_reader;
pub(crate) mod search;
pub(crate) mod text;
pub mod theme;
pub(crate) mod transcript;
pub(crate) mod turn;
pub(crate) mod usage_clock;
pub(crate) mod workspace;

#[cfg(test)]
mod tests;

pub use layout::Areas;
pub use pane::Pane;
pub use screen::Screen;
