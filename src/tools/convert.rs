//! `engine convert`: a game record from one format to another — KIF (`.kif` Shift_JIS,
//! `.kifu` UTF-8), CSA, or a USI position line (`position sfen … moves …`) — with every move
//! checked by the rules core. Errors name the file and line.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::fileio;
use crate::records::{self, Format};

/// Arguments of `engine convert`.
#[derive(clap::Args, Debug, Clone)]
pub struct ConvertArgs {
    /// The record to read.
    pub input: PathBuf,
    /// Where to write the converted record (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Format of the input: kif, kifu, csa or usi (default: from its extension; .usi, .sfen
    /// and .txt are USI lines).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Format to write: kif (Shift_JIS), kifu (UTF-8), csa or usi (default: from the output's
    /// extension).
    #[arg(long, value_name = "FORMAT")]
    pub to: Option<String>,
}

/// The format named by `flag`'s value, or else the one `path`'s extension implies.
fn format_of(name: Option<&str>, path: Option<&Path>, flag: &str) -> Result<Format, String> {
    let names = Format::ALL.map(Format::name).join(", ");
    if let Some(name) = name {
        return Format::from_name(name)
            .ok_or_else(|| format!("{flag} {name}: not a record format ({names})"));
    }
    match path {
        Some(path) => Format::from_path(path).ok_or_else(|| {
            format!(
                "cannot tell the format of {} from its extension: give {flag} ({names})",
                path.display()
            )
        }),
        None => Err(format!(
            "give {flag} ({names}) when writing to standard output"
        )),
    }
}

/// Runs `engine convert`.
pub fn run(args: &ConvertArgs) -> Result<(), String> {
    let from = format_of(args.from.as_deref(), Some(&args.input), "--from")?;
    let to = format_of(args.to.as_deref(), args.output.as_deref(), "--to")?;
    let bytes = fileio::read_regular(&args.input).map_err(|e| format!("cannot read {e}"))?;
    let record = records::read(&bytes, from).map_err(|e| {
        let path = args.input.display();
        match e.line {
            0 => format!("{path}: {}", e.message),
            line => format!("{path}:{line}: {}", e.message),
        }
    })?;
    let converted = records::write(&record, to);
    match &args.output {
        Some(path) => {
            fileio::write_atomic(path, &converted).map_err(|e| format!("cannot write {e}"))
        }
        None => std::io::stdout()
            .write_all(&converted)
            .map_err(|e| format!("cannot write to standard output: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_flags_or_extensions() {
        let p = Path::new;
        assert_eq!(
            format_of(Some("CSA"), Some(p("x.kif")), "--from"),
            Ok(Format::Csa)
        );
        assert_eq!(
            format_of(None, Some(p("x.kifu")), "--from"),
            Ok(Format::Kifu)
        );
        let e = format_of(None, Some(p("x.pgn")), "--from").unwrap_err();
        assert!(e.contains("x.pgn") && e.contains("--from"), "{e}");
        let e = format_of(Some("pgn"), None, "--to").unwrap_err();
        assert!(e.contains("kif, kifu, csa, usi"), "{e}");
        assert!(
            format_of(None, None, "--to")
                .unwrap_err()
                .contains("standard output")
        );
    }
}
