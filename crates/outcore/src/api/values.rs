//! A run's answer: one value per vertex, held where the engine left it (in
//! memory after the stream or select engine, on disk after the external
//! engine), read back in rank order (= ascending original id) with each
//! vertex's original id: written as `id value` lines (the CLI's `--out`) or
//! gathered into columns (the Python package's arrays).

use crate::algo::output::{self, Cell, Column};
use crate::engine::results::{self, Out, Values};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::walk::{LabelNames, RankBatch, RankWalk};
use crate::store::{Id, Store};
use rayon::prelude::*;

/// What a value is, which says how it is shown and gathered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An `f64` (its bits): ranks, distances (`inf` when unreachable), LCC.
    Float,
    /// An `i64` (its bits): depths ([`crate::algo::bfs::UNREACHABLE`] when
    /// unreachable), core numbers.
    Int,
    /// A vertex named by its rank (WCC's and CDLP's labels): shown as that
    /// vertex's original id.
    Label,
}

enum Held {
    /// `value(dense id)`, from a result in memory.
    Memory(Box<dyn Fn(u64) -> u64 + Send + Sync>),
    /// The final states of an external run, each value mapped by `map`.
    Disk {
        values: Box<dyn Values>,
        map: fn(u64) -> u64,
    },
}

/// One value per vertex; see the module docs.
pub struct VertexValues {
    kind: Kind,
    held: Held,
}

/// Original ids in rank order: integers, or names in a store of string ids.
#[derive(Clone, Debug, PartialEq)]
pub enum IdColumn {
    Ints(Vec<u64>),
    Names(Vec<Vec<u8>>),
}

impl IdColumn {
    fn push(&mut self, id: &Id<'_>) {
        match (self, id) {
            (IdColumn::Ints(v), Id::Int(x)) => v.push(*x),
            (IdColumn::Names(v), Id::Name(b)) => v.push(b.to_vec()),
            (IdColumn::Names(v), Id::Int(x)) => v.push(x.to_string().into_bytes()),
            (IdColumn::Ints(_), Id::Name(_)) => unreachable!("a store has one kind of id"),
        }
    }

    fn for_store(store: &Store) -> IdColumn {
        match store.manifest().string_ids {
            true => IdColumn::Names(Vec::new()),
            false => IdColumn::Ints(Vec::new()),
        }
    }
}

/// Values in rank order, in their natural type.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueColumn {
    Float(Vec<f64>),
    Int(Vec<i64>),
    /// Labels, as the original ids they name.
    Ids(IdColumn),
}

/// Every vertex's original id and value, in rank order.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    pub ids: IdColumn,
    pub values: ValueColumn,
}

impl VertexValues {
    /// Values held in memory: `value(dense id)` gives each one's bits.
    pub fn memory(kind: Kind, value: impl Fn(u64) -> u64 + Send + Sync + 'static) -> VertexValues {
        VertexValues {
            kind,
            held: Held::Memory(Box::new(value)),
        }
    }

    /// Values left on disk by an external run, each mapped by `map`.
    pub fn disk(kind: Kind, values: Box<dyn Values>, map: fn(u64) -> u64) -> VertexValues {
        VertexValues {
            kind,
            held: Held::Disk { values, map },
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Calls `f(dense id, value)` for every vertex in dense-id order.
    pub fn for_each_dense(
        &mut self,
        store: &Store,
        budget: &Budget,
        f: &mut dyn FnMut(u64, u64),
    ) -> Result<()> {
        match &mut self.held {
            Held::Memory(value) => {
                for v in 0..store.manifest().num_vertices {
                    f(v, value(v));
                }
                Ok(())
            }
            Held::Disk { values, map } => values.for_each(budget, &mut |v, x| f(v, map(x))),
        }
    }

    /// Folds every vertex's value, `fold(acc, dense id, value)` from
    /// `init`, the partial results joined by `join`: on every core when the
    /// values are in memory, in dense-id order from the disk.
    pub fn fold_dense<A: Clone + Send + Sync>(
        &mut self,
        store: &Store,
        budget: &Budget,
        init: A,
        fold: impl Fn(A, u64, u64) -> A + Send + Sync,
        join: impl Fn(A, A) -> A + Send + Sync,
    ) -> Result<A> {
        match &mut self.held {
            Held::Memory(value) => {
                let value = &**value;
                let all = (0..store.manifest().num_vertices).into_par_iter();
                let parts = all.fold(|| init.clone(), |a, v| fold(a, v, value(v)));
                Ok(parts.reduce(|| init.clone(), join))
            }
            Held::Disk { values, map } => {
                let mut acc = Some(init);
                values.for_each(budget, &mut |v, x| {
                    acc = acc.take().map(|a| fold(a, v, map(x)));
                })?;
                Ok(acc.expect("kept"))
            }
        }
    }

    /// Calls `f(rank, original id, value)` for every vertex in rank order.
    pub fn for_each_ranked(
        &mut self,
        out: &Out<'_>,
        mut f: impl FnMut(u64, &Id<'_>, u64) -> Result<()>,
    ) -> Result<()> {
        match &mut self.held {
            Held::Memory(value) => memory_batches(out.store, &**value, |batch, values| {
                for (i, &x) in values.iter().enumerate() {
                    f(batch.first + i as u64, &batch.id(i), x)?;
                }
                Ok(())
            }),
            Held::Disk { values, map } => {
                results::for_each_ranked(out, values.as_mut(), |r, id, x| f(r, id, map(x)))
            }
        }
    }

    /// Writes one `id value` line per vertex to `out.path` (LDBC
    /// Graphalytics format: floats as `%.15e`, labels as original ids),
    /// formatted and written by [`output::Lines`]' pipeline while this
    /// thread walks the vertices.
    pub fn write(&mut self, out: &Out<'_>) -> Result<()> {
        let kind = self.kind;
        let mut names = match kind {
            Kind::Label => Some(LabelNames::open(out.store)?),
            _ => None,
        };
        let mut lines = output::Lines::new(crate::outfile::OutFile::create(out.path)?)?;
        // When a line's text follows from integers alone (integer ids,
        // labels that are their own ids), whole batches go to the writer:
        // no call per line on this thread (WCC at kron-24 spent half its
        // writing time there).
        let column = match kind {
            Kind::Float => Some(Column::Float),
            Kind::Int => Some(Column::Int),
            Kind::Label => names
                .as_ref()
                .filter(|n| n.is_identity())
                .map(|_| Column::Id),
        };
        if let (Some(column), Held::Memory(value)) = (column, &self.held) {
            if !out.store.base().string_ids {
                memory_batches(out.store, &**value, |batch, values| {
                    let ids = batch
                        .int_ids()
                        .expect("a store without names has integer ids");
                    lines.push_column(ids, values, column)
                })?;
                return lines.finish();
            }
        }
        self.for_each_ranked(out, |r, id, x| match kind {
            Kind::Float => lines.push(id, Cell::Float(f64::from_bits(x))),
            Kind::Int => lines.push(id, Cell::Int(x as i64)),
            Kind::Label => {
                let name = names.as_mut().expect("opened for labels").name(x, r, id)?;
                lines.push(id, Cell::Id(&name))
            }
        })?;
        lines.finish()
    }

    /// Writes the original ids of the vertices whose value `keep` selects,
    /// one per line, ascending.
    pub fn write_set(&mut self, out: &Out<'_>, keep: impl Fn(u64) -> bool) -> Result<()> {
        let mut lines = output::Lines::new(crate::outfile::OutFile::create(out.path)?)?;
        self.for_each_ranked(out, |_, id, x| match keep(x) {
            true => lines.push_id(id),
            false => Ok(()),
        })?;
        lines.finish()
    }

    /// Every vertex's original id and value, in rank order, in memory (the
    /// caller's: 16 bytes per vertex or more, outside the run's budget).
    pub fn collect(&mut self, out: &Out<'_>) -> Result<Columns> {
        let n = out.store.manifest().num_vertices as usize;
        let mut ids = IdColumn::for_store(out.store);
        if let IdColumn::Ints(v) = &mut ids {
            v.reserve_exact(n);
        }
        let mut values = match self.kind {
            Kind::Float => ValueColumn::Float(Vec::with_capacity(n)),
            Kind::Int => ValueColumn::Int(Vec::with_capacity(n)),
            Kind::Label => ValueColumn::Ids(IdColumn::for_store(out.store)),
        };
        let mut names = match self.kind {
            Kind::Label => Some(LabelNames::open(out.store)?),
            _ => None,
        };
        self.for_each_ranked(out, |r, id, x| {
            ids.push(id);
            match &mut values {
                ValueColumn::Float(v) => v.push(f64::from_bits(x)),
                ValueColumn::Int(v) => v.push(x as i64),
                ValueColumn::Ids(c) => {
                    let name = names.as_mut().expect("opened for labels").name(x, r, id)?;
                    c.push(&name);
                }
            }
            Ok(())
        })?;
        Ok(Columns { ids, values })
    }
}

/// Calls `f(batch, values)` for the vertices in rank order, a batch at a
/// time, `values[i]` being `value(batch.dense[i])`, looked up on every core
/// (random reads of the state).
fn memory_batches(
    store: &Store,
    value: &(dyn Fn(u64) -> u64 + Send + Sync),
    mut f: impl FnMut(&RankBatch, &[u64]) -> Result<()>,
) -> Result<()> {
    let mut walk = RankWalk::open(store)?;
    let (mut batch, mut values) = (RankBatch::default(), Vec::new());
    while walk.next_batch(1 << 16, &mut batch)? {
        crate::cancel::check()?;
        let looked = batch.dense.par_iter().map(|&v| value(v));
        looked.collect_into_vec(&mut values);
        f(&batch, &values)?;
    }
    Ok(())
}
