//! MCTS's numbers: PUCT's constants, the priors' temperatures, the leaf's quiescence, the mate
//! searches at the nodes and tree reuse, each with its default and the range a tuner may try.
//! A table of its own beside the player that reads it (the alpha-beta search reads none of
//! them), of the same kind as the search's (`search::params`): hidden USI options and
//! parameters files name both alike, the search's first (`players::PlayerParams`).

use crate::search::params::params_table;

params_table! {
    /// MCTS's tunable numbers (see the module documentation).
    MctsParams;
    /// PUCT's exploration constant, in hundredths (1.5 beat 2 at 20,000 visits a move, 3 lost:
    /// docs/results/mcts.md, "PUCT's constant at 20,000 visits").
    mcts_c_centi = 150, 1..=2000;
    /// PUCT's exploration grows with the parent's visits: c + this/100 · ln((N + base) / base),
    /// base `mcts_c_base` (Leela's form), so that a long search explores more; 0 = constant c.
    mcts_c_growth_centi = 0, 0..=2000;
    /// The visits at which the growth term reaches ln 2 of its factor.
    mcts_c_base = 20000, 1..=10000000;
    /// First-play urgency: an unvisited child is worth its parent's value less this many
    /// hundredths.
    mcts_fpu_centi = 20, 0..=100;
    /// The move ordering's priors' softmax temperature (`mcts_policy` off), in hundredths
    /// (higher: flatter priors).
    mcts_prior_temp_centi = 200, 10..=1000;
    /// The learned move policy's softmax temperature (`mcts_policy` on), in hundredths: its
    /// priors are sharper than PUCT wants (docs/results/mcts.md, "A learned move policy").
    mcts_policy_temp_centi = 150, 10..=1000;
    /// Logit added to the prior of a move that gives check, in hundredths.
    mcts_check_logit_centi = 200, 0..=500;
    /// A leaf's value comes from a quiescence search (captures and promotions, evasions in
    /// check) of at most this many plies; 0 values it by the static evaluation.
    mcts_leaf_qs_plies = 0, 0..=16;
    /// A node is searched for a mate in three (a check after which every evasion is mated at
    /// once) when its visits reach this; 0: never (only the mate in one at expansion).
    mcts_mate3_visits = 0, 0..=1000000;
    /// A node is searched for a mate by checks (`search::mate`) of at most
    /// `mcts_mate_plies` plies and `mcts_mate_nodes` nodes when its visits reach this; 0: never
    /// (docs/results/mcts.md, "A mate search by checks at the nodes").
    mcts_mate_visits = 32, 0..=1000000;
    /// The longest mate that search looks for, in plies.
    mcts_mate_plies = 7, 3..=31;
    /// The nodes that search may spend at one tree node.
    mcts_mate_nodes = 2000, 1..=10000000;
    /// 1: a search starts from the subtree of the last search's tree under the moves played
    /// since (tree reuse); 0: from an empty tree.
    mcts_reuse = 1, 0..=1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_cover_every_field_with_defaults_in_range() {
        let p = MctsParams::default();
        for spec in MctsParams::SPECS {
            assert!(spec.name.starts_with("mcts_"), "{}", spec.name);
            assert_eq!(p.get(spec.name), Some(spec.default), "{}", spec.name);
            assert!(
                spec.min <= spec.default && spec.default <= spec.max,
                "{spec:?}"
            );
        }
        assert_eq!(
            std::mem::size_of::<MctsParams>(),
            4 * MctsParams::SPECS.len()
        );
    }
}
