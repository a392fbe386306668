//! Share links, embed flags and saved work, as pure functions over [`AppState`] (the browser
//! calls that read and write the URL and local storage live in `hooks`).
//!
//! - A share link's fragment is `rvlab_core::share`'s (`v1&lesson=ID&t=…&p=…` for a built-in
//!   lesson unchanged, `v1&z=…` for any other text), plus the page's own flags `embed=1` and
//!   `editor=1`, which the core's decoder skips as unknown fields.
//! - Saved work is a versioned JSON record (`{"v":1,…}`) in local storage.
//! - [`initial_state`] decides what the page opens with: a link in the fragment wins over saved
//!   work, which wins over the first lesson; anything unreadable gives a notice and the first
//!   lesson.

use crate::state::exercises::{ExerciseAction, Origin};
use crate::state::{first_lesson, Action, AppState, Restore};
use rvlab_core::exercises::course::Course;
use rvlab_core::lessons::lesson;
use rvlab_core::share::{ShareState, Source, MAX_LINK_BYTES, MAX_TEXT_BYTES};
use serde_json::Value;
use std::rc::Rc;

/// The local storage key of saved work.
pub const STORAGE_KEY: &str = "rvlab.work";
/// The version of the saved record; other versions are ignored with a notice.
pub const STORAGE_VERSION: u64 = 1;
/// The largest saved record read back, in bytes.
pub const MAX_STORED_BYTES: usize = MAX_TEXT_BYTES + 8 * 1024;
/// The view name of the table form of the timeline in links.
pub const TABLE_VIEW: &str = "table";

/// The page's own URL flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// Embed mode: minimal chrome, reports its height to the parent page.
    pub embed: bool,
    /// In embed mode, show the editor too.
    pub editor: bool,
}

impl Flags {
    /// The flags in a fragment (`…&embed=1&editor=1`) or a query (`?embed`, `?embed=1&editor`).
    pub fn parse(fragment: &str, query: &str) -> Flags {
        let on = |name: &str| {
            let fields = |s: &str| {
                s.trim_start_matches(['#', '?'])
                    .split('&')
                    .any(|f| f == name || f == format!("{name}=1"))
            };
            fields(fragment) || fields(query)
        };
        Flags {
            embed: on("embed"),
            editor: on("editor"),
        }
    }

    fn suffix(self) -> &'static str {
        match (self.embed, self.editor) {
            (true, true) => "&embed=1&editor=1",
            (true, false) => "&embed=1",
            (false, true) => "&editor=1",
            (false, false) => "",
        }
    }
}

/// The state as a share link's content: the lesson's id when the text is the lesson's own.
pub fn share_state(app: &AppState) -> ShareState {
    let source = match lesson(app.base_lesson) {
        Some(l) if l.source == app.source => Source::Lesson(l.id.to_string()),
        _ => Source::Text(app.source.clone()),
    };
    ShareState {
        source,
        token: app.schedule.clone().unwrap_or_default(),
        position: u32::try_from(app.cursor).unwrap_or(u32::MAX),
        seed: app.seed,
        view: if app.table_view {
            TABLE_VIEW.into()
        } else {
            String::new()
        },
    }
}

/// The fragment (without `#`) for the state and flags, or why it cannot be shared.
pub fn fragment(app: &AppState, flags: Flags) -> Result<String, String> {
    fragment_of(&share_state(app), flags)
}

/// The fragment (without `#`) for a link's content and flags, or why it cannot be shared.
pub fn fragment_of(state: &ShareState, flags: Flags) -> Result<String, String> {
    let mut out = state.encode();
    out.push_str(flags.suffix());
    if out.len() > MAX_LINK_BYTES {
        return Err(format!(
            "the scenario is too large for a link ({} bytes; links up to {MAX_LINK_BYTES} bytes are accepted)",
            out.len()
        ));
    }
    Ok(out)
}

/// What a decoded link restores, or a message for people.
pub fn restore_of(state: ShareState) -> Result<Restore, String> {
    let (source, lesson_id) = match state.source {
        Source::Lesson(id) => match lesson(&id) {
            Some(l) => (l.source.to_string(), Some(l.id)),
            None => {
                return Err(format!(
                    "it names a lesson this version does not have (`{id}`)"
                ))
            }
        },
        Source::Text(text) => (text, None),
    };
    Ok(Restore {
        source,
        lesson: lesson_id,
        base_lesson: lesson_id.unwrap_or_else(first_lesson),
        schedule: (!state.token.is_empty()).then_some(state.token),
        position: state.position as usize,
        seed: state.seed,
        table_view: state.view == TABLE_VIEW,
    })
}

/// Decodes a fragment (with or without `#`): `None` when there is none, else the state to
/// restore or a notice.
pub fn restore_from_fragment(fragment: &str) -> Option<Result<Restore, String>> {
    let fragment = fragment.trim_start_matches('#');
    if fragment.is_empty() {
        return None;
    }
    Some(
        ShareState::decode(fragment)
            .map_err(|e| e.to_string())
            .and_then(restore_of)
            .map_err(|reason| {
                format!(
                    "This link could not be opened: {reason}. Showing the first lesson instead."
                )
            }),
    )
}

/// What a link's state opens as: a text with an `exercise` header (a teacher's exercise,
/// `rvlab exercise link FILE`) as that exercise, goal-checked, from its start; anything else
/// restored as it was shared.
pub fn restore_action(r: Restore) -> Action {
    let is_exercise = r.lesson.is_none()
        && rvlab_core::lang::parse(&r.source)
            .scenario
            .is_some_and(|s| !s.exercise.is_empty());
    if is_exercise {
        Action::Exercise(ExerciseAction::LoadText(r.source))
    } else {
        Action::Restore(r)
    }
}

/// The saved-work record for the state (JSON, versioned).
pub fn stored_record(app: &AppState) -> String {
    let mut fields = vec![
        ("v", STORAGE_VERSION.into()),
        ("source", app.source.as_str().into()),
        ("lesson", app.lesson.into()),
        ("base_lesson", app.base_lesson.into()),
        ("schedule", app.schedule.clone().into()),
        ("position", app.cursor.into()),
        ("seed", app.seed.into()),
        ("table_view", app.table_view.into()),
    ];
    // The open exercise of a course pack or a teacher's link, whose work a reload brings
    // back (the link opens the exercise from its start).
    if let Some(c) = app.exercises.current.as_ref() {
        if c.origin != Origin::Builtin {
            fields.push(("exercise", (&*c.id).into()));
        }
    }
    rvlab_core::json::object(fields).to_string()
}

/// Reads a saved-work record; every problem is a message (never a panic).
pub fn parse_stored(text: &str) -> Result<Restore, String> {
    if text.len() > MAX_STORED_BYTES {
        return Err(format!(
            "it is {} bytes, more than the {MAX_STORED_BYTES} bytes allowed",
            text.len()
        ));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("it is not valid JSON ({e})"))?;
    match value.get("v").and_then(Value::as_u64) {
        Some(STORAGE_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "it has format version {v}; this page reads version {STORAGE_VERSION}"
            ))
        }
        None => return Err("it has no format version".into()),
    }
    let source = value
        .get("source")
        .and_then(Value::as_str)
        .ok_or("it has no scenario text")?;
    if source.len() > MAX_TEXT_BYTES {
        return Err(format!(
            "its scenario is larger than {MAX_TEXT_BYTES} bytes"
        ));
    }
    let id_of = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .and_then(lesson)
            .map(|l| l.id)
    };
    let lesson_id = id_of("lesson").filter(|id| lesson(id).is_some_and(|l| l.source == source));
    let schedule = match value.get("schedule") {
        None | Some(Value::Null) => None,
        Some(Value::String(t))
            if !t.is_empty()
                && t.len() <= 4096
                && t.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()) =>
        {
            Some(t.clone())
        }
        Some(_) => return Err("its schedule is not a schedule token".into()),
    };
    let number = |key: &str| value.get(key).and_then(Value::as_u64).unwrap_or(0);
    Ok(Restore {
        source: source.to_string(),
        lesson: lesson_id,
        base_lesson: id_of("base_lesson").unwrap_or_else(first_lesson),
        schedule,
        position: usize::try_from(number("position")).unwrap_or(0),
        seed: number("seed"),
        table_view: value.get("table_view").and_then(Value::as_bool) == Some(true),
    })
}

/// The page's own course (a course pack's, `rvlab course build`): the JSON text of its
/// `rvlab-course` element when it has one, read, or why it cannot be.
pub fn read_course(json: Option<String>) -> Option<Result<Rc<Course>, String>> {
    json.map(|j| Course::from_json(&j).map(Rc::new))
}

/// [`initial_state_with`] on a page without a course of its own.
pub fn initial_state(fragment: &str, stored: Result<Option<String>, String>) -> AppState {
    initial_state_with(None, fragment, stored)
}

/// The page's first state: the link in `fragment` if there is one, else the saved work
/// (`stored`: what local storage returned, or why reading it failed), else the first lesson,
/// with the page's own `course` ([`read_course`]) in the Exercises view. Anything unreadable
/// leaves a notice on the first lesson (a course that cannot be read: the built-in one).
pub fn initial_state_with(
    course: Option<Result<Rc<Course>, String>>,
    fragment: &str,
    stored: Result<Option<String>, String>,
) -> AppState {
    let mut fresh = AppState::default();
    let mut broken = None;
    match course {
        Some(Ok(c)) => fresh.exercises.course = Some(c),
        Some(Err(e)) => {
            broken = Some(format!(
                "This page's course could not be read: {e}. The built-in course is shown instead."
            ))
        }
        None => {}
    }
    let saved = stored.clone().ok().flatten();
    let mut state = initial_of(fresh, fragment, stored);
    if broken.is_some() && state.notice.is_none() {
        state.notice = broken;
    }
    // A reload of a course's or a teacher's exercise brings back the work saved on it.
    let work = saved.filter(|text| {
        let id = serde_json::from_str::<Value>(text).ok().and_then(|v| {
            v.get("exercise")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let open = state.exercises.current.as_ref();
        open.is_some_and(|c| c.origin != Origin::Builtin && id.as_deref() == Some(&*c.id))
    });
    if let Some(r) = work.and_then(|t| parse_stored(&t).ok()) {
        if r.source != state.source {
            state = state
                .apply(Action::EditSource(r.source))
                .apply(Action::Reparse);
        }
    }
    state
}

/// What a fragment `exercise=ID` opens: the page's own course's exercise with that id, else
/// the built-in one; `None` when it names neither (or is no such fragment). On load and on
/// `hashchange`.
pub fn exercise_action(fragment: &str, course: Option<&Course>) -> Option<Action> {
    let id = exercise_field(fragment)?;
    if course.is_some_and(|c| c.find(id).is_some()) {
        return Some(Action::Exercise(ExerciseAction::LoadCourse(id.into())));
    }
    exercise_in(fragment).map(|id| Action::Exercise(ExerciseAction::Load(id)))
}

fn initial_of(fresh: AppState, fragment: &str, stored: Result<Option<String>, String>) -> AppState {
    if let Some(a) = exercise_action(fragment, fresh.exercises.course.as_deref()) {
        return fresh
            .apply(a)
            .apply(Action::Exercise(ExerciseAction::Open(true)));
    }
    let notice = |text: String| fresh.clone().apply(Action::Notice(Some(text)));
    if let Some(link) = restore_from_fragment(fragment) {
        return match link {
            Ok(r) => fresh.clone().apply(restore_action(r)),
            Err(text) => notice(text),
        };
    }
    let saved = |reason: String| {
        format!("Your saved work could not be restored: {reason}. Starting from the first lesson.")
    };
    match stored {
        // A course pack opens on its course.
        Ok(None) if fresh.exercises.course.is_some() => {
            fresh.apply(Action::Exercise(ExerciseAction::Open(true)))
        }
        Ok(None) => fresh,
        Ok(Some(text)) => match parse_stored(&text) {
            Ok(r) => fresh.clone().apply(Action::Restore(r)),
            Err(reason) => notice(saved(reason)),
        },
        Err(reason) => notice(saved(reason)),
    }
}

/// The page's kubectl build, `kubectl.html` (the same page with the kubectl model, which the
/// first build `index.html` leaves out for its download budget: docs/size.md), next to the page
/// at `page_url` (its address without the fragment; a query is kept), opened at `fragment`.
pub fn kubectl_page(page_url: &str, fragment: &str) -> String {
    let (path, query) = page_url.split_at(page_url.find('?').unwrap_or(page_url.len()));
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let mut out = format!("{dir}{KUBECTL_PAGE}{query}");
    if !fragment.is_empty() {
        out.push('#');
        out.push_str(fragment.trim_start_matches('#'));
    }
    out
}

/// The file name of the page's kubectl build.
pub const KUBECTL_PAGE: &str = "kubectl.html";

/// Whether a scenario text needs the kubectl model this build leaves out.
fn text_needs_kubectl(text: &str) -> bool {
    rvlab_core::lang::needs_kubectl_model(&rvlab_core::lang::parse(text).diagnostics)
}

/// Whether the page must open in its kubectl build instead: the link in `fragment` (or,
/// without one, the saved work `stored`) is a kubectl lesson or a text with kubectl
/// statements. Always `false` in the kubectl build. Checked before the page renders, so the
/// saved work is never overwritten by a page that cannot run it.
pub fn wants_kubectl(fragment: &str, stored: Option<&str>, course: Option<&Course>) -> bool {
    if rvlab_core::kubectl::IN_BUILD {
        return false;
    }
    let fragment = fragment.trim_start_matches('#');
    if let Some(id) = exercise_field(fragment) {
        if let Some(e) = course.and_then(|c| c.entries.iter().find(|e| e.id == id)) {
            return e.kubectl;
        }
        return rvlab_core::exercises::KUBECTL.iter().any(|(k, _)| *k == id);
    }
    if !fragment.is_empty() {
        return match ShareState::decode(fragment).map(|s| s.source) {
            Ok(Source::Lesson(id)) => rvlab_core::lessons::KUBECTL.iter().any(|(k, _)| *k == id),
            Ok(Source::Text(text)) => text_needs_kubectl(&text),
            Err(_) => false,
        };
    }
    stored
        .and_then(|t| parse_stored(t).ok())
        .is_some_and(|r| text_needs_kubectl(&r.source))
}

/// The link that opens the shown text in the kubectl build, when the text needs it (its
/// diagnostics say so) and the link can hold it; `page_url` is asked only then.
pub fn kubectl_link(app: &AppState, page_url: impl FnOnce() -> String) -> Option<String> {
    if !rvlab_core::lang::needs_kubectl_model(&app.diagnostics) {
        return None;
    }
    let f = fragment(app, Flags::default()).ok()?;
    Some(kubectl_page(&page_url(), &f))
}

/// The value of a fragment's `exercise=ID` field.
fn exercise_field(fragment: &str) -> Option<&str> {
    fragment
        .trim_start_matches('#')
        .split('&')
        .find_map(|f| f.strip_prefix("exercise="))
}

/// The built-in exercise a fragment `exercise=ID` opens (how the lessons-only build links to
/// a kubectl exercise in the kubectl build).
pub fn exercise_in(fragment: &str) -> Option<&'static str> {
    rvlab_core::exercises::builtin(exercise_field(fragment)?).map(|b| b.id)
}

/// The kubectl build's link to built-in lesson `id`.
pub fn kubectl_lesson(page_url: &str, id: &str) -> String {
    let state = ShareState {
        source: Source::Lesson(id.to_string()),
        token: String::new(),
        position: 0,
        seed: 0,
        view: String::new(),
    };
    kubectl_page(page_url, &state.encode())
}

/// The HTML to paste into another page: the iframe, and a small script that sets its height
/// from the page's `rvlab:height` messages.
pub fn embed_code(page_url: &str, fragment: &str, title: &str) -> String {
    let title = title
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    format!(
        "<iframe src=\"{page_url}#{fragment}\" title=\"{title}\" style=\"width:100%;border:0\" height=\"420\" loading=\"lazy\"></iframe>\n\
         <script>addEventListener(\"message\",function(e){{var d=e.data;if(!d||d.type!==\"rvlab:height\")return;\
         document.querySelectorAll(\"iframe\").forEach(function(f){{if(f.contentWindow===e.source)f.style.height=d.height+\"px\"}})}});</script>"
    )
}

/// The details an error panel offers to copy: the message and the link that reproduces it.
pub fn error_details(message: &str, location: &str) -> String {
    format!(
        "rvlab {} internal error\n{message}\npage: {location}\n",
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
#[allow(
    clippy::disallowed_macros,
    reason = "the hand-built records are checked byte for byte against `json!`"
)]
mod tests {
    use super::*;
    use crate::state::Action;

    #[test]
    fn an_unchanged_lesson_gets_a_short_link_and_edits_a_full_one() {
        let s = AppState::default()
            .apply(Action::Next(1))
            .apply(Action::Next(0));
        let link = fragment(&s, Flags::default()).unwrap();
        assert_eq!(link, "v1&lesson=stale-update&t=ba&p=2");
        let edited = s.source.replace("from-bob", "from-bobby");
        let e = s.apply(Action::EditSource(edited)).apply(Action::Reparse);
        let link = fragment(
            &e,
            Flags {
                embed: true,
                editor: false,
            },
        )
        .unwrap();
        assert!(link.starts_with("v1&z="), "{link}");
        assert!(link.ends_with("&embed=1"), "{link}");
    }

    #[test]
    fn a_link_restores_the_same_step_after_picks() {
        let mut s = AppState::default();
        for c in [1, 0, 0, 1] {
            s = s.apply(Action::Next(c));
        }
        let s = s.apply(Action::StepBack).apply(Action::SetTableView(true));
        let link = fragment(&s, Flags::default()).unwrap();
        let back = initial_state(&format!("#{link}"), Ok(None));
        assert!(back.notice.is_none(), "{:?}", back.notice);
        assert_eq!(back.cursor, s.cursor);
        assert_eq!(back.schedule, s.schedule);
        assert!(back.table_view);
        let (a, b) = (s.shown.as_ref().unwrap(), back.shown.as_ref().unwrap());
        assert_eq!(a.run.token(), b.run.token());
        assert_eq!(a.steps, b.steps, "the same run, step by step");
        assert_eq!(
            s.current_step().map(|v| &v.narration),
            back.current_step().map(|v| &v.narration)
        );
    }

    #[test]
    fn an_edited_text_with_a_seed_round_trips() {
        let s = AppState::default();
        let text = format!("{}\n# mine\n", s.source);
        let s = s
            .apply(Action::EditSource(text.clone()))
            .apply(Action::Reparse)
            .apply(Action::SetSeed(42))
            .apply(Action::Next(1))
            .apply(Action::Next(1));
        let back = initial_state(&fragment(&s, Flags::default()).unwrap(), Ok(None));
        assert_eq!(back.source, text);
        assert_eq!(back.lesson, None);
        assert_eq!((back.seed, back.cursor), (42, 2));
        assert_eq!(
            back.shown.as_ref().unwrap().run.token(),
            s.shown.as_ref().unwrap().run.token()
        );
    }

    #[test]
    fn broken_links_give_a_notice_and_the_first_lesson() {
        for bad in [
            "#v1&z=AAAA",
            "#nonsense",
            "#v9&lesson=x",
            "#v1&lesson=no-such-lesson",
        ] {
            let s = initial_state(bad, Ok(None));
            let notice = s.notice.clone().unwrap_or_default();
            assert!(
                notice.starts_with("This link could not be opened"),
                "{bad}: {notice}"
            );
            assert_eq!(s.lesson, Some("stale-update"), "{bad}");
            assert_eq!(s.len(), 6);
        }
        let long = format!("#v1&lesson=stale-update&t={}", "a".repeat(MAX_LINK_BYTES));
        let s = initial_state(&long, Ok(None));
        assert!(s.notice.unwrap().contains("bytes long"));
    }

    #[test]
    fn a_schedule_that_does_not_fit_is_dropped_with_a_notice() {
        let s = initial_state("#v1&lesson=stale-update&t=c9&p=3", Ok(None));
        assert!(s.notice.clone().unwrap().contains("does not fit"));
        assert_eq!(s.schedule, None);
        assert_eq!((s.len(), s.cursor), (6, 3));
    }

    #[test]
    fn a_link_wins_over_saved_work_and_saved_work_over_the_default() {
        let edited = AppState::default();
        let text = format!("{}\n# saved\n", edited.source);
        let edited = edited
            .apply(Action::EditSource(text.clone()))
            .apply(Action::Reparse)
            .apply(Action::Jump(4));
        let record = stored_record(&edited);
        // Byte for byte what `json!` wrote before the record was built by hand.
        let by_macro = serde_json::json!({
            "v": STORAGE_VERSION,
            "source": edited.source,
            "lesson": edited.lesson,
            "base_lesson": edited.base_lesson,
            "schedule": edited.schedule,
            "position": edited.cursor,
            "seed": edited.seed,
            "table_view": edited.table_view,
        });
        assert_eq!(record, by_macro.to_string());
        let picked = AppState::default()
            .apply(Action::Next(1))
            .apply(Action::SetTableView(true));
        let by_macro = serde_json::json!({
            "v": STORAGE_VERSION,
            "source": picked.source,
            "lesson": picked.lesson,
            "base_lesson": picked.base_lesson,
            "schedule": picked.schedule,
            "position": picked.cursor,
            "seed": picked.seed,
            "table_view": picked.table_view,
        });
        assert_eq!(stored_record(&picked), by_macro.to_string());
        let s = initial_state("", Ok(Some(record.clone())));
        assert_eq!((s.source.as_str(), s.cursor), (text.as_str(), 4));
        assert!(s.notice.is_none());
        let s = initial_state("#v1&lesson=counter", Ok(Some(record)));
        assert_eq!(s.lesson, Some("counter"));
        let s = initial_state("", Ok(None));
        assert_eq!(s.lesson, Some("stale-update"));
    }

    #[test]
    fn unreadable_saved_work_gives_a_notice() {
        let too_big = format!(
            "{{\"v\":1,\"source\":\"{}\"}}",
            "a".repeat(MAX_STORED_BYTES)
        );
        for (stored, why) in [
            (Ok(Some("{not json".to_string())), "not valid JSON"),
            (Ok(Some(r#"{"v":2,"source":"x"}"#.to_string())), "version 2"),
            (
                Ok(Some(r#"{"source":"x"}"#.to_string())),
                "no format version",
            ),
            (Ok(Some(r#"{"v":1}"#.to_string())), "no scenario text"),
            (
                Ok(Some(r#"{"v":1,"source":"x","schedule":"<b>"}"#.to_string())),
                "schedule",
            ),
            (Ok(Some(too_big)), "bytes"),
            (
                Err("SecurityError: access denied".to_string()),
                "access denied",
            ),
        ] {
            let s = initial_state("", stored);
            let notice = s.notice.clone().unwrap_or_default();
            assert!(
                notice.starts_with("Your saved work could not be restored"),
                "{notice}"
            );
            assert!(notice.contains(why), "{why}: {notice}");
            assert_eq!(s.lesson, Some("stale-update"));
        }
    }

    #[test]
    fn flags_come_from_the_fragment_or_the_query() {
        assert_eq!(Flags::parse("#v1&lesson=x", ""), Flags::default());
        let f = Flags::parse("#v1&lesson=x&embed=1&editor=1", "");
        assert!(f.embed && f.editor);
        assert!(Flags::parse("", "?embed").embed);
        assert!(!Flags::parse("#v1&lesson=embed", "").embed);
    }

    #[test]
    fn the_embed_code_has_the_iframe_and_the_listener() {
        let code = embed_code("https://x.test/", "v1&lesson=a&embed=1", "A \"b\" <c>");
        assert!(code.starts_with("<iframe src=\"https://x.test/#v1&lesson=a&embed=1\""));
        assert!(code.contains("title=\"A &quot;b&quot; &lt;c>\""));
        assert!(code.contains("rvlab:height"));
        assert!(error_details("boom", "http://p/#v1").contains("boom\npage: http://p/#v1"));
    }

    #[test]
    fn an_exercise_link_opens_the_exercise() {
        let s = initial_state("#exercise=counter", Ok(None));
        assert!(s.exercises.open);
        assert_eq!(
            s.exercises.current.as_ref().map(|c| &*c.id),
            Some("counter")
        );
        assert_eq!(s.notice, None);
        let s = initial_state("exercise=nope", Ok(None));
        assert!(!s.exercises.open);
        assert!(s.notice.is_some(), "an unknown exercise is a damaged link");
    }

    #[test]
    fn the_kubectl_build_is_next_to_the_page() {
        assert_eq!(
            kubectl_page("http://h/docs/rvlab/", "v1&lesson=x"),
            "http://h/docs/rvlab/kubectl.html#v1&lesson=x"
        );
        assert_eq!(
            kubectl_page("http://h/docs/rvlab/index.html?embed=1", "#v1&z=a"),
            "http://h/docs/rvlab/kubectl.html?embed=1#v1&z=a"
        );
        assert_eq!(kubectl_page("http://h/", ""), "http://h/kubectl.html");
        let l = kubectl_lesson("http://h/", "kubectl-stale-apply");
        assert_eq!(l, "http://h/kubectl.html#v1&lesson=kubectl-stale-apply");
    }

    #[test]
    fn a_kubectl_scenario_opens_in_the_kubectl_build() {
        let text = |t: &str| {
            ShareState {
                source: Source::Text(t.into()),
                token: String::new(),
                position: 0,
                seed: 0,
                view: String::new(),
            }
            .encode()
        };
        let kubectl = "client a:\n    kubectl get cm my-config\n";
        let plain = rvlab_core::lessons::LESSONS[0].source;
        let record = |source: &str| {
            let s = AppState::new(source.to_string());
            stored_record(&s)
        };
        let cases = [
            ("#v1&lesson=kubectl-stale-apply", None, true),
            ("v1&lesson=kubectl-edit-and-replace&p=3&embed=1", None, true),
            ("v1&lesson=stale-update", None, false),
            (&text(kubectl) as &str, None, true),
            (&text(plain), None, false),
            ("v1&z=!!broken", None, false),
            ("", Some(record(kubectl)), true),
            ("", Some(record(plain)), false),
            ("", Some("not json".to_string()), false),
            ("", None, false),
            // A link wins over the saved work.
            ("v1&lesson=stale-update", Some(record(kubectl)), false),
            ("#exercise=kubectl-stale-file", None, true),
            ("exercise=first-conflict", Some(record(kubectl)), false),
            ("exercise=nope", None, false),
        ];
        for (fragment, stored, want) in cases {
            let got = wants_kubectl(fragment, stored.as_deref(), None);
            // The kubectl build runs them all itself.
            assert_eq!(
                got,
                want && !rvlab_core::kubectl::IN_BUILD,
                "{fragment} {stored:?}"
            );
        }
        let s = AppState::new(kubectl.to_string());
        let link = kubectl_link(&s, || "http://h/index.html".into());
        if rvlab_core::kubectl::IN_BUILD {
            assert_eq!(link, None);
        } else {
            let link = link.expect("a link");
            assert!(link.starts_with("http://h/kubectl.html#v1&z="), "{link}");
            let back = restore_from_fragment(link.split('#').nth(1).unwrap())
                .unwrap()
                .unwrap();
            assert_eq!(back.source, kubectl);
        }
        assert_eq!(
            kubectl_link(&AppState::default(), || "http://h/".into()),
            None
        );
    }

    /// A teacher's own exercise (the built-in `retry-reread` under another id).
    fn teachers_exercise() -> String {
        rvlab_core::exercises::builtin("retry-reread")
            .unwrap()
            .source
            .replace("exercise \"retry-reread\"", "exercise \"my-retry\"")
    }

    fn text_link(text: &str) -> String {
        ShareState {
            source: Source::Text(text.into()),
            token: String::new(),
            position: 0,
            seed: 0,
            view: String::new(),
        }
        .encode()
    }

    #[test]
    fn a_teachers_exercise_opens_from_its_link_and_is_checked_like_the_course() {
        let s = initial_state(&text_link(&teachers_exercise()), Ok(None));
        assert_eq!(s.notice, None);
        assert!(s.exercises.open);
        let session = s.exercises.current.clone().expect("the exercise is open");
        assert_eq!(&*session.id, "my-retry");
        assert_eq!(session.origin, crate::state::exercises::Origin::Link);
        assert_eq!(session.exercise.hints.len(), 2);
        // The editor shows the scenario without the header; hints come one at a time.
        assert!(!s.source.contains("hint \""), "{}", s.source);
        let s = s.apply(Action::Exercise(ExerciseAction::Hint));
        assert_eq!(s.exercises.current.as_ref().unwrap().hints_shown, 1);
        // As it starts, Check fails with the course's reasons.
        let failed = s.clone().apply(Action::Exercise(ExerciseAction::Check));
        let v = failed
            .exercises
            .current
            .as_ref()
            .unwrap()
            .verdict
            .clone()
            .unwrap();
        assert!(!v.pass && !v.reasons.is_empty());
        // The course's reference solution (its editable client's text) passes.
        let solution = rvlab_core::exercises::builtin("retry-reread")
            .unwrap()
            .solution();
        let solved_text = {
            let parsed = rvlab_core::lang::parse(solution).scenario.unwrap();
            crate::state::exercises::without_exercise_lines(solution, &parsed)
        };
        let passed = s
            .apply(Action::EditSource(solved_text))
            .apply(Action::Reparse)
            .apply(Action::Exercise(ExerciseAction::Check));
        let v = passed
            .exercises
            .current
            .as_ref()
            .unwrap()
            .verdict
            .clone()
            .unwrap();
        assert!(v.pass, "{:?}", v.reasons);
        // Not counted in the built-in course's progress.
        assert!(passed.exercises.solved.is_empty());
        // Copy my work: the text form and a link, both naming the exercise.
        let handed = passed.apply(Action::Exercise(ExerciseAction::HandIn));
        let h = handed
            .exercises
            .current
            .as_ref()
            .unwrap()
            .hand_in
            .clone()
            .unwrap();
        assert!(
            h.0.starts_with("rvlab submission 1\nexercise: my-retry\nscenario:\n"),
            "{}",
            h.0
        );
        let fragment = h.1.clone().unwrap();
        assert!(fragment.ends_with("&ex=my-retry"), "{fragment}");
        use rvlab_core::exercises::submission::{Submission, Work};
        let back = Submission::read(&format!("#{fragment}")).unwrap().unwrap();
        assert_eq!(
            back.work,
            Work::Text {
                text: handed.source.clone(),
                token: String::new()
            }
        );
        assert_eq!(Submission::read(&h.0).unwrap().unwrap(), back);
        // Start over: the exercise's own text again, no hint, no verdict, no hand-in.
        let again = handed.apply(Action::Exercise(ExerciseAction::Restart));
        let c = again.exercises.current.as_ref().unwrap();
        assert_eq!(
            (c.hints_shown, c.verdict.is_none(), c.hand_in.is_none()),
            (0, true, true)
        );
        assert_eq!(again.source, c.exercise.text);
    }

    #[test]
    fn a_break_it_hand_in_is_the_schedule_and_a_broken_exercise_is_a_scenario_with_a_notice() {
        let text = rvlab_core::exercises::builtin("first-conflict")
            .unwrap()
            .source
            .replace("\"first-conflict\"", "\"my-break\"");
        let s = initial_state(&text_link(&text), Ok(None))
            .apply(Action::Next(1))
            .apply(Action::Exercise(ExerciseAction::HandIn));
        let h = s
            .exercises
            .current
            .as_ref()
            .unwrap()
            .hand_in
            .clone()
            .unwrap();
        let token = s.shown.as_ref().unwrap().run.token();
        assert_eq!(
            h.0,
            format!("rvlab submission 1\nexercise: my-break\nschedule: {token}\n")
        );
        // An exercise header with a mistake: the text is shown, the notice says why.
        let broken = text.replace("goal break \"bob succeeds\"\n", "");
        let s = initial_state(&text_link(&broken), Ok(None));
        assert!(s.exercises.current.is_none());
        let notice = s.notice.clone().expect("a notice");
        assert_eq!(
            notice,
            "This link's exercise has errors (line 1: exercise `my-break` has no goal): it is shown as a plain scenario."
        );
        assert_eq!(s.source, broken);
    }

    /// A course pack's JSON: three exercises (the built-in `first-conflict`, `counter` and
    /// `retry-reread` under other ids), one broken file, and in a build without the model
    /// the kubectl exercise `kubectl-stale-file`.
    fn course_json(builtin: bool) -> String {
        let renamed = |id: &str, new: &str| {
            rvlab_core::exercises::builtin(id).unwrap().source.replace(
                &format!("exercise \"{id}\""),
                &format!("exercise \"{new}\""),
            )
        };
        let mut files = vec![
            (
                "01-break.rvl".to_string(),
                renamed("first-conflict", "w3-break"),
            ),
            (
                "02-broken.rvl".to_string(),
                "exercise \"x\"\nclient a:\n    get\n".to_string(),
            ),
            (
                "03-retry.rvl".to_string(),
                renamed("retry-reread", "w3-retry"),
            ),
            (
                "04-counter.rvl".to_string(),
                renamed("counter", "w3-counter"),
            ),
        ];
        // The kubectl exercise's JSON as a build with the model writes it.
        let k = rvlab_core::exercises::KUBECTL[1];
        let mut json: Value = serde_json::from_str(&rvlab_core::exercises::course::to_json(
            "Week 3", "week-3", builtin, &files,
        ))
        .unwrap();
        files.clear();
        json["exercises"].as_array_mut().unwrap().push(serde_json::json!({
            "file": "05-kubectl.rvl", "id": k.0, "title": k.1, "kubectl": true,
            "text": format!("exercise \"{}\"\ntitle \"{}\"\ngoal fix\neditable a\nclient a:\n    kubectl get configmap x\nexpect a succeeds\n", k.0, k.1),
        }));
        json.to_string()
    }

    fn with_saved(fragment: &str, record: &str) -> AppState {
        initial_state_with(
            read_course(Some(course_json(false))),
            fragment,
            Ok(Some(record.to_string())),
        )
    }

    fn with_course(builtin: bool, fragment: &str) -> AppState {
        initial_state_with(read_course(Some(course_json(builtin))), fragment, Ok(None))
    }

    #[test]
    fn a_course_pack_lists_its_course_and_opens_its_first_exercise() {
        use crate::state::exercises::Origin;
        let s = with_course(true, "");
        assert_eq!(s.notice, None);
        // A first visit opens the course.
        assert!(s.exercises.open);
        assert_eq!(
            s.exercises.current.as_ref().map(|c| &*c.id),
            Some("w3-break")
        );
        // Saved work is restored as ever, the view closed.
        let record = stored_record(&AppState::default());
        let s = initial_state_with(read_course(Some(course_json(true))), "", Ok(Some(record)));
        assert!(!s.exercises.open && s.exercises.current.is_none());
        let c = s.exercises.course.clone().expect("the page's course");
        assert_eq!((c.title.as_str(), c.id.as_str()), ("Week 3", "week-3"));
        assert_eq!(c.entries.len(), 5);
        assert!(c.entries[1].exercise.is_err(), "the broken one alone");
        assert_eq!(c.entries[4].kubectl, !rvlab_core::kubectl::IN_BUILD);
        // Read by the kubectl build, listed under its own title and id by the other.
        assert_eq!(c.entries[4].exercise.is_ok(), rvlab_core::kubectl::IN_BUILD);
        let k = rvlab_core::exercises::KUBECTL[1];
        assert_eq!((c.entries[4].id.as_str(), c.entries[4].title.as_str()), k);
        let total = rvlab_core::exercises::EXERCISES.len();
        assert_eq!(s.exercises.progress(), (0, 5 + total));
        // The Exercises view opens the course's first exercise, not the built-in one.
        let s = s.apply(Action::Exercise(ExerciseAction::Open(true)));
        let cur = s.exercises.current.as_ref().expect("open");
        assert_eq!((&*cur.id, cur.origin), ("w3-break", Origin::Course));
        // Solved: counted in the course's progress, not the built-in one's.
        let s = s.apply(Action::Exercise(ExerciseAction::Check));
        assert!(
            !s.exercises
                .current
                .as_ref()
                .unwrap()
                .verdict
                .as_ref()
                .unwrap()
                .pass
        );
        let s = s.apply(Action::Exercise(ExerciseAction::LoadCourse(
            "w3-counter".into(),
        )));
        let solution = rvlab_core::exercises::builtin("counter")
            .unwrap()
            .solution();
        let parsed = rvlab_core::lang::parse(solution).scenario.unwrap();
        let s = s
            .apply(Action::EditSource(
                crate::state::exercises::without_exercise_lines(solution, &parsed),
            ))
            .apply(Action::Reparse)
            .apply(Action::Exercise(ExerciseAction::Check));
        let v = s
            .exercises
            .current
            .as_ref()
            .unwrap()
            .verdict
            .clone()
            .unwrap();
        assert!(v.pass, "{:?}", v.reasons);
        assert_eq!(s.exercises.course_solved, ["w3-counter"]);
        assert!(s.exercises.solved.is_empty());
        assert_eq!(s.exercises.progress(), (1, 5 + total));
        // Next time the view opens on the first unsolved one.
        let again = AppState {
            exercises: crate::state::exercises::ExercisesState {
                current: None,
                ..s.exercises.clone()
            },
            ..s.clone()
        }
        .apply(Action::Exercise(ExerciseAction::Open(true)));
        assert_eq!(
            again.exercises.current.as_ref().map(|c| &*c.id),
            Some("w3-break")
        );
        // The stored progress comes back per course, unknown ids dropped.
        let s = s.apply(Action::Exercise(ExerciseAction::Restore(
            Some(r#"{"version":1,"solved":["counter"]}"#.into()),
            Some(r#"{"version":1,"solved":["w3-retry","nope","counter"]}"#.into()),
        )));
        assert_eq!(s.exercises.course_solved, ["w3-retry"]);
        assert_eq!(s.exercises.solved, ["counter"]);
    }

    #[test]
    fn a_course_link_opens_its_exercise_and_a_broken_course_is_a_notice() {
        use crate::state::exercises::Origin;
        let s = with_course(false, "#exercise=w3-retry");
        let cur = s.exercises.current.as_ref().expect("open");
        assert_eq!((&*cur.id, cur.origin), ("w3-retry", Origin::Course));
        assert!(s.exercises.open);
        // `builtin hide`: only the course counts.
        assert!(!s.exercises.shows_builtin());
        assert_eq!(s.exercises.progress(), (0, 5));
        // A built-in id still opens the built-in exercise.
        let s = with_course(true, "#exercise=counter");
        let cur = s.exercises.current.as_ref().expect("open");
        assert_eq!((&*cur.id, cur.origin), ("counter", Origin::Builtin));
        // A reload brings back the work saved on the exercise (and only on that one).
        let open = with_course(false, "#exercise=w3-retry");
        let text = format!("{}\n# mine\n", open.source);
        let edited = open.apply(Action::EditSource(text));
        let record = stored_record(&edited);
        let back = with_saved("#exercise=w3-retry", &record);
        assert_eq!(back.source, edited.source);
        assert_eq!(
            back.exercises.current.as_ref().map(|c| &*c.id),
            Some("w3-retry")
        );
        let other = with_saved("#exercise=w3-counter", &record);
        assert_ne!(other.source, edited.source);
        assert!(!stored_record(&AppState::default()).contains("exercise"));
        assert!(
            !stored_record(&s).contains("exercise"),
            "a built-in one's is not kept"
        );
        // What a `hashchange` to `exercise=ID` dispatches: the course's first, the built-in
        // one's else, nothing for an id of neither.
        let course = read_course(Some(course_json(true))).unwrap().unwrap();
        let load = |f: &str| exercise_action(f, Some(&course));
        assert_eq!(
            load("#exercise=w3-retry"),
            Some(Action::Exercise(ExerciseAction::LoadCourse(
                "w3-retry".into()
            )))
        );
        assert_eq!(
            load("exercise=counter"),
            Some(Action::Exercise(ExerciseAction::Load("counter")))
        );
        assert_eq!(load("#exercise=nope"), None);
        assert_eq!(load("#v1&lesson=stale-update"), None);
        assert_eq!(exercise_action("#exercise=w3-retry", None), None);
        // The broken file is not an exercise to open.
        let s = with_course(true, "#exercise=02-broken.rvl");
        assert!(s.exercises.current.is_none() && s.notice.is_some());
        // A course that cannot be read: a notice, and the built-in course.
        for bad in ["{", r#"{"rvlab-course":9}"#] {
            let s = initial_state_with(read_course(Some(bad.into())), "", Ok(None));
            let notice = s.notice.clone().expect("a notice");
            assert!(
                notice.starts_with("This page's course could not be read: "),
                "{notice}"
            );
            assert!(s.exercises.course.is_none() && s.exercises.shows_builtin());
        }
        // The kubectl one opens in the kubectl build (a build without the model).
        let course = read_course(Some(course_json(true))).unwrap().unwrap();
        let k = rvlab_core::exercises::KUBECTL[1].0;
        assert_eq!(
            wants_kubectl(&format!("#exercise={k}"), None, Some(&course)),
            !rvlab_core::kubectl::IN_BUILD
        );
        assert!(!wants_kubectl("#exercise=w3-retry", None, Some(&course)));
    }
}
