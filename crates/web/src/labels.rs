//! Short labels for the timeline cells, cut from the core's preformatted views (no domain
//! logic: only which part of an already formatted string to show).

use rvlab_core::engine::Mark;
use rvlab_core::view::StepView;

/// `PUT my-config` from `PUT /api/v1/namespaces/default/configmaps/my-config?fieldManager=bob`.
pub fn short_request(step: &StepView) -> Option<String> {
    let line = step.request_line.as_deref()?;
    let (method, path) = line.split_once(' ').unwrap_or((line, ""));
    let path = path.split('?').next().unwrap_or(path);
    let last = path.rsplit('/').next().unwrap_or(path);
    Some(format!("{method} {last}"))
}

/// An icon and a word for a step's mark, so that colour is never the only signal.
pub fn mark_badge(mark: Mark) -> Option<(&'static str, &'static str)> {
    match mark {
        Mark::Conflict => Some(("⚠", "conflict")),
        Mark::Invalid => Some(("⛔", "invalid")),
        Mark::NotFound => Some(("∅", "not found")),
        Mark::LostUpdate => Some(("☠", "lost update")),
        Mark::OtherError => Some(("✖", "error")),
        Mark::Ok | Mark::Local | Mark::Sleep => None,
    }
}

/// A YAML text as the inspector shows it, line by line, the `metadata.resourceVersion` line
/// flagged (as the core's `view::object_view` flags it).
#[cfg(feature = "live")]
pub fn yaml_lines(yaml: &str) -> Vec<rvlab_core::view::YamlLine> {
    yaml.lines()
        .map(|l| rvlab_core::view::YamlLine {
            text: l.to_string(),
            resource_version: l.starts_with("  resourceVersion:"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Action, AppState};

    #[test]
    fn labels_of_the_seed_story() {
        let s = AppState::default().apply(Action::RunToEnd);
        let steps = &s.shown.as_ref().unwrap().steps;
        assert_eq!(short_request(&steps[0]).as_deref(), Some("GET my-config"));
        assert_eq!(short_request(&steps[2]), None, "a local step sends nothing");
        assert_eq!(short_request(&steps[5]).as_deref(), Some("PUT my-config"));
        assert_eq!(mark_badge(steps[5].mark), Some(("⚠", "conflict")));
        assert_eq!(mark_badge(steps[3].mark), None);
    }
}
