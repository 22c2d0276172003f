//! `engine play 0|1`: the course protocol (`docs/course-protocol.md`).
//! Moves go one per line in course notation (`2A3A`, `5C1CN`, `3CFU`); standard output carries
//! only our moves and the final verdict, said from the opponent's point of view: `You Win`,
//! `You Lose` or `Draw`. Any malformed or illegal input loses for the opponent.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::time::Duration;

use crate::player::Player;
use crate::players::{self, new_player};
use crate::protocol::usi::evaluator;
use crate::search::{Limits, SearchControl, SearchOptions};
use crate::shogi::display;
use crate::shogi::{Color, Game, GameStatus, Move, PieceKind, Position};

/// The course's draw: 150 plies with no result.
pub const COURSE_MAX_PLIES: u32 = 150;

/// Picks our moves.
pub trait MoveChooser {
    /// A move for the side to move in `game`, which is not over.
    fn choose(&mut self, game: &Game) -> Move;
}

/// How a course game ended for this program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CourseOutcome {
    /// The game ended and this verdict line was printed.
    Verdict(&'static str),
    /// The opponent's input ended before the game did (nothing printed).
    InputClosed,
}

pub const YOU_WIN: &str = "You Win";
pub const YOU_LOSE: &str = "You Lose";
pub const DRAW: &str = "Draw";

/// The verdict line for a finished game, from the opponent's point of view.
fn verdict(status: GameStatus, engine: Color) -> Option<&'static str> {
    match status {
        GameStatus::Ongoing => None,
        GameStatus::Win { winner, .. } if winner == engine => Some(YOU_LOSE),
        GameStatus::Win { .. } => Some(YOU_WIN),
        GameStatus::Draw(_) => Some(DRAW),
    }
}

/// Whitespace-separated tokens from the opponent, read a line at a time.
struct Tokens<R> {
    input: R,
    pending: VecDeque<String>,
}

impl<R: BufRead> Tokens<R> {
    fn next(&mut self) -> io::Result<Option<String>> {
        while self.pending.is_empty() {
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                return Ok(None);
            }
            self.pending
                .extend(line.split_whitespace().map(str::to_string));
        }
        Ok(self.pending.pop_front())
    }
}

/// The board in the course's frame for a person at a terminal: columns A–E, rows 5 (gote's
/// back rank, at the top) to 1, gote's pieces marked `v`.
pub fn course_board(pos: &Position) -> String {
    let hand = |color: Color| {
        let parts: Vec<String> = PieceKind::HAND
            .iter()
            .rev()
            .filter(|&&k| pos.hand(color).count(k) > 0)
            .map(|&k| match pos.hand(color).count(k) {
                1 => format!("{}({})", k.kanji(), k.course_code()),
                n => format!("{}({})x{n}", k.kanji(), k.course_code()),
            })
            .collect();
        if parts.is_empty() {
            "-".to_string()
        } else {
            parts.join(" ")
        }
    };
    let mut s = format!(
        "gote hand: {}\n     A  B  C  D  E\n   +---------------+\n",
        hand(Color::Gote)
    );
    for (rank, row) in display::board_rows(pos, display::kanji_cell)
        .iter()
        .enumerate()
    {
        s.push_str(&format!(" {} |{row}|\n", 5 - rank));
    }
    s.push_str("   +---------------+\n");
    s.push_str(&format!("sente hand: {}", hand(Color::Sente)));
    s
}

fn show_move(game: &Game, mover: &str, mv: Move) {
    eprintln!(
        "\nply {} {mover}: {}\n{}",
        game.plies(),
        mv.course(),
        course_board(game.position())
    );
}

/// Plays one game by the course protocol. `game` is where play starts (the initial position in
/// a real game; tests start elsewhere) with its ply limit set; `engine` is our colour.
pub fn play_course(
    mut game: Game,
    engine: Color,
    chooser: &mut dyn MoveChooser,
    input: impl BufRead,
    mut output: impl Write,
    show: bool,
) -> io::Result<CourseOutcome> {
    let mut tokens = Tokens {
        input,
        pending: VecDeque::new(),
    };
    if show {
        eprintln!("{}", course_board(game.position()));
    }
    loop {
        if let Some(line) = verdict(game.status(), engine) {
            log::info!("game over: {:?}", game.status());
            writeln!(output, "{line}")?;
            output.flush()?;
            return Ok(CourseOutcome::Verdict(line));
        }
        if game.position().side_to_move() == engine {
            let mut mv = chooser.choose(&game);
            if !game.position().is_legal(mv) {
                // A search bug must not forfeit the game: play any legal move instead.
                log::error!("chosen move {mv} is illegal; playing the first legal move");
                mv = game.position().legal_moves()[0];
            }
            game.play(mv).expect("the move is legal");
            writeln!(output, "{}", mv.course())?;
            output.flush()?;
            if show {
                show_move(&game, "engine", mv);
            }
        } else {
            let Some(token) = tokens.next()? else {
                log::warn!("the opponent's input ended before the game did");
                return Ok(CourseOutcome::InputClosed);
            };
            match game.position().parse_course_move(&token) {
                Ok(mv) => {
                    game.play(mv).expect("parse_course_move checks legality");
                    if show {
                        show_move(&game, "opponent", mv);
                    }
                }
                Err(e) => {
                    log::warn!("opponent loses: {e}");
                    writeln!(output, "{YOU_LOSE}")?;
                    output.flush()?;
                    return Ok(CourseOutcome::Verdict(YOU_LOSE));
                }
            }
        }
    }
}

/// Our moves from the engine's search, under a fixed time or depth per move.
pub struct SearchChooser {
    player: Box<dyn Player>,
    movetime: Duration,
    depth: Option<u32>,
    /// Report each search on stderr (with `--show`).
    verbose: bool,
}

impl MoveChooser for SearchChooser {
    fn choose(&mut self, game: &Game) -> Move {
        let limits = Limits {
            depth: self.depth,
            nodes: None,
            movetime: self.depth.is_none().then_some(self.movetime),
            ..Limits::default()
        };
        let control = SearchControl::default();
        let result = self.player.search(game, &limits, &control, &mut |_| {});
        if self.verbose {
            eprintln!(
                "search: depth {}, score {:?}, {} nodes",
                result.depth, result.score, result.nodes
            );
        }
        // `None` only without legal moves, which the protocol loop never asks about.
        result
            .best
            .unwrap_or_else(|| game.position().legal_moves()[0])
    }
}

/// `engine play 0|1`: one game by the course protocol on standard input and output.
#[derive(clap::Args, Debug, Clone)]
pub struct PlayArgs {
    /// 1: the engine is sente and moves first; 0: the opponent moves first.
    #[arg(value_parser = clap::value_parser!(u8).range(0..=1))]
    pub side: u8,
    /// Thinking time per move in seconds (the course allows about 10).
    #[arg(long, value_name = "SECS", default_value_t = 9.0)]
    pub movetime: f64,
    /// Search to this depth instead of for a time.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Network weights for the evaluation (default: the built-in evaluation).
    #[arg(long, value_name = "FILE")]
    pub eval_file: Option<String>,
    /// Which evaluator: network, classical (the value map) or material (as the USI option
    /// `Evaluator`).
    #[arg(long, value_name = "NAME", default_value = evaluator::NETWORK)]
    pub evaluator: String,
    /// The classical evaluator's parameters file (default: the shipped map).
    #[arg(long, value_name = "FILE")]
    pub classical_file: Option<String>,
    /// Which player searches (`alphabeta`, the only one so far).
    #[arg(long, value_name = "NAME", default_value = players::ALPHABETA)]
    pub search: String,
    /// Draw the board on standard error after each move.
    #[arg(long)]
    pub show: bool,
}

pub fn run(args: &PlayArgs) -> Result<(), String> {
    let movetime = Duration::try_from_secs_f64(args.movetime)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| format!("--movetime {} is not a positive time", args.movetime))?;
    let mut player =
        new_player(&args.search, SearchOptions::default()).map_err(|e| format!("--search: {e}"))?;
    let kind = evaluator::KINDS
        .iter()
        .find(|k| k.eq_ignore_ascii_case(&args.evaluator))
        .ok_or_else(|| {
            format!(
                "--evaluator {}: one of {}",
                args.evaluator,
                evaluator::KINDS.join(", ")
            )
        })?;
    let choice = evaluator::Choice {
        kind,
        eval_file: args.eval_file.clone().unwrap_or_default(),
        classical_file: args.classical_file.clone().unwrap_or_default(),
    };
    player.set_evaluator(evaluator::select(&choice)?.evaluator);
    let mut chooser = SearchChooser {
        player,
        movetime,
        depth: args.depth,
        verbose: args.show,
    };
    let engine = if args.side == 1 {
        Color::Sente
    } else {
        Color::Gote
    };
    let mut game = Game::startpos();
    game.set_max_plies(Some(COURSE_MAX_PLIES));
    let stdin = io::stdin();
    play_course(
        game,
        engine,
        &mut chooser,
        stdin.lock(),
        io::stdout().lock(),
        args.show,
    )
    .map_err(|e| format!("course game: {e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays scripted USI moves, then the first legal move.
    struct Scripted(VecDeque<String>);

    impl Scripted {
        fn new(usi: &str) -> Scripted {
            Scripted(usi.split_whitespace().map(str::to_string).collect())
        }
    }

    impl MoveChooser for Scripted {
        fn choose(&mut self, game: &Game) -> Move {
            let pos = game.position();
            match self.0.pop_front() {
                Some(text) => pos.parse_move(&text).expect("scripted moves are legal"),
                None => pos.legal_moves()[0],
            }
        }
    }

    /// Runs a game from `sfen` (None: the initial position) with the opponent's `input`.
    fn run(
        sfen: Option<&str>,
        engine: Color,
        ours: &str,
        input: &str,
        max_plies: u32,
    ) -> (CourseOutcome, Vec<String>) {
        let start = sfen.map_or_else(Position::startpos, |s| Position::from_sfen(s).unwrap());
        let mut game = Game::new(start);
        game.set_max_plies(Some(max_plies));
        let mut out = Vec::new();
        let outcome = play_course(
            game,
            engine,
            &mut Scripted::new(ours),
            input.as_bytes(),
            &mut out,
            false,
        )
        .unwrap();
        let lines = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        (outcome, lines)
    }

    #[test]
    fn the_real_course_game_replays() {
        // The reference game: after gote's 5C1CN (dragon on 3e checking the king on 5e) the side
        // to move, sente, has one legal move: 1BKK, the bishop drop B*4e.
        let sente = "1B2B 2B3B 3B2B 2B2C 2C3D";
        let gote = "5B4C 4C3D 5C4B 5A5C 5C1CN";
        // We are sente and play the recorded moves; the forced drop is then our only choice.
        let (outcome, lines) = run(None, Color::Sente, sente, gote, COURSE_MAX_PLIES);
        assert_eq!(outcome, CourseOutcome::InputClosed);
        assert_eq!(lines, ["1B2B", "2B3B", "3B2B", "2B2C", "2C3D", "1BKK"]);
        // We are gote: the opponent's moves, the drop included, are all accepted.
        let (outcome, lines) = run(None, Color::Gote, gote, &format!("{sente} 1BKK"), 150);
        assert_eq!(outcome, CourseOutcome::InputClosed);
        assert_eq!(lines[..5], ["5B4C", "4C3D", "5C4B", "5A5C", "5C1CN"]);
        assert_eq!(
            lines.len(),
            6,
            "one more move of ours after 1BKK: {lines:?}"
        );
        let mut game = Game::startpos();
        for text in "1B2B 5B4C 2B3B 4C3D 3B2B 5C4B 2B2C 5A5C 2C3D 5C1CN".split(' ') {
            let mv = game.position().parse_course_move(text).unwrap();
            assert_eq!(mv.course(), text);
            game.play(mv).unwrap();
        }
        let only = game.position().legal_moves();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].course(), "1BKK");
        assert_eq!(only[0].to_string(), "B*4e");
    }

    #[test]
    fn board_for_people_uses_course_coordinates() {
        let pos = Position::from_sfen("rbsgk/4p/5/P4/KGSB1 b R 1").unwrap();
        let board = course_board(&pos);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines[1], "     A  B  C  D  E");
        assert_eq!(lines[3], " 5 |v飛v角v銀v金v玉|");
        assert_eq!(lines[7], " 1 | 玉 金 銀 角 ・|");
        assert_eq!(lines[9], "sente hand: 飛(HI)");
        // 1A is sente's king, as in the course notation.
        assert_eq!(pos.parse_course_move("1A2B").unwrap().to_string(), "5e4d");
    }

    #[test]
    fn engine_as_sente_moves_first_and_reads_tokens_across_lines() {
        // 2e1d is 1D2E in course notation, 4a5b is 5B4A.
        let (outcome, lines) = run(None, Color::Sente, "2e1d", "\n  5B4A   \n", 150);
        assert_eq!(outcome, CourseOutcome::InputClosed);
        assert_eq!(lines[0], "1D2E");
        assert_eq!(lines.len(), 2);
    }

    /// Each kind of violation by the opponent (sente here) loses on the spot. The expected
    /// reason is checked first, so each case tests the violation it names.
    #[test]
    fn opponent_violations_lose() {
        let cases: [(&str, Option<&str>, &str); 10] = [
            ("in '", None, "hello"),
            ("in '", None, "1b2a"), // lowercase
            ("in '", None, "2e1d"), // USI instead of course notation
            ("cannot reach", None, "1A5A"),
            ("no Pawn in hand", None, "3CFU"),
            // Sente pawn on 5d and one in hand: a drop on 5c is 二歩.
            ("二歩", Some("k4/5/5/P4/K4 b P 1"), "3AFU"),
            ("last rank", Some("k4/5/5/5/K4 b P 1"), "5CFU"),
            // Gote king 1a hemmed in by its rook 2a and bishop 2b, 1b guarded by the silver 2c.
            ("打ち歩詰め", Some("3rk/3b1/3S1/5/1K3 b P 1"), "4EFU"),
            // Sente pawn 3b to 3a without promoting.
            ("must promote", Some("k4/2P2/5/5/4K b - 1"), "4C5C"),
            // Sente king 5e in check from the rook on 5a: moving the gold leaves it in check.
            (
                "leaves the king in check",
                Some("r3k/5/5/5/KG3 b - 1"),
                "1B2B",
            ),
        ];
        for (reason, sfen, input) in cases {
            let start = sfen.map_or_else(Position::startpos, |s| Position::from_sfen(s).unwrap());
            let error = start.parse_course_move(input).unwrap_err();
            assert!(error.to_string().contains(reason), "{input}: {error}");
            let (outcome, lines) = run(sfen, Color::Gote, "", input, 150);
            assert_eq!(outcome, CourseOutcome::Verdict(YOU_LOSE), "{input}");
            assert_eq!(lines, [YOU_LOSE], "{input}");
        }
        // A violation after good moves still loses, and our move was printed before.
        let (outcome, lines) = run(None, Color::Gote, "4a5b", "1D2E 1A1A", 150);
        assert_eq!(outcome, CourseOutcome::Verdict(YOU_LOSE));
        assert_eq!(lines, ["5B4A", YOU_LOSE]);
    }

    #[test]
    fn verdicts_for_mate_repetition_and_ply_limit() {
        // We mate with G*1b (4EKI), supported by the silver on 2c: the move, then You Lose.
        let mate = Some("4k/5/3S1/5/K4 b G 1");
        let (outcome, lines) = run(mate, Color::Sente, "G*1b", "", 150);
        assert_eq!(outcome, CourseOutcome::Verdict(YOU_LOSE));
        assert_eq!(lines, ["4EKI", YOU_LOSE]);
        // The opponent mates us: You Win.
        let (outcome, lines) = run(mate, Color::Gote, "", "4EKI", 150);
        assert_eq!(outcome, CourseOutcome::Verdict(YOU_WIN));
        assert_eq!(lines, [YOU_WIN]);
        // Both golds shuffle (sente 4e4d = 1B2B, gote 2a2b = 5D4D): the initial position
        // occurs for the fourth time after 12 plies, and sente loses.
        let sente_usi = "4e4d 4d4e 4e4d 4d4e 4e4d 4d4e";
        let sente_course = "1B2B 2B1B 1B2B 2B1B 1B2B 2B1B";
        let gote_usi = "2a2b 2b2a 2a2b 2b2a 2a2b 2b2a";
        let gote_course = "5D4D 4D5D 5D4D 4D5D 5D4D 4D5D";
        let (outcome, lines) = run(None, Color::Sente, sente_usi, gote_course, 150);
        assert_eq!(outcome, CourseOutcome::Verdict(YOU_WIN));
        assert_eq!(lines.join(" "), format!("{sente_course} {YOU_WIN}"));
        let (outcome, lines) = run(None, Color::Gote, gote_usi, sente_course, 150);
        assert_eq!(outcome, CourseOutcome::Verdict(YOU_LOSE));
        assert_eq!(lines.join(" "), format!("{gote_course} {YOU_LOSE}"));
        // The ply limit (150 in real games) is a draw.
        let (outcome, lines) = run(None, Color::Sente, sente_usi, gote_course, 4);
        assert_eq!(outcome, CourseOutcome::Verdict(DRAW));
        assert_eq!(lines, ["1B2B", "2B1B", DRAW]);
    }
}
