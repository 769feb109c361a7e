//! A place the conversation is in, passes or comes from is not what the driver likes. Drivers
//! say where they are beside what they like ("Any good places to eat around Harrogate? Thai
//! if possible, it's my go-to"; "It's the only news I've trusted since I was a kid in
//! Kingston"), and the town is a name like the brand's: read by the names a sentence says,
//! or copied by the model, it was stored as the cuisine, the news source, a charging network.
//! A name is such a place when the gazetteer knows it as a place ([`Gazetteer::is_place`]),
//! some turn, the user's or the assistant's, says it capitalised and whole right after a word
//! of where ([`said_where`]), and the schema lists it for no category. All are needed: brands,
//! bands and colours share towns' names (Aral and Mobil are listed fuel brands; "play
//! something from Boston", "set it to orange", "to Boston Pizza" say no town), and shops are
//! said "at" ("at Iceland"), so "at" is no word of where here. A category whose value is a
//! place (`place = true` in the schema, a destination) keeps it.
//!
//! [`Gazetteer::is_place`]: crate::gazetteer::Gazetteer::is_place

use super::super::extract::{self, Extracted, Statements};
use super::super::values::{self, NOT};
use super::super::{MemoryError, Models};
use crate::conversation::Conversation;
use crate::schema::DetailId;

/// Words after which a name is where someone is, goes, passes or comes from. Not "at" nor
/// "into": shops are "at" ("I do my shopping at Iceland"), tastes "into" ("I'm into Kansas").
const WHERE: &[&str] = &[
    "in", "near", "around", "past", "through", "outside", "from", "to", "toward", "towards", "via",
    "beyond", "round",
];

/// Words between a verb and its "to" or "from" ("switch back to", "head over to").
const PARTICLES: &[&str] = &["back", "over", "across", "down", "up", "along", "on", "off"];

/// Words before "to" or "from" (particles skipped) that make what follows something listened
/// to or played, not somewhere gone to or come from ("listen to Boston", "switch back to
/// Heart", "play something from Chicago").
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
    "skip",
    "stick",
    "something",
    "anything",
    "song",
    "songs",
    "stuff",
    "music",
    "track",
    "tracks",
    "album",
    "hits",
    "more",
    "some",
];

/// Words a place's name may follow within its phrase ("in the Bronx", "past old Athlone").
const DETERMINERS: &[&str] = &["the", "a", "an", "old", "central", "downtown"];

/// A sentence's words, each without the marks around it and the "'s" it ends with, as said
/// and folded to lower case, and whether a mark ends it (a name said whole ends there).
struct Words<'a> {
    said: Vec<&'a str>,
    folded: Vec<String>,
    closed: Vec<bool>,
}

impl<'a> Words<'a> {
    fn of(text: &'a str) -> Words<'a> {
        let mut w = Words {
            said: Vec::new(),
            folded: Vec::new(),
            closed: Vec::new(),
        };
        for raw in text.split_whitespace() {
            let bare = raw.trim_matches(|c: char| !c.is_alphanumeric());
            let bare = values::without_s(bare).unwrap_or(bare);
            if bare.is_empty() {
                continue;
            }
            w.said.push(bare);
            w.folded.push(bare.to_lowercase());
            w.closed.push(!raw.ends_with(|c: char| c.is_alphanumeric()));
        }
        w
    }

    /// Where `name` is said right after a word of where ([`WHERE`]), determiners skipped,
    /// written as a name (capitalised) and whole (no capitalised word runs on after it: not
    /// "Boston" of "to Boston Pizza"): the index of each such first word.
    fn where_said(&self, name: &str) -> Vec<usize> {
        let name: Vec<String> = Words::of(name).folded;
        let n = name.len();
        if n == 0 || n > self.said.len() {
            return Vec::new();
        }
        (0..=self.said.len() - n)
            .filter(|&i| self.folded[i..i + n] == name[..])
            .filter(|&i| self.said[i].starts_with(char::is_uppercase))
            .filter(|&i| {
                self.closed[i + n - 1]
                    || self
                        .said
                        .get(i + n)
                        .is_none_or(|w| !w.starts_with(char::is_uppercase))
            })
            .filter(|&i| {
                let mut before = self.folded[..i]
                    .iter()
                    .rev()
                    .skip_while(|w| DETERMINERS.contains(&w.as_str()));
                match before.next().map(String::as_str) {
                    Some("to" | "from") => before
                        .find(|w| !PARTICLES.contains(&w.as_str()))
                        .is_none_or(|v| !LISTENED.contains(&v.as_str())),
                    Some(w) => WHERE.contains(&w),
                    None => false,
                }
            })
            .collect()
    }
}

/// Whether `sentence` says `name` right after a word of where ([`WHERE`]), determiners
/// skipped, capitalised and whole: "around Harrogate", "a kid in Kingston", "now we're past
/// Athlone"; not "loads of ABBA", "listen to Boston", "set it to orange", "to Boston Pizza".
pub fn said_where(sentence: &str, name: &str) -> bool {
    !Words::of(sentence).where_said(name).is_empty()
}

/// `text` with `name` in lower case where it is said as where someone is ([`said_where`]),
/// and nowhere else ("past York, put the New York Times on" keeps the paper's name).
fn lowered_where(text: &str, name: &str) -> String {
    let words = Words::of(text);
    let at = words.where_said(name);
    if at.is_empty() {
        return text.to_string();
    }
    let n = Words::of(name).said.len();
    let lowered: Vec<usize> = at.iter().flat_map(|&i| i..i + n).collect();
    // The words as written, marks kept, in the order `Words::of` reads them.
    let mut i = 0;
    text.split_whitespace()
        .map(|raw| {
            let bare = raw.trim_matches(|c: char| !c.is_alphanumeric());
            if bare.is_empty() {
                return raw.to_string();
            }
            let out = match lowered.contains(&i) {
                true => raw.to_lowercase(),
                false => raw.to_string(),
            };
            i += 1;
            out
        })
        .collect::<Vec<_>>()
        .join(" ")
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
    /// name the schema lists (for any category), nor without the gazetteer
    /// (`extraction.stand_ins` off). The gazetteer is read only when a turn says the name
    /// after a word of where.
    pub(super) fn a_place_said(
        &self,
        detail: DetailId,
        name: &str,
        turns: &Turns,
    ) -> Result<bool, MemoryError> {
        // Without the gazetteer no name is known as a place: nothing to scan.
        if self.gazetteer.is_none() {
            return Ok(false);
        }
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
        Ok(self
            .gazetteer()
            .transpose()?
            .is_some_and(|g| g.is_place(name)))
    }

    /// `names` offered as `detail`'s value without the places the conversation says as where
    /// someone is ([`Models::a_place_said`]).
    pub(super) fn not_said_where(
        &self,
        detail: DetailId,
        names: Vec<String>,
        turns: &Turns,
    ) -> Result<Vec<String>, MemoryError> {
        let mut kept = Vec::with_capacity(names.len());
        for n in names {
            if !self.a_place_said(detail, &n, turns)? {
                kept.push(n);
            }
        }
        Ok(kept)
    }

    /// The statements and the assistant turns before them, each place it says as where
    /// someone is ([`Models::a_place_said`]) written in lower case there, so that it reads as
    /// no name ([`extract::proper_names`]).
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
                    text = lowered_where(&text, &name);
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
            if self.a_place_said(item.detail, &item.attribute, turns)? {
                tracing::debug!(value = %item.attribute, "a place said as where someone is is no value");
            } else {
                kept.push(item);
            }
        }
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::{lowered_where, said_where};

    #[test]
    fn a_place_is_lowered_only_where_it_is_said_as_one() {
        assert_eq!(
            lowered_where("We're past York, put the New York Times on.", "York"),
            "We're past york, put the New York Times on."
        );
        assert_eq!(
            lowered_where("A kid in Kingston, Ontario.", "Kingston"),
            "A kid in kingston, Ontario."
        );
    }

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
            (
                "Any good places to eat around Harrogate's old town?",
                "Harrogate",
            ),
            ("We'll head back to Galway after.", "Galway"),
            ("I'm from Kingston. Play the news.", "Kingston"),
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
            ("I do my shopping at Iceland.", "Iceland"),
            ("Play something from Boston.", "Boston"),
            ("Switch back to Heart, would you?", "Heart"),
            ("Route me to Boston Pizza in Kenora.", "Boston"),
        ] {
            assert!(!said_where(sentence, name), "{sentence}");
        }
    }
}
