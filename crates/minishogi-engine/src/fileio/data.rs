//! Versioned binary files: a small header (magic, format version, payload length, checksum)
//! followed by a bincode payload.

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{FileError, fnv1a, read_regular, write_atomic};

const HEADER_LEN: usize = 8 + 4 + 8 + 8;

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
            // Magics end in a newline; the message names the kind without it.
            expected: String::from_utf8_lossy(magic).trim_end().to_owned(),
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
    let bytes = read_regular(path)?;
    decode(path, magic, version, &bytes)
}
