//! The degrees of the view (issue 53, the L seam's degrees): a base
//! vertex's stored degree unless the delta touches it, then `.deg`; a new
//! vertex's `.deg` or 0. An LSM-style merge on read of PartitionedVC's
//! buffered structural updates, applied as the base's degrees stream by.
//!
//! A run reads its out-degrees several times (the source's choice, the
//! planner's prices, the states' `init`): the touched degrees are loaded
//! once while someone holds them ([`hold`], charged to the run's budget)
//! and shared ([`Arc`]) by every reader of the store and its clones.

use super::format::lists_files;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::Store;
use std::cell::Cell;
use std::sync::{Arc, Mutex, Weak};

/// The touched vertices' degrees of one direction: `.bits` (a bit per
/// vertex of the view) beside `.deg` (a degree per set bit, in order),
/// 8 bytes a touched vertex and n'/8.
#[derive(Debug)]
pub struct Touched {
    bits: Vec<u64>,
    deg: Vec<u64>,
}

impl Touched {
    /// Bytes held.
    pub fn memory_bytes(&self) -> u64 {
        8 * (self.bits.len() + self.deg.len()) as u64
    }

    /// Calls `f(v, degree)` for each touched vertex, by increasing `v`.
    pub fn for_each(&self, mut f: impl FnMut(u64, u64)) {
        let mut i = 0;
        for (k, &w) in self.bits.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                f(k as u64 * 64 + w.trailing_zeros() as u64, self.deg[i]);
                i += 1;
                w &= w - 1;
            }
        }
    }

    #[inline]
    fn touches(&self, v: u64) -> bool {
        self.bits
            .get((v / 64) as usize)
            .is_some_and(|w| w >> (v % 64) & 1 == 1)
    }
}

/// The touched degrees a store's readers share, by direction: kept only
/// while held (weak), so a reader that finds none loads its own.
#[derive(Debug, Default)]
pub struct Shared(Mutex<Vec<(String, Weak<Touched>)>>);

thread_local! {
    /// Loads of touched degrees so far on this thread (tests count them).
    static LOADS: Cell<u64> = const { Cell::new(0) };
}

/// How many times the touched degrees were read from disk on this thread
/// (each [`ViewDegrees::load`] that found none held).
pub fn loads() -> u64 {
    LOADS.with(Cell::get)
}

/// The touched degrees of direction `which`, shared when held.
fn touched(store: &Store, which: &str) -> Result<Arc<Touched>> {
    let shared = store.shared_degrees();
    let mut held = shared.0.lock().unwrap_or_else(|e| e.into_inner());
    held.retain(|(_, w)| w.strong_count() > 0);
    if let Some(t) = held
        .iter()
        .find(|(w, _)| w == which)
        .and_then(|(_, t)| t.upgrade())
    {
        return Ok(t);
    }
    let t = Arc::new(match super::skip("degrees") {
        true => Touched {
            bits: Vec::new(),
            deg: Vec::new(),
        },
        false => read_touched(store, which)?,
    });
    if !super::skip("shared-degrees") {
        held.push((which.to_string(), Arc::downgrade(&t)));
    }
    Ok(t)
}

/// Touched degrees held for a run: while it lives, every reader of
/// direction `which` of the store shares them; charged to the budget.
pub struct Held {
    _touched: Arc<Touched>,
    _charge: Charge,
}

/// Loads direction `which`'s touched degrees of `store`'s delta and holds
/// them (charged to `budget`) until the result drops; `None` without a
/// delta.
pub fn hold(store: &Store, which: &str, budget: &Budget) -> Result<Option<Held>> {
    if store.delta().is_none() {
        return Ok(None);
    }
    let t = touched(store, which)?;
    let charge = budget.charge(t.memory_bytes(), "the view's degrees")?;
    Ok(Some(Held {
        _touched: t,
        _charge: charge,
    }))
}

/// The touched vertices' degrees of one direction, merged into a stream
/// of the base's in vertex order.
pub struct ViewDegrees {
    n_base: u64,
    n: u64,
    touched: Arc<Touched>,
    /// The cursor: word `word` of `.bits`, `before` set bits before it.
    word: usize,
    before: usize,
}

impl ViewDegrees {
    /// Direction `which` of `store`'s delta; `None` without one. Reads
    /// the lists' `.bits` and `.deg` only (n'/8 bytes and 8 a touched
    /// vertex), not their records, unless someone holds them ([`hold`]).
    pub fn load(store: &Store, which: &str) -> Result<Option<ViewDegrees>> {
        if store.delta().is_none() {
            return Ok(None);
        }
        Ok(Some(ViewDegrees {
            n_base: store.base().num_vertices,
            n: store.manifest().num_vertices,
            touched: touched(store, which)?,
            word: 0,
            before: 0,
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

    /// The touched degrees.
    pub fn touched(&self) -> &Touched {
        &self.touched
    }

    /// The degree in the view of vertex `v` (called by increasing `v`),
    /// whose base degree is `base` (0 past the base).
    #[inline]
    pub fn next(&mut self, v: u64, base: u64) -> u64 {
        // Most vertices are untouched: one bit test.
        if !self.touched.touches(v) {
            return base;
        }
        let i = self.rank(v);
        self.touched.deg[i]
    }

    /// The index in `.deg` of touched vertex `v`: the cursor moves
    /// forward to its word (by increasing `v`, a popcount a word).
    #[inline]
    fn rank(&mut self, v: u64) -> usize {
        let k = (v / 64) as usize;
        let bits = &self.touched.bits;
        if k < self.word {
            (self.word, self.before) = (0, 0);
        }
        while self.word < k {
            self.before += bits[self.word].count_ones() as usize;
            self.word += 1;
        }
        let mask = (1u64 << (v % 64)) - 1;
        self.before + (bits[k] & mask).count_ones() as usize
    }

    /// Overwrites `out[i]`, the degree of vertex `first + i`, with the
    /// view's for each touched vertex among them (called by increasing
    /// `first`, as [`ViewDegrees::next`]).
    pub fn overlay(&mut self, first: u64, out: &mut [u64]) {
        let end = first + out.len() as u64;
        let t = self.touched.clone();
        let last = t.bits.len() as u64 * 64;
        let mut v = first;
        while v < end.min(last) {
            let k = (v / 64) as usize;
            let mut w = t.bits[k] >> (v % 64) << (v % 64);
            if (k as u64 + 1) * 64 > end {
                w &= (1u64 << (end % 64)) - 1;
            }
            while w != 0 {
                let u = k as u64 * 64 + w.trailing_zeros() as u64;
                out[(u - first) as usize] = t.deg[self.rank(u)];
                w &= w - 1;
            }
            v = (k as u64 + 1) * 64;
        }
    }
}

/// `.bits` and `.deg` of direction `which`, each file checked against
/// the manifest's checksum, their counts against each other.
fn read_touched(store: &Store, which: &str) -> Result<Touched> {
    LOADS.with(|l| l.set(l.get() + 1));
    let [bits, _, _, deg, _, _] = lists_files(which);
    let words = store.read_delta_u64s(&bits)?;
    let degs = store.read_delta_u64s(&deg)?;
    let set: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
    if set != degs.len() as u64 {
        let why = format!("{set} vertices have records, it has {} degrees", degs.len());
        return Err(Error::damaged(store.path(), &store.delta_name(&deg), why));
    }
    Ok(Touched {
        bits: words,
        deg: degs,
    })
}
