//! `engine selfplay`: reinforcement learning as the seed does it. The network plays games
//! against itself — moves chosen one-ply as in the seed (a softmax over the values of the
//! positions after each move), or with `--depth` by the alpha-beta search — every visited
//! position gets a TD-style target computed from the end of the game backwards, and the network
//! is trained on those targets (plus a share of the mate data set, so the end-game knowledge of
//! pretraining is kept). Progress is measured by matches of the current network against the
//! starting one and against a material player.
//!
//! Targets, for the states `s_0 … s_n` of a game, each seen from its side to move:
//!
//! ```text
//! R_n = result for the side to move in s_n (0 lost, 1 won, ½ ply-limit draw)
//! R_i = 1 − ((1 − γ)·V(s_{i+1}) + γ·R_{i+1})      (i < n)
//! target_i = (1 − α)·V(s_i) + α·R_i
//! ```
//!
//! The defaults (α 0.8, γ 0.8, temperature 0.25, three iterations of replay, four epochs) were
//! chosen by a one-at-a-time sweep measured by matches. `--depth 2` trains a clearly stronger
//! network for the engine's search than one-ply self-play, at a tenth of the speed;
//!
//! The job is split by what it does: [`args`] (the options), [`players`] (who chooses the
//! moves, and the self-play game), [`targets`] (the training targets of a game), [`harness`]
//! (the in-process progress matches), [`metrics`] (figures, CSV and summary lines),
//! [`checkpoint`] (what a resumed run continues from) and [`run`] (the loop).
//!
//! A run is resumable: after every iteration the network, the trainer's state (optimiser and
//! shuffling generator), the replay window, the metrics and the iteration number are saved
//! together in one file beside `--out` (`<out stem>.ckpt`, written atomically). Run again with
//! the same `--out` and it continues from there, to the same weights as an uninterrupted run;
//! `--restart` starts over. A lock beside the output (`<out stem>.lock`) refuses a second run
//! on the same output while the first is alive.

pub mod args;
pub mod checkpoint;
pub mod harness;
pub mod metrics;
pub mod players;
mod run;
pub mod targets;

pub use args::SelfplayArgs;
pub use harness::{MatchScore, play_match};
pub use metrics::{GameTally, IterationStats, SelfplayReport, snapshot_path};
pub use players::{Player, Policy, SelfplayGame, game_seed, play_selfplay_game};
pub use run::run;
pub use targets::td_targets;
