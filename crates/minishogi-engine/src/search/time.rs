//! Time management: how long to think from the clock (remaining time, increment, byoyomi) or
//! an exact movetime, minus the move overhead, with a safety margin so we never flag.

use std::time::Duration;

use crate::platform::Instant;

use super::{ClockLimits, Limits, SearchControl};
use std::sync::atomic::Ordering::Relaxed;

/// Kept back on top of the move overhead when a main time is running: poll latency plus
/// scheduling jitter, so that a loaded machine never flags. (`movetime` and byoyomi alone keep
/// back only the overhead; a watchdog answers for a search its machine does not run in time.)
pub const SAFETY_MARGIN: Duration = Duration::from_millis(10);
/// Shortest budget ever set, so that at least a shallow search completes.
const MIN_THINK: Duration = Duration::from_millis(1);
/// Expected number of our own moves still to play, for spreading the main time.
const MOVES_TO_GO: u32 = 20;
/// Share of the aim that must have passed for an iteration to be the last: the next one takes
/// roughly as long as all before it together, so stopping past this share ends, on average,
/// near the aim.
const LAST_ITERATION_SHARE: f64 = 0.6;

/// The time allowed for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// Aim: at the end of an iteration, stop if this much (scaled by stability) has passed.
    pub optimum: Duration,
    /// Hard limit: the search is aborted when it is reached.
    pub maximum: Duration,
    /// Use the whole maximum (movetime, or byoyomi-only where unused time is lost anyway):
    /// never stop early at the end of an iteration.
    pub use_all: bool,
}

/// The budget for `limits`, or `None` when no time limit applies.
pub fn budget(limits: &Limits, move_overhead: Duration) -> Option<TimeBudget> {
    if let Some(movetime) = limits.movetime {
        let t = movetime.saturating_sub(move_overhead).max(MIN_THINK);
        return Some(TimeBudget {
            optimum: t,
            maximum: t,
            use_all: true,
        });
    }
    limits
        .clock
        .map(|clock| clock_budget(&clock, move_overhead))
}

fn clock_budget(clock: &ClockLimits, move_overhead: Duration) -> TimeBudget {
    let reserve = move_overhead + SAFETY_MARGIN;
    // Everything we may spend on this move without losing: the main time plus one byoyomi
    // period (the increment only arrives after the move).
    let hard = (clock.remaining + clock.byoyomi)
        .saturating_sub(reserve)
        .max(MIN_THINK);
    if clock.remaining.is_zero() && !clock.byoyomi.is_zero() {
        // Byoyomi only: time not used is lost, so use it all, keeping back only the overhead
        // as `movetime` does (a fixed 10 ms more would be a third of a 30 ms period).
        let period = clock.byoyomi.saturating_sub(move_overhead).max(MIN_THINK);
        return TimeBudget {
            optimum: period,
            maximum: period,
            use_all: true,
        };
    }
    // `movestogo` (a tournament control) spreads the main time over the moves left before
    // the clock is refilled; without it, over an expected game length.
    let moves_to_go = clock
        .moves_to_go
        .map_or(MOVES_TO_GO, |m| m.clamp(1, MOVES_TO_GO));
    let share = clock.remaining / moves_to_go;
    let main_maximum = if moves_to_go == 1 {
        // The last move before the refill may use everything.
        clock.remaining
    } else {
        (clock.remaining / 4)
            .max(share * 2)
            .min(clock.remaining * 3 / 4)
    };
    // The increment comes back with every move: spent in full, the clock neither grows nor
    // shrinks from it.
    let optimum = share + clock.increment + clock.byoyomi;
    let maximum = main_maximum + clock.increment + clock.byoyomi;
    let maximum = maximum.saturating_sub(reserve).min(hard).max(MIN_THINK);
    TimeBudget {
        optimum: optimum.saturating_sub(reserve).min(maximum).max(MIN_THINK),
        maximum,
        use_all: false,
    }
}

/// The main thread's clock: the budget counts from the search start, or from ponderhit.
pub struct TimeKeeper {
    pub search_start: Instant,
    budget_start: Instant,
    pub budget: Option<TimeBudget>,
    pondering: bool,
}

impl TimeKeeper {
    /// `start`: when the `go` arrived (before any table resizing).
    pub fn new(budget: Option<TimeBudget>, control: &SearchControl, start: Instant) -> TimeKeeper {
        TimeKeeper {
            search_start: start,
            budget_start: start,
            budget,
            pondering: control.ponder.load(Relaxed),
        }
    }

    /// Whether time limits apply now; notices ponderhit and restarts the budget there.
    pub fn counting(&mut self, control: &SearchControl) -> bool {
        if control.ponder.load(Relaxed) {
            self.pondering = true;
            return false;
        }
        if self.pondering {
            self.pondering = false;
            self.budget_start = Instant::now();
        }
        true
    }

    /// Time spent against the budget.
    pub fn used(&self) -> Duration {
        self.budget_start.elapsed()
    }

    /// Whether the hard limit has been reached (abort the search).
    pub fn out_of_time(&mut self, control: &SearchControl) -> bool {
        match self.budget {
            Some(b) => self.counting(control) && self.used() >= b.maximum,
            None => false,
        }
    }

    /// At the end of an iteration: whether starting another one is not worth it. `instability`
    /// grows when the best move has been changing (1.0 = stable).
    pub fn stop_after_iteration(&mut self, control: &SearchControl, instability: f64) -> bool {
        let Some(b) = self.budget else {
            return false;
        };
        if !self.counting(control) || b.use_all {
            return false;
        }
        // Do not start an iteration that would run far past the aim.
        let aim = b
            .optimum
            .mul_f64(instability.clamp(0.5, 2.5))
            .min(b.maximum);
        self.used() >= aim.mul_f64(LAST_ITERATION_SHARE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn clock(remaining: u64, increment: u64, byoyomi: u64) -> Limits {
        Limits {
            clock: Some(ClockLimits {
                remaining: ms(remaining),
                increment: ms(increment),
                byoyomi: ms(byoyomi),
                moves_to_go: None,
            }),
            ..Limits::default()
        }
    }

    fn with_moves_to_go(mut limits: Limits, moves: u32) -> Limits {
        limits.clock.as_mut().unwrap().moves_to_go = Some(moves);
        limits
    }

    #[test]
    fn movetime_is_exact_minus_overhead() {
        let limits = Limits {
            movetime: Some(ms(1000)),
            ..Limits::default()
        };
        let b = budget(&limits, ms(50)).unwrap();
        assert_eq!((b.optimum, b.maximum, b.use_all), (ms(950), ms(950), true));
        // Overhead larger than the movetime still leaves a minimal think.
        let b = budget(&limits, ms(5000)).unwrap();
        assert_eq!(b.maximum, MIN_THINK);
        assert!(budget(&Limits::default(), ms(50)).is_none());
    }

    #[test]
    fn sudden_death_spreads_main_time() {
        // 60 s, no increment: aim 60/20 = 3 s less reserve, hard limit 15 s less reserve.
        let b = budget(&clock(60_000, 0, 0), ms(50)).unwrap();
        assert_eq!(b.optimum, ms(3000 - 60));
        assert_eq!(b.maximum, ms(15_000 - 60));
        assert!(!b.use_all);
    }

    #[test]
    fn increment_and_byoyomi_add_to_the_budget() {
        // 10 s + 1 s increment: 500 + 1000 = 1500 ms aim, 2500 + 1000 ms max, less 60 ms.
        let b = budget(&clock(10_000, 1000, 0), ms(50)).unwrap();
        assert_eq!(b.optimum, ms(1500 - 60));
        assert_eq!(b.maximum, ms(3500 - 60));
        // 10 s main time and 10 s byoyomi: 500 + 10000 aim, capped by 2500 + 10000 max.
        let b = budget(&clock(10_000, 0, 10_000), ms(50)).unwrap();
        assert_eq!(b.optimum, ms(10_500 - 60));
        assert_eq!(b.maximum, ms(12_500 - 60));
    }

    #[test]
    fn moves_to_go_spreads_the_time_over_the_moves_left() {
        // 10 s for 20 moves: 500 ms aim, 2.5 s at most (less 20 ms reserve).
        let b = budget(&with_moves_to_go(clock(10_000, 0, 0), 20), ms(10)).unwrap();
        assert_eq!((b.optimum, b.maximum), (ms(480), ms(2480)));
        // Two moves left: half the time each on average, at most three quarters now.
        let b = budget(&with_moves_to_go(clock(10_000, 0, 0), 2), ms(10)).unwrap();
        assert_eq!((b.optimum, b.maximum), (ms(4980), ms(7480)));
        // The last move before the refill may use it all, less the reserve.
        let b = budget(&with_moves_to_go(clock(10_000, 0, 0), 1), ms(10)).unwrap();
        assert_eq!((b.optimum, b.maximum), (ms(9980), ms(9980)));
        // More moves than the default horizon change nothing.
        assert_eq!(
            budget(&with_moves_to_go(clock(10_000, 0, 0), 80), ms(10)),
            budget(&clock(10_000, 0, 0), ms(10))
        );
    }

    #[test]
    fn byoyomi_only_uses_the_whole_period() {
        let b = budget(&clock(0, 0, 10_000), ms(100)).unwrap();
        assert_eq!(
            (b.optimum, b.maximum, b.use_all),
            (ms(9900), ms(9900), true)
        );
        let b = budget(&clock(0, 0, 30), ms(10)).unwrap();
        assert_eq!((b.optimum, b.maximum), (ms(20), ms(20)));
    }

    #[test]
    fn never_exceeds_what_is_left() {
        for remaining in [0u64, 5, 40, 100, 1000, 30_000] {
            for increment in [0u64, 100, 2000] {
                for byoyomi in [0u64, 500, 5000] {
                    for moves_to_go in [None, Some(1), Some(2), Some(40)] {
                        let mut limits = clock(remaining, increment, byoyomi);
                        limits.clock.as_mut().unwrap().moves_to_go = moves_to_go;
                        let b = budget(&limits, ms(30)).unwrap();
                        let left = ms(remaining + byoyomi);
                        // The overhead is always kept; the safety margin while a main time runs.
                        let reserve = if remaining == 0 && byoyomi > 0 {
                            30
                        } else {
                            40
                        };
                        assert!(b.optimum <= b.maximum);
                        assert!(
                            b.maximum <= left.saturating_sub(ms(reserve)).max(MIN_THINK),
                            "{remaining} {increment} {byoyomi} {moves_to_go:?}: {b:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn ponder_delays_the_budget_until_ponderhit() {
        let control = SearchControl::default();
        control.ponder.store(true, Relaxed);
        let mut keeper = TimeKeeper::new(budget(&clock(0, 0, 1), ms(0)), &control, Instant::now());
        std::thread::sleep(ms(20));
        assert!(
            !keeper.out_of_time(&control),
            "no time limit while pondering"
        );
        control.ponder.store(false, Relaxed);
        assert!(
            !keeper.out_of_time(&control),
            "budget restarts at ponderhit"
        );
        std::thread::sleep(ms(5));
        assert!(keeper.out_of_time(&control));
    }
}
