//! Property tests (proptest) of the parsers that read untrusted input: a socket request line,
//! a conversation, the LLM's grammar-constrained answers, and an export document read back by
//! import. Case counts are kept modest so the binary runs in well under a minute; the one
//! property that needs the embedder (import into a real memory) runs a handful of cases.
//!
//! A failure prints the shrunk input and the seed; proptest also saves it under
//! `tests/proptest-regressions/` so that the next run tries it first (commit such a file with
//! the fix).

mod answers;
mod conversation;
mod export;
mod gbnf;
mod protocol;
mod strategies;
