//! The four panes by name: which one has the keys (Shift+Tab moves it, a key focuses one),
//! as the key table and the intents name them; the screen draws them.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Pane {
    #[default]
    Transcript,
    Events,
    Turn,
    Workspace,
}

impl Pane {
    pub const ALL: [Pane; 4] = [Pane::Transcript, Pane::Events, Pane::Turn, Pane::Workspace];

    pub(crate) fn title(self) -> &'static str {
        match self {
            Pane::Transcript => "Transcript",
            Pane::Events => "Events",
            Pane::Turn => "Turn",
            Pane::Workspace => "Workspace",
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }

    pub(crate) fn next(self) -> Pane {
        Pane::ALL[(self.index() + 1) % Pane::ALL.len()]
    }

    pub(crate) fn prev(self) -> Pane {
        Pane::ALL[(self.index() + Pane::ALL.len() - 1) % Pane::ALL.len()]
    }
}
