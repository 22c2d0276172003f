//! Search switches: each selective technique of the search on or off, with its default, in one
//! place (one line of [`search_switches!`] each, as [`super::params`] has for the numbers).
//! Settable at run time by name ([`SearchFeatures::set`]): the hidden USI options and
//! `--engine-option` take the names of [`SearchFeatures::NAMES`]. The switches exist for
//! measuring the techniques; those that lost their match are off by default.

/// One line per switch: its documentation, `name = default;`. Generates the fields of
/// [`SearchFeatures`], its [`SearchFeatures::NAMES`], [`SearchFeatures::set`] and `Default`.
macro_rules! search_switches {
    ($( $(#[doc = $doc:expr])* $field:ident = $default:literal; )*) => {
        /// Selective search techniques; the switches exist for measuring them (those that lost
        /// their match are off by default).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct SearchFeatures {
            $( $(#[doc = $doc])* pub $field: bool, )*
        }

        impl SearchFeatures {
            /// The switches by name, for hidden USI options and experiments.
            pub const NAMES: [&'static str; [$( stringify!($field) ),*].len()] =
                [$( stringify!($field) ),*];

            /// Turns the technique `name` (one of [`Self::NAMES`]) on or off; `false` for an
            /// unknown name.
            pub fn set(&mut self, name: &str, on: bool) -> bool {
                let switch = match name {
                    $( stringify!($field) => &mut self.$field, )*
                    _ => return false,
                };
                *switch = on;
                true
            }
        }

        impl Default for SearchFeatures {
            fn default() -> Self {
                SearchFeatures { $( $field: $default, )* }
            }
        }
    };
}

search_switches! {
    /// Null-move pruning: a node whose side to move still reaches beta after passing is cut.
    null_move = true;
    /// Late move reductions: late quiet moves are searched shallower first.
    lmr = true;
    /// Reverse futility, futility and late-move pruning near the leaves.
    shallow_pruning = true;
    /// Checks are extended (below the root, those that keep their material within
    /// `check_ext_ply_factor` times the root depth; see also `check_ext_max_replies`).
    check_extension = true;
    /// Looks for a mate in one at quiescence nodes (not in check, below beta).
    qs_mate1 = false;
    /// Checks that lose material (SEE < 0) are reduced and pruned like quiet moves.
    reduce_losing_checks = true;
    /// Singular extension: the TT move is extended when a reduced search without it fails
    /// well below its score (and the node is cut at once when even that search reaches beta).
    singular = true;
    /// Continuation history (previous move's piece and destination → this move's) in the
    /// ordering of quiet moves.
    cont_history = true;
    /// Looks for a mating drop at quiescence nodes (not in check, below beta); cheaper than
    /// `qs_mate1`, which tries every move.
    qs_drop_mate1 = true;
    /// Cut nodes without a TT move search one ply shallower (internal iterative reduction).
    iir_cut = true;
    /// Quiet moves with a bad history are pruned near the leaves.
    history_pruning = true;
    /// The static evaluation is corrected by what searches of similar positions found
    /// (correction history keyed by hands and pawns, and by the previous move).
    correction_history = true;
    /// Late move reductions are one ply deeper when the evaluation is not improving...
    lmr_improving = true;
    /// ...and one ply deeper for quiet moves when the TT move is a capture or promotion.
    lmr_tt_tactical = false;
    /// ProbCut: a capture whose reduced search beats beta by a margin cuts the node.
    probcut = true;
    /// MCTS (`Search` `mcts`) takes its priors from the learned move policy
    /// (`mcts::policy`); off, from the move ordering's classes (`mcts::ordering_priors`).
    /// The alpha-beta search ignores it.
    mcts_policy = true;
    /// Singular extension's other side: a TT move that is not singular but whose TT score is
    /// at least beta is searched one ply shallower.
    se_negative = false;
    /// A third correction-history table, keyed by the last two moves together.
    correction_pair = false;
    /// Capture history (moved piece, destination, captured kind) in the ordering of captures.
    capture_history = false;
    /// Follow-up history: continuation history keyed by the side's own move two plies back,
    /// beside `cont_history`'s table of the opponent's previous move.
    follow_up_history = false;
    /// Late root moves are reduced by the main search's table (ln depth · ln number) instead
    /// of one ply.
    root_lmr_table = false;
    /// Quiet checks that pass SEE are reduced too, one ply less than other quiet moves.
    lmr_safe_checks = false;
    /// Only a repetition cycle closed inside the search tree is projected to 千日手; one that
    /// returns to a position of the game before the root counts at its real fourth occurrence.
    in_tree_repetition = true;
    /// Lazy SMP helpers skip some depths (`threads::skip_depth`) so that they spread over
    /// different iterations; off, every thread searches every depth.
    helper_depth_skip = true;
}
