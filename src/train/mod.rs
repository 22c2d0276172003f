//! Training: the mate pretraining data set and self-play.

pub mod matedata;
pub mod packed;
pub mod pretrain;
pub mod selfplay;
