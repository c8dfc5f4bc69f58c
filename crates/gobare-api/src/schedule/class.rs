//! Who a request is for, which decides what it may spend of the rate budget and who goes
//! first when the budget is short.

/// The four classes of request, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RequestClass {
    /// A person's action: send, steer, answer, cancel, rename, delete. May spend the whole
    /// bucket; the last quarter is kept for it alone.
    Action,
    /// What is on screen now: the open session, the visible rows, an overlay being read.
    OnScreen,
    /// What keeps the screen current out of sight: fleet details, usage refresh, todo
    /// replays, the digest. Never more than half a bucket a window.
    Background,
    /// Work a command does in bulk: report, downloads, export pages.
    Bulk,
}

impl RequestClass {
    /// Every class, most urgent first.
    pub const ALL: [RequestClass; 4] = [
        RequestClass::Action,
        RequestClass::OnScreen,
        RequestClass::Background,
        RequestClass::Bulk,
    ];

    /// Index into per-class tables, most urgent first.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The word used in logs and figures.
    pub fn name(self) -> &'static str {
        match self {
            RequestClass::Action => "action",
            RequestClass::OnScreen => "on-screen",
            RequestClass::Background => "background",
            RequestClass::Bulk => "bulk",
        }
    }
}
