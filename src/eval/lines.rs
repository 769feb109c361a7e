//! The non-empty lines of a JSON-lines file, each with its line number, shared by the readers of
//! the evaluation's data files (CarMem users, test cases, gate labels) so that every one of them
//! names a bad line the same way: `<file>, line <n>: <problem>`.

use serde::de::DeserializeOwned;

use super::carmem::EvalError;

/// One non-empty line of a text, numbered from 1 as an editor shows it.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub text: &'a str,
    pub number: usize,
    origin: &'a str,
}

impl Line<'_> {
    /// An error naming this line of its file and what is wrong with it.
    pub fn error(&self, problem: impl Into<String>) -> EvalError {
        EvalError::Data {
            path: self.origin.to_string(),
            line: self.number,
            problem: problem.into(),
        }
    }

    /// The line read as one JSON value of type `T`; a line that is not gets its parser's message.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, EvalError> {
        serde_json::from_str(self.text).map_err(|e| self.error(e.to_string()))
    }
}

/// The lines of `text` that hold something; `origin` names the text in errors.
pub fn non_empty<'a>(text: &'a str, origin: &'a str) -> impl Iterator<Item = Line<'a>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(move |(i, text)| Line {
            text,
            number: i + 1,
            origin,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_lines_are_skipped_but_counted() {
        let lines: Vec<_> = non_empty("{}\n\n  \n[1]\n", "f.jsonl").collect();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].number, lines[1].number), (1, 4));
        assert_eq!(lines[1].parse::<Vec<u8>>().unwrap(), vec![1]);
    }

    #[test]
    fn a_bad_line_is_named_by_file_and_number() {
        let line = non_empty("\nnot json", "cases.jsonl").next().unwrap();
        let err = line.parse::<serde_json::Value>().unwrap_err().to_string();
        assert!(err.starts_with("cases.jsonl, line 2: "), "{err}");
    }
}
