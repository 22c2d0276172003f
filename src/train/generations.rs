//! The network generations of learning from search (`weights/generations.csv`): each
//! generation's network, its data and its Elo against the generation before, measured by
//! `engine match`; drawn as the Elo against the first generation, summed over the steps (`engine
//! plot generations`, `weights/generations.svg`).
//!
//! Columns: `generation,network,positions,elo_vs_previous,elo_error,games,note` (the first
//! generation has no Elo cells; `elo_error` is the half-width of the 95% interval).

use crate::plot::table::Table;
use crate::plot::{Colour, Figure, Legend, Numbers, Panel, Point, Series};

/// A row of the generations CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct Generation {
    pub generation: u32,
    /// The weights file the generation's training wrote.
    pub network: String,
    /// Training positions the generation added.
    pub positions: Option<u64>,
    /// Elo against the previous generation, ± `elo_error` (95%).
    pub elo_vs_previous: Option<f64>,
    pub elo_error: Option<f64>,
    /// Games of that match.
    pub games: Option<u64>,
    /// How it was made and measured.
    pub note: String,
}

fn whole(x: Option<f64>, what: &str, at: &str) -> Result<Option<u64>, String> {
    match x {
        Some(v) if v < 0.0 || v.fract() != 0.0 || !v.is_finite() => {
            Err(format!("{at}: {what} {v} is not a whole number"))
        }
        other => Ok(other.map(|v| v as u64)),
    }
}

/// Reads the generations CSV (`source` names it in errors). Generations must count up by one;
/// every generation but the first needs its Elo and a finite, non-negative error.
pub fn read(csv: &str, source: &str) -> Result<Vec<Generation>, String> {
    let table = Table::parse(csv, source)?;
    let generation = table.numbers("generation")?;
    let network = table.texts("network")?;
    let positions = table.numbers("positions")?;
    let elo = table.numbers("elo_vs_previous")?;
    let error = table.numbers("elo_error")?;
    let games = table.numbers("games")?;
    let note = table.texts("note")?;
    let mut rows: Vec<Generation> = Vec::new();
    for i in 0..table.len() {
        let at = format!("{source}:{}", table.line(i));
        let g = whole(generation[i], "generation", &at)?
            .ok_or_else(|| format!("{at}: no generation number"))?;
        let g = u32::try_from(g).map_err(|_| format!("{at}: generation {g} is too large"))?;
        if let Some(previous) = rows.last()
            && g != previous.generation + 1
        {
            return Err(format!(
                "{at}: generation {g} follows generation {}",
                previous.generation
            ));
        }
        if !rows.is_empty() {
            match (elo[i], error[i]) {
                (Some(e), Some(err)) if e.is_finite() && err.is_finite() && err >= 0.0 => {}
                _ => {
                    return Err(format!(
                        "{at}: generation {g} needs elo_vs_previous and a finite elo_error"
                    ));
                }
            }
        }
        rows.push(Generation {
            generation: g,
            network: network[i].to_string(),
            positions: whole(positions[i], "positions", &at)?,
            elo_vs_previous: elo[i],
            elo_error: error[i],
            games: whole(games[i], "games", &at)?,
            note: note[i].to_string(),
        });
    }
    Ok(rows)
}

/// Each generation's Elo against the first, with its 95% half-width: the steps' Elo summed,
/// their errors added in quadrature (the matches are independent).
pub fn cumulative(generations: &[Generation]) -> Vec<(u32, f64, f64)> {
    let mut elo = 0.0;
    let mut variance = 0.0;
    generations
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i > 0 {
                elo += g.elo_vs_previous.unwrap_or(0.0);
                variance += g.elo_error.unwrap_or(0.0).powi(2);
            }
            (g.generation, elo, variance.sqrt())
        })
        .collect()
}

/// The chart: Elo against the first generation by generation, with error bars, each point
/// labelled with its total and its step.
pub fn figure(generations: &[Generation]) -> Figure {
    let first = generations.first().map_or(0, |g| g.generation);
    let points = cumulative(generations)
        .into_iter()
        .zip(generations)
        .map(|((generation, elo, error), g)| {
            let point = Point::new(f64::from(generation), elo);
            match (g.elo_vs_previous, g.elo_error) {
                (Some(step), Some(step_error)) => point.with_error(error).with_label(format!(
                    "{elo:+.0} ± {error:.0} ({step:+.0} ± {step_error:.0} vs gen {})",
                    generation - 1
                )),
                _ => point.with_label(format!("gen {generation}: {}", g.network)),
            }
        })
        .collect();
    let mut panel = Panel::new(
        "generation",
        format!("Elo against generation {first} (± 95%)"),
    );
    panel.x_numbers = Numbers::Whole;
    panel.reference_y = Some(0.0);
    // Generations are meant to climb: the legend goes below the line.
    panel.legend = Legend::LowerRight;
    panel.series.push(Series::new(
        "Elo, the steps' matches summed",
        Colour::BLUE,
        points,
    ));
    Figure::new("Network generations", vec![panel])
}

/// [`figure`] of a generations CSV, as SVG.
pub fn svg(csv: &str, source: &str) -> Result<String, String> {
    figure(&read(csv, source)?).svg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::svg_texts;

    const CSV: &str = "generation,network,positions,elo_vs_previous,elo_error,games,note\n\
        0,seed.bin,3167616,,,,seed\n\
        1,gen1.bin,185667,241,39,400,\"datagen, train\"\n\
        2,default.bin,164882,69,32,400,x\n";

    #[test]
    fn the_steps_add_up() {
        let g = read(CSV, "g.csv").unwrap();
        assert_eq!(g.len(), 3);
        assert_eq!(g[1].note, "datagen, train");
        let c = cumulative(&g);
        assert_eq!(c[0], (0, 0.0, 0.0));
        assert_eq!(c[1], (1, 241.0, 39.0));
        assert_eq!((c[2].0, c[2].1), (2, 310.0));
        assert!((c[2].2 - (39.0f64.powi(2) + 32.0f64.powi(2)).sqrt()).abs() < 1e-9);
        let svg = svg(CSV, "g.csv").unwrap();
        let texts = svg_texts(&svg);
        assert!(
            texts.contains(&"+310 ± 50 (+69 ± 32 vs gen 1)"),
            "{texts:?}"
        );
        assert!(texts.contains(&"Network generations"), "{texts:?}");
    }

    #[test]
    fn bad_rows_are_named() {
        let err = |csv: &str| read(csv, "g.csv").unwrap_err();
        let head = "generation,network,positions,elo_vs_previous,elo_error,games,note\n";
        assert_eq!(
            err(&format!("{head}0,a,1,,,,\n2,b,1,5,5,4,\n")),
            "g.csv:3: generation 2 follows generation 0"
        );
        assert!(err(&format!("{head}0,a,1,,,,\n1,b,1,5,,4,\n")).contains("finite elo_error"));
        assert!(err(&format!("{head}0,a,1.5,,,,\n")).contains("positions 1.5"));
        assert!(err("generation,network\n0,a\n").contains("no column 'positions'"));
    }
}
