//! `glovebox eval cases`: test cases in a general format, each remembered in a fresh memory
//! through the same code as `remember`, scored for false memories, preference recall and
//! precision, and value accuracy.
//!
//! A case is one JSON object per line: `{"conversation": [turns], "expect": [{"category": KEY,
//! "value"?: TEXT}], "tag"?: TEXT, "id"?: TEXT}`. `"expect": []` means nothing may be stored. An
//! expected category is scored at the level it names: a subcategory key matches any detail of
//! that subcategory, a detail key only itself.
//!
//! Values are compared after folding case, punctuation and spaces (`not X` therefore matches
//! `not x`); a stored catalogue value also matches an expected value that names it by the
//! rule extraction uses to recognise named values (`values::named_values`: "22 degrees"
//! names "22 degree Celcius").
//!
//! Everything stored counts, pending or not; `recalled` scores only what recall can use (a
//! pending preference, `extraction.confirm_below` or `extraction.hold_one_off`, is not).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde::Deserialize;
use serde_json::{json, Value};

use super::carmem::EvalError;
use super::lines;
use super::metrics::quantile;
use crate::conversation::Conversation;
use crate::memory::values::{named_values, turned_down};
use crate::memory::{Memory, Models};
use crate::pref::{Preference, Status, UserId};
use crate::schema::{CategoryRef, Schema};

/// One expected preference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub category: String,
    #[serde(default)]
    pub value: Option<String>,
}

/// One test case as read.
#[derive(Debug, Clone, Deserialize)]
pub struct RawCase {
    pub conversation: Value,
    pub expect: Vec<Expect>,
    #[serde(default)]
    pub tag: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
}

/// One test case, checked against the schema.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub tag: String,
    pub conversation: Conversation,
    pub expect: Vec<(CategoryRef, Option<String>)>,
}

/// Reads cases (JSON lines), checking every conversation and expected category; `origin` names
/// the text in errors.
pub fn parse(text: &str, origin: &str, schema: &Schema) -> Result<Vec<Case>, EvalError> {
    let mut out = Vec::new();
    for line in lines::non_empty(text, origin) {
        let raw: RawCase = line.parse()?;
        let conversation =
            Conversation::from_value(&raw.conversation).map_err(|e| line.error(e.to_string()))?;
        let expect = raw
            .expect
            .into_iter()
            .map(|e| {
                schema
                    .resolve(&e.category)
                    .map(|c| (c, e.value))
                    .map_err(|err| line.error(err.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(Case {
            id: raw.id.unwrap_or_else(|| format!("line-{}", line.number)),
            tag: raw.tag.unwrap_or_else(|| "untagged".into()),
            conversation,
            expect,
        });
    }
    Ok(out)
}

/// Reads a cases file.
pub fn load(path: &Path, schema: &Schema) -> Result<Vec<Case>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|error| EvalError::Read {
        path: path.display().to_string(),
        error,
    })?;
    parse(&text, &path.display().to_string(), schema)
}

/// Lower case, letters and digits only, single spaces.
pub fn fold(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a stored value is the expected one (see the module doc).
pub fn value_matches(schema: &Schema, stored: &Preference, expected: &str) -> bool {
    if fold(&stored.attribute) == fold(expected) {
        return true;
    }
    let (sn, sv) = split_not(&stored.attribute);
    let (en, ev) = split_not(expected);
    sn == en
        && schema.canonical_attribute(stored.detail, sv).is_some()
        && named_values(schema, stored.detail, &[ev.to_string()])
            .iter()
            .any(|v| v.eq_ignore_ascii_case(sv))
}

/// Whether a value turns something down, and the value itself.
fn split_not(s: &str) -> (bool, &str) {
    match turned_down(s) {
        Some(v) => (true, v),
        None => (false, s.trim()),
    }
}

/// Whether a stored preference is in the expected category, at the level the category names.
pub fn category_matches(schema: &Schema, stored: &Preference, expected: CategoryRef) -> bool {
    match expected {
        CategoryRef::Detail(d) => stored.detail == d,
        CategoryRef::Sub(s) => schema.detail(stored.detail).sub == s,
    }
}

/// Counts over a set of cases.
#[derive(Debug, Default, Clone)]
pub struct Score {
    cases: usize,
    empty_cases: usize,
    false_memory_cases: usize,
    expected: usize,
    found: usize,
    stored: usize,
    correct_stored: usize,
    valued: usize,
    value_right: usize,
    ms: Vec<f64>,
}

/// `a / b` to three decimals, null when `b` is 0 (the reports' shares).
pub(crate) fn ratio(a: usize, b: usize) -> Value {
    if b == 0 {
        Value::Null
    } else {
        json!((a as f64 / b as f64 * 1000.0).round() / 1000.0)
    }
}

impl Score {
    fn add(&mut self, o: &Score) {
        self.cases += o.cases;
        self.empty_cases += o.empty_cases;
        self.false_memory_cases += o.false_memory_cases;
        self.expected += o.expected;
        self.found += o.found;
        self.stored += o.stored;
        self.correct_stored += o.correct_stored;
        self.valued += o.valued;
        self.value_right += o.value_right;
        self.ms.extend(&o.ms);
    }

    fn json(&self) -> Value {
        json!({
            "cases": self.cases,
            "false_memory_rate": ratio(self.false_memory_cases, self.empty_cases),
            "preference_recall": ratio(self.found, self.expected),
            "preference_precision": ratio(self.correct_stored, self.stored),
            "value_accuracy": ratio(self.value_right, self.valued),
            "extract_ms_p50": (quantile(&self.ms, 0.5) * 10.0).round() / 10.0,
        })
    }
}

/// Scores one case's stored preferences. Each expected preference is matched to at most one
/// stored preference of its category (one whose value matches first), and each stored one to
/// at most one expected.
pub fn score_case(schema: &Schema, case: &Case, stored: &[&Preference], ms: f64) -> Score {
    let mut used = vec![false; stored.len()];
    let mut s = Score {
        cases: 1,
        empty_cases: usize::from(case.expect.is_empty()),
        false_memory_cases: usize::from(case.expect.is_empty() && !stored.is_empty()),
        expected: case.expect.len(),
        stored: stored.len(),
        ms: vec![ms],
        ..Score::default()
    };
    for (cat, value) in &case.expect {
        let in_cat = |i: &usize| !used[*i] && category_matches(schema, stored[*i], *cat);
        let by_value = (0..stored.len()).filter(in_cat).find(|&i| {
            value
                .as_deref()
                .is_some_and(|v| value_matches(schema, stored[i], v))
        });
        let Some(i) = by_value.or_else(|| (0..stored.len()).find(in_cat)) else {
            continue;
        };
        used[i] = true;
        s.found += 1;
        s.correct_stored += 1;
        if let Some(v) = value {
            s.valued += 1;
            s.value_right += usize::from(value_matches(schema, stored[i], v));
        }
    }
    s
}

/// Runs every case in a fresh memory and returns the report (`by_tag` beside the overall keys).
pub fn run(
    models: &Arc<Models>,
    cases: &[Case],
    mut rows: Option<&mut dyn Write>,
) -> Result<Value, EvalError> {
    models.warm_up()?;
    let schema = models.schema().clone();
    let user = UserId::new("case").map_err(crate::memory::MemoryError::from)?;
    let mut total = Score::default();
    // The same, counting only what recall can use (not what is pending).
    let mut recalled = Score::default();
    let mut by_tag: BTreeMap<String, Score> = BTreeMap::new();
    for case in cases {
        let dir = tempfile::tempdir().map_err(EvalError::Write)?;
        let mem = Memory::open_with(dir.path(), models.clone())?;
        let t0 = Instant::now();
        mem.remember(&user, &case.conversation)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        let stored = mem.list(&user)?;
        let all: Vec<&Preference> = stored.iter().collect();
        let s = score_case(&schema, case, &all, ms);
        let active: Vec<&Preference> = stored
            .iter()
            .filter(|p| p.status == Status::Active)
            .collect();
        recalled.add(&score_case(&schema, case, &active, ms));
        if let Some(w) = rows.as_mut() {
            let row = json!({
                "id": case.id, "tag": case.tag,
                "expect": case.expect.iter().map(|(c, v)| json!({"category": category_key(&schema, *c), "value": v})).collect::<Vec<_>>(),
                "stored": stored.iter().map(|p| json!({"category": schema.detail(p.detail).key, "value": p.attribute, "sentence": p.sentences.first(), "pending": p.status == Status::Pending})).collect::<Vec<_>>(),
                "false_memory": s.false_memory_cases == 1,
                "ms": ms,
            });
            writeln!(w, "{row}").map_err(EvalError::Write)?;
        }
        total.add(&s);
        by_tag.entry(case.tag.clone()).or_default().add(&s);
    }
    let mut report = total.json();
    let r = recalled.json();
    report["recalled"] = json!({
        "false_memory_rate": r["false_memory_rate"],
        "preference_recall": r["preference_recall"],
        "preference_precision": r["preference_precision"],
    });
    report["by_tag"] = by_tag
        .iter()
        .map(|(t, s)| (t.clone(), s.json()))
        .collect::<serde_json::Map<_, _>>()
        .into();
    Ok(report)
}

fn category_key(schema: &Schema, c: CategoryRef) -> String {
    match c {
        CategoryRef::Detail(d) => schema.detail(d).key.clone(),
        CategoryRef::Sub(s) => schema.sub(s).key.clone(),
    }
}

/// The report as a small text table.
pub fn table(r: &Value) -> String {
    let line = |name: &str, v: &Value| {
        format!(
            "| {name} | {} | {} | {} | {} | {} | {} |\n",
            v["cases"],
            v["false_memory_rate"],
            v["preference_recall"],
            v["preference_precision"],
            v["value_accuracy"],
            v["extract_ms_p50"]
        )
    };
    let mut t = String::from(
        "| tag | cases | false memory rate | preference recall | preference precision | value accuracy | extract ms p50 |\n|---|---|---|---|---|---|---|\n",
    );
    t.push_str(&line("all", r));
    let a = &r["recalled"];
    if !a.is_null() {
        t.push_str(&format!(
            "| recalled (not pending) | | {} | {} | {} | | |\n",
            a["false_memory_rate"], a["preference_recall"], a["preference_precision"]
        ));
    }
    if let Some(tags) = r["by_tag"].as_object() {
        for (k, v) in tags {
            t.push_str(&line(k, v));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pref::{Millis, PreferenceId, Status};

    fn pref(schema: &Schema, key: &str, value: &str) -> Preference {
        Preference {
            id: PreferenceId(1),
            user: UserId::new("u").unwrap(),
            detail: schema.detail_by_key(key).unwrap(),
            attribute: value.into(),
            sentences: vec![],
            status: Status::Active,
            confidence: 1.0,
            created: Millis(0),
            updated: Millis(0),
            last_recalled: None,
            replaces: None,
            condition: None,
            last_written: Millis(0),
        }
    }

    fn case(schema: &Schema, line: &str) -> Case {
        parse(line, "t", schema).unwrap().remove(0)
    }

    #[test]
    fn an_empty_expectation_makes_any_store_a_false_memory() {
        let s = Schema::embedded();
        let c = case(
            &s,
            r#"{"conversation":[{"role":"user","text":"Will it rain?"}],"expect":[]}"#,
        );
        let sc = score_case(&s, &c, &[&pref(&s, "favorite_genres", "Jazz")], 1.0);
        assert_eq!(sc.false_memory_cases, 1);
        assert_eq!(sc.json()["preference_precision"], json!(0.0));
        assert_eq!(score_case(&s, &c, &[], 1.0).false_memory_cases, 0);
    }

    #[test]
    fn categories_are_scored_at_the_level_named_and_values_folded() {
        let s = Schema::embedded();
        let c = case(
            &s,
            r#"{"conversation":[{"role":"user","text":"x"}],"expect":[{"category":"music","value":"jazz"},{"category":"preferred_temperature","value":"22 degrees"}],"tag":"t"}"#,
        );
        let stored = [
            pref(&s, "favorite_genres", "Jazz!"),
            pref(&s, "preferred_temperature", "22 degree Celcius"),
        ];
        let sc = score_case(&s, &c, &[&stored[0], &stored[1]], 1.0);
        assert_eq!((sc.found, sc.correct_stored, sc.value_right), (2, 2, 2));
        let wrong = [pref(&s, "preferred_temperature", "21 degree Celcius")];
        let sc = score_case(&s, &c, &[&wrong[0]], 1.0);
        assert_eq!((sc.found, sc.value_right, sc.valued), (1, 0, 1));
        assert!(value_matches(
            &s,
            &pref(&s, "favorite_genres", "not Jazz"),
            "NOT jazz"
        ));
        assert!(!value_matches(
            &s,
            &pref(&s, "favorite_genres", "not Jazz"),
            "jazz"
        ));
    }

    #[test]
    fn bad_cases_name_the_line_and_the_problem() {
        let s = Schema::embedded();
        let e = parse(
            "\n{\"conversation\":[{\"role\":\"user\",\"text\":\"x\"}],\"expect\":[{\"category\":\"nope\"}]}",
            "cases.jsonl",
            &s,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 2") && e.contains("nope"), "{e}");
    }

    #[test]
    fn every_shipped_case_file_reads_against_the_embedded_schema() {
        let s = Schema::embedded();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        assert!(files.len() >= 9, "{files:?}");
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let cases = parse(&std::fs::read_to_string(&f).unwrap(), &name, &s)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(!cases.is_empty(), "{name}");
            let ids: std::collections::HashSet<_> = cases.iter().map(|c| &c.id).collect();
            assert_eq!(ids.len(), cases.len(), "{name}: ids repeat");
            // A no-preference file expects nothing of any case; a preference file something of each.
            let none = name.contains("no-preference");
            assert!(
                cases.iter().all(|c| c.expect.is_empty() == none),
                "{name}: a case's expect does not fit the file"
            );
        }
    }
}
