//! Issue 48.6: one count of who needs you. The fleet's header, the inbox's title, the
//! terminal's title and the notification (its line and its payload's `need_you`) all say
//! [`FleetModel::needing_you`], on the same model: while a row's band change is held,
//! after a decision is answered, and when several needs are told in one notification.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::task_fixture::Task;
use super::*;
use crate::fleet::pacer::{HOLD, WINDOW};
use crate::fleet::trace::Trace;
use crate::session::attention::Attention;
use crate::ui::inbox::InboxView;
use gobare_api::model::Event;

const T0: i64 = 1_789_400_000_000;

/// The number said with "need you" in `line`: the first in the `·`-part that says it
/// (" 30 need you ", " 30 sessions need you ", "34 need you: …").
fn count_before_need(line: &str) -> Option<usize> {
    let part = line.split('·').find(|p| p.contains(" need"))?;
    let digits: String = part
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn top_line(buf: &Buffer) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, 0)].symbol().to_string())
        .collect()
}

/// What the fleet, its inbox and the terminal's title say on `model` at `now_ms`.
struct Said {
    header: usize,
    inbox: usize,
    title: usize,
}

fn said(view: &mut FleetView, inbox: &mut InboxView, model: &FleetModel, now_ms: i64) -> Said {
    let area = Rect::new(0, 0, 160, 48);
    let theme = Theme::default();
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, &theme, now_ms);
    let header = top_line(&buf);
    let mut buf = Buffer::empty(area);
    inbox.render(area, &mut buf, model, &theme, now_ms);
    let inbox_line = top_line(&buf);
    let title = crate::terminal::title::text(crate::budget::slots::Counts::of(model).waiting);
    Said {
        header: count_before_need(&header).unwrap_or_else(|| panic!("{header}")),
        inbox: count_before_need(&inbox_line).unwrap_or_else(|| panic!("{inbox_line}")),
        title: count_before_need(&title).unwrap_or(0),
    }
}

fn event(kind: &str, session: &str, seq: u64, at: i64, payload: serde_json::Value) -> Event {
    Event::parse(
        &serde_json::json!({"type": kind, "session_id": session, "seq": seq,
            "created_at": at, "payload": payload})
        .to_string(),
    )
    .unwrap()
}

/// The trace's fleet, its task, its view and its inbox, on tokio's paused clock.
struct Scene {
    task: Task,
    view: FleetView,
    inbox: InboxView,
    start: tokio::time::Instant,
    seq: u64,
}

impl Scene {
    fn new() -> Scene {
        let (_, listed) = Trace::new(60, 50, T0);
        Scene {
            task: Task::listed(&listed),
            view: FleetView::new(),
            inbox: InboxView::new(7_200_000),
            start: tokio::time::Instant::now(),
            seq: 1,
        }
    }

    fn now_ms(&self) -> i64 {
        T0 + self.start.elapsed().as_millis() as i64
    }

    /// Session `id` tells `kind` now.
    fn tell(&mut self, kind: &str, id: &str, payload: serde_json::Value) {
        let event = event(kind, id, self.seq, self.now_ms(), payload);
        self.seq += 1;
        self.task.apply(&event);
    }

    /// What is said now, checked to be the model's one count (`when` names the moment).
    fn said(&mut self, when: &str) -> Said {
        let now_ms = self.now_ms();
        let s = said(&mut self.view, &mut self.inbox, &self.task.model, now_ms);
        let one = self.task.model.needing_you();
        assert_eq!(
            (s.header, s.inbox, s.title),
            (one, one, one),
            "header, inbox and title {when}"
        );
        s
    }

    fn told(&mut self) -> Option<crate::fleet::news::FleetNews> {
        self.task
            .pacer
            .take_due_of(tokio::time::Instant::now(), &self.task.model)
    }

    fn band(&self, id: &str) -> Option<Attention> {
        self.view.bands.band(&self.task.model, id)
    }
}

#[tokio::test(start_paused = true)]
async fn the_header_the_inbox_the_title_and_the_notification_say_one_count() {
    let mut scene = Scene::new();
    let s = scene.said("on opening");
    assert_eq!(s.header, 30, "the trace's fleet: three of each six wait");

    // Three idle sessions come to ask; their rows' bands are held for a while.
    for block in [1, 2, 3] {
        let payload = serde_json::json!({"tool_call_id": format!("q-{block}"),
                                         "question": "Ship it?"});
        scene.tell("question.asked", &format!("idle-{block:03}"), payload);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let s = scene.said("while a band change is held");
    let held = scene.band("idle-001");
    assert_eq!(held, Some(Attention::Idle), "the band change is still held");
    assert_eq!(s.header, 33);
    assert!(scene.told().is_none());

    // Held: told in one notification, saying the same count.
    tokio::time::sleep(HOLD).await;
    let s = scene.said("once the needs held");
    let told = scene.told().expect("three needs held");
    assert_eq!(told.count, 3);
    assert_eq!(told.need_you, Some(s.header), "{told:?}");
    let line_says = count_before_need(&told.line);
    assert_eq!(line_says, Some(s.header), "{}", told.line);

    // One is answered; its band stays held a while, the count moves at once everywhere.
    let answered = serde_json::json!({"tool_call_id": "q-2", "answer": "yes"});
    scene.tell("question.answered", "idle-002", answered);
    let s = scene.said("after a decision is answered, its band held");
    let held = scene.band("idle-002");
    assert_eq!(
        held,
        Some(Attention::NeedsYou),
        "the row stays in its band a while"
    );
    assert_eq!(s.header, 32);

    // Two calls of one session and a second session: two sessions, not three, need you
    // more; the notification says the fleet's count.
    tokio::time::sleep(WINDOW).await;
    for (id, call) in [
        ("idle-004", "a-1"),
        ("idle-004", "a-2"),
        ("idle-005", "a-3"),
    ] {
        let payload = serde_json::json!({"tool_call_id": call, "name": "bash",
                                         "args": {"command": "ls"}});
        scene.tell("approval.requested", id, payload);
    }
    tokio::time::sleep(HOLD).await;
    let s = scene.said("after two more sessions ask");
    assert_eq!(s.header, 34);
    let told = scene.told().expect("held");
    assert_eq!(told.need_you, Some(34));
    assert!(told.line.starts_with("34 need you: "), "{}", told.line);
    // The notify command's payload carries the same count.
    let mut payload = crate::notify::kind::NotifyEvent::new(told.kind, &told.id, "", &told.line);
    payload.need_you = told.need_you;
    let json: serde_json::Value =
        serde_json::from_slice(&payload.to_json_line()).expect("one JSON line");
    assert_eq!(json["need_you"], 34);
}
