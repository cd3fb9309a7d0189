//! A `rows x cols` 2D lattice: vertex `r * cols + c`, an edge to the right
//! and to the lower neighbour of every vertex (undirected: each lattice edge
//! once, `u -> v` with `u < v`; directed: `u -> v` then `v -> u`).
//!
//! Weights (when asked) are integers uniform in `1..=max_weight`, a pure
//! function of the seed and the edge's key (`4 * u + 2 * reverse + down`), so
//! they do not depend on blocking; the two directions of a directed lattice
//! edge get independent weights.

use super::par::{NumberedBlocks, BLOCK_EDGES};
use crate::base::rng::{hash3, hash_below, stream};
use crate::ingest::RawEdge;

/// Vertices per block (each has at most two lattice edges).
const BLOCK_VERTICES: u64 = BLOCK_EDGES / 2;

pub(crate) struct GridBlocks {
    rows: u64,
    cols: u64,
    directed: bool,
    weighted: bool,
    max_weight: u64,
    weight_base: u64,
}

impl GridBlocks {
    /// `rows * cols < 2^32`, `max_weight >= 1` (checked by `GenConfig::validate`).
    pub fn new(
        rows: u64,
        cols: u64,
        directed: bool,
        seed: u64,
        weighted: bool,
        max_weight: u64,
    ) -> GridBlocks {
        GridBlocks {
            rows,
            cols,
            directed,
            weighted,
            max_weight: max_weight.max(1),
            weight_base: hash3(seed, stream::GRID_WEIGHT, 0),
        }
    }

    #[inline]
    fn weight(&self, key: u64) -> f64 {
        if self.weighted {
            (1 + hash_below(self.weight_base, key, self.max_weight)) as f64
        } else {
            1.0
        }
    }

    #[inline]
    fn emit(&self, out: &mut Vec<RawEdge>, u: u64, v: u64, down: u64) {
        out.push(RawEdge {
            src: u,
            dst: v,
            weight: self.weight(4 * u + down),
        });
        if self.directed {
            out.push(RawEdge {
                src: v,
                dst: u,
                weight: self.weight(4 * u + 2 + down),
            });
        }
    }
}

impl NumberedBlocks for GridBlocks {
    fn num_blocks(&self) -> u64 {
        (self.rows * self.cols).div_ceil(BLOCK_VERTICES)
    }

    fn run_block(&self, block: u64, out: &mut Vec<RawEdge>) {
        let n = self.rows * self.cols;
        let first = block * BLOCK_VERTICES;
        let last = (first + BLOCK_VERTICES).min(n);
        out.reserve(((last - first) * if self.directed { 4 } else { 2 }) as usize);
        let (mut r, mut c) = (first / self.cols, first % self.cols);
        for u in first..last {
            if c + 1 < self.cols {
                self.emit(out, u, u + 1, 0);
            }
            if r + 1 < self.rows {
                self.emit(out, u, u + self.cols, 1);
            }
            c += 1;
            if c == self.cols {
                c = 0;
                r += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn collect(g: &GridBlocks) -> Vec<RawEdge> {
        crate::gen::par::collect_all(g)
    }

    #[test]
    fn edge_counts_and_adjacency() {
        for (rows, cols) in [
            (1u64, 1u64),
            (1, 5),
            (5, 1),
            (3, 4),
            (300, 300),
            (7, 20_000),
        ] {
            for directed in [false, true] {
                let g = GridBlocks::new(rows, cols, directed, 1, false, 100);
                let e = collect(&g);
                let lattice = rows * (cols - 1) + cols * (rows - 1);
                assert_eq!(e.len() as u64, lattice * if directed { 2 } else { 1 });
                let mut set = HashSet::new();
                for x in &e {
                    let (ru, cu) = (x.src / cols, x.src % cols);
                    let (rv, cv) = (x.dst / cols, x.dst % cols);
                    assert!(ru < rows && rv < rows);
                    assert_eq!(ru.abs_diff(rv) + cu.abs_diff(cv), 1);
                    if !directed {
                        assert!(x.src < x.dst);
                    }
                    assert!(set.insert((x.src, x.dst)));
                    assert_eq!(x.weight, 1.0);
                }
            }
        }
    }

    #[test]
    fn weights_in_range_and_deterministic() {
        let g = GridBlocks::new(100, 100, true, 1, true, 7);
        let e = collect(&g);
        let mut seen = [false; 8];
        for x in &e {
            assert!(x.weight >= 1.0 && x.weight <= 7.0 && x.weight.fract() == 0.0);
            seen[x.weight as usize] = true;
        }
        assert!(seen[1..].iter().all(|&s| s));
        let e2 = collect(&GridBlocks::new(100, 100, true, 1, true, 7));
        assert_eq!(e, e2);
        let e3 = collect(&GridBlocks::new(100, 100, true, 2, true, 7));
        assert_ne!(e, e3);
        let one = collect(&GridBlocks::new(10, 10, false, 1, true, 1));
        assert!(one.iter().all(|x| x.weight == 1.0));
    }
}
