//! Where an engine departs from DynamoDB's documented behaviour: one list, shown in the docs and
//! asked by the tests.

use crate::engine::Engine;

/// Declares [`Divergence`] and [`DIVERGENCES`] from one list, and renders that list as the table
/// in their documentation, so the table cannot drift from what the tests ask.
macro_rules! divergences {
    ($(
        $(#[$meta:meta])*
        $variant:ident {
            engine: $engine:ident,
            behaviour: $behaviour:literal,
            documented: $documented:literal,
            source: $source:literal $(,)?
        }
    ),* $(,)?) => {
        /// A way in which one engine departs from DynamoDB's documented behaviour.
        ///
        /// Every divergence is in [`DIVERGENCES`]; [`Engine::diverges`] tells whether an engine
        /// has one. A test of the behaviour asserts DynamoDB's documented behaviour unless the
        /// engine it runs on diverges, and then the engine's, naming the divergence:
        ///
        /// ```
        /// use dynamo_entity_local::{Divergence, Engine};
        /// let engine = Engine::Dynoxide;
        /// let accepts_1025_bytes = engine.diverges(Divergence::SortKeyOver1024Bytes);
        /// assert!(!accepts_1025_bytes);
        /// ```
        ///
        /// | divergence | engine | the engine's behaviour | DynamoDB's documented behaviour |
        /// |---|---|---|---|
        $(
            #[doc = concat!(
                "| [`", stringify!($variant), "`](Divergence::", stringify!($variant), ") | ",
                "[`", stringify!($engine), "`](Engine::", stringify!($engine), ") | ", $behaviour, " | ", $documented, " ([guide](", $source, ")) |"
            )]
        )*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Divergence {
            $(
                $(#[$meta])*
                #[doc = ""]
                #[doc = concat!("Engine: ", stringify!($engine), ". ", $behaviour)]
                #[doc = ""]
                #[doc = concat!("DynamoDB: ", $documented, " ([developer guide](", $source, "))")]
                $variant,
            )*
        }

        /// Every [`Divergence`] of every engine, in one list:
        ///
        /// | divergence | engine | the engine's behaviour | DynamoDB's documented behaviour |
        /// |---|---|---|---|
        $(
            #[doc = concat!(
                "| [`", stringify!($variant), "`](Divergence::", stringify!($variant), ") | ",
                "[`", stringify!($engine), "`](Engine::", stringify!($engine), ") | ", $behaviour, " | ", $documented, " ([guide](", $source, ")) |"
            )]
        )*
        pub const DIVERGENCES: &[Divergence] = &[$(Divergence::$variant),*];

        impl Engine {
            /// True if this engine departs from DynamoDB's documented behaviour in the way
            /// `divergence` describes, that is if `divergence` is listed in [`DIVERGENCES`] for
            /// this engine. A test of that behaviour asserts DynamoDB's when this is false and
            /// the engine's when it is true.
            ///
            /// ```
            /// use dynamo_entity_local::{Divergence, Engine};
            /// assert!(Engine::DynamoDbLocal.diverges(Divergence::SortKeyOver1024Bytes));
            /// assert!(!Engine::Dynoxide.diverges(Divergence::SortKeyOver1024Bytes));
            /// ```
            #[must_use]
            pub fn diverges(self, divergence: Divergence) -> bool {
                divergence.engine() == self
            }
        }

        impl Divergence {
            /// The engine that diverges.
            #[must_use]
            pub fn engine(self) -> Engine {
                match self {
                    $(Divergence::$variant => Engine::$engine,)*
                }
            }

            /// What the engine does.
            #[must_use]
            pub fn behaviour(self) -> &'static str {
                match self {
                    $(Divergence::$variant => $behaviour,)*
                }
            }

            /// What DynamoDB does, as its developer guide documents it.
            #[must_use]
            pub fn documented(self) -> &'static str {
                match self {
                    $(Divergence::$variant => $documented,)*
                }
            }

            /// The address of the developer guide page that documents DynamoDB's behaviour.
            #[must_use]
            pub fn source(self) -> &'static str {
                match self {
                    $(Divergence::$variant => $source,)*
                }
            }
        }
    };
}

divergences! {
    /// Seen with DynamoDB Local 3.3.0: a `PutItem` whose sort key is 1,025 bytes long succeeds.
    SortKeyOver1024Bytes {
        engine: DynamoDbLocal,
        behaviour: "accepts a sort key value longer than 1,024 bytes",
        documented: "a sort key value is at most 1,024 bytes; a longer one is refused with a `ValidationException`",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-partition-sort-keys",
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_divergence_is_listed_once_and_described() {
        for (i, divergence) in DIVERGENCES.iter().enumerate() {
            assert!(!DIVERGENCES[..i].contains(divergence), "{divergence:?} twice");
            assert!(divergence.engine().diverges(*divergence));
            assert!(!divergence.behaviour().is_empty() && !divergence.documented().is_empty());
            assert!(divergence.source().starts_with("https://docs.aws.amazon.com/amazondynamodb/"));
            let others = Engine::ALL.iter().filter(|engine| engine.diverges(*divergence)).count();
            assert_eq!(others, 1, "{divergence:?} belongs to one engine");
        }
    }
}
