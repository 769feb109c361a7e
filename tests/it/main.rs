//! Integration tests: the real models, the real redb and usearch files in a temp dir, the real
//! binary. One test binary; modules by area.

#[cfg(feature = "harness")]
mod bench;
mod client;
mod common;
mod conditions;
mod dispatch;
mod drivers_words;
#[cfg(feature = "harness")]
mod eval;
mod extraction;
mod faults;
mod hardening;
mod occupants;
mod pending;
mod polarity;
mod privacy;
mod remember;
mod serve;
mod unlisted_names;
mod values;
mod vehicle_extraction;
