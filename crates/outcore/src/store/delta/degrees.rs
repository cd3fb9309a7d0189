//! The degrees of the view (issue 53, the L seam's degrees): a base
//! vertex's stored degree unless the delta touches it, then `.deg`; a new
//! vertex's `.deg` or 0. An LSM-style merge on read of PartitionedVC's
//! buffered structural updates, applied as the base's degrees stream by.

use super::lists::DeltaLists;
use crate::error::Result;
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
    /// Direction `which` of `store`'s delta; `None` without one.
    pub fn load(store: &Store, which: &str) -> Result<Option<ViewDegrees>> {
        let Some(lists) = DeltaLists::load(store, which)? else {
            return Ok(None);
        };
        Ok(Some(ViewDegrees {
            n_base: store.base().num_vertices,
            n: store.manifest().num_vertices,
            touched: match super::skip("degrees") {
                true => Vec::new(),
                false => lists.cursor().map(|r| (r.v, r.degree)).collect(),
            },
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
    pub fn next(&mut self, v: u64, base: u64) -> u64 {
        while self.touched.get(self.at).is_some_and(|t| t.0 < v) {
            self.at += 1;
        }
        match self.touched.get(self.at) {
            Some(&(u, d)) if u == v => d,
            _ => base,
        }
    }
}
