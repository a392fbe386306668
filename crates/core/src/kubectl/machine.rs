//! One running kubectl command: the requests it sends (one per step), what it does with each
//! answer, and what it prints.

use super::{Command, Files, Reply, Terminal};
use crate::json::HValue;
use crate::lang::ast::Path;
use crate::store::Request;

/// A command in progress between two of its requests (a value: worlds holding one stay
/// `Clone + Eq + Hash`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Machine {
    /// The edits of a `kubectl edit` block, evaluated when the command started.
    edits: Vec<(Path, HValue)>,
    terminal: Terminal,
}

/// What happens after a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum After {
    /// The next step sends this request (after `wait_nanos` on the virtual clock: kubectl's
    /// back-off before a retry, 0 otherwise).
    Send { request: Request, wait_nanos: u64 },
    /// The command finished (its files already written).
    Done(Terminal),
}

impl Machine {
    /// Starts `cmd` for a client holding `files`: the machine and its first request, or what
    /// the command printed when it fails before sending anything (a file never written).
    /// `edits` are a `kubectl edit` block's assignments, evaluated.
    pub fn start(
        cmd: &Command,
        edits: Vec<(Path, HValue)>,
        files: &Files,
    ) -> Result<(Machine, Request), Terminal> {
        let _ = (cmd, files);
        let mut terminal = Terminal::default();
        terminal.write(true, "error: not modelled yet\n");
        terminal.exit = 1;
        let _ = Machine {
            edits,
            terminal: terminal.clone(),
        };
        Err(terminal)
    }

    /// The answer to the request this machine sent last: the next request, or the end.
    pub fn receive(&mut self, cmd: &Command, reply: Reply<'_>, files: &mut Files) -> After {
        let _ = (cmd, reply, files);
        After::Done(self.terminal.clone())
    }
}
