//! A key template changed under rolling deploys: members move from `MEMBER#<id>` / `META` to
//! their team's partition, `TEAM#<team>` / `MEMBER#<id>`, while two versions of the code serve
//! one table at once in every phase (the guide's chapter 8, "Changing a key template").
//!
//! | phase | serving together | where a version creates | where it reads and updates |
//! |---|---|---|---|
//! | expand | `Launch` and `Expand` | the old key (launch code reads only there) | the old key, then the new |
//! | migrate | `Expand`, and the re-keying step | the old key | the old key, then the new |
//! | switch | `Expand` and `Switch` | `Switch`: the new key | the old key, then the new |
//! | (re-apply) | `Switch` | | the step moves what `Expand` created meanwhile |
//! | contract | `Switch` and `Contract` | the new key | `Contract`: the new key only |
//!
//! The old key is tried first: a move is one transaction (a put at the new key, a delete of the
//! old item), so an item not found at its old key is at its new one. In each phase 8 tasks of each
//! version create members, rename the members they own in the phase, count visits (`add`) on
//! any member and read members of the other version. Afterwards: no request failed, and every
//! version serving the phase reads, for every member, the last acknowledged name and the
//! acknowledged visit count. After the re-application no member is left at an old key.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::migrate::{Migrations, RunOptions};
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Error, Key, Table};

use crate::common;
use crate::common::rolling::{self, CREATES, Shared, TASKS, phase};

/// The member as the launch code stores it, in a partition of its own.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "MEMBER#<id>", sk = "META", name = "Member")]
pub struct MemberOld {
    pub id: String,
    pub team: String,
    pub name: String,
    pub visits: u64,
}

/// The member after the change: in its team's item collection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TEAM#<team>", sk = "MEMBER#<id>", name = "Member")]
pub struct MemberNew {
    pub id: String,
    pub team: String,
    pub name: String,
    pub visits: u64,
}

impl From<MemberOld> for MemberNew {
    fn from(m: MemberOld) -> MemberNew {
        MemberNew { id: m.id, team: m.team, name: m.name, visits: m.visits }
    }
}

/// A member's team, known to every caller (the new key needs it).
fn team_of(id: &str) -> String {
    format!("team-{}", id.len() % 3)
}

/// Where a version creates, and which keys it reads and updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    /// The launch code: the old key only.
    Launch,
    /// Deploy 1: creates at the old key; reads and updates the old key, then the new.
    Expand,
    /// Deploy 2: creates at the new key; reads and updates as deploy 1.
    Switch,
    /// Deploy 3: the new key only.
    Contract,
}

impl Version {
    fn tries_old(self) -> bool {
        self != Version::Contract
    }

    fn tries_new(self) -> bool {
        self != Version::Launch
    }
}

impl rolling::Version for Version {
    type Value = String;

    fn value(id: &str, _n: usize, _k: usize) -> String {
        format!("name of {id}")
    }

    fn label(self) -> &'static str {
        match self {
            Version::Launch => "launch",
            Version::Expand => "expand",
            Version::Switch => "switch",
            Version::Contract => "contract",
        }
    }

    async fn create(self, table: &Table, id: &str, name: &String) -> Result<(), Error> {
        let (id, team, name) = (id.to_owned(), team_of(id), name.clone());
        match self {
            Version::Launch | Version::Expand => table.create(&MemberOld { id, team, name, visits: 0 }).await?,
            Version::Switch | Version::Contract => table.create(&MemberNew { id, team, name, visits: 0 }).await?,
        };
        Ok(())
    }

    async fn get(self, table: &Table, id: &str) -> Result<Option<(String, u64)>, Error> {
        if self.tries_old()
            && let Some(m) = table.get(MemberOld::key(id)).await?
        {
            return Ok(Some((m.name, m.visits)));
        }
        if self.tries_new()
            && let Some(m) = table.get(MemberNew::key(&team_of(id), id)).await?
        {
            return Ok(Some((m.name, m.visits)));
        }
        Ok(None)
    }

    /// Renames the member where it is: at its old key while it is there, else at its new one.
    async fn set(self, table: &Table, id: &str, name: &String) -> Result<(), Error> {
        if self.tries_old() {
            match table.update(MemberOld::key(id)).set(MemberOld::NAME, name).send().await {
                Err(Error::NotFound { .. }) if self.tries_new() => {}
                other => return other.map(drop),
            }
        }
        table.update(MemberNew::key(&team_of(id), id)).set(MemberNew::NAME, name).send().await.map(drop)
    }

    /// Counts a visit where the member is.
    async fn count(self, table: &Table, id: &str) -> Result<(), Error> {
        if self.tries_old() {
            match table.update(MemberOld::key(id)).add(MemberOld::VISITS, &1).send().await {
                Err(Error::NotFound { .. }) if self.tries_new() => {}
                other => return other.map(drop),
            }
        }
        table.update(MemberNew::key(&team_of(id), id)).add(MemberNew::VISITS, &1).send().await.map(drop)
    }
}

/// The raw `Member` items by where they are: `(at old keys, at new keys)`.
async fn where_members_are(table: &Table) -> (usize, usize) {
    rolling::split_items(table, "Member", |i| matches!(&i["PK"], AttributeValue::S(pk) if pk.starts_with("MEMBER#")))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_template_changed_under_rolling_deploys_loses_no_write() {
    let table = common::table("rekey_rolling", &[MemberOld::SCHEMA]).await;
    let ledger: Shared<String> = Arc::default();

    // Launch: members written by the launch code only.
    rolling::launch(Version::Launch, &table, &ledger, 32).await;

    // Expand: the launch code and deploy 1; every member is at its old key.
    phase(Version::Launch, Version::Expand, &table, &ledger, "expand", 0).await;
    let count = ledger.lock().unwrap().value.len();
    assert_eq!(where_members_are(&table).await, (count, 0));

    // Migrate: deploy 1 alone (the launch code is gone), the re-keying step beside it.
    let migrations =
        Arc::new(Migrations::new(TableLayout::new(&[MemberNew::SCHEMA]).unwrap()).rekey::<MemberOld, MemberNew>(
            "0001-members-into-teams",
            MemberNew::from,
            |b| b.segments(2),
        ));
    let run = rolling::apply_beside(&migrations, &table);
    phase(Version::Expand, Version::Expand, &table, &ledger, "migrate", 1).await;
    assert_eq!(run.await.unwrap().unwrap(), 1, "the step ran");

    // Switch: deploy 1 and deploy 2 (creates at the new key).
    phase(Version::Expand, Version::Switch, &table, &ledger, "switch", 0).await;

    // Deploy 1 is gone: what it created at old keys since the step's pass is found and moved.
    let (old, _) = where_members_are(&table).await;
    assert!(
        old >= TASKS * CREATES,
        "deploy 1 created {} members at old keys in the switch phase; {old} found",
        TASKS * CREATES
    );
    let found = migrations.verify(&table, None).await.unwrap();
    assert_eq!(found.len(), 1);
    assert!(!found[0].is_clean(), "verify finds the members left at old keys: {}", found[0]);
    migrations.reapply(&table, "0001-members-into-teams", &RunOptions::default()).await.unwrap();
    assert!(migrations.verify(&table, None).await.unwrap()[0].is_clean());
    let count = ledger.lock().unwrap().value.len();
    assert_eq!(where_members_are(&table).await, (0, count));

    // Contract: deploy 2 and deploy 3 (the new key only).
    phase(Version::Switch, Version::Contract, &table, &ledger, "contract", 1).await;
    let l = ledger.lock().unwrap().clone();
    assert_eq!(where_members_are(&table).await, (0, l.value.len()));
    assert_eq!(l.value.len(), 32 + 4 * 2 * TASKS * CREATES);
    assert!(l.requests > 1000, "{} requests", l.requests);
}

/// A member found by its old key reads the same through either version's key function: the
/// keys the test's versions use are the templates' (`MEMBER#<id>` / `META`, `TEAM#<team>` /
/// `MEMBER#<id>`).
#[test]
fn the_two_key_templates() {
    let old: Key<MemberOld> = MemberOld::key("m1");
    let new: Key<MemberNew> = MemberNew::key(&team_of("m1"), "m1");
    let show = |pk: &AttributeValue, sk: &AttributeValue| format!("{} / {}", pk.as_s().unwrap(), sk.as_s().unwrap());
    let (old, new) = (old.encoded().unwrap(), new.encoded().unwrap());
    assert_eq!(show(&old.pk, &old.sk), "MEMBER#m1 / META");
    assert_eq!(show(&new.pk, &new.sk), "TEAM#team-2 / MEMBER#m1");
}
