//! The compaction policy (issue 53, item 3): an update lands in the
//! store's delta, and the delta is merged into a new base once it passes
//! a fraction of the base. This is the LSM tree's size-tiered trigger
//! (PartitionedVC's "buffer structural updates, merge them after a
//! threshold"): reads pay for the delta's records, a compaction pays for
//! the whole base, so the base is rewritten once the delta is a set share
//! of it.
//!
//! The measure is in edges, the same for every direction and layout: the
//! delta's edge changes against the base (edges it adds plus edges of the
//! base it removes; a reweighted edge counts in both), over the base's
//! edges. With the default 0.10, a store whose updates changed a tenth of
//! its edges is compacted by the update that got it there.

use super::{compact, lock, update, Locked, UpdateOptions, UpdateReport};
use crate::error::{Error, Result};
use crate::ingest::update::{try_update_delta, DeltaReport};
use crate::ingest::EdgeSource;
use crate::store::manifest::Manifest;
use crate::store::Store;
use std::time::Instant;

/// The fraction of the base at which an update compacts, by default.
pub const DEFAULT_COMPACT_AT: f64 = 0.10;

/// The environment variable that sets the fraction where no flag or
/// keyword does (`outcore update`, `outcore info`, Python).
pub const COMPACT_AT_ENV: &str = "OUTCORE_COMPACT_AT";

/// When an update compacts the store.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Compaction {
    /// Once the delta's edge changes reach this fraction of the base's
    /// edges. 0: every update, which then rewrites the store at once
    /// (no delta is written).
    At(f64),
    /// Never: the delta grows whatever its size (`--no-compact`);
    /// `outcore compact` merges it.
    Never,
}

impl Compaction {
    /// The policy of flag `compact_at` (else [`COMPACT_AT_ENV`], else
    /// [`DEFAULT_COMPACT_AT`]), or [`Compaction::Never`] when `compact` is
    /// false. A fraction must be a finite number >= 0.
    pub fn resolve(compact_at: Option<f64>, compact: bool) -> Result<Compaction> {
        if !compact {
            return Ok(Compaction::Never);
        }
        Ok(Compaction::At(threshold(compact_at)?))
    }

    /// The fraction, `None` for [`Compaction::Never`].
    pub fn fraction(self) -> Option<f64> {
        match self {
            Compaction::At(f) => Some(f),
            Compaction::Never => None,
        }
    }
}

/// The threshold `flag`, else [`COMPACT_AT_ENV`]'s, else the default.
pub fn threshold(flag: Option<f64>) -> Result<f64> {
    let (f, from) = match flag {
        Some(f) => (f, "--compact-at".to_string()),
        None => match std::env::var(COMPACT_AT_ENV) {
            Ok(s) => {
                let f = s.trim().parse::<f64>().map_err(|_| {
                    Error::Invalid(format!(
                        "{COMPACT_AT_ENV}=`{s}`: expected a fraction of the base such as 0.1"
                    ))
                })?;
                (f, COMPACT_AT_ENV.to_string())
            }
            Err(_) => return Ok(DEFAULT_COMPACT_AT),
        },
    };
    if !f.is_finite() || f < 0.0 {
        return Err(Error::Invalid(format!(
            "{from} {f}: expected a fraction of the base >= 0 (0: compact at every update)"
        )));
    }
    Ok(f)
}

/// How large a store's delta is against its base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeltaSize {
    /// The generation.
    pub generation: u64,
    /// Edges the delta adds plus edges of the base it removes.
    pub changes: u64,
    /// The base's edges.
    pub base_edges: u64,
    /// The generation's bytes on disk.
    pub bytes: u64,
    /// `changes / base_edges` (`changes` over 1 for an empty base).
    pub fraction: f64,
}

impl DeltaSize {
    /// The size of `store`'s delta; `None` without one.
    pub fn of(store: &Store) -> Option<DeltaSize> {
        let d = store.delta()?;
        let base_edges = store.base().num_edges;
        let changes = d.added + d.removed;
        Some(DeltaSize {
            generation: d.generation,
            changes,
            base_edges,
            bytes: d.files.values().map(|f| f.bytes).sum(),
            fraction: changes as f64 / base_edges.max(1) as f64,
        })
    }

    /// True when a compaction is due at fraction `at`.
    pub fn due(&self, at: f64) -> bool {
        self.changes > 0 && self.fraction >= at
    }

    fn describe(&self) -> String {
        format!(
            "the delta's {} edge changes are {} of the base's {} edges",
            self.changes,
            percent(self.fraction),
            self.base_edges
        )
    }
}

fn percent(f: f64) -> String {
    format!("{:.2}%", f * 100.0)
}

/// What [`update_with_policy`] did.
#[derive(Debug)]
pub struct PolicyReport {
    /// The update written into the delta (`None`: the update rewrote the
    /// store, `--compact-at 0`).
    pub delta: Option<DeltaReport>,
    /// The compaction (or the rewrite) that followed, if any.
    pub compaction: Option<UpdateReport>,
    /// The delta's size after the update, before any compaction.
    pub size: Option<DeltaSize>,
    /// The policy applied.
    pub policy: Compaction,
    /// Why the store was, or was not, compacted (one sentence).
    pub reason: String,
    /// Seconds for the whole update, compaction included.
    pub seconds: f64,
}

impl PolicyReport {
    /// True when the store has no delta after the update.
    pub fn compacted(&self) -> bool {
        self.compaction.is_some()
    }

    /// The store's vertices and edges after the update.
    pub fn counts(&self) -> (u64, u64) {
        match (&self.compaction, &self.delta) {
            (Some(c), _) => (c.build.manifest.num_vertices, c.build.manifest.num_edges),
            (None, Some(d)) => (d.vertices, d.edges),
            (None, None) => (0, 0),
        }
    }

    /// The policy's part of `--stats`: compacted, why, the fraction.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "compacted": self.compacted(),
            "reason": self.reason,
            "compact_at": self.policy.fraction(),
            "delta_fraction": self.size.map(|s| s.fraction),
            "delta_changes": self.size.map(|s| s.changes),
            "seconds": self.compaction.as_ref().map(|c| c.build.seconds),
        })
    }
}

/// Updates `target` ([`super::open`]) under `policy`: into the delta
/// ([`super::update_delta`]), then, when the delta has passed the
/// policy's fraction of the base, a compaction ([`compact`]) in the same
/// hold of the store's lock. At fraction 0 the update rewrites the store
/// ([`update`]): one pass, no delta written; so does an update too large
/// for the delta's share of the budget (`ingest::update::TooBig`), unless
/// the policy is [`Compaction::Never`], which returns its error. A kill between the delta's
/// commit and the compaction's leaves the updated store with its delta.
pub fn update_with_policy(
    target: Locked,
    adds: Vec<Box<dyn EdgeSource>>,
    removes: Vec<Box<dyn EdgeSource>>,
    opts: &UpdateOptions,
    policy: Compaction,
) -> Result<PolicyReport> {
    let t0 = Instant::now();
    // The update as a rewrite of the store: no delta written.
    let rewrite = |target, adds, removes, reason: String| -> Result<PolicyReport> {
        let r = update(target, adds, removes, opts)?;
        Ok(PolicyReport {
            delta: None,
            compaction: Some(r),
            size: None,
            policy,
            reason,
            seconds: t0.elapsed().as_secs_f64(),
        })
    };
    if policy == Compaction::At(0.0) {
        let why = "rewrote the store (--compact-at 0: every update compacts)";
        return rewrite(target, adds, removes, why.into());
    }
    let (mut adds, mut removes) = (adds, removes);
    let dopts = crate::ingest::update::DeltaOptions {
        memory: opts.memory,
        stop: None,
    };
    let tried = try_update_delta(target.store(), &mut adds, &mut removes, &dopts)?;
    let d = match (tried, policy) {
        (Ok(d), _) => d,
        (Err(big), Compaction::Never) => return Err(big.into()),
        // Batches beyond the budget: the delta holds an update's edges in
        // memory, a rewrite streams them through the external build (and
        // holds only the removals), so an update too large for the delta
        // rewrites the store, reading its sources again from the start.
        (Err(big), Compaction::At(_)) => {
            let why = format!("rewrote the store: {} (a rewrite streams them)", big.why);
            return rewrite(target, adds, removes, why);
        }
    };
    let Locked { store, _lock } = target;
    let path = store.path().to_path_buf();
    // The store as committed, locked before this update's lock goes: a
    // waiting update finds the manifest replaced, opens it again and
    // waits on this lock, so no other update comes between. (Unchanged,
    // the manifest is the file this update holds locked already.)
    let next = match Manifest::read(&path)? == *store.base() {
        true => Locked { store, _lock },
        false => {
            drop(store);
            let next = lock(&path, Store::open_with_delta)?;
            drop(_lock);
            next
        }
    };
    let size = DeltaSize::of(next.store());
    let (due, reason) = match (policy, size) {
        (_, None) => (false, "the update changed nothing: no delta".to_string()),
        (Compaction::Never, Some(s)) => {
            let due = match s.due(threshold(None)?) {
                true => format!("; compaction due (past {})", percent(threshold(None)?)),
                false => String::new(),
            };
            (
                false,
                format!("kept the delta (--no-compact): {}{due}", s.describe()),
            )
        }
        (Compaction::At(f), Some(s)) => match s.due(f) {
            true => (
                true,
                format!(
                    "compacted: {}, at least --compact-at {}",
                    s.describe(),
                    percent(f)
                ),
            ),
            false => (
                false,
                format!(
                    "kept the delta: {}, below --compact-at {}",
                    s.describe(),
                    percent(f)
                ),
            ),
        },
    };
    // The tests' switch (`OUTCORE_DELTA_SKIP=compaction`): the policy
    // never compacts, so its tests go red.
    let compaction = match due && !crate::store::delta::skip("compaction") {
        true => compact(next, opts)?,
        false => None,
    };
    Ok(PolicyReport {
        delta: Some(d),
        compaction,
        size,
        policy,
        reason,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Adds the policy's view to `info --json`'s `delta` object of `store`:
/// `fraction` (edge changes over base edges), `changes`, `compact_at`
/// (the threshold of [`COMPACT_AT_ENV`] or the default) and
/// `compaction_due`.
pub fn annotate_info(store: &Store, j: &mut serde_json::Value) -> Result<()> {
    let (Some(s), Some(d)) = (DeltaSize::of(store), j["delta"].as_object_mut()) else {
        return Ok(());
    };
    let at = threshold(None)?;
    d.insert("changes".into(), s.changes.into());
    d.insert("fraction".into(), s.fraction.into());
    d.insert("compact_at".into(), at.into());
    d.insert("compaction_due".into(), s.due(at).into());
    Ok(())
}
