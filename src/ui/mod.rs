//! Views: pure functions of (&SessionView, &UiState) onto a ratatui Frame.

pub mod composer;
pub(crate) mod confirm;
pub(crate) mod diff;
pub(crate) mod events;
pub(crate) mod footer;
pub(crate) mod help;
pub(crate) mod layout;
pub(crate) mod markdown;
pub(crate) mod mode;
mod pane;
pub mod picker;
pub mod prompt;
pub(crate) mod state;
mod styled;
pub mod theme;
pub(crate) mod transcript;
pub(crate) mod turn;
pub(crate) mod workspace;

#[cfg(test)]
mod view_tests;

pub use layout::{Areas, areas, draw};
pub use state::{Pane, UiState};
