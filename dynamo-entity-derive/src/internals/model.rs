//! What every derive knows about DynamoDB and the library's table layout, declared once: the
//! limits, the kinds of index, the key attributes and their default names (with the attribute
//! names they reserve), and projections.

use proc_macro2::{Span, TokenStream};
use quote::quote;

/// The highest GSI number (DynamoDB's default quota is 20 GSIs a table).
pub const MAX_GSI: u8 = 20;
/// The highest LSI number (DynamoDB allows 5 LSIs a table).
pub const MAX_LSI: u8 = 5;
/// DynamoDB's limit on the length of a key attribute's name, in bytes.
pub const MAX_KEY_NAME_BYTES: usize = 255;
/// DynamoDB's limits on the length of an index name, in characters (of `a-z A-Z 0-9 _ . -`).
pub const INDEX_NAME_CHARS: std::ops::RangeInclusive<usize> = 3..=255;
/// DynamoDB's limit on the non-key attributes that the `INCLUDE` projections of one table's
/// secondary indexes may name, in total.
pub const MAX_PROJECTED: usize = 100;
/// The most placeholders a sort key may have: the runtime's typed sort-key arguments are
/// implemented for tuples of up to this many parts. (DynamoDB limits a sort key to 1,024 bytes
/// and a partition key to 2,048: the runtime checks those on the encoded keys.)
pub const MAX_SORT_KEY_PARTS: usize = 6;
/// The fewest shards a shard suffix may have (one shard is no sharding).
pub const MIN_SHARDS: u16 = 2;
/// The most shards a shard suffix may have (the runtime's `key::MAX_SHARDS`): every page of a
/// query of the index sends up to one request per shard.
pub const MAX_SHARDS: u16 = 100;

/// An index of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// The table itself: `PK` / `SK`.
    Primary,
    /// GSI number n (1 to [`MAX_GSI`]): `GSI<n>PK` / `GSI<n>SK`.
    Gsi(u8),
    /// LSI number n (1 to [`MAX_LSI`]): the table's `PK` / `LSI<n>SK`.
    Lsi(u8),
    /// The inverted index: the table's `SK` / `PK`.
    Inverted,
}

impl IndexKind {
    /// The index in messages: `GSI3`, `LSI1`, `the inverted index`.
    pub fn label(self) -> String {
        match self {
            IndexKind::Primary => "the table".to_owned(),
            IndexKind::Gsi(n) => format!("GSI{n}"),
            IndexKind::Lsi(n) => format!("LSI{n}"),
            IndexKind::Inverted => "the inverted index".to_owned(),
        }
    }

    /// The key that declares the index in `#[table(...)]` and names its query: `gsi3`, `lsi1`.
    pub fn key(self) -> String {
        match self {
            IndexKind::Primary => "query".to_owned(),
            IndexKind::Gsi(n) => format!("gsi{n}"),
            IndexKind::Lsi(n) => format!("lsi{n}"),
            IndexKind::Inverted => "inverted".to_owned(),
        }
    }

    /// The index's default name in DynamoDB (`GSI3`, `LSI1`, `INVERTED`); `None` for the table.
    pub fn default_name(self) -> Option<String> {
        match self {
            IndexKind::Primary => None,
            IndexKind::Gsi(n) => Some(format!("GSI{n}")),
            IndexKind::Lsi(n) => Some(format!("LSI{n}")),
            IndexKind::Inverted => Some("INVERTED".to_owned()),
        }
    }

    /// The attribute of the index's partition key.
    pub fn partition(self) -> KeyRole {
        match self {
            IndexKind::Primary | IndexKind::Lsi(_) => KeyRole::Pk,
            IndexKind::Gsi(n) => KeyRole::GsiPk(n),
            IndexKind::Inverted => KeyRole::Sk,
        }
    }

    /// The attribute of the index's sort key.
    pub fn sort(self) -> KeyRole {
        match self {
            IndexKind::Primary => KeyRole::Sk,
            IndexKind::Gsi(n) => KeyRole::GsiSk(n),
            IndexKind::Lsi(n) => KeyRole::LsiSk(n),
            IndexKind::Inverted => KeyRole::Pk,
        }
    }

    /// The runtime's `Index` value, under the path `runtime` (`__de` or
    /// `::dynamo_entity::__private`).
    pub fn tokens(self, runtime: &TokenStream) -> TokenStream {
        match self {
            IndexKind::Primary => quote!(#runtime::Index::Primary),
            IndexKind::Gsi(n) => quote!(#runtime::Index::Gsi(#n)),
            IndexKind::Lsi(n) => quote!(#runtime::Index::Lsi(#n)),
            IndexKind::Inverted => quote!(#runtime::Index::Inverted),
        }
    }
}

/// A key attribute of the table: what it keys, whatever it is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRole {
    /// The table's partition key (`PK`), also the LSIs' partition key.
    Pk,
    /// The table's sort key (`SK`).
    Sk,
    /// GSI n's partition key (`GSI<n>PK`).
    GsiPk(u8),
    /// GSI n's sort key (`GSI<n>SK`).
    GsiSk(u8),
    /// LSI n's sort key (`LSI<n>SK`).
    LsiSk(u8),
}

impl KeyRole {
    /// The attribute's default name: `PK`, `GSI3SK`, `LSI1SK`.
    pub fn default_name(self) -> String {
        match self {
            KeyRole::Pk => "PK".to_owned(),
            KeyRole::Sk => "SK".to_owned(),
            KeyRole::GsiPk(n) => format!("GSI{n}PK"),
            KeyRole::GsiSk(n) => format!("GSI{n}SK"),
            KeyRole::LsiSk(n) => format!("LSI{n}SK"),
        }
    }

    /// The role whose default name is `name`, if any (`GSI21PK` and `GSI01PK` are none).
    pub fn from_default_name(name: &str) -> Option<KeyRole> {
        let number = |digits: &str, max: u8| -> Option<u8> {
            digits.parse().ok().filter(|v| (1..=max).contains(v) && !digits.starts_with('0'))
        };
        match name {
            "PK" => return Some(KeyRole::Pk),
            "SK" => return Some(KeyRole::Sk),
            _ => {}
        }
        if let Some(n) = name.strip_prefix("LSI").and_then(|r| r.strip_suffix("SK")) {
            return number(n, MAX_LSI).map(KeyRole::LsiSk);
        }
        let rest = name.strip_prefix("GSI")?;
        match rest.strip_suffix("PK") {
            Some(n) => number(n, MAX_GSI).map(KeyRole::GsiPk),
            None => number(rest.strip_suffix("SK")?, MAX_GSI).map(KeyRole::GsiSk),
        }
    }

    /// Whether the attribute is a sort key.
    pub fn is_sort(self) -> bool {
        matches!(self, KeyRole::Sk | KeyRole::GsiSk(_) | KeyRole::LsiSk(_))
    }

    /// Whether the attribute is one of the table's own keys.
    pub fn is_primary(self) -> bool {
        matches!(self, KeyRole::Pk | KeyRole::Sk)
    }

    /// The attribute in a table's messages: `the table's partition key`, `GSI3's sort key`.
    pub fn describe(self) -> String {
        match self {
            KeyRole::Pk => "the table's partition key".to_owned(),
            KeyRole::Sk => "the table's sort key".to_owned(),
            KeyRole::GsiPk(n) => format!("GSI{n}'s partition key"),
            KeyRole::GsiSk(n) => format!("GSI{n}'s sort key"),
            KeyRole::LsiSk(n) => format!("LSI{n}'s sort key"),
        }
    }

    /// The attribute's name in an `AttributeNames` constant `names` (such as `__DeSchema::NAMES`).
    pub fn in_names(self, names: &TokenStream) -> TokenStream {
        let index = |n: u8| usize::from(n) - 1;
        match self {
            KeyRole::Pk => quote!(#names.pk),
            KeyRole::Sk => quote!(#names.sk),
            KeyRole::GsiPk(n) => {
                let i = index(n);
                quote!(#names.gsi[#i].pk)
            }
            KeyRole::GsiSk(n) => {
                let i = index(n);
                quote!(#names.gsi[#i].sk)
            }
            KeyRole::LsiSk(n) => {
                let i = index(n);
                quote!(#names.lsi[#i].sk)
            }
        }
    }
}

/// Why an attribute name is reserved, if it is: the type attribute, or a key attribute under its
/// default name.
pub fn reserved(attribute: &str) -> Option<String> {
    if attribute == "_type" {
        return Some("the entity type name of every item".to_owned());
    }
    Some(match KeyRole::from_default_name(attribute)? {
        KeyRole::Pk => "the table's partition key".to_owned(),
        KeyRole::Sk => "the table's sort key".to_owned(),
        KeyRole::GsiPk(n) => format!("the partition key of GSI{n}"),
        KeyRole::GsiSk(n) => format!("the sort key of GSI{n}"),
        KeyRole::LsiSk(n) => format!("the sort key of LSI{n}"),
    })
}

/// What a secondary index of a table declaration projects.
pub enum Projection {
    All,
    KeysOnly,
    /// Attribute names with the span of each.
    Include(Vec<(String, Span)>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_round_trip() {
        let roles = [KeyRole::Pk, KeyRole::Sk, KeyRole::GsiPk(1), KeyRole::GsiSk(20), KeyRole::LsiSk(5)];
        for role in roles {
            assert_eq!(KeyRole::from_default_name(&role.default_name()), Some(role));
        }
        for name in ["pk", "GSI21PK", "GSI0PK", "GSI01PK", "GSIPK", "GSI1", "GSI1XK", "LSI6SK", "LSI1PK", "_type"] {
            assert_eq!(KeyRole::from_default_name(name), None, "{name}");
        }
    }

    #[test]
    fn index_keys() {
        assert_eq!(IndexKind::Gsi(3).partition().default_name(), "GSI3PK");
        assert_eq!(IndexKind::Lsi(2).partition(), KeyRole::Pk);
        assert_eq!(IndexKind::Lsi(2).sort().default_name(), "LSI2SK");
        assert_eq!((IndexKind::Inverted.partition(), IndexKind::Inverted.sort()), (KeyRole::Sk, KeyRole::Pk));
    }

    #[test]
    fn reserved_attributes() {
        for a in ["PK", "SK", "_type", "GSI1PK", "GSI1SK", "GSI20PK", "GSI20SK", "GSI9SK", "LSI1SK", "LSI5SK"] {
            assert!(reserved(a).is_some(), "{a}");
        }
        for a in
            ["pk", "sk", "type", "GSI21PK", "GSI0PK", "GSI01PK", "GSIPK", "GSI1", "GSI1XK", "title", "LSI6SK", "LSI1PK"]
        {
            assert!(reserved(a).is_none(), "{a}");
        }
    }
}
