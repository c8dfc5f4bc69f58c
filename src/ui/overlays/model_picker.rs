//! The model switch (`C` in the panes): the organization's credentials and the models each
//! says it runs, one model selected; Enter names the switch ("switch to MODEL via cred_…,
//! keeps workspace and transcript") and asks; `y` sends it.

use super::asked_frame::{self, Framed};
use crate::keys::table::view_hints;
use crate::ui::overlays::{Overlay, OverlayAction, OverlayKey, ViewKey, ViewScope};
use crate::ui::theme::Theme;
use gobare_api::credentials::Credentials;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Characters of a model's or a credential's name in a row.
const NAME_CHARS: usize = 60;

/// One model a credential runs: what a switch sends.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Choice {
    credential: String,
    model: String,
}

enum Listing {
    Loading,
    Failed(String),
    Ready(Credentials),
}

pub(crate) struct ModelPicker {
    listing: Listing,
    /// The session's model and credential now, as read.
    now: (Option<String>, Option<String>),
    selected: usize,
    asking: Option<Choice>,
    status: Option<String>,
}

/// The switch in words, as asked and as the notice says it.
pub(crate) fn switch_words(model: &str, credential: &str) -> String {
    format!(
        "switch to {} via {} (keeps workspace and transcript)",
        text::one_line(model, NAME_CHARS),
        text::one_line(credential, NAME_CHARS)
    )
}

impl ModelPicker {
    pub(crate) fn loading(model: Option<String>, credential: Option<String>) -> ModelPicker {
        ModelPicker {
            listing: Listing::Loading,
            now: (model, credential),
            selected: 0,
            asking: None,
            status: None,
        }
    }

    /// The credentials as read, or why not.
    pub(crate) fn listed(&mut self, result: Result<Credentials, String>) {
        self.listing = match result {
            Ok(c) => Listing::Ready(c),
            Err(why) => Listing::Failed(why),
        };
        self.selected = self
            .choices()
            .iter()
            .position(|c| self.is_now(c))
            .unwrap_or(0);
    }

    fn choices(&self) -> Vec<Choice> {
        let Listing::Ready(creds) = &self.listing else {
            return Vec::new();
        };
        creds
            .list
            .iter()
            .flat_map(|c| {
                c.models.iter().map(|m| Choice {
                    credential: c.id.clone(),
                    model: m.clone(),
                })
            })
            .collect()
    }

    fn is_now(&self, c: &Choice) -> bool {
        self.now.0.as_deref() == Some(c.model.as_str())
            && self.now.1.as_deref() == Some(c.credential.as_str())
    }

    fn body(&self, width: usize, theme: &Theme) -> (Vec<Line<'static>>, usize) {
        let now = format!(
            "now: {} via {}",
            self.now
                .0
                .as_deref()
                .map_or("(not said)".into(), |m| text::one_line(m, NAME_CHARS)),
            self.now
                .1
                .as_deref()
                .map_or("(not said)".into(), |c| text::one_line(c, NAME_CHARS)),
        );
        let mut body = asked_frame::wrapped("", &now, width, theme.dim);
        let mut focus = 0;
        match &self.listing {
            Listing::Loading => body.push(Line::styled("reading the credentials…", theme.dim)),
            Listing::Failed(why) => body.extend(asked_frame::wrapped(
                "",
                &format!("could not read the credentials: {why}"),
                width,
                theme.error,
            )),
            Listing::Ready(creds) => focus = self.credential_lines(creds, width, theme, &mut body),
        }
        (body, focus)
    }

    /// Each credential and the models it runs, one line a model, the selected one marked;
    /// gives the selected model's line.
    fn credential_lines(
        &self,
        creds: &Credentials,
        width: usize,
        theme: &Theme,
        body: &mut Vec<Line<'static>>,
    ) -> usize {
        if creds.list.is_empty() {
            body.push(Line::styled(
                "the organization has no model credentials",
                theme.dim,
            ));
        }
        let mut focus = 0;
        let mut at = 0;
        for cred in &creds.list {
            let about: Vec<String> = [&cred.provider, &cred.name]
                .into_iter()
                .flatten()
                .map(|s| text::one_line(s, NAME_CHARS))
                .collect();
            body.push(Line::styled(
                format!(
                    "{}  {}",
                    text::one_line(&cred.id, NAME_CHARS),
                    about.join(" · ")
                ),
                theme.strong,
            ));
            if cred.models.is_empty() {
                body.extend(asked_frame::wrapped(
                    "    ",
                    "(does not say which models it runs)",
                    width,
                    theme.dim,
                ));
            }
            for model in &cred.models {
                let choice = Choice {
                    credential: cred.id.clone(),
                    model: model.clone(),
                };
                let chosen = at == self.selected;
                if chosen {
                    focus = body.len();
                }
                let mark = if self.is_now(&choice) { "  (now)" } else { "" };
                body.push(Line::styled(
                    format!(
                        "  {}{}{mark}",
                        if chosen { "› " } else { "  " },
                        text::one_line(model, NAME_CHARS)
                    ),
                    if chosen { theme.selection } else { theme.text },
                ));
                at += 1;
            }
        }
        if creds.unreadable > 0 {
            body.push(Line::styled(
                format!("{} credential(s) without an id left out", creds.unreadable),
                theme.warning,
            ));
        }
        if creds.cut {
            body.push(Line::styled(
                "more credentials than this list reads: the rest are not shown",
                theme.warning,
            ));
        }
        focus
    }
}

impl Overlay for ModelPicker {
    fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let width = usize::from(super::area(area).width.saturating_sub(2));
        let (body, focus) = self.body(width, theme);
        let mut foot = Vec::new();
        if let Some(choice) = &self.asking {
            let mut words = switch_words(&choice.model, &choice.credential);
            if let Some(first) = words.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            foot.push(Line::styled(format!("{words}?"), theme.warning));
        }
        if let Some(status) = &self.status {
            foot.push(Line::styled(status.clone(), theme.warning));
        }
        asked_frame::draw(
            Framed {
                title: "Model".into(),
                body,
                focus,
                top: None,
                foot,
                hints: view_hints(self.scope()),
            },
            area,
            buf,
            theme,
        );
    }

    fn scope(&self) -> ViewScope {
        if self.asking.is_some() {
            ViewScope::PolicyAsk
        } else {
            ViewScope::Models
        }
    }

    fn handle(&mut self, key: ViewKey) -> OverlayKey {
        if let Some(choice) = self.asking.take() {
            return match key {
                ViewKey::Yes => OverlayKey::Act(OverlayAction::SwitchModel {
                    model: choice.model,
                    credential: choice.credential,
                }),
                ViewKey::No => {
                    self.status = Some("nothing sent".into());
                    OverlayKey::Handled
                }
                _ => {
                    self.asking = Some(choice);
                    OverlayKey::Ignored
                }
            };
        }
        let choices = self.choices();
        let last = choices.len().saturating_sub(1);
        match key {
            ViewKey::Close => return OverlayKey::Close,
            ViewKey::Up => self.selected = self.selected.saturating_sub(1),
            ViewKey::Down => self.selected = (self.selected + 1).min(last),
            ViewKey::Top => self.selected = 0,
            ViewKey::Bottom => self.selected = last,
            ViewKey::Open => match choices.get(self.selected) {
                Some(c) if self.is_now(c) => {
                    self.status = Some("the session is on this model already".into());
                    return OverlayKey::Handled;
                }
                Some(c) => self.asking = Some(c.clone()),
                None => return OverlayKey::Ignored,
            },
            _ => return OverlayKey::Ignored,
        }
        self.status = None;
        OverlayKey::Handled
    }
}
