//! Ghost mirrors for grouped programs on shards (Gemini's master/mirror
//! vertices; PowerGraph's ghosts): the owner of a boundary vertex v sends
//! v's *scatter value* once to each shard that holds v as a ghost, and
//! that shard delivers it along its own copies of v's edges (a shard
//! store holds every edge with an endpoint it owns, so the edges between
//! v and its owned vertices are there). The owner no longer delivers to
//! ghosts. A grouped program's messages do not combine, so without
//! mirrors a superstep sends one message per cross-shard edge direction;
//! with them, at most one per ghost, and only from vertices that send.
//!
//! The value is computed by the owner because a ghost's local degree is
//! partial; the receiving shard reads the injected value, never
//! `scatter` of its ghost copy.
//!
//! Which shards hold v: shard j holds v as a ghost exactly when an edge
//! joins v and a vertex j owns, and every such edge is in this shard's
//! store too (v is owned here), so one scan of the out lists at open
//! finds them. Shard j's ghosts owned here are laid out in global id
//! order after its earlier owners' groups ([`super::ShardIds`]), so the
//! i-th vertex found for j is j's local id `first[j] + i`.
//!
//! `OUTCORE_GHOST_MIRRORS=0` turns them off (the exchange of one message
//! per cross edge direction, to compare).

use super::{id_bytes, Outbox, ShardIds};
use crate::engine::bits::Bits;
use crate::engine::superstep::MemState;
use crate::engine::vertex::{Value, VertexProgram};
use crate::engine::words::Word;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::csrscan::scan_csr;
use crate::store::partition::{PartitionManifest, ShardInfo};
use crate::store::Store;

/// False when `OUTCORE_GHOST_MIRRORS=0` turns the mirrors off.
pub(super) fn enabled() -> bool {
    std::env::var("OUTCORE_GHOST_MIRRORS").map_or(true, |v| v != "0")
}

/// Charges shard `k`'s exchange to `budget` for the run, when a superstep
/// sends and receives at most one message per ghost (a combining program,
/// or a grouped one with mirrors): out, one per vertex of `k` another
/// shard holds; in, one per ghost of `k` (or the reverse); a target id of
/// the receiver's width ([`id_bytes`]) and the message each. `None`
/// without that bound (mirrors off).
pub(super) fn charge_exchange<P: VertexProgram>(
    m: &PartitionManifest,
    k: usize,
    mirrors: bool,
    budget: &Budget,
) -> Result<Option<Charge>> {
    if !P::COMBINES && !mirrors {
        return Ok(None);
    }
    let b = <P::Msg as Value>::BYTES as u64;
    let width = |s: &ShardInfo| id_bytes(s.owned + s.ghost_count()) as u64;
    // Out: j's ghosts owned here, in j's ids; in: the ghosts here, in ours.
    let out: u64 = m.shards.iter().map(|s| s.ghosts[k] * (width(s) + b)).sum();
    let mine = &m.shards[k];
    let bytes = out + mine.ghost_count() * (width(mine) + b);
    Ok(Some(budget.charge(bytes, "outboxes and inboxes")?))
}

/// Which owned vertices other shards hold as ghosts, and where.
pub(super) struct Mirrors {
    /// Per shard j: bit i is set when j holds owned vertex
    /// `owned.start + i` as a ghost (empty for this shard).
    held: Vec<Bits>,
    /// Per shard j: the local id on j of its first ghost owned here.
    first: Vec<u64>,
    _charge: Charge,
}

impl Mirrors {
    /// The mirrors of shard `ids.k`, from one scan of its out lists,
    /// checked against the ghost counts of partition.json.
    pub(super) fn load(
        m: &PartitionManifest,
        store: &Store,
        ids: &ShardIds,
        budget: &Budget,
    ) -> Result<Mirrors> {
        let (k, parts) = (ids.k, ids.parts);
        let owned = ids.owned.clone();
        let bytes = (parts as u64 - 1) * Bits::bytes(owned.len() as u64);
        let charge = budget.charge(bytes, "ghost mirrors")?;
        let mut held: Vec<Bits> = (0..parts)
            .map(|j| Bits::new(if j == k { 0 } else { owned.len() }))
            .collect();
        let owner = |u: usize| ids.ghosts.iter().position(|g| g.contains(&u));
        scan_csr(store, "out", false, |s, _, d, _| {
            let (s, d) = (s as usize, d as usize);
            match (owned.contains(&s), owned.contains(&d)) {
                (true, false) => owner(d).map(|j| held[j].set(s - owned.start, true)),
                (false, true) => owner(s).map(|j| held[j].set(d - owned.start, true)),
                _ => None,
            };
            Ok(())
        })?;
        let mut first = vec![0u64; parts];
        for j in (0..parts).filter(|&j| j != k) {
            let s = &m.shards[j];
            first[j] = (0..k)
                .map(|i| if i == j { s.owned } else { s.ghosts[i] })
                .sum();
            let found = held[j].ones().count() as u64;
            if found != s.ghosts[k] {
                return Err(Error::store(
                    store.path(),
                    format!("shard {k}: its edges join {found} of its vertices to shard {j}'s, but partition.json says shard {j} holds {} of them; partition the store again", s.ghosts[k]),
                ));
            }
        }
        Ok(Mirrors {
            held,
            first,
            _charge: charge,
        })
    }

    /// This superstep's outboxes: each sending owned vertex's message,
    /// once to every shard that holds it, as that shard's ghost id.
    pub(super) fn outboxes<P: VertexProgram, W: Word>(
        &self,
        st: &MemState<P, W>,
        ids: &ShardIds,
    ) -> Result<Vec<Outbox>> {
        let b = <P::Msg as Value>::BYTES;
        let mut out = Vec::new();
        for (j, held) in self.held.iter().enumerate().filter(|&(j, _)| j != ids.k) {
            let mut bx = Outbox::new(j, ids.id_bytes(j));
            for (x, i) in held.ones().enumerate() {
                if let Some(m) = st.message(ids.owned.start + i) {
                    let t = self.first[j] + x as u64;
                    if !bx.targets.push(t) {
                        return Err(super::too_wide(ids.k, j, t, ids.sizes[j]));
                    }
                    let at = bx.bytes.len();
                    bx.bytes.resize(at + b, 0);
                    m.put(&mut bx.bytes[at..]);
                }
            }
            if !bx.targets.is_empty() {
                out.push(bx);
            }
        }
        Ok(out)
    }
}
