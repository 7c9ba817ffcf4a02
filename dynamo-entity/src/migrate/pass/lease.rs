//! The leases of a pass run by several workers: a worker claims a segment by writing its
//! checkpoint with itself as owner and a lease expiry, renews the lease with every checkpoint,
//! and takes over a segment whose lease expired (a worker that died).

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::pass::checkpoint::{Checkpoints, SegmentState};

/// Milliseconds since the Unix epoch, by this machine's clock.
pub(super) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// This worker's name, how long a lease it takes, and how often it looks for a free segment
/// while other workers hold the rest.
#[derive(Debug, Clone)]
pub(super) struct Lease {
    pub(super) worker: String,
    pub(super) length: Duration,
    pub(super) poll: Duration,
}

impl Lease {
    /// The worker `local`, with a 60 s lease.
    pub(super) fn local() -> Lease {
        Lease { worker: "local".to_owned(), length: Duration::from_secs(60), poll: Duration::from_secs(1) }
    }

    /// Worker `name` with leases of `length` (at least 100 ms), polling every `length / 4`, at
    /// most 1 s.
    pub(super) fn of(name: String, length: Duration) -> Lease {
        let length = length.max(Duration::from_millis(100));
        Lease { worker: name, length, poll: (length / 4).min(Duration::from_secs(1)) }
    }

    /// Whether this worker may claim segment `s` at `now` (milliseconds since the Unix epoch):
    /// it is not done, and free, its own, or its lease expired.
    pub(super) fn may_take(&self, s: &SegmentState, now: u64) -> bool {
        !s.done && (s.owner.is_none() || s.owner.as_deref() == Some(self.worker.as_str()) || s.lease_until < now)
    }

    /// Whether this worker's lease of segment `s` ends within a quarter of a lease from `now`
    /// (milliseconds since the Unix epoch), or ended: a page that took that long, or a process
    /// paused meanwhile, renews it (or finds it taken) before it writes anything more.
    pub(super) fn ending(&self, s: &SegmentState, now: u64) -> bool {
        let margin = u64::try_from((self.length / 4).as_millis()).unwrap_or(u64::MAX);
        now.saturating_add(margin) >= s.lease_until
    }

    /// Writes the checkpoint of `state` (with its version one more than the stored one, this
    /// worker as owner and a new lease) if the stored item is still the one read (`version`)
    /// and, unless this write `claim`s the segment, still held by this worker; `Ok(false)` when
    /// another worker took it.
    pub(super) async fn write(
        &self,
        checkpoints: &Checkpoints<'_>,
        run: u64,
        state: &mut SegmentState,
        claim: bool,
    ) -> Result<bool, Error> {
        let mut ph = Placeholders::default();
        let mut cond = String::new();
        if state.version == 0 {
            cond.push_str("attribute_not_exists(");
            ph.push_name(checkpoints.names.pk, &mut cond);
            cond.push(')');
        } else {
            ph.push_name("v", &mut cond);
            cond.push_str(" = ");
            ph.push_value(AttributeValue::N(state.version.to_string()), &mut cond);
        }
        if !claim {
            cond.push_str(" AND ");
            ph.push_name("owner", &mut cond);
            cond.push_str(" = ");
            ph.push_value(AttributeValue::S(self.worker.clone()), &mut cond);
        }
        let mut next = state.clone();
        next.version += 1;
        next.owner = Some(self.worker.clone());
        next.lease_until = now_ms().saturating_add(u64::try_from(self.length.as_millis()).unwrap_or(u64::MAX));
        if checkpoints.put_if(checkpoints.segment_item(run, &next), Some((cond, ph))).await? {
            *state = next;
            Ok(true)
        } else {
            Ok(false)
        }
    }
}
