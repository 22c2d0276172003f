//! Move ordering's judgements: static exchange evaluation, MVV-LVA and the scores that order
//! moves within a stage of the move picker (`movepick`): captures and promotions by MVV-LVA or
//! gain (captures also by capture history when it is on), quiet moves by history and
//! continuation history, quiescence's evasions.

use super::heuristics::{CONTINUATION_PLIES, Heuristics, capture_index, piece_square};
use super::params::SearchParams;
use crate::shogi::{Color, Move, Piece, PieceKind, Position};

/// Lifts tactical evasions above every history score (those stay within a few HISTORY_MAX).
const TACTICAL_EVASION: i32 = 1 << 28;

/// Least valuable first, for SEE's choice of recapturing piece.
const BY_VALUE: [PieceKind; 10] = [
    PieceKind::Pawn,
    PieceKind::Silver,
    PieceKind::Gold,
    PieceKind::ProPawn,
    PieceKind::ProSilver,
    PieceKind::Bishop,
    PieceKind::Rook,
    PieceKind::Horse,
    PieceKind::Dragon,
    PieceKind::King,
];

/// The kind captured by `mv`, if any.
#[inline(always)]
pub fn captured(pos: &Position, mv: Move) -> Option<PieceKind> {
    if mv.is_drop() {
        None
    } else {
        pos.piece_at(mv.to()).map(|p| p.kind)
    }
}

/// The kind that moves (or is dropped).
#[inline(always)]
pub fn moved_kind(pos: &Position, mv: Move) -> PieceKind {
    match mv.dropped() {
        Some(kind) => kind,
        None => pos
            .piece_at(mv.from_unchecked())
            .map_or(PieceKind::Pawn, |p| p.kind),
    }
}

/// The piece that stands on the destination after `mv` (promoted if it promotes).
#[inline(always)]
pub fn arriving_piece(pos: &Position, mv: Move) -> Piece {
    let kind = moved_kind(pos, mv);
    let kind = if mv.is_promotion() {
        kind.promote()
    } else {
        kind
    };
    Piece::new(pos.side_to_move(), kind)
}

/// The continuation-history index of `mv` (see [`piece_square`]).
#[inline(always)]
pub fn continuation_index(pos: &Position, mv: Move) -> usize {
    piece_square(arriving_piece(pos, mv), mv.to())
}

/// The capture-history index of `mv` (see [`capture_index`]), if it captures.
#[inline(always)]
pub fn capture_history_index(pos: &Position, mv: Move) -> Option<usize> {
    captured(pos, mv).map(|victim| capture_index(continuation_index(pos, mv), victim))
}

/// What capture history adds to the ordering score of a capture of `victim`, when it is used.
#[inline(always)]
fn capture_score(
    pos: &Position,
    mv: Move,
    victim: PieceKind,
    heur: &Heuristics,
    params: &SearchParams,
    capture_history: bool,
) -> i32 {
    if capture_history {
        heur.capture(capture_index(continuation_index(pos, mv), victim))
            / params.capture_history_divisor
    } else {
        0
    }
}

/// Whether the move is neither a capture nor a promotion.
#[inline(always)]
pub fn is_quiet(pos: &Position, mv: Move) -> bool {
    !mv.is_promotion() && captured(pos, mv).is_none()
}

/// Material the move gains immediately: the captured piece plus any promotion gain.
#[inline(always)]
pub fn tactical_gain(pos: &Position, mv: Move) -> i32 {
    let mut gain = captured(pos, mv).map_or(0, PieceKind::value);
    if mv.is_promotion() {
        let kind = moved_kind(pos, mv);
        gain += kind.promote().value() - kind.value();
    }
    gain
}

/// Static exchange evaluation: whether the exchange sequence on the destination square,
/// each side recapturing with its least valuable attacker, gains at least `threshold`.
/// Pins are ignored; drops are treated as moves of a piece onto an empty square.
pub fn see_ge(pos: &Position, mv: Move, threshold: i32) -> bool {
    let to = mv.to();
    let mut swap = captured(pos, mv).map_or(0, PieceKind::value) - threshold;
    if swap < 0 {
        return false;
    }
    swap = moved_kind(pos, mv).value() - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = pos.occupied();
    if let Some(from) = mv.from() {
        occ.clear(from);
    }
    let mut stm = pos.side_to_move();
    let mut res = true;
    loop {
        stm = !stm;
        let attackers = pos.attackers_to(to, stm, occ) & occ;
        if attackers.is_empty() {
            break;
        }
        res = !res;
        let (kind, bb) = BY_VALUE
            .iter()
            .map(|&k| (k, attackers & pos.pieces_of_kind(k)))
            .find(|(_, bb)| bb.any())
            .expect("some attacker");
        if kind == PieceKind::King {
            // The king may only recapture if the other side has no attacker left.
            let others = pos.attackers_to(to, !stm, occ) & occ;
            return if others.any() { !res } else { res };
        }
        swap = kind.value() - swap;
        if swap < res as i32 {
            break;
        }
        occ.clear(bb.first());
    }
    res
}

/// Whether a capture or promotion does not lose material by SEE (a capture by a piece worth
/// no more than its victim never does): good ones are tried early, the others last.
#[inline(always)]
pub fn wins_exchange(pos: &Position, mv: Move) -> bool {
    match captured(pos, mv) {
        Some(victim) if moved_kind(pos, mv).value() <= victim.value() => true,
        _ => see_ge(pos, mv, 0),
    }
}

/// The ordering score of a capture or promotion: captures by MVV-LVA (and capture history,
/// with `capture_history`), promotions by their gain.
#[inline(always)]
pub fn tactical_score(
    pos: &Position,
    mv: Move,
    heur: &Heuristics,
    params: &SearchParams,
    capture_history: bool,
) -> i32 {
    match captured(pos, mv) {
        Some(victim) => {
            params.mvv_lva(victim.value(), moved_kind(pos, mv).value())
                + capture_score(pos, mv, victim, heur, params, capture_history)
        }
        None => tactical_gain(pos, mv),
    }
}

/// The ordering score of a quiet move: its history, plus its continuation history after the
/// moves one and two plies back (`continuation`, where those tables are used).
#[inline(always)]
pub fn quiet_score(
    pos: &Position,
    side: Color,
    mv: Move,
    continuation: [Option<usize>; CONTINUATION_PLIES],
    heur: &Heuristics,
) -> i32 {
    let arrival = continuation_index(pos, mv);
    let mut score = heur.history(side, mv);
    for (back, earlier) in continuation.iter().enumerate() {
        if let Some(earlier) = *earlier {
            score += heur.continuation(back, earlier, arrival);
        }
    }
    score
}

/// Evasions in quiescence: captures and promotions first (by [`tactical_score`]), the others
/// by history.
#[inline(always)]
pub fn evasion_score(
    pos: &Position,
    mv: Move,
    heur: &Heuristics,
    params: &SearchParams,
    capture_history: bool,
) -> i32 {
    if is_quiet(pos, mv) {
        heur.history(pos.side_to_move(), mv)
    } else {
        TACTICAL_EVASION + tactical_score(pos, mv, heur, params, capture_history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::{Bitboard, Piece, Square};

    fn sq(file: u8, rank: char) -> Square {
        Square::new(file, rank as u8 - b'a')
    }

    #[test]
    fn see_judges_exchanges() {
        use Color::*;
        use PieceKind::*;
        let mut pos = Position::empty();
        pos.put_piece(sq(5, 'e'), Piece::new(Sente, King));
        pos.put_piece(sq(1, 'a'), Piece::new(Gote, King));
        // Sente rook takes a gote pawn defended by a gote gold: loses the rook for a pawn.
        pos.put_piece(sq(3, 'e'), Piece::new(Sente, Rook));
        pos.put_piece(sq(3, 'c'), Piece::new(Gote, Pawn));
        pos.put_piece(sq(3, 'b'), Piece::new(Gote, Gold));
        let rook_takes = Move::board(sq(3, 'e'), sq(3, 'c'), false);
        assert!(pos.is_legal(rook_takes));
        assert!(!see_ge(&pos, rook_takes, 0));
        assert!(see_ge(&pos, rook_takes, -1000));
        // An undefended capture wins the piece.
        let mut free = pos.clone();
        free.remove_piece(sq(3, 'b'));
        assert!(see_ge(&free, rook_takes, 100));
        assert!(!see_ge(&free, rook_takes, 101));
        // Pawn takes a defended silver: +500 -100 >= 0.
        let mut p = Position::empty();
        p.put_piece(sq(5, 'e'), Piece::new(Sente, King));
        p.put_piece(sq(1, 'a'), Piece::new(Gote, King));
        p.put_piece(sq(3, 'd'), Piece::new(Sente, Pawn));
        p.put_piece(sq(3, 'c'), Piece::new(Gote, Silver));
        p.put_piece(sq(3, 'b'), Piece::new(Gote, Gold));
        let pawn_takes = Move::board(sq(3, 'd'), sq(3, 'c'), false);
        assert!(see_ge(&p, pawn_takes, 400));
        assert!(!see_ge(&p, pawn_takes, 401));
        // X-ray: a rook behind the rook recaptures through it.
        let mut x = Position::empty();
        x.put_piece(sq(5, 'e'), Piece::new(Sente, King));
        x.put_piece(sq(1, 'a'), Piece::new(Gote, King));
        x.put_piece(sq(2, 'e'), Piece::new(Sente, Rook));
        x.put_piece(sq(2, 'd'), Piece::new(Sente, Silver));
        x.put_piece(sq(2, 'c'), Piece::new(Gote, Gold));
        x.put_piece(sq(2, 'b'), Piece::new(Gote, Silver));
        // S takes G (+600), s takes S (-500), R takes s (+500): net +600 for sente.
        let silver_takes = Move::board(sq(2, 'd'), sq(2, 'c'), false);
        assert!(pos_is_legal(&x, silver_takes));
        assert!(see_ge(&x, silver_takes, 600));
        assert!(!see_ge(&x, silver_takes, 601));
    }

    /// What the side to move gains, at best, by capturing on `to` (where the other side's
    /// piece worth `target` stands) with its least valuable attacker, the exchange then going
    /// on the same way, each side free to stop: the exchange SEE models, by plain recursion.
    fn exchange(pos: &Position, to: Square, occ: Bitboard, stm: Color, target: i32) -> i32 {
        let attackers = pos.attackers_to(to, stm, occ) & occ;
        let Some((kind, bb)) = BY_VALUE
            .iter()
            .map(|&k| (k, attackers & pos.pieces_of_kind(k)))
            .find(|(_, bb)| bb.any())
        else {
            return 0;
        };
        let mut rest = occ;
        rest.clear(bb.first());
        if kind == PieceKind::King && (pos.attackers_to(to, !stm, rest) & rest).any() {
            // The king may not capture onto a defended square.
            return 0;
        }
        (target - exchange(pos, to, rest, !stm, kind.value())).max(0)
    }

    /// The material balance of `mv` followed by the best exchange on its square.
    fn exchange_after(pos: &Position, mv: Move) -> i32 {
        let mut occ = pos.occupied();
        if let Some(from) = mv.from() {
            occ.clear(from);
        }
        occ.set(mv.to());
        let gain = captured(pos, mv).map_or(0, PieceKind::value);
        gain - exchange(
            pos,
            mv.to(),
            occ,
            !pos.side_to_move(),
            moved_kind(pos, mv).value(),
        )
    }

    #[test]
    fn see_agrees_with_brute_force_exchanges_drops_included() {
        let (mut drops, mut captures) = (0, 0);
        for pos in crate::shogi::testing::random_positions_with_drops(29, 1500) {
            for &mv in pos.legal_moves().iter() {
                let value = exchange_after(&pos, mv);
                for threshold in [-1300, -600, -500, -100, -1, 0, 1, 100, 500, 600, 1000] {
                    assert_eq!(
                        see_ge(&pos, mv, threshold),
                        value >= threshold,
                        "{} {mv:?} threshold {threshold}: exchange {value}",
                        pos.to_sfen()
                    );
                }
                drops += usize::from(mv.is_drop());
                captures += usize::from(captured(&pos, mv).is_some());
            }
        }
        assert!(
            drops > 10_000 && captures > 1000,
            "{drops} drops, {captures} captures"
        );
    }

    fn pos_is_legal(pos: &Position, mv: Move) -> bool {
        pos.is_legal(mv)
    }
}
