//! What a resumed run continues from: everything that decides the rest of a run, saved
//! together in one file after every iteration (atomically, so it is always a whole iteration).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fileio::{self, FileError};
use crate::nn::{self, Network};
use crate::train::trainer::{Dataset, TrainerState};

const MAGIC: &[u8; 8] = b"MSSPCKPT";
const VERSION: u32 = 1;

/// The state after a completed iteration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The options the run was started with that decide its results (`args::settings`).
    pub settings: String,
    /// The last completed iteration.
    pub iteration: usize,
    /// The network, as a weights file's bytes.
    pub weights: Vec<u8>,
    /// Optimiser moments, step count, learning rate and the shuffling generator's position.
    pub trainer: TrainerState,
    /// Self-play data of the latest iterations (`--replay`), oldest first.
    pub window: Vec<Dataset>,
    /// The metrics CSV up to `iteration`, header included.
    pub csv: String,
}

impl Checkpoint {
    /// The network of the checkpoint.
    pub fn network(&self, path: &Path) -> Result<Network, String> {
        nn::weights::decode(&self.weights)
            .map_err(|e| format!("{}: checkpoint network: {e}", path.display()))
    }
}

/// The checkpoint file of an output: `weights/selfplay.bin` → `weights/selfplay.ckpt`.
pub fn path_for(out: &Path) -> PathBuf {
    out.with_extension("ckpt")
}

pub fn save(path: &Path, checkpoint: &Checkpoint) -> Result<(), FileError> {
    fileio::save(path, MAGIC, VERSION, checkpoint)
}

/// The checkpoint at `path`, `None` if there is none.
pub fn load(path: &Path) -> Result<Option<Checkpoint>, FileError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => fileio::load(path, MAGIC, VERSION).map(Some),
    }
}
