//! The budget (DESIGN.md principle 1: "the budget is a contract").
//!
//! A [`Budget`] is a byte count that large allocations are charged against;
//! a charge that does not fit fails with a message saying how much was needed.
//! The actual contract is checked by measuring peak RSS ([`peak_rss_bytes`]).

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
        Budget {
            inner: Arc::new(Inner {
                limit,
                used: AtomicU64::new(0),
                peak: AtomicU64::new(0),
            }),
        }
    }

    /// The default budget: half of physical memory (at least 256 MiB).
    pub fn default_limit() -> u64 {
        (physical_memory_bytes() / 2).max(256 << 20)
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

/// Physical memory of the machine in bytes (from `sysconf`).
pub fn physical_memory_bytes() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
    // SAFETY: as above.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if pages <= 0 || page <= 0 {
        return 4 << 30;
    }
    pages as u64 * page as u64
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
}
