//! The fleet's key vocabulary: its states' scopes and what a key means in them, as the key
//! table routes them (its own file, so the table and the fleet view both use it).

/// Which rows of the key table have the fleet's keys now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FleetScope {
    /// Before the scope's own rows, in every scope.
    Everywhere,
    /// Moving in the list: letters are commands.
    List,
    /// Typing the filter: letters are the filter.
    Filter,
    /// Typing a session's new title: letters are the title.
    Rename,
    /// Asked before a delete or a fork: only y or n answers.
    Confirm,
    /// The fleet's key list (F1).
    Help,
}

/// What a key means to the fleet, as the key table routes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FleetKey {
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    New,
    Filter,
    ClearFilter,
    Rename,
    Delete,
    Fork,
    /// Enter while typing: keep the filter, save the title.
    Done,
    /// Esc while typing: drop the filter, keep the old title.
    Cancel,
    Erase,
    EraseAll,
    Yes,
    No,
    Help,
    CloseHelp,
    /// The next theme, for this run.
    Theme,
    /// Open the session with its changes view.
    Changes,
    Quit,
}
