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
    /// Typing a session's labels: letters are the labels.
    Labels,
    /// Asked before a delete or a fork: only y or n answers.
    Confirm,
    /// The fleet's key list (F1).
    Help,
    /// The decision inbox (`i`): moving in its list; letters are commands.
    Inbox,
    /// The inbox deciding the selected action: its keys answer, the mode line says so.
    InboxDeciding,
    /// The inbox asking the second `y` of a sensitive approval.
    InboxConfirm,
    /// The inbox taking a typed answer: letters are the answer.
    InboxReply,
    /// The inbox taking an approval's note (sent as a steer after y or n): letters are the
    /// note.
    InboxNote,
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
    /// Edit the selected session's labels.
    Labels,
    /// Set the approval mode of the sessions shown (asks, naming how many); in that
    /// question, the next mode.
    Mode,
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
    /// The next order within a band.
    Sort,
    /// Open the session with its changes view.
    Changes,
    /// Open the decision inbox.
    Inbox,
    /// The next decision that waits, soonest deadline first (the inbox, at it).
    NextDecision,
    /// Decide the selected inbox action in place.
    Decide,
    /// Back one step: the inbox to the fleet, deciding to the inbox's list.
    Back,
    /// A key the deciding prompt reads (y / n, an option, Enter, f).
    Answer,
    /// Type an answer: a question's free text or a function's result.
    Reply,
    Quit,
}
