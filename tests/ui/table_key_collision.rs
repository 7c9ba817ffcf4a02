//! Two entities whose primary key templates can produce the same key.
use dynamo_entity::{Entity, TableDef};

/// `USER#<id>` / `PROFILE`.
#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
}

/// The same shape with other field names: `USER#x` / `PROFILE` is both a `User` and a `Profile`.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "PROFILE")]
pub struct Profile {
    pub user_id: String,
    pub bio: String,
}

/// A sort key that is one placeholder can take the value `PROFILE`.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "<note_id>")]
pub struct Note {
    pub user_id: String,
    pub note_id: String,
}

/// Another literal than `PROFILE`: no collision with `User` or `Profile`, but `Note`'s sort key
/// can be `SETTINGS`.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "SETTINGS")]
pub struct Settings {
    pub user_id: String,
}

#[derive(TableDef)]
#[table(entities(User, Profile, Note, Settings))]
pub struct Accounts;

fn main() {}
