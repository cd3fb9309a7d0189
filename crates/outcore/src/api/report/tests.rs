use super::*;
use serde_json::json;

#[test]
fn text_is_escaped_in_elements_and_attributes() {
    assert_eq!(
        esc(r#"<script>alert("x") & 'y'</script>"#),
        "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;"
    );
    assert_eq!(esc("plain ü"), "plain ü");
    // A store path and a string id carrying markup reach the page escaped.
    let doc = Doc {
        name: "<b>a.json".into(),
        json: json!({
            "command": "run", "algorithm": "pagerank", "store": "x\"<img src=y>",
            "memory_budget": 1048576, "iterations": [],
            "result": {"shape": "scores", "what": "pagerank", "vertices": 1,
                       "histogram": [[0.1, 0.2, 1]], "top": [["<i>v</i>", "0.15"]]}
        }),
    };
    let page = page(&[doc]);
    assert!(!page.contains("<img"), "raw markup from a stats file");
    assert!(!page.contains("<i>v</i>") && !page.contains("<b>a.json"));
    assert!(page.contains("&lt;i&gt;v&lt;/i&gt;") && page.contains("&lt;b&gt;a.json"));
}

/// A run of three iterations: the first streamed, the last two selected.
fn tiny_run() -> Value {
    let it = |n: u64, engine: &str, secs: f64, io: f64, cpu: f64, bytes: u64, active: u64| {
        json!({"iteration": n, "engine": engine, "seconds": secs, "io_wait_seconds": io,
               "compute_seconds": cpu, "cache_seconds": 0.0, "bytes_read": bytes,
               "read_requests": 4, "active_vertices": active,
               "planner": {"stream_seconds": 0.5, "select_seconds": 0.25 * (n as f64 + 1.0),
                           "stream_bytes": 1000, "select_bytes": 400,
                           "external_seconds": 0.0, "external_bytes": 0,
                           "grid_seconds": 0.0, "grid_bytes": 0, "chosen": engine}})
    };
    json!({
        "command": "run", "algorithm": "bfs", "store": "g", "engine": "auto",
        "wall_seconds": 1.5, "bytes_read": 6_000_000, "io_wait_seconds": 0.6,
        "compute_seconds": 0.9, "peak_rss_bytes": 48u64 << 20, "memory_budget": 64u64 << 20,
        "vertex_state_bytes": 8u64 << 20, "segment_bytes": 16u64 << 20, "cache_pool_bytes": 0,
        "disk": {"source": "outcore calibrate", "bytes_per_second": 2.0e9, "depth": 64,
                 "page_bytes": 4096},
        "iterations": [it(0, "stream", 1.0, 0.5, 0.5, 4_000_000, 1),
                       it(1, "select", 0.3, 0.1, 0.2, 1_500_000, 100),
                       it(2, "select", 0.2, 0.0, 0.2, 500_000, 10_000)],
        "result": {"shape": "counts", "what": "depth", "vertices": 10101,
                   "counts": [[0, 1], [1, 100], [2, 10000]], "unreached": 0, "top": []}
    })
}

#[test]
fn a_tiny_run_draws_every_chart() {
    let page = page(&[Doc {
        name: "t.json".into(),
        json: tiny_run(),
    }]);
    for id in [
        "time-0",
        "bytes-0",
        "rate-0",
        "engine-0",
        "estimates-0",
        "active-0",
        "memory-0",
        "result-0",
    ] {
        assert!(page.contains(&format!("id=\"{id}\"")), "no chart {id}");
    }
    // Stacked bars: I/O wait and compute of each iteration (the third
    // waited for nothing: no bar), 5 bars; their heights add up to each
    // iteration's seconds (the first, 1.0 s, is the tallest: 1.05 s of
    // axis over 200 px).
    let time = &page[page.find("id=\"time-0\"").unwrap()..];
    let time = &time[..time.find("</svg>").unwrap()];
    let heights: Vec<f64> = time
        .split("<rect class=\"bar\"")
        .skip(1)
        .map(|bar| {
            let rest = &bar[bar.find("height=\"").unwrap() + 8..];
            rest[..rest.find('"').unwrap()].parse().unwrap()
        })
        .collect();
    assert_eq!(heights.len(), 5, "{time}");
    let px = 200.0 / 1.05;
    assert!((heights[0] - 0.5 * px).abs() < 0.2, "{heights:?}");
    assert!((heights[0] + heights[1] - px).abs() < 0.3, "{heights:?}");
    assert!(
        (heights[2] + heights[3] - 0.3 * px).abs() < 0.3,
        "{heights:?}"
    );
    assert!((heights[4] - 0.2 * px).abs() < 0.2, "{heights:?}");
    // The disk rate is drawn and named; the band has both engines.
    assert!(page.contains("disk: 2000 MB/s"));
    let band = &page[page.find("id=\"engine-0\"").unwrap()..];
    let band = &band[..band.find("</svg>").unwrap()];
    assert_eq!(band.matches(html::engine_color("select")).count(), 3); // 2 cells + legend
    assert_eq!(band.matches(html::engine_color("stream")).count(), 2);
    // Log axis of active vertices: decades 1 to 10k.
    let active = &page[page.find("id=\"active-0\"").unwrap()..];
    let active = &active[..active.find("</svg>").unwrap()];
    assert!(active.contains(">10k</text>") && active.contains(">1</text>"));
}

#[test]
fn unknown_disk_rate_is_said_and_bad_files_are_named() {
    let mut run = tiny_run();
    run.as_object_mut().unwrap().remove("disk");
    let page = page(&[Doc {
        name: "t.json".into(),
        json: run,
    }]);
    assert!(page.contains("disk rate unknown"));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"command\": \"run\",\n oops").unwrap();
    let e = load(&[&bad]).unwrap_err().to_string();
    assert!(e.contains("bad.json:2: not JSON"), "{e}");
    std::fs::write(&bad, "[1]").unwrap();
    let e = load(&[&bad]).unwrap_err().to_string();
    assert!(e.contains("a JSON array, not a stats object"), "{e}");
}

#[test]
fn numbers_read_short() {
    assert_eq!(html::num(0.25), "0.25");
    assert_eq!(html::num(12.5), "12.5");
    assert_eq!(html::num(32000.0), "32k");
    assert_eq!(html::num(1_050_000.0), "1.05M");
    assert_eq!(html::num(0.0), "0");
    assert_eq!(html::num(100.0), "100");
}
