//! The one key table: every binding is (scope, keys, where the key goes, label, hint). The
//! router ([`super::route`]) matches keys against it, the input box's title hints, the
//! key list (F1) and docs/keys.md's key table are drawn from it, and `[keys]` in the config
//! adds keys to its named rows. A key described anywhere else is a key that can drift. This
//! file holds the rows; `table/` holds what they are made of and what is read from them.

mod binding;
mod grammar;
mod reading;
mod scope;

pub(crate) use binding::{Binding, Chord, Shown};
pub(crate) use reading::*;
pub(crate) use scope::{KeyRoute, Scope, scope_of};

use super::fleet::FleetKey;
use super::intent::Intent;
use super::view::ViewKey;
use KeyRoute::{Confirm as Yes, Do, Fleet as F, Ignore, Input, Prompt, View};
use Scope::*;
use crossterm::event::{KeyCode, KeyModifiers};
use grammar::*;

/// Every key of every mode, in the order the key list shows them.
pub(crate) const TABLE: &[Binding] = &[
    // Everywhere.
    row(
        Everywhere,
        &[ctrl('c')],
        Do(Intent::Quit),
        "quit: at once when nothing would be lost; asks when a turn runs, a decision or a draft waits, or a demo that keeps nothing would end (Ctrl+C again or y quits)",
    )
    .action("quit"),
    row(
        Everywhere,
        &[k(KeyCode::F(1))],
        Do(Intent::ToggleHelp),
        "every key of every mode (this list)",
    )
    .hint("F1 keys", Shown::Always)
    .action("help"),
    row(
        Everywhere,
        &[k(KeyCode::PageUp)],
        Do(Intent::Page { up: true }),
        "scroll up a screenful (the transcript while typing; the wheel scrolls too)",
    )
    .action("page_up"),
    row(
        Everywhere,
        &[k(KeyCode::PageDown)],
        Do(Intent::Page { up: false }),
        "scroll down a screenful",
    )
    .action("page_down"),
    row(
        Everywhere,
        &[ctrl('r')],
        Do(Intent::Refresh),
        "re-read the session and turns; while reconnecting: reconnect now",
    )
    .action("refresh"),
    row(
        Everywhere,
        &[ctrl('o')],
        Do(Intent::OpenPicker),
        "the fleet (every session, live), at this session's row",
    )
    .action("picker"),
    row(
        Everywhere,
        &[ctrl('z')],
        Do(Intent::Suspend),
        "suspend (fg resumes)",
    )
    .action("suspend"),
    // Not a text key: typed text stays text.
    row(
        Everywhere,
        &[k(KeyCode::F(3))],
        Do(Intent::NextDecision),
        "the next decision waiting anywhere: the fleet's inbox, at the soonest deadline",
    )
    .action("next_decision"),
    // Typing: the box reads these (and every printable key, as text).
    row(
        Typing,
        &[k(KeyCode::Enter)],
        Input,
        "send the text as a message",
    )
    .hint("Enter send", Shown::EnterSends),
    doc(
        Typing,
        "Enter",
        "when the title says \"Enter answer\" (a question or function call waited as you began typing): answer it with the text; if it expired meanwhile, the text stays and the next Enter sends it as a message",
    )
    .hint("Enter answer", Shown::EnterAnswers),
    doc(
        Typing,
        "Enter",
        "when the title says \"Enter answer with an option\" (a question that takes only its options): answer with the option the text names; other text stays in the box and it says so",
    )
    .hint("Enter answer with an option", Shown::EnterPicks),
    row(
        Typing,
        &[k(KeyCode::Tab)],
        Do(Intent::Decide),
        "to the waiting decision, once it has been on screen a moment (only there: with nothing waiting, or a decision that arrived just before the Tab, it says so and the box keeps the keys)",
    )
    .hint("Tab decide", Shown::Waiting)
    .action("decide"),
    row(
        Typing,
        &[ctrl('x')],
        Input,
        "cancel the running turn (asks first)",
    )
    .hint("Ctrl+X cancel", Shown::Running),
    row(Typing, &[ctrl('s')], Input, "steer the running turn with the text")
        .hint("Ctrl+S steer", Shown::Running),
    row(
        Typing,
        &[ctrl('t')],
        Input,
        "add the text as context (input.context: starts no turn)",
    ),
    row(
        Typing,
        &[with(KeyCode::Enter, KeyModifiers::ALT), ctrl('j')],
        Input,
        "new line (Shift+Enter too where the terminal reports it)",
    )
    .keys("Alt+Enter / Ctrl+J")
    .hint("Alt+Enter/Ctrl+J newline", Shown::Always),
    row(
        Typing,
        &[k(KeyCode::Up), k(KeyCode::Down)],
        Input,
        "at the first / last line: earlier / later messages you sent",
    ),
    row(
        Typing,
        &[ctrl('a'), ctrl('e')],
        Input,
        "start / end of the line",
    ),
    row(
        Typing,
        &[ctrl('k'), ctrl('u')],
        Input,
        "delete to the end / the start of the line",
    ),
    row(
        Typing,
        &[ctrl('w'), alt('d')],
        Input,
        "delete the word before / after the cursor",
    ),
    row(
        Typing,
        &[alt('b'), alt('f')],
        Input,
        "a word back / forward",
    ),
    row(
        Typing,
        &[ctrl('b'), ctrl('f')],
        Input,
        "a character back / forward",
    ),
    row(
        Typing,
        &[ctrl('p'), ctrl('n')],
        Input,
        "the line above / below (at the edge: earlier / later messages)",
    ),
    row(Typing, &[ctrl('y')], Input, "put back what was last deleted"),
    row(Typing, &[ctrl('_')], Input, "undo (Alt+_ redoes)").keys("Ctrl+_"),
    row(
        Typing,
        &[ctrl('g')],
        Input,
        "edit the draft in $VISUAL / $EDITOR (at most 1 MiB comes back)",
    ),
    row(
        Typing,
        &[k(KeyCode::BackTab)],
        Do(Intent::EnterPanes),
        "to the panes (letters become commands; the box says so)",
    )
    .hint("Shift+Tab panes", Shown::Always)
    .action("panes"),
    // Not a text key: typed text stays text.
    row(
        Typing,
        &[k(KeyCode::F(2))],
        Do(Intent::InspectDecision),
        "the waiting decision's whole request in the inspector: a command the prompt cut to fit is there whole (Esc comes back)",
    )
    .hint(WHOLE_REQUEST_HINT, Shown::CutMark),
    row(
        Typing,
        &[k(KeyCode::Esc)],
        Do(Intent::Escape),
        "stays here; closes the \"while you were away\" digest; with an empty box while a turn runs, says how to cancel it",
    ),
    // Deciding: the prompt reads these.
    row(
        Deciding,
        &[c('y'), c('n')],
        Prompt,
        "approve / deny (a sensitive approval asks once more, and takes y only)",
    )
    .hint("y approve · n deny", Shown::Approving),
    row(
        Deciding,
        &[c('a'), c('d')],
        Prompt,
        "approve / deny AND add a rule allowing / denying this exact command (or path) to the session's rules: shows the whole rule and asks y first",
    )
    .hint("a allow always · d deny always", Shown::Approving),
    row(
        Deciding,
        &[],
        Prompt,
        "pick a question's option, then Enter answers with it",
    )
    .keys("1–9 / ↑ ↓")
    .hint("1–9 pick", Shown::Picking),
    row(
        Deciding,
        &[k(KeyCode::Enter)],
        Prompt,
        "answer with the picked option, or with the box's text",
    )
    .hint("Enter answer", Shown::EnterDecides),
    row(
        Deciding,
        &[c('f'), ctrl('f')],
        Prompt,
        "report the function call failed (a fixed sentence is sent)",
    )
    .hint("f failed", Shown::Failing),
    row(
        Deciding,
        &[],
        Ignore,
        "a key that decides nothing, pressed first: back to typing, as text",
    )
    .keys("other letters"),
    row(
        Deciding,
        &[k(KeyCode::Esc), k(KeyCode::Tab)],
        Do(Intent::FocusInput),
        "back to typing",
    )
    .hint("Esc type", Shown::Always),
    row(
        Deciding,
        &[k(KeyCode::BackTab)],
        Do(Intent::EnterPanes),
        "to the panes",
    ),
    // Not a letter: a sentence typed while deciding still decides nothing.
    row(
        Deciding,
        &[k(KeyCode::F(2))],
        Do(Intent::InspectDecision),
        "the whole request in the inspector (Esc comes back)",
    )
    .hint(WHOLE_REQUEST_HINT, Shown::CutMark),
    // After a decision.
    row(
        Decided,
        &[k(KeyCode::Tab)],
        Do(Intent::Decide),
        "the next decision, if one waits",
    )
    .hint("Tab next decision", Shown::Waiting),
    row(
        Decided,
        &[k(KeyCode::Esc)],
        Do(Intent::FocusInput),
        "back to typing",
    )
    .hint("Esc type", Shown::Always),
    row(
        Decided,
        &[k(KeyCode::BackTab)],
        Do(Intent::EnterPanes),
        "to the panes",
    ),
    row(
        Decided,
        &[],
        Ignore,
        "held, not sent: neither text nor another decision (Esc, then Ctrl+Y puts it back); the hold ends by itself 3 s after the decision or when its turn ends",
    )
    .keys("other keys"),
    // Panes.
    row(
        Panes,
        &[k(KeyCode::Up), c('k')],
        Do(Intent::Select(-1)),
        "Transcript, Events: select the entry above (the first press: the last one in view); Turn, Workspace: scroll",
    )
    .hint("↑↓ select", Shown::Always),
    row(
        Panes,
        &[k(KeyCode::Down), c('j')],
        Do(Intent::Select(1)),
        "select the entry below, or scroll",
    ),
    row(
        Panes,
        &[k(KeyCode::Tab)],
        Do(Intent::PaneNext),
        "the next pane",
    )
    .action("pane_next"),
    row(
        Panes,
        &[k(KeyCode::BackTab)],
        Do(Intent::PanePrev),
        "the previous pane",
    )
    .action("pane_prev"),
    row(
        Panes,
        &[c('[')],
        Do(Intent::SelectTurn { forward: false }),
        "select the message that starts the previous turn",
    )
    .hint("[ ] turns", Shown::Always),
    row(
        Panes,
        &[c(']')],
        Do(Intent::SelectTurn { forward: true }),
        "select the message that starts the next turn",
    ),
    row(
        Panes,
        &[c('!')],
        Do(Intent::NextError),
        "the next error, newest first (an error, a failed call or turn, a denial)",
    )
    .action("next_error"),
    row(
        Panes,
        &[k(KeyCode::Home), c('g')],
        Do(Intent::ScrollTop),
        "the top (then ↓ selects from the top)",
    )
    .action("top"),
    row(
        Panes,
        &[k(KeyCode::End), c('G')],
        Do(Intent::ScrollBottom),
        "follow the bottom",
    )
    .action("bottom"),
    row(
        Panes,
        &[c('e')],
        Do(Intent::ToggleDiff),
        "expand / collapse the selected (or nearest) diff, call or long message",
    )
    .hint("e expand", Shown::Always)
    .action("diff"),
    row(
        Panes,
        &[k(KeyCode::Enter)],
        Do(Intent::Activate),
        "expand the selected entry; inspect the selected event's whole JSON; nothing selected: back to typing",
    ),
    row(
        Panes,
        &[c('/')],
        Do(Intent::StartSearch),
        "search the whole session (an empty query; ↑ recalls the last)",
    )
    .hint("/ search", Shown::Always)
    .action("search"),
    row(
        Panes,
        &[c('n')],
        Do(Intent::SearchStep { older: true }),
        "select the next older match",
    )
    .action("search_older"),
    row(
        Panes,
        &[c('N')],
        Do(Intent::SearchStep { older: false }),
        "select the next newer match",
    )
    .action("search_newer"),
    row(
        Panes,
        &[c('c')],
        Do(Intent::Copy),
        "copy the selected entry or event (credentials redacted)",
    )
    .hint("c copy", Shown::Always)
    .action("copy"),
    row(
        Panes,
        &[c('o')],
        Do(Intent::OpenLink),
        "open the selected entry's web link",
    )
    .action("open_link"),
    row(Panes, &[c('z')], Do(Intent::ToggleZoom), "zoom the pane").action("zoom"),
    row(
        Panes,
        &[c('m')],
        Do(Intent::ToggleMouseCapture),
        "mouse capture off / on (off: the terminal selects text)",
    )
    .action("mouse"),
    row(
        Panes,
        &[c('T')],
        Do(Intent::NextTheme),
        "next theme: dark, light, high contrast, colour-blind (for this run; [theme] name keeps one)",
    )
    .action("theme"),
    row(
        Panes,
        &[c('d')],
        Do(Intent::ToggleDeltas),
        "Events: hide / show the text deltas",
    )
    .action("deltas"),
    row(
        Panes,
        &[],
        Do(Intent::StartEventFilter),
        "filter the Events pane by type (type:NAME)",
    )
    .keys("/ type:NAME")
    .action("filter"),
    row(
        Panes,
        &[c('p')],
        Do(Intent::TogglePreview),
        "publish / unpublish the preview (asks; y only)",
    ),
    row(
        Panes,
        &[c('M')],
        Do(Intent::CycleApprovalMode),
        "the session's approval mode: the next of auto, per_step, read_only, plan, from the next turn (asks; y only); the Workspace pane shows it and the rules",
    )
    .action("approval_mode"),
    row(
        Panes,
        &[c('X')],
        Do(Intent::RemoveNewestRule),
        "remove the session's newest permission rule, named first (asks; y only); any rule: R (or gobare-tui rules ID --remove N)",
    )
    .action("remove_rule"),
    row(
        Panes,
        &[c('R')],
        Do(Intent::OpenRules),
        "the session's rules in a list: remove or edit any one (the list sent is shown first; y only)",
    )
    .action("rules"),
    row(
        Panes,
        &[c('l')],
        Do(Intent::EditLabels),
        "the session's labels: edit key=value pairs, the set is shown before it is sent (y only)",
    )
    .action("labels"),
    row(
        Panes,
        &[c('C')],
        Do(Intent::PickModel),
        "switch the session's model: the organization's credentials and their models, the switch named first (y only)",
    )
    .action("model"),
    row(
        Panes,
        &[c('s')],
        Do(Intent::Shell),
        "a shell in the workspace over SSH ([shell] in the config)",
    )
    .action("shell"),
    row(
        Panes,
        &[c('x')],
        Do(Intent::Export),
        "export the session as Markdown to a new file here",
    )
    .action("export"),
    row(
        Panes,
        &[c('a')],
        Do(Intent::OpenArtifacts),
        "artifacts: Enter open · s save · S all · t the turn's tar",
    )
    .action("artifacts"),
    row(
        Panes,
        &[c('D')],
        Do(Intent::OpenChanges),
        "changes: the selected turn's files as one diff (the session's when no turn is selected): review, comment, send",
    )
    .action("changes"),
    row(
        Panes,
        &[c('f')],
        Do(Intent::OpenFiles),
        "workspace files: Enter open · / find · r new snapshot",
    )
    .action("files"),
    row(
        Panes,
        &[c('?')],
        Do(Intent::ToggleHelp),
        "this list",
    )
    .hint("? keys", Shown::Always),
    row(
        Panes,
        &[c('q')],
        Do(Intent::Quit),
        "quit (asks as Ctrl+C does)",
    )
    .hint("q quit", Shown::Always),
    row(
        Panes,
        &[k(KeyCode::Esc)],
        Do(Intent::Back),
        "clear the selection, then back to typing (a search kept here ends)",
    )
    .hint("Esc type", Shown::Always),
    row(Panes, &[c('i')], Do(Intent::FocusInput), "back to typing").action("focus_input"),
    // Confirming.
    row(
        Confirming,
        &[c('y')],
        Yes(true),
        "yes (Ctrl+C too, when quitting)",
    )
    .hint("y yes", Shown::Always),
    row(Confirming, &[c('n'), k(KeyCode::Esc)], Yes(false), "no").hint("n/Esc no", Shown::Always),
    row(
        Confirming,
        &[k(KeyCode::Enter)],
        KeyRoute::ExplainConfirm,
        "nothing: Enter is never yes (it says so)",
    ),
    row(
        Confirming,
        &[k(KeyCode::F(2))],
        Do(Intent::InspectDecision),
        "asked again before a sensitive approval (or a rule from an approval): its whole request in the inspector; Esc comes back to the question",
    )
    .hint(WHOLE_REQUEST_HINT, Shown::CutMark),
    row(
        Confirming,
        &[],
        KeyRoute::Decline,
        "no, and keys are held until Esc (a sentence typed here is not an answer)",
    )
    .keys("other letters"),
    // Search.
    doc(Search, "letters, Backspace", "the query, searched as typed"),
    doc(Search, "type:NAME", "filter the Events pane by type instead"),
    doc(
        Search,
        "↑ ↓",
        "older / newer match (↑ in an empty bar: the last query)",
    )
    .hint("↑↓ older/newer", Shown::Always),
    doc(
        Search,
        "Enter / Esc",
        "keep the search (n N select matches) / end it",
    )
    .hint("Enter keep · Esc end", Shown::Always),
    // Overlays.
    row(Viewing, &[ctrl('c')], Do(Intent::Quit), "quit (asks as everywhere)"),
    row(Viewing, &[ctrl('z')], Do(Intent::Suspend), "suspend (fg resumes)"),
    // A pager.
    row(PAGER, &[k(KeyCode::Esc), c('q')], View(ViewKey::Close), "close (back to the list it was opened from)")
        .hint("Esc close", Shown::Always),
    row(PAGER, &[k(KeyCode::Up), c('k')], View(ViewKey::Up), "scroll up a line")
        .hint("↑↓", Shown::Always),
    row(PAGER, &[k(KeyCode::Down), c('j')], View(ViewKey::Down), "scroll down a line"),
    row(PAGER, &[k(KeyCode::PageUp)], View(ViewKey::PageUp), "scroll up a page")
        .hint("PgUp PgDn", Shown::Always),
    row(PAGER, &[k(KeyCode::PageDown), c(' ')], View(ViewKey::PageDown), "scroll down a page"),
    row(PAGER, &[k(KeyCode::Home), c('g')], View(ViewKey::Top), "the first line")
        .hint("Home End", Shown::Always),
    row(PAGER, &[k(KeyCode::End), c('G')], View(ViewKey::Bottom), "the last line"),
    // The artifact list.
    row(ARTIFACTS, &[k(KeyCode::Esc), c('q')], View(ViewKey::Close), "close")
        .hint("Esc close", Shown::Always),
    row(ARTIFACTS, &[k(KeyCode::Up), c('k')], View(ViewKey::Up), "select the one above")
        .hint("↑↓", Shown::Always),
    row(ARTIFACTS, &[k(KeyCode::Down), c('j')], View(ViewKey::Down), "select the one below"),
    row(ARTIFACTS, &[k(KeyCode::PageUp)], View(ViewKey::PageUp), "a page up"),
    row(ARTIFACTS, &[k(KeyCode::PageDown)], View(ViewKey::PageDown), "a page down"),
    row(ARTIFACTS, &[k(KeyCode::Home), c('g')], View(ViewKey::Top), "the first"),
    row(ARTIFACTS, &[k(KeyCode::End), c('G')], View(ViewKey::Bottom), "the last"),
    row(ARTIFACTS, &[k(KeyCode::Enter)], View(ViewKey::Open), "open it (text in a pager)")
        .hint("Enter open", Shown::Always),
    row(ARTIFACTS, &[c('s')], View(ViewKey::Save), "save it to the download directory")
        .hint("s save", Shown::Always),
    row(ARTIFACTS, &[c('S')], View(ViewKey::SaveAll), "save them all")
        .hint("S save all", Shown::Always),
    row(ARTIFACTS, &[c('t')], View(ViewKey::SaveTurn), "save its turn's archive")
        .hint("t turn's archive", Shown::Always),
    row(OVERWRITE, &[c('y')], View(ViewKey::Yes), "overwrite the existing files")
        .hint("y overwrite", Shown::Always),
    row(OVERWRITE, &[c('n'), k(KeyCode::Esc)], View(ViewKey::No), "keep them (nothing is saved)")
        .hint("n keep", Shown::Always),
    doc(OVERWRITE, "any other key", "nothing: only y or n answers"),
    // The workspace's files.
    row(FILES, &[k(KeyCode::Esc), c('q')], View(ViewKey::Close), "close")
        .hint("Esc close", Shown::Always),
    row(FILES, &[k(KeyCode::Up), c('k')], View(ViewKey::Up), "select the one above")
        .hint("↑↓", Shown::Always),
    row(FILES, &[k(KeyCode::Down), c('j')], View(ViewKey::Down), "select the one below"),
    row(FILES, &[k(KeyCode::PageUp)], View(ViewKey::PageUp), "a page up"),
    row(FILES, &[k(KeyCode::PageDown)], View(ViewKey::PageDown), "a page down"),
    row(FILES, &[k(KeyCode::Home), c('g')], View(ViewKey::Top), "the first"),
    row(FILES, &[k(KeyCode::End), c('G')], View(ViewKey::Bottom), "the last"),
    row(FILES, &[k(KeyCode::Enter)], View(ViewKey::Open), "open a file in a pager; open or close a directory")
        .hint("Enter open", Shown::Always),
    row(FILES, &[k(KeyCode::Right), c('l')], View(ViewKey::Expand), "open the directory"),
    row(FILES, &[k(KeyCode::Left), c('h')], View(ViewKey::Collapse), "close the directory"),
    row(FILES, &[c('/')], View(ViewKey::Find), "find by name: letters are the name")
        .hint("/ find", Shown::Always),
    row(FILES, &[c('r')], View(ViewKey::Refresh), "take a new snapshot (it wakes a paused workspace)")
        .hint("r new snapshot", Shown::Always),
    row(FINDING, &[k(KeyCode::Esc)], View(ViewKey::StopFinding), "stop finding (the whole tree again)")
        .hint("Esc stop finding", Shown::Always),
    doc(FINDING, "letters, Backspace", "the name, found as typed")
        .hint("type a name", Shown::Always),
    row(FINDING, &[k(KeyCode::Up)], View(ViewKey::Up), "select the one above")
        .hint("↑↓", Shown::Always),
    row(FINDING, &[k(KeyCode::Down)], View(ViewKey::Down), "select the one below"),
    row(FINDING, &[k(KeyCode::PageUp)], View(ViewKey::PageUp), "a page up"),
    row(FINDING, &[k(KeyCode::PageDown)], View(ViewKey::PageDown), "a page down"),
    row(FINDING, &[k(KeyCode::Enter)], View(ViewKey::Open), "open what is selected")
        .hint("Enter open", Shown::Always),
    // The changes view.
    row(CHANGES, &[k(KeyCode::Esc), c('q')], View(ViewKey::Close), "close (a marked range is let go first)")
        .hint("Esc close", Shown::Always),
    row(CHANGES, &[k(KeyCode::Up), c('k')], View(ViewKey::Up), "the line above")
        .hint("↑↓", Shown::Always),
    row(CHANGES, &[k(KeyCode::Down), c('j')], View(ViewKey::Down), "the line below"),
    row(CHANGES, &[k(KeyCode::PageUp)], View(ViewKey::PageUp), "a page up"),
    row(CHANGES, &[k(KeyCode::PageDown)], View(ViewKey::PageDown), "a page down"),
    row(CHANGES, &[k(KeyCode::Home), c('g')], View(ViewKey::Top), "the file's first line"),
    row(CHANGES, &[k(KeyCode::End), c('G')], View(ViewKey::Bottom), "the file's last line"),
    row(CHANGES, &[c(']')], View(ViewKey::NextFile), "the next file")
        .hint("[ ] file", Shown::Always),
    row(CHANGES, &[c('[')], View(ViewKey::PrevFile), "the previous file"),
    row(CHANGES, &[c('n')], View(ViewKey::NextHunk), "the next hunk")
        .hint("n N hunk", Shown::Always),
    row(CHANGES, &[c('N')], View(ViewKey::PrevHunk), "the previous hunk"),
    row(CHANGES, &[c('s')], View(ViewKey::SideBySide), "side by side / unified (side by side by itself from 160 columns)")
        .hint("s side by side", Shown::Always),
    row(CHANGES, &[c('v')], View(ViewKey::Mark), "mark lines from here (↑↓ extend; v again lets go)")
        .hint("v mark", Shown::Always),
    row(CHANGES, &[c('V')], View(ViewKey::MarkHunk), "mark the whole hunk"),
    row(CHANGES, &[c('r')], View(ViewKey::Refresh), "read the changes again (a running turn goes on changing files)"),
    row(CHANGES, &[c('c')], View(ViewKey::Comment), "comment on the marked lines (or this one)")
        .hint("c comment", Shown::Always),
    row(CHANGES, &[c('S')], View(ViewKey::SendReview), "send the comments to the agent as one message (a steer while the turn runs; asks first)")
        .hint("S send review", Shown::Always),
    row(COMMENT, &[k(KeyCode::Enter)], View(ViewKey::Open), "keep the comment")
        .hint("Enter keep", Shown::Always),
    row(COMMENT, &[k(KeyCode::Esc)], View(ViewKey::StopFinding), "drop the comment")
        .hint("Esc drop", Shown::Always),
    doc(COMMENT, "letters, Backspace", "the comment, as typed"),
    row(SEND_REVIEW, &[c('y')], View(ViewKey::Yes), "send the review")
        .hint("y send", Shown::Always),
    row(SEND_REVIEW, &[c('n'), k(KeyCode::Esc)], View(ViewKey::No), "not now (the comments are kept)")
        .hint("n keep", Shown::Always),
    doc(SEND_REVIEW, "any other key", "nothing: only y or n answers"),
    // The session's rules, labels and model (each change shown whole and asked).
    row(RULES, &[k(KeyCode::Esc), c('q')], View(ViewKey::Close), "close").hint("Esc close", Shown::Always),
    row(RULES, &[k(KeyCode::Up), c('k')], View(ViewKey::Up), "select the rule above").hint("↑↓", Shown::Always),
    row(RULES, &[k(KeyCode::Down), c('j')], View(ViewKey::Down), "select the rule below"),
    row(RULES, &[k(KeyCode::Home), c('g')], View(ViewKey::Top), "the first"),
    row(RULES, &[k(KeyCode::End), c('G')], View(ViewKey::Bottom), "the last"),
    row(RULES, &[c('x'), k(KeyCode::Delete)], View(ViewKey::Remove), "remove the selected rule: the whole list that will be sent is shown, y sends it")
        .hint("x remove", Shown::Always),
    row(RULES, &[c('e'), k(KeyCode::Enter)], View(ViewKey::Edit), "edit the selected rule's command (or path, domain, tool) on a line; Enter shows the list with it and asks")
        .hint("e edit", Shown::Always),
    row(MODELS, &[k(KeyCode::Esc), c('q')], View(ViewKey::Close), "close").hint("Esc close", Shown::Always),
    row(MODELS, &[k(KeyCode::Up), c('k')], View(ViewKey::Up), "the model above").hint("↑↓", Shown::Always),
    row(MODELS, &[k(KeyCode::Down), c('j')], View(ViewKey::Down), "the model below"),
    row(MODELS, &[k(KeyCode::Home), c('g')], View(ViewKey::Top), "the first"),
    row(MODELS, &[k(KeyCode::End), c('G')], View(ViewKey::Bottom), "the last"),
    row(MODELS, &[k(KeyCode::Enter)], View(ViewKey::Open), "switch to the selected model: the switch is named and asked (keeps workspace and transcript)")
        .hint("Enter switch", Shown::Always),
    row(POLICY_LINE, &[k(KeyCode::Enter)], View(ViewKey::Open), "done: show what will be sent, and ask")
        .hint("Enter show", Shown::Always),
    row(POLICY_LINE, &[k(KeyCode::Esc)], View(ViewKey::No), "drop the edit (nothing is sent)")
        .hint("Esc drop", Shown::Always),
    doc(POLICY_LINE, "letters", "the text, as typed (Backspace erases, Ctrl+U clears)"),
    row(POLICY_ASK, &[c('y')], View(ViewKey::Yes), "send the change shown, as a person's action with its Idempotency-Key")
        .hint("y send", Shown::Always),
    row(POLICY_ASK, &[c('n'), k(KeyCode::Esc)], View(ViewKey::No), "not sent: back")
        .hint("n back", Shown::Always),
    row(POLICY_ASK, &[k(KeyCode::Up)], View(ViewKey::Up), "scroll up the list that will be sent, when it is longer than the box"),
    row(POLICY_ASK, &[k(KeyCode::Down)], View(ViewKey::Down), "scroll it down"),
    doc(POLICY_ASK, "any other key", "nothing: only y or n answers"),
    // Help.
    row(Help, &[k(KeyCode::Up), c('k')], Do(Intent::ScrollHelp(-1)), "scroll up"),
    row(Help, &[k(KeyCode::Down), c('j')], Do(Intent::ScrollHelp(1)), "scroll down"),
    row(Help, &[k(KeyCode::PageUp)], Do(Intent::ScrollHelp(-10)), "scroll up a page"),
    row(Help, &[k(KeyCode::PageDown)], Do(Intent::ScrollHelp(10)), "scroll down a page"),
    row(
        Help,
        &[k(KeyCode::Esc), k(KeyCode::F(1)), c('?'), c('q')],
        Do(Intent::ToggleHelp),
        "close",
    )
    .hint("Esc close", Shown::Always),
    row(Help, &[ctrl('c')], Do(Intent::Quit), "quit (asks as everywhere)"),
    // The fleet.
    row(F_ANY, &[ctrl('c'), ctrl('q')], F(FleetKey::Quit), "leave"),
    row(F_LIST, &[k(KeyCode::Enter)], F(FleetKey::Open), "open the session; Ctrl+O comes back")
        .hint("Enter open", Shown::Always),
    row(F_LIST, &[c('i')], F(FleetKey::Inbox), "the decision inbox: every approval, question and function call waiting, soonest deadline first")
        .hint("i inbox", Shown::Always),
    row(F_LIST, &[k(KeyCode::Up), c('k')], F(FleetKey::Up), "the row above (rows hold still while the selection moves)"),
    row(F_LIST, &[k(KeyCode::Down), c('j')], F(FleetKey::Down), "the row below"),
    row(F_LIST, &[k(KeyCode::PageUp)], F(FleetKey::PageUp), "a page up"),
    row(F_LIST, &[k(KeyCode::PageDown)], F(FleetKey::PageDown), "a page down"),
    row(F_LIST, &[k(KeyCode::Home), c('g')], F(FleetKey::Top), "the first row"),
    row(F_LIST, &[k(KeyCode::End), c('G')], F(FleetKey::Bottom), "the last row"),
    row(F_LIST, &[c('/')], F(FleetKey::Filter), "filter: typed text is text, Esc clears")
        .hint("/ filter", Shown::Always),
    row(F_LIST, &[k(KeyCode::Esc)], F(FleetKey::ClearFilter), "close the \"while you were away\" digest, else clear the filter"),
    row(F_LIST, &[c('n')], F(FleetKey::New), "create a session and open it")
        .hint("n new", Shown::Always),
    row(F_LIST, &[c('r')], F(FleetKey::Rename), "rename: edit the title, Enter saves")
        .hint("r rename", Shown::Always),
    row(F_LIST, &[c('d')], F(FleetKey::Delete), "delete (asks y / n first)")
        .hint("d delete", Shown::Always),
    row(F_LIST, &[c('f')], F(FleetKey::Fork), "fork (asks y / n first; the copy's title says fork)")
        .hint("f fork", Shown::Always),
    row(F_LIST, &[c('s')], F(FleetKey::Sort), "sort within each band: created, name, last activity (the title says which)")
        .hint("s sort", Shown::Always),
    row(F_LIST, &[c('T')], F(FleetKey::Theme), "next theme: dark, light, high contrast, colour-blind (for this run)"),
    row(F_LIST, &[k(KeyCode::F(3))], F(FleetKey::NextDecision), "the inbox, at the soonest deadline"),
    row(F_LIST, &[c('D')], F(FleetKey::Changes), "open the session with its changes view (every file it changed, as one diff)"),
    row(F_LIST, &[c('l')], F(FleetKey::Labels), "labels: edit the session's key=value labels, Enter saves (shown in the row as [key=value])"),
    row(F_LIST, &[c('M')], F(FleetKey::Mode), "set the approval mode of every session shown (the filter narrows them): asks, naming how many; M again picks the next mode"),
    row(F_LIST, &[k(KeyCode::F(1)), c('?')], F(FleetKey::Help), "the fleet's keys (this list)")
        .hint("F1 keys", Shown::Always),
    row(F_LIST, &[c('q')], F(FleetKey::Quit), "leave")
        .hint("q quit", Shown::Always),
    doc(F_FILTER, "letters, Backspace", "the filter, applied as typed"),
    row(F_FILTER, &[k(KeyCode::Backspace)], F(FleetKey::Erase), "erase a letter").keys("Backspace"),
    row(F_FILTER, &[k(KeyCode::Enter)], F(FleetKey::Done), "keep the filter, back to the list"),
    row(F_FILTER, &[k(KeyCode::Esc)], F(FleetKey::Cancel), "clear it, back to the list"),
    row(F_FILTER, &[k(KeyCode::Up)], F(FleetKey::Up), "the row above"),
    row(F_FILTER, &[k(KeyCode::Down)], F(FleetKey::Down), "the row below"),
    row(F_FILTER, &[k(KeyCode::F(1))], F(FleetKey::Help), "the fleet's keys"),
    doc(F_RENAME, "letters, Backspace", "the title (it starts as it is)"),
    row(F_RENAME, &[k(KeyCode::Backspace)], F(FleetKey::Erase), "erase a letter").keys("Backspace"),
    row(F_RENAME, &[ctrl('u')], F(FleetKey::EraseAll), "clear the title"),
    row(F_RENAME, &[k(KeyCode::Enter)], F(FleetKey::Done), "save it (empty: no title)"),
    row(F_RENAME, &[k(KeyCode::Esc)], F(FleetKey::Cancel), "keep the old title"),
    row(F_RENAME, &[k(KeyCode::F(1))], F(FleetKey::Help), "the fleet's keys"),
    doc(F_LABELS, "letters, Backspace", "the labels, key=value with spaces between (they start as they are)"),
    row(F_LABELS, &[k(KeyCode::Backspace)], F(FleetKey::Erase), "erase a letter").keys("Backspace"),
    row(F_LABELS, &[ctrl('u')], F(FleetKey::EraseAll), "clear the labels"),
    row(F_LABELS, &[k(KeyCode::Enter)], F(FleetKey::Done), "save them (empty: no labels)"),
    row(F_LABELS, &[k(KeyCode::Esc)], F(FleetKey::Cancel), "keep the old labels"),
    row(F_LABELS, &[k(KeyCode::F(1))], F(FleetKey::Help), "the fleet's keys"),
    row(F_CONFIRM, &[c('y')], F(FleetKey::Yes), "yes: delete, fork or set the mode"),
    row(F_CONFIRM, &[c('M')], F(FleetKey::Mode), "setting a mode: the next mode instead"),
    row(F_CONFIRM, &[c('n'), k(KeyCode::Esc)], F(FleetKey::No), "no"),
    row(F_CONFIRM, &[k(KeyCode::F(1))], F(FleetKey::Help), "the fleet's keys"),
    doc(F_CONFIRM, "any other key", "nothing: the question stays"),
    row(F_HELP, &[k(KeyCode::Esc), k(KeyCode::F(1)), c('?'), c('q')], F(FleetKey::CloseHelp), "close"),
    row(F_HELP, &[k(KeyCode::Up), c('k')], F(FleetKey::Up), "scroll up"),
    row(F_HELP, &[k(KeyCode::Down), c('j')], F(FleetKey::Down), "scroll down"),
    row(F_HELP, &[k(KeyCode::PageUp)], F(FleetKey::PageUp), "scroll up a page"),
    row(F_HELP, &[k(KeyCode::PageDown)], F(FleetKey::PageDown), "scroll down a page"),
    // The decision inbox.
    row(INBOX, &[k(KeyCode::Up), c('k')], F(FleetKey::Up), "the one above")
        .hint("↑↓", Shown::Always),
    row(INBOX, &[k(KeyCode::Down), c('j')], F(FleetKey::Down), "the one below"),
    row(INBOX, &[k(KeyCode::PageUp)], F(FleetKey::PageUp), "a page up"),
    row(INBOX, &[k(KeyCode::PageDown)], F(FleetKey::PageDown), "a page down"),
    row(INBOX, &[k(KeyCode::Home), c('g')], F(FleetKey::Top), "the soonest"),
    row(INBOX, &[k(KeyCode::End), c('G')], F(FleetKey::Bottom), "the last"),
    row(INBOX, &[k(KeyCode::Tab)], F(FleetKey::Decide), "decide the selected one here: its keys answer only in this visible mode")
        .hint("Tab decide", Shown::Always),
    row(INBOX, &[k(KeyCode::Enter), c('o')], F(FleetKey::Open), "open its session (Ctrl+O comes back here)")
        .hint("Enter/o open", Shown::Always),
    row(INBOX, &[k(KeyCode::F(3))], F(FleetKey::NextDecision), "the next one, soonest deadline first")
        .hint("F3 next", Shown::Always),
    row(INBOX, &[k(KeyCode::Esc), c('i')], F(FleetKey::Back), "back to the fleet, or to the session F3 was pressed in")
        .hint(INBOX_BACK_HINT, Shown::Always),
    row(INBOX, &[k(KeyCode::F(1)), c('?')], F(FleetKey::Help), "the fleet's keys (this list)"),
    row(DECIDING, &[c('y'), c('n')], F(FleetKey::Answer), "approve / deny (a sensitive approval asks once more, and takes y only)")
        .hint(INBOX_APPROVE_HINT, Shown::Always),
    row(DECIDING, &[c('1'), c('2'), c('3'), c('4'), c('5'), c('6'), c('7'), c('8'), c('9'), k(KeyCode::Up), k(KeyCode::Down)], F(FleetKey::Answer), "pick a question's option, then Enter answers with it")
        .keys("1–9 / ↑ ↓"),
    row(DECIDING, &[k(KeyCode::Enter)], F(FleetKey::Answer), "answer with the picked option"),
    row(DECIDING, &[c('f'), ctrl('f')], F(FleetKey::Answer), "report the function call failed (a fixed sentence is sent)"),
    row(DECIDING, &[c('t')], F(FleetKey::Reply), "type an answer: a question's own words, a function's result")
        .hint(INBOX_TYPE_HINT, Shown::Always),
    row(DECIDING, &[], F(FleetKey::Reply), "an approval: type a note, which y or n then sends after the decision as a steer (as a session sends the box's text)")
        .keys("t")
        .hint(INBOX_NOTE_HINT, Shown::Always),
    row(DECIDING, &[k(KeyCode::Esc), k(KeyCode::Tab)], F(FleetKey::Back), "back to the list")
        .hint("Esc list", Shown::Always),
    row(DECIDING, &[k(KeyCode::F(3))], F(FleetKey::NextDecision), "the next one (back to the list, at it)"),
    row(DECIDING, &[k(KeyCode::F(1))], F(FleetKey::Help), "the fleet's keys"),
    doc(DECIDING, "other keys", "nothing"),
    row(SENSITIVE, &[c('y')], F(FleetKey::Yes), "approve the sensitive action")
        .hint("y approve", Shown::Always),
    row(SENSITIVE, &[c('n'), k(KeyCode::Esc)], F(FleetKey::No), "not approved: back to deciding")
        .hint("n/Esc back", Shown::Always),
    doc(SENSITIVE, "any other key", "nothing: Enter is never yes (it says so)"),
    row(REPLY, &[k(KeyCode::Enter)], F(FleetKey::Done), "send the answer")
        .hint("Enter send", Shown::Always),
    row(REPLY, &[k(KeyCode::Esc)], F(FleetKey::Cancel), "drop it, back to deciding")
        .hint("Esc drop", Shown::Always),
    row(REPLY, &[k(KeyCode::Backspace)], F(FleetKey::Erase), "erase a letter").keys("Backspace"),
    row(REPLY, &[ctrl('u')], F(FleetKey::EraseAll), "clear it"),
    doc(REPLY, "letters", "the answer, as typed"),
    row(NOTE, &[k(KeyCode::Enter)], F(FleetKey::Done), "keep the note, back to deciding: y or n sends it after the decision")
        .hint("Enter keep", Shown::Always),
    row(NOTE, &[k(KeyCode::Esc)], F(FleetKey::Cancel), "drop the note, back to deciding")
        .hint("Esc drop", Shown::Always),
    row(NOTE, &[k(KeyCode::Backspace)], F(FleetKey::Erase), "erase a letter").keys("Backspace"),
    row(NOTE, &[ctrl('u')], F(FleetKey::EraseAll), "clear it"),
    doc(NOTE, "letters", "the note, as typed"),
];

#[cfg(test)]
mod tests;
