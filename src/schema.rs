//! The category schema: the closed, hierarchical set of things Glovebox may remember
//! (main → sub → detail), loaded once from TOML and validated, then referred to by typed ids.
//!
//! **Invariant:** a [`DetailId`], [`SubId`] or [`MainId`] is only ever produced by the [`Schema`]
//! that it indexes; the storage layer persists the stable `key` strings, never the ids.

use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

mod raw;
mod set;
use raw::{call_of, place, real_names, said_as, typed, valid_key, value_aliases, RawSchema};
pub use set::DetailSet;

/// The schema shipped in the binary (`config/categories.toml`).
pub const DEFAULT_SCHEMA_TOML: &str = include_str!("../config/categories.toml");

/// Index of a main category in its [`Schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MainId(u16);

/// Index of a subcategory in its [`Schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SubId(u16);

/// Index of a detail category in its [`Schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DetailId(u16);

impl DetailId {
    /// Position of this detail in [`Schema::details`].
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl SubId {
    /// Position of this subcategory in [`Schema::subs`].
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// How many values a detail category holds at once (CarMem's SP/MNP versus MP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cardinality {
    /// One value at a time: a new value replaces the stored one.
    Single,
    /// Several values side by side.
    Multiple,
}

impl fmt::Display for Cardinality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cardinality::Single => "single",
            Cardinality::Multiple => "multiple",
        })
    }
}

/// A main category (e.g. "Points of Interest").
#[derive(Debug, Clone)]
pub struct Main {
    pub id: MainId,
    pub key: String,
    pub name: String,
    pub subs: Vec<SubId>,
}

/// A subcategory (e.g. "Restaurant").
#[derive(Debug, Clone)]
pub struct Sub {
    pub id: SubId,
    pub main: MainId,
    pub key: String,
    pub name: String,
    pub description: String,
    pub details: Vec<DetailId>,
}

/// A detail category (e.g. "Desired Price Range"), the level preferences are stored at.
#[derive(Debug, Clone)]
pub struct Detail {
    pub id: DetailId,
    pub sub: SubId,
    pub main: MainId,
    pub key: String,
    pub name: String,
    pub description: String,
    pub cardinality: Cardinality,
    /// Known attribute values, in schema order; a preference may also hold another value
    /// unless the detail is [`ValueKind::Choice`].
    pub attributes: Vec<String>,
    /// Whether a value is one of the known attributes, a number, a flag or the user's own words.
    pub kind: ValueKind,
    /// For [`ValueKind::Integer`]: the accepted values, inclusive.
    pub range: Option<(i64, i64)>,
    /// The vehicle call that applies the detail, when the schema names one.
    pub call: Option<Call>,
    /// Other names people use for the setting ("seat height" for Seat Vertical Position): each
    /// is one more text the embedder places a sentence by, and a name a sentence may say the
    /// setting by, as its own name.
    pub aliases: Vec<String>,
    /// Other words for listed values, by value as listed ("recirculation" and "recirculate"
    /// for `inside`): a sentence that says one names the value (`memory::values`).
    pub value_aliases: Vec<(String, Vec<String>)>,
    /// Real names drivers give a free-text value ("Tesco", "Shell", "Ionity"), which a
    /// catalogue of invented ones does not hold: each is one more text the embedder places a
    /// sentence by, like a known value, and never a value offered for a sentence that does not
    /// say it (the value stays the user's words).
    pub names: Vec<String>,
    /// How drivers state such a preference ("I only ever fill up at Shell", "Traffic jams
    /// don't bother me"), written by the schema's author, not taken from any conversation:
    /// each is one more text the embedder places a sentence by, as a labelled example
    /// sentence would be. Never a value, and never a name the sentence must say.
    pub says: Vec<String>,
    /// A name-valued setting whose value is a place the person goes to (a destination): only
    /// a name or thing said as where one goes is its value ("drive *to* the airport", "a
    /// meeting *at* the Main Campus Library"; not "I'll call City Hospital").
    pub place: bool,
}

impl Detail {
    /// A vehicle setting whose value is a name of the user's (a destination, a station): free
    /// text with a vehicle call and no example values.
    pub fn takes_a_name(&self) -> bool {
        self.call.is_some() && self.kind == ValueKind::Text && self.attributes.is_empty()
    }

    /// A vehicle setting's free text whose attributes are only examples (a colour): they name
    /// no setting, and the value is read like a choice's.
    pub fn has_example_values(&self) -> bool {
        self.call.is_some() && self.kind == ValueKind::Text && !self.attributes.is_empty()
    }
}

/// The vehicle function a detail's value is applied with: `function(argument=value, selector=...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub function: String,
    /// The argument that carries the value.
    pub argument: String,
    /// The call's other arguments: where it applies (`seat`, `zone`, `side`, ...), chosen when it
    /// is applied, not part of what is preferred.
    pub selectors: Vec<String>,
}

/// A [`ValueKind::Flag`] detail's two values.
pub const FLAG_ON: &str = "on";
pub const FLAG_OFF: &str = "off";

/// What a detail's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    /// The user's own words (a brand, a station, a song, a number): the known attributes are
    /// examples, and a value the user names that is not among them is kept as said.
    #[default]
    Text,
    /// One of the known attributes (a level, a yes/no, a mode): the user rarely says the
    /// attribute's words, so the value is chosen among them.
    Choice,
    /// A whole number within the detail's `min`..=`max`, read from the user's words.
    Integer,
    /// On or off ([`FLAG_ON`], [`FLAG_OFF`], the detail's attributes).
    Flag,
}

impl ValueKind {
    /// Whether the value is always one of the detail's known attributes.
    pub fn is_closed(self) -> bool {
        matches!(self, ValueKind::Choice | ValueKind::Flag)
    }
}

/// A user-facing reference to part of the schema: what an opt-out or a forget names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CategoryRef {
    Sub(SubId),
    Detail(DetailId),
}

/// Errors in loading a schema or resolving a category name against it.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    // The io error is in the message, not marked as the source (see `MemoryError::DataDir`).
    #[error("cannot read schema file {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("schema is not valid TOML: {0}")]
    Toml(#[from] toml::de::Error),
    #[error("schema: {0}")]
    Invalid(String),
    #[error("unknown category {0:?} (expected a subcategory or detail category name or key; `glovebox categories` lists them)")]
    UnknownCategory(String),
}

/// The validated category schema.
#[derive(Debug, Clone)]
pub struct Schema {
    pub version: u32,
    mains: Vec<Main>,
    subs: Vec<Sub>,
    details: Vec<Detail>,
}

/// The shipped vehicle-settings schema (`config/schemas/vehicle.toml`), for unit tests.
#[cfg(test)]
pub(crate) fn vehicle_for_tests() -> Schema {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/config/schemas/vehicle.toml");
    Schema::load(std::path::Path::new(path)).expect("the shipped vehicle schema loads")
}

impl Schema {
    /// The schema embedded in the binary.
    pub fn embedded() -> Schema {
        Schema::from_toml(DEFAULT_SCHEMA_TOML).expect("the embedded schema is valid")
    }

    /// Loads and validates a schema file.
    pub fn load(path: &Path) -> Result<Schema, SchemaError> {
        let text = std::fs::read_to_string(path).map_err(|error| SchemaError::Read {
            path: path.display().to_string(),
            error,
        })?;
        Schema::from_toml(&text)
    }

    /// Parses and validates a schema: every name and key non-empty, keys unique across all
    /// levels and made of `[a-z0-9_]`, names unique within their level, attributes non-empty and
    /// unique within their detail, and every main and sub non-empty.
    pub fn from_toml(text: &str) -> Result<Schema, SchemaError> {
        let raw: RawSchema = toml::from_str(text)?;
        let invalid = |m: String| Err(SchemaError::Invalid(m));
        let mut schema = Schema {
            version: raw.version,
            mains: Vec::new(),
            subs: Vec::new(),
            details: Vec::new(),
        };
        let mut keys = HashSet::new();
        let mut names = HashSet::new();
        for rm in raw.main {
            let main_id = MainId(schema.mains.len() as u16);
            check_named(&rm.name, &rm.key, "main category", &mut keys, &mut names)?;
            if rm.sub.is_empty() {
                return invalid(format!("main category {:?} has no subcategories", rm.name));
            }
            let mut main = Main {
                id: main_id,
                key: rm.key,
                name: rm.name,
                subs: Vec::new(),
            };
            for rs in rm.sub {
                let sub_id = SubId(schema.subs.len() as u16);
                check_named(&rs.name, &rs.key, "subcategory", &mut keys, &mut names)?;
                if rs.detail.is_empty() {
                    return invalid(format!(
                        "subcategory {:?} has no detail categories",
                        rs.name
                    ));
                }
                let mut sub = Sub {
                    id: sub_id,
                    main: main_id,
                    key: rs.key,
                    name: rs.name,
                    description: rs.description,
                    details: Vec::new(),
                };
                for rd in rs.detail {
                    let id = DetailId(schema.details.len() as u16);
                    check_named(&rd.name, &rd.key, "detail category", &mut keys, &mut names)?;
                    let mut seen = HashSet::new();
                    for a in &rd.attributes {
                        if a.trim().is_empty() {
                            return invalid(format!("detail {:?} has an empty attribute", rd.name));
                        }
                        if !seen.insert(a.to_lowercase()) {
                            return invalid(format!(
                                "detail {:?} lists attribute {a:?} twice",
                                rd.name
                            ));
                        }
                    }
                    let (range, attributes) = typed(&rd)?;
                    let value_aliases = value_aliases(&rd, &attributes)?;
                    let place = place(&rd)?;
                    let real = real_names(&rd)?;
                    let says = said_as(&rd)?;
                    let call = call_of(&rd)?;
                    sub.details.push(id);
                    schema.details.push(Detail {
                        id,
                        sub: sub_id,
                        main: main_id,
                        key: rd.key,
                        name: rd.name,
                        description: rd.description,
                        cardinality: rd.values,
                        attributes,
                        kind: rd.kind,
                        range,
                        call,
                        aliases: rd.aliases,
                        value_aliases,
                        names: real,
                        says,
                        place,
                    });
                }
                main.subs.push(sub_id);
                schema.subs.push(sub);
            }
            schema.mains.push(main);
        }
        if schema.details.is_empty() {
            return invalid("the schema has no categories".into());
        }
        if schema.details.len() > usize::from(u16::MAX) {
            return invalid("the schema has too many categories".into());
        }
        Ok(schema)
    }

    pub fn mains(&self) -> &[Main] {
        &self.mains
    }

    pub fn subs(&self) -> &[Sub] {
        &self.subs
    }

    pub fn details(&self) -> &[Detail] {
        &self.details
    }

    pub fn main(&self, id: MainId) -> &Main {
        &self.mains[usize::from(id.0)]
    }

    pub fn sub(&self, id: SubId) -> &Sub {
        &self.subs[usize::from(id.0)]
    }

    pub fn detail(&self, id: DetailId) -> &Detail {
        &self.details[usize::from(id.0)]
    }

    /// The detail whose stable key is `key`.
    pub fn detail_by_key(&self, key: &str) -> Option<DetailId> {
        self.details.iter().find(|d| d.key == key).map(|d| d.id)
    }

    /// The detail set by `argument` of the vehicle call `function`.
    pub fn detail_by_call(&self, function: &str, argument: &str) -> Option<DetailId> {
        self.details
            .iter()
            .find(|d| {
                d.call
                    .as_ref()
                    .is_some_and(|c| c.function == function && c.argument == argument)
            })
            .map(|d| d.id)
    }

    /// Resolves what a user or client typed: a sub or detail category by key or by name
    /// (case-insensitive). Main categories are deliberately not accepted: opting out of a whole
    /// main category is done sub by sub, so that the user sees what they give up.
    pub fn resolve(&self, text: &str) -> Result<CategoryRef, SchemaError> {
        let t = text.trim();
        if let Some(d) = self
            .details
            .iter()
            .find(|d| d.key == t || d.name.eq_ignore_ascii_case(t))
        {
            return Ok(CategoryRef::Detail(d.id));
        }
        if let Some(s) = self
            .subs
            .iter()
            .find(|s| s.key == t || s.name.eq_ignore_ascii_case(t))
        {
            return Ok(CategoryRef::Sub(s.id));
        }
        Err(SchemaError::UnknownCategory(text.to_string()))
    }

    /// The details a category reference covers.
    pub fn details_of(&self, r: CategoryRef) -> Vec<DetailId> {
        match r {
            CategoryRef::Detail(d) => vec![d],
            CategoryRef::Sub(s) => self.sub(s).details.clone(),
        }
    }

    /// The keys an opt-out of `d` may be recorded under: the detail's own and its
    /// subcategory's.
    pub fn opt_out_keys(&self, d: DetailId) -> Vec<String> {
        let detail = self.detail(d);
        vec![detail.key.clone(), self.sub(detail.sub).key.clone()]
    }

    /// The stable key of a category reference.
    pub fn ref_key(&self, r: CategoryRef) -> &str {
        match r {
            CategoryRef::Detail(d) => &self.detail(d).key,
            CategoryRef::Sub(s) => &self.sub(s).key,
        }
    }

    /// The human name of a category reference.
    pub fn ref_name(&self, r: CategoryRef) -> &str {
        match r {
            CategoryRef::Detail(d) => &self.detail(d).name,
            CategoryRef::Sub(s) => &self.sub(s).name,
        }
    }

    /// Every detail of the schema.
    pub fn all_details(&self) -> DetailSet {
        self.details.iter().map(|d| d.id).collect()
    }

    /// The schema's known attribute value that `value` names, if any: equal ignoring case, or
    /// the same numbers with nearly the same letters ("25 degrees Celsius" names "25 degree
    /// Celcius"), or a known value of four or more letters contained in it ("vegetarian
    /// options" names "Vegetarian"). The closest wins.
    pub fn canonical_attribute<'a>(&'a self, detail: DetailId, value: &str) -> Option<&'a str> {
        let v = value.trim();
        let known = &self.detail(detail).attributes;
        if let Some(a) = known.iter().find(|a| a.eq_ignore_ascii_case(v)) {
            return Some(a);
        }
        let (vd, vl) = digits_and_letters(v);
        let mut best: Option<(f32, &str)> = None;
        for a in known {
            let (ad, al) = digits_and_letters(a);
            if ad != vd || al.is_empty() {
                continue;
            }
            let score = if vl.contains(&al) && al.len() >= 4 {
                0.9 + 0.1 * (al.len() as f32 / vl.len().max(1) as f32)
            } else {
                similarity(&al, &vl)
            };
            if score >= 0.8 && best.is_none_or(|(b, _)| score > b) {
                best = Some((score, a));
            }
        }
        best.map(|(_, a)| a)
    }
}

fn digits_and_letters(s: &str) -> (String, String) {
    let digits = s.chars().filter(char::is_ascii_digit).collect();
    let letters = s
        .chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    (digits, letters)
}

/// 1 − (edit distance / longer length), over chars.
fn similarity(a: &str, b: &str) -> f32 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let n = a.len().max(b.len());
    if n == 0 {
        return 1.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    1.0 - prev[b.len()] as f32 / n as f32
}

fn check_named(
    name: &str,
    key: &str,
    what: &str,
    keys: &mut HashSet<String>,
    names: &mut HashSet<(String, String)>,
) -> Result<(), SchemaError> {
    if name.trim().is_empty() {
        return Err(SchemaError::Invalid(format!("a {what} has an empty name")));
    }
    if !valid_key(key) {
        return Err(SchemaError::Invalid(format!(
            "{what} {name:?} has key {key:?}: keys are non-empty and made of a-z, 0-9 and _"
        )));
    }
    if !keys.insert(key.to_string()) {
        return Err(SchemaError::Invalid(format!(
            "duplicate key {key:?} ({what} {name:?})"
        )));
    }
    if !names.insert((what.to_string(), name.to_lowercase())) {
        return Err(SchemaError::Invalid(format!(
            "duplicate {what} name {name:?}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
