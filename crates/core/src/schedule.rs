//! Schedule tokens (docs/scenario-language.md, "Schedules"): the client letter of each step, with optional
//! run-length counts: `a3b2a` means a, a, a, b, b, a.
//!
//! One grammar for every token, read by [`pieces`]: a file's `schedule` line (the checks turn
//! its pieces into diagnostics), the command line's `--schedule` and the page's tokens (both
//! through [`parse_token`], as `Run::new` does). A token is letters `a`–`z`, each with an
//! optional count from 1 to [`MAX_SCHEDULE_COUNT`], naming at most [`MAX_STEPS`] steps in all;
//! any other character, a space included, is an error.

use crate::limits::{MAX_SCHEDULE_COUNT, MAX_STEPS};
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

/// One piece of a token, as [`pieces`] reads it. Offsets are bytes; every character before
/// a [`Piece::Bad`] is ASCII, so they are also character indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A client letter at `at` and the `digits` characters of its count after it (0: no
    /// count, one step).
    Steps {
        client: u32,
        at: usize,
        digits: usize,
        count: Result<u32, BadCount>,
    },
    /// A character that is not a client letter: a digit with no letter before it, or anything
    /// else. Reading stops there.
    Bad { ch: char, at: usize },
}

/// Why a count is not from 1 to [`MAX_SCHEDULE_COUNT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadCount {
    Zero,
    TooLarge,
}

/// Reads a token into its pieces, up to and including the first bad character.
pub fn pieces(token: &str) -> Vec<Piece> {
    let bytes = token.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let at = i;
        let Some(client) = client_of(char::from(bytes[i])) else {
            let ch = token[at..].chars().next().unwrap_or('?');
            out.push(Piece::Bad { ch, at });
            break;
        };
        i += 1;
        let mut count: u64 = 0;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            count = (count * 10 + u64::from(bytes[i] - b'0')).min(u64::from(u32::MAX));
            i += 1;
        }
        let digits = i - at - 1;
        let count = if digits == 0 {
            Ok(1)
        } else if count == 0 {
            Err(BadCount::Zero)
        } else if count > u64::from(MAX_SCHEDULE_COUNT) {
            Err(BadCount::TooLarge)
        } else {
            Ok(count as u32)
        };
        out.push(Piece::Steps {
            client,
            at,
            digits,
            count,
        });
    }
    out
}

/// Expands a token into client indexes (for a scenario with `clients` clients).
pub fn parse_token(token: &str, clients: u32) -> Result<Vec<u32>, TokenError> {
    let mut out: Vec<u32> = Vec::new();
    for piece in pieces(token) {
        match piece {
            Piece::Bad { ch, at } => {
                let position = at as u32 + 1;
                return Err(if ch.is_ascii_digit() {
                    TokenError::CountWithoutLetter { position }
                } else {
                    TokenError::BadCharacter { ch, position }
                });
            }
            Piece::Steps {
                client, at, count, ..
            } => {
                if client >= clients {
                    return Err(TokenError::UnknownClient {
                        letter: letter(client),
                        position: at as u32 + 1,
                        clients,
                    });
                }
                let count = match count {
                    Ok(n) => n,
                    Err(BadCount::Zero) => {
                        return Err(TokenError::ZeroCount {
                            position: at as u32 + 2,
                        })
                    }
                    // A count above MAX_SCHEDULE_COUNT (= MAX_STEPS) names too many steps.
                    Err(BadCount::TooLarge) => return Err(TokenError::TooLong),
                };
                if out.len() as u64 + u64::from(count) > u64::from(MAX_STEPS) {
                    return Err(TokenError::TooLong);
                }
                out.extend(std::iter::repeat_n(client, count as usize));
            }
        }
    }
    Ok(out)
}

/// How many steps a token's pieces name in all (counts that are not valid count as 0).
pub fn steps_named(pieces: &[Piece]) -> u64 {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Steps { count: Ok(n), .. } => u64::from(*n),
            _ => 0,
        })
        .sum()
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
        assert_eq!(parse_token("a10001", 1), Err(TokenError::TooLong));
        assert_eq!(parse_token("a10000", 1).map(|v| v.len()), Ok(10_000));
        assert_eq!(parse_token("a5000b5001", 2), Err(TokenError::TooLong));
        // A space is not part of a token, as in a file's `schedule` line.
        assert_eq!(
            parse_token("ab a", 2),
            Err(TokenError::BadCharacter {
                ch: ' ',
                position: 3
            })
        );
        assert_eq!(
            parse_token("aé", 2),
            Err(TokenError::BadCharacter {
                ch: 'é',
                position: 2
            })
        );
    }
}
