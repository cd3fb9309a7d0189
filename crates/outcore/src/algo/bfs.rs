//! BFS with LDBC Graphalytics semantics: hop depth from the source along
//! out-edges (both directions when undirected); unreachable vertices get
//! `9223372036854775807`. The program is [`super::vertex::bfs::BfsVp`], run
//! by every engine; the planner picks stream or select level by level.

pub use crate::engine::planner::{CostModel, EngineChoice};

/// Depth of an unreachable vertex in the output.
pub const UNREACHABLE: i64 = i64::MAX;
