//! Typed updates (`UpdateItem`) that keep GSI keys in step with the fields they are built from.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::entity::{Entity, IndexSchema, Key, PK, PrimaryKey};
use crate::error::Error;
use crate::expr::{Condition, Field, Mutable, Placeholders};
use crate::key::{KeyContext, KeyError, KeyPartError, KeyType, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, PartForm, Segment};
use crate::table::{RETURN_OLD_ON_FAILURE, Table};
use crate::value::Attribute;

/// A key field's new value, encoded as a key part in both forms (`None`: the value is absent).
#[derive(Debug, Clone)]
struct PartText {
    composite: Option<String>,
    number: Option<String>,
}

#[derive(Debug)]
enum Action {
    Set(AttributeValue),
    Remove,
    Add(AttributeValue),
}

/// An `UpdateItem` on one item of entity `E`; from [`Table::update`].
///
/// * The item must exist: every update is conditional on `attribute_exists(PK)`, so an update
///   never creates a half-written item; a missing item is [`Error::NotFound`].
/// * Setting a field that a GSI key template uses rewrites that GSI's key attributes in the
///   same request. Every other field of that template must be set in the same update (the
///   library cannot know their current values); otherwise the request is rejected before
///   sending with [`Error::Invalid`] naming the missing fields. When a part is `None`, both GSI
///   key attributes are removed (the item leaves the sparse index).
/// * Primary key fields have no setter: their handles are `Field<E, T, Immutable>`.
/// * Returns the item as it is after the update (`ReturnValues = ALL_NEW`).
#[must_use = "an update does nothing until it is sent"]
pub struct UpdateRequest<E> {
    table: Table,
    key: Result<PrimaryKey, Error>,
    actions: Vec<(&'static str, &'static str, Action)>,
    parts: HashMap<&'static str, Result<PartText, KeyPartError>>,
    condition: Option<Condition>,
    error: Option<Error>,
    _entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: Entity> UpdateRequest<E> {
    pub(crate) fn new(table: Table, key: Key<E>) -> Self {
        UpdateRequest {
            table,
            key: key.into_encoded(),
            actions: Vec::new(),
            parts: HashMap::new(),
            condition: None,
            error: None,
            _entity: std::marker::PhantomData,
        }
    }

    fn fail(&mut self, e: Error) {
        self.error.get_or_insert(e);
    }

    fn record_part<T>(&mut self, field: &Field<E, T, Mutable>, value: &T) {
        if let Some(write) = field.part {
            let mut composite = String::new();
            let mut number = String::new();
            let text = write(value, &mut composite, PartForm::Composite).and_then(|present| {
                write(value, &mut number, PartForm::Number)?;
                Ok(if present {
                    PartText { composite: Some(composite), number: Some(number) }
                } else {
                    PartText { composite: None, number: None }
                })
            });
            self.parts.insert(field.name, text);
        }
    }

    /// `SET field = value`; for `Option` fields, `None` removes the attribute.
    pub fn set<T: Attribute>(mut self, field: Field<E, T, Mutable>, value: &T) -> Self {
        match value.to_attribute() {
            Ok(Some(v)) => self.actions.push((field.name, field.attribute, Action::Set(v))),
            Ok(None) => self.actions.push((field.name, field.attribute, Action::Remove)),
            Err(source) => self.fail(Error::Encode { entity: E::TYPE, field: field.name, attribute: field.attribute, source }),
        }
        self.record_part(&field, value);
        self
    }

    /// Adds `amount` to a number field atomically (`SET f = if_not_exists(f, 0) + amount`;
    /// a negative amount subtracts). A GSI sort key that is exactly this field (such as
    /// `<downloads>`) is moved by the same amount in the same request.
    ///
    /// Adding to a field that is one part of a composite key template is rejected before
    /// sending: the new key text would depend on the stored value.
    pub fn add<T: Attribute>(mut self, field: Field<E, T, Mutable>, amount: &T) -> Self {
        match amount.to_attribute() {
            Ok(Some(v @ AttributeValue::N(_))) => self.actions.push((field.name, field.attribute, Action::Add(v))),
            Ok(_) => self.fail(Error::Invalid { reason: format!("{}.{} is not a number", E::TYPE, field.name) }),
            Err(source) => self.fail(Error::Encode { entity: E::TYPE, field: field.name, attribute: field.attribute, source }),
        }
        self
    }

    /// Only update when `condition` holds (on top of the item existing); otherwise
    /// [`Error::ConditionFailed`]. Several calls are combined with AND.
    pub fn condition(mut self, condition: Condition) -> Self {
        self.condition = Some(match self.condition.take() {
            Some(c) => c.and(condition),
            None => condition,
        });
        self
    }

    /// Builds `UpdateExpression`, names and values.
    fn build(&self) -> Result<(String, Option<String>, Placeholders), Error> {
        let mut ph = Placeholders::default();
        let mut sets: Vec<String> = Vec::new();
        let mut removes: Vec<String> = Vec::new();
        let mut zero: Option<String> = None;
        let mut added: HashMap<&'static str, String> = HashMap::new();
        for (field, attr, action) in &self.actions {
            let n = ph.name(attr);
            match action {
                Action::Set(v) => {
                    let v = ph.value(v.clone());
                    sets.push(format!("{n} = {v}"));
                }
                Action::Remove => removes.push(n),
                Action::Add(v) => {
                    let z = zero.get_or_insert_with(|| ph.value(AttributeValue::N("0".into()))).clone();
                    let v = ph.value(v.clone());
                    let expr = format!("if_not_exists({n}, {z}) + {v}");
                    sets.push(format!("{n} = {expr}"));
                    added.insert(field, expr);
                }
            }
        }
        let schema = E::schema();
        for gsi in schema.gsis {
            let fields: Vec<&'static str> = gsi.pk.fields().chain(gsi.sk.fields()).collect();
            let touched: Vec<&str> =
                fields.iter().copied().filter(|f| self.parts.contains_key(f) || added.contains_key(f)).collect();
            if touched.is_empty() {
                continue;
            }
            let missing: Vec<&str> =
                fields.iter().copied().filter(|f| !self.parts.contains_key(f) && !added.contains_key(f)).collect();
            if !missing.is_empty() {
                return Err(Error::Invalid {
                    reason: format!(
                        "this update of {} sets `{}`, which the {} key (`{}` / `{}`) is built from; set `{}` in the same update so the key can be rebuilt",
                        E::TYPE,
                        touched.join("`, `"),
                        gsi.index,
                        gsi.pk.source,
                        gsi.sk.source,
                        missing.join("`, `"),
                    ),
                });
            }
            let (pk_attr, sk_attr) = (gsi.index.pk_attribute(), gsi.index.sk_attribute());
            let pk = self.key_value(gsi, true, &added)?;
            let sk = self.key_value(gsi, false, &added)?;
            match (pk, sk) {
                (Some(pk), Some(sk)) => {
                    for (attr, v) in [(pk_attr, pk), (sk_attr, sk)] {
                        let n = ph.name(attr);
                        let rhs = match v {
                            KeyValue::Value(v) => ph.value(v),
                            KeyValue::Expr(e) => e,
                        };
                        sets.push(format!("{n} = {rhs}"));
                    }
                }
                _ => {
                    removes.push(ph.name(pk_attr));
                    removes.push(ph.name(sk_attr));
                }
            }
        }
        if sets.is_empty() && removes.is_empty() {
            return Err(Error::Invalid { reason: format!("an update of {} must change at least one field", E::TYPE) });
        }
        let mut expr = String::new();
        if !sets.is_empty() {
            expr.push_str("SET ");
            expr.push_str(&sets.join(", "));
        }
        if !removes.is_empty() {
            if !expr.is_empty() {
                expr.push(' ');
            }
            expr.push_str("REMOVE ");
            expr.push_str(&removes.join(", "));
        }
        let pk = ph.name(PK);
        let mut cond = format!("attribute_exists({pk})");
        if let Some(c) = &self.condition {
            let text = c.render(&mut ph).map_err(|(field, source)| Error::Encode {
                entity: E::TYPE,
                field,
                attribute: field,
                source,
            })?;
            cond = format!("{cond} AND ({text})");
        }
        Ok((expr, Some(cond), ph))
    }

    /// The new value of one GSI key attribute: `None` when a part is absent.
    fn key_value(&self, gsi: &IndexSchema, partition: bool, added: &HashMap<&'static str, String>) -> Result<Option<KeyValue>, Error> {
        let template = if partition { gsi.pk } else { gsi.sk };
        let ctx = KeyContext {
            entity: E::TYPE,
            attribute: if partition { gsi.index.pk_attribute() } else { gsi.index.sk_attribute() },
            template,
            max_bytes: if partition { MAX_PARTITION_KEY_BYTES } else { MAX_SORT_KEY_BYTES },
        };
        // A template that is exactly one added number follows the field's new value.
        if let [Segment::Field(f)] = template.segments {
            if let Some(expr) = added.get(f) {
                if template.key_type == KeyType::N {
                    return Ok(Some(KeyValue::Expr(expr.clone())));
                }
            }
        }
        let mut out = String::new();
        for (i, seg) in template.segments.iter().enumerate() {
            if i > 0 {
                out.push(crate::key::DELIMITER);
            }
            match seg {
                Segment::Literal(l) => out.push_str(l),
                Segment::Field(f) => {
                    if added.contains_key(f) {
                        return Err(Error::Invalid {
                            reason: format!(
                                "cannot add to {}.{f}: it is one part of the composite key `{}`; set it instead",
                                E::TYPE,
                                template.source
                            ),
                        });
                    }
                    let text = match self.parts.get(f) {
                        Some(Ok(t)) => t,
                        Some(Err(reason)) => {
                            return Err(Error::Key(KeyError::Part {
                                entity: E::TYPE,
                                attribute: ctx.attribute,
                                template: template.source,
                                field: f,
                                reason: reason.clone(),
                            }));
                        }
                        None => return Ok(None),
                    };
                    let part = if template.key_type == KeyType::N { &text.number } else { &text.composite };
                    match part {
                        Some(p) => out.push_str(p),
                        None => return Ok(None),
                    }
                }
            }
        }
        if out.len() > ctx.max_bytes {
            return Err(Error::Key(KeyError::TooLong {
                entity: E::TYPE,
                attribute: ctx.attribute,
                template: template.source,
                bytes: out.len(),
                over: out.len() - ctx.max_bytes,
                limit: ctx.max_bytes,
            }));
        }
        Ok(Some(KeyValue::Value(match template.key_type {
            KeyType::S => AttributeValue::S(out),
            KeyType::N => AttributeValue::N(out),
        })))
    }

    /// Sends the update and returns the item as it is afterwards.
    ///
    /// # Errors
    /// [`Error::Invalid`] / [`Error::Key`] / [`Error::Encode`] before sending;
    /// [`Error::NotFound`] when there is no item with this key; [`Error::ConditionFailed`] when
    /// the condition does not hold; [`Error::Sdk`].
    pub async fn send(self) -> Result<E, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let (expr, cond, mut ph) = self.build()?;
        let key = self.key?;
        let result = self
            .table
            .client()
            .update_item()
            .table_name(self.table.name())
            .set_key(Some(key.to_item()))
            .update_expression(expr)
            .set_condition_expression(cond)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .send()
            .await;
        match result {
            Ok(resp) => {
                let item = resp.attributes.unwrap_or_default();
                E::from_item(&item)
            }
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                let existed = match e.err() {
                    aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException(c) => {
                        c.item().is_some_and(|i| !i.is_empty())
                    }
                    _ => false,
                };
                let key = key.to_string();
                Err(if existed { Error::ConditionFailed { entity: E::TYPE, key } } else { Error::NotFound { entity: E::TYPE, key } })
            }
            Err(e) => Err(Error::sdk("UpdateItem", e)),
        }
    }
}

enum KeyValue {
    Value(AttributeValue),
    Expr(String),
}
