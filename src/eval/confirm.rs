//! The effect of `extraction.confirm_below` on extraction, measured after the fact from the
//! confidences of one run: for each threshold, preferences below it would be stored pending
//! (not recalled until the user confirms), so only the others count as stored. Pure arithmetic
//! over the run's predictions; the threshold never changes what the model answers.

use serde_json::{json, Value};

use super::metrics::{levels, Confusion};
use crate::schema::{DetailId, Schema};

/// Thresholds always reported (0 = confirmation off); the configured one is added.
pub const THRESHOLDS: [f32; 8] = [0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];

/// The predictions of one run with their confidences.
#[derive(Debug, Default, Clone)]
pub struct ConfidenceTally {
    /// In-schema conversations: the truth and every extracted (detail, confidence).
    pub in_schema: Vec<(DetailId, Vec<(DetailId, f32)>)>,
    /// Out-of-schema conversations (the truth's subcategory opted out): the confidence of each
    /// extracted preference (every one is wrong).
    pub out_of_schema: Vec<Vec<f32>>,
}

/// One threshold's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub threshold: f32,
    /// Detail-level precision/recall/F1 over the preferences stored active.
    pub detail: Confusion,
    /// Share of extracted preferences (in-schema) that would be pending.
    pub pending_share: f64,
    /// Of those pending, the share that was wrong at detail level.
    pub pending_wrong_share: f64,
    /// Detail precision once the user has confirmed the right pending ones and rejected the
    /// wrong ones (recall is then the same as without a threshold).
    pub precision_after_answers: f64,
    /// Out-of-schema conversations that store nothing active.
    pub out_of_schema_none_active: f64,
}

fn share(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl ConfidenceTally {
    /// The figures at one threshold.
    pub fn row(&self, schema: &Schema, threshold: f32) -> Row {
        let mut detail = Confusion::default();
        let mut after = Confusion::default();
        let (mut items, mut pending, mut pending_wrong) = (0, 0, 0);
        for (truth, got) in &self.in_schema {
            let active: Vec<DetailId> = got
                .iter()
                .filter(|(_, c)| *c >= threshold)
                .map(|(d, _)| *d)
                .collect();
            detail.add(levels(schema, *truth, &active)[2]);
            // The user confirms what is right among the pending and rejects the rest.
            let mut kept = active.clone();
            for (d, c) in got {
                items += 1;
                if *c < threshold {
                    pending += 1;
                    if d == truth {
                        kept.push(*d);
                    } else {
                        pending_wrong += 1;
                    }
                }
            }
            after.add(levels(schema, *truth, &kept)[2]);
        }
        let none_active = self
            .out_of_schema
            .iter()
            .filter(|cs| cs.iter().all(|c| *c < threshold))
            .count();
        Row {
            threshold,
            detail,
            pending_share: share(pending, items),
            pending_wrong_share: share(pending_wrong, pending),
            precision_after_answers: after.prf().precision,
            out_of_schema_none_active: share(none_active, self.out_of_schema.len()),
        }
    }

    /// The report's `confirmation` section: one row per threshold, plus the mean confidence of
    /// right and wrong extractions (how well confidence separates them).
    pub fn report(&self, schema: &Schema, configured: f32) -> Value {
        let mut ts: Vec<f32> = THRESHOLDS.to_vec();
        if !ts.iter().any(|t| (t - configured).abs() < 1e-6) {
            ts.push(configured);
            ts.sort_by(f32::total_cmp);
        }
        let (mut right, mut wrong) = (Vec::new(), Vec::new());
        for (truth, got) in &self.in_schema {
            for (d, c) in got {
                if d == truth {
                    right.push(f64::from(*c));
                } else {
                    wrong.push(f64::from(*c));
                }
            }
        }
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        json!({
            "configured": configured,
            "mean_confidence_right": mean(&right),
            "mean_confidence_wrong": mean(&wrong),
            "thresholds": ts.iter().map(|&t| {
                let r = self.row(schema, t);
                json!({
                    "confirm_below": t,
                    "detail": serde_json::to_value(r.detail.prf()).expect("plain numbers"),
                    "pending_share": r.pending_share,
                    "pending_wrong_share": r.pending_wrong_share,
                    "precision_after_answers": r.precision_after_answers,
                    "out_of_schema_none_active": r.out_of_schema_none_active,
                })
            }).collect::<Vec<_>>(),
        })
    }
}

/// The `confirmation` section as a table for a person.
pub fn table(c: &Value) -> String {
    let f = |v: &Value| v.as_f64().map_or("-".to_string(), |x| format!("{x:.2}"));
    let mut s = format!(
        "\nConfirmation threshold (extraction.confirm_below; below it a preference is stored pending):\n\
         mean confidence of right extractions {}, of wrong ones {}\n\n\
         | confirm_below | detail P | detail R | detail F1 | pending | pending that were wrong | P after answers | out-of-schema none active |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        f(&c["mean_confidence_right"]),
        f(&c["mean_confidence_wrong"]),
    );
    for r in c["thresholds"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            f(&r["confirm_below"]),
            f(&r["detail"]["precision"]),
            f(&r["detail"]["recall"]),
            f(&r["detail"]["f1"]),
            f(&r["pending_share"]),
            f(&r["pending_wrong_share"]),
            f(&r["precision_after_answers"]),
            f(&r["out_of_schema_none_active"]),
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_moves_uncertain_extractions_to_pending() {
        let s = Schema::embedded();
        let d = |k: &str| s.detail_by_key(k).unwrap();
        let (temp, genres, fan) = (
            d("preferred_temperature"),
            d("favorite_genres"),
            d("fan_speed_preferences"),
        );
        let t = ConfidenceTally {
            in_schema: vec![
                (temp, vec![(temp, 0.9)]),                 // right, sure
                (genres, vec![(genres, 0.4)]),             // right, unsure
                (temp, vec![(fan, 0.3)]),                  // wrong, unsure
                (genres, vec![(genres, 0.8), (fan, 0.2)]), // right + wrong
            ],
            out_of_schema: vec![vec![0.6], vec![], vec![0.2]],
        };
        let off = t.row(&s, 0.0);
        assert_eq!(
            off.detail,
            Confusion {
                tp: 3,
                fp: 2,
                fn_: 1
            }
        );
        assert_eq!(off.pending_share, 0.0);
        assert!((off.out_of_schema_none_active - 1.0 / 3.0).abs() < 1e-9);
        let half = t.row(&s, 0.5);
        assert_eq!(
            half.detail,
            Confusion {
                tp: 2,
                fp: 0,
                fn_: 2
            }
        );
        assert_eq!(half.pending_share, 3.0 / 5.0);
        assert!((half.pending_wrong_share - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(half.precision_after_answers, 1.0);
        assert!((half.out_of_schema_none_active - 2.0 / 3.0).abs() < 1e-9);
        let r = t.report(&s, 0.45);
        assert_eq!(
            r["thresholds"].as_array().unwrap().len(),
            THRESHOLDS.len() + 1
        );
        assert!(table(&r).contains("| 0.45 |"));
    }
}
