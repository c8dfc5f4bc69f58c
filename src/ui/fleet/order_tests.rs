//! Issue 48.1 on the trace's fleet (60 sessions in crews, drawn at 160×48): a crew is one
//! block in its most urgent member's band, so no member shows without its lead above it
//! (on opening, the first row is no crew member); `s` cycles the order within each band
//! (created, name, last activity), the header says which, and the bands keep their order.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::*;
use crate::fleet::model::FleetRow;
use crate::fleet::trace::Trace;
use crate::session::attention::Attention;

const T0: i64 = 1_789_400_000_000;

fn opened() -> (FleetModel, FleetView) {
    let (_, listed) = Trace::new(60, 50, T0);
    let mut model = FleetModel::new();
    model.apply_full_list(&listed);
    let mut view = FleetView::new();
    draw(&mut view, &model);
    (model, view)
}

fn draw(view: &mut FleetView, model: &FleetModel) -> String {
    let area = Rect::new(0, 0, 160, 48);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, &Theme::default(), T0);
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rank(band: Attention) -> u8 {
    match band {
        Attention::NeedsYou => 0,
        Attention::Failed => 1,
        Attention::Working => 2,
        Attention::Idle => 3,
    }
}

#[test]
fn a_crew_is_one_block_under_its_lead_and_the_first_row_is_no_member() {
    let (model, view) = opened();
    let shown = &view.shown;
    assert_eq!(shown.len(), 60);
    let first = model.get(&view.on_screen()[0]).unwrap();
    assert_eq!(
        first.parent, None,
        "the first row on opening is a crew's lead or alone"
    );
    for (at, id) in shown.iter().enumerate() {
        let Some(lead) = &model.get(id).unwrap().parent else {
            continue;
        };
        let lead_at = shown
            .iter()
            .position(|s| s == lead)
            .expect("its lead shown");
        assert!(lead_at < at, "{id} above its lead {lead}");
        // Between the lead and its member: only the lead's other members.
        assert!(
            shown[lead_at + 1..at]
                .iter()
                .all(|s| model.get(s).unwrap().parent.as_ref() == Some(lead)),
            "{id} apart from its crew"
        );
    }
    // The crew stands in its most urgent member's band: its lead works, its members wait.
    let lead_at = shown.iter().position(|s| s == "lead-001").unwrap();
    let last_waiting = shown
        .iter()
        .rposition(|s| model.get(s).unwrap().attention() == Attention::NeedsYou)
        .unwrap();
    assert!(
        lead_at < last_waiting,
        "the working lead is among the waits"
    );
}

#[test]
fn s_cycles_the_order_within_each_band_and_the_header_says_which() {
    let (model, mut view) = opened();
    for (sort, said) in [
        (SortBy::Name, "by name"),
        (SortBy::Activity, "by last activity"),
        (SortBy::Created, "by created"),
    ] {
        assert_eq!(
            view.handle_key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE)),
            FleetAction::Consumed
        );
        let screen = draw(&mut view, &model);
        assert_eq!(view.sort(), sort);
        assert!(screen.contains(&format!("Session · {said}")), "{screen}");
        // The bands in their order whatever the sort: a lone row's band is its own.
        let lone: Vec<&FleetRow> = view
            .shown
            .iter()
            .map(|id| model.get(id).unwrap())
            .filter(|r| r.parent.is_none() && !r.id.starts_with("lead-"))
            .collect();
        let ranks: Vec<u8> = lone.iter().map(|r| rank(r.attention())).collect();
        assert!(ranks.is_sorted(), "bands out of order by {said}: {ranks:?}");
        // Within the failed band, the sort's own order.
        let failed: Vec<&FleetRow> = lone
            .iter()
            .copied()
            .filter(|r| r.attention() == Attention::Failed)
            .collect();
        assert_eq!(failed.len(), 10);
        let sorted = match sort {
            SortBy::Name => failed.is_sorted_by_key(|r| r.label().unwrap().to_lowercase()),
            SortBy::Created => failed.is_sorted_by_key(|r| r.created_at),
            SortBy::Activity => failed.is_sorted_by_key(|r| std::cmp::Reverse(r.last_activity)),
        };
        assert!(
            sorted,
            "{said}: {:?}",
            failed.iter().map(|r| r.label()).collect::<Vec<_>>()
        );
    }
}
