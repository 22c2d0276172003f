//! Versioned binary files: a small header (magic, format version, payload length, checksum)
//! followed by a bincode payload. Written atomically (temp file, then rename) so that a crash
//! never leaves a half-written file under the real name.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

const HEADER_LEN: usize = 8 + 4 + 8 + 8;

/// What went wrong reading or writing a versioned file.
#[derive(Debug)]
pub enum FileError {
    Io {
        path: PathBuf,
        error: std::io::Error,
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

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io { path, error } => write!(f, "{}: {error}", path.display()),
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

impl std::error::Error for FileError {}

/// 64-bit FNV-1a: plenty to detect corruption (not an adversarial hash).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, then renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let io = |error| FileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Creates the folder a file will be written into, if it has one and it is missing.
pub fn create_parent_dir(path: &Path) -> Result<(), FileError> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => fs::create_dir_all(dir).map_err(|error| FileError::Io {
            path: dir.to_path_buf(),
            error,
        }),
        None => Ok(()),
    }
}

/// Encodes `value` with the header in front.
pub fn encode<T: Serialize>(
    magic: &[u8; 8],
    version: u32,
    value: &T,
) -> Result<Vec<u8>, FileError> {
    let payload =
        bincode::serde::encode_to_vec(value, bincode::config::standard()).map_err(|e| {
            FileError::Encode {
                error: e.to_string(),
            }
        })?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Checks the header and decodes the payload. `path` only names the source in errors.
pub fn decode<T: DeserializeOwned>(
    path: &Path,
    magic: &[u8; 8],
    version: u32,
    bytes: &[u8],
) -> Result<T, FileError> {
    let path_buf = || path.to_path_buf();
    if bytes.len() < 8 || &bytes[..8] != magic {
        let n = bytes.len().min(8);
        return Err(FileError::WrongKind {
            path: path_buf(),
            expected: String::from_utf8_lossy(magic).into_owned(),
            found: String::from_utf8_lossy(&bytes[..n]).into_owned(),
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(FileError::Truncated {
            path: path_buf(),
            expected: HEADER_LEN as u64,
            found: bytes.len() as u64,
        });
    }
    let found = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if found != version {
        return Err(FileError::UnsupportedVersion {
            path: path_buf(),
            found,
            supported: version,
        });
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let sum = u64::from_le_bytes(bytes[20..28].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != len {
        return Err(FileError::Truncated {
            path: path_buf(),
            expected: len,
            found: payload.len() as u64,
        });
    }
    if fnv1a(payload) != sum {
        return Err(FileError::ChecksumMismatch { path: path_buf() });
    }
    let (value, _) = bincode::serde::decode_from_slice(payload, bincode::config::standard())
        .map_err(|e| FileError::Decode {
            path: path_buf(),
            error: e.to_string(),
        })?;
    Ok(value)
}

pub fn save<T: Serialize>(
    path: &Path,
    magic: &[u8; 8],
    version: u32,
    value: &T,
) -> Result<(), FileError> {
    write_atomic(path, &encode(magic, version, value)?)
}

pub fn load<T: DeserializeOwned>(
    path: &Path,
    magic: &[u8; 8],
    version: u32,
) -> Result<T, FileError> {
    let bytes = fs::read(path).map_err(|error| FileError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    decode(path, magic, version, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: &[u8; 8] = b"TESTFILE";

    #[test]
    fn round_trip_and_errors() {
        let dir = std::env::temp_dir().join(format!("fileio-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.bin");
        let value: Vec<u32> = (0..1000).collect();
        save(&path, MAGIC, 1, &value).unwrap();
        assert_eq!(load::<Vec<u32>>(&path, MAGIC, 1).unwrap(), value);

        let bytes = fs::read(&path).unwrap();
        let err = decode::<Vec<u32>>(&path, b"OTHERMAG", 1, &bytes).unwrap_err();
        assert!(matches!(err, FileError::WrongKind { .. }), "{err}");
        let err = decode::<Vec<u32>>(&path, MAGIC, 2, &bytes).unwrap_err();
        assert!(matches!(err, FileError::UnsupportedVersion { .. }), "{err}");
        let err = decode::<Vec<u32>>(&path, MAGIC, 1, &bytes[..bytes.len() - 3]).unwrap_err();
        assert!(matches!(err, FileError::Truncated { .. }), "{err}");
        let mut corrupt = bytes.clone();
        let last = corrupt.len() - 1;
        corrupt[last] ^= 0x55;
        let err = decode::<Vec<u32>>(&path, MAGIC, 1, &corrupt).unwrap_err();
        assert!(matches!(err, FileError::ChecksumMismatch { .. }), "{err}");
        let err = load::<Vec<u32>>(&dir.join("missing.bin"), MAGIC, 1).unwrap_err();
        assert!(err.to_string().contains("missing.bin"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
