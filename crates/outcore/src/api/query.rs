//! Targeted queries on the select engine in original ids: what `outcore
//! query` and the Python package's `Store.khop` ... `Store.cross` call.

use crate::algo::query::{self, QueryStats};
use crate::engine::select::SelectEngine;
use crate::error::{Error, Result};
use crate::store::csr::Slot;
use crate::store::{Id, IdLookup, Store};

/// Which query, with its arguments in dense ids.
pub enum Query<'a> {
    /// Vertices within `hops` of `source`.
    Khop { source: u64, hops: u32 },
    /// The subgraph induced by the vertices within `hops` of `source`.
    Egonet { source: u64, hops: u32 },
    /// The subgraph induced by `vertices`.
    Induced { vertices: &'a [u64] },
    /// Edges from a vertex of `a` to one of `b`.
    Cross { a: &'a [u64], b: &'a [u64] },
}

impl Query<'_> {
    pub fn name(&self) -> &'static str {
        match self {
            Query::Khop { .. } => "khop",
            Query::Egonet { .. } => "egonet",
            Query::Induced { .. } => "induced",
            Query::Cross { .. } => "cross",
        }
    }
}

/// A query's answer in original ids, ascending (undirected edges as
/// (smaller, larger) by original id, whatever the store's vertex order).
pub enum Answer {
    Vertices(Vec<Id<'static>>),
    Edges(Vec<(Id<'static>, Id<'static>)>),
}

/// The dense id of each original id given as text; an id not in the graph
/// is an error naming it (`at(i)` says where the i-th came from).
pub fn dense_ids<T: Slot, S: AsRef<str>>(
    lookup: &IdLookup,
    ids: &[S],
    at: impl Fn(usize) -> String,
) -> Result<Vec<T>> {
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            let id = id.as_ref();
            match lookup.dense_of_text(id)? {
                Some(v) if v < T::PAD.get() => Ok(T::of(v)),
                Some(v) => Err(Error::Invalid(format!(
                    "{}vertex {id} has dense id {v}, past the {}-bit ids this query reads",
                    at(i),
                    8 * std::mem::size_of::<T>()
                ))),
                None => Err(Error::Invalid(format!(
                    "{}vertex {id} is not in the graph",
                    at(i)
                ))),
            }
        })
        .collect()
}

/// Runs `q` on `eng` (a select engine over `store`'s out-lists).
pub fn run(
    store: &Store,
    lookup: &IdLookup,
    eng: &mut SelectEngine,
    q: &Query<'_>,
) -> Result<(Answer, QueryStats)> {
    let directed = store.manifest().directed;
    let original = |v: u64| lookup.original(v);
    let (edges, stats, cross_sets) = match *q {
        Query::Khop { source, hops } => {
            let (vs, st) = query::khop(eng, source, hops)?;
            let answer = Answer::Vertices(query::original_vertices(&vs, original)?);
            return Ok((answer, st));
        }
        Query::Egonet { source, hops } => {
            let (e, st) = query::egonet(eng, source, hops, directed)?;
            (e, st, None)
        }
        Query::Induced { vertices } => {
            let (e, st) = query::induced(eng, vertices, directed)?;
            (e, st, None)
        }
        Query::Cross { a, b } => {
            let (e, st) = query::cross(eng, a, b, directed)?;
            (e, st, Some((a, b)))
        }
    };
    let edges = match (cross_sets, directed) {
        (_, true) => query::original_edges(&edges, |_, _| false, original)?,
        (None, false) => query::original_edges(&edges, |_, _| true, original)?,
        (Some((a, b)), false) => {
            query::original_edges(&edges, query::cross_min_max(a, b), original)?
        }
    };
    Ok((Answer::Edges(edges), stats))
}
