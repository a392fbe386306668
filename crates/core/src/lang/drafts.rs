//! What the parser hands the checks besides the AST.

use super::ast::Span;

/// What the checks need beyond the AST: where names were written, and which parts parsed cleanly.
#[derive(Debug, Default)]
pub(crate) struct Drafts {
    /// Per client (same order as `Scenario::clients`): the name's span, and whether its body
    /// parsed without errors (use-before-assign is only checked for clean bodies).
    pub clients: Vec<(Span, bool)>,
    /// Clients named by expectations, with the name's span.
    pub expect_clients: Vec<(String, Span)>,
    /// `true` when the client headers all parsed (the letter count is then exact).
    pub clients_complete: bool,
}
