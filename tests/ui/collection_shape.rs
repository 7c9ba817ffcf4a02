use dynamo_entity::{Collection, Entity, EntityEnum};

#[derive(Entity, Debug)]
#[entity(pk = "POST#<id>", sk = "META")]
pub struct Post {
    pub id: String,
}

// An enum over entity types derives `EntityEnum`, not `Collection`.
#[derive(Collection)]
pub enum WrongEnum {
    Post(Post),
}

// A struct filled from one item collection derives `Collection`, not `EntityEnum`.
#[derive(EntityEnum)]
pub struct WrongStruct {
    pub post: Post,
}

fn main() {}
