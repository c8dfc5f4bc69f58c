//! The session picker as a screen of its own: `gobare-tui` with a token, no session given
//! and none opened before on this API (or the one opened last is gone). Lists sessions newest
//! first, a page at a time, untitled ones by their first message; Enter opens one in the
//! app, `n` creates a new (idle) session and opens it, Esc or q leaves.

use crate::app::first_message;
use crate::app::sessions::{PAGE_SIZE, SessionPager};
use crate::store::StateStore;
use crate::terminal::{self, TerminationSignals, Tui};
use crate::ui::picker::{PickerAction, PickerState};
use crate::ui::theme::Theme;
use crossterm::event::{Event, KeyCode, KeyEventKind};
use futures_util::StreamExt;
use gobare_api::client::ApiClient;

/// What the user picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Choice {
    Open(String),
    New,
}

/// Shows the picker until the user picks or leaves. `notice` is shown on its bottom line
/// until the next page arrives.
pub(crate) async fn pick(
    tui: &mut Tui,
    client: &ApiClient,
    signals: &mut TerminationSignals,
    store: Option<&StateStore>,
    notice: Option<String>,
) -> color_eyre::Result<Option<Choice>> {
    let theme = Theme::from_env();
    let mut picker = PickerState::loading();
    let mut pager = SessionPager::new(PAGE_SIZE);
    load_page(&mut picker, &mut pager, client, store).await;
    if notice.is_some() {
        picker.set_error(notice);
    }
    let mut events = terminal::events().lock().await;
    loop {
        let now = gobare_api::clock::unix_ms();
        tui.draw(|f| {
            let area = f.area();
            picker.render(area, f.buffer_mut(), &theme, now);
        })?;
        let event = tokio::select! {
            event = events.next() => event,
            _ = signals.recv() => return Ok(None),
        };
        let Some(event) = event else {
            return Ok(None);
        };
        let Event::Key(key) = event? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        match picker.handle_key(key) {
            PickerAction::Open(id) => return Ok(Some(Choice::Open(id))),
            PickerAction::New => return Ok(Some(Choice::New)),
            PickerAction::LoadMore => load_page(&mut picker, &mut pager, client, store).await,
            PickerAction::Close => return Ok(None),
            PickerAction::NotMine
                if key.code == KeyCode::Char('c')
                    && key
                        .modifiers
                        .contains(crossterm::event::KeyModifiers::CONTROL) =>
            {
                return Ok(None);
            }
            PickerAction::Consumed | PickerAction::NotMine => {}
        }
    }
}

async fn load_page(
    picker: &mut PickerState,
    pager: &mut SessionPager,
    client: &ApiClient,
    store: Option<&StateStore>,
) {
    picker.set_loading(true);
    match pager.next_page(client).await {
        Ok((sessions, more)) => {
            let first = first_message::first_messages(client, store, &sessions).await;
            picker.add_first_messages(first);
            picker.append_page(sessions, more);
        }
        Err(e) => picker.set_error(Some(format!("could not list sessions: {}", e.summary()))),
    }
}
