//! One write action of a transaction ([`Action`]), ready to send: a `Put`, `Delete`,
//! `ConditionCheck` or `Update` with what errors need to name it. Shared with the uniqueness module.

use std::fmt;

use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};

use crate::error::{ActionKind, Error};
use crate::schema::{AttributeNames, Item, PrimaryKey};
use crate::transact::cond::Cond;
use crate::update::PreparedUpdate;

/// One action, ready to send, with what errors need to name it.
#[derive(Debug, Clone)]
pub(crate) struct Action {
    pub(crate) kind: ActionKind,
    pub(crate) entity: &'static str,
    pub(crate) table: String,
    /// The attribute names of the entity's table.
    pub(crate) names: &'static AttributeNames,
    /// `PK=… SK=…`.
    pub(crate) key: String,
    pub(crate) request: TransactWriteItem,
}

/// An SDK builder's error as [`Error::Invalid`].
pub(super) fn invalid(e: impl fmt::Display) -> Error {
    Error::Invalid { reason: e.to_string() }
}

impl Action {
    /// A `Put` of `item` under `key` (key attributes named by `names`).
    pub(crate) fn put(
        kind: ActionKind,
        entity: &'static str,
        names: &'static AttributeNames,
        table: &str,
        key: &PrimaryKey,
        item: Item,
        condition: Option<Cond>,
    ) -> Result<Action, Error> {
        let mut put = Put::builder().table_name(table).set_item(Some(item));
        if let Some(mut c) = condition {
            c.check("Put", entity, names, key)?;
            put = put
                .condition_expression(c.expression)
                .set_expression_attribute_names(c.placeholders.take_names())
                .set_expression_attribute_values(c.placeholders.take_values())
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        }
        let request = TransactWriteItem::builder().put(put.build().map_err(invalid)?).build();
        Ok(Action { kind, entity, table: table.to_owned(), names, key: names.show_key(key), request })
    }

    /// A `Delete` of the item under `key` (key attributes named by `names`).
    pub(crate) fn delete(
        kind: ActionKind,
        entity: &'static str,
        names: &'static AttributeNames,
        table: &str,
        key: &PrimaryKey,
        condition: Option<Cond>,
    ) -> Result<Action, Error> {
        let mut delete = Delete::builder().table_name(table).set_key(Some(names.key_item(key)));
        if let Some(mut c) = condition {
            c.check("Delete", entity, names, key)?;
            delete = delete
                .condition_expression(c.expression)
                .set_expression_attribute_names(c.placeholders.take_names())
                .set_expression_attribute_values(c.placeholders.take_values())
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        }
        let request = TransactWriteItem::builder().delete(delete.build().map_err(invalid)?).build();
        Ok(Action { kind, entity, table: table.to_owned(), names, key: names.show_key(key), request })
    }

    /// A `ConditionCheck` on the item under `key`.
    pub(crate) fn condition_check(
        entity: &'static str,
        names: &'static AttributeNames,
        table: &str,
        key: &PrimaryKey,
        mut c: Cond,
    ) -> Result<Action, Error> {
        c.check("ConditionCheck", entity, names, key)?;
        let check = ConditionCheck::builder()
            .table_name(table)
            .set_key(Some(names.key_item(key)))
            .condition_expression(c.expression)
            .set_expression_attribute_names(c.placeholders.take_names())
            .set_expression_attribute_values(c.placeholders.take_values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(invalid)?;
        let request = TransactWriteItem::builder().condition_check(check).build();
        let key = names.show_key(key);
        Ok(Action { kind: ActionKind::ConditionCheck, entity, table: table.to_owned(), names, key, request })
    }

    /// An `Update` built by [`UpdateRequest`].
    pub(crate) fn update(table: &str, p: PreparedUpdate) -> Result<Action, Error> {
        let (key, names) = (p.key_text(), p.attribute_names);
        let update = Update::builder()
            .table_name(table)
            .set_key(Some(p.key))
            .update_expression(p.update)
            .condition_expression(p.condition)
            .set_expression_attribute_names(p.names)
            .set_expression_attribute_values(p.values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(invalid)?;
        let request = TransactWriteItem::builder().update(update).build();
        Ok(Action { kind: ActionKind::Update, entity: p.entity, table: table.to_owned(), names, key, request })
    }
}
