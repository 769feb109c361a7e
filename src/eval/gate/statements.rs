//! The schema's example statements as the gates' positives (`eval gate --statements`), and
//! their contrasts as negatives (`--contrasts`): sentences on the same topics, in the same
//! words, that state no lasting preference of the speaker's ("Take me to the nearest Shell,
//! I'm nearly empty.", "My sister swears by Waitrose."). Statements alone teach a gate that a
//! sentence about fuel brands or seat heaters is a preference; with their contrasts it has to
//! learn what makes one lasting and the speaker's own.
//!
//! A contrast that is a request to the car for now ("kind": "request") is read as the labels
//! read CarMem's revealing requests (`--labels`): a negative of the one-off gate, and left out
//! of the preference gate, which passes a request that names a value so that the lasting
//! track can hold it pending until it is asked for again.

use std::path::Path;

use serde::Deserialize;

use super::{Sample, Source};
use crate::eval::carmem::EvalError;
use crate::schema::Schema;

/// The schema's example statements (`Detail::says`) as positives: each a lasting preference
/// said the way a driver says it, which CarMem's generated sentences are not ("I only fill up
/// at BP.", "Traffic jams don't bother me, I just put a podcast on"). Written from the schema
/// alone, so they are training data like the development files, never a test case. Each
/// detail's statements are one group, dealt to folds like a user's sentences; the report
/// measures each statement on its own (`statement_kept`).
pub fn statement_samples(schema: &Schema) -> Vec<Sample> {
    schema
        .details()
        .iter()
        .flat_map(|d| {
            d.says.iter().enumerate().map(move |(i, s)| Sample {
                text: s.clone(),
                positive: true,
                source: Source::SchemaStatement,
                unit: format!("says/{}/{}", d.key, i + 1),
                group: format!("says/{}", d.key),
            })
        })
        .collect()
}

/// One line of a contrasts file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Contrast {
    detail: String,
    text: String,
    #[serde(default)]
    kind: Option<String>,
}

/// The kinds a contrast may be of (`kind`; one of them, or none given).
pub const KINDS: [&str; 7] = [
    "request",
    "question",
    "remark",
    "story",
    "someone_else",
    "plan",
    "small_talk",
];

/// The contrasts of a JSON-lines file (`{"detail": KEY, "text": SENTENCE}`, config/contrasts.jsonl)
/// as negatives, each in its detail's group (the group of that detail's statements, so a
/// detail's statements and contrasts fall in one fold). A line that does not parse, names a
/// detail the schema lacks, has an empty text or a kind not in [`KINDS`] is an error naming its
/// line. With `requests` (the one-off gate's fit, `--labels`), a contrast of kind `request` is
/// a negative too; without, it is left out.
pub fn contrast_samples(
    schema: &Schema,
    path: &Path,
    requests: bool,
) -> Result<Vec<Sample>, EvalError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| EvalError::Read {
        path: origin.clone(),
        error,
    })?;
    parse_contrasts(schema, &text, &origin, requests)
}

fn parse_contrasts(
    schema: &Schema,
    text: &str,
    origin: &str,
    requests: bool,
) -> Result<Vec<Sample>, EvalError> {
    let bad = |line: usize, problem: String| EvalError::Data {
        path: origin.to_string(),
        line,
        problem,
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let c: Contrast = serde_json::from_str(line).map_err(|e| bad(i + 1, e.to_string()))?;
        if schema.detail_by_key(&c.detail).is_none() {
            return Err(bad(i + 1, format!("unknown detail {:?}", c.detail)));
        }
        if c.text.trim().is_empty() {
            return Err(bad(i + 1, "empty text".into()));
        }
        match c.kind.as_deref() {
            Some(k) if !KINDS.contains(&k) => {
                return Err(bad(i + 1, format!("unknown kind {k:?} (one of {KINDS:?})")));
            }
            Some("request") if !requests => continue,
            _ => {}
        }
        out.push(Sample {
            text: c.text.trim().to_string(),
            positive: false,
            source: Source::SchemaContrast,
            unit: format!("contrast/{}/{}", c.detail, i + 1),
            group: format!("says/{}", c.detail),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_statement_is_a_positive_grouped_by_its_detail() {
        let schema = Schema::embedded();
        let samples = statement_samples(&schema);
        let says: usize = schema.details().iter().map(|d| d.says.len()).sum();
        assert_eq!(samples.len(), says);
        assert!(samples
            .iter()
            .all(|s| s.positive && s.source == Source::SchemaStatement));
        let first = &schema.details()[0];
        let of_first: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.group == format!("says/{}", first.key))
            .collect();
        assert_eq!(of_first.len(), first.says.len());
        assert_eq!(of_first[0].text, first.says[0]);
    }

    #[test]
    fn contrasts_are_negatives_in_their_details_group_and_bad_lines_are_named() {
        let schema = Schema::embedded();
        let key = &schema.details()[0].key;
        let text = format!("{{\"detail\": \"{key}\", \"text\": \"Is there one on the way?\"}}\n\n");
        let got = parse_contrasts(&schema, &text, "c.jsonl", false).unwrap();
        assert_eq!(got.len(), 1);
        assert!(!got[0].positive && got[0].source == Source::SchemaContrast);
        assert_eq!(got[0].group, format!("says/{key}"));
        let unknown = "{\"detail\": \"no_such\", \"text\": \"x\"}";
        let e = parse_contrasts(&schema, unknown, "c.jsonl", false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1") && e.contains("no_such"), "{e}");
        let broken = format!("{}\n{{\"detail\": 3}}", text.trim());
        let e = parse_contrasts(&schema, &broken, "c.jsonl", false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("c.jsonl, line 2"), "{e}");
        let empty = format!("{{\"detail\": \"{key}\", \"text\": \" \"}}");
        let e = parse_contrasts(&schema, &empty, "c.jsonl", false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("empty text"), "{e}");
        let odd = format!("{{\"detail\": \"{key}\", \"text\": \"x\", \"kind\": \"joke\"}}");
        let e = parse_contrasts(&schema, &odd, "c.jsonl", false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown kind \"joke\""), "{e}");
    }

    #[test]
    fn a_request_to_the_car_is_a_negative_of_the_one_off_gate_only() {
        let schema = Schema::embedded();
        let key = &schema.details()[0].key;
        let line = |text: &str, kind: &str| {
            format!("{{\"detail\": \"{key}\", \"text\": \"{text}\", \"kind\": \"{kind}\"}}\n")
        };
        let text =
            line("Take me to the nearest one.", "request") + &line("Is it open?", "question");
        let texts = |requests| -> Vec<String> {
            parse_contrasts(&schema, &text, "c.jsonl", requests)
                .unwrap()
                .into_iter()
                .map(|s| s.text)
                .collect()
        };
        assert_eq!(texts(false), ["Is it open?"]);
        assert_eq!(texts(true), ["Take me to the nearest one.", "Is it open?"]);
    }

    #[test]
    fn a_schema_without_statements_adds_nothing() {
        assert!(statement_samples(&crate::schema::vehicle_for_tests()).is_empty());
    }
}
