//! Reading the lists of an interval's active vertices for the external
//! engine: the reads cover the CSR pages of the vertices that send, merged
//! into one sequential read where the gaps are small (a dense frontier reads
//! the interval's adjacency in order, a sparse one only its pages), at most
//! one chunk each, double-buffered (the next read is in flight while one is
//! processed).

use super::disk::{read_exact, wait_for};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, ReadReq, Reader, ALIGN};
use crate::mem::budget::Charge;
use crate::store::csr::SlotWidth;
use crate::store::csrcode::{read_bytes, PageDir};
use crate::store::delta::{skip, DeltaLists};
use crate::store::pagesums::{check, PageSums};
use std::sync::Arc;

/// Unread pages between two lists that one read still covers.
const GAP_PAGES: u64 = 16;

/// One read: adjacency pages `p0..p1`, serving vertices `v0..v1` (local).
#[derive(Clone, Copy, Debug)]
struct Plan {
    p0: u64,
    p1: u64,
    v0: usize,
    v1: usize,
}

/// Files of one list direction.
#[derive(Clone)]
pub struct ListFiles {
    /// The adjacency as the manifest lists it, for errors.
    pub rel: String,
    pub adj: usize,
    pub off: usize,
    pub weights: Option<usize>,
    /// Page checksums of the adjacency, offsets and weights (every page
    /// read is checked before use).
    pub sums: [Option<Arc<PageSums>>; 3],
    /// A coded adjacency (`adj` is then its `.adz`): its page directory.
    pub coded: Option<Arc<PageDir>>,
    /// Bytes a plain adjacency slot takes.
    pub width: SlotWidth,
    /// The base's vertices (the adjacency has lists of these only).
    pub n_base: u64,
    /// The delta's lists of this direction, merged on read (the L seam;
    /// held while the run lasts, charged to its budget).
    pub delta: Option<Arc<(DeltaLists, Charge)>>,
}

/// Buffers reused across intervals.
pub struct ScatterBufs {
    pub off: AlignedBuf,
    /// The offsets window `off` holds: (file, first vertex, vertices); a
    /// superstep over the same interval and list reads none again.
    pub off_held: Option<(usize, u64, usize)>,
    pub adj: [AlignedBuf; 2],
    pub wts: Option<[AlignedBuf; 2]>,
    /// A coded adjacency's reads, decoded into `adj` ([`coded_bytes`]).
    pub coded: Option<[AlignedBuf; 2]>,
}

/// Bytes of a coded read buffer beside an adjacency buffer of `chunk`
/// bytes: the longest coded form of that many plain pages, from anywhere
/// in a block.
pub fn coded_bytes(chunk: usize) -> usize {
    read_bytes(chunk / ALIGN, ALIGN)
}

/// Calls `f(reader, local v, neighbour, weight)` for every neighbour in
/// the graph the store holds (base + delta) of the local vertices
/// `0..len` of the interval starting at `lo` for which `sends(local v)`
/// holds: the base's lists clamped to its vertices, tombstoned entries
/// dropped, then each touched sender's additions (an LSM-style merge on
/// read of PartitionedVC's buffered updates; see [`for_each_base_edge`]).
/// Returns the adjacency and weight bytes read.
#[allow(clippy::too_many_arguments)]
pub fn for_each_edge(
    reader: &mut Reader,
    files: &ListFiles,
    bufs: &mut ScatterBufs,
    lo: u64,
    len: usize,
    sends: &dyn Fn(usize) -> bool,
    next: &dyn Fn(usize) -> usize,
    active: u64,
    mut f: impl FnMut(&mut Reader, usize, u64, f64) -> Result<()>,
) -> Result<u64> {
    let Some(held) = &files.delta else {
        return for_each_base_edge(reader, files, bufs, lo, len, sends, next, active, f);
    };
    let delta = &held.0;
    let base_len = files.n_base.saturating_sub(lo).min(len as u64) as usize;
    let base_next = |x: usize| next(x).min(base_len);
    if base_len == 0 {
        return additions(reader, delta, lo, len, sends, next, f).map(|_| 0);
    }
    let read = for_each_base_edge(
        reader,
        files,
        bufs,
        lo,
        base_len,
        sends,
        &base_next,
        active,
        |reader, x, d, w| match delta.removes(lo + x as u64, d) && !skip("tombstones") {
            true => Ok(()),
            false => f(reader, x, d, w),
        },
    )?;
    additions(reader, delta, lo, len, sends, next, f)?;
    Ok(read)
}

/// The delta's additions to the lists of the senders among local
/// vertices `0..len` of the interval at `lo`.
fn additions(
    reader: &mut Reader,
    delta: &DeltaLists,
    lo: u64,
    len: usize,
    sends: &dyn Fn(usize) -> bool,
    next: &dyn Fn(usize) -> usize,
    mut f: impl FnMut(&mut Reader, usize, u64, f64) -> Result<()>,
) -> Result<()> {
    let mut x = next(0);
    while x < len {
        if let Some(r) = delta.lookup(lo + x as u64).filter(|_| sends(x)) {
            for (u, w) in r.additions() {
                f(reader, x, u, w)?;
            }
        }
        x = next(x + 1);
    }
    Ok(())
}

/// [`for_each_edge`] over the base's lists alone: calls `f(reader, local
/// v, neighbour, weight)` for every stored neighbour
/// of the local vertices `0..len` of the interval starting at `lo` for which
/// `sends(local v)` holds; `next(v)` is the first local vertex at or after
/// `v` that may send (`len` when none); `active` bounds how many do. A
/// sparse frontier reads only the offsets pages of its vertices (sparse
/// state access, [`super::pages`]), a dense one the interval's window.
/// Returns the adjacency and weight bytes read.
#[allow(clippy::too_many_arguments)]
fn for_each_base_edge(
    reader: &mut Reader,
    files: &ListFiles,
    bufs: &mut ScatterBufs,
    lo: u64,
    len: usize,
    sends: &dyn Fn(usize) -> bool,
    next: &dyn Fn(usize) -> usize,
    active: u64,
    mut f: impl FnMut(&mut Reader, usize, u64, f64) -> Result<()>,
) -> Result<u64> {
    let ScatterBufs {
        off: off_buf,
        off_held,
        adj: adj_bufs,
        wts: wts_bufs,
        coded: coded_bufs,
    } = bufs;
    // Offsets lo..=lo+len, through an aligned window.
    let first = lo * 8;
    let start = first - first % ALIGN as u64;
    let bytes = first + (len as u64 + 1) * 8 - start;
    let want = bytes as usize;
    let room = (want).next_multiple_of(ALIGN);
    if room > off_buf.len() {
        return Err(Error::Invalid(format!(
            "external engine: offsets window of {room} bytes exceeds its buffer"
        )));
    }
    let skip = (first - start) as usize;
    if *off_held != Some((files.off, lo, len)) && super::pages::sparse(2 * active, room, 8) {
        // Offsets v and v + 1 of each active v.
        *off_held = None;
        let mut pages = Vec::new();
        let mut v = next(0);
        while v < len {
            super::pages::push_bytes(&mut pages, skip + v * 8, skip + v * 8 + 16);
            v = next(v + 1);
        }
        let buf = &mut off_buf.as_mut_slice()[..room];
        super::pages::io(reader, files.off, start, buf, &pages, false)?;
        for &p in &pages {
            let at = p as usize * ALIGN;
            check(&files.sums[1], start + at as u64, &buf[at..at + ALIGN])?;
        }
    } else if *off_held != Some((files.off, lo, len)) {
        *off_held = None;
        read_exact(
            reader,
            files.off,
            start,
            &mut off_buf.as_mut_slice()[..room],
            want,
        )?;
        check(&files.sums[1], start, &off_buf.as_slice()[..room])?;
        *off_held = Some((files.off, lo, len));
    }
    let offs = &off_buf.as_slice()[skip..skip + (len + 1) * 8];
    let off = |x: usize| u64::from_le_bytes(offs[x * 8..x * 8 + 8].try_into().expect("8 bytes"));
    // Slots of a 4 KiB adjacency page, and weight pages per adjacency page.
    let width = files.width;
    let per_page = width.per_page(ALIGN as u64);
    let wpp = (8 / width.bytes()) as usize;
    let chunk_pages = (adj_bufs[0].len() / ALIGN) as u64;
    let mut cursor = (0usize, 0u64);
    let plan_next = |cursor: &mut (usize, u64)| -> Option<Plan> {
        let (mut v, mut from) = *cursor;
        while v < len && (!sends(v) || off(v + 1) <= off(v).max(from)) {
            v = next(v + 1);
            from = 0;
        }
        if v == len {
            *cursor = (len, 0);
            return None;
        }
        let p0 = off(v).max(from) / per_page;
        let limit = p0 + chunk_pages;
        let (v0, mut p1) = (v, p0);
        while v < len {
            if !sends(v) || off(v + 1) <= off(v).max(from) {
                v = next(v + 1);
                from = 0;
                continue;
            }
            let (s, e) = (off(v).max(from), off(v + 1));
            let (ps, pe) = (s / per_page, e.div_ceil(per_page));
            if p1 > p0 && ps > p1 + GAP_PAGES {
                break;
            }
            if pe <= limit {
                p1 = p1.max(pe);
                v += 1;
                from = 0;
                continue;
            }
            // The list runs past this read: take its pages up to the limit
            // and continue it in the next read.
            if ps < limit {
                *cursor = (v, limit * per_page);
                return Some(Plan {
                    p0,
                    p1: limit,
                    v0,
                    v1: v + 1,
                });
            }
            break;
        }
        *cursor = (v, 0);
        Some(Plan { p0, p1, v0, v1: v })
    };
    let submit = |reader: &mut Reader,
                  adj_bufs: &mut [AlignedBuf; 2],
                  wts_bufs: &mut Option<[AlignedBuf; 2]>,
                  coded_bufs: &mut Option<[AlignedBuf; 2]>,
                  p: &Plan,
                  i: usize|
     -> Result<()> {
        let pages = (p.p1 - p.p0) as usize;
        let (offset, len, buf) = match (&files.coded, coded_bufs.as_mut()) {
            (Some(d), Some(cb)) => {
                let (s, e) = d.aligned_span(p.p0, p.p1, ALIGN as u64);
                let len = ((e - s) as usize).next_multiple_of(ALIGN);
                (s, len, cb[i].as_mut_ptr())
            }
            _ => (p.p0 * ALIGN as u64, pages * ALIGN, adj_bufs[i].as_mut_ptr()),
        };
        let mut reqs = vec![ReadReq {
            file: files.adj,
            offset,
            len,
            buf,
            tag: (1 << 41) + 2 * i as u64,
        }];
        if let (Some(w), Some(wb)) = (files.weights, wts_bufs.as_mut()) {
            reqs.push(ReadReq {
                file: w,
                offset: p.p0 * (wpp * ALIGN) as u64,
                len: wpp * pages * ALIGN,
                buf: wb[i].as_mut_ptr(),
                tag: (1 << 41) + 2 * i as u64 + 1,
            });
        }
        // SAFETY: the buffers are not touched until the reads are waited for
        // below (every submitted read is waited for before returning, even
        // on error paths of the caller's callback: see the drain below).
        unsafe { reader.submit(&reqs) }
    };
    let mut read = 0u64;
    let mut cur = plan_next(&mut cursor);
    let mut slot = 0usize;
    if let Some(p) = &cur {
        submit(reader, adj_bufs, wts_bufs, coded_bufs, p, slot)?;
    }
    while let Some(p) = cur {
        let next = plan_next(&mut cursor);
        if let Some(q) = &next {
            submit(reader, adj_bufs, wts_bufs, coded_bufs, q, slot ^ 1)?;
        }
        let result = (|| -> Result<()> {
            let pages = (p.p1 - p.p0) as usize;
            let mut got = wait_for(reader, files.adj, (1 << 41) + 2 * slot as u64)?;
            read += got as u64;
            if let (Some(d), Some(cb)) = (&files.coded, coded_bufs.as_ref()) {
                // Check the coded bytes, then decode the pages in place of
                // the plain read.
                let (s, e) = d.aligned_span(p.p0, p.p1, ALIGN as u64);
                if (got as u64) < e - s {
                    return Err(reader.ended_early(files.adj, s, (e - s) as usize, got));
                }
                let bytes = &cb[slot].as_slice()[..(e - s) as usize];
                check(&files.sums[0], s, bytes)?;
                let out = &mut adj_bufs[slot].as_mut_slice()[..pages * ALIGN];
                d.decode(p.p0, p.p1, bytes, s, out)?;
                got = pages * ALIGN;
            } else if got < pages * ALIGN {
                // Page-packed lists fill whole pages: the plan's pages hold
                // its lists' slots, so a file ending inside them is damaged.
                let at = p.p0 * ALIGN as u64;
                return Err(reader.ended_early(files.adj, at, pages * ALIGN, got));
            }
            let wts: Option<&[u8]> = match (files.weights, wts_bufs.as_ref()) {
                (Some(w), Some(wb)) => {
                    let n = wait_for(reader, w, (1 << 41) + 2 * slot as u64 + 1)?;
                    read += n as u64;
                    // A weight a slot: whole pages, as the adjacency's.
                    if n < wpp * pages * ALIGN {
                        let at = p.p0 * (wpp * ALIGN) as u64;
                        return Err(reader.ended_early(w, at, wpp * pages * ALIGN, n));
                    }
                    let b = wb[slot].as_slice();
                    check(
                        &files.sums[2],
                        p.p0 * (wpp * ALIGN) as u64,
                        &b[..n.min(b.len())],
                    )?;
                    Some(b)
                }
                _ => None,
            };
            let adj = adj_bufs[slot].as_slice();
            if files.coded.is_none() {
                check(
                    &files.sums[0],
                    p.p0 * ALIGN as u64,
                    &adj[..got.min(adj.len())],
                )?;
            }
            let base = p.p0 * per_page;
            let top = base + (got as u64 / width.bytes()).min(pages as u64 * per_page);
            for v in p.v0..p.v1 {
                if !sends(v) {
                    continue;
                }
                let (s, e) = (off(v).max(base), off(v + 1).min(top));
                for x in s..e {
                    // Ids at the store's width (the caller checks them
                    // against the vertex count); padding is skipped.
                    let Some(d) = width.id(adj, (x - base) as usize) else {
                        continue;
                    };
                    let w = match wts {
                        Some(b) => {
                            let j = ((x - base) * 8) as usize;
                            f64::from_le_bytes(b[j..j + 8].try_into().expect("8 bytes"))
                        }
                        None => 1.0,
                    };
                    f(reader, v, d, w)?;
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            // Let the read in flight land before its buffer can go away.
            if next.is_some() {
                let _ = wait_for(reader, files.adj, (1 << 41) + 2 * (slot as u64 ^ 1));
                if let Some(w) = files.weights {
                    let _ = wait_for(reader, w, (1 << 41) + 2 * (slot as u64 ^ 1) + 1);
                }
            }
            return Err(e);
        }
        cur = next;
        slot ^= 1;
    }
    Ok(read)
}
