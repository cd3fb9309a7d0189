//! A vertex program run in memory with an engine per superstep: before each
//! superstep the planner prices the tile bytes the stream engine would read
//! (sending rows, cached tiles free) against the pages the select engine
//! would read for the frontier's lists (RASP's choice), and the superstep
//! runs on the cheaper one over the shared state (`superstep::MemState`).
//! `--engine stream|select` forces one; weighted programs run on select.

use crate::engine::planner::{self, CostModel, EngineChoice, ExternalWork};
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::stats::{IterStats, RunStats};
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::engine::stream_vp::{self, TileVp};
use crate::engine::superstep::MemState;
use crate::engine::vertex::{Edges, VertexProgram};
use crate::engine::words::{word_bytes, Word};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::progress::Progress;
use crate::store::csr::{Slot, SlotWidth};
use crate::store::degrees::Degrees;
use crate::store::Store;
use std::time::Instant;

/// Frontier vertices handed to the select engine at once.
const CHUNK: usize = 1 << 16;

/// The in-memory state [`run`] charges for `P` on `n` vertices (the
/// program's state and messages, and the degrees the planner prices select
/// with; a program whose every vertex sends every superstep is priced from
/// the store's totals instead, and keeps those bytes for the tile cache).
pub fn state_bytes<P: VertexProgram>(n: u64) -> u64 {
    let deg = if P::APPLY_ALL {
        0
    } else {
        Degrees::memory_bytes(n)
    };
    crate::engine::superstep::state_bytes::<P>(n) + deg
}

/// The least budget [`run`] accepts for `P` on `store`.
pub fn required<P: VertexProgram>(store: &Store) -> u64 {
    required_bytes(store, state_bytes::<P>(store.manifest().num_vertices)) + (4 << 20)
}

/// The least budget [`run`] accepts for `prog` on `store`: [`required`]
/// plus, for a program whose messages do not combine, the worst case of
/// its grouped messages (every list entry delivers one;
/// [`crate::engine::superstep::arena_bytes`]).
pub fn required_by<P: VertexProgram>(store: &Store, prog: &P) -> u64 {
    let msg = std::mem::size_of::<P::Msg>() as u64;
    required::<P>(store)
        + match P::COMBINES {
            true => 0,
            false => crate::engine::superstep::arena_bytes(store, prog.edges(), msg),
        }
}

/// Runs `prog` in memory for at most `max_steps` supersteps, each on the
/// engine `choice` names (`Auto`: the planner's pick); returns the states.
pub fn run<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    choice: EngineChoice,
    stream_cfg: StreamConfig,
    select_cfg: &SelectConfig,
    budget: &Budget,
) -> Result<(Vec<P::State>, RunStats)> {
    let (s, c) = (stream_cfg, select_cfg);
    match word_bytes::<P>() {
        4 => run_in::<P, u32>(store, prog, max_steps, choice, s, c, budget),
        _ => run_in::<P, u64>(store, prog, max_steps, choice, s, c, budget),
    }
}

/// [`run`] with the messages in words of `W`.
fn run_in<P: VertexProgram, W: Word>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    choice: EngineChoice,
    stream_cfg: StreamConfig,
    select_cfg: &SelectConfig,
    budget: &Budget,
) -> Result<(Vec<P::State>, RunStats)> {
    let t0 = Instant::now();
    let m = store.manifest();
    let n = m.num_vertices;
    let stream_ok = stream_vp::supports(prog) && choice != EngineChoice::Select;
    // Auto leaves select out for programs whose every vertex sends every
    // superstep (PageRank): it could not win, and the stream engine keeps
    // the whole cache.
    let select_ok = choice != EngineChoice::Stream
        && !(choice == EngineChoice::Auto && P::APPLY_ALL && stream_ok);
    if choice == EngineChoice::External || !stream_ok && !select_ok {
        return Err(Error::Invalid(format!(
            "{} cannot run in memory on the {} engine; use --engine external",
            prog.name(),
            format!("{choice:?}").to_lowercase()
        )));
    }
    let state = state_bytes::<P>(n);
    let need = required_by(store, prog);
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "{} on {n} vertices needs at least {} in memory; raise --memory or use --engine external",
            prog.name(),
            crate::size::format_size(need)
        )));
    }
    let mut st = MemState::<P, W>::new(store, prog, budget)?;
    let (deg, _deg) = if P::APPLY_ALL {
        (None, None)
    } else {
        let c = budget.charge(Degrees::memory_bytes(n), "degrees for the planner")?;
        (Some(Degrees::load(store.root(), "out")?), Some(c))
    };
    let mut stream = if stream_ok {
        let mut cfg = stream_cfg;
        cfg.label = prog.name().to_string();
        if select_ok && cfg.cache_bytes.is_none() {
            // Dense supersteps (stream) move far more bytes than sparse
            // ones (select): the tile cache takes three quarters.
            cfg.cache_bytes = Some(budget.available() / 4 * 3);
        }
        Some(StreamEngine::new(store, budget, cfg)?)
    } else {
        None
    };
    // Select: out-lists, and in-lists when messages go both ways.
    let lists = if m.directed && prog.edges() == Edges::Both {
        2
    } else {
        1
    };
    // Opened when the planner first picks select (a run whose supersteps
    // all stream never loads its page sums nor maps its pools), with the
    // share left now beside the stream engine's cache.
    let select_share = SelectConfig {
        pool_bytes: Some(budget.available().saturating_sub(8 << 20) / lists),
        ..select_cfg.clone()
    };
    let weighted = prog.weighted();
    let open_selects = |selects: &mut Vec<SelectEngine>, stats: &mut RunStats| -> Result<()> {
        for dir in ["out", "in"].into_iter().take(lists as usize) {
            let sel = SelectEngine::new(store, dir, weighted, budget, &select_share)?;
            selects.push(sel);
        }
        stats.io_backend = selects[0].reader().backend().to_string();
        stats.direct_io = selects[0].reader().direct(0);
        Ok(())
    };
    let mut selects = Vec::new();
    let model = CostModel::for_store(store);
    let page = m.csr.page_bytes;
    let mut stats = match &stream {
        Some(s) => s.new_stats(),
        None => RunStats::default(),
    };
    stats.algorithm = prog.name().into();
    stats.engine = format!("{choice:?}").to_lowercase();
    stats.memory_budget = budget.limit();
    stats.vertex_state_bytes = state;
    let mut progress = if max_steps < usize::MAX {
        Progress::bar(prog.name(), max_steps as u64, crate::progress::Unit::Steps)
    } else {
        Progress::new(prog.name())
    };
    let mut step = 0;
    while step < max_steps {
        crate::cancel::check()?;
        let passes = st.passes;
        if !st.begin(prog, step) {
            break;
        }
        let it0 = Instant::now();
        let sending = st.senders;
        let stream_bytes = stream
            .as_ref()
            .map(|s| s.estimate_bytes(&TileVp::new(store, &mut st, prog)));
        // Select's price: each list's pages plus its offsets page (priced
        // for --stats even when Auto left the select engine out). Every
        // list costs a page at least: when that floor already loses to the
        // stream, it stands for the price (a dense superstep is not walked
        // vertex by vertex just to be told it streams).
        let floor = sending * lists;
        let loses = |pages: u64| {
            stream_bytes.is_some_and(|b| model.select_seconds(pages) > model.stream_seconds(b))
        };
        let select_pages = (choice != EngineChoice::Stream).then(|| {
            if loses(floor) {
                return floor;
            }
            let Some(deg) = &deg else {
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
            &model,
            stream_bytes,
            select_pages.filter(|_| select_ok).map(|p| (p, page)),
            Some(&ext),
        );
        if let (false, Some(p)) = (select_ok, select_pages) {
            planner::price_select(&mut est, &model, p, page);
        }
        let mut it = if est.chosen == "stream" {
            let s = stream.as_mut().expect("stream engine");
            let tp = TileVp::new(store, &mut st, prog);
            s.iterate(&tp, step, &mut progress)?
        } else {
            if selects.is_empty() {
                open_selects(&mut selects, &mut stats)?;
            }
            match m.slot_width() {
                SlotWidth::Narrow => select_step::<P, W, u32>(&mut selects, &st, prog, it0)?,
                SlotWidth::Wide => select_step::<P, W, u64>(&mut selects, &st, prog, it0)?,
            }
        };
        it.iteration = step;
        it.planner = Some(est);
        it.active_vertices = sending;
        it.sparse_frontier = st.frontier().is_sparse();
        let end = st.end(prog, step);
        it.state_passes = st.passes - passes;
        it.seconds = it0.elapsed().as_secs_f64();
        progress.tick(|| format!("superstep {step}: {} sending, on {}", sending, it.engine));
        stats.iterations.push(it);
        step += 1;
        progress.set(step as u64);
        if end.done {
            break;
        }
    }
    if let Some(s) = &stream {
        s.finish_stats(&mut stats, t0);
    }
    for s in &selects {
        let io = s.reader().stats();
        stats.bytes_read += io.bytes_read;
        stats.read_requests += io.requests;
        stats.io_wait_seconds += io.wait_seconds;
        stats.pages_touched += s.stats().pages_touched;
    }
    stats.wall_seconds = t0.elapsed().as_secs_f64();
    stats.compute_seconds = (stats.wall_seconds - stats.io_wait_seconds).max(0.0);
    stats.peak_rss_bytes = crate::mem::peak_rss_bytes();
    progress.done(|| format!("{step} supersteps"));
    Ok((st.take_states(prog), stats))
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
