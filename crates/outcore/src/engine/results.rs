//! The results of an external run, left on disk and written in rank order
//! (= ascending original id) without holding a value per vertex in memory:
//! the values stream out of the engine's state file one interval at a time;
//! when dense ids are ranks they are merged straight with the id maps
//! ([`RankWalk`]), else each (rank, value) goes through an external sort
//! inside the budget first.

use crate::base::radix::KeyValue;
use crate::engine::external::ExternalStates;
use crate::engine::vertex::Value;
use crate::error::{Error, IoContext, Result};
use crate::ingest::bucket::{BucketSorter, Split};
use crate::ingest::scratch::Scratch;
use crate::mem::Budget;
use crate::store::walk::{LabelNames, RankWalk};
use crate::store::{Id, Store};
use std::fmt;
use std::path::Path;

/// One value per vertex (8 bytes of it: an integer, or a float's bits),
/// read in dense-id order.
pub trait Values {
    /// Calls `f(dense id, value)` for every vertex in dense-id order.
    fn for_each(&mut self, budget: &Budget, f: &mut dyn FnMut(u64, u64)) -> Result<()>;
    /// The memory [`Self::for_each`] takes from the budget while it runs.
    fn buffer_bytes(&self) -> u64;
}

/// The final states of an external run, each mapped to its value.
pub struct StateValues<S: Value, F: Fn(&S) -> u64> {
    states: ExternalStates<S>,
    map: F,
}

impl<S: Value, F: Fn(&S) -> u64> StateValues<S, F> {
    pub fn new(states: ExternalStates<S>, map: F) -> Self {
        StateValues { states, map }
    }
}

impl<S: Value, F: Fn(&S) -> u64> Values for StateValues<S, F> {
    fn for_each(&mut self, budget: &Budget, f: &mut dyn FnMut(u64, u64)) -> Result<()> {
        let map = &self.map;
        self.states.for_each(budget, |v, s| f(v, map(s)))
    }

    fn buffer_bytes(&self) -> u64 {
        self.states.buffer_bytes()
    }
}

/// Every value in dense-id order, mapped: the results in memory (what the
/// library's `run` functions return).
pub fn collect<T>(
    values: &mut dyn Values,
    budget: &Budget,
    map: impl Fn(u64) -> T,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    values.for_each(budget, &mut |_, x| out.push(map(x)))?;
    Ok(out)
}

/// Where results are written, what memory and scratch space they may use.
#[derive(Clone, Copy)]
pub struct Out<'a> {
    pub path: &'a Path,
    pub store: &'a Store,
    pub budget: &'a Budget,
    /// For the sort by rank (when dense ids are not ranks).
    pub scratch: &'a Path,
}

impl<'a> Out<'a> {
    /// The same, written to `path`.
    pub fn at<'b>(&self, path: &'b Path) -> Out<'b>
    where
        'a: 'b,
    {
        Out { path, ..*self }
    }
}

/// Writes one `id value` line per vertex, ascending original id (as
/// [`super::output::write_vertex_values`]); `show(value)` formats a value.
pub fn write_values<T: fmt::Display>(
    out: &Out<'_>,
    values: &mut dyn Values,
    show: impl Fn(u64) -> T,
) -> Result<()> {
    write(out, values, |_, _, x| Ok(show(x)))
}

/// As [`write_values`], for values that are vertices named by their rank
/// (labels): each is written as its original id.
pub fn write_labels(out: &Out<'_>, values: &mut dyn Values) -> Result<()> {
    let mut names = LabelNames::open(out.store)?;
    write(out, values, |r, id, x| names.name(x, r, id))
}

/// Writes the original ids of the vertices whose value `keep` selects, one
/// per line, ascending.
pub fn write_set(out: &Out<'_>, values: &mut dyn Values, keep: impl Fn(u64) -> bool) -> Result<()> {
    write_with(out, values, |w, at, _, id, x| match keep(x) {
        true => writeln!(w, "{id}").at(at),
        false => Ok(()),
    })
}

fn write<T: fmt::Display>(
    out: &Out<'_>,
    values: &mut dyn Values,
    mut show: impl FnMut(u64, &Id<'_>, u64) -> Result<T>,
) -> Result<()> {
    write_with(out, values, |w, at, r, id, x| {
        let shown = show(r, id, x)?;
        writeln!(w, "{id} {shown}").at(at)
    })
}

/// Walks the vertices in rank order with their values: `line(out, out's
/// path, rank, original id, value)` writes each one's line, if any.
fn write_with(
    out: &Out<'_>,
    values: &mut dyn Values,
    mut line_of: impl FnMut(&mut dyn std::io::Write, &Path, u64, &Id<'_>, u64) -> Result<()>,
) -> Result<()> {
    let mut f = crate::outfile::OutFile::create(out.path)?;
    let target = f.target().to_path_buf();
    let w = f.writer();
    for_each_ranked(out, values, |r, id, x| line_of(w, &target, r, id, x))?;
    f.commit()
}

/// Calls `f(rank, original id, value)` for every vertex in rank order
/// (= ascending original id): straight from the values when dense ids are
/// ranks, else through an external sort by rank inside `out`'s budget
/// (`out.path` is not used).
pub fn for_each_ranked(
    out: &Out<'_>,
    values: &mut dyn Values,
    mut f: impl FnMut(u64, &Id<'_>, u64) -> Result<()>,
) -> Result<()> {
    let (store, budget) = (out.store, out.budget);
    let mut walk = RankWalk::open(store)?;
    let mut line = |x: u64, walk: &mut RankWalk| -> Result<()> {
        let Some((r, _, id)) = walk.next_vertex()? else {
            return Err(Error::Invalid("more values than vertices".into()));
        };
        if r & 0xFFFF == 0 {
            crate::cancel::check()?;
        }
        f(r, &id, x)
    };
    if !store.manifest().has_order_map {
        // Dense id = rank: the values come in the lines' order.
        let mut err = None;
        values.for_each(budget, &mut |_, x| {
            if err.is_none() {
                err = line(x, &mut walk).err();
            }
        })?;
        if let Some(e) = err {
            return Err(e);
        }
    } else {
        let share = budget.available().saturating_sub(values.buffer_bytes()) / 2;
        // Its files are deleted with it, whatever ends the sort.
        let scratch = Scratch::within(out.scratch, "results")?;
        let n = Some(store.manifest().num_vertices);
        let what = "results by rank";
        let mut sorter =
            BucketSorter::<KeyValue>::new(what, &scratch, budget, share, Split::Ordered, n)?;
        let mut ranks = store.rank_reader()?;
        let mut err = None;
        values.for_each(budget, &mut |_, value| {
            if err.is_none() {
                err = ranks
                    .next_rank()
                    .and_then(|r| sorter.push(KeyValue { key: r, value }))
                    .err();
            }
        })?;
        if let Some(e) = err {
            return Err(e);
        }
        let mut sorted = sorter.finish()?;
        while let Some(rv) = sorted.next_record()? {
            line(rv.value, &mut walk)?;
        }
    }
    Ok(())
}
