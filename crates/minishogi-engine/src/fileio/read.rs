//! Reading: every file the engine reads is checked on its metadata first and opened only if it
//! is a regular file, so a FIFO, a device or a directory is an error naming the path, never a
//! hang.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

use super::FileError;

/// What a non-regular file is, in words for an error message.
pub(super) fn kind_name(file_type: fs::FileType) -> &'static str {
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
pub(super) fn check_regular_or_missing(path: &Path) -> Result<Option<fs::Metadata>, FileError> {
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
pub(super) fn nonblocking(options: &mut fs::OpenOptions) -> &mut fs::OpenOptions {
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
