//! The gate's report at one threshold: per kind of conversation, the share it keeps or leaves
//! silent.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::{Sample, Source};

/// What the gate does at one threshold, per kind of conversation: the share of preference
/// conversations it keeps (their revealing sentence passes) and the share of others it leaves
/// silent (no sentence passes).
pub fn measure(samples: &[Sample], probs: &[f32], threshold: f32) -> Value {
    // A conversation whose revealing sentences are all labelled requests is of its own kind,
    // silent when none passes; one that also states the preference is a preference.
    #[derive(Default)]
    struct Unit {
        kind: &'static str,
        any: bool,
        revealing: bool,
        request: bool,
        positive: bool,
    }
    let mut units: HashMap<&str, Unit> = HashMap::new();
    for (s, &p) in samples.iter().zip(probs) {
        let u = units.entry(s.unit.as_str()).or_default();
        let pass = p >= threshold;
        u.any |= pass;
        u.revealing |= pass && s.positive;
        u.positive |= s.positive;
        u.kind = match s.source {
            Source::CarmemPreference | Source::CarmemOther if u.kind.is_empty() => {
                "carmem_preference"
            }
            Source::CarmemLabelledRequest => {
                u.request |= pass;
                "carmem_labelled_request"
            }
            Source::CarmemRequest => "carmem_request",
            Source::Kvret(i) => i.name(),
            Source::VmbPreference => "vmb_preference",
            Source::SchemaStatement => "statement",
            Source::SchemaContrast => "contrast",
            Source::Vmb if u.kind.is_empty() => "vmb_line",
            _ => u.kind,
        };
    }
    let mut by: HashMap<&str, (usize, usize)> = HashMap::new();
    for u in units.values() {
        let kind = match u.kind {
            "carmem_labelled_request" if u.positive => "carmem_preference",
            k => k,
        };
        let e = by.entry(kind).or_default();
        e.0 += 1;
        let good = match kind {
            "carmem_preference" | "vmb_preference" | "statement" => u.revealing,
            "carmem_labelled_request" => !u.request,
            _ => !u.any,
        };
        e.1 += usize::from(good);
    }
    let share = |k: &str| {
        by.get(k).map_or(Value::Null, |(n, g)| {
            json!((*g as f64 / *n as f64 * 1000.0).round() / 1000.0)
        })
    };
    let others = samples
        .iter()
        .zip(probs)
        .filter(|(s, _)| s.source == Source::CarmemOther);
    let (on, op) = others.fold((0usize, 0usize), |(n, p), (_, &pr)| {
        (n + 1, p + usize::from(pr >= threshold))
    });
    let mut out = json!({
        "threshold": threshold,
        "carmem_preference_kept": share("carmem_preference"),
        "carmem_other_sentences_passing": (op as f64 / on.max(1) as f64 * 1000.0).round() / 1000.0,
        "carmem_request_silent": share("carmem_request"),
        "kvret_weather_silent": share("weather"),
        "kvret_schedule_silent": share("schedule"),
        "kvret_navigate_silent": share("navigate"),
        "vmb_line_silent": share("vmb_line"),
        "vmb_preference_kept": share("vmb_preference"),
    });
    // Only with labels (`--labels`), statements and contrasts, so that a report without them
    // reads as before.
    if by.contains_key("carmem_labelled_request") {
        out["carmem_labelled_request_silent"] = share("carmem_labelled_request");
    }
    if by.contains_key("statement") {
        out["statement_kept"] = share("statement");
    }
    if by.contains_key("contrast") {
        out["contrast_silent"] = share("contrast");
    }
    out
}
