//! The run sections: time per iteration (I/O wait and compute), bytes
//! read and the read rate against the disk's, the engine per superstep
//! with the planner's estimates, active vertices, memory against the
//! budget. Panels of one section share their scales.

use super::html::{self, bytes, engine_color, num, ACCENT, COMPUTE, IO, LIMIT, OTHER, READ};
use super::svg::{hbars, Axis, Plot};
use super::{f, panel, s, section, Doc};
use serde_json::Value;

fn iters(j: &Value) -> &[Value] {
    j.get("iterations")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The disk rate (bytes per second) a run's reads are drawn against and
/// a line saying where it comes from.
pub fn disk_rate(j: &Value) -> (Option<f64>, String) {
    match j.get("disk") {
        Some(d) if f(d, "bytes_per_second") > 0.0 => {
            let rate = f(d, "bytes_per_second");
            (
                Some(rate),
                format!(
                    "{} MB/s ({}, {} B reads at depth {})",
                    num(rate / 1e6),
                    s(d, "source"),
                    num(f(d, "page_bytes")),
                    num(f(d, "depth"))
                ),
            )
        }
        _ => (
            None,
            "disk rate unknown (`outcore calibrate STORE` measures it)".into(),
        ),
    }
}

/// Iteration labels 1..n.
fn labels(n: usize) -> Vec<String> {
    (1..=n).map(|i| i.to_string()).collect()
}

/// The largest of `key(doc)` over the runs.
fn shared(runs: &[(usize, &Doc)], key: impl Fn(&Value) -> f64) -> f64 {
    runs.iter().map(|(_, d)| key(&d.json)).fold(0.0, f64::max)
}

fn max_iter(j: &Value, key: impl Fn(&Value) -> f64) -> f64 {
    iters(j).iter().map(key).fold(0.0, f64::max)
}

/// The sections of the runs (none without runs).
pub fn sections(runs: &[(usize, &Doc)]) -> String {
    if runs.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    // Time per iteration.
    let tmax = shared(runs, |j| max_iter(j, |i| f(i, "seconds")));
    let panels: Vec<String> = runs.iter().map(|&(k, d)| time(k, d, tmax)).collect();
    out += &section(
        "time",
        "Time per iteration",
        "Wall seconds of each iteration, split into waiting for reads, computing, copying tiles into the cache and the rest (synchronisation, bookkeeping).",
        &panels,
    );
    // Bytes and rate.
    let bmax = shared(runs, |j| max_iter(j, |i| f(i, "bytes_read")));
    let rmax = shared(runs, |j| {
        let r = max_iter(j, |i| f(i, "bytes_read") / f(i, "seconds").max(1e-9));
        r.max(disk_rate(j).0.unwrap_or(0.0))
    });
    let panels: Vec<String> = (runs.iter())
        .map(|&(k, d)| read(k, d, bmax, rmax))
        .collect();
    out += &section(
        "bytes",
        "Bytes read per iteration, against the disk",
        "Bytes each iteration read from the store (cached tiles are not read again), and the rate they were read at against the disk's measured rate.",
        &panels,
    );
    // Engines.
    let emax = shared(runs, |j| {
        max_iter(j, |i| {
            let p = i.get("planner").unwrap_or(&Value::Null);
            [
                "stream_seconds",
                "select_seconds",
                "external_seconds",
                "grid_seconds",
            ]
            .iter()
            .map(|k| f(p, k))
            .fold(f(i, "seconds"), f64::max)
        })
    });
    let panels: Vec<String> = runs.iter().map(|&(k, d)| engines(k, d, emax)).collect();
    out += &section(
        "engine",
        "Engine per superstep and the planner's estimates",
        "The engine that ran each iteration (band), and the seconds the planner estimated for each engine before it (lines; the chosen one is the cheapest) against the seconds it took.",
        &panels,
    );
    // Active vertices.
    let amax = shared(runs, |j| max_iter(j, |i| f(i, "active_vertices")));
    let panels: Vec<String> = runs.iter().map(|&(k, d)| active(k, d, amax)).collect();
    out += &section(
        "active",
        "Active vertices per iteration",
        "Vertices whose value can still change at the start of each iteration (log scale).",
        &panels,
    );
    // Memory.
    let mmax = shared(runs, |j| {
        f(j, "memory_budget").max(f(j, "peak_rss_bytes")) / 1048576.0
    });
    let panels: Vec<String> = runs.iter().map(|&(k, d)| memory(k, d, mmax)).collect();
    out += &section(
        "memory",
        "Memory against the budget",
        "Peak resident memory of the process and the parts the engines planned, against the memory budget (dashed).",
        &panels,
    );
    out
}

fn time(k: usize, d: &Doc, tmax: f64) -> String {
    let it = iters(&d.json);
    let mut p = Plot::new(
        Axis::categories("iteration", labels(it.len())),
        Axis::linear("seconds", tmax),
    );
    for (n, i) in it.iter().enumerate() {
        let (x0, x1) = (n as f64 + 0.12, n as f64 + 0.88);
        let io = f(i, "io_wait_seconds");
        let cpu = f(i, "compute_seconds");
        let cache = f(i, "cache_seconds");
        let rest = (f(i, "seconds") - io - cpu - cache).max(0.0);
        let mut y = 0.0;
        for (v, color, what) in [
            (io, IO, "I/O wait"),
            (cpu, COMPUTE, "compute"),
            (cache, ACCENT, "cache copy"),
            (rest, OTHER, "other"),
        ] {
            if v > 0.0 {
                let tip = format!("iteration {}: {what} {:.4} s", n + 1, v);
                p.bar(x0, x1, y, y + v, color, &tip);
                y += v;
            }
        }
    }
    for (color, what) in [
        (IO, "I/O wait"),
        (COMPUTE, "compute"),
        (ACCENT, "cache copy"),
        (OTHER, "other"),
    ] {
        p.legend(color, what, false);
    }
    let sub = format!(
        "{} iterations in {:.3} s: I/O wait {:.3} s, compute {:.3} s",
        it.len(),
        f(&d.json, "wall_seconds"),
        f(&d.json, "io_wait_seconds"),
        f(&d.json, "compute_seconds")
    );
    panel(
        d,
        &sub,
        &p.render(&format!("time-{k}"), "chart-time", "Time per iteration"),
    )
}

fn read(k: usize, d: &Doc, bmax: f64, rmax: f64) -> String {
    let it = iters(&d.json);
    let mut b = Plot::new(
        Axis::categories("iteration", labels(it.len())),
        Axis::linear("MB read (10^6 bytes)", bmax / 1e6),
    );
    let mut r = Plot::new(
        Axis::categories("iteration", labels(it.len())),
        Axis::linear("read rate, MB/s", rmax / 1e6),
    );
    for (n, i) in it.iter().enumerate() {
        let (x0, x1) = (n as f64 + 0.12, n as f64 + 0.88);
        let by = f(i, "bytes_read");
        let tip = format!(
            "iteration {}: {} read in {} requests",
            n + 1,
            bytes(by),
            num(f(i, "read_requests"))
        );
        b.bar(x0, x1, 0.0, by / 1e6, READ, &tip);
        let rate = by / f(i, "seconds").max(1e-9) / 1e6;
        let tip = format!("iteration {}: {} MB/s", n + 1, num(rate));
        r.bar(x0, x1, 0.0, rate, COMPUTE, &tip);
    }
    b.legend(READ, "bytes read", false);
    r.legend(COMPUTE, "bytes read / iteration seconds", false);
    let (rate, what) = disk_rate(&d.json);
    match rate {
        Some(v) => {
            r.hline(v / 1e6, LIMIT, &format!("disk: {} MB/s", num(v / 1e6)));
            r.legend(LIMIT, "disk rate", true);
        }
        None => r.legend(OTHER, "disk rate unknown", true),
    }
    let sub = format!(
        "{} read in {} requests; disk rate: {what}",
        bytes(f(&d.json, "bytes_read")),
        num(f(&d.json, "read_requests"))
    );
    let charts = b.render(
        &format!("bytes-{k}"),
        "chart-bytes",
        "Bytes read per iteration",
    ) + &r.render(
        &format!("rate-{k}"),
        "chart-rate",
        "Read rate per iteration",
    );
    panel(d, &sub, &charts)
}

fn engines(k: usize, d: &Doc, emax: f64) -> String {
    let it = iters(&d.json);
    // The band: one cell per iteration in its engine's colour.
    let mut band = Plot::new(
        Axis::categories("iteration", labels(it.len())),
        Axis::none(),
    );
    band.h = 110.0;
    let mut seen: Vec<String> = Vec::new();
    for (n, i) in it.iter().enumerate() {
        let e = match i.get("external") {
            Some(x) if f(x, "grid_windows") > 0.0 => "external-grid",
            _ => s(i, "engine"),
        };
        let tip = format!("iteration {}: {e}", n + 1);
        band.bar(n as f64, n as f64 + 1.0, 0.0, 1.0, engine_color(e), &tip);
        if !seen.iter().any(|x| x == e) {
            seen.push(e.to_string());
        }
    }
    for e in &seen {
        band.legend(engine_color(e), e, false);
    }
    let mut est = Plot::new(
        Axis::categories("iteration", labels(it.len())),
        Axis::log("seconds (log)", 1e-4, emax.max(1e-3)),
    );
    let mut rows = Vec::new();
    let mut planned = false;
    for (key, engine) in [
        ("stream_seconds", "stream"),
        ("select_seconds", "select"),
        ("external_seconds", "external"),
        ("grid_seconds", "grid"),
    ] {
        let pts: Vec<(f64, f64)> = (it.iter().enumerate())
            .filter_map(|(n, i)| {
                let v = f(i.get("planner")?, key);
                (v > 0.0).then_some((n as f64 + 0.5, v))
            })
            .collect();
        if !pts.is_empty() {
            planned = true;
            est.line(
                &pts,
                engine_color(engine),
                true,
                &format!("{engine} estimate"),
            );
            est.legend(engine_color(engine), &format!("{engine} (est.)"), true);
        }
    }
    let took: Vec<(f64, f64)> = (it.iter().enumerate())
        .map(|(n, i)| (n as f64 + 0.5, f(i, "seconds").max(1e-6)))
        .collect();
    est.line(&took, "#1d2733", false, "seconds taken");
    est.legend("#1d2733", "taken", false);
    for (n, i) in it.iter().enumerate() {
        let p = i.get("planner").unwrap_or(&Value::Null);
        rows.push(vec![
            (n + 1).to_string(),
            s(i, "engine").to_string(),
            if p.is_null() { "—" } else { s(p, "chosen") }.to_string(),
            format!(
                "{} / {}",
                num(f(p, "stream_seconds")),
                bytes(f(p, "stream_bytes"))
            ),
            format!(
                "{} / {}",
                num(f(p, "select_seconds")),
                bytes(f(p, "select_bytes"))
            ),
            format!(
                "{} / {}",
                num(f(p, "external_seconds")),
                bytes(f(p, "external_bytes"))
            ),
            format!(
                "{} / {}",
                num(f(p, "grid_seconds")),
                bytes(f(p, "grid_bytes"))
            ),
            format!("{:.4}", f(i, "seconds")),
        ]);
    }
    let table = html::table(
        "estimates",
        &[
            "iter",
            "ran on",
            "planner chose",
            "stream s / bytes",
            "select s / bytes",
            "external s / bytes",
            "grid s / bytes",
            "took s",
        ],
        &rows,
    );
    let sub = format!(
        "run engine: {}{}",
        s(&d.json, "engine"),
        if planned {
            ""
        } else {
            " (no per-superstep estimates: the engine was fixed for the whole run)"
        }
    );
    let charts = band.render(
        &format!("engine-{k}"),
        "chart-engine",
        "Engine per iteration",
    ) + &est.render(
        &format!("estimates-{k}"),
        "chart-estimates",
        "Planner estimates per iteration",
    ) + &format!(
        r#"<details><summary>estimates per iteration (seconds / bytes)</summary><div class="scroll">{table}</div></details>"#
    );
    panel(d, &sub, &charts)
}

fn active(k: usize, d: &Doc, amax: f64) -> String {
    let it = iters(&d.json);
    let mut p = Plot::new(
        Axis::categories("iteration", labels(it.len())),
        Axis::log("active vertices (log)", 1.0, amax.max(10.0)),
    );
    let pts: Vec<(f64, f64)> = (it.iter().enumerate())
        .map(|(n, i)| (n as f64 + 0.5, f(i, "active_vertices").max(0.5)))
        .collect();
    p.line(&pts, COMPUTE, false, "active vertices");
    p.legend(COMPUTE, "active vertices", false);
    let sub = format!(
        "from {} to {} active vertices",
        num(pts.first().map_or(0.0, |p| p.1)),
        num(pts.last().map_or(0.0, |p| p.1))
    );
    panel(
        d,
        &sub,
        &p.render(&format!("active-{k}"), "chart-active", "Active vertices"),
    )
}

fn memory(k: usize, d: &Doc, mmax: f64) -> String {
    let j = &d.json;
    let mib = |key| f(j, key) / 1048576.0;
    let budget = mib("memory_budget");
    let rows = vec![
        ("peak RSS".to_string(), mib("peak_rss_bytes"), COMPUTE),
        ("vertex state".to_string(), mib("vertex_state_bytes"), READ),
        ("segments".to_string(), mib("segment_bytes"), IO),
        ("cache pool".to_string(), mib("cache_pool_bytes"), ACCENT),
    ];
    let sub = format!(
        "peak RSS {} of a {} budget ({:.0}%)",
        bytes(f(j, "peak_rss_bytes")),
        bytes(f(j, "memory_budget")),
        100.0 * f(j, "peak_rss_bytes") / f(j, "memory_budget").max(1.0)
    );
    let chart = hbars(
        &format!("memory-{k}"),
        "chart-memory",
        "Memory against the budget",
        "MiB",
        &rows,
        Some((budget, format!("budget {} MiB", num(budget)))),
        mmax,
    );
    panel(d, &sub, &chart)
}
