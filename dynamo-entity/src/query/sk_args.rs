//! The arguments of sort-key conditions, typed by the sort key's parts: [`SkArgs`] (a leading
//! subset of the parts, or all), [`FullSk`] (all, for `sk_eq`), [`PartialSk`] (a strict leading
//! subset, for `sk_begins_with`) and [`PartArg`] (one part's argument). Each trait's
//! `on_unimplemented` message says how to give the part.

use crate::key::{KeyError, KeyPart, KeyWriter};

/// Sort-key arguments: a leading subset (or all) of the parts of a sort key whose field types
/// are the tuple `S`. Implemented for tuples of references `(&A::Arg, &B::Arg, …)`, for `()`
/// and, for the first part alone, for `&A::Arg` itself (`sk_begins_with("2024")` as well as
/// `sk_begins_with((&"2024",))`; `sk_eq("x")` for a one-part key).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value of this sort key, whose parts are `{S}`",
    label = "expected references to the sort key's parts `{S}` in template order, found `{Self}`",
    note = "give each part as the key function takes it (`&str` for a `String` part, `&Timestamp` for a \
            `Timestamp`, `&u32` for a `u32`), one bare reference for a one-part key or for the first part alone, or a tuple `(&a, &b)` \
            of leading parts; text is not a `Timestamp`: write `&\"2024-05-01T00:00:00Z\".parse::<Timestamp>()?`"
)]
pub trait SkArgs<S> {
    /// How many parts these arguments give.
    const PARTS: usize;
    #[doc(hidden)]
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError>;
}

/// [`SkArgs`] that give every part of the sort key.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the whole sort key, whose parts are `{S}`",
    label = "expected a reference to each of the sort key's parts `{S}`, in template order",
    note = "`sk_eq` takes every part (`&str` for a `String` part, `&Timestamp` for a `Timestamp`, one bare \
            reference for a one-part key); for the leading parts only, use `sk_begins_with`"
)]
pub trait FullSk<S>: SkArgs<S> {}

/// [`SkArgs`] that give a strict leading subset of the parts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a leading part of the sort key, whose parts are `{S}`",
    label = "expected references to the first parts of `{S}`, in template order, but not all of them",
    note = "`sk_begins_with` takes the leading parts (`&str` for a `String` part, `&Timestamp` for a \
            `Timestamp`: text is not a `Timestamp`, write `&\"2024-05-01T00:00:00Z\".parse::<Timestamp>()?`); \
            with every part, use `sk_eq`"
)]
pub trait PartialSk<S>: SkArgs<S> {}

macro_rules! one {
    ($t:ident) => {
        1
    };
}

/// For the sort key `(T0, …, Tn)`: an impl of [`SkArgs`] for every leading subset of the parts
/// (as a tuple of references `(&A0, …)`, each `Ai` the part's [`KeyPart::Arg`] by [`PartArg`]),
/// marked [`PartialSk`] for strict subsets and [`FullSk`] for all. Each part is given as a pair
/// `(Ti Ai)`: its type and its argument's.
macro_rules! sk_args {
    ([$(($all:ident $alla:ident)),+] [$(($given:ident $ga:ident))*]) => {
        sk_args!(@impl [$($all),+] [$(($given $ga))*]);
        impl<$($all: KeyPart,)+ $($ga: ?Sized + KeyPart + PartArg<$given::Arg>,)*> FullSk<($($all,)+)> for ($(&$ga,)*) {}
    };
    ([$(($all:ident $alla:ident)),+] [$(($given:ident $ga:ident))*] ($next:ident $nexta:ident) $(($rest:ident $resta:ident))*) => {
        sk_args!(@impl [$($all),+] [$(($given $ga))*]);
        impl<$($all: KeyPart,)+ $($ga: ?Sized + KeyPart + PartArg<$given::Arg>,)*> PartialSk<($($all,)+)> for ($(&$ga,)*) {}
        sk_args!([$(($all $alla)),+] [$(($given $ga))* ($next $nexta)] $(($rest $resta))*);
    };
    (@impl [$($all:ident),+] [$(($given:ident $ga:ident))*]) => {
        impl<$($all: KeyPart,)+ $($ga: ?Sized + KeyPart + PartArg<$given::Arg>,)*> SkArgs<($($all,)+)> for ($(&$ga,)*) {
            const PARTS: usize = 0 $(+ one!($given))*;
            #[allow(non_snake_case)]
            fn write(&self, _w: &mut KeyWriter) -> Result<(), KeyError> {
                let ($($given,)*) = self;
                $(_w.part(*$given)?;)*
                Ok(())
            }
        }
    };
}

sk_args!([(T0 A0)] [] (T0 A0));
sk_args!([(T0 A0), (T1 A1)] [] (T0 A0) (T1 A1));
sk_args!([(T0 A0), (T1 A1), (T2 A2)] [] (T0 A0) (T1 A1) (T2 A2));
sk_args!([(T0 A0), (T1 A1), (T2 A2), (T3 A3)] [] (T0 A0) (T1 A1) (T2 A2) (T3 A3));
sk_args!([(T0 A0), (T1 A1), (T2 A2), (T3 A3), (T4 A4)] [] (T0 A0) (T1 A1) (T2 A2) (T3 A3) (T4 A4));
sk_args!([(T0 A0), (T1 A1), (T2 A2), (T3 A3), (T4 A4), (T5 A5)] [] (T0 A0) (T1 A1) (T2 A2) (T3 A3) (T4 A4) (T5 A5));

/// One sort-key argument `&A` for the part `P` (bare, or in a tuple): implemented for `A = P`
/// only, and asked of `A = P::Arg` by the impls of [`SkArgs`]. It exists for its message:
/// matching `&A` against `&P::Arg` in an impl header would report a wrong type as rustc's type
/// mismatch (E0271, which reads backwards), where this bound names the part's type and how to
/// give it.
#[diagnostic::on_unimplemented(
    message = "this sort key part takes a `&{P}`, not a `&{Self}`",
    label = "expected `&{P}` for this part of the sort key, found `&{Self}`",
    note = "give each part as the key function takes it: `&str` for a `String` part, `&u32` for a `u32`, \
            `&Timestamp` for a `Timestamp` (text is not a `Timestamp`: write \
            `&\"2024-05-01T00:00:00Z\".parse::<Timestamp>()?`), `&Date` for a `Date`"
)]
pub trait PartArg<P: ?Sized> {}
impl<P: ?Sized> PartArg<P> for P {}

// A one-part sort key also takes its part without a tuple.
impl<T0: KeyPart, A: ?Sized + KeyPart + PartArg<T0::Arg>> SkArgs<(T0,)> for &A {
    const PARTS: usize = 1;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> {
        w.part(*self)
    }
}
impl<T0: KeyPart, A: ?Sized + KeyPart + PartArg<T0::Arg>> FullSk<(T0,)> for &A {}

// The first part of a longer sort key also stands alone, for `sk_begins_with("2024")` and the
// range conditions: the same as the one-part tuple `(&"2024",)`.
macro_rules! first_part {
    ($($rest:ident),+) => {
        impl<T0: KeyPart, $($rest: KeyPart,)+ A: ?Sized + KeyPart + PartArg<T0::Arg>> SkArgs<(T0, $($rest,)+)> for &A {
            const PARTS: usize = 1;
            fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> {
                w.part(*self)
            }
        }
        impl<T0: KeyPart, $($rest: KeyPart,)+ A: ?Sized + KeyPart + PartArg<T0::Arg>> PartialSk<(T0, $($rest,)+)> for &A {}
    };
}
first_part!(T1);
first_part!(T1, T2);
first_part!(T1, T2, T3);
first_part!(T1, T2, T3, T4);
first_part!(T1, T2, T3, T4, T5);

// A constant sort key (`META`) has no parts.
impl SkArgs<()> for () {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> {
        Ok(())
    }
}
impl FullSk<()> for () {}

/// The sort key of a query function whose `#[derive(Entity)]` refused one of the key's part
/// types (a float, say): it takes every argument, so that a query using it reports nothing
/// more than the derive's own error. Only in the code of a failed derive, which never runs.
#[doc(hidden)]
#[derive(Debug)]
pub enum RefusedSortKey {}
impl<A: ?Sized> SkArgs<RefusedSortKey> for A {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> {
        Ok(())
    }
}
impl<A: ?Sized> FullSk<RefusedSortKey> for A {}
impl<A: ?Sized> PartialSk<RefusedSortKey> for A {}
