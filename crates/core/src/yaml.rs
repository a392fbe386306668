//! YAML exactly as `kubectl get -o yaml` prints a JSON value: kubectl's YAMLPrinter is
//! sigs.k8s.io/yaml v1.4.0 `Marshal` = `json.Marshal`, then `JSONToYAML` (its go-yaml v2 fork
//! reads the JSON back and emits it). This module is a port of what that emitter does for the
//! values JSON can hold (`goyaml.v2/encode.go`, `emitterc.go`, `resolve.go`, `sorter.go`):
//!
//! - map keys in go-yaml's "natural" order (runs of digits compared as numbers, letters before
//!   other characters; [`key_less`]);
//! - a string is plain unless plain text would read back as something else (YAML 1.1 `yes`,
//!   `on`, `~`, numbers, timestamps, base-60 numbers…) — then double-quoted — or unless the
//!   emitter's scalar analysis forbids plain (indicators, leading/trailing spaces…) — then
//!   single-quoted, or double-quoted when single quotes cannot hold it (non-printable
//!   characters: escaped); strings with a `\n` as literal blocks (`|`, `|-`, `|+`, an indent hint
//!   `|2` when the text starts with a space or a line break);
//! - plain and quoted scalars folded at spaces past column 80, as the emitter does;
//! - keys longer than 128 bytes (or multi-line) in the explicit `? KEY` / `: VALUE` form;
//! - `{}`/`[]` for empty containers, `null`, integers as Go's `FormatInt`, floats as the JSON
//!   round trip leaves them (an integral float below 1e21 reads back as an integer; others as
//!   Go's `FormatFloat(f, 'g', -1, 64)`).
//!
//! Not modelled: go-yaml sorts keys with a comparison that is not transitive for some key sets
//! (`"10" < "1x" < "9" < "10"`); Go's map order then decides, which is random — this port's
//! stable sort gives one of the possible orders. Non-ASCII letters and digits in keys use
//! Rust's `char::is_alphabetic` and ASCII digits (Go: `unicode.IsLetter`, `unicode.IsDigit`).
//! A float string whose exponent overflows (`"1e999"`) is taken as a float (Go: a string).

use serde_json::Value;

/// The value as `kubectl get -o yaml` prints it, ending with a newline.
pub fn to_yaml(v: &Value) -> String {
    let folded;
    let v = if has_nel(v) {
        folded = fold_nel(v);
        &folded
    } else {
        v
    };
    let mut e = Emitter {
        out: String::new(),
        col: 0,
        ws: true,
        ind: true,
    };
    e.node(v, -1, 0);
    e.write_indent(-1);
    e.out
}

/// True when a string of `v` (key or value) holds a character go-yaml's reader refuses in the
/// JSON text `json.Marshal` wrote (DEL, C1 controls but NEL, U+FFFE, U+FFFF): kubectl then
/// prints `error: yaml: control characters are not allowed` instead of the object.
pub fn has_control_characters(v: &Value) -> bool {
    let bad = |s: &str| {
        s.chars()
            .any(|c| matches!(c as u32, 0x7f..=0x84 | 0x86..=0x9f | 0xfffe | 0xffff))
    };
    match v {
        Value::String(s) => bad(s),
        Value::Array(a) => a.iter().any(has_control_characters),
        Value::Object(m) => m.iter().any(|(k, x)| bad(k) || has_control_characters(x)),
        _ => false,
    }
}

fn has_nel(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains('\u{85}'),
        Value::Array(a) => a.iter().any(has_nel),
        Value::Object(m) => m.iter().any(|(k, x)| k.contains('\u{85}') || has_nel(x)),
        _ => false,
    }
}

/// What go-yaml's reader makes of a NEL (U+0085), the one line break `json.Marshal` leaves
/// raw in the JSON text: in a double-quoted scalar, a run of spaces and NELs folds to a space
/// (one NEL) or to n-1 `\n` (n NELs). Captured: `"a\u0085b"` prints as `a b`.
fn fold_nel(v: &Value) -> Value {
    let fold = |s: &str| {
        let mut out = String::new();
        let (mut spaces, mut nels) = (0, 0);
        let flush = |out: &mut String, spaces: &mut usize, nels: &mut usize| {
            match *nels {
                0 => out.extend(std::iter::repeat_n(' ', *spaces)),
                1 => out.push(' '),
                n => out.extend(std::iter::repeat_n('\n', n - 1)),
            }
            (*spaces, *nels) = (0, 0);
        };
        for c in s.chars() {
            match c {
                ' ' if nels == 0 => spaces += 1,
                ' ' => {}
                '\u{85}' => nels += 1,
                _ => {
                    flush(&mut out, &mut spaces, &mut nels);
                    out.push(c);
                }
            }
        }
        flush(&mut out, &mut spaces, &mut nels);
        out
    };
    match v {
        Value::String(s) => Value::String(fold(s)),
        Value::Array(a) => Value::Array(a.iter().map(fold_nel).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (fold(k), fold_nel(x))).collect()),
        other => other.clone(),
    }
}

// The node's context (go-yaml's mapping and simple-key flags). The root context only matters
// for a plain scalar at the root (go-yaml then ends the stream with `...`, not modelled: kubectl
// prints objects).
const MAP: u8 = 1;
const KEY: u8 = 2;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// go-yaml's emitter state that decides spaces and line breaks.
struct Emitter {
    out: String,
    /// Characters on the current line.
    col: usize,
    /// The last character written was white space.
    ws: bool,
    /// Only indentation so far on this line.
    ind: bool,
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.col += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.col = 0;
    }

    /// `write_break`: a line break character of the value.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.col = 0;
        }
    }

    fn write_indent(&mut self, indent: i32) {
        let indent = indent.max(0) as usize;
        if !self.ind || self.col > indent || (self.col == indent && !self.ws) {
            self.put_break();
        }
        while self.col < indent {
            self.put(' ');
        }
        self.ws = true;
        self.ind = true;
    }

    fn indicator(&mut self, s: &str, need_ws: bool, is_ws: bool, is_ind: bool) {
        if need_ws && !self.ws {
            self.put(' ');
        }
        for c in s.chars() {
            self.put(c);
        }
        self.ws = is_ws;
        self.ind = self.ind && is_ind;
    }

    /// A node at the emitter's current `indent` (-1 at the root).
    fn node(&mut self, v: &Value, indent: i32, ctx: u8) {
        match v {
            Value::Object(m) if !m.is_empty() => {
                let indent = if indent < 0 { 0 } else { indent + 2 };
                let mut keys: Vec<&String> = m.keys().collect();
                crate::sort::sort_by(&mut keys, |a, b| {
                    if key_less(a, b) {
                        std::cmp::Ordering::Less
                    } else if key_less(b, a) {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Equal
                    }
                });
                for k in keys {
                    self.write_indent(indent);
                    if !analyze(k).multiline && k.len() <= 128 {
                        self.scalar(k, requested(k), indent, MAP | KEY);
                        self.indicator(":", false, false, false);
                    } else {
                        self.indicator("?", true, false, true);
                        self.scalar(k, requested(k), indent, MAP);
                        self.write_indent(indent);
                        self.indicator(":", true, false, true);
                    }
                    self.node(&m[k.as_str()], indent, MAP);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                let indent = if indent < 0 {
                    0
                } else if ctx & MAP != 0 && !self.ind {
                    indent
                } else {
                    indent + 2
                };
                for x in a {
                    self.write_indent(indent);
                    self.indicator("-", true, false, true);
                    self.node(x, indent, 0);
                }
            }
            Value::Object(_) => self.flow("{", "}"),
            Value::Array(_) => self.flow("[", "]"),
            Value::String(s) => self.scalar(s, requested(s), indent, ctx),
            other => self.scalar(&scalar_text(other), Style::Plain, indent, ctx),
        }
    }

    fn flow(&mut self, open: &str, close: &str) {
        self.indicator(open, true, true, false);
        self.indicator(close, false, false, false);
    }

    /// `emit_scalar`: the style the emitter settles on, then the writer.
    fn scalar(&mut self, s: &str, style: Style, indent: i32, ctx: u8) {
        let a = analyze(s);
        let key = ctx & KEY != 0;
        let mut style = style;
        if key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain && (!a.plain || (s.is_empty() && key)) {
            style = Style::Single;
        }
        if style == Style::Single && !a.single {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block || key) {
            style = Style::Double;
        }
        let indent = if indent < 0 { 2 } else { indent + 2 };
        match style {
            Style::Literal => self.literal(s, indent),
            Style::Double => self.double(s, indent, !key),
            _ => self.plain_or_single(s, style == Style::Single, indent, !key),
        }
    }

    fn plain_or_single(&mut self, s: &str, single: bool, indent: i32, breaks_ok: bool) {
        if single {
            self.indicator("'", true, false, false);
        } else if !self.ws {
            self.put(' ');
        }
        let (mut spaces, mut breaks) = (false, false);
        let last = s.len().saturating_sub(1);
        let mut it = s.char_indices().peekable();
        while let Some((i, c)) = it.next() {
            let next_space = matches!(it.peek(), Some((_, ' ')));
            if c == ' ' {
                let inside = !single || (i > 0 && i < last);
                if breaks_ok && !spaces && self.col > 80 && inside && !next_space {
                    self.write_indent(indent);
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.ind = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent(indent);
                }
                if single && c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.ind = false;
                spaces = false;
                breaks = false;
            }
        }
        if single {
            self.indicator("'", false, false, false);
        }
        self.ws = false;
        self.ind = false;
    }

    fn double(&mut self, s: &str, indent: i32, breaks_ok: bool) {
        self.indicator("\"", true, false, false);
        let bom = s.starts_with('\u{feff}');
        let last = s.len().saturating_sub(1);
        let mut spaces = false;
        let mut it = s.char_indices().peekable();
        while let Some((i, c)) = it.next() {
            if !printable(c) || bom || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let short = match c {
                    '\0' => '0',
                    '\u{7}' => 'a',
                    '\u{8}' => 'b',
                    '\t' => 't',
                    '\n' => 'n',
                    '\u{b}' => 'v',
                    '\u{c}' => 'f',
                    '\r' => 'r',
                    '\u{1b}' => 'e',
                    '"' => '"',
                    '\\' => '\\',
                    '\u{85}' => 'N',
                    '\u{a0}' => '_',
                    '\u{2028}' => 'L',
                    '\u{2029}' => 'P',
                    _ => '\0',
                };
                if short != '\0' || c == '\0' {
                    self.put(short);
                } else {
                    let v = c as u32;
                    let (tag, digits) = match v {
                        0..=0xff => ('x', 2),
                        0x100..=0xffff => ('u', 4),
                        _ => ('U', 8),
                    };
                    self.put(tag);
                    for k in (0..digits).rev() {
                        let d = (v >> (4 * k)) & 0xf;
                        self.put(char::from_digit(d, 16).unwrap_or('0').to_ascii_uppercase());
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if breaks_ok && !spaces && self.col > 80 && i > 0 && i < last {
                    self.write_indent(indent);
                    if matches!(it.peek(), Some((_, ' '))) {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.indicator("\"", false, false, false);
        self.ws = false;
        self.ind = false;
    }

    fn literal(&mut self, s: &str, indent: i32) {
        self.indicator("|", true, false, false);
        if s.starts_with(' ') || s.chars().next().is_some_and(is_break) {
            self.indicator("2", false, false, false);
        }
        // A `+` hint makes go-yaml's document "open ended", but writing the hint clears that
        // again: no `...` follows (captured: a Widget whose last value ends with two breaks).
        let mut rev = s.chars().rev();
        let chomp = match (rev.next(), rev.next()) {
            (Some(c), _) if !is_break(c) => "-",
            (Some(_), None) => "+",
            (Some(_), Some(b)) if is_break(b) => "+",
            _ => "",
        };
        if !chomp.is_empty() {
            self.indicator(chomp, false, false, false);
        }
        self.put_break();
        self.ind = true;
        self.ws = true;
        let mut breaks = true;
        for c in s.chars() {
            if is_break(c) {
                self.write_break(c);
                self.ind = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent(indent);
                }
                self.put(c);
                self.ind = false;
                breaks = false;
            }
        }
    }
}

/// A scalar that is not a string: `null`, `true`, a number as it reads back from Go's JSON.
fn scalar_text(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => {
                let f = n.as_f64().unwrap_or(0.0);
                // json.Marshal writes an integral float below 1e21 without exponent or point;
                // go-yaml reads that back as an integer (int64, else uint64).
                if f == f.trunc() && f.abs() < 9.223_372_036_854_776e18 {
                    (f as i64).to_string()
                } else if f == f.trunc() && f > 0.0 && f < 1.844_674_407_370_955_2e19 {
                    (f as u64).to_string()
                } else {
                    crate::store::strategic::go_float(f)
                }
            }
        },
        _ => "null".into(),
    }
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// go-yaml's `is_printable`.
fn printable(c: char) -> bool {
    matches!(c as u32, 0x0a | 0x20..=0x7e | 0xa0..=0xd7ff | 0xe000..=0xfffd) && c != '\u{feff}'
}

/// The emitter's scalar analysis (block context: flow indicators do not matter).
struct Analysis {
    multiline: bool,
    plain: bool,
    single: bool,
    block: bool,
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            multiline: false,
            plain: true,
            single: true,
            block: false,
        };
    }
    let mut indicators = s.starts_with("---") || s.starts_with("...");
    let (mut lead_space, mut lead_break, mut trail_space, mut trail_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break, mut special, mut breaks) = (false, false, false, false);
    let (mut prev_ws, mut prev_space, mut prev_break) = (true, false, false);
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|&(_, n)| n);
        let followed_ws = matches!(next, None | Some(' ' | '\t'));
        match (i == 0, c) {
            (
                true,
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"',
            )
            | (true, '%' | '@' | '`') => indicators = true,
            (true, '?' | ':' | '-') | (false, ':') if followed_ws => indicators = true,
            (false, '#') if prev_ws => indicators = true,
            _ => {}
        }
        if !printable(c) {
            special = true;
        }
        let last = next.is_none();
        if c == ' ' {
            lead_space |= i == 0;
            trail_space |= last;
            break_space |= prev_break;
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            breaks = true;
            lead_break |= i == 0;
            trail_break |= last;
            space_break |= prev_space;
            prev_space = false;
            prev_break = true;
        } else {
            prev_space = false;
            prev_break = false;
        }
        prev_ws = matches!(c, ' ' | '\t' | '\0') || is_break(c);
    }
    Analysis {
        multiline: breaks,
        plain: !(lead_space
            || lead_break
            || trail_space
            || trail_break
            || break_space
            || space_break
            || special
            || breaks
            || indicators),
        single: !(break_space || space_break || special),
        block: !(trail_space || space_break || special),
    }
}

/// The style `encode.go`'s `stringv` asks for.
fn requested(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if resolves_to_non_string(s) || base60(s) {
        Style::Double
    } else {
        Style::Plain
    }
}

/// `resolve("", s)` gives another tag than `!!str` (null, bool, int, float, timestamp, merge).
fn resolves_to_non_string(s: &str) -> bool {
    const WORDS: &str = " y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE \
        off Off OFF ~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf \
        -.INF ";
    let Some(&first) = s.as_bytes().first() else {
        return true; // `""` is null
    };
    if !b"+-0123456789yYnNtTfFoO~.".contains(&first) {
        return false;
    }
    if !s.contains(' ') && WORDS.contains(&format!(" {s} ")) {
        return true;
    }
    match first {
        b'.' => float_syntax(s),
        b'+' | b'-' | b'0'..=b'9' => {
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            timestamp(s) || prefixed_int(&plain) || float_syntax(&plain)
        }
        _ => false,
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` (go-yaml's float, also every
/// decimal integer; `strconv.ParseFloat` accepts what it matches).
fn float_syntax(s: &str) -> bool {
    let b = s.strip_prefix(['+', '-']).unwrap_or(s).as_bytes();
    let digits = |b: &[u8]| b.iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(b);
    let mut i = int;
    if b.get(i) == Some(&b'.') {
        let frac = digits(&b[i + 1..]);
        if int == 0 && frac == 0 {
            return false;
        }
        i += 1 + frac;
    } else if int == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let e = digits(&b[i.min(b.len())..]);
        if e == 0 {
            return false;
        }
        i += e;
    }
    i == b.len()
}

/// `strconv.ParseInt(s, 0, 64)` or `ParseUint` succeeding with a base prefix (`0x1F`, `-0b1`,
/// `0o17`); prefix-less integers are `float_syntax` already.
fn prefixed_int(s: &str) -> bool {
    let (neg, signed, body) = match s.as_bytes().first() {
        Some(b'-') => (true, true, &s[1..]),
        Some(b'+') => (false, true, &s[1..]),
        _ => (false, false, s),
    };
    let (radix, digits) = match body.get(..2) {
        Some("0x" | "0X") => (16, &body[2..]),
        Some("0o" | "0O") => (8, &body[2..]),
        Some("0b" | "0B") => (2, &body[2..]),
        _ => return false,
    };
    let mut n: u128 = 0;
    for c in digits.chars() {
        match c.to_digit(radix) {
            Some(d) => n = (n * u128::from(radix) + u128::from(d)).min(u128::from(u64::MAX) + 1),
            None => return false,
        }
    }
    let max = match (neg, signed) {
        (true, _) => 1 << 63,
        (false, true) => (1 << 63) - 1,
        (false, false) => u128::from(u64::MAX),
    };
    !digits.is_empty() && n <= max
}

/// go-yaml's `parseTimestamp`: `2006-1-2`, `2006-1-2T15:4:5.999999999Z07:00` (or `t`), and
/// `2006-1-2 15:4:5.999999999`, with Go `time.Parse`'s field widths and range checks.
fn timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    // A number of 1 or 2 digits (Go's `getnum` for non-zero-padded fields).
    let num = |i: &mut usize| -> Option<u32> {
        let d = |k: usize| {
            b.get(k)
                .filter(|c| c.is_ascii_digit())
                .map(|c| u32::from(c - b'0'))
        };
        let first = d(*i)?;
        *i += 1;
        match d(*i) {
            Some(second) => {
                *i += 1;
                Some(first * 10 + second)
            }
            None => Some(first),
        }
    };
    let lit = |i: &mut usize, c: u8| -> Option<()> { (b.get(*i) == Some(&c)).then(|| *i += 1) };
    let mut parse = || -> Option<()> {
        if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
            return None;
        }
        let year: u32 = s[..4].parse().ok()?;
        i = 5;
        let month = num(&mut i)?;
        lit(&mut i, b'-')?;
        let day = num(&mut i)?;
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        if day < 1 || day > days {
            return None;
        }
        if i == b.len() {
            return Some(());
        }
        let zone = match b[i] {
            b'T' | b't' => true,
            b' ' => false,
            _ => return None,
        };
        i += 1;
        let hour = num(&mut i)?;
        lit(&mut i, b':')?;
        let minute = num(&mut i)?;
        lit(&mut i, b':')?;
        let second = num(&mut i)?;
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        if matches!(b.get(i), Some(b'.' | b',')) && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        if zone && lit(&mut i, b'Z').is_none() {
            let z = b.get(i..i + 6)?;
            let two = |k: usize| z[k].is_ascii_digit() && z[k + 1].is_ascii_digit();
            if !matches!(z[0], b'+' | b'-') || !two(1) || z[3] != b':' || !two(4) {
                return None;
            }
            i += 6;
        }
        (i == b.len()).then_some(())
    };
    parse().is_some()
}

/// `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
fn base60(s: &str) -> bool {
    let b = s.strip_prefix(['+', '-']).unwrap_or(s).as_bytes();
    if !s.contains(':') || !b.first().is_some_and(u8::is_ascii_digit) {
        return false;
    }
    let mut i = b
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'_')
        .count();
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        let d = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let ok = match d {
            1 => true,
            2 => b[i + 1] <= b'5',
            _ => false,
        };
        if !ok {
            return false;
        }
        i += 1 + d;
        groups += 1;
    }
    if b.get(i) == Some(&b'.') {
        i += 1 + b[i + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit() || **c == b'_')
            .count();
    }
    groups > 0 && i == b.len()
}

/// go-yaml's `keyList.Less` for two string keys.
fn key_less(a: &str, b: &str) -> bool {
    let (ar, br): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let letter = |c: char| c.is_ascii_alphabetic() || (!c.is_ascii() && c.is_alphabetic());
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (letter(ar[i]), letter(br[i]));
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            for j in (0..i).rev() {
                if !ar[j].is_ascii_digit() {
                    break;
                }
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let run = |r: &[char], n: &mut i64| {
            let mut k = i;
            while k < r.len() && r[k].is_ascii_digit() {
                *n = n
                    .wrapping_mul(10)
                    .wrapping_add(i64::from(r[k] as u8 - b'0'));
                k += 1;
            }
            k
        };
        let ai = run(&ar, &mut an);
        let bi = run(&br, &mut bn);
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quotes_what_would_change_meaning() {
        let y = |s: &str| to_yaml(&json!({ "k": s }));
        assert_eq!(y("a: b"), "k: 'a: b'\n");
        assert_eq!(y("a\tb"), "k: \"a\\tb\"\n");
        assert_eq!(y("-x"), "k: -x\n");
        assert_eq!(y("- x"), "k: '- x'\n");
        assert_eq!(y("1.5"), "k: \"1.5\"\n");
        assert_eq!(y("hello world"), "k: hello world\n");
        assert_eq!(y(""), "k: \"\"\n");
    }

    #[test]
    fn resolution() {
        for s in [
            "100",
            "1e3",
            "0.5",
            "+1",
            "-1",
            "1_000",
            "0x1F",
            "0o17",
            "017",
            "-0b101",
            ".5",
            "2026-12-01",
            "2026-1-2T3:04:05Z",
            "2026-12-01T17:19:19.5+01:00",
            "2026-12-01 10:00:00",
            "yes",
            "Off",
            "~",
            "",
            ".inf",
            "-.Inf",
        ] {
            assert!(resolves_to_non_string(s), "{s}");
        }
        for s in [
            "nan",
            "inf",
            "1.2.3",
            "0x",
            "0xZZ",
            "<<",
            "2026-13-01",
            "2026-02-30",
            "abc",
            "-",
            "2026-12-01T17:19:19",
            "1e",
            "yES",
            "12:30",
        ] {
            assert!(!resolves_to_non_string(s), "{s}");
        }
        assert!(base60("12:30") && base60("190:20:30") && base60("-1:2.5"));
        assert!(!base60("12:60") && !base60("a:1") && !base60("1:"));
    }

    #[test]
    fn nel_folds() {
        let y = |s: &str| to_yaml(&json!({ "k": s }));
        assert_eq!(y("a \u{85} \u{85}b\u{85}"), "k: \"a\\nb \"\n");
        assert_eq!(y("a  \u{85}b"), "k: a b\n");
    }

    #[test]
    fn empty_root_and_numbers() {
        assert_eq!(to_yaml(&json!({})), "{}\n");
        assert_eq!(to_yaml(&json!([])), "[]\n");
        assert_eq!(
            to_yaml(&json!({"a": 3.0, "b": 1e21, "c": 0.00001, "d": -0.0, "e": 1e20})),
            "a: 3\nb: 1e+21\nc: 1e-05\nd: 0\ne: 1e+20\n"
        );
    }

    /// Whatever the strings, the YAML reads back as the same value (with serde_yaml, a YAML 1.2
    /// reader: every string go-yaml leaves plain is a string in YAML 1.2 too).
    #[test]
    fn reads_back() {
        use proptest::prelude::*;
        // No NEL: go-yaml's reader folds it (`fold_nel`), so it does not read back.
        let text = "[ -~\\n\\t\\r\u{a0}\u{2028}\u{feff}é☃😀]{0,100}";
        let value = proptest::collection::vec(
            (
                "[a-z0-9 :#-]{1,6}",
                prop_oneof![
                    proptest::string::string_regex(text)
                        .expect("regex")
                        .prop_map(Value::from),
                    proptest::collection::vec(
                        proptest::string::string_regex(text).expect("regex"),
                        0..3
                    )
                    .prop_map(|v| json!({ "list": v, "in": [{ "k": v }] })),
                ],
            ),
            0..6,
        )
        .prop_map(|kv| Value::Object(kv.into_iter().collect()));
        proptest!(ProptestConfig::with_cases(512), |(v in value)| {
            let y = to_yaml(&v);
            let back: Value = serde_yaml::from_str(&y).map_err(|e| TestCaseError::fail(format!("{e}\n{y}")))?;
            prop_assert_eq!(back, v, "{}", y);
        });
    }
}
