//! A game record as every format holds it ([`Record`], [`Ending`]), its errors
//! ([`RecordError`]) and the reader the formats build one with ([`Reader`], every move checked
//! by the rules core). Below the formats (`csa.rs`, `kif/`, `usi.rs`, `text.rs`), which name
//! this file; the choice between them is `mod.rs`'s, above.

use std::fmt;
use std::time::Duration;

use minishogi_rules::{Color, EndReason, Game, GameStatus, Move, Position};

/// How a recorded game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The side to move had no legal move (詰み, `%TSUMI`).
    Checkmate,
    /// The side to move resigned (投了, `%TORYO`).
    Resignation,
    /// 千日手 (perpetual check included; `%SENNICHITE`). Who lost is the rules' verdict.
    Repetition,
    /// A draw by the ply limit (written 持将棋 in KIF, `%HIKIWAKE` in CSA).
    PlyLimit,
    /// A side lost by an illegal move or unusable output (反則負け / 反則勝ち, `%±ILLEGAL_ACTION`):
    /// the record's winner says which.
    Foul,
    /// The side to move ran out of time (切れ負け, `%TIME_UP`).
    TimeForfeit,
    /// The game was stopped (中断, `%CHUDAN`).
    Interrupted,
}

/// A game as the record formats hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub start: Position,
    /// Moves from `start`, each legal.
    pub moves: Vec<Move>,
    /// Thinking time of the moves, in order; missing entries count as zero.
    pub times: Vec<Duration>,
    /// Player names (empty when unknown).
    pub sente: String,
    pub gote: String,
    /// The event (KIF `棋戦`, CSA `$EVENT`).
    pub event: Option<String>,
    /// `None` for a game that stops without a recorded ending.
    pub ending: Option<Ending>,
    /// `None` for a draw, an interrupted or an unfinished game.
    pub winner: Option<Color>,
    /// Free text written as a comment after the ending (e.g. the referee's reason).
    pub comment: Option<String>,
    /// A comment on each move, by index (KIF: `*` lines after the move, as ShogiHome writes
    /// them; CSA: `'*` lines); missing entries are none.
    pub move_comments: Vec<Option<String>>,
}

impl Record {
    /// A record of `moves` from `start` without names, times or ending.
    pub fn new(start: Position, moves: Vec<Move>) -> Record {
        Record {
            start,
            moves,
            times: Vec::new(),
            sente: String::new(),
            gote: String::new(),
            event: None,
            ending: None,
            winner: None,
            comment: None,
            move_comments: Vec::new(),
        }
    }

    /// The position after every move.
    pub fn final_position(&self) -> Position {
        let mut pos = self.start.clone();
        for &mv in &self.moves {
            pos.make_move(mv);
        }
        pos
    }

    /// Thinking time of move `i` (zero when not recorded).
    pub fn time(&self, i: usize) -> Duration {
        self.times.get(i).copied().unwrap_or_default()
    }

    /// The comment on move `i`, if it has one.
    pub fn move_comment(&self, i: usize) -> Option<&str> {
        self.move_comments.get(i).and_then(|c| c.as_deref())
    }
}

/// A malformed or illegal record: what is wrong and on which line (1-based; 0 = the record as
/// a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    pub line: usize,
    pub message: String,
}

impl RecordError {
    pub fn new(line: usize, message: impl Into<String>) -> RecordError {
        RecordError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for RecordError {}

/// `text` on one line: line breaks and other control characters become spaces (names and
/// events come from outside and must not break a record's lines).
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A position put together by a reader (board diagram, CSA board), checked as an SFEN would
/// be: piece counts, one king a side, no pawn on its last rank, 二歩, the side not to move not
/// in check. Errors name `line`, the diagram's last line.
pub(crate) fn checked_position(pos: &Position, line: usize) -> Result<Position, RecordError> {
    Position::from_sfen(&pos.to_sfen())
        .map_err(|e| RecordError::new(line, format!("impossible start position: {e}")))
}

/// A record being read: the game so far (every move checked by the rules core) and what the
/// record says about it.
pub(crate) struct Reader {
    pub game: Game,
    pub times: Vec<Duration>,
    pub sente: String,
    pub gote: String,
    pub event: Option<String>,
    /// The recorded ending with its line, and the side it names as the winner, if it does.
    pub ending: Option<(Ending, usize, Option<Color>)>,
    /// A winner stated apart from the ending (KIF's `まで…で先手の勝ち`) with its line.
    pub claimed_winner: Option<(Option<Color>, usize)>,
    pub move_comments: Vec<Option<String>>,
}

impl Reader {
    pub fn new(start: Position) -> Reader {
        Reader {
            game: Game::new(start),
            times: Vec::new(),
            sente: String::new(),
            gote: String::new(),
            event: None,
            ending: None,
            claimed_winner: None,
            move_comments: Vec::new(),
        }
    }

    /// A comment line read after a move: the last move's, before the ending (others — on the
    /// start, after the ending — are not kept).
    pub fn comment(&mut self, text: &str) {
        let plies = self.game.plies();
        if plies == 0 || self.ending.is_some() {
            return;
        }
        self.move_comments.resize(plies, None);
        let comment = self.move_comments[plies - 1].get_or_insert_with(String::new);
        if !comment.is_empty() {
            comment.push('\n');
        }
        comment.push_str(text);
    }

    /// Plays a move read on `line` (`text` is the move as written), refusing moves after the
    /// recorded ending and illegal moves.
    pub fn play(&mut self, mv: Move, line: usize, text: &str) -> Result<(), RecordError> {
        if let Some((_, ending_line, _)) = self.ending {
            return Err(RecordError::new(
                line,
                format!("move '{text}' after the game's end (line {ending_line})"),
            ));
        }
        self.game.play(mv).map_err(|e| {
            let reason = match e {
                minishogi_rules::MoveError::Illegal { reason, .. }
                | minishogi_rules::MoveError::Syntax { reason, .. } => reason,
            };
            RecordError::new(
                line,
                format!("illegal move {} '{text}': {reason}", self.game.plies() + 1),
            )
        })
    }

    /// Records the thinking time of the last move played.
    pub fn set_time(&mut self, time: Duration) {
        let plies = self.game.plies();
        if plies > 0 {
            self.times.resize(plies, Duration::ZERO);
            self.times[plies - 1] = time;
        }
    }

    /// Ends the record at `line`; a second ending is an error.
    pub fn end(
        &mut self,
        ending: Ending,
        line: usize,
        winner: Option<Color>,
    ) -> Result<(), RecordError> {
        if let Some((_, first, _)) = self.ending {
            return Err(RecordError::new(
                line,
                format!("a second ending (the first is on line {first})"),
            ));
        }
        self.ending = Some((ending, line, winner));
        Ok(())
    }

    /// The record, with the ending and winner judged: the rules' verdict where the game is
    /// over by them (mate, 千日手), else what the ending implies. A recorded checkmate or 千日手
    /// that the rules do not see, or a stated winner that is not the one judged, is an error.
    pub fn finish(self) -> Result<Record, RecordError> {
        let side = self.game.position().side_to_move();
        let by_rules = match self.game.status() {
            GameStatus::Win { winner, reason } => Some((winner, reason)),
            _ => None,
        };
        let (ending, winner) = match (self.ending, by_rules) {
            (Some((ending, _, _)), Some((winner, _))) => (Some(ending), Some(winner)),
            (None, Some((winner, reason))) => {
                let ending = match reason {
                    EndReason::Repetition | EndReason::PerpetualCheck => Ending::Repetition,
                    _ => Ending::Checkmate,
                };
                (Some(ending), Some(winner))
            }
            (Some((ending, line, named)), None) => {
                let winner = match ending {
                    Ending::Checkmate => {
                        return Err(RecordError::new(
                            line,
                            "the record ends in checkmate, but the side to move has a legal move",
                        ));
                    }
                    Ending::Repetition => {
                        return Err(RecordError::new(
                            line,
                            "the record ends in 千日手, but no position occurred four times",
                        ));
                    }
                    Ending::Resignation | Ending::TimeForfeit => Some(!side),
                    Ending::Foul => Some(named.unwrap_or(!side)),
                    Ending::PlyLimit | Ending::Interrupted => None,
                };
                (Some(ending), winner)
            }
            (None, None) => (None, None),
        };
        if let Some((claimed, line)) = self.claimed_winner
            && claimed != winner
        {
            let name = |w: Option<Color>| match w {
                Some(Color::Sente) => "sente (先手) won",
                Some(Color::Gote) => "gote (後手) won",
                None => "no winner",
            };
            return Err(RecordError::new(
                line,
                format!(
                    "the record says {}, but the moves and ending give {}",
                    name(claimed),
                    name(winner)
                ),
            ));
        }
        let moves = self.game.moves().to_vec();
        let mut times = self.times;
        if !times.is_empty() {
            times.resize(moves.len(), Duration::ZERO);
        }
        Ok(Record {
            start: self.game.start_position().clone(),
            moves,
            times,
            sente: self.sente,
            gote: self.gote,
            event: self.event,
            ending,
            winner,
            comment: None,
            move_comments: self.move_comments,
        })
    }
}
