//! The one key table: every binding is (scope, keys, where the key goes, label, hint). The
//! router ([`super::keys::route`]) matches keys against it, the input box's title hints, the
//! key list (F1) and the README's key tables are drawn from it, and `[keys]` in the config
//! adds keys to its named rows. A key described anywhere else is a key that can drift.

use super::intent::Intent;
use crate::ui::mode::Mode;
use crossterm::event::{KeyCode, KeyModifiers};

/// Where a key goes: straight to an intent, or to the widget that has the keys.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyRoute {
    Do(Intent),
    /// The input box (typing).
    Input,
    /// The required-action prompt (deciding).
    Prompt,
    /// The search being typed.
    Search,
    /// The answer to the confirmation shown: yes or no.
    Confirm(bool),
    /// Enter on a confirmation: never yes; the status bar says what is.
    ExplainConfirm,
    /// Another letter on a confirmation: no, and what follows is held.
    Decline,
    /// After a decision: held, with a word on how to go on.
    Held,
    /// The open overlay (pager, list, inspector).
    Overlay,
    Ignore,
}

/// The table's scope for a mode.
pub(crate) fn scope_of(mode: &Mode) -> Scope {
    match mode {
        Mode::Typing => Scope::Typing,
        Mode::Navigating => Scope::Panes,
        Mode::Deciding => Scope::Deciding,
        Mode::Decided => Scope::Decided,
        Mode::Confirming(_) => Scope::Confirming,
        Mode::Help => Scope::Help,
        Mode::Search => Scope::Search,
        Mode::Overlay => Scope::Viewing,
    }
}

/// Which mode a binding acts in (or, for the list-only scopes, which screen's widget
/// reads it: the table still says what those keys do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Typing, the panes, deciding and after a decision (not over a question, the search bar,
    /// the key list or an overlay, which take every key).
    Everywhere,
    Typing,
    Deciding,
    Decided,
    Panes,
    Confirming,
    Search,
    /// Artifacts, files, pagers and the inspector (their widgets read these keys).
    Viewing,
    Help,
    /// The fleet (Ctrl+O): its own screen.
    Fleet,
}

impl Scope {
    /// The heading of the scope's rows in the key list and the README.
    pub(crate) fn heading(self) -> &'static str {
        match self {
            Scope::Everywhere => "Everywhere",
            Scope::Typing => "Typing (the input box): every other key is text",
            Scope::Deciding => "Deciding (Tab while the agent waits on you)",
            Scope::Decided => "After a decision (keys are held, not text)",
            Scope::Panes => "Panes (Shift+Tab): letters are commands, the box says so",
            Scope::Confirming => "Confirming (a question in the input area)",
            Scope::Search => "Search (/ in the panes)",
            Scope::Viewing => "Artifacts (a), files (f), pagers",
            Scope::Help => "This list",
            Scope::Fleet => "Fleet (Ctrl+O): letters are commands",
        }
    }

    /// The README's short name of the scope (first column of its key table).
    pub(crate) fn short(self) -> &'static str {
        match self {
            Scope::Everywhere => "everywhere",
            Scope::Typing => "typing (the box)",
            Scope::Deciding => "deciding (Tab)",
            Scope::Decided => "after a decision",
            Scope::Panes => "panes (Shift+Tab)",
            Scope::Confirming => "confirming",
            Scope::Search => "search (`/`)",
            Scope::Viewing => "artifacts, files, pager",
            Scope::Help => "help (F1)",
            Scope::Fleet => "fleet",
        }
    }

    pub(crate) const ALL: [Scope; 10] = [
        Scope::Everywhere,
        Scope::Typing,
        Scope::Deciding,
        Scope::Decided,
        Scope::Panes,
        Scope::Confirming,
        Scope::Search,
        Scope::Viewing,
        Scope::Help,
        Scope::Fleet,
    ];
}

/// One key with its modifiers (Shift is part of the character: `G`, `N`, `?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chord {
    pub(crate) code: KeyCode,
    pub(crate) mods: KeyModifiers,
}

impl Chord {
    pub(crate) const fn plain(code: KeyCode) -> Chord {
        Chord {
            code,
            mods: KeyModifiers::NONE,
        }
    }

    /// Whether a key pressed with `mods` is this chord. Shift is ignored on characters
    /// (terminals report `G` with or without it) and on BackTab (which is Shift+Tab).
    pub(crate) fn matches(&self, code: KeyCode, mods: KeyModifiers) -> bool {
        let ignore_shift = matches!(code, KeyCode::Char(_) | KeyCode::BackTab);
        let mask = if ignore_shift {
            KeyModifiers::CONTROL | KeyModifiers::ALT
        } else {
            KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT
        };
        self.code == code && (self.mods & mask) == (mods & mask)
    }

    /// How the chord is written: `Ctrl+C`, `Alt+B`, `Shift+Tab`, `↑`, `PgUp`, `F1`, `y`.
    pub(crate) fn label(&self) -> String {
        let mut out = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            out.push_str("Ctrl+");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            out.push_str("Alt+");
        }
        if self.mods.contains(KeyModifiers::SHIFT) && !matches!(self.code, KeyCode::BackTab) {
            out.push_str("Shift+");
        }
        let name: String = match self.code {
            KeyCode::Char(' ') => "Space".into(),
            KeyCode::Char(c) if self.mods.contains(KeyModifiers::CONTROL) => {
                c.to_ascii_uppercase().to_string()
            }
            KeyCode::Char(c) if self.mods.contains(KeyModifiers::ALT) => {
                c.to_ascii_uppercase().to_string()
            }
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift+Tab".into(),
            KeyCode::Backspace => "Backspace".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        out.push_str(&name);
        out
    }
}

/// When a binding's hint shows in the input box's title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shown {
    Always,
    /// Only while a required action waits.
    Waiting,
    /// Only while a turn runs.
    Running,
    /// Only while Enter answers the waiting question or function call.
    EnterAnswers,
    /// Only while Enter sends a message.
    EnterSends,
}

/// One row of the table.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub(crate) scope: Scope,
    /// The keys that match; empty for a row that only describes (keys a widget reads whose
    /// text `keys` gives, such as a range of digits).
    pub(crate) chords: &'static [Chord],
    /// Where a matching key goes.
    pub(crate) route: KeyRoute,
    /// What it does, for the key list and the README.
    pub(crate) label: &'static str,
    /// The few words in the input box's title, if it is shown there, and when.
    pub(crate) hint: Option<(&'static str, Shown)>,
    /// Its name under `[keys]` in the config, if it can be given more keys.
    pub(crate) action: Option<&'static str>,
    /// The keys as written, where the chords alone would not say it.
    pub(crate) keys: Option<&'static str>,
}

impl Binding {
    /// The keys as the key list and README write them.
    pub(crate) fn keys_label(&self) -> String {
        if let Some(keys) = self.keys {
            return keys.to_string();
        }
        self.chords
            .iter()
            .map(Chord::label)
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

const fn k(code: KeyCode) -> Chord {
    Chord::plain(code)
}

const fn c(ch: char) -> Chord {
    Chord::plain(KeyCode::Char(ch))
}

const fn ctrl(ch: char) -> Chord {
    Chord {
        code: KeyCode::Char(ch),
        mods: KeyModifiers::CONTROL,
    }
}

const fn alt(ch: char) -> Chord {
    Chord {
        code: KeyCode::Char(ch),
        mods: KeyModifiers::ALT,
    }
}

const fn with(code: KeyCode, mods: KeyModifiers) -> Chord {
    Chord { code, mods }
}

/// A row that routes.
const fn row(
    scope: Scope,
    chords: &'static [Chord],
    route: KeyRoute,
    label: &'static str,
) -> Binding {
    Binding {
        scope,
        chords,
        route,
        label,
        hint: None,
        action: None,
        keys: None,
    }
}

impl Binding {
    const fn hint(mut self, words: &'static str, shown: Shown) -> Binding {
        self.hint = Some((words, shown));
        self
    }

    const fn action(mut self, name: &'static str) -> Binding {
        self.action = Some(name);
        self
    }

    const fn keys(mut self, keys: &'static str) -> Binding {
        self.keys = Some(keys);
        self
    }
}

const fn doc(scope: Scope, keys: &'static str, label: &'static str) -> Binding {
    row(scope, &[], KeyRoute::Ignore, label).keys(keys)
}

use KeyRoute::{Confirm as Yes, Do, Ignore, Input, Prompt};
use Scope::*;

/// Every key of every mode, in the order the key list shows them.
pub(crate) const TABLE: &[Binding] = &[
    // Everywhere.
    row(
        Everywhere,
        &[ctrl('c')],
        Do(Intent::Quit),
        "quit: at once when nothing would be lost; asks when a turn runs, a decision or a draft waits, or the demo's sessions would end (Ctrl+C again or y quits)",
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
    row(
        Typing,
        &[k(KeyCode::Tab)],
        Do(Intent::Decide),
        "to the waiting decision (only there: with nothing waiting it says so)",
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
        "edit the draft in $VISUAL / $EDITOR",
    ),
    row(
        Typing,
        &[k(KeyCode::BackTab)],
        Do(Intent::EnterPanes),
        "to the panes (letters become commands; the box says so)",
    )
    .hint("Shift+Tab panes", Shown::Always)
    .action("panes"),
    row(
        Typing,
        &[k(KeyCode::Esc)],
        Do(Intent::Escape),
        "stays here; with an empty box while a turn runs, says how to cancel it",
    ),
    // Deciding: the prompt reads these.
    row(
        Deciding,
        &[c('y'), c('n')],
        Prompt,
        "approve / deny (a sensitive approval asks once more, and takes y only)",
    )
    .hint("y approve · n deny", Shown::Always),
    row(
        Deciding,
        &[],
        Prompt,
        "pick a question's option, then Enter answers with it",
    )
    .keys("1–9 / ↑ ↓"),
    row(
        Deciding,
        &[k(KeyCode::Enter)],
        Prompt,
        "answer with the picked option, or with the box's text",
    ),
    row(
        Deciding,
        &[c('f'), ctrl('f')],
        Prompt,
        "report the function call failed (a fixed sentence is sent)",
    ),
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
        "held, not sent: neither text nor another decision (Esc, then Ctrl+Y puts it back)",
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
        "clear the selection, then back to typing",
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
    doc(
        Viewing,
        "↑ ↓ j k · PgUp PgDn · Home End",
        "move or scroll",
    ),
    doc(
        Viewing,
        "Enter · Esc / q",
        "open · close (a file opened from a list goes back to it)",
    )
    .hint("Esc close", Shown::Always),
    doc(
        Viewing,
        "y / n",
        "overwrite an existing file / keep it (only when asked)",
    ),
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
    doc(
        Fleet,
        "↑ ↓ j k, Home End",
        "move (the selection stays on its session)",
    ),
    doc(Fleet, "Enter", "open the session; Ctrl+O comes back"),
    doc(Fleet, "n", "create a session and open it"),
    doc(Fleet, "r", "rename: edit the title (Ctrl+U clears), Enter saves"),
    doc(Fleet, "d · f", "delete · fork (each asks y / n first)"),
    doc(Fleet, "/", "filter: typed text is text, Esc clears"),
    doc(Fleet, "F1 / ?", "the fleet's keys (this list)"),
    doc(Fleet, "q · Ctrl+C", "leave"),
];

/// The words of the input box's title for `scope` in the situation given.
pub(crate) fn title(scope: Scope, name: &str, situation: Situation) -> String {
    let mut t = format!(" {name}");
    // The way back first: a narrow box cuts the title from its end.
    let rows = TABLE.iter().filter(|b| b.scope == scope);
    let (back, rest): (Vec<&Binding>, Vec<&Binding>) =
        rows.partition(|b| b.hint.is_some_and(|(w, _)| w.starts_with("Esc")));
    for b in back.into_iter().chain(rest) {
        let Some((words, shown)) = b.hint else {
            continue;
        };
        let show = match shown {
            Shown::Always => true,
            Shown::Waiting => situation.waiting,
            Shown::Running => situation.running,
            Shown::EnterAnswers => situation.enter_answers,
            Shown::EnterSends => !situation.enter_answers,
        };
        if show {
            t.push_str(" · ");
            t.push_str(words);
        }
    }
    if scope == Scope::Typing {
        // Reached from every mode but the overlays: the key list.
        t.push_str(" · F1 keys");
    }
    t.push(' ');
    t
}

/// The input box's title for `mode`: its name and its keys. `pane` names the pane that has
/// the keys in the panes.
pub(crate) fn mode_title(mode: &Mode, pane: &str, situation: Situation) -> String {
    let scope = scope_of(mode);
    let name = match mode {
        Mode::Typing => "Typing".to_string(),
        Mode::Navigating => format!("Panes · {pane}"),
        Mode::Deciding => "Deciding".to_string(),
        Mode::Decided => "Decided".to_string(),
        Mode::Confirming(_) => "Confirm".to_string(),
        Mode::Help => "Keys".to_string(),
        Mode::Search => "Search".to_string(),
        Mode::Overlay => "Viewing".to_string(),
    };
    title(scope, &name, situation)
}

/// The status bar's word on where keys go: in the panes, which pane has them.
pub(crate) fn status_hint(mode: &Mode, pane: &str) -> (String, bool) {
    if mode.pane_has_keys() {
        return (format!("keys → {pane} pane · Esc to type"), true);
    }
    let key = |scope: Scope, intent: Intent| {
        TABLE
            .iter()
            .find(|b| b.scope == scope && b.route == KeyRoute::Do(intent.clone()))
            .map(Binding::keys_label)
            .unwrap_or_default()
    };
    (
        format!(
            "{} panes · {} keys · {} quit",
            key(Scope::Typing, Intent::EnterPanes),
            key(Scope::Everywhere, Intent::ToggleHelp),
            key(Scope::Everywhere, Intent::Quit)
        ),
        false,
    )
}

/// What the title's conditional hints depend on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Situation {
    pub(crate) waiting: bool,
    pub(crate) running: bool,
    pub(crate) enter_answers: bool,
}

/// The key list's rows: a heading row (empty keys) per scope, then its bindings.
pub(crate) fn help_rows() -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for scope in Scope::ALL {
        rows.push((String::new(), scope.heading().to_string()));
        for b in TABLE.iter().filter(|b| b.scope == scope) {
            rows.push((b.keys_label(), b.label.to_string()));
        }
    }
    rows
}

/// The key list of one screen of its own (the fleet): its scope's rows under its heading.
pub(crate) fn help_rows_of(scope: Scope) -> Vec<(String, String)> {
    let mut rows = vec![(String::new(), scope.heading().to_string())];
    rows.extend(
        TABLE
            .iter()
            .filter(|b| b.scope == scope)
            .map(|b| (b.keys_label(), b.label.to_string())),
    );
    rows
}

/// The README's key table (Markdown), generated; a test compares it with the README.
#[cfg(test)]
pub(crate) fn readme_table() -> String {
    let mut out = String::from("| Mode | Key | |\n| --- | --- | --- |\n");
    for scope in Scope::ALL {
        let mut first = true;
        for b in TABLE.iter().filter(|b| b.scope == scope) {
            let mode = if first { scope.short() } else { "" };
            first = false;
            let keys = b.keys_label().replace('|', "\\|");
            out.push_str(&format!("| {mode} | {keys} | {} |\n", b.label));
        }
    }
    out
}

/// The `[keys]` action names, in table order.
pub(crate) fn action_names() -> Vec<&'static str> {
    TABLE.iter().filter_map(|b| b.action).collect()
}

#[cfg(test)]
mod tests;
