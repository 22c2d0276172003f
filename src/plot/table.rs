//! A CSV file read by column name, for redrawing the project's CSVs (`engine plot`). Errors
//! name the file, the line and the column. Also the writer of those CSVs ([`to_csv`]): rows of
//! a `#[derive(Serialize)]` struct, whose field names are the header, with numbers as
//! [`Fixed`] (fixed decimals) or [`Shown`] (`Display`) so that the text is what the files have
//! always held.

use std::fmt::Display;

use serde::{Serialize, Serializer};

/// `rows` as CSV text, with the header line (the field names of `T`) if `header`; rows are
/// appended to a file's text without it.
pub fn to_csv<T: Serialize>(rows: &[T], header: bool) -> String {
    let mut writer = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(Vec::new());
    for row in rows {
        writer
            .serialize(row)
            .expect("a CSV row serializes into memory");
    }
    let bytes = writer
        .into_inner()
        .expect("writing into memory cannot fail");
    String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
}

/// The header line of `T`'s rows alone (a file's rows come later): the field names, which an
/// `example` row gives.
pub fn csv_header<T: Serialize>(example: &T) -> String {
    let text = to_csv(std::slice::from_ref(example), true);
    let end = text.find('\n').map_or(text.len(), |i| i + 1);
    text[..end].to_string()
}

/// A number written with this many decimals (`{:.N}`): `Fixed(0.5, 3)` is `0.500`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Fixed(pub f64, pub usize);

impl Serialize for Fixed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{:.*}", self.1, self.0))
    }
}

/// A value written by its `Display` (`0.001`, `inf`, `2`), not by the CSV writer's own float
/// format (which writes `2.0`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shown<T>(pub T);

impl<T: Display> Serialize for Shown<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// A CSV's header and rows, each row with its line number in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    source: String,
    headers: Vec<String>,
    rows: Vec<(u64, Vec<String>)>,
}

impl Table {
    /// Reads CSV `text` with a header line; `source` names it in errors (a file name). Every
    /// row must have as many fields as the header.
    pub fn parse(text: &str, source: &str) -> Result<Table, String> {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let headers = reader
            .headers()
            .map_err(|e| format!("{source}: {}", csv_error(&e)))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| format!("{source}: {}", csv_error(&e)))?;
            let line = record.position().map_or(0, |p| p.line());
            rows.push((line, record.iter().map(str::to_string).collect()));
        }
        Ok(Table {
            source: source.to_string(),
            headers,
            rows,
        })
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The line of the file that row `i` (from 0) is on.
    pub fn line(&self, i: usize) -> u64 {
        self.rows[i].0
    }

    pub fn has(&self, column: &str) -> bool {
        self.headers.iter().any(|h| h == column)
    }

    pub fn headers(&self) -> &[String] {
        &self.headers
    }

    fn index(&self, column: &str) -> Result<usize, String> {
        self.headers
            .iter()
            .position(|h| h == column)
            .ok_or_else(|| {
                format!(
                    "{}: no column '{column}' (the header has {})",
                    self.source,
                    self.headers.join(",")
                )
            })
    }

    /// The cells of a column, as written.
    pub fn texts(&self, column: &str) -> Result<Vec<&str>, String> {
        let i = self.index(column)?;
        Ok(self
            .rows
            .iter()
            .map(|(_, cells)| cells[i].as_str())
            .collect())
    }

    /// The numbers of a column: `None` for an empty cell; `inf` and `-inf` are read as such.
    /// A cell that is not a number is an error naming the file, the line and the column.
    pub fn numbers(&self, column: &str) -> Result<Vec<Option<f64>>, String> {
        let i = self.index(column)?;
        self.rows
            .iter()
            .map(|(line, cells)| {
                let cell = cells[i].as_str();
                if cell.is_empty() {
                    return Ok(None);
                }
                cell.parse::<f64>().map(Some).map_err(|_| {
                    format!(
                        "{}:{line}: column '{column}': '{cell}' is not a number",
                        self.source
                    )
                })
            })
            .collect()
    }
}

/// A csv error without the crate's own wording of positions, which the caller's file name
/// precedes: "line 4: found 3 fields where the header has 5".
fn csv_error(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            pos,
            expected_len,
            len,
        } => format!(
            "{}found {len} fields where the header has {expected_len}",
            pos.as_ref()
                .map_or_else(String::new, |p| format!("{}: ", p.line()))
        ),
        csv::ErrorKind::Utf8 { pos, .. } => format!(
            "{}not UTF-8",
            pos.as_ref()
                .map_or_else(String::new, |p| format!("{}: ", p.line()))
        ),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_read_by_name() {
        let t = Table::parse("a,b, c\n1,,x\n2.5,inf,\"y, z\"\n", "t.csv").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.numbers("a").unwrap(), vec![Some(1.0), Some(2.5)]);
        assert_eq!(t.numbers("b").unwrap(), vec![None, Some(f64::INFINITY)]);
        assert_eq!(t.texts("c").unwrap(), vec!["x", "y, z"]);
        assert_eq!((t.line(0), t.line(1)), (2, 3));
        assert!(t.has("c") && !t.has("d"));
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let t = Table::parse("a,b\n1,2\n3,x\n", "m.csv").unwrap();
        assert_eq!(
            t.numbers("b").unwrap_err(),
            "m.csv:3: column 'b': 'x' is not a number"
        );
        assert!(
            t.numbers("z")
                .unwrap_err()
                .starts_with("m.csv: no column 'z'")
        );
        let ragged = Table::parse("a,b\n1,2\n3\n", "r.csv").unwrap_err();
        assert_eq!(ragged, "r.csv: 3: found 1 fields where the header has 2");
        assert!(Table::parse("", "e.csv").unwrap().is_empty());
    }
}
