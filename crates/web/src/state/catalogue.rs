//! The built-in course's labels: each lesson's title and each exercise's list label
//! ("1. Title (break it)"). Each needs a parse of its source, so they are built once per page
//! (on first use) and shared by every state, not per render: parsing all of them on every
//! render made each step of a long run ~0.5 ms slower (docs/size.md).

use rvlab_core::exercises::{Goal, EXERCISES};
use rvlab_core::lessons::LESSONS;
use std::cell::OnceCell;

/// The lessons' titles and the exercises' labels, in catalogue order.
#[derive(Debug, Default)]
pub struct Catalogue {
    lesson_titles: OnceCell<Vec<String>>,
    exercise_labels: OnceCell<Vec<String>>,
}

/// The word for an exercise's kind.
pub fn kind_label(goal: &Goal) -> &'static str {
    match goal {
        Goal::Break { .. } => "break it",
        Goal::Fix => "fix it",
    }
}

impl Catalogue {
    /// The title of built-in lesson `i` (empty when there is none).
    pub fn lesson_title(&self, i: usize) -> &str {
        let titles = self
            .lesson_titles
            .get_or_init(|| LESSONS.iter().map(|l| l.title()).collect());
        titles.get(i).map_or("", String::as_str)
    }

    /// The course list's label of built-in exercise `i` ("1. Title (break it)"; its id when
    /// it does not parse; empty when there is none).
    pub fn exercise_label(&self, i: usize) -> &str {
        let labels = self.exercise_labels.get_or_init(|| {
            EXERCISES
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    b.parse()
                        .map(|e| format!("{}. {} ({})", i + 1, e.title, kind_label(&e.goal)))
                        .unwrap_or_else(|_| b.id.to_string())
                })
                .collect()
        });
        labels.get(i).map_or("", String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lesson_and_exercise_has_its_label() {
        let c = Catalogue::default();
        assert_eq!(c.lesson_title(0), LESSONS[0].title());
        for (i, l) in LESSONS.iter().enumerate() {
            assert!(!c.lesson_title(i).is_empty(), "{}", l.id);
        }
        assert_eq!(c.lesson_title(LESSONS.len()), "");
        assert!(
            c.exercise_label(0).starts_with("1. "),
            "{}",
            c.exercise_label(0)
        );
        assert!(
            c.exercise_label(0).ends_with(" (break it)")
                || c.exercise_label(0).ends_with(" (fix it)")
        );
        assert_eq!(c.exercise_label(EXERCISES.len()), "");
    }
}
