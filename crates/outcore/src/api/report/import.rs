//! The import sections: seconds per phase, and the bytes that went
//! through (input, spilled to the sort's runs, the store) with the peak
//! memory against the budget.

use super::html::{bytes, num, ACCENT, COMPUTE, IO, OTHER, READ};
use super::svg::hbars;
use super::{f, panel, section, Doc};
use serde_json::Value;

/// The phases of an import, (name, seconds): `[{"name", "seconds"}]`.
fn phases(j: &Value) -> Vec<(String, f64)> {
    let Some(a) = j.get("phases").and_then(Value::as_array) else {
        return Vec::new();
    };
    (a.iter())
        .map(|p| (super::s(p, "name").to_string(), f(p, "seconds")))
        .collect()
}

pub fn sections(imports: &[(usize, &Doc)]) -> String {
    if imports.is_empty() {
        return String::new();
    }
    let tmax = (imports.iter())
        .flat_map(|(_, d)| phases(&d.json).into_iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let colors = [COMPUTE, IO, READ, ACCENT, OTHER];
    let panels: Vec<String> = (imports.iter())
        .map(|&(k, d)| {
            let rows: Vec<(String, f64, &str)> = (phases(&d.json).into_iter().enumerate())
                .map(|(i, (name, secs))| (name, secs, colors[i % colors.len()]))
                .collect();
            let sub = format!(
                "{} vertices, {} edges in {:.2} s",
                num(f(&d.json, "num_vertices")),
                num(f(&d.json, "num_edges")),
                f(&d.json, "seconds")
            );
            let chart = hbars(
                &format!("phases-{k}"),
                "chart-phases",
                "Seconds per import phase",
                "seconds",
                &rows,
                None,
                tmax,
            );
            panel(d, &sub, &chart)
        })
        .collect();
    let mut out = section(
        "phases",
        "Import phases",
        "Seconds of each phase of the build: reading and parsing the input, ordering the vertices, remapping ids, writing the store.",
        &panels,
    );
    let mib = |j: &Value, k: &str| f(j, k) / 1048576.0;
    let bmax = (imports.iter())
        .map(|(_, d)| {
            let j = &d.json;
            [
                "input_bytes",
                "spilled_bytes",
                "store_bytes",
                "peak_rss_bytes",
                "memory_budget",
            ]
            .iter()
            .map(|k| mib(j, k))
            .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    let panels: Vec<String> = (imports.iter())
        .map(|&(k, d)| {
            let j = &d.json;
            let rows = vec![
                ("input".to_string(), mib(j, "input_bytes"), READ),
                ("spilled".to_string(), mib(j, "spilled_bytes"), IO),
                ("store".to_string(), mib(j, "store_bytes"), COMPUTE),
                ("peak RSS".to_string(), mib(j, "peak_rss_bytes"), ACCENT),
            ];
            let budget = mib(j, "memory_budget");
            let sub = format!(
                "spilled {} to sorted runs; peak RSS {} of a {} budget",
                bytes(f(j, "spilled_bytes")),
                bytes(f(j, "peak_rss_bytes")),
                bytes(f(j, "memory_budget"))
            );
            let chart = hbars(
                &format!("spill-{k}"),
                "chart-spill",
                "Bytes in, spilled and written",
                "MiB",
                &rows,
                Some((budget, format!("budget {} MiB", num(budget)))),
                bmax,
            );
            panel(d, &sub, &chart)
        })
        .collect();
    out += &section(
        "spill",
        "Bytes spilled and memory",
        "The input read, the bytes the external sort spilled to disk (written once, read back once), the store written, and the peak memory against the budget (dashed).",
        &panels,
    );
    out
}
