//! SSSP and k-core refuse bad input (unweighted store, source out of range,
//! bad delta, negative or NaN weights) and too small a budget.

use super::*;

#[test]
fn sssp_refuses_bad_input() {
    let budget = Budget::new(1 << 30);
    let sel = select(Backend::Sync, None);
    let dir = tempfile::tempdir().unwrap();
    // Unweighted.
    let store = store_of(dir.path(), 3, &[(0, 1, 1.0)], true, false);
    let err = sssp(&store, 0, &SsspConfig::default(), &sel, &budget).unwrap_err();
    assert!(
        matches!(err, Error::Invalid(_)) && err.to_string().contains("weighted"),
        "{err}"
    );
    // Source out of range; bad delta.
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), 3, &[(0, 1, 1.0)], true, true);
    let err = sssp(&store, 3, &SsspConfig::default(), &sel, &budget).unwrap_err();
    assert!(err.to_string().contains("source vertex 3"), "{err}");
    for delta in [0.0, -1.0, f64::NAN] {
        let err = sssp(&store, 0, &SsspConfig { delta: Some(delta) }, &sel, &budget).unwrap_err();
        assert!(err.to_string().contains("delta"), "{err}");
    }
    // Negative and NaN weights, named by original ids.
    for (w, what) in [(-0.5, "negative"), (f64::NAN, "NaN")] {
        for delta in [None, Some(1.0)] {
            let dir = tempfile::tempdir().unwrap();
            outcore::progress::set_quiet(true);
            let mut src = VecSource::new([(10, 20, 1.0), (20, 30, w), (30, 40, 1.0)]);
            src.dense = None;
            let opts = BuildOptions {
                weighted: true,
                memory: 256 << 20,
                ..Default::default()
            };
            let r = build_store(&mut src, &dir.path().join("g.oc"), &opts).unwrap();
            let store = Store::open(&r.path).unwrap();
            let from = dense_id(&store, 10);
            let err = sssp(&store, from, &SsspConfig { delta }, &sel, &budget).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, Error::Invalid(_)), "{msg}");
            assert!(msg.contains("20 -> 30") && msg.contains(what), "{msg}");
        }
    }
    assert_eq!(budget.used(), 0);
}

#[test]
fn too_small_a_budget_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let n = 200_000;
    let edges = random_edges(n, 1000, 5, false);
    let store = store_of(dir.path(), n, &edges, true, true);
    let sel = select(Backend::Sync, None);
    let err = sssp(
        &store,
        0,
        &SsspConfig::default(),
        &sel,
        &Budget::new(2 << 20),
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::Budget(_)) && err.to_string().contains("needs at least"),
        "{err}"
    );
    let err = kcore(&store, &sel, &Budget::new(1 << 20)).unwrap_err();
    assert!(
        matches!(err, Error::Budget(_)) && err.to_string().contains("needs at least"),
        "{err}"
    );
}
