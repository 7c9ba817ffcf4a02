//! Write sharding: the shard number of an item (FNV-1a 64 of its source part, modulo the shard
//! count), the width it is written with, and what picks the shard when a key is written.

/// The most shards a `<shard(field, N)>` segment may have: a query of a sharded index sends up
/// to one `Query` request per shard for every page.
pub const MAX_SHARDS: u16 = 100;

/// FNV-1a, 64 bits: offset basis `0xcbf29ce484222325`, prime `0x100000001b3`, one round per
/// byte (`h ^= byte; h *= prime`, wrapping).
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// The shard of an item whose shard source field has the encoded key part `encoded_part` (the
/// text the part has inside a key: escaped, integers zero-padded): FNV-1a 64 of its UTF-8 bytes
/// modulo `count`. Any language can recompute it.
///
/// ```
/// use dynamo_entity::key::shard_of;
/// // FNV-1a 64 of "foobar" is 0x85944171f73967e8.
/// assert_eq!(shard_of("foobar", 16), 8);
/// assert_eq!(shard_of("s00042", 8), 4);
/// ```
pub const fn shard_of(encoded_part: &str, count: u16) -> u16 {
    if count == 0 {
        return 0;
    }
    (fnv1a64(encoded_part.as_bytes()) % count as u64) as u16
}

/// The number of digits a shard number of `count` shards is written with: the width of
/// `count - 1` (1 for up to 10 shards, 2 for up to 100).
pub const fn shard_width(count: u16) -> usize {
    let mut max = if count > 0 { count - 1 } else { 0 };
    let mut width = 1;
    while max >= 10 {
        max /= 10;
        width += 1;
    }
    width
}

/// What picks the shard of a shard segment `<shard(field, N)>` when a key is written: the source
/// field's value (hashed with [`shard_of`]) or a given shard number.
#[derive(Debug)]
pub enum ShardBy<'a, T: ?Sized> {
    /// The value of the shard's source field (writing an item's key).
    Source(&'a T),
    /// A given shard number, below the shard count (querying one shard).
    Index(u16),
}
