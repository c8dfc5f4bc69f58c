//! What a key means in an overlay (a pager, a list, the file tree, the changes view): the
//! scopes the key table has for them and the meanings it routes keys to.

/// Which keys an overlay reads right now: the key table has a scope for each, so its rows
/// route the keys, draw the overlay's hint line and the key list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ViewScope {
    /// A pager (an artifact, a file, an event, a diff).
    Pager,
    /// The artifact list.
    Artifacts,
    /// The artifact list asking whether to overwrite: only y or n answers.
    Overwrite,
    /// The workspace's file tree.
    Files,
    /// The file tree while a name is typed to find it: letters are the name.
    FilesFinding,
    /// The changes view.
    Changes,
    /// The changes view while a comment is written: letters are the comment.
    ChangesComment,
    /// The changes view asking before the review is sent: only y or n answers.
    ChangesSend,
    /// The session's rules (`R`).
    Rules,
    /// The models the organization's credentials run (`C`).
    Models,
    /// A rule's text or the labels being typed: letters are the text.
    PolicyLine,
    /// Rules, labels or model: asked before the change is sent; only y or n answers.
    PolicyAsk,
}

/// What a key means to an overlay, as the key table routes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ViewKey {
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Close,
    Open,
    Expand,
    Collapse,
    Find,
    StopFinding,
    Refresh,
    Save,
    SaveAll,
    SaveTurn,
    Yes,
    No,
    NextFile,
    PrevFile,
    NextHunk,
    PrevHunk,
    SideBySide,
    Mark,
    MarkHunk,
    Comment,
    SendReview,
    Remove,
    Edit,
}
