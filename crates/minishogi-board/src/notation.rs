//! Moves as the page writes them: Japanese (KIF's notation with ☗/☖) and English (the
//! western notation: piece, origin, `-`, `x` or `*`, destination, `+` or `=`).

use crate::records::kif::kif_move;
use crate::shogi::{Color, Move, Position, Square};

/// `☗３四銀(25)`.
pub fn ja(before: &Position, mv: Move, previous_to: Option<Square>) -> String {
    let mark = match before.side_to_move() {
        Color::Sente => '☗',
        Color::Gote => '☖',
    };
    format!("{mark}{}", kif_move(before, mv, previous_to))
}

/// `S2e-3d`, `Bx2b+`, `P*3c`.
pub fn en(before: &Position, mv: Move) -> String {
    let to = mv.to();
    match (mv.dropped(), mv.from()) {
        (Some(kind), _) => format!("{}*{to}", kind.usi_letter()),
        (None, None) => mv.to_string(),
        (None, Some(from)) => {
            let Some(piece) = before.piece_at(from) else {
                return mv.to_string();
            };
            let letter = if piece.kind.is_promoted() {
                format!("+{}", piece.kind.usi_letter())
            } else {
                piece.kind.usi_letter().to_string()
            };
            let capture = if before.piece_at(to).is_some() {
                'x'
            } else {
                '-'
            };
            let zone = before.side_to_move().promotion_rank();
            let suffix = if mv.is_promotion() {
                "+"
            } else if piece.kind.can_promote() && (from.rank() == zone || to.rank() == zone) {
                "="
            } else {
                ""
            };
            format!("{letter}{from}{capture}{to}{suffix}")
        }
    }
}

/// A PV's moves in Japanese, as far as they are legal from `pos`.
pub fn kif_line(pos: &Position, pv: &[String]) -> Vec<String> {
    written_line(pos, pv, ja)
}

/// A PV's moves in English, as far as they are legal from `pos`.
pub fn en_line(pos: &Position, pv: &[String]) -> Vec<String> {
    written_line(pos, pv, |pos, mv, _| en(pos, mv))
}

fn written_line(
    pos: &Position,
    pv: &[String],
    write: impl Fn(&Position, Move, Option<Square>) -> String,
) -> Vec<String> {
    let mut pos = pos.clone();
    let mut previous_to = None;
    let mut out = Vec::new();
    for text in pv {
        let Ok(mv) = pos.parse_usi_move(text) else {
            break;
        };
        out.push(write(&pos, mv, previous_to));
        previous_to = Some(mv.to());
        pos.make_move(mv);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_written_in_both_languages() {
        let pos = Position::startpos();
        let mv = pos.parse_usi_move("2e3d").unwrap();
        assert_eq!(ja(&pos, mv, None), "☗３四角(25)");
        assert_eq!(en(&pos, mv), "B2e-3d");
        let pos = Position::from_sfen("4k/2S2/4G/5/K4 b P 1").unwrap();
        let drop = pos.parse_usi_move("P*1d").unwrap();
        assert_eq!(en(&pos, drop), "P*1d");
        let promote = pos.parse_usi_move("3b2a+").unwrap();
        assert_eq!(en(&pos, promote), "S3b-2a+");
        let stay = pos.parse_usi_move("3b2a").unwrap();
        assert_eq!(en(&pos, stay), "S3b-2a=");
        assert_eq!(
            kif_line(
                &Position::startpos(),
                &["2e3d".into(), "4a3b".into(), "zz".into()]
            )
            .len(),
            2
        );
    }
}
