//! outcore: graph analytics on graphs larger than memory, from an SSD, inside a
//! memory budget. The layers follow DESIGN.md (see docs/DESIGN.md): `mem`
//! (budget), `store` (the on-disk graph), `ingest` (parsers, generators and
//! the external-memory build).

pub mod algo;
pub mod api;
pub mod base;
pub mod cancel;
pub mod engine;
pub mod error;
pub mod gen;
pub mod ingest;
pub mod io;
pub mod mem;
pub mod outfile;
pub mod progress;
pub mod size;
pub mod stale;
pub mod store;

pub use error::{Error, Result};
