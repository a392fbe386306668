use super::*;
use crate::exercises::{builtin, EXERCISES};

fn start(id: &str) -> Exercise {
    builtin(id).expect("built in").parse().expect("parses")
}

#[test]
fn a_course_file_gives_title_id_builtin_and_order() {
    let text = "# week 3\n\ntitle \"Week 3: conflicts\"\nid \"week-3\"\nbuiltin hide\n02-b.rvl\n  01-a.rvl  \n";
    let c = read_course_file(text).expect("reads");
    assert_eq!(c.title.as_deref(), Some("Week 3: conflicts"));
    assert_eq!(c.id.as_deref(), Some("week-3"));
    assert_eq!(c.builtin, Some(false));
    assert_eq!(c.files, ["02-b.rvl", "01-a.rvl"]);
    assert_eq!(
        read_course_file("").expect("empty is fine"),
        CourseFile::default()
    );
}

#[test]
fn every_wrong_line_of_a_course_file_is_named() {
    let text = "title Week 3\nid \"Week 3\"\nbuiltin maybe\na.solution.rvl\n../x.rvl\nb.rvl\nb.rvl\nexercise b\ntitle \"A\"\ntitle \"B\"\n";
    let errors = read_course_file(text).expect_err("wrong");
    let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, [1, 2, 3, 4, 5, 7, 8, 10], "{errors:?}");
    assert!(errors[0].message.contains("one quoted text"), "{errors:?}");
    assert!(errors[1].message.contains("not a course id"));
    assert!(errors[2].message.contains("builtin beside"));
    assert!(errors[3].message.contains("reference solution"));
    assert!(errors[4].message.contains("no `/`"));
    assert!(errors[5].message.contains("listed twice"));
    assert!(errors[6].message.contains("not `title"));
    assert!(errors[7].message.contains("given twice"));
}

#[test]
fn ids_from_names() {
    assert_eq!(id_from("Week 3: Conflicts!"), "week-3-conflicts");
    assert_eq!(id_from("my_course"), "my-course");
    assert_eq!(id_from("???"), "course");
    assert!(valid_id(&id_from(&"x".repeat(300))));
    assert!(!valid_id("Week") && !valid_id("") && valid_id("week-3"));
    assert_eq!(solution_file("01-a.rvl"), "01-a.solution.rvl");
}

#[test]
fn the_built_in_course_passes_its_own_check() {
    for b in EXERCISES {
        let ex = b.parse().expect("parses");
        assert_eq!(
            check(&ex, Some(b.solution())),
            Vec::<String>::new(),
            "{}",
            b.id
        );
    }
}

#[test]
fn the_check_names_a_start_that_passes_a_solution_that_fails_and_a_broken_start_schedule() {
    // A fix-it whose start is already its solution.
    let b = builtin("retry-reread").expect("built in");
    let solved = parse(b.solution()).expect("parses");
    let problems = check(&solved, Some(b.solution()));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("already passes"), "{problems:?}");

    // The starting text given as the solution fails, with the grader's first reason.
    let ex = start("retry-reread");
    let problems = check(&ex, Some(b.source));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("its reference solution fails: `"),
        "{problems:?}"
    );

    // A solution of another exercise, and one that does not parse.
    let other = builtin("counter").expect("built in").solution();
    assert!(check(&ex, Some(other))[0].contains("is exercise `counter`, not `retry-reread`"));
    assert!(check(&ex, Some("client a:\n  get\n"))[0]
        .starts_with("its reference solution is not a valid exercise: line "));

    // A break-it whose own schedule already breaks the expectation.
    let fc = start("first-conflict");
    let text = fc.text.replace("schedule \"a3b3\"", "schedule \"ba3b2\"");
    assert_ne!(text, fc.text);
    let broken = parse(&text).expect("parses");
    let problems = check(&broken, None);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("already fails on the starting text's own schedule")),
        "{problems:?}"
    );
}

#[test]
fn the_json_form_round_trips_and_is_safe_in_a_script_element() {
    let a = builtin("first-conflict").expect("built in");
    let b = builtin("counter").expect("built in");
    let tricky = a.source.replace(
        "title \"Make bob's update conflict\"",
        "title \"</script><b>Make</b> bob's update conflict\"",
    );
    let json = to_json(
        "Week 3",
        "week-3",
        false,
        &[
            ("01-a.rvl".to_string(), tricky.clone()),
            ("02-b.rvl".to_string(), b.source.to_string()),
        ],
    );
    assert!(!json.contains('<'), "{json}");
    let c = Course::from_json(&json).expect("reads");
    assert_eq!(
        (c.title.as_str(), c.id.as_str(), c.builtin),
        ("Week 3", "week-3", false)
    );
    assert_eq!(c.entries.len(), 2);
    let first = c.entries[0].exercise.as_ref().expect("an exercise");
    assert_eq!(first.text, tricky);
    assert_eq!(first.title, "</script><b>Make</b> bob's update conflict");
    assert_eq!(c.entries[1].id, "counter");
    assert_eq!(
        c.find("counter").map(|e| e.title.as_str()),
        Some(c.entries[1].title.as_str())
    );
    assert!(c.find("nope").is_none());
}

#[test]
fn a_broken_exercise_is_refused_alone_and_a_broken_course_as_a_whole() {
    let a = builtin("first-conflict").expect("built in").source;
    let json = to_json(
        "Week 3",
        "week-3",
        true,
        &[
            ("01-a.rvl".to_string(), a.to_string()),
            (
                "02-broken.rvl".to_string(),
                "client a:\n    get\n".to_string(),
            ),
            ("03-again.rvl".to_string(), a.to_string()),
            ("04-huge.rvl".to_string(), "#".repeat(MAX_TEXT_BYTES + 1)),
        ],
    );
    let c = Course::from_json(&json).expect("the course reads");
    assert!(c.entries[0].exercise.is_ok());
    let err = |i: usize| c.entries[i].exercise.clone().expect_err("broken");
    assert!(err(1).starts_with("line "), "{}", err(1));
    assert_eq!(c.entries[1].id, "02-broken.rvl");
    assert_eq!(c.entries[1].title, "02-broken.rvl");
    assert!(!c.entries[1].kubectl);
    assert!(err(2).contains("is exercise 1's too"), "{}", err(2));
    assert!(err(3).contains("larger than"), "{}", err(3));

    for (bad, why) in [
        ("{", "not JSON"),
        ("{\"title\":\"x\"}", "not an rvlab course"),
        ("{\"rvlab-course\":2}", "format 2"),
        (
            "{\"rvlab-course\":1,\"id\":\"a\",\"exercises\":[]}",
            "no title",
        ),
        (
            "{\"rvlab-course\":1,\"title\":\"T\",\"id\":\"A B\",\"exercises\":[]}",
            "not a course id",
        ),
        (
            "{\"rvlab-course\":1,\"title\":\"T\",\"id\":\"t\"}",
            "no exercises",
        ),
    ] {
        let e = Course::from_json(bad).expect_err(bad);
        assert!(e.contains(why), "{bad}: {e}");
    }
}

#[cfg(feature = "kubectl")]
#[test]
fn a_kubectl_exercise_is_marked_in_the_json_and_read_by_a_build_with_the_model() {
    let k = builtin("kubectl-stale-file").expect("built in");
    let json = to_json(
        "K",
        "k",
        true,
        &[("k.rvl".to_string(), k.source.to_string())],
    );
    let v: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["exercises"][0]["kubectl"], true);
    assert_eq!(v["exercises"][0]["id"], "kubectl-stale-file");
    let c = Course::from_json(&json).expect("reads");
    // This build runs kubectl: the exercise is there, nothing to hand over.
    assert!(c.entries[0].exercise.is_ok() && !c.entries[0].kubectl);
}
