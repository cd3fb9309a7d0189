//! `mem`: the memory budget every large allocation is charged to.
pub mod budget;
pub use budget::{peak_rss_bytes, Budget};
