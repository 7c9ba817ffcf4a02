//! What DynamoDB said when it refused a request, typed: throttling with its reasons
//! ([`ThrottlingReason`]), a replicated write conflict of a multi-Region strongly consistent
//! table, and the text of any service error without the SDK's repeated metadata.
//!
//! Since 2025 DynamoDB names why it throttled a request in the error
//! (`ThrottlingReasons` of `ProvisionedThroughputExceededException`, `ThrottlingException` and
//! `RequestLimitExceeded`): each reason is `<Table|Index><Read|Write><limit>` with the ARN of the
//! table or index. The library returns these errors as
//! [`Error::Throttled`](crate::Error::Throttled), and the operations name the partition key
//! value of the request (the item's, or the query's), which is what a
//! `KeyRangeThroughputExceeded` reason is about: the partition to shard (see the design lint's
//! hot-partition advice, [`design::lint`](crate::design::lint)).

use std::fmt;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;

/// The kind of resource DynamoDB throttled: the table, or one of its global secondary indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottledResource {
    /// The table (its primary index; LSIs share the table's capacity).
    Table,
    /// A global secondary index.
    Index,
}

/// Whether reads or writes were throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottledAccess {
    /// Read capacity.
    Read,
    /// Write capacity.
    Write,
}

/// Which limit the throttled requests exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ThrottleLimit {
    /// The provisioned read or write capacity of a table or GSI in provisioned mode: raise it
    /// (or let auto scaling do so).
    ProvisionedThroughput,
    /// The per-table account quota of the Region for a table or GSI in on-demand mode: ask for
    /// a higher quota.
    AccountLimit,
    /// The throughput one partition serves (1,000 write units and 3,000 read units a second):
    /// the requests go to too few partition key values, a hot partition. Spread them (write
    /// sharding, a key with more values); more capacity does not help.
    KeyRange,
    /// The maximum throughput configured for an on-demand table or index
    /// (`OnDemandThroughput`): raise it.
    MaxOnDemandThroughput,
    /// A reason this version of the library does not know (kept as text in
    /// [`ThrottlingReason::reason`]).
    Other,
}

/// One reason DynamoDB gave for throttling a request, parsed from its
/// `<Table|Index><Read|Write><Limit>` form (such as `TableWriteKeyRangeThroughputExceeded`).
///
/// ```
/// use dynamo_entity::error::{ThrottleLimit, ThrottledAccess, ThrottledResource, ThrottlingReason};
///
/// let r = ThrottlingReason::new(
///     "IndexWriteKeyRangeThroughputExceeded",
///     Some("arn:aws:dynamodb:eu-west-1:123456789012:table/Shop/index/GSI1"),
/// );
/// assert_eq!(r.resource, Some(ThrottledResource::Index));
/// assert_eq!(r.access, Some(ThrottledAccess::Write));
/// assert_eq!(r.limit, ThrottleLimit::KeyRange);
/// assert_eq!((r.table(), r.index()), (Some("Shop"), Some("GSI1")));
/// assert_eq!(r.to_string(), "index GSI1 of table Shop: writes over one partition's throughput");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ThrottlingReason {
    /// The reason as DynamoDB wrote it.
    pub reason: String,
    /// The ARN of the throttled table or index, when DynamoDB named it.
    pub arn: Option<String>,
    /// Table or index; `None` when the reason does not start with either.
    pub resource: Option<ThrottledResource>,
    /// Reads or writes; `None` when the reason does not say.
    pub access: Option<ThrottledAccess>,
    /// The limit exceeded.
    pub limit: ThrottleLimit,
}

impl ThrottlingReason {
    /// Parses `reason` (DynamoDB's text) with the resource ARN it came with.
    pub fn new(reason: &str, arn: Option<&str>) -> ThrottlingReason {
        let (resource, rest) = if let Some(rest) = reason.strip_prefix("Table") {
            (Some(ThrottledResource::Table), rest)
        } else if let Some(rest) = reason.strip_prefix("Index") {
            (Some(ThrottledResource::Index), rest)
        } else {
            (None, reason)
        };
        let (access, rest) = if let Some(rest) = rest.strip_prefix("Read") {
            (Some(ThrottledAccess::Read), rest)
        } else if let Some(rest) = rest.strip_prefix("Write") {
            (Some(ThrottledAccess::Write), rest)
        } else {
            (None, rest)
        };
        let limit = match rest {
            "ProvisionedThroughputExceeded" => ThrottleLimit::ProvisionedThroughput,
            "AccountLimitExceeded" => ThrottleLimit::AccountLimit,
            "KeyRangeThroughputExceeded" => ThrottleLimit::KeyRange,
            "MaxOnDemandThroughputExceeded" => ThrottleLimit::MaxOnDemandThroughput,
            _ => ThrottleLimit::Other,
        };
        let (resource, access) = if limit == ThrottleLimit::Other { (None, None) } else { (resource, access) };
        ThrottlingReason { reason: reason.to_owned(), arn: arn.map(str::to_owned), resource, access, limit }
    }

    /// The table's name, from the ARN (`arn:…:table/<name>[/index/<index>]`).
    pub fn table(&self) -> Option<&str> {
        let path = self.arn.as_deref()?.split_once(":table/")?.1;
        Some(path.split('/').next().unwrap_or(path))
    }

    /// The index's name, from the ARN; `None` for the table.
    pub fn index(&self) -> Option<&str> {
        self.arn.as_deref()?.split_once("/index/").map(|(_, ix)| ix)
    }

    /// Whether the reason is a hot partition ([`ThrottleLimit::KeyRange`]).
    pub fn is_hot_partition(&self) -> bool {
        self.limit == ThrottleLimit::KeyRange
    }
}

impl fmt::Display for ThrottlingReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.index(), self.table()) {
            (Some(ix), Some(t)) => write!(f, "index {ix} of table {t}: ")?,
            (None, Some(t)) => write!(f, "table {t}: ")?,
            _ => {}
        }
        let access = match self.access {
            Some(ThrottledAccess::Read) => "reads",
            Some(ThrottledAccess::Write) => "writes",
            None => "requests",
        };
        match self.limit {
            ThrottleLimit::ProvisionedThroughput => write!(f, "{access} over the provisioned capacity"),
            ThrottleLimit::AccountLimit => write!(f, "{access} over the account's per-table quota"),
            ThrottleLimit::KeyRange => write!(f, "{access} over one partition's throughput"),
            ThrottleLimit::MaxOnDemandThroughput => write!(f, "{access} over the configured on-demand maximum"),
            ThrottleLimit::Other => f.write_str(&self.reason),
        }
    }
}

/// The reasons of a throttling error of any operation, `None` when `err` is not one.
pub(crate) fn throttling(err: &aws_sdk_dynamodb::Error) -> Option<(&'static str, Vec<ThrottlingReason>)> {
    use aws_sdk_dynamodb::Error as E;
    let (code, reasons) = match err {
        E::ThrottlingException(e) => ("ThrottlingException", e.throttling_reasons()),
        E::ProvisionedThroughputExceededException(e) => {
            ("ProvisionedThroughputExceededException", e.throttling_reasons())
        }
        E::RequestLimitExceeded(e) => ("RequestLimitExceeded", e.throttling_reasons()),
        _ => return None,
    };
    Some((code, reasons.iter().map(|r| ThrottlingReason::new(r.reason().unwrap_or(""), r.resource())).collect()))
}

/// Whether DynamoDB refused a request because its answer would be over its size limit (4 MB
/// for `TransactGetItems`): a `ValidationException` whose message says the response (payload)
/// is too large.
pub(crate) fn response_too_large(err: &impl ProvideErrorMetadata) -> bool {
    err.code() == Some("ValidationException")
        && err.message().is_some_and(|m| {
            let m = m.to_ascii_lowercase();
            m.contains("too large") && (m.contains("response") || m.contains("payload"))
        })
}

/// Whether DynamoDB refused an update because an operand's type differs from the stored
/// attribute's: a `ValidationException` saying an operand "has an incorrect data type".
pub(crate) fn operand_type_refused(err: &impl ProvideErrorMetadata) -> bool {
    err.code() == Some("ValidationException") && err.message().is_some_and(|m| m.contains("incorrect data type"))
}

/// The error codes of DynamoDB's answers worth sending the same request again for: throttling,
/// a replicated write conflict, server errors. The one list of the library's retry policy
/// ([`retry`](crate::retry)) and of [`Error::is_retryable`](crate::Error::is_retryable).
const RETRYABLE_CODES: [&str; 8] = [
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "ReplicatedWriteConflictException",
    "InternalServerError",
    "InternalFailure",
    "ServiceUnavailable",
    "ServiceUnavailableException",
];

/// Whether an answer with this error code is worth sending the request again for.
pub(crate) fn retryable_code(code: Option<&str>) -> bool {
    code.is_some_and(|c| RETRYABLE_CODES.contains(&c))
}

/// Whether the request that failed with `err` may succeed if sent again: an answer with a
/// [retryable code](retryable_code), or a failure before any answer (a timeout, a connection
/// failure, an answer that could not be read), but not a request the SDK could not build.
pub(crate) fn retryable(err: &aws_sdk_dynamodb::Error) -> bool {
    if err.code().is_some() {
        return retryable_code(err.code());
    }
    // No answer: the SDK's `SdkError`, kept as the source, says what happened instead.
    let mut current = std::error::Error::source(err);
    while let Some(e) = current {
        if e.to_string() == "failed to construct request" {
            return false;
        }
        current = e.source();
    }
    true
}

/// DynamoDB's message of a service error (empty when it gave none).
pub(crate) fn message(err: &aws_sdk_dynamodb::Error) -> String {
    err.message().unwrap_or_default().to_owned()
}

/// The text of an SDK error, each thing said once: `Code: message (request id …)` for an error
/// DynamoDB returned, else the chain of causes (timeouts, connection failures), a cause that
/// repeats its outer error's text left out. Not the `Debug` dump of the error's metadata.
pub(crate) fn text(err: &aws_sdk_dynamodb::Error) -> String {
    let mut out = String::new();
    if let Some(code) = err.code() {
        out.push_str(code);
        if let Some(message) = err.message().filter(|m| !m.is_empty()) {
            out.push_str(": ");
            out.push_str(message);
        }
    } else {
        // `unhandled error`, then the SDK's kind of failure and its causes.
        let mut current: Option<&dyn std::error::Error> = std::error::Error::source(err);
        let mut last = String::new();
        while let Some(e) = current {
            let here = e.to_string();
            if !here.is_empty() && !last.contains(&here) {
                if !out.is_empty() {
                    out.push_str(": ");
                }
                out.push_str(&here);
            }
            last = here;
            current = e.source();
        }
    }
    if let Some(id) = aws_sdk_dynamodb::operation::RequestId::request_id(err) {
        out.push_str(&format!(" (request id {id})"));
    }
    out
}

/// The text of [`Error::Throttled`](crate::Error::Throttled).
pub(crate) fn throttled_message(
    operation: &str,
    entity: &str,
    partition: &str,
    code: &str,
    reasons: &[ThrottlingReason],
    message: &str,
) -> String {
    let mut out = format!("DynamoDB throttled {operation}");
    if !entity.is_empty() {
        out.push_str(&format!(" of {entity}"));
    }
    if !partition.is_empty() {
        out.push_str(&format!(" on partition {partition}"));
    }
    out.push_str(&format!(" ({code}"));
    if !message.is_empty() {
        out.push_str(&format!(": {message}"));
    }
    out.push(')');
    for (i, r) in reasons.iter().enumerate() {
        out.push_str(if i == 0 { ": " } else { "; " });
        out.push_str(&r.to_string());
    }
    if reasons.iter().any(ThrottlingReason::is_hot_partition) {
        out.push_str(
            "; the requests go to too few partition key values: spread them (write sharding, see the design \
             lint's hot-partition advice)",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_parse_into_resource_access_and_limit() {
        let r = ThrottlingReason::new(
            "TableReadProvisionedThroughputExceeded",
            Some("arn:aws:dynamodb:us-east-1:1:table/T"),
        );
        assert_eq!(
            (r.resource, r.access, r.limit, r.table(), r.index()),
            (
                Some(ThrottledResource::Table),
                Some(ThrottledAccess::Read),
                ThrottleLimit::ProvisionedThroughput,
                Some("T"),
                None
            )
        );
        assert_eq!(r.to_string(), "table T: reads over the provisioned capacity");
        let r = ThrottlingReason::new("IndexWriteAccountLimitExceeded", None);
        assert_eq!(
            (r.resource, r.access, r.limit),
            (Some(ThrottledResource::Index), Some(ThrottledAccess::Write), ThrottleLimit::AccountLimit)
        );
        assert_eq!(r.to_string(), "writes over the account's per-table quota");
        let r = ThrottlingReason::new("TableWriteMaxOnDemandThroughputExceeded", None);
        assert_eq!(r.limit, ThrottleLimit::MaxOnDemandThroughput);
        let r = ThrottlingReason::new("TableReadSomethingNew", None);
        assert_eq!((r.resource, r.access, r.limit), (None, None, ThrottleLimit::Other));
        assert_eq!(r.to_string(), "TableReadSomethingNew");
    }
}
