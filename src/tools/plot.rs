//! `engine plot`: draws (again) as SVG any file the project writes figures of — training metrics
//! CSVs, the network generations, a match's records, a scale ladder, a tuning run — with the
//! same code that draws them while the commands run (`crate::plot`).

use std::path::{Path, PathBuf};

use crate::fileio;
use crate::matches::ELO_CHART_FILE;
use crate::matches::chart::MatchGames;
use crate::plot::Figure;
use crate::tools::scale::report::{self as scale_report, PlotPoint};
use crate::train::{curves, generations};
use crate::tune::report as tune_report;
use crate::tune::space::Space;

#[derive(clap::Args, Debug, Clone)]
pub struct PlotArgs {
    #[command(subcommand)]
    pub what: PlotKind,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum PlotKind {
    /// Training curves (loss, validation BCE and accuracy, or self-play's match scores) from the
    /// metrics CSV of `engine train`, `pretrain` or `selfplay`.
    Training(Common),
    /// Network generations (`weights/generations.csv`): Elo against the first generation, the
    /// steps' matches summed, with error bars.
    Generations(Common),
    /// A match's Elo estimate (± 95%) after each game pair, from the summary.json or games.txt
    /// of `engine match --out` (default output: elo.svg beside it).
    Match(Common),
    /// A scaling ladder's Elo against the time a move, from the scale.csv of `engine scale`.
    Scale(Common),
    /// A tuning run's parameters and scores by step, from the tune.csv of `engine tune`.
    Tune {
        #[command(flatten)]
        common: Common,
        /// The run's parameters file, for the ranges and start values (default: each
        /// parameter's range is the span of its values in the CSV).
        #[arg(long, value_name = "FILE")]
        params: Option<PathBuf>,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    /// The file to draw.
    pub input: PathBuf,
    /// The SVG to write (default: the input with the extension .svg).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// A title instead of the figure's own.
    #[arg(long)]
    pub title: Option<String>,
}

fn common(kind: &PlotKind) -> &Common {
    match kind {
        PlotKind::Training(c)
        | PlotKind::Generations(c)
        | PlotKind::Match(c)
        | PlotKind::Scale(c)
        | PlotKind::Tune { common: c, .. } => c,
    }
}

fn read(path: &Path) -> Result<String, String> {
    fileio::read_regular_to_string(path).map_err(|e| format!("cannot read {e}"))
}

/// The figure of `kind` and where it goes by default.
fn figure(kind: &PlotKind) -> Result<(Figure, PathBuf), String> {
    let common = common(kind);
    let default_out = match kind {
        PlotKind::Match(_) => common
            .input
            .parent()
            .unwrap_or(Path::new(""))
            .join(ELO_CHART_FILE),
        _ => common.input.with_extension("svg"),
    };
    let text = read(&common.input)?;
    let source = common.input.display().to_string();
    let figure = match kind {
        PlotKind::Training(_) => {
            let name = common.input.file_name().unwrap_or_default();
            let title = format!("training curves: {}", name.to_string_lossy());
            curves::figure(&text, &source, &title)?
        }
        PlotKind::Generations(_) => generations::figure(&generations::read(&text, &source)?),
        PlotKind::Match(_) => {
            let games = if common.input.extension().is_some_and(|e| e == "json") {
                MatchGames::from_summary_json(&text, &source)?
            } else {
                MatchGames::from_games_txt(&text, &source)?
            };
            games.figure()
        }
        PlotKind::Scale(_) => {
            let points = PlotPoint::read_csv(&text, &source)?;
            scale_report::figure("engine scale: Elo by time a move", &points)
        }
        PlotKind::Tune { params, .. } => {
            let space = match params {
                Some(path) => Some(
                    Space::from_text(&read(path)?)
                        .map_err(|e| format!("{}: {e}", path.display()))?,
                ),
                None => None,
            };
            tune_report::csv_figure(&text, &source, space.as_ref())?
        }
    };
    let out = common.out.clone().unwrap_or(default_out);
    let mut figure = figure;
    if let Some(title) = &common.title {
        figure.title = title.clone();
    }
    Ok((figure, out))
}

/// Runs `engine plot`: writes the SVG (atomically) and says where on standard error.
pub fn run(args: &PlotArgs) -> Result<(), String> {
    let (figure, out) = figure(&args.what)?;
    if out.extension().is_none_or(|e| e != "svg") {
        return Err(format!(
            "--out {}: the picture is SVG: name it *.svg",
            out.display()
        ));
    }
    if out == common(&args.what).input {
        return Err(format!(
            "{}: the input would be overwritten: give --out",
            out.display()
        ));
    }
    let svg = figure.svg()?;
    fileio::create_parent_dir(&out).map_err(|e| e.to_string())?;
    fileio::write_atomic(&out, svg.as_bytes()).map_err(|e| format!("cannot write {e}"))?;
    eprintln!("plot: wrote {}", out.display());
    Ok(())
}
