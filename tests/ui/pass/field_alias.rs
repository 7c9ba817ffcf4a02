//! `#[entity(alias = "...")]` in each phase of a rename: reads take the old attribute, and
//! `write_alias` writes it too; `read_alias` reads it first.
use aws_sdk_dynamodb::types::AttributeValue::{N, S};
use dynamo_entity::{Entity, Item};

#[derive(Entity, Debug, PartialEq)]
#[entity(pk = "T#<id>", sk = "T", name = "Ticket")]
pub struct Expand {
    pub id: String,
    #[entity(alias = "title", write_alias, read_alias)]
    pub subject: String,
    #[entity(alias = "old_note", write_alias, read_alias)]
    pub note: Option<String>,
    pub views: u64,
}

#[derive(Entity, Debug, PartialEq)]
#[entity(pk = "T#<id>", sk = "T", name = "Ticket", rename_all = "camelCase")]
pub struct Contract {
    pub id: String,
    #[entity(alias = "title")]
    pub subject_line: String,
    #[entity(alias = "old_note", write_alias)]
    pub note: Option<String>,
    pub views: u64,
}

fn item(pairs: &[(&str, &str)]) -> Item {
    let mut item: Item = [("PK", "T#t1"), ("SK", "T"), ("_type", "Ticket")]
        .into_iter()
        .chain(pairs.iter().copied())
        .map(|(k, v)| (k.to_owned(), S(v.to_owned())))
        .collect();
    item.insert("views".to_owned(), N("2".to_owned()));
    item
}

fn main() {
    // An item of the old shape: both read `title`.
    let old = item(&[("title", "Refund"), ("old_note", "n")]);
    let e = Expand::from_item(&old).unwrap();
    assert_eq!((e.subject.as_str(), e.note.as_deref()), ("Refund", Some("n")));
    let c = Contract::from_item(&old).unwrap();
    assert_eq!((c.subject_line.as_str(), c.note.as_deref()), ("Refund", Some("n")));

    // Both attributes, disagreeing: `read_alias` takes the alias, the others their own.
    let both = item(&[("title", "new"), ("subject", "stale"), ("subjectLine", "line"), ("note", "x")]);
    let e = Expand::from_item(&both).unwrap();
    // An `Option` under `read_alias` reads the alias alone: absent is `None`.
    assert_eq!((e.subject.as_str(), e.note.as_deref()), ("new", None));
    assert_eq!(Contract::from_item(&both).unwrap().subject_line, "line");

    // `write_alias` writes both; a plain alias writes the field's own attribute only.
    let written = Expand { id: "t1".into(), subject: "s".into(), note: Some("n".into()), views: 0 }.to_item().unwrap();
    assert_eq!((&written["subject"], &written["title"]), (&S("s".into()), &S("s".into())));
    assert_eq!((&written["note"], &written["old_note"]), (&S("n".into()), &S("n".into())));
    let written = Contract { id: "t1".into(), subject_line: "s".into(), note: None, views: 0 }.to_item().unwrap();
    assert_eq!(written.get("subjectLine"), Some(&S("s".into())));
    assert!(!written.contains_key("title") && !written.contains_key("note") && !written.contains_key("old_note"));

    let field = Expand::SCHEMA.fields.iter().find(|f| f.field == "subject").unwrap();
    assert_eq!((field.attribute, field.alias, field.write_alias, field.read_alias), ("subject", Some("title"), true, true));
}
