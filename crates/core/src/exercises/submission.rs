//! A student's hand-in (issue #20): which exercise it is for, and the work, as the page's
//! "Copy my work" gives it and `rvlab grade` reads it, as text or as a link.
//!
//! The text form (what a student pastes into an e-mail or a form):
//!
//! ```text
//! rvlab submission 1
//! exercise: first-conflict
//! schedule: ba3b2
//! ```
//!
//! or, for an edited scenario, `scenario:` followed by the text, verbatim, to the end:
//!
//! ```text
//! rvlab submission 1
//! exercise: retry-reread
//! scenario:
//! title "…"
//! …
//! ```
//!
//! The link form is a share link of the work (`#v1&z=TEXT&t=TOKEN`) with the exercise's id in
//! one more field, `ex=ID` (share links skip fields they do not know, so it opens the run).

use crate::share::{ShareState, Source, MAX_LINK_BYTES, MAX_TEXT_BYTES};

/// The first line of the text form.
pub const TEXT_HEADER: &str = "rvlab submission 1";
/// The link field that names the exercise.
pub const LINK_FIELD: &str = "ex";

/// What a student hands in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// The exercise's id (`exercise "ID"`).
    pub exercise: String,
    pub work: Work,
}

/// The work itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// A schedule token (*break it*: the order the student chose).
    Token(String),
    /// The edited scenario (*fix it*), possibly with a schedule token it was played along.
    Text { text: String, token: String },
}

impl Submission {
    /// The text form.
    pub fn to_text(&self) -> String {
        let mut out = format!("{TEXT_HEADER}\nexercise: {}\n", self.exercise);
        match &self.work {
            Work::Token(t) => {
                out.push_str("schedule: ");
                out.push_str(t);
                out.push('\n');
            }
            Work::Text { text, token } => {
                if !token.is_empty() {
                    out.push_str("schedule: ");
                    out.push_str(token);
                    out.push('\n');
                }
                out.push_str("scenario:\n");
                out.push_str(text);
            }
        }
        out
    }

    /// The link form's fragment (without `#`), for a work done on `text` (the exercise's
    /// text as the student's editor holds it), or why it cannot be a link.
    pub fn to_fragment(&self, text: &str) -> Result<String, String> {
        let (text, token) = match &self.work {
            Work::Token(t) => (text, t.as_str()),
            Work::Text { text, token } => (text.as_str(), token.as_str()),
        };
        let state = ShareState {
            source: Source::Text(text.to_string()),
            token: token.to_string(),
            position: 0,
            seed: 0,
            view: String::new(),
        };
        let out = format!("{}&{LINK_FIELD}={}", state.encode(), self.exercise);
        if out.len() > MAX_LINK_BYTES {
            return Err(format!(
                "the work is too large for a link ({} bytes; links up to {MAX_LINK_BYTES} bytes are accepted): copy it as text",
                out.len()
            ));
        }
        Ok(out)
    }

    /// Reads a hand-in: the text form, or a link (anything with a `#v1…` fragment naming an
    /// exercise). `Ok(None)`: neither (a plain scenario file or a bare token, which names no
    /// exercise). An `Err` says what is wrong with a hand-in that looks like one of the two.
    pub fn read(input: &str) -> Result<Option<Submission>, String> {
        let trimmed = input.trim_start_matches('\u{feff}');
        if let Some(rest) = trimmed
            .strip_prefix(TEXT_HEADER)
            .and_then(|r| r.strip_prefix('\n').or_else(|| r.strip_prefix("\r\n")))
        {
            return read_text(rest).map(Some);
        }
        if trimmed.starts_with("rvlab submission ") {
            let line = trimmed.lines().next().unwrap_or("");
            return Err(format!(
                "it is a hand-in of another format (`{}`); this rvlab reads `{TEXT_HEADER}`",
                cut(line, 40)
            ));
        }
        let one_line = trimmed.trim();
        if !one_line.contains('\n') {
            if let Some(at) = one_line.find("#v1") {
                return read_link(&one_line[at + 1..]).map(Some);
            }
        }
        Ok(None)
    }

    /// The id a hand-in is for.
    pub fn exercise(&self) -> &str {
        &self.exercise
    }
}

/// An id as exercises have them (`exercise "ID"`): letters, digits, `-` and `_`.
pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn valid_token(t: &str) -> bool {
    !t.is_empty() && t.len() <= 4096 && t.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// At most `n` characters of `s`, with `…` when cut (a hand-in is never echoed whole).
pub fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

fn read_text(rest: &str) -> Result<Submission, String> {
    let mut exercise = None;
    let mut token = String::new();
    let mut rest = rest;
    loop {
        let (line, after) = match rest.find('\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(id) = line.strip_prefix("exercise: ") {
            if !valid_id(id.trim()) {
                return Err(format!("its exercise id `{}` is not an id", cut(id, 40)));
            }
            exercise = Some(id.trim().to_string());
        } else if let Some(t) = line.strip_prefix("schedule: ") {
            if !valid_token(t.trim()) {
                return Err(format!(
                    "its schedule `{}` is not a schedule token",
                    cut(t, 40)
                ));
            }
            token = t.trim().to_string();
        } else if line == "scenario:" {
            let exercise = exercise.ok_or("it names no exercise (an `exercise: ID` line)")?;
            if after.len() > MAX_TEXT_BYTES {
                return Err(format!(
                    "its scenario is larger than {MAX_TEXT_BYTES} bytes"
                ));
            }
            return Ok(Submission {
                exercise,
                work: Work::Text {
                    text: after.to_string(),
                    token,
                },
            });
        } else if !line.trim().is_empty() {
            return Err(format!(
                "line `{}` is not `exercise: ID`, `schedule: TOKEN` or `scenario:`",
                cut(line, 40)
            ));
        }
        if after.is_empty() {
            break;
        }
        rest = after;
    }
    let exercise = exercise.ok_or("it names no exercise (an `exercise: ID` line)")?;
    if token.is_empty() {
        return Err(
            "it holds no work (a `schedule: TOKEN` line or `scenario:` and the text)".into(),
        );
    }
    Ok(Submission {
        exercise,
        work: Work::Token(token),
    })
}

fn read_link(fragment: &str) -> Result<Submission, String> {
    let exercise = fragment
        .split('&')
        .find_map(|f| f.strip_prefix("ex="))
        .ok_or("the link names no exercise (it is a share link, not a hand-in: its `ex=` field is missing)")?;
    if !valid_id(exercise) {
        return Err(format!(
            "the link's exercise id `{}` is not an id",
            cut(exercise, 40)
        ));
    }
    let state =
        ShareState::decode(fragment).map_err(|e| format!("the link could not be read: {e}"))?;
    let text = match state.source {
        Source::Text(t) => t,
        Source::Lesson(id) => {
            return Err(format!(
                "the link opens lesson `{id}`, not an exercise's work"
            ))
        }
    };
    Ok(Submission {
        exercise: exercise.to_string(),
        work: Work::Text {
            text,
            token: state.token,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(exercise: &str, text: &str, token: &str) -> Submission {
        Submission {
            exercise: exercise.into(),
            work: Work::Text {
                text: text.into(),
                token: token.into(),
            },
        }
    }

    #[test]
    fn the_text_form_reads_back() {
        let token = Submission {
            exercise: "first-conflict".into(),
            work: Work::Token("ba3b2".into()),
        };
        assert_eq!(
            token.to_text(),
            "rvlab submission 1\nexercise: first-conflict\nschedule: ba3b2\n"
        );
        let edited = text(
            "retry-reread",
            "title \"x\"\n\nclient a:\n    get configmap/c\n",
            "",
        );
        for s in [token, edited.clone(), text("counter", "client a:\n", "ab")] {
            assert_eq!(Submission::read(&s.to_text()), Ok(Some(s.clone())));
            // Pasted with Windows line ends in the header, still read.
            let crlf = s.to_text().replacen('\n', "\r\n", 2);
            assert_eq!(
                Submission::read(&crlf).map(|o| o.map(|s| s.exercise)),
                Ok(Some(s.exercise))
            );
        }
        assert!(edited
            .to_text()
            .ends_with("scenario:\ntitle \"x\"\n\nclient a:\n    get configmap/c\n"));
    }

    #[test]
    fn the_link_form_reads_back() {
        let s = text("retry-reread", "client a:\n    get configmap/c\n", "aa");
        let f = s.to_fragment("unused").unwrap();
        assert!(
            f.starts_with("v1&z=") && f.ends_with("&ex=retry-reread"),
            "{f}"
        );
        let link = format!("https://teacher.example/rvlab/#{f}");
        assert_eq!(Submission::read(&link), Ok(Some(s)));
        assert_eq!(
            Submission::read(&format!("  {link}\n"))
                .unwrap()
                .unwrap()
                .exercise,
            "retry-reread"
        );
        // A token hand-in as a link carries the exercise's text it was played on.
        let t = Submission {
            exercise: "first-conflict".into(),
            work: Work::Token("ba".into()),
        };
        let back =
            Submission::read(&format!("#{}", t.to_fragment("client a:\n").unwrap())).unwrap();
        assert_eq!(back, Some(text("first-conflict", "client a:\n", "ba")));
    }

    #[test]
    fn other_inputs_are_not_hand_ins_and_broken_ones_say_why() {
        assert_eq!(Submission::read("ba3b2"), Ok(None));
        assert_eq!(
            Submission::read("client a:\n    get configmap/c\n"),
            Ok(None)
        );
        let share = "#v1&lesson=stale-update";
        assert!(Submission::read(share)
            .unwrap_err()
            .contains("`ex=` field is missing"));
        let bad = [
            ("rvlab submission 2\nexercise: x\n", "another format"),
            ("rvlab submission 1\nschedule: ab\n", "names no exercise"),
            ("rvlab submission 1\nexercise: x\n", "holds no work"),
            (
                "rvlab submission 1\nexercise: x y\nschedule: ab\n",
                "is not an id",
            ),
            (
                "rvlab submission 1\nexercise: x\nschedule: a-b\n",
                "not a schedule token",
            ),
            (
                "rvlab submission 1\nexercise: x\nnonsense\n",
                "line `nonsense`",
            ),
            ("#v1&z=!!&ex=x", "could not be read"),
            ("#v1&lesson=counter&ex=x", "opens lesson `counter`"),
        ];
        for (input, want) in bad {
            let err = Submission::read(input).unwrap_err();
            assert!(err.contains(want), "{input:?}: {err}");
        }
        // A long line is never echoed whole.
        let long = format!("rvlab submission 1\nexercise: x\n{}\n", "y".repeat(100_000));
        let err = Submission::read(&long).unwrap_err();
        assert!(err.len() < 200, "{}", err.len());
        // Work too large for a link (text that does not compress) says to copy it as text.
        let mut x: u64 = 1;
        let noise: String = (0..60_000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from(b'a' + (x >> 59) as u8)
            })
            .collect();
        let err = text("x", &noise, "").to_fragment("").unwrap_err();
        assert!(err.contains("copy it as text"), "{err}");
    }
}
