//! The condition of one transaction action ([`Cond`]): an expression with its placeholders, built
//! from the ownership guards and the user's [`Condition`]s, checked against DynamoDB's limits.

use crate::error::Error;
use crate::expr::{Condition, Placeholders};
use crate::limits;
use crate::schema::{AttributeNames, EntitySchema, PrimaryKey};

/// A condition expression with its placeholders.
pub(crate) struct Cond {
    pub(crate) expression: String,
    pub(crate) placeholders: Placeholders,
}

impl Cond {
    /// `attribute_not_exists(PK)` (the table's partition key under `names`): no item has this
    /// key.
    pub(crate) fn absent(names: &AttributeNames) -> Cond {
        let mut placeholders = Placeholders::default();
        let pk = placeholders.name(names.pk);
        Cond { expression: format!("attribute_not_exists({pk})"), placeholders }
    }

    /// `(attribute_not_exists(PK) OR <type> = entity)`: no item has this key, or the item is of
    /// `entity`'s type. The guard every write shares: a put or delete never touches another
    /// entity's item under the same key.
    pub(crate) fn absent_or_type(names: &AttributeNames, entity: &'static str) -> Cond {
        let mut placeholders = Placeholders::default();
        let mut expression = String::with_capacity(48);
        crate::owner::push_guard(crate::owner::Guard::AbsentOrIs, &mut placeholders, names, entity, &mut expression);
        Cond { expression, placeholders }
    }

    /// `attribute_exists(PK) AND <type> = entity`: an item of `entity`'s type has this key.
    pub(crate) fn present_and_type(names: &AttributeNames, entity: &'static str) -> Cond {
        let mut placeholders = Placeholders::default();
        let mut expression = String::with_capacity(48);
        crate::owner::push_guard(crate::owner::Guard::PresentAndIs, &mut placeholders, names, entity, &mut expression);
        Cond { expression, placeholders }
    }

    /// This condition and, for an entity with a schema version, that the stored item is not of
    /// a newer one ([`push_not_newer`](crate::schema::evolve::push_not_newer)): the guard of a
    /// whole-item write.
    pub(crate) fn not_newer(mut self, schema: &EntitySchema) -> Cond {
        crate::schema::evolve::push_not_newer(schema, &mut self.placeholders, &mut self.expression);
        self
    }

    /// This condition and `condition` (an item of `entity`), both required.
    pub(crate) fn and_condition(mut self, entity: &'static str, condition: &Condition) -> Result<Cond, Error> {
        let other = condition.render(&mut self.placeholders).map_err(|(field, source)| Error::Encode {
            entity,
            field,
            attribute: field,
            source,
        })?;
        self.expression = format!("{} AND ({other})", self.expression);
        Ok(self)
    }

    /// Checks DynamoDB's limits on the condition and its placeholders (see
    /// [`limits`](crate::limits)), for the `action` of a transaction on the item `key` of
    /// `entity`.
    pub(super) fn check(
        &self,
        action: &'static str,
        entity: &'static str,
        names: &AttributeNames,
        key: &PrimaryKey,
    ) -> Result<(), Error> {
        let (names_map, values) = (self.placeholders.names(), self.placeholders.values());
        limits::check_request(&[("ConditionExpression", self.expression.as_str(), false, 0)], names_map, values)
            .map_err(|e| e.request(action, entity, names.show_key(key)))
    }

    /// A rendered [`Condition`] on an item of `entity`.
    pub(crate) fn from_condition(entity: &'static str, condition: &Condition) -> Result<Cond, Error> {
        let mut placeholders = Placeholders::default();
        let expression = condition.render(&mut placeholders).map_err(|(field, source)| Error::Encode {
            entity,
            field,
            attribute: field,
            source,
        })?;
        Ok(Cond { expression, placeholders })
    }
}
