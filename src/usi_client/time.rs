//! Time as the lab gives it to engines: the time control of a match, and seconds read from
//! the command line.

use std::fmt;
use std::time::Duration;

/// How much time the engines get.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeControl {
    /// A fixed time for every move (sent as USI `byoyomi` with empty clocks).
    MoveTime(Duration),
    /// A clock per side starting at `base`, with `increment` added after every move or
    /// `byoyomi` granted for every move once the clock is empty (not both).
    Clock {
        base: Duration,
        increment: Duration,
        byoyomi: Duration,
    },
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = |d: &Duration| d.as_secs_f64();
        match self {
            TimeControl::MoveTime(t) => write!(f, "{}s/move", secs(t)),
            TimeControl::Clock {
                base,
                increment,
                byoyomi,
            } => {
                write!(f, "{}s", secs(base))?;
                if !increment.is_zero() {
                    write!(f, "+{}s", secs(increment))?;
                }
                if !byoyomi.is_zero() {
                    write!(f, " byoyomi {}s", secs(byoyomi))?;
                }
                Ok(())
            }
        }
    }
}

/// A time in seconds from the command line (`what` names the flag in the error); zero is one.
pub fn seconds(value: f64, what: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| format!("{what} {value} is not a time in seconds"))
}

/// [`seconds`] that must be more than zero.
pub fn positive_seconds(value: f64, what: &str) -> Result<Duration, String> {
    seconds(value, what)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{what} {value} is not a positive time in seconds"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_finite_and_not_negative() {
        assert_eq!(seconds(1.5, "--x"), Ok(Duration::from_millis(1500)));
        assert_eq!(seconds(0.0, "--x"), Ok(Duration::ZERO));
        assert_eq!(
            seconds(-1.0, "--x"),
            Err("--x -1 is not a time in seconds".to_string())
        );
        assert!(seconds(f64::NAN, "--x").is_err());
        assert_eq!(positive_seconds(2.0, "--y"), Ok(Duration::from_secs(2)));
        for bad in [0.0, -1.0, f64::INFINITY] {
            assert_eq!(
                positive_seconds(bad, "--y"),
                Err(format!("--y {bad} is not a positive time in seconds"))
            );
        }
    }
}
