//! The names of a table's key attributes and indexes ([`AttributeNames`], [`Index`]) and an
//! encoded primary key ([`PrimaryKey`]): one names system, used for items, keys, queries,
//! cursors, errors and logs.

use std::collections::HashMap;
use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::Item;

/// The table's partition key attribute by default ([`AttributeNames::DEFAULT`]).
pub const PK: &str = "PK";
/// The table's sort key attribute by default ([`AttributeNames::DEFAULT`]).
pub const SK: &str = "SK";
/// The attribute holding the entity type name on every item, by default
/// ([`AttributeNames::DEFAULT`]). Decoding dispatches on it, never on key prefixes.
pub const TYPE_ATTRIBUTE: &str = "_type";
/// The highest GSI number: `gsi1` to `gsi20` (DynamoDB's default quota is 20 GSIs a table).
pub const MAX_GSI: u8 = 20;

/// The highest LSI number: `lsi1` to `lsi5` (DynamoDB allows 5 local secondary indexes a table).
pub const MAX_LSI: u8 = 5;

/// The name of the inverted index, [`Index::Inverted`]: a GSI whose partition key is `SK` and
/// whose sort key is `PK`.
pub const INVERTED_INDEX: &str = "INVERTED";

/// The names of one GSI: its index name and its key attributes (see [`AttributeNames`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GsiNames {
    /// The index name, `IndexName` in `Query` and `CreateTable` (default `GSI<n>`).
    pub index: &'static str,
    /// The partition key attribute (default `GSI<n>PK`).
    pub pk: &'static str,
    /// The sort key attribute (default `GSI<n>SK`).
    pub sk: &'static str,
}

/// The names of one LSI: its index name and its sort key attribute; its partition key is the
/// table's (see [`AttributeNames`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LsiNames {
    /// The index name (default `LSI<n>`).
    pub index: &'static str,
    /// The sort key attribute (default `LSI<n>SK`).
    pub sk: &'static str,
}

/// The attribute and index names of one table: the table's partition and sort key attributes,
/// the entity type attribute, and each secondary index's name and key attributes.
///
/// Every name is a `&'static str` constant chosen at compile time, by `#[derive(TableDef)]`'s
/// `#[table(pk = "pk", sk = "sk", entity_type = "__type", gsi1(name = "ByEmail", pk = "gsi1pk",
/// sk = "gsi1sk"), ...)]`, and an entity uses its table's names through
/// `#[entity(table = AppTable)]` ([`Entity::NAMES`](crate::Entity::NAMES)). [`AttributeNames::DEFAULT`] holds the
/// names used when nothing is declared: `PK`, `SK`, `_type`, `GSI<n>` keyed on
/// `GSI<n>PK`/`GSI<n>SK`, `LSI<n>` sorted on `LSI<n>SK`, and `INVERTED`.
///
/// DynamoDB's rules, which `#[derive(TableDef)]` checks at compile time: a key attribute name is 1
/// to 255 bytes; an index name is 3 to 255 characters of `a-z A-Z 0-9 _ . -`; the index names
/// of one table are distinct; and no two roles (the table's keys, the type attribute, the
/// indexes' keys) share an attribute name, or writing one would overwrite the other.
///
/// ```
/// use dynamo_entity::{AttributeNames, Index};
/// const NAMES: AttributeNames = AttributeNames::DEFAULT
///     .with_keys("pk", "sk")
///     .with_entity_type("__type")
///     .with_gsi(1, "ByEmail", "gsi1pk", "gsi1sk");
/// assert_eq!(NAMES.pk_of(Index::Gsi(1)), "gsi1pk");
/// assert_eq!(NAMES.index_name(Index::Gsi(1)), Some("ByEmail"));
/// assert_eq!(NAMES.sk_of(Index::Inverted), "pk");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeNames {
    /// The table's partition key attribute (default [`PK`]).
    pub pk: &'static str,
    /// The table's sort key attribute (default [`SK`]).
    pub sk: &'static str,
    /// The entity type attribute, present on every item (default [`TYPE_ATTRIBUTE`]).
    pub entity_type: &'static str,
    /// GSI `n`'s names at `gsi[n - 1]`, for `n` from 1 to [`MAX_GSI`].
    pub gsi: [GsiNames; MAX_GSI as usize],
    /// LSI `n`'s names at `lsi[n - 1]`, for `n` from 1 to [`MAX_LSI`].
    pub lsi: [LsiNames; MAX_LSI as usize],
    /// The inverted index's name (default [`INVERTED_INDEX`]); it is keyed on `sk` / `pk`.
    pub inverted: &'static str,
}

macro_rules! default_names {
    ($($g:literal),* ; $($l:literal),*) => {
        AttributeNames {
            pk: PK,
            sk: SK,
            entity_type: TYPE_ATTRIBUTE,
            gsi: [$(GsiNames {
                index: concat!("GSI", $g),
                pk: concat!("GSI", $g, "PK"),
                sk: concat!("GSI", $g, "SK"),
            }),*],
            lsi: [$(LsiNames { index: concat!("LSI", $l), sk: concat!("LSI", $l, "SK") }),*],
            inverted: INVERTED_INDEX,
        }
    };
}

impl AttributeNames {
    /// The names used without a `#[derive(TableDef)]` naming them: `PK`, `SK`, `_type`, `GSI<n>`
    /// on `GSI<n>PK`/`GSI<n>SK`, `LSI<n>` on `LSI<n>SK`, `INVERTED`.
    pub const DEFAULT: AttributeNames =
        default_names!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20; 1, 2, 3, 4, 5);

    /// These names with the table's partition key attribute `pk` and sort key attribute `sk`.
    pub const fn with_keys(mut self, pk: &'static str, sk: &'static str) -> AttributeNames {
        self.pk = pk;
        self.sk = sk;
        self
    }

    /// These names with the entity type attribute `name`.
    pub const fn with_entity_type(mut self, name: &'static str) -> AttributeNames {
        self.entity_type = name;
        self
    }

    /// These names for a table without an entity type attribute (`#[table(entity_type = none)]`):
    /// items are told apart by their key templates alone, which the table's compile-time checks
    /// prove disjoint. [`entity_type`](Self::entity_type) is then empty, no write stores a type
    /// and no read checks one.
    pub const fn without_entity_type(mut self) -> AttributeNames {
        self.entity_type = "";
        self
    }

    /// Whether items of the table carry an entity type attribute (see
    /// [`without_entity_type`](Self::without_entity_type)).
    pub const fn has_entity_type(&self) -> bool {
        !self.entity_type.is_empty()
    }

    /// These names with GSI `n` (1 to [`MAX_GSI`]) named `index` and keyed on `pk` / `sk`.
    ///
    /// # Panics
    /// When `n` is outside 1 to [`MAX_GSI`] (in constant evaluation: a compile error).
    pub const fn with_gsi(mut self, n: u8, index: &'static str, pk: &'static str, sk: &'static str) -> AttributeNames {
        assert!(n >= 1 && n <= MAX_GSI, "GSIs are numbered 1 to 20");
        self.gsi[n as usize - 1] = GsiNames { index, pk, sk };
        self
    }

    /// These names with LSI `n` (1 to [`MAX_LSI`]) named `index` and sorted on `sk`.
    ///
    /// # Panics
    /// When `n` is outside 1 to [`MAX_LSI`] (in constant evaluation: a compile error).
    pub const fn with_lsi(mut self, n: u8, index: &'static str, sk: &'static str) -> AttributeNames {
        assert!(n >= 1 && n <= MAX_LSI, "LSIs are numbered 1 to 5");
        self.lsi[n as usize - 1] = LsiNames { index, sk };
        self
    }

    /// These names with the inverted index named `index`.
    pub const fn with_inverted(mut self, index: &'static str) -> AttributeNames {
        self.inverted = index;
        self
    }

    /// The index name for `Query`'s `IndexName`: `None` for the primary index (and for an
    /// index number out of range).
    pub const fn index_name(&self, index: Index) -> Option<&'static str> {
        match index {
            Index::Primary => None,
            Index::Gsi(n) if n >= 1 && n <= MAX_GSI => Some(self.gsi[n as usize - 1].index),
            Index::Lsi(n) if n >= 1 && n <= MAX_LSI => Some(self.lsi[n as usize - 1].index),
            Index::Inverted => Some(self.inverted),
            Index::Gsi(_) | Index::Lsi(_) => None,
        }
    }

    /// `index` named for messages: its index name under these names, `primary index` for the
    /// table's own, `unknown index` for a number out of range.
    pub const fn label(&self, index: Index) -> &'static str {
        match (index, self.index_name(index)) {
            (_, Some(name)) => name,
            (Index::Primary, None) => "primary index",
            (_, None) => "unknown index",
        }
    }

    /// The partition key attribute of `index`: `pk` for the primary index and every LSI, the
    /// GSI's own, `sk` for the inverted index.
    pub const fn pk_of(&self, index: Index) -> &'static str {
        match index {
            Index::Primary | Index::Lsi(_) => self.pk,
            Index::Gsi(n) if n >= 1 && n <= MAX_GSI => self.gsi[n as usize - 1].pk,
            Index::Gsi(_) => "GSI?PK",
            Index::Inverted => self.sk,
        }
    }

    /// The sort key attribute of `index`: `sk`, the GSI's or LSI's own, `pk` for the inverted
    /// index.
    pub const fn sk_of(&self, index: Index) -> &'static str {
        match index {
            Index::Primary => self.sk,
            Index::Gsi(n) if n >= 1 && n <= MAX_GSI => self.gsi[n as usize - 1].sk,
            Index::Lsi(n) if n >= 1 && n <= MAX_LSI => self.lsi[n as usize - 1].sk,
            Index::Gsi(_) => "GSI?SK",
            Index::Lsi(_) => "LSI?SK",
            Index::Inverted => self.pk,
        }
    }

    /// Whether these are the [`DEFAULT`](Self::DEFAULT) names.
    pub fn is_default(&self) -> bool {
        *self == AttributeNames::DEFAULT
    }

    /// Whether `a` and `b` are the same names, in constant evaluation (the check of
    /// `#[derive(TableDef)]` that every entity of a table uses the table's names).
    pub const fn same(a: &AttributeNames, b: &AttributeNames) -> bool {
        use crate::key::str_eq;
        if !(str_eq(a.pk, b.pk) && str_eq(a.sk, b.sk) && str_eq(a.entity_type, b.entity_type)) {
            return false;
        }
        if !str_eq(a.inverted, b.inverted) {
            return false;
        }
        let mut i = 0;
        while i < MAX_GSI as usize {
            let (x, y) = (&a.gsi[i], &b.gsi[i]);
            if !(str_eq(x.index, y.index) && str_eq(x.pk, y.pk) && str_eq(x.sk, y.sk)) {
                return false;
            }
            i += 1;
        }
        let mut i = 0;
        while i < MAX_LSI as usize {
            if !(str_eq(a.lsi[i].index, b.lsi[i].index) && str_eq(a.lsi[i].sk, b.lsi[i].sk)) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The primary key `key` as an item fragment `{pk, sk}` under these names.
    pub fn key_item(&self, key: &PrimaryKey) -> Item {
        let mut m = HashMap::with_capacity(2);
        m.insert(self.pk.to_owned(), key.pk.clone());
        m.insert(self.sk.to_owned(), key.sk.clone());
        m
    }

    /// The primary key of an item read from the table, as `pk=… sk=…` under these names, for
    /// error messages.
    pub fn describe_key(&self, item: &Item) -> String {
        let get = |k: &str| item.get(k).map_or_else(|| "<absent>".to_owned(), |v| show(v).to_string());
        format!("{}={} {}={}", self.pk, get(self.pk), self.sk, get(self.sk))
    }

    /// The partition key value `pk` as `pk=…` under these names, for error messages.
    pub fn show_partition(&self, pk: &AttributeValue) -> String {
        format!("{}={}", self.pk, show(pk))
    }

    /// The length of [`show_partition`](Self::show_partition)'s text, without building it.
    pub(crate) fn show_partition_len(&self, pk: &AttributeValue) -> usize {
        self.pk.len() + 1 + show(pk).len()
    }

    /// The primary key `key` as `pk=… sk=…` under these names, for error messages.
    pub fn show_key(&self, key: &PrimaryKey) -> String {
        format!("{}={} {}={}", self.pk, show(&key.pk), self.sk, show(&key.sk))
    }
}

impl Default for AttributeNames {
    fn default() -> AttributeNames {
        AttributeNames::DEFAULT
    }
}

/// An index of the table: the primary index, a GSI `GSI<n>` (1 to 20) keyed on the attributes
/// `GSI<n>PK` / `GSI<n>SK`, an LSI `LSI<n>` (1 to 5) keyed on `PK` / `LSI<n>SK`, or the inverted
/// index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Index {
    /// The table itself, keyed on `PK` / `SK`.
    Primary,
    /// Global secondary index number `n` (1 to 20).
    Gsi(u8),
    /// The inverted index [`INVERTED_INDEX`] (`#[entity(inverted)]`): a GSI keyed on the table's
    /// own key attributes the other way round, partition key `SK` and sort key `PK`. It writes
    /// no attributes of its own, so it holds every item of the table (it is not sparse), and
    /// it turns an item collection inside out: the items whose sort key is `WISH#<product_id>`,
    /// across every partition, are one partition of this index, sorted by their `PK`. That is
    /// how a many-to-many relationship stored as an adjacency list (one item per edge, in the
    /// partition of one end, keyed on the id of the other end) is read from the other end.
    ///
    /// Cost: with projection `ALL`, every write of any item also writes its copy in the index
    /// (one more write of the item's size, in write capacity units) and the table's storage
    /// doubles. As a GSI sort key, `PK` is limited to 1,024 bytes instead of 2,048 in a table
    /// that has the index: DynamoDB refuses writes of longer `PK`s.
    Inverted,
    /// Local secondary index number `n` (1 to [`MAX_LSI`]), named `LSI<n>`: partition key `PK`
    /// (the table's own), sort key `LSI<n>SK`, a scalar attribute (`S` or `N`) that the entities
    /// writing the index fill from their `lsi<n>` template. It orders one item collection of the
    /// table a second way, with strongly consistent reads available as on the table.
    ///
    /// DynamoDB's rules: a table has at most 5 LSIs, created only with the table (`CreateTable`)
    /// and never added, changed or removed later; an item without `LSI<n>SK` is not in the index
    /// (sparse); and in a table with an LSI, the items of one partition key value (the table's
    /// items and their LSI entries together) may hold at most 10 GB, after which writes to that
    /// partition key value fail with `ItemCollectionSizeLimitExceededException`.
    Lsi(u8),
}

impl Index {
    /// Whether the index is a local secondary index: it shares the table's partition key and
    /// writes only its own sort key attribute.
    pub fn is_local(self) -> bool {
        matches!(self, Index::Lsi(_))
    }
}

/// `Index` shows as its name under [`AttributeNames::DEFAULT`] (`GSI1`, `LSI2`, `INVERTED`, or
/// `primary index`); the library's own messages name an index under its table's names with
/// [`AttributeNames::label`].
impl fmt::Display for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(AttributeNames::DEFAULT.label(*self))
    }
}

/// An encoded primary key.
#[derive(Debug, Clone, PartialEq)]
pub struct PrimaryKey {
    /// The `PK` value.
    pub pk: AttributeValue,
    /// The `SK` value.
    pub sk: AttributeValue,
}

impl PrimaryKey {
    /// The key as an item fragment `{PK, SK}`, the shape `GetItem` and `DeleteItem` take.
    pub fn to_item(&self) -> Item {
        let mut m = HashMap::with_capacity(2);
        m.insert(PK.to_owned(), self.pk.clone());
        m.insert(SK.to_owned(), self.sk.clone());
        m
    }
}

impl fmt::Display for PrimaryKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PK}={} {SK}={}", show(&self.pk), show(&self.sk))
    }
}

fn show(v: &AttributeValue) -> Shown<'_> {
    Shown(v)
}

/// A key value for messages: a string or number as its text, a binary value as `0x` and its
/// bytes in hexadecimal, anything else (no key holds it) as `?`.
struct Shown<'a>(&'a AttributeValue);

impl Shown<'_> {
    /// The length of the displayed text in bytes.
    fn len(&self) -> usize {
        match self.0 {
            AttributeValue::S(s) | AttributeValue::N(s) => s.len(),
            AttributeValue::B(b) => 2 + 2 * b.as_ref().len(),
            _ => 1,
        }
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            AttributeValue::S(s) | AttributeValue::N(s) => f.write_str(s),
            AttributeValue::B(b) => {
                f.write_str("0x")?;
                b.as_ref().iter().try_for_each(|byte| write!(f, "{byte:02x}"))
            }
            _ => f.write_str("?"),
        }
    }
}

/// A value for error messages: a string or number as its text, anything else as its type.
pub fn describe_value(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        other => format!("a value of type {}", crate::value::type_name(other)),
    }
}

/// The primary key of an item read from the table, as `PK=… SK=…`, for error messages.
pub fn describe_key(item: &Item) -> String {
    let get = |k: &str| item.get(k).map_or_else(|| "<absent>".to_owned(), |v| show(v).to_string());
    format!("{PK}={} {SK}={}", get(PK), get(SK))
}
