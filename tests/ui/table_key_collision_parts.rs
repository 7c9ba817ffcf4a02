//! A placeholder with literal text around it in one segment (`v<version>`) collides with the
//! literals it can write: the text between its affixes is a value of its type, as the type
//! writes it (a `u64`: 20 digits; a `Timestamp`: `YYYY-MM-DDTHH:MM:SS.mmmZ`; a `String` or an
//! unpadded `<n:raw>`: `0` too). `v0` beside a `u64`'s `v<version>` compiles (`pass/version_layout.rs`).
use dynamo_entity::{Entity, TableDef, Timestamp};

/// `v` and a `u64`'s 20 digits.
#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "v<version>")]
pub struct Version {
    pub id: String,
    pub version: u64,
}

/// `v00000000000000000007` is `Version` 7.
#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "v00000000000000000007")]
pub struct Seventh {
    pub id: String,
}

/// A `String` part can write `0`.
#[derive(Entity)]
#[entity(pk = "NOTE#<id>", sk = "v<name>")]
pub struct Named {
    pub id: String,
    pub name: String,
}

#[derive(Entity)]
#[entity(pk = "NOTE#<id>", sk = "v0")]
pub struct NamedLatest {
    pub id: String,
}

/// An unpadded integer writes `0` for 0.
#[derive(Entity)]
#[entity(pk = "RAW#<id>", sk = "v<n:raw>")]
pub struct Raw {
    pub id: String,
    pub n: u64,
}

#[derive(Entity)]
#[entity(pk = "RAW#<id>", sk = "v0")]
pub struct RawLatest {
    pub id: String,
}

/// A timestamp writes its one form.
#[derive(Entity)]
#[entity(pk = "EVENT#<id>", sk = "at<at>")]
pub struct Event {
    pub id: String,
    pub at: Timestamp,
}

#[derive(Entity)]
#[entity(pk = "EVENT#<id>", sk = "at2026-05-01T00:00:00.000Z")]
pub struct FirstOfMay {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(Version, Seventh, Named, NamedLatest, Raw, RawLatest, Event, FirstOfMay))]
pub struct Docs;

fn main() {}
