//! The language's words: reserved keywords, the words statements start with, and "did you
//! mean" suggestions.

/// Words that can never be identifiers (variables, client names).
pub const RESERVED: &[&str] = &[
    "title", "about", "object", "client", "schedule", "expect", "get", "update", "replace",
    "create", "patch", "apply", "delete", "sleep", "retry", "true", "false", "null", "in", "as",
    "with",
];

/// Words that start a top-level statement.
pub const TOP_LEVEL: &[&str] = &["title", "about", "object", "client", "schedule", "expect"];

/// Words that start an exercise header line (docs/exercises.md). They are top-level statements
/// only at the start of a top-level line: elsewhere they stay usable as identifiers.
pub const EXERCISE_HEADERS: &[&str] = &["exercise", "instructions", "hint", "goal", "editable"];

/// Words that start a client statement.
pub const CLIENT_STATEMENTS: &[&str] = &[
    "get", "update", "replace", "create", "patch", "apply", "delete", "sleep", "retry", "kubectl",
    "file",
];

/// Words with a meaning in one place only (`retry on conflict`, `at resourceVersion`, …); they
/// stay usable as identifiers and field names, and the highlighter shows them as keywords.
pub const CONTEXTUAL: &[&str] = &[
    "at",
    "resourceVersion",
    "on",
    "conflict",
    "merge",
    "json",
    "strategic",
    "force",
    "precondition",
    "uid",
    "no",
    "lost",
    "updates",
    "exists",
    "contains",
    "is",
    "deleted",
    "succeeds",
    "fails",
    "all",
    "clients",
    "succeed",
    "prints",
    "exits",
    "DefaultRetry",
    "DefaultBackoff",
    "backoff",
];

/// Kubernetes `StatusReason`s an `expect CLIENT fails with REASON` may name.
pub const REASONS: &[&str] = &[
    "Conflict",
    "AlreadyExists",
    "NotFound",
    "Invalid",
    "Gone",
    "BadRequest",
    "Forbidden",
    "Unauthorized",
    "MethodNotAllowed",
    "UnsupportedMediaType",
    "RequestEntityTooLarge",
    "TooManyRequests",
    "Timeout",
    "ServerTimeout",
    "InternalError",
];

/// True when `word` is reserved.
pub fn is_reserved(word: &str) -> bool {
    RESERVED.contains(&word)
}

/// True when `word` is an identifier: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub use crate::text::closest;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            closest("updat", CLIENT_STATEMENTS.iter().copied()),
            Some("update")
        );
        assert_eq!(
            closest("retyr", CLIENT_STATEMENTS.iter().copied()),
            Some("retry")
        );
        assert_eq!(closest("zzzzzz", CLIENT_STATEMENTS.iter().copied()), None);
        assert!(is_identifier("obj_2") && !is_identifier("2obj") && !is_identifier("my-x"));
    }
}
