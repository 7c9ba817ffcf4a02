// A placeholder that names no field is one error, at the placeholder: the key function, the
// query functions and the field handles still exist with their arity, so the code that uses
// them reports nothing more.
use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug)]
#[entity(pk = "SKILL#<idd>", sk = "REV#<rev>", gsi1 = "CAT#<category>", gsi1_sk = "<downloads>")]
pub struct Skill {
    pub id: String,
    pub rev: u32,
    pub category: String,
    pub downloads: u64,
}

async fn use_it(table: &Table, id: String) {
    let _ = table.get(Skill::key(&id, &1)).await;
    let _ = table.query(Skill::query(&id)).sk_gt(&3).send().await;
    let _ = table.query(Skill::gsi1("documents")).sk_gt(&10).send().await;
    let _ = table.update(Skill::key(&id, &2)).set(Skill::CATEGORY, &"tools".to_owned()).send().await;
    let _ = table.update(Skill::key(&id, &2)).add(Skill::DOWNLOADS, &1).send().await;
}

fn main() {
    let _ = use_it;
}
