//! The batch get builders: [`BatchGet`] (keys of one entity type, decoded items) and
//! [`BatchGetMixed`] (keys of any entity types, raw items).

use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;

use crate::batch::get_core::GetCore;
use crate::batch::get_outcome::BatchGetOutcome;
use crate::batch::get_run::GetEntry;
use crate::batch::key_id::key_id_of;
use crate::batch::run::Options;
use crate::error::{Error, ItemError};
use crate::retry::RetryPolicy;
use crate::schema::{Admits, AttributeNames, Entity, Item, Key, PrimaryKey};
use crate::table::{Table, Untyped};

/// A batch get of keys of one entity type, from [`Table::batch_get`]; see the
/// [module documentation](crate::batch) for what `send` does. Duplicate keys are an error.
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchGet<E> {
    core: GetCore,
    /// Report the items that do not decode in the outcome's `skipped` instead of failing.
    lenient: bool,
    _entity: PhantomData<fn() -> E>,
}

impl<E> fmt::Debug for BatchGet<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchGet").field("keys", &self.core.keys.len()).finish_non_exhaustive()
    }
}

/// A batch get of keys of any entity types, from [`Table::batch_get_mixed`], returning raw
/// items (decode each with [`Entity::from_item`] or a table-level enum).
///
/// From a declared handle ([`Table<D>`](Table)) it is a `BatchGetMixed<D>`, which accepts only
/// the keys of the entities `D` lists ([`Admits`]): another entity is a compile error.
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchGetMixed<D = Untyped> {
    core: GetCore,
    decl: PhantomData<fn() -> D>,
}

impl<D> fmt::Debug for BatchGetMixed<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchGetMixed").field("core", &self.core).finish()
    }
}

macro_rules! get_options {
    () => {
        /// At most `n` requests in flight at once (0 counts as 1). Default
        /// [`DEFAULT_CONCURRENCY`](crate::batch::DEFAULT_CONCURRENCY) (4).
        pub fn concurrency(mut self, n: usize) -> Self {
            self.core.options.concurrency = n.max(1);
            self
        }

        /// The retry bound and backoff; default [`RetryPolicy::DEFAULT`].
        pub fn retry(mut self, policy: RetryPolicy) -> Self {
            self.core.options.retry = policy;
            self
        }

        /// Reports the total consumed capacity in `consumed_capacity` too (every batch asks
        /// for it, `ReturnConsumedCapacity = INDEXES`, and reports it in `consumed`).
        pub fn return_consumed_capacity(mut self) -> Self {
            self.core.options.capacity = true;
            self
        }

        /// Strongly consistent reads (twice the read capacity).
        pub fn consistent_read(mut self) -> Self {
            self.core.consistent = true;
            self
        }

        /// The `BatchGetItem` requests `send` sends first, one per [`MAX_GET_KEYS`](crate::batch::MAX_GET_KEYS) keys, built
        /// by the same code, without sending them (retries of unprocessed keys send subsets of
        /// these).
        ///
        /// # Errors
        /// As `send` before sending: a key's encoding error, [`Error::DuplicateKey`].
        pub fn render(&self) -> Result<Vec<BatchGetItemInput>, Error> {
            self.core.render()
        }

        /// The number of keys.
        pub fn len(&self) -> usize {
            self.core.keys.len()
        }

        /// True when there is no key.
        pub fn is_empty(&self) -> bool {
            self.core.keys.is_empty()
        }
    };
}

impl<E: Entity> BatchGet<E> {
    pub(crate) fn new(table: Table, keys: impl IntoIterator<Item = Key<E>>) -> Self {
        let keys = keys.into_iter().map(GetEntry::new).collect();
        let core = GetCore { table, keys, options: Options::default(), consistent: false };
        BatchGet { core, lenient: false, _entity: PhantomData }
    }

    /// Adds more keys.
    pub fn keys(mut self, keys: impl IntoIterator<Item = Key<E>>) -> Self {
        self.core.keys.extend(keys.into_iter().map(GetEntry::new));
        self
    }

    get_options!();

    /// A lenient batch get: an item that does not decode as `E` does not fail the batch; its
    /// slot in `items` is `None` and it is reported, with its position among the keys, in the
    /// outcome's [`skipped`](BatchGetOutcome::skipped), as a lenient query reports such items in
    /// its page's. The other items decode as in a strict batch get. For tables that other
    /// clients also write, where one malformed item must not hide the rest.
    ///
    /// ```no_run
    /// # use dynamo_entity::{Entity, Table};
    /// # #[derive(Entity, Debug, Clone)]
    /// # #[entity(pk = "USER#<id>", sk = "PROFILE")]
    /// # struct Profile { id: String }
    /// # async fn f(table: Table) -> dynamo_entity::Result<()> {
    /// let outcome = table.batch_get([Profile::key("u1"), Profile::key("u2")]).lenient().send().await?;
    /// for (position, bad) in &outcome.skipped {
    ///     tracing::warn!(position, key = %bad.key, error = %bad.error, "an item that does not decode");
    /// }
    /// # Ok(()) }
    /// ```
    pub fn lenient(mut self) -> Self {
        self.lenient = true;
        self
    }

    /// Reads every key: see the [module documentation](crate::batch). The items come back in the
    /// order of the keys.
    ///
    /// # Errors
    /// Before sending: a key's encoding error, [`Error::DuplicateKey`]. After:
    /// [`Error::Sdk`] when a request failed with an error that retrying cannot fix (nothing
    /// read is returned then: reading again is safe); [`Error::WrongEntity`] /
    /// [`Error::Decode`] when an item does not decode as `E` (the whole batch fails then, unless
    /// it is [`lenient`](Self::lenient)).
    pub async fn send(self) -> Result<BatchGetOutcome<E>, Error> {
        let mut raw = self.core.send().await?;
        let mut skipped = Vec::new();
        let mut items = Vec::with_capacity(raw.items.len());
        for (position, item) in std::mem::take(&mut raw.items).into_iter().enumerate() {
            let Some(item) = item else {
                items.push(None);
                continue;
            };
            match E::from_item(&item) {
                Ok(decoded) => items.push(Some(decoded)),
                Err(error) if self.lenient => {
                    skipped.push((position, ItemError::new(E::NAMES, item, error)));
                    items.push(None);
                }
                Err(error) => return Err(error),
            }
        }
        let mut outcome = raw.with_items(items);
        outcome.skipped = skipped;
        Ok(outcome)
    }

    /// As [`lenient().send()`](Self::lenient), with the reported items beside the outcome.
    ///
    /// # Errors
    /// As [`send`](Self::send), without the decoding errors.
    #[deprecated(
        since = "0.1.0",
        note = "use `.lenient().send()`, whose outcome holds the reported items in `skipped`"
    )]
    pub async fn send_lenient(self) -> Result<(BatchGetOutcome<E>, Vec<(usize, ItemError)>), Error> {
        let mut outcome = self.lenient().send().await?;
        let skipped = std::mem::take(&mut outcome.skipped);
        Ok((outcome, skipped))
    }

    /// As [`send`](Self::send), the items raw, not decoded: for reads that decode each item on
    /// its own (a lenient query's whole items).
    pub(crate) async fn send_raw(self) -> Result<BatchGetOutcome<Item>, Error> {
        self.core.send().await
    }
}

impl<D> BatchGetMixed<D> {
    pub(crate) fn new(table: Table) -> Self {
        BatchGetMixed {
            core: GetCore { table, keys: Vec::new(), options: Options::default(), consistent: false },
            decl: PhantomData,
        }
    }

    /// Adds a key of any entity type.
    pub fn key<E: Entity>(mut self, key: Key<E>) -> Self
    where
        D: Admits<E>,
    {
        self.core.keys.push(GetEntry::new(key));
        self
    }

    /// Adds keys of one entity type.
    pub fn keys<E: Entity>(mut self, keys: impl IntoIterator<Item = Key<E>>) -> Self
    where
        D: Admits<E>,
    {
        self.core.keys.extend(keys.into_iter().map(GetEntry::new));
        self
    }

    /// Adds a primary key read from an index item whose entity type is not known (a projection
    /// without the type attribute); `names` are the table's attribute names, `entity` names the
    /// read in errors.
    pub(crate) fn primary_key(mut self, entity: &'static str, names: &'static AttributeNames, key: PrimaryKey) -> Self {
        let checked = key_id_of(&key, names).map(|_| ());
        self.core.keys.push(checked.map(|()| GetEntry { entity, names, key }));
        self
    }

    get_options!();

    /// Reads every key; the raw items come back in the order of the keys.
    ///
    /// # Errors
    /// As [`BatchGet::send`], without the decoding errors.
    pub async fn send(self) -> Result<BatchGetOutcome<Item>, Error> {
        self.core.send().await
    }
}
