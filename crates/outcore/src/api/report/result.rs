//! The result sections, from the stats' `result` (see
//! [`crate::api::summary`]): the distribution that fits the answer (a
//! score histogram on log axes, component sizes, vertices per level) and
//! its top table.

use super::html::{self, num, COMPUTE, LIMIT, READ};
use super::svg::{Axis, Plot};
use super::{f, panel, s, section, Doc};
use serde_json::Value;

/// `[[a, b, c], ...]` as rows of numbers.
fn rows(v: &Value, key: &str) -> Vec<Vec<f64>> {
    let Some(a) = v.get(key).and_then(Value::as_array) else {
        return Vec::new();
    };
    (a.iter())
        .filter_map(Value::as_array)
        .map(|r| r.iter().map(|x| x.as_f64().unwrap_or(0.0)).collect())
        .collect()
}

pub fn sections(runs: &[(usize, &Doc)]) -> String {
    let with: Vec<(usize, &Doc, &Value)> = (runs.iter())
        .filter_map(|&(k, d)| Some((k, d, d.json.get("result").filter(|r| r.is_object())?)))
        .collect();
    if with.is_empty() {
        return String::new();
    }
    let panels: Vec<String> = with.iter().map(|&(k, d, r)| one(k, d, r)).collect();
    section(
        "result",
        "Result",
        "The distribution of the answer's values (log axes where they span decades) and its top vertices or largest groups.",
        &panels,
    )
}

fn one(k: usize, d: &Doc, r: &Value) -> String {
    let what = s(r, "what");
    let n = f(r, "vertices");
    let id = format!("result-{k}");
    let (chart, sub) = match s(r, "shape") {
        "scores" => {
            let h = rows(r, "histogram");
            let lo = h.first().map_or(1.0, |b| b[0]);
            let hi = h.last().map_or(10.0, |b| b[1]);
            let cmax = h.iter().map(|b| b[2]).fold(1.0, f64::max);
            let mut p = Plot::new(
                Axis::log(&format!("{what} (log)"), lo, hi),
                Axis::log("vertices (log)", 1.0, cmax),
            );
            p.y.min = 0.5_f64.min(p.y.min);
            for b in &h {
                let tip = format!("{} to {}: {} vertices", num(b[0]), num(b[1]), num(b[2]));
                p.bar(b[0], b[1], p.y.min, b[2], COMPUTE, &tip);
            }
            p.legend(COMPUTE, "vertices per quarter decade", false);
            let extra = [
                ("zero", "zero"),
                ("unreached", "unreached"),
                ("negative", "negative"),
            ]
            .iter()
            .filter(|(key, _)| f(r, key) > 0.0)
            .map(|(key, label)| format!(", {} {label}", num(f(r, key))))
            .collect::<String>();
            let sub = format!("{} of {} vertices{extra}", what, num(n));
            (
                p.render(&id, "chart-result", &format!("Distribution of {what}")),
                sub,
            )
        }
        "groups" => {
            let sz = rows(r, "sizes");
            let hi = sz.last().map_or(2.0, |b| b[1] + 1.0);
            let cmax = sz.iter().map(|b| b[2]).fold(1.0, f64::max);
            let mut p = Plot::new(
                Axis::log(&format!("{what} size, vertices (log)"), 1.0, hi),
                Axis::log(&format!("{what}s (log)"), 1.0, cmax),
            );
            p.y.min = 0.5_f64.min(p.y.min);
            for b in &sz {
                let tip = format!(
                    "sizes {} to {}: {} {what}s",
                    num(b[0]),
                    num(b[1]),
                    num(b[2])
                );
                p.bar(b[0], b[1] + 1.0, p.y.min, b[2], READ, &tip);
            }
            p.legend(READ, &format!("{what}s per power of two of sizes"), false);
            let groups = r.get("groups").and_then(Value::as_f64);
            let sub = match groups {
                Some(g) => format!("{} {what}s over {} vertices", num(g), num(n)),
                None => format!("{what}s over {} vertices", num(n)),
            };
            (p.render(&id, "chart-result", &format!("{what} sizes")), sub)
        }
        _ => {
            let c = rows(r, "counts");
            let cmax = c.iter().map(|b| b[1]).fold(1.0, f64::max);
            let labels = c.iter().map(|b| num(b[0])).collect();
            let mut p = Plot::new(
                Axis::categories(what, labels),
                Axis::log("vertices (log)", 1.0, cmax),
            );
            p.y.min = 0.5_f64.min(p.y.min);
            for (i, b) in c.iter().enumerate() {
                let tip = format!("{what} {}: {} vertices", num(b[0]), num(b[1]));
                p.bar(i as f64 + 0.1, i as f64 + 0.9, p.y.min, b[1], COMPUTE, &tip);
            }
            p.legend(COMPUTE, &format!("vertices per {what}"), false);
            let un = f(r, "unreached");
            if un > 0.0 {
                p.legend(LIMIT, &format!("{} not reached", num(un)), false);
            }
            let sub = format!("{} distinct values over {} vertices", c.len(), num(n));
            (
                p.render(&id, "chart-result", &format!("Vertices per {what}")),
                sub,
            )
        }
    };
    let top: Vec<Vec<String>> = (r.get("top").and_then(Value::as_array))
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            let a = row.as_array()?;
            let cell = |x: &Value| x.as_str().map_or_else(|| x.to_string(), str::to_string);
            Some(vec![(i + 1).to_string(), cell(a.first()?), cell(a.get(1)?)])
        })
        .collect();
    let mut content = chart;
    if let Some(note) = r.get("note").and_then(Value::as_str) {
        content += &format!(r#"<p class="note">{}</p>"#, html::esc(note));
    }
    if !top.is_empty() {
        let head = match s(r, "shape") {
            "groups" => ["#", "label (vertex id)", "size"],
            _ => ["#", "vertex id", what],
        };
        content += &format!(
            r#"<div id="top-{k}" class="top-table scroll"><b>Top {}</b>{}</div>"#,
            top.len(),
            html::table("top", &head, &top)
        );
    }
    panel(d, &sub, &content)
}
