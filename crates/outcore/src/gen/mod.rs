//! Graph generators as [`EdgeSource`]s: Graph500 Kronecker, R-MAT, exact
//! Erdős–Rényi G(n, m) and 2D grids; and [`write_edge_file`] to save any
//! source as a plain edge list.
//!
//! Every generator's vertex set is exactly `0..n` (isolated vertices
//! included; [`EdgeSource::dense_vertex_count`]). Output is deterministic: a
//! seed gives the identical edge sequence on any machine and with any number
//! of threads (self-contained RNGs, fixed blocks each with its own random
//! stream, generated in parallel and delivered in block order; see `par`).
//! Undirected edges are emitted once (or as sampled, for Kronecker) and never
//! canonicalized or deduplicated here: the store builder does that.

mod edgefile;
mod er;
mod grid;
mod hyper;
mod jump;
mod kron;
mod par;
#[cfg(test)]
mod tests;

use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

pub use edgefile::{write_edge_file, EdgeFileFormat};

use crate::error::{Error, Result};
use crate::ingest::{EdgeSource, RawEdge};

/// Which generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenKind {
    /// Graph500 Kronecker (A, B, C = 0.57, 0.19, 0.19), undirected by default.
    Kron,
    /// R-MAT with a chosen initiator, directed by default.
    Rmat,
    /// Exact Erdős–Rényi G(n, m), directed by default.
    Er,
    /// A `rows x cols` 2D lattice, undirected by default.
    Grid,
}

impl FromStr for GenKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<GenKind> {
        match s.to_ascii_lowercase().as_str() {
            "kron" => Ok(GenKind::Kron),
            "rmat" => Ok(GenKind::Rmat),
            "er" => Ok(GenKind::Er),
            "grid" => Ok(GenKind::Grid),
            _ => Err(Error::Invalid(format!(
                "unknown generator `{s}` (expected kron, rmat, er or grid)"
            ))),
        }
    }
}

impl std::fmt::Display for GenKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GenKind::Kron => "kron",
            GenKind::Rmat => "rmat",
            GenKind::Er => "er",
            GenKind::Grid => "grid",
        })
    }
}

/// What to generate. Fields not used by `kind` are ignored.
#[derive(Clone, Debug)]
pub struct GenConfig {
    pub kind: GenKind,
    /// kron/rmat: `2^scale` vertices (default 16); at most 47.
    pub scale: u32,
    /// kron/rmat: `edge_factor * 2^scale` edge samples (default 16).
    pub edge_factor: u64,
    /// rmat initiator (default 0.57, 0.19, 0.19; `d = 1 - a - b - c`). kron
    /// always uses the Graph500 values.
    pub a: f64,
    pub b: f64,
    pub c: f64,
    /// er: `n` (default `1 << 16`).
    pub vertices: u64,
    /// er: `m` (default `16 * (1 << 16)`; not updated when `vertices` changes).
    pub edges: u64,
    /// grid: rows and columns (default 256 x 256).
    pub rows: u64,
    pub cols: u64,
    /// Default 1.
    pub seed: u64,
    /// See [`GenConfig::default_directed`].
    pub directed: bool,
    /// kron/rmat/er: uniform `[0, 1)` weights; grid: integers in `1..=max_weight`.
    pub weighted: bool,
    /// grid: the largest integer weight (default 100).
    pub max_weight: u64,
}

/// Largest grid `max_weight`: every integer up to it is exact in an f64.
const MAX_GRID_WEIGHT: u64 = 1 << 53;

impl GenConfig {
    /// The documented defaults for `kind`, `directed = default_directed(kind)`.
    pub fn new(kind: GenKind) -> GenConfig {
        let (a, b, c) = kron::GRAPH500_ABC;
        GenConfig {
            kind,
            scale: 16,
            edge_factor: 16,
            a,
            b,
            c,
            vertices: 1 << 16,
            edges: 16 << 16,
            rows: 256,
            cols: 256,
            seed: 1,
            directed: GenConfig::default_directed(kind),
            weighted: false,
            max_weight: 100,
        }
    }

    /// kron: undirected (as Graph500); rmat: directed; er: directed; grid: undirected.
    pub fn default_directed(kind: GenKind) -> bool {
        match kind {
            GenKind::Kron | GenKind::Grid => false,
            GenKind::Rmat | GenKind::Er => true,
        }
    }

    /// The initiator actually used (kron ignores `a`, `b`, `c`).
    fn initiator(&self) -> (f64, f64, f64) {
        match self.kind {
            GenKind::Kron => kron::GRAPH500_ABC,
            _ => (self.a, self.b, self.c),
        }
    }

    /// Checks the parameters of `kind`, with a message fit for the user.
    pub fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(Error::Invalid(format!("{}: {msg}", self.kind)));
        match self.kind {
            GenKind::Kron | GenKind::Rmat => {
                if self.scale > 47 {
                    return bad(format!("scale {} is too large (at most 47)", self.scale));
                }
                if self
                    .edge_factor
                    .checked_shl(self.scale)
                    .map(|s| s >> self.scale)
                    != Some(self.edge_factor)
                {
                    return bad(format!(
                        "edge factor {} times 2^{} overflows",
                        self.edge_factor, self.scale
                    ));
                }
                if self.kind == GenKind::Rmat {
                    let (a, b, c) = (self.a, self.b, self.c);
                    for (name, p) in [("a", a), ("b", b), ("c", c)] {
                        if !p.is_finite() || p < 0.0 {
                            return bad(format!("initiator {name} = {p} must be a number >= 0"));
                        }
                    }
                    let sum = a + b + c;
                    if sum >= 1.0 {
                        return bad(format!(
                            "initiator a + b + c = {sum} must be < 1 (d = 1 - a - b - c must be > 0)"
                        ));
                    }
                }
            }
            GenKind::Er => {
                let n = self.vertices;
                if n == 0 {
                    return bad("the number of vertices must be at least 1".into());
                }
                if n >= 1 << 32 {
                    return bad(format!("{n} vertices is too many (must be < 2^32)"));
                }
                let pairs = er::possible_pairs(n, self.directed);
                if self.edges as u128 > pairs {
                    return bad(format!(
                        "{} edges requested but only {pairs} distinct {} pairs exist among {n} vertices (no self-loops)",
                        self.edges,
                        if self.directed { "ordered" } else { "unordered" }
                    ));
                }
            }
            GenKind::Grid => {
                if self.rows == 0 || self.cols == 0 {
                    return bad(format!(
                        "{}x{} has no vertices (rows and cols must be >= 1)",
                        self.rows, self.cols
                    ));
                }
                match self.rows.checked_mul(self.cols) {
                    Some(n) if n < 1 << 32 => {}
                    _ => {
                        return bad(format!(
                            "{}x{} is too many vertices (must be < 2^32)",
                            self.rows, self.cols
                        ))
                    }
                }
                if self.max_weight == 0 || self.max_weight > MAX_GRID_WEIGHT {
                    return bad(format!(
                        "max weight {} must be in 1..=2^53",
                        self.max_weight
                    ));
                }
            }
        }
        Ok(())
    }

    /// The number of vertices (ids `0..n`).
    pub fn num_vertices(&self) -> u64 {
        match self.kind {
            GenKind::Kron | GenKind::Rmat => 1u64.checked_shl(self.scale).unwrap_or(0),
            GenKind::Er => self.vertices,
            GenKind::Grid => self.rows.saturating_mul(self.cols),
        }
    }

    /// The exact number of edges the generator emits (samples for kron/rmat).
    fn num_edges(&self) -> u64 {
        match self.kind {
            GenKind::Kron | GenKind::Rmat => self.edge_factor.checked_shl(self.scale).unwrap_or(0),
            GenKind::Er => self.edges,
            GenKind::Grid => {
                let lattice = self.rows * self.cols.saturating_sub(1)
                    + self.cols * self.rows.saturating_sub(1);
                if self.directed {
                    2 * lattice
                } else {
                    lattice
                }
            }
        }
    }

    /// E.g. "kron scale 22 edge factor 16 (undirected, seed 1)".
    pub fn describe(&self) -> String {
        let what = match self.kind {
            GenKind::Kron => format!("kron scale {} edge factor {}", self.scale, self.edge_factor),
            GenKind::Rmat => format!(
                "rmat scale {} edge factor {} a {} b {} c {}",
                self.scale, self.edge_factor, self.a, self.b, self.c
            ),
            GenKind::Er => format!("er n {} m {}", self.vertices, self.edges),
            GenKind::Grid => format!("grid {}x{}", self.rows, self.cols),
        };
        let dir = if self.directed {
            "directed"
        } else {
            "undirected"
        };
        let weights = match (self.weighted, self.kind) {
            (false, _) => String::new(),
            (true, GenKind::Grid) => format!(", weights 1..={}", self.max_weight),
            (true, _) => ", weights [0,1)".to_string(),
        };
        format!("{what} ({dir}{weights}, seed {})", self.seed)
    }
}

/// A generator as an edge source.
struct GenSource {
    cfg: GenConfig,
    delivered: AtomicU64,
}

impl GenSource {
    fn kron(&self) -> kron::KronBlocks {
        let c = &self.cfg;
        let (a, b, ic) = c.initiator();
        kron::KronBlocks::new(
            c.kind == GenKind::Rmat,
            c.scale,
            c.edge_factor,
            a,
            b,
            ic,
            c.seed,
            c.weighted,
        )
    }

    fn grid(&self) -> grid::GridBlocks {
        let c = &self.cfg;
        grid::GridBlocks::new(c.rows, c.cols, c.directed, c.seed, c.weighted, c.max_weight)
    }
}

impl EdgeSource for GenSource {
    fn describe(&self) -> String {
        self.cfg.describe()
    }

    /// Progress in bytes of in-memory edges: `edges * size_of::<RawEdge>()`.
    fn input_bytes(&self) -> Option<u64> {
        Some(
            self.cfg
                .num_edges()
                .saturating_mul(std::mem::size_of::<RawEdge>() as u64),
        )
    }

    fn bytes_consumed(&self) -> u64 {
        self.delivered.load(Ordering::Relaxed) * std::mem::size_of::<RawEdge>() as u64
    }

    fn expected_edges(&self) -> Option<u64> {
        Some(self.cfg.num_edges())
    }

    fn ids_fit_u32(&self) -> bool {
        self.cfg.num_vertices() <= 1 << 32
    }

    fn dense_vertex_count(&self) -> Option<u64> {
        Some(self.cfg.num_vertices())
    }

    /// Kronecker and grid blocks are numbered: blocks spread over the
    /// sequence are generated on their own. Erdős–Rényi edges come in pair
    /// order from a planner: read whole.
    fn sample_edges(&mut self) -> Result<Option<Vec<RawEdge>>> {
        Ok(match self.cfg.kind {
            GenKind::Kron | GenKind::Rmat => Some(par::sample(&self.kron())),
            GenKind::Grid => Some(par::sample(&self.grid())),
            GenKind::Er => None,
        })
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        self.delivered.store(0, Ordering::Relaxed);
        let c = &self.cfg;
        match c.kind {
            GenKind::Kron | GenKind::Rmat => par::stream(&self.kron(), f, &self.delivered),
            GenKind::Er => {
                let g = er::ErBlocks::new(c.vertices, c.edges, c.directed, c.seed, c.weighted);
                par::stream(&g, f, &self.delivered)
            }
            GenKind::Grid => par::stream(&self.grid(), f, &self.delivered),
        }
    }
}

/// The generator for `cfg` (validated first) as an [`EdgeSource`].
///
/// Each call of `for_each_edge_batch` streams the same edges again.
pub fn generator(cfg: &GenConfig) -> Result<Box<dyn EdgeSource>> {
    cfg.validate()?;
    Ok(Box::new(GenSource {
        cfg: cfg.clone(),
        delivered: AtomicU64::new(0),
    }))
}
