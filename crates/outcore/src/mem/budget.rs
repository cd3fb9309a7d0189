//! The budget (DESIGN.md principle 1: "the budget is a contract").
//!
//! A [`Budget`] is a byte count that large allocations are charged against;
//! a charge that does not fit fails with a message saying how much was needed.
//! The actual contract is checked by measuring peak RSS ([`peak_rss_bytes`]).

use super::ram::usable_memory;
pub use super::ram::{physical_memory_bytes, usable_memory_bytes};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A memory budget shared by everything a run allocates.
#[derive(Clone, Debug)]
pub struct Budget {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    limit: u64,
    used: AtomicU64,
    peak: AtomicU64,
}

/// A charge against the budget, released on drop.
#[derive(Debug)]
pub struct Charge {
    budget: Budget,
    bytes: u64,
    what: &'static str,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Budget {
        cap_malloc_arenas();
        Budget {
            inner: Arc::new(Inner {
                limit,
                used: AtomicU64::new(0),
                peak: AtomicU64::new(0),
            }),
        }
    }

    /// A budget of `limit` bytes a person asked for: refused, by
    /// [`check_limit`], when it is more than the machine's memory.
    pub fn checked(limit: u64) -> Result<Budget> {
        check_limit(limit)?;
        Ok(Budget::new(limit))
    }

    /// The default budget: half of the memory this process may use
    /// ([`usable_memory_bytes`]; at least 256 MiB, at most all of it).
    pub fn default_limit() -> u64 {
        let ram = usable_memory_bytes();
        (ram / 2).max(256 << 20).min(ram)
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.inner.limit
    }

    /// Bytes charged now.
    pub fn used(&self) -> u64 {
        self.inner.used.load(Ordering::Relaxed)
    }

    /// Bytes still free.
    pub fn available(&self) -> u64 {
        self.limit().saturating_sub(self.used())
    }

    /// The largest amount ever charged at once.
    pub fn peak(&self) -> u64 {
        self.inner.peak.load(Ordering::Relaxed)
    }

    /// Charges `bytes` for `what`, or fails naming what did not fit.
    pub fn charge(&self, bytes: u64, what: &'static str) -> Result<Charge> {
        let mut cur = self.inner.used.load(Ordering::Relaxed);
        loop {
            let next = cur.saturating_add(bytes);
            if next > self.inner.limit {
                return Err(Error::Budget(format!(
                    "{what} needs {} but only {} of the {} budget is free; raise --memory to at least {}",
                    crate::size::format_size(bytes),
                    crate::size::format_size(self.inner.limit - cur),
                    crate::size::format_size(self.inner.limit),
                    crate::size::format_size(next + (64 << 20)),
                )));
            }
            match self.inner.used.compare_exchange_weak(
                cur,
                next,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.inner.peak.fetch_max(next, Ordering::Relaxed);
                    return Ok(Charge {
                        budget: self.clone(),
                        bytes,
                        what,
                    });
                }
                Err(actual) => cur = actual,
            }
        }
    }
}

impl Budget {
    /// Refuses, before anything is allocated, a run whose free budget cannot
    /// hold `parts` (named sizes); the message gives the total and each part.
    pub fn require(&self, what: &str, parts: &[(&str, u64)]) -> Result<()> {
        let need: u64 = parts.iter().map(|p| p.1).sum();
        if self.available() >= need {
            return Ok(());
        }
        let list: Vec<String> = parts
            .iter()
            .map(|(name, b)| format!("{} of {name}", crate::size::format_size(*b)))
            .collect();
        Err(Error::Budget(format!(
            "{what} needs at least {} ({}), but only {} of the {} budget is free; raise --memory",
            crate::size::format_size(need),
            list.join(", "),
            crate::size::format_size(self.available()),
            crate::size::format_size(self.limit()),
        )))
    }
}

impl Charge {
    /// Bytes held by this charge.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Joins another charge of the same budget into this one.
    pub fn absorb(mut self, mut other: Charge) -> Charge {
        self.bytes += std::mem::take(&mut other.bytes);
        self
    }

    /// What the charge is for.
    pub fn what(&self) -> &'static str {
        self.what
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.budget
            .inner
            .used
            .fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// Makes room in `v`, a buffer of at most `cap` elements that is full at
/// its capacity: doubles it (at least 4096 elements), up to `cap`. Buffers
/// whose size comes from the budget grow so, from empty, rather than being
/// reserved whole: a large budget over a small input reserves what the
/// input needs (the budget's charge covers `cap` all the same).
#[cold]
pub fn grow_toward<T>(v: &mut Vec<T>, cap: usize) {
    let want = (2 * v.capacity()).max(4096).min(cap);
    v.reserve_exact(want.saturating_sub(v.len()));
}

/// Refuses a budget above the machine's physical memory, naming the RAM
/// and the largest budget accepted. The budget is what a run may hold
/// resident: past RAM it could only swap or be killed, and what the engines
/// reserve beside their charges would not be there (an allocation larger
/// than RAM fails outright where the kernel does not overcommit). Every
/// budget a person gives (the CLI's `--memory`, the Python `memory=`) is
/// checked here: where it is parsed, where a build validates its options,
/// and where a run starts.
pub fn check_limit(limit: u64) -> Result<()> {
    let (usable, cgroup) = usable_memory();
    if limit <= usable {
        return Ok(());
    }
    let what = match cgroup {
        false => "this machine's",
        true => "the cgroup memory limit of this process,",
    };
    Err(Error::Invalid(format!(
        "a memory budget of {} is more than {what} {} of RAM; give at most {} \
         (the default is half of that, {})",
        crate::size::format_size(limit),
        crate::size::format_size(usable),
        crate::size::largest_size_arg(usable),
        crate::size::format_size(Budget::default_limit()),
    )))
}

/// Most malloc arenas (glibc): see [`cap_malloc_arenas`].
pub const MALLOC_ARENAS: i32 = 2;

/// Caps glibc's malloc arenas at [`MALLOC_ARENAS`] (once per process; every
/// [`Budget::new`] calls it). Left alone, each new thread that allocates
/// gets an arena of its own (up to eight per core), and what is freed into
/// one stays resident for that arena's threads alone: the budget's charges
/// come back but the RSS does not. The bucket loaders start threads per
/// stream and per bucket, and a kron-22 import at `--memory 128MiB` peaked
/// at 138-183 MiB with them, 127-137 MiB with two arenas, no slower.
pub fn cap_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt only sets an allocator parameter.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_ARENA_MAX, MALLOC_ARENAS);
        });
    }
}

/// Peak resident set size of this process (VmHWM), in bytes; 0 if unknown.
pub fn peak_rss_bytes() -> u64 {
    proc_status_kib("VmHWM:") * 1024
}

/// Current resident set size of this process (VmRSS), in bytes; 0 if unknown.
pub fn current_rss_bytes() -> u64 {
    proc_status_kib("VmRSS:") * 1024
}

fn proc_status_kib(key: &str) -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| {
            l[key.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Asks the kernel to back `[ptr, ptr + len)` with transparent huge pages
/// (fewer page faults while filling, fewer TLB misses on random access to
/// vertex state). Advisory: errors are ignored.
pub fn advise_huge(ptr: *mut u8, len: usize) {
    const PAGE: usize = 4096;
    let start = (ptr as usize).next_multiple_of(PAGE);
    let end = (ptr as usize + len) / PAGE * PAGE;
    if end > start + (2 << 20) {
        // SAFETY: the range lies inside an allocation the caller owns; madvise
        // with MADV_HUGEPAGE does not change its contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// A vector of `n` values from `f`, on huge pages when the kernel allows.
pub fn huge_vec<T>(n: usize, f: impl Fn(usize) -> T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise_huge(v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>());
    v.extend((0..n).map(f));
    v
}

/// [`huge_vec`] filled by every thread: the first touch of each page (its
/// fault and zeroing) is spread over the cores too, which for the vertex
/// state of a kron-24 run is tens of milliseconds.
pub fn huge_vec_par<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    use rayon::prelude::*;
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise_huge(v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>());
    v.par_extend((0..n).into_par_iter().map(f));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_are_bounded_and_released() {
        let b = Budget::new(1000);
        let c1 = b.charge(600, "a").unwrap();
        let err = b.charge(600, "b").unwrap_err().to_string();
        assert!(err.contains("b needs"), "{err}");
        drop(c1);
        let _c2 = b.charge(600, "b").unwrap();
        assert_eq!(b.used(), 600);
        assert_eq!(b.peak(), 600);
        assert!(peak_rss_bytes() > 0);
    }

    /// A budget above RAM is refused naming the RAM and the largest budget
    /// accepted, which is accepted; the default fits.
    #[test]
    fn budgets_above_ram_are_refused() {
        let ram = usable_memory_bytes();
        let err = Budget::checked(ram + 1).unwrap_err().to_string();
        let largest = crate::size::largest_size_arg(ram);
        assert!(
            err.contains(&crate::size::format_size(ram)) && err.contains(&largest),
            "{err}"
        );
        let ok = crate::size::parse_size(&largest).unwrap();
        assert_eq!(Budget::checked(ok).unwrap().limit(), ok);
        assert!(check_limit(ram).is_ok() && check_limit(u64::MAX).is_err());
        assert!(Budget::default_limit() <= ram);
    }

    /// glibc's arenas, counted from `malloc_info`'s report.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn arenas() -> usize {
        extern "C" {
            fn malloc_info(options: libc::c_int, stream: *mut libc::FILE) -> libc::c_int;
        }
        let mut ptr: *mut libc::c_char = std::ptr::null_mut();
        let mut len: libc::size_t = 0;
        // SAFETY: the stream writes into a buffer it allocates; it is read
        // after fclose and freed once.
        let report = unsafe {
            let f = libc::open_memstream(&mut ptr, &mut len);
            assert!(!f.is_null());
            malloc_info(0, f);
            libc::fclose(f);
            let s = std::slice::from_raw_parts(ptr as *const u8, len).to_vec();
            libc::free(ptr as *mut libc::c_void);
            String::from_utf8_lossy(&s).into_owned()
        };
        report.matches("<heap nr=").count()
    }

    /// Threads that allocate get no arenas of their own beyond the cap, so
    /// what one frees is there for the others (red without the mallopt).
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn threads_share_the_capped_malloc_arenas() {
        let _b = Budget::new(1 << 20);
        let before = arenas();
        let barrier = std::sync::Barrier::new(8);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    let v = vec![1u8; 100_000];
                    barrier.wait();
                    std::hint::black_box(v);
                });
            }
        });
        let after = arenas();
        assert!(
            after <= before.max(MALLOC_ARENAS as usize),
            "{before} arenas before, {after} after eight allocating threads"
        );
    }
}
