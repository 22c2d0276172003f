//! The rules seen from outside the crate: perft against the reference numbers, notation round
//! trips, and randomised games checked against a slow reference generator. (`engine perft`, the
//! command, is tested at the top: `tests/perft_cli.rs`.)

mod notation;
mod perft;
mod random_games;
mod reference;

/// The reference perft file: `name ; sfen ; D1 n ; D2 n ; ...`, `#` comments. It stays with the
/// repository's test data, at the top.
pub const PERFT_TXT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/perft.txt"
));

/// A position of the perft file with its expected counts by depth.
pub struct PerftEntry {
    pub name: &'static str,
    pub sfen: &'static str,
    pub counts: Vec<(u32, u64)>,
}

pub fn perft_entries() -> Vec<PerftEntry> {
    PERFT_TXT
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split(';').map(str::trim);
            let name = fields.next().expect("name");
            let sfen = fields.next().expect("sfen");
            let counts = fields
                .map(|field| {
                    let (depth, count) = field.split_once(' ').expect("'Dn count'");
                    let depth = depth.strip_prefix('D').expect("D prefix").parse().unwrap();
                    (depth, count.trim().parse().unwrap())
                })
                .collect();
            PerftEntry { name, sfen, counts }
        })
        .collect()
}
