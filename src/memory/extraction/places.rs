//! A place the conversation is in, passes or comes from is not what the driver likes. Drivers
//! say where they are beside what they like ("Any good places to eat around Harrogate? Thai
//! if possible, it's my go-to"; "It's the only news I've trusted since I was a kid in
//! Kingston"), and the town is a name like the brand's: read by the names a sentence says,
//! or copied by the model, it was stored as the cuisine, the news source, a charging network.
//! A name is such a place when the gazetteer knows it as a place ([`Gazetteer::is_place`])
//! and some turn, the user's or the assistant's, says it right after a word of where
//! ([`said_where`]). Both are needed: a brand may share a town's name ("Aral", "Jerusalema"),
//! and "at Lidl" says where a shop is, not that Lidl is a town. A category whose value is a
//! place (`place = true` in the schema, a destination) keeps it.

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
/// skipped: "around Harrogate", "a kid in Kingston", "now we're past Athlone"; not "loads of
/// ABBA", "listen to Boston".
pub fn said_where(sentence: &str, name: &str) -> bool {
    let fold = |t: &str| -> Vec<String> {
        t.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (words, name) = (fold(sentence), fold(name));
    if name.is_empty() || name.len() > words.len() {
        return false;
    }
    (0..=words.len() - name.len())
        .filter(|&i| words[i..i + name.len()] == name[..])
        .any(|i| {
            let mut before = words[..i]
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
    /// where someone is or goes (the module's doc): never for a category of places, nor
    /// without the gazetteer (`extraction.stand_ins` off). The gazetteer is read only when a
    /// turn says the name after a word of where.
    pub(super) fn a_place_said(
        &self,
        detail: DetailId,
        name: &str,
        turns: &Turns,
    ) -> Result<bool, MemoryError> {
        let name = name.strip_prefix(NOT).unwrap_or(name);
        if self.schema.detail(detail).place || !turns.0.iter().any(|t| said_where(t, name)) {
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
        ] {
            assert!(!said_where(sentence, name), "{sentence}");
        }
    }
}
