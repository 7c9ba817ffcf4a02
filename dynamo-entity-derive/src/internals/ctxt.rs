//! The error-collecting context of one derive.
//!
//! Every phase (attribute parsing, model building, checks) records its errors here and goes on,
//! so that the user sees all of their mistakes at once. The context must be consumed with
//! [`Ctxt::check`] before it is dropped: a derive that forgot to look at its errors would emit
//! code for an invalid input, so dropping an unchecked context panics (as serde_derive's does).

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use proc_macro2::Span;
use quote::ToTokens;

/// The errors recorded so far, in the order they were found.
pub struct Ctxt {
    /// `None` once [`Ctxt::check`] has taken the errors.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// A context without errors.
    pub fn new() -> Ctxt {
        Ctxt { errors: RefCell::new(Some(Vec::new())) }
    }

    /// Records an error.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().as_mut().expect("the context was already checked").push(error);
    }

    /// Records an error at `span`.
    pub fn error_at(&self, span: Span, message: impl Display) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Records an error spanning the tokens of `tokens`.
    pub fn error_spanned_by(&self, tokens: impl ToTokens, message: impl Display) {
        self.syn_error(syn::Error::new_spanned(tokens, message));
    }

    /// Whether any error was recorded so far.
    pub fn has_errors(&self) -> bool {
        self.errors.borrow().as_ref().is_some_and(|e| !e.is_empty())
    }

    /// Consumes the context: `Err` with every recorded error combined into one, in order.
    pub fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().expect("the context was already checked");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            combined.combine(e);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !thread::panicking() && self.errors.borrow().is_some() {
            panic!("a derive's error context was dropped without `Ctxt::check`");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_combined_in_order() {
        let cx = Ctxt::new();
        assert!(!cx.has_errors());
        cx.error_at(Span::call_site(), "first");
        cx.error_at(Span::call_site(), "second");
        assert!(cx.has_errors());
        let messages: Vec<String> = cx.check().unwrap_err().into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages, ["first", "second"]);
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    #[should_panic(expected = "dropped without `Ctxt::check`")]
    fn an_unchecked_context_panics() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "lost");
    }
}
