//! The engines of a run in memory ([`super::run`]), one superstep's
//! edges at a time: the planner prices the stream engine's tile bytes
//! against the select engine's pages for the frontier and the cheaper one
//! delivers the senders' messages into a [`MemState`]. The loop (begin,
//! [`Engines::step`], end) is the caller's: [`super::run`] on one store, a
//! shard's run ([`crate::engine::shard`]) between its exchanges.

use crate::engine::planner::{self, CostModel, EngineChoice, ExternalWork};
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::stats::{IterStats, RunStats};
use crate::engine::stream::{StreamConfig, StreamEngine};
use crate::engine::stream_vp::TileVp;
use crate::engine::superstep::MemState;
use crate::engine::vertex::VertexProgram;
use crate::engine::words::Word;
use crate::error::Result;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::progress::Progress;
use crate::store::csr::{Slot, SlotWidth};
use crate::store::degrees::Degrees;
use crate::store::Store;
use std::time::Instant;

/// Frontier vertices handed to the select engine at once.
const CHUNK: usize = 1 << 16;

/// The engines of a run on one store, over a state charged before them.
pub struct Engines {
    choice: EngineChoice,
    select_ok: bool,
    stream: Option<StreamEngine>,
    selects: Vec<SelectEngine>,
    select_share: SelectConfig,
    /// Select's lists: out, and in when messages go both ways.
    lists: u64,
    model: CostModel,
    /// Out-degrees for select's price (none for APPLY_ALL programs).
    deg: Option<Degrees>,
    _deg: Option<Charge>,
}

impl Engines {
    /// Opens the engines `choice` allows for `prog` on `store` (the state
    /// already charged to `budget`): the stream engine now, select when the
    /// planner first picks it. Returns them and the run's statistics so far.
    pub fn new<P: VertexProgram>(
        store: &Store,
        prog: &P,
        choice: EngineChoice,
        stream_cfg: StreamConfig,
        select_cfg: &SelectConfig,
        budget: &Budget,
    ) -> Result<(Engines, RunStats)> {
        let m = store.manifest();
        let n = m.num_vertices;
        let (stream_ok, select_ok) = planner::engines_ok(store, prog, choice)?;
        let (deg, _deg) = if planner::holds_degrees::<P>(choice) {
            let c = budget.charge(Degrees::memory_bytes(n), "degrees for the planner")?;
            (Some(Degrees::of(store, "out")?), Some(c))
        } else {
            (None, None)
        };
        let stream = if stream_ok {
            let mut cfg = stream_cfg;
            cfg.label = prog.name().to_string();
            if cfg.cache_bytes.is_none() {
                cfg.cache_bytes = planner::stream_cache_bytes(select_ok, budget.available());
            }
            Some(StreamEngine::new(store, budget, cfg)?)
        } else {
            None
        };
        let lists = if m.directed && prog.edges().both() {
            2
        } else {
            1
        };
        // Opened when the planner first picks select (a run whose supersteps
        // all stream never loads its page sums nor maps its pools), with the
        // share left now beside the stream engine's cache.
        let select_share = SelectConfig {
            pool_bytes: Some(planner::select_pool_bytes(budget.available(), lists)),
            ..select_cfg.clone()
        };
        let mut stats = match &stream {
            Some(s) => s.new_stats(),
            None => RunStats::default(),
        };
        stats.algorithm = prog.name().into();
        stats.engine = format!("{choice:?}").to_lowercase();
        stats.memory_budget = budget.limit();
        let engines = Engines {
            choice,
            select_ok,
            stream,
            selects: Vec::new(),
            select_share,
            lists,
            model: CostModel::for_store(store),
            deg,
            _deg,
        };
        Ok((engines, stats))
    }

    /// Delivers superstep `step`'s messages (after `st.begin`) on the
    /// engine the planner picks: the superstep's statistics. `store` and
    /// `budget` are the ones the engines were opened on.
    #[allow(clippy::too_many_arguments)]
    pub fn step<P: VertexProgram, W: Word>(
        &mut self,
        store: &Store,
        budget: &Budget,
        st: &mut MemState<P, W>,
        prog: &mut P,
        step: usize,
        stats: &mut RunStats,
        progress: &mut Progress,
    ) -> Result<IterStats> {
        let m = store.manifest();
        let (n, page, lists) = (m.num_vertices, m.csr.page_bytes, self.lists);
        let it0 = Instant::now();
        let sending = st.senders;
        let stream_bytes =
            (self.stream.as_ref()).map(|s| s.estimate_bytes(&TileVp::new(store, &mut *st, prog)));
        // Select's price: each list's pages plus its offsets page (priced
        // for --stats even when Auto left the select engine out). Every
        // list costs a page at least: when that floor already loses to the
        // stream, it stands for the price (a dense superstep is not walked
        // vertex by vertex just to be told it streams).
        let floor = sending * lists;
        let model = &self.model;
        let loses = |pages: u64| {
            stream_bytes.is_some_and(|b| model.select_seconds(pages) > model.stream_seconds(b))
        };
        let select_pages = (self.choice != EngineChoice::Stream).then(|| {
            if loses(floor) {
                return floor;
            }
            let Some(deg) = &self.deg else {
                // No degrees held (APPLY_ALL): the bound every list's
                // ceil(d / slots per page) <= d / slots per page + 1 gives.
                let adj = m.csr.out_slots / m.slot_width().per_page(page) + sending;
                return (adj + (n * 8).div_ceil(page)) * lists;
            };
            let mut pages = 0u64;
            let mut last_off = u64::MAX;
            for v in st.senders() {
                pages += deg
                    .get(v as usize)
                    .div_ceil(m.slot_width().per_page(page))
                    .max(1);
                let op = v * 8 / page;
                if op != last_off {
                    pages += 1;
                    last_off = op;
                }
            }
            pages * lists
        });
        let ext = ExternalWork::estimate(
            sending,
            n,
            m.csr.out_entries,
            m.adjacency_bytes("out") + prog.weighted() as u64 * m.weight_bytes("out"),
            4 + std::mem::size_of::<P::Msg>() as u64,
            // Accumulating: the record is (state, message).
            (std::mem::size_of::<P::State>()
                + crate::engine::vertex::accumulates::<P>() as usize
                    * std::mem::size_of::<P::Msg>()) as u64,
        );
        let mut est = planner::choose(
            model,
            stream_bytes,
            select_pages.filter(|_| self.select_ok).map(|p| (p, page)),
            Some(&ext),
        );
        if let (false, Some(p)) = (self.select_ok, select_pages) {
            planner::price_select(&mut est, model, p, page);
        }
        let mut it = if est.chosen == "stream" {
            let s = self.stream.as_mut().expect("stream engine");
            let tp = TileVp::new(store, &mut *st, prog);
            s.iterate(&tp, step, progress)?
        } else {
            if self.selects.is_empty() {
                for dir in ["out", "in"].into_iter().take(lists as usize) {
                    let sel =
                        SelectEngine::new(store, dir, prog.weighted(), budget, &self.select_share)?;
                    self.selects.push(sel);
                }
                stats.io_backend = self.selects[0].reader().backend().to_string();
                stats.direct_io = self.selects[0].reader().direct(0);
            }
            match m.slot_width() {
                SlotWidth::Narrow => select_step::<P, W, u32>(&mut self.selects, st, prog, it0)?,
                SlotWidth::Wide => select_step::<P, W, u64>(&mut self.selects, st, prog, it0)?,
            }
        };
        it.iteration = step;
        it.planner = Some(est);
        it.active_vertices = sending;
        it.sparse_frontier = st.frontier().is_sparse();
        Ok(it)
    }

    /// The run's totals in `stats` (started at `t0`).
    pub fn finish(&self, stats: &mut RunStats, t0: Instant) {
        if let Some(s) = &self.stream {
            s.finish_stats(stats, t0);
        }
        for s in &self.selects {
            let io = s.reader().stats();
            stats.bytes_read += io.bytes_read;
            stats.read_requests += io.requests;
            stats.io_wait_seconds += io.wait_seconds;
            stats.pages_touched += s.stats().pages_touched;
        }
        stats.wall_seconds = t0.elapsed().as_secs_f64();
        stats.compute_seconds = (stats.wall_seconds - stats.io_wait_seconds).max(0.0);
        stats.peak_rss_bytes = crate::mem::peak_rss_bytes();
    }
}

/// One superstep on the select engine(s): the frontier's lists, page by
/// page, delivered from this thread; ids of type `T` (u64 on a wide
/// store, so no id is cut to 32 bits).
fn select_step<P: VertexProgram, W: Word, T: Slot>(
    selects: &mut [SelectEngine],
    st: &MemState<P, W>,
    prog: &P,
    t0: Instant,
) -> Result<IterStats> {
    let io0: Vec<_> = selects
        .iter()
        .map(|s| (s.reader().stats(), s.stats().pages_touched))
        .collect();
    let mut edges = 0u64;
    // A second engine holds in-lists: an in-neighbour u of v gets v's
    // message as if the arc were v -> u (Edges::Both).
    for (i, sel) in selects.iter_mut().enumerate() {
        let rev = i == 1;
        st.for_each_sender_chunk(CHUNK, |chunk: &[T]| {
            if prog.weighted() {
                sel.for_each_weighted(chunk, |v, nbrs, wts| {
                    edges += nbrs.len() as u64;
                    for (&u, &w) in nbrs.iter().zip(wts) {
                        // SAFETY: deliveries come from this thread only.
                        unsafe { st.deliver(prog, v.get() as usize, u.get() as usize, w, rev) };
                    }
                    Ok(())
                })
            } else {
                sel.for_each_list(chunk, |v, nbrs| {
                    edges += nbrs.len() as u64;
                    for &u in nbrs {
                        // SAFETY: deliveries come from this thread only.
                        unsafe { st.deliver(prog, v.get() as usize, u.get() as usize, 1.0, rev) };
                    }
                    Ok(())
                })
            }
        })?;
    }
    let mut it = IterStats {
        engine: "select",
        edges_processed: edges,
        ..Default::default()
    };
    for (s, (io, pages)) in selects.iter().zip(io0) {
        let now = s.reader().stats();
        it.bytes_read += now.bytes_read - io.bytes_read;
        it.read_requests += now.requests - io.requests;
        it.io_wait_seconds += now.wait_seconds - io.wait_seconds;
        it.pages_touched += s.stats().pages_touched - pages;
    }
    it.compute_seconds = (t0.elapsed().as_secs_f64() - it.io_wait_seconds).max(0.0);
    Ok(it)
}
