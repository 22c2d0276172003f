//! The board's core driven as a transport drives it, with no engine behind it: the test reads
//! the commands the core gives and answers as an engine would.

use minishogi_board::view::Event;
use minishogi_board::{Board, Command, Job, NewGame, Player, Purpose, Report, Role};

/// The commands since the last call, split into jobs (with the serial of the engine started
/// for their role) and the names of the events.
fn drain(board: &mut Board, serials: &mut [u64; 2]) -> (Vec<(Role, Job)>, Vec<&'static str>) {
    let mut jobs = Vec::new();
    let mut events = Vec::new();
    for command in board.take_commands() {
        match command {
            Command::Start { role, serial, .. } => serials[role as usize] = serial,
            Command::Job { role, job } => jobs.push((role, job)),
            Command::Event(event) => events.push(event.name()),
            Command::Close { .. } => {}
        }
    }
    (jobs, events)
}

fn new_game(sente: Player, gote: Player) -> NewGame {
    NewGame {
        sfen: None,
        sente,
        gote,
        engine: None,
        level: Some(3),
        elo: None,
        clock: None,
        movetime_ms: Some(100),
    }
}

#[test]
fn the_engine_is_asked_for_its_move_and_its_answer_is_played() {
    let mut board = Board::new(Vec::new());
    let mut serials = [0; 2];
    board
        .new_game(new_game(Player::Human, Player::Engine))
        .unwrap();
    let (jobs, events) = drain(&mut board, &mut serials);
    assert!(jobs.is_empty(), "a person is to move: {jobs:?}");
    assert_eq!(events, ["state"]);

    let state = board.play_move("2e3d").unwrap();
    assert_eq!(state.ply, 1);
    assert!(state.thinking);
    let (jobs, _) = drain(&mut board, &mut serials);
    let [
        (
            Role::Opponent,
            Job::Search {
                position,
                go,
                purpose,
            },
        ),
    ] = &jobs[..]
    else {
        panic!("one search for the opponent: {jobs:?}");
    };
    assert_eq!(
        position,
        "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 2e3d"
    );
    assert_eq!(go, "go movetime 100");
    let serial = serials[Role::Opponent as usize];
    assert!(serial > 0, "the opponent was started");

    // A person cannot move for the engine.
    assert_eq!(
        board.play_move("4a3b").unwrap_err(),
        "the engine is to move"
    );
    // A report from an engine of another start is not heard.
    let answer = |token: &str| Report::BestMove {
        purpose: *purpose,
        token: token.to_string(),
    };
    board.on_report(Role::Opponent, serial + 7, answer("4a3b"));
    assert_eq!(board.state().ply, 1);

    board.on_report(
        Role::Opponent,
        serial,
        Report::Info {
            purpose: *purpose,
            line: "info depth 5 score cp -40 nodes 900 pv 4a3b 3d2c".to_string(),
        },
    );
    let info = board
        .take_commands()
        .into_iter()
        .find_map(|c| match c {
            Command::Event(Event::Info(info)) => Some(info),
            _ => None,
        })
        .expect("an info event");
    assert_eq!(info.node, 1);
    assert_eq!(info.pv_en.len(), 2, "{:?}", info.pv_en);
    let win = info.win.unwrap();
    assert!(win < 0.5 && win > 0.3, "{win}");

    board.on_report(Role::Opponent, serial, answer("4a3b"));
    let state = board.state();
    assert_eq!(state.ply, 2);
    assert!(!state.thinking);
    assert_eq!(state.position.last_move.as_deref(), Some("4a3b"));
    // The engine's evaluation, from sente's view, is on the line.
    let eval = state.evals[1].expect("the evaluation of ply 1");
    assert_eq!(eval.cp, Some(40));
}

#[test]
fn an_illegal_bestmove_loses_and_a_stale_one_is_ignored() {
    let mut board = Board::new(Vec::new());
    let mut serials = [0; 2];
    board
        .new_game(new_game(Player::Engine, Player::Human))
        .unwrap();
    let (jobs, _) = drain(&mut board, &mut serials);
    let [(Role::Opponent, Job::Search { purpose, .. })] = &jobs[..] else {
        panic!("{jobs:?}");
    };
    let serial = serials[Role::Opponent as usize];
    // A new game: the answer for the old one is stale.
    board
        .new_game(new_game(Player::Engine, Player::Human))
        .unwrap();
    let (jobs, _) = drain(&mut board, &mut serials);
    let fresh = jobs
        .iter()
        .find_map(|(_, job)| match job {
            Job::Search { purpose, .. } => Some(*purpose),
            _ => None,
        })
        .expect("a search for the new game");
    assert_ne!(fresh, *purpose);
    board.on_report(
        Role::Opponent,
        serial,
        Report::BestMove {
            purpose: *purpose,
            token: "2e3d".to_string(),
        },
    );
    assert_eq!(board.state().ply, 0);
    board.on_report(
        Role::Opponent,
        serial,
        Report::BestMove {
            purpose: fresh,
            token: "5a5b".to_string(),
        },
    );
    let state = board.state();
    let result = state.result.expect("the game is over");
    assert_eq!(result.reason, "illegal move");
    assert!(state.error.unwrap().contains("5a5b"));
}

#[test]
fn analysis_follows_the_cursor_and_previews_show_a_line() {
    let mut board = Board::new(Vec::new());
    let mut serials = [0; 2];
    board
        .new_game(new_game(Player::Human, Player::Human))
        .unwrap();
    board.play_move("2e3d").unwrap();
    board.set_analysis(true, Some(2)).unwrap();
    let (jobs, _) = drain(&mut board, &mut serials);
    assert!(
        matches!(&jobs[..], [(Role::Analyser, Job::Search { go, purpose: Purpose::Analyse { node: 1, .. }, .. })] if go == "go infinite"),
        "{jobs:?}"
    );
    board.goto(0).unwrap();
    let (jobs, _) = drain(&mut board, &mut serials);
    assert!(
        matches!(
            &jobs[..],
            [(
                Role::Analyser,
                Job::Search {
                    purpose: Purpose::Analyse { node: 0, .. },
                    ..
                }
            )]
        ),
        "{jobs:?}"
    );
    board.set_analysis(false, Some(2)).unwrap();
    let (jobs, _) = drain(&mut board, &mut serials);
    assert_eq!(jobs, [(Role::Analyser, Job::Stop)]);

    let view = board
        .preview(0, &["2e3d".to_string(), "4a3b".to_string()])
        .unwrap();
    assert_eq!(view.last_move.as_deref(), Some("4a3b"));
    assert_eq!(view.sfen, "r1sgk/2b1p/5/P1B2/KGS1R b - 3");
    let error = board.preview(0, &["2e3d".to_string(), "2e3d".to_string()]);
    assert!(error.unwrap_err().starts_with("move 2 (2e3d)"));
    assert_eq!(board.state().ply, 0, "a preview leaves the game alone");
}

#[test]
fn states_serialize_as_the_pages_read_them() {
    let board = Board::new(vec!["minishogi-engine".to_string(), "fsf".to_string()]);
    let json = serde_json::to_value(board.state()).unwrap();
    assert_eq!(json["sfen"], "rbsgk/4p/5/P4/KGSBR b - 1");
    assert_eq!(json["side_to_move"], "sente");
    assert_eq!(json["board"][4][0], "K");
    assert_eq!(json["hands"]["gote"]["P"], 0);
    assert_eq!(json["players"]["gote"], "engine");
    assert_eq!(json["engines"][1], "fsf");
    assert_eq!(json["evals"][0], serde_json::Value::Null);
    assert_eq!(json["elo_range"].as_array().unwrap().len(), 2);
    // No game chosen yet: the newcomer's level, and what it is worth (docs/levels.md).
    assert_eq!(json["level"], minishogi_board::NEWCOMER_LEVEL);
    assert_eq!(
        json["level_elo"],
        minishogi_engine::search::skill::elo_of_level(minishogi_board::NEWCOMER_LEVEL)
    );
    assert!(json["legal_moves"].as_array().unwrap().len() > 10);
}

#[test]
fn the_level_played_is_worth_its_elo_on_this_engines_scale_only() {
    let mut board = Board::new(vec!["minishogi-engine".to_string(), "fsf".to_string()]);
    let state = board
        .new_game(new_game(Player::Human, Player::Engine))
        .unwrap();
    assert_eq!((state.level, state.level_elo), (Some(3), Some(876)));
    let chosen = NewGame {
        level: None,
        elo: Some(1500),
        ..new_game(Player::Human, Player::Engine)
    };
    let state = board.new_game(chosen).unwrap();
    assert_eq!(
        (state.elo, state.level_elo),
        (Some(1500), None),
        "the Elo chosen is shown"
    );
    let other = NewGame {
        engine: Some("fsf".to_string()),
        ..new_game(Player::Human, Player::Engine)
    };
    let state = board.new_game(other).unwrap();
    assert_eq!(
        state.level_elo, None,
        "another program's levels are its own"
    );
}

/// The info events among the commands.
fn infos(commands: Vec<Command>) -> Vec<minishogi_board::view::InfoEvent> {
    commands
        .into_iter()
        .filter_map(|c| match c {
            Command::Event(Event::Info(info)) => Some(*info),
            _ => None,
        })
        .collect()
}

#[test]
fn a_new_game_is_analysed_afresh_and_the_old_analysis_is_not_heard() {
    let mut board = Board::new(Vec::new());
    let mut serials = [0; 2];
    board
        .new_game(new_game(Player::Human, Player::Human))
        .unwrap();
    board.set_analysis(true, None).unwrap();
    let (jobs, _) = drain(&mut board, &mut serials);
    let [(Role::Analyser, Job::Search { purpose: old, .. })] = &jobs[..] else {
        panic!("{jobs:?}");
    };
    let serial = serials[Role::Analyser as usize];
    // "Play from this position": a new game from another start, analysis still on.
    let mut game = new_game(Player::Human, Player::Human);
    game.sfen = Some("4k/5/2G2/5/K4 b G 1".to_string());
    board.new_game(game).unwrap();
    let (jobs, _) = drain(&mut board, &mut serials);
    assert!(
        jobs.iter().any(|(role, job)| *role == Role::Analyser
            && matches!(job, Job::Search { position, .. } if position.contains("4k/5/2G2/5/K4"))),
        "the new start is analysed: {jobs:?}"
    );
    // The old search's report, for node 0 of the old game, is not the new game's.
    board.on_report(
        Role::Analyser,
        serial,
        Report::Info {
            purpose: *old,
            line: "info depth 9 score cp 35 nodes 100 pv 2e3d".to_string(),
        },
    );
    assert!(infos(board.take_commands()).is_empty());
    assert_eq!(board.state().evals[0], None);
}

#[test]
fn a_page_that_comes_late_is_told_the_analysis_so_far() {
    let mut board = Board::new(Vec::new());
    let mut serials = [0; 2];
    board
        .new_game(new_game(Player::Human, Player::Human))
        .unwrap();
    board.set_analysis(true, Some(2)).unwrap();
    let (jobs, _) = drain(&mut board, &mut serials);
    let [(Role::Analyser, Job::Search { purpose, .. })] = &jobs[..] else {
        panic!("{jobs:?}");
    };
    let serial = serials[Role::Analyser as usize];
    for line in [
        "info depth 20 multipv 1 score cp 40 nodes 100 nps 10 pv 2e3d 4a3b",
        "info depth 20 multipv 2 score cp 10 nodes 100 nps 10 pv 1e2e",
        "info depth 21 currmove 2e3d nodes 200",
    ] {
        board.on_report(
            Role::Analyser,
            serial,
            Report::Info {
                purpose: *purpose,
                line: line.to_string(),
            },
        );
    }
    board.take_commands();
    let events = board.catch_up();
    let names: Vec<&str> = events.iter().map(Event::name).collect();
    assert_eq!(names[0], "state", "{names:?}");
    let lines: Vec<(u32, Vec<String>)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Info(info) if !info.info.pv.is_empty() => {
                Some((info.info.multipv, info.info.pv.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        lines,
        [
            (1, vec!["2e3d".to_string(), "4a3b".to_string()]),
            (2, vec!["1e2e".to_string()])
        ]
    );
    // A new game forgets them.
    board
        .new_game(new_game(Player::Human, Player::Human))
        .unwrap();
    board.take_commands();
    assert_eq!(board.catch_up().len(), 1);
}

#[test]
fn the_final_mate_is_evaluated_and_a_resigned_game_stays_over() {
    let mut board = Board::new(Vec::new());
    let mut game = new_game(Player::Human, Player::Human);
    game.sfen = Some("4k/5/2G2/5/K4 b G 1".to_string());
    board.new_game(game).unwrap();
    let state = board.play_move("G*2b").unwrap();
    let result = state.result.expect("mate");
    assert_eq!(result.reason, "checkmate");
    let eval = state.evals[1].expect("the mated position has its evaluation");
    assert_eq!((eval.mate, eval.win), (Some(0), 1.0), "sente has mated");

    let mut board = Board::new(Vec::new());
    board
        .new_game(new_game(Player::Human, Player::Engine))
        .unwrap();
    board.play_move("2e3d").unwrap();
    board.take_commands();
    board.resign().unwrap();
    let error = board.undo().unwrap_err();
    assert!(error.contains("over"), "{error}");
    let state = board.state();
    assert_eq!(state.result.map(|r| r.reason), Some("resignation"));
    assert_eq!(state.ply, 1);
}

#[test]
fn a_review_searches_each_position_and_marks_the_blunder() {
    let mut board = Board::new(Vec::new());
    let mut serials = [0; 2];
    board
        .new_game(new_game(Player::Human, Player::Human))
        .unwrap();
    for mv in ["2e3d", "4a3b", "3d2e"] {
        board.play_move(mv).unwrap();
    }
    board.goto(0).unwrap();
    drain(&mut board, &mut serials);
    let state = board.review(5000).unwrap();
    let review = state.review.expect("a review under way");
    assert_eq!((review.done, review.searched, review.total), (false, 0, 4));
    // The engine's scores, from the side to move's view, position by position: sente's
    // first move throws away 300 cp; gote's keeps the balance; sente's next is the engine's
    // own choice, which loses nothing whatever the next search says (here 180 cp more).
    let answers = [
        ("cp 0", "4e4d"),
        ("cp 320", "4a3b"),
        ("cp -320", "3d2e"),
        ("cp 500", "1a1b"),
    ];
    for (i, (score, best)) in answers.iter().enumerate() {
        let (jobs, _) = drain(&mut board, &mut serials);
        let [
            (
                Role::Analyser,
                Job::Search {
                    position,
                    go,
                    purpose,
                },
            ),
        ] = &jobs[..]
        else {
            panic!("position {i}: one search: {jobs:?}");
        };
        assert_eq!(go, "go nodes 5000");
        let moves = position
            .split(" moves ")
            .nth(1)
            .map_or(0, |m| m.split(' ').count());
        assert_eq!(moves, i, "the line up to position {i}: {position}");
        // Engines may not take other work meanwhile.
        assert!(board.set_analysis(true, None).is_err());
        let serial = serials[Role::Analyser as usize];
        board.on_report(
            Role::Analyser,
            serial,
            Report::Info {
                purpose: *purpose,
                line: format!("info depth 8 score {score} nodes 5000 pv {best}"),
            },
        );
        board.on_report(
            Role::Analyser,
            serial,
            Report::BestMove {
                purpose: *purpose,
                token: best.to_string(),
            },
        );
    }
    let (jobs, _) = drain(&mut board, &mut serials);
    assert!(jobs.is_empty(), "every position searched: {jobs:?}");
    let review = board.state().review.expect("the review");
    assert!(review.done);
    let marks: Vec<_> = review.moves.iter().map(|m| m.mark).collect();
    assert_eq!(
        marks,
        [Some(minishogi_board::review::Mark::Blunder), None, None]
    );
    assert_eq!(review.moves[0].best.as_deref(), Some("4e4d"));
    assert!(review.moves[0].loss > 15.0, "{}", review.moves[0].loss);
    assert_eq!(review.moves[2].loss, 0.0);
    let accuracy = review.accuracy.expect("accuracies");
    assert!(
        accuracy.gote.unwrap() > accuracy.sente.unwrap() + 20.0,
        "{accuracy:?}"
    );
    // Another move ends the review: it was of another line.
    let at = board.goto(state.line[1].node).unwrap();
    let other = at
        .legal_moves
        .iter()
        .find(|m| m.as_str() != "3d2e")
        .unwrap()
        .clone();
    board.play_move(&other).unwrap();
    assert!(board.state().review.is_none());
}

#[test]
fn a_session_starts_gently() {
    let board = Board::new(Vec::new());
    let state = board.state();
    assert_eq!(state.level, Some(minishogi_board::NEWCOMER_LEVEL));
    const { assert!(minishogi_board::NEWCOMER_LEVEL < 10, "a newcomer's level") };
    assert_eq!(state.players.gote, Player::Engine);
}
