//! A vertex program on one shard of a partitioned store, a superstep at a
//! time (DESIGN.md, "Runs over shards"): the steps a distributed driver
//! calls between its exchanges, and [`run_parts`], the driver of one
//! process (tests, and the reference a distributed run is checked with).
//!
//! A superstep on K shards: every shard [`ShardRun::scatter`]s (its owned
//! senders' messages delivered by the planner's engine on its own store;
//! those for ghosts combined locally and handed out per owner as an
//! [`Outbox`]); every outbox goes to its shard's [`ShardRun::receive`];
//! every shard [`ShardRun::apply`]s its owned vertices; the driver sums
//! the aggregates and active counts and hands them to every shard's
//! [`ShardRun::finish`], which gives the program's verdict (the same on
//! every shard).
//!
//! Ids: a shard's local ids are what the engines and the program see; a
//! program that names a vertex (BFS's source) is given its local id on the
//! shard that owns it, and `init` sees global ranks (WCC's labels).
//! Messages travel to their owner as its local ids, 4 bytes each while
//! they fit ([`outbox`]).

mod ckpt;
mod driver;
mod ids;
mod mirror;
mod outbox;

pub use ckpt::Checkpoint;
pub use driver::{exchange, run_parts, steps, PartsRun, ShardSteps, StepExchange};
pub use ids::ShardIds;
pub use outbox::{check_width, id_bytes, Ids, Outbox, Targets};

use crate::engine::planner::EngineChoice;
use crate::engine::run::{self as planned, Engines};
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::engine::superstep::{self, Local, MemState};
use crate::engine::vertex::{Aggregate, Value, VertexProgram};
use crate::engine::words::Word;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::progress::Progress;
use crate::store::partition::Partition;
use crate::store::{IdFiles, OriginalIds, Store};
use std::time::Instant;

/// A vertex program on one shard, in memory.
pub struct ShardRun<P: VertexProgram, W: Word> {
    store: Store,
    budget: Budget,
    ids: ShardIds,
    prog: P,
    st: MemState<P, W>,
    engines: Engines,
    stats: RunStats,
    t0: Instant,
    progress: Progress,
    /// This superstep's start, and its state passes before it.
    step_t0: Instant,
    passes: u64,
    /// The superstep the run is at the beginning of, and the active
    /// count the last `finish` was given ([`ckpt`]).
    next: usize,
    active: u64,
    /// The shard store's manifest checksum, naming it in checkpoints.
    store_sum: String,
    /// A grouped program's ghost mirrors ([`mirror`]); the superstep
    /// whose deliveries `apply` runs (after the injections).
    mirrors: Option<mirror::Mirrors>,
    pending: Option<usize>,
    /// The outboxes' and inboxes' bound, charged for the run.
    _exchange: Option<Charge>,
}

impl<P: VertexProgram, W: Word> ShardRun<P, W> {
    /// Opens shard `k` of `part` in a budget of `memory` bytes and starts
    /// `make(ids)`'s program on it (its state from `init`, ghosts silent):
    /// the run, and the aggregate and the active count of its `init`s (the
    /// driver sums them and hands the sum to [`ShardRun::set_aggregate`]).
    /// An error when the state does not fit the budget (the external engine
    /// does not run on shards yet).
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        part: &Partition,
        k: usize,
        make: impl FnOnce(&ShardIds) -> Result<P>,
        choice: EngineChoice,
        stream: StreamConfig,
        select: &SelectConfig,
        memory: u64,
    ) -> Result<(ShardRun<P, W>, Aggregate, u64)> {
        let t0 = Instant::now();
        let m = part.manifest();
        let store = part.open_shard(k)?;
        let budget = Budget::checked(memory)?;
        let ids = ShardIds::load(m, k, &store)?;
        let prog = make(&ids)?;
        planned::engines_ok(&store, &prog, choice)?;
        let refused = |e: String| {
            Error::Budget(format!(
                "shard {k} ({}): {e}; runs over shards are in memory only for now (the external engine does not run on shards yet)",
                part.shard_path(k).display()
            ))
        };
        // Global ranks: the partition's order map (global id -> rank).
        let kind = IdFiles {
            n: m.num_vertices,
            string_ids: false,
            has_id_map: false,
            has_order_map: m.has_order_map,
        };
        let order =
            OriginalIds::load_in(&part.path().join(crate::store::partition::IDS_DIR), &kind)?;
        let global = &ids.global;
        let rank = |v: u64| order.rank(global[v as usize]);
        let mirrored = !P::COMBINES && ids.parts > 1 && mirror::enabled();
        let local = Local {
            owned: ids.owned.clone(),
            rank: &rank,
            mirrors: mirrored,
            ghost_states: ghost_states(),
        };
        let st = match MemState::<P, W>::new_in(&store, &prog, &budget, Some(&local)) {
            Err(Error::Budget(e)) => return Err(refused(e)),
            st => st?,
        };
        drop(order);
        let need = need(&store, &prog, &st);
        if budget.limit() < need {
            return Err(refused(format!(
                "{} on {} vertices ({} owned) needs at least {} in memory",
                prog.name(),
                store.manifest().num_vertices,
                ids.owned.len(),
                crate::size::format_size(need)
            )));
        }
        let mirrors = match mirrored {
            false => None,
            true => Some(mirror::Mirrors::load(m, &store, &ids, &budget)?),
        };
        let exchange = mirror::charge_exchange::<P>(m, k, mirrors.is_some(), &budget)?;
        let (agg, active) = (st.agg, st.active_count());
        let (engines, mut stats) = Engines::new(&store, &prog, choice, stream, select, &budget)?;
        let n = store.manifest().num_vertices;
        stats.vertex_state_bytes =
            planned::state_bytes::<P>(n) - superstep::state_bytes::<P>(n) + st.held_bytes();
        let progress = Progress::new(prog.name());
        let run = ShardRun {
            store,
            budget,
            ids,
            prog,
            st,
            engines,
            stats,
            t0,
            progress,
            step_t0: Instant::now(),
            passes: 0,
            next: 0,
            active,
            store_sum: m.shards[k].manifest.xxh3.clone(),
            mirrors,
            pending: None,
            _exchange: exchange,
        };
        Ok((run, agg, active))
    }

    /// The shard's ids.
    pub fn ids(&self) -> &ShardIds {
        &self.ids
    }

    /// The messages a superstep can deliver on this shard: a grouped
    /// program's arena slots (with ghost mirrors, the list entries naming
    /// owned vertices only), 0 for a combining program.
    pub fn arena_slots(&self) -> usize {
        self.st.arena_slots()
    }

    /// The bytes the shard's state holds and charges: states, bits,
    /// message cells, the grouped arena (ghosts hold their message cells
    /// and bits only).
    pub fn state_bytes(&self) -> u64 {
        self.st.held_bytes()
    }

    /// The most this shard's budget has had charged at once.
    pub fn budget_peak(&self) -> u64 {
        self.budget.peak()
    }

    /// The program (PageRank's iterations, ...).
    pub fn program(&self) -> &P {
        &self.prog
    }

    /// Sets the aggregate superstep 0 begins with: every shard's `init`s'.
    pub fn set_aggregate(&mut self, agg: Aggregate) {
        self.st.set_aggregate(agg);
    }

    /// Runs superstep `step`'s deliveries: the outboxes of the messages for
    /// other shards' vertices (one per shard with any, in shard order), or
    /// `None` when the program stops before the superstep. With ghost
    /// mirrors ([`mirror`]), the owned senders' messages for the shards
    /// that hold them as ghosts, and the deliveries wait for `apply`.
    pub fn scatter(&mut self, step: usize) -> Result<Option<Vec<Outbox>>> {
        crate::cancel::check()?;
        self.passes = self.st.passes;
        if !self.st.begin(&mut self.prog, step) {
            return Ok(None);
        }
        self.step_t0 = Instant::now();
        if let Some(mi) = &self.mirrors {
            self.pending = Some(step);
            return Ok(Some(mi.outboxes(&self.st, &self.ids)?));
        }
        self.deliver(step)?;
        let mut out = Vec::new();
        let b = <P::Msg as Value>::BYTES;
        for j in 0..self.ids.parts {
            let range = self.ids.ghosts[j].clone();
            if range.is_empty() {
                continue;
            }
            let ids = &self.ids;
            let mut bx = Outbox::new(j, ids.id_bytes(j));
            let mut wide = None;
            self.st.drain(range, |v, m| {
                let t = ids.receiver(j, ids.global[v]);
                if !bx.targets.push(t) {
                    wide.get_or_insert(t);
                    return;
                }
                let at = bx.bytes.len();
                bx.bytes.resize(at + b, 0);
                m.put(&mut bx.bytes[at..]);
            });
            if let Some(t) = wide {
                return Err(too_wide(ids.k, j, t, ids.sizes[j]));
            }
            if !bx.targets.is_empty() {
                out.push(bx);
            }
        }
        Ok(Some(out))
    }

    /// The engine's deliveries of superstep `step` on this shard.
    fn deliver(&mut self, step: usize) -> Result<()> {
        let it = self.engines.step(
            &self.store,
            &self.budget,
            &mut self.st,
            &mut self.prog,
            step,
            &mut self.stats,
            &mut self.progress,
        )?;
        self.stats.iterations.push(it);
        Ok(())
    }

    /// Folds the messages shard `from` sent this shard this superstep:
    /// `targets` this shard's local ids, of the width its outboxes carry
    /// ([`id_bytes`]; another width is refused).
    pub fn receive(&mut self, from: usize, targets: Ids<'_>, bytes: &[u8]) -> Result<()> {
        let b = <P::Msg as Value>::BYTES;
        let k = self.ids.k;
        check_width(k, from, self.ids.sizes[k], targets)?;
        let owned = &self.ids.owned;
        let ghosts = &self.ids.ghosts;
        if self.mirrors.is_some() {
            // Mirrors: the sender's vertices this shard holds as ghosts.
            let gh = ghosts.get(from).cloned().unwrap_or(0..0);
            if let Some(t) = targets.iter().find(|&t| !gh.contains(&(t as usize))) {
                return Err(Error::Invalid(format!(
                    "shard {k}: shard {from} sent a mirror for local id {t}, which is not a ghost it owns (those are {}..{})",
                    gh.start, gh.end
                )));
            }
        }
        if targets.len() * b != bytes.len() {
            return Err(Error::Invalid(format!(
                "shard {k}: {} targets from shard {from} came with {} message bytes, not {} ({b} a message)",
                targets.len(),
                bytes.len(),
                targets.len() * b
            )));
        }
        let mirrored = self.mirrors.is_some();
        if let Some(t) = (targets.iter())
            .filter(|_| !mirrored)
            .find(|&t| !owned.contains(&(t as usize)))
        {
            return Err(Error::Invalid(format!(
                "shard {k}: shard {from} sent a message for local id {t}, which it does not own (its vertices are {}..{})",
                owned.start, owned.end
            )));
        }
        for (t, m) in targets.iter().zip(bytes.chunks_exact(b)) {
            match mirrored {
                true => self.st.inject(t as usize, P::Msg::get(m)),
                false => self.st.receive(t as usize, P::Msg::get(m)),
            }
        }
        Ok(())
    }

    /// Applies the owned vertices: their aggregate and how many are active
    /// in the next superstep (the driver sums them over the shards). With
    /// ghost mirrors, first the superstep's deliveries, the injected
    /// ghosts sending too.
    pub fn apply(&mut self) -> Result<(Aggregate, u64)> {
        if let Some(step) = self.pending.take() {
            self.st.mirror_senders();
            self.deliver(step)?;
        }
        Ok(self.st.apply_local(&self.prog))
    }

    /// Ends superstep `step` with every shard's summed aggregate and active
    /// count: true when the run is complete.
    pub fn finish(&mut self, step: usize, agg: Aggregate, active: u64) -> bool {
        let end = self.st.finish(&mut self.prog, step, agg, active);
        (self.next, self.active) = (step + 1, active);
        if let Some(it) = self.stats.iterations.last_mut() {
            it.state_passes = self.st.passes - self.passes;
            it.seconds = self.step_t0.elapsed().as_secs_f64();
        }
        end.done
    }

    /// The owned vertices' final states, in global id order (the shard's
    /// `bounds[k]..bounds[k + 1]`); once, at the end of the run.
    pub fn values(&mut self) -> Vec<P::State> {
        self.st.take_owned(&self.prog)
    }

    /// The run's statistics so far (one entry a superstep).
    pub fn stats(&self) -> RunStats {
        let mut stats = self.stats.clone();
        self.engines.finish(&mut stats, self.t0);
        stats
    }

    /// The program, at the end of a run.
    pub fn into_program(self) -> P {
        self.prog
    }
}

/// False when `OUTCORE_GHOST_CELLS=full` gives ghosts full state cells
/// again (the layout before they held only what they use, to compare).
fn ghost_states() -> bool {
    std::env::var("OUTCORE_GHOST_CELLS").is_ok_and(|v| v == "full")
}

/// The least budget a shard's run takes: what the planner asks of a whole
/// store ([`planned::required_by`]: the engines' buffers, the program's
/// own, the state and grouped arena of every vertex), with the state and
/// arena replaced by what `st` holds (ghosts hold their message cells
/// only; with mirrors no arena rows), so a shard is charged what it uses.
fn need<P: VertexProgram, W: Word>(store: &Store, prog: &P, st: &MemState<P, W>) -> u64 {
    let whole = superstep::state_bytes::<P>(store.manifest().num_vertices)
        + match P::COMBINES {
            true => 0,
            false => {
                superstep::arena_bytes(store, prog.edges(), std::mem::size_of::<P::Msg>() as u64)
            }
        };
    planned::required_by(store, prog) - whole + st.held_bytes()
}

/// A target id that does not fit the outbox for shard `j` (of `n` local
/// vertices): partition.json and the shard disagree.
fn too_wide(k: usize, j: usize, t: u64, n: u64) -> Error {
    Error::Invalid(format!(
        "shard {k}: local id {t} of shard {j} does not fit its outbox's {}-byte ids (partition.json says it has {n} vertices); partition the store again",
        id_bytes(n)
    ))
}
