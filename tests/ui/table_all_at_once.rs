//! Problems of every kind in one declaration: each is reported once, together, at its entity.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "LEADERBOARD", gsi1_sk = "<sales>")]
pub struct User {
    pub id: String,
    pub sales: u64,
}

/// Same primary key shape as `User`, and writes GSI2, which is not declared.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "PROFILE", gsi2 = "ALL", gsi2_sk = "<user_id>")]
pub struct Account {
    pub user_id: String,
}

/// `GSI1SK` as S where `User` has N; it shares `User`'s type name, which disjoint keys allow.
#[derive(Entity)]
#[entity(pk = "TEAM#<id>", sk = "META", gsi1 = "LEADERBOARD", gsi1_sk = "<name>", name = "User")]
pub struct Team {
    pub id: String,
    pub name: String,
}

/// A mistake in the entity itself: reported by its own derive, and skipped by the table's
/// checks.
#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "<missing>")]
pub struct Broken {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(User, Account, Team, Broken), gsi1(projection = all))]
pub struct Club;

fn main() {}
