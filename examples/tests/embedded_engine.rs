//! How an application tests its entities without Java and without a shared server: each test
//! takes a client of a fresh database of the embedded engine (`dynamo_entity_local::embedded`),
//! creates its table and runs. Tests can run in parallel, and see nothing of each other.
//!
//! In an application: `cargo add --dev dynamo-entity-local`, then write tests like these.

use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META")]
struct Note {
    id: String,
    text: String,
}

/// A table of a database of its own: the same name in every test.
async fn notes() -> Table {
    let client = dynamo_entity_local::embedded().expect("the embedded engine starts");
    let table = Table::new(client, "notes");
    table.create_table(&[Note::schema()]).await.expect("the table is created");
    table
}

#[tokio::test]
async fn a_note_is_written_and_read_back() {
    let table = notes().await;
    let note = Note { id: "n1".into(), text: "buy milk".into() };
    table.put(&note).await.unwrap();
    assert_eq!(table.get(Note::key("n1")).await.unwrap(), Some(note));
}

#[tokio::test]
async fn each_test_starts_with_an_empty_table() {
    let table = notes().await;
    // The other test wrote `n1` into a table of the same name, in another database.
    assert_eq!(table.get(Note::key("n1")).await.unwrap(), None);
    table.create(&Note { id: "n2".into(), text: "call Ann".into() }).await.unwrap();
    assert!(matches!(
        table.create(&Note { id: "n2".into(), text: "again".into() }).await,
        Err(dynamo_entity::Error::AlreadyExists { .. })
    ));
}
