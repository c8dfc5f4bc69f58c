//! The fleet as a screen of its own, and the app with the fleet behind it: `gobare-tui
//! fleet [--root ID]`, plain `gobare-tui` with no session to reopen, and Ctrl+O from a
//! session. Enter opens a session in place; Ctrl+O comes back to the same row, the fleet
//! kept live meanwhile by its own task (and the sessions behind that come to need the user
//! announced by the app in front).

use crate::app::key_table;
use crate::app::notifications::Notifier;
use crate::app::stats::Stats;
use crate::app::{self, AppExit, AppOptions};
use crate::cli::{FleetArgs, NewArgs};
use crate::config::Config;
use crate::fleet::details::READS_PER_MINUTE;
use crate::fleet::live::{FleetLive, FleetSource, POLL_PERIOD};
use crate::notify::{NotifyTarget, NotifyWhen};
use crate::store::StateStore;
use crate::terminal::{self, TerminationSignals, Tui};
use crate::ui::fleet::{FleetAction, FleetView};
use crate::ui::fleet_help::{FleetHelp, HelpKey};
use crate::ui::theme::Theme;
use color_eyre::eyre::eyre;
use crossterm::event::{Event, KeyEventKind};
use futures_util::StreamExt;
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::error::ApiError;
use gobare_api::retry::SendRetry;
use gobare_api::stream::StreamTarget;
use std::io::Write;
use std::time::Duration;
use tokio::time::Instant;

use super::launch;

/// Frames at most this often, however fast the fleet changes.
const FRAME_INTERVAL: Duration = Duration::from_millis(16);

/// `gobare-tui fleet [--root ID]`.
pub(crate) async fn run(config: Config, args: FleetArgs) -> color_eyre::Result<()> {
    config.require_token()?;
    let root = match &args.root {
        Some(typed) => Some(super::session_id::resolve(&config, typed).await?),
        None => None,
    };
    run_fleet(config, None, root, None).await
}

/// Runs the app on `options`; if the user leaves it with Ctrl+O, the fleet follows.
pub(crate) async fn run_app(config: Config, options: AppOptions) -> color_eyre::Result<()> {
    let opened = options.session_id.clone();
    match app::run_until_exit(options).await? {
        AppExit::Quit => Ok(()),
        AppExit::OpenPicker => run_fleet(config, None, None, Some(opened)).await,
    }
}

/// Shows the fleet (with `notice` on its message line), then the app on the chosen
/// session, and the fleet again — at that session's row — whenever the app is left with
/// Ctrl+O.
pub(crate) async fn run_fleet(
    config: Config,
    notice: Option<String>,
    root: Option<String>,
    selected: Option<String>,
) -> color_eyre::Result<()> {
    let client = config.client().map_err(|e| eyre!(e.summary()))?;
    let stream = config
        .stream_options(StreamTarget::Org { root: root.clone() }, None)
        .map_err(|e| eyre!(e.summary()))?;
    let mut live = FleetLive::start(FleetSource {
        client: client.clone(),
        stream,
        root,
        store: StateStore::open(&config.state_dir, &config.api).ok(),
        poll_every: POLL_PERIOD,
        reads_per_minute: READS_PER_MINUTE,
    });
    let (mut settings, _) = crate::app::settings::Settings::from_sections(&config.file.sections);
    let mut prefs = Prefs {
        notify_when: settings.notify_when,
        theme: settings.theme(),
        settings: settings.clone(),
    };
    let mut view = FleetView::new();
    view.set_message(notice, true);
    if let Some(id) = &selected {
        view.select(id);
    }
    loop {
        let choice = {
            let mut signals = TerminationSignals::new()?;
            let mut tui = terminal::enter(false)?;
            // Asked once, on the first screen: the answer holds for the run.
            let asked = crate::app::auto_theme_asked(settings.theme_name);
            if asked != settings.theme_name {
                settings.theme_name = asked;
                prefs.settings.theme_name = asked;
                prefs.theme = settings.theme();
            }
            let mut stats = Stats::from_env();
            let choice = show(
                &mut tui,
                &mut live,
                &mut view,
                &client,
                &mut signals,
                &mut prefs,
                &mut stats,
            )
            .await;
            stats.write(std::time::Instant::now(), true);
            tui.restore();
            match choice {
                // The terminal went away (window closed): the user left.
                Err(_) if terminal::hung_up() => return Ok(()),
                choice => choice?,
            }
        };
        let open_changes = matches!(choice, Some(Choice::OpenChanges(_)));
        let session_id = match choice {
            Some(Choice::Open(id) | Choice::OpenChanges(id)) => id,
            Some(Choice::New) => {
                let request = launch::create_request(&NewArgs::default());
                launch::create_session(&client, &request, &SendRetry::default())
                    .await
                    .map_err(|e| eyre!("could not create the session: {}", e.summary()))?
                    .id
            }
            None => return Ok(()),
        };
        view.select(&session_id);
        let mut options = launch::options(&config, &session_id)?;
        options.fleet = Some(live.announcements());
        options.open_changes = open_changes;
        if app::run_until_exit(options).await? != AppExit::OpenPicker {
            return Ok(());
        }
    }
}

/// What the config file says of the fleet's looks and bells.
struct Prefs {
    notify_when: NotifyWhen,
    theme: Theme,
    /// The theme's name and the file's colours, for `T`.
    settings: crate::app::settings::Settings,
}

impl Prefs {
    /// `T`: the next theme, for this run; what to say of it.
    fn next_theme(&mut self) -> String {
        let next = self
            .settings
            .theme_name
            .next(crate::ui::theme::background_is_light());
        let Some(theme) = Theme::for_terminal(next, self.settings.no_color, &self.settings.colors)
        else {
            return "colours are off (NO_COLOR or [theme] no_color): no theme to switch to".into();
        };
        self.theme = theme;
        self.settings.theme_name = next;
        let name = next.as_str();
        format!("theme: {name} · T for the next · [theme] name = \"{name}\" keeps it")
    }
}

/// What the user chose in the fleet.
enum Choice {
    Open(String),
    /// Open it with its changes view.
    OpenChanges(String),
    New,
}

/// The fleet on screen until the user opens, creates or leaves. Draws only when something
/// shown changed (coalesced to a frame per [`FRAME_INTERVAL`]) or stopped being true (a
/// clock's second, an age's minute, a countdown).
async fn show(
    tui: &mut Tui,
    live: &mut FleetLive,
    view: &mut FleetView,
    client: &ApiClient,
    signals: &mut TerminationSignals,
    prefs: &mut Prefs,
    stats: &mut Stats,
) -> color_eyre::Result<Option<Choice>> {
    let notify_when = prefs.notify_when;
    // The fleet's news was already told apart (each once, none from before it opened):
    // the notifier only decides whether now is the time to ring.
    let mut notifier = Notifier::new(
        notify_when,
        NotifyTarget::from_env(),
        gobare_api::clock::unix_ms(),
    );
    // What came to need the user while a session was open in front was that session's
    // own notifier's business, or is on the fleet now: not news.
    live.drain_needs_you();
    let changed = live.change_signal();
    let mut events = terminal::events().lock().await;
    let mut dirty = true;
    let mut last_frame: Option<Instant> = None;
    let mut clock: Option<Instant> = None;
    // The rows whose details were last asked for: those on screen.
    let mut wanted: Vec<String> = Vec::new();
    let mut help = FleetHelp::new(key_table::fleet_help_rows());
    loop {
        let frame_due = last_frame.map_or(Instant::now(), |at| at + FRAME_INTERVAL);
        if dirty && Instant::now() >= frame_due {
            let now = gobare_api::clock::unix_ms();
            {
                let model = live.model();
                tui.draw(|f| {
                    let area = f.area();
                    view.render(area, f.buffer_mut(), &model, &prefs.theme, now);
                    help.render(area, f.buffer_mut(), &prefs.theme);
                })?;
            }
            dirty = false;
            // Every row is read in turn; the rows on screen first.
            if view.on_screen() != wanted.as_slice() {
                wanted = view.on_screen().to_vec();
                live.want_details(&wanted);
            }
            stats.frames += 1;
            stats.events = live.model().generation();
            last_frame = Some(Instant::now());
            clock = view.true_for().map(|wait| Instant::now() + wait);
        }
        let wait_frame = dirty.then_some(frame_due);
        let stats_due = stats
            .due_at(std::time::Instant::now())
            .map(Instant::from_std);
        let event = tokio::select! {
            event = events.next() => event,
            _ = changed.notified() => {
                dirty = true;
                continue;
            }
            _ = sleep_until(wait_frame), if wait_frame.is_some() => continue,
            _ = sleep_until(stats_due), if stats_due.is_some() => {
                stats.write(std::time::Instant::now(), false);
                continue;
            }
            _ = sleep_until(clock), if clock.is_some() && !dirty => {
                dirty = true;
                clock = None;
                continue;
            }
            Some(news) = live.next_needs_you() => {
                if let Some(bytes) = notifier.fleet_news(&news.line) {
                    let backend = tui.backend_mut();
                    if let Err(e) = backend.write_all(&bytes).and_then(|()| backend.flush()) {
                        tracing::warn!(error = %e, "could not write a notification");
                    }
                }
                continue;
            }
            _ = signals.recv() => return Ok(None),
        };
        let Some(event) = event else {
            return Ok(None);
        };
        let key = match event? {
            Event::Key(key) if key.kind != KeyEventKind::Release => key,
            Event::Resize(..) => {
                dirty = true;
                continue;
            }
            Event::FocusGained => {
                notifier.set_focused(true);
                continue;
            }
            Event::FocusLost => {
                notifier.set_focused(false);
                continue;
            }
            _ => continue,
        };
        dirty = true;
        match help.key(key, view.scope()) {
            HelpKey::NotMine => {}
            HelpKey::Consumed => continue,
            HelpKey::Quit => return Ok(None),
        }
        match view.handle_key(key) {
            FleetAction::Open(id) => return Ok(Some(Choice::Open(id))),
            FleetAction::OpenChanges(id) => return Ok(Some(Choice::OpenChanges(id))),
            FleetAction::New => return Ok(Some(Choice::New)),
            FleetAction::Quit => return Ok(None),
            FleetAction::NextTheme => {
                let said = prefs.next_theme();
                view.set_message(Some(said), false);
            }
            FleetAction::Rename(id, title) => {
                let result = client
                    .set_title(&id, title.as_deref(), &IdempotencyKey::new())
                    .await;
                match result {
                    Ok(session) => {
                        live.apply_session(&session);
                        view.set_message(Some("renamed".into()), false);
                    }
                    Err(e) => view.set_message(Some(refusal("rename", &e)), true),
                }
            }
            FleetAction::Delete(id) => {
                match client.delete_session(&id, &IdempotencyKey::new()).await {
                    Ok(()) => {
                        live.forget(&id);
                        view.set_message(Some("deleted".into()), false);
                    }
                    Err(e) => view.set_message(Some(refusal("delete", &e)), true),
                }
            }
            FleetAction::Fork(id) => match client.fork_session(&id, &IdempotencyKey::new()).await {
                Ok(session) => {
                    live.apply_session(&session);
                    view.select(&session.id);
                    // The copy keeps the original's title: two rows alike. Its own says so.
                    let original = live
                        .model()
                        .get(&id)
                        .and_then(|r| r.label().map(str::to_string));
                    let title = fork_title(original.as_deref());
                    let named = client
                        .set_title(&session.id, Some(&title), &IdempotencyKey::new())
                        .await;
                    match named {
                        Ok(named) => {
                            live.apply_session(&named);
                            view.set_message(
                                Some(format!("forked as “{title}”: the new session is selected")),
                                false,
                            );
                        }
                        Err(e) => view.set_message(
                            Some(format!("forked; {}", refusal("name the fork", &e))),
                            true,
                        ),
                    }
                }
                Err(e) => view.set_message(Some(refusal("fork", &e)), true),
            },
            FleetAction::Consumed => {}
        }
    }
}

/// A fork's title: the original's name, marked (the original's title, else its first
/// message, cut to a title's length).
fn fork_title(original: Option<&str>) -> String {
    let name: String = original.unwrap_or("untitled").chars().take(80).collect();
    format!("{} (fork)", name.trim())
}

/// Why an action was refused, in a line: the server's message names a missing scope
/// (403), a running turn (409) or the session limit (429).
fn refusal(what: &str, e: &ApiError) -> String {
    format!("could not {what}: {}", e.summary())
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
