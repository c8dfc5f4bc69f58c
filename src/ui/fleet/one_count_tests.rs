//! Issue 48.6: one count of who needs you. The fleet's header, the inbox's title, the
//! terminal's title and the notification (its line and its payload's `need_you`) all say
//! [`FleetModel::needing_you`], on the same model: while a row's band change is held,
//! after a decision is answered, and when several needs are told in one notification.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::*;
use crate::fleet::announced::Announced;
use crate::fleet::news::announcement;
use crate::fleet::pacer::{HOLD, Pacer, WINDOW};
use crate::fleet::trace::Trace;
use crate::session::attention::Attention;
use crate::ui::inbox::InboxView;
use gobare_api::model::{Event, EventPayload};

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

/// Applies `event` as the fleet's task does, hearing a need it announces.
fn apply(model: &mut FleetModel, announced: &mut Announced, pacer: &mut Pacer, event: &Event) {
    model.apply_event(event);
    let call = match &event.payload {
        EventPayload::ApprovalRequested(a) => Some(&a.tool_call_id),
        EventPayload::QuestionAsked(q) => Some(&q.tool_call_id),
        _ => None,
    };
    if let (Some(call), Some(id)) = (call, &event.session_id)
        && announced.call(call)
        && let Some(news) = announcement(model, id.to_string(), call)
    {
        pacer.hear(news, tokio::time::Instant::now());
    }
}

#[tokio::test(start_paused = true)]
async fn the_header_the_inbox_the_title_and_the_notification_say_one_count() {
    let (_, listed) = Trace::new(60, 50, T0);
    let mut model = FleetModel::new();
    model.apply_full_list(&listed);
    let mut announced = Announced::default();
    announced.already_waiting(
        model
            .rows()
            .flat_map(|r| r.waiting.iter().map(|(c, _)| c.as_str())),
    );
    let mut pacer = Pacer::default();
    let (mut view, mut inbox) = (FleetView::new(), InboxView::new(7_200_000));
    let start = tokio::time::Instant::now();
    let now_ms = || T0 + start.elapsed().as_millis() as i64;
    let agree = |s: &Said, model: &FleetModel, when: &str| {
        let one = model.needing_you();
        assert_eq!(
            (s.header, s.inbox, s.title),
            (one, one, one),
            "header, inbox and title {when}"
        );
    };
    let s = said(&mut view, &mut inbox, &model, now_ms());
    agree(&s, &model, "on opening");
    assert_eq!(s.header, 30, "the trace's fleet: three of each six wait");

    // Three idle sessions come to ask; their rows' bands are held for a while.
    let mut seq = 1;
    for block in [1, 2, 3] {
        let id = format!("idle-{block:03}");
        let payload = serde_json::json!({"tool_call_id": format!("q-{block}"),
                                         "question": "Ship it?"});
        apply(
            &mut model,
            &mut announced,
            &mut pacer,
            &event("question.asked", &id, seq, now_ms(), payload),
        );
        seq += 1;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let s = said(&mut view, &mut inbox, &model, now_ms());
    assert_eq!(
        view.bands.band(&model, "idle-001"),
        Some(Attention::Idle),
        "the band change is still held"
    );
    agree(&s, &model, "while a band change is held");
    assert_eq!(s.header, 33);
    assert!(
        pacer
            .take_due_of(tokio::time::Instant::now(), &model)
            .is_none()
    );

    // Held: told in one notification, saying the same count.
    tokio::time::sleep(HOLD).await;
    let s = said(&mut view, &mut inbox, &model, now_ms());
    agree(&s, &model, "once the needs held");
    let told = pacer
        .take_due_of(tokio::time::Instant::now(), &model)
        .expect("three needs held");
    assert_eq!(told.count, 3);
    assert_eq!(told.need_you, Some(s.header), "{told:?}");
    assert_eq!(
        count_before_need(&told.line),
        Some(s.header),
        "{}",
        told.line
    );

    // One is answered; its band stays held a while, the count moves at once everywhere.
    let answered = serde_json::json!({"tool_call_id": "q-2", "answer": "yes"});
    apply(
        &mut model,
        &mut announced,
        &mut pacer,
        &event("question.answered", "idle-002", seq, now_ms(), answered),
    );
    seq += 1;
    let s = said(&mut view, &mut inbox, &model, now_ms());
    assert_eq!(
        view.bands.band(&model, "idle-002"),
        Some(Attention::NeedsYou),
        "the row stays in its band a while"
    );
    agree(&s, &model, "after a decision is answered, its band held");
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
        apply(
            &mut model,
            &mut announced,
            &mut pacer,
            &event("approval.requested", id, seq, now_ms(), payload),
        );
        seq += 1;
    }
    tokio::time::sleep(HOLD).await;
    let s = said(&mut view, &mut inbox, &model, now_ms());
    agree(&s, &model, "after two more sessions ask");
    assert_eq!(s.header, 34);
    let told = pacer
        .take_due_of(tokio::time::Instant::now(), &model)
        .expect("held");
    assert_eq!(told.need_you, Some(34));
    assert!(told.line.starts_with("34 need you: "), "{}", told.line);
    // The notify command's payload carries the same count.
    let mut payload = crate::notify::kind::NotifyEvent::new(told.kind, &told.id, "", &told.line);
    payload.need_you = told.need_you;
    let json: serde_json::Value =
        serde_json::from_slice(&payload.to_json_line()).expect("one JSON line");
    assert_eq!(json["need_you"], 34);
}
