//! PageRank with LDBC Graphalytics semantics; the program is
//! [`super::vertex::pagerank::PageRankVp`], run by every engine.
//!
//! PR0(v) = 1/|V|; each iteration PR(v) = (1-d)/|V| + d * sum over in-neighbours
//! u of PR(u)/outdeg(u) + d/|V| * sum over sinks w of PR(w). Undirected
//! graphs: every neighbour is an in- and out-neighbour (a self-loop once).
//! A fixed number of iterations, or `tol`: stop once an iteration changes the
//! ranks by less than `tol` in L1 norm.

use crate::error::{Error, Result};

/// PageRank parameters.
#[derive(Clone, Debug)]
pub struct PageRankConfig {
    /// Damping factor d (default 0.85).
    pub damping: f64,
    /// Iterations (default 10; with `tol`, the maximum).
    pub iterations: usize,
    /// Stop when an iteration's L1 change is below this.
    pub tol: Option<f64>,
}

impl Default for PageRankConfig {
    fn default() -> Self {
        PageRankConfig {
            damping: 0.85,
            iterations: 10,
            tol: None,
        }
    }
}

impl PageRankConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.damping) {
            return Err(Error::Invalid(format!(
                "--damping {} must be within [0, 1]",
                self.damping
            )));
        }
        if let Some(t) = self.tol {
            if t.is_nan() || t <= 0.0 {
                return Err(Error::Invalid(format!("--tol {t} must be positive")));
            }
        }
        Ok(())
    }
}
