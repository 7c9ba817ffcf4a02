//! A read rate limit in read capacity units a second ([`ReadRate`]), shared by the segments of
//! a parallel scan or by several scans and backfills.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A read rate limit shared by the segments of a parallel scan (or by several scans): a token
/// bucket of read capacity units, refilled at `units_per_second` and holding at most one
/// second's worth. Each `Scan` request waits until the bucket is not in debt, and the read
/// units its answer reports (`ConsumedCapacity`) are then taken from the bucket, so the rate
/// holds on average over the scan, whatever the size of its pages.
#[derive(Debug)]
pub struct ReadRate {
    units_per_second: f64,
    state: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl ReadRate {
    /// A limit of `units_per_second` read capacity units a second (at least 0.5, the smallest
    /// read DynamoDB reports).
    pub fn new(units_per_second: f64) -> ReadRate {
        let units_per_second = if units_per_second.is_finite() { units_per_second.max(0.5) } else { f64::MAX };
        ReadRate { units_per_second, state: Mutex::new(Bucket { tokens: units_per_second, at: Instant::now() }) }
    }

    /// The limit, in read capacity units per second.
    pub fn units_per_second(&self) -> f64 {
        self.units_per_second
    }

    fn refill(&self, b: &mut Bucket) {
        let now = Instant::now();
        let elapsed = now.duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.units_per_second).min(self.units_per_second);
        b.at = now;
    }

    /// Waits until the bucket holds a positive number of units.
    pub async fn acquire(&self) {
        loop {
            let wait = {
                let mut b = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                self.refill(&mut b);
                if b.tokens > 0.0 {
                    return;
                }
                (-b.tokens + 0.5) / self.units_per_second
            };
            tokio::time::sleep(Duration::from_secs_f64(wait.min(60.0))).await;
        }
    }

    /// Takes `units` read units (as a response reported them) from the bucket.
    pub fn consume(&self, units: f64) {
        let mut b = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.refill(&mut b);
        b.tokens -= units;
    }
}
