//! How much memory the system can still give. Sizes that come from outside (a USI option, a
//! command-line count) are checked against it before they are allocated: a failed allocation
//! aborts the process, and an overcommitted one gets it killed later.

/// What the system says it can still give (Linux `MemAvailable`); `None` where unknown.
pub fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The most one large buffer may take: half of what is available, leaving room for the system
/// and for the other engine of a game. `None` where unknown (then nothing is refused here).
pub fn large_buffer_limit() -> Option<u64> {
    available_bytes().map(|bytes| bytes / 2)
}

/// `Ok` when about `bytes` for `what` (e.g. "--positions 10000000") fit under
/// [`large_buffer_limit`]; otherwise an error naming it and both sizes.
pub fn check_fits(what: &str, bytes: u64) -> Result<(), String> {
    match large_buffer_limit() {
        Some(limit) if bytes > limit => Err(format!(
            "{what} needs about {} of memory; at most {} can be had here (half of what is \
             available)",
            human(bytes),
            human(limit)
        )),
        _ => Ok(()),
    }
}

fn human(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    if bytes as f64 >= GIB {
        format!("{:.1} GiB", bytes as f64 / GIB)
    } else {
        format!("{:.0} MiB", bytes as f64 / MIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_sizes_are_refused_with_both_sizes_named() {
        if available_bytes().is_none() {
            return; // not Linux: nothing to check against
        }
        let err = check_fits("--positions 1e15", u64::MAX / 2).unwrap_err();
        assert!(err.starts_with("--positions 1e15 needs about "), "{err}");
        assert!(err.contains("GiB of memory; at most "), "{err}");
        assert!(check_fits("a few bytes", 1000).is_ok());
    }
}
