//! `rvlab course build DIR --out OUT [--page PAGE]`: a teacher's folder of exercises, checked
//! and built into a course pack (the release page with the course inside).
//!
//! Everything is checked before anything is written; the pack is staged in a temporary folder
//! next to OUT and moved into place, the pages last, so a failed build never leaves a half
//! pack. Solutions are read to check the exercises and never copied.

use crate::{EXIT_FAILED, EXIT_OK};
use rvlab_core::exercises::course::{
    self, id_from, read_course_file, solution_file, COURSE_FILE, ELEMENT_ID, MAX_EXERCISES,
};
use rvlab_core::exercises::{self, Exercise};
use rvlab_core::lang::render_all;
use rvlab_core::share::MAX_TEXT_BYTES;
use std::path::{Path, PathBuf};

const LONG_ABOUT: &str = "\
Checks a folder of exercises and builds it into a course pack: the release page with the \
course in it, to host like the page itself (docs/deploy.md).

DIR holds exercise files NAME.rvl, each with an optional reference solution \
NAME.solution.rvl, and an optional `course` file:
  title \"Week 3: optimistic concurrency\"
  id \"week-3\"
  builtin beside        (or `builtin hide`: show only this course)
  01-first-conflict.rvl (the exercises, in course order)
Without a `course` file (or without file lines in it) the course is every NAME.rvl, by name; \
its title and id come from the folder's name.

Every exercise must parse, its starting text must fail its goal, and its reference solution \
(when there is one) must pass. Solutions are never copied into OUT.";

const AFTER_HELP: &str = "\
Exit codes: 0 the pack is written, 1 the course has problems or cannot be written (nothing \
is written), 2 usage error.";

/// What `rvlab course --help` ends with (its one command's options are `course build`'s).
const GROUP_AFTER_HELP: &str = "\
Run `rvlab course build DIR --out OUT [--page PAGE]`; `rvlab course build --help` explains its \
options.

Exit codes: 0 the pack is written, 1 the course has problems or cannot be written (nothing \
is written), 2 usage error.";

/// `rvlab course`'s command line: its one subcommand.
#[derive(clap::Args)]
#[command(
    about = "A teacher's own course: `course build DIR --out OUT` checks a folder of your \
             exercises and builds it into a course pack (the release page with your course in it)",
    long_about = LONG_ABOUT,
    after_long_help = GROUP_AFTER_HELP,
    // Without its subcommand: an error (`error: ...`), as a missing argument is.
    arg_required_else_help = false
)]
pub struct CourseArgs {
    #[command(subcommand)]
    pub command: CourseCommand,
}

/// `rvlab course`'s subcommands.
#[derive(clap::Subcommand)]
pub enum CourseCommand {
    Build(BuildArgs),
}

/// `rvlab course build`'s command line.
#[derive(clap::Args)]
#[command(
    about = "Check a folder of your exercises and build it into a course pack",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP
)]
pub struct BuildArgs {
    /// The folder of exercises
    #[arg(value_name = "DIR")]
    pub dir: String,
    /// The folder to write: new, empty, or an earlier course pack (its files are replaced, its
    /// other files kept)
    #[arg(long, value_name = "OUT", allow_hyphen_values = true)]
    pub out: String,
    /// The release page to build on (what `cargo xtask dist` writes, or a copy of the deployed
    /// page); default: dist
    #[arg(long, value_name = "PAGE", allow_hyphen_values = true)]
    pub page: Option<String>,
}

/// The pages a course goes into (the second is optional).
const PAGES: [&str; 2] = ["index.html", "kubectl.html"];
/// How deep the release page's folders may go.
const MAX_DEPTH: usize = 8;

/// Runs the subcommand.
pub fn main(args: CourseArgs) -> u8 {
    let CourseCommand::Build(args) = args.command;
    build(
        Path::new(&args.dir),
        Path::new(&args.out),
        args.page.as_deref().map(Path::new),
    )
}

/// What went wrong so far: errors are counted, each already printed.
#[derive(Default)]
struct Problems {
    errors: usize,
}

impl Problems {
    fn error(&mut self, message: String) {
        eprintln!("{message}");
        self.errors += 1;
    }
}

/// One exercise that checked out.
struct Checked {
    file: String,
    text: String,
    has_solution: bool,
}

/// The course folder and the names of its files ([`list_dir`]), read once.
struct Folder<'a> {
    dir: &'a Path,
    names: Vec<String>,
}

impl Folder<'_> {
    /// A file of the folder as the messages name it (the folder joined with its name).
    fn shown(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
}

/// Checks the course in `dir` and everything the build needs, reporting every problem, and
/// writes the pack only when there is none (see the module docs).
fn build(dir: &Path, out: &Path, page: Option<&Path>) -> u8 {
    let mut p = Problems::default();
    let names = match list_dir(dir) {
        Ok(n) => n,
        Err(e) => {
            eprintln!(
                "error: cannot read the course folder {}: {e}",
                dir.display()
            );
            return EXIT_FAILED;
        }
    };
    let folder = Folder { dir, names };

    let (course_file, course_text) = read_course(&folder, &mut p);
    let Heading { title, id, builtin } = heading(&course_file, dir);
    let files = exercise_files(&folder, &course_file, &course_text, &mut p);
    let checked = check_exercises(&folder, &files, &mut p);

    // The page and the place to write.
    let page_dir = page.unwrap_or(Path::new("dist"));
    let pages = read_page(page_dir, page.is_none(), &mut p);
    check_places(dir, out, page_dir, &mut p);

    let solutions = checked.iter().filter(|c| c.has_solution).count();
    if p.errors > 0 {
        eprintln!(
            "course \"{title}\" (id {id}): {} error(s); nothing written",
            p.errors
        );
        return EXIT_FAILED;
    }
    println!(
        "course \"{title}\" (id {id}): {} exercises checked, {solutions} with a reference solution",
        checked.len()
    );
    let json = course_json(&title, &id, builtin, &checked);
    let Some(pages) = pages else {
        return EXIT_FAILED;
    };
    write_and_say(page_dir, out, &pages, &title, &json)
}

/// What the pack says of the course besides its exercises.
struct Heading {
    title: String,
    id: String,
    /// Whether the built-in course is shown beside it.
    builtin: bool,
}

/// The course's title and id, the `course` file's or else from the folder's name, and
/// whether the built-in course is shown beside it (it is unless the file says `builtin hide`).
fn heading(course_file: &course::CourseFile, dir: &Path) -> Heading {
    let folder = folder_name(dir);
    Heading {
        title: course_file.title.clone().unwrap_or_else(|| folder.clone()),
        id: course_file.id.clone().unwrap_or_else(|| id_from(&folder)),
        builtin: course_file.builtin.unwrap_or(true),
    }
}

/// The course as the page reads it ([`course::to_json`]): the checked exercises' files and
/// starting texts, in course order.
fn course_json(title: &str, id: &str, builtin: bool, checked: &[Checked]) -> String {
    let list: Vec<(String, String)> = checked
        .iter()
        .map(|c| (c.file.clone(), c.text.clone()))
        .collect();
    course::to_json(title, id, builtin, &list)
}

/// The `course` file and its text (both empty without one). An unreadable file is an error;
/// so is each bad line, and the other lines still count (see [`read_course_lines`]).
fn read_course(folder: &Folder, p: &mut Problems) -> (course::CourseFile, String) {
    let mut course_file = course::CourseFile::default();
    let mut course_text = String::new();
    if folder.names.iter().any(|n| n == COURSE_FILE) {
        match std::fs::read_to_string(folder.dir.join(COURSE_FILE)) {
            Err(e) => p.error(format!(
                "{}: error: cannot read it: {e}",
                folder.shown(COURSE_FILE)
            )),
            Ok(text) => {
                course_file = read_course_lines(folder, &text, p);
                course_text = text;
            }
        }
    }
    (course_file, course_text)
}

/// The `course` file's text read: each line with an error is reported (`course:LINE: error:`)
/// and read as blank, so the other lines still say something and the files they list are
/// checked.
fn read_course_lines(folder: &Folder, text: &str, p: &mut Problems) -> course::CourseFile {
    match read_course_file(text) {
        Ok(c) => c,
        Err(errors) => {
            for e in &errors {
                p.error(format!(
                    "{}:{}: error: {}",
                    folder.shown(COURSE_FILE),
                    e.line,
                    e.message
                ));
            }
            // The other lines still say something: check the files they list.
            let kept: Vec<&str> = text
                .lines()
                .enumerate()
                .map(|(i, l)| {
                    if errors.iter().any(|e| e.line == i + 1) {
                        ""
                    } else {
                        l
                    }
                })
                .collect();
            read_course_file(&kept.join("\n")).unwrap_or_default()
        }
    }
}

/// Whether a file of the folder is an exercise (`NAME.rvl`, not a reference solution).
fn is_exercise(name: &str) -> bool {
    name.ends_with(".rvl") && !name.ends_with(".solution.rvl")
}

/// The exercise files, in course order: the `course` file's list ([`listed_files`]), or
/// without one every exercise by name. Warns of a reference solution without its exercise;
/// a course without exercises (when nothing else is wrong) or with more than
/// [`MAX_EXERCISES`] is an error.
fn exercise_files(
    folder: &Folder,
    course_file: &course::CourseFile,
    course_text: &str,
    p: &mut Problems,
) -> Vec<String> {
    let files: Vec<String> = if course_file.files.is_empty() {
        folder
            .names
            .iter()
            .filter(|n| is_exercise(n))
            .cloned()
            .collect()
    } else {
        listed_files(folder, course_file, course_text, p)
    };
    for n in folder.names.iter().filter(|n| n.ends_with(".solution.rvl")) {
        let exercise = format!("{}.rvl", n.trim_end_matches(".solution.rvl"));
        if !folder.names.contains(&exercise) {
            eprintln!(
                "{}: warning: there is no exercise {exercise} for this reference solution",
                folder.shown(n)
            );
        }
    }
    if files.is_empty() && p.errors == 0 {
        p.error(format!(
            "{}: error: the course has no exercises (files NAME.rvl)",
            folder.dir.display()
        ));
    }
    if files.len() > MAX_EXERCISES {
        p.error(format!(
            "{}: error: the course has {} exercises; a course has at most {MAX_EXERCISES}",
            folder.dir.display(),
            files.len()
        ));
    }
    files
}

/// The files the `course` file lists that are in the folder, in its order: a listed file that
/// is not there is an error (at its line), an exercise it does not list a warning (it is not
/// in the course).
fn listed_files(
    folder: &Folder,
    course_file: &course::CourseFile,
    course_text: &str,
    p: &mut Problems,
) -> Vec<String> {
    for f in &course_file.files {
        if !folder.names.contains(f) {
            let line = course_text
                .lines()
                .position(|l| l.trim() == f)
                .map_or(0, |i| i + 1);
            p.error(format!(
                "{}:{line}: error: there is no file `{f}` in {}",
                folder.shown(COURSE_FILE),
                folder.dir.display()
            ));
        }
    }
    for n in folder.names.iter().filter(|n| is_exercise(n)) {
        if !course_file.files.contains(n) {
            eprintln!(
                "{}: warning: it is not listed in {}, so it is not in the course",
                folder.shown(n),
                folder.shown(COURSE_FILE)
            );
        }
    }
    course_file
        .files
        .iter()
        .filter(|f| folder.names.contains(f))
        .cloned()
        .collect()
}

/// Each exercise checked in course order ([`check_exercise`]); returns those that checked out.
fn check_exercises(folder: &Folder, files: &[String], p: &mut Problems) -> Vec<Checked> {
    let mut checked: Vec<Checked> = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new(); // (exercise id, file)
    for file in files {
        if let Some(c) = check_exercise(folder, file, &mut seen, p) {
            checked.push(c);
        }
    }
    checked
}

/// One exercise: it reads and parses (a parse error is shown as `rvlab check` shows it), its
/// id is no earlier exercise's (`seen`), and [`course::check`] finds no problem with it and its
/// reference solution (without one, a warning: the build cannot check that it can be solved).
/// `None` when it has a problem, or its solution cannot be read.
fn check_exercise(
    folder: &Folder,
    file: &str,
    seen: &mut Vec<(String, String)>,
    p: &mut Problems,
) -> Option<Checked> {
    let path = folder.shown(file);
    let text = read_text(&path, p)?;
    let ex: Exercise = match exercises::parse(&text) {
        Ok(ex) => ex,
        Err(diags) => {
            eprintln!("{}", render_all(&diags, &path, &text));
            p.error(format!("{path}: error: it is not a valid exercise"));
            return None;
        }
    };
    if let Some((_, other)) = seen.iter().find(|(i, _)| *i == ex.id) {
        p.error(format!(
            "{path}: error: its exercise id `{}` is {}'s too (ids must differ in a course)",
            ex.id,
            folder.shown(other)
        ));
    } else {
        seen.push((ex.id.clone(), file.to_string()));
    }
    let sol_name = solution_file(file);
    let solution = if folder.names.contains(&sol_name) {
        Some(read_text(&folder.shown(&sol_name), p)?)
    } else {
        eprintln!(
            "{path}: warning: no reference solution ({sol_name}): the build cannot check that the exercise can be solved"
        );
        None
    };
    let problems = course::check(&ex, solution.as_deref());
    let ok = problems.is_empty();
    for problem in problems {
        p.error(format!("{path}: error: {problem}"));
    }
    ok.then(|| Checked {
        file: file.to_string(),
        text,
        has_solution: solution.is_some(),
    })
}

/// Writes the pack ([`write_pack`]) and says what it wrote and how to host it, or why it could
/// not (then no page of it is in place).
fn write_and_say(
    page_dir: &Path,
    out: &Path,
    pages: &[(&'static str, String)],
    title: &str,
    json: &str,
) -> u8 {
    match write_pack(page_dir, out, pages, title, json) {
        Ok(copied) => {
            let names: Vec<String> = pages
                .iter()
                .map(|(n, _)| out.join(n).display().to_string())
                .collect();
            println!(
                "wrote {} (the page with the course) and {copied} other file(s) copied from {}",
                names.join(" and "),
                page_dir.display()
            );
            println!(
                "host {} like the release page (docs/deploy.md)",
                out.display()
            );
            EXIT_OK
        }
        Err(e) => {
            eprintln!(
                "error: {e}; the pack at {} is not written (an earlier pack's pages are unchanged)",
                out.display()
            );
            EXIT_FAILED
        }
    }
}

/// The names of the files in `dir`, sorted (byte order).
fn list_dir(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.path().is_file() {
            if let Some(n) = entry.file_name().to_str() {
                names.push(n.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// The folder's own name (of its full path, so `.` has one).
fn folder_name(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "course".to_string())
}

/// A text file of the course, at most [`MAX_TEXT_BYTES`].
fn read_text(path: &str, p: &mut Problems) -> Option<String> {
    match std::fs::read_to_string(path) {
        Err(e) => {
            p.error(format!("{path}: error: cannot read it: {e}"));
            None
        }
        Ok(t) if t.len() > MAX_TEXT_BYTES => {
            p.error(format!(
                "{path}: error: it is {} bytes; an exercise has at most {MAX_TEXT_BYTES} (the editor's limit)",
                t.len()
            ));
            None
        }
        Ok(t) => Some(t),
    }
}

/// The release page's pages (`index.html`, and `kubectl.html` when there is one) with their
/// text, or `None` after saying what is wrong.
fn read_page(page: &Path, default: bool, p: &mut Problems) -> Option<Vec<(&'static str, String)>> {
    if !page.is_dir() {
        p.error(if default {
            "error: no release page at dist/: build it with `cargo xtask dist`, or give --page DIR (a copy of the deployed page)".to_string()
        } else {
            format!(
                "error: no release page at {}: give the folder `cargo xtask dist` writes (or a copy of the deployed page)",
                page.display()
            )
        });
        return None;
    }
    let mut pages = Vec::new();
    let mut ok = true;
    for name in PAGES {
        let path = page.join(name);
        if !path.exists() && name != PAGES[0] {
            continue;
        }
        let shown = path.display();
        match std::fs::read_to_string(&path) {
            Err(e) => {
                p.error(format!(
                    "{shown}: error: cannot read it ({e}); is {} the release page?",
                    page.display()
                ));
                ok = false;
            }
            Ok(text) => {
                let heads = text.matches("</head>").count();
                if heads != 1 {
                    p.error(format!(
                        "{shown}: error: it has {heads} `</head>`; a release page has exactly one"
                    ));
                    ok = false;
                } else if is_pack(&text) {
                    p.error(format!(
                        "{shown}: error: it is a course pack's page already; give the release page"
                    ));
                    ok = false;
                } else {
                    pages.push((name, text));
                }
            }
        }
    }
    ok.then_some(pages)
}

/// Whether a page holds a course.
fn is_pack(html: &str) -> bool {
    html.contains(&format!("id=\"{ELEMENT_ID}\""))
}

/// `path` made absolute with its symbolic links resolved, as far as it exists.
fn resolved(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut at = abs.as_path();
    loop {
        if let Ok(c) = std::fs::canonicalize(at) {
            return rest
                .iter()
                .rev()
                .fold(c, |acc, n: &&std::ffi::OsStr| acc.join(n));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                at = parent;
            }
            _ => return abs,
        }
    }
}

/// OUT must not overlap the course's folder or the page, and must be new, empty or an
/// earlier pack.
fn check_places(dir: &Path, out: &Path, page: &Path, p: &mut Problems) {
    let (d, o, g) = (resolved(dir), resolved(out), resolved(page));
    let overlap = |a: &Path, b: &Path| a.starts_with(b) || b.starts_with(a);
    if overlap(&o, &d) {
        p.error(format!(
            "error: --out {}: it overlaps the course folder {} (the pack must not hold the solutions): write it elsewhere",
            out.display(),
            dir.display()
        ));
    }
    if overlap(&o, &g) {
        p.error(format!(
            "error: --out {}: it overlaps the release page {}: write it elsewhere",
            out.display(),
            page.display()
        ));
    }
    if overlap(&g, &d) && page.is_dir() {
        p.error(format!(
            "error: the release page {} overlaps the course folder {} (the pack would hold the solutions)",
            page.display(),
            dir.display()
        ));
    }
    if out.exists() {
        if !out.is_dir() {
            p.error(format!(
                "error: --out {}: it is a file, not a folder",
                out.display()
            ));
            return;
        }
        let empty = std::fs::read_dir(out)
            .map(|mut e| e.next().is_none())
            .unwrap_or(false);
        let pack = std::fs::read_to_string(out.join(PAGES[0])).is_ok_and(|t| is_pack(&t));
        if !empty && !pack {
            p.error(format!(
                "error: --out {}: it is not empty and not an earlier course pack; give a new or empty folder",
                out.display()
            ));
        }
    }
}

/// `<title>TITLE · rvlab</title>` and the course's script element, in a page.
fn with_course(html: &str, title: &str, json: &str) -> String {
    let escaped: String = title
        .chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&#39;".to_string(),
            c => c.to_string(),
        })
        .collect();
    let title_element = format!("<title>{escaped} · rvlab</title>");
    let head_end = html.find("</head>").unwrap_or(html.len());
    let mut html = html.to_string();
    let titled = match (
        html[..head_end].find("<title>"),
        html[..head_end].find("</title>"),
    ) {
        (Some(a), Some(b)) if a < b => {
            html.replace_range(a..b + "</title>".len(), &title_element);
            true
        }
        _ => false,
    };
    let script = format!("<script type=\"application/json\" id=\"{ELEMENT_ID}\">{json}</script>");
    let insert = if titled {
        script
    } else {
        format!("{title_element}{script}")
    };
    let at = html.find("</head>").unwrap_or(html.len());
    html.insert_str(at, &insert);
    html
}

/// Every file under `root` (relative paths, sorted), at most [`MAX_DEPTH`] folders deep.
fn page_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    fn walk(root: &Path, rel: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let here = root.join(rel);
        let entries =
            std::fs::read_dir(&here).map_err(|e| format!("cannot read {}: {e}", here.display()))?;
        let mut names = Vec::new();
        for e in entries {
            let e = e.map_err(|e| format!("cannot read {}: {e}", here.display()))?;
            names.push(e.file_name());
        }
        names.sort();
        for name in names {
            let rel = rel.join(&name);
            let path = root.join(&rel);
            if path.is_dir() {
                if depth >= MAX_DEPTH {
                    return Err(format!("{} is too deep", path.display()));
                }
                walk(root, &rel, depth + 1, out)?;
            } else {
                out.push(rel);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, Path::new(""), 0, &mut out)?;
    Ok(out)
}

/// Stages the pack next to OUT and moves it into place: a new OUT in one rename; into an
/// earlier pack file by file, the pages last (each rename replaces a file whole). Returns how
/// many files were copied besides the pages.
fn write_pack(
    page: &Path,
    out: &Path,
    pages: &[(&'static str, String)],
    title: &str,
    json: &str,
) -> Result<usize, String> {
    // The pages' precompressed copies (`index.html.gz`: docs/deploy.md) are the pages without
    // the course, and a host that serves them would serve those: they are left out.
    let stale = |rel: &PathBuf| {
        PAGES
            .iter()
            .any(|p| rel.as_path() == Path::new(&format!("{p}.gz")))
    };
    let files: Vec<PathBuf> = page_files(page)?
        .into_iter()
        .filter(|f| !stale(f))
        .collect();
    let abs_out = std::path::absolute(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let parent = abs_out
        .parent()
        .ok_or_else(|| format!("{} has no parent folder", out.display()))?
        .to_path_buf();
    let name = abs_out
        .file_name()
        .ok_or_else(|| format!("{} has no name", out.display()))?
        .to_string_lossy()
        .into_owned();
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let stage = parent.join(format!(".{name}.rvlab-build-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&stage);
    let result = stage_and_move(page, &files, pages, title, json, &stage, &abs_out);
    let _ = std::fs::remove_dir_all(&stage);
    result.map(|()| files.len() - pages.len())
}

fn stage_and_move(
    page: &Path,
    files: &[PathBuf],
    pages: &[(&'static str, String)],
    title: &str,
    json: &str,
    stage: &Path,
    out: &Path,
) -> Result<(), String> {
    let mkdir = |d: &Path| {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))
    };
    mkdir(stage)?;
    for rel in files {
        let to = stage.join(rel);
        if let Some(d) = to.parent() {
            mkdir(d)?;
        }
        match pages.iter().find(|(n, _)| Path::new(n) == rel.as_path()) {
            Some((_, html)) => std::fs::write(&to, with_course(html, title, json)),
            None => std::fs::copy(page.join(rel), &to).map(|_| ()),
        }
        .map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    }
    let fresh = !out.exists() || std::fs::read_dir(out).is_ok_and(|mut e| e.next().is_none());
    if fresh {
        if out.exists() {
            std::fs::remove_dir(out)
                .map_err(|e| format!("cannot replace {}: {e}", out.display()))?;
        }
        return std::fs::rename(stage, out)
            .map_err(|e| format!("cannot move the pack to {}: {e}", out.display()));
    }
    // An earlier pack: every other file first, then kubectl.html, index.html last; a
    // precompressed copy of a page there would be served in place of the new page.
    for p in PAGES {
        let gz = out.join(format!("{p}.gz"));
        if gz.exists() {
            std::fs::remove_file(&gz)
                .map_err(|e| format!("cannot remove {}: {e}", gz.display()))?;
        }
    }
    let rank = |rel: &PathBuf| {
        PAGES
            .iter()
            .rev()
            .position(|p| Path::new(p) == rel.as_path())
            .map_or(0, |i| i + 1)
    };
    let mut order: Vec<&PathBuf> = files.iter().collect();
    order.sort_by_key(|rel| rank(rel));
    for rel in order {
        let to = out.join(rel);
        if let Some(d) = to.parent() {
            mkdir(d)?;
        }
        std::fs::rename(stage.join(rel), &to)
            .map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::with_course;

    #[test]
    fn the_course_goes_just_before_the_head_end_and_the_title_is_escaped() {
        let html =
            "<html><head><meta charset=\"utf-8\"><title>rvlab</title></head><body></body></html>";
        let out = with_course(html, "A <b> & \"c\"", "{\"x\":1}");
        assert_eq!(
            out,
            "<html><head><meta charset=\"utf-8\"><title>A &lt;b&gt; &amp; &quot;c&quot; · rvlab</title><script type=\"application/json\" id=\"rvlab-course\">{\"x\":1}</script></head><body></body></html>"
        );
        let out = with_course("<head></head><title>x</title>", "T", "{}");
        assert_eq!(
            out,
            "<head><title>T · rvlab</title><script type=\"application/json\" id=\"rvlab-course\">{}</script></head><title>x</title>"
        );
    }
}
