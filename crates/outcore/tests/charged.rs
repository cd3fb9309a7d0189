//! Every large allocation is charged (issue 12, item 4): a counting global
//! allocator tracks the bytes live in allocations of 1 MiB or more, and the
//! peak of those must not exceed the peak the run's budget recorded (what
//! was charged to it) by more than one such block. An allocation the
//! budget does not know about shows up here even when RSS stays small.

use outcore::api::{self, Algorithm, RunOptions};
use outcore::gen::{self, GenConfig, GenKind};
use outcore::ingest::build::BuildOptions;
use outcore::mem::Budget;
use outcore::store::Store;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

const BIG: usize = 1 << 20;

struct Counting;

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.size() >= BIG {
            let now = LIVE.fetch_add(l.size() as u64, Ordering::Relaxed) + l.size() as u64;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if l.size() >= BIG {
            let now = LIVE.fetch_add(l.size() as u64, Ordering::Relaxed) + l.size() as u64;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if l.size() >= BIG {
            LIVE.fetch_sub(l.size() as u64, Ordering::Relaxed);
        }
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let (old, newb) = (
            (l.size() >= BIG) as u64 * l.size() as u64,
            (new >= BIG) as u64 * new as u64,
        );
        let now = LIVE.fetch_add(newb, Ordering::Relaxed) + newb;
        PEAK.fetch_max(now, Ordering::Relaxed);
        LIVE.fetch_sub(old, Ordering::Relaxed);
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static A: Counting = Counting;

/// One measurement at a time (the counters are process-wide).
static ONE: Mutex<()> = Mutex::new(());

fn measure<T>(f: impl FnOnce() -> T) -> (T, u64) {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let base = LIVE.load(Ordering::Relaxed);
    let r = f();
    (r, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

#[test]
fn large_allocations_are_charged_to_the_budget() {
    let _one = ONE.lock().unwrap();
    outcore::progress::set_quiet(true);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("k.oc");
    let mut cfg = GenConfig::new(GenKind::Kron);
    (cfg.scale, cfg.weighted) = (16, true);
    let mut src = gen::generator(&cfg).unwrap();
    let opts = BuildOptions {
        memory: 128 << 20,
        weighted: true,
        directed: false,
        ..Default::default()
    };
    api::build(src.as_mut(), &path, &opts).unwrap();
    let store = Store::open(&path).unwrap();
    let mut report = Vec::new();
    let mut over = Vec::new();
    for alg in Algorithm::ALL {
        for (engine, memory) in [("auto", 256u64 << 20), ("external", 16 << 20)] {
            let mut o = RunOptions::new(alg);
            (o.memory, o.source) = (memory, Some("max-degree".into()));
            o.engine = engine.parse().unwrap();
            if alg == Algorithm::Betweenness {
                o.samples = Some(4); // from all 65K sources it would run for hours
            }
            let budget = Budget::new(memory);
            let (run, big) = measure(|| api::run(&store, &o, &budget));
            let Ok(_run) = run else { continue }; // an engine this algorithm does not run on
            let charged = budget.peak();
            report.push(format!(
                "{alg:?}/{engine}: large allocations peaked at {} KiB, budget peak {} KiB",
                big >> 10,
                charged >> 10
            ));
            if big > charged + BIG as u64 {
                over.push(report.last().unwrap().clone());
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        over.is_empty(),
        "uncharged large allocations:\n{}",
        over.join("\n")
    );
}
