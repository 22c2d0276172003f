//! Output locks: an advisory lock beside an output, held for the life of the process, so that
//! two runs never write the same output.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::FileError;
use super::read::{check_regular_or_missing, nonblocking};
use super::write::resolve_target;

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

/// How long a held lock is waited for before the output is called locked. A run killed while
/// it was starting a child process (a match's engine) leaves its copy of the lock with that
/// child until the child's `exec` closes it (the descriptor is close-on-exec): a rerun started
/// at once would otherwise be refused for a lock nobody holds a moment later.
const LOCK_GRACE: Duration = Duration::from_secs(2);

/// Takes the advisory lock of `output` (see [`lock_path`]), or fails with
/// [`FileError::Locked`] if another process still holds it after [`LOCK_GRACE`]. The lock file is left in place
/// (removing it would race with a run that just opened it); it holds the id of the last holder.
pub fn lock_output(output: &Path) -> Result<OutputLock, FileError> {
    let lock = lock_path(output)?;
    check_regular_or_missing(&lock)?;
    let mut file = nonblocking(fs::OpenOptions::new().read(true).write(true).create(true))
        .open(&lock)
        .map_err(|e| FileError::io(&lock, e))?;
    let deadline = Instant::now() + LOCK_GRACE;
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
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
