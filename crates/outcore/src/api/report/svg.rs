//! Charts as inline SVG: a plot with linear or log axes, ticks, gridlines,
//! axis titles with units and a legend; bars, lines, points and reference
//! lines drawn in data coordinates. Every text is escaped.

use super::html::{esc, num};
use std::fmt::Write;

/// Width and height of a plot, in CSS pixels (the SVG scales to its box).
pub const W: f64 = 560.0;
pub const H: f64 = 280.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 46.0;

/// One axis: its range, log or linear, and its title (with the unit).
#[derive(Clone, Debug)]
pub struct Axis {
    pub title: String,
    pub min: f64,
    pub max: f64,
    pub log: bool,
    /// Category labels at 0.5, 1.5, ... instead of numeric ticks.
    pub categories: Option<Vec<String>>,
}

impl Axis {
    /// A linear axis from 0 to `max` (a little headroom; 1 when empty).
    pub fn linear(title: &str, max: f64) -> Axis {
        let max = if max > 0.0 && max.is_finite() {
            max * 1.05
        } else {
            1.0
        };
        Axis {
            title: title.into(),
            min: 0.0,
            max,
            log: false,
            categories: None,
        }
    }

    /// A log axis spanning `lo..hi` out to whole decades.
    pub fn log(title: &str, lo: f64, hi: f64) -> Axis {
        let lo = if lo > 0.0 && lo.is_finite() { lo } else { 1.0 };
        let hi = if hi > lo && hi.is_finite() {
            hi
        } else {
            lo * 10.0
        };
        Axis {
            title: title.into(),
            min: 10f64.powf(lo.log10().floor()),
            max: 10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
            log: true,
            categories: None,
        }
    }

    /// `n` categories, labelled (a label every few when there are many).
    pub fn categories(title: &str, labels: Vec<String>) -> Axis {
        Axis {
            title: title.into(),
            min: 0.0,
            max: labels.len().max(1) as f64,
            log: false,
            categories: Some(labels),
        }
    }

    /// No axis: no ticks, no title (a band).
    pub fn none() -> Axis {
        Axis {
            title: String::new(),
            min: 0.0,
            max: 1.0,
            log: false,
            categories: Some(Vec::new()),
        }
    }

    /// Where `v` falls, 0..1 along the axis.
    fn frac(&self, v: f64) -> f64 {
        let f = if self.log {
            let v = v.max(self.min * 1e-3);
            (v.log10() - self.min.log10()) / (self.max.log10() - self.min.log10())
        } else {
            (v - self.min) / (self.max - self.min)
        };
        f.clamp(-0.05, 1.05)
    }

    /// Tick positions and labels.
    fn ticks(&self) -> Vec<(f64, String)> {
        if let Some(c) = &self.categories {
            let step = c.len().div_ceil(16).max(1);
            return (c.iter().enumerate())
                .filter(|(i, _)| i % step == 0)
                .map(|(i, l)| (i as f64 + 0.5, l.clone()))
                .collect();
        }
        if self.log {
            let (a, b) = (self.min.log10() as i32, self.max.log10() as i32);
            let step = ((b - a) as usize).div_ceil(8).max(1);
            return (a..=b)
                .step_by(step)
                .map(|e| (10f64.powi(e), num(10f64.powi(e))))
                .collect();
        }
        let raw = (self.max - self.min) / 5.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(raw);
        let mut out = Vec::new();
        let mut t = (self.min / step).ceil() * step;
        while t <= self.max + step * 1e-9 {
            out.push((t, num(t)));
            t += step;
        }
        out
    }
}

/// A plot under construction.
pub struct Plot {
    pub x: Axis,
    pub y: Axis,
    /// Height in CSS pixels ([`H`] unless set).
    pub h: f64,
    body: String,
    legend: Vec<(String, String, bool)>,
}

impl Plot {
    pub fn new(x: Axis, y: Axis) -> Plot {
        Plot {
            x,
            y,
            h: H,
            body: String::new(),
            legend: Vec::new(),
        }
    }

    fn px(&self, v: f64) -> f64 {
        LEFT + self.x.frac(v) * (W - LEFT - RIGHT)
    }

    fn py(&self, v: f64) -> f64 {
        self.h - BOTTOM - self.y.frac(v) * (self.h - TOP - BOTTOM)
    }

    /// A legend entry (`dashed` for a line, else a filled square).
    pub fn legend(&mut self, color: &str, label: &str, dashed: bool) {
        self.legend.push((color.into(), label.into(), dashed));
    }

    /// A bar from (x0, y0) to (x1, y1) in data coordinates, with a tooltip.
    #[allow(clippy::too_many_arguments)]
    pub fn bar(&mut self, x0: f64, x1: f64, y0: f64, y1: f64, color: &str, tip: &str) {
        let (a, b) = (self.px(x0), self.px(x1));
        let (top, bottom) = (self.py(y1), self.py(y0));
        let _ = write!(
            self.body,
            r#"<rect class="bar" x="{a:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="{color}"><title>{}</title></rect>"#,
            (b - a).max(0.5),
            (bottom - top).max(0.0),
            esc(tip)
        );
    }

    /// A polyline through `points`, with a dot at each.
    pub fn line(&mut self, points: &[(f64, f64)], color: &str, dashed: bool, tip: &str) {
        if points.is_empty() {
            return;
        }
        let pts: Vec<String> = (points.iter())
            .map(|&(x, y)| format!("{:.1},{:.1}", self.px(x), self.py(y)))
            .collect();
        let dash = if dashed {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let _ = write!(
            self.body,
            r#"<polyline class="series" points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}><title>{}</title></polyline>"#,
            pts.join(" "),
            esc(tip)
        );
        if !dashed {
            for &(x, y) in points {
                let _ = write!(
                    self.body,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"><title>{}: {}</title></circle>"#,
                    self.px(x),
                    self.py(y),
                    esc(tip),
                    num(y)
                );
            }
        }
    }

    /// A horizontal reference line at `y`, labelled at its right end.
    pub fn hline(&mut self, y: f64, color: &str, label: &str) {
        let py = self.py(y);
        let _ = write!(
            self.body,
            r#"<line class="ref" x1="{LEFT}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}" stroke="{color}" stroke-width="2" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="reflabel" fill="{color}">{}</text>"#,
            W - RIGHT,
            W - RIGHT - 4.0,
            py - 5.0,
            esc(label)
        );
    }

    /// The finished `<svg>`: `id` and the classes `chart` and `class`,
    /// titled `title`.
    pub fn render(&self, id: &str, class: &str, title: &str) -> String {
        let mut s = format!(
            r#"<svg id="{}" class="chart {}" viewBox="0 0 {W} {}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg"><title>{}</title>"#,
            esc(id),
            esc(class),
            self.h,
            esc(title),
            esc(title)
        );
        let (x0, x1, y0, y1) = (LEFT, W - RIGHT, TOP, self.h - BOTTOM);
        for (t, label) in self.y.ticks() {
            let y = self.py(t);
            let _ = write!(
                s,
                r#"<line class="grid" x1="{x0}" x2="{x1}" y1="{y:.1}" y2="{y:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                x0 - 6.0,
                y + 4.0,
                esc(&label)
            );
        }
        for (t, label) in self.x.ticks() {
            let x = self.px(t);
            let _ = write!(
                s,
                r#"<line class="axis" x1="{x:.1}" x2="{x:.1}" y1="{y1}" y2="{:.1}"/><text class="tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                y1 + 4.0,
                y1 + 16.0,
                esc(&label)
            );
        }
        s.push_str(&self.body);
        let _ = write!(
            s,
            r#"<line class="axis" x1="{x0}" x2="{x1}" y1="{y1}" y2="{y1}"/><line class="axis" x1="{x0}" x2="{x0}" y1="{y0}" y2="{y1}"/><text class="axistitle" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><text class="axistitle" transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            (x0 + x1) / 2.0,
            self.h - 8.0,
            esc(&self.x.title),
            (y0 + y1) / 2.0,
            esc(&self.y.title)
        );
        let mut lx = x0;
        for (color, label, dashed) in &self.legend {
            let mark = if *dashed {
                format!(
                    r#"<line x1="{lx:.1}" x2="{:.1}" y1="14" y2="14" stroke="{color}" stroke-width="2" stroke-dasharray="5 3"/>"#,
                    lx + 14.0
                )
            } else {
                format!(r#"<rect x="{lx:.1}" y="8" width="12" height="12" fill="{color}"/>"#)
            };
            let _ = write!(
                s,
                r#"<g class="legend">{mark}<text x="{:.1}" y="18">{}</text></g>"#,
                lx + 18.0,
                esc(label)
            );
            lx += 30.0 + 7.0 * label.chars().count() as f64;
        }
        s.push_str("</svg>");
        s
    }
}

/// Horizontal bars (label, value, colour) against a linear axis of
/// `unit`, with a dashed limit (value, label) when given: memory against
/// the budget, import phases.
pub fn hbars(
    id: &str,
    class: &str,
    title: &str,
    unit: &str,
    rows: &[(String, f64, &str)],
    limit: Option<(f64, String)>,
    max: f64,
) -> String {
    let h = 40.0 + 30.0 * rows.len() as f64 + 36.0;
    let (left, right) = (150.0, W - 24.0);
    let max = if max > 0.0 { max * 1.05 } else { 1.0 };
    let x = |v: f64| left + (v / max).clamp(0.0, 1.05) * (right - left);
    let mut s = format!(
        r#"<svg id="{}" class="chart {}" viewBox="0 0 {W} {h}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg"><title>{}</title>"#,
        esc(id),
        esc(class),
        esc(title),
        esc(title)
    );
    let axis = Axis::linear(unit, max / 1.05);
    let base = 30.0 + 30.0 * rows.len() as f64;
    for (t, label) in axis.ticks() {
        let _ = write!(
            s,
            r#"<line class="grid" x1="{0:.1}" x2="{0:.1}" y1="20" y2="{base}"/><text class="tick" x="{0:.1}" y="{1:.1}" text-anchor="middle">{2}</text>"#,
            x(t),
            base + 14.0,
            esc(&label)
        );
    }
    for (i, (label, v, color)) in rows.iter().enumerate() {
        let y = 26.0 + 30.0 * i as f64;
        let _ = write!(
            s,
            r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text><rect class="bar" x="{left}" y="{y:.1}" width="{:.1}" height="20" fill="{color}"><title>{}: {} {}</title></rect><text class="value" x="{:.1}" y="{:.1}">{}</text>"#,
            left - 8.0,
            y + 14.0,
            esc(label),
            (x(*v) - left).max(0.5),
            esc(label),
            num(*v),
            esc(unit),
            x(*v) + 4.0,
            y + 14.0,
            num(*v)
        );
    }
    if let Some((v, label)) = limit {
        let _ = write!(
            s,
            r##"<line class="ref" x1="{0:.1}" x2="{0:.1}" y1="16" y2="{base}" stroke="{3}" stroke-width="2" stroke-dasharray="6 4"/><text class="reflabel" x="{1:.1}" y="13" text-anchor="end" fill="{3}">{2}</text>"##,
            x(v),
            x(v) - 2.0,
            esc(&label),
            super::html::LIMIT
        );
    }
    let _ = write!(
        s,
        r#"<line class="axis" x1="{left}" x2="{left}" y1="20" y2="{base}"/><text class="axistitle" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text></svg>"#,
        (left + right) / 2.0,
        h - 6.0,
        esc(unit)
    );
    s
}
