//! `engine`: executes algorithms against a store (DESIGN.md, "Engines").
//!
//! - [`stream`]: G-Store's slide-cache-rewind over the tiles.
//! - [`select`]: TurboGraph's pin-and-slide over the CSR pages of active vertices.
//!
//! Algorithms implement [`program::TileProgram`] once and leave scheduling,
//! I/O, caching and parallelism to the engine.

pub mod pool;
pub mod program;
pub mod select;
pub mod state;
pub mod stats;
pub mod stream;
pub mod tileset;
