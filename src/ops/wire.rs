//! The JSON shapes clients see, over the socket and from `--json` on the command line. Internal
//! types are converted here, in one place, and nowhere else become `Serialize`.

use serde::Serialize;

use crate::memory::{Outcome, Recalled};
use crate::pref::{HistoryEntry, Maintenance, Millis, Preference};
use crate::schema::{CategoryRef, Schema};

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
        }
    }
}

/// What `remember` did with one extracted preference.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WireOutcome {
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
    #[serde(flatten)]
    pub preference: WirePreference,
}

impl WireRecalled {
    pub fn new(schema: &Schema, r: &Recalled) -> WireRecalled {
        WireRecalled {
            score: r.score,
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
