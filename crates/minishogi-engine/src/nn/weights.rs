//! Weights files.
//!
//! Layout (all integers little-endian):
//! ```text
//! bytes 0..8     magic  b"MS55NNW\n"
//! bytes 8..12    format version (u32)
//! bytes 12..n-8  bincode 2 of the payload: feature-set id, hidden activation, layer sizes,
//!                then every layer's weights (row-major, out × in) and biases
//! bytes n-8..n   FNV-1a 64 checksum of bytes 0..n-8
//! ```
//! Version 2 (written) stores each layer's weights either as `f32` or as 16-bit fixed point
//! (`value / 2^shift`) — the [`Encoding::Compact`] file keeps the first layer that way, half
//! the size of the `f32` file (the first layer is nearly all of a wide network, and the
//! quantised search path rounds it to `i16` anyway); its body is bincode with fixed-width
//! integers so an `i16` takes two bytes. Version 1 (read) is all `f32` in standard bincode.
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
/// The version written; [`decode`] also reads [`FORMAT_VERSION_F32`].
pub const FORMAT_VERSION: u32 = 2;
/// The first format: every parameter `f32`.
pub const FORMAT_VERSION_F32: u32 = 1;
const HEADER_LEN: usize = 12;
const CHECKSUM_LEN: usize = 8;
/// Finest fixed-point scale a compact layer may use (`2^30`: beyond it `f32` is the finer).
const MAX_FIXED_SHIFT: u8 = 30;

/// How a network's parameters are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Every parameter as `f32`: exact (training writes this).
    Full,
    /// The first layer's weights as 16-bit fixed point at the finest power-of-two scale that
    /// holds its largest weight (for the shipped network: steps of 1/8192, at most 6.1e-5
    /// off), everything else `f32`.
    Compact,
}

/// Version 1 payload.
#[derive(Serialize, Deserialize)]
struct PayloadF32 {
    feature_set: u32,
    hidden: u8,
    sizes: Vec<u32>,
    /// Per layer: weights row-major, then biases.
    params: Vec<f32>,
}

/// Version 2 payload.
#[derive(Serialize, Deserialize)]
struct Payload {
    feature_set: u32,
    hidden: u8,
    sizes: Vec<u32>,
    layers: Vec<LayerParams>,
}

#[derive(Serialize, Deserialize)]
struct LayerParams {
    /// Row-major, out × in.
    weights: Values,
    bias: Vec<f32>,
}

#[derive(Serialize, Deserialize)]
enum Values {
    F32(Vec<f32>),
    /// `value = v / 2^shift`.
    Fixed16 {
        shift: u8,
        values: Vec<i16>,
    },
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::Fixed16 { values, .. } => values.len(),
        }
    }

    fn fixed16(weights: &[f32]) -> Values {
        let max = weights.iter().fold(0f32, |m, w| m.max(w.abs()));
        let fits = |s: u8| (max * (1u32 << s) as f32).round() <= i16::MAX as f32;
        let Some(shift) = (0..=MAX_FIXED_SHIFT).rev().find(|&s| fits(s)) else {
            // Weights beyond ±32767 have no 16-bit form; keep them exact.
            return Values::F32(weights.to_vec());
        };
        let scale = (1u32 << shift) as f32;
        let values = weights.iter().map(|w| (w * scale).round() as i16).collect();
        Values::Fixed16 { shift, values }
    }

    fn to_f32(&self) -> Result<Vec<f32>, WeightsError> {
        match self {
            Values::F32(v) => Ok(v.clone()),
            &Values::Fixed16 { shift, ref values } => {
                if shift > MAX_FIXED_SHIFT {
                    return Err(WeightsError::Decode(format!(
                        "fixed-point shift {shift} is above {MAX_FIXED_SHIFT}"
                    )));
                }
                // A power of two: the division is exact.
                let scale = (1u32 << shift) as f32;
                Ok(values.iter().map(|&v| v as f32 / scale).collect())
            }
        }
    }
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

/// Serialises a network into the file format, every parameter exact.
pub fn encode(net: &Network) -> Vec<u8> {
    encode_as(net, Encoding::Full)
}

/// Serialises a network in the given encoding.
pub fn encode_as(net: &Network, encoding: Encoding) -> Vec<u8> {
    let layers = net
        .layers()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let weights: Vec<f32> = l.weights.iter().copied().collect();
            LayerParams {
                weights: match encoding {
                    Encoding::Compact if i == 0 => Values::fixed16(&weights),
                    _ => Values::F32(weights),
                },
                bias: l.bias.to_vec(),
            }
        })
        .collect();
    let payload = Payload {
        feature_set: net.feature_set().id(),
        hidden: net.hidden_activation().code(),
        sizes: net.sizes().iter().map(|&s| s as u32).collect(),
        layers,
    };
    let body = bincode::serde::encode_to_vec(&payload, config_v2())
        .expect("encoding plain numbers into a Vec cannot fail");
    frame(FORMAT_VERSION, &body)
}

/// Magic, version, body, checksum.
fn frame(version: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len() + CHECKSUM_LEN);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(body);
    let sum = fileio::fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Version 2's bincode: fixed-width integers (an `i16` in two bytes, not a varint's one to
/// three); the limit stops a forged length prefix from asking for a huge allocation.
fn config_v2() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_fixed_int_encoding()
        .with_limit::<{ 64 << 20 }>()
}

/// The encoding of a file image that [`decode`] accepts: [`Encoding::Compact`] when some
/// layer is stored in fixed point.
pub fn encoding_of(bytes: &[u8]) -> Result<Encoding, WeightsError> {
    let (version, body) = checked_body(bytes)?;
    if version == FORMAT_VERSION_F32 {
        return Ok(Encoding::Full);
    }
    let payload: Payload = decode_body(body, config_v2())?;
    let fixed = payload
        .layers
        .iter()
        .any(|l| matches!(l.weights, Values::Fixed16 { .. }));
    Ok(if fixed {
        Encoding::Compact
    } else {
        Encoding::Full
    })
}

/// Checks magic, version and checksum; returns the version and the payload's bytes.
fn checked_body(bytes: &[u8]) -> Result<(u32, &[u8]), WeightsError> {
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
    if version != FORMAT_VERSION && version != FORMAT_VERSION_F32 {
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
    Ok((version, &content[HEADER_LEN..]))
}

fn decode_body<T: serde::de::DeserializeOwned>(
    body: &[u8],
    config: impl bincode::config::Config,
) -> Result<T, WeightsError> {
    let (payload, used): (T, usize) = bincode::serde::decode_from_slice(body, config)
        .map_err(|e| WeightsError::Decode(e.to_string()))?;
    if used != body.len() {
        return Err(WeightsError::Decode(format!(
            "{} trailing bytes after the payload",
            body.len() - used
        )));
    }
    Ok(payload)
}

/// Parses and fully validates a weights file image (either version).
pub fn decode(bytes: &[u8]) -> Result<Network, WeightsError> {
    let (version, body) = checked_body(bytes)?;
    let (feature_set, hidden, sizes, params) = if version == FORMAT_VERSION_F32 {
        let config = bincode::config::standard().with_limit::<{ 64 << 20 }>();
        let p: PayloadF32 = decode_body(body, config)?;
        (p.feature_set, p.hidden, p.sizes, Params::Flat(p.params))
    } else {
        let p: Payload = decode_body(body, config_v2())?;
        (p.feature_set, p.hidden, p.sizes, Params::Layers(p.layers))
    };
    let set =
        FeatureSet::from_id(feature_set).ok_or(WeightsError::UnknownFeatureSet(feature_set))?;
    let hidden = Activation::from_code(hidden).ok_or(WeightsError::UnknownActivation(hidden))?;
    let sizes: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
    validate_sizes(&sizes).map_err(WeightsError::Shape)?;
    if sizes[0] != set.inputs() {
        return Err(WeightsError::InputMismatch {
            found: sizes[0],
            expected: set.inputs(),
        });
    }
    let expected: usize = sizes.windows(2).map(|w| w[0] * w[1] + w[1]).sum();
    let found = params.count();
    let per_layer_fits = match &params {
        Params::Flat(_) => true,
        Params::Layers(layers) => {
            layers.len() == sizes.len() - 1
                && layers
                    .iter()
                    .zip(sizes.windows(2))
                    .all(|(l, w)| l.weights.len() == w[0] * w[1] && l.bias.len() == w[1])
        }
    };
    if found != expected || !per_layer_fits {
        return Err(WeightsError::ParamCount { found, expected });
    }
    let flat = params.into_flat()?;
    if flat.iter().any(|v| !v.is_finite()) {
        return Err(WeightsError::NonFinite);
    }
    let mut rest = flat.as_slice();
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

/// A payload's parameters, as either version holds them.
enum Params {
    Flat(Vec<f32>),
    Layers(Vec<LayerParams>),
}

impl Params {
    fn count(&self) -> usize {
        match self {
            Params::Flat(p) => p.len(),
            Params::Layers(layers) => layers.iter().map(|l| l.weights.len() + l.bias.len()).sum(),
        }
    }

    /// Every layer's weights then biases, in order, as `f32`.
    fn into_flat(self) -> Result<Vec<f32>, WeightsError> {
        let count = self.count();
        match self {
            Params::Flat(p) => Ok(p),
            Params::Layers(layers) => {
                let mut flat = Vec::with_capacity(count);
                for l in layers {
                    flat.extend(l.weights.to_f32()?);
                    flat.extend(l.bias);
                }
                Ok(flat)
            }
        }
    }
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
        frame(
            FORMAT_VERSION,
            &bincode::serde::encode_to_vec(payload, config_v2()).unwrap(),
        )
    }

    fn payload_of(n: &Network) -> Payload {
        payload_in(&encode(n))
    }

    fn payload_in(bytes: &[u8]) -> Payload {
        let body = &bytes[HEADER_LEN..bytes.len() - CHECKSUM_LEN];
        bincode::serde::decode_from_slice(body, config_v2())
            .unwrap()
            .0
    }

    /// A version 1 file image of `n` (as the project wrote them before version 2).
    fn encode_v1(n: &Network, edit: impl FnOnce(&mut PayloadF32)) -> Vec<u8> {
        let mut payload = PayloadF32 {
            feature_set: n.feature_set().id(),
            hidden: n.hidden_activation().code(),
            sizes: n.sizes().iter().map(|&s| s as u32).collect(),
            params: n
                .layers()
                .iter()
                .flat_map(|l| l.weights.iter().chain(l.bias.iter()).copied())
                .collect(),
        };
        edit(&mut payload);
        frame(
            FORMAT_VERSION_F32,
            &bincode::serde::encode_to_vec(&payload, bincode::config::standard()).unwrap(),
        )
    }

    fn first_layer_f32(p: &mut Payload) -> &mut Vec<f32> {
        match &mut p.layers[0].weights {
            Values::F32(v) => v,
            Values::Fixed16 { .. } => panic!("a full file's first layer is f32"),
        }
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
        let mut v3 = encode(&net());
        v3[8..12].copy_from_slice(&3u32.to_le_bytes());
        let err = decode(&v3).unwrap_err();
        assert!(matches!(
            err,
            WeightsError::UnsupportedVersion {
                found: 3,
                expected: 2
            }
        ));
        assert!(err.to_string().contains("version 3"));

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
        p.layers[1].bias.pop();
        assert!(matches!(
            decode(&forge(&p)),
            Err(WeightsError::ParamCount { .. })
        ));
        // The right total, split wrongly between a layer's weights and its biases.
        let mut p = payload_of(&net());
        let moved = first_layer_f32(&mut p).pop().unwrap();
        p.layers[0].bias.push(moved);
        assert!(matches!(
            decode(&forge(&p)),
            Err(WeightsError::ParamCount { .. })
        ));
        let mut p = payload_of(&net());
        p.layers.pop();
        assert!(matches!(
            decode(&forge(&p)),
            Err(WeightsError::ParamCount { .. })
        ));

        let mut p = payload_of(&net());
        first_layer_f32(&mut p)[3] = f32::NAN;
        assert!(matches!(decode(&forge(&p)), Err(WeightsError::NonFinite)));
        let mut p = payload_of(&net());
        p.layers[2].bias[0] = f32::INFINITY;
        assert!(matches!(decode(&forge(&p)), Err(WeightsError::NonFinite)));

        // A fixed-point layer whose scale is out of range.
        let mut p = payload_of(&net());
        p.layers[0].weights = Values::Fixed16 {
            shift: MAX_FIXED_SHIFT + 1,
            values: vec![1; p.layers[0].weights.len()],
        };
        let err = decode(&forge(&p)).unwrap_err();
        assert!(err.to_string().contains("shift 31"), "{err}");

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
        assert_eq!(encoding_of(bytes).unwrap(), Encoding::Compact);
        let net = decode(bytes).unwrap();
        assert_eq!(net.feature_set(), FeatureSet::PieceBucket);
        assert_eq!(encode_as(&net, Encoding::Compact), bytes.to_vec());
        // The last shipped network of the seed's set, a version 1 file.
        let bytes = include_bytes!("../../../../weights/gen10.bin");
        assert_eq!(&bytes[8..12], &FORMAT_VERSION_F32.to_le_bytes());
        assert_eq!(encoding_of(bytes).unwrap(), Encoding::Full);
        let net = decode(bytes).unwrap();
        assert_eq!(net.feature_set(), FeatureSet::Seed361);
        assert_eq!(encode_v1(&net, |_| ()), bytes.to_vec());
        assert_eq!(decode(&encode(&net)).unwrap(), net);
    }

    #[test]
    fn version_1_files_load_and_their_defects_are_named() {
        let n = net();
        assert_eq!(decode(&encode_v1(&n, |_| ())).unwrap(), n);
        let short = encode_v1(&n, |p| {
            p.params.pop();
        });
        assert!(matches!(
            decode(&short),
            Err(WeightsError::ParamCount { .. })
        ));
        let nan = encode_v1(&n, |p| p.params[5] = f32::NAN);
        assert!(matches!(decode(&nan), Err(WeightsError::NonFinite)));
        let foreign = encode_v1(&n, |p| p.feature_set = 99);
        assert!(matches!(
            decode(&foreign),
            Err(WeightsError::UnknownFeatureSet(99))
        ));
    }

    #[test]
    fn compact_files_are_half_the_size_and_within_half_a_step() {
        let set = FeatureSet::PieceBucket;
        let n = Network::new(&[set.inputs(), 32, 8, 1], Activation::Relu, 5).unwrap();
        let full = encode(&n);
        let compact = encode_as(&n, Encoding::Compact);
        assert_eq!(encoding_of(&full).unwrap(), Encoding::Full);
        assert_eq!(encoding_of(&compact).unwrap(), Encoding::Compact);
        let first = n.layers()[0].weights.len();
        assert!(
            full.len() - compact.len() >= 2 * first - 64,
            "{} → {}",
            full.len(),
            compact.len()
        );
        let back = decode(&compact).unwrap();
        let Values::Fixed16 { shift, values } = &payload_in(&compact).layers[0].weights else {
            panic!("the first layer is fixed point");
        };
        // The finest scale: the largest weight uses the top of the range.
        let top = values.iter().map(|v| v.unsigned_abs()).max().unwrap();
        assert!(top > i16::MAX as u16 / 2, "{top} at shift {shift}");
        let step = 1.0 / (1u32 << shift) as f32;
        for (a, b) in n.layers()[0]
            .weights
            .iter()
            .zip(back.layers()[0].weights.iter())
        {
            assert!((a - b).abs() <= step / 2.0, "{a} → {b}");
        }
        // Everything after the first layer's weights is exact.
        assert_eq!(n.layers()[0].bias, back.layers()[0].bias);
        assert_eq!(n.layers()[1..], back.layers()[1..]);
        // Stable: a compact network compacts to the same bytes.
        assert_eq!(encode_as(&back, Encoding::Compact), compact);
    }

    #[test]
    fn weights_beyond_sixteen_bits_stay_exact() {
        let mut n = net();
        n.layers_mut()[0].weights[[0, 0]] = 40_000.5;
        let back = decode(&encode_as(&n, Encoding::Compact)).unwrap();
        assert_eq!(back, n);
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
