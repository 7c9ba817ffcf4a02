//! A multi-attribute GSI takes at most four partition and four sort key attributes, each field
//! once, and fields of the entity only: one error per mistake, on the offending field.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "T#<id>", sk = "META", gsi6(pk(a, b, c, d, e), sk(f, g, h, i, j)))]
pub struct TooMany {
    pub id: String,
    pub a: String,
    pub b: String,
    pub c: String,
    pub d: String,
    pub e: String,
    pub f: String,
    pub g: String,
    pub h: String,
    pub i: String,
    pub j: String,
}

#[derive(Entity)]
#[entity(pk = "T#<id>", sk = "META", gsi6(pk(tenant), sk(status, tenant)), gsi7(pk(tenant), sk(staus)))]
pub struct Twice {
    pub id: String,
    pub tenant: String,
    pub status: String,
}

#[derive(Entity)]
#[entity(pk = "T#<id>", sk = "META", gsi6(sk(status)), gsi7(pk(status)), gsi7_sk = "<status>")]
pub struct NoPartition {
    pub id: String,
    pub status: String,
}

fn main() {}
