//! Whether the gate's fit learns from CarMem's other user sentences (`eval gate --others`).

use super::{Sample, Source};

/// How the fit reads a CarMem conversation's other user sentences ([`Source::CarmemOther`]).
///
/// CarMem labels one preference per conversation; its other user sentences are often that
/// preference said again in other words ("I always prefer a gentle breeze." beside "Can you
/// set the fan to low please?") or another preference ("I prefer a more scenic route."), so
/// as negatives they teach the gate that a plain statement of what a driver likes is none.
/// Left unlabelled, they are not fitted on but still scored (the report's
/// `carmem_other_sentences_passing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Others {
    /// Fitted as negatives.
    Negative,
    /// Not fitted on.
    Unlabelled,
}

impl Others {
    /// Whether the fit learns from `sample`.
    pub fn fits(self, sample: &Sample) -> bool {
        self == Others::Negative || sample.source != Source::CarmemOther
    }
    pub(super) fn name(self) -> &'static str {
        match self {
            Others::Negative => "negative",
            Others::Unlabelled => "unlabelled",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{train, Fit};
    use super::*;

    /// A sentence said again in other words (an "other" sentence) beside the one that names
    /// the value: as a negative it pulls the gate down on what the positive says.
    #[test]
    fn an_unlabelled_other_sentence_is_scored_but_not_fitted_on() {
        let s = |positive, source| Sample {
            text: String::new(),
            positive,
            source,
            unit: "u".into(),
            group: "g".into(),
        };
        let xs = vec![
            vec![1.0, 0.0],
            vec![0.9, 0.1],
            vec![0.0, 1.0],
            vec![0.1, 0.9],
        ];
        let samples = vec![
            s(true, Source::CarmemPreference),
            s(false, Source::CarmemOther),
            s(false, Source::CarmemRequest),
            s(false, Source::CarmemRequest),
        ];
        let fit = |others| Fit {
            folds: 0,
            threshold: 0.5,
            hidden: 0,
            words: 0,
            layer: None,
            others,
            spoken: false,
            statements: false,
        };
        let about = ("test", "test");
        let (_, rn, negative) = train(&xs, &samples, fit(Others::Negative), json(), about);
        let (_, ru, unlabelled) = train(&xs, &samples, fit(Others::Unlabelled), json(), about);
        let other = &xs[1];
        assert!(negative.probability_of(other) < 0.5);
        assert!(unlabelled.probability_of(other) >= 0.5);
        assert!(Others::Unlabelled.fits(&samples[0]) && !Others::Unlabelled.fits(&samples[1]));
        assert!(Others::Negative.fits(&samples[1]));
        assert_eq!(
            (rn["others"].as_str(), ru["others"].as_str()),
            (Some("negative"), Some("unlabelled"))
        );
    }

    fn json() -> serde_json::Value {
        serde_json::json!({})
    }
}
