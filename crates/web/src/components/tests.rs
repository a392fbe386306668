//! The panels rendered to HTML natively (yew's server-side rendering, a dev-dependency only),
//! from a state, so that a change to what a panel shows is caught without a browser. Effects do
//! not run on the server: what is checked is each region's markup.

use super::controls::{controls, Playback};
use super::exercises::exercises;
use super::explorer::explorer;
use super::inspector::inspector;
use super::lesson_picker::lesson_picker;
use super::narration::{live_narration, narration};
use super::table::timeline_table;
use super::tabs::view_tabs;
use super::timeline::{history_line, timeline, use_current_row, ShownRef};
use super::Dispatch;
use crate::state::exercises::ExerciseAction;
use crate::state::explore::ExploreAction;
use crate::state::{Action, AppState};
use std::future::Future;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use yew::prelude::*;
use yew::LocalServerRenderer;

/// The region a [`Harness`] renders.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Panel {
    Controls,
    Narration,
    Inspector,
    Timeline,
    Table,
    Tabs,
    Exercises,
    Explorer,
    Picker,
    #[cfg(feature = "kubectl")]
    Terminals,
    #[cfg(feature = "live")]
    Live,
    #[cfg(feature = "live")]
    LiveTabs,
}

#[derive(Properties, PartialEq)]
struct Props {
    state: Rc<AppState>,
    panel: Panel,
}

/// One region of the page over `state`, with a real reducer's dispatcher as the page has.
#[function_component]
fn Harness(props: &Props) -> Html {
    let app = use_reducer(|| (*props.state).clone());
    let d: Dispatch = app.dispatcher();
    let current = use_current_row(app.cursor, app.shown.as_ref(), app.table_view);
    let world = app
        .shown
        .as_ref()
        .map(|s| s.world_view(app.cursor))
        .expect("a run");
    match props.panel {
        Panel::Controls => {
            let play = Playback {
                cursor: app.cursor,
                len: app.len(),
                playing: app.playing,
                speed_ms: app.speed_ms,
                seed: app.seed,
            };
            controls(&d, play, &world)
        }
        Panel::Narration => html! {
            <>{narration(app.current_step(), app.stopped_here())}{live_narration(app.current_step())}</>
        },
        Panel::Inspector => inspector(&world, app.current_step()),
        Panel::Timeline => timeline(
            &d,
            app.shown.clone().map(ShownRef),
            history_line(&world),
            &current,
        ),
        Panel::Table => timeline_table(app.shown.as_deref(), app.cursor, &d),
        Panel::Tabs => view_tabs(&d, app.exercises.open, app.exercises.progress()),
        Panel::Exercises => exercises(&d, &app.exercises, &app.source, &app.catalogue),
        Panel::Explorer => explorer(&d, &app.explore, app.explore_stale(), app.has_errors()),
        Panel::Picker => lesson_picker(
            &d,
            app.lesson,
            app.shown.as_ref().map(|s| &s.run.scenario),
            &app.catalogue,
        ),
        #[cfg(feature = "kubectl")]
        Panel::Terminals => super::terminal::terminals(
            &app.shown.as_ref().expect("a run").run,
            app.cursor,
            app.current_step().map(|s| s.client_index),
        ),
        #[cfg(feature = "live")]
        Panel::Live => super::live::live_view(&d, &app.live),
        #[cfg(feature = "live")]
        Panel::LiveTabs => super::live::tabs(&d, &app),
    }
}

/// Polls a future that needs nothing outside this thread to finish (the renderer's).
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..10_000 {
        if let Poll::Ready(out) = f.as_mut().poll(&mut cx) {
            return out;
        }
    }
    panic!("the server renderer did not finish")
}

fn render(state: &AppState, panel: Panel) -> String {
    let props = Props {
        state: Rc::new(state.clone()),
        panel,
    };
    block_on(LocalServerRenderer::<Harness>::with_props(props).render())
}

fn count(html: &str, needle: &str) -> usize {
    html.matches(needle).count()
}

#[test]
fn controls_show_the_position_and_who_can_go_next() {
    let s = AppState::default().apply(Action::Jump(2));
    let html = render(&s, Panel::Controls);
    assert!(html.contains(r#"data-testid="controls""#), "{html}");
    for id in [
        "reset",
        "step-back",
        "step-forward",
        "run-to-end",
        "autoplay",
        "speed",
        "scrub",
        "seed",
    ] {
        assert!(
            html.contains(&format!(r#"data-testid="{id}""#)),
            "{id}: {html}"
        );
    }
    assert!(html.contains("step 2 of 6"), "{html}");
    assert!(html.contains(r#"data-testid="next-alice""#), "{html}");
    assert!(html.contains(r#"data-testid="next-bob""#), "{html}");
    assert!(html.contains("0.80 s/step"), "{html}");
    // At the end: nobody can go next, Step and Play are disabled.
    let end = render(&s.apply(Action::RunToEnd), Panel::Controls);
    assert!(end.contains("every client has finished"), "{end}");
    assert!(!end.contains("data-testid=\"next-"), "{end}");
    assert!(end.contains("step 6 of 6"), "{end}");
}

#[test]
fn narration_and_the_live_region_tell_the_step_shown() {
    let start = render(&AppState::default(), Panel::Narration);
    assert!(start.contains(r#"data-testid="narration""#), "{start}");
    assert!(start.contains("Nothing has happened yet."), "{start}");
    assert!(
        start.contains("Step 0: nothing has happened yet."),
        "{start}"
    );
    let s = AppState::default().apply(Action::Jump(1));
    let step = s.current_step().expect("a step").clone();
    let html = render(&s, Panel::Narration);
    assert!(html.contains("Step 1 · alice: "), "{html}");
    assert!(html.contains(r#"data-testid="live-narration""#), "{html}");
    assert!(
        html.contains(&format!("Step 1, alice: {}", escape(&step.narration))),
        "{html}"
    );
}

#[test]
fn the_inspector_shows_the_server_the_clients_and_the_exchange() {
    let html = render(&AppState::default(), Panel::Inspector);
    for id in [
        "inspector",
        "inspector-object",
        "inspector-clients",
        "inspector-http",
        "client-alice",
        "client-bob",
    ] {
        assert!(
            html.contains(&format!(r#"data-testid="{id}""#)),
            "{id}: {html}"
        );
    }
    assert!(html.contains("No step taken yet."), "{html}");
    assert!(html.contains("rv 100"), "{html}");
    let conflict = AppState::default().apply(Action::RunToEnd);
    let html = render(&conflict, Panel::Inspector);
    assert!(html.contains("HTTP/1.1 409 Conflict"), "{html}");
    assert!(html.contains(r#"data-testid="response-body""#), "{html}");
    assert!(html.contains(r#"data-testid="kubectl""#), "{html}");
    assert!(html.contains(r#"data-testid="stale-badge""#), "{html}");
}

#[test]
fn the_timeline_has_a_row_per_step_and_the_server_history() {
    let s = AppState::default();
    let html = render(&s, Panel::Timeline);
    assert!(html.contains(r#"data-testid="timeline""#), "{html}");
    assert_eq!(
        count(&html, r#"data-testid="timeline-row""#),
        s.len(),
        "{html}"
    );
    assert!(
        html.contains(r#"data-step="0""#) && html.contains(r#"data-step="6""#),
        "{html}"
    );
    assert!(html.contains(r#"data-testid="server-history""#), "{html}");
    assert!(html.contains("configmap/my-config: 100"), "{html}");
    // The first step reads, the sixth is bob's conflicting update with the version it sent.
    assert!(html.contains("GET my-config"), "{html}");
    assert!(html.contains("PUT my-config rv 100"), "{html}");
    assert!(html.contains("⚠ conflict"), "{html}");
    assert!(html.contains("row mark-conflict"), "{html}");
    // Rows are marked current by an effect in the browser, never in the markup.
    assert!(!html.contains("aria-current"), "{html}");
}

#[test]
fn the_table_view_marks_the_step_shown() {
    let s = AppState::default().apply(Action::Jump(3));
    let html = render(&s, Panel::Table);
    assert!(html.contains(r#"data-testid="timeline-table""#), "{html}");
    assert!(
        html.contains("Every step of the run, 6 in all; step 3 is shown."),
        "{html}"
    );
    assert_eq!(count(&html, r#"aria-current="step""#), 1, "{html}");
    assert_eq!(count(&html, "Show step "), 6, "{html}");
}

#[test]
fn the_first_build_lists_the_kubectl_lessons_and_exercises_as_links_to_the_kubectl_build() {
    let s = AppState::default();
    let picker = render(&s, Panel::Picker);
    let exercises = render(
        &s.apply(Action::Exercise(ExerciseAction::Open(true))),
        Panel::Exercises,
    );
    let lessons = rvlab_core::lessons::LESSONS.len();
    for (i, (id, title)) in rvlab_core::lessons::KUBECTL.iter().enumerate() {
        let option = format!(
            r#"<option value="{id}">{}. {}</option>"#,
            lessons + i + 1,
            escape(title)
        );
        // The kubectl build lists them with the rest, as lessons it runs.
        assert_eq!(
            picker.contains(&option),
            !rvlab_core::kubectl::IN_BUILD,
            "{picker}"
        );
        assert_eq!(count(&picker, &format!(r#"value="{id}""#)), 1, "{picker}");
    }
    let n = rvlab_core::exercises::EXERCISES.len();
    for (i, (id, title)) in rvlab_core::exercises::KUBECTL.iter().enumerate() {
        let link = format!(
            r#"<a href="kubectl.html#exercise={id}" data-testid="exercise-kubectl" data-id="{id}" class="link exercise-item">{}. {} (with kubectl) ↗</a>"#,
            n + i + 1,
            escape(title)
        );
        assert_eq!(
            exercises.contains(&link),
            !rvlab_core::kubectl::IN_BUILD,
            "{exercises}"
        );
    }
}

#[test]
fn the_tabs_and_the_exercise_list_show_the_course() {
    let s = AppState::default()
        .apply(Action::Exercise(ExerciseAction::Restore(
            Some(r#"{"version":1,"solved":["first-conflict"]}"#.into()),
            None,
        )))
        .apply(Action::Exercise(ExerciseAction::Open(true)));
    let tabs = render(&s, Panel::Tabs);
    assert!(tabs.contains(r#"data-testid="exercises-tab""#), "{tabs}");
    let total = rvlab_core::exercises::EXERCISES.len();
    assert!(tabs.contains(&format!("Exercises (1/{total} ✓)")), "{tabs}");
    let html = render(&s, Panel::Exercises);
    assert_eq!(
        count(&html, r#"data-testid="exercise-item""#),
        total,
        "{html}"
    );
    assert_eq!(count(&html, r#"data-solved="true""#), 1, "{html}");
    assert!(
        html.contains(&format!("Course: 1 of {total} solved")),
        "{html}"
    );
    assert!(
        html.contains(escape(s.catalogue.exercise_label(0)).as_str()),
        "{html}"
    );
    // The first unsolved exercise is open, with its buttons.
    let open = s
        .exercises
        .current
        .as_ref()
        .expect("an exercise")
        .id
        .clone();
    assert!(
        html.contains(&format!(r#"data-testid="exercise" data-id="{open}""#)),
        "{html}"
    );
    for id in [
        "exercise-check",
        "exercise-hint",
        "exercise-restart",
        "exercise-client",
    ] {
        assert!(
            html.contains(&format!(r#"data-testid="{id}""#)),
            "{id}: {html}"
        );
    }
}

#[test]
fn the_explorer_panel_shows_a_finished_search() {
    let idle = render(&AppState::default(), Panel::Explorer);
    assert!(idle.contains(r#"data-testid="explore-button""#), "{idle}");
    assert!(idle.contains("budget: 200,000 states"), "{idle}");
    assert!(!idle.contains("explore-results"), "{idle}");
    let s = AppState::default().apply(Action::Explore(ExploreAction::Start));
    let running = render(&s, Panel::Explorer);
    assert!(
        running.contains(r#"data-testid="explore-cancel""#),
        "{running}"
    );
    assert!(running.contains("so far…"), "{running}");
    let mut w = crate::worker::WorkerExplorer::create(&s.source, "0", 200_000).expect("explorable");
    while !w.run(10_000).contains("\"done\":true") {}
    let done = s.apply(Action::Explore(ExploreAction::Done {
        job: 1,
        report: w.report().expect("a report"),
        ms: 12.0,
    }));
    let html = render(&done, Panel::Explorer);
    assert!(html.contains(r#"data-testid="explore-results""#), "{html}");
    assert!(html.contains(r#"data-complete="true""#), "{html}");
    assert!(
        html.contains(r#"data-testid="explore-violation""#),
        "{html}"
    );
    assert!(html.contains(r#"data-testid="explore-outcome""#), "{html}");
    assert!(html.contains("Complete: explored "), "{html}");
    assert!(!html.contains("explore-stale"), "{html}");
    // The text changed since: the result is marked stale.
    let edited = format!("{}\n# edit\n", done.source);
    let stale = render(&done.apply(Action::EditSource(edited)), Panel::Explorer);
    assert!(stale.contains(r#"data-testid="explore-stale""#), "{stale}");
}

/// Text as the renderer escapes it (in text, not in attributes).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The kubectl lesson whose story is the seed's, at `steps` steps.
#[cfg(feature = "kubectl")]
fn stale_apply(steps: usize) -> AppState {
    AppState::default()
        .apply(Action::LoadLesson("kubectl-stale-apply"))
        .apply(Action::Jump(steps))
}

/// The text of `client`'s terminal in `html` as the reader sees it: the `<pre>`'s text without
/// its notes (`span.note`) and tags, unescaped.
#[cfg(feature = "kubectl")]
fn terminal_pre(html: &str, client: &str) -> String {
    let figure = html
        .find(&format!(r#"data-testid="terminal-{client}""#))
        .unwrap_or_else(|| panic!("no terminal for {client}: {html}"));
    let rest = &html[figure..];
    let start = rest
        .find(r#"<pre data-testid="terminal-text">"#)
        .expect("a pre");
    let rest = &rest[start..];
    let pre = &rest[..rest.find("</pre>").expect("the pre's end")];
    let mut text = String::new();
    let mut rest = pre;
    while let Some(i) = rest.find('<') {
        text.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = if rest.starts_with("<!--") {
            rest.find("-->").expect("a comment's end") + 3
        } else if rest.starts_with(r#"<span class="note">"#) {
            rest.find("</span>").expect("a note's end") + 7
        } else {
            rest.find('>').expect("a tag's end") + 1
        };
        rest = &rest[end..];
    }
    text.push_str(rest);
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(feature = "kubectl")]
#[test]
fn each_kubectl_client_has_a_terminal_from_the_start() {
    let s = stale_apply(0);
    let html = render(&s, Panel::Terminals);
    assert!(html.contains(r#"data-testid="terminals""#), "{html}");
    assert!(html.contains(r#"aria-label="Terminals""#), "{html}");
    for client in ["ops", "alice", "bob"] {
        assert!(html.contains(&format!("{client}'s terminal")), "{html}");
        assert_eq!(terminal_pre(&html, client), "", "{html}");
    }
    assert_eq!(count(&html, "no commands yet"), 3, "{html}");
    assert!(!html.contains("$ kubectl"), "{html}");
    // No step shown, no client is current.
    assert!(!html.contains("aria-current"), "{html}");
}

#[cfg(feature = "kubectl")]
#[test]
fn the_terminals_show_what_kubectl_printed_byte_for_byte() {
    let s = stale_apply(0);
    let len = s.len();
    assert!(len > 2, "{len}");
    for cursor in [1, 2, len / 2, len - 1, len] {
        let s = s.clone().apply(Action::Jump(cursor));
        let html = render(&s, Panel::Terminals);
        let shown = s.shown.as_ref().expect("a run");
        for t in rvlab_core::view::terminals(&shown.run, cursor) {
            assert_eq!(
                terminal_pre(&html, &t.client),
                rvlab_core::view::terminal_text(&t.entries),
                "{} at {cursor}: {html}",
                t.client
            );
            let running = t.entries.iter().filter(|e| e.exit.is_none()).count();
            let figure = &html[html.find(&format!("terminal-{}", t.client)).unwrap()..];
            let figure = &figure[..figure.find("</figure>").unwrap()];
            assert_eq!(count(figure, "running…"), running, "{figure}");
        }
        // The client of the step shown is the current terminal, and only it.
        let current = s.current_step().expect("a step").client.clone();
        assert_eq!(count(&html, r#"aria-current="true""#), 1, "{html}");
        let at = html
            .find(&format!(r#"data-testid="terminal-{current}""#))
            .unwrap();
        let tag = &html[html[..at].rfind("<figure").unwrap()..];
        let tag = &tag[..tag.find('>').unwrap()];
        assert!(tag.contains(r#"aria-current="true""#), "{tag}");
        assert!(tag.contains("terminal current"), "{tag}");
    }
    // At the end: Bob's apply was refused with the seed's conflict, on standard error, and kubectl
    // exited 1.
    let end = s.apply(Action::RunToEnd);
    let html = render(&end, Panel::Terminals);
    let bob = terminal_pre(&html, "bob");
    assert!(
        bob.contains(r#"error: Operation cannot be fulfilled on configmaps "my-config": the object has been modified; please apply your changes to the latest version and try again"#),
        "{bob}"
    );
    assert!(
        bob.contains("$ kubectl apply --server-side -f my-config.yaml\n"),
        "{bob}"
    );
    assert!(
        html.contains(r#"<span class="stderr">error: Operation cannot be fulfilled"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<span class="note">exit 1</span>"#),
        "{html}"
    );
    assert_eq!(count(&html, "exit "), 1, "{html}");
    assert!(!html.contains("running…"), "{html}");
    assert!(!html.contains("no commands yet"), "{html}");
}

#[cfg(feature = "kubectl")]
#[test]
fn client_side_apply_prints_the_conflict_from_the_server() {
    // Lesson 16 with client-side apply for Bob: kubectl's `Error from server (Conflict)` form.
    let lesson = rvlab_core::lessons::lesson("kubectl-stale-apply").expect("the lesson");
    let source = lesson.source.replace(
        "    kubectl apply --server-side -f my-config.yaml\n\nschedule",
        "    kubectl apply -f my-config.yaml\n\nschedule",
    );
    assert_ne!(source, lesson.source);
    let s = AppState::default()
        .apply(Action::EditSource(source))
        .apply(Action::Reparse)
        .apply(Action::RunToEnd);
    assert!(s.run_error.is_none(), "{:?}", s.run_error);
    let html = render(&s, Panel::Terminals);
    let shown = s.shown.as_ref().expect("a run");
    let bob = &rvlab_core::view::terminals(&shown.run, s.cursor)[2];
    let text = rvlab_core::view::terminal_text(&bob.entries);
    assert!(text.contains("Error from server (Conflict)"), "{text}");
    assert_eq!(terminal_pre(&html, "bob"), text, "{html}");
}

#[cfg(feature = "kubectl")]
#[test]
fn the_inspector_shows_a_clients_files() {
    let end = stale_apply(0).apply(Action::RunToEnd);
    let html = render(&end, Panel::Inspector);
    assert_eq!(
        count(&html, r#"data-testid="file-my-config.yaml""#),
        3,
        "{html}"
    );
    assert!(html.contains("from-bob"), "{html}");
}

#[test]
fn a_scenario_without_kubectl_has_no_terminals() {
    let s = AppState::default().apply(Action::RunToEnd);
    #[cfg(feature = "kubectl")]
    {
        let html = render(&s, Panel::Terminals);
        assert!(!html.contains("terminal"), "{html}");
    }
    let html = render(&s, Panel::Inspector);
    assert!(!html.contains(r#"data-testid="file-"#), "{html}");
}

#[test]
fn a_course_pack_shows_its_course_beside_or_instead_of_the_built_in_one() {
    let first = rvlab_core::exercises::builtin("first-conflict")
        .unwrap()
        .source;
    let files = [
        (
            "01-a.rvl".to_string(),
            first.replace("\"first-conflict\"", "\"w3-a\""),
        ),
        (
            "02-broken.rvl".to_string(),
            "client a:\n    get\n".to_string(),
        ),
    ];
    for builtin in [true, false] {
        let json = rvlab_core::exercises::course::to_json("Week 3", "week-3", builtin, &files);
        let s = crate::link::initial_state_with(crate::link::read_course(Some(json)), "", Ok(None))
            .apply(Action::Exercise(ExerciseAction::Open(true)));
        let html = render(&s, Panel::Exercises);
        assert!(html.contains(r#"data-testid="own-course-list""#), "{html}");
        assert!(html.contains("Week 3: 0 of 2 solved"), "{html}");
        assert!(
            html.contains(r#"data-id="w3-a""#) && html.contains(r#"aria-current="true""#),
            "{html}"
        );
        assert!(html.contains(r#"data-testid="exercise-broken""#), "{html}");
        assert!(
            html.contains("2. 02-broken.rvl: this exercise has errors and cannot be opened (line "),
            "{html}"
        );
        assert_eq!(
            html.contains(r#"data-testid="exercise-list""#),
            builtin,
            "{html}"
        );
        assert_eq!(
            html.contains("rvlab&#x27;s course: 0 of") || html.contains("rvlab's course: 0 of"),
            builtin,
            "{html}"
        );
        let tabs = render(&s, Panel::Tabs);
        let total = 2 + if builtin {
            rvlab_core::exercises::EXERCISES.len()
        } else {
            0
        };
        assert!(tabs.contains(&format!("Exercises (0/{total} ✓)")), "{tabs}");
    }
}

/// The Live view over the events `rvlab serve` sends (made by the core's `live::Live`).
#[cfg(feature = "live")]
mod live {
    use super::*;
    use crate::state::live::fixture::{stale_story, Server};
    use crate::state::live::{LiveAction, LiveState, MAX_ROWS};

    fn live_app(events: &[String]) -> AppState {
        let mut s = AppState {
            live: LiveState::new(Some("/rvlab/v1/live".into())),
            ..AppState::default()
        };
        for e in events {
            s = s.apply(Action::Live(LiveAction::Event(e.clone())));
        }
        s
    }

    fn rows(html: &str) -> Vec<&str> {
        html.split(r#"<tr "#)
            .filter(|r| r.contains(r#"data-testid="live-row""#))
            .collect()
    }

    #[test]
    fn a_row_per_request_in_its_clients_lane_with_marks_and_stale_badges() {
        let s = live_app(&stale_story("s1").events);
        let html = render(&s, Panel::Live);
        assert!(html.contains(r#"data-testid="live-view""#), "{html}");
        assert!(html.contains(r#"data-testid="live-status""#), "{html}");
        assert!(html.contains("connected · 4 steps"), "{html}");
        assert!(!html.contains("dropped"), "{html}");
        assert_eq!(count(&html, r#"data-testid="live-lane""#), 2, "{html}");
        assert!(
            html.contains("kubectl<span class=\"muted\"> (a)</span>"),
            "{html}"
        );
        assert!(
            html.contains("python<span class=\"muted\"> (b)</span>"),
            "{html}"
        );
        let rows = rows(&html);
        assert_eq!(rows.len(), 4, "{html}");
        for (i, r) in rows.iter().enumerate() {
            assert!(r.contains(&format!(r#"data-index="{i}""#)), "{r}");
        }
        assert!(rows[0].contains("GET my-config"), "{}", rows[0]);
        assert!(rows[0].contains("200 OK"), "{}", rows[0]);
        assert!(
            rows[0].contains(r#"<code class="cmd">kubectl get</code>"#),
            "{}",
            rows[0]
        );
        assert!(rows[2].contains("class=\"row mark-ok\""), "{}", rows[2]);
        assert!(rows[2].contains("PUT my-config rv "), "{}", rows[2]);
        // python's PUT is in python's lane (the second), kubectl's 409 in the first.
        let cells = |r: &str| r.split("<td class=\"lane").count();
        assert_eq!(cells(rows[2]), cells(rows[3]));
        assert!(
            rows[2].contains("<td class=\"lane\"></td><td class=\"lane mine\">"),
            "{}",
            rows[2]
        );
        assert!(
            rows[3].contains("<td class=\"lane mine\"><span class=\"req\">PUT my-config"),
            "{}",
            rows[3]
        );
        assert!(
            rows[3].contains("class=\"row mark-conflict current\""),
            "{}",
            rows[3]
        );
        assert!(rows[3].contains("409 Conflict"), "{}", rows[3]);
        assert!(rows[3].contains("⚠ conflict"), "{}", rows[3]);
        assert!(rows[3].contains(r#"aria-current="true""#), "{}", rows[3]);
        // kubectl's read is stale (python wrote since), python's is current.
        assert_eq!(count(&html, r#"data-testid="live-stale""#), 1, "{html}");
        assert!(html.contains("stale: the server is at "), "{html}");
        assert!(html.contains(r#"data-testid="live-read""#), "{html}");
        // The newest row's details.
        assert!(
            html.contains(r#"data-testid="live-step-narration""#),
            "{html}"
        );
        assert!(html.contains("Step 4 · kubectl: "), "{html}");
        assert!(html.contains(r#"data-testid="live-exchange""#), "{html}");
        assert!(html.contains("HTTP/1.1 409 Conflict"), "{html}");
        assert!(html.contains(r#"data-testid="live-object""#), "{html}");
        assert!(
            html.contains(r#"<span title="resourceVersion" class="rv">  resourceVersion: "#),
            "{html}"
        );
        assert!(html.contains(r#"data-testid="live-save""#), "{html}");
        assert!(!html.contains(r#"data-testid="live-follow""#), "{html}");
    }

    #[test]
    fn a_picked_row_shows_its_details_and_offers_to_follow_again() {
        let s = live_app(&stale_story("s1").events).apply(Action::Live(LiveAction::Pick(0)));
        let html = render(&s, Panel::Live);
        assert!(html.contains("Step 1 · kubectl: "), "{html}");
        assert!(html.contains("HTTP/1.1 200 OK"), "{html}");
        assert!(rows(&html)[0].contains("current"), "{html}");
        assert!(!rows(&html)[3].contains("current"), "{html}");
        assert!(html.contains(r#"data-testid="live-follow""#), "{html}");
        // As of that step nobody's read was stale yet.
        assert_eq!(count(&html, r#"data-testid="live-stale""#), 0, "{html}");
    }

    #[test]
    fn dropped_and_not_shown_steps_are_said() {
        let mut server = Server::new("s1", 3);
        for _ in 0..5 {
            server.get("kubectl");
        }
        let mut events = vec![server.hello()];
        events.extend(server.live.events().map(str::to_string));
        let html = render(&live_app(&events), Panel::Live);
        assert!(
            html.contains("connected · 3 steps · 2 earlier steps were dropped by the server"),
            "{html}"
        );
        let mut server = Server::new("s1", 2000);
        for _ in 0..MAX_ROWS + 2 {
            server.get("python");
        }
        let html = render(&live_app(&server.events), Panel::Live);
        assert!(
            html.contains("connected · 500 steps · 2 older steps not shown"),
            "{html}"
        );
        assert_eq!(rows(&html).len(), MAX_ROWS);
    }

    #[test]
    fn before_any_request_the_view_says_what_to_do_and_shows_the_objects() {
        let s = live_app(&[]);
        let html = render(&s, Panel::Live);
        assert!(html.contains("connecting…"), "{html}");
        assert!(html.contains("No request yet"), "{html}");
        let s = live_app(&[Server::new("s1", 10).hello()]);
        let html = render(&s, Panel::Live);
        assert!(html.contains("connected · 0 steps"), "{html}");
        assert!(html.contains("configmap/my-config"), "{html}");
        assert!(
            html.contains(r#"data-testid="live-save" disabled"#) || html.contains("disabled"),
            "{html}"
        );
    }

    #[test]
    fn the_live_tab_shows_only_with_an_endpoint() {
        let html = render(&AppState::default(), Panel::LiveTabs);
        assert!(!html.contains("tab-live"), "{html}");
        assert!(
            html.contains(r#"data-testid="lessons-tab" aria-selected="true""#),
            "{html}"
        );
        let html = render(&live_app(&[]), Panel::LiveTabs);
        assert!(
            html.contains(r#"data-testid="tab-live" aria-selected="true""#),
            "{html}"
        );
        assert!(
            html.contains(r#"data-testid="lessons-tab" aria-selected="false""#),
            "{html}"
        );
    }
}
