//! A run's setup before its first superstep (the external engine:
//! GraFBoost's sort-reduce over PartitionedVC's multi-log): the CSR lists
//! the messages travel along, the scatter's buffers, and the init pass
//! that writes every interval's first states and active bits to disk.

use super::disk::{align_up, write_all};
use super::logstep::Spill;
use super::scatter::{coded_bytes, ListFiles, ScatterBufs};
use crate::engine::state::BLOCK;
use crate::engine::vertex::{Aggregate, Value, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::io::{AlignedBuf, Reader, ALIGN};
use crate::mem::Budget;
use crate::store::csrcode::PageDir;
use crate::store::delta::DeltaLists;
use crate::store::pagesums::PageSums;
use crate::store::Store;
use std::sync::Arc;

/// The lists the messages travel along, one per direction in `dirs`
/// (the coded adjacency when the store is compressed, the weights when
/// `weighted`), each with its page sums.
pub(super) fn open_lists(
    store: &Store,
    reader: &mut Reader,
    dirs: &[&str],
    weighted: bool,
    budget: &Budget,
) -> Result<Vec<ListFiles>> {
    let mut lists = Vec::new();
    for d in dirs {
        let (a, o, w) = crate::store::csr::files(d);
        let coded = PageDir::load(store, d, budget)?.map(Arc::new);
        let a = match coded {
            Some(_) => crate::store::csrcode::files(d).0,
            None => a,
        };
        let sums = |rel: &str| PageSums::load(store, rel, budget);
        // The delta's lists (the L seam), merged by `for_each_edge`.
        let delta = match DeltaLists::load(store, d)? {
            Some(l) => {
                let held = budget.charge(l.memory_bytes(), "delta lists")?;
                Some(Arc::new((l, held)))
            }
            None => None,
        };
        lists.push(ListFiles {
            n_base: store.base().num_vertices,
            delta,
            rel: a.clone(),
            width: store.manifest().slot_width(),
            coded,
            adj: store.open_in(reader, &a, "adjacency")?,
            off: store.open_in(reader, &o, "offsets")?,
            weights: if weighted {
                Some(store.open_in(reader, &w, "weights")?)
            } else {
                None
            },
            sums: [
                sums(&a)?,
                sums(&o)?,
                if weighted { sums(&w)? } else { None },
            ],
        });
    }
    Ok(lists)
}

/// The scatter's buffers: an interval's (`iv` vertices) offsets, and two
/// of each for the adjacency read `chunk` bytes at a time, its weights
/// (when `weighted`) and its coded form (when `compressed`).
pub(super) fn scatter_bufs(
    iv: u64,
    chunk: usize,
    weighted: bool,
    compressed: bool,
    budget: &Budget,
) -> Result<ScatterBufs> {
    Ok(ScatterBufs {
        off: AlignedBuf::new(
            ((iv + 1) * 8) as usize + 2 * ALIGN,
            budget,
            "external engine offsets",
        )?,
        off_held: None,
        adj: [
            AlignedBuf::new(chunk, budget, "external engine adjacency")?,
            AlignedBuf::new(chunk, budget, "external engine adjacency")?,
        ],
        wts: if weighted {
            Some([
                AlignedBuf::new(2 * chunk, budget, "external engine weights")?,
                AlignedBuf::new(2 * chunk, budget, "external engine weights")?,
            ])
        } else {
            None
        },
        coded: match compressed {
            true => Some([
                AlignedBuf::new(
                    coded_bytes(chunk),
                    budget,
                    "external engine coded adjacency",
                )?,
                AlignedBuf::new(
                    coded_bytes(chunk),
                    budget,
                    "external engine coded adjacency",
                )?,
            ]),
            false => None,
        },
    })
}

/// Init: every vertex's first state and active bit from its out-degree
/// and rank, streamed interval by interval through `state_buf` and
/// `bits_buf` into the state and active files; counts the active vertices
/// of each interval (`active_count`) and of each tile block (`blk_active`),
/// and each block's stored out-degrees (`blk_degree`).
#[allow(clippy::too_many_arguments)]
pub(super) fn init_states<P: VertexProgram>(
    prog: &mut P,
    reader: &mut Reader,
    spill: &Spill,
    state_buf: &mut AlignedBuf,
    bits_buf: &mut AlignedBuf,
    active_count: &mut [u64],
    blk_active: &mut [u64],
    blk_degree: &mut [u64],
    agg: &mut Aggregate,
) -> Result<()> {
    let Spill {
        store,
        bounds,
        state_file,
        bits_file,
        stride,
        bit_stride,
        ..
    } = *spill;
    let sbytes = P::State::BYTES;
    let k = bounds.len() - 1;
    let mut degs = crate::store::degrees::DegreeStream::of(store, "out")?;
    let mut ranks = store.rank_reader()?;
    for i in 0..k {
        let (lo, hi) = (bounds[i], bounds[i + 1]);
        let s = state_buf.as_mut_slice();
        let b = bits_buf.as_mut_slice();
        b.fill(0);
        for v in lo..hi {
            let info = VertexInfo {
                v,
                rank: ranks.next_rank()?,
                out_degree: degs.next_degree()?,
            };
            blk_degree[v as usize / BLOCK] += info.out_degree;
            let (st, act) = prog.init(&info, agg);
            let x = (v - lo) as usize;
            st.put(&mut s[x * sbytes..]);
            if act {
                b[x / 8] |= 1 << (x % 8);
                active_count[i] += 1;
                blk_active[v as usize / BLOCK] += 1;
            }
        }
        let len = align_up(((hi - lo) as usize * sbytes) as u64) as usize;
        write_all(reader, state_file, i as u64 * stride, &s[..len])?;
        let blen = align_up((hi - lo).div_ceil(8)) as usize;
        write_all(reader, bits_file, i as u64 * bit_stride, &b[..blen])?;
    }
    Ok(())
}
