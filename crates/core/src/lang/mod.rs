//! The scenario language (../shared/docs/scenario-language.md; user reference in
//! docs/scenario-language.md): text → [`ast::Scenario`] plus every diagnostic at once.
//!
//! - [`parse`]: the entry point, returning a [`Parsed`] (the scenario when there is no error,
//!   and all [`Diagnostic`]s in text order);
//! - [`highlight`]: token classes for the editor, on any text;
//! - [`Diagnostic::render`]: `FILE:LINE:COL: error: MESSAGE`, the line, carets and a hint;
//! - [`limits`]: every size limit the parser enforces.
//!
//! Inside: `lexer` (tokens with Python-style indentation), `parse` (recursive descent with
//! line-level recovery), `check` (semantic checks: names, revisions, use before assignment,
//! schedule tokens), `keywords`.

pub mod ast;
mod check;
pub mod diagnostic;
mod highlight;
pub mod keywords;
mod lexer;
pub mod limits;
mod parse;

pub use diagnostic::{render_all, Diagnostic, Severity};
pub use highlight::{highlight, TokenClass};
pub use parse::{parse, Parsed};
