//! The steps every delta sequence takes: a random base, then updates
//! into the delta, each applied to the oracle too.

use crate::common::Rng;
use crate::delta_update::{import_coded, sources, Key, Oracle, Shape};
use outcore::api::update as edit;
use outcore::api::UpdateOptions;
use outcore::store::Store;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A shape without self-loops (the delta sequences' stores).
pub(crate) fn shape(directed: bool, weighted: bool, names: bool) -> Shape {
    Shape {
        directed,
        weighted,
        names,
        loops: false,
    }
}

/// A base of `n` vertices and `per * n` random edges (every third from
/// one of 4 hubs; weights 1-5) in the oracle and imported (coded when
/// `compress`) at `dir/g.oc`: the oracle and the store's path.
pub(crate) fn random_base(
    dir: &Path,
    shape: Shape,
    r: &mut Rng,
    n: u64,
    per: u64,
    compress: bool,
) -> (Oracle, PathBuf) {
    let mut o = Oracle {
        shape,
        edges: BTreeMap::new(),
        vertices: (0..n).collect(),
    };
    let base: Vec<(u64, u64, f64)> = (0..per * n)
        .map(|i| {
            let s = if i % 3 == 0 { r.below(4) } else { r.below(n) };
            (s, r.below(n), (r.below(5) + 1) as f64)
        })
        .collect();
    o.apply(&[], &base);
    import_coded(dir, "g.oc", shape, &o, compress);
    (o, dir.join("g.oc"))
}

/// One update of the store at `path` into its delta (removals `rm`, then
/// additions `add`; files tagged `tag` in `dir`), applied to the oracle
/// too: the store's view after it.
pub(crate) fn update_step(
    dir: &Path,
    path: &Path,
    o: &mut Oracle,
    tag: &str,
    rm: &[Key],
    add: &[(u64, u64, f64)],
) -> Store {
    let store = Store::open_with_delta(path).unwrap();
    let [adds, removes] = sources(dir, &store, o.shape, tag, rm, add);
    drop(store);
    o.apply(rm, add);
    let opts = UpdateOptions {
        memory: 256 << 20,
        scratch_dir: None,
    };
    edit::update_delta(edit::open_with_delta(path).unwrap(), adds, removes, &opts).unwrap();
    let view = Store::open_with_delta(path).unwrap();
    assert!(view.delta().is_some());
    view
}
