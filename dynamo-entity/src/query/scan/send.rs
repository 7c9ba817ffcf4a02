//! The sending of a scan: its `Scan` requests (filter, cursor scope, rate), one page read and
//! decoded (`send`), its projected items read whole, the raw pages of the backfills, and `render`.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::operation::scan::ScanInput;
use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::capacity::Capacity;
use crate::error::Error;
use crate::expr::Placeholders;
use crate::owner::{is_library_item, type_of_named};
use crate::query::Page;
use crate::query::cursor::{self, Scope};
use crate::query::pages::{Answer, Resume, read_page};
use crate::query::scan::filter::push_type_filter;
use crate::query::scan::index::ScanSlot;
use crate::query::scan::request::ScanRequest;
use crate::schema::{Index, Item, PrimaryKey};
use crate::table::Call;

/// One raw page of one segment: what the backfills work from.
pub(crate) struct RawPage {
    pub(crate) items: Vec<Item>,
    pub(crate) last_key: Option<Item>,
    pub(crate) consumed: Capacity,
    /// Items DynamoDB read for the page (`ScannedCount`: every entity type).
    pub(crate) examined: u64,
}

/// The `FilterExpression` and its placeholders.
pub(super) struct Parts {
    filter: Option<String>,
    names: Option<std::collections::HashMap<String, String>>,
    values: Option<std::collections::HashMap<String, AttributeValue>>,
}

impl<T: Send + 'static> ScanRequest<T> {
    /// The filter of the scan's requests. `broad`: an entity scan that decodes what it reads
    /// lets through everything it may have to report (see `TypeFilter`; without the table's
    /// entities, also items whose type is not a string); otherwise (a backfill's raw pages)
    /// only the entity's items and items without a type.
    pub(super) fn parts(&self, broad: bool) -> Result<Parts, Error> {
        let mut ph = Placeholders::default();
        let mut text = String::new();
        if !self.entity.is_empty() && self.names.has_entity_type() {
            push_type_filter(self.entity, self.names, self.types.as_deref(), broad, &mut ph, &mut text);
        }
        if let Some(c) = &self.options.filter {
            let rendered = c.render(&mut ph).map_err(|(field, source)| Error::Encode {
                entity: if self.entity.is_empty() { "scan" } else { self.entity },
                field,
                attribute: field,
                source,
            })?;
            text = if text.is_empty() { rendered } else { format!("{text} AND ({rendered})") };
        }
        if let (Some(on), Some(c)) = (&self.on, &self.options.filter) {
            // An entity scan of a secondary index (`index` is `E`'s only).
            let keys = [self.names.pk_of(on.index), self.names.sk_of(on.index)];
            let projection = (on.projection)(&self.table, on.index);
            crate::query::projected::check_filter(
                "Scan",
                self.entity,
                self.names,
                on.index,
                &keys,
                projection,
                Some(c),
            )?;
        }
        Ok(Parts { filter: (!text.is_empty()).then_some(text), names: ph.take_names(), values: ph.take_values() })
    }

    pub(super) fn scope(&self, parts: &Parts) -> Scope {
        let values: BTreeMap<_, _> =
            parts.values.iter().flatten().map(|(k, v)| (k.clone(), format!("{v:?}"))).collect();
        Scope {
            entity: self.label.clone(),
            index: match &self.on {
                None => "scan".to_owned(),
                Some(on) => format!("scan of {}", cursor::index_label(self.names, on.index)),
            },
            partition: match self.segment {
                Some((s, t)) => format!("segment {s}/{t}"),
                None => "table".to_owned(),
            },
            query: cursor::fingerprint(&format!("{:?}|{values:?}|{}", parts.filter, self.options.consistent)),
        }
    }

    pub(super) fn request(&self, parts: &Parts, limit: Option<i32>, start: Option<Item>) -> ScanInputBuilder {
        ScanInput::builder()
            .table_name(self.table.name())
            .set_index_name(self.on.as_ref().and_then(|o| self.names.index_name(o.index)).map(str::to_owned))
            .set_filter_expression(parts.filter.clone())
            .set_expression_attribute_names(parts.names.clone())
            .set_expression_attribute_values(parts.values.clone())
            .consistent_read(self.options.consistent)
            .set_limit(limit)
            .set_segment(self.segment.map(|(s, _)| s as i32))
            .set_total_segments(self.segment.map(|(_, t)| t as i32))
            .set_exclusive_start_key(start)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    async fn fetch(
        &self,
        parts: &Parts,
        limit: Option<i32>,
        start: Option<Item>,
    ) -> Result<crate::table::body::Paged<aws_sdk_dynamodb::operation::scan::ScanOutput>, Error> {
        if let Some(rate) = &self.rate {
            rate.acquire().await;
        }
        let request = crate::table::body::scan(self.table.client(), self.request(parts, limit, start));
        let out =
            self.table.execute(Call::new("Scan", self.entity), request).await.map_err(|e| Error::sdk("Scan", e))?;
        if let Some(rate) = &self.rate {
            rate.consume(Capacity::from_consumed(out.output.consumed_capacity.as_slice(), false).read());
        }
        Ok(out)
    }

    /// The error of an item that decoded to no value and must not be passed over: in a scan of
    /// an entity enum, one of a type the enum does not name (unless
    /// [`skip_unknown`](Self::skip_unknown), which logs it); in an entity scan, one of the
    /// entity's type value that no entity of the table owns. `None`: another entity's item,
    /// or one of the library's own, counted in `passed_over`.
    fn unreported(&self, item: &Item) -> Option<Error> {
        match (self.enum_name, self.misfit) {
            (Some(_), _) if is_library_item(item, self.names) => None,
            (Some(name), _) if !self.skip_unknown => Some(Error::unexpected_item(name, item, self.names)),
            (Some(_), _) => {
                tracing::warn!(
                    entity = type_of_named(item, self.names.entity_type).unwrap_or("<none>"),
                    key = %self.names.describe_key(item),
                    "a table scan skipped an item of an entity type the enum does not name"
                );
                None
            }
            (None, Some(misfit)) => misfit(&self.table, self.on.as_ref().map_or(Index::Primary, |on| on.index), item),
            (None, None) => None,
        }
    }

    /// One `Scan` request from `start`, its items undecoded (the backfills' read).
    pub(crate) async fn raw_page(&self, start: Option<Item>) -> Result<RawPage, Error> {
        self.check_segments()?;
        let parts = self.parts(false)?;
        let mut answer = Answer::of_scan(self.fetch(&parts, self.options.page_size, start).await?);
        let items = answer.take_items()?;
        Ok(RawPage { items, consumed: answer.consumed, examined: answer.scanned, last_key: answer.last_key })
    }

    /// Runs the scan (or its segment) and returns one page: up to
    /// [`page_items`](Self::page_items) items (and at most [`max_items`](Self::max_items)), or
    /// without either one DynamoDB response's worth (at most 1 MB read).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a [`parallel`](Self::parallel) scan (read it with
    /// [`pages`](Self::pages)) or segment numbers DynamoDB refuses, [`Error::Cursor`] for a
    /// cursor of another scan, [`Error::FilterNotProjected`] for a [`filter`](Self::filter) on
    /// an attribute the scanned index does not project, before anything is sent;
    /// [`Error::Sdk`] from DynamoDB; [`Error::Decode`] naming the key of an item of the scanned
    /// type that does not decode.
    pub async fn send(&self) -> Result<Page<T>, Error> {
        self.check_segments()?;
        if self.parallel.is_some() {
            return Err(Error::Invalid {
                reason: "a parallel scan has one cursor per segment: read it with pages(), stream() or all(), or one \
                         segment with segment(s, total)"
                    .to_owned(),
            });
        }
        let parts = self.parts(true)?;
        let scope = self.scope(&parts);
        let start = match &self.options.after {
            Some(c) => Some(cursor::decode_scan(c.as_str(), &scope, self.names, self.scanned_index())?),
            None => None,
        };
        let index = self.scanned_index();
        let projection = if index == Index::Primary {
            None
        } else {
            self.on.as_ref().and_then(|on| (on.projection)(&self.table, index))
        };
        let keys = crate::query::key_attributes(self.names, index);
        let mut page = read_page(
            self.options.paging(),
            self.names,
            start,
            |limit, start| {
                let answer = self.fetch(&parts, limit, start);
                async move { answer.await.map(Answer::of_scan) }
            },
            |item: &mut Item| {
                let item = &*item;
                let slot = match &self.on {
                    None => (self.decode)(item).map(|d| d.map(ScanSlot::Done))?,
                    Some(on) => (on.classify)(item, on.index, projection)?,
                };
                if slot.is_some() {
                    return Ok(slot);
                }
                match self.unreported(item) {
                    Some(e) => Err(e),
                    None => Ok(None),
                }
            },
            Some(&Resume { scope: &scope, keys: &keys }),
        )
        .await?;
        page.segment = self.segment.map(|(s, _)| s);
        let slots = std::mem::take(&mut page.items);
        self.finish(page.with_items(Vec::new()), slots).await
    }

    /// The page with its items: the decoded ones, and the projected ones read whole by their
    /// primary keys (in the scan's order; an item deleted since the index was read is left
    /// out).
    async fn finish(&self, mut page: Page<T>, slots: Vec<ScanSlot<T>>) -> Result<Page<T>, Error> {
        let keys: Vec<PrimaryKey> =
            slots.iter().filter_map(|s| if let ScanSlot::Fetch(k) = s { Some(k.clone()) } else { None }).collect();
        let mut whole = match (&self.on, keys.is_empty()) {
            (Some(on), false) => {
                let (whole, undecodable) = (on.fetch)(self.table.clone(), keys, self.options.lenient).await?;
                page.skipped.extend(undecodable);
                whole.into_iter()
            }
            _ => Vec::new().into_iter(),
        };
        page.items.reserve(slots.len());
        for slot in slots {
            match slot {
                ScanSlot::Done(v) => page.items.push(v),
                ScanSlot::Fetch(_) => page.items.extend(whole.next().flatten()),
            }
        }
        Ok(page)
    }

    /// The first `Scan` request [`send`](Self::send) would send, built by the same code, without
    /// sending it (for a [`parallel`](Self::parallel) scan, that of segment 0).
    ///
    /// # Errors
    /// As [`send`](Self::send) before sending.
    pub fn render(&self) -> Result<ScanInput, Error> {
        let mut req = self.clone();
        if let Some(total) = req.parallel.take() {
            req.segment = Some((0, total));
        }
        req.check_segments()?;
        let parts = req.parts(true)?;
        let start = match &req.options.after {
            Some(c) => Some(cursor::decode_scan(c.as_str(), &req.scope(&parts), req.names, req.scanned_index())?),
            None => None,
        };
        let limit = req.options.request_limit(0);
        crate::table::render::built(req.request(&parts, limit, start).build())
    }
}
