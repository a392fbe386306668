//! The scenario language (../shared/docs/scenario-language.md): text → [`ast::Scenario`] plus
//! every diagnostic at once.

pub mod ast;
