//! The board's session core (`minishogi-board`) for the static page: the page's calls come in
//! as JSON, and each answer carries the call's result and what the core asked the page to do
//! (events to show, engines to start in workers, jobs for them, engines to end). The page's
//! local transport (`web/page/modules/transport-local.js`) is the other half.
//!
//! A call: `{"call": NAME, …}` with NAME `state`, `move` {move}, `new` {game: NewGame},
//! `catch_up`, `undo`, `resign`, `goto` {node}, `analysis` {on, multipv}, `mate` {movetime_ms},
//! `review` {nodes?}, `preview` {node, moves}, `setup` {board, hands, side_to_move} or
//! {start: true} (the editor's position checked: `{sfen, view, problem}`), `load_record` {bytes, format}, `save_record` {format}, `tick`,
//! `puzzle_start` {puzzle: {id, sfen, moves}}, `puzzle_hint`, `puzzle_solution`, `puzzle_end`,
//! or `report` {role, serial, report}. The answer: `{"ok": VALUE}` or `{"error": TEXT,
//! "status": 400 | 409}`, with `"commands": [...]` in both (the core's `Command`s).

use minishogi_board::setup::{Setup, SetupHands};
use minishogi_board::view::Side;
use minishogi_board::{
    Board, Command, NewGame, PuzzleStart, REVIEW_NODES, Report, Role, SELF_ENGINE, record_format,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The largest record the page may load, as the server's request limit.
pub const MAX_RECORD_BYTES: usize = 256 * 1024;

#[derive(Deserialize)]
#[serde(tag = "call", rename_all = "snake_case", deny_unknown_fields)]
enum Call {
    State,
    /// What a page that starts listening is sent first: the state, then the searches' lines.
    CatchUp,
    Move {
        #[serde(rename = "move")]
        mv: String,
    },
    New {
        game: NewGame,
    },
    Undo,
    Resign,
    Goto {
        node: usize,
    },
    Analysis {
        on: bool,
        #[serde(default)]
        multipv: Option<u32>,
    },
    Mate {
        movetime_ms: u64,
    },
    Review {
        #[serde(default = "review_nodes")]
        nodes: u64,
    },
    Preview {
        node: usize,
        moves: Vec<String>,
    },
    Setup {
        #[serde(default)]
        start: bool,
        #[serde(default)]
        board: Vec<Vec<String>>,
        #[serde(default)]
        hands: SetupHands,
        #[serde(default)]
        side_to_move: Option<Side>,
    },
    LoadRecord {
        bytes: Vec<u8>,
        #[serde(default)]
        format: Option<String>,
    },
    SaveRecord {
        format: String,
    },
    Tick,
    PuzzleStart {
        puzzle: PuzzleStart,
    },
    PuzzleHint,
    PuzzleSolution,
    PuzzleEnd,
    Report {
        role: Role,
        serial: u64,
        report: Report,
    },
}

/// A review's budget when the page names none: the core's.
fn review_nodes() -> u64 {
    REVIEW_NODES
}

/// The board as the page's local transport drives it.
pub struct BoardHost {
    board: Board,
}

impl Default for BoardHost {
    fn default() -> Self {
        BoardHost::new()
    }
}

/// What the page is told: a result or a refusal, and the commands.
#[derive(Serialize)]
struct Answer {
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    commands: Vec<Command>,
}

fn to_json<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl BoardHost {
    /// A board whose one engine is this one (in a worker).
    pub fn new() -> BoardHost {
        BoardHost {
            board: Board::new(vec![SELF_ENGINE.to_string()]),
        }
    }

    /// Handles one call (JSON) and returns the answer (JSON). Bad input is an answer with an
    /// error, never a panic.
    pub fn call(&mut self, request: &[u8]) -> Vec<u8> {
        let result = match serde_json::from_slice::<Call>(request) {
            Ok(call) => self.dispatch(call),
            Err(e) => Err((400, format!("request: {e}"))),
        };
        let (ok, error, status) = match result {
            Ok(value) => (Some(value), None, None),
            Err((status, message)) => (None, Some(message), Some(status)),
        };
        let answer = Answer {
            ok,
            error,
            status,
            commands: self.board.take_commands(),
        };
        serde_json::to_vec(&answer).unwrap_or_else(|e| {
            json!({"error": format!("answer: {e}"), "status": 500, "commands": []})
                .to_string()
                .into_bytes()
        })
    }

    fn dispatch(&mut self, call: Call) -> Result<Value, (u16, String)> {
        let refused = |message: String| {
            // The same statuses as the server's.
            let status = if message == "the engine is to move" {
                409
            } else {
                400
            };
            (status, message)
        };
        let board = &mut self.board;
        let state = match call {
            Call::State => Ok(board.state()),
            Call::CatchUp => return Ok(to_json(board.catch_up())),
            Call::Move { mv } => board.play_move(mv.trim()),
            Call::New { game } => board.new_game(game),
            Call::Undo => board.undo(),
            Call::Resign => board.resign(),
            Call::Goto { node } => board.goto(node),
            Call::Analysis { on, multipv } => board.set_analysis(on, multipv),
            Call::Mate { movetime_ms } => board.mate_search(movetime_ms),
            Call::Review { nodes } => board.review(nodes),
            Call::Preview { node, moves } => {
                return board.preview(node, &moves).map(to_json).map_err(refused);
            }
            Call::Setup {
                start,
                board: rows,
                hands,
                side_to_move,
            } => {
                let setup = Setup {
                    start,
                    board: rows,
                    hands,
                    side_to_move,
                };
                return board.setup(&setup).map(to_json).map_err(refused);
            }
            Call::LoadRecord { bytes, format } => {
                if bytes.len() > MAX_RECORD_BYTES {
                    return Err((413, format!("the record is over {MAX_RECORD_BYTES} bytes")));
                }
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    return Err((400, "the record is empty".to_string()));
                }
                let format = record_format(format.as_deref()).map_err(refused)?;
                board.load_record(&bytes, format)
            }
            Call::SaveRecord { format } => {
                let format = record_format(Some(&format))
                    .map_err(refused)?
                    .unwrap_or(minishogi_board::records::Format::Kif);
                return Ok(to_json(board.record_file(format)));
            }
            Call::PuzzleStart { puzzle } => board.start_puzzle(&puzzle),
            Call::PuzzleHint => board.puzzle_hint(),
            Call::PuzzleSolution => board.puzzle_solution(),
            Call::PuzzleEnd => board.end_puzzle(),
            Call::Tick => {
                board.tick();
                return Ok(Value::Null);
            }
            Call::Report {
                role,
                serial,
                report,
            } => {
                board.on_report(role, serial, report);
                return Ok(Value::Null);
            }
        };
        state.map(to_json).map_err(refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(host: &mut BoardHost, request: Value) -> Value {
        serde_json::from_slice(&host.call(request.to_string().as_bytes())).unwrap()
    }

    #[test]
    fn calls_answer_with_the_state_and_the_commands() {
        let mut host = BoardHost::new();
        let answer = call(&mut host, json!({"call": "state"}));
        assert_eq!(answer["ok"]["ply"], 0);
        assert_eq!(answer["ok"]["engines"], json!(["minishogi-engine"]));
        let answer = call(&mut host, json!({"call": "move", "move": "2e3d"}));
        assert_eq!(answer["ok"]["ply"], 1);
        let commands = answer["commands"].as_array().unwrap();
        let start = commands.iter().find(|c| c.get("start").is_some()).unwrap();
        assert_eq!(start["start"]["role"], "opponent");
        assert_eq!(start["start"]["engine"], "minishogi-engine");
        let job = commands.iter().find(|c| c.get("job").is_some()).unwrap();
        let search = &job["job"]["job"]["search"];
        assert_eq!(search["go"], "go movetime 1000");
        let purpose = search["purpose"].clone();
        assert_eq!(
            commands.last().unwrap()["event"]["name"],
            "state",
            "{commands:?}"
        );
        // The engine to move: a person's move is refused as "not now".
        let answer = call(&mut host, json!({"call": "move", "move": "4a3b"}));
        assert_eq!(answer["status"], 409);
        // The worker's answer comes back as a report and is played.
        let serial = start["start"]["serial"].clone();
        let answer = call(
            &mut host,
            json!({"call": "report", "role": "opponent", "serial": serial,
                   "report": {"bestmove": {"purpose": purpose, "token": "4a3b"}}}),
        );
        let events: Vec<&Value> = answer["commands"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c.get("event"))
            .collect();
        assert_eq!(events.last().unwrap()["data"]["ply"], 2);
    }

    /// The editor's position: its SFEN, or the rules' reason, by name; the game unchanged.
    #[test]
    fn the_editors_position_is_checked_by_the_rules() {
        let mut host = BoardHost::new();
        let row = |cells: [&str; 5]| cells.map(String::from).to_vec();
        let mut board = vec![
            row(["", "", "", "", "k"]),
            row(["", "", "", "", ""]),
            row(["", "", "+R", "", ""]),
            row(["", "", "", "", ""]),
            row(["K", "", "", "", ""]),
        ];
        let answer = call(
            &mut host,
            json!({"call": "setup", "board": board, "hands": {"sente": {"G": 2}, "gote": {"P": 1}},
                   "side_to_move": "gote"}),
        );
        assert_eq!(answer["ok"]["sfen"], "4k/5/2+R2/5/K4 w 2Gp 1", "{answer}");
        assert_eq!(answer["ok"]["problem"], Value::Null);
        board[4][0] = String::new();
        let answer = call(
            &mut host,
            json!({"call": "setup", "board": board, "side_to_move": "sente"}),
        );
        assert_eq!(answer["ok"]["sfen"], Value::Null);
        assert_eq!(answer["ok"]["problem"]["code"], "king_count");
        assert_eq!(answer["ok"]["problem"]["side"], "sente");
        let start = call(&mut host, json!({"call": "setup", "start": true}));
        assert_eq!(start["ok"]["view"]["board"][4][0], "K");
        assert_eq!(call(&mut host, json!({"call": "state"}))["ok"]["ply"], 0);
    }

    #[test]
    fn records_go_out_and_come_back_and_bad_input_is_an_error() {
        let mut host = BoardHost::new();
        call(
            &mut host,
            json!({"call": "new", "game": {"sente": "human", "gote": "human"}}),
        );
        call(&mut host, json!({"call": "move", "move": "2e3d"}));
        let saved = call(&mut host, json!({"call": "save_record", "format": "csa"}));
        assert_eq!(saved["ok"]["filename"], "game.csa");
        let bytes = saved["ok"]["bytes"].clone();
        assert!(
            String::from_utf8_lossy(&serde_json::from_value::<Vec<u8>>(bytes.clone()).unwrap())
                .contains("+2534KA")
        );
        call(
            &mut host,
            json!({"call": "new", "game": {"sente": "human", "gote": "human"}}),
        );
        let loaded = call(
            &mut host,
            json!({"call": "load_record", "bytes": bytes, "format": "auto"}),
        );
        assert_eq!(loaded["ok"]["ply"], 1);
        for bad in [
            json!({"call": "load_record", "bytes": b"garbage".to_vec(), "format": "csa"}),
            json!({"call": "load_record", "bytes": [], "format": "auto"}),
            json!({"call": "save_record", "format": "pgn"}),
            json!({"call": "fly"}),
            json!({"call": "goto", "node": 99}),
        ] {
            let answer = call(&mut host, bad.clone());
            assert_eq!(answer["status"], 400, "{bad}: {answer}");
            assert!(answer["error"].as_str().is_some_and(|e| !e.is_empty()));
        }
        for bad in [
            json!({"call": "setup", "board": [["K"]], "side_to_move": "sente"}),
            json!({"call": "setup", "board": [], "hands": {"sente": {"Q": 1}}, "side_to_move": "sente"}),
            json!({"call": "setup", "board": [], "side_to_move": "north"}),
        ] {
            let answer = call(&mut host, bad.clone());
            assert_eq!(answer["status"], 400, "{bad}: {answer}");
        }
        let answer: Value = serde_json::from_slice(&host.call(b"{not json")).unwrap();
        assert_eq!(answer["status"], 400);
        assert_eq!(call(&mut host, json!({"call": "state"}))["ok"]["ply"], 1);
    }
}
