//! Expand and contract, end to end: a ticket's `title` renamed `subject` while two versions of
//! the code serve one table at once, in every phase of the rename.
//!
//! | phase | serving together | what the phase adds |
//! |---|---|---|
//! | expand | `TicketOld` (`title`) and `TicketExpand` (`alias = "title", write_alias, read_alias`) | new code reads `title` first and writes both attributes |
//! | migrate | `TicketExpand`, and the custom step | `subject` written from `title` where it is missing or behind, conditional on `title` unchanged |
//! | switch | `TicketExpand` and `TicketSwitch` (`alias = "title", write_alias`) | reads move to `subject`; writes still keep `title` in step |
//! | contract | `TicketSwitch` and `TicketContract` (`alias = "title"`) | writes store `subject` only |
//!
//! Each phase runs the rolling-deploy harness (`common::rolling`): 8 tasks of each version
//! create tickets, set the renamed field of tickets created by the other version (each ticket
//! has one writer of its field per phase, so the last acknowledged value is known), count views
//! (`add`) on any ticket, and read tickets of either version. Afterwards: no request failed,
//! and every version serving the phase reads, for every ticket, the last acknowledged value and
//! the acknowledged view count. After
//! the migration a scan of the raw items finds no ticket without `subject`, or with a `subject`
//! other than its `title`.

use std::collections::BTreeMap;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::migrate::{Migrations, RunOptions};
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Error, Item, Key, Table};

use crate::common;
use crate::common::rolling::{self, CREATES, Shared, TASKS, phase};

/// The ticket as the launch code stores it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TICKET#<id>", sk = "META", name = "Ticket")]
pub struct TicketOld {
    pub id: String,
    pub title: String,
    pub views: u64,
}

/// Deploy 1, the expand phase: beside `TicketOld`, which writes `title` only.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TICKET#<id>", sk = "META", name = "Ticket")]
pub struct TicketExpand {
    pub id: String,
    #[entity(alias = "title", write_alias, read_alias)]
    pub subject: String,
    pub views: u64,
}

/// Deploy 2, after the migration: reads `subject`, still writes `title` for deploy 1's readers.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TICKET#<id>", sk = "META", name = "Ticket")]
pub struct TicketSwitch {
    pub id: String,
    #[entity(alias = "title", write_alias)]
    pub subject: String,
    pub views: u64,
}

/// Deploy 3, the contract phase: writes `subject` only.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TICKET#<id>", sk = "META", name = "Ticket")]
pub struct TicketContract {
    pub id: String,
    #[entity(alias = "title")]
    pub subject: String,
    pub views: u64,
}

/// What one version of the code does, the same calls for each struct.
trait Ticket: Entity + std::fmt::Debug + Send + Sync + 'static {
    const LABEL: &'static str;
    fn new(id: &str, text: &str) -> Self;
    fn text(&self) -> &str;
    fn views(&self) -> u64;
    fn key_of(id: &str) -> Key<Self>;
    fn set_text(table: &Table, id: &str, text: &str) -> impl Future<Output = Result<(), Error>> + Send;
    fn add_view(table: &Table, id: &str) -> impl Future<Output = Result<(), Error>> + Send;
}

macro_rules! ticket {
    ($ty:ident, $label:literal, $field:ident, $FIELD:ident) => {
        impl Ticket for $ty {
            const LABEL: &'static str = $label;
            fn new(id: &str, text: &str) -> Self {
                $ty { id: id.to_owned(), $field: text.to_owned(), views: 0 }
            }
            fn text(&self) -> &str {
                &self.$field
            }
            fn views(&self) -> u64 {
                self.views
            }
            fn key_of(id: &str) -> Key<Self> {
                $ty::key(id)
            }
            async fn set_text(table: &Table, id: &str, text: &str) -> Result<(), Error> {
                let returned = table.update($ty::key(id)).set($ty::$FIELD, &text.to_owned()).send().await?;
                // The item as the update left it decodes as this version.
                assert_eq!(returned.ok().expect("the updated item decodes").$field, text);
                Ok(())
            }
            async fn add_view(table: &Table, id: &str) -> Result<(), Error> {
                table.update($ty::key(id)).add($ty::VIEWS, &1).send().await?.ok().expect("the updated item decodes");
                Ok(())
            }
        }
    };
}

ticket!(TicketOld, "old", title, TITLE);
ticket!(TicketExpand, "expand", subject, SUBJECT);
ticket!(TicketSwitch, "switch", subject, SUBJECT);
ticket!(TicketContract, "contract", subject, SUBJECT);

/// The four deploys of the rename as versions of the rolling-deploy harness
/// ([`rolling`](crate::common::rolling)), each serving its own struct.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Deploy {
    Old,
    Expand,
    Switch,
    Contract,
}

/// `$body` with `$T` the struct that `$deploy` serves.
macro_rules! on_deploy {
    ($deploy:expr, $T:ident => $body:expr) => {
        match $deploy {
            Deploy::Old => {
                type $T = TicketOld;
                $body
            }
            Deploy::Expand => {
                type $T = TicketExpand;
                $body
            }
            Deploy::Switch => {
                type $T = TicketSwitch;
                $body
            }
            Deploy::Contract => {
                type $T = TicketContract;
                $body
            }
        }
    };
}

impl rolling::Version for Deploy {
    type Value = String;

    fn label(self) -> &'static str {
        on_deploy!(self, T => T::LABEL)
    }

    fn value(id: &str, n: usize, k: usize) -> String {
        format!("{id}: {n} of task {k}")
    }

    async fn create(self, table: &Table, id: &str, text: &String) -> Result<(), Error> {
        on_deploy!(self, T => table.create(&T::new(id, text)).await.map(drop))
    }

    async fn set(self, table: &Table, id: &str, text: &String) -> Result<(), Error> {
        on_deploy!(self, T => T::set_text(table, id, text).await)
    }

    async fn count(self, table: &Table, id: &str) -> Result<(), Error> {
        on_deploy!(self, T => T::add_view(table, id).await)
    }

    async fn get(self, table: &Table, id: &str) -> Result<Option<(String, u64)>, Error> {
        on_deploy!(self, T => Ok(table.get(T::key_of(id)).await?.map(|t| (t.text().to_owned(), t.views()))))
    }
}

/// The raw `Ticket` items, by id.
async fn raw_tickets(table: &Table) -> BTreeMap<String, Item> {
    common::scan_all(table)
        .await
        .into_iter()
        .filter(|i| i.get("_type") == Some(&AttributeValue::S("Ticket".into())))
        .map(|i| {
            let AttributeValue::S(pk) = &i["PK"] else { panic!("a string PK") };
            (pk.trim_start_matches("TICKET#").to_owned(), i)
        })
        .collect()
}

/// The migration: `subject` written from `title` on every ticket where it is missing or
/// differs (old code set `title` after new code wrote both), each update conditional on `title`
/// still holding what was read: a concurrent write is never overwritten, the ticket is read
/// again instead. Returns how many tickets it wrote.
async fn copy_title_to_subject(table: Table) -> Result<String, Error> {
    let mut written = 0;
    let mut raced = 0;
    for _round in 0..20 {
        let behind: Vec<Item> = raw_tickets(&table)
            .await
            .into_values()
            .filter(|i| i.get("subject").is_none() || i.get("subject") != i.get("title"))
            .collect();
        if behind.is_empty() {
            return Ok(format!("{written} tickets given `subject`, {raced} read again after a concurrent write"));
        }
        for item in behind {
            // Under `read_alias`, the ticket's value is its `title`.
            let t = TicketExpand::from_item(&item)?;
            let update = table
                .update(TicketExpand::key(&t.id))
                .set(TicketExpand::SUBJECT, &t.subject)
                .condition(TicketOld::TITLE.eq(&t.subject));
            match update.send().await {
                Ok(_) => written += 1,
                Err(Error::ConditionFailed { .. }) => raced += 1,
                Err(e) => return Err(e),
            }
        }
    }
    Err(Error::Invalid { reason: "tickets kept changing under the migration".into() })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rename_under_rolling_deploys_loses_no_write() {
    let table = common::table("expand_contract", &[TicketOld::SCHEMA]).await;
    let ledger: Shared<String> = Arc::default();

    // Launch: tickets written by the old code only.
    rolling::launch(Deploy::Old, &table, &ledger, 32).await;

    // Expand: the old code and deploy 1 together, in two rounds; in the second the old code
    // sets `title` of the tickets deploy 1 created with both attributes in the first: deploy 1
    // reads `title` first, so it sees those writes.
    phase(Deploy::Old, Deploy::Expand, &table, &ledger, "expand", 0).await;
    phase(Deploy::Old, Deploy::Expand, &table, &ledger, "expand2", 1).await;
    let raw = raw_tickets(&table).await;
    let behind = raw.values().filter(|i| i.get("subject") != i.get("title")).count();
    assert!(behind > 0, "the old code left some tickets with `subject` missing or behind `title`");

    // Migrate: deploy 1 alone (the old code is gone), with the step running beside it.
    let migrations = Migrations::new(TableLayout::new(&[TicketExpand::SCHEMA]).unwrap()).custom(
        "0001-ticket-subject",
        "write `subject` from `title` where it is missing or behind",
        copy_title_to_subject,
    );
    let run = {
        let (migrations_table, options) = (table.clone(), RunOptions::default());
        tokio::spawn(async move { migrations.apply(&migrations_table, &options).await.map(|a| a.len()) })
    };
    phase(Deploy::Expand, Deploy::Expand, &table, &ledger, "migrate", 0).await;
    assert_eq!(run.await.unwrap().unwrap(), 1, "the step ran");
    let raw = raw_tickets(&table).await;
    let count = ledger.lock().unwrap().value.len();
    assert_eq!(raw.len(), count);
    let behind: Vec<&String> = raw
        .iter()
        .filter(|(_, i)| i.get("subject").is_none() || i.get("subject") != i.get("title"))
        .map(|(id, _)| id)
        .collect();
    assert_eq!(behind, Vec::<&String>::new(), "tickets without `subject`, or with one behind `title`");

    // Switch: deploy 1 and deploy 2 (reads `subject`, still writes both).
    phase(Deploy::Expand, Deploy::Switch, &table, &ledger, "switch", 1).await;

    // Contract: deploy 2 and deploy 3 (writes `subject` only).
    phase(Deploy::Switch, Deploy::Contract, &table, &ledger, "contract", 0).await;
    let raw = raw_tickets(&table).await;
    let l = ledger.lock().unwrap();
    for (id, text) in &l.value {
        assert_eq!(raw[id].get("subject"), Some(&AttributeValue::S(text.clone())), "{id}");
    }
    // Deploy 3 wrote some tickets without touching `title`: it is no longer read.
    assert!(raw.values().any(|i| i.get("subject") != i.get("title")));
    assert_eq!(l.value.len(), 32 + 5 * 2 * TASKS * CREATES);
    assert!(l.requests > 1000, "{} requests", l.requests);
}

/// A note renamed `remark`, in the expand phase: an `Option`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META", name = "Note")]
pub struct Note {
    pub id: String,
    #[entity(alias = "text", write_alias, read_alias)]
    pub remark: Option<String>,
    #[entity(alias = "old_count")]
    pub count: u32,
}

fn names_of(expr: &str, input: &aws_sdk_dynamodb::operation::update_item::UpdateItemInput) -> String {
    let names = input.expression_attribute_names().unwrap();
    let values = input.expression_attribute_values().unwrap();
    let mut out = expr.to_owned();
    // Longest placeholders first (`#n10` before `#n1`).
    let mut keys: Vec<(&String, String)> = names.iter().map(|(k, v)| (k, v.clone())).collect();
    keys.extend(values.iter().map(|(k, v)| (k, format!("{v:?}"))));
    keys.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
    for (k, v) in keys {
        out = out.replace(k.as_str(), &v);
    }
    out
}

#[tokio::test]
async fn a_written_alias_is_set_and_removed_in_the_same_update() {
    let table = common::table("alias_update", &[Note::SCHEMA]).await;

    // `set` sends one `SET` of both attributes, with one value; `None` removes both.
    let set = table.update(Note::key("n1")).set(Note::REMARK, &Some("hi".to_owned())).render().unwrap();
    assert_eq!(names_of(set.update_expression().unwrap(), &set), r#"SET remark = S("hi"), text = S("hi")"#);
    let removed = table.update(Note::key("n1")).set(Note::REMARK, &None).render().unwrap();
    assert_eq!(names_of(removed.update_expression().unwrap(), &removed), "REMOVE remark, text");
    // A plain alias is read, never written; other actions change the field's own attribute.
    let added = table.update(Note::key("n1")).add(Note::COUNT, &2).render().unwrap();
    assert!(names_of(added.update_expression().unwrap(), &added).starts_with("SET count = if_not_exists(count, "));

    // Against the table: a put holds both; an update keeps them in step; an old item (no
    // `remark`, no `count`) reads through the aliases.
    table.create(&Note { id: "n1".into(), remark: Some("a".into()), count: 1 }).await.unwrap();
    let raw = common::raw_item(&table, "NOTE#n1", "META").await.unwrap();
    assert_eq!(
        (raw.get("remark"), raw.get("text")),
        (Some(&AttributeValue::S("a".into())), Some(&AttributeValue::S("a".into())))
    );
    assert_eq!(raw.get("old_count"), None);
    let after = table.update(Note::key("n1")).set(Note::REMARK, &Some("b".into())).send().await.unwrap().ok().unwrap();
    assert_eq!(after.remark.as_deref(), Some("b"));
    let raw = common::raw_item(&table, "NOTE#n1", "META").await.unwrap();
    assert_eq!(
        (raw.get("remark"), raw.get("text")),
        (Some(&AttributeValue::S("b".into())), Some(&AttributeValue::S("b".into())))
    );
    table.update(Note::key("n1")).set(Note::REMARK, &None).send().await.unwrap();
    let raw = common::raw_item(&table, "NOTE#n1", "META").await.unwrap();
    assert_eq!((raw.get("remark"), raw.get("text")), (None, None));

    // An upsert that creates its item writes both too.
    table.upsert(Note::key("n2")).set(Note::REMARK, &Some("c".into())).set(Note::COUNT, &0).send().await.unwrap();
    let raw = common::raw_item(&table, "NOTE#n2", "META").await.unwrap();
    assert_eq!(
        (raw.get("remark"), raw.get("text")),
        (Some(&AttributeValue::S("c".into())), Some(&AttributeValue::S("c".into())))
    );

    // An item of the old shape, and one where old code removed `text` after new code wrote both:
    // under `read_alias`, an `Option` reads `text` alone.
    let old = [("PK", "NOTE#n3"), ("SK", "META"), ("_type", "Note"), ("text", "old"), ("old_count", "7")];
    let removed_by_old = [("PK", "NOTE#n4"), ("SK", "META"), ("_type", "Note"), ("remark", "stale"), ("count", "1")];
    for pairs in [&old[..], &removed_by_old[..]] {
        let item = pairs
            .iter()
            .map(|(k, v)| {
                let v =
                    if k.ends_with("count") { AttributeValue::N((*v).into()) } else { AttributeValue::S((*v).into()) };
                ((*k).to_owned(), v)
            })
            .collect();
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    let n3 = table.get(Note::key("n3")).await.unwrap().unwrap();
    assert_eq!(n3, Note { id: "n3".into(), remark: Some("old".into()), count: 7 });
    let n4 = table.get(Note::key("n4")).await.unwrap().unwrap();
    assert_eq!(n4, Note { id: "n4".into(), remark: None, count: 1 });

    // A condition names the field's own attribute: it does not see the old item's `text`.
    let err = table
        .update(Note::key("n3"))
        .set(Note::COUNT, &8)
        .condition(Note::REMARK.eq(&Some("old".to_owned())))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { entity: "Note", .. }), "{err:?}");
}
