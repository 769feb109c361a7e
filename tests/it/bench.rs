//! `glovebox bench --json`: the quick latency run reports every figure of the budgets table.

use serde_json::Value;

use crate::common::{glovebox, json_output};

#[test]
fn bench_json_reports_every_figure() {
    let r: Value =
        json_output(glovebox().args(["--json", "bench", "--rounds", "1", "--conversations", "2"]));
    for key in [
        "recall_ms_p50",
        "embed_ms_p50",
        "extract_ms_p50",
        "raw_token_ms",
        "maintain_ms_p50",
        "cold_start_ms",
        "peak_rss_mb",
        "recall_per_embed",
        "extract_per_raw",
    ] {
        let v = r[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} missing: {r}"));
        assert!(v > 0.0 && v.is_finite(), "{key} = {v}");
    }
    assert_eq!(r["samples"]["conversations"], 2);
    for budget in ["recall", "extract", "maintain", "cold_start", "peak_rss"] {
        assert!(r["budgets_met"][budget].is_boolean(), "{budget}: {r}");
    }
}
