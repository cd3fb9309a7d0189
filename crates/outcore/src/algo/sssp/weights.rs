//! Bad edge weights: the error for a negative or NaN weight, naming the edge
//! by original ids (used by SSSP, its vertex program and weighted
//! betweenness; re-exported as `crate::algo::sssp::{bad_weight, original_id}`).

use crate::error::Error;
use crate::store::{IdLookup, Store};

/// The error for a negative or NaN weight on edge `v -> u` (dense ids),
/// naming the edge by original ids.
pub(crate) fn bad_weight(store: &Store, alg: &str, v: u64, u: u64, w: f64) -> Error {
    let (a, b) = (original_id(store, v), original_id(store, u));
    bad_weight_named(alg, &a, &b, store.manifest().directed, w)
}

/// The error for a negative or NaN weight `w` on the edge from `a` to `b`
/// (original ids, as named).
pub(crate) fn bad_weight_named(
    alg: &str,
    a: &dyn std::fmt::Display,
    b: &dyn std::fmt::Display,
    directed: bool,
    w: f64,
) -> Error {
    let what = if w.is_nan() { "NaN" } else { "negative" };
    let arrow = if directed { "->" } else { "--" };
    Error::Invalid(format!(
        "{alg} needs non-negative edge weights, but edge {a} {arrow} {b} has weight {w} ({what})"
    ))
}

/// The original id of dense vertex `v`, read from the id maps (the dense id
/// if they cannot be read).
pub(crate) fn original_id(store: &Store, v: u64) -> crate::store::Id<'static> {
    IdLookup::open(store)
        .and_then(|ids| ids.original(v))
        .unwrap_or(crate::store::Id::Int(v))
}
