//! Binary keys (type `B`): a key template that is exactly one `Vec<u8>` placeholder stores its
//! key attribute as DynamoDB binary, for the table's primary key, a GSI and, through
//! `KeyAttribute for Vec<u8>`, a multi-attribute GSI. The table is created with `B` attribute
//! definitions; put, get and every sort-key condition (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`,
//! `begins_with`) return exactly the items DynamoDB's bytewise order gives (bytes from 0x80 up
//! after 0x7f, a 0x00 byte, a key that is a prefix of another); cursors page through them;
//! an update of a GSI key field rewrites the binary GSI key; key fields written only inside
//! binary keys decode; oversize and empty binary keys are refused before sending.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::{AttributeValue, ScalarAttributeType};
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Error, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

use crate::common;
use crate::common::insta;

/// A stored blob: its owner's id and its digest are the primary key, both binary; GSI1 finds
/// the blobs of a tag by digest, GSI2 (multi-attribute) the blobs of a label by digest.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "<owner>", sk = "<digest>", gsi1 = "<tag>", gsi1_sk = "<digest>", gsi2(pk(label), sk(digest)))]
pub struct Blob {
    pub owner: Vec<u8>,
    pub digest: Vec<u8>,
    pub tag: Vec<u8>,
    pub label: Vec<u8>,
    pub size: u32,
}

/// A chunk of a file, its key fields written only inside its (binary) keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "<file>", sk = "<part>", key_fields = "keys")]
pub struct Chunk {
    pub file: Vec<u8>,
    pub part: Vec<u8>,
    pub note: String,
}

const OWNER: &[u8] = &[0x01];
/// Another owner whose id has the first one as a prefix, and a 0x00 byte.
const OTHER: &[u8] = &[0x01, 0x00];

/// The digests, in DynamoDB's (bytewise) order; written in another order.
const DIGESTS: [&[u8]; 8] = [&[0x00], &[0x00, 0x00], &[0x01], &[0x7f], &[0x80], &[0x80, 0x00], &[0xff], &[0xff, 0xff]];
const WRITE_ORDER: [usize; 8] = [5, 2, 7, 0, 3, 6, 1, 4];

fn blob(owner: &[u8], i: usize) -> Blob {
    Blob {
        owner: owner.to_vec(),
        digest: DIGESTS[i].to_vec(),
        tag: if i % 2 == 0 { vec![0xaa] } else { vec![0xbb, 0x00] },
        label: vec![0x10 + (i % 3) as u8],
        size: i as u32 * 10,
    }
}

fn b(bytes: &[u8]) -> AttributeValue {
    AttributeValue::B(bytes.to_vec().into())
}

fn digests(items: &[Blob]) -> Vec<Vec<u8>> {
    items.iter().map(|x| x.digest.clone()).collect()
}

/// The digests at positions `at` of [`DIGESTS`].
fn at(positions: &[usize]) -> Vec<Vec<u8>> {
    positions.iter().map(|&i| DIGESTS[i].to_vec()).collect()
}

/// The stored item of `OWNER` under sort key `sk`, read with the SDK alone.
async fn raw_item(table: &Table, sk: &[u8]) -> HashMap<String, AttributeValue> {
    let out = table.client().get_item().table_name(table.name()).key("PK", b(OWNER)).key("SK", b(sk));
    out.consistent_read(true).send().await.unwrap().item.unwrap()
}

async fn blob_table(test: &str) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&TableLayout::new(&[Blob::SCHEMA]).unwrap()).await.unwrap();
    for i in WRITE_ORDER {
        table.put(&blob(OWNER, i)).await.unwrap();
    }
    table.put(&blob(OTHER, 4)).await.unwrap();
    table
}

#[tokio::test]
async fn the_table_defines_binary_key_attributes() {
    let table = blob_table("binary_keys_table").await;
    let (desc, defs) = common::describe(&table).await;
    let b = ScalarAttributeType::B;
    assert_eq!(
        defs,
        BTreeMap::from([
            ("GSI1PK".to_owned(), b.clone()),
            ("GSI1SK".to_owned(), b.clone()),
            ("PK".to_owned(), b.clone()),
            ("SK".to_owned(), b.clone()),
            ("digest".to_owned(), b.clone()),
            ("label".to_owned(), b),
        ])
    );
    let mut gsis: Vec<(String, Vec<String>)> = desc
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            let keys = g.key_schema().iter().map(|k| format!("{} {}", k.attribute_name(), k.key_type().as_str()));
            (g.index_name().unwrap().to_owned(), keys.collect())
        })
        .collect();
    gsis.sort();
    assert_eq!(
        gsis,
        [
            ("GSI1".to_owned(), vec!["GSI1PK HASH".to_owned(), "GSI1SK RANGE".to_owned()]),
            ("GSI2".to_owned(), vec!["label HASH".to_owned(), "digest RANGE".to_owned()]),
        ]
    );
}

#[tokio::test]
async fn put_and_get_store_the_bytes_as_binary_keys() {
    let table = blob_table("binary_keys_put_get").await;
    let x = blob(OWNER, 5);
    assert_eq!(table.get(Blob::key(OWNER, &[0x80, 0x00])).await.unwrap(), Some(x.clone()));
    assert_eq!(table.get(Blob::key(OTHER, &[0x80])).await.unwrap(), Some(blob(OTHER, 4)));
    assert_eq!(table.get(Blob::key(OTHER, &[0x80, 0x00])).await.unwrap(), None);
    // The item as stored: every key attribute binary, the bytes as they are.
    let raw = raw_item(&table, &[0x80, 0x00]).await;
    let keys: BTreeMap<&str, &AttributeValue> = raw
        .iter()
        .filter(|(k, _)| k.starts_with("GSI") || *k == "PK" || *k == "SK")
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    assert_eq!(
        keys,
        BTreeMap::from([
            ("GSI1PK", &b(&[0xbb, 0x00])),
            ("GSI1SK", &b(&[0x80, 0x00])),
            ("PK", &b(OWNER)),
            ("SK", &b(&[0x80, 0x00])),
        ])
    );
    assert_eq!((raw.get("label"), raw.get("digest")), (Some(&b(&[0x12])), Some(&b(&[0x80, 0x00]))));
}

#[tokio::test]
async fn sort_key_conditions_follow_bytewise_order() {
    let table = blob_table("binary_keys_conditions").await;
    let q = || Blob::query(OWNER);
    let run = |r: dynamo_entity::query::QueryRequest<Blob, (Vec<u8>,)>| async move { digests(&r.all().await.unwrap()) };
    assert_eq!(run(table.query(q())).await, at(&[0, 1, 2, 3, 4, 5, 6, 7]));
    assert_eq!(run(table.query(q()).descending()).await, at(&[7, 6, 5, 4, 3, 2, 1, 0]));
    assert_eq!(run(table.query(Blob::query(OTHER))).await, at(&[4]));
    assert_eq!(run(table.query(q()).sk_eq(&[0x80u8][..])).await, at(&[4]));
    assert_eq!(run(table.query(q()).sk_lt(&[0x7fu8][..])).await, at(&[0, 1, 2]));
    assert_eq!(run(table.query(q()).sk_le(&[0x7fu8][..])).await, at(&[0, 1, 2, 3]));
    assert_eq!(run(table.query(q()).sk_gt(&[0x80u8][..])).await, at(&[5, 6, 7]));
    assert_eq!(run(table.query(q()).sk_ge(&[0x80u8][..])).await, at(&[4, 5, 6, 7]));
    assert_eq!(run(table.query(q()).sk_between(&[0x00u8, 0x00][..], &[0x80u8][..])).await, at(&[1, 2, 3, 4]));
    assert_eq!(run(table.query(q()).sk_begins_with_bytes(&[0x80])).await, at(&[4, 5]));
    assert_eq!(run(table.query(q()).sk_begins_with_bytes(&[0x00])).await, at(&[0, 1]));
    assert_eq!(run(table.query(q()).sk_begins_with_bytes(&[0xff, 0xff])).await, at(&[7]));
    assert_eq!(run(table.query(q()).sk_begins_with_bytes(&[])).await, at(&[0, 1, 2, 3, 4, 5, 6, 7]));
    // The key condition as sent: binary values.
    let input = table.query(q()).sk_begins_with_bytes(&[0x80]).render().unwrap();
    assert_eq!(input.key_condition_expression(), Some("#pk = :pk AND begins_with(#sk, :sk)"));
    assert_eq!(
        input.expression_attribute_values().unwrap(),
        &std::collections::HashMap::from([(":pk".to_owned(), b(OWNER)), (":sk".to_owned(), b(&[0x80]))])
    );
    match table.query(q()).sk_between(&[0x80u8][..], &[0x7fu8][..]).all().await.unwrap_err() {
        Error::Invalid { reason } => assert_eq!(reason, "sk_between: the low bound sorts after the high bound"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn cursors_page_through_binary_keys() {
    let table = blob_table("binary_keys_cursors").await;
    for descending in [false, true] {
        let mut seen = Vec::new();
        let mut cursor = None;
        let mut pages = 0;
        loop {
            let mut req = table.query(Blob::query(OWNER)).page_items(3).after(cursor.take());
            if descending {
                req = req.descending();
            }
            let page = req.send().await.unwrap();
            pages += 1;
            seen.extend(digests(&page.items));
            match page.cursor() {
                Some(c) => cursor = Some(c.clone()),
                None => break,
            }
        }
        let want = if descending { at(&[7, 6, 5, 4, 3, 2, 1, 0]) } else { at(&[0, 1, 2, 3, 4, 5, 6, 7]) };
        assert_eq!((seen, pages), (want, 3), "descending: {descending}");
    }
    // A GSI's cursor too (GSI1: tag 0xaa holds the even positions and the other owner's 0x80).
    let first = table.query(Blob::gsi1(&[0xaa])).page_items(2).send().await.unwrap();
    assert_eq!(digests(&first.items), at(&[0, 2]));
    let rest = table.query(Blob::gsi1(&[0xaa])).after(first.cursor().cloned()).all().await.unwrap();
    // The other owner's blob at 0x80 is in GSI1 too.
    assert_eq!(digests(&rest), [vec![0x80], vec![0x80], vec![0xff]]);
}

#[tokio::test]
async fn a_gsi_and_a_multi_attribute_gsi_keyed_on_bytes() {
    let table = blob_table("binary_keys_gsis").await;
    // GSI1: `<tag>` / `<digest>`, both B.
    assert_eq!(digests(&table.query(Blob::gsi1(&[0xbb, 0x00])).all().await.unwrap()), at(&[1, 3, 5, 7]));
    let high = table.query(Blob::gsi1(&[0xbb, 0x00])).sk_ge(&[0x7fu8][..]).all().await.unwrap();
    assert_eq!(digests(&high), at(&[3, 5, 7]));
    // The other owner's blob shares tag 0xaa and digest 0x80 (ties in GSI1SK): compared as a set.
    let mut even: Vec<(Vec<u8>, Vec<u8>)> =
        table.query(Blob::gsi1(&[0xaa])).all().await.unwrap().into_iter().map(|x| (x.owner, x.digest)).collect();
    even.sort();
    let mut want: Vec<(Vec<u8>, Vec<u8>)> =
        [0, 2, 4, 6].iter().map(|&i| (OWNER.to_vec(), DIGESTS[i].to_vec())).collect();
    want.push((OTHER.to_vec(), vec![0x80]));
    want.sort();
    assert_eq!(even, want);
    // GSI2, multi-attribute: `label` / `digest`, both B, the item's own attributes. Label 0x10
    // holds positions 0, 3, 6; 0x12 positions 2, 5.
    let g = || Blob::gsi2(&[0x10]);
    assert_eq!(digests(&table.query(g()).all().await.unwrap()), at(&[0, 3, 6]));
    assert_eq!(digests(&table.query(Blob::gsi2(&[0x12])).all().await.unwrap()), at(&[2, 5]));
    assert_eq!(digests(&table.query(g().digest_eq(&[0x7f])).all().await.unwrap()), at(&[3]));
    assert_eq!(digests(&table.query(g().digest_lt(&[0x7f])).all().await.unwrap()), at(&[0]));
    assert_eq!(digests(&table.query(g().digest_le(&[0x7f])).all().await.unwrap()), at(&[0, 3]));
    assert_eq!(digests(&table.query(g().digest_gt(&[0x7f])).all().await.unwrap()), at(&[6]));
    assert_eq!(digests(&table.query(g().digest_ge(&[0x7f])).all().await.unwrap()), at(&[3, 6]));
    assert_eq!(digests(&table.query(g().digest_between(&[0x00, 0x00], &[0xfe])).all().await.unwrap()), at(&[3]));
    assert_eq!(digests(&table.query(g().digest_begins_with(&[0xffu8][..])).all().await.unwrap()), at(&[6]));
    assert_eq!(digests(&table.query(g()).descending().all().await.unwrap()), at(&[6, 3, 0]));
    // An update of the GSI key fields: GSI1PK is rebuilt as binary, GSI2 follows the attribute.
    table
        .update(Blob::key(OWNER, &[0x01]))
        .set(Blob::TAG, &vec![0xcc])
        .set(Blob::LABEL, &vec![0x10])
        .send()
        .await
        .unwrap();
    assert_eq!(digests(&table.query(Blob::gsi1(&[0xcc])).all().await.unwrap()), at(&[2]));
    assert_eq!(digests(&table.query(Blob::gsi1(&[0xaa])).all().await.unwrap()), at(&[0, 4, 4, 6]));
    assert_eq!(digests(&table.query(g()).all().await.unwrap()), at(&[0, 2, 3, 6]));
    let raw = raw_item(&table, &[0x01]).await;
    assert_eq!((raw.get("GSI1PK"), raw.get("tag")), (Some(&b(&[0xcc])), Some(&b(&[0xcc]))));
}

#[tokio::test]
async fn key_fields_written_only_inside_binary_keys_decode() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("binary_keys_chunks"));
    table.create_table_from(&TableLayout::new(&[Chunk::SCHEMA]).unwrap()).await.unwrap();
    let chunk = Chunk { file: vec![0xde, 0xad, 0x00], part: vec![0x00, 0x01], note: "first".to_owned() };
    table.put(&chunk).await.unwrap();
    let raw = common::scan_all(&table).await;
    let mut names: Vec<&str> = raw[0].keys().map(String::as_str).collect();
    names.sort();
    assert_eq!((raw.len(), names), (1, vec!["PK", "SK", "_type", "note"]));
    assert_eq!((raw[0].get("PK"), raw[0].get("SK")), (Some(&b(&[0xde, 0xad, 0x00])), Some(&b(&[0x00, 0x01]))));
    assert_eq!(table.get(Chunk::key(&[0xde, 0xad, 0x00], &[0x00, 0x01])).await.unwrap(), Some(chunk.clone()));
    assert_eq!(table.query(Chunk::query(&[0xde, 0xad, 0x00])).all().await.unwrap(), vec![chunk]);
}

#[tokio::test]
async fn oversize_and_empty_binary_keys_are_refused_before_sending() {
    let table = blob_table("binary_keys_limits").await;
    let with = |owner: Vec<u8>, digest: Vec<u8>, label: Vec<u8>| Blob { owner, digest, tag: vec![1], label, size: 1 };
    let err = |e: Error| e.to_string();
    // At the limits: accepted by DynamoDB.
    table.put(&with(vec![0xee; 2048], vec![0xff; 1024], vec![0x20; 2048])).await.unwrap();
    assert_eq!(table.get(Blob::key(&[0xee; 2048], &[0xff; 1024])).await.unwrap().map(|x| x.label.len()), Some(2048));
    // One byte over: refused, naming the entity, the attribute and the template.
    assert_eq!(
        err(table.put(&with(vec![0xee; 2049], vec![1], vec![1])).await.unwrap_err()),
        "Blob PK (`<owner>`) is 2049 bytes, 1 over DynamoDB's limit of 2048 bytes"
    );
    assert_eq!(
        err(table.put(&with(vec![1], vec![0xff; 1025], vec![1])).await.unwrap_err()),
        "Blob SK (`<digest>`) is 1025 bytes, 1 over DynamoDB's limit of 1024 bytes"
    );
    assert_eq!(
        err(table.put(&with(vec![1], vec![1], vec![0x20; 2049])).await.unwrap_err()),
        "Blob.label (key attribute `label` of GSI2) is 2049 bytes, 1 over DynamoDB's limit of 2048 bytes"
    );
    assert_eq!(
        err(table.get(Blob::key(&[1], &[0xff; 1025])).await.unwrap_err()),
        "Blob SK (`<digest>`) is 1025 bytes, 1 over DynamoDB's limit of 1024 bytes"
    );
    // Empty: refused.
    assert_eq!(
        err(table.put(&with(vec![], vec![1], vec![1])).await.unwrap_err()),
        "Blob.owner cannot be a part of PK (`<owner>`): the value is empty"
    );
    assert_eq!(
        err(table.put(&with(vec![1], vec![1], vec![])).await.unwrap_err()),
        "Blob.label is empty binary (no bytes), which label, a key attribute of GSI2, cannot hold: DynamoDB refuses \
         an empty key attribute value"
    );
    assert_eq!(
        err(table.query(Blob::query(OWNER)).sk_eq(&[0u8; 0][..]).all().await.unwrap_err()),
        "Blob.digest cannot be a part of SK (`<digest>`): the value is empty"
    );
    assert_eq!(
        err(table.query(Blob::query(OWNER)).sk_begins_with_bytes(&[0xff; 1025]).all().await.unwrap_err()),
        "Blob SK (`<digest>`) is 1025 bytes, 1 over DynamoDB's limit of 1024 bytes"
    );
    // Nothing of the refused writes reached the table: the 9 blobs and the one at the limits.
    assert_eq!(common::scan_all(&table).await.len(), 10);
}

#[test]
fn the_cloudformation_template_declares_binary_keys() {
    let cfn = TableLayout::new(&[Blob::SCHEMA]).unwrap().cloudformation("blobs");
    insta::assert_json_snapshot!("cloudformation", cfn);
}

/// A catalogue of blobs whose GSI1 holds keys only: its queries read the whole items by their
/// (binary) primary keys in a second, batched read.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Catalogue, pk = "<owner>", sk = "<digest>", gsi1 = "SHELF#<shelf>", gsi1_sk = "<digest>")]
pub struct Shelved {
    pub owner: Vec<u8>,
    pub digest: Vec<u8>,
    pub shelf: String,
    pub size: u32,
}

#[derive(TableDef)]
#[table(entities(Shelved), gsi1(projection = keys_only, sk = B))]
pub struct Catalogue;

#[tokio::test]
async fn batches_and_projected_queries_take_binary_keys() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let plain = Table::new(server.client(), unique_table_name("binary_keys_batches"));
    plain.create_table_from(&Catalogue::layout().unwrap()).await.unwrap();
    let table = plain.declared::<Catalogue>();
    let shelved =
        |i: usize| Shelved { owner: OWNER.to_vec(), digest: DIGESTS[i].to_vec(), shelf: "s".into(), size: i as u32 };
    let all: Vec<Shelved> = WRITE_ORDER.iter().map(|&i| shelved(i)).collect();
    let written = table.batch_put(&all).await.unwrap();
    assert_eq!((written.written, written.unprocessed.len()), (8, 0));

    // Read back in the order asked, with one key that holds nothing.
    let keys = [6, 0, 3].map(|i| Shelved::key(OWNER, DIGESTS[i])).into_iter().chain([Shelved::key(OTHER, &[0x42])]);
    let read = table.batch_get(keys).send().await.unwrap();
    assert_eq!(read.items, vec![Some(shelved(6)), Some(shelved(0)), Some(shelved(3)), None]);

    // The keys-only GSI1, newest digest first, three a page: whole items, every page.
    let page = table.query(Shelved::gsi1("s")).descending().page_items(3).send().await.unwrap();
    assert_eq!(page.items, vec![shelved(7), shelved(6), shelved(5)]);
    let next = table.query(Shelved::gsi1("s")).descending().page_items(3).after(page.cursor).send().await.unwrap();
    assert_eq!(next.items, vec![shelved(4), shelved(3), shelved(2)]);
    assert_eq!(digests_of(&table.query(Shelved::gsi1("s")).all().await.unwrap()), at(&[0, 1, 2, 3, 4, 5, 6, 7]));

    // A batch delete of binary keys, then the index is empty.
    let deleted = table.batch_write().delete_all(DIGESTS.map(|d| Shelved::key(OWNER, d))).send().await.unwrap();
    assert_eq!(deleted.written, 8);
    assert_eq!(table.query(Shelved::gsi1("s")).all().await.unwrap(), vec![]);
}

fn digests_of(items: &[Shelved]) -> Vec<Vec<u8>> {
    items.iter().map(|x| x.digest.clone()).collect()
}
