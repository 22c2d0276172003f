//! The grammar of one USI input line, parsed with nom into a [`Command`].
//!
//! Only the syntax is checked here (keywords, numbers, duplicates); whether an SFEN, a move or
//! an option value makes sense is judged by the session, which knows the position and options.

use std::fmt;
use std::time::Duration;

use nom::IResult;
use nom::bytes::complete::take_till1;
use nom::character::complete::multispace0;
use nom::combinator::{eof, opt, rest, verify};
use nom::multi::{many0, many1};
use nom::sequence::preceded;

/// One command from the GUI (or from a person at a terminal: `d`, `eval`, `perft`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Usi,
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
    Perft(u32),
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoCommand {
    Search(GoSearch),
    /// `go mate <ms|infinite>`: a mate search answered with `checkmate …`.
    Mate(MateLimit),
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
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
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
fn millis<'a>(what: &'static str) -> impl FnMut(&'a str) -> Parsed<'a, Duration> {
    move |input| {
        let (rest, ms) = value::<i64>(what, "a time in milliseconds")(input)?;
        Ok((rest, clamped_millis(ms)))
    }
}

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
        "stop" => bare(Command::Stop, "stop"),
        "ponderhit" => bare(Command::PonderHit, "ponderhit"),
        "quit" => bare(Command::Quit, "quit"),
        "d" => bare(Command::Display, "d"),
        "eval" => bare(Command::Eval, "eval"),
        "setoption" => setoption(rest),
        "position" => position(rest),
        "go" => go(rest),
        "gameover" => gameover(rest),
        "perft" => {
            let (rest, depth) = value::<u32>("perft", "a depth")(rest)?;
            let (rest, ()) = end_of_line("perft")(rest)?;
            Ok((rest, Command::Perft(depth)))
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

/// One parameter of `go`.
enum GoParam {
    Time(&'static str, Duration),
    Depth(u32),
    Nodes(u64),
    Infinite,
    Ponder,
    Mate(MateLimit),
}

fn go_param(input: &str) -> Parsed<'_, GoParam> {
    let (rest, name) = token(input)?;
    let time = |name: &'static str| {
        let (rest, t) = millis(name)(rest)?;
        Ok((rest, GoParam::Time(name, t)))
    };
    match name {
        "btime" => time("btime"),
        "wtime" => time("wtime"),
        "binc" => time("binc"),
        "winc" => time("winc"),
        "byoyomi" => time("byoyomi"),
        "movetime" => time("movetime"),
        "depth" => {
            let (rest, depth) = value::<u32>("depth", "a positive integer")(rest)?;
            if depth == 0 {
                return fail("'depth' must be at least 1".to_string());
            }
            Ok((rest, GoParam::Depth(depth)))
        }
        "nodes" => {
            let (rest, nodes) = value::<u64>("nodes", "a positive integer")(rest)?;
            if nodes == 0 {
                return fail("'nodes' must be at least 1".to_string());
            }
            Ok((rest, GoParam::Nodes(nodes)))
        }
        "infinite" => Ok((rest, GoParam::Infinite)),
        "ponder" => Ok((rest, GoParam::Ponder)),
        "mate" => {
            let missing = "'mate' needs a time in milliseconds or 'infinite'";
            let (rest, limit) = or_fail(token, |_| missing.to_string())(rest)?;
            if limit == "infinite" {
                return Ok((rest, GoParam::Mate(MateLimit::Infinite)));
            }
            match limit.parse::<i64>() {
                Ok(ms) => Ok((rest, GoParam::Mate(MateLimit::Time(clamped_millis(ms))))),
                Err(_) => fail(format!(
                    "'mate' needs a time in milliseconds, got {}",
                    quoted(limit)
                )),
            }
        }
        other => fail(format!("go: unknown parameter {}", quoted(other))),
    }
}

fn go(input: &str) -> Parsed<'_, Command> {
    let (input, params) = many0(go_param)(input)?;
    let (input, ()) = end_of_line("go")(input)?;
    let mut search = GoSearch::default();
    let mut mate = None;
    for param in params {
        let (name, was_set) = match param {
            GoParam::Time(name, t) => {
                let slot = match name {
                    "btime" => &mut search.btime,
                    "wtime" => &mut search.wtime,
                    "binc" => &mut search.binc,
                    "winc" => &mut search.winc,
                    "byoyomi" => &mut search.byoyomi,
                    _ => &mut search.movetime,
                };
                (name, slot.replace(t).is_some())
            }
            GoParam::Depth(d) => ("depth", search.depth.replace(d).is_some()),
            GoParam::Nodes(n) => ("nodes", search.nodes.replace(n).is_some()),
            GoParam::Infinite => ("infinite", std::mem::replace(&mut search.infinite, true)),
            GoParam::Ponder => ("ponder", std::mem::replace(&mut search.ponder, true)),
            GoParam::Mate(limit) => ("mate", mate.replace(limit).is_some()),
        };
        if was_set {
            return fail(format!("go: {} given twice", quoted(name)));
        }
    }
    match mate {
        None => Ok((input, Command::Go(GoCommand::Search(search)))),
        Some(_) if search != GoSearch::default() => {
            fail("go: 'mate' cannot be combined with other parameters".to_string())
        }
        Some(limit) => Ok((input, Command::Go(GoCommand::Mate(limit)))),
    }
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

    #[test]
    fn go_limits() {
        let Command::Go(GoCommand::Search(go)) =
            ok("go btime 1000 wtime -5 binc 10 winc 20 byoyomi 300 depth 4 nodes 99 ponder")
        else {
            panic!()
        };
        assert_eq!(go.btime, ms(1000));
        assert_eq!(go.wtime, ms(0));
        assert_eq!(go.binc, ms(10));
        assert_eq!(go.winc, ms(20));
        assert_eq!(go.byoyomi, ms(300));
        assert_eq!(go.depth, Some(4));
        assert_eq!(go.nodes, Some(99));
        assert!(go.ponder && !go.infinite);
        assert_eq!(
            ok("go"),
            Command::Go(GoCommand::Search(GoSearch::default()))
        );
        assert_eq!(
            ok("go mate 500"),
            Command::Go(GoCommand::Mate(MateLimit::Time(Duration::from_millis(500))))
        );
        assert_eq!(
            ok("go mate infinite"),
            Command::Go(GoCommand::Mate(MateLimit::Infinite))
        );
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(err("hello world"), "unknown command 'hello'");
        assert_eq!(err("isready now"), "isready: unexpected 'now'");
        assert_eq!(err("go depth"), "'depth' needs a positive integer");
        assert_eq!(
            err("go depth x"),
            "'depth' needs a positive integer, got 'x'"
        );
        assert_eq!(err("go depth 0"), "'depth' must be at least 1");
        assert_eq!(
            err("go btime 1.5"),
            "'btime' needs a time in milliseconds, got '1.5'"
        );
        assert_eq!(err("go fast"), "go: unknown parameter 'fast'");
        assert_eq!(err("go depth 2 depth 3"), "go: 'depth' given twice");
        assert_eq!(
            err("go mate 10 depth 2"),
            "go: 'mate' cannot be combined with other parameters"
        );
        assert_eq!(
            err("go mate"),
            "'mate' needs a time in milliseconds or 'infinite'"
        );
        assert_eq!(
            err("go mate soon"),
            "'mate' needs a time in milliseconds, got 'soon'"
        );
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
        assert_eq!(err("x\u{1}y"), "unknown command 'x\\u{1}y'");
        assert!(err(&"z".repeat(100)).ends_with("…'"));
    }
}
