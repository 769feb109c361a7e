//! Evaluation harnesses: the CarMem benchmark through the real runtime, and the quick latency run
//! (`glovebox bench`) with the workloads the criterion benches share.

pub mod bench;
pub mod carmem;
pub mod cases;
pub mod confirm;
pub mod fit;
pub mod gate;
pub mod lines;
pub mod metrics;
pub mod offers;
pub mod polarity;
pub mod refusal;
pub mod relevance;
pub mod vmb;
