//! A kubectl command line (what follows `kubectl ` in a scenario) into a [`Command`].

use super::Command;

/// Why a command line was refused, with the byte range (within the line) it is about. The
/// message is kubectl's own wording where kubectl has one (`unknown flag: --foo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmdError {
    pub message: String,
    pub start: usize,
    pub end: usize,
}

/// Parses `line` (after `kubectl `).
pub fn parse(line: &str) -> Result<Command, CmdError> {
    Err(CmdError {
        message: "kubectl commands are not parsed yet".into(),
        start: 0,
        end: line.len(),
    })
}
