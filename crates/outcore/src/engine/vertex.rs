//! The vertex program: an algorithm written once against state, messages and
//! an apply step (DESIGN.md "The program model"), run by the external engine
//! (GraFBoost's `edge_program` / `vertex_update` / `finalize` / `is_active`,
//! PartitionedVC's grouped messages).
//!
//! A superstep: every active vertex `v` offers one message
//! ([`VertexProgram::scatter`]) that each of its edges turns into a message
//! for the neighbour ([`VertexProgram::edge`]: add a weight, drop a
//! self-loop); messages for one vertex are either combined into one by an
//! associative, commutative [`VertexProgram::combine`] (sum, min: GraFBoost's
//! sort-reduce applies it in every merge) or, when the program does not
//! combine (`COMBINES = false`: CDLP's label multiset), all delivered together
//! (PartitionedVC); then [`VertexProgram::apply`] updates the vertex and says
//! whether it is active in the next superstep. Supersteps are synchronous:
//! every message of superstep `t` is computed from the states after
//! superstep `t - 1`.

mod value;

pub use value::{id32, Label, Value};

/// Which stored lists a vertex's message travels along.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edges {
    /// To out-neighbours (undirected stores: to every neighbour).
    Out,
    /// To out- and in-neighbours (direction ignored; undirected stores: to
    /// every neighbour once, as `Out`). A neighbour linked both ways on a
    /// directed store receives two messages.
    Both,
    /// To every distinct neighbour of the undirected simple graph once
    /// (`out ∪ in` as a set), never to itself: k-core's lists. The pull
    /// mode (`engine/pull.rs`) reads them so (`select/simple.rs`); the
    /// engines that push messages deliver them as [`Edges::Both`], so the
    /// program's `edge` drops self-loops and its `apply` counts a sender
    /// once.
    Simple,
}

impl Edges {
    /// True when messages travel along in-lists too on a directed store
    /// ([`Edges::Both`], and [`Edges::Simple`] on the engines that push).
    pub fn both(self) -> bool {
        matches!(self, Edges::Both | Edges::Simple)
    }
}

/// What the engine knows about a vertex when it initialises its state.
#[derive(Clone, Copy, Debug)]
pub struct VertexInfo {
    /// Dense id (u64, as every id a program sees: DESIGN.md, "Wide ids").
    pub v: u64,
    /// Rank: position of its original id among the sorted original ids (so
    /// comparing ranks compares original ids).
    pub rank: u64,
    /// Stored out-degree (undirected: neighbours; a self-loop once).
    pub out_degree: u64,
}

/// A vertex as an accumulating program's apply and output see it
/// ([`VertexProgram::apply_accumulated`]): the degree comes from the
/// engine's degrees, not from a copy in the state.
#[derive(Clone, Copy, Debug)]
pub struct VertexView {
    /// Dense id.
    pub v: u64,
    /// Stored out-degree (as [`VertexInfo::out_degree`]).
    pub out_degree: u64,
}

/// True when `P` runs in the accumulating form: every vertex applies each
/// superstep (`APPLY_ALL`) and messages combine into words with an
/// [`VertexProgram::IDENTITY`] (PageRank). The state is then the vertex's
/// accumulator: messages combine straight into it, and the engine keeps
/// the message the vertex sends beside it (its out word);
/// [`VertexProgram::apply_accumulated`] turns the two into the next out
/// word. In memory that is two words a vertex and the degrees; on the
/// external engine the record is (state, message).
pub const fn accumulates<P: VertexProgram>() -> bool {
    P::APPLY_ALL && P::IDENTITY.is_some() && P::COMBINES && <P::Msg as Value>::BYTES <= 8
}

/// Per-superstep totals a program accumulates in `apply` and reads in `end`
/// (PageRank's dangling mass and L1 change).
#[derive(Clone, Copy, Debug, Default)]
pub struct Aggregate {
    pub sums: [f64; 2],
}

impl Aggregate {
    /// Adds another partial aggregate.
    pub fn merge(&mut self, o: &Aggregate) {
        self.sums[0] += o.sums[0];
        self.sums[1] += o.sums[1];
    }
}

/// An algorithm as a vertex program.
pub trait VertexProgram: Sync {
    /// Per-vertex state.
    type State: Value;
    /// What an edge carries.
    type Msg: Value;
    /// True when messages combine ([`combine`](VertexProgram::combine));
    /// false when `apply` needs them all.
    const COMBINES: bool;
    /// True when every vertex is applied each superstep, with or without
    /// messages (PageRank); false when only vertices that received one are.
    const APPLY_ALL: bool;
    /// The identity of [`combine`](VertexProgram::combine) as a word (the
    /// message's [`Value`] encoding, zero-extended to 8 bytes: `0` for a
    /// sum of f64, `u32::MAX as u64` for a min of u32), for programs whose
    /// messages are at most 8 bytes and whose unweighted
    /// [`edge`](VertexProgram::edge) and
    /// [`edge_rev`](VertexProgram::edge_rev) pass the message unchanged. A
    /// vertex whose combined messages equal the identity is taken to have
    /// received none. In memory the messages then travel as words, and the
    /// stream engine runs its dense 16-bit tile loop on them (G-Store's edge
    /// function, split over threads on hub blocks): the fast path is this
    /// program specialised, not a second copy of it. Default: none.
    const IDENTITY: Option<u64> = None;
    /// With an [`IDENTITY`](VertexProgram::IDENTITY): true when the
    /// state is the message (`State` and `Msg` encode alike) and `apply`
    /// is "state = combine(state, message); active when it changed"
    /// (min-label programs: BFS, WCC). In memory the engine then keeps only
    /// the state words and one bit a vertex: an edge reads its source's
    /// state, asks [`scatter`](VertexProgram::scatter) (`None`: nothing to
    /// send), combines into the receiver's state in place and, on a change,
    /// marks the receiver active for the next superstep (G-Store's kernel:
    /// a value lowered early in a superstep travels on within it; the same
    /// fixpoint in fewer supersteps). `scatter` is asked for every vertex of
    /// a sending block, so it must say itself whether the vertex sends
    /// (BFS: its depth is the level). Other engines run `apply`. Default:
    /// false.
    const IN_PLACE: bool = false;
    /// True when [`scatter`](VertexProgram::scatter) depends on the vertex
    /// and its state alone (nothing [`begin`](VertexProgram::begin) sets),
    /// so an engine may compute a vertex's next message as it applies it
    /// (the external engine's grid then skips its values pass). Default:
    /// false.
    const SCATTER_PURE: bool = false;

    /// Name in statistics and progress.
    fn name(&self) -> &'static str;
    /// Whether the current superstep applies every vertex, with or without
    /// messages. Engines ask during the apply step and again after
    /// [`end`](VertexProgram::end), when the answer is for the next
    /// superstep: a program may apply every vertex in some supersteps
    /// only (MIS's first), or wake them all at a barrier though none is
    /// active. Default: `APPLY_ALL`.
    #[inline]
    fn apply_all(&self) -> bool {
        Self::APPLY_ALL
    }
    /// The lists messages travel along.
    fn edges(&self) -> Edges;
    /// Bytes the program itself holds through a run (colouring's final
    /// bits), which its runner charges to the budget; the planner counts
    /// them with the states ([`crate::engine::run::required_by`]).
    /// Default: none.
    fn held_bytes(&self) -> u64 {
        0
    }
    /// Whether [`edge`](VertexProgram::edge) needs the weights.
    fn weighted(&self) -> bool {
        false
    }
    /// The state of a vertex before superstep 0, and whether it is active
    /// then; also adds to the aggregate [`begin`](VertexProgram::begin) of
    /// superstep 0 sees. In the accumulating form ([`accumulates`]) the
    /// state returned is the vertex's first message (state and message
    /// encode alike; the accumulator starts at the identity).
    fn init(&self, info: &VertexInfo, agg: &mut Aggregate) -> (Self::State, bool);
    /// Starts superstep `step` with the aggregate of the previous one's
    /// applies (of `init` before step 0); false stops the run before it.
    fn begin(&mut self, step: usize, agg: &Aggregate) -> bool;
    /// The message an active vertex offers its edges, if any.
    fn scatter(&self, v: u64, s: &Self::State) -> Option<Self::Msg>;
    /// The message one edge `src -> dst` (weight `w`, 1.0 when unweighted)
    /// delivers; `None` drops it. Default: the offered message.
    #[inline]
    fn edge(&self, m: Self::Msg, _src: u64, _dst: u64, _w: f64) -> Option<Self::Msg> {
        Some(m)
    }
    /// The message an in-list edge delivers: with [`Edges::Both`] on a
    /// directed store, `src` sends to `dst`, an in-neighbour (the arc is
    /// `dst -> src`). Default: as [`edge`](VertexProgram::edge); programs
    /// that go one way at a time (betweenness: forward along out-edges,
    /// backward along in-edges) tell the two apart here.
    #[inline]
    fn edge_rev(&self, m: Self::Msg, src: u64, dst: u64, w: f64) -> Option<Self::Msg> {
        self.edge(m, src, dst, w)
    }
    /// Combines two messages for one vertex (only when `COMBINES`).
    fn combine(_a: Self::Msg, _b: Self::Msg) -> Self::Msg {
        unreachable!("combine called on a program that does not combine")
    }
    /// Applies a vertex's messages (one when combining; all when not; none
    /// for an `APPLY_ALL` vertex that received nothing); returns whether the
    /// vertex is active in the next superstep.
    fn apply(&self, v: u64, s: &mut Self::State, msgs: &[Self::Msg], agg: &mut Aggregate) -> bool;
    /// The accumulating form's apply ([`accumulates`]): `acc` is the
    /// vertex's state, its combined messages of the superstep (the
    /// identity when none), and `out` the message it sent in it; sets
    /// `out` to its next message (the identity: none). The engine resets
    /// the accumulator. Every vertex is applied.
    fn apply_accumulated(
        &self,
        _v: VertexView,
        _acc: Self::State,
        _out: &mut Self::Msg,
        _agg: &mut Aggregate,
    ) {
        unreachable!("apply_accumulated called on a program that does not accumulate")
    }
    /// The accumulating form's result for a vertex at the end of a run, as
    /// a state: from its accumulator and its last message (PageRank: the
    /// rank, contribution times degree, as the kernel's).
    fn value(&self, _v: VertexView, acc: &Self::State, _out: Self::Msg) -> Self::State {
        *acc
    }
    /// Ends superstep `step` (`active`: vertices active next); true when the
    /// run is complete.
    fn end(&mut self, step: usize, agg: &Aggregate, active: u64) -> bool;
    /// The bucket a vertex in state `s` waits in, for an in-place program
    /// whose combine is a minimum run in phases ([`crate::engine::phases`]:
    /// delta-stepping; SSSP's `floor(dist / delta)`): lower buckets are
    /// taken first, and the order must be monotone in the state (a
    /// lowered state never moves to a higher bucket). Default: none (the
    /// program runs in supersteps).
    #[inline]
    fn priority(&self, _s: &Self::State) -> Option<u64> {
        None
    }
    /// In the pull mode (`engine/pull.rs`), whether a vertex whose state
    /// went from `old` to `new` may change a neighbour in state `nbr`, which
    /// then runs again (k-core: the neighbour counted the vertex and no
    /// longer does). Default: always.
    #[inline]
    fn wakes(&self, _old: &Self::State, _new: &Self::State, _nbr: &Self::State) -> bool {
        true
    }
    /// In the pull mode (`engine/pull.rs`), whether a vertex now in state
    /// `s` steps again in the next round by itself, woken or not: rounds
    /// in which every undecided vertex steps (colouring's tentative
    /// vertices). Default: no (it runs again only when woken).
    #[inline]
    fn again(&self, _s: &Self::State) -> bool {
        false
    }
    /// In the pull mode (`engine/pull.rs`), `v`'s step from its
    /// neighbours' current states, handed over as they are: a **fused
    /// gather** (Ligra's `EdgeMapDense`, which reads a vertex's
    /// neighbours and updates it in the one pass; Montresor et al.'s
    /// h-index read straight from the neighbours' estimates). `nbrs`
    /// yields (id, state) of every distinct neighbour once, in id order;
    /// the vertex's state is updated in `s`; returns whether a change
    /// wakes neighbours (as `apply`). Default: each neighbour's message
    /// `edge(scatter(u))` collected and handed to
    /// [`apply`](VertexProgram::apply); a program that can fold the
    /// states one by one overrides it, and no message is built.
    #[inline]
    fn pull(
        &self,
        v: u64,
        s: &mut Self::State,
        nbrs: impl ExactSizeIterator<Item = (u64, Self::State)>,
        agg: &mut Aggregate,
    ) -> bool
    where
        Self: Sized,
    {
        let msgs: Vec<Self::Msg> = nbrs
            .filter_map(|(u, su)| self.scatter(u, &su).and_then(|m| self.edge(m, u, v, 1.0)))
            .collect();
        self.apply(v, s, &msgs, agg)
    }
    /// Before the first phase of a program with a
    /// [`priority`](VertexProgram::priority): may read `store`'s lists
    /// through the run's select engine (SSSP's default delta, from a
    /// sample). Default: nothing.
    fn setup(
        &mut self,
        _store: &crate::store::Store,
        _lists: &mut crate::engine::select::SelectEngine,
    ) -> crate::error::Result<()> {
        Ok(())
    }
}
