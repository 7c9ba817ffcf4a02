use dynamo_entity::{Collection, Entity, EntityEnum};

#[derive(Entity)]
#[entity(pk = "P#<id>", sk = "META")]
pub struct Post {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "P#<post>", sk = "C#<id>")]
pub struct Comment {
    pub post: String,
    pub id: u32,
}

#[derive(Collection)]
pub struct Thread {
    pub post: Post,
    pub comments: Vec<Comment>,
    pub pinned: Option<Comment>,
}

#[derive(EntityEnum)]
pub enum Any {
    Post(Post),
    Comment { comment: Comment },
    Again(Post),
}

fn main() {
    let _ = <Thread as dynamo_entity::Collection>::TYPES;
    let _ = <Any as dynamo_entity::EntityEnum>::TYPES;
}
