//! Every derive is one pipeline, as in serde_derive and thiserror: build the model from the
//! input ([`Derive::from_syn`]), check it ([`Derive::check`]), and expand it
//! ([`Derive::expand`]) when the context holds no error; else emit the errors and the
//! [`Derive::fallback`].

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::internals::ctxt::Ctxt;

/// One derive's model and its phases.
pub trait Derive<'a>: Sized {
    /// Builds the model, recording the errors of the input and its attributes; `None` when
    /// there is no model to check (an error is recorded).
    fn from_syn(input: &'a DeriveInput, cx: &Ctxt) -> Option<Self>;

    /// Records every rule the model breaks.
    fn check(&self, cx: &Ctxt);

    /// The generated items of a checked model.
    fn expand(&self) -> TokenStream;

    /// What to emit after the errors: the generated items' shape without their checks or
    /// bodies, so that the user's code around the type reports nothing more.
    fn fallback(input: &'a DeriveInput, model: Option<&Self>) -> TokenStream;
}

/// Runs derive `D` on `input`.
pub fn derive<'a, D: Derive<'a>>(input: &'a DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let model = D::from_syn(input, &cx);
    if let Some(model) = &model {
        model.check(&cx);
    }
    match (cx.check(), &model) {
        (Ok(()), Some(model)) => model.expand(),
        (result, _) => {
            let mut out = result.err().map(syn::Error::into_compile_error).unwrap_or_default();
            out.extend(D::fallback(input, model.as_ref()));
            out
        }
    }
}
