//! `algo`: graph algorithms, their in-memory references, LDBC output and validation.

pub mod betweenness;
pub mod betweenness_weighted;
pub mod bfs;
pub mod cdlp;
pub mod coloring;
pub mod kcore;
pub mod lcc;
pub mod mis;
pub mod order;
pub mod output;
pub mod pagerank;
pub mod priority;
pub mod query;
pub mod randomwalk;
pub mod reference;
pub mod sssp;
pub mod triangles;
pub mod validate;
pub mod vertex;
