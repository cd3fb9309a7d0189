//! The select engine's pull mode (`engine/pull.rs`) hands a pulling
//! program its neighbours' states (the fused gather,
//! `VertexProgram::pull`): k-core through it builds no message, and the
//! default `pull` (messages built and `apply`d) gives the same core
//! numbers. Both against the in-memory peeling.

use super::*;
use outcore::algo::vertex::kcore::{KCoreVp, Sent};
use outcore::engine::pull;
use outcore::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};

/// k-core whose messages must never be built: only its `pull` runs.
struct Fused(KCoreVp<u32>);
/// k-core without its `pull`: the trait's default builds the messages.
struct Messages(KCoreVp<u32>);

macro_rules! kcore_but {
    ($t:ty, { $($rest:tt)* }) => {
        impl VertexProgram for $t {
            type State = u32;
            type Msg = Sent<u32>;
            const COMBINES: bool = false;
            const APPLY_ALL: bool = true;
            fn name(&self) -> &'static str {
                "kcore"
            }
            fn edges(&self) -> Edges {
                Edges::Simple
            }
            fn init(&self, info: &VertexInfo, agg: &mut Aggregate) -> (u32, bool) {
                self.0.init(info, agg)
            }
            fn begin(&mut self, step: usize, agg: &Aggregate) -> bool {
                self.0.begin(step, agg)
            }
            fn end(&mut self, step: usize, agg: &Aggregate, active: u64) -> bool {
                self.0.end(step, agg, active)
            }
            fn wakes(&self, old: &u32, new: &u32, nbr: &u32) -> bool {
                self.0.wakes(old, new, nbr)
            }
            $($rest)*
        }
    };
}

kcore_but!(Fused, {
    fn scatter(&self, v: u64, _s: &u32) -> Option<Sent<u32>> {
        panic!("the pull mode built a message from {v}")
    }
    fn apply(&self, v: u64, _s: &mut u32, _m: &[Sent<u32>], _a: &mut Aggregate) -> bool {
        panic!("the pull mode applied messages to {v}")
    }
    fn pull(
        &self,
        v: u64,
        s: &mut u32,
        nbrs: impl ExactSizeIterator<Item = (u64, u32)>,
        agg: &mut Aggregate,
    ) -> bool {
        self.0.pull(v, s, nbrs, agg)
    }
});

kcore_but!(Messages, {
    fn scatter(&self, v: u64, s: &u32) -> Option<Sent<u32>> {
        self.0.scatter(v, s)
    }
    fn edge(&self, m: Sent<u32>, src: u64, dst: u64, w: f64) -> Option<Sent<u32>> {
        self.0.edge(m, src, dst, w)
    }
    fn apply(&self, v: u64, s: &mut u32, m: &[Sent<u32>], a: &mut Aggregate) -> bool {
        self.0.apply(v, s, m, a)
    }
});

fn cores<P: VertexProgram<State = u32>>(mut p: P, store: &Store, sel: &SelectConfig) -> Vec<u32> {
    let budget = Budget::new(1 << 30);
    let (states, _) = pull::run(store, &mut p, sel, &budget).unwrap();
    states.states.clone()
}

#[test]
fn pulling_program_is_handed_states_not_messages() {
    for directed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let n = 3000;
        let edges = random_edges(n, 12_000, 7 + directed as u64, true);
        let store = store_of(dir.path(), n, &edges, directed, false);
        let g = MemGraph::from_edges(n as usize, directed, &dense_edges(&store, &edges));
        let expect = reference::core_numbers(&g);
        let sel = select(Backend::Sync, Some(16 << 10));
        assert_eq!(cores(Fused(KCoreVp::new()), &store, &sel), expect);
        assert_eq!(cores(Messages(KCoreVp::new()), &store, &sel), expect);
    }
}
