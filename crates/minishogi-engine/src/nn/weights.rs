//! Weights files.
//!
//! Layout (all integers little-endian):
//! ```text
//! bytes 0..8     magic  b"MS55NNW\n"
//! bytes 8..12    format version (u32)
//! bytes 12..n-8  bincode 2 (standard config) of `Payload`: feature-set id, hidden activation,
//!                layer sizes, then every layer's weights (row-major, out × in) and biases
//! bytes n-8..n   FNV-1a 64 checksum of bytes 0..n-8
//! ```
//! Magic and version are raw bytes so that a file of another kind or version is named as such
//! before anything is decoded. Any defect is a [`WeightsError`], never a panic.

use super::feature_set::FeatureSet;
use super::network::{Activation, Dense, Network, ShapeError, validate_sizes};
use crate::fileio::{self, FileError};
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

pub const MAGIC: [u8; 8] = *b"MS55NNW\n";
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 12;
const CHECKSUM_LEN: usize = 8;

#[derive(Serialize, Deserialize)]
struct Payload {
    feature_set: u32,
    hidden: u8,
    sizes: Vec<u32>,
    /// Per layer: weights row-major, then biases.
    params: Vec<f32>,
}

/// Why a weights file could not be read or written.
#[derive(Debug)]
pub enum WeightsError {
    /// The file cannot be read or written (names the file and why).
    File(FileError),
    /// Shorter than the smallest possible file.
    Truncated {
        len: usize,
    },
    BadMagic,
    UnsupportedVersion {
        found: u32,
        expected: u32,
    },
    ChecksumMismatch {
        stored: u64,
        computed: u64,
    },
    /// Checksum fine but the payload does not decode (a writer bug, or a deliberate forgery).
    Decode(String),
    /// The file names a feature set this engine does not know.
    UnknownFeatureSet(u32),
    UnknownActivation(u8),
    Shape(ShapeError),
    /// The network takes a different number of inputs than its feature set has.
    InputMismatch {
        found: usize,
        expected: usize,
    },
    ParamCount {
        found: usize,
        expected: usize,
    },
    NonFinite,
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::File(e) => write!(f, "weights file {e}"),
            WeightsError::Truncated { len } => {
                write!(f, "weights file truncated: only {len} bytes")
            }
            WeightsError::BadMagic => write!(f, "not a weights file (bad magic bytes)"),
            WeightsError::UnsupportedVersion { found, expected } => write!(
                f,
                "weights file format version {found} is not supported (expected {expected})"
            ),
            WeightsError::ChecksumMismatch { stored, computed } => write!(
                f,
                "weights file corrupt: checksum {stored:016x} stored, {computed:016x} computed"
            ),
            WeightsError::Decode(m) => write!(f, "weights file payload does not decode: {m}"),
            WeightsError::UnknownFeatureSet(found) => write!(
                f,
                "weights were trained for feature set {found}, which this engine does not know \
                 (it knows {})",
                FeatureSet::ALL
                    .map(|s| format!("{} = {}", s.id(), s.name()))
                    .join(", ")
            ),
            WeightsError::UnknownActivation(c) => write!(f, "unknown activation code {c}"),
            WeightsError::Shape(e) => write!(f, "weights file: {e}"),
            WeightsError::InputMismatch { found, expected } => write!(
                f,
                "weights take {found} inputs, their feature set has {expected}"
            ),
            WeightsError::ParamCount { found, expected } => write!(
                f,
                "weights file holds {found} parameters, its layer sizes need {expected}"
            ),
            WeightsError::NonFinite => write!(f, "weights file holds NaN or infinite values"),
        }
    }
}

impl std::error::Error for WeightsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WeightsError::File(e) => Some(e),
            WeightsError::Shape(e) => Some(e),
            _ => None,
        }
    }
}

/// Serialises a network into the file format.
pub fn encode(net: &Network) -> Vec<u8> {
    let mut params = Vec::with_capacity(net.parameter_count());
    for l in net.layers() {
        params.extend(l.weights.iter());
        params.extend(l.bias.iter());
    }
    let payload = Payload {
        feature_set: net.feature_set().id(),
        hidden: net.hidden_activation().code(),
        sizes: net.sizes().iter().map(|&s| s as u32).collect(),
        params,
    };
    let mut out = Vec::with_capacity(HEADER_LEN + 16 + 4 * payload.params.len() + CHECKSUM_LEN);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    let body = bincode::serde::encode_to_vec(&payload, bincode::config::standard())
        .expect("encoding plain numbers into a Vec cannot fail");
    out.extend_from_slice(&body);
    let sum = fileio::fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Parses and fully validates a weights file image.
pub fn decode(bytes: &[u8]) -> Result<Network, WeightsError> {
    if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
        // Even a truncated file shows its magic if it has enough bytes for it.
        if bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] != MAGIC {
            return Err(WeightsError::BadMagic);
        }
        return Err(WeightsError::Truncated { len: bytes.len() });
    }
    if bytes[..MAGIC.len()] != MAGIC {
        return Err(WeightsError::BadMagic);
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(WeightsError::UnsupportedVersion {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let (content, tail) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
    let stored = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
    let computed = fileio::fnv1a(content);
    if stored != computed {
        return Err(WeightsError::ChecksumMismatch { stored, computed });
    }
    let body = &content[HEADER_LEN..];
    // The limit stops a forged length prefix from asking for a huge allocation.
    let config = bincode::config::standard().with_limit::<{ 64 << 20 }>();
    let (payload, used): (Payload, usize) = bincode::serde::decode_from_slice(body, config)
        .map_err(|e| WeightsError::Decode(e.to_string()))?;
    if used != body.len() {
        return Err(WeightsError::Decode(format!(
            "{} trailing bytes after the payload",
            body.len() - used
        )));
    }
    let set = FeatureSet::from_id(payload.feature_set)
        .ok_or(WeightsError::UnknownFeatureSet(payload.feature_set))?;
    let hidden = Activation::from_code(payload.hidden)
        .ok_or(WeightsError::UnknownActivation(payload.hidden))?;
    let sizes: Vec<usize> = payload.sizes.iter().map(|&s| s as usize).collect();
    validate_sizes(&sizes).map_err(WeightsError::Shape)?;
    if sizes[0] != set.inputs() {
        return Err(WeightsError::InputMismatch {
            found: sizes[0],
            expected: set.inputs(),
        });
    }
    let expected: usize = sizes.windows(2).map(|w| w[0] * w[1] + w[1]).sum();
    if payload.params.len() != expected {
        return Err(WeightsError::ParamCount {
            found: payload.params.len(),
            expected,
        });
    }
    if payload.params.iter().any(|v| !v.is_finite()) {
        return Err(WeightsError::NonFinite);
    }
    let mut rest = payload.params.as_slice();
    let mut layers = Vec::with_capacity(sizes.len() - 1);
    for w in sizes.windows(2) {
        let (n_in, n_out) = (w[0], w[1]);
        let (wv, r) = rest.split_at(n_in * n_out);
        let (bv, r) = r.split_at(n_out);
        rest = r;
        layers.push(Dense {
            weights: Array2::from_shape_vec((n_out, n_in), wv.to_vec())
                .expect("length checked above"),
            bias: Array1::from(bv.to_vec()),
        });
    }
    Network::from_layers(layers, hidden).map_err(WeightsError::Shape)
}

/// Reads and validates a weights file; only a regular file is opened (see
/// [`fileio::open_regular`]).
pub fn load_from_path(path: impl AsRef<Path>) -> Result<Network, WeightsError> {
    let bytes = fileio::read_regular(path.as_ref()).map_err(WeightsError::File)?;
    decode(&bytes)
}

/// Writes a weights file atomically ([`fileio::write_atomic`]), so a reader never sees a
/// half-written file.
pub fn save_to_path(net: &Network, path: impl AsRef<Path>) -> Result<(), WeightsError> {
    fileio::write_atomic(path.as_ref(), &encode(net)).map_err(WeightsError::File)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::features::NUM_FEATURES;

    fn net() -> Network {
        Network::new(&[NUM_FEATURES, 16, 4, 1], Activation::ClippedRelu, 17).unwrap()
    }

    /// Rebuilds a file image around a modified payload, with a valid checksum.
    fn forge(payload: &Payload) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend(bincode::serde::encode_to_vec(payload, bincode::config::standard()).unwrap());
        let sum = fileio::fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    fn payload_of(n: &Network) -> Payload {
        let bytes = encode(n);
        let body = &bytes[HEADER_LEN..bytes.len() - CHECKSUM_LEN];
        bincode::serde::decode_from_slice(body, bincode::config::standard())
            .unwrap()
            .0
    }

    #[test]
    fn round_trip_is_exact() {
        let n = net();
        let bytes = encode(&n);
        assert_eq!(&bytes[..8], &MAGIC);
        assert_eq!(decode(&bytes).unwrap(), n);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = encode(&Network::new(&[NUM_FEATURES, 2, 1], Activation::Relu, 1).unwrap());
        for len in 0..bytes.len() {
            let err = decode(&bytes[..len]).unwrap_err();
            assert!(
                matches!(
                    err,
                    WeightsError::Truncated { .. } | WeightsError::ChecksumMismatch { .. }
                ),
                "len {len}: {err}"
            );
        }
    }

    #[test]
    fn every_flipped_byte_is_an_error() {
        let bytes = encode(&Network::new(&[NUM_FEATURES, 2, 1], Activation::Relu, 1).unwrap());
        for i in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            let err = decode(&b).unwrap_err();
            let expected = match i {
                0..8 => matches!(err, WeightsError::BadMagic),
                8..12 => matches!(err, WeightsError::UnsupportedVersion { .. }),
                _ => matches!(err, WeightsError::ChecksumMismatch { .. }),
            };
            assert!(expected, "byte {i}: {err}");
        }
    }

    #[test]
    fn foreign_and_mismatched_files_are_named() {
        assert!(matches!(
            decode(b"PK\x03\x04 this is a zip file, not weights"),
            Err(WeightsError::BadMagic)
        ));
        let mut v2 = encode(&net());
        v2[8..12].copy_from_slice(&2u32.to_le_bytes());
        let err = decode(&v2).unwrap_err();
        assert!(matches!(
            err,
            WeightsError::UnsupportedVersion {
                found: 2,
                expected: 1
            }
        ));
        assert!(err.to_string().contains("version 2"));

        let mut p = payload_of(&net());
        p.feature_set = 99;
        assert!(matches!(
            decode(&forge(&p)),
            Err(WeightsError::UnknownFeatureSet(99))
        ));
        // A seed network's file claiming the king-piece set has the wrong input count.
        let mut p = payload_of(&net());
        p.feature_set = FeatureSet::KingPiece.id();
        assert!(matches!(
            decode(&forge(&p)),
            Err(WeightsError::InputMismatch {
                found: NUM_FEATURES,
                expected: 25_861
            })
        ));

        let mut p = payload_of(&net());
        p.hidden = 7;
        assert!(matches!(
            decode(&forge(&p)),
            Err(WeightsError::UnknownActivation(7))
        ));

        let mut p = payload_of(&net());
        p.params.pop();
        assert!(matches!(
            decode(&forge(&p)),
            Err(WeightsError::ParamCount { .. })
        ));

        let mut p = payload_of(&net());
        p.params[3] = f32::NAN;
        assert!(matches!(decode(&forge(&p)), Err(WeightsError::NonFinite)));

        let mut p = payload_of(&net());
        p.sizes[3] = 2;
        assert!(matches!(decode(&forge(&p)), Err(WeightsError::Shape(_))));

        let small = Network::new(&[10, 4, 1], Activation::Relu, 1).unwrap();
        assert!(matches!(
            decode(&encode(&small)),
            Err(WeightsError::InputMismatch {
                found: 10,
                expected: NUM_FEATURES
            })
        ));

        // Garbage with a valid checksum fails in the decoder, not with a panic.
        let mut junk = MAGIC.to_vec();
        junk.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        junk.extend_from_slice(&[0xff; 40]);
        let sum = fileio::fnv1a(&junk);
        junk.extend_from_slice(&sum.to_le_bytes());
        assert!(matches!(decode(&junk), Err(WeightsError::Decode(_))));
    }

    #[test]
    fn shipped_file_re_encodes_byte_for_byte() {
        let bytes = include_bytes!("../../../../weights/default.bin");
        let net = decode(bytes).unwrap();
        assert_eq!(net.feature_set(), FeatureSet::PieceBucket);
        assert_eq!(encode(&net), bytes.to_vec());
        // And the last shipped network of the seed's set.
        let bytes = include_bytes!("../../../../weights/gen10.bin");
        let net = decode(bytes).unwrap();
        assert_eq!(net.feature_set(), FeatureSet::Seed361);
        assert_eq!(encode(&net), bytes.to_vec());
    }

    #[test]
    fn king_piece_networks_round_trip_with_their_set() {
        let set = FeatureSet::KingPiece;
        let n = Network::new(&[set.inputs(), 8, 1], Activation::Relu, 3).unwrap();
        assert_eq!(n.feature_set(), set);
        let bytes = encode(&n);
        assert_eq!(payload_of(&n).feature_set, 2);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.feature_set(), set);
        assert_eq!(back, n);
        assert_eq!(payload_of(&net()).feature_set, 1);
    }

    #[test]
    fn save_is_atomic_and_loads_back() {
        let dir = std::env::temp_dir().join(format!("nn-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.bin");
        std::fs::write(&path, b"old contents").unwrap();
        let n = net();
        save_to_path(&n, &path).unwrap();
        assert_eq!(load_from_path(&path).unwrap(), n);
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("w.bin")]);
        // A failed save (directory missing) leaves nothing and reports the path.
        let err = save_to_path(&n, dir.join("no/such/dir/w.bin")).unwrap_err();
        assert!(matches!(err, WeightsError::File(FileError::Io { .. })));
        assert!(err.to_string().contains("w.bin"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
