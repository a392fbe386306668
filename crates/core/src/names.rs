//! Kubernetes object names, one validator for the whole core (k8s.io/apimachinery `pkg/util/validation/validation.go`): the
//! parser's diagnostics (the first reason, worded for a learner) and the store's 422s
//! (apimachinery's messages, byte for byte) accept exactly the same names.
//!
//! - a DNS subdomain (RFC 1123; object names, API groups): at most 253 characters, labels
//!   separated by `.`;
//! - a DNS label (RFC 1123; namespaces, plurals): lower-case letters, digits and `-`, starting
//!   and ending with a letter or a digit, at most 63 characters.

/// The longest object name (a DNS subdomain).
pub const MAX_NAME_CHARS: usize = 253;
/// The longest namespace (a DNS label).
pub const MAX_NAMESPACE_CHARS: usize = 63;

/// apimachinery's `dns1123SubdomainErrorMsg` with its regex, as `IsDNS1123Subdomain` reports it.
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// One label of a subdomain, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, of any length.
fn is_label_shaped(label: &str) -> bool {
    let b = label.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// True when `name` is a DNS subdomain (RFC 1123).
pub fn is_subdomain(name: &str) -> bool {
    name.len() <= MAX_NAME_CHARS && name.split('.').all(is_label_shaped)
}

/// True when `name` is a DNS label (RFC 1123).
pub fn is_label(name: &str) -> bool {
    name.len() <= MAX_NAMESPACE_CHARS && is_label_shaped(name)
}

/// apimachinery 1.35 `IsDNS1123Label` messages (`ValidateNamespaceName`).
pub fn dns_label_errors(name: &str) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if name.len() > MAX_NAMESPACE_CHARS {
        errs.push("must be no more than 63 characters");
    }
    if !is_label_shaped(name) {
        if name.split('.').all(is_label_shaped) {
            // A subdomain that is not a label: the length was checked, so it is the dots.
            errs.push("must not contain dots");
        } else {
            errs.push("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
        }
    }
    errs
}

/// `IsDNS1123Subdomain`'s error messages for `name` (empty when valid): the store's 422 causes.
pub fn dns_subdomain_errors(name: &str) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if name.len() > MAX_NAME_CHARS {
        errs.push("must be no more than 253 characters");
    }
    if !name.split('.').all(is_label_shaped) {
        errs.push(DNS1123_SUBDOMAIN_ERR);
    }
    errs
}

/// Why `name` is not a DNS subdomain (RFC 1123), if it is not: the first problem, for a
/// diagnostic.
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
    if name.contains("..") {
        return Some("it contains `..`".into());
    }
    if name.contains("-.") || name.contains(".-") {
        return Some("each part between dots must start and end with a letter or a digit".into());
    }
    None
}

/// Why `name` is not a DNS label (RFC 1123), if it is not: the first problem, for a diagnostic.
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn subdomains() {
        for ok in ["a", "my-config", "a.b-c.d", "0", "a1.2b", &"a".repeat(253)] {
            assert!(is_subdomain(ok), "{ok}");
            assert_eq!(subdomain_problem(ok), None, "{ok}");
            assert!(dns_subdomain_errors(ok).is_empty(), "{ok}");
        }
        for (bad, why) in [
            ("", "it is empty"),
            ("My_Config", "it contains the upper-case letter `M`"),
            ("a_b", "it contains `_`"),
            ("-a", "it must start and end with a letter or a digit"),
            ("a.", "it must start and end with a letter or a digit"),
            ("a..b", "it contains `..`"),
            (
                "a-.b",
                "each part between dots must start and end with a letter or a digit",
            ),
            (
                "a.-b",
                "each part between dots must start and end with a letter or a digit",
            ),
            ("é", "it contains `é`"),
        ] {
            assert!(!is_subdomain(bad), "{bad}");
            assert_eq!(subdomain_problem(bad).as_deref(), Some(why), "{bad}");
            assert_eq!(
                dns_subdomain_errors(bad),
                vec![DNS1123_SUBDOMAIN_ERR],
                "{bad}"
            );
        }
        let long = "a".repeat(254);
        assert_eq!(
            subdomain_problem(&long).as_deref(),
            Some("it is longer than 253 characters")
        );
        assert_eq!(
            dns_subdomain_errors(&long),
            vec!["must be no more than 253 characters"]
        );
        assert_eq!(dns_subdomain_errors(&format!("-{long}")).len(), 2);
    }

    #[test]
    fn labels() {
        assert!(is_label("team-a"));
        assert_eq!(label_problem("team-a"), None);
        assert_eq!(
            label_problem("ns.with.dots").as_deref(),
            Some("it contains `.`")
        );
        assert_eq!(
            label_problem(&"a".repeat(64)).as_deref(),
            Some("it is longer than 63 characters")
        );
        assert!(!is_label(&"a".repeat(64)));
        assert!(is_label(&"a".repeat(63)));
        assert_eq!(
            label_problem("Team_A").as_deref(),
            Some("it contains the upper-case letter `T`")
        );
    }

    proptest! {
        /// The parser's reason and the store's 422 agree on every name.
        #[test]
        fn parser_and_store_agree(name in "[a-zA-Z0-9._é-]{0,8}|[a-z0-9.-]{60,66}|[a-z0-9.-]{250,256}") {
            let store_ok = dns_subdomain_errors(&name).is_empty();
            prop_assert_eq!(subdomain_problem(&name).is_none(), store_ok, "{:?}", name);
            prop_assert_eq!(is_subdomain(&name), store_ok, "{:?}", name);
            let label_ok = is_label(&name);
            prop_assert_eq!(label_problem(&name).is_none(), label_ok, "{:?}", name);
            // The store's namespace 422 (the label messages) agrees with both.
            prop_assert_eq!(dns_label_errors(&name).is_empty(), label_ok, "{:?}", name);
        }
    }
}
