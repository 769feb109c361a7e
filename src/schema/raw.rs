//! The schema file as written (TOML), before validation, and the checks that turn a raw
//! detail into a [`Detail`](super::Detail)'s parts.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Call, Cardinality, SchemaError, ValueKind, FLAG_OFF, FLAG_ON};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSchema {
    pub(super) version: u32,
    pub(super) main: Vec<RawMain>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMain {
    pub(super) name: String,
    pub(super) key: String,
    pub(super) sub: Vec<RawSub>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSub {
    pub(super) name: String,
    pub(super) key: String,
    #[serde(default)]
    pub(super) description: String,
    pub(super) detail: Vec<RawDetail>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDetail {
    pub(super) name: String,
    pub(super) key: String,
    pub(super) values: Cardinality,
    #[serde(default)]
    pub(super) description: String,
    #[serde(default)]
    pub(super) attributes: Vec<String>,
    #[serde(default)]
    pub(super) kind: ValueKind,
    pub(super) min: Option<i64>,
    pub(super) max: Option<i64>,
    pub(super) function: Option<String>,
    pub(super) argument: Option<String>,
    #[serde(default)]
    pub(super) selectors: Vec<String>,
    #[serde(default)]
    pub(super) aliases: Vec<String>,
    /// Other words for listed values ("recirculation" for `inside`), by value.
    #[serde(default)]
    pub(super) value_aliases: BTreeMap<String, Vec<String>>,
    /// Real names drivers give a free-text value (brands, networks, stations).
    #[serde(default)]
    pub(super) names: Vec<String>,
    /// How drivers state such a preference, written by the schema's author.
    #[serde(default)]
    pub(super) says: Vec<String>,
    /// Whether the value is a place the person goes to (a destination).
    #[serde(default)]
    pub(super) place: bool,
}

/// A detail's accepted range and its attributes.
type Typed = (Option<(i64, i64)>, Vec<String>);

/// Checks a detail's kind against its range and attributes; returns its range and attributes
/// (a flag's are [`FLAG_ON`], [`FLAG_OFF`]).
pub(super) fn typed(rd: &RawDetail) -> Result<Typed, SchemaError> {
    let invalid = |m: &str| Err(SchemaError::Invalid(format!("detail {:?} {m}", rd.name)));
    let ranged = rd.min.is_some() || rd.max.is_some();
    match rd.kind {
        ValueKind::Integer => match (rd.min, rd.max) {
            (Some(lo), Some(hi)) if lo <= hi => Ok((Some((lo, hi)), rd.attributes.clone())),
            (Some(_), Some(_)) => invalid("has min above max"),
            _ => invalid("is an integer and needs both min and max"),
        },
        _ if ranged => invalid("has min/max but is not kind = \"integer\""),
        ValueKind::Flag if !rd.attributes.is_empty() => {
            invalid("is a flag (on/off) and lists attributes")
        }
        ValueKind::Flag => Ok((None, vec![FLAG_ON.into(), FLAG_OFF.into()])),
        ValueKind::Choice if rd.attributes.is_empty() => {
            invalid("is a choice and lists no attributes")
        }
        _ => Ok((None, rd.attributes.clone())),
    }
}

pub(super) fn call_of(rd: &RawDetail) -> Result<Option<Call>, SchemaError> {
    match (&rd.function, &rd.argument) {
        (None, None) if rd.selectors.is_empty() => Ok(None),
        (Some(f), Some(a)) if !f.trim().is_empty() && !a.trim().is_empty() => Ok(Some(Call {
            function: f.clone(),
            argument: a.clone(),
            selectors: rd.selectors.clone(),
        })),
        _ => Err(SchemaError::Invalid(format!(
            "detail {:?} needs both a non-empty function and argument to name its call",
            rd.name
        ))),
    }
}

pub(super) fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// A detail's value aliases by its listed value (as the schema spells it), checked: only a
/// detail that lists values has them, each names a listed value (case folded), and each alias
/// is a non-empty phrase said for one value only.
pub(super) fn value_aliases(
    rd: &RawDetail,
    attributes: &[String],
) -> Result<Vec<(String, Vec<String>)>, SchemaError> {
    let invalid = |m: String| Err(SchemaError::Invalid(format!("detail {:?} {m}", rd.name)));
    if rd.value_aliases.is_empty() {
        return Ok(Vec::new());
    }
    if rd.kind == ValueKind::Flag || rd.kind == ValueKind::Integer || attributes.is_empty() {
        return invalid("has value_aliases but lists no values".into());
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (value, phrases) in &rd.value_aliases {
        let Some(listed) = attributes.iter().find(|a| a.eq_ignore_ascii_case(value)) else {
            return invalid(format!(
                "has value_aliases for {value:?}, which it does not list"
            ));
        };
        let of = format!(" for {value:?}");
        match trimmed_once(phrases, &mut seen, "alias", &of) {
            Ok(phrases) => out.push((listed.clone(), phrases)),
            Err(m) => return invalid(m),
        }
    }
    Ok(out)
}

/// A detail's real names ([`RawDetail::names`]), checked: only free text has them, each a
/// non-empty name given once.
pub(super) fn real_names(rd: &RawDetail) -> Result<Vec<String>, SchemaError> {
    let invalid = |m: String| Err(SchemaError::Invalid(format!("detail {:?} {m}", rd.name)));
    if !rd.names.is_empty() && rd.kind != ValueKind::Text {
        return invalid("has names but its value is no free text".into());
    }
    trimmed_once(&rd.names, &mut Default::default(), "name", "").or_else(invalid)
}

/// A detail's example statements ([`RawDetail::says`]), checked: each non-empty and given once.
pub(super) fn said_as(rd: &RawDetail) -> Result<Vec<String>, SchemaError> {
    trimmed_once(&rd.says, &mut Default::default(), "example statement", "")
        .map_err(|m| SchemaError::Invalid(format!("detail {:?} {m}", rd.name)))
}

/// Phrases a schema gives (aliases, names, example statements), trimmed, checked: none empty, none given twice
/// (case aside) among those already `seen`. The error says which, as "has an empty {kind}{of}"
/// or "gives the {kind} "..." twice".
fn trimmed_once(
    phrases: &[String],
    seen: &mut std::collections::HashSet<String>,
    kind: &str,
    of: &str,
) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for p in phrases {
        if p.trim().is_empty() {
            return Err(format!("has an empty {kind}{of}"));
        }
        if !seen.insert(p.trim().to_lowercase()) {
            return Err(format!("gives the {kind} {p:?} twice"));
        }
        out.push(p.trim().to_string());
    }
    Ok(out)
}

/// Whether a detail's value is a place ([`RawDetail::place`]), checked: only a vehicle
/// setting whose value is a name of the user's (free text with a call, no listed values).
pub(super) fn place(rd: &RawDetail) -> Result<bool, SchemaError> {
    let names = rd.kind == ValueKind::Text && rd.attributes.is_empty() && rd.function.is_some();
    match rd.place && !names {
        true => Err(SchemaError::Invalid(format!(
            "detail {:?} has place = true but its value is no name (text with a function, no attributes)",
            rd.name
        ))),
        false => Ok(rd.place),
    }
}
