use super::*;

fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, modifiers))
}

/// The keys crossterm makes of `bytes` (the cases an answer and a person's typing take).
fn keys_of(bytes: &str) -> Vec<Event> {
    let mut out = Vec::new();
    let mut chars = bytes.chars().peekable();
    while let Some(c) = chars.next() {
        let event = match c {
            '\x1b' => match chars.peek() {
                Some(&next) if next != '\x1b' => {
                    chars.next();
                    key(KeyCode::Char(next), KeyModifiers::ALT)
                }
                _ => key(KeyCode::Esc, KeyModifiers::NONE),
            },
            '\x07' => key(KeyCode::Char('g'), KeyModifiers::CONTROL),
            '\r' => key(KeyCode::Enter, KeyModifiers::NONE),
            c if c.is_ascii_uppercase() => key(KeyCode::Char(c), KeyModifiers::SHIFT),
            c => key(KeyCode::Char(c), KeyModifiers::NONE),
        };
        out.push(event);
    }
    out
}

/// Everything `events` become when they arrive together at `now`.
fn filtered(answers: &mut LateAnswers, events: Vec<Event>, now: Instant) -> Vec<Event> {
    events
        .into_iter()
        .flat_map(|e| answers.take(e, now))
        .collect()
}

#[test]
fn a_late_background_answer_is_swallowed_whichever_way_it_ends() {
    let now = Instant::now();
    for answer in [
        "\x1b]11;rgb:ffff/ffff/ffff\x07",
        "\x1b]11;rgb:0000/2b2b/3636\x1b\\",
        "\x1b]10;rgb:FF/ff/00\x07",
    ] {
        let mut answers = LateAnswers::default();
        let typed = format!("{answer}hi\r");
        assert_eq!(
            filtered(&mut answers, keys_of(&typed), now),
            keys_of("hi\r"),
            "{answer:?}"
        );
        assert_eq!(answers.release_at(), None);
    }
}

#[test]
fn an_answer_read_in_two_pieces_is_still_swallowed() {
    let now = Instant::now();
    let mut answers = LateAnswers::default();
    assert!(filtered(&mut answers, keys_of("\x1b]11;rgb:ff"), now).is_empty());
    let later = now + Duration::from_millis(30);
    assert_eq!(
        filtered(&mut answers, keys_of("ff/ffff/ffff\x1b"), later),
        Vec::new()
    );
    // ST's backslash in a read of its own.
    assert_eq!(filtered(&mut answers, keys_of("\\x"), later), keys_of("x"));
}

#[test]
fn a_persons_alt_bracket_and_digits_mean_what_they_meant() {
    let now = Instant::now();
    let mut answers = LateAnswers::default();
    // Shown to be keys by the next key…
    assert_eq!(
        filtered(&mut answers, keys_of("\x1b]12x"), now),
        keys_of("\x1b]12x")
    );
    // … or by the time that passes with nothing after them.
    assert!(filtered(&mut answers, keys_of("\x1b]4"), now).is_empty());
    assert_eq!(answers.release_at(), Some(now + HOLD));
    assert!(answers.released(now + HOLD / 2).is_empty());
    assert_eq!(answers.released(now + HOLD), keys_of("\x1b]4"));
    assert_eq!(answers.release_at(), None);
    // A `;` long after Alt+] is typing, not an answer.
    assert!(filtered(&mut answers, keys_of("\x1b]1"), now).is_empty());
    let late = now + HOLD * 2;
    assert_eq!(
        filtered(&mut answers, keys_of(";ok"), late),
        keys_of("\x1b]1;ok")
    );
}

#[test]
fn an_answer_whose_end_was_lost_stops_swallowing() {
    let now = Instant::now();
    let mut answers = LateAnswers::default();
    assert!(filtered(&mut answers, keys_of("\x1b]11;rgb:ffff/ff"), now).is_empty());
    // A key no answer holds ends it at once…
    assert_eq!(
        filtered(&mut answers, keys_of("\rhi"), now),
        keys_of("\rhi")
    );
    // … and typing after its time is typing.
    assert!(filtered(&mut answers, keys_of("\x1b]11;rgb:ffff/ff"), now).is_empty());
    let later = now + ANSWER_MAX_TIME + Duration::from_millis(1);
    assert_eq!(filtered(&mut answers, keys_of("hi"), later), keys_of("hi"));
    // So does a runaway text.
    let mut answers = LateAnswers::default();
    let long = format!("\x1b]11;{}", "a".repeat(ANSWER_MAX_CHARS));
    assert!(filtered(&mut answers, keys_of(&long), now).is_empty());
    assert_eq!(filtered(&mut answers, keys_of("bc"), now), keys_of("bc"));
}

#[test]
fn other_events_pass_through_an_answer() {
    let now = Instant::now();
    let mut answers = LateAnswers::default();
    let mut events = keys_of("\x1b]11;rgb:0/0");
    events.push(Event::Resize(80, 24));
    events.extend(keys_of("/0\x07"));
    assert_eq!(
        filtered(&mut answers, events, now),
        vec![Event::Resize(80, 24)]
    );
}
