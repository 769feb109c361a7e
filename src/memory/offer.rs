//! The offer decision: does this preference sentence really state a preference of its best
//! category, or is it a passing remark, or a neighbour of something else the conversation is
//! about?
//!
//! The preference gate says whether a sentence states a lasting preference at all; the
//! embedder names the sentence's nearest category. Neither says whether that category is the
//! one the sentence is about, and a conversation may state several preferences. The old rule
//! let a sentence offer only within a fixed cosine margin of the conversation's strongest one:
//! it kept a weaker sentence from offering the neighbour of an opted-out topic, and it also
//! dropped every second preference. The offer model decides per sentence instead: logistic
//! regression on six features of the sentence (the gate's log-odds, how far its best
//! category's cosine is below the conversation's strongest sentence's, how far above its
//! second-best category's and above the best category of another subcategory, whether it is
//! the strongest sentence, and whether it names a value the schema lists for its best
//! category: an attribute said in full or one of the category's real `names`,
//! [`names_listed`]). The cosine itself is not a feature: its scale is that of the schema's
//! texts, and a driver naming a real shop ("Aldi") scores lower against a catalogue of
//! invented ones than the benchmark's sentences do; only differences are read. It knows no
//! category by name, so it holds for any schema (the sixth feature reads whatever the
//! schema lists); it is fitted on data with negatives (`glovebox eval offers`: CarMem
//! conversations, the same conversations with their topic opted out, pairs of them, KVRET
//! dialogues), reported cross-validated by user, and ships as `config/offer.json`.

use serde::{Deserialize, Serialize};

use super::extract::Heard;
use super::gate::sigmoid;
use super::values;
use crate::schema::{DetailId, Schema};

/// The offer file format tag.
pub const FORMAT: &str = "glovebox-offer v1";

/// The model shipped in the binary (`config/offer.json`).
pub const DEFAULT_OFFER: &str = include_str!("../../config/offer.json");

/// The lasting track's offer decision shipped in the binary (`config/offer-lasting-beside.json`,
/// fitted with the one-off gate built in until stop 81, `config/gate-one-off.json`, within what
/// `config/offer.json` leaves of the bound on false offers; `extraction.lasting_offers`). Since
/// stop 81 it reads the built-in one-off gate taught by the schema's statements and their
/// contrasts, a better reading of the same probability: refitted with that gate
/// (`config/offer-lasting-contrasts.json`, the option `config/glovebox-contrasts.toml`) it leans
/// less on the gate and leaves plain statements out ("Don't Stop Believin' is my favourite
/// song."; docs/results.md, stop 81). `config/offer-lasting.json`, fitted alone, is the lasting
/// configuration's (`config/glovebox-lasting.toml`).
pub const ONE_OFF_OFFER: &str = include_str!("../../config/offer-lasting-beside.json");

/// Number of features (see [`features`]).
pub const FEATURES: usize = 6;

/// Features of a model fitted before the last one was added (a model file with this many
/// weights reads the last feature with weight 0, as it was fitted).
const FEATURES_BEFORE: usize = 5;

/// A fitted offer model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfferModel {
    pub format: String,
    /// A sentence offers its best category at or above this probability.
    pub threshold: f32,
    pub weights: Vec<f32>,
    pub bias: f32,
    /// How it was fitted and measured, for people.
    #[serde(default)]
    pub about: serde_json::Value,
}

/// Why an offer model cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("offer model {path}: {problem}")]
pub struct OfferError {
    pub path: String,
    pub problem: String,
}

/// The gate probability's log-odds are clipped to this magnitude.
const GATE_CLIP: f32 = 8.0;

/// Whether `sentence` names a value the schema lists for `detail`: one of its attributes said
/// in full ([`values::wholly_named`]: "Italian", "fast chargers" for Fast Chargers) or one of
/// its real `names` ([`Heard::says`]: "Shell", "BBC Radio 2"). A sentence that names what the
/// category holds is about that category, however close its neighbour's cosine is.
pub fn names_listed(schema: &Schema, detail: DetailId, sentence: &str) -> bool {
    let d = schema.detail(detail);
    if !d.names.is_empty() {
        let heard = Heard::of(sentence);
        if d.names.iter().any(|n| heard.says(n)) {
            return true;
        }
    }
    !values::wholly_named(schema, detail, &[sentence.to_string()]).is_empty()
}

/// What the offer decision of one sentence is computed from: the gate's probability that it
/// states a lasting preference, its similarity to every detail category of the schema (`row`,
/// as `extract::sentence_scores` gives it), the best similarity of any passing sentence
/// of the conversation (`conv_top`), and the sentence's words ([`names_listed`]). None when
/// the row has no finite score.
pub fn features(
    schema: &Schema,
    row: &[f32],
    gate: f32,
    conv_top: f32,
    sentence: &str,
) -> Option<[f32; FEATURES]> {
    let (top_d, top) = row
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_finite())
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, &s)| (i, s))?;
    let details = schema.details();
    let sub = details[top_d].sub;
    let (mut second, mut other_sub) = (0.0f32, 0.0f32);
    for (i, &s) in row.iter().enumerate() {
        if i == top_d || !s.is_finite() {
            continue;
        }
        second = second.max(s);
        if details[i].sub != sub {
            other_sub = other_sub.max(s);
        }
    }
    let p = gate.clamp(1e-6, 1.0 - 1e-6);
    let log_odds = (p / (1.0 - p)).ln().clamp(-GATE_CLIP, GATE_CLIP);
    Some([
        log_odds,
        top - conv_top,
        top - second,
        top - other_sub,
        if top >= conv_top { 1.0 } else { 0.0 },
        if names_listed(schema, details[top_d].id, sentence) {
            1.0
        } else {
            0.0
        },
    ])
}

impl OfferModel {
    /// Reads a model from its JSON text; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<OfferModel, OfferError> {
        let bad = |problem: String| OfferError {
            path: path.to_string(),
            problem,
        };
        let m: OfferModel = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if m.format != FORMAT {
            return Err(bad(format!(
                "format is {:?}, expected {FORMAT:?}",
                m.format
            )));
        }
        if m.weights.len() != FEATURES && m.weights.len() != FEATURES_BEFORE {
            return Err(bad(format!(
                "has {} weights, expected {FEATURES} (or {FEATURES_BEFORE}, fitted before the \
                 last feature)",
                m.weights.len()
            )));
        }
        if !(0.0..=1.0).contains(&m.threshold)
            || !m.bias.is_finite()
            || m.weights.iter().any(|w| !w.is_finite())
        {
            return Err(bad(
                "threshold must be within [0, 1] and weights finite".into()
            ));
        }
        Ok(m)
    }

    /// Reads a model file, or `builtin` (its text and how errors name it) when no path is
    /// given.
    pub fn load_or(
        path: Option<&std::path::Path>,
        builtin: (&str, &str),
    ) -> Result<OfferModel, OfferError> {
        match path {
            None => OfferModel::parse(builtin.0, builtin.1),
            Some(p) => OfferModel::load(p),
        }
    }

    /// Reads a model file.
    pub fn load(path: &std::path::Path) -> Result<OfferModel, OfferError> {
        let text = std::fs::read_to_string(path).map_err(|e| OfferError {
            path: path.display().to_string(),
            problem: e.to_string(),
        })?;
        OfferModel::parse(&text, &path.display().to_string())
    }

    /// The probability, in [0, 1], that a sentence with these features states a preference of
    /// its best category (a model of [`FEATURES_BEFORE`] weights reads the first ones).
    pub fn probability(&self, f: &[f32; FEATURES]) -> f32 {
        sigmoid(self.bias + self.weights.iter().zip(f).map(|(w, x)| w * x).sum::<f32>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_read_the_row_the_gate_and_the_conversation() {
        let s = Schema::embedded();
        let n = s.details().len();
        let temp = s.detail_by_key("preferred_temperature").unwrap();
        let fan = s.detail_by_key("fan_speed_preferences").unwrap();
        let genres = s.detail_by_key("favorite_genres").unwrap();
        assert_eq!(s.detail(temp).sub, s.detail(fan).sub);
        assert_ne!(s.detail(temp).sub, s.detail(genres).sub);
        let mut row = vec![0.0f32; n];
        row[temp.index()] = 0.8;
        row[fan.index()] = 0.7;
        row[genres.index()] = 0.5;
        let f = features(&s, &row, 0.5, 0.9, "").unwrap();
        assert!(f[0].abs() < 1e-6, "even odds are log-odds 0: {f:?}");
        assert!(
            (f[1] + 0.1).abs() < 1e-6,
            "0.1 below the strongest sentence"
        );
        assert!(
            (f[2] - 0.1).abs() < 1e-6,
            "0.1 above the second-best detail"
        );
        assert!(
            (f[3] - 0.3).abs() < 1e-6,
            "0.3 above another subcategory's best"
        );
        assert_eq!(f[4], 0.0);
        assert_eq!(f[5], 0.0, "an empty sentence names nothing");
        assert_eq!(features(&s, &row, 1.0, 0.8, "").unwrap()[4], 1.0);
        assert_eq!(features(&s, &row, 1.0, 0.8, "").unwrap()[0], GATE_CLIP);
        assert!(features(&s, &vec![f32::NEG_INFINITY; n], 0.5, 0.5, "").is_none());
        let f = |said: &str| features(&s, &row, 0.5, 0.9, said).unwrap()[5];
        assert_eq!(
            f("Keep it at 21 degree Celcius."),
            1.0,
            "an attribute said in full"
        );
        assert_eq!(f("It's warm in here."), 0.0);
    }

    #[test]
    fn a_sentence_names_what_its_category_lists() {
        let s = Schema::embedded();
        let station = s.detail_by_key("preferred_gas_station").unwrap();
        let genres = s.detail_by_key("favorite_genres").unwrap();
        assert!(names_listed(&s, station, "I only ever fill up at Shell."));
        assert!(names_listed(&s, station, "i only ever fill up at shell"));
        assert!(!names_listed(
            &s,
            station,
            "I'll shell out for the premium stuff."
        ));
        assert!(!names_listed(
            &s,
            station,
            "I only ever fill up at the cheap place."
        ));
        assert!(names_listed(&s, genres, "Jazz is what I put on most days."));
        assert!(!names_listed(&s, genres, "I only ever fill up at Shell."));
    }

    #[test]
    fn the_built_in_model_is_valid_and_prefers_a_clear_category() {
        let m = OfferModel::parse(DEFAULT_OFFER, "config/offer.json").unwrap();
        let clear = m.probability(&[2.0, 0.0, 0.15, 0.2, 1.0, 0.0]);
        let vague = m.probability(&[2.0, -0.2, 0.01, 0.01, 0.0, 0.0]);
        assert!((0.0..=1.0).contains(&clear) && (0.0..=1.0).contains(&vague));
        assert!(
            clear > m.threshold && vague < m.threshold,
            "{clear} {vague}"
        );
    }

    #[test]
    fn bad_models_are_refused_by_name() {
        let e = OfferModel::parse("{", "o.json").unwrap_err();
        assert!(e.to_string().contains("o.json"), "{e}");
        let text = format!(r#"{{"format":"{FORMAT}","threshold":0.5,"weights":[1],"bias":0}}"#);
        let e = OfferModel::parse(&text, "o").unwrap_err();
        assert!(e.to_string().contains("expected 6"), "{e}");
        let five =
            format!(r#"{{"format":"{FORMAT}","threshold":0.5,"weights":[1,1,1,1,1],"bias":0}}"#);
        let m = OfferModel::parse(&five, "o").expect("a model fitted before the last feature");
        let f = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        assert_eq!(
            m.probability(&f),
            0.5,
            "it reads the last feature with weight 0"
        );
        let text =
            format!(r#"{{"format":"{FORMAT}","threshold":2,"weights":[1,1,1,1,1],"bias":0}}"#);
        assert!(OfferModel::parse(&text, "o").is_err());
    }
}
