//! Accumulating programs ([`accumulates`]: PageRank): the accumulator
//! words are the states and the out words the messages, so a vertex takes
//! two words and its degree (the kernel's contribution, sum and degrees).
//! `end` is the one pass a superstep: each vertex's accumulator and last
//! message through `apply_accumulated` into its next message, the
//! accumulator reset, the frontier and the sending blocks noted.

use super::{MemState, CHUNK};
use crate::engine::frontier::{Collect, Part};
use crate::engine::vertex::{accumulates, Aggregate, Value, VertexProgram, VertexView};
use crate::engine::words::{Word, Words};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// An accumulating program's state must encode as its message (it is the
/// message accumulator).
pub(super) fn check<P: VertexProgram>(prog: &P) -> Result<()> {
    let same = <P::State as Value>::BYTES == <P::Msg as Value>::BYTES;
    match !accumulates::<P>() || same && !P::IN_PLACE {
        true => Ok(()),
        false => Err(Error::Invalid(format!(
            "internal: {} accumulates, so its state must be its message's accumulator (and not in place)",
            prog.name()
        ))),
    }
}

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// Applies every vertex: its accumulator (reset) and last message
    /// through `apply_accumulated`; the next messages are the frontier.
    pub(super) fn apply_accumulated(&mut self, prog: &P) -> (Aggregate, u64) {
        let p = prog;
        let n = self.n;
        let owned = self.owned.clone();
        let deg = self
            .deg
            .as_ref()
            .expect("an accumulating state holds degrees");
        let Words { id, out, acc } = self.words.as_mut().expect("accumulator words");
        let id = *id;
        let col = Collect::default();
        let mut parts: Vec<(Aggregate, Part)> = acc[..n]
            .par_chunks_mut(CHUNK)
            .zip(out[..n].par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(c, (acc, out))| {
                let (mut agg, mut part) = (Aggregate::default(), col.part());
                for (i, (a, o)) in acc.iter_mut().zip(out).enumerate() {
                    let v = c * CHUNK + i;
                    let sum = std::mem::take(W::get_mut(a)) ^ id;
                    let o = W::get_mut(o);
                    if !owned.contains(&v) {
                        // A ghost sends nothing: its owner does.
                        *o = id;
                        continue;
                    }
                    let mut m = o.get::<P::Msg>();
                    let view = VertexView {
                        v: v as u64,
                        out_degree: deg.get(v),
                    };
                    p.apply_accumulated(view, sum.get(), &mut m, &mut agg);
                    *o = W::msg(m);
                    if *o != id {
                        part.push(v);
                    }
                }
                col.done(&part);
                (agg, part)
            })
            .collect();
        self.passes += 1;
        let mut agg = Aggregate::default();
        for (a, _) in &parts {
            agg.merge(a);
        }
        let mut parts: Vec<Part> = parts.iter_mut().map(|p| std::mem::take(&mut p.1)).collect();
        self.set_senders(&mut parts);
        self.ready = true;
        (agg, owned.len() as u64)
    }

    /// Every vertex's result ([`VertexProgram::value`]), by dense id.
    pub(super) fn accumulated_values(&self, prog: &P) -> Vec<P::State> {
        let deg = self
            .deg
            .as_ref()
            .expect("an accumulating state holds degrees");
        let w = self.words.as_ref().expect("accumulator words");
        (0..self.n)
            .into_par_iter()
            .map(|v| {
                let view = VertexView {
                    v: v as u64,
                    out_degree: deg.get(v),
                };
                let acc = (W::load(&w.acc[v]) ^ w.id).get();
                prog.value(view, &acc, W::load(&w.out[v]).get())
            })
            .collect()
    }
}
