//! `mem`: the memory budget every large allocation is charged to.
pub mod budget;
pub mod prefetch;
pub mod ram;
pub use budget::{advise_huge, huge_vec, huge_vec_par, peak_rss_bytes, Budget};
