//! Neural evaluation: input features → dense layers → sigmoid win probability of the side to move.
//!
//! - [`features`]: the feature sets ([`FeatureSet`]: the seed's 361 inputs, the king-piece
//!   set of [`king_piece`]) and extraction from a [`Position`].
//! - [`network`]: the ndarray reference network (forward, backward), used for training.
//! - [`weights`]: the weights file format (header, checksum, atomic save).
//! - [`fast`]: the allocation-free sparse inference path for the search.
//!
//! See `docs/nn.md` for the measured speed and the choice of the default shape.

pub mod fast;
pub mod feature_set;
pub mod features;
pub mod king_piece;
pub mod network;
pub mod quant;
pub mod weights;

pub use fast::{FAST_MAX_WIDTH, FastNet};
pub use feature_set::{FeatureSet, Features};
pub use features::{FEATURE_SET_ID, NUM_FEATURES};
pub use network::{Activation, Dense, Network, ShapeError, sigmoid};
pub use quant::{QuantNet, QuantPathState};
pub use weights::{WeightsError, load_from_path, save_to_path};

use crate::eval::{CP_PER_LOGIT, cp_from_logit, win_probability_of_cp};
use crate::shogi::Position;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::Path;

/// Default layer sizes; `docs/nn.md` records the speed/accuracy measurements behind them.
pub const DEFAULT_SIZES: [usize; 4] = [NUM_FEATURES, 64, 32, 1];
pub const DEFAULT_ACTIVATION: Activation = Activation::Relu;
/// Seed of a random initialisation of [`DEFAULT_SIZES`] (tests and fresh training runs; the
/// engine itself always plays with the embedded trained weights).
pub const DEFAULT_INIT_SEED: u64 = 0x55_5555;

/// Trained weights compiled into the binary: `weights/default.bin`, produced by the project's
/// own commands (`engine pretrain` + `engine selfplay`, then `engine datagen` + `engine train`
/// generations; recorded in `weights/README.md`).
const EMBEDDED_WEIGHTS: &[u8] = include_bytes!("../../../../weights/default.bin");

/// The network shipped with the engine: the embedded trained weights (checked by the tests, so
/// a build with a bad `weights/default.bin` fails them rather than playing at random).
pub fn default_network() -> Network {
    weights::decode(EMBEDDED_WEIGHTS).expect("embedded weights/default.bin is a valid weights file")
}

/// The evaluator the engine plays with by default (USI, course play, bench): the embedded
/// trained network.
pub fn engine_evaluator() -> std::sync::Arc<dyn crate::eval::Evaluator> {
    std::sync::Arc::new(NetworkEvaluator::with_default_network())
}

/// The search sees the network through the `eval::Evaluator` trait; the cp score comes straight
/// from the logit, skipping the round trip through the probability.
impl crate::eval::Evaluator for NetworkEvaluator {
    fn win_probability(&self, pos: &Position) -> f32 {
        self.evaluate(pos)
    }

    fn evaluate_cp(&self, pos: &Position) -> i32 {
        cp_from_logit(self.evaluate_logit(pos))
    }

    fn path_state(&self, root: &Position) -> Option<Box<dyn crate::eval::PathState + '_>> {
        self.quant
            .as_ref()
            .map(|q| Box::new(QuantPathState::new(q, root)) as Box<dyn crate::eval::PathState>)
    }
}

/// Networks whose first layer is at least this wide are evaluated by the quantised path with
/// incremental first-layer updates ([`quant`]); narrower ones by the float sparse path
/// ([`fast`]), which is faster for them.
pub const QUANT_MIN_WIDTH: usize = 128;

/// The quantised path for `net`, where its width calls for it and its shape allows it.
fn quant_for(net: &Network) -> Option<QuantNet> {
    if net.sizes()[1] < QUANT_MIN_WIDTH {
        return None;
    }
    match QuantNet::from_network(net) {
        Ok(q) => Some(q),
        Err(e) => {
            log::warn!("float evaluation for this network: {e}");
            None
        }
    }
}

/// The evaluator an engine holds: the network plus its fast form. Loading a file replaces both
/// only when the whole file is valid, so a failed `EvalFile` keeps the current weights.
#[derive(Clone, Debug)]
pub struct NetworkEvaluator {
    net: Network,
    fast: FastNet,
    /// Set for wide networks: then every evaluation goes through it.
    quant: Option<QuantNet>,
    source: String,
}

impl NetworkEvaluator {
    pub fn new(net: Network, source: impl Into<String>) -> Result<NetworkEvaluator, ShapeError> {
        let fast = FastNet::from_network(&net)?;
        Ok(NetworkEvaluator {
            quant: quant_for(&net),
            net,
            fast,
            source: source.into(),
        })
    }

    /// The default network (see [`default_network`]), source `embedded`.
    pub fn with_default_network() -> NetworkEvaluator {
        NetworkEvaluator::new(default_network(), "embedded")
            .expect("default network fits the fast path")
    }

    /// Loads a weights file; on any error the current weights stay in place.
    pub fn load(&mut self, path: impl AsRef<Path>) -> Result<(), WeightsError> {
        let path = path.as_ref();
        let net = load_from_path(path)?;
        let fast = FastNet::from_network(&net).map_err(WeightsError::Shape)?;
        log::info!(
            "loaded weights {} (sizes {:?}, {})",
            path.display(),
            net.sizes(),
            net.hidden_activation().name()
        );
        self.quant = quant_for(&net);
        self.net = net;
        self.fast = fast;
        self.source = path.display().to_string();
        Ok(())
    }

    /// Win probability of the side to move.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> f32 {
        sigmoid(self.evaluate_logit(pos))
    }

    /// Output logit `ln(p / (1 − p))` of the side to move.
    #[inline]
    pub fn evaluate_logit(&self, pos: &Position) -> f32 {
        match &self.quant {
            Some(q) => q.logit(pos),
            None => self.fast.evaluate_logit(pos),
        }
    }

    /// Centipawn score of the side to move.
    #[inline]
    pub fn evaluate_cp(&self, pos: &Position) -> i32 {
        cp_from_logit(self.evaluate_logit(pos))
    }

    /// The quantised path, for a wide network.
    pub fn quant(&self) -> Option<&QuantNet> {
        self.quant.as_ref()
    }

    pub fn network(&self) -> &Network {
        &self.net
    }

    pub fn fast(&self) -> &FastNet {
        &self.fast
    }

    /// Where the weights came from: a path or `embedded` (or what the creator named).
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// The feature groups of `set` the evaluation report breaks the score into.
pub fn feature_groups(set: FeatureSet) -> Vec<(String, Range<usize>)> {
    use features::*;
    let mut g = Vec::new();
    // The seed's planes, where the set has them; hands lead the piece-bucket set.
    let hands = if set.has_seed() {
        for (side, name) in [(0, "own"), (1, "opp")] {
            for (group, gname) in GROUP_NAMES.iter().enumerate() {
                let start = attack_index(side, group, 0);
                g.push((format!("{name} {gname} attacks"), start..start + 25));
            }
        }
        for (side, name) in [(0, "own"), (1, "opp")] {
            let start = presence_index(side, 0);
            g.push((format!("{name} piece presence"), start..start + 25));
        }
        hand_index(0, 0)
    } else {
        0
    };
    for (side, name) in [(0, "own"), (1, "opp")] {
        let start = hands + side * 5;
        g.push((format!("{name} hand"), start..start + 5));
    }
    let side_to_move = set.side_to_move_index();
    g.push(("side to move".to_string(), side_to_move..side_to_move + 1));
    if let Some(layout) = set.king_layout() {
        g.push((
            "piece-square".to_string(),
            layout.piece_square_offset()..layout.own_offset(),
        ));
        g.push((
            "pieces by own king".to_string(),
            layout.own_offset()..layout.opp_offset(),
        ));
        g.push((
            "pieces by opp king".to_string(),
            layout.opp_offset()..layout.inputs(),
        ));
    }
    g
}

/// Text report for `engine eval`: win probability, cp, and each feature group's contribution,
/// measured by ablation: the change in cp when that group's inputs are set to zero.
pub fn eval_report(net: &Network, pos: &Position) -> String {
    let f = Features::of_set(net.feature_set(), pos);
    let x = f.to_f32();
    let z = net.logit(&x);
    let cp = cp_from_logit(z);
    let mut out = String::new();
    // The sigmoid of the logit is on the search's scale (600 cp a logit, what the network was
    // trained to); the winning chance is the fitted curve's of the cp.
    let _ = writeln!(
        out,
        "side to move: {:?}\nwin probability: {:.4}\ncp: {cp}\nnetwork output: {:.4} \
         (sigmoid of the logit; cp = {CP_PER_LOGIT} · logit)\nnetwork: {:?} {}",
        pos.side_to_move(),
        win_probability_of_cp(cp as f32),
        sigmoid(z),
        net.sizes(),
        net.hidden_activation().name()
    );
    let _ = writeln!(
        out,
        "contribution by feature group (cp lost when the group is zeroed; active inputs):"
    );
    for (name, range) in feature_groups(net.feature_set()) {
        let active = range.clone().filter(|&i| f.get(i) != 0).count();
        let mut ablated = x.clone();
        ablated[range].iter_mut().for_each(|v| *v = 0.0);
        let dz = z - net.logit(&ablated);
        let _ = writeln!(
            out,
            "  {name:<34} {:>+7.0} cp  ({active} active)",
            CP_PER_LOGIT * dz
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::{Color, Piece, PieceKind, Square};

    #[test]
    fn default_network_is_deterministic_and_fits_fast_path() {
        let a = default_network();
        let b = default_network();
        assert_eq!(a, b);
        let random = Network::new(&DEFAULT_SIZES, DEFAULT_ACTIVATION, DEFAULT_INIT_SEED).unwrap();
        assert_eq!(random.sizes(), DEFAULT_SIZES.to_vec());
        let ev = NetworkEvaluator::with_default_network();
        assert_eq!(ev.network(), &a);
        assert_eq!(ev.source(), "embedded");
        let p = ev.evaluate(&Position::startpos());
        assert!(p > 0.0 && p < 1.0);
    }

    #[test]
    fn feature_groups_cover_every_input_once() {
        for (set, groups) in [
            (FeatureSet::Seed361, 17),
            (FeatureSet::KingPiece, 20),
            (FeatureSet::KingBucket, 20),
        ] {
            let mut seen = vec![0u8; set.inputs()];
            for (_, r) in feature_groups(set) {
                for i in r {
                    seen[i] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1));
            assert_eq!(feature_groups(set).len(), groups);
        }
    }

    #[test]
    fn eval_report_contents() {
        let net = Network::new(&[NUM_FEATURES, 16, 1], Activation::Relu, 5).unwrap();
        let mut pos = Position::empty();
        pos.put_piece(Square::new(5, 4), Piece::new(Color::Sente, PieceKind::King));
        pos.put_piece(Square::new(1, 0), Piece::new(Color::Gote, PieceKind::King));
        pos.set_hand_count(Color::Sente, PieceKind::Rook, 1);
        let report = eval_report(&net, &pos);
        let x = Features::from_position(&pos).to_f32();
        let p = net.predict(&x);
        assert!(
            report.contains(&format!("network output: {p:.4} ")),
            "{report}"
        );
        let cp = cp_from_logit(net.logit(&x));
        let win = win_probability_of_cp(cp as f32);
        assert!(
            report.contains(&format!("win probability: {win:.4}\n")),
            "{report}"
        );
        assert!(
            report.contains(&format!("cp: {}", cp_from_logit(net.logit(&x)))),
            "{report}"
        );
        assert!(report.contains("own hand"), "{report}");
        // The kings are the only attackers; the absent groups contribute exactly nothing.
        let line = report
            .lines()
            .find(|l| l.contains("own rook+dragon attacks"))
            .unwrap();
        assert!(line.contains("+0 cp") || line.contains("-0 cp"), "{line}");
        assert!(line.contains("(0 active)"), "{line}");
        assert_eq!(report.lines().count(), 6 + 17);
    }

    #[test]
    fn failed_load_keeps_current_weights() {
        let dir = std::env::temp_dir().join(format!("nn-evaluator-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = Network::new(&[NUM_FEATURES, 8, 1], Activation::Relu, 9).unwrap();
        let good_path = dir.join("good.bin");
        save_to_path(&good, &good_path).unwrap();
        let bad_path = dir.join("bad.bin");
        let mut bytes = weights::encode(&good);
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x40;
        std::fs::write(&bad_path, &bytes).unwrap();

        let mut ev = NetworkEvaluator::with_default_network();
        let pos = Position::startpos();
        ev.load(&good_path).unwrap();
        assert_eq!(ev.network(), &good);
        let before = ev.evaluate(&pos);
        let err = ev.load(&bad_path).unwrap_err();
        assert!(
            matches!(err, WeightsError::ChecksumMismatch { .. }),
            "{err}"
        );
        let err = ev.load(dir.join("missing.bin")).unwrap_err();
        assert!(
            matches!(err, WeightsError::File(crate::fileio::FileError::Io { .. })),
            "{err}"
        );
        assert_eq!(ev.network(), &good);
        assert_eq!(ev.evaluate(&pos), before);
        assert_eq!(ev.source(), good_path.display().to_string());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
