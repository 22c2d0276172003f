//! Files, the one owner of how the engine reads and writes them.
//!
//! - [`open_regular`] / [`read_regular`] / [`read_regular_to_string`]: every file the engine
//!   reads is checked on its metadata first and opened only if it is a regular file, so a FIFO,
//!   a device, `/dev/stdin` or a directory is a clear error naming the path, never a hang.
//! - [`write_atomic`]: every file the engine writes goes through a temporary file beside its
//!   target (symlinks resolved, the link kept), synced, renamed over it, the directory synced.
//!   Anything that is not a regular file is refused without being opened. A failed write
//!   leaves the previous file intact and no temporary file behind; one left by a killed run is
//!   removed the next time the same file is written.
//! - [`lock_output`]: an advisory lock beside an output, held for the life of the process, so
//!   that two runs never write the same output.
//! - Versioned binary files ([`save`] / [`load`]): a small header (magic, format version,
//!   payload length, checksum) followed by a bincode payload.
//!
//! One file per job: `read.rs`, `write.rs`, `lock.rs`, `data.rs`; here the errors and the
//! checksum they share.

mod data;
// Output locks are the lab's (a run writing its outputs); WebAssembly has no files to lock.
#[cfg(not(target_arch = "wasm32"))]
mod lock;
mod read;
#[cfg(test)]
mod tests;
mod write;

pub use data::{decode, encode, load, save};
#[cfg(not(target_arch = "wasm32"))]
pub use lock::{OutputLock, lock_output, lock_path};
pub use read::{open_regular, read_regular, read_regular_to_string};
pub use write::{
    check_replaceable, create_parent_dir, create_regular, report_file_size_limit_as_error,
    resolve_target, write_atomic,
};

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong reading or writing a file. Every variant names the file.
#[derive(Debug)]
pub enum FileError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The path exists but is not a regular file (a directory, FIFO, device, socket…): it is
    /// neither read nor replaced.
    NotRegular {
        path: PathBuf,
        kind: &'static str,
    },
    /// Another process holds the lock of this output.
    Locked {
        path: PathBuf,
        lock: PathBuf,
        holder: Option<u32>,
    },
    /// The file is not of the expected kind (names both magics).
    WrongKind {
        path: PathBuf,
        expected: String,
        found: String,
    },
    UnsupportedVersion {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    Truncated {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    ChecksumMismatch {
        path: PathBuf,
    },
    Decode {
        path: PathBuf,
        error: String,
    },
    Encode {
        error: String,
    },
}

impl FileError {
    fn io(path: &Path, error: std::io::Error) -> FileError {
        FileError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            FileError::NotRegular { path, kind } => {
                write!(f, "{}: is a {kind}, not a regular file", path.display())
            }
            FileError::Locked { path, lock, holder } => {
                write!(
                    f,
                    "{}: another run is writing it (lock {} held",
                    path.display(),
                    lock.display()
                )?;
                match holder {
                    Some(pid) => write!(f, " by process {pid})"),
                    None => write!(f, ")"),
                }
            }
            FileError::WrongKind {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: not a {expected} file (starts with {found:?})",
                path.display()
            ),
            FileError::UnsupportedVersion {
                path,
                found,
                supported,
            } => write!(
                f,
                "{}: format version {found} is not supported (this build reads {supported})",
                path.display()
            ),
            FileError::Truncated {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: truncated: payload has {found} bytes, header says {expected}",
                path.display()
            ),
            FileError::ChecksumMismatch { path } => {
                write!(f, "{}: checksum mismatch (corrupt file)", path.display())
            }
            FileError::Decode { path, error } => {
                write!(f, "{}: cannot decode contents: {error}", path.display())
            }
            FileError::Encode { error } => write!(f, "cannot encode data: {error}"),
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// 64-bit FNV-1a, the one checksum of the project's files (data files here, weights files,
/// datagen shards, fingerprints): plenty to detect corruption (not an adversarial hash).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
