//! The update-expression builder: an [`UpdateRequest`]'s actions, the GSI keys they rewrite and
//! the guards it needs, written as `UpdateExpression` and `ConditionExpression` with their
//! names and values, in named steps ([`UpdateRequest::build`]).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::expr::Placeholders;
use crate::key::rebuild::{KeyValue, Known, PartText, RebuildError, key_value, primary_parts};
use crate::key::{KeyContext, KeyError, KeyType, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, Segment, Template};
use crate::schema::{Entity, EntitySchema, IndexSchema};
use crate::update::elements::Step;
use crate::update::{Action, UpdateRequest, VersionCheck, next, push_all, upsert};
use crate::value::size::value_size;
use crate::versioning;

/// An update built by [`UpdateRequest::build`], not yet checked against DynamoDB's limits.
pub(super) struct Built {
    /// `UpdateExpression`.
    pub(super) update: String,
    /// `ConditionExpression`.
    pub(super) condition: String,
    /// The names and values of both expressions.
    pub(super) placeholders: Placeholders,
    /// How many bytes at the start of `condition` the library wrote (the entity-type guard,
    /// range guards, the version check), named when the condition is over a limit.
    pub(super) library: usize,
    /// The size, by the item-size rules ([`value_size`]), of the attributes the update sets
    /// outright, names and values: the updated item holds them whatever it held before.
    pub(super) set_bytes: usize,
    /// An upsert whose item, were it absent, would not be a valid entity: why. It is sent as an
    /// update of an existing item ([`Error::CannotCreate`] when there is none).
    pub(super) cannot_create: Option<String>,
}

/// The clauses of an `UpdateExpression` while they are written, and what writing them learns.
#[derive(Default)]
struct Clauses {
    /// Each clause's actions, separated by `, ` as they are written.
    sets: String,
    removes: String,
    adds: String,
    deletes: String,
    /// ` AND (guard)` for each range guard, in order.
    guards: String,
    /// The `:v` placeholder of `0`, once written (the start of `if_not_exists(n, 0) + v`).
    zero: Option<String>,
    /// The `:v` placeholder of an empty list, once written (the start of `list_append`).
    empty_list: Option<String>,
    /// The expression each `add` / `subtract` gives its field, by field name.
    added: HashMap<&'static str, String>,
    /// The attributes the expression writes (an upsert writes the others `if_not_exists`).
    /// Only an upsert reads them: an update leaves the list empty (no allocation).
    written: Vec<&'static str>,
    /// The size of the attributes set outright (see [`Built::set_bytes`]).
    set_bytes: usize,
}

impl Clauses {
    /// `REMOVE`s both key attributes of an index (an LSI's sort key alone): the item leaves the
    /// sparse index.
    fn remove_index_keys(
        &mut self,
        ph: &mut Placeholders,
        local: bool,
        pk: &'static str,
        sk: &'static str,
        upsert: bool,
    ) {
        if !local {
            let n = ph.name(pk);
            next(&mut self.removes).push_str(&n);
        }
        let n = ph.name(sk);
        next(&mut self.removes).push_str(&n);
        if upsert {
            self.written.extend([pk, sk]);
        }
    }

    /// The `UpdateExpression`: each clause that has actions, `SET` first.
    fn expression(&self) -> String {
        let clauses = [("SET", &self.sets), ("REMOVE", &self.removes), ("ADD", &self.adds), ("DELETE", &self.deletes)];
        let mut expr = String::with_capacity(clauses.iter().map(|(c, p)| c.len() + p.len() + 2).sum());
        for (clause, parts) in clauses {
            if parts.is_empty() {
                continue;
            }
            if !expr.is_empty() {
                expr.push(' ');
            }
            expr.push_str(clause);
            expr.push(' ');
            expr.push_str(parts);
        }
        expr
    }
}

/// What an update does to one secondary index's key attributes ([`UpdateRequest::index_rewrite`]).
pub(super) struct IndexRewrite {
    /// A part becomes `None`: the item leaves the index (both key attributes are removed).
    goes_absent: bool,
    /// The key attributes rewritten: each template, attribute and largest size.
    rewrite: [Option<(&'static Template, &'static str, usize)>; 2],
    /// The fields a rewrite needs that the update does not know.
    pub(super) missing: Vec<&'static str>,
}

/// The attribute a template copies when it is one stored field written unchanged as the key (a
/// number, or a timestamp the library maintains), which the update does not set:
/// `SET GSI1SK = created_at`.
fn copyable(
    schema: &EntitySchema,
    t: &Template,
    known: &Known<'_>,
    added: &dyn Fn(&str) -> bool,
) -> Option<&'static str> {
    let [Segment::Field(f)] = t.segments else { return None };
    if known.contains_key(f) || added(f) {
        return None;
    }
    let maintained = [&schema.created_at, &schema.updated_at].into_iter().flatten().any(|m| m.field == *f);
    if (t.key_type != KeyType::N && !maintained) || schema.is_optional(f) {
        return None;
    }
    schema.fields.iter().find(|x| x.field == *f).map(|x| x.attribute)
}

impl<E: Entity> UpdateRequest<E> {
    /// Builds `UpdateExpression`, names and values, and measures the attributes it sets
    /// outright (`SET a = :v`, a field's value or a GSI key's): their names' and values' size
    /// by the item-size rules, which the updated item holds whatever it held before.
    /// Moves the values of the actions into the placeholders (the request owns them; the
    /// update is not built twice), except the amounts of `add` / `subtract`, which a failed
    /// condition's explanation reads.
    pub(super) fn build(&mut self) -> Result<Built, Error> {
        // Room for each action's name and value, the condition's two names and one value, and
        // one GSI key pair rewritten; more grows the maps.
        let mut ph = Placeholders::with_capacity(self.actions.len() + 4, self.actions.len() + 3);
        let mut c = Clauses { sets: String::with_capacity(16 * (self.actions.len() + 2)), ..Clauses::default() };
        self.refuse_overlaps()?;
        // The item an upsert creates when there is none, from the actions' values.
        let created = if self.upsert { Some(upsert::created_item(&self.actions)) } else { None };
        if self.upsert {
            c.written = self.actions.iter().map(|(_, a, _)| *a).collect();
        }
        self.write_actions(&mut ph, &mut c);
        self.rewrite_index_keys(&mut ph, &mut c)?;
        self.push_stored_guards(&mut ph, &mut c.guards);
        let mut cannot_create = None;
        if self.upsert {
            // An upsert creates the item when absent: every attribute of the item it would
            // create that is not written above is written `if_not_exists`. When that item would
            // not be valid, the upsert changes an existing item only.
            let key = self.key.as_ref().ok();
            cannot_create = upsert::create_missing::<E>(key, created, &c.written, &mut ph, &mut c.sets)?;
        }
        let expr = c.expression();
        if expr.is_empty() {
            return Err(Error::Invalid { reason: format!("an update of {} must change at least one field", E::TYPE) });
        }
        let creates = self.upsert && cannot_create.is_none();
        let (condition, library) = self.condition_expression(&mut ph, &c.guards, creates)?;
        Ok(Built { update: expr, condition, placeholders: ph, library, set_bytes: c.set_bytes, cannot_create })
    }

    /// Refuses two actions on one attribute, which DynamoDB refuses: two entries or elements
    /// of one field are two paths; the whole field and a part of it, or one part twice, overlap.
    fn refuse_overlaps(&self) -> Result<(), Error> {
        for (i, (field, _, action)) in self.actions.iter().enumerate() {
            let overlaps = |(f, _, a): &(&str, &str, Action)| {
                f == field && a.step().zip(action.step()).is_none_or(|(x, y)| x == y)
            };
            if self.actions[..i].iter().any(overlaps) {
                return Err(Error::Invalid {
                    reason: format!(
                        "this update of {} changes `{field}`{} twice; DynamoDB refuses two actions on one attribute",
                        E::TYPE,
                        action.step().map(|s| s.to_string()).unwrap_or_default(),
                    ),
                });
            }
        }
        Ok(())
    }

    /// Writes each action into its clause, with the range guards of `add` / `subtract` and of
    /// `SET l[i]`.
    ///
    /// A field renamed with `#[entity(alias = "...", write_alias)]` has its alias attribute set
    /// to the same value (`SET #n = :v, #alias = :v`) or removed with it: old code, which reads
    /// the alias, sees the write (see [`FieldSchema::write_alias`](crate::schema::FieldSchema)).
    fn write_actions(&mut self, ph: &mut Placeholders, c: &mut Clauses) {
        let (schema, upsert) = (E::schema(), self.upsert);
        for (field, attr, action) in &mut self.actions {
            let alias = match action {
                Action::Set(_) | Action::Remove => schema.written_alias_of(attr),
                _ => None,
            };
            if let Action::Set(v) = action {
                c.set_bytes = c.set_bytes.saturating_add(attr.len() + value_size(v));
                // `#n = :v`, the placeholders written in place.
                let out = next(&mut c.sets);
                ph.push_name(attr, out);
                out.push_str(" = ");
                let at = out.len();
                ph.push_value(take(v), out);
                if let Some(alias) = alias {
                    let value = out[at..].to_owned();
                    if let Some(v) = ph.values().and_then(|values| values.get(&value)) {
                        c.set_bytes = c.set_bytes.saturating_add(alias.len() + value_size(v));
                    }
                    let out = next(&mut c.sets);
                    ph.push_name(alias, out);
                    out.push_str(" = ");
                    out.push_str(&value);
                    if upsert {
                        c.written.push(alias);
                    }
                }
                continue;
            }
            let n = ph.name(attr);
            match action {
                Action::Set(_) => {}
                Action::SetIfNotExists(v) => {
                    let v = ph.value(take(v));
                    push_all(next(&mut c.sets), &[&n, " = if_not_exists(", &n, ", ", &v, ")"]);
                }
                Action::Remove => {
                    next(&mut c.removes).push_str(&n);
                    if let Some(alias) = alias {
                        let a = ph.name(alias);
                        next(&mut c.removes).push_str(&a);
                        if upsert {
                            c.written.push(alias);
                        }
                    }
                }
                Action::Arith(op, v) => {
                    let z = c.zero.get_or_insert_with(|| ph.value(AttributeValue::N("0".into()))).clone();
                    if let Some(bounds) = self.bounds.get(field) {
                        push_range_guard(&n, bounds, ph, &mut c.guards);
                    }
                    let v = ph.value(v.clone());
                    let expr = format!("if_not_exists({n}, {z}) {op} {v}");
                    push_all(next(&mut c.sets), &[&n, " = ", &expr]);
                    c.added.insert(field, expr);
                }
                Action::Append(v, at_end) => {
                    let e = c.empty_list.get_or_insert_with(|| ph.value(AttributeValue::L(Vec::new()))).clone();
                    let v = ph.value(take(v));
                    let current = format!("if_not_exists({n}, {e})");
                    let (a, b) = if *at_end { (current, v) } else { (v, current) };
                    push_all(next(&mut c.sets), &[&n, " = list_append(", &a, ", ", &b, ")"]);
                }
                Action::SetAdd(v) => {
                    let v = ph.value(take(v));
                    push_all(next(&mut c.adds), &[&n, " ", &v]);
                }
                Action::SetDelete(v) => {
                    let v = ph.value(take(v));
                    push_all(next(&mut c.deletes), &[&n, " ", &v]);
                }
                Action::SetAt(step, v) => {
                    let path = step.path(&n, ph);
                    let v = ph.value(take(v));
                    push_all(next(&mut c.sets), &[&path, " = ", &v]);
                    if let Step::Index(i) = step {
                        // DynamoDB appends a `SET l[i]` past the end: the list must hold `i`.
                        let size = ph.value(AttributeValue::N(i.to_string()));
                        push_all(&mut c.guards, &[" AND (size(", &n, ") > ", &size, ")"]);
                    }
                }
                Action::RemoveAt(step) => {
                    let path = step.path(&n, ph);
                    next(&mut c.removes).push_str(&path);
                }
            }
        }
    }

    /// Rewrites (or removes) the key attributes of every secondary index that a field this
    /// update sets is part of.
    fn rewrite_index_keys(&self, ph: &mut Placeholders, c: &mut Clauses) -> Result<(), Error> {
        let schema = E::schema();
        let primary = match &self.key {
            Ok(key) => primary_parts([(schema.primary.pk, &key.pk), (schema.primary.sk, &key.sk)]),
            Err(_) => Vec::new(),
        };
        let known = self.known_parts(schema, &primary)?;
        for gsi in schema.secondary_indexes() {
            self.rewrite_index(schema, gsi, &known, ph, c)?;
        }
        Ok(())
    }

    /// What this update does to one secondary index's key attributes: nothing (`None`) when
    /// it touches no field of them; otherwise which to rewrite or whether the item leaves the
    /// index, and the fields a rewrite needs that the update does not know (`known`: the key
    /// parts known; `added`: whether `add` / `subtract` moves a field).
    pub(super) fn index_rewrite(
        &self,
        schema: &EntitySchema,
        gsi: &IndexSchema,
        known: &Known<'_>,
        added: &dyn Fn(&str) -> bool,
    ) -> Option<IndexRewrite> {
        // An LSI's partition key is the item's own `PK`, which no update changes: only its
        // sort key `LSI<n>SK` is written or removed.
        let local = gsi.index.is_local();
        let is_touched = |t: &Template| t.fields().any(|f| self.part(f).is_some() || added(f));
        let has_optional = |t: &Template| t.fields().any(|f| schema.is_optional(f));
        let (pk_touched, sk_touched) = (!local && is_touched(gsi.pk), is_touched(gsi.sk));
        if !pk_touched && !sk_touched {
            return None;
        }
        // A part set to None takes the item out of the index whatever the other parts are.
        let goes_absent = gsi
            .pk
            .fields()
            .chain(gsi.sk.fields())
            .any(|f| matches!(self.part(f), Some(Ok(PartText { present: false, .. }))));
        let (pk_attr, sk_attr) = (schema.names.pk_of(gsi.index), schema.names.sk_of(gsi.index));
        if goes_absent {
            return Some(IndexRewrite { goes_absent, rewrite: [None, None], missing: Vec::new() });
        }
        // An untouched template is rewritten too when either template has an Option part:
        // a None may have removed both attributes earlier, and a new value must restore both.
        let both = has_optional(gsi.pk) || has_optional(gsi.sk);
        // At most the two key attributes (an array: no allocation).
        let rewrite: [Option<(&'static Template, &'static str, usize)>; 2] = [
            (!local && (pk_touched || both)).then_some((gsi.pk, pk_attr, MAX_PARTITION_KEY_BYTES)),
            (sk_touched || both).then_some((gsi.sk, sk_attr, MAX_SORT_KEY_BYTES)),
        ];
        let mut missing: Vec<&'static str> = rewrite
            .iter()
            .flatten()
            .filter(|(t, ..)| copyable(schema, t, known, added).is_none())
            .flat_map(|(t, ..)| t.fields())
            .filter(|f| !known.contains_key(f) && !added(f))
            .collect();
        missing.dedup();
        Some(IndexRewrite { goes_absent, rewrite, missing })
    }

    /// Rewrites the key attributes of one secondary index when this update touches a field of
    /// them: both when either template has an `Option` part, none (removed) when a part
    /// becomes `None`.
    fn rewrite_index(
        &self,
        schema: &EntitySchema,
        gsi: &IndexSchema,
        known: &Known<'_>,
        ph: &mut Placeholders,
        c: &mut Clauses,
    ) -> Result<(), Error> {
        let (pk_attr, sk_attr) = (schema.names.pk_of(gsi.index), schema.names.sk_of(gsi.index));
        let local = gsi.index.is_local();
        let added = &c.added;
        let Some(IndexRewrite { goes_absent, rewrite, missing }) =
            self.index_rewrite(schema, gsi, known, &|f| added.contains_key(f))
        else {
            return Ok(());
        };
        if goes_absent {
            c.remove_index_keys(ph, local, pk_attr, sk_attr, self.upsert);
            return Ok(());
        }
        if !missing.is_empty() {
            let touched: Vec<&str> = gsi
                .pk
                .fields()
                .chain(gsi.sk.fields())
                .filter(|f| self.part(f).is_some() || added.contains_key(f))
                .collect();
            let templates: Vec<String> =
                rewrite.iter().flatten().map(|(t, a, _)| format!("{a} `{}`", t.source)).collect();
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
        let mut values: [Option<(&'static str, KeyValue)>; 2] = [None, None];
        let mut absent = false;
        for (slot, (template, attribute, max_bytes)) in
            values.iter_mut().zip(rewrite).filter_map(|(v, r)| Some((v, r?)))
        {
            if let Some(source) = copyable(schema, template, known, &|f| added.contains_key(f)) {
                *slot = Some((attribute, KeyValue::Expr(ph.name(source))));
                continue;
            }
            let ctx = KeyContext { entity: E::TYPE, attribute, template, max_bytes };
            match key_value(&ctx, known, added).map_err(rebuild_error)? {
                Some(v) => *slot = Some((attribute, v)),
                None => absent = true,
            }
        }
        if absent {
            // A part is None: the item leaves the sparse index, both attributes go (an
            // LSI's sort key alone).
            c.remove_index_keys(ph, local, pk_attr, sk_attr, self.upsert);
            return Ok(());
        }
        for (attribute, v) in values.into_iter().flatten() {
            if self.upsert {
                c.written.push(attribute);
            }
            let out = next(&mut c.sets);
            ph.push_name(attribute, out);
            out.push_str(" = ");
            match v {
                KeyValue::Value(v) => {
                    c.set_bytes = c.set_bytes.saturating_add(attribute.len() + value_size(&v));
                    ph.push_value(v, out);
                }
                KeyValue::Expr(e) => out.push_str(&e),
            }
        }
        Ok(())
    }

    /// The `ConditionExpression`: the item exists and is of this entity type (an upsert that
    /// `creates`: is absent or of this type), at the entity's schema version, the range guards,
    /// the version check, then the caller's condition. Returns it with how many bytes at its
    /// start the library wrote.
    fn condition_expression(
        &self,
        ph: &mut Placeholders,
        guards: &str,
        creates: bool,
    ) -> Result<(String, usize), Error> {
        // The item must exist and be of this entity type: an update never creates a
        // half-written item, nor changes another entity's item under the same key.
        let mut cond = String::with_capacity(64 + guards.len());
        if creates {
            crate::owner::push_guard(crate::owner::Guard::AbsentOrIs, ph, E::NAMES, E::TYPE, &mut cond);
            if let Some(sv) = &E::schema().schema_version {
                upsert::push_schema_guard(E::NAMES, sv, ph, &mut cond);
            }
        } else {
            cond.push_str("attribute_exists(");
            ph.push_name(E::NAMES.pk, &mut cond);
            cond.push_str(") AND ");
            crate::owner::push_guard(crate::owner::Guard::Is, ph, E::NAMES, E::TYPE, &mut cond);
            // The fields are those of the entity's current schema version: an item stored at
            // an earlier one would keep its version and old attributes, and reads would decode
            // it as before, without this write (`Error::UpgradeRequired`).
            if let Some(sv) = &E::schema().schema_version {
                upsert::push_schema_guard(E::NAMES, sv, ph, &mut cond);
            }
        }
        cond.push_str(guards);
        if let (Some(version), VersionCheck::Is(expected)) = (&E::schema().version, self.version) {
            let text = versioning::version_condition(version, expected, ph);
            push_all(&mut cond, &[" AND ", &text]);
        }
        // What the library wrote into the condition, named when it takes the request over a limit.
        let library = cond.len();
        if let Some(c) = &self.condition {
            let text = c.render(ph).map_err(|(field, source)| Error::Encode {
                entity: E::TYPE,
                field,
                attribute: field,
                source,
            })?;
            push_all(&mut cond, &[" AND (", &text, ")"]);
        }
        Ok((cond, library))
    }

    /// The key-part text of every field whose value this update knows: the fields it sets
    /// and the primary key fields (from the key).
    /// `primary` is [`primary_parts`] of the key.
    fn known_parts<'a>(
        &'a self,
        schema: &EntitySchema,
        primary: &'a [(&'static str, PartText)],
    ) -> Result<Known<'a>, Error> {
        let mut known = Known(Vec::with_capacity(primary.len() + self.parts.len()));
        known.0.extend(primary.iter().map(|(f, t)| (*f, t)));
        // What the update read from the stored item, before what it sets (which replaces it).
        known.0.extend(self.stored.iter().flat_map(|s| &s.parts).map(|(f, t)| (*f, t)));
        for (field, text) in &self.parts {
            match text {
                Ok(t) => known.0.push((*field, t)),
                Err(reason) => {
                    // Name the first key template built from this field.
                    let (attribute, template) = schema
                        .secondary_indexes()
                        .flat_map(|g| [(schema.names.pk_of(g.index), g.pk), (schema.names.sk_of(g.index), g.sk)])
                        .find(|(_, t)| t.fields().any(|f| f == *field))
                        .map(|(a, t)| (a, t.source))
                        .unwrap_or(("?", "?"));
                    return Err(Error::Key(KeyError::Part {
                        entity: E::TYPE,
                        attribute,
                        template,
                        field,
                        reason: reason.clone(),
                    }));
                }
            }
        }
        Ok(known)
    }
}

/// Appends the range guard of an `add` / `subtract` on the attribute named `n`: the result
/// must stay within the field's type. `bounds` are the lowest and highest values the
/// attribute may hold before the change, and whether an absent attribute is allowed.
///
/// Written compactly, since they count against the request's limits (300 operators per
/// expression): `NOT n > h` holds when the attribute is absent (a comparison with an absent
/// attribute is false) or at most `h`, one operator fewer than `attribute_not_exists(n) OR
/// n <= h`, and two bounds are one BETWEEN.
fn push_range_guard(
    n: &str,
    bounds: &(Option<String>, Option<String>, bool),
    ph: &mut Placeholders,
    guards: &mut String,
) {
    let (low, high, from_zero) = bounds;
    let (low, high) = (low.as_ref(), high.as_ref());
    if let (Some(low), Some(high), false) = (low, high, *from_zero) {
        let l = ph.value(AttributeValue::N(low.clone()));
        let h = ph.value(AttributeValue::N(high.clone()));
        push_all(guards, &[" AND (", n, " BETWEEN ", &l, " AND ", &h, ")"]);
    } else {
        let (not, lt, gt) = if *from_zero { ("NOT ", " < ", " > ") } else { ("", " >= ", " <= ") };
        if let Some(low) = low {
            let l = ph.value(AttributeValue::N(low.clone()));
            push_all(guards, &[" AND (", not, n, lt, &l, ")"]);
        }
        if let Some(high) = high {
            let h = ph.value(AttributeValue::N(high.clone()));
            push_all(guards, &[" AND (", not, n, gt, &h, ")"]);
        }
    }
    if !*from_zero && low.is_none() && high.is_none() {
        push_all(guards, &[" AND (attribute_exists(", n, "))"]);
    }
}

/// A key that cannot be rebuilt, as the error of the update.
fn rebuild_error(e: RebuildError) -> Error {
    match e {
        RebuildError::Key(e) => Error::Key(e),
        RebuildError::Invalid(reason) => Error::Invalid { reason },
    }
}

/// The value of an action, moved out of it into the request (an update is built once; only
/// the amounts of `add` / `subtract` are read again, to explain a failed condition, and they
/// are not taken).
fn take(v: &mut AttributeValue) -> AttributeValue {
    std::mem::replace(v, AttributeValue::Null(true))
}
