//! What a failed request tells its client: a stable [`Code`] and a message saying what was wrong.
//! Runtime errors become these here, in one place, for the socket and the command line alike.

use serde::Serialize;

use crate::memory::export::ImportError;
use crate::memory::MemoryError;

/// Stable error codes (the `code` of an error response; docs/protocol.md lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    BadJson,
    BadUtf8,
    LineTooLong,
    TruncatedLine,
    BadRequest,
    UnknownOp,
    UnsupportedVersion,
    HelloRequired,
    UnknownCategory,
    BadConversation,
    NotFound,
    NotPending,
    Busy,
    Timeout,
    Forbidden,
    ModelMissing,
    Internal,
}

/// An error as a client sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct OpError {
    pub code: Code,
    pub message: String,
}

impl OpError {
    pub fn new(code: Code, message: impl Into<String>) -> OpError {
        OpError {
            code,
            message: message.into(),
        }
    }
}

/// The one place runtime errors become client errors.
impl From<&MemoryError> for OpError {
    fn from(e: &MemoryError) -> OpError {
        use crate::llm::LlmError;
        use crate::worker::WorkerError;
        let code = match e {
            MemoryError::Schema(crate::schema::SchemaError::UnknownCategory(_)) => {
                Code::UnknownCategory
            }
            MemoryError::Conversation(_) => Code::BadConversation,
            MemoryError::NotFound { .. } => Code::NotFound,
            MemoryError::NotPending { .. } => Code::NotPending,
            MemoryError::Llm(LlmError::Busy(_)) | MemoryError::Worker(WorkerError::Busy(..)) => {
                Code::Busy
            }
            MemoryError::Llm(LlmError::MissingModel(_)) => Code::ModelMissing,
            MemoryError::Embed(e) if e.to_string().contains("models/fetch") => Code::ModelMissing,
            _ => Code::Internal,
        };
        OpError::new(code, e.to_string())
    }
}

impl From<MemoryError> for OpError {
    fn from(e: MemoryError) -> OpError {
        OpError::from(&e)
    }
}

impl From<ImportError> for OpError {
    fn from(e: ImportError) -> OpError {
        match e {
            ImportError::Memory(e) => OpError::from(&e),
            other => OpError::new(Code::BadRequest, other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_errors_map_to_stable_codes() {
        let id = crate::pref::PreferenceId(9);
        let nf = MemoryError::NotFound {
            user: "ann".into(),
            id,
        };
        assert_eq!(OpError::from(&nf).code, Code::NotFound);
        let np = MemoryError::NotPending {
            user: "ann".into(),
            id,
        };
        let w = OpError::from(&np);
        assert_eq!(w.code, Code::NotPending);
        assert!(w.message.contains("not pending"), "{}", w.message);
    }
}
