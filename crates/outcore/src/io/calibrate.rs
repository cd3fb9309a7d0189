//! Calibration of random reads against queue depth (RASP §5–6).
//!
//! An SSD serves several random reads at once; by Little's law the reads in
//! flight N, the throughput λ and the mean latency R satisfy N = λ·R. While
//! the device has idle parallelism, raising N raises λ at a roughly constant
//! R; past saturation R grows with N and λ stays flat. [`calibrate`] measures
//! λ and R for a list of depths by reading random aligned pages of a file with
//! `O_DIRECT`, and picks the smallest depth that reaches 95% of the best
//! throughput: the depth an engine should keep in flight.
//!
//! The result can be kept beside a store as `calibration.json` ([`save`],
//! [`load`]); the file is not part of the manifest and a store may lack it.

use super::{AlignedBuf, Backend, Completion, ReadReq, Reader, ALIGN, MAX_DEPTH};
use crate::error::{Error, IoContext, Result};
use crate::mem::Budget;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// The depth to use without a calibration: enough to saturate a typical NVMe
/// SSD with 4 KiB reads, harmless on slower devices.
pub const DEFAULT_DEPTH: usize = 64;

/// Name of the calibration file in a store directory.
pub const FILE_NAME: &str = "calibration.json";

/// Random-read throughput of one file against queue depth.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Calibration {
    /// Bytes per read.
    pub page_bytes: u64,
    /// (depth, IOPS, MB/s (10^6 bytes), mean latency in µs), in the order measured.
    pub points: Vec<(usize, f64, f64, f64)>,
    /// The smallest depth reaching >= 95% of the largest IOPS measured.
    pub best_depth: usize,
    /// The IOPS measured at `best_depth`.
    pub best_iops: f64,
    /// The I/O backend measured (`uring` or `sync`), with ` buffered` appended
    /// when the filesystem refused `O_DIRECT` (then the page cache was measured).
    pub backend: String,
}

impl Calibration {
    /// The points as a text table (depth, IOPS, MB/s, latency, and the reads
    /// in flight by Little's law, IOPS x latency).
    pub fn table(&self) -> String {
        let mut s = format!(
            "backend {}, {} B pages, best depth {} ({:.0} IOPS)\n{:>6} {:>11} {:>9} {:>11} {:>9}\n",
            self.backend,
            self.page_bytes,
            self.best_depth,
            self.best_iops,
            "depth",
            "IOPS",
            "MB/s",
            "lat µs",
            "λ·R"
        );
        for &(d, iops, mbs, lat) in &self.points {
            s += &format!(
                "{d:>6} {iops:>11.0} {mbs:>9.1} {lat:>11.1} {:>9.2}\n",
                iops * lat / 1e6
            );
        }
        s
    }
}

/// splitmix64: a small deterministic generator for page picks.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift.
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

/// Reads random aligned `page_bytes` pages of `path` with `O_DIRECT` (falling
/// back to buffered reads where refused, noted in `backend`) for each depth in
/// `depths` for about `seconds_per_depth` each, keeping exactly `depth` reads
/// in flight; best_depth = the smallest depth reaching >= 95% of the max IOPS
/// (Little's law: in-flight = throughput x latency).
///
/// `page_bytes` must be a positive multiple of 4096 and the file at least one
/// page long (pages are picked with replacement, so small files work). The
/// read buffers (`max depth x page_bytes`) are charged to `budget`.
pub fn calibrate(
    path: &Path,
    page_bytes: u64,
    depths: &[usize],
    seconds_per_depth: f64,
    backend: Option<Backend>,
    budget: &Budget,
) -> Result<Calibration> {
    if page_bytes == 0 || !page_bytes.is_multiple_of(ALIGN as u64) || page_bytes > 1 << 30 {
        return Err(Error::Invalid(format!(
            "calibration: the page size must be a positive multiple of {ALIGN} bytes (at most 1 GiB), not {page_bytes}"
        )));
    }
    if depths.is_empty() {
        return Err(Error::Invalid(
            "calibration: no queue depths to measure".into(),
        ));
    }
    if let Some(&d) = depths.iter().find(|&&d| d == 0 || d > MAX_DEPTH) {
        return Err(Error::Invalid(format!(
            "calibration: queue depths must be between 1 and {MAX_DEPTH}, not {d}"
        )));
    }
    if !seconds_per_depth.is_finite() || seconds_per_depth < 0.0 {
        return Err(Error::Invalid(format!(
            "calibration: seconds per depth must be a non-negative number, not {seconds_per_depth}"
        )));
    }
    let pb = page_bytes as usize;
    let max_depth = *depths.iter().max().expect("not empty");
    let mut buf = AlignedBuf::new(max_depth * pb, budget, "calibration read buffers")?;
    let base = buf.as_mut_ptr();
    let span = Duration::from_secs_f64(seconds_per_depth);

    let mut points = Vec::with_capacity(depths.len());
    let mut backend_name = String::new();
    for (round, &depth) in depths.iter().enumerate() {
        let mut reader = Reader::new(backend, depth)?;
        let fi = reader.open(path, "calibration sample")?;
        let pages = reader.file_len(fi) / page_bytes;
        if pages == 0 {
            return Err(Error::Invalid(format!(
                "{}: calibration needs a file of at least one {page_bytes}-byte page; it has {} bytes",
                path.display(),
                reader.file_len(fi)
            )));
        }
        backend_name = reader.backend().to_string();
        if !reader.direct(fi) {
            backend_name += " buffered";
        }
        let mut rng = SplitMix64(0x0C0F_FEE0 ^ ((round as u64) << 32) ^ depth as u64);
        let req = |slot: usize, rng: &mut SplitMix64| ReadReq {
            file: fi,
            offset: rng.below(pages) * page_bytes,
            len: pb,
            // SAFETY (of the add): slot < depth <= max_depth, inside `buf`.
            buf: unsafe { base.add(slot * pb) },
            tag: slot as u64,
        };
        let mut started = vec![Instant::now(); depth];
        let mut reqs: Vec<ReadReq> = (0..depth).map(|s| req(s, &mut rng)).collect();
        let mut done: Vec<Completion> = Vec::with_capacity(depth);
        let mut count = 0u64;
        let mut latency = 0.0f64;
        let t0 = Instant::now();
        let deadline = t0 + span;
        for s in started.iter_mut() {
            *s = t0;
        }
        // SAFETY: slot i's buffer is only resubmitted after slot i completed;
        // `buf` outlives the reader, which is dropped (waiting for reads in
        // flight) at the end of this iteration or on an early return.
        unsafe { reader.submit(&reqs)? };
        let mut result = Ok(());
        while reader.pending() > 0 {
            done.clear();
            if let Err(e) = reader.wait(1, &mut done) {
                result = Err(e);
                break;
            }
            let now = Instant::now();
            reqs.clear();
            for c in done.drain(..) {
                let slot = c.tag as usize;
                match c.result {
                    Ok(n) if n == pb => {}
                    Ok(n) => {
                        result = Err(Error::io(
                            path,
                            std::io::Error::new(
                                std::io::ErrorKind::UnexpectedEof,
                                format!("short read during calibration: {n} of {pb} bytes"),
                            ),
                        ));
                    }
                    Err(e) => result = Err(Error::io(path, e)),
                }
                count += 1;
                latency += (now - started[slot]).as_secs_f64();
                if now < deadline && result.is_ok() {
                    started[slot] = now;
                    reqs.push(req(slot, &mut rng));
                }
            }
            if !reqs.is_empty() {
                // SAFETY: as above; these slots have completed.
                if let Err(e) = unsafe { reader.submit(&reqs) } {
                    result = Err(e);
                }
            }
            if result.is_err() {
                break;
            }
        }
        let elapsed = t0.elapsed().as_secs_f64();
        drop(reader); // waits for any read still in flight
        result?;
        let iops = if elapsed > 0.0 {
            count as f64 / elapsed
        } else {
            0.0
        };
        let mean_us = if count > 0 {
            latency / count as f64 * 1e6
        } else {
            0.0
        };
        points.push((depth, iops, iops * page_bytes as f64 / 1e6, mean_us));
    }
    let max_iops = points.iter().map(|p| p.1).fold(0.0f64, f64::max);
    let &(best_depth, best_iops, _, _) = points
        .iter()
        .filter(|p| p.1 >= 0.95 * max_iops)
        .min_by_key(|p| p.0)
        .expect("the maximum qualifies");
    Ok(Calibration {
        page_bytes,
        points,
        best_depth,
        best_iops,
        backend: backend_name,
    })
}

/// Writes `STORE/calibration.json` atomically (a temporary file, fsynced,
/// renamed over the old one). The file is not in the manifest's checksums.
pub fn save(store_dir: &Path, c: &Calibration) -> Result<()> {
    let dest = store_dir.join(FILE_NAME);
    let tmp = store_dir.join(format!(".{FILE_NAME}.tmp-{}", std::process::id()));
    let text = serde_json::to_vec_pretty(c)
        .map_err(|e| Error::Invalid(format!("calibration: cannot encode: {e}")))?;
    let write = || -> Result<()> {
        let mut f = std::fs::File::create(&tmp).at(&tmp)?;
        f.write_all(&text).at(&tmp)?;
        f.write_all(b"\n").at(&tmp)?;
        f.sync_all().at(&tmp)?;
        std::fs::rename(&tmp, &dest).at(&dest)?;
        Ok(())
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // Make the rename durable; not every filesystem lets a directory be synced.
    if let Ok(d) = std::fs::File::open(store_dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Reads `STORE/calibration.json`; None if it is missing or unreadable.
pub fn load(store_dir: &Path) -> Option<Calibration> {
    let bytes = std::fs::read(store_dir.join(FILE_NAME)).ok()?;
    let c: Calibration = serde_json::from_slice(&bytes).ok()?;
    (c.best_depth > 0 && c.page_bytes > 0).then_some(c)
}

#[cfg(test)]
mod tests;
