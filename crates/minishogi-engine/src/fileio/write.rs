//! Writing: the one atomic writer (symlinks followed, temporary file beside the target, fsync,
//! rename, the folder synced; stale temporaries of dead processes removed), files written in
//! place as a run goes, and their folders.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::FileError;
use super::read::{check_regular_or_missing, kind_name, nonblocking};

/// Symbolic links followed before giving up (as the kernel's `ELOOP` limit).
const MAX_SYMLINKS: usize = 40;

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
pub(super) fn temp_owner(entry: &str, name: &str) -> Option<u32> {
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
