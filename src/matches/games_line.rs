//! The lines of games.txt (`GameSummary::games_line`) read back: by the chart, `engine book`
//! and the time-to-depth tool.

/// A line of games.txt ([`GameSummary::games_line`]) read back. (A name holding " vs " is
/// split at its first; summary.json has the names exactly.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamesLine<'a> {
    pub number: usize,
    /// Sente, gote.
    pub players: [&'a str; 2],
    /// `1-0`, `0-1` or `1/2-1/2`, for sente.
    pub result: &'a str,
    /// The game as a USI position line.
    pub position: &'a str,
}

impl GamesLine<'_> {
    /// Sente's points: 1, 0 or ½.
    pub fn sente_points(&self) -> f64 {
        match self.result {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        }
    }
}

/// Reads a line of games.txt; `None` for a line not of that form.
pub fn read_games_line(line: &str) -> Option<GamesLine<'_>> {
    let (number, rest) = line.split_once(' ')?;
    let number: usize = number.parse().ok().filter(|n| *n > 0)?;
    let (players, result, after) = ["1-0", "0-1", "1/2-1/2"]
        .iter()
        .filter_map(|r| {
            let (players, after) = rest.split_once(&format!(": {r} "))?;
            Some((players, *r, after))
        })
        .min_by_key(|(players, _, _)| players.len())?;
    let (sente, gote) = players.split_once(" vs ")?;
    let (_termination, position) = after.split_once("; ")?;
    Some(GamesLine {
        number,
        players: [sente, gote],
        result,
        position: position.trim_end(),
    })
}

/// What [`chart`] needs of a line of games.txt: the game number, the players (sente, gote)
/// and engine 1's points (engine 1 is sente in odd games).
pub fn parse_games_line(line: &str) -> Option<(usize, [String; 2], f64)> {
    let g = read_games_line(line)?;
    let sente_points = g.sente_points();
    let points = if g.number % 2 == 1 {
        sente_points
    } else {
        1.0 - sente_points
    };
    Some((g.number, g.players.map(str::to_string), points))
}
