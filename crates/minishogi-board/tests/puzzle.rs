//! Puzzles on the board's core: started from a page's fields, the person's moves judged, the
//! opponent's replies played by the core, hints, the solution shown, and no engine at work.
//! The positions are the test's own; each solution is worked out here by the rules' brute-force
//! mate checker, so that the test holds whatever line a solver would pick.

use minishogi_board::puzzle::PuzzleStart;
use minishogi_board::shogi::mate_oracle::{loses_within, wins_within};
use minishogi_board::shogi::{Move, Position};
use minishogi_board::view::{Event, State};
use minishogi_board::{Board, Command, Job, NewGame, Player};
use serde_json::Value;

/// Sente mates in two (three plies), checking; from the engine's mate tests.
const MATE_IN_TWO: &str = "+B4/K3k/4p/P1G2/1BS+sR b Gr 1";
/// Gote's king alone on 1a; sente's gold on 2c and one in hand: G*1b and G*2b both mate.
const MATE_IN_ONE: &str = "4k/5/3G1/5/K4 b G 1";

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap()
}

/// A mate within `plies` from `p`: the first winning move, the defence that resists longest
/// (the first of those), and so on.
fn solve(p: &Position, plies: u32) -> Vec<Move> {
    let mut line = Vec::new();
    let mut p = p.clone();
    let mut left = plies;
    loop {
        let mv = *p
            .legal_moves()
            .iter()
            .find(|&&m| loses_within(&p.after(m), left - 1, false))
            .expect("a winning move");
        line.push(mv);
        p.make_move(mv);
        if left == 1 {
            return line;
        }
        left -= 2;
        // The reply after which the mate takes longest.
        let reply = *p
            .legal_moves()
            .iter()
            .max_by_key(|&&r| {
                let after = p.after(r);
                (1..=left)
                    .step_by(2)
                    .find(|&n| wins_within(&after, n, false))
            })
            .expect("a defence");
        line.push(reply);
        p.make_move(reply);
    }
}

fn start(id: &str, sfen: &str, moves: &[Move]) -> PuzzleStart {
    PuzzleStart {
        id: id.to_string(),
        sfen: sfen.to_string(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
    }
}

/// The states the core published since it was last asked, and whether it asked for an engine.
fn published(board: &mut Board) -> (Vec<State>, bool) {
    let mut states = Vec::new();
    let mut engines = false;
    for command in board.take_commands() {
        match command {
            Command::Event(Event::State(state)) => states.push(*state),
            Command::Event(_) => {}
            Command::Start { .. } | Command::Job { .. } => engines = true,
            Command::Close { .. } => {}
        }
    }
    (states, engines)
}

fn puzzle(state: &State) -> Value {
    serde_json::to_value(state).unwrap()["puzzle"].clone()
}

#[test]
fn a_right_move_is_answered_by_the_solutions_reply_and_the_last_one_solves() {
    let solution = solve(&pos(MATE_IN_TWO), 3);
    assert_eq!(solution.len(), 3);
    let mut board = Board::new(Vec::new());
    let state = board
        .start_puzzle(&start("m2", MATE_IN_TWO, &solution))
        .unwrap();
    assert_eq!(state.position.sfen, pos(MATE_IN_TWO).to_sfen());
    assert_eq!(
        (state.players.sente, state.players.gote),
        (Player::Human, Player::Human)
    );
    let view = puzzle(&state);
    assert_eq!(view["id"], "m2");
    assert_eq!(view["status"], "solving");
    assert_eq!(view["solver"], "sente");
    assert_eq!(
        (view["done"].clone(), view["total"].clone()),
        (0.into(), 2.into())
    );
    assert!(
        view["solution"].is_null(),
        "the solution is kept until the end"
    );
    let (_, engines) = published(&mut board);
    assert!(!engines, "a puzzle starts no engine");

    // The first move: the reply follows, in a state of its own after the person's.
    let state = board.play_move(&solution[0].to_string()).unwrap();
    assert_eq!(state.ply, 2);
    assert_eq!(state.position.last_move, Some(solution[1].to_string()));
    let (states, engines) = published(&mut board);
    assert!(!engines, "the core replies, not an engine");
    let plies: Vec<usize> = states.iter().map(|s| s.ply).collect();
    assert_eq!(plies, [1, 2], "the person's move, then the reply");
    assert_eq!(puzzle(&state)["done"], 1);
    assert_eq!(puzzle(&state)["status"], "solving");

    let state = board.play_move(&solution[2].to_string()).unwrap();
    assert_eq!(puzzle(&state)["status"], "solved");
    assert_eq!(puzzle(&state)["done"], 2);
    assert_eq!(state.result.as_ref().map(|r| r.reason), Some("checkmate"));
    let shown: Vec<String> = solution.iter().map(|m| m.to_string()).collect();
    assert_eq!(puzzle(&state)["solution"], serde_json::json!(shown));
    assert_eq!(puzzle(&state)["solution_ja"].as_array().unwrap().len(), 3);
    // Over: analysis may run now.
    assert!(board.set_analysis(true, None).unwrap().analysis.on);
}

#[test]
fn a_wrong_move_fails_the_puzzle_stays_shown_and_the_solution_can_be_stepped() {
    let p = pos(MATE_IN_TWO);
    let solution = solve(&p, 3);
    let wrong = *p
        .legal_moves()
        .iter()
        .find(|&&m| m != solution[0] && !p.after(m).is_checkmate())
        .unwrap();
    let mut board = Board::new(Vec::new());
    board
        .start_puzzle(&start("m2", MATE_IN_TWO, &solution))
        .unwrap();
    let state = board.play_move(&wrong.to_string()).unwrap();
    assert_eq!(state.ply, 1, "no reply to a wrong move");
    assert_eq!(state.position.last_move, Some(wrong.to_string()));
    let view = puzzle(&state);
    assert_eq!(view["status"], "failed");
    assert_eq!(view["wrong"], wrong.to_string());
    assert_eq!(view["solution"].as_array().unwrap().len(), 3);

    // The solution: a variation beside the wrong move, the cursor where it went wrong.
    let state = board.puzzle_solution().unwrap();
    assert_eq!(state.cursor, 0);
    let line: Vec<&str> = state.line.iter().map(|m| m.usi.as_str()).collect();
    let shown: Vec<String> = solution.iter().map(|m| m.to_string()).collect();
    assert_eq!(line, shown);
    let variations = state.line[0].variations.as_ref().unwrap();
    assert_eq!(variations[0].usi, wrong.to_string());
    // Stepping through it is the board's own navigation.
    let end = state.line.last().unwrap().node;
    assert_eq!(board.goto(end).unwrap().result.unwrap().reason, "checkmate");
    assert_eq!(puzzle(&board.state())["status"], "failed");
}

#[test]
fn at_the_last_move_any_mate_solves_and_hints_name_the_piece() {
    // The solution says G*2b; G*1b mates as well.
    let p = pos(MATE_IN_ONE);
    let g2b = p.parse_usi_move("G*2b").unwrap();
    let g1b = p.parse_usi_move("G*1b").unwrap();
    assert!(p.after(g1b).is_checkmate());
    let mut board = Board::new(Vec::new());
    board
        .start_puzzle(&start("m1", MATE_IN_ONE, &[g2b]))
        .unwrap();
    let state = board.puzzle_hint().unwrap();
    assert_eq!(puzzle(&state)["hint"], serde_json::json!({"drop": "G"}));
    assert_eq!(puzzle(&state)["hints"], 1);
    let state = board.play_move("G*1b").unwrap();
    assert_eq!(puzzle(&state)["status"], "solved");
    assert!(puzzle(&state)["hint"].is_null());
    assert_eq!(
        board.puzzle_hint().unwrap_err(),
        "no puzzle is being solved"
    );

    // A board move's hint is its square; a gote solver's puzzle.
    let solution = solve(&pos("1rs1k/3s1/r2B1/1P2g/1K2B w gp 1"), 3);
    let state = board
        .start_puzzle(&start("g", "1rs1k/3s1/r2B1/1P2g/1K2B w gp 1", &solution))
        .unwrap();
    assert_eq!(puzzle(&state)["solver"], "gote");
    let hint = puzzle(&board.puzzle_hint().unwrap())["hint"].clone();
    match (solution[0].from(), solution[0].dropped()) {
        (Some(from), _) => assert_eq!(hint, serde_json::json!({"square": from.to_string()})),
        (None, Some(kind)) => {
            assert_eq!(
                hint,
                serde_json::json!({"drop": kind.usi_letter().to_ascii_uppercase().to_string()})
            )
        }
        _ => unreachable!(),
    }
}

#[test]
fn bad_puzzles_are_refused_with_the_session_unchanged() {
    let mut board = Board::new(Vec::new());
    board.play_move("2e3d").unwrap();
    let before = board.state();
    let solution = solve(&pos(MATE_IN_TWO), 3);
    let mut illegal = start("x", MATE_IN_TWO, &solution);
    illegal.moves[1] = illegal.moves[0].clone();
    for (bad, says) in [
        (start("x", "rbsgk/4p/5/P4/KGSBR q - 1", &solution), "SFEN"),
        (start("x", MATE_IN_TWO, &solution[..2]), "odd number"),
        (illegal, "solution move 2"),
        (start("", MATE_IN_TWO, &solution), "id"),
    ] {
        let error = board.start_puzzle(&bad).unwrap_err();
        assert!(error.contains(says), "{error}");
        assert_eq!(board.state(), before, "{error}: the session unchanged");
    }
    let _ = board.take_commands();
}

#[test]
fn no_engine_plays_or_analyses_during_a_puzzle() {
    let mut board = Board::new(Vec::new());
    board.set_analysis(true, None).unwrap();
    let _ = board.take_commands();
    let solution = solve(&pos(MATE_IN_TWO), 3);
    let state = board
        .start_puzzle(&start("m2", MATE_IN_TWO, &solution))
        .unwrap();
    assert!(!state.analysis.on, "analysis stops for the puzzle");
    for command in board.take_commands() {
        assert!(
            matches!(
                command,
                Command::Event(_) | Command::Job { job: Job::Stop, .. }
            ),
            "only the analysis stopped: {command:?}"
        );
    }
    let said = "a puzzle is being solved";
    assert_eq!(board.set_analysis(true, None).unwrap_err(), said);
    assert_eq!(board.mate_search(1000).unwrap_err(), said);
    board.play_move(&solution[0].to_string()).unwrap();
    assert_eq!(board.undo().unwrap_err(), said);
    assert_eq!(board.resign().unwrap_err(), said);
    assert_eq!(board.review(1000).unwrap_err(), said);
    // Looking back is allowed; moves are played at the puzzle's position only.
    let state = board.goto(0).unwrap();
    assert!(state.legal_moves.is_empty());
    assert!(board.play_move(&solution[0].to_string()).is_err());
    // A hint brings the board back.
    let state = board.puzzle_hint().unwrap();
    assert_eq!(state.ply, 2);
    let (_, engines) = published(&mut board);
    assert!(!engines, "no engine was asked for anything");
    // Giving up shows the solution; a new game ends the puzzle.
    let state = board.puzzle_solution().unwrap();
    assert_eq!(puzzle(&state)["status"], "failed");
    assert!(puzzle(&state)["wrong"].is_null());
    assert_eq!(state.cursor, state.line[1].node, "where the person gave up");
    let state = board
        .new_game(NewGame {
            sfen: None,
            sente: Player::Human,
            gote: Player::Human,
            engine: None,
            level: None,
            elo: None,
            clock: None,
            movetime_ms: None,
        })
        .unwrap();
    assert!(state.puzzle.is_none());
    board
        .start_puzzle(&start("m2", MATE_IN_TWO, &solution))
        .unwrap();
    let state = board.end_puzzle().unwrap();
    assert!(state.puzzle.is_none());
    assert_eq!(
        state.position.sfen,
        pos(MATE_IN_TWO).to_sfen(),
        "the position stays"
    );
    assert_eq!(board.end_puzzle().unwrap_err(), "no puzzle");
}
