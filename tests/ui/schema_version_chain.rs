// The struct an upgrade comes `from` is the same entity at the version before: it declares a
// schema version, the same type name, primary key templates and version attribute, and the
// newer struct implements `From` it. A field cannot use the version's attribute.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", name = "Skill")]
pub struct Unversioned {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", schema(version = 2, from = Unversioned))]
pub struct Skill {
    pub id: String,
}

impl From<Unversioned> for Skill {
    fn from(v: Unversioned) -> Skill {
        Skill { id: v.id }
    }
}

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "META", name = "User", schema(version = 1, attribute = "v"))]
pub struct UserV1 {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "PERSON#<id>", sk = "META", schema(version = 2, from = UserV1))]
pub struct Person {
    pub id: String,
}

impl From<UserV1> for Person {
    fn from(v: UserV1) -> Person {
        Person { id: v.id }
    }
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META", name = "Doc", schema(version = 1))]
pub struct DocV1 {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META", schema(version = 2, from = DocV1))]
pub struct Doc {
    pub id: String,
    #[entity(rename = "_schema")]
    pub revision: u32,
}

fn main() {}
