//! The terminal's answers to the app's questions that come after their wait (ssh, mosh, a
//! slow multiplexer), recognised in the keys crossterm makes of them and swallowed.
//!
//! crossterm reads the DA1 and cursor position answers (`ESC [ ? … c`, `ESC [ … R`) as events
//! of its own that never reach the app; an OSC answer (`ESC ] 11 ; rgb:… BEL` or `… ESC \`)
//! it does not know, and hands over as Alt+], the characters of its text, and Ctrl+G (BEL)
//! or Alt+\ (ST). Here such a run is taken out of the keys: Alt+] followed by digits and `;`
//! opens an answer (no person types that), its text and terminator are dropped. Alt+] and
//! digits alone are held until the next key shows what they were, or [`HOLD`] has passed,
//! and then given on unchanged: a person's keys mean what they meant.

use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// How long Alt+] (and digits after it) wait for the rest of an answer. A terminal writes
/// its answer at once, so the rest is already read with it; a person's Alt+] is given on
/// after this at the latest.
pub(crate) const HOLD: Duration = Duration::from_millis(100);

/// How long an answer's text may take to end: past this, an answer whose end was lost stops
/// swallowing keys.
const ANSWER_MAX_TIME: Duration = Duration::from_secs(1);

/// The longest answer text taken (an OSC 11 answer is about 25 characters).
const ANSWER_MAX_CHARS: usize = 512;

/// The most digits of an OSC number (`11`, `4`, `104`).
const NUMBER_MAX_DIGITS: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading keys as keys.
    Keys,
    /// Alt+] and `digits` digits after it, held.
    Opening { digits: usize },
    /// Inside an answer's text, `chars` of it read; `escaped` after an ESC read as Esc.
    Text { chars: usize, escaped: bool },
}

/// Keys in, keys out, terminal answers taken out.
#[derive(Debug)]
pub(crate) struct LateAnswers {
    state: State,
    /// The keys held while an answer may be opening.
    held: Vec<Event>,
    /// When the current opening or answer began.
    since: Instant,
    /// Answers swallowed so far (for the log).
    swallowed: u64,
}

impl Default for LateAnswers {
    fn default() -> Self {
        LateAnswers {
            state: State::Keys,
            held: Vec::new(),
            since: Instant::now(),
            swallowed: 0,
        }
    }
}

impl LateAnswers {
    /// `event`, read at `now`: the events to hand on, in order (none while it is held or
    /// swallowed; held ones before it when it shows they were keys).
    pub(crate) fn take(&mut self, event: Event, now: Instant) -> Vec<Event> {
        let Event::Key(key) = event else {
            // Resizes, focus, mouse and pastes are never part of an answer's text.
            return vec![event];
        };
        if key.kind != KeyEventKind::Press {
            return self.keys(event);
        }
        match self.state {
            State::Keys => self.read_key(event, key, now),
            State::Opening { digits } => match key.code {
                KeyCode::Char('0'..='9')
                    if plain(&key) && digits < NUMBER_MAX_DIGITS && self.in_time(now, HOLD) =>
                {
                    self.held.push(event);
                    self.state = State::Opening { digits: digits + 1 };
                    Vec::new()
                }
                KeyCode::Char(';') if plain(&key) && digits > 0 && self.in_time(now, HOLD) => {
                    // `ESC ] Ps ;`: an answer. What was held was its start.
                    self.held.clear();
                    self.state = State::Text {
                        chars: 0,
                        escaped: false,
                    };
                    Vec::new()
                }
                _ => {
                    let mut out = self.let_go();
                    out.extend(self.read_key(event, key, now));
                    out
                }
            },
            State::Text { chars, escaped } => {
                if !self.in_time(now, ANSWER_MAX_TIME) {
                    self.state = State::Keys;
                    return self.read_key(event, key, now);
                }
                let ends = match key.code {
                    // BEL, as crossterm reads it.
                    KeyCode::Char('g') => key.modifiers == KeyModifiers::CONTROL,
                    // ST: `ESC \` read at once, or ESC and `\` apart.
                    KeyCode::Char('\\') => key.modifiers == KeyModifiers::ALT || escaped,
                    _ => false,
                };
                if ends {
                    self.state = State::Keys;
                    self.swallowed += 1;
                    tracing::debug!(answers = self.swallowed, "a late terminal answer dropped");
                    return Vec::new();
                }
                let text = match key.code {
                    KeyCode::Char(c) => c.is_ascii_graphic() && plain(&key),
                    KeyCode::Esc => {
                        self.state = State::Text {
                            chars,
                            escaped: true,
                        };
                        return Vec::new();
                    }
                    _ => false,
                };
                if text && chars < ANSWER_MAX_CHARS {
                    self.state = State::Text {
                        chars: chars + 1,
                        escaped: false,
                    };
                    Vec::new()
                } else {
                    // Not an answer's text after all (or a runaway one): keys again.
                    self.state = State::Keys;
                    self.read_key(event, key, now)
                }
            }
        }
    }

    /// When the held keys are due to be given on, if any are held.
    pub(crate) fn release_at(&self) -> Option<Instant> {
        matches!(self.state, State::Opening { .. }).then(|| self.since + HOLD)
    }

    /// The held keys, once [`release_at`](Self::release_at) has passed at `now`.
    pub(crate) fn released(&mut self, now: Instant) -> Vec<Event> {
        match self.release_at() {
            Some(at) if at <= now => self.let_go(),
            _ => Vec::new(),
        }
    }

    /// `key` read as a key: Alt+] may open an answer and is held; anything else is given on.
    fn read_key(&mut self, event: Event, key: KeyEvent, now: Instant) -> Vec<Event> {
        if key.code == KeyCode::Char(']') && key.modifiers == KeyModifiers::ALT {
            self.state = State::Opening { digits: 0 };
            self.since = now;
            self.held.push(event);
            return Vec::new();
        }
        self.keys(event)
    }

    fn keys(&mut self, event: Event) -> Vec<Event> {
        let mut out = self.let_go();
        out.push(event);
        out
    }

    fn let_go(&mut self) -> Vec<Event> {
        if matches!(self.state, State::Opening { .. }) {
            self.state = State::Keys;
        }
        std::mem::take(&mut self.held)
    }

    fn in_time(&self, now: Instant, within: Duration) -> bool {
        now.saturating_duration_since(self.since) <= within
    }
}

/// A character typed as itself (capitals come with Shift).
fn plain(key: &KeyEvent) -> bool {
    (key.modifiers - KeyModifiers::SHIFT).is_empty()
}

#[cfg(test)]
mod tests;
