//! Text for a person: how the command line shows each [`Reply`] without `--json`.

use crate::ops::wire::{WireHistory, WirePreference};
use crate::ops::Reply;
use crate::schema::ValueKind;

/// The reply as text (without a trailing newline).
pub fn text(reply: &Reply) -> String {
    let s = match reply {
        Reply::Remembered { remembered } if remembered.is_empty() => {
            "nothing to remember in this conversation".to_string()
        }
        Reply::Remembered { remembered } => remembered
            .iter()
            .map(|o| format!("{:<7} {}\n", o.operation, pref_line(&o.preference)))
            .collect(),
        Reply::Recalled { recalled } if recalled.is_empty() => "nothing relevant stored".into(),
        Reply::Recalled { recalled } => recalled
            .iter()
            .map(|r| match &r.now {
                Some(now) => format!(
                    "{:.2}  {}  (set now: {now})\n",
                    r.relevance,
                    pref_line(&r.preference)
                ),
                None => format!("{:.2}  {}\n", r.relevance, pref_line(&r.preference)),
            })
            .collect(),
        Reply::Listed {
            preferences,
            optouts,
            user,
        } => list(preferences, optouts.iter().map(|c| c.name.as_str()), user),
        Reply::History { history } => history.iter().map(history_line).collect(),
        Reply::Forgotten { forgotten } => format!("forgot {forgotten} preference(s)"),
        Reply::OptedOut { optout, deleted } => format!(
            "opted out of {}; deleted {deleted} stored preference(s) in it",
            optout.name
        ),
        Reply::OptedIn { optin } => format!("opted in to {}", optin.name),
        Reply::Exported(doc) => serde_json::to_string_pretty(doc).unwrap_or_default(),
        Reply::Imported { imported } => format!("imported {imported} preference(s)"),
        Reply::Confirmed { confirmed } => format!("confirmed {}", pref_line(confirmed)),
        Reply::Rejected { rejected } => format!("rejected #{rejected}; it is deleted"),
        Reply::Status(s) => format!(
            "glovebox {} (protocol {})\ndata directory: {}\npreferences indexed: {}\nusers: {}\nllm: {}\nembedder: {}",
            s.server_version, s.protocol, s.data_dir, s.preferences_indexed, s.users, s.llm, s.embedder
        ),
        Reply::Categories { categories } => {
            let mut s = String::new();
            let (mut main, mut sub) = (None, None);
            for d in categories {
                if main != Some(&d.main) {
                    s.push_str(&format!("{}\n", d.main));
                    (main, sub) = (Some(&d.main), None);
                }
                if sub != Some(&d.sub_key) {
                    s.push_str(&format!("  {}  [{}]\n", d.sub, d.sub_key));
                    sub = Some(&d.sub_key);
                }
                let n = if d.values == "single" {
                    "one value"
                } else {
                    "several values"
                };
                let kind = match (d.min, d.max) {
                    (Some(lo), Some(hi)) => format!("integer {lo}-{hi}"),
                    _ if d.kind == ValueKind::Choice => {
                        format!("one of: {}", d.attributes.join(", "))
                    }
                    _ => serde_json::to_value(d.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                };
                s.push_str(&format!("    {}  [{}] ({n}, {kind})\n", d.name, d.key));
                if !d.aliases.is_empty() {
                    s.push_str(&format!("      also called: {}\n", d.aliases.join(", ")));
                }
                for (value, words) in &d.value_aliases {
                    s.push_str(&format!("      {value} also said as: {}\n", words.join(", ")));
                }
            }
            s
        }
        Reply::Compacted { compacted } => format!("compacted {compacted}"),
    };
    s.trim_end().to_string()
}

/// One preference on one line: id, category, value, status, evidence.
pub fn pref_line(p: &WirePreference) -> String {
    let status = match (p.status, p.replaces_id) {
        ("pending", Some(r)) => format!("  [pending confirmation; replaces #{r}]"),
        ("pending", None) => "  [pending confirmation]".to_string(),
        _ => String::new(),
    };
    let condition = p
        .condition
        .as_ref()
        .map_or(String::new(), |c| format!(" [only {c}]"));
    // The id is printed without padding, as the command line always has.
    format!(
        "#{} {} > {} = {}{}{}   \"{}\"",
        p.id,
        p.sub,
        p.category,
        p.attribute,
        condition,
        status,
        p.sentences.join(" ")
    )
}

fn list<'a>(
    prefs: &[WirePreference],
    optouts: impl Iterator<Item = &'a str>,
    user: &str,
) -> String {
    let mut s = String::new();
    if prefs.is_empty() {
        s.push_str("nothing stored\n");
    }
    for p in prefs {
        s.push_str(&pref_line(p));
        s.push('\n');
    }
    for name in optouts {
        s.push_str(&format!("opted out: {name}\n"));
    }
    let pending = prefs.iter().filter(|p| p.status == "pending").count();
    if pending > 0 {
        s.push_str(&format!(
            "{pending} pending confirmation (not recalled until confirmed, or, said as a one-off request, asked for again later): glovebox prefs confirm|reject --user {user} --id ID\n"
        ));
    }
    s
}

fn history_line(e: &WireHistory) -> String {
    let what = |p: &Option<WirePreference>| {
        p.as_ref()
            .map(|p| match p.status {
                "pending" => format!("{} #{} (pending)", p.attribute, p.id),
                _ => format!("{} #{}", p.attribute, p.id),
            })
            .unwrap_or_default()
    };
    format!(
        "{}  {:<7} {:<40} {} -> {}\n",
        e.time_ms,
        e.operation,
        e.category,
        what(&e.before),
        what(&e.after)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::wire::WireDetail;

    #[test]
    fn categories_show_each_settings_kind_range_and_other_words() {
        let schema = crate::schema::vehicle_for_tests();
        let categories: Vec<WireDetail> = schema
            .details()
            .iter()
            .map(|d| WireDetail::new(&schema, d))
            .collect();
        let speed = categories
            .iter()
            .find(|d| d.key == "seat_ventilation_speed")
            .unwrap();
        let json = serde_json::to_value(speed).unwrap();
        assert_eq!(
            (
                json["kind"].as_str(),
                json["min"].as_i64(),
                json["max"].as_i64()
            ),
            (Some("integer"), Some(1), Some(5))
        );
        let text = text(&Reply::Categories { categories });
        assert!(
            text.contains("[seat_ventilation_speed] (one value, integer 1-5)"),
            "{text}"
        );
        assert!(text.contains("[instrument_panel_time_format] (one value, one of: 12h, 24h)"));
        assert!(text.contains("24h also said as: 24-hour, twenty-four-hour, military time"));
        assert!(text.contains("also called: heated steering wheel, steering wheel heater"));
    }
}
