//! The session picker as a screen of its own: `gobare-tui` with a token, no session given
//! and none opened before on this API. Lists sessions newest first, a page at a time; Enter
//! opens one in the app, `n` creates a new (idle) session and opens it, Esc or q leaves.

use crate::app::sessions::{PAGE_SIZE, SessionPager};
use crate::app::{self, AppExit, AppOptions};
use crate::cli::NewArgs;
use crate::config::Config;
use crate::terminal::{self, TerminationSignals, Tui};
use crate::ui::picker::{PickerAction, PickerState};
use crate::ui::theme::Theme;
use color_eyre::eyre::eyre;
use crossterm::event::{Event, KeyCode, KeyEventKind};
use futures_util::StreamExt;
use gobare_api::client::ApiClient;
use gobare_api::retry::SendRetry;

/// What the user picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    Open(String),
    New,
}

/// Shows the picker, then the app on the chosen session, and the picker again whenever the
/// app is left with Ctrl+O.
pub async fn run(config: Config) -> color_eyre::Result<()> {
    let client = config.client().map_err(|e| eyre!(e.summary()))?;
    loop {
        let choice = {
            let mut signals = TerminationSignals::new()?;
            let mut tui = terminal::enter(false)?;
            let choice = pick(&mut tui, &client, &mut signals).await;
            tui.restore();
            match choice {
                // The terminal went away (window closed): the user left.
                Err(_) if terminal::hung_up() => return Ok(()),
                choice => choice?,
            }
        };
        let session_id = match choice {
            Some(Choice::Open(id)) => id,
            Some(Choice::New) => {
                let request = super::new::create_request(&NewArgs::default());
                super::new::create_session(&client, &request, &SendRetry::default())
                    .await
                    .map_err(|e| eyre!("could not create the session: {}", e.summary()))?
                    .id
            }
            None => return Ok(()),
        };
        let options = super::attach::options(&config, &session_id)?;
        if app::run_until_exit(options).await? != AppExit::OpenPicker {
            return Ok(());
        }
    }
}

/// Runs the app on `options`; if the user leaves it with Ctrl+O, the picker follows.
pub async fn run_app(config: Config, options: AppOptions) -> color_eyre::Result<()> {
    match app::run_until_exit(options).await? {
        AppExit::Quit => Ok(()),
        AppExit::OpenPicker => run(config).await,
    }
}

async fn pick(
    tui: &mut Tui,
    client: &ApiClient,
    signals: &mut TerminationSignals,
) -> color_eyre::Result<Option<Choice>> {
    let theme = Theme::from_env();
    let mut picker = PickerState::loading();
    let mut pager = SessionPager::new(PAGE_SIZE);
    load_page(&mut picker, &mut pager, client).await;
    let mut events = terminal::events().lock().await;
    loop {
        let now = crate::app::unix_ms();
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
            PickerAction::LoadMore => load_page(&mut picker, &mut pager, client).await,
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

async fn load_page(picker: &mut PickerState, pager: &mut SessionPager, client: &ApiClient) {
    picker.set_loading(true);
    match pager.next_page(client).await {
        Ok((sessions, more)) => picker.append_page(sessions, more),
        Err(e) => picker.set_error(Some(format!("could not list sessions: {}", e.summary()))),
    }
}
