//! The main screen in each built-in theme, symbols and styles (ratatui's buffer listing
//! where each style starts): a change to a theme's colours shows here as a reviewed diff.

use super::{full_session, render_in};
use crate::ui::screen::Screen;
use crate::ui::theme::{Depth, Theme};
use insta::assert_debug_snapshot;

fn drawn(theme: &Theme) -> ratatui::buffer::Buffer {
    let mut v = full_session();
    v.apply(crate::session::Update::Tick(1_789_319_100_000));
    render_in(&v, &mut Screen::new(), 100, 30, theme)
        .backend()
        .buffer()
        .clone()
}

#[test]
fn main_screen_dark_256() {
    assert_debug_snapshot!(drawn(&Theme::dark(Depth::Indexed256)));
}

#[test]
fn main_screen_dark_16() {
    assert_debug_snapshot!(drawn(&Theme::dark(Depth::Ansi16)));
}

#[test]
fn main_screen_light_256() {
    assert_debug_snapshot!(drawn(&Theme::light(Depth::Indexed256)));
}

#[test]
fn main_screen_light_16() {
    assert_debug_snapshot!(drawn(&Theme::light(Depth::Ansi16)));
}

#[test]
fn main_screen_high_contrast() {
    assert_debug_snapshot!(drawn(&Theme::high_contrast()));
}

#[test]
fn main_screen_colour_blind_dark_256() {
    assert_debug_snapshot!(drawn(&Theme::color_blind(Depth::Indexed256, false)));
}

#[test]
fn main_screen_colour_blind_light_256() {
    assert_debug_snapshot!(drawn(&Theme::color_blind(Depth::Indexed256, true)));
}

#[test]
fn every_theme_draws_the_same_symbols_only_the_styles_differ() {
    let symbols = |theme: &Theme| {
        let buf = drawn(theme);
        buf.content
            .iter()
            .map(|c| c.symbol().to_string())
            .collect::<String>()
    };
    let dark = symbols(&Theme::dark(Depth::Indexed256));
    for theme in [
        Theme::light(Depth::Indexed256),
        Theme::high_contrast(),
        Theme::color_blind(Depth::Ansi16, true),
    ] {
        assert_eq!(symbols(&theme), dark);
    }
    assert_ne!(
        drawn(&Theme::dark(Depth::Indexed256)),
        drawn(&Theme::light(Depth::Indexed256))
    );
}
