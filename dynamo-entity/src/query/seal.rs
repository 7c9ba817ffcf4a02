//! Sealed cursors: a [`Cursor`] encrypted and authenticated with keys the application holds,
//! to hand to clients (a browser, a public API) without revealing the keys of the items it
//! points at, and without letting them forge one.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};

use crate::error::Error;
use crate::query::Cursor;

/// The format of a sealed cursor, authenticated with it: one byte before the nonce.
const FORMAT: u8 = 1;
const NONCE: usize = 24;
const TAG: usize = 16;

/// The keys that seal and open [`Cursor`]s: the newest seals, every key opens (key rotation:
/// add a new key in front, keep the old ones until the cursors they sealed have expired from
/// use, then drop them).
///
/// A cursor is the position of a query in plain form: base64 of the key attributes of the
/// next item (a user id, an e-mail address in a GSI key…), with a checksum that detects
/// accidents but not a client who recomputes it. Sealed, it is
/// `base64url(1 ‖ nonce ‖ XChaCha20-Poly1305(cursor) ‖ tag)` under a 256-bit key: opaque
/// (nothing of the key shows), unforgeable (a changed byte, or a cursor sealed under another
/// key, is refused), and still bound to its query (the cursor inside is checked as before when
/// the query resumes from it). Each seal takes a 192-bit nonce no other seal has used (128 bits
/// drawn once per process from the operating system's secure random source, then a counter of
/// the process's seals), so the same cursor sealed twice gives two texts.
///
/// ```
/// use dynamo_entity::query::CursorKeys;
/// let keys = CursorKeys::new([7; 32]);
/// let cursor = dynamo_entity::Cursor::from("a cursor from Page::cursor");
/// let sealed = keys.seal(&cursor).unwrap();
/// assert_eq!(keys.open(&sealed).unwrap(), cursor);
/// // After rotation, the old key still opens what it sealed.
/// let rotated = CursorKeys::new([8; 32]).with_retired([7; 32]);
/// assert_eq!(rotated.open(&sealed).unwrap(), cursor);
/// assert!(CursorKeys::new([8; 32]).open(&sealed).is_err());
/// ```
#[derive(Clone)]
pub struct CursorKeys {
    /// Newest first.
    keys: Vec<XChaCha20Poly1305>,
}

impl std::fmt::Debug for CursorKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the keys.
        f.debug_struct("CursorKeys").field("keys", &self.keys.len()).finish()
    }
}

impl CursorKeys {
    /// A keyring of one 256-bit key, which seals and opens. Generate it with a secure random
    /// generator and keep it secret, like any key.
    pub fn new(key: [u8; 32]) -> CursorKeys {
        CursorKeys { keys: vec![XChaCha20Poly1305::new(Key::from_slice(&key))] }
    }

    /// The keyring with `key` added as a retired key: it opens the cursors it sealed, and seals
    /// nothing. Keys added later are tried later.
    pub fn with_retired(mut self, key: [u8; 32]) -> CursorKeys {
        self.keys.push(XChaCha20Poly1305::new(Key::from_slice(&key)));
        self
    }

    /// `cursor` sealed with the newest key: URL-safe base64 without padding.
    ///
    /// # Errors
    /// [`Error::Cursor`] when the cipher refuses to seal (a cursor over 256 GiB, which no
    /// query makes).
    pub fn seal(&self, cursor: &Cursor) -> Result<String, Error> {
        let nonce = fresh_nonce();
        let sealed = self.keys[0]
            .encrypt(XNonce::from_slice(&nonce), Payload { msg: cursor.as_str().as_bytes(), aad: &[FORMAT] })
            .map_err(|_| Error::Cursor { reason: "the cursor could not be sealed".into() })?;
        let mut out = Vec::with_capacity(1 + NONCE + sealed.len());
        out.push(FORMAT);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(URL_SAFE_NO_PAD.encode(out))
    }

    /// The cursor inside `sealed`, a text from [`seal`](Self::seal) with one of this
    /// keyring's keys. Pass it to [`QueryRequest::after`](crate::query::QueryRequest::after),
    /// which checks that it belongs to the query.
    ///
    /// # Errors
    /// [`Error::Cursor`] when `sealed` is not a sealed cursor, was altered, or was sealed with a
    /// key this keyring does not hold.
    pub fn open(&self, sealed: &str) -> Result<Cursor, Error> {
        let refused = || Error::Cursor {
            reason: "not a cursor sealed with this application's keys (altered, or sealed with a retired key)".into(),
        };
        let bytes = URL_SAFE_NO_PAD.decode(sealed).map_err(|_| refused())?;
        if bytes.len() < 1 + NONCE + TAG || bytes[0] != FORMAT {
            return Err(refused());
        }
        let nonce = XNonce::from_slice(&bytes[1..=NONCE]);
        let body = &bytes[1 + NONCE..];
        let plain = self
            .keys
            .iter()
            .find_map(|k| k.decrypt(nonce, Payload { msg: body, aad: &[FORMAT] }).ok())
            .ok_or_else(refused)?;
        String::from_utf8(plain).map(Cursor::from).map_err(|_| refused())
    }
}

/// A 192-bit XChaCha20 nonce that no other seal uses: 128 bits drawn once per process from the
/// operating system's secure random source, then a 64-bit counter of the process's seals.
///
/// XChaCha20-Poly1305 needs a nonce used once per key, not a secret one. The counter makes the
/// process's nonces distinct; two processes share the 128-bit prefix (and so could repeat a
/// nonce) with a probability of about `p² / 2¹²⁹` for `p` processes under one key.
///
/// The random bits come from the standard library, which seeds each [`RandomState`]'s 128-bit
/// SipHash key from the operating system's secure source (its documented HashDoS defence);
/// two SipHash outputs under that key are the prefix. So the library needs no crate of its own
/// for randomness, nor the `libc` crate such crates bring.
///
/// [`RandomState`]: std::hash::RandomState
fn fresh_nonce() -> [u8; NONCE] {
    use std::hash::BuildHasher;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    static PREFIX: OnceLock<[u8; 16]> = OnceLock::new();
    static SEALS: AtomicU64 = AtomicU64::new(0);
    let prefix = PREFIX.get_or_init(|| {
        let seeded = std::hash::RandomState::new();
        let mut prefix = [0u8; 16];
        prefix[..8].copy_from_slice(&seeded.hash_one(0u8).to_le_bytes());
        prefix[8..].copy_from_slice(&seeded.hash_one(1u8).to_le_bytes());
        prefix
    });
    let mut nonce = [0u8; NONCE];
    nonce[..16].copy_from_slice(prefix);
    nonce[16..].copy_from_slice(&SEALS.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    nonce
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_share_the_process_prefix_and_never_repeat() {
        let first = fresh_nonce();
        assert_ne!(first[..16], [0u8; 16], "the prefix is drawn, not zero");
        let mut seen = std::collections::HashSet::from([first]);
        let mut last = u64::from_le_bytes(first[16..].try_into().unwrap());
        for _ in 0..10_000 {
            let nonce = fresh_nonce();
            assert_eq!(nonce[..16], first[..16]);
            // Other tests seal meanwhile: the counter only grows.
            let count = u64::from_le_bytes(nonce[16..].try_into().unwrap());
            assert!(count > last, "{count} after {last}");
            last = count;
            assert!(seen.insert(nonce));
        }
        assert_eq!(seen.len(), 10_001);
    }

    #[test]
    fn sealed_cursors_are_opaque_unforgeable_and_rotate() {
        let secret = "USER#alice@example.com";
        let cursor = Cursor::from(URL_SAFE_NO_PAD.encode(format!("{{\"k\":\"{secret}\"}}")));
        let keys = CursorKeys::new([1; 32]);
        let sealed = keys.seal(&cursor).unwrap();
        // Nothing of the cursor shows, in the text or in its bytes.
        assert!(!sealed.contains(cursor.as_str()));
        let raw = URL_SAFE_NO_PAD.decode(&sealed).unwrap();
        assert!(!raw.windows(5).any(|w| w == b"alice"));
        assert_eq!(raw.len(), 1 + NONCE + cursor.as_str().len() + TAG);
        // Two seals of one cursor differ (fresh nonces), both open.
        let again = keys.seal(&cursor).unwrap();
        assert_ne!(sealed, again);
        assert_eq!(keys.open(&again).unwrap(), cursor);
        // Every altered byte is refused.
        for i in 0..raw.len() {
            let mut bad = raw.clone();
            bad[i] ^= 0x01;
            assert!(matches!(keys.open(&URL_SAFE_NO_PAD.encode(&bad)), Err(Error::Cursor { .. })), "byte {i}");
        }
        assert!(keys.open("not a cursor").is_err());
        assert!(keys.open(cursor.as_str()).is_err(), "an unsealed cursor is not a sealed one");
        // Rotation: the old key opens, seals nothing; without it, refused.
        let rotated = CursorKeys::new([2; 32]).with_retired([1; 32]);
        assert_eq!(rotated.open(&sealed).unwrap(), cursor);
        assert!(keys.open(&rotated.seal(&cursor).unwrap()).is_err());
        assert!(CursorKeys::new([2; 32]).open(&sealed).is_err());
        assert_eq!(format!("{rotated:?}"), "CursorKeys { keys: 2 }");
    }
}
