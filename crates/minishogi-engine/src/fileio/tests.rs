//! Files on a real file system: checksums, round trips, symlinks, special files (FIFOs),
//! stale temporaries and locks.

use super::write::temp_owner;
use super::*;
use std::fs;
use std::path::{Path, PathBuf};

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
    let err = decode::<Vec<u32>>(&path, b"MS55DGN\n", 1, b"garbage\n and more").unwrap_err();
    assert!(
        err.to_string()
            .ends_with(": not a MS55DGN file (starts with \"garbage\\n\")"),
        "{err}"
    );
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
