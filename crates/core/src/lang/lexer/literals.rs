//! Literals: strings (with escapes, single-quoted mistakes, triple-quoted text), JSON numbers
//! and durations.
//!
//! Durations and a backoff's `factor` and `jitter` are exact decimals: the digits as written
//! and a power of ten, scaled in integers (no float parsing), so `1.5s` is 1,500,000,000 ns
//! exactly and a fraction of a nanosecond rounds to the nearest (a half up).

use super::{Lexer, Mark, Tok};
use crate::lang::ast::Span;
use crate::lang::diagnostic::Diagnostic;
use crate::limits::{MAX_DURATION_NANOS, MAX_NUMBER_CHARS, MAX_STRING_BYTES};
use serde_json::Value;

impl Lexer<'_> {
    pub(super) fn number(&mut self) {
        let m = self.mark();
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let digit_after = match self.peek_at(1) {
                Some('+' | '-') => self.peek_at(2).is_some_and(|c| c.is_ascii_digit()),
                Some(c) => c.is_ascii_digit(),
                None => false,
            };
            if digit_after {
                self.bump();
                if matches!(self.peek(), Some('+' | '-')) {
                    self.bump();
                }
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.bump();
                }
            }
        }
        let text = &self.src[m.pos..self.pos];
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == 'µ')
        {
            let um = self.mark();
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == 'µ')
            {
                self.bump();
            }
            let unit = &self.src[um.pos..self.pos];
            let span = self.span_from(m);
            let per: Option<u64> = match unit {
                "ns" => Some(1),
                "us" | "µs" => Some(1_000),
                "ms" => Some(1_000_000),
                "s" => Some(1_000_000_000),
                "m" => Some(60_000_000_000),
                "h" => Some(3_600_000_000_000),
                _ => None,
            };
            let Some(per) = per else {
                let unit_span = self.span_from(um);
                self.error(
                    Diagnostic::error(unit_span, format!("unknown duration unit `{unit}`"))
                        .with_hint(
                        "durations are written like `10ms` or `1.5s`; units: ns, us, ms, s, m, h",
                    ),
                );
                self.push(Tok::Duration(0), span);
                return;
            };
            let nanos = duration_nanos(text, per).filter(|&n| n <= MAX_DURATION_NANOS);
            match nanos {
                Some(n) => self.push(Tok::Duration(n), span),
                None => {
                    self.error(Diagnostic::error(
                        span,
                        "duration is too long (the limit is 24h)".to_string(),
                    ));
                    self.push(Tok::Duration(0), span);
                }
            }
            return;
        }
        let span = self.span_from(m);
        if text.chars().count() > MAX_NUMBER_CHARS {
            self.error(Diagnostic::error(
                span,
                format!("number is too long (the limit is {MAX_NUMBER_CHARS} characters)"),
            ));
            self.push(Tok::Num(Value::from(0)), span);
            return;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Number(_)) => self.push(Tok::Num(v), span),
            _ => {
                let mut d = Diagnostic::error(span, format!("invalid number `{text}`"));
                if text.len() > 1 && text.starts_with('0') && !text.starts_with("0.") {
                    d = d.with_hint("numbers are JSON numbers: no leading zeros");
                } else {
                    d = d.with_hint("the number is out of range");
                }
                self.error(d);
                self.push(Tok::Num(Value::from(0)), span);
            }
        }
    }

    pub(super) fn string(&mut self) {
        let m = self.mark();
        if self.rest().starts_with("\"\"\"") {
            self.triple_string(m);
            return;
        }
        self.bump(); // opening quote
        let mut out = String::new();
        let mut too_long = false;
        loop {
            let Some(c) = self.peek() else {
                self.unterminated(m);
                break;
            };
            if c == '\n' {
                self.unterminated(m);
                break;
            }
            self.bump();
            match c {
                '"' => break,
                '\\' => {
                    let em = Mark {
                        pos: self.pos - 1,
                        line: self.line,
                        col: self.col.saturating_sub(1),
                    };
                    match self.peek() {
                        Some('"') => out.push('"'),
                        Some('\\') => out.push('\\'),
                        Some('/') => out.push('/'),
                        Some('b') => out.push('\u{8}'),
                        Some('f') => out.push('\u{c}'),
                        Some('n') => out.push('\n'),
                        Some('r') => out.push('\r'),
                        Some('t') => out.push('\t'),
                        Some('u') => {
                            self.bump();
                            match self.unicode_escape() {
                                Some(ch) => out.push(ch),
                                None => {
                                    let span = self.span_from(em);
                                    self.error(
                                        Diagnostic::error(span, "invalid unicode escape")
                                            .with_hint("write \\uXXXX with four hex digits (a surrogate pair for characters beyond U+FFFF)"),
                                    );
                                    out.push('\u{fffd}');
                                }
                            }
                            continue;
                        }
                        _ => {
                            if self.peek().is_some_and(|c| c != '\n') {
                                self.bump();
                            }
                            let span = self.span_from(em);
                            let shown = self.src[em.pos..self.pos].to_string();
                            self.error(
                                Diagnostic::error(span, format!("invalid escape `{shown}`"))
                                    .with_hint(r#"valid escapes: \" \\ \/ \b \f \n \r \t \uXXXX"#),
                            );
                            continue;
                        }
                    }
                    self.bump();
                }
                c => out.push(c),
            }
            if out.len() > MAX_STRING_BYTES && !too_long {
                too_long = true;
                let span = self.span_from(m);
                self.error(Diagnostic::error(
                    span,
                    format!("string is too long (the limit is {MAX_STRING_BYTES} bytes)"),
                ));
            }
        }
        let span = self.span_from(m);
        self.push(Tok::Str(out), span);
    }

    /// `'text'`: reported (strings use double quotes) and lexed as a string, so the rest of the
    /// line still parses.
    pub(super) fn single_quoted(&mut self) {
        let m = self.mark();
        self.bump();
        while self.peek().is_some_and(|c| c != '\'' && c != '\n') {
            self.bump();
        }
        let closed = self.peek() == Some('\'');
        if closed {
            self.bump();
        }
        let span = self.span_from(m);
        let inner = self.src[m.pos + 1..self.pos - usize::from(closed)].to_string();
        self.error(
            Diagnostic::error(span, "strings use double quotes")
                .with_expected("`\"`")
                .with_hint(format!("write \"{inner}\"")),
        );
        self.push(Tok::Str(inner), span);
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` for a surrogate pair.
    pub(super) fn unicode_escape(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) {
            if self.rest().starts_with("\\u") {
                self.bump();
                self.bump();
                let lo = self.hex4()?;
                if (0xDC00..0xE000).contains(&lo) {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return char::from_u32(c);
                }
            }
            return None;
        }
        char::from_u32(hi)
    }

    pub(super) fn hex4(&mut self) -> Option<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = self.peek()?.to_digit(16)?;
            self.bump();
            v = v * 16 + d;
        }
        Some(v)
    }

    pub(super) fn unterminated(&mut self, m: Mark) {
        let span = self.span_from(m);
        self.error(
            Diagnostic::error(span, "unterminated string")
                .with_expected("`\"`")
                .with_hint(
                    "close the string with `\"` on the same line; for text over several lines use \"\"\"…\"\"\"",
                ),
        );
    }

    pub(super) fn triple_string(&mut self, m: Mark) {
        for _ in 0..3 {
            self.bump();
        }
        let body_start = self.pos;
        let closed = loop {
            if self.rest().starts_with("\"\"\"") {
                break true;
            }
            if self.bump().is_none() {
                break false;
            }
        };
        let raw = &self.src[body_start..self.pos];
        if closed {
            for _ in 0..3 {
                self.bump();
            }
        } else {
            let span = Span {
                end: (m.pos + 3) as u32,
                ..self.span_from(m)
            };
            self.error(
                Diagnostic::error(span, "unterminated triple-quoted string")
                    .with_expected("`\"\"\"`")
                    .with_hint("close it with \"\"\" at the end of the text"),
            );
        }
        let text = dedent(raw);
        let span = self.span_from(m);
        if text.len() > MAX_STRING_BYTES {
            self.error(Diagnostic::error(
                span,
                format!("string is too long (the limit is {MAX_STRING_BYTES} bytes)"),
            ));
        }
        self.push(Tok::Str(text), span);
    }
}

/// The text of a triple-quoted string: the first line break after the opening quotes and a
/// whitespace-only last line are dropped, and the common indentation of the lines is removed.
fn dedent(raw: &str) -> String {
    let raw = raw
        .strip_prefix("\r\n")
        .or_else(|| raw.strip_prefix('\n'))
        .unwrap_or(raw);
    let mut lines: Vec<&str> = raw.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    if lines.len() > 1 && lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                ""
            } else {
                l.get(indent..).unwrap_or(l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A decimal as the lexer scans a number (`digits [. digits] [(e|E) [+-] digits]`): its digits
/// (without the point, most significant first, each 0–9) and the power of ten they are scaled
/// by. `2.5e-1` is `([2, 5], -2)`. `None` when `text` is not of that shape.
fn decimal_parts(text: &str) -> Option<(Vec<u8>, i64)> {
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut digits = Vec::with_capacity(int.len() + frac.len());
    for b in int.bytes().chain(frac.bytes()) {
        if !b.is_ascii_digit() {
            return None;
        }
        digits.push(b - b'0');
    }
    let mut power = -(frac.len() as i64);
    if let Some(exp) = exp {
        let (negative, e) = match exp.as_bytes().first() {
            Some(b'-') => (true, &exp[1..]),
            Some(b'+') => (false, &exp[1..]),
            _ => (false, exp),
        };
        if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        // Saturated: past 10^±1000000 any value is 0 or too long either way.
        let e = e
            .bytes()
            .fold(0i64, |v, b| (v * 10 + i64::from(b - b'0')).min(1_000_000));
        power += if negative { -e } else { e };
    }
    Some((digits, power))
}

/// `text` (digits, maybe a fraction or exponent) times `per` nanoseconds, exactly, rounded to
/// the nearest nanosecond (a half up); `None` when that does not fit in a `u64`.
fn duration_nanos(text: &str, per: u64) -> Option<u64> {
    let (digits, power) = decimal_parts(text)?;
    // digits × per, exactly, least significant digit first (per < 2^42: no overflow).
    let mut product: Vec<u8> = Vec::with_capacity(digits.len() + 13);
    let mut carry = 0u64;
    for &d in digits.iter().rev() {
        let v = u64::from(d) * per + carry;
        product.push((v % 10) as u8);
        carry = v / 10;
    }
    while carry > 0 {
        product.push((carry % 10) as u8);
        carry /= 10;
    }
    // Scaled by 10^power: negative powers drop digits, and the first dropped digit rounds
    // (whatever follows it, a remainder of at least half is exactly a first digit ≥ 5).
    let dropped = usize::try_from(-power.min(0)).unwrap_or(usize::MAX);
    let round_up = dropped > 0 && product.get(dropped - 1).is_some_and(|&d| d >= 5);
    let mut n = 0u64;
    for &d in product.iter().skip(dropped).rev() {
        n = n.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    if n > 0 {
        for _ in 0..power.max(0) {
            n = n.checked_mul(10)?;
        }
    }
    n.checked_add(u64::from(round_up))
}

/// What is wrong with a backoff's `factor` or `jitter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BackoffNumberError {
    /// Not from 0 to the maximum.
    OutOfRange,
    /// More digits after the point than [`crate::limits::MAX_BACKOFF_DECIMALS`].
    TooPrecise,
}

/// A backoff's `factor` or `jitter` literal (`1.5`, `2`, `1e-1`) as an exact decimal from 0 to
/// `max` with at most [`crate::limits::MAX_BACKOFF_DECIMALS`] digits after the point, then as
/// the `f64` client-go's arithmetic uses: `m / 10^k` with `m < 2^53` and `k ≤ 22`, both exact
/// in `f64`, so the one division rounds correctly to the double nearest the decimal.
pub(crate) fn backoff_number(text: &str, max: u64) -> Result<f64, BackoffNumberError> {
    use crate::limits::MAX_BACKOFF_DECIMALS;
    let (mut digits, mut power) = decimal_parts(text).ok_or(BackoffNumberError::OutOfRange)?;
    while digits.last() == Some(&0) {
        digits.pop();
        power += 1;
    }
    let first = digits.iter().position(|&d| d != 0).unwrap_or(digits.len());
    let digits = &digits[first..];
    if digits.is_empty() {
        return Ok(0.0);
    }
    if power < -i64::from(MAX_BACKOFF_DECIMALS) {
        return Err(BackoffNumberError::TooPrecise);
    }
    // Digits before the point: more than 10 is past any `max` below 10^10; so the mantissa has
    // at most 10 + MAX_BACKOFF_DECIMALS digits and fits (and is below 2^53).
    let whole_digits = digits.len() as i64 + power;
    if whole_digits > 10 {
        return Err(BackoffNumberError::OutOfRange);
    }
    let mut m = 0u64;
    for &d in digits {
        m = m * 10 + u64::from(d);
    }
    let k = (-power).max(0) as u32;
    for _ in 0..power.max(0) {
        m *= 10;
    }
    if m > max.saturating_mul(10u64.pow(k)) {
        return Err(BackoffNumberError::OutOfRange);
    }
    const POW10: [f64; 7] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6];
    Ok(m as f64 / POW10[k as usize])
}

#[cfg(test)]
mod tests {
    use super::super::lex;
    use super::*;

    fn first(src: &str) -> Tok {
        lex(src).tokens.remove(0).tok
    }

    #[test]
    fn durations_are_nanoseconds() {
        assert_eq!(first("10ms"), Tok::Duration(10_000_000));
        assert_eq!(first("1.5s"), Tok::Duration(1_500_000_000));
        assert_eq!(first("2us"), Tok::Duration(2_000));
        assert_eq!(first("1m"), Tok::Duration(60_000_000_000));
        assert_eq!(first("24h"), Tok::Duration(MAX_DURATION_NANOS));
    }

    #[test]
    fn fractional_durations_are_exact() {
        assert_eq!(duration_nanos("1.5", 1_000_000_000), Some(1_500_000_000));
        assert_eq!(duration_nanos("0.1", 1_000), Some(100));
        assert_eq!(duration_nanos("2.5e-1", 1_000_000), Some(250_000));
        assert_eq!(duration_nanos(".5", 1_000), Some(500));
        assert_eq!(duration_nanos("1.", 1_000), Some(1_000));
        assert_eq!(duration_nanos("1E3", 1), Some(1_000));
        // 0.1 + 0.2 is 0.30000000000000004 in f64; here 0.3 is 0.3.
        assert_eq!(duration_nanos("0.3", 1_000_000_000), Some(300_000_000));
        assert_eq!(duration_nanos("4.35", 1_000_000_000), Some(4_350_000_000));
        assert_eq!(duration_nanos("0.000000001", 1_000_000_000), Some(1));
        // Below a nanosecond: the nearest, a half up.
        assert_eq!(duration_nanos("1.5", 1), Some(2));
        assert_eq!(duration_nanos("1.49999999999999999999", 1), Some(1));
        assert_eq!(duration_nanos("2.5", 1), Some(3));
        assert_eq!(duration_nanos("0.4", 1), Some(0));
        assert_eq!(duration_nanos("1e-1000000000", 1), Some(0));
        assert_eq!(duration_nanos("0e1000000000", 1), Some(0));
        assert_eq!(
            duration_nanos("1.5", 3_600_000_000_000),
            Some(5_400_000_000_000)
        );
        assert_eq!(duration_nanos("0.0000001", 60_000_000_000), Some(6_000));
        assert_eq!(duration_nanos("1e30", 1), None);
        assert_eq!(duration_nanos("18446744073709551615", 1), Some(u64::MAX));
        assert_eq!(duration_nanos("18446744073709551616", 1), None);
        assert_eq!(duration_nanos("18446744073709551615.5", 1), None);
        for bad in ["", ".", "e5", "1e", "1e+", "1x", "-1"] {
            assert_eq!(duration_nanos(bad, 1), None, "{bad}");
        }
    }

    #[test]
    fn too_long_durations_are_diagnostics() {
        for src in [
            "24.000000001h",
            "1e30ms",
            "99999999999999999999999999999999h",
            "1441m",
        ] {
            let l = lex(src);
            assert_eq!(l.tokens[0].tok, Tok::Duration(0), "{src}");
            assert_eq!(
                l.diagnostics[0].message, "duration is too long (the limit is 24h)",
                "{src}"
            );
        }
    }

    proptest::proptest! {
        /// Any decimal `I.F` of a unit is `I × per + F × per / 10^len(F)` nanoseconds, rounded
        /// half up: the same value computed in `u128`.
        #[test]
        fn decimal_durations_match_integer_arithmetic(
            int in 0u64..100_000,
            frac in "[0-9]{0,12}",
            unit in 0usize..6,
        ) {
            let per = [1u64, 1_000, 1_000_000, 1_000_000_000, 60_000_000_000, 3_600_000_000_000][unit];
            let text = format!("{int}.{frac}");
            let f: u128 = if frac.is_empty() { 0 } else { frac.parse().unwrap() };
            let scale = 10u128.pow(frac.len() as u32);
            let num = u128::from(int) * u128::from(per) * scale + f * u128::from(per);
            let want = (num + scale / 2) / scale;
            proptest::prop_assert_eq!(duration_nanos(&text, per), u64::try_from(want).ok());
        }

        /// A duration as the page shows it reads back: what `fmt_duration` prints parses to
        /// within half of its last digit, and that value prints and parses back to itself.
        #[test]
        fn formatted_durations_read_back(nanos in 0u64..=MAX_DURATION_NANOS) {
            let read = |text: &str| match lex(text).tokens[0].tok {
                Tok::Duration(n) => Some(n),
                _ => None,
            };
            let shown = crate::engine::fmt_duration(nanos);
            let back = read(&shown).expect("a formatted duration lexes");
            proptest::prop_assert_eq!(read(&crate::engine::fmt_duration(back)), Some(back));
            let unit = if nanos < 1_000 { 1 } else if nanos < 1_000_000 { 100 }
                else if nanos < 1_000_000_000 { 10_000 } else { 1_000_000 };
            proptest::prop_assert!(back.abs_diff(nanos) * 2 <= unit, "{} -> {} -> {}", nanos, shown, back);
        }
    }

    #[test]
    fn backoff_numbers_are_exact_decimals() {
        for (text, want) in [
            ("0", 0.0),
            ("0.0", 0.0),
            ("1", 1.0),
            ("1.5", 1.5),
            ("0.1", 0.1),
            ("2.0", 2.0),
            ("1000", 1000.0),
            ("1000.000000000", 1000.0),
            ("1e-1", 0.1),
            ("1e3", 1000.0),
            ("0.123456", 0.123456),
            ("999.999999", 999.999999),
        ] {
            assert_eq!(backoff_number(text, 1000), Ok(want), "{text}");
            assert_eq!(Ok(text.parse::<f64>().unwrap()), backoff_number(text, 1000));
        }
        for text in ["1000.000001", "1001", "1e4", "99999999999999999999"] {
            assert_eq!(
                backoff_number(text, 1000),
                Err(BackoffNumberError::OutOfRange),
                "{text}"
            );
        }
        for text in ["0.1234567", "1e-7", "0.00000001"] {
            assert_eq!(
                backoff_number(text, 1000),
                Err(BackoffNumberError::TooPrecise),
                "{text}"
            );
        }
    }

    #[test]
    fn triple_quoted_strings_are_dedented() {
        let toks: Vec<Tok> = lex("about \"\"\"\n    one\n      two\n    \"\"\"\n")
            .tokens
            .into_iter()
            .map(|t| t.tok)
            .collect();
        assert_eq!(toks[1], Tok::Str("one\n  two".into()));
    }
}
