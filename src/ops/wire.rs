//! The JSON shapes clients see, over the socket and from `--json` on the command line, and the
//! export document's JSON form. Internal types are converted here, in one place, and nowhere
//! else become `Serialize`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::memory::export::{Export, Import, ImportError, EXPORT_FORMAT, EXPORT_VERSION};
use crate::memory::{NewPreference, Outcome, Recalled};
use crate::pref::{HistoryEntry, Maintenance, Millis, Preference, Status};
use crate::schema::{CategoryRef, Detail, Schema, ValueKind};

/// A stored preference as clients see it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WirePreference {
    pub id: u64,
    pub main: String,
    pub sub: String,
    pub category: String,
    pub category_key: String,
    pub attribute: String,
    pub sentences: Vec<String>,
    pub status: &'static str,
    pub confidence: f32,
    pub created_ms: u64,
    pub updated_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_recalled_ms: Option<u64>,
    /// A pending preference from an uncertain update: the id of the active preference it
    /// replaces once confirmed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaces_id: Option<u64>,
    /// The situation in which alone it holds, in the user's words; absent: always.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

impl WirePreference {
    pub fn new(schema: &Schema, p: &Preference) -> WirePreference {
        let d = schema.detail(p.detail);
        WirePreference {
            id: p.id.0,
            main: schema.main(d.main).name.clone(),
            sub: schema.sub(d.sub).name.clone(),
            category: d.name.clone(),
            category_key: d.key.clone(),
            attribute: p.attribute.clone(),
            sentences: p.sentences.clone(),
            status: p.status.as_str(),
            confidence: p.confidence,
            created_ms: p.created.0,
            updated_ms: p.updated.0,
            last_recalled_ms: p.last_recalled.map(|Millis(m)| m),
            replaces_id: p.replaces.map(|r| r.0),
            condition: p.condition.clone(),
        }
    }
}

/// What `remember` did with one extracted preference.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WireOutcome {
    /// Whose preference it is: the speaker of the words (the request's user by default).
    pub user: String,
    /// `append` (new or beside others), `pass` or `update`.
    pub operation: &'static str,
    pub preference: WirePreference,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<WirePreference>,
}

impl WireOutcome {
    pub fn new(schema: &Schema, o: &Outcome) -> WireOutcome {
        let (operation, replaced) = match o.op {
            Maintenance::New | Maintenance::Append => ("append", None),
            Maintenance::Pass(_) => ("pass", None),
            Maintenance::Update(_) => ("update", o.previous.as_ref()),
        };
        WireOutcome {
            user: o.user.as_str().to_string(),
            operation,
            preference: WirePreference::new(schema, &o.preference),
            replaced: replaced.map(|p| WirePreference::new(schema, p)),
        }
    }
}

/// One recalled preference with its score.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WireRecalled {
    pub score: f32,
    /// The probability, in [0, 1], that the preference matters for the utterance (1 for a
    /// category asked for explicitly).
    pub relevance: f32,
    /// For a conditional preference: whether its condition is met now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition_met: Option<bool>,
    /// The value to set now, when the utterance asks for a step from the remembered number
    /// ("a touch higher than usual").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    #[serde(flatten)]
    pub preference: WirePreference,
}

impl WireRecalled {
    pub fn new(schema: &Schema, r: &Recalled) -> WireRecalled {
        WireRecalled {
            score: r.score,
            relevance: r.relevance,
            condition_met: r.condition_met,
            now: r.now.clone(),
            preference: WirePreference::new(schema, &r.preference),
        }
    }
}

/// One history entry.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WireHistory {
    pub time_ms: u64,
    pub operation: &'static str,
    pub category: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<WirePreference>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<WirePreference>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sentence: Option<String>,
}

impl WireHistory {
    pub fn new(schema: &Schema, h: &HistoryEntry) -> WireHistory {
        WireHistory {
            time_ms: h.time.0,
            operation: h.op.as_str(),
            category: h.category.clone(),
            before: h.before.as_ref().map(|p| WirePreference::new(schema, p)),
            after: h.after.as_ref().map(|p| WirePreference::new(schema, p)),
            sentence: h.sentence.clone(),
        }
    }
}

/// A category reference by key and name.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WireCategory {
    pub key: String,
    pub name: String,
    pub level: &'static str,
}

impl WireCategory {
    pub fn new(schema: &Schema, r: CategoryRef) -> WireCategory {
        WireCategory {
            key: schema.ref_key(r).to_string(),
            name: schema.ref_name(r).to_string(),
            level: match r {
                CategoryRef::Sub(_) => "sub",
                CategoryRef::Detail(_) => "detail",
            },
        }
    }
}

/// One detail category of the schema (`categories`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WireDetail {
    pub main: String,
    pub sub: String,
    pub sub_key: String,
    pub name: String,
    pub key: String,
    /// `single` or `multiple`.
    pub values: String,
    pub description: String,
    pub attributes: Vec<String>,
    /// `text`, `choice`, `integer` or `flag`.
    pub kind: ValueKind,
    /// An integer's range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    /// Other names people use for the setting.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Other words for listed values, by value.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub value_aliases: BTreeMap<String, Vec<String>>,
    /// Real names drivers give a free-text value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

impl WireDetail {
    pub fn new(schema: &Schema, d: &Detail) -> WireDetail {
        WireDetail {
            main: schema.main(d.main).name.clone(),
            sub: schema.sub(d.sub).name.clone(),
            sub_key: schema.sub(d.sub).key.clone(),
            name: d.name.clone(),
            key: d.key.clone(),
            values: d.cardinality.to_string(),
            description: d.description.clone(),
            attributes: d.attributes.clone(),
            kind: d.kind,
            min: d.range.map(|r| r.0),
            max: d.range.map(|r| r.1),
            aliases: d.aliases.clone(),
            value_aliases: d.value_aliases.iter().cloned().collect(),
            names: d.names.clone(),
        }
    }
}

/// What a running memory reports about itself (`status`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WireStatus {
    pub server_version: &'static str,
    pub protocol: u64,
    pub data_dir: String,
    pub preferences_indexed: usize,
    pub users: usize,
    pub llm: String,
    pub embedder: String,
}

/// The export document: `{"format", "version", "exported_ms", "user", "preferences": [P],
/// "history": [H], "optouts": [C]}`.
pub fn export_document(schema: &Schema, e: &Export) -> Value {
    json!({
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_ms": e.exported.0,
        "user": e.user.as_str(),
        "preferences": e.preferences.iter().map(|p| WirePreference::new(schema, p)).collect::<Vec<_>>(),
        "history": e.history.iter().map(|h| WireHistory::new(schema, h)).collect::<Vec<_>>(),
        "optouts": e.optouts.iter().map(|r| WireCategory::new(schema, *r)).collect::<Vec<_>>(),
    })
}

/// Reads an export document back: its opt-outs, and each preference's category, attribute,
/// sentences, status (absent: active) and confidence (absent: 1). Ids, times and history are
/// not carried over.
pub fn import_document(schema: &Schema, doc: &Value) -> Result<Import, ImportError> {
    let bad = |m: String| ImportError::Format(m);
    if doc["format"] != EXPORT_FORMAT {
        return Err(bad(format!("\"format\" must be {EXPORT_FORMAT:?}")));
    }
    match doc["version"].as_u64() {
        Some(EXPORT_VERSION) => {}
        v => {
            return Err(bad(format!(
                "version {v:?} is not supported (this build reads {EXPORT_VERSION})"
            )))
        }
    }
    let mut out = Import::default();
    let optouts = doc["optouts"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for (i, o) in optouts.iter().enumerate() {
        let key = o["key"]
            .as_str()
            .ok_or_else(|| bad(format!("optouts[{i}] has no \"key\"")))?;
        out.optouts.push(
            schema
                .resolve(key)
                .map_err(|e| bad(format!("optouts[{i}]: {e}")))?,
        );
    }
    let prefs = doc["preferences"]
        .as_array()
        .ok_or_else(|| bad("\"preferences\" must be a list".into()))?;
    for (i, p) in prefs.iter().enumerate() {
        out.preferences
            .push(imported_preference(schema, p).map_err(|m| bad(format!("preferences[{i}]{m}")))?);
    }
    Ok(out)
}

/// One preference of an export document; errors start with what follows `preferences[i]`.
fn imported_preference(schema: &Schema, p: &Value) -> Result<(NewPreference, Status, f32), String> {
    let key = p["category_key"]
        .as_str()
        .ok_or(" has no \"category_key\"")?;
    let detail = schema
        .detail_by_key(key)
        .ok_or_else(|| format!(": unknown category key {key:?}"))?;
    let attribute = p["attribute"]
        .as_str()
        .filter(|a| !a.trim().is_empty())
        .ok_or(" has no \"attribute\"")?;
    let sentences: Vec<String> = p["sentences"]
        .as_array()
        .ok_or(" has no \"sentences\" list")?
        .iter()
        .map(|s| s.as_str().map(str::to_string))
        .collect::<Option<_>>()
        .ok_or(": sentences must be strings")?;
    // Pending preferences stay pending; documents without a status (or confidence) hold
    // active ones.
    let status = match p.get("status").and_then(|v| v.as_str()) {
        None | Some("active") => Status::Active,
        Some("pending") => Status::Pending,
        Some(other) => {
            return Err(format!(
                ": status {other:?} is neither \"active\" nor \"pending\""
            ))
        }
    };
    let confidence = match p.get("confidence") {
        None | Some(Value::Null) => 1.0,
        Some(v) => v
            .as_f64()
            .filter(|c| (0.0..=1.0).contains(c))
            .ok_or(": confidence must be within [0, 1]")? as f32,
    };
    let condition = match p.get("condition") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) if !c.trim().is_empty() => Some(c.trim().to_string()),
        Some(_) => return Err(": condition must be a non-empty string".into()),
    };
    let new = NewPreference {
        detail,
        attribute: attribute.to_string(),
        sentences,
        condition,
    };
    Ok((new, status, confidence))
}
