//! Evaluation harnesses: the CarMem benchmark through the real runtime.

pub mod carmem;
pub mod metrics;
