//! The CarMem report: the tally as JSON (the keys of issue 3), and as a table for a person
//! beside the paper's GPT-4o figures.

use serde_json::{json, Value};

use super::{MaintKinds, Tally};
use crate::config::Config;
use crate::eval::metrics::{quantile, Confusion, OpCounts, TopN};
use crate::memory::Models;

pub(super) fn report(models: &Models, cfg: &Config, t: &Tally, total_s: f64) -> Value {
    let prf = |c: &Confusion| serde_json::to_value(c.prf()).expect("plain numbers");
    let (none, one, two) = t.in_counts.shares();
    let (onone, oone, otwo) = t.out_counts.shares();
    let ops = |o: &OpCounts| {
        let (p, u, a) = o.shares();
        json!({"pass": p, "update": u, "append": a, "n": o.n()})
    };
    let kinds = |k: &MaintKinds| json!({"equal": ops(&k.equal), "negate": ops(&k.negate), "different": ops(&k.different)});
    let equal_n = t.maint_mp.equal.n() + t.maint_mnp.equal.n();
    let equal_ok = t.maint_mp.equal.pass
        + t.maint_mp.equal.update
        + t.maint_mnp.equal.pass
        + t.maint_mnp.equal.update;
    let negate_n = t.maint_mp.negate.n() + t.maint_mnp.negate.n();
    let negate_ok = t.maint_mp.negate.update + t.maint_mnp.negate.update;
    let share = |a: u32, b: u32| {
        if b == 0 {
            0.0
        } else {
            f64::from(a) / f64::from(b)
        }
    };
    let topn = |x: &TopN| {
        let (a, b, c) = x.shares();
        json!({"n": a, "n+1": b, "n+2": c})
    };
    let mut conf: Vec<_> = t.confusions.iter().collect();
    conf.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    json!({
        "extraction_in_schema": {
            "main": prf(&t.in_levels[0]), "sub": prf(&t.in_levels[1]), "detail": prf(&t.in_levels[2]),
            "none": none, "one": one, "two_plus": two,
            "valid_output": share(t.valid, t.in_counts.total()),
            "value_accuracy": share(t.value_right, t.valued),
            // Held pending as one-off requests (`extraction.hold_one_off`): of all extracted,
            // and of those in the right category.
            "held_pending": share(t.held, t.extracted),
            "right_held_pending": share(t.right_held, t.valued),
            "conversations": t.in_counts.total(),
        },
        "extraction_out_of_schema": {"none": onone, "one": oone, "two_plus": otwo, "conversations": t.out_counts.total()},
        "maintenance": {
            "MP": kinds(&t.maint_mp), "MNP": kinds(&t.maint_mnp),
            "redundant_reduction": share(equal_ok, equal_n),
            "contradictory_reduction": share(negate_ok, negate_n),
        },
        "retrieval": {"enriched": topn(&t.enriched), "sentence_only": topn(&t.sentence_only), "queries": t.enriched.queries,
            "gate": crate::eval::relevance::report(&t.relevance, &t.extra, crate::eval::relevance::Cut { threshold: models.relevance().threshold, relative: models.relevance().relative }, cfg.recall.k)},
        "timing": {
            "extract_ms_p50": quantile(&t.extract_ms, 0.5), "extract_ms_p95": quantile(&t.extract_ms, 0.95),
            "maintain_ms_p50": quantile(&t.maintain_ms, 0.5),
            "recall_ms_p50": quantile(&t.recall_ms, 0.5), "recall_ms_p95": quantile(&t.recall_ms, 0.95),
            "total_s": total_s,
        },
        "models": {
            "llm": cfg.models.llm.display().to_string(),
            "embedder": cfg.models.embedder.display().to_string(),
        },
        "confusions": conf.iter().take(10).map(|((a, b), n)| json!({"expected": a, "got": b, "count": n})).collect::<Vec<_>>(),
        "schema_details": models.schema().details().len(),
        "confirmation": t.confirm.report(models.schema(), cfg.extraction.confirm_below),
    })
}

/// The report as a table for a person, with the paper's GPT-4o figures beside it.
pub fn table(r: &Value) -> String {
    let mut s = summary(r);
    s.push_str(&maintenance(&r["maintenance"]));
    let tm = &r["timing"];
    s.push_str(&format!(
        "\nTiming: extract p50 {:.0} ms, p95 {:.0} ms; maintain p50 {:.0} ms; recall p50 {:.1} ms, p95 {:.1} ms; total {:.0} s\n",
        tm["extract_ms_p50"].as_f64().unwrap_or(0.0),
        tm["extract_ms_p95"].as_f64().unwrap_or(0.0),
        tm["maintain_ms_p50"].as_f64().unwrap_or(0.0),
        tm["recall_ms_p50"].as_f64().unwrap_or(0.0),
        tm["recall_ms_p95"].as_f64().unwrap_or(0.0),
        tm["total_s"].as_f64().unwrap_or(0.0),
    ));
    if r["confirmation"].is_object() {
        s.push_str(&crate::eval::confirm::table(&r["confirmation"]));
    }
    if let Some(c) = r["confusions"].as_array().filter(|c| !c.is_empty()) {
        s.push_str("\nMost frequent detail-level errors (expected -> got):\n");
        for e in c {
            s.push_str(&format!(
                "  {:>3}  {} -> {}\n",
                e["count"],
                e["expected"].as_str().unwrap_or(""),
                e["got"].as_str().unwrap_or("")
            ));
        }
    }
    s
}

/// A number with two decimals, or `-`.
fn f(v: &Value) -> String {
    v.as_f64().map_or("-".to_string(), |x| format!("{x:.2}"))
}

/// A share as a whole percentage, or `-`.
fn pct(v: &Value) -> String {
    v.as_f64()
        .map_or("-".to_string(), |x| format!("{:.0} %", x * 100.0))
}

/// The headline table: extraction, maintenance reductions and retrieval beside the paper's.
fn summary(r: &Value) -> String {
    let x = &r["extraction_in_schema"];
    let o = &r["extraction_out_of_schema"];
    let m = &r["maintenance"];
    let rt = &r["retrieval"];
    let mut s = String::new();
    s.push_str(&format!(
        "CarMem on-device ({} in-schema conversations, {} retrieval queries)\n\n",
        x["conversations"], rt["queries"]
    ));
    s.push_str("| metric | Glovebox | paper (GPT-4o) |\n| --- | --- | --- |\n");
    for (lvl, paper) in [
        ("main", ".94"),
        ("sub", ".90"),
        ("detail", ".78 (P .75 R .81)"),
    ] {
        s.push_str(&format!(
            "| extraction F1 {lvl} | {} (P {} R {}) | {paper} |\n",
            f(&x[lvl]["f1"]),
            f(&x[lvl]["precision"]),
            f(&x[lvl]["recall"])
        ));
    }
    s.push_str(&format!(
        "| in-schema 0 / 1 / 2+ | {} / {} / {} | 6 / 82 / 12 % |\n",
        pct(&x["none"]),
        pct(&x["one"]),
        pct(&x["two_plus"])
    ));
    s.push_str(&format!(
        "| valid structured output | {} | 99 % |\n",
        pct(&x["valid_output"])
    ));
    s.push_str(&format!(
        "| value accuracy (right category) | {} | - |\n",
        pct(&x["value_accuracy"])
    ));
    s.push_str(&format!(
        "| held pending as one-off requests: all / right category | {} / {} | - |\n",
        pct(&x["held_pending"]),
        pct(&x["right_held_pending"])
    ));
    s.push_str(&format!(
        "| out-of-schema 0 / 1 / 2+ | {} / {} / {} | 75 / 23 / 2 % |\n",
        pct(&o["none"]),
        pct(&o["one"]),
        pct(&o["two_plus"])
    ));
    s.push_str(&format!(
        "| maintenance: redundant / contradictory reduction | {} / {} | 95 / 93 % |\n",
        pct(&m["redundant_reduction"]),
        pct(&m["contradictory_reduction"])
    ));
    for (kind, paper) in [
        ("enriched", ".87 / .94 / .97"),
        ("sentence_only", ".75 / .88 / .93"),
    ] {
        let k = &rt[kind];
        s.push_str(&format!(
            "| retrieval {kind} top n / n+1 / n+2 | {} / {} / {} | {paper} |\n",
            f(&k["n"]),
            f(&k["n+1"]),
            f(&k["n+2"])
        ));
    }
    s
}

/// Maintenance per question kind and cardinality.
fn maintenance(m: &Value) -> String {
    let mut s = String::new();
    s.push_str("\nMaintenance (share of pass / update / append; n):\n\n| values | question | expected | pass | update | append | n |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    for (kind, label) in [("MP", "multiple"), ("MNP", "single")] {
        for (q, exp) in [
            ("equal", "pass"),
            ("negate", "update"),
            ("different", if kind == "MP" { "append" } else { "update" }),
        ] {
            let c = &m[kind][q];
            s.push_str(&format!(
                "| {label} | {q} | {exp} | {} | {} | {} | {} |\n",
                f(&c["pass"]),
                f(&c["update"]),
                f(&c["append"]),
                c["n"]
            ));
        }
    }
    s
}
