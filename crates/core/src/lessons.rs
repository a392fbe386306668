//! The built-in lessons: scenario files in `crates/core/lessons/NN-id.rvl`, compiled in.
//! Each has a title, an about text, a default `schedule` that tells its story, and
//! expectations that hold on that schedule.

use crate::lang::{parse, Parsed};

/// A built-in lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lesson {
    /// The id (`stale-update`), used as `lesson:ID` on the command line.
    pub id: &'static str,
    /// The file name (`01-stale-update.rvl`).
    pub file: &'static str,
    /// The scenario text.
    pub source: &'static str,
}

impl Lesson {
    /// The parsed scenario (lessons always parse without errors: tested).
    pub fn parse(&self) -> Parsed {
        parse(self.source)
    }

    /// The lesson's title (from its `title` line), or its id.
    pub fn title(&self) -> String {
        self.parse()
            .scenario
            .and_then(|s| s.title)
            .unwrap_or_else(|| self.id.to_string())
    }
}

macro_rules! lessons {
    ($($num:literal $id:literal),* ; kubectl: $($knum:literal $kid:literal $ktitle:literal),* $(,)?) => {
        /// Every built-in lesson, in order (the kubectl ones only in a build that runs kubectl
        /// statements, [`crate::kubectl::IN_BUILD`]).
        pub const LESSONS: &[Lesson] = if crate::kubectl::IN_BUILD {
            &[$(lessons!(@one $num $id),)* $(lessons!(@one $knum $kid),)*]
        } else {
            &[$(lessons!(@one $num $id),)*]
        };
        /// The kubectl lessons' ids and titles, in every build: the page's first build, which
        /// leaves the model out, lists them and opens them in its kubectl build.
        pub const KUBECTL: &[(&str, &str)] = &[$(($kid, $ktitle),)*];
    };
    (@one $num:literal $id:literal) => {
        Lesson {
            id: $id,
            file: concat!($num, "-", $id, ".rvl"),
            source: include_str!(concat!("../lessons/", $num, "-", $id, ".rvl")),
        }
    };
}

lessons! {
    "01" "stale-update",
    "02" "retry-reread",
    "03" "retry-without-reread",
    "04" "unconditional-update",
    "05" "merge-patch-overwrite",
    "06" "json-patch-test",
    "07" "apply-conflicts",
    "08" "create-already-exists",
    "09" "delete-precondition",
    "10" "counter",
    "11" "retry-policies",
    "12" "fresh-version-stale-body",
    "13" "patch-precondition",
    "14" "finalizers",
    "15" "conditions";
    kubectl:
    "16" "kubectl-stale-apply" "The seed in kubectl: a stale file is refused",
    "17" "kubectl-apply-three-way" "kubectl apply's three-way merge: what it keeps and what it overwrites",
    "18" "kubectl-patch-skips-the-check" "kubectl patch skips the check",
    "19" "kubectl-edit-and-replace" "kubectl edit and replace: which one carries the version",
}

/// The lesson with this id.
pub fn lesson(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

/// The fingerprint of every lesson's run on its default schedule with `seed` (lessons that fail
/// to parse or run are left out): the same list natively and in WebAssembly.
pub fn fingerprints(seed: u64) -> Vec<(&'static str, String)> {
    LESSONS
        .iter()
        .filter_map(|l| {
            let scenario = l.parse().scenario?;
            let run = crate::run::Run::new(&scenario, seed, None).ok()?;
            Some((l.id, crate::trace::fingerprint(&run)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(
        clippy::disallowed_methods,
        reason = "a test: std's sort is not in the page"
    )]
    fn the_list_matches_the_directory() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/lessons");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .expect("lessons directory")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rvl"))
            // Without the kubectl model, its lessons and exercises are not listed.
            .filter(|n| crate::kubectl::IN_BUILD || !n.contains("-kubectl-"))
            .collect();
        files.sort();
        let listed: Vec<String> = LESSONS.iter().map(|l| l.file.to_string()).collect();
        assert_eq!(files, listed);
        for l in LESSONS {
            let path = format!("{dir}/{}", l.file);
            assert_eq!(
                std::fs::read_to_string(path).expect("lesson file"),
                l.source
            );
        }
    }

    #[test]
    fn the_kubectl_list_has_each_lessons_own_title() {
        assert_eq!(KUBECTL.len(), 4);
        for (id, title) in KUBECTL {
            assert!(id.starts_with("kubectl-"), "{id}");
            let file = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/lessons"))
                .expect("lessons directory")
                .filter_map(|e| e.ok())
                .find(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .ends_with(&format!("-{id}.rvl"))
                })
                .expect("the lesson's file");
            let text = std::fs::read_to_string(file.path()).expect("lesson file");
            assert!(text.contains(&format!("title \"{title}\"\n")), "{id}");
            // With the model, the lesson is listed and its parsed title is the same.
            if crate::kubectl::IN_BUILD {
                assert_eq!(lesson(id).expect("listed").title(), *title);
            } else {
                assert!(lesson(id).is_none());
            }
        }
    }

    #[test]
    fn every_lesson_has_a_fingerprint() {
        let f = fingerprints(0);
        assert_eq!(f.len(), LESSONS.len());
        assert_eq!(f, fingerprints(0));
        assert_ne!(f, fingerprints(1));
    }

    #[test]
    fn ids_are_unique_and_lookups_work() {
        for (i, l) in LESSONS.iter().enumerate() {
            assert!(LESSONS[..i].iter().all(|o| o.id != l.id));
            assert_eq!(lesson(l.id).map(|x| x.file), Some(l.file));
        }
        assert!(LESSONS.len() >= 13);
        assert!(lesson("nope").is_none());
    }
}
