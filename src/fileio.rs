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

use std::fmt;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use serde::de::DeserializeOwned;

const HEADER_LEN: usize = 8 + 4 + 8 + 8;

/// Symbolic links followed before giving up (as the kernel's `ELOOP` limit).
const MAX_SYMLINKS: usize = 40;

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

/// What a non-regular file is, in words for an error message.
fn kind_name(file_type: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "socket";
        }
        if file_type.is_char_device() {
            return "character device";
        }
        if file_type.is_block_device() {
            return "block device";
        }
    }
    if file_type.is_dir() {
        "directory"
    } else if file_type.is_symlink() {
        "symbolic link"
    } else {
        "special file"
    }
}

/// Checks (on the metadata, without opening) that `path` is a regular file or names nothing
/// yet. Symlinks are followed.
fn check_regular_or_missing(path: &Path) -> Result<Option<fs::Metadata>, FileError> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(Some(m)),
        Ok(m) => Err(FileError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_name(m.file_type()),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(FileError::io(path, e)),
    }
}

/// Options that open without blocking: a FIFO that appears between the metadata check and the
/// open must not hang the engine (the opened file is checked again).
fn nonblocking(options: &mut fs::OpenOptions) -> &mut fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options
}

/// Opens `path` for reading if, and only if, it is a regular file (symlinks followed): a
/// directory, FIFO, device or socket is a [`FileError::NotRegular`] naming the path, found on
/// the metadata before anything is opened, so this never blocks.
pub fn open_regular(path: &Path) -> Result<File, FileError> {
    // A missing file is left to `open` to report, with the system's words.
    check_regular_or_missing(path)?;
    let file = nonblocking(fs::OpenOptions::new().read(true))
        .open(path)
        .map_err(|e| FileError::io(path, e))?;
    let meta = file.metadata().map_err(|e| FileError::io(path, e))?;
    if !meta.is_file() {
        return Err(FileError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_name(meta.file_type()),
        });
    }
    Ok(file)
}

/// The whole contents of a regular file (see [`open_regular`]).
pub fn read_regular(path: &Path) -> Result<Vec<u8>, FileError> {
    let mut file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| FileError::io(path, e))?;
    Ok(bytes)
}

/// The whole contents of a regular UTF-8 text file (see [`open_regular`]).
pub fn read_regular_to_string(path: &Path) -> Result<String, FileError> {
    let bytes = read_regular(path)?;
    String::from_utf8(bytes).map_err(|_| FileError::Decode {
        path: path.to_path_buf(),
        error: "not UTF-8 text".to_string(),
    })
}

/// The file `path` designates once symbolic links are followed (relative links resolved from
/// the link's folder). The result may not exist yet; a dangling link names the file to create.
pub fn resolve_target(path: &Path) -> Result<PathBuf, FileError> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINKS {
        match fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&current).map_err(|e| FileError::io(&current, e))?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(FileError::io(&current, e)),
        }
    }
    Err(FileError::io(
        path,
        std::io::Error::other(format!("more than {MAX_SYMLINKS} levels of symbolic links")),
    ))
}

/// Checks, without opening anything, that [`write_atomic`] may write `path`: once symlinks are
/// followed it is a regular file or nothing yet. For a long job to refuse a bad output at once
/// rather than at its first save.
pub fn check_replaceable(path: &Path) -> Result<(), FileError> {
    check_regular_or_missing(&resolve_target(path)?).map(|_| ())
}

/// Distinguishes the temporary files of concurrent writes within one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Whether process `pid` is alive (or its state cannot be known: then it is left alone).
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists; nothing is sent.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// The process id in the name of a temporary file of `name` written by [`write_atomic`]
/// (`.<name>.<pid>.<n>.tmp`), or by earlier versions (`<name>.<pid>.tmp`).
fn temp_owner(entry: &str, name: &str) -> Option<u32> {
    let rest = entry
        .strip_prefix('.')
        .and_then(|e| e.strip_prefix(name))
        .or_else(|| entry.strip_prefix(name))?;
    let mut parts = rest.strip_prefix('.')?.strip_suffix(".tmp")?.split('.');
    let pid = parts.next()?.parse().ok()?;
    match (parts.next(), parts.next()) {
        (None, _) => Some(pid),
        (Some(n), None) if n.parse::<u64>().is_ok() => Some(pid),
        _ => None,
    }
}

/// Removes the temporary files of `name` in `dir` left by processes that are gone.
fn remove_stale_temps(dir: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name.to_str().and_then(|e| temp_owner(e, name)) else {
            continue;
        };
        if pid == std::process::id() || process_alive(pid) {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let path = entry.path();
            match fs::remove_file(&path) {
                Ok(()) => log::info!("removed {}, left by an interrupted run", path.display()),
                Err(e) => log::warn!("cannot remove stale {}: {e}", path.display()),
            }
        }
    }
}

/// Writes `bytes` to `path` atomically. Symbolic links are followed and their target written
/// (the link stays a link). Anything but a regular file at the target is refused with
/// [`FileError::NotRegular`], without being opened. The bytes go to a temporary file in the
/// target's folder, which is synced, renamed over the target, and the folder synced. On any
/// error the temporary file is removed and the previous file is intact; errors name `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let target = resolve_target(path)?;
    let previous = check_regular_or_missing(&target)?;
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| {
            FileError::io(
                path,
                std::io::Error::other("not a file name this engine writes"),
            )
        })?
        .to_string();
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    remove_stale_temps(&dir, &name);
    let tmp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = nonblocking(fs::OpenOptions::new().write(true).create_new(true)).open(&tmp)?;
        if let Some(m) = &previous {
            f.set_permissions(m.permissions())?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        // Checked again just before the rename: the target may have changed meanwhile.
        if let Ok(m) = fs::symlink_metadata(&target)
            && !m.is_file()
        {
            return Err(std::io::Error::other(format!(
                "became a {} while it was written",
                kind_name(m.file_type())
            )));
        }
        fs::rename(&tmp, &target)
    })();
    if let Err(error) = result {
        let _ = fs::remove_file(&tmp);
        return Err(FileError::io(path, error));
    }
    // The rename is durable once the folder is synced. The data is in place either way, so a
    // failure here (some file systems cannot sync a folder) is reported, not returned.
    if let Err(e) = File::open(&dir).and_then(|d| d.sync_all()) {
        log::warn!(
            "cannot sync folder {} after writing {}: {e}",
            dir.display(),
            path.display()
        );
    }
    Ok(())
}

/// Creates (or truncates) `path` for writing in place, for a file that grows as a run goes
/// (a log of records). Like [`write_atomic`], refuses anything but a regular file without
/// opening it; symlinks are followed.
pub fn create_regular(path: &Path) -> Result<File, FileError> {
    check_regular_or_missing(path)?;
    let file = nonblocking(
        fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true),
    )
    .open(path)
    .map_err(|e| FileError::io(path, e))?;
    Ok(file)
}

/// Makes writes past the file-size limit (`ulimit -f`) fail with an error (`EFBIG`) instead of
/// killing the process with `SIGXFSZ`, so that [`write_atomic`] can clean up and report it.
/// Called once at the start of `main`.
pub fn report_file_size_limit_as_error() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// An advisory lock on an output, released when dropped or when the process ends (however it
/// ends: the operating system drops the lock with the process).
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
    path: PathBuf,
}

impl OutputLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The lock file of an output: beside its target (symlinks followed), extension `.lock`.
pub fn lock_path(output: &Path) -> Result<PathBuf, FileError> {
    Ok(resolve_target(output)?.with_extension("lock"))
}

/// Takes the advisory lock of `output` (see [`lock_path`]), or fails with
/// [`FileError::Locked`] at once if another process holds it. The lock file is left in place
/// (removing it would race with a run that just opened it); it holds the id of the last holder.
pub fn lock_output(output: &Path) -> Result<OutputLock, FileError> {
    let lock = lock_path(output)?;
    check_regular_or_missing(&lock)?;
    let mut file = nonblocking(fs::OpenOptions::new().read(true).write(true).create(true))
        .open(&lock)
        .map_err(|e| FileError::io(&lock, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            return Err(FileError::Locked {
                path: output.to_path_buf(),
                lock,
                holder: text.trim().parse().ok(),
            });
        }
        Err(fs::TryLockError::Error(e)) => return Err(FileError::io(&lock, e)),
    }
    let pid = std::process::id().to_string();
    let _ = file
        .set_len(0)
        .and_then(|()| file.write_all(pid.as_bytes()));
    Ok(OutputLock {
        _file: file,
        path: lock,
    })
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
    let bytes = read_regular(path)?;
    decode(path, magic, version, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

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

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fileio-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[cfg(unix)]
    #[test]
    fn writes_follow_symlinks_and_refuse_special_files() {
        use std::os::unix::fs::FileTypeExt;
        let dir = scratch("write");
        let target = dir.join("target.bin");
        fs::write(&target, b"old").unwrap();
        let link = dir.join("link.bin");
        std::os::unix::fs::symlink("target.bin", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&target).unwrap(), b"new");
        // A dangling link names the file to create.
        let dangling = dir.join("dangling.bin");
        std::os::unix::fs::symlink("created.bin", &dangling).unwrap();
        write_atomic(&dangling, b"x").unwrap();
        assert_eq!(fs::read(dir.join("created.bin")).unwrap(), b"x");

        let fifo = dir.join("fifo.bin");
        mkfifo(&fifo);
        let err = write_atomic(&fifo, b"data").unwrap_err();
        assert!(matches!(err, FileError::NotRegular { .. }), "{err}");
        assert!(err.to_string().contains("fifo.bin") && err.to_string().contains("FIFO"));
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        let sub = dir.join("sub");
        fs::create_dir(&sub).unwrap();
        let err = write_atomic(&sub, b"data").unwrap_err();
        assert!(err.to_string().contains("directory"), "{err}");
        let err = write_atomic(Path::new("/dev/null"), b"data").unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
        // A missing folder: an error naming the file, nothing left behind.
        let err = write_atomic(&dir.join("no/such.bin"), b"x").unwrap_err();
        assert!(err.to_string().contains("no/such.bin"), "{err}");
        assert_eq!(
            names(&dir),
            [
                "created.bin",
                "dangling.bin",
                "fifo.bin",
                "link.bin",
                "sub",
                "target.bin"
            ]
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stale_temp_files_of_dead_processes_are_removed() {
        let dir = scratch("stale");
        let out = dir.join("w.bin");
        // pid 0x7fff_fff0 is above any pid_max; our own pid is alive (another thread writing).
        let dead = ".w.bin.2147483632.0.tmp";
        let old_style = "w.bin.2147483632.tmp";
        let ours = format!(".w.bin.{}.99.tmp", std::process::id());
        for n in [
            dead,
            old_style,
            ours.as_str(),
            ".other.bin.2147483632.0.tmp",
        ] {
            fs::write(dir.join(n), b"partial").unwrap();
        }
        write_atomic(&out, b"whole").unwrap();
        let mut want = vec![
            ours.clone(),
            ".other.bin.2147483632.0.tmp".into(),
            "w.bin".into(),
        ];
        want.sort();
        assert_eq!(names(&dir), want);
        assert_eq!(temp_owner(".w.bin.12.3.tmp", "w.bin"), Some(12));
        assert_eq!(temp_owner("w.bin.12.tmp", "w.bin"), Some(12));
        assert_eq!(temp_owner(".w.bin.x.tmp", "w.bin"), None);
        assert_eq!(temp_owner(".w.binary.1.tmp", "w.bin"), None);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn reads_refuse_anything_but_regular_files_without_blocking() {
        let dir = scratch("read");
        let fifo = dir.join("fifo");
        mkfifo(&fifo);
        let err = read_regular(&fifo).unwrap_err();
        assert!(matches!(err, FileError::NotRegular { kind, .. } if kind.contains("FIFO")));
        let err = read_regular(&dir).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        let err = read_regular(Path::new("/dev/stdin")).unwrap_err();
        assert!(matches!(err, FileError::NotRegular { .. }), "{err}");
        let err = read_regular(&dir.join("missing")).unwrap_err();
        assert!(matches!(err, FileError::Io { .. }) && err.to_string().contains("missing"));
        let text = dir.join("a.txt");
        fs::write(&text, "hello").unwrap();
        assert_eq!(read_regular_to_string(&text).unwrap(), "hello");
        fs::write(&text, [0xff, 0xfe]).unwrap();
        assert!(
            read_regular_to_string(&text)
                .unwrap_err()
                .to_string()
                .contains("UTF-8")
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_second_lock_on_the_same_output_is_refused_until_released() {
        let dir = scratch("lock");
        let out = dir.join("w.bin");
        let first = lock_output(&out).unwrap();
        assert_eq!(first.path(), dir.join("w.lock"));
        let err = lock_output(&out).unwrap_err();
        assert!(
            matches!(err, FileError::Locked { holder: Some(pid), .. } if pid == std::process::id()),
            "{err}"
        );
        assert!(err.to_string().contains("w.bin"), "{err}");
        drop(first);
        let again = lock_output(&out).unwrap();
        drop(again);
        fs::remove_dir_all(&dir).unwrap();
    }
}
