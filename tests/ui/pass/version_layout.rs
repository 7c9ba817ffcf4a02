//! AWS's version layout: `v0` holds the latest version, `v<version>` (a `u64`, `v` and 20
//! digits) every version; `v0` is no `u64` key, so the two never collide. The fixes the
//! collision message asks for ("give one of them a distinct literal segment") of
//! `ui/table_key_collision_parts.rs`, and parts of other types beside literals they cannot
//! write.
use dynamo_entity::{Entity, TableDef, Timestamp};

/// Every version: `v00000000000000000001`, `v00000000000000000002`, ...
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "v<version>")]
pub struct Version {
    pub id: String,
    pub version: u64,
    pub body: String,
}

/// The latest version, `v0`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "v0")]
pub struct Latest {
    pub id: String,
    pub version: u64,
    pub body: String,
}

/// A distinct literal segment beside a `String` part: `LATEST` does not start with `v`.
#[derive(Entity)]
#[entity(pk = "NOTE#<id>", sk = "v<name>")]
pub struct Named {
    pub id: String,
    pub name: String,
}

#[derive(Entity)]
#[entity(pk = "NOTE#<id>", sk = "LATEST")]
pub struct NamedLatest {
    pub id: String,
}

/// A timestamp never writes `atLATEST`.
#[derive(Entity)]
#[entity(pk = "EVENT#<id>", sk = "at<at>")]
pub struct Event {
    pub id: String,
    pub at: Timestamp,
}

#[derive(Entity)]
#[entity(pk = "EVENT#<id>", sk = "atLATEST")]
pub struct LastEvent {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(Version, Latest, Named, NamedLatest, Event, LastEvent))]
pub struct Docs;

fn main() {
    let v7 = Version { id: "d1".into(), version: 7, body: "x".into() };
    let item = v7.to_item().unwrap();
    assert_eq!(item["SK"].as_s().unwrap(), "v00000000000000000007");
    let latest = Latest { id: "d1".into(), version: 7, body: "x".into() };
    assert_eq!(latest.to_item().unwrap()["SK"].as_s().unwrap(), "v0");
    assert_eq!(<Docs as TableDef>::ENTITIES.len(), 6);
}
