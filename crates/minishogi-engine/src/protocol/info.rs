//! The one reader of an engine's `info` lines (USI or UCI spelling), for every caller: the
//! board shows them (`minishogi-board`), the lab's `engine ttd` takes the time and nodes at
//! which each depth was finished.

/// One `info` line's fields; a field the line does not give (or gives malformed) is empty.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Info {
    pub multipv: u32,
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// `{"cp": n}` or `{"mate": n}`, from the side to move's view.
    pub score: Option<Score>,
    /// `"lower"` or `"upper"` for a bound.
    pub bound: Option<Bound>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub time_ms: Option<u64>,
    pub pv: Vec<String>,
    // The fields below are not part of the GUI's `info` event (docs/gui.md), which serializes
    // this struct.
    /// The move being searched: such a line reports progress, not a finished iteration.
    #[serde(skip)]
    pub currmove: Option<String>,
    /// Hash table use, per mille.
    #[serde(skip)]
    pub hashfull: Option<u64>,
    /// Free text after `string`, to the end of the line.
    #[serde(skip)]
    pub string: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

/// A score that is only a bound (a failed aspiration window).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    Lower,
    Upper,
}

/// The fields of an `info` line (the leading `info` is optional); unknown fields are skipped,
/// and a malformed number leaves its field empty.
pub fn parse_info(line: &str) -> Info {
    let mut info = Info {
        multipv: 1,
        ..Info::default()
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = usize::from(words.first() == Some(&"info"));
    let number = |i: usize| words.get(i + 1).and_then(|w| w.parse::<u64>().ok());
    while i < words.len() {
        match words[i] {
            "depth" => info.depth = number(i).map(|n| n as u32),
            "seldepth" => info.seldepth = number(i).map(|n| n as u32),
            "multipv" => info.multipv = number(i).map_or(1, |n| n as u32),
            "nodes" => info.nodes = number(i),
            "nps" => info.nps = number(i),
            "time" => info.time_ms = number(i),
            "hashfull" => info.hashfull = number(i),
            "currmove" => info.currmove = words.get(i + 1).map(|w| w.to_string()),
            "score" => {
                let value = words.get(i + 2).and_then(|w| w.parse::<i32>().ok());
                info.score = match (words.get(i + 1), value) {
                    (Some(&"cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some(&"mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                };
                i += 2;
                continue;
            }
            "lowerbound" => info.bound = Some(Bound::Lower),
            "upperbound" => info.bound = Some(Bound::Upper),
            "pv" => {
                info.pv = words[i + 1..].iter().map(|w| w.to_string()).collect();
                break;
            }
            "string" => {
                info.string = Some(words[i + 1..].join(" "));
                break;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_are_read_field_by_field() {
        let info = parse_info(
            "info depth 12 seldepth 18 multipv 2 score cp -35 upperbound nodes 1234 nps 900 \
             time 140 hashfull 3 pv 2e3d 4a3b",
        );
        assert_eq!(info.depth, Some(12));
        assert_eq!(info.seldepth, Some(18));
        assert_eq!(info.multipv, 2);
        assert_eq!(info.score, Some(Score::Cp(-35)));
        assert_eq!(info.bound, Some(Bound::Upper));
        assert_eq!(info.nodes, Some(1234));
        assert_eq!(info.nps, Some(900));
        assert_eq!(info.time_ms, Some(140));
        assert_eq!(info.hashfull, Some(3));
        assert_eq!(info.pv, ["2e3d", "4a3b"]);
        assert_eq!(info.currmove, None);
        let mate = parse_info("info depth 3 score mate -2 pv 1a1b");
        assert_eq!(mate.score, Some(Score::Mate(-2)));
        assert_eq!(mate.multipv, 1);
        let bad = parse_info("info depth x score cp");
        assert_eq!((bad.depth, bad.score), (None, None));
        let progress = parse_info("info depth 9 currmove 5d5c currmovenumber 3 nodes 50 time 15");
        assert_eq!(progress.currmove.as_deref(), Some("5d5c"));
        let text = parse_info("info string hello score");
        assert_eq!(text.string.as_deref(), Some("hello score"));
        assert_eq!(text.score, None);
    }

    #[test]
    fn the_page_sees_the_fields_it_always_saw() {
        let info = parse_info("info depth 2 score cp 5 lowerbound hashfull 9 pv 1a1b");
        let json = serde_json::to_value(&info).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "bound", "depth", "multipv", "nodes", "nps", "pv", "score", "seldepth", "time_ms"
            ]
        );
        assert_eq!(json["bound"], "lower");
        assert_eq!(json["score"]["cp"], 5);
    }
}
