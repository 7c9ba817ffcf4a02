//! [`StreamReader`]: a table's DynamoDB stream read into the table's entity enum (feature
//! `aws-sdk-dynamodbstreams`).
//!
//! A stream is split into shards. A shard is open (DynamoDB is still writing to it) or closed
//! (it ends at a sequence number); a closed shard may have children, which hold the later
//! changes of its items. The changes of one item are in order across the stream when each
//! shard is read to its end before its children: the reader discovers the shards with
//! `DescribeStream`, reads a parent before its children, and reads each shard with
//! `GetShardIterator` and `GetRecords`.

use std::collections::{HashMap, HashSet, VecDeque};

use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::error::DisplayErrorContext;
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsError;
use aws_sdk_dynamodbstreams::types::{Record, ShardIteratorType};

use crate::collection::EntityEnum;
use crate::error::{Error, ItemError};
use crate::stream::{Change, sdk_parts};

/// Where a [`StreamReader`] starts in a shard it has no position for.
///
/// ```no_run
/// use dynamo_entity::stream::{StartAt, StreamReader};
/// # use dynamo_entity::{Entity, EntityEnum};
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(pk = "ORDER#<id>", sk = "META")]
/// # struct Order { id: String }
/// # #[derive(EntityEnum, Debug, Clone, PartialEq)]
/// # enum AnyItem { Order(Order) }
/// # fn f(streams: aws_sdk_dynamodbstreams::Client, arn: String) {
/// // Only what changes from now on.
/// let reader = StreamReader::<AnyItem>::new(streams, arn).start_at(StartAt::Latest);
/// # let _ = reader;
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StartAt {
    /// `TRIM_HORIZON`: the oldest record the stream keeps (DynamoDB keeps records 24 hours).
    #[default]
    TrimHorizon,
    /// `LATEST`: only changes made after the reader first describes the stream. Shards
    /// closed by then are skipped; shards that appear later are read from their start.
    Latest,
}

/// One stream record, decoded, with where it is in the stream: from
/// [`StreamReader::next_batch`] (see the example there).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRecord<A> {
    /// The shard it was read from.
    pub shard_id: String,
    /// Its sequence number in the shard: the position to resume after
    /// ([`StreamReader::after`]).
    pub sequence_number: String,
    /// The change; `None` when every image is of an entity type `A` does not name, or (lenient
    /// reader) when no image decodes.
    pub change: Option<Change<A>>,
    /// The images that do not decode, with their keys (a [lenient](StreamReader::lenient)
    /// reader only; a strict one stops at such a record).
    pub skipped: Vec<ItemError>,
}

/// Why [`StreamReader::next_batch`] failed.
///
/// ```no_run
/// use dynamo_entity::stream::{ReadError, StreamReader};
/// # use dynamo_entity::{Entity, EntityEnum};
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(pk = "ORDER#<id>", sk = "META")]
/// # struct Order { id: String }
/// # #[derive(EntityEnum, Debug, Clone, PartialEq)]
/// # enum AnyItem { Order(Order) }
/// # async fn f(mut reader: StreamReader<AnyItem>) -> Result<(), ReadError> {
/// match reader.next_batch().await {
///     Ok(batch) => println!("{} records", batch.len()),
///     Err(ReadError::Decode { sequence_number, source, .. }) => {
///         eprintln!("record {sequence_number} does not decode: {source}");
///         reader.skip_failed(); // or keep failing on it until the data is fixed
///     }
///     Err(e) => return Err(e), // a request failed: the next call tries again
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A DynamoDB Streams request failed (such as `TrimmedDataAccessException`: records older
    /// than 24 hours were removed before they were read). Nothing was lost by the reader: the
    /// next call tries again from the same position.
    #[error("DynamoDB Streams {operation} failed on {stream}: {}", DisplayErrorContext(source))]
    Streams {
        /// `DescribeStream`, `GetShardIterator` or `GetRecords`.
        operation: &'static str,
        /// The stream ARN.
        stream: String,
        /// The SDK's error.
        #[source]
        source: Box<aws_sdk_dynamodbstreams::Error>,
    },
    /// `GetShardIterator` answered without an iterator for this shard.
    #[error("DynamoDB Streams GetShardIterator returned no iterator for shard {shard_id} of {stream}")]
    NoIterator {
        /// The stream ARN.
        stream: String,
        /// The shard.
        shard_id: String,
    },
    /// A record of a strict reader does not decode: the decode error of an image of an entity
    /// type the enum names ([`Change::from_images`]). The records before it were returned; the
    /// next call fails on it again, until [`StreamReader::skip_failed`] passes it or a
    /// [lenient](StreamReader::lenient) reader reports it in [`StreamRecord::skipped`].
    #[error("stream record {sequence_number} of shard {shard_id} does not decode: {source}")]
    Decode {
        /// The record's shard.
        shard_id: String,
        /// The record's sequence number.
        sequence_number: String,
        /// The decode error.
        #[source]
        source: Box<Error>,
    },
}

/// How a shard's next iterator is made.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Position {
    TrimHorizon,
    Latest,
    After(String),
}

#[derive(Debug)]
struct Shard {
    id: String,
    parent: Option<String>,
    /// The ending sequence number, when `DescribeStream` gave one: the shard is closed
    /// (DynamoDB writes no more to it) and this is its last record's sequence number.
    ending: Option<String>,
    iterator: Option<String>,
    /// Where a new iterator starts: the start position, or after the last record returned.
    from: Position,
    /// Read to its end (or skipped).
    done: bool,
}

impl Shard {
    /// Whether the reader has returned every record of the shard it may hold: the shard is
    /// open (what it has now was read), or closed and the reader is past its ending sequence
    /// number or started at `LATEST`.
    fn at_end(&self) -> bool {
        let Some(ending) = &self.ending else { return true };
        match &self.from {
            Position::TrimHorizon => false,
            Position::Latest => true,
            Position::After(seq) => at_or_after(seq, ending),
        }
    }
}

/// Whether sequence number `seq` is `other` or a later one. Sequence numbers are decimal numbers
/// of 21 to 40 digits, too long for `u128`: compared by length, then digit by digit. `false` when
/// either is not a number.
fn at_or_after(seq: &str, other: &str) -> bool {
    let digits = |s: &str| {
        let s = s.trim_start_matches('0');
        s.bytes().all(|b| b.is_ascii_digit()).then_some(s.to_owned())
    };
    match (digits(seq), digits(other)) {
        (Some(a), Some(b)) => (a.len(), a.as_str()) >= (b.len(), b.as_str()),
        _ => false,
    }
}

/// Reads a table's stream into the table's entity enum `A`: shard discovery, parents before
/// children, iterators, draining closed shards, decoding with [`Change`]. Runs against
/// DynamoDB Local's streams endpoint too.
///
/// ```no_run
/// use dynamo_entity::stream::{StartAt, StreamReader};
/// # use dynamo_entity::{Entity, EntityEnum};
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(pk = "ORDER#<id>", sk = "META")]
/// # struct Order { id: String }
/// # #[derive(EntityEnum, Debug, Clone, PartialEq)]
/// # enum AnyItem { Order(Order) }
///
/// # async fn f(table: dynamo_entity::Table, streams: aws_sdk_dynamodbstreams::Client) -> Result<(), Box<dyn std::error::Error>> {
/// let arn = table.stream_arn().await?.expect("the table has a stream");
/// let mut reader = StreamReader::<AnyItem>::new(streams, arn).start_at(StartAt::TrimHorizon);
/// loop {
///     let batch = reader.next_batch().await?;
///     if batch.is_empty() {
///         break; // caught up: every open shard read to its latest record
///     }
///     for record in batch {
///         println!("{} {}: {:?}", record.shard_id, record.sequence_number, record.change);
///     }
/// }
/// let checkpoint = reader.positions(); // (shard, sequence number) to resume after
/// # let _ = checkpoint;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct StreamReader<A> {
    client: Client,
    arn: String,
    start: StartAt,
    lenient: bool,
    limit: i32,
    /// Positions given with [`StreamReader::after`], by shard.
    resume: HashMap<String, String>,
    shards: Vec<Shard>,
    described: bool,
    /// Records read and not yet returned (after a strict reader's decode error), by shard
    /// index.
    pending: VecDeque<(usize, Record)>,
    _item: std::marker::PhantomData<fn() -> A>,
}

impl<A: EntityEnum> StreamReader<A> {
    /// A reader of the stream `stream_arn` (see [`Table::stream_arn`](crate::Table::stream_arn)),
    /// from [`StartAt::TrimHorizon`], strict, reading up to 1,000 records a `GetRecords`.
    pub fn new(client: Client, stream_arn: impl Into<String>) -> StreamReader<A> {
        StreamReader {
            client,
            arn: stream_arn.into(),
            start: StartAt::TrimHorizon,
            lenient: false,
            limit: 1000,
            resume: HashMap::new(),
            shards: Vec::new(),
            described: false,
            pending: VecDeque::new(),
            _item: std::marker::PhantomData,
        }
    }

    /// Where to start in shards without a position ([`StreamReader::after`]).
    #[must_use]
    pub fn start_at(mut self, start: StartAt) -> StreamReader<A> {
        self.start = start;
        self
    }

    /// Resume shard `shard_id` after record `sequence_number` (`AFTER_SEQUENCE_NUMBER`), as
    /// [`StreamReader::positions`] returned it. The shard's ancestors count as read (a child
    /// is read only after its parent is), so they are not read again.
    ///
    /// ```no_run
    /// # use dynamo_entity::stream::StreamReader;
    /// # use dynamo_entity::{Entity, EntityEnum};
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(pk = "ORDER#<id>", sk = "META")]
    /// # struct Order { id: String }
    /// # #[derive(EntityEnum, Debug, Clone, PartialEq)]
    /// # enum AnyItem { Order(Order) }
    /// # fn f(streams: aws_sdk_dynamodbstreams::Client, arn: String, saved: Vec<(String, String)>) {
    /// let mut reader = StreamReader::<AnyItem>::new(streams, arn);
    /// for (shard, sequence_number) in saved {
    ///     reader = reader.after(shard, sequence_number);
    /// }
    /// # }
    /// ```
    #[must_use]
    pub fn after(mut self, shard_id: impl Into<String>, sequence_number: impl Into<String>) -> StreamReader<A> {
        self.resume.insert(shard_id.into(), sequence_number.into());
        self
    }

    /// Decode leniently: an image of a named entity type that does not decode is reported in
    /// [`StreamRecord::skipped`] (with its key) instead of stopping the reader
    /// ([`Change::lenient`]).
    #[must_use]
    pub fn lenient(mut self) -> StreamReader<A> {
        self.lenient = true;
        self
    }

    /// The most records one `GetRecords` returns (1 to 1,000, DynamoDB's limit; clamped).
    #[must_use]
    pub fn limit(mut self, limit: i32) -> StreamReader<A> {
        self.limit = limit.clamp(1, 1000);
        self
    }

    /// The last record returned of each shard that returned one (or the position given with
    /// [`StreamReader::after`]), as `(shard_id, sequence_number)`, in shard order: a checkpoint
    /// to resume from.
    pub fn positions(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .shards
            .iter()
            .filter_map(|s| match &s.from {
                Position::After(seq) => Some((s.id.clone(), seq.clone())),
                _ => None,
            })
            .collect();
        for (shard, seq) in &self.resume {
            if !self.shards.iter().any(|s| &s.id == shard) {
                out.push((shard.clone(), seq.clone()));
            }
        }
        out
    }

    /// The next records, in stream order within each shard and with each shard's records after
    /// its parent's: the records of one `GetRecords` of the first shard that has any. Empty
    /// when the reader has caught up (every closed shard read to its end, every open shard to
    /// its latest record); call again later for new changes. An empty answer costs one
    /// `DescribeStream` besides the `GetRecords` (to find the shards opened since), so poll
    /// no faster than DynamoDB Streams allows (about once a second).
    ///
    /// # Errors
    /// [`ReadError::Streams`] when a request fails (an expired iterator is renewed, not an
    /// error); [`ReadError::Decode`] for a strict reader's record that does not decode (the
    /// records before it are returned first).
    pub async fn next_batch(&mut self) -> Result<Vec<StreamRecord<A>>, ReadError> {
        if !self.pending.is_empty() {
            return self.drain();
        }
        if !self.described {
            self.describe().await?;
        }
        // The open shards read to their latest record in this call.
        let mut caught_up: HashSet<usize> = HashSet::new();
        for round in 0..2 {
            // Each pass reads every readable shard once; a shard read to its end may make its
            // children readable, so passes go on while shards finish.
            loop {
                let mut finished = false;
                for i in 0..self.shards.len() {
                    if self.shards[i].done || caught_up.contains(&i) || !self.readable(i) {
                        continue;
                    }
                    let records = self.read_shard(i).await?;
                    if !records.is_empty() {
                        self.pending.extend(records.into_iter().map(|r| (i, r)));
                        return self.drain();
                    }
                    if self.shards[i].done {
                        finished = true;
                    } else {
                        caught_up.insert(i);
                    }
                }
                if !finished {
                    break;
                }
            }
            if round == 0 {
                self.describe().await?;
            }
        }
        Ok(Vec::new())
    }

    /// Passes the record a strict reader failed on ([`ReadError::Decode`]), returning its
    /// `(shard_id, sequence_number)`; `None` when no record is waiting. The record is not
    /// returned again.
    pub fn skip_failed(&mut self) -> Option<(String, String)> {
        let (i, record) = self.pending.pop_front()?;
        let seq = sequence_number(&record);
        self.shards[i].from = Position::After(seq.clone());
        Some((self.shards[i].id.clone(), seq))
    }

    /// Whether shard `i` may be read: its parent, if the stream still lists it, is done.
    fn readable(&self, i: usize) -> bool {
        match &self.shards[i].parent {
            None => true,
            Some(p) => self.shards.iter().find(|s| &s.id == p).is_none_or(|s| s.done),
        }
    }

    /// Decodes the pending records into a batch, stopping before a strict reader's first
    /// record that does not decode (returned as the error when it comes first).
    fn drain(&mut self) -> Result<Vec<StreamRecord<A>>, ReadError> {
        let mut out = Vec::new();
        while let Some((i, record)) = self.pending.front() {
            let (i, shard_id, seq) = (*i, self.shards[*i].id.clone(), sequence_number(record));
            let decoded = sdk_parts(record).and_then(|(kind, keys, old, new)| {
                if self.lenient {
                    Change::lenient().from_images(kind, &keys, old.as_ref(), new.as_ref())
                } else {
                    Change::from_images(kind, &keys, old.as_ref(), new.as_ref())
                        .map(|value| crate::query::Decoded { value, skipped: Vec::new() })
                }
            });
            match decoded {
                Ok(d) => {
                    self.pending.pop_front();
                    self.shards[i].from = Position::After(seq.clone());
                    out.push(StreamRecord { shard_id, sequence_number: seq, change: d.value, skipped: d.skipped });
                }
                Err(_) if !out.is_empty() => break,
                Err(e) => return Err(ReadError::Decode { shard_id, sequence_number: seq, source: Box::new(e) }),
            }
        }
        Ok(out)
    }

    /// `DescribeStream`, every page: adds the shards not known yet.
    async fn describe(&mut self) -> Result<(), ReadError> {
        let first = !self.described;
        let mut start: Option<String> = None;
        loop {
            let out = self
                .client
                .describe_stream()
                .stream_arn(&self.arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(|e| self.error("DescribeStream", e))?;
            let Some(description) = out.stream_description else { break };
            self.add_shards(description.shards(), first);
            match description.last_evaluated_shard_id {
                Some(last) => start = Some(last),
                None => break,
            }
        }
        self.ancestors_done();
        self.described = true;
        Ok(())
    }

    /// Adds the shards of a `DescribeStream` page not known yet, each from its position
    /// (`first`: the reader's first description, where `LATEST` applies), and notes the end of
    /// a known shard that has closed since.
    fn add_shards(&mut self, shards: &[aws_sdk_dynamodbstreams::types::Shard], first: bool) {
        for shard in shards {
            let Some(id) = shard.shard_id() else { continue };
            let ending = shard.sequence_number_range().and_then(|r| r.ending_sequence_number()).map(str::to_owned);
            if let Some(known) = self.shards.iter_mut().find(|s| s.id == id) {
                // An open shard closes once, and its end does not move after.
                if known.ending.is_none() {
                    known.ending = ending;
                }
                continue;
            }
            let closed = ending.is_some();
            let (from, done) = match self.resume.get(id) {
                Some(seq) => (Position::After(seq.clone()), false),
                // `LATEST` applies to the shards open when the reader starts; later shards
                // hold only changes made since, from their start.
                None if first && self.start == StartAt::Latest => (Position::Latest, closed),
                None => (Position::TrimHorizon, false),
            };
            self.shards.push(Shard {
                id: id.to_owned(),
                parent: shard.parent_shard_id().map(str::to_owned),
                ending,
                iterator: None,
                from,
                done,
            });
        }
    }

    /// Marks the ancestors of each shard with a position as read: they were read before it.
    fn ancestors_done(&mut self) {
        for id in self.resume.keys() {
            let mut parent = self.shards.iter().find(|s| &s.id == id).and_then(|s| s.parent.clone());
            while let Some(p) = parent {
                match self.shards.iter_mut().find(|s| s.id == p) {
                    Some(s) if !s.done => {
                        s.done = true;
                        parent = s.parent.clone();
                    }
                    _ => break,
                }
            }
        }
    }

    /// Reads shard `i` once (a closed shard until it returns records, ends, or the reader is at
    /// its ending sequence number): its records, the shard marked done at its end.
    async fn read_shard(&mut self, i: usize) -> Result<Vec<Record>, ReadError> {
        // A closed shard can answer with no records before its end; an open one has no more.
        // At the end of a closed shard (its last record returned, or from `LATEST`), DynamoDB
        // answers the next `GetRecords` with no `NextShardIterator` ("If set to null, the shard
        // has been closed and the requested iterator will not return any more data",
        // https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html);
        // an empty page with an iterator there is not sent again at once: the next call does.
        let mut renewed = false;
        for _ in 0..10_000 {
            let iterator = match self.shards[i].iterator.clone() {
                Some(it) => it,
                None => self.iterator(i).await?,
            };
            let out = match self.client.get_records().shard_iterator(iterator).limit(self.limit).send().await {
                Ok(out) => out,
                Err(e) if matches!(e.as_service_error(), Some(GetRecordsError::ExpiredIteratorException(_))) => {
                    // Iterators expire after 15 minutes unused: a new one from the same position
                    // (after the last record returned; a shard not read from yet starts again
                    // at its start position).
                    self.shards[i].iterator = None;
                    continue;
                }
                Err(e)
                    if !renewed
                        && self.shards[i].from == Position::TrimHorizon
                        && matches!(e.as_service_error(), Some(GetRecordsError::TrimmedDataAccessException(_))) =>
                {
                    // Nothing read from the shard yet, and its oldest records were trimmed
                    // since the iterator was made: the trim horizon is now further on. (From
                    // a record read, or from `LATEST`, the error is returned: records the
                    // reader should have returned are gone.)
                    renewed = true;
                    self.shards[i].iterator = None;
                    continue;
                }
                Err(e) => return Err(self.error("GetRecords", e)),
            };
            let records = out.records.unwrap_or_default();
            let shard = &mut self.shards[i];
            shard.iterator = out.next_shard_iterator;
            if shard.iterator.is_none() {
                shard.done = true;
            }
            if !records.is_empty() || shard.done || shard.at_end() {
                return Ok(records);
            }
        }
        Ok(Vec::new())
    }

    /// `GetShardIterator` for shard `i` from its position.
    async fn iterator(&mut self, i: usize) -> Result<String, ReadError> {
        let shard = &self.shards[i];
        let (kind, seq) = match &shard.from {
            Position::TrimHorizon => (ShardIteratorType::TrimHorizon, None),
            Position::Latest => (ShardIteratorType::Latest, None),
            Position::After(seq) => (ShardIteratorType::AfterSequenceNumber, Some(seq.clone())),
        };
        let out = self
            .client
            .get_shard_iterator()
            .stream_arn(&self.arn)
            .shard_id(&shard.id)
            .shard_iterator_type(kind)
            .set_sequence_number(seq)
            .send()
            .await
            .map_err(|e| self.error("GetShardIterator", e))?;
        out.shard_iterator.ok_or_else(|| ReadError::NoIterator { stream: self.arn.clone(), shard_id: shard.id.clone() })
    }

    fn error<E>(&self, operation: &'static str, e: E) -> ReadError
    where
        aws_sdk_dynamodbstreams::Error: From<E>,
    {
        ReadError::Streams { operation, stream: self.arn.clone(), source: Box::new(e.into()) }
    }
}

/// A record's sequence number (empty when the record has none).
fn sequence_number(record: &Record) -> String {
    record.dynamodb().and_then(|d| d.sequence_number()).unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodbstreams::types::{SequenceNumberRange, Shard as SdkShard};

    use super::*;
    use crate::schema::Item;

    /// An enum of no entity: the shard bookkeeping does not decode.
    #[derive(Debug, PartialEq)]
    struct AnyItem;

    impl EntityEnum for AnyItem {
        const TYPES: &'static [&'static str] = &[];

        fn decode(_: &Item) -> Result<Option<Self>, Error> {
            Ok(None)
        }
    }

    /// A sleep for the client, which is never used: these tests send nothing.
    #[derive(Debug)]
    struct TokioSleep;

    impl aws_sdk_dynamodbstreams::config::AsyncSleep for TokioSleep {
        fn sleep(&self, duration: std::time::Duration) -> aws_sdk_dynamodbstreams::config::Sleep {
            aws_sdk_dynamodbstreams::config::Sleep::new(tokio::time::sleep(duration))
        }
    }

    fn reader() -> StreamReader<AnyItem> {
        let config = aws_sdk_dynamodbstreams::Config::builder()
            .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
            .sleep_impl(aws_sdk_dynamodbstreams::config::SharedAsyncSleep::new(TokioSleep))
            .build();
        StreamReader::new(Client::from_conf(config), "arn:stream")
    }

    /// A shard `id`, child of `parent`, closed when it has an ending sequence number.
    fn shard(id: &str, parent: Option<&str>, closed: bool) -> SdkShard {
        let range = SequenceNumberRange::builder()
            .starting_sequence_number("100")
            .set_ending_sequence_number(closed.then(|| "900".to_owned()))
            .build();
        SdkShard::builder()
            .shard_id(id)
            .set_parent_shard_id(parent.map(str::to_owned))
            .sequence_number_range(range)
            .build()
    }

    fn state(r: &StreamReader<AnyItem>) -> Vec<(String, bool, bool, Position)> {
        (0..r.shards.len())
            .map(|i| (r.shards[i].id.clone(), r.shards[i].done, r.readable(i), r.shards[i].from.clone()))
            .collect()
    }

    #[test]
    fn children_are_read_after_their_parents() {
        let mut r = reader();
        // Listed child first: its parent is still to read, so only the parent is readable.
        r.add_shards(&[shard("b", Some("a"), false), shard("a", None, true), shard("c", Some("gone"), false)], true);
        assert_eq!(
            state(&r),
            [
                ("b".into(), false, false, Position::TrimHorizon),
                ("a".into(), false, true, Position::TrimHorizon),
                // A parent the stream no longer lists (trimmed) does not hold its child back.
                ("c".into(), false, true, Position::TrimHorizon),
            ]
        );
        r.shards[1].done = true;
        assert!(r.readable(0));
    }

    #[test]
    fn latest_skips_closed_shards_of_the_first_description_only() {
        let mut r = reader().start_at(StartAt::Latest);
        r.add_shards(&[shard("a", None, true), shard("b", Some("a"), false)], true);
        r.add_shards(&[shard("c", Some("b"), false)], false);
        assert_eq!(
            state(&r),
            [
                ("a".into(), true, true, Position::Latest),
                ("b".into(), false, true, Position::Latest),
                ("c".into(), false, false, Position::TrimHorizon),
            ]
        );
    }

    #[test]
    fn a_position_resumes_its_shard_and_passes_its_ancestors() {
        let mut r = reader().after("c", "555");
        r.add_shards(&[shard("a", None, true), shard("b", Some("a"), true), shard("c", Some("b"), false)], true);
        r.ancestors_done();
        assert_eq!(
            state(&r),
            [
                ("a".into(), true, true, Position::TrimHorizon),
                ("b".into(), true, true, Position::TrimHorizon),
                ("c".into(), false, true, Position::After("555".into())),
            ]
        );
        assert_eq!(r.positions(), [("c".to_owned(), "555".to_owned())]);
    }

    #[test]
    fn sequence_numbers_compare_as_numbers_of_any_length() {
        assert!(at_or_after("100000000000000000010", "100000000000000000009"));
        assert!(at_or_after("100000000000000000009", "100000000000000000009"));
        assert!(!at_or_after("100000000000000000009", "100000000000000000010"));
        // 40 digits, more than u128 holds.
        assert!(at_or_after("9000000000000000000000000000000000000000", "100000000000000000009"));
        assert!(!at_or_after("99", "0100"));
        assert!(!at_or_after("12a", "1"));
    }

    #[test]
    fn a_closed_shard_is_at_its_end_from_its_last_record_or_latest() {
        let mut r = reader();
        r.add_shards(&[shard("a", None, false)], true);
        // Open: what it has now was read.
        assert!(r.shards[0].at_end());
        // A later description reports it closed at 900.
        r.add_shards(&[shard("a", None, true)], false);
        assert_eq!(r.shards[0].ending.as_deref(), Some("900"));
        assert!(!r.shards[0].at_end());
        r.shards[0].from = Position::After("899".into());
        assert!(!r.shards[0].at_end());
        r.shards[0].from = Position::After("900".into());
        assert!(r.shards[0].at_end());
        r.shards[0].from = Position::Latest;
        assert!(r.shards[0].at_end());
    }
}
