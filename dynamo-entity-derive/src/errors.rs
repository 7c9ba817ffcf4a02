//! Collects every error of one derive, so the user sees all of them at once.

use std::fmt::Display;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// The errors found so far; combined into one `syn::Error` at the end.
#[derive(Default)]
pub struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    /// Records an error.
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(e) => e.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// Records an error at `span`.
    pub fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records an error spanning the tokens of `tokens`.
    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Whether any error was recorded.
    pub fn is_empty(&self) -> bool {
        self.combined.is_none()
    }

    /// The recorded errors as `compile_error!` invocations, if any.
    pub fn into_compile_errors(self) -> Option<TokenStream> {
        self.combined.map(syn::Error::into_compile_error)
    }
}
