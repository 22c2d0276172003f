//! The grammar of one USI input line, parsed with nom into a [`Command`].
//!
//! Only the syntax is checked here (keywords, numbers, duplicates); whether an SFEN, a move or
//! an option value makes sense is judged by the session, which knows the position and options.

use std::fmt;
use std::time::Duration;

use crate::platform::Instant;

use nom::IResult;

use crate::search::{ClockLimits, Limits};
use crate::shogi::{Color, MAX_PERFT_DEPTH};
use nom::bytes::complete::take_till1;
use nom::character::complete::multispace0;
use nom::combinator::{eof, opt, rest, verify};
use nom::multi::{many0, many1};
use nom::sequence::preceded;

/// One command from the GUI (or from a person at a terminal: `d`, `eval`, `perft`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Usi,
    /// `uci`: switches to UCI in Fairy-Stockfish's dialect (see `uci.rs`).
    Uci,
    IsReady,
    UsiNewGame,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        start: StartPosition,
        moves: Vec<String>,
    },
    Go(GoCommand),
    Stop,
    PonderHit,
    GameOver(GameResult),
    Quit,
    /// `d`: the board, SFEN, key and legal moves.
    Display,
    /// `eval`: the static evaluation of the current position.
    Eval,
    /// `perft N` or `go perft N`: leaf counts per root move, run like a search.
    Perft(u32),
    /// `bench [depth]`: the `engine bench` node count, run like a search.
    Bench(Option<u32>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPosition {
    Startpos,
    /// The SFEN fields, joined by single spaces; not yet validated.
    Sfen(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win,
    Lose,
    Draw,
}

/// One `go` line's parameters. Parsing never fails: an unknown or malformed parameter is
/// skipped and described in `warnings`, so that every `go` still ends in a `bestmove`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoCommand {
    pub search: GoSearch,
    /// `go mate <ms|infinite>`: a mate search answered with `checkmate …`.
    pub mate: Option<MateLimit>,
    /// What was ignored and why, one message each.
    pub warnings: Vec<String>,
}

/// The limits of `go` for a normal search. Times are clamped at zero: some GUIs send negative
/// remaining times once a clock has run out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoSearch {
    pub btime: Option<Duration>,
    pub wtime: Option<Duration>,
    pub binc: Option<Duration>,
    pub winc: Option<Duration>,
    pub byoyomi: Option<Duration>,
    pub movetime: Option<Duration>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    /// `searchmoves`: the root moves to consider, as sent (checked against the position by
    /// the session).
    pub searchmoves: Vec<String>,
}

impl GoSearch {
    /// The search limits of a `go` that arrived at `received`: the clock of the side to move,
    /// when any clock value was sent.
    pub fn limits(&self, side: Color, received: Instant) -> Limits {
        let (remaining, increment) = match side {
            Color::Sente => (self.btime, self.binc),
            Color::Gote => (self.wtime, self.winc),
        };
        let any_clock = [self.btime, self.wtime, self.binc, self.winc, self.byoyomi]
            .iter()
            .any(Option::is_some);
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            soft_nodes: None,
            soft_nodes_predicted: false,
            movetime: self.movetime,
            clock: any_clock.then(|| ClockLimits {
                remaining: remaining.unwrap_or_default(),
                increment: increment.unwrap_or_default(),
                byoyomi: self.byoyomi.unwrap_or_default(),
                moves_to_go: self.movestogo,
            }),
            infinite: self.infinite,
            searchmoves: Vec::new(),
            start: Some(received),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateLimit {
    Time(Duration),
    Infinite,
}

/// Why a line is not a valid command; the message names the offending part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandError(pub String);

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CommandError {}

/// Parses one line. A blank line is `Ok(None)`: GUIs and people send those harmlessly.
pub fn parse_command(line: &str) -> Result<Option<Command>, CommandError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    match command(line) {
        Ok((_, command)) => Ok(Some(command)),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(CommandError(e.0)),
        Err(nom::Err::Incomplete(_)) => Err(CommandError("incomplete command".to_string())),
    }
}

/// Quotes user text for an error message: control characters escaped (a message must stay one
/// line) and long text cut short.
pub fn quoted(text: &str) -> String {
    const MAX_CHARS: usize = 40;
    let mut shown: String = text
        .chars()
        .take(MAX_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().count() > MAX_CHARS {
        shown.push('…');
    }
    format!("'{shown}'")
}

/// The error type of the parsers: a finished message.
#[derive(Debug, PartialEq)]
struct SyntaxError(String);

impl<'a> nom::error::ParseError<&'a str> for SyntaxError {
    fn from_error_kind(input: &'a str, _kind: nom::error::ErrorKind) -> Self {
        match first_token(input) {
            Some(token) => SyntaxError(format!("unexpected {}", quoted(token))),
            None => SyntaxError("unexpected end of line".to_string()),
        }
    }

    fn append(_input: &'a str, _kind: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

type Parsed<'a, T> = IResult<&'a str, T, SyntaxError>;

fn first_token(input: &str) -> Option<&str> {
    input.split_whitespace().next()
}

fn fail<T>(message: String) -> Result<T, nom::Err<SyntaxError>> {
    Err(nom::Err::Failure(SyntaxError(message)))
}

/// A run of non-whitespace characters, after optional whitespace.
fn token(input: &str) -> Parsed<'_, &str> {
    preceded(multispace0, take_till1(char::is_whitespace))(input)
}

/// The token `expected` exactly.
fn word<'a>(expected: &'static str) -> impl FnMut(&'a str) -> Parsed<'a, &'a str> {
    verify(token, move |t: &str| t == expected)
}

/// A token other than `stop_word` (which ends a list, like `moves` or `value`).
fn token_except<'a>(stop_word: &'static str) -> impl FnMut(&'a str) -> Parsed<'a, &'a str> {
    verify(token, move |t: &str| t != stop_word)
}

/// Runs `parser`; a recoverable error becomes a failure with `message(input)`.
fn or_fail<'a, T>(
    mut parser: impl FnMut(&'a str) -> Parsed<'a, T>,
    message: impl Fn(&'a str) -> String,
) -> impl FnMut(&'a str) -> Parsed<'a, T> {
    move |input| {
        parser(input).map_err(|e| match e {
            nom::Err::Error(_) => nom::Err::Failure(SyntaxError(message(input))),
            other => other,
        })
    }
}

/// Nothing but whitespace is left; otherwise `context: unexpected 'x'`.
fn end_of_line<'a>(context: &'static str) -> impl FnMut(&'a str) -> Parsed<'a, ()> {
    or_fail(
        |i| {
            let (i, _) = preceded(multispace0, eof)(i)?;
            Ok((i, ()))
        },
        move |i| {
            let extra = first_token(i).unwrap_or_default();
            format!("{context}: unexpected {}", quoted(extra))
        },
    )
}

/// The value token after the parameter `what`, parsed as `T`; `expected` describes `T`.
fn value<'a, T: std::str::FromStr>(
    what: &'static str,
    expected: &'static str,
) -> impl FnMut(&'a str) -> Parsed<'a, T> {
    move |input| {
        let (rest, text) = or_fail(token, |_| format!("'{what}' needs {expected}"))(input)?;
        match text.parse::<T>() {
            Ok(v) => Ok((rest, v)),
            Err(_) => fail(format!("'{what}' needs {expected}, got {}", quoted(text))),
        }
    }
}

/// Milliseconds; negative values (an overrun clock) count as zero.
fn clamped_millis(ms: i64) -> Duration {
    Duration::from_millis(ms.max(0) as u64)
}

fn command(input: &str) -> Parsed<'_, Command> {
    let (rest, name) = token(input)?;
    let bare = |command: Command, context: &'static str| {
        let (rest, ()) = end_of_line(context)(rest)?;
        Ok((rest, command))
    };
    match name {
        "usi" => bare(Command::Usi, "usi"),
        "isready" => bare(Command::IsReady, "isready"),
        "usinewgame" => bare(Command::UsiNewGame, "usinewgame"),
        // What UCI adapters send: the new game is the same.
        "ucinewgame" => bare(Command::UsiNewGame, "ucinewgame"),
        "uci" => bare(Command::Uci, "uci"),
        "stop" => bare(Command::Stop, "stop"),
        "ponderhit" => bare(Command::PonderHit, "ponderhit"),
        "quit" => bare(Command::Quit, "quit"),
        "d" => bare(Command::Display, "d"),
        "eval" => bare(Command::Eval, "eval"),
        "setoption" => setoption(rest),
        "position" => position(rest),
        "go" => go(rest),
        "gameover" => gameover(rest),
        "perft" => perft(rest, "perft"),
        "bench" => {
            if rest.trim().is_empty() {
                return Ok((rest, Command::Bench(None)));
            }
            let (rest, depth) = value::<u32>("bench", "a depth")(rest)?;
            let (rest, ()) = end_of_line("bench")(rest)?;
            Ok((rest, Command::Bench(Some(depth))))
        }
        other => fail(format!("unknown command {}", quoted(other))),
    }
}

/// `setoption name <name…> [value <value…>]`; the value keeps its inner spaces (file paths).
fn setoption(input: &str) -> Parsed<'_, Command> {
    let (input, _) = or_fail(word("name"), |i| match first_token(i) {
        Some(t) => format!("setoption: expected 'name', got {}", quoted(t)),
        None => "setoption: expected 'name'".to_string(),
    })(input)?;
    let (input, name_words) = or_fail(many1(token_except("value")), |_| {
        "setoption: missing the option name".to_string()
    })(input)?;
    let (input, value) = opt(preceded(word("value"), rest))(input)?;
    Ok((
        input,
        Command::SetOption {
            name: name_words.join(" "),
            value: value.map(|v| v.trim().to_string()),
        },
    ))
}

/// `position startpos [moves …]` or `position sfen <fields> [moves …]`.
fn position(input: &str) -> Parsed<'_, Command> {
    let expected = "position: expected 'startpos' or 'sfen'";
    let (input, kind) = or_fail(token, |_| expected.to_string())(input)?;
    let (input, start) = match kind {
        "startpos" => (input, StartPosition::Startpos),
        "sfen" => {
            let (input, fields) = many0(token_except("moves"))(input)?;
            if fields.is_empty() {
                return fail("position sfen: missing the SFEN".to_string());
            }
            (input, StartPosition::Sfen(fields.join(" ")))
        }
        other => return fail(format!("{expected}, got {}", quoted(other))),
    };
    let (input, moves) = opt(preceded(word("moves"), many0(token)))(input)?;
    let (input, ()) = end_of_line("position")(input)?;
    let moves = moves
        .unwrap_or_default()
        .into_iter()
        .map(str::to_string)
        .collect();
    Ok((input, Command::Position { start, moves }))
}

fn gameover(input: &str) -> Parsed<'_, Command> {
    let expected = "gameover: expected 'win', 'lose' or 'draw'";
    let (input, result) = or_fail(token, |_| expected.to_string())(input)?;
    let result = match result {
        "win" => GameResult::Win,
        "lose" => GameResult::Lose,
        "draw" => GameResult::Draw,
        other => return fail(format!("{expected}, got {}", quoted(other))),
    };
    let (input, ()) = end_of_line("gameover")(input)?;
    Ok((input, Command::GameOver(result)))
}

/// The keywords of `go` (USI and UCI): a malformed value never swallows one of these.
pub(super) const GO_KEYWORDS: [&str; 13] = [
    "btime",
    "wtime",
    "binc",
    "winc",
    "byoyomi",
    "movetime",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

/// `go …`: every parameter of USI and UCI. Nothing here is an error: what cannot be used is
/// skipped with a warning, so that the GUI always gets its `bestmove`. `go perft N` is the
/// perft command.
fn go(input: &str) -> Parsed<'_, Command> {
    let mut tokens = input.split_whitespace().peekable();
    if tokens.peek() == Some(&"perft") {
        let (rest, _) = token(input)?;
        return perft(rest, "go perft");
    }
    let mut go = GoCommand::default();
    let mut seen: Vec<&str> = Vec::new();
    while let Some(name) = tokens.next() {
        if !GO_KEYWORDS.contains(&name) {
            go.warnings
                .push(format!("go: unknown parameter {}; ignored", quoted(name)));
            continue;
        }
        if seen.contains(&name) {
            go.warnings.push(format!(
                "go: {} given twice; the last one counts",
                quoted(name)
            ));
        }
        seen.push(name);
        let search = &mut go.search;
        match name {
            "infinite" => search.infinite = true,
            "ponder" => search.ponder = true,
            "searchmoves" => {
                search.searchmoves.clear();
                while let Some(mv) = tokens.next_if(|t| !GO_KEYWORDS.contains(t)) {
                    search.searchmoves.push(mv.to_string());
                }
                if search.searchmoves.is_empty() {
                    go.warnings
                        .push("go: 'searchmoves' needs moves; ignored".to_string());
                }
            }
            _ => {
                // A parameter with a value: the next token, unless it is another keyword.
                let is_value =
                    |t: &&str| !GO_KEYWORDS.contains(t) || (name == "mate" && *t == "infinite");
                let Some(text) = tokens.next_if(is_value) else {
                    go.warnings
                        .push(format!("go: {} needs a value; ignored", quoted(name)));
                    continue;
                };
                if let Err(expected) = set_go_value(&mut go, name, text) {
                    go.warnings.push(format!(
                        "go: {} needs {expected}, got {}; ignored",
                        quoted(name),
                        quoted(text)
                    ));
                }
            }
        }
    }
    Ok(("", Command::Go(go)))
}

/// Sets the parameter `name` of `go` from `text`; on a bad value, says what was expected.
fn set_go_value(go: &mut GoCommand, name: &str, text: &str) -> Result<(), &'static str> {
    let millis = || {
        text.parse::<i64>()
            .map(clamped_millis)
            .map_err(|_| "a time in milliseconds")
    };
    let positive = |what| match text.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(what),
    };
    let search = &mut go.search;
    match name {
        "btime" => search.btime = Some(millis()?),
        "wtime" => search.wtime = Some(millis()?),
        "binc" => search.binc = Some(millis()?),
        "winc" => search.winc = Some(millis()?),
        "byoyomi" => search.byoyomi = Some(millis()?),
        "movetime" => search.movetime = Some(millis()?),
        "movestogo" => {
            let n = positive("a positive number of moves")?;
            search.movestogo = Some(n.min(u32::MAX as u64) as u32);
        }
        "depth" => {
            let n = positive("a positive depth")?;
            search.depth = Some(n.min(u32::MAX as u64) as u32);
        }
        "nodes" => search.nodes = Some(positive("a positive node count")?),
        "mate" => {
            go.mate = Some(if text == "infinite" {
                MateLimit::Infinite
            } else {
                MateLimit::Time(millis().map_err(|_| "a time in milliseconds or 'infinite'")?)
            })
        }
        _ => unreachable!("value of go keyword {name}"),
    }
    Ok(())
}

/// `perft <depth>` or `go perft <depth>`.
fn perft<'a>(input: &'a str, context: &'static str) -> Parsed<'a, Command> {
    let (rest, depth) = value::<u32>("perft", "a depth")(input)?;
    if depth > MAX_PERFT_DEPTH {
        return fail(format!(
            "{context}: depth {depth} is beyond {MAX_PERFT_DEPTH}"
        ));
    }
    let (rest, ()) = end_of_line(context)(rest)?;
    Ok((rest, Command::Perft(depth)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command {
        parse_command(line)
            .unwrap_or_else(|e| panic!("{line:?}: {e}"))
            .unwrap_or_else(|| panic!("{line:?}: blank"))
    }

    fn err(line: &str) -> String {
        match parse_command(line) {
            Err(e) => e.0,
            Ok(c) => panic!("{line:?} parsed as {c:?}"),
        }
    }

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn simple_commands() {
        assert_eq!(ok("usi"), Command::Usi);
        assert_eq!(ok("  isready \t"), Command::IsReady);
        assert_eq!(ok("usinewgame"), Command::UsiNewGame);
        assert_eq!(ok("stop"), Command::Stop);
        assert_eq!(ok("ponderhit"), Command::PonderHit);
        assert_eq!(ok("quit"), Command::Quit);
        assert_eq!(ok("d"), Command::Display);
        assert_eq!(ok("eval"), Command::Eval);
        assert_eq!(ok("perft 3"), Command::Perft(3));
        assert_eq!(ok("bench"), Command::Bench(None));
        assert_eq!(ok("bench 4"), Command::Bench(Some(4)));
        assert_eq!(ok("gameover lose"), Command::GameOver(GameResult::Lose));
        assert_eq!(parse_command("   "), Ok(None));
    }

    #[test]
    fn setoption_keeps_spaces_in_names_and_values() {
        assert_eq!(
            ok("setoption name EvalFile value /tmp/my nets/a.bin "),
            Command::SetOption {
                name: "EvalFile".into(),
                value: Some("/tmp/my nets/a.bin".into())
            }
        );
        assert_eq!(
            ok("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert_eq!(
            ok("setoption name EvalFile value"),
            Command::SetOption {
                name: "EvalFile".into(),
                value: Some(String::new())
            }
        );
    }

    #[test]
    fn positions() {
        assert_eq!(
            ok("position startpos moves 5d5c 1b1c"),
            Command::Position {
                start: StartPosition::Startpos,
                moves: vec!["5d5c".into(), "1b1c".into()]
            }
        );
        assert_eq!(
            ok("position sfen rbsgk/4p/5/P4/KGSBR b - 1"),
            Command::Position {
                start: StartPosition::Sfen("rbsgk/4p/5/P4/KGSBR b - 1".into()),
                moves: vec![]
            }
        );
        assert_eq!(
            ok("position sfen rbsgk/4p/5/P4/KGSBR  b -  moves"),
            Command::Position {
                start: StartPosition::Sfen("rbsgk/4p/5/P4/KGSBR b -".into()),
                moves: vec![]
            }
        );
    }

    fn parsed_go(line: &str) -> GoCommand {
        match ok(line) {
            Command::Go(go) => go,
            other => panic!("{line:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn go_limits() {
        let go = parsed_go(
            "go btime 1000 wtime -5 binc 10 winc 20 byoyomi 300 movestogo 7 depth 4 \
                     nodes 99 ponder",
        );
        assert!(go.warnings.is_empty(), "{:?}", go.warnings);
        let s = &go.search;
        assert_eq!(s.btime, ms(1000));
        assert_eq!(s.wtime, ms(0));
        assert_eq!(s.binc, ms(10));
        assert_eq!(s.winc, ms(20));
        assert_eq!(s.byoyomi, ms(300));
        assert_eq!(s.movestogo, Some(7));
        assert_eq!(s.depth, Some(4));
        assert_eq!(s.nodes, Some(99));
        assert!(s.ponder && !s.infinite);
        assert_eq!(super::go("").unwrap().1, Command::Go(GoCommand::default()));
        assert_eq!(
            parsed_go("go mate 500").mate,
            Some(MateLimit::Time(Duration::from_millis(500)))
        );
        assert_eq!(
            parsed_go("go mate infinite").mate,
            Some(MateLimit::Infinite)
        );
        let moves = parsed_go("go searchmoves 5d5c 4e4d movetime 100 infinite");
        assert_eq!(moves.search.searchmoves, ["5d5c", "4e4d"]);
        assert_eq!(moves.search.movetime, ms(100));
        assert!(moves.search.infinite && moves.warnings.is_empty());
        assert_eq!(ok("go perft 3"), Command::Perft(3));
        assert_eq!(ok("ucinewgame"), Command::UsiNewGame);
    }

    #[test]
    fn bad_go_parameters_are_skipped_with_a_warning() {
        let cases: [(&str, &str); 11] = [
            ("go depth", "go: 'depth' needs a value; ignored"),
            (
                "go depth x",
                "go: 'depth' needs a positive depth, got 'x'; ignored",
            ),
            (
                "go depth 0",
                "go: 'depth' needs a positive depth, got '0'; ignored",
            ),
            (
                "go nodes -5",
                "go: 'nodes' needs a positive node count, got '-5'; ignored",
            ),
            (
                "go btime 1.5",
                "go: 'btime' needs a time in milliseconds, got '1.5'; ignored",
            ),
            ("go fast", "go: unknown parameter 'fast'; ignored"),
            ("go mate", "go: 'mate' needs a value; ignored"),
            (
                "go mate soon",
                "go: 'mate' needs a time in milliseconds or 'infinite', got 'soon'; ignored",
            ),
            ("go byoyomi depth 3", "go: 'byoyomi' needs a value; ignored"),
            (
                "go depth 2 depth 3",
                "go: 'depth' given twice; the last one counts",
            ),
            (
                "go movestogo 0",
                "go: 'movestogo' needs a positive number of moves, got '0'; ignored",
            ),
        ];
        for (line, warning) in cases {
            assert_eq!(parsed_go(line).warnings, [warning], "{line}");
        }
        // The good parameters around a bad one still count.
        let mixed = parsed_go("go wtime 10000 btime 9000 frobnicate 3 movestogo 20 depth 2");
        // 'frobnicate' and the stray '3' after it are each reported.
        assert_eq!(mixed.warnings.len(), 2, "{:?}", mixed.warnings);
        assert_eq!(mixed.search.btime, ms(9000));
        assert_eq!(mixed.search.movestogo, Some(20));
        assert_eq!(mixed.search.depth, Some(2));
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(err("hello world"), "unknown command 'hello'");
        assert_eq!(err("isready now"), "isready: unexpected 'now'");
        assert_eq!(err("position"), "position: expected 'startpos' or 'sfen'");
        assert_eq!(
            err("position fen x"),
            "position: expected 'startpos' or 'sfen', got 'fen'"
        );
        assert_eq!(err("position sfen"), "position sfen: missing the SFEN");
        assert_eq!(err("position startpos 5d5c"), "position: unexpected '5d5c'");
        assert_eq!(err("setoption"), "setoption: expected 'name'");
        assert_eq!(
            err("setoption Hash 5"),
            "setoption: expected 'name', got 'Hash'"
        );
        assert_eq!(
            err("setoption name value 3"),
            "setoption: missing the option name"
        );
        assert_eq!(
            err("gameover maybe"),
            "gameover: expected 'win', 'lose' or 'draw', got 'maybe'"
        );
        assert_eq!(err("perft"), "'perft' needs a depth");
        assert_eq!(err("perft -1"), "'perft' needs a depth, got '-1'");
        assert_eq!(
            err("go perft 4000000000"),
            "go perft: depth 4000000000 is beyond 32"
        );
        assert_eq!(err("x\u{1}y"), "unknown command 'x\\u{1}y'");
        assert!(err(&"z".repeat(100)).ends_with("…'"));
    }
}
