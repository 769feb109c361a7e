//! The domain types of remembered preferences: ids, a stored preference, the maintenance
//! operations and the history entries that record every change.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::schema::DetailId;

/// Longest accepted user id, in bytes.
pub const MAX_USER_ID_LEN: usize = 128;

/// A driver profile. Validated once at the edge: 1-128 bytes, no control characters, no `\0`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UserId(String);

/// Why a user id was refused.
#[derive(Debug, thiserror::Error)]
#[error("invalid user id {0:?}: a user id is 1 to 128 bytes of printable text")]
pub struct InvalidUserId(pub String);

impl UserId {
    pub fn new(s: impl Into<String>) -> Result<UserId, InvalidUserId> {
        let s = s.into();
        if s.is_empty() || s.len() > MAX_USER_ID_LEN || s.chars().any(char::is_control) {
            return Err(InvalidUserId(s));
        }
        Ok(UserId(s))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A stored preference's id, unique across all users of one data directory and never reused.
/// It is also the preference's key in the vector index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PreferenceId(pub u64);

impl fmt::Display for PreferenceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Millis(pub u64);

impl Millis {
    pub fn now() -> Millis {
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Millis(d.as_millis() as u64)
    }
}

/// Whether a preference takes part in recall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Recalled normally.
    Active,
    /// Extracted with low confidence: kept, but not recalled until the user confirms it.
    Pending,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Pending => "pending",
        }
    }
}

/// One remembered preference: a value in a detail category, with the user's own sentences
/// that revealed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Preference {
    pub id: PreferenceId,
    pub user: UserId,
    pub detail: DetailId,
    pub attribute: String,
    /// The user's sentences that revealed or confirmed this preference, oldest first.
    pub sentences: Vec<String>,
    pub status: Status,
    /// The extraction's confidence in [0, 1] when it was last written.
    pub confidence: f32,
    pub created: Millis,
    pub updated: Millis,
    /// When recall last returned it (for retention), if ever.
    pub last_recalled: Option<Millis>,
    /// When Glovebox last wrote it (created, passed, confirmed), by its own clock: retention
    /// counts from this and `last_recalled`, not from `updated`, which is when the words were
    /// said (ingesting an old history expires nothing).
    pub last_written: Millis,
    /// For a pending preference that an uncertain update produced: the preference it replaces
    /// once confirmed (that one stays active until then). `None` otherwise.
    pub replaces: Option<PreferenceId>,
    /// The situation in which alone it holds, in the user's words ("at night"); `None`: always.
    /// A conditional value and an unconditional one of the same detail are kept side by side.
    pub condition: Option<String>,
}

/// A maintenance decision for one incoming preference (CarMem §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maintenance {
    /// Nothing was stored in the category: stored as a new preference without asking the model.
    New,
    /// The incoming preference is the stored one again: keep it, add the sentence.
    Pass(PreferenceId),
    /// The incoming preference replaces the stored one (which goes to history).
    Update(PreferenceId),
    /// The incoming preference is stored beside the existing ones (multi-valued details only).
    Append,
}

/// What a history entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Append,
    Pass,
    Update,
    Forget,
    OptOut,
    OptIn,
    Confirm,
    Reject,
    Import,
    Expire,
}

impl Operation {
    /// Every operation, in declaration order.
    pub const ALL: [Operation; 10] = [
        Operation::Append,
        Operation::Pass,
        Operation::Update,
        Operation::Forget,
        Operation::OptOut,
        Operation::OptIn,
        Operation::Confirm,
        Operation::Reject,
        Operation::Import,
        Operation::Expire,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Append => "append",
            Operation::Pass => "pass",
            Operation::Update => "update",
            Operation::Forget => "forget",
            Operation::OptOut => "optout",
            Operation::OptIn => "optin",
            Operation::Confirm => "confirm",
            Operation::Reject => "reject",
            Operation::Import => "import",
            Operation::Expire => "expire",
        }
    }

    pub fn parse(s: &str) -> Option<Operation> {
        Some(match s {
            "append" => Operation::Append,
            "pass" => Operation::Pass,
            "update" => Operation::Update,
            "forget" => Operation::Forget,
            "optout" => Operation::OptOut,
            "optin" => Operation::OptIn,
            "confirm" => Operation::Confirm,
            "reject" => Operation::Reject,
            "import" => Operation::Import,
            "expire" => Operation::Expire,
            _ => return None,
        })
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One recorded change to a user's memory.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    pub time: Millis,
    pub op: Operation,
    /// The category key the change concerns (a detail or, for opt-outs, a sub key).
    pub category: String,
    pub before: Option<Preference>,
    pub after: Option<Preference>,
    /// The user's sentence that caused the change, where there was one.
    pub sentence: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_ids_are_validated() {
        assert!(UserId::new("driver-1").is_ok());
        assert!(UserId::new("").is_err());
        assert!(UserId::new("a\nb").is_err());
        assert!(UserId::new("x".repeat(129)).is_err());
    }

    #[test]
    fn operations_round_trip_through_their_names() {
        for op in Operation::ALL {
            assert_eq!(Operation::parse(op.as_str()), Some(op));
        }
    }
}
