use dynamo_entity::Entity;

// With `inverted`, the partition key becomes the sort key of the inverted index, which the
// typed sort-key conditions support up to six parts.
#[derive(Entity)]
#[entity(pk = "A#<a>#B#<b>#C#<c>#D#<d>#E#<e>#F#<f>#G#<g>", sk = "EDGE#<to>", inverted)]
pub struct Edge {
    pub a: String,
    pub b: String,
    pub c: String,
    pub d: String,
    pub e: String,
    pub f: String,
    pub g: String,
    pub to: String,
}

fn main() {}
