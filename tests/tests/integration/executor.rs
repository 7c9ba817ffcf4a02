//! The one request executor: the `tracing` span every request opens, with its fields as a
//! subscriber sees them; and the entity-type guard of `replace`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use dynamo_entity::{Entity, Error};
use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use crate::common;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META", gsi1 = "OWNER#<owner>", gsi1_sk = "<id>")]
struct Note {
    id: String,
    owner: String,
    text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Draft {
    id: String,
    body: String,
}

/// The fields of one span, by name, as text.
type Fields = BTreeMap<String, String>;

#[derive(Default)]
struct FieldText(Fields);

impl Visit for FieldText {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

/// The process-wide layer that keeps the fields of every closed `dynamodb` span of the tables a
/// test watches ([`Spans::watch`]), by table, in closing order.
///
/// Why one subscriber for the whole test process, not one per test installed with
/// `tracing::subscriber::set_default`: `tracing` caches whether a callsite (the `info_span!` of
/// the request executor) is enabled once for the process, and while a single thread-local
/// subscriber exists it computes that from the subscriber of whichever thread registers the
/// callsite first. A test without one running in parallel (on Dynoxide, where requests are fast,
/// one test's first request often races the other's `set_default`) cached "never", and the
/// watching test lost the spans of its first requests (tokio-rs/tracing#3611). With one global
/// subscriber every thread sees the same one.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<BTreeMap<String, Vec<Fields>>>>);

impl Spans {
    /// The process's collector, installed as the global subscriber on first use.
    fn global() -> Spans {
        static SPANS: OnceLock<Spans> = OnceLock::new();
        SPANS
            .get_or_init(|| {
                let spans = Spans::default();
                tracing::subscriber::set_global_default(tracing_subscriber::registry().with(spans.clone()))
                    .expect("no other test sets a global subscriber");
                spans
            })
            .clone()
    }

    /// From now on, keeps the `dynamodb` spans of table `name` (none of those closed before).
    fn watch(&self, name: &str) {
        self.0.lock().unwrap().insert(name.to_owned(), Vec::new());
        // A callsite registered before the global subscriber was set may have cached "never".
        tracing::callsite::rebuild_interest_cache();
    }

    /// The spans of table `name` closed since [`Spans::watch`], in closing order.
    fn of(&self, name: &str) -> Vec<Fields> {
        self.0.lock().unwrap().get(name).cloned().unwrap_or_default()
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != "dynamodb" {
            return;
        }
        let mut fields = FieldText::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(fields) = span.extensions_mut().get_mut::<FieldText>()
        {
            values.record(fields);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id)
            && span.name() == "dynamodb"
            && let Some(fields) = span.extensions_mut().remove::<FieldText>()
            && let Some(table) = fields.0.get("table")
            && let Some(closed) = self.0.lock().unwrap().get_mut(table)
        {
            closed.push(fields.0);
        }
    }
}

fn fields(pairs: &[(&str, &str)]) -> Fields {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn note(id: &str, owner: &str) -> Note {
    Note { id: id.to_owned(), owner: owner.to_owned(), text: format!("note {id}") }
}

#[tokio::test]
async fn every_request_opens_a_span_with_its_operation_entity_index_and_capacity() {
    let spans = Spans::global();
    let table = common::table("executor_spans", &[Note::schema()]).await;
    let name = table.name().to_owned();
    spans.watch(&name);

    table.put(&note("n1", "ann")).await.unwrap();
    let page = table.query(Note::gsi1("ann")).send().await.unwrap();
    assert_eq!(page.items, vec![note("n1", "ann")]);
    let outcome = table.batch_put(&[note("n2", "bob"), note("n3", "bob"), note("n4", "cy")]).await.unwrap();
    assert_eq!(outcome.written, 3);

    let seen = spans.of(&name);
    assert_eq!(
        seen,
        vec![
            fields(&[
                ("operation", "PutItem"),
                ("table", &name),
                ("entity", "Note"),
                ("index", ""),
                ("attempt", "1"),
                ("consumed", "2.0"),
                ("outcome", "ok"),
            ]),
            fields(&[
                ("operation", "Query"),
                ("table", &name),
                ("entity", "Note"),
                ("index", "GSI1"),
                ("attempt", "1"),
                ("consumed", "0.5"),
                ("outcome", "ok"),
            ]),
            fields(&[
                ("operation", "BatchWriteItem"),
                ("table", &name),
                ("entity", ""),
                ("index", ""),
                ("attempt", "1"),
                ("consumed", "6.0"),
                ("outcome", "ok"),
            ]),
        ]
    );
}

#[tokio::test]
async fn a_failed_request_closes_its_span_as_an_error() {
    let spans = Spans::global();
    let table = common::table("executor_error", &[Note::schema()]).await;
    spans.watch(table.name());
    table.create(&note("n1", "ann")).await.unwrap();
    let again = table.create(&note("n1", "ann")).await.unwrap_err();
    assert!(matches!(again, Error::AlreadyExists { entity: "Note", .. }), "{again}");
    let outcomes: Vec<(String, String)> =
        spans.of(table.name()).iter().map(|f| (f["operation"].clone(), f["outcome"].clone())).collect();
    assert_eq!(outcomes, vec![("PutItem".to_owned(), "ok".to_owned()), ("PutItem".to_owned(), "error".to_owned())]);
}

#[tokio::test]
async fn replace_refuses_another_entitys_item_under_its_key() {
    let table = common::table("replace_wrong_entity", &[Note::schema(), Draft::schema()]).await;
    let draft = Draft { id: "d1".to_owned(), body: "keep me".to_owned() };
    table.put(&draft).await.unwrap();

    let err = table.replace(&note("d1", "ann")).await.unwrap_err();
    match &err {
        Error::WrongEntity { expected, found, key } => {
            assert_eq!(*expected, "Note");
            assert_eq!(found.as_deref(), Some("Draft"));
            assert_eq!(key, "PK=DOC#d1 SK=META");
        }
        other => panic!("expected WrongEntity, got {other}"),
    }
    // Nothing was overwritten: the draft is still there, whole.
    assert_eq!(table.get(Draft::key("d1")).await.unwrap(), Some(draft.clone()));
    let raw = common::raw_item(&table, "DOC#d1", "META").await.unwrap();
    assert_eq!(raw.get("_type").and_then(|v| v.as_s().ok()).map(String::as_str), Some("Draft"));
    assert_eq!(raw.get("text"), None);

    // A replace of the entity's own item still works and returns the item as it was.
    table.put(&note("n1", "ann")).await.unwrap();
    let old = table.replace(&Note { text: "edited".to_owned(), ..note("n1", "ann") }).await.unwrap();
    assert_eq!(old, note("n1", "ann"));
    assert_eq!(table.get(Note::key("n1")).await.unwrap().unwrap().text, "edited");
}

#[tokio::test]
async fn transactions_never_overwrite_or_delete_another_entitys_item() {
    let table = common::table("transact_wrong_entity", &[Note::schema(), Draft::schema()]).await;
    let draft = Draft { id: "d1".to_owned(), body: "keep me".to_owned() };
    table.put(&draft).await.unwrap();

    let attempts = [
        ("put", table.transact().put(&note("d1", "ann"))),
        ("replace", table.transact().replace(&note("d1", "ann"))),
        ("delete", table.transact().delete(Note::key("d1"))),
    ];
    for (what, tx) in attempts {
        match tx.send().await {
            Err(Error::TransactionCanceled { reasons }) => {
                assert_eq!(reasons.len(), 1, "{what}");
                let reason = &reasons[0];
                assert_eq!((reason.index, reason.entity), (0, "Note"), "{what}");
                assert_eq!(reason.code, dynamo_entity::transact::CancellationCode::ConditionalCheckFailed, "{what}");
                let stored = reason.item.as_ref().expect("the stored item comes back with the failure");
                assert_eq!(stored.get("_type").and_then(|v| v.as_s().ok()).map(String::as_str), Some("Draft"));
            }
            other => panic!("{what}: expected a canceled transaction, got {other:?}"),
        }
    }
    // The draft is still there, whole; a transaction on the entity's own items still writes.
    assert_eq!(table.get(Draft::key("d1")).await.unwrap(), Some(draft));
    table.transact().put(&note("n1", "ann")).send().await.unwrap();
    table.transact().replace(&Note { text: "edited".to_owned(), ..note("n1", "ann") }).send().await.unwrap();
    assert_eq!(table.get(Note::key("n1")).await.unwrap().unwrap().text, "edited");
    table.transact().delete(Note::key("n1")).send().await.unwrap();
    assert_eq!(table.get(Note::key("n1")).await.unwrap(), None);
}
