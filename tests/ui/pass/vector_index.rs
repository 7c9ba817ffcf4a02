//! The fixes the errors of `#[entity(vector(...))]` suggest: every key, each distance function,
//! `Option<Vec<f32>>`, search schema attributes stored as S, N and B (through a rename and a
//! key part type stored by name), and the search functions.

use dynamo_entity::schema::{Distance, TableLayout};
use dynamo_entity::key::KeyType;
use dynamo_entity::Entity;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META")]
pub struct Doc {
    pub id: String,
    pub tenant: String,
    #[entity(rename = "lg")]
    pub lang: String,
    pub rank: u32,
    pub blob: Vec<u8>,
    #[entity(vector(index = "ByA", dimensions = 3, distance = cosine, hash = tenant, filters(lang, rank, blob)))]
    pub a: Vec<f32>,
    #[entity(vector(index = "By.B-2", dimensions = 4096, distance = euclidean))]
    pub b: Option<Vec<f32>>,
    #[entity(vector(index = "ByC", dimensions = 1, distance = dot_product, filters(r#tenant)))]
    pub c: Vec<f32>,
}

fn main() {
    let layout = TableLayout::new(&[Doc::schema()]).unwrap();
    let shape: Vec<(&str, &str, u32, Distance)> =
        layout.vector_indexes().iter().map(|v| (v.name, v.attribute, v.dimensions, v.distance)).collect();
    // By name.
    assert_eq!(
        shape,
        [
            ("By.B-2", "b", 4096, Distance::Euclidean),
            ("ByA", "a", 3, Distance::Cosine),
            ("ByC", "c", 1, Distance::DotProduct)
        ]
    );
    let a = &layout.vector_indexes()[1];
    assert_eq!(a.hash.map(|h| (h.attribute, h.key_type)), Some(("tenant", KeyType::S)));
    let filters: Vec<(&str, KeyType)> = a.filters.iter().map(|f| (f.attribute, f.key_type)).collect();
    assert_eq!(filters, [("lg", KeyType::S), ("rank", KeyType::N), ("blob", KeyType::B)]);
    let _ = (Doc::search_a(vec![0.0, 1.0, 0.0]), Doc::search_b(vec![0.5; 4096]), Doc::search_c([1.0]));
}
