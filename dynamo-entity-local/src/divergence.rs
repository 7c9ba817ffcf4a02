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
        /// let engine = Engine::DynamoDbLocal;
        /// let minimum = if engine.diverges(Divergence::EmptyReadsCostNothing) { 0.0 } else { 0.5 };
        /// assert_eq!(minimum, 0.0);
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
            /// assert!(Engine::DynamoDbLocal.diverges(Divergence::EmptyReadsCostNothing));
            /// assert!(!Engine::Dynoxide.diverges(Divergence::EmptyReadsCostNothing));
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
    /// Seen with DynamoDB Local 3.3.0 (`vector_search` tests): it answers `SearchVectors` with
    /// `UnknownOperationException`; it drops the `VectorIndexes` of a `CreateTable`, and then refuses
    /// their search schema attributes in `AttributeDefinitions` (not in any key schema).
    NoVectorSearch {
        engine: DynamoDbLocal,
        behaviour: "has no vector search: `SearchVectors` is an unknown operation; `CreateTable` leaves the `VectorIndexes` out of the table, and refuses the table when their search schema attributes are in `AttributeDefinitions`",
        documented: "a table may have vector indexes, and `SearchVectors` returns the items of one nearest a query vector with their scores",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/VectorSearchWorkingWith.html",
    },
    /// Seen with DynamoDB Local 3.3.0 (`capacity` and `scans` tests).
    EmptyReadsCostNothing {
        engine: DynamoDbLocal,
        behaviour: "reports 0 read units for a `Query` or `Scan` page that reads no item",
        documented: "a `Query` or `Scan` consumes at least 0.5 read units (eventually consistent), 1 strongly consistent, even when it reads nothing",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html#read-operation-consumption",
    },
    /// Seen with DynamoDB Local 3.3.0 (`capacity` and `batch` tests).
    BatchGetMissingKeysCostNothing {
        engine: DynamoDbLocal,
        behaviour: "charges nothing for a key of a `BatchGetItem` that finds no item",
        documented: "`BatchGetItem` reads each key as a `GetItem` would, and a `GetItem` of a missing item consumes the minimum, 0.5 read units (1 strongly consistent)",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html#read-operation-consumption",
    },
    /// Seen with DynamoDB Local 3.3.0 (`capacity` and `exactly_once_tx` tests).
    SmallTransactionsReportTwoUnits {
        engine: DynamoDbLocal,
        behaviour: "reports 2 write units for any `TransactWriteItems` of items under 1 KB, whatever their number, and for the replay of a client token",
        documented: "a transactional write consumes 2 write units per KB of each item; a call replayed by its client token reports the read units of reading the items, no write units",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling",
    },
    /// Seen with DynamoDB Local 3.3.0 (`capacity` test).
    TransactionalDeleteOfNothingOneUnit {
        engine: DynamoDbLocal,
        behaviour: "reports 1 write unit for a `TransactWriteItems` that deletes a missing item",
        documented: "a transactional write consumes 2 write units per KB, at least 2 for an item of under 1 KB (or none)",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling",
    },
    /// Seen with Dynoxide 3.2.0 (`capacity` test).
    TransactionUnitsSplitOtherwise {
        engine: Dynoxide,
        behaviour: "reports a transaction's write units split between the table and its GSIs otherwise than the rule (table 18 and GSI 5 where DynamoDB's rule gives 12 and 10)",
        documented: "a transactional write consumes 2 write units per KB of the item in the table and in each GSI whose entry it writes",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling",
    },
    /// Seen with Dynoxide 3.2.0 (`limits` test).
    TransactGetOver4MbAnswered {
        engine: Dynoxide,
        behaviour: "answers a `TransactGetItems` whose items add up to more than 4 MB",
        documented: "the items of a transaction add up to at most 4 MB; a larger `TransactGetItems` is refused with a `ValidationException`",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-dynamodb-transactions",
    },
    /// Seen with Dynoxide 3.2.0 (`multi_key` test).
    MultiAttributeSortKeyOver1024Bytes {
        engine: Dynoxide,
        behaviour: "accepts an item whose multi-attribute GSI sort key attributes add up to more than 1,024 bytes",
        documented: "a sort key is at most 1,024 bytes; the attributes of a multi-attribute sort key together too",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-partition-sort-keys",
    },
    /// Seen with Dynoxide 3.2.0 (`projected` test).
    UnprojectedFilterAnswered {
        engine: Dynoxide,
        behaviour: "answers a `Query` of a GSI whose filter names an attribute the index does not project (with no item) instead of refusing it",
        documented: "a query of a global secondary index sees only the attributes projected into it; naming another one is a `ValidationException`",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Projections",
    },
    /// Seen with Dynoxide 3.2.0 (`stream_table` test): its stream has one shard per table, and
    /// `DescribeStream` gives it the sequence number of its latest record as its end.
    OpenShardReportedClosed {
        engine: Dynoxide,
        behaviour: "`DescribeStream` reports the open shard of a table's stream with an `EndingSequenceNumber` (its latest record's) once it holds a record, yet later writes still go to it; a reader from `LATEST` therefore skips it as closed and reads none of them",
        documented: "a shard with an `EndingSequenceNumber` is closed and receives no more records; an open shard has a `StartingSequenceNumber` only",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html",
    },
    /// Seen with Dynoxide 3.2.0 (`upserts` test).
    AllOldOfAbsentItemIsItsKey {
        engine: Dynoxide,
        behaviour: "answers an `UpdateItem` with `ReturnValues=ALL_OLD` that creates the item with its key attributes",
        documented: "`ALL_OLD` returns the item as it was before the update; when there was none, no attributes",
        source: "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ReturnValues",
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
