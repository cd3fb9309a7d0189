//! One step of the walks: a chunk of walkers (sorted by vertex) counted as
//! visits and moved along the out-edge each one draws.
//!
//! On a store with a delta (issue 53) edge `j` is the `j`-th of the view's
//! sorted list. The select engine hands a list the delta touches as its
//! base pieces less the removed entries, then its additions, positions
//! not the view's ([`SelectEngine::for_each_piece`]): those lists are
//! gathered whole and sorted (the merged list of an LSM-style merge on
//! read) before their walkers move. `OUTCORE_DELTA_SKIP=walks` takes the
//! pieces' positions as they come (the red check).

use super::{next_move, Gen, Move, WalkConfig};
use crate::engine::select::SelectEngine;
use crate::error::Result;
use crate::mem::Budget;
use crate::store::csr::Slot;
use crate::store::delta::DeltaLists;

/// One step's walkers, moved a chunk at a time.
pub(super) struct Step<'a, T: Slot> {
    pub cfg: &'a WalkConfig,
    pub n: u64,
    pub t: u32,
    pub w0: u64,
    pub steps: u64,
    pub last: bool,
    pub degrees: crate::store::degrees::DegreeStream,
    /// Next vertex of `degrees`, and the degree of the one before.
    pub at: u64,
    pub deg: u64,
    pub chunk: Vec<(T, u64)>,
    /// (vertex, edge index, walk) of the walkers taking an edge.
    pub moves: Vec<(T, u64, u64)>,
    /// The distinct vertices of `moves`, for the select engine.
    pub vs: Vec<T>,
    pub walkers: u64,
    pub moved: u64,
    pub stopped: u64,
    /// The delta's out-lists (their touched vertices' lists are gathered),
    /// the budget the gathered lists are charged to, and the gathered
    /// (vertex, neighbour) pairs.
    pub delta: Option<&'a DeltaLists>,
    pub budget: &'a Budget,
    pub gather: Vec<(T, T)>,
}

impl<T: Slot> Step<'_, T> {
    /// The out-degree of `v` (vertices come in ascending order).
    fn degree(&mut self, v: T) -> Result<u64> {
        while self.at <= v.get() {
            self.deg = self.degrees.next_degree()?;
            self.at += 1;
        }
        Ok(self.deg)
    }

    pub fn process(
        &mut self,
        select: &mut SelectEngine,
        next: &mut Gen<T>,
        visits: &mut Gen<T>,
        path: &mut [T],
    ) -> Result<()> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.chunk);
        self.walkers += chunk.len() as u64;
        for &(v, w) in &chunk {
            visits.push(v, 1)?;
            if !path.is_empty() {
                path[((w - self.w0) * self.steps + self.t as u64) as usize] = v;
            }
        }
        if !self.last {
            self.moves.clear();
            // Exactly the chunk's length: a doubling past it would hold
            // twice the charge while it copies.
            self.moves.reserve_exact(chunk.len());
            let delta = self.delta.filter(|_| !crate::store::delta::skip("walks"));
            let touched = |v: T| delta.is_some_and(|d| d.touches(v.get()));
            // Entries of the touched lists of the chunk (walkers come by
            // vertex), held while they are gathered.
            let (mut entries, mut last) = (0, None);
            for &(v, w) in &chunk {
                let deg = self.degree(v)?;
                if last != Some(v) && touched(v) {
                    entries += deg;
                }
                last = Some(v);
                match next_move(self.cfg, self.n, w, self.t, deg) {
                    Move::Stop => self.stopped += 1,
                    Move::Jump(x) => next.push(T::of(x), w)?,
                    Move::Edge(j) => self.moves.push((v, j, w)),
                }
            }
            self.moves.sort_unstable();
            self.vs.clear();
            self.vs.reserve_exact(self.moves.len());
            self.vs.extend(self.moves.iter().map(|m| m.0));
            self.vs.dedup();
            let _held = match entries {
                0 => None,
                e => Some(self.budget.charge(
                    e * 2 * T::WIDTH.bytes(),
                    "random walk lists the delta touches",
                )?),
            };
            let (moves, mut found) = (&self.moves, 0usize);
            let gather = &mut self.gather;
            gather.clear();
            select.for_each_piece(&self.vs, |v, first, nbrs| {
                if touched(v) {
                    gather.extend(nbrs.iter().map(|&u| (v, u)));
                    return Ok(());
                }
                let lo = moves.partition_point(|m| (m.0, m.1) < (v, first));
                let hi = moves.partition_point(|m| (m.0, m.1) < (v, first + nbrs.len() as u64));
                for m in &moves[lo..hi] {
                    next.push(nbrs[(m.1 - first) as usize], m.2)?;
                }
                found += hi - lo;
                Ok(())
            })?;
            // Kept base entries and additions, sorted: the view's lists.
            gather.sort_unstable();
            for list in gather.chunk_by(|a, b| a.0 == b.0) {
                let v = list[0].0;
                let lo = moves.partition_point(|m| m.0 < v);
                let hi = moves.partition_point(|m| m.0 <= v);
                for m in moves[lo..hi].iter().filter(|m| m.1 < list.len() as u64) {
                    next.push(list[m.1 as usize].1, m.2)?;
                    found += 1;
                }
            }
            if found != self.moves.len() {
                let why = "a vertex's list is shorter than its degree in degrees/out";
                return Err(select.damaged(why));
            }
            self.moved += found as u64;
        }
        self.chunk = chunk;
        self.chunk.clear();
        Ok(())
    }
}
