// The version-history and sort-key-hierarchy patterns of the AWS guidance: `V#LATEST` beside
// `V#<version>` (a u64, always 20 digits, never `LATEST`) is no key collision, an enum part or a
// timestamp never equals a literal they cannot write, and the comments of a version
// (`V#<version>#COMMENT#<id>`), which the version's query reads, are declared its children with
// `hierarchy(...)`. The latest copy needs no opt-in: the version's query is narrowed to
// `BETWEEN "V#000…0" AND "V#999…9$"` (fixed-width digits), which `V#LATEST` is outside of, and
// likewise `T#NEVER` beside the timestamps of `T#<at>`.
use dynamo_entity::{Entity, KeyPart, TableDef, Timestamp};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub enum Stage {
    Draft,
    Live,
}

#[derive(Entity)]
#[entity(table = Docs, pk = "DOC#<id>", sk = "V#<version>")]
pub struct Version {
    pub id: String,
    pub version: u64,
    pub body: String,
}

#[derive(Entity)]
#[entity(table = Docs, pk = "DOC#<id>", sk = "V#LATEST")]
pub struct Latest {
    pub id: String,
    pub version: u64,
}

#[derive(Entity)]
#[entity(table = Docs, pk = "DOC#<id>", sk = "V#<version>#COMMENT#<comment>")]
pub struct Comment {
    pub id: String,
    pub version: u64,
    pub comment: String,
}

/// `S#<stage>` (`Draft` or `Live`) beside `S#ARCHIVED`, `T#<at>` beside `T#NEVER`.
#[derive(Entity)]
#[entity(table = Docs, pk = "DOC#<id>", sk = "S#<stage>")]
pub struct Staged {
    pub id: String,
    pub stage: Stage,
}

#[derive(Entity)]
#[entity(table = Docs, pk = "DOC#<id>", sk = "S#ARCHIVED")]
pub struct Archived {
    pub id: String,
}

#[derive(Entity)]
#[entity(table = Docs, pk = "DOC#<id>", sk = "T#<at>")]
pub struct Touched {
    pub id: String,
    pub at: Timestamp,
}

#[derive(Entity)]
#[entity(table = Docs, pk = "DOC#<id>", sk = "T#NEVER")]
pub struct Untouched {
    pub id: String,
}

#[derive(TableDef)]
#[table(
    entities(Version, Latest, Comment, Staged, Archived, Touched, Untouched),
    hierarchy(Version(Comment), Staged(Archived)),
)]
pub struct Docs;

fn main() {
    // The run-time check of the layout knows the hierarchy too.
    assert!(Docs::layout().is_ok());
    assert_eq!(<Docs as TableDef>::HIERARCHY, &[(0, 2), (3, 4)]);
}
