//! A full-width mate prover with a node budget: whether the side to move mates within `n` of
//! its moves against every defence, over ALL its moves (quiet ones too), where the engine's
//! solver (`search::mate_within`) tries checks only. Puzzles need it twice: a mate's length
//! is the shortest over all moves, and a solver move is unique only if no other move — a
//! quiet one included — mates as fast. Its answers are proofs (`Yes`, `No`), or `Unknown` when
//! the budget ran out first. A mate here is any win by the side left without a legal move:
//! a stalemate loses too (docs/rules.md), as in the rules' brute force (`mate_oracle`).
//!
//! Repetitions are not looked at: a line of at most `MAX_MATE_MOVES` moves (9 plies) cannot
//! repeat a position four times (千日手), and the puzzle's position starts without history.

use std::collections::HashMap;

use crate::shogi::{Move, MoveList, PieceKind, Position, Square};

/// The longest mate a puzzle may state, in the solver's moves.
pub const MAX_MATE_MOVES: u32 = 5;

/// A proof's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    Yes,
    No,
    /// The node budget ran out before a proof either way.
    Unknown,
}

/// The budget ran out before the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfBudget;

/// What the table knows of a position (its side to move is the attacker or the defender
/// whatever the line, so one table serves both): the fewest plies a loss/win is proven within,
/// and the most plies it is proven not to be.
#[derive(Clone, Copy)]
struct Known {
    yes_within: u8,
    no_within: u8,
}

/// The prover: its budget, the nodes it used and its table. A fresh one per puzzle keeps the
/// answers (and where the budget runs out) independent of what was proven before.
pub struct Prover {
    limit: u64,
    nodes: u64,
    exhausted: bool,
    table: HashMap<u64, Known>,
}

impl Prover {
    pub fn new(node_limit: u64) -> Prover {
        Prover {
            limit: node_limit,
            nodes: 0,
            exhausted: false,
            table: HashMap::new(),
        }
    }

    /// Nodes (moves made) so far, all proofs together.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the side to move of `pos` mates within `moves` of its moves.
    pub fn mates_within(&mut self, pos: &Position, moves: u32) -> Proof {
        if moves == 0 {
            return Proof::No;
        }
        let mut pos = pos.clone();
        let answer = self.attack(&mut pos, 2 * moves - 1);
        self.answer(answer)
    }

    /// Whether the side to move of `pos` (the defender, after the attacker's move) is mated
    /// within `moves` more moves of the attacker, whatever it plays (0: mated now).
    pub fn mated_within(&mut self, pos: &Position, moves: u32) -> Proof {
        let mut pos = pos.clone();
        let answer = self.defend(&mut pos, 2 * moves);
        self.answer(answer)
    }

    /// The fewest moves, up to `max`, in which the side to move mates; `Ok(None)` if it does
    /// not within `max`.
    pub fn shortest_mate(&mut self, pos: &Position, max: u32) -> Result<Option<u32>, OutOfBudget> {
        for n in 1..=max {
            match self.mates_within(pos, n) {
                Proof::Yes => return Ok(Some(n)),
                Proof::No => {}
                Proof::Unknown => return Err(OutOfBudget),
            }
        }
        Ok(None)
    }

    /// The moves of `pos` that mate within `moves` moves (the move itself the first of them);
    /// an error if the budget ran out before every move was decided.
    pub fn mating_moves(&mut self, pos: &Position, moves: u32) -> Result<Vec<Move>, OutOfBudget> {
        let mut found = Vec::new();
        for mv in pos.legal_moves().iter().copied() {
            match self.mated_within(&pos.after(mv), moves - 1) {
                Proof::Yes => found.push(mv),
                Proof::No => {}
                Proof::Unknown => return Err(OutOfBudget),
            }
        }
        Ok(found)
    }

    fn answer(&self, yes: bool) -> Proof {
        match (self.exhausted, yes) {
            (true, _) => Proof::Unknown,
            (false, true) => Proof::Yes,
            (false, false) => Proof::No,
        }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.limit {
            self.exhausted = true;
        }
        self.exhausted
    }

    fn known(&self, key: u64, plies: u32) -> Option<bool> {
        let k = self.table.get(&key)?;
        if u32::from(k.yes_within) <= plies {
            Some(true)
        } else if u32::from(k.no_within) >= plies && k.no_within != 0 {
            Some(false)
        } else {
            None
        }
    }

    fn store(&mut self, key: u64, plies: u32, yes: bool) {
        if self.exhausted {
            return;
        }
        let plies = plies.min(254) as u8;
        let k = self.table.entry(key).or_insert(Known {
            yes_within: u8::MAX,
            no_within: 0,
        });
        if yes {
            k.yes_within = k.yes_within.min(plies);
        } else {
            k.no_within = k.no_within.max(plies);
        }
    }

    /// The side to move mates within `plies` (odd) plies.
    fn attack(&mut self, pos: &mut Position, plies: u32) -> bool {
        if plies == 0 || self.tick() {
            return false;
        }
        if wins_at_once(pos) {
            return true;
        }
        if plies == 1 {
            return false;
        }
        let key = pos.key();
        if let Some(known) = self.known(key, plies) {
            return known;
        }
        let moves = ordered(pos, attack_order);
        let mut mates = false;
        for mv in moves {
            let undo = pos.make_move(mv);
            let lost = self.defend(pos, plies - 1);
            pos.unmake_move(mv, undo);
            if self.exhausted {
                return false;
            }
            if lost {
                mates = true;
                break;
            }
        }
        self.store(key, plies, mates);
        mates
    }

    /// The side to move (the defender) loses within `plies` (even) plies whatever it plays.
    fn defend(&mut self, pos: &mut Position, plies: u32) -> bool {
        if self.tick() {
            return false;
        }
        let list = pos.legal_moves();
        if list.is_empty() {
            return true;
        }
        if plies == 0 {
            return false;
        }
        let key = pos.key();
        if let Some(known) = self.known(key, plies) {
            return known;
        }
        let moves = order_list(pos, &list, defence_order);
        let mut lost = true;
        for mv in moves {
            let undo = pos.make_move(mv);
            let mated = self.attack(pos, plies - 1);
            pos.unmake_move(mv, undo);
            if self.exhausted {
                return false;
            }
            if !mated {
                lost = false;
                break;
            }
        }
        self.store(key, plies, lost);
        lost
    }
}

/// Whether a move of the side to move leaves the opponent without a legal move: a mate in one
/// (the commonest answer, and the cheapest: checks only), or a stalemate, which loses too
/// (docs/rules.md). Not in check, a side with a piece other than a pawn in hand can always
/// drop it, so only a side without one is looked at for stalemate.
pub fn wins_at_once(pos: &mut Position) -> bool {
    if pos.mate_in_one().is_some() {
        return true;
    }
    let hand = pos.hand(!pos.side_to_move());
    if PieceKind::HAND
        .iter()
        .any(|&k| k != PieceKind::Pawn && hand.count(k) > 0)
    {
        return false;
    }
    pos.legal_moves().iter().any(|&mv| {
        if pos.gives_check(mv) {
            return false;
        }
        let undo = pos.make_move(mv);
        let stalemate = !pos.has_legal_move();
        pos.unmake_move(mv, undo);
        stalemate
    })
}

fn ordered(pos: &Position, order: fn(&Position, Move) -> i32) -> Vec<Move> {
    order_list(pos, &pos.legal_moves(), order)
}

/// The moves, best-first by `order` (ties in the generator's order: deterministic).
fn order_list(pos: &Position, list: &MoveList, order: fn(&Position, Move) -> i32) -> Vec<Move> {
    let mut moves: Vec<(i32, Move)> = list.iter().map(|&mv| (order(pos, mv), mv)).collect();
    moves.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
    moves.into_iter().map(|(_, mv)| mv).collect()
}

fn distance(a: Square, b: Square) -> i32 {
    (i32::from(a.file()) - i32::from(b.file()))
        .abs()
        .max((i32::from(a.rank()) - i32::from(b.rank())).abs())
}

/// The attacker's moves: checks first (mates are made of them), captures and promotions, then
/// moves near the enemy king.
fn attack_order(pos: &Position, mv: Move) -> i32 {
    let their_king = pos.king_square(!pos.side_to_move());
    let capture = captured(pos, mv).map_or(0, PieceKind::value);
    let near = their_king.map_or(0, |k| 4 - distance(k, mv.to()));
    10_000 * i32::from(pos.gives_check(mv))
        + capture
        + 300 * i32::from(mv.is_promotion())
        + 100 * near
}

/// The defender's moves: king moves and captures (the likeliest escapes) first, drops last.
fn defence_order(pos: &Position, mv: Move) -> i32 {
    if let Some(kind) = mv.dropped() {
        return -kind.value();
    }
    let king = pos
        .piece_at(mv.from_unchecked())
        .is_some_and(|p| p.kind == PieceKind::King);
    captured(pos, mv).map_or(0, PieceKind::value) + if king { 5000 } else { 1000 }
}

/// The kind a move captures, if any.
pub fn captured(pos: &Position, mv: Move) -> Option<PieceKind> {
    if mv.is_drop() {
        return None;
    }
    pos.piece_at(mv.to()).map(|p| p.kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::mate_oracle;

    fn pos(sfen: &str) -> Position {
        Position::from_sfen(sfen).unwrap()
    }

    #[test]
    fn agrees_with_the_rules_oracle_on_random_positions() {
        let mut rng = crate::shogi::splitmix::SplitMix64::new(7);
        let (mut checked, mut mates) = (0, 0);
        for _ in 0..400 {
            let p = crate::shogi::random::random_position(&mut rng.draw());
            if p.legal_moves().is_empty() {
                continue;
            }
            for moves in 1..=2 {
                let mut prover = Prover::new(u64::MAX);
                let expected = mate_oracle::wins_within(&p, 2 * moves - 1, false);
                let got = prover.mates_within(&p, moves);
                assert_eq!(got == Proof::Yes, expected, "{} in {moves}", p.to_sfen());
                checked += 1;
                mates += usize::from(expected);
            }
        }
        assert!(
            checked > 100 && mates > 5,
            "{checked} checked, {mates} mates"
        );
    }

    #[test]
    fn a_stalemate_wins_too() {
        // Sente's king takes the horse on 5e, and gote, not in check, has no legal move left.
        let p = pos("5/2+R2/4p/P1B1k/+bK1R1 b 2G2S 43");
        assert!(mate_oracle::wins_within(&p, 1, false));
        assert_eq!(Prover::new(u64::MAX).mates_within(&p, 1), Proof::Yes);
        // So 3a3b, which lets it happen, wins in two as well as the mate 2e2d.
        let p = pos("2+R2/2s2/2b1p/P1B1k/1K1R1 b 2GS 41");
        let winning: Vec<String> = Prover::new(u64::MAX)
            .mating_moves(&p, 2)
            .unwrap()
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert!(winning.contains(&"3a3b".to_string()), "{winning:?}");
        assert!(winning.len() >= 2, "{winning:?}");
    }

    #[test]
    fn a_small_budget_answers_unknown() {
        // Gote's king alone against a rook and a gold in hand: plenty to search.
        let p = pos("4k/5/5/5/K4 b RG 1");
        let mut prover = Prover::new(3);
        assert_eq!(prover.mates_within(&p, 3), Proof::Unknown);
    }
}
