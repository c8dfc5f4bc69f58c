//! What the user asks for, whichever key, click or paste asked it: the key table maps keys
//! to these, and the app carries each out (`SessionFront::dispatch`), so a new action is one variant
//! and one arm.

use super::pane::Pane;
use gobare_api::model::Input;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Intent {
    /// Quit, asking first when a turn runs, a decision waits or a draft exists.
    Quit,
    Suspend,
    /// Tab: to the waiting decision, and only there (with nothing waiting it says so).
    Decide,
    /// Shift+Tab from the box: the focused pane gets the keys.
    EnterPanes,
    /// Tab / Shift+Tab in the panes: the next / previous pane.
    PaneNext,
    PanePrev,
    /// Back to typing, whatever was open.
    FocusInput,
    /// Esc in the box: it stays; with nothing typed while a turn runs, how to cancel it.
    Escape,
    FocusPane(Pane),
    /// Scroll `pane` (the focused one when `None`) by `lines` (negative: up, older).
    Scroll {
        pane: Option<Pane>,
        lines: i32,
    },
    /// PgUp/PgDn: a screenful of the focused pane (the transcript while typing).
    Page {
        up: bool,
    },
    ScrollTop,
    ScrollBottom,
    /// ↑↓/j/k in the panes: move the selection (Transcript, Events) or scroll (the others).
    Select(i32),
    /// `[` / `]`: select the message that starts the previous / next turn.
    SelectTurn {
        forward: bool,
    },
    /// `!`: select the next error.
    NextError,
    /// Esc in the panes: clear the selection, or back to the input box.
    Back,
    /// Enter in the panes: expand the selected entry, inspect the selected event, or back
    /// to the input box when nothing is selected.
    Activate,
    /// `c`: copy the selected entry to the clipboard (OSC 52).
    Copy,
    /// `o`: open the selected entry's link in the browser.
    OpenLink,
    ToggleZoom,
    ToggleHelp,
    /// Scroll the key list by this many rows.
    ScrollHelp(i32),
    ToggleMouseCapture,
    /// The next theme: dark, light, high contrast.
    NextTheme,
    ToggleDeltas,
    /// The search bar, holding the Events type filter (`type:NAME`).
    StartEventFilter,
    /// `/`: the search bar, its query empty (↑ there recalls the previous one).
    StartSearch,
    /// `n` / `N`: the next older or newer match.
    SearchStep {
        older: bool,
    },
    /// Show the entry event `seq` made, which the transcript's budget evicted. Paging back
    /// loads it from the local event log; until then this says where it is.
    ShowEvicted {
        seq: u64,
    },
    ToggleDiff,
    /// `p`: publish or unpublish the preview (asks first).
    TogglePreview,
    /// `M`: set the session's approval mode to the next one (asks first).
    CycleApprovalMode,
    /// `X`: remove the session's newest permission rule (asks first, naming it).
    RemoveNewestRule,
    /// `R`: the session's rules in a list (remove or edit any, asked first).
    OpenRules,
    /// `l`: edit the session's labels (the set shown and asked before it is sent).
    EditLabels,
    /// `C`: switch the session's model (the credentials listed, the switch asked first).
    PickModel,
    /// `s`: a shell in the workspace over SSH, the UI suspended while it runs.
    Shell,
    /// `x`: write the session's Markdown export to a file.
    Export,
    /// `a`: the artifacts list (open, save).
    OpenArtifacts,
    /// `f`: the workspace's files (browse, find, open).
    OpenFiles,
    /// `D`: the changes view (a turn's files as one diff; review).
    OpenChanges,
    /// Ctrl+R: re-read the session and turns.
    Refresh,
    OpenPicker,
    /// F3: the decision inbox, at the soonest deadline (the fleet's, from a session).
    NextDecision,
    /// F2: the waiting decision's whole request (a command the prompt cut to fit) in the
    /// inspector.
    InspectDecision,
    /// Enter in the input box.
    Send(String),
    /// The first message of a new session, sent once the stream is connected.
    SendFirst(String),
    Steer(String),
    /// Ctrl+T: the box's text added to the session without starting a turn.
    Context(String),
    Cancel,
    /// Ctrl+G in the box: the draft in `$VISUAL` / `$EDITOR`, back in the box after.
    EditExternally,
    HistoryPrev,
    HistoryNext,
    /// An answer to a required action (from the prompt).
    Answer(Input),
}
