//! `engine`: executes algorithms against a store (DESIGN.md, "Engines").
//!
//! - [`run`]: the runner, which executes a vertex program in memory,
//!   superstep by superstep on the engine the [`planner`] picks.
//! - [`stream`]: G-Store's slide-cache-rewind over the tiles.
//! - [`select`]: TurboGraph's pin-and-slide over the CSR pages of active vertices.
//! - [`external`]: GraFBoost's sort-reduce over PartitionedVC's per-interval
//!   logs, vertex state on disk; runs any [`vertex::VertexProgram`].
//!
//! Algorithms implement [`program::TileProgram`] once and leave scheduling,
//! I/O, caching and parallelism to the engine.

pub mod bits;
pub mod external;
pub mod frontier;
pub mod phases;
pub mod planner;
pub mod pool;
pub mod program;
pub mod pull;
pub mod results;
pub mod run;
pub mod select;
pub mod shard;
pub mod state;
pub mod stats;
pub mod stream;
pub mod stream_vp;
pub mod superstep;
pub mod tileset;
pub mod vertex;
pub mod words;

pub use run::run;
