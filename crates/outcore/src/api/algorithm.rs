//! The algorithms `run` knows, by their command-line names.

use crate::error::{Error, Result};

/// The algorithms `run` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Pagerank,
    Wcc,
    Bfs,
    Sssp,
    Kcore,
    Cdlp,
    Lcc,
    Triangles,
    Coloring,
    Mis,
    Randomwalk,
    Betweenness,
}

impl Algorithm {
    pub const ALL: [Algorithm; 12] = [
        Algorithm::Pagerank,
        Algorithm::Wcc,
        Algorithm::Bfs,
        Algorithm::Sssp,
        Algorithm::Kcore,
        Algorithm::Cdlp,
        Algorithm::Lcc,
        Algorithm::Triangles,
        Algorithm::Coloring,
        Algorithm::Mis,
        Algorithm::Randomwalk,
        Algorithm::Betweenness,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Pagerank => "pagerank",
            Algorithm::Wcc => "wcc",
            Algorithm::Bfs => "bfs",
            Algorithm::Sssp => "sssp",
            Algorithm::Kcore => "kcore",
            Algorithm::Cdlp => "cdlp",
            Algorithm::Lcc => "lcc",
            Algorithm::Triangles => "triangles",
            Algorithm::Coloring => "coloring",
            Algorithm::Mis => "mis",
            Algorithm::Randomwalk => "randomwalk",
            Algorithm::Betweenness => "betweenness",
        }
    }
}

impl std::str::FromStr for Algorithm {
    type Err = Error;
    fn from_str(s: &str) -> Result<Algorithm> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "unknown algorithm `{s}`: expected pagerank, wcc, bfs, sssp, kcore, cdlp, lcc, triangles, coloring, mis, randomwalk or betweenness"
                ))
            })
    }
}
