//! Binary (B) keys: whole-key `Vec<u8>` templates on the primary key and a GSI, a
//! multi-attribute GSI on a `Vec<u8>`, and a table declaring them `B`.
use dynamo_entity::key::KeyType;
use dynamo_entity::schema::{GsiDecl, Projection};
use dynamo_entity::Index;
use dynamo_entity::{Entity, TableDef};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "<owner>", sk = "<digest>", gsi1 = "<tag>", gsi1_sk = "<digest>", gsi2(pk(label), sk(digest)))]
pub struct Blob {
    pub owner: Vec<u8>,
    pub digest: Vec<u8>,
    pub tag: Option<Vec<u8>>,
    pub label: Vec<u8>,
}

#[derive(TableDef)]
#[table(entities(Blob), gsi1(projection = all, pk = B, sk = B), gsi2(projection = keys_only))]
pub struct Blobs;

fn main() {
    assert_eq!(Blob::SCHEMA.primary.pk.key_type, KeyType::B);
    assert_eq!(Blob::SCHEMA.primary.sk.key_type, KeyType::B);
    let gsi2 = Blob::SCHEMA.multi_gsis[0];
    assert_eq!((gsi2.pk[0].key_type, gsi2.sk[0].key_type), (KeyType::B, KeyType::B));
    assert_eq!(
        Blobs::INDEXES[0],
        GsiDecl { index: Index::Gsi(1), projection: Projection::All, pk: Some(KeyType::B), sk: Some(KeyType::B) }
    );
    let layout = Blobs::layout().unwrap();
    assert_eq!((layout.key_type("PK"), layout.key_type("GSI1PK"), layout.key_type("label")), (KeyType::B, KeyType::B, KeyType::B));
    let _ = Blob::key(&[0x01], &[0x80, 0x00]);
}
