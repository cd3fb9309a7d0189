//! Accumulating programs ([`accumulates`]: PageRank) on the external
//! engine: the record on disk is (state, message), the vertex's
//! accumulator and the message it sends, so the engine runs the program
//! through [`Acc`], an ordinary program over that record. Every vertex is
//! applied each superstep, in vertex order (interval by interval, on the
//! log and the grid paths alike), so the degrees `apply_accumulated` sees
//! are streamed beside the applies; a last pass over the state file turns
//! each record into the program's [`VertexProgram::value`].

use super::*;
use crate::engine::vertex::{accumulates, VertexInfo, VertexView};
use crate::engine::words::{unword, word};
use crate::store::degrees::DegreeStream;
use std::sync::Mutex;

/// One value's encoding read as another's (an accumulating program's
/// state and message encode alike).
#[inline]
fn cast<A: Value, B: Value>(a: A) -> B {
    unword(word(a))
}

/// The degrees of the vertices applied so far this superstep.
struct Degs {
    stream: Option<DegreeStream>,
    next: u64,
    failed: Option<Error>,
}

/// An accumulating program over its (accumulator, message) record.
struct Acc<'a, P: VertexProgram> {
    prog: &'a mut P,
    store: Store,
    degs: Mutex<Degs>,
}

impl<P: VertexProgram> Acc<'_, P> {
    /// The identity as a state (an empty accumulator).
    fn empty() -> P::State {
        unword(P::IDENTITY.expect("an accumulating program has an identity"))
    }

    /// The out-degree of `v`, the next vertex in order.
    fn degree(&self, v: u64) -> Option<u64> {
        let mut d = self.degs.lock().expect("not poisoned");
        if d.failed.is_some() {
            return None;
        }
        let got = match (v == d.next, d.stream.take()) {
            (false, _) => Err(Error::Invalid(format!(
                "internal: the external engine applied vertex {v} out of order (expected {})",
                d.next
            ))),
            (true, Some(s)) => Ok(s),
            (true, None) => DegreeStream::of(&self.store, "out"),
        }
        .and_then(|mut s| Ok((s.next_degree()?, s)));
        match got {
            Ok((deg, s)) => {
                d.stream = Some(s);
                d.next += 1;
                Some(deg)
            }
            Err(e) => {
                d.failed = Some(e);
                None
            }
        }
    }
}

impl<P: VertexProgram> VertexProgram for Acc<'_, P> {
    type State = (P::State, P::Msg);
    type Msg = P::Msg;
    const COMBINES: bool = true;
    const APPLY_ALL: bool = true;
    const IDENTITY: Option<u64> = P::IDENTITY;
    const SCATTER_PURE: bool = true;

    fn name(&self) -> &'static str {
        self.prog.name()
    }
    fn apply_all(&self) -> bool {
        self.prog.apply_all()
    }
    fn edges(&self) -> Edges {
        self.prog.edges()
    }
    fn weighted(&self) -> bool {
        self.prog.weighted()
    }
    fn init(&self, info: &VertexInfo, agg: &mut Aggregate) -> (Self::State, bool) {
        let (first, active) = self.prog.init(info, agg);
        ((Self::empty(), cast(first)), active)
    }
    fn begin(&mut self, step: usize, agg: &Aggregate) -> bool {
        let d = self.degs.get_mut().expect("not poisoned");
        (d.stream, d.next) = (None, 0);
        d.failed.is_none() && self.prog.begin(step, agg)
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &Self::State) -> Option<P::Msg> {
        (Some(word(s.1)) != P::IDENTITY).then_some(s.1)
    }
    #[inline]
    fn edge(&self, m: P::Msg, src: u64, dst: u64, w: f64) -> Option<P::Msg> {
        self.prog.edge(m, src, dst, w)
    }
    #[inline]
    fn edge_rev(&self, m: P::Msg, src: u64, dst: u64, w: f64) -> Option<P::Msg> {
        self.prog.edge_rev(m, src, dst, w)
    }
    #[inline]
    fn combine(a: P::Msg, b: P::Msg) -> P::Msg {
        P::combine(a, b)
    }
    fn apply(&self, v: u64, s: &mut Self::State, msgs: &[P::Msg], agg: &mut Aggregate) -> bool {
        let Some(out_degree) = self.degree(v) else {
            return false;
        };
        let acc = match msgs.first() {
            Some(&m) => cast(P::combine(cast(s.0), m)),
            None => s.0,
        };
        let mut out = s.1;
        let view = VertexView { v, out_degree };
        self.prog.apply_accumulated(view, acc, &mut out, agg);
        *s = (Self::empty(), out);
        Some(word(out)) != P::IDENTITY
    }
    fn end(&mut self, step: usize, agg: &Aggregate, active: u64) -> bool {
        self.prog.end(step, agg, active)
    }
}

/// [`run`] for an accumulating program: the supersteps over the records,
/// then each record rewritten in place as the vertex's value.
pub(super) fn run<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    cfg: &ExternalConfig,
    budget: &Budget,
) -> Result<(ExternalStates<P::State>, RunStats)> {
    debug_assert!(accumulates::<P>());
    let mut acc = Acc {
        prog,
        store: store.clone(),
        degs: Mutex::new(Degs {
            stream: None,
            next: 0,
            failed: None,
        }),
    };
    let (records, stats) = match store.manifest().slot_width() {
        SlotWidth::Narrow => run_with::<Acc<P>, u32>(store, &mut acc, max_steps, cfg, budget),
        SlotWidth::Wide => run_with::<Acc<P>, u64>(store, &mut acc, max_steps, cfg, budget),
    }?;
    if let Some(e) = acc.degs.into_inner().expect("not poisoned").failed {
        return Err(e);
    }
    let prog = &*acc.prog;
    let mut degs = DegreeStream::of(store, "out")?;
    let values = records.map_into(budget, |v, &(s, m)| {
        let view = VertexView {
            v,
            out_degree: degs.next_degree()?,
        };
        Ok(prog.value(view, &s, m))
    })?;
    Ok((values, stats))
}
