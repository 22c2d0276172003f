//! `setoption` and `isready`: an option's `Setting` applied to the session (the player, its
//! strength and evaluator, the book, the game's ply limit), and the slow set-up (the hash
//! table, the threads' memory, a weights file) done before `readyok`.

use std::path::Path;

use super::*;

impl Session {
    pub(super) fn setoption(&mut self, name: &str, value: Option<&str>) {
        let setting = match self.options.parse(name, value) {
            Ok(setting) => setting,
            Err(e) => return self.out.error(format!("setoption: {e}")),
        };
        let Some(player) = self.idle_player("setoption") else {
            return;
        };
        let options = player.options_mut();
        match setting {
            Setting::HashMb(mb) => {
                options.hash_mb = mb;
                self.allocate(true);
            }
            Setting::Threads(n) => {
                let cores = thread::available_parallelism().map_or(1, |n| n.get());
                if n > cores {
                    self.out.note(format!(
                        "Threads {n}: using {cores}, the number of cores available (more threads \
                         would only slow the search and delay its answers)"
                    ));
                }
                if let Some(player) = self.search.player() {
                    player.options_mut().threads = n.min(cores);
                }
                self.allocate(false);
            }
            Setting::MultiPv(n) => options.multipv = n,
            Setting::MaxPly(limit) => {
                // The game owns its draw limit; the search reads it from there.
                self.game.set_max_plies(limit);
            }
            Setting::MoveOverhead(overhead) => options.move_overhead = overhead,
            Setting::SearchFeature(name, on) => {
                options.features.set(name, on);
            }
            Setting::SearchParam(name, value) => {
                // Checked against the parameter's range when parsed. The search's numbers are
                // the player's options; MCTS's the session's, an MCTS player built with them.
                if options.params.get(name).is_some() {
                    if let Err(e) = options.params.set(name, value) {
                        self.out.error(format!("setoption: {e}"));
                    }
                } else {
                    let mut mcts = self.mcts_params;
                    match mcts.set(name, value) {
                        Ok(()) => self.set_mcts_params(mcts),
                        Err(e) => self.out.error(format!("setoption: {e}")),
                    }
                }
            }
            Setting::SkillLevel(level) => self.set_strength(Strength {
                level,
                ..self.strength
            }),
            Setting::LimitStrength(limit_strength) => self.set_strength(Strength {
                limit_strength,
                ..self.strength
            }),
            Setting::Elo(elo) => self.set_strength(Strength {
                elo,
                ..self.strength
            }),
            Setting::SkillSeed(seed) => self.set_strength(Strength {
                seed: seed.unwrap_or(self.session_seed),
                ..self.strength
            }),
            Setting::Ponder(_) => {}
            // Said as Fairy-Stockfish says it: uci2wb turns this line into XBoard's `setup`
            // command, which gives XBoard the start position of its 5×5 shogi board.
            Setting::Variant => self.out.note(format!(
                "variant {} files 5 ranks 5 pocket 5 template shogi startpos {}",
                options::VARIANT,
                Position::startpos().to_fen()
            )),
            Setting::OwnBook(on) => {
                self.book.own_book = on;
                self.report_setup = true;
            }
            Setting::BookMaxPly(plies) => self.book.max_ply = plies,
            Setting::BookMoveChoice(choice) => self.book.choice = choice,
            Setting::BookFile(path) => match self.book.load(&path) {
                Ok(note) => {
                    self.out.note(note);
                    self.report_setup = true;
                }
                Err(e) => self.out.error(format!("setoption BookFile: {e}")),
            },
            Setting::EvalFile(eval_file) => {
                self.set_evaluator("EvalFile", |c| c.eval_file = eval_file)
            }
            Setting::Evaluator(kind) => self.set_evaluator("Evaluator", |c| c.kind = kind),
            Setting::ClassicalFile(path) => {
                self.set_evaluator("ClassicalFile", |c| c.classical_file = path)
            }
            Setting::Search(name) => self.set_search(name),
            Setting::PolicyFile(path) => self.set_policy(&path),
            Setting::ParamsFile(path) => match load_params_file(&path) {
                Ok(params) => {
                    options.params = params.search;
                    self.set_mcts_params(params.mcts);
                    self.out.note(if path.is_empty() {
                        "ParamsFile: search parameters at their defaults".to_string()
                    } else {
                        format!("ParamsFile: search parameters from {path}")
                    });
                }
                Err(e) => self.out.error(format!(
                    "setoption ParamsFile: {e}; search parameters unchanged"
                )),
            },
        }
    }

    /// `Search`: the player of that name takes over with the session's options and evaluator;
    /// naming the current one keeps it (and what it has learnt). A name the factory refuses
    /// keeps the current player.
    fn set_search(&mut self, name: &'static str) {
        let Some(current) = self.search.player() else {
            return;
        };
        if current.name() == name {
            return;
        }
        let search = current.options().clone();
        let options = self.player_options(search);
        match new_player(name, options) {
            Ok(mut player) => {
                player.set_evaluator(self.evaluator.clone());
                self.search.set_player(player);
                self.search_name = name;
                self.out.note(format!("Search: {name}"));
                self.allocate(false);
            }
            Err(e) => self.out.error(format!(
                "setoption Search: {e}; keeping {}",
                self.search_name
            )),
        }
    }

    /// `PolicyFile`: MCTS's move policy from that file (empty: the shipped one), for this and
    /// every later player; a file that does not load keeps the current policy.
    fn set_policy(&mut self, path: &str) {
        // Empty: the shipped policy, which a player built without one loads itself.
        self.policy = if path.is_empty() {
            None
        } else {
            match MovePolicy::load(Path::new(path)) {
                Ok(policy) => Some(Arc::new(policy)),
                Err(e) => {
                    self.out
                        .error(format!("setoption PolicyFile: {e}; keeping the policy"));
                    return;
                }
            }
        };
        self.rebuild_mcts_player();
        self.out.note(if path.is_empty() {
            "PolicyFile: the shipped move policy".to_string()
        } else {
            format!("PolicyFile: move policy from {path}")
        });
    }

    /// MCTS's numbers as the hidden options or a `ParamsFile` set them: an MCTS player is
    /// rebuilt with them if they changed (what it learnt goes, as it would with new numbers).
    fn set_mcts_params(&mut self, params: MctsParams) {
        if params != self.mcts_params {
            self.mcts_params = params;
            self.rebuild_mcts_player();
        }
    }

    /// The current player built afresh with the session's MCTS numbers and move policy, if it
    /// is one that takes them ([`players::takes_mcts_options`]), with its options and the
    /// session's evaluator; other players are kept as they are.
    fn rebuild_mcts_player(&mut self) {
        let Some(current) = self.search.player() else {
            return;
        };
        let (name, search) = (current.name(), current.options().clone());
        if !players::takes_mcts_options(name) {
            return;
        }
        let mut player =
            new_player(name, self.player_options(search)).expect("the current player's name");
        player.set_evaluator(self.evaluator.clone());
        self.search.set_player(player);
    }

    /// Takes the strength options `strength` and says what they make of the search.
    fn set_strength(&mut self, strength: Strength) {
        let changed = strength.skill().params() != self.strength.skill().params();
        self.strength = strength;
        let Some(player) = self.search.player() else {
            return;
        };
        let skill = strength.skill();
        player.options_mut().skill = skill;
        if !changed {
            return;
        }
        self.out.note(match skill.params() {
            None => "strength: full".to_string(),
            Some(level) => format!(
                "strength: level {:.2}{}: at most {} node{} a move, choosing among {} moves with \
                 weakness {}/128",
                skill.level_value(),
                if strength.limit_strength {
                    format!(" (USI_Elo {})", strength.elo)
                } else {
                    String::new()
                },
                level.nodes,
                if level.nodes == 1 { "" } else { "s" },
                level.multipv,
                level.weakness
            ),
        });
    }

    /// Sets up what the options ask for (hash table, threads' memory) now rather than in the
    /// first search; a hash size that cannot be had is cut down, not fatal. With `report_hash`,
    /// says what the table holds.
    fn allocate(&mut self, report_hash: bool) {
        let Some(player) = self.search.player() else {
            return;
        };
        player.allocate();
        let (requested, held) = (player.options().hash_mb, player.hash_size_mb());
        if report_hash && held < requested {
            self.out.note(format!(
                "USI_Hash: {requested} MB cannot be had; using {held} MB"
            ));
        } else if report_hash {
            self.out.note(format!("USI_Hash: {held} MB allocated"));
        }
        self.report_setup = true;
    }

    /// `readyok`, once everything the options ask for is set up; after a change (and the
    /// first time) an `info string` says what that is.
    pub(super) fn isready(&mut self) {
        if !self.is_searching() {
            self.stop_search();
            if let Some(player) = self.search.player() {
                player.allocate();
                if std::mem::take(&mut self.clear_hash_at_ready) {
                    player.clear();
                }
                if self.report_setup {
                    let threads = player.options().threads;
                    self.out.note(format!(
                        "ready: hash {} MB, {threads} thread{}, evaluation by {}, {}",
                        player.hash_size_mb(),
                        if threads == 1 { "" } else { "s" },
                        self.evaluator_description,
                        self.book.summary()
                    ));
                    self.report_setup = false;
                }
            }
        }
        self.out.line("readyok");
    }

    /// Switches evaluator as `option` asks (`change` applied to the current choice); a file
    /// that fails to load leaves the current evaluator and choice in place.
    fn set_evaluator(&mut self, option: &str, change: impl FnOnce(&mut evaluator::Choice)) {
        let mut choice = self.eval_choice.clone();
        change(&mut choice);
        match evaluator::select(&choice) {
            Ok(loaded) => {
                self.evaluator = loaded.evaluator;
                self.eval_choice = choice;
                if let Some(player) = self.search.player() {
                    player.set_evaluator(self.evaluator.clone());
                }
                self.out
                    .note(format!("{option}: evaluating by {}", loaded.description));
                self.evaluator_description = loaded.description;
                self.report_setup = true;
            }
            Err(e) => self.out.error(format!(
                "setoption {option}: {e}; keeping {}",
                self.evaluator_description
            )),
        }
    }
}
