//! The labels by which CarMem's revealing sentences are read against issue 13's definition
//! (`glovebox eval gate --labels`, `config/lasting-labels.jsonl`).
//!
//! CarMem counts the sentence of a conversation that names its ground-truth value as revealing
//! a preference, and more than half of those are one-off requests that name the value ("Find
//! me a covered parking spot if possible.", "Need charging station with Wi-Fi"): taught on them,
//! the gate passes a driver's "Can you put Radio 1 on?". The labels say which revealing
//! sentences state a lasting preference and which only ask for something now. The shipped file
//! was written by an annotator (a helper session given the definition and the 479 sentences
//! alone, told to decide each by reading it, not by a rule, and to keep `lasting` when unsure);
//! it covers the development split only.

use std::collections::HashSet;
use std::path::Path;

use super::EvalError;
use crate::eval::lines;

/// One line of a labels file (`config/lasting-labels.jsonl`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Label {
    text: String,
    label: String,
}

/// Reads a labels file: JSON lines `{"text": ..., "label": "lasting" | "request"}`, the
/// sentences CarMem counts as revealing a preference, each read against issue 13's
/// definition (a one-off request, a wish for this trip or moment, or a question is no lasting
/// preference). Returns the texts labelled `request`; a line that is not such an object, or
/// another label, is refused with its line number.
pub fn read_labels(path: &Path) -> Result<HashSet<String>, EvalError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| EvalError::Read {
        path: origin.clone(),
        error,
    })?;
    let mut out = HashSet::new();
    for line in lines::non_empty(&text, &origin) {
        let l: Label = line.parse()?;
        match l.label.as_str() {
            "request" => {
                out.insert(l.text);
            }
            "lasting" => {}
            other => {
                return Err(line.error(format!(
                    "label {other:?}, expected \"lasting\" or \"request\""
                )))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn requests_are_read_and_lasting_ones_left() {
        let f = file(concat!(
            r#"{"text": "Find me a covered spot.", "label": "request"}"#,
            "\n\n",
            r#"{"text": "I always park under a roof.", "label": "lasting"}"#,
            "\n"
        ));
        let r = read_labels(f.path()).unwrap();
        assert_eq!(r.len(), 1);
        assert!(r.contains("Find me a covered spot."));
    }

    #[test]
    fn a_bad_line_is_refused_by_its_number() {
        let f = file(concat!(
            r#"{"text": "a", "label": "request"}"#,
            "\n",
            r#"{"text": "b", "label": "maybe"}"#,
            "\n"
        ));
        let e = read_labels(f.path()).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("maybe"), "{e}");
        let f = file("{\"text\": \"a\"}\n");
        let e = read_labels(f.path()).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("label"), "{e}");
        let e = read_labels(Path::new("/nonexistent/labels.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/labels.jsonl"), "{e}");
    }
}
