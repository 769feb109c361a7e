//! The vehicle gate's data (`glovebox eval vehicle-gate`): VehicleMemBench development
//! histories, the sentences the questions' gold memories quote or narrate against the
//! household talk around them, folds by file.

use std::path::Path;

use serde_json::{json, Value};

use super::{readings, train, Fit, Sample, Source};
use crate::conversation::split_sentences;
use crate::eval::carmem::EvalError;
use crate::memory::gate::Gate;
use crate::memory::Models;

/// The labelled sentences of VehicleMemBench development files (`files`, by number) for the
/// vehicle gate: positive, each sentence of a history line that a question's gold memory quotes
/// (what someone said about a vehicle setting; the quoted part of the line), and each sentence
/// of a line said in the hour a gold memory event dates ("[April 15, 2025] At 9:00 AM, Justin
/// drove alone and set the panel to blue") that names a value the event narrates ([`Event`]:
/// a number, or one of `values`, the schema's known values); negative, every sentence of every
/// `step`-th other line (the household talk around it). The other lines of an event's hour are
/// neither: they may carry the setting in words the narration does not use ("All right, muted
/// navigation"). Each line is a unit, each file a group.
/// Without `values` (`eval gate --vmb-qa`), only the quoted sentences are positives.
pub fn vehicle_samples(
    history: &Path,
    qa: &Path,
    files: &[usize],
    step: usize,
    values: Option<&[String]>,
) -> Result<Vec<Sample>, EvalError> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|error| EvalError::Read {
            path: p.display().to_string(),
            error,
        })
    };
    let norm = |s: &str| s.replace(['\u{2019}', '`'], "'");
    let mut out = Vec::new();
    for &n in files {
        let qpath = qa.join(format!("qa_{n}.json"));
        let raw: Value = serde_json::from_str(&read(&qpath)?).map_err(|e| EvalError::Data {
            path: qpath.display().to_string(),
            line: 1,
            problem: e.to_string(),
        })?;
        // What the gold memories quote (a quote of at least 12 characters between '...').
        let mut quotes: Vec<String> = Vec::new();
        let mut events: Vec<Event> = Vec::new();
        for q in raw["related_to_vehicle_preference"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let gold = norm(q["gold_memory"].as_str().unwrap_or(""));
            quotes.extend(quoted(&gold));
            if let Some(values) = values {
                events.extend(gold.lines().filter_map(|l| Event::read(l, values)));
            }
        }
        let hpath = history.join(format!("history_{n}.txt"));
        let name = format!("history_{n}");
        for (i, line) in read(&hpath)?.lines().enumerate() {
            let Some((_, text)) = line.split_once("] ").and_then(|(_, r)| r.split_once(": "))
            else {
                continue;
            };
            let text = norm(text);
            let quoted: Vec<&String> = quotes
                .iter()
                .filter(|q| text.contains(&q[..q.len().min(40)]))
                .collect();
            let hour = line.get(1..14).unwrap_or("");
            let narrated: Vec<&Event> = events.iter().filter(|e| e.hour == hour).collect();
            if quoted.is_empty() && narrated.is_empty() && i % step.max(1) != 0 {
                continue;
            }
            // An unquoted line of an event's hour gives positives only (by a narrated value).
            let unquoted = quoted.is_empty();
            for s in split_sentences(&text) {
                // A sentence of the quoted part: its head or its tail is in the quote.
                let chars: Vec<char> = s.chars().collect();
                let head: String = chars.iter().take(20).collect();
                let tail: String = chars[chars.len().saturating_sub(20)..].iter().collect();
                let positive = quoted
                    .iter()
                    .any(|q| q.contains(head.trim()) || q.contains(tail.trim()))
                    || narrated.iter().any(|e| e.names_a_value(&s));
                if !positive && unquoted && !narrated.is_empty() {
                    continue;
                }
                out.push(Sample {
                    text: s,
                    positive,
                    source: if positive {
                        Source::VmbPreference
                    } else {
                        Source::Vmb
                    },
                    unit: format!("{name}/{i}"),
                    group: name.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// One event of a gold memory ("[April 15, 2025] At 9:00 AM, Justin drove alone and set the
/// panel to blue, his favorite color."): the hour it dates, as a history line writes it
/// (`2025-04-15 09`), and the values its text names: numbers, and the schema's known values.
#[derive(Debug, PartialEq)]
struct Event {
    hour: String,
    values: Vec<String>,
}

impl Event {
    fn read(line: &str, known: &[String]) -> Option<Event> {
        let (date, rest) = line.trim().strip_prefix('[')?.split_once("] At ")?;
        let mut d = date.split([' ', ',']).filter(|w| !w.is_empty());
        let month = crate::memory::usual::month_number(d.next()?)?;
        let day: u32 = d.next()?.parse().ok()?;
        let year: u32 = d.next()?.parse().ok()?;
        let (clock, text) = rest.split_once(", ").unwrap_or((rest, ""));
        let (hm, half) = clock.split_once(' ')?;
        let h: u32 = hm.split(':').next()?.parse().ok()?;
        let h = match half.trim_end_matches('.') {
            "AM" => h % 12,
            "PM" => h % 12 + 12,
            _ => return None,
        };
        let words = words(text);
        let values = words
            .iter()
            .filter(|w| w.chars().all(|c| c.is_ascii_digit()) || known.iter().any(|k| k == *w))
            .cloned()
            .collect();
        Some(Event {
            hour: format!("{year:04}-{month:02}-{day:02} {h:02}"),
            values,
        })
    }

    /// Whether a sentence names one of the event's values, a whole word.
    fn names_a_value(&self, sentence: &str) -> bool {
        self.values
            .iter()
            .any(|v| crate::memory::values::says_words(sentence, v))
    }
}

/// The words of a text, lower-cased.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The quotes of a gold memory: text between an apostrophe that opens (after a space, a colon
/// or the start) and one that closes (before a space, punctuation or the end), at least 12
/// bytes long; apostrophes inside words ("I'm") neither open nor close.
fn quoted(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let opens = |i: usize| i == 0 || matches!(b[i - 1], b' ' | b':' | b'\n' | b'(');
    let closes = |j: usize| {
        (j + 1 == b.len() || matches!(b[j + 1], b' ' | b'.' | b',' | b';' | b'\n' | b')'))
            && j > 0
            && b[j - 1] != b' '
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\'' && opens(i) {
            if let Some(j) = (i + 1..b.len()).find(|&j| b[j] == b'\'' && closes(j)) {
                let q = text[i + 1..j].trim();
                if q.len() >= 12 {
                    out.push(q.to_string());
                }
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Trains and cross-validates the vehicle gate on VehicleMemBench development files (folds by
/// file); returns the report and the gate fitted on all of `files`.
pub fn run_vehicle(
    models: &Models,
    (history, qa, files): (&Path, &Path, &[usize]),
    fit: Fit,
) -> Result<(Value, Gate), EvalError> {
    // The schema's known values, single words of four letters or more ("blue", "outside",
    // "1080p"; "single_loop" as "single loop" is two words and left out): shorter ones ("on",
    // "off", "low") are said of anything.
    let values: Vec<String> = models
        .schema()
        .details()
        .iter()
        .flat_map(|d| d.attributes.iter())
        .map(|a| a.to_lowercase())
        .filter(|a| a.len() >= 4 && a.chars().all(|c| c.is_alphanumeric()))
        .collect();
    let samples = vehicle_samples(history, qa, files, VEHICLE_STEP, Some(&values))?;
    let xs = readings(models, &samples, &fit)?;
    let (_, report, gate) = train(
        &xs,
        &samples,
        fit,
        json!({ "files": files }),
        (
            "glovebox eval vehicle-gate",
            "VehicleMemBench development histories: positives, the sentences a question's gold memory quotes and the sentences said in a gold event's hour that name a value the event narrates; negatives, the sentences of every other line taken outside those hours",
        ),
    );
    Ok((report, gate))
}

/// Every how many unquoted lines of a history the vehicle gate takes as negatives.
pub const VEHICLE_STEP: usize = 2;

/// The VehicleMemBench development files, by number.
pub const DEV_FILES: std::ops::RangeInclusive<usize> = 1..=25;

/// Every `step`-th line of each VehicleMemBench history in `dir` (`[time] Name: text`), split
/// into sentences, all negative, each file its own group. Household chat is mostly about
/// everything but the car; the few vehicle preferences in it are a small share of the lines
/// (label noise the regularised fit tolerates).
pub fn vmb_samples(dir: &Path, step: usize) -> Result<Vec<Sample>, EvalError> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|error| EvalError::Read {
            path: p.display().to_string(),
            error,
        })
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|error| EvalError::Read {
            path: dir.display().to_string(),
            error,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let name = f
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        for (i, line) in read(&f)?
            .lines()
            .enumerate()
            .filter(|(i, _)| i % step.max(1) == 0)
        {
            let Some((_, text)) = line.split_once("] ").and_then(|(_, r)| r.split_once(": "))
            else {
                continue;
            };
            for s in split_sentences(text) {
                out.push(Sample {
                    text: s,
                    positive: false,
                    source: Source::Vmb,
                    unit: format!("{name}/{i}"),
                    group: name.clone(),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_memory_quotes_keep_their_apostrophes() {
        let g = "At 8:00 AM, Patricia drove Gary's car. She told him: 'I'm tall, so I need the headrest at 44.' She adjusted it. Then: 'Ok.'";
        assert_eq!(quoted(g), ["I'm tall, so I need the headrest at 44."]);
    }

    #[test]
    fn narrated_values_label_their_hour_and_the_rest_of_the_hour_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let qa = serde_json::json!({"related_to_vehicle_preference": [{
            "gold_memory": "[April 15, 2025] At 9:00 AM, Justin drove alone and set the panel to blue.\n[April 16, 2025] At 8:00 AM, Gary told Justin: 'I need the headrest at 44 for my neck.'",
        }]});
        std::fs::write(dir.path().join("qa_1.json"), qa.to_string()).unwrap();
        let history = [
            "[2025-04-15 09:00] Justin Martinez: Alright, blue panel set. Best way to start the morning.",
            "[2025-04-15 09:01] Justin Martinez: Got a full day ahead.",
            "[2025-04-16 08:00] Gary Allen: I need the headrest at 44 for my neck.",
            "[2025-04-16 10:00] Gary Allen: The pollen is blue-green this year.",
            "[2025-04-16 10:01] Gary Allen: Nice weather.",
        ];
        std::fs::write(dir.path().join("history_1.txt"), history.join("\n")).unwrap();
        let known = vec!["blue".to_string()];
        let got = vehicle_samples(dir.path(), dir.path(), &[1], 1, Some(&known)).unwrap();
        let label = |t: &str| got.iter().find(|s| s.text == t).map(|s| s.positive);
        // Narrated: the sentence that says the event's value; the rest of its line and hour
        // is no sample at all.
        assert_eq!(label("Alright, blue panel set."), Some(true));
        assert_eq!(label("Best way to start the morning."), None);
        assert_eq!(label("Got a full day ahead."), None);
        // Quoted, as before.
        assert_eq!(label("I need the headrest at 44 for my neck."), Some(true));
        // Outside every event's hour: household talk, a colour word or not.
        assert_eq!(label("The pollen is blue-green this year."), Some(false));
        assert_eq!(label("Nice weather."), Some(false));
    }

    #[test]
    fn a_gold_event_gives_its_hour_and_the_values_it_narrates() {
        let known = vec!["blue".to_string(), "outside".to_string()];
        let e = Event::read(
            "[April 15, 2025] At 9:00 PM, Justin drove alone and set the panel to blue, his favorite color.",
            &known,
        )
        .unwrap();
        assert_eq!(e.hour, "2025-04-15 21");
        assert_eq!(e.values, ["blue"]);
        assert!(e.names_a_value("Alright, blue panel set."));
        assert!(!e.names_a_value("Bluegrass on the radio, then."));
        let e = Event::read(
            "[May 1, 2025] At 12:00 AM, Gary set the HUD brightness to 4.",
            &known,
        )
        .unwrap();
        assert_eq!(
            (e.hour.as_str(), e.values.as_slice()),
            ("2025-05-01 00", &["4".to_string()][..])
        );
        assert_eq!(
            Event::read("Gary set the HUD brightness to 4.", &known),
            None
        );
    }
}
