use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "TEAM#<team>", sk = "MEMBER#<user>", inverted)]
pub struct Member {
    pub team: u32,
    pub user: String,
}

fn main() {
    // `inverted` takes the sort key's parts (the user), not the partition key's.
    let _ = Member::inverted(&7u32);
}
