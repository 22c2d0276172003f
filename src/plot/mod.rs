//! The one owner of the project's charts: a [`Figure`] (a title over one or more stacked
//! [`Panel`]s of x–y [`Series`]) drawn as SVG by `plotters`. Each report builds a `Figure` from
//! its own data (`engine train`, `pretrain`, `selfplay`, `match`, `scale`, `tune`, the network
//! generations) and calls [`Figure::svg`]; none draws by itself. [`table`] reads the CSVs the
//! project writes by column name, for `engine plot` to redraw them.
//!
//! Axes take their range from the points (with some room), so a caller gives only data and
//! words. Points that are not finite are left out: a chart shows no infinities.

pub mod table;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// Width of a figure, and the height of each of its panels, in pixels.
const WIDTH: u32 = 900;
const PANEL_HEIGHT: u32 = 520;
/// Height of a figure's title when it has more than one panel (each panel then has its own).
const TITLE_HEIGHT: u32 = 40;

/// A colour, as RGB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Colour(pub u8, pub u8, pub u8);

impl Colour {
    pub const BLUE: Colour = Colour(31, 119, 180);
    pub const RED: Colour = Colour(214, 39, 40);
    pub const GREEN: Colour = Colour(44, 160, 44);
    pub const ORANGE: Colour = Colour(255, 127, 14);
    pub const GREY: Colour = Colour(90, 90, 90);

    /// The `i`th colour of a palette of eight that tell lines apart.
    pub fn nth(i: usize) -> Colour {
        const PALETTE: [Colour; 8] = [
            Colour::BLUE,
            Colour::ORANGE,
            Colour::GREEN,
            Colour::RED,
            Colour(148, 103, 189),
            Colour(140, 86, 75),
            Colour(227, 119, 194),
            Colour(23, 190, 207),
        ];
        PALETTE[i % PALETTE.len()]
    }

    fn rgb(self) -> RGBColor {
        RGBColor(self.0, self.1, self.2)
    }
}

/// How a series shows the interval `y ± error` of its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interval {
    /// A vertical bar with whiskers at each point.
    Bars,
    /// A shaded band joining the points' intervals (for a running estimate).
    Band,
}

/// A point of a series: `error` is the half-width of its interval, `label` a text beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub error: Option<f64>,
    pub label: Option<String>,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Point {
        Point {
            x,
            y,
            error: None,
            label: None,
        }
    }

    pub fn with_error(mut self, error: f64) -> Point {
        self.error = Some(error);
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Point {
        self.label = Some(label.into());
        self
    }

    fn is_finite(&self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }

    /// The interval's half-width, when there is a finite one to draw.
    fn drawn_error(&self) -> Option<f64> {
        self.error.filter(|e| e.is_finite() && *e > 0.0)
    }
}

/// A named set of points, drawn as a line, as markers or both.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub colour: Colour,
    pub points: Vec<Point>,
    pub line: bool,
    pub markers: bool,
    pub interval: Interval,
}

impl Series {
    /// A line with a marker at each point, intervals as bars.
    pub fn new(name: impl Into<String>, colour: Colour, points: Vec<Point>) -> Series {
        Series {
            name: name.into(),
            colour,
            points,
            line: true,
            markers: true,
            interval: Interval::Bars,
        }
    }

    /// Markers only.
    pub fn markers(mut self) -> Series {
        self.line = false;
        self
    }

    /// A line only.
    pub fn line(mut self) -> Series {
        self.markers = false;
        self
    }

    pub fn band(mut self) -> Series {
        self.interval = Interval::Band;
        self
    }

    /// The points drawn: finite ones.
    fn drawn(&self) -> impl Iterator<Item = &Point> + Clone {
        self.points.iter().filter(|p| p.is_finite())
    }
}

/// How the numbers along an axis are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// As plotters chooses.
    Auto,
    /// Whole numbers only (epochs, games, generations): no ticks between them.
    Whole,
}

/// Where a panel's legend sits: a corner away from the lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legend {
    UpperRight,
    LowerRight,
    UpperLeft,
    LowerLeft,
}

impl Legend {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Legend::UpperRight => SeriesLabelPosition::UpperRight,
            Legend::LowerRight => SeriesLabelPosition::LowerRight,
            Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
            Legend::LowerLeft => SeriesLabelPosition::LowerLeft,
        }
    }
}

/// One chart: axes, a legend and series.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Drawn over the panel when the figure has several (otherwise the figure's title is).
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub x_numbers: Numbers,
    /// A logarithmic x axis (points with x ≤ 0 are left out).
    pub log_x: bool,
    /// The y range, when fixed; otherwise from the points.
    pub y_range: Option<(f64, f64)>,
    /// A faint horizontal line (0 Elo, a 50% score), kept in the y range.
    pub reference_y: Option<f64>,
    /// Said in the middle of the panel when it has no point to draw ("no estimate yet").
    pub empty_note: String,
    pub legend: Legend,
    pub series: Vec<Series>,
}

impl Panel {
    pub fn new(x_desc: impl Into<String>, y_desc: impl Into<String>) -> Panel {
        Panel {
            title: String::new(),
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            x_numbers: Numbers::Auto,
            log_x: false,
            y_range: None,
            reference_y: None,
            empty_note: "no data yet".to_string(),
            legend: Legend::UpperRight,
            series: Vec::new(),
        }
    }

    fn points(&self) -> impl Iterator<Item = &Point> {
        self.series
            .iter()
            .flat_map(|s| s.drawn())
            .filter(|p| !self.log_x || p.x > 0.0)
    }

    fn has_points(&self) -> bool {
        self.points().next().is_some()
    }

    fn has_labels(&self) -> bool {
        self.points().any(|p| p.label.is_some())
    }

    /// The x range: the points' with room around them (more on the right for point labels).
    fn x_range(&self) -> (f64, f64) {
        let (lo, hi) = self
            .points()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.x), hi.max(p.x))
            });
        let right = if self.has_labels() { 0.25 } else { 0.05 };
        if self.log_x {
            let (lo, hi) = if lo.is_finite() {
                (lo, hi)
            } else {
                (1.0, 1000.0)
            };
            // Whole decades, so that the axis is labelled 1, 10, 100 …
            let decade = |x: f64, round: fn(f64) -> f64| 10f64.powf(round(x.log10()));
            (
                decade(lo / 1.2, f64::floor),
                decade(hi * (1.2 + 4.0 * right), f64::ceil),
            )
        } else {
            let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
            let span = (hi - lo).max(1.0);
            (lo - 0.05 * span, hi + right * span)
        }
    }

    /// The y range: fixed, or the points' intervals and the reference line with a tenth of
    /// the span as room.
    fn y_range(&self) -> (f64, f64) {
        if let Some(range) = self.y_range {
            return range;
        }
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for p in self.points() {
            let e = p.drawn_error().unwrap_or(0.0);
            lo = lo.min(p.y - e);
            hi = hi.max(p.y + e);
        }
        if let Some(y) = self.reference_y {
            lo = lo.min(y);
            hi = hi.max(y);
        }
        if !lo.is_finite() {
            return (0.0, 1.0);
        }
        let pad = if hi > lo {
            ((hi - lo) * 0.1).max(hi.abs().max(lo.abs()) * 0.01)
        } else if hi != 0.0 {
            // A single value: a tenth of it either side.
            hi.abs() * 0.1
        } else {
            // Only a zero (the reference line of an empty chart): a unit either side.
            1.0
        };
        (lo - pad, hi + pad)
    }
}

/// A titled picture of one or more panels, stacked.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub title: String,
    pub panels: Vec<Panel>,
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

impl Figure {
    pub fn new(title: impl Into<String>, panels: Vec<Panel>) -> Figure {
        Figure {
            title: title.into(),
            panels,
        }
    }

    /// The figure as an SVG document.
    pub fn svg(&self) -> Result<String, String> {
        let panels = self.panels.len().max(1) as u32;
        let height = if panels == 1 {
            PANEL_HEIGHT
        } else {
            TITLE_HEIGHT + panels * PANEL_HEIGHT * 4 / 5
        };
        let mut text = String::new();
        let draw = |text: &mut String| -> DrawResult {
            let root = SVGBackend::with_string(text, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE)?;
            if let [panel] = self.panels.as_slice() {
                draw_panel(&root, &self.title, panel)?;
            } else {
                let (head, body) = root.split_vertically(TITLE_HEIGHT);
                head.titled(&self.title, ("sans-serif", 22))?;
                for (area, panel) in body
                    .split_evenly((self.panels.len().max(1), 1))
                    .iter()
                    .zip(&self.panels)
                {
                    draw_panel(area, &panel.title, panel)?;
                }
            }
            root.present()?;
            Ok(())
        };
        draw(&mut text).map_err(|e| format!("cannot draw '{}': {e}", self.title))?;
        Ok(text)
    }
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    caption: &str,
    panel: &Panel,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (x_lo, x_hi) = panel.x_range();
    if panel.log_x {
        draw_on(area, caption, panel, (x_lo..x_hi).log_scale())
    } else {
        draw_on(area, caption, panel, x_lo..x_hi)
    }
}

/// Draws `panel` with the x axis `x_axis` (linear or logarithmic).
fn draw_on<DB, X>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    caption: &str,
    panel: &Panel,
    x_axis: X,
) -> DrawResult
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
{
    let (y_lo, y_hi) = panel.y_range();
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x_axis, RangedCoordf64::from(y_lo..y_hi))?;
    let (x_lo, x_hi) = {
        let range = chart.x_range();
        (range.start, range.end)
    };
    let whole = |x: &f64| format!("{x:.0}");
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(panel.x_desc.as_str())
        .y_desc(panel.y_desc.as_str())
        .light_line_style(WHITE);
    // Tens of units and more (Elo, percentages) read best without decimals.
    if y_hi - y_lo >= 20.0 {
        mesh.y_label_formatter(&whole);
    }
    if panel.log_x || panel.x_numbers == Numbers::Whole {
        mesh.x_label_formatter(&whole);
    }
    if panel.x_numbers == Numbers::Whole {
        // No more labels than whole numbers in the range, so none is written twice.
        mesh.x_labels(((x_hi - x_lo).floor() as usize + 1).clamp(2, 12));
    }
    mesh.draw()?;
    if let Some(y) = panel.reference_y {
        chart.draw_series(LineSeries::new([(x_lo, y), (x_hi, y)], BLACK.mix(0.3)))?;
    }
    for series in &panel.series {
        let colour = series.colour.rgb();
        let points: Vec<&Point> = series
            .drawn()
            .filter(|p| !panel.log_x || p.x > 0.0)
            .collect();
        if points.is_empty() {
            continue;
        }
        let with_error: Vec<(f64, f64, f64)> = points
            .iter()
            .filter_map(|p| Some((p.x, p.y, p.drawn_error()?)))
            .collect();
        match series.interval {
            Interval::Band if with_error.len() >= 2 => {
                let upper = with_error.iter().map(|&(x, y, e)| (x, y + e));
                let lower = with_error.iter().rev().map(|&(x, y, e)| (x, y - e));
                chart.draw_series(std::iter::once(Polygon::new(
                    upper.chain(lower).collect::<Vec<_>>(),
                    colour.mix(0.2).filled(),
                )))?;
            }
            _ => {
                chart.draw_series(with_error.iter().map(|&(x, y, e)| {
                    ErrorBar::new_vertical(x, y - e, y, y + e, colour.filled(), 8)
                }))?;
            }
        }
        let xy = || points.iter().map(|p| (p.x, p.y));
        // The legend entry goes with the line, or with the markers when there is no line.
        if series.line {
            let drawn = chart.draw_series(LineSeries::new(xy(), colour.stroke_width(2)))?;
            if !series.name.is_empty() {
                drawn.label(series.name.as_str()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
            }
        }
        if series.markers {
            let drawn = chart.draw_series(xy().map(|p| Circle::new(p, 3, colour.filled())))?;
            if !series.line && !series.name.is_empty() {
                drawn
                    .label(series.name.as_str())
                    .legend(move |(x, y)| Circle::new((x + 10, y), 3, colour.filled()));
            }
        }
        chart.draw_series(points.iter().filter_map(|p| {
            let label = p.label.as_ref()?;
            Some(Text::new(
                format!(" {label}"),
                (p.x, p.y),
                ("sans-serif", 12).into_font(),
            ))
        }))?;
    }
    if panel.has_points() {
        if panel.series.iter().any(|s| !s.name.is_empty()) {
            chart
                .configure_series_labels()
                .position(panel.legend.position())
                .border_style(BLACK)
                .background_style(WHITE.mix(0.8))
                .draw()?;
        }
    } else {
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let (w, h) = area.dim_in_pixel();
        let centred = ("sans-serif", 18)
            .into_font()
            .into_text_style(area)
            .pos(Pos::new(HPos::Center, VPos::Center));
        area.draw(&Text::new(
            panel.empty_note.clone(),
            (w as i32 / 2, h as i32 / 2),
            centred,
        ))?;
    }
    Ok(())
}

/// The contents of an SVG's `<text>` elements, for tests of what a figure says.
#[cfg(test)]
pub(crate) fn svg_texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Panel {
        let mut panel = Panel::new("games", "Elo");
        panel.reference_y = Some(0.0);
        panel.series.push(
            Series::new(
                "estimate",
                Colour::BLUE,
                vec![
                    Point::new(2.0, f64::INFINITY),
                    Point::new(4.0, 30.0).with_error(80.0),
                    Point::new(6.0, 20.0).with_error(f64::INFINITY),
                    Point::new(8.0, 25.0).with_error(60.0).with_label("last"),
                ],
            )
            .band(),
        );
        panel
    }

    #[test]
    fn a_figure_is_an_svg_with_its_words() {
        let svg = Figure::new("a title", vec![sample()]).svg().unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        let texts = svg_texts(&svg);
        for word in ["a title", "games", "Elo", "estimate", "last"] {
            assert!(texts.contains(&word), "{word}: {texts:?}");
        }
        assert!(svg.contains("<polygon"), "the band");
        assert!(!svg.contains("inf") && !svg.contains("NaN"));
    }

    #[test]
    fn panels_stack_under_one_title() {
        let mut second = Panel::new("epoch", "accuracy (%)");
        second.title = "accuracy".to_string();
        let mut first = sample();
        first.title = "loss".to_string();
        let svg = Figure::new("run", vec![first, second]).svg().unwrap();
        let texts = svg_texts(&svg);
        for word in ["run", "loss", "accuracy", "no data yet"] {
            assert!(texts.contains(&word), "{word}: {texts:?}");
        }
    }

    #[test]
    fn ranges_leave_out_what_is_not_drawn() {
        let panel = sample();
        let (lo, hi) = panel.y_range();
        // 30 ± 80 and 25 ± 60 and the reference 0; the infinite point is left out.
        assert!(
            lo < -50.0 && lo > -80.0 && hi > 110.0 && hi < 140.0,
            "{lo} {hi}"
        );
        let (lo, hi) = panel.x_range();
        assert!(lo < 4.0 && hi > 8.0, "{lo} {hi}");
        let empty = Panel::new("x", "y");
        assert_eq!(empty.y_range(), (0.0, 1.0));
        let mut reference_only = Panel::new("x", "y");
        reference_only.reference_y = Some(0.0);
        assert_eq!(reference_only.y_range(), (-1.0, 1.0));
        let mut log = Panel::new("ms", "Elo");
        log.log_x = true;
        log.series
            .push(Series::new("", Colour::RED, vec![Point::new(0.0, 1.0)]));
        assert!(!log.has_points(), "x = 0 has no place on a log axis");
    }
}
