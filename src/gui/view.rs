//! The page's `State` (`docs/gui.md`): the session drawn as JSON, with the moves in both
//! notations and the scores on the project's probability scale.

use serde_json::{Value, json};

use super::engine::Score;
use super::notation;
use super::session::{Player, Session};
use crate::search::skill;
use crate::shogi::{Color, Position};

pub(super) fn color_name(color: Color) -> &'static str {
    match color {
        Color::Sente => "sente",
        Color::Gote => "gote",
    }
}

/// A position as the page draws it: `sfen`, `board`, `hands` and `side_to_move`, the shapes
/// of `State` (`docs/gui.md`).
pub(super) fn board_view(pos: &Position) -> Value {
    let board: Vec<Vec<String>> = (0..5u8)
        .map(|rank| {
            (1..=5u8)
                .rev()
                .map(|file| {
                    pos.piece_at(crate::shogi::Square::new(file, rank))
                        .map_or(String::new(), |p| p.sfen())
                })
                .collect()
        })
        .collect();
    let hand = |color: Color| {
        let hand = pos.hand(color);
        let mut map = serde_json::Map::new();
        for kind in crate::shogi::PieceKind::HAND {
            map.insert(kind.usi_letter().to_string(), json!(hand.count(kind)));
        }
        Value::Object(map)
    };
    json!({
        "sfen": pos.to_sfen(),
        "board": board,
        "hands": {"sente": hand(Color::Sente), "gote": hand(Color::Gote)},
        "side_to_move": color_name(pos.side_to_move()),
    })
}

/// The `State` of `docs/gui.md`: the session and the engines the page may choose from.
pub(super) fn state(s: &Session, engines: &[&str]) -> Value {
    let pos = s.tree.position();
    let view = board_view(pos);
    let over = s.game_over_reason().is_some() && s.tree.at_line_end();
    let legal: Vec<String> = if over {
        Vec::new()
    } else {
        pos.legal_moves().iter().map(|m| m.to_string()).collect()
    };
    let line: Vec<Value> = s
        .tree
        .line()
        .into_iter()
        .map(|id| {
            let entry = |id: usize| {
                let node = s.tree.node(id).expect("line nodes exist");
                let mv = node.mv.expect("only the root has no move");
                let before = s.tree.position_before(id);
                let previous_to = node
                    .parent
                    .and_then(|p| s.tree.node(p))
                    .and_then(|p| p.mv)
                    .map(|m| m.to());
                json!({
                    "node": id, "usi": mv.to_string(),
                    "ja": notation::ja(&before, mv, previous_to),
                    "en": notation::en(&before, mv),
                })
            };
            let mut value = entry(id);
            value["variations"] =
                Value::Array(s.tree.siblings(id).into_iter().map(entry).collect());
            value
        })
        .collect();
    let evals: Vec<Value> = std::iter::once(0)
        .chain(s.tree.line())
        .map(|id| match s.evals.get(&id) {
            Some(&(score, _)) => {
                let (cp, mate) = match score {
                    Score::Cp(cp) => (Some(cp), None),
                    Score::Mate(m) => (None, Some(m)),
                };
                json!({"cp": cp, "mate": mate, "win": win_probability(score)})
            }
            None => Value::Null,
        })
        .collect();
    let last_move = s
        .tree
        .node(s.tree.cursor())
        .and_then(|n| n.mv)
        .map(|m| m.to_string());
    let result = s.result().map(|(winner, reason, ply)| {
            json!({"winner": winner.map(color_name), "reason": reason, "ply": ply})
        });
    let clock = s.clock.as_ref().map(|c| {
        json!({
            "sente_ms": c.left_now(Color::Sente), "gote_ms": c.left_now(Color::Gote),
            "byoyomi_ms": c.settings.byoyomi_ms, "increment_ms": c.settings.increment_ms,
            "running": c.running.map(|(color, _)| color_name(color)),
        })
    });
    let player = |p: Player| match p {
        Player::Human => "human",
        Player::Engine => "engine",
    };
    let (low, high) = skill::elo_range();
    json!({
        "version": s.version,
        "sfen": view["sfen"],
        "board": view["board"],
        "hands": view["hands"],
        "side_to_move": view["side_to_move"],
        "in_check": pos.in_check(),
        "legal_moves": legal,
        "last_move": last_move,
        "cursor": s.tree.cursor(),
        "ply": s.tree.node(s.tree.cursor()).map_or(0, |n| n.ply),
        "line": line,
        "evals": evals,
        "result": result,
        "players": {"sente": player(s.players[0]), "gote": player(s.players[1])},
        "engine": s.engine,
        "engines": engines,
        "level": s.level, "elo": s.elo, "elo_range": [low, high],
        "clock": clock,
        "thinking": s.thinking.is_some(),
        "analysis": {"on": s.analysis_on, "multipv": s.multipv},
        "error": s.error,
    })
}

/// Sente's (or the side to move's) win probability of a score on the project's scale.
pub(super) fn win_probability(score: Score) -> f32 {
    match score {
        Score::Cp(cp) => crate::eval::probability_from_cp(cp as f32),
        Score::Mate(m) if m > 0 => 1.0,
        Score::Mate(_) => 0.0,
    }
}
