//! Schedule tokens (scenario-language.md §7): the client letter of each step, with optional
//! run-length counts: `a3b2a` means a, a, a, b, b, a.

use crate::limits::MAX_STEPS;
use std::fmt;

/// The schedule letter of client `i` (`a`, `b`, …; `?` past `z`).
pub fn letter(client: u32) -> char {
    if client < 26 {
        char::from(b'a' + client as u8)
    } else {
        '?'
    }
}

/// The client index of a letter.
pub fn client_of(letter: char) -> Option<u32> {
    letter
        .is_ascii_lowercase()
        .then(|| u32::from(letter) - u32::from('a'))
}

/// What is wrong with a token. Positions count characters from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// A letter past the last client.
    UnknownClient {
        letter: char,
        position: u32,
        clients: u32,
    },
    /// A character that is neither a letter nor a digit.
    BadCharacter { ch: char, position: u32 },
    /// A count before any letter.
    CountWithoutLetter { position: u32 },
    /// A count of 0.
    ZeroCount { position: u32 },
    /// More steps than a run may take.
    TooLong,
}

fn letters(clients: u32) -> String {
    match clients {
        0 => "no clients".into(),
        1 => "one client, a".into(),
        n => format!("clients a to {}", letter(n - 1)),
    }
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::UnknownClient {
                letter,
                position,
                clients,
            } => write!(
                f,
                "unknown client '{letter}' at character {position}: the scenario has {}",
                letters(*clients)
            ),
            TokenError::BadCharacter { ch, position } => write!(
                f,
                "unexpected {ch:?} at character {position}: a token is client letters (a, b, …) with optional counts, like a3b2a"
            ),
            TokenError::CountWithoutLetter { position } => write!(
                f,
                "a count at character {position} has no client letter before it"
            ),
            TokenError::ZeroCount { position } => {
                write!(f, "a count of 0 at character {position} takes no steps")
            }
            TokenError::TooLong => write!(f, "the token names more than {MAX_STEPS} steps"),
        }
    }
}

impl std::error::Error for TokenError {}

/// Expands a token into client indexes. Spaces are ignored.
pub fn parse_token(token: &str, clients: u32) -> Result<Vec<u32>, TokenError> {
    let mut out: Vec<u32> = Vec::new();
    let chars: Vec<char> = token.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        let position = i as u32 + 1;
        if ch.is_whitespace() {
            i += 1;
            continue;
        }
        if ch.is_ascii_digit() {
            return Err(TokenError::CountWithoutLetter { position });
        }
        let Some(client) = client_of(ch) else {
            return Err(TokenError::BadCharacter { ch, position });
        };
        if client >= clients {
            return Err(TokenError::UnknownClient {
                letter: ch,
                position,
                clients,
            });
        }
        i += 1;
        let start = i;
        let mut count: u64 = 0;
        while i < chars.len() && chars[i].is_ascii_digit() {
            count = count * 10 + u64::from(chars[i].to_digit(10).unwrap_or(0));
            if count > u64::from(MAX_STEPS) {
                return Err(TokenError::TooLong);
            }
            i += 1;
        }
        let count = if i == start {
            1
        } else if count == 0 {
            return Err(TokenError::ZeroCount {
                position: start as u32 + 1,
            });
        } else {
            count
        };
        if out.len() as u64 + count > u64::from(MAX_STEPS) {
            return Err(TokenError::TooLong);
        }
        out.extend(std::iter::repeat_n(client, count as usize));
    }
    Ok(out)
}

/// Formats client indexes as a compressed token (`[0,0,0,1,1,0]` → `a3b2a`).
pub fn format_token(steps: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < steps.len() {
        let c = steps[i];
        let mut j = i;
        while j < steps.len() && steps[j] == c {
            j += 1;
        }
        out.push(letter(c));
        if j - i > 1 {
            out.push_str(&(j - i).to_string());
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_and_compresses() {
        assert_eq!(parse_token("a3b2a", 2), Ok(vec![0, 0, 0, 1, 1, 0]));
        assert_eq!(format_token(&[0, 0, 0, 1, 1, 0]), "a3b2a");
        assert_eq!(parse_token("abaabb", 2), Ok(vec![0, 1, 0, 0, 1, 1]));
        assert_eq!(format_token(&[0, 1, 0, 0, 1, 1]), "aba2b2");
        assert_eq!(parse_token("", 2), Ok(vec![]));
        assert_eq!(parse_token("a12", 1).map(|v| v.len()), Ok(12));
    }

    #[test]
    fn errors_say_what_and_where() {
        let e = parse_token("abc", 2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown client 'c' at character 3: the scenario has clients a to b"
        );
        assert!(matches!(
            parse_token("3a", 2),
            Err(TokenError::CountWithoutLetter { position: 1 })
        ));
        assert!(matches!(
            parse_token("a0", 2),
            Err(TokenError::ZeroCount { position: 2 })
        ));
        assert!(matches!(
            parse_token("a-", 2),
            Err(TokenError::BadCharacter {
                ch: '-',
                position: 2
            })
        ));
        assert_eq!(parse_token("a99999", 1), Err(TokenError::TooLong));
    }
}
