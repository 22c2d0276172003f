//! The clocks of a game in the page: main time, then byoyomi a move, or an increment after
//! each move (the board keeps them; the page only shows them ticking). Time is the engine's portable
//! clock, the host's on WebAssembly.

use std::time::Duration;

use minishogi_engine::platform::Instant;
use serde::{Deserialize, Serialize};

use crate::shogi::Color;

/// A clock as a new game asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSettings {
    pub main_ms: u64,
    #[serde(default)]
    pub byoyomi_ms: u64,
    #[serde(default)]
    pub increment_ms: u64,
}

/// Both sides' clocks.
pub struct Clock {
    pub(super) settings: ClockSettings,
    /// Main time left, by colour index.
    pub(super) left_ms: [u64; 2],
    /// The side whose clock runs, and since when.
    pub(super) running: Option<(Color, Instant)>,
}

impl Clock {
    pub fn new(settings: ClockSettings) -> Clock {
        Clock {
            settings,
            left_ms: [settings.main_ms; 2],
            running: None,
        }
    }

    /// Main time left to `color` now (its running time taken off).
    pub fn left_now(&self, color: Color) -> u64 {
        let left = self.left_ms[color.index()];
        match self.running {
            Some((c, since)) if c == color => {
                left.saturating_sub(since.elapsed().as_millis() as u64)
            }
            _ => left,
        }
    }

    /// How far past its main time and byoyomi the running side is, if it is.
    pub fn overrun(&self) -> Option<(Color, Duration)> {
        let (color, since) = self.running?;
        let allowed = self.left_ms[color.index()] + self.settings.byoyomi_ms;
        let used = since.elapsed().as_millis() as u64;
        (used > allowed).then(|| (color, Duration::from_millis(used - allowed)))
    }

    /// Stops the running clock: the time is taken off the main time (byoyomi is spent per move
    /// and not kept), and with `moved` the increment is added.
    pub fn stop(&mut self, moved: bool) {
        if let Some((color, since)) = self.running.take() {
            let used = since.elapsed().as_millis() as u64;
            let left = &mut self.left_ms[color.index()];
            *left = left.saturating_sub(used);
            if moved {
                *left += self.settings.increment_ms;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_time_then_byoyomi_then_the_flag() {
        let mut clock = Clock::new(ClockSettings {
            main_ms: 50,
            byoyomi_ms: 30,
            increment_ms: 0,
        });
        assert_eq!(clock.left_now(Color::Sente), 50);
        assert!(clock.overrun().is_none(), "not running");
        clock.running = Some((Color::Sente, Instant::now() - Duration::from_millis(60)));
        assert_eq!(clock.left_now(Color::Sente), 0);
        assert!(clock.overrun().is_none(), "within byoyomi");
        clock.running = Some((Color::Sente, Instant::now() - Duration::from_millis(100)));
        let (side, over) = clock.overrun().unwrap();
        assert_eq!(side, Color::Sente);
        assert!(over >= Duration::from_millis(20));
        clock.stop(true);
        assert_eq!(clock.left_ms, [0, 50]);
        let mut fischer = Clock::new(ClockSettings {
            main_ms: 1000,
            byoyomi_ms: 0,
            increment_ms: 500,
        });
        fischer.running = Some((Color::Gote, Instant::now() - Duration::from_millis(200)));
        fischer.stop(true);
        let left = fischer.left_ms[Color::Gote.index()];
        assert!((1290..=1300).contains(&left), "{left}");
    }
}
