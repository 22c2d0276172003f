//! What differs between a native build and WebAssembly (`wasm32-unknown-unknown`, in a Web
//! Worker or Node), behind one seam: the clock, entropy, how many threads there can be, how
//! big a hash table may be, and waiting. Natively these are `std`'s.
//!
//! On wasm there is one thread: searches run on it (the USI session's and the helpers' alike)
//! and the host is polled for `stop` while they run (`protocol::usi`'s inline session). The
//! host — the worker script — provides, in the import module `minishogi`:
//! `now_ms() -> f64` (a monotonic clock in milliseconds, `performance.now()`) and
//! `fill_random(ptr: *mut u8, len: usize)` (`crypto.getRandomValues` on that memory).

use std::time::Duration;

#[cfg(not(target_arch = "wasm32"))]
pub use std::time::Instant;
#[cfg(target_arch = "wasm32")]
pub use wasm::Instant;

/// Whether threads can be started: helper threads for the search, the USI session's search
/// thread, a watchdog.
pub const THREADS: bool = cfg!(not(target_arch = "wasm32"));

/// The most search threads the `Threads` option offers.
pub const MAX_THREADS: usize = if THREADS { 256 } else { 1 };

/// The largest hash table the `USI_Hash` option offers, in MiB: a wasm32 memory holds at most
/// 4 GiB, and browsers give a worker less.
pub const MAX_HASH_MB: usize = if cfg!(target_pointer_width = "32") {
    1024
} else {
    65536
};

/// Waits about `time` for another thread to change something; where there are no other
/// threads (wasm), returns at once: the caller polls the host instead.
pub fn pause(time: Duration) {
    if THREADS {
        std::thread::sleep(time);
    }
}

/// A seed drawn from the system's entropy (natively the OS; on wasm the host's
/// `crypto.getRandomValues`, through `getrandom`'s custom backend).
pub fn entropy_seed() -> u64 {
    rand::random::<u64>()
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use std::ops::{Add, Sub};
    use std::time::Duration;

    #[link(wasm_import_module = "minishogi")]
    unsafe extern "C" {
        fn now_ms() -> f64;
        fn fill_random(ptr: *mut u8, len: usize);
    }

    /// `std::time::Instant`'s part the engine uses, over the host's monotonic clock
    /// (`std`'s panics on `wasm32-unknown-unknown`): the time since the clock's origin.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub struct Instant {
        since_origin: Duration,
    }

    impl Instant {
        pub fn now() -> Instant {
            // SAFETY: an import of the host with no arguments.
            let ms = unsafe { now_ms() };
            Instant {
                since_origin: Duration::from_secs_f64(ms.max(0.0) / 1000.0),
            }
        }

        pub fn duration_since(&self, earlier: Instant) -> Duration {
            self.since_origin.saturating_sub(earlier.since_origin)
        }

        pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
            self.since_origin.checked_sub(earlier.since_origin)
        }

        pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
            self.duration_since(earlier)
        }

        pub fn elapsed(&self) -> Duration {
            Instant::now().duration_since(*self)
        }
    }

    impl Add<Duration> for Instant {
        type Output = Instant;
        fn add(self, d: Duration) -> Instant {
            Instant {
                since_origin: self.since_origin + d,
            }
        }
    }

    impl Sub<Instant> for Instant {
        type Output = Duration;
        fn sub(self, earlier: Instant) -> Duration {
            self.duration_since(earlier)
        }
    }

    /// `getrandom`'s custom backend: the host's `crypto.getRandomValues`.
    fn host_random(buf: &mut [u8]) -> Result<(), getrandom::Error> {
        // SAFETY: the host writes `buf.len()` bytes at `buf`, inside this memory.
        unsafe { fill_random(buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    getrandom::register_custom_getrandom!(host_random);
}
