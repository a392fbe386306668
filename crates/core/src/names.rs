//! Kubernetes object names, one validator for the whole core: the parser's diagnostics (a
//! reason a learner can act on) and the store's 422s (apimachinery's messages) agree on which
//! names are valid (kubernetes-semantics.md).
//!
//! - a DNS subdomain (RFC 1123; object names, API groups): at most 253 characters, dot-separated
//!   labels of lower-case letters, digits and `-`, each starting and ending with a letter or a
//!   digit;
//! - a DNS label (RFC 1123; namespaces, plurals): one such label, at most 63 characters.

use crate::limits::{MAX_NAMESPACE_CHARS, MAX_NAME_CHARS};

/// Why `name` is not a DNS subdomain (RFC 1123), if it is not.
pub fn subdomain_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Some(format!("it is longer than {MAX_NAME_CHARS} characters"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '.'))
    {
        if c.is_ascii_uppercase() {
            return Some(format!("it contains the upper-case letter `{c}`"));
        }
        return Some(format!("it contains `{c}`"));
    }
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if !alnum(name.chars().next()) || !alnum(name.chars().last()) {
        return Some("it must start and end with a letter or a digit".into());
    }
    None
}

/// Why `name` is not a DNS label (RFC 1123), if it is not.
pub fn label_problem(name: &str) -> Option<String> {
    if name.contains('.') {
        return Some("it contains `.`".into());
    }
    if name.chars().count() > MAX_NAMESPACE_CHARS {
        return Some(format!(
            "it is longer than {MAX_NAMESPACE_CHARS} characters"
        ));
    }
    subdomain_problem(name)
}
