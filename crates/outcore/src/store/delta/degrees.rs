//! The degrees of the view (issue 53, the L seam's degrees): a base
//! vertex's stored degree unless the delta touches it, then `.deg`; a new
//! vertex's `.deg` or 0. An LSM-style merge on read of PartitionedVC's
//! buffered structural updates, applied as the base's degrees stream by.

use super::format::lists_files;
use crate::error::{Error, Result};
use crate::store::Store;

/// The touched vertices' degrees of one direction, merged into a stream
/// of the base's in vertex order (16 bytes a touched vertex held).
pub struct ViewDegrees {
    n_base: u64,
    n: u64,
    touched: Vec<(u64, u64)>,
    at: usize,
}

impl ViewDegrees {
    /// Direction `which` of `store`'s delta; `None` without one. Reads
    /// the lists' `.bits` and `.deg` only (n'/8 bytes and 8 a touched
    /// vertex), not their records: every reader of degrees opens this.
    pub fn load(store: &Store, which: &str) -> Result<Option<ViewDegrees>> {
        if store.delta().is_none() {
            return Ok(None);
        }
        let touched = match super::skip("degrees") {
            true => Vec::new(),
            false => touched_degrees(store, which)?,
        };
        Ok(Some(ViewDegrees {
            n_base: store.base().num_vertices,
            n: store.manifest().num_vertices,
            touched,
            at: 0,
        }))
    }

    /// The base's vertex count (vertices past it have no base degree).
    pub fn n_base(&self) -> u64 {
        self.n_base
    }

    /// The view's vertex count.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The degree in the view of vertex `v` (called by increasing `v`),
    /// whose base degree is `base` (0 past the base).
    #[inline]
    pub fn next(&mut self, v: u64, base: u64) -> u64 {
        // Most vertices come before the next touched one: one compare.
        if self.touched.get(self.at).is_none_or(|t| v < t.0) {
            return base;
        }
        while self.touched.get(self.at).is_some_and(|t| t.0 < v) {
            self.at += 1;
        }
        match self.touched.get(self.at) {
            Some(&(u, d)) if u == v => d,
            _ => base,
        }
    }

    /// Overwrites `out[i]`, the degree of vertex `first + i`, with the
    /// view's for each touched vertex among them (called by increasing
    /// `first`, as [`ViewDegrees::next`]).
    pub fn overlay(&mut self, first: u64, out: &mut [u64]) {
        let end = first + out.len() as u64;
        while self.touched.get(self.at).is_some_and(|t| t.0 < first) {
            self.at += 1;
        }
        while let Some(&(v, d)) = self.touched.get(self.at).filter(|t| t.0 < end) {
            out[(v - first) as usize] = d;
            self.at += 1;
        }
    }
}

/// (vertex, degree in the view) of each vertex the delta's lists of
/// direction `which` touch, by vertex: the set bits of `.bits` beside
/// `.deg`, each file checked against the manifest's checksum.
fn touched_degrees(store: &Store, which: &str) -> Result<Vec<(u64, u64)>> {
    let [bits, _, _, deg, _, _] = lists_files(which);
    let words = store.read_delta_u64s(&bits)?;
    let degs = store.read_delta_u64s(&deg)?;
    let set: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
    if set != degs.len() as u64 {
        let why = format!("{set} vertices have records, it has {} degrees", degs.len());
        return Err(Error::damaged(store.path(), &store.delta_name(&deg), why));
    }
    let mut out = Vec::with_capacity(degs.len());
    for (k, &w) in words.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            out.push(k as u64 * 64 + w.trailing_zeros() as u64);
            w &= w - 1;
        }
    }
    Ok(out.into_iter().zip(degs).collect())
}
