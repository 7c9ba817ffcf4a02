//! `TableLayout::lint`: the exact findings for Skill Exchange and for small layouts built to
//! trigger (or just miss) each rule.

use crate::migrations_cli::Buffer;

use dynamo_entity::cli::{CliError, MigrationCli};
use dynamo_entity::design::lint::{Lint, LintKind, Severity};
use dynamo_entity::migrate::Migrations;
use dynamo_entity::schema::Read;
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Index, KeyPart, Table, Timestamp};
use dynamo_entity_examples::skill_exchange::schemas;

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
enum Color {
    Red,
    Blue,
}

/// A newtype keeps its inner type's cardinality.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
struct Tint(Color);

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "WIDGET#<id>",
    sk = "META",
    gsi1 = "COLOR#<color>#<flag>",
    gsi1_sk = "<id>",
    gsi2 = "ALL",
    gsi2_sk = "<id>",
    gsi3 = "COLOR#<color>#<shard(id, 4)>",
    gsi3_sk = "<id>",
    gsi4 = "OWNER#<owner>#<color>",
    gsi4_sk = "<id>",
    gsi5 = "TINT#<tint>",
    gsi5_sk = "<id>"
)]
struct Widget {
    id: String,
    color: Color,
    flag: bool,
    owner: String,
    tint: Tint,
}

/// A primary partition key of only low parts holds an item collection: hot.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "GLOBAL#<kind>", sk = "EVENT#<at>")]
struct Event {
    kind: Color,
    at: u64,
}

/// One item in the whole table under a constant key: nothing to spread.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "CONFIG", sk = "MAIN")]
struct Config {
    value: String,
}

fn kinds(lints: &[Lint]) -> Vec<(&'static str, Index, LintKind)> {
    lints.iter().map(|l| (l.entity, l.index, l.kind)).collect()
}

#[test]
fn skill_exchange_has_one_hot_partition_left_the_leaderboard() {
    let all = TableLayout::new(&schemas()).unwrap().lint();
    // Besides the hot partition, the two template GSIs one entity writes alone are candidates for
    // native multi-attribute keys (GSI1, the category browse, already is one).
    assert_eq!(
        kinds(&all),
        vec![
            ("User", Index::Gsi(5), LintKind::HotPartition),
            ("Skill", Index::Gsi(2), LintKind::MultiAttributeKey),
            ("Purchase", Index::Gsi(3), LintKind::MultiAttributeKey),
        ]
    );
    assert_eq!(
        all[1].message,
        "only Skill writes GSI2, so its templates `SELLER#<seller_id>` / `<created_at>` overload it for no other \
         entity: key it on the fields themselves, `gsi2(pk(seller_id), sk(created_at))`, and the item's own \
         attributes are the key (no GSI2PK / GSI2SK to write, and none to rewrite when a key field changes)"
    );
    let lints: Vec<Lint> = all.into_iter().filter(|l| l.kind != LintKind::MultiAttributeKey).collect();
    assert_eq!(
        lints,
        vec![Lint {
            entity: "User",
            index: Index::Gsi(5),
            kind: LintKind::HotPartition,
            message: "partition key GSI5PK `LEADERBOARD` has no high-cardinality part (it is constant), so every User \
                      with the same key lands in one partition, which serves at most 1,000 write units and 3,000 read \
                      units a second; shard it: `gsi5 = \"LEADERBOARD#<shard(id, 8)>\"` spreads it over 8 \
                      partitions, and `User::gsi5` reads them back merged in sort-key order"
                .to_owned(),
        }]
    );
    assert_eq!(
        lints[0].to_string(),
        format!("User GSI5 hot partition: {}", lints[0].message),
        "the display names entity, index and rule"
    );
}

#[test]
fn hot_partitions_are_keys_of_only_literals_or_low_cardinality_parts() {
    let layout = TableLayout::new(&[Widget::schema(), Event::schema(), Config::schema()]).unwrap();
    let lints = layout.lint();
    assert_eq!(
        kinds(&lints),
        vec![
            ("Widget", Index::Gsi(1), LintKind::HotPartition),
            ("Widget", Index::Gsi(2), LintKind::HotPartition),
            ("Widget", Index::Gsi(4), LintKind::MultiAttributeKey),
            ("Widget", Index::Gsi(5), LintKind::HotPartition),
            ("Event", Index::Primary, LintKind::HotPartition),
        ]
    );
    assert_eq!(
        lints[0].message,
        "partition key GSI1PK `COLOR#<color>#<flag>` has no high-cardinality part (its only parts, `color`, `flag`, \
         have few values), so every Widget with the same key lands in one partition, which serves at most 1,000 \
         write units and 3,000 read units a second; shard it: `gsi1 = \"COLOR#<color>#<flag>#<shard(id, 8)>\"` \
         spreads it over 8 partitions, and `Widget::gsi1` reads them back merged in sort-key order"
    );
    assert_eq!(
        lints[2].message,
        "only Widget writes GSI4, so its templates `OWNER#<owner>#<color>` / `<id>` overload it for no other entity: \
         key it on the fields themselves, `gsi4(pk(owner, color), sk(id))`, and the item's own attributes are the \
         key (no GSI4PK / GSI4SK to write, and none to rewrite when a key field changes)"
    );
    assert_eq!(
        lints[4].message,
        "partition key PK `GLOBAL#<kind>` has no high-cardinality part (its only part, `kind`, has few values), so \
         every Event with the same key lands in one partition, which serves at most 1,000 write units and 3,000 \
         read units a second; move a part with many values, such as one of the sort key `EVENT#<at>`, into the \
         partition key"
    );
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "MEMBER#<id>",
    sk = "PROFILE",
    gsi1 = "TEAM#<team>",
    gsi1_sk = "MEMBER",
    gsi2 = "EMAIL#<email>",
    gsi2_sk = "MEMBER"
)]
struct Member {
    id: String,
    team: String,
    #[entity(unique)]
    email: String,
}

#[test]
fn a_constant_gsi_sort_key_under_a_shared_partition_is_an_unbounded_collection() {
    let lints = TableLayout::new(&[Member::schema()]).unwrap().lint();
    assert_eq!(
        lints,
        vec![Lint {
            entity: "Member",
            index: Index::Gsi(1),
            kind: LintKind::UnboundedCollection,
            message: "every Member of a partition GSI1PK `TEAM#<team>` has the same sort key GSI1SK `MEMBER`, so the \
                      partition grows without bound and a query reads it in no useful order, with no sort-key \
                      condition to narrow it; sort it by a field, such as `gsi1_sk = \"<id>\"`, or mark the \
                      partition key's field `#[entity(unique)]` if it names one item"
                .to_owned(),
        }]
    );
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "PROJECT#<id>", sk = "META", gsi1 = "ORG#<org>", gsi1_sk = "<created>")]
struct Project {
    id: String,
    org: String,
    created: Timestamp,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TICKET#<id>", sk = "META", gsi1 = "ORG#<org_id>", gsi1_sk = "<opened>")]
struct Ticket {
    id: String,
    org_id: String,
    opened: Timestamp,
}

/// Shares the partition, but its sort key prefix keeps its query to its own items.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META", gsi1 = "ORG#<org>", gsi1_sk = "NOTE#<id>")]
struct Note {
    id: String,
    org: String,
}

#[test]
fn queries_that_cannot_tell_entities_apart_filter_on_the_type() {
    let lints = TableLayout::new(&[Project::schema(), Ticket::schema(), Note::schema()]).unwrap().lint();
    assert_eq!(
        kinds(&lints),
        vec![("Project", Index::Gsi(1), LintKind::TypeFilter), ("Ticket", Index::Gsi(1), LintKind::TypeFilter)]
    );
    assert_eq!(
        lints[0].message,
        "`Project::gsi1` reads partition GSI1PK `ORG#<org>`, which Ticket, Note also write and its sort key \
         `<created>` starts with a placeholder, so the key condition reads the whole partition: the query selects \
         Project by filtering on the entity type, and the other items still cost read capacity; start the sort key \
         with a literal of its own, such as `PROJECT#...`"
    );
    assert_eq!(
        lints[1].message,
        "`Ticket::gsi1` reads partition GSI1PK `ORG#<org_id>`, which Project, Note also write and its sort key \
         `<opened>` starts with a placeholder, so the key condition reads the whole partition: the query selects \
         Ticket by filtering on the entity type, and the other items still cost read capacity; start the sort key \
         with a literal of its own, such as `TICKET#...`"
    );
    // Alone, nothing shares its partition (and GSI1, which it then writes alone, could be keyed
    // on its own attributes).
    assert_eq!(
        kinds(&TableLayout::new(&[Project::schema()]).unwrap().lint()),
        vec![("Project", Index::Gsi(1), LintKind::MultiAttributeKey)]
    );
}

#[test]
fn registered_scans_and_type_filters_are_reported_in_order() {
    let layout = TableLayout::new(&[Project::schema()]).unwrap().reads([
        Read::scan("admin: every project", "Project"),
        Read::query("projects of an org", "Project", Index::Gsi(1)),
        Read::query("by hand", "Project", Index::Gsi(1)).filter_on_type(),
        Read::scan("report", "Project").on(Index::Gsi(1)).filter_on_type(),
    ]);
    assert_eq!(layout.registered_reads().len(), 4);
    let lints = layout.lint();
    assert_eq!(
        kinds(&lints),
        vec![
            ("Project", Index::Gsi(1), LintKind::MultiAttributeKey),
            ("Project", Index::Primary, LintKind::ScanRead),
            ("Project", Index::Gsi(1), LintKind::TypeFilter),
            ("Project", Index::Gsi(1), LintKind::ScanRead),
            ("Project", Index::Gsi(1), LintKind::TypeFilter),
        ]
    );
    // After the entity's own finding, the registered reads' in the order given.
    let lints = &lints[1..];
    assert_eq!(
        lints[0].message,
        "`admin: every project` scans the table, reading (and paying for) every item in it to return the Project \
         items; give the read a key: a GSI whose partition key is what the read selects by, queried instead"
    );
    assert_eq!(
        lints[1].message,
        "`by hand` selects Project items with a filter on the entity type, so the items of other types it reads \
         still cost read capacity; give Project its own sort key prefix (the generated queries select it with \
         `begins_with`) or its own index"
    );
    assert!(lints[2].message.starts_with("`report` scans index GSI1, reading (and paying for) every item"));
}

/// A flag in the partition key and the id in the sort key: the shard source must be the id, not
/// the flag (two values) and not a part of the hot key itself (the derive refuses that).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "FLAG#<on>", sk = "F#<id>", gsi1 = "STATE#<on>", gsi1_sk = "<id>")]
struct Flag {
    on: bool,
    id: String,
}

#[test]
fn the_suggested_shard_source_has_many_values_and_is_not_in_the_hot_key() {
    let lints = TableLayout::new(&[Flag::schema()]).unwrap().lint();
    assert_eq!(
        kinds(&lints),
        vec![("Flag", Index::Primary, LintKind::HotPartition), ("Flag", Index::Gsi(1), LintKind::HotPartition)]
    );
    assert!(
        lints[1].message.ends_with(
            "shard it: `gsi1 = \"STATE#<on>#<shard(id, 8)>\"` spreads it over 8 partitions, and `Flag::gsi1` \
             reads them back merged in sort-key order"
        ),
        "{}",
        lints[1].message
    );
}

/// Entities in a table with the inverted index (keyed on SK), which `Membership` brings.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "CUSTOMER#<id>", sk = "PROFILE")]
struct Customer {
    id: String,
    #[entity(unique)]
    email: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "CUSTOMER#<customer>", sk = "GROUP#<group>", inverted)]
struct Membership {
    customer: String,
    group: String,
}

#[test]
fn a_constant_sort_key_is_one_hot_partition_of_the_inverted_index() {
    let lints = TableLayout::new(&[Customer::schema(), Membership::schema()]).unwrap().lint();
    assert_eq!(
        lints,
        vec![
            Lint {
                entity: "Customer",
                index: Index::Inverted,
                kind: LintKind::HotPartition,
                message: "the inverted index is keyed on SK, and every Customer has the sort key `PROFILE`, so all of \
                      them land in one index partition, as do the guard items of its unique fields (sort key \
                      `UNIQUE`), which serves at most 1,000 write units and 3,000 read units a second and takes a \
                      copy of every write; give the sort key a part with many values, or keep this entity's table \
                      without the inverted index"
                    .to_owned(),
            },
            Lint {
                entity: "Membership",
                index: Index::Inverted,
                kind: LintKind::InvertedCost,
                message: "the inverted index, which Membership reads through, holds an entry for every item of the \
                          table, so every write of every entity (Customer) costs twice its write units (a counter \
                          increment 2 instead of 1, a 2 KB item with one GSI 6 instead of 4); declare on Membership \
                          alone a sparse GSI for the reverse lookup (`gsi1 = \"GROUP#<group>\"`, `gsi1_sk = \
                          \"CUSTOMER#<customer>\"`) and query it instead: only Membership items have an entry, their \
                          writes cost 1 write unit more per KB and the other entities' writes nothing more"
                    .to_owned(),
            }
        ]
    );
}

#[test]
fn each_rule_has_a_severity_and_skill_exchange_has_one_error() {
    let all = TableLayout::new(&schemas()).unwrap().lint();
    let severities: Vec<(&str, Index, Severity)> = all.iter().map(|l| (l.entity, l.index, l.severity())).collect();
    assert_eq!(
        severities,
        vec![
            ("User", Index::Gsi(5), Severity::Error),
            ("Skill", Index::Gsi(2), Severity::Advice),
            ("Purchase", Index::Gsi(3), Severity::Advice),
        ]
    );
    let rules = [
        (LintKind::HotPartition, Severity::Error),
        (LintKind::UnboundedCollection, Severity::Warning),
        (LintKind::TypeFilter, Severity::Warning),
        (LintKind::ScanRead, Severity::Warning),
        (LintKind::UnpaddedSortKey, Severity::Warning),
        (LintKind::MultiAttributeKey, Severity::Advice),
        (LintKind::InvertedCost, Severity::Advice),
    ];
    for (kind, severity) in rules {
        assert_eq!(kind.severity(), severity, "{kind}");
    }
}

/// `migrate lint` on `layout`: its result and its output. The lint sends nothing, so the
/// handle's client points nowhere.
async fn lint_cli(layout: TableLayout) -> (Result<(), CliError>, String) {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), "lint-only");
    let out = Buffer::default();
    let cli = MigrationCli::new("migrate", table, Migrations::new(layout));
    let result = cli.run(["migrate", "lint"], out.clone()).await;
    (result, out.text())
}

#[tokio::test]
async fn the_command_line_lint_fails_only_on_errors() {
    // A warning alone: written out, and the command succeeds.
    let (result, text) = lint_cli(TableLayout::new(&[Member::schema()]).unwrap()).await;
    assert!(result.is_ok(), "{result:?}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("warning: Member GSI1 unbounded item collection without a sort key: every Member"));
    assert_eq!(lines[1], "0 errors, 1 warning, 0 advice");

    // Advice alone (the inverted index's cost): the command succeeds.
    let (result, text) = lint_cli(TableLayout::new(&[Membership::schema()]).unwrap()).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(text.lines().last(), Some("0 errors, 0 warnings, 1 advice"), "{text}");
    assert!(text.starts_with("advice: Membership "), "{text}");

    // Skill Exchange: the leaderboard's hot partition is an error, the two multi-attribute key
    // suggestions are advice; the command fails with exit code 1 for the one error.
    let (result, text) = lint_cli(TableLayout::new(&schemas()).unwrap()).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("error: User GSI5 hot partition: "));
    assert!(lines[1].starts_with("advice: Skill GSI2 multi-attribute key suggested: "));
    assert!(lines[2].starts_with("advice: Purchase GSI3 multi-attribute key suggested: "));
    assert_eq!(lines[3], "1 error, 0 warnings, 2 advice");
    match result {
        Err(e @ CliError::Findings(1)) => assert_eq!(e.exit_code(), 1),
        other => panic!("expected one error finding, got {other:?}"),
    }
}
