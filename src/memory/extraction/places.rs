//! A place the conversation is in, passes or comes from is not what the driver likes. Drivers
//! say where they are beside what they like ("Any good places to eat around Harrogate? Thai
//! if possible, it's my go-to"; "It's the only news I've trusted since I was a kid in
//! Kingston"), and the town is a name like the brand's: read by the names a sentence says,
//! or copied by the model, it was stored as the cuisine, the news source, a charging network.
//! A name is such a place when the gazetteer knows it as a place ([`Gazetteer::is_place`]),
//! some turn, the user's or the assistant's, says it capitalised right after a word of where
//! ([`said_where`]), and the schema lists it for no category. All are needed: a brand may
//! share a town's name ("fill up at Aral", "Jerusalema"), a colour too ("set it to orange"),
//! and "at Lidl" says where a shop is, not that Lidl is a town. A category whose value is a
//! place (`place = true` in the schema, a destination) keeps it.
//!
//! [`Gazetteer::is_place`]: crate::gazetteer::Gazetteer::is_place

use super::super::extract::{self, Extracted, Statements};
use super::super::values::NOT;
use super::super::{MemoryError, Models};
use crate::conversation::Conversation;
use crate::schema::DetailId;

/// Words after which a name is where someone is, goes, passes or comes from.
const WHERE: &[&str] = &[
    "in", "near", "around", "past", "through", "outside", "from", "at", "into", "to", "toward",
    "towards", "via", "beyond", "round",
];

/// Words before "to" that make what follows something listened to, not somewhere gone to
/// ("listen to Boston", "switch over to Heart").
const LISTENED: &[&str] = &[
    "listen",
    "listening",
    "listened",
    "switch",
    "switched",
    "tune",
    "tuned",
    "turn",
    "change",
    "over",
    "back",
    "skip",
    "stick",
];

/// Words a place's name may follow within its phrase ("in the Bronx", "past old Athlone").
const DETERMINERS: &[&str] = &["the", "a", "an", "old", "central", "downtown"];

/// Whether `sentence` says `name` right after a word of where ([`WHERE`]), determiners
/// skipped, and written as a name (capitalised): "around Harrogate", "a kid in Kingston", "now
/// we're past Athlone"; not "loads of ABBA", "listen to Boston", "set it to orange".
pub fn said_where(sentence: &str, name: &str) -> bool {
    let words: Vec<&str> = sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let folded: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let name: Vec<String> = name
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if name.is_empty() || name.len() > words.len() {
        return false;
    }
    (0..=words.len() - name.len())
        .filter(|&i| folded[i..i + name.len()] == name[..])
        .filter(|&i| words[i].starts_with(char::is_uppercase))
        .any(|i| {
            let mut before = folded[..i]
                .iter()
                .rev()
                .skip_while(|w| DETERMINERS.contains(&w.as_str()));
            match before.next().map(String::as_str) {
                Some("to") => before
                    .next()
                    .is_none_or(|w| !LISTENED.contains(&w.as_str())),
                Some(w) => WHERE.contains(&w),
                None => false,
            }
        })
}

/// The turns of a conversation, read for where its names are said ([`Models::a_place_said`]).
pub(super) struct Turns<'a>(pub Vec<&'a str>);

impl<'a> Turns<'a> {
    pub fn of(conversation: &'a Conversation) -> Turns<'a> {
        Turns(
            conversation
                .turns()
                .iter()
                .map(|t| t.text.as_str())
                .collect(),
        )
    }
}

impl Models {
    /// Whether `name`, offered as the value of `detail`, is a place the conversation says as
    /// where someone is or goes (the module's doc): never for a category of places, nor for a
    /// name the schema lists (for any category), nor without the gazetteer (`extraction.stand_ins` off). The gazetteer is read only when a
    /// turn says the name after a word of where.
    pub(super) fn a_place_said(
        &self,
        detail: DetailId,
        name: &str,
        turns: &Turns,
    ) -> Result<bool, MemoryError> {
        let name = name.strip_prefix(NOT).unwrap_or(name);
        // A name the schema lists is what it lists it as ("fill up at Aral": a fuel brand
        // GeoNames also knows as a town).
        let listed = self.schema.details().iter().any(|d| {
            d.names
                .iter()
                .chain(&d.attributes)
                .any(|n| n.eq_ignore_ascii_case(name))
        });
        if listed
            || self.schema.detail(detail).place
            || !turns.0.iter().any(|t| said_where(t, name))
        {
            return Ok(false);
        }
        match self.gazetteer().transpose()? {
            Some(g) => Ok(g.is_place(name)),
            None => Ok(false),
        }
    }
}

impl Models {
    /// `names` offered as `detail`'s value without the places the conversation says as where
    /// someone is ([`Models::a_place_said`]); a value the schema lists for it stays ("Normal").
    pub(super) fn not_said_where(
        &self,
        detail: DetailId,
        names: Vec<String>,
        turns: &Turns,
    ) -> Result<Vec<String>, MemoryError> {
        let mut kept = Vec::with_capacity(names.len());
        for n in names {
            let listed = self.schema.canonical_attribute(detail, &n).is_some();
            if listed || !self.a_place_said(detail, &n, turns)? {
                kept.push(n);
            }
        }
        Ok(kept)
    }

    /// The statements and the assistant turns before them, each place it says as where
    /// someone is ([`Models::a_place_said`]) written in lower case, so that it reads as no
    /// name ([`extract::proper_names`]).
    pub(super) fn places_unnamed(
        &self,
        detail: DetailId,
        sentences: &Statements,
        turns: &Turns,
    ) -> Result<(Vec<String>, Vec<Option<String>>), MemoryError> {
        let unnamed = |text: &str| -> Result<String, MemoryError> {
            let mut text = text.to_string();
            for name in extract::proper_names(&text) {
                if self.a_place_said(detail, &name, turns)? {
                    text = text.replace(&name, &name.to_lowercase());
                }
            }
            Ok(text)
        };
        let texts = sentences
            .iter()
            .map(|s| unnamed(s))
            .collect::<Result<_, _>>()?;
        let before = sentences
            .before()
            .iter()
            .map(|b| b.as_deref().map(unnamed).transpose())
            .collect::<Result<_, _>>()?;
        Ok((texts, before))
    }

    /// `items` without those whose value, the user's words and no value the schema lists, is a
    /// place the conversation says as where someone is (however the value was read: by the
    /// names said, or copied by the model).
    pub(super) fn not_where_they_are(
        &self,
        items: Vec<Extracted>,
        turns: &Turns,
    ) -> Result<Vec<Extracted>, MemoryError> {
        let mut kept = Vec::with_capacity(items.len());
        for item in items {
            let value = item.attribute.strip_prefix(NOT).unwrap_or(&item.attribute);
            let listed = self
                .schema
                .canonical_attribute(item.detail, value)
                .is_some();
            if listed || !self.a_place_said(item.detail, value, turns)? {
                kept.push(item);
            } else {
                tracing::debug!(value, "a place said as where someone is is no value");
            }
        }
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::said_where;

    #[test]
    fn a_name_after_a_word_of_where_is_said_as_where() {
        for (sentence, name) in [
            ("Any good places to eat around Harrogate?", "Harrogate"),
            (
                "It's the only news I've trusted since I was a kid in Kingston.",
                "Kingston",
            ),
            (
                "God, this station's gone all static now we're past Athlone.",
                "Athlone",
            ),
            ("We're heading up the Hume to Sydney tomorrow.", "Sydney"),
            ("Costco in Tustin, 4 miles away.", "Tustin"),
            ("A chipper near the old Eyre Square, please.", "Eyre Square"),
        ] {
            assert!(said_where(sentence, name), "{sentence}");
        }
    }

    #[test]
    fn a_name_listened_to_or_said_otherwise_is_not() {
        for (sentence, name) in [
            (
                "I usually have Heart on anyway, they play loads of ABBA.",
                "ABBA",
            ),
            ("Listen to Boston, they're my band.", "Boston"),
            ("Switch over to Chicago, would you?", "Chicago"),
            ("Roja, Bombay, Dil Se. I grew up on his music.", "Bombay"),
            ("Kingston is where I grew up.", "Kingston"),
            ("Take me to the nearest Aral.", "Aral"),
            ("Set the lights to orange, please.", "Orange"),
        ] {
            assert!(!said_where(sentence, name), "{sentence}");
        }
    }
}
