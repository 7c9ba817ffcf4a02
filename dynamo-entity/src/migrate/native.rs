//! placeholder
use crate::error::Error;
use crate::migrate::backfill::Outcome;
use crate::schema::{Entity, Item};
use crate::table::Table;
pub(crate) struct Native;
impl Native {
    pub(crate) async fn item<E: Entity>(&self, _t: &Table, _i: Item) -> Result<(Outcome, u64, f64), Error> { todo!() }
}
