//! A program's in-memory state: what it costs ([`state_bytes`], by the
//! message form the program declares) and how it starts
//! ([`MemState::new_in`]: the message words, the initial states from
//! `init`, the first senders of an accumulating program, the grouped
//! arena).

use super::{accumulate, grouped, in_place, init, Cells, MemState, CHUNK};
use crate::engine::bits::{AtomicBits, Bits};
use crate::engine::frontier::{Collect, Part};
use crate::engine::state::BLOCK;
use crate::engine::superstep::Local;
use crate::engine::vertex::{accumulates, Aggregate, Value, VertexProgram};
use crate::engine::words::{word_bytes, Word, Words};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::degrees::Degrees;
use crate::store::Store;
use std::cell::UnsafeCell;

/// In-memory bytes per vertex of `P`.
pub fn state_bytes<P: VertexProgram>(n: u64) -> u64 {
    held_state_bytes::<P>(n, n)
}

/// [`state_bytes`] on a shard of `n` local vertices of which `held` hold
/// a state ([`MemState::held`](super::MemState)): the others (ghosts)
/// hold their message cells and bits only.
pub fn held_state_bytes<P: VertexProgram>(n: u64, held: u64) -> u64 {
    // Words are padded to whole blocks.
    let msgs = match P::IDENTITY {
        // In place: the state words and one bit a vertex, nothing else.
        Some(_) if P::IN_PLACE => {
            return word_bytes::<P>() * n.next_multiple_of(BLOCK as u64) + Bits::bytes(n);
        }
        // Accumulating: the out and accumulator (state) words and the
        // degrees, nothing else.
        Some(_) if accumulates::<P>() => {
            return 2 * word_bytes::<P>() * n.next_multiple_of(BLOCK as u64)
                + Degrees::memory_bytes(n);
        }
        Some(_) if P::COMBINES && <P::Msg as Value>::BYTES <= 8 => {
            let w = word_bytes::<P>();
            2 * w * n.next_multiple_of(BLOCK as u64)
        }
        // Grouped: the messages go to an arena ([`arena_bytes`], charged
        // apart), so one `Option` a vertex.
        _ if !P::COMBINES => std::mem::size_of::<Option<P::Msg>>() as u64 * n,
        _ => 2 * std::mem::size_of::<Option<P::Msg>>() as u64 * n,
    };
    // One bit a vertex for the next frontier.
    held * std::mem::size_of::<P::State>() as u64 + Bits::bytes(n) + msgs
}

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// Initial states from the degrees and ranks (charged to `budget`), the
    /// messages in words of `W` ([`word_bytes`] of `P`).
    pub fn new(store: &Store, prog: &P, budget: &Budget) -> Result<MemState<P, W>> {
        Self::new_in(store, prog, budget, None)
    }

    /// [`MemState::new`] on a shard (`local`): ghosts start inactive and
    /// silent (their `init`s add nothing to the aggregate), and `init` sees
    /// the global ranks. Ghosts hold no state, and with `local.mirrors` no
    /// grouped-arena row: the charge is what is held.
    pub fn new_in(
        store: &Store,
        prog: &P,
        budget: &Budget,
        local: Option<&Local>,
    ) -> Result<MemState<P, W>> {
        if W::BYTES != word_bytes::<P>() {
            return Err(Error::Invalid(format!(
                "internal: {} sends {}-byte words, not {}",
                prog.name(),
                word_bytes::<P>(),
                W::BYTES
            )));
        }
        in_place::check(prog)?;
        accumulate::check(prog)?;
        let n = store.manifest().num_vertices as usize;
        let owned = local.map_or(0..n, |l| l.owned.clone());
        let held = match local {
            Some(l) if !l.ghost_states => owned.start / CHUNK * CHUNK..owned.end,
            _ => 0..n,
        };
        let bytes = held_state_bytes::<P>(n as u64, held.len() as u64);
        let charge = budget.charge(bytes, "vertex program state")?;
        let mut agg = Aggregate::default();
        let blocks = n.div_ceil(BLOCK).max(1);
        let mut words = P::IDENTITY
            .filter(|_| P::COMBINES && <P::Msg as Value>::BYTES <= 8)
            .map(|id| Words {
                id: W::of(id),
                out: crate::mem::huge_vec_par(blocks * BLOCK, |_| W::cell(W::of(id))),
                acc: match P::IN_PLACE {
                    true => Vec::new(),
                    false => crate::mem::huge_vec_par(blocks * BLOCK, |_| W::cell(W::default())),
                },
            });
        let in_place = P::IN_PLACE;
        let acc_form = accumulates::<P>();
        let lean = in_place || acc_form;
        let mut states = Vec::with_capacity(if lean { 0 } else { held.len() });
        let mut active = Bits::new(if lean { 0 } else { n });
        let deg = match acc_form {
            true => Some(Degrees::of(store, "out")?),
            false => None,
        };
        // Accumulating: init gives each vertex's first message.
        let mut sending = Bits::new(blocks);
        let col = Collect::default();
        let mut firsts: Vec<Part> = Vec::new();
        let changed = AtomicBits::new(if in_place { n } else { 0 });
        let received = AtomicBits::new(blocks);
        let mut input = init::Input::open(store, local)?;
        while input.next()? {
            let (start, len) = (input.start, input.rank.len());
            match &mut words {
                Some(w) if in_place || acc_form => {
                    let out = &mut w.out[start..start + len];
                    let bits = (&changed, &received);
                    for c in init::words(prog, &input, out, w.id, in_place, bits, &col) {
                        agg.merge(&c.agg);
                        firsts.push(c.part);
                    }
                }
                _ => {
                    for i in 0..len {
                        let (s, a) = input.init(prog, i, &mut agg);
                        if held.contains(&(start + i)) {
                            states.push(s);
                        }
                        active.set(start + i, a);
                    }
                }
            }
        }
        // Accumulating: the blocks of the vertices that send first.
        for (c, p) in firsts.iter().enumerate() {
            if p.count > 0 {
                sending.set(c * CHUNK / BLOCK, true);
            }
        }
        let senders = firsts.iter().map(|p| p.count).sum();
        let general = if words.is_some() { 0 } else { n };
        // With ghost mirrors a ghost never receives: rows for the held
        // vertices, slots for the owned ones.
        let mirrors = local.is_some_and(|l| l.mirrors);
        let grouped = match (P::COMBINES, mirrors) {
            (true, _) => None,
            (false, true) => Some(grouped::Arena::new(
                store,
                prog,
                budget,
                held.clone(),
                owned.clone(),
            )?),
            (false, false) => Some(grouped::Arena::new(store, prog, budget, 0..n, 0..n)?),
        };
        let cells = if grouped.is_some() { 0 } else { general };
        Ok(MemState {
            n,
            states,
            out: vec![None; general],
            acc: Cells((0..cells).map(|_| UnsafeCell::new(None)).collect()),
            words,
            grouped,
            active,
            sending,
            received,
            senders,
            frontier: Collect::frontier(&mut firsts),
            ready: acc_form,
            passes: 0,
            changed,
            deg,
            agg,
            owned,
            held,
            mirrors,
            _charge: charge,
        })
    }
}
