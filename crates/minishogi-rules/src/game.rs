//! A game: the moves played from a start position, the key/check history, and the result by
//! the rules (no legal move loses; 千日手 with its perpetual-check exception; optional ply limit).

// The history types live in `history` (named by `repetition` too); re-exported here, where
// callers look for them.
pub use super::history::{EndReason, HistoryEntry};
use super::notation::MoveError;
use super::position::Position;
use super::repetition::repetition_verdict_after;
use super::types::{Color, Move};
use std::fmt;
use std::sync::OnceLock;

/// The state of a game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameStatus {
    Ongoing,
    Win { winner: Color, reason: EndReason },
    Draw(EndReason),
}

impl GameStatus {
    pub fn is_over(self) -> bool {
        self != GameStatus::Ongoing
    }
}

impl fmt::Display for GameStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameStatus::Ongoing => f.write_str("ongoing"),
            GameStatus::Win { winner, reason } => write!(f, "{winner:?} wins by {reason}"),
            GameStatus::Draw(reason) => write!(f, "draw by {reason}"),
        }
    }
}

pub use super::repetition::{
    REPETITION_OCCURRENCES, RepetitionVerdict, cycle_verdict, repetition_verdict,
};

/// A game in progress (or finished): start position, moves, history and result.
#[derive(Debug)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    history: Vec<HistoryEntry>,
    max_plies: Option<u32>,
    /// The result by the rules of play (mate, no move, repetition), ignoring the ply limit:
    /// judged when first asked, since a search that plays a path of known-legal moves
    /// (`play_legal`) needs it only at the path's end.
    rules_status: OnceLock<GameStatus>,
}

impl Clone for Game {
    fn clone(&self) -> Game {
        Game {
            start: self.start.clone(),
            position: self.position.clone(),
            moves: self.moves.clone(),
            history: self.history.clone(),
            max_plies: self.max_plies,
            rules_status: self.rules_status.clone(),
        }
    }

    /// Field by field, so that the lists keep their allocations: a tree search resets its
    /// game to the root this way at every simulation.
    fn clone_from(&mut self, source: &Game) {
        self.start.clone_from(&source.start);
        self.position.clone_from(&source.position);
        self.moves.clone_from(&source.moves);
        self.history.clone_from(&source.history);
        self.max_plies = source.max_plies;
        self.rules_status.clone_from(&source.rules_status);
    }
}

impl Game {
    pub fn new(position: Position) -> Game {
        Game {
            start: position.clone(),
            history: vec![HistoryEntry::of(&position)],
            position,
            moves: Vec::new(),
            max_plies: None,
            rules_status: OnceLock::new(),
        }
    }

    pub fn startpos() -> Game {
        Game::new(Position::startpos())
    }

    /// Plays a legal move. An illegal move, or any move once the game is over, is refused with
    /// `MoveError::Illegal` and leaves the game unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        let status = self.status();
        if status.is_over() {
            return Err(MoveError::Illegal {
                input: mv.to_string(),
                reason: format!("the game is over ({status})"),
            });
        }
        if !self.position.is_legal(mv) {
            return Err(MoveError::Illegal {
                input: mv.to_string(),
                reason: self.position.explain_illegal(mv),
            });
        }
        self.play_legal(mv);
        Ok(())
    }

    /// Plays `mv` without checking it: the caller knows that the game is not over and that
    /// `mv` is legal here (it came from this position's `legal_moves`), as a tree search
    /// replaying its own moves does. Anything else leaves the game meaningless.
    pub fn play_legal(&mut self, mv: Move) {
        debug_assert!(
            !self.status().is_over() && self.position.is_legal(mv),
            "{mv}"
        );
        self.position.make_move(mv);
        self.moves.push(mv);
        self.history.push(HistoryEntry::of(&self.position));
        self.rules_status = OnceLock::new();
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        &self.start
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// One entry per position, the start position included (so `moves().len() + 1` entries).
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// The 千日手 verdict if the game went on to `next` (the position after a move being
    /// considered): `None` unless `next` would be the fourth occurrence of its position. Cheap
    /// when it is not (only keys are compared; the check flag is computed only for a repetition).
    pub fn repetition_verdict_after(&self, next: &Position) -> Option<RepetitionVerdict> {
        let key = next.key();
        let index = self.history.len();
        let occ = super::repetition::earlier_occurrences(&self.history[..], key, index, 0)?;
        if occ.count < REPETITION_OCCURRENCES {
            return None;
        }
        repetition_verdict_after(&self.history, HistoryEntry::of(next), next.side_to_move())
    }

    /// Plays `moves`, written in USI or course notation, in turn: what every `position …`
    /// command, openings file and `--moves` argument means. All or nothing: at the first move
    /// that is malformed or illegal the game is left as it was, and that move's 0-based index
    /// comes back with the error.
    pub fn play_texts<S: AsRef<str>>(&mut self, moves: &[S]) -> Result<(), (usize, MoveError)> {
        let mut next = self.clone();
        for (index, text) in moves.iter().enumerate() {
            let mv = next
                .position
                .parse_move(text.as_ref())
                .map_err(|e| (index, e))?;
            next.play(mv).map_err(|e| (index, e))?;
        }
        *self = next;
        Ok(())
    }

    /// Number of moves played.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// A draw once this many moves have been played without another result (`None` or
    /// `Some(0)` = no limit, as the engine option's 0).
    pub fn set_max_plies(&mut self, max_plies: Option<u32>) {
        self.max_plies = max_plies.filter(|&n| n > 0);
    }

    pub fn max_plies(&self) -> Option<u32> {
        self.max_plies
    }

    /// The result so far. A decisive result on the last allowed ply takes precedence over the
    /// ply limit.
    pub fn status(&self) -> GameStatus {
        let rules_status = *self.rules_status.get_or_init(|| self.judge());
        if rules_status.is_over() {
            return rules_status;
        }
        match self.max_plies {
            Some(limit) if self.moves.len() as u64 >= u64::from(limit) => {
                GameStatus::Draw(EndReason::MaxPlies)
            }
            _ => GameStatus::Ongoing,
        }
    }

    /// Judges the current position: repetition first (the position repeats one that had legal
    /// moves, so the two cannot both apply), then the absence of legal moves.
    fn judge(&self) -> GameStatus {
        let side = self.position.side_to_move();
        if let Some(verdict) = repetition_verdict(&self.history, side) {
            return GameStatus::Win {
                winner: !verdict.loser,
                reason: verdict.reason,
            };
        }
        if !self.position.has_legal_move() {
            let reason = if self.position.in_check() {
                EndReason::Checkmate
            } else {
                EndReason::NoLegalMove
            };
            return GameStatus::Win {
                winner: !side,
                reason,
            };
        }
        GameStatus::Ongoing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PieceKind, Square};

    fn pos(sfen: &str) -> Position {
        Position::from_sfen(sfen).unwrap()
    }

    fn play_usi(game: &mut Game, moves: &str) {
        for text in moves.split_whitespace() {
            let mv = game.position().parse_usi_move(text).unwrap();
            game.play(mv).unwrap();
        }
    }

    fn usi_moves(p: &Position) -> Vec<String> {
        p.legal_moves().iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn nifu_forbids_a_second_pawn_on_a_file_but_not_beside_a_promoted_pawn() {
        let p = pos("rbsg1/3k1/5/P4/KGSBR b P 1");
        let moves = usi_moves(&p);
        assert!(!moves.iter().any(|m| m.starts_with("P*5")), "{moves:?}");
        assert!(moves.contains(&"P*4c".to_string()));
        // A promoted pawn (と) on file 5 does not count.
        let p = pos("rbsg1/3k1/5/+P4/KGSBR b P 1");
        assert!(usi_moves(&p).contains(&"P*5c".to_string()));
        // Gote likewise.
        let p = pos("rbsgk/4p/5/1K3/1GSBR w p 2");
        let moves = usi_moves(&p);
        assert!(!moves.iter().any(|m| m.starts_with("P*1")), "{moves:?}");
        assert!(moves.contains(&"P*2c".to_string()));
    }

    #[test]
    fn no_pawn_drop_on_the_last_rank() {
        let p = pos("k4/5/5/5/4K b P 1");
        let moves = usi_moves(&p);
        assert!(moves.contains(&"P*3b".to_string()));
        assert!(
            !moves
                .iter()
                .any(|m| m.starts_with("P*") && m.ends_with('a'))
        );
        let p = pos("k4/5/5/5/4K w p 1");
        let moves = usi_moves(&p);
        assert!(moves.contains(&"P*3d".to_string()));
        assert!(
            !moves
                .iter()
                .any(|m| m.starts_with("P*") && m.ends_with('e'))
        );
        // Other pieces may be dropped there.
        let p = pos("k4/5/5/5/4K b S 1");
        assert!(usi_moves(&p).contains(&"S*3a".to_string()));
    }

    #[test]
    fn pawn_drop_mate_is_illegal_but_pawn_push_mate_is_legal() {
        // P*1b would mate (gold 1c guards it, silver 3b covers 2a): not generated.
        let drop_mate = pos("4k/2S2/4G/5/K4 b P 1");
        let drop = Move::drop(PieceKind::Pawn, Square::new(1, 1));
        assert!(
            drop_mate.after(drop).is_checkmate(),
            "the drop would indeed mate"
        );
        assert!(!drop_mate.is_legal(drop));
        assert!(drop_mate.is_legal(Move::drop(PieceKind::Pawn, Square::new(2, 1))));
        // The same mate by pushing a pawn from 1c (gold now on 2c) is legal and wins.
        let mut game = Game::new(pos("4k/2S2/3GP/5/K4 b - 1"));
        let push = game.position().parse_usi_move("1c1b").unwrap();
        game.play(push).unwrap();
        assert!(game.position().is_checkmate());
        assert_eq!(
            game.status(),
            GameStatus::Win {
                winner: Color::Sente,
                reason: EndReason::Checkmate
            }
        );
        // A pawn drop check that is not mate stays legal (king can take on 1b without gold).
        let not_mate = pos("4k/2S2/5/5/K4 b P 1");
        assert!(not_mate.is_legal(drop));
    }

    #[test]
    fn pawn_must_promote_on_the_last_rank() {
        let p = pos("4k/1S1P1/5/5/K4 b - 1");
        let moves = usi_moves(&p);
        assert!(moves.contains(&"2b2a+".to_string()));
        assert!(!moves.contains(&"2b2a".to_string()));
        // Gote's pawn on its last rank (e) likewise.
        let p = pos("k4/5/5/3p1/4K w - 1");
        let moves = usi_moves(&p);
        assert!(moves.contains(&"2d2e+".to_string()));
        assert!(!moves.contains(&"2d2e".to_string()));
    }

    #[test]
    fn silver_may_promote_or_not_when_leaving_the_zone() {
        let p = pos("S3k/3P1/5/5/K4 b - 1");
        let moves = usi_moves(&p);
        assert!(moves.contains(&"5a4b+".to_string()));
        assert!(moves.contains(&"5a4b".to_string()));
        // Outside the zone, no promotion.
        let moves = usi_moves(&pos("4k/5/1S3/5/K4 b - 1"));
        assert!(moves.contains(&"4c4b".to_string()));
        assert!(
            !moves
                .iter()
                .any(|m| m.starts_with("4c") && m.ends_with('+'))
        );
        // Entering the zone: both.
        let moves = usi_moves(&pos("4k/1S3/5/5/K4 b - 1"));
        assert!(moves.contains(&"4b4a+".to_string()));
        assert!(moves.contains(&"4b4a".to_string()));
    }

    /// Sente shuffles the rook 1e-1d, gote the rook 5a-5b: no checks.
    const SHUFFLE: &str = "1e1d 5a5b 1d1e 5b5a";

    #[test]
    fn fourfold_repetition_completed_by_gote_loses_for_sente() {
        let mut game = Game::startpos();
        play_usi(&mut game, &format!("{SHUFFLE} {SHUFFLE}"));
        play_usi(&mut game, "1e1d 5a5b 1d1e");
        assert_eq!(game.status(), GameStatus::Ongoing);
        // Gote's move makes the start position occur for the fourth time.
        play_usi(&mut game, "5b5a");
        assert_eq!(game.history().len(), 13);
        assert_eq!(
            game.status(),
            GameStatus::Win {
                winner: Color::Gote,
                reason: EndReason::Repetition
            }
        );
        // Nothing more can be played, and the refusal leaves the game unchanged.
        let mv = game.position().parse_usi_move("1e1d").unwrap();
        let err = game.play(mv).unwrap_err();
        assert!(
            err.is_illegal() && err.to_string().contains("game is over"),
            "{err}"
        );
        assert_eq!(game.plies(), 12);
    }

    #[test]
    fn fourfold_repetition_completed_by_sente_loses_for_sente() {
        let mut game = Game::startpos();
        // The first position of a cycle is the first to occur four times, so the cycle must
        // start on gote's turn: the position after 5d5c recurs after plies 5, 9 and 13.
        let cycle = "5a5b 1e1d 5b5a 1d1e";
        play_usi(&mut game, &format!("5d5c {cycle} {cycle}"));
        play_usi(&mut game, "5a5b 1e1d 5b5a");
        assert_eq!(game.status(), GameStatus::Ongoing);
        play_usi(&mut game, "1d1e");
        assert_eq!(
            game.status(),
            GameStatus::Win {
                winner: Color::Gote,
                reason: EndReason::Repetition
            }
        );
    }

    #[test]
    fn play_legal_judges_as_play_does_when_asked() {
        // A repetition reached by unchecked moves, the status asked only at the end.
        let mut checked = Game::startpos();
        play_usi(&mut checked, &format!("{SHUFFLE} {SHUFFLE} {SHUFFLE}"));
        let mut unchecked = Game::startpos();
        for mv in checked.moves() {
            unchecked.play_legal(*mv);
        }
        assert!(checked.status().is_over());
        assert_eq!(unchecked.status(), checked.status());
        // Random games to their end, the status compared at every ply; a game reset by
        // `clone_from` (which keeps the lists' allocations) equals the one it copies.
        let mut rng = crate::testing::TestRng::new(7);
        let mut scratch = Game::startpos();
        for _ in 0..40 {
            let (mut a, mut b) = (Game::startpos(), Game::startpos());
            while !a.status().is_over() && a.plies() < 300 {
                let moves = a.position().legal_moves();
                let mv = moves.as_slice()[rng.below(moves.len())];
                a.play(mv).unwrap();
                b.play_legal(mv);
                assert_eq!(a.status(), b.status(), "after {:?}", a.moves());
            }
            scratch.clone_from(&b);
            assert_eq!(
                (scratch.moves(), scratch.history(), scratch.position()),
                (b.moves(), b.history(), b.position())
            );
            assert_eq!(scratch.status(), a.status());
        }
    }

    #[test]
    fn perpetual_check_loses_for_the_checking_side() {
        // Sente's rook checks from 1e and 2e while gote's king steps 1a-2a.
        let cycle = "2e1e 1a2a 1e2e 2a1a";
        let mut game = Game::new(pos("4k/5/5/5/K2R1 b - 1"));
        play_usi(&mut game, &format!("{cycle} {cycle} 2e1e 1a2a 1e2e"));
        assert_eq!(game.status(), GameStatus::Ongoing);
        play_usi(&mut game, "2a1a");
        assert_eq!(
            game.status(),
            GameStatus::Win {
                winner: Color::Gote,
                reason: EndReason::PerpetualCheck
            }
        );

        // The mirror image: gote checks perpetually, so gote loses (not sente, as 千日手 would
        // otherwise have it).
        let mut game = Game::new(pos("4k/5/5/5/K2R1 b - 1").flipped());
        let cycle = "4a5a 5e4e 5a4a 4e5e";
        play_usi(&mut game, &format!("{cycle} {cycle} {cycle}"));
        assert_eq!(
            game.status(),
            GameStatus::Win {
                winner: Color::Sente,
                reason: EndReason::PerpetualCheck
            }
        );
    }

    #[test]
    fn repetition_verdict_needs_checks_on_every_move_of_the_cycle() {
        let e = |key, in_check| HistoryEntry { key, in_check };
        // Positions A B C D A B C D A B C D A; sente to move at A. Gote's moves lead to A and C,
        // sente's to B and D.
        let cycle = |b_check: bool| {
            let mut h = vec![e(1, false)];
            for i in 0..3 {
                h.push(e(2, b_check || i > 0));
                h.push(e(3, false));
                h.push(e(4, true));
                h.push(e(1, false));
            }
            h
        };
        // Sente checked with every move: sente loses by perpetual check.
        assert_eq!(
            repetition_verdict(&cycle(true), Color::Sente),
            Some(RepetitionVerdict {
                loser: Color::Sente,
                reason: EndReason::PerpetualCheck
            })
        );
        // One quiet sente move within the cycle: plain 千日手, sente loses.
        assert_eq!(
            repetition_verdict(&cycle(false), Color::Sente),
            Some(RepetitionVerdict {
                loser: Color::Sente,
                reason: EndReason::Repetition
            })
        );
        // Three occurrences are not enough.
        let h = cycle(true);
        assert_eq!(repetition_verdict(&h[..9], Color::Sente), None);
        // Gote's perpetual: gote moves lead to A and C; make those checks instead.
        let mut h = vec![e(1, true)];
        for _ in 0..3 {
            h.extend([e(2, false), e(3, true), e(4, false), e(1, true)]);
        }
        assert_eq!(
            repetition_verdict(&h, Color::Sente),
            Some(RepetitionVerdict {
                loser: Color::Gote,
                reason: EndReason::PerpetualCheck
            })
        );
        // The check state of the first occurrence itself is outside the cycle.
        h[0].in_check = false;
        assert_eq!(
            repetition_verdict(&h, Color::Sente).unwrap().loser,
            Color::Gote
        );
    }

    #[test]
    fn no_legal_move_loses_even_without_check() {
        // Gote's king on 1a: 2a is covered by the pawn on 2b, 1b and 2b by the gold on 2c.
        let stalemate = pos("4k/3P1/3G1/5/K4 w - 1");
        assert!(!stalemate.in_check());
        assert_eq!(stalemate.count_legal_moves(), 0);
        assert_eq!(
            Game::new(stalemate).status(),
            GameStatus::Win {
                winner: Color::Sente,
                reason: EndReason::NoLegalMove
            }
        );
    }

    #[test]
    fn illegal_moves_are_refused_and_leave_the_game_unchanged() {
        let mut game = Game::startpos();
        let before = game.position().clone();
        let bad = Move::board(Square::new(5, 3), Square::new(5, 1), false);
        let err = game.play(bad).unwrap_err();
        assert!(err.is_illegal(), "{err}");
        assert_eq!(game.position(), &before);
        assert!(game.moves().is_empty());
        assert_eq!(game.history().len(), 1);
        assert_eq!(game.history()[0].key, before.key());
    }

    #[test]
    fn ply_limit_draws_unless_the_last_move_decides() {
        let mut game = Game::startpos();
        game.set_max_plies(Some(4));
        play_usi(&mut game, "1e1d 5a5b 1d1e");
        assert_eq!(game.status(), GameStatus::Ongoing);
        play_usi(&mut game, "5b5a");
        assert_eq!(game.status(), GameStatus::Draw(EndReason::MaxPlies));
        game.set_max_plies(Some(0));
        assert_eq!(game.status(), GameStatus::Ongoing);

        let mut game = Game::new(pos("4k/2S2/3GP/5/K4 b - 1"));
        game.set_max_plies(Some(1));
        play_usi(&mut game, "1c1b");
        assert_eq!(
            game.status(),
            GameStatus::Win {
                winner: Color::Sente,
                reason: EndReason::Checkmate
            }
        );
    }
}
