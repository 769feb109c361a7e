//! The vehicle gate's data (`glovebox eval vehicle-gate`): VehicleMemBench development
//! histories, the sentences the questions' gold memories quote against the household talk
//! around them, folds by file.

use std::path::Path;

use serde_json::{json, Value};

use super::{train, Sample, Source};
use crate::conversation::split_sentences;
use crate::eval::carmem::EvalError;
use crate::memory::gate::Gate;
use crate::memory::Models;

/// The labelled sentences of VehicleMemBench development files (`files`, by number) for the
/// vehicle gate: positive, each sentence of a history line that a question's gold memory quotes
/// (what someone said about a vehicle setting; the quoted part of the line); negative, every
/// sentence of every `step`-th other line (the household talk around it). Each line is a unit,
/// each file a group. The few settings spoken in lines no gold memory quotes are label noise.
pub fn vehicle_samples(
    history: &Path,
    qa: &Path,
    files: &[usize],
    step: usize,
) -> Result<Vec<Sample>, EvalError> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|source| EvalError::Read {
            path: p.display().to_string(),
            source,
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
        for q in raw["related_to_vehicle_preference"]
            .as_array()
            .into_iter()
            .flatten()
        {
            quotes.extend(quoted(&norm(q["gold_memory"].as_str().unwrap_or(""))));
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
            if quoted.is_empty() && i % step.max(1) != 0 {
                continue;
            }
            for s in split_sentences(&text) {
                // A sentence of the quoted part: its head or its tail is in the quote.
                let chars: Vec<char> = s.chars().collect();
                let head: String = chars.iter().take(20).collect();
                let tail: String = chars[chars.len().saturating_sub(20)..].iter().collect();
                let positive = quoted
                    .iter()
                    .any(|q| q.contains(head.trim()) || q.contains(tail.trim()));
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
    (folds, threshold, hidden): (usize, f32, usize),
) -> Result<(Value, Gate), EvalError> {
    let samples = vehicle_samples(history, qa, files, VEHICLE_STEP)?;
    let xs = models.embed(samples.iter().map(|s| s.text.clone()).collect())?;
    let (_, report, gate) = train(
        &xs,
        &samples,
        (folds, threshold, hidden),
        json!({ "files": files }),
        (
            "glovebox eval vehicle-gate",
            "VehicleMemBench development histories: positives, the sentences a question's gold memory quotes; negatives, the sentences of every other line taken",
        ),
    );
    Ok((report, gate))
}

/// Every how many unquoted lines of a history the vehicle gate takes as negatives.
pub const VEHICLE_STEP: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_memory_quotes_keep_their_apostrophes() {
        let g = "At 8:00 AM, Patricia drove Gary's car. She told him: 'I'm tall, so I need the headrest at 44.' She adjusted it. Then: 'Ok.'";
        assert_eq!(quoted(g), ["I'm tall, so I need the headrest at 44."]);
    }
}
