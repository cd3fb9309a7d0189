//! `algo`: graph algorithms, their in-memory references, LDBC output and validation.

pub mod bfs;
pub mod output;
pub mod pagerank;
pub mod reference;
pub mod validate;
pub mod wcc;
