//! Typed updates (`UpdateItem`) that keep GSI keys in step with the fields they are built from.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::entity::{Entity, EntitySchema, Key, PK, PrimaryKey};
use crate::error::Error;
use crate::expr::{Condition, Field, Mutable, Placeholders};
use crate::key::{
    DELIMITER, KeyContext, KeyError, KeyPartError, KeyType, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, PartForm,
    Segment, Template,
};
use crate::table::{RETURN_OLD_ON_FAILURE, Table};
use crate::value::Attribute;

/// A key field's value as key-part text. `present == false`: the value is `None`. A form that
/// cannot be derived (see [`primary_parts`]) is `None`.
#[derive(Debug, Clone)]
struct PartText {
    present: bool,
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
/// * Setting a field that a GSI key template uses rewrites that key attribute in the same
///   request; when either template of the GSI has an `Option` part, both key attributes are
///   rewritten (a `None` may have removed both earlier). Every field of a template that is
///   rewritten must be known: set in the same update, or a primary key field (read from the
///   key). Otherwise the request is rejected before sending
///   with [`Error::Invalid`] naming the missing fields, since the library cannot know their
///   stored values. When a part becomes `None`, both key attributes of that GSI are removed
///   (the item leaves the sparse index).
/// * [`UpdateRequest::add`] on a field that is exactly a numeric GSI key (`<downloads>`) moves
///   that key by the same amount in the same request.
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
                Ok(PartText { present, composite: Some(composite), number: Some(number) })
            });
            self.parts.insert(field.name, text);
        }
    }

    /// `SET field = value`; for `Option` fields, `None` removes the attribute.
    pub fn set<T: Attribute>(mut self, field: Field<E, T, Mutable>, value: &T) -> Self {
        match value.to_attribute() {
            Ok(Some(v)) => self.actions.push((field.name, field.attribute, Action::Set(v))),
            Ok(None) => self.actions.push((field.name, field.attribute, Action::Remove)),
            Err(source) => {
                self.fail(Error::Encode { entity: E::TYPE, field: field.name, attribute: field.attribute, source })
            }
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
            Err(source) => {
                self.fail(Error::Encode { entity: E::TYPE, field: field.name, attribute: field.attribute, source })
            }
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
        let known = self.known_parts(schema)?;
        for gsi in schema.gsis {
            let (pk_attr, sk_attr) = (gsi.index.pk_attribute(), gsi.index.sk_attribute());
            let is_touched = |t: &Template| t.fields().any(|f| self.parts.contains_key(f) || added.contains_key(f));
            let has_optional = |t: &Template| t.fields().any(|f| schema.is_optional(f));
            let (pk_touched, sk_touched) = (is_touched(gsi.pk), is_touched(gsi.sk));
            if !pk_touched && !sk_touched {
                continue;
            }
            // An untouched template is rewritten too when either template has an Option part:
            // a None may have removed both attributes earlier, and a new value must restore both.
            let both = has_optional(gsi.pk) || has_optional(gsi.sk);
            let rewrite: Vec<(&'static Template, &'static str, usize)> = [
                (pk_touched || both, gsi.pk, pk_attr, MAX_PARTITION_KEY_BYTES),
                (sk_touched || both, gsi.sk, sk_attr, MAX_SORT_KEY_BYTES),
            ]
            .into_iter()
            .filter(|(r, ..)| *r)
            .map(|(_, t, a, m)| (t, a, m))
            .collect();
            let mut missing: Vec<&str> = rewrite
                .iter()
                .flat_map(|(t, ..)| t.fields())
                .filter(|f| !known.contains_key(f) && !added.contains_key(f))
                .collect();
            missing.dedup();
            if !missing.is_empty() {
                let touched: Vec<&str> = gsi
                    .pk
                    .fields()
                    .chain(gsi.sk.fields())
                    .filter(|f| self.parts.contains_key(f) || added.contains_key(f))
                    .collect();
                let templates: Vec<String> = rewrite.iter().map(|(t, a, _)| format!("{a} `{}`", t.source)).collect();
                return Err(Error::Invalid {
                    reason: format!(
                        "this update of {} sets `{}`, which {} {} built from; set `{}` in the same update so the key can be rebuilt",
                        E::TYPE,
                        touched.join("`, `"),
                        templates.join(" and "),
                        if templates.len() == 1 { "is" } else { "are" },
                        missing.join("`, `"),
                    ),
                });
            }
            let mut values = Vec::with_capacity(2);
            let mut absent = false;
            for (template, attribute, max_bytes) in rewrite {
                let ctx = KeyContext { entity: E::TYPE, attribute, template, max_bytes };
                match key_value(&ctx, &known, &added)? {
                    Some(v) => values.push((attribute, v)),
                    None => absent = true,
                }
            }
            if absent {
                // A part is None: the item leaves the sparse index, both attributes go.
                removes.push(ph.name(pk_attr));
                removes.push(ph.name(sk_attr));
                continue;
            }
            for (attribute, v) in values {
                let n = ph.name(attribute);
                let rhs = match v {
                    KeyValue::Value(v) => ph.value(v),
                    KeyValue::Expr(e) => e,
                };
                sets.push(format!("{n} = {rhs}"));
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

    /// The key-part text of every field whose value this update knows: the fields it sets
    /// and the primary key fields (from the key).
    fn known_parts(&self, schema: &EntitySchema) -> Result<HashMap<&'static str, PartText>, Error> {
        let mut known = match &self.key {
            Ok(key) => primary_parts(schema, key),
            Err(_) => HashMap::new(),
        };
        for (field, text) in &self.parts {
            match text {
                Ok(t) => {
                    known.insert(field, t.clone());
                }
                Err(reason) => {
                    return Err(Error::Key(KeyError::Part {
                        entity: E::TYPE,
                        attribute: field,
                        template: "",
                        field,
                        reason: reason.clone(),
                    }));
                }
            }
        }
        Ok(known)
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
                Err(if existed {
                    Error::ConditionFailed { entity: E::TYPE, key }
                } else {
                    Error::NotFound { entity: E::TYPE, key }
                })
            }
            Err(e) => Err(Error::sdk("UpdateItem", e)),
        }
    }
}

enum KeyValue {
    Value(AttributeValue),
    Expr(String),
}

/// The new value of one GSI key attribute, `None` when a part is absent.
fn key_value(
    ctx: &KeyContext,
    known: &HashMap<&'static str, PartText>,
    added: &HashMap<&'static str, String>,
) -> Result<Option<KeyValue>, Error> {
    let template = ctx.template;
    let numeric = template.key_type == KeyType::N;
    // A template that is exactly one added number follows the field's new value.
    if let [Segment::Field(f)] = template.segments {
        if let (Some(expr), true) = (added.get(f), numeric) {
            return Ok(Some(KeyValue::Expr(expr.clone())));
        }
    }
    let mut out = String::new();
    for (i, seg) in template.segments.iter().enumerate() {
        if i > 0 {
            out.push(DELIMITER);
        }
        let f = match seg {
            Segment::Literal(l) => {
                out.push_str(l);
                continue;
            }
            Segment::Field(f) => *f,
        };
        if added.contains_key(f) {
            return Err(Error::Invalid {
                reason: format!(
                    "cannot add to {}.{f}: it is one part of the composite key `{}`; set it instead",
                    ctx.entity, template.source
                ),
            });
        }
        let Some(text) = known.get(f) else { return Ok(None) };
        if !text.present {
            return Ok(None);
        }
        let form = if numeric { &text.number } else { &text.composite };
        match form {
            Some(p) => out.push_str(p),
            None => {
                return Err(Error::Invalid {
                    reason: format!(
                        "{}.{f} is stored as a bare number in the primary key and cannot be rewritten into `{}`",
                        ctx.entity, template.source
                    ),
                });
            }
        }
    }
    if out.len() > ctx.max_bytes {
        return Err(Error::Key(KeyError::TooLong {
            entity: ctx.entity,
            attribute: ctx.attribute,
            template: template.source,
            bytes: out.len(),
            over: out.len() - ctx.max_bytes,
            limit: ctx.max_bytes,
        }));
    }
    Ok(Some(KeyValue::Value(if numeric { AttributeValue::N(out) } else { AttributeValue::S(out) })))
}

/// The part texts of the primary key fields, read back from the encoded key: a string key is
/// split at its delimiters (its parts are already in composite form, escaped); a numeric part
/// in composite form also gives its plain number form.
fn primary_parts(schema: &EntitySchema, key: &PrimaryKey) -> HashMap<&'static str, PartText> {
    let mut out = HashMap::new();
    for (template, value) in [(schema.primary.pk, &key.pk), (schema.primary.sk, &key.sk)] {
        match value {
            AttributeValue::S(s) => {
                for (seg, piece) in template.segments.iter().zip(s.split(DELIMITER)) {
                    if let Segment::Field(f) = seg {
                        let number = composite_to_number(piece);
                        out.insert(*f, PartText { present: true, composite: Some(piece.to_owned()), number });
                    }
                }
            }
            AttributeValue::N(n) => {
                if let [Segment::Field(f)] = template.segments {
                    out.insert(*f, PartText { present: true, composite: None, number: Some(n.clone()) });
                }
            }
            _ => {}
        }
    }
    out
}

/// The plain number of an integer key part in composite form (zero-padded, or `-` and the
/// zero-padded offset from the type's minimum, whose width names the type); `None` for text
/// that is no such integer.
fn composite_to_number(part: &str) -> Option<String> {
    let (negative, digits) = match part.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, part),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !negative {
        let t = digits.trim_start_matches('0');
        return Some(if t.is_empty() { "0".to_owned() } else { t.to_owned() });
    }
    let offset: i128 = digits.parse().ok()?;
    let min: i128 = match digits.len() {
        3 => i8::MIN.into(),
        5 => i16::MIN.into(),
        10 => i32::MIN.into(),
        19 => i64::MIN.into(),
        39 => i128::MIN,
        _ => return None,
    };
    Some(min.checked_add(offset)?.to_string())
}
