//! One write of a batch write ([`WriteOp`]): checked and encoded to its bytes when it is added,
//! read back as the SDK's `WriteRequest` when it is reported.

use aws_sdk_dynamodb::types::WriteRequest;

use crate::batch::key_id::{KeyId, key_id, key_id_of};
use crate::batch::wire;
use crate::error::{Error, UnprocessedReason, UnprocessedWrite, WriteKind};
use crate::schema::{AttributeNames, Entity, Item, PrimaryKey};

/// A batch cannot keep uniqueness guards in step (BatchWriteItem has no conditions), so
/// entities with `#[entity(unique)]` fields are written with `Table::create` / `put` /
/// `delete` instead.
pub(super) fn refuse_unique<E: Entity>(operation: &str) -> Result<(), Error> {
    if E::schema().has_unique() {
        return Err(Error::Invalid {
            reason: format!(
                "a batch cannot {operation} {}: it has unique fields, whose guard items only a transaction keeps in step; use Table::create, Table::put or Table::delete",
                E::TYPE
            ),
        });
    }
    Ok(())
}

/// One encoded write of a batch.
#[derive(Debug, Clone)]
pub(super) struct WriteOp {
    pub(super) entity: &'static str,
    /// The entity's attribute names, which name the key attributes of the request.
    pub(super) names: &'static AttributeNames,
    pub(super) key: PrimaryKey,
    pub(super) kind: WriteKind,
    /// The write in DynamoDB's JSON, as its request sends it (see `wire`).
    pub(super) wire: wire::Wire,
    pub(super) size: usize,
}

impl WriteOp {
    pub(super) fn put<E: Entity>(value: &E) -> Result<WriteOp, Error> {
        refuse_unique::<E>("put")?;
        if E::schema().version.is_some() {
            return Err(Error::Invalid {
                reason: format!(
                    "a batch cannot put {}: it is versioned, and BatchWriteItem has no conditions to check the version; use Table::put",
                    E::TYPE
                ),
            });
        }
        // `updated_at` is set as a single put would set it; the key is the one `to_item`
        // encoded (not encoded a second time), the size the one `stamp` checked (an upper
        // bound within 400 KB, not measured a second time).
        let crate::versioning::Stamped { key, item, size, .. } = crate::versioning::stamp(value, false)?;
        Self::from_item(E::TYPE, E::NAMES, key, item, size)
    }

    /// The put of `item`, whose size in bytes is `size` (or an upper bound of it).
    pub(super) fn from_item(
        entity: &'static str,
        names: &'static AttributeNames,
        key: PrimaryKey,
        item: Item,
        size: usize,
    ) -> Result<WriteOp, Error> {
        key_id_of(&key, names)?;
        // The item's map is freed here: the batch keeps the write's bytes (see `wire`).
        let wire = wire::Wire::put(&item).map_err(|e| unknown_type(entity, names, &key, e))?;
        Ok(WriteOp { entity, names, key, kind: WriteKind::Put, wire, size })
    }

    pub(super) fn delete(
        entity: &'static str,
        names: &'static AttributeNames,
        key: PrimaryKey,
    ) -> Result<WriteOp, Error> {
        key_id_of(&key, names)?;
        let wire = wire::Wire::delete(&names.key_item(&key)).map_err(|e| unknown_type(entity, names, &key, e))?;
        Ok(WriteOp { entity, names, key, kind: WriteKind::Delete, wire, size: 0 })
    }

    /// The write as the SDK's `WriteRequest`, read back from its bytes. They are always a
    /// write (this module made them); should they not read back, the loss is logged at
    /// `ERROR` and the request is empty, which DynamoDB refuses if it is sent.
    pub(super) fn request(&self) -> WriteRequest {
        self.wire.request().unwrap_or_else(|| {
            tracing::error!(
                target: "dynamo_entity",
                entity = self.entity,
                key = %self.names.show_key(&self.key),
                "a batch write's request could not be read back from its bytes"
            );
            WriteRequest::builder().build()
        })
    }

    /// The report of this write, not acknowledged for `reason` (`maybe_written`: an attempt
    /// that carried it lost its answer).
    pub(super) fn unprocessed(
        &self,
        position: usize,
        reason: UnprocessedReason,
        maybe_written: bool,
    ) -> UnprocessedWrite {
        let request = self.request();
        UnprocessedWrite {
            position,
            entity: self.entity,
            names: self.names,
            key: self.key.clone(),
            kind: self.kind,
            reason,
            maybe_written,
            request,
        }
    }
}

/// The error of a write holding an attribute value of a type this crate does not know.
pub(super) fn unknown_type(
    entity: &'static str,
    names: &AttributeNames,
    key: &PrimaryKey,
    e: wire::UnknownType,
) -> Error {
    Error::Invalid {
        reason: format!(
            "{entity} {}: attribute `{}` holds a value of a type this crate cannot write",
            names.show_key(key),
            e.attribute
        ),
    }
}

/// The key of a write request as DynamoDB returns it in `UnprocessedItems`, its attributes
/// named by `names`.
pub(super) fn write_request_key<'a>(request: &'a WriteRequest, names: &AttributeNames) -> Option<KeyId<'a>> {
    if let Some(put) = &request.put_request {
        return key_id(put.item.get(names.pk), put.item.get(names.sk));
    }
    let delete = request.delete_request.as_ref()?;
    key_id(delete.key.get(names.pk), delete.key.get(names.sk))
}
