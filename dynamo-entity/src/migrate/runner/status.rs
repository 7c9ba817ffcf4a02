//! Where each migration stands ([`Status`], one line of [`MigrationStatus`]).

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::migrate::pass::{BackfillReport, VerifyReport};
use crate::migrate::runner::kind::Kind;

/// Where one migration stands, as the table records it.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Not started.
    Pending,
    /// Being run by `worker`: its heartbeat is fresh. A worker whose process died still shows
    /// here until its heartbeat is `stale_after` old; then the step is [`Status::Stopped`].
    Running {
        /// The worker running it.
        worker: String,
        /// Its checkpoint (a backfill or re-keying).
        checkpoint: Option<BackfillReport>,
        /// When the worker last renewed its heartbeat, in milliseconds since the Unix epoch.
        heartbeat_at_ms: u64,
        /// How old a heartbeat must be for the step to count as stopped: three heartbeat
        /// periods ([`Migrations::heartbeat`](super::Migrations::heartbeat)).
        stale_after: Duration,
    },
    /// Started and stopped before it was done: its process was killed, its run dropped, or it
    /// failed with `error`. [`Migrations::resume`](super::Migrations::resume) continues it.
    Stopped {
        /// The error it failed with, if it failed.
        error: Option<String>,
        /// Its checkpoint (a backfill or re-keying).
        checkpoint: Option<BackfillReport>,
    },
    /// Done.
    Applied {
        /// When it was done, in milliseconds since the Unix epoch.
        at_ms: u64,
        /// What it did.
        summary: String,
        /// What the last verification since it was applied found
        /// ([`Migrations::verify`](super::Migrations::verify)).
        verified: Verification,
    },
    /// Recorded in the table but no longer declared (its step was removed from the code, or
    /// the table is shared with another program's migrations). Nothing runs it.
    Undeclared {
        /// What its record says: `running`, `applied` or `failed`.
        recorded: String,
        /// Its summary (applied) or error (failed), if any.
        text: Option<String>,
    },
}

/// What the last verification of an applied step found, as its record holds it: the
/// verification of a step applied again is forgotten with its earlier run.
#[derive(Debug, Clone, PartialEq)]
pub enum Verification {
    /// The step is of a kind that is not checked again: an index layout (`plan` compares the
    /// table with its declaration) or a custom step.
    NotApplicable,
    /// Not verified since it was applied.
    NotVerified,
    /// Verified: when (milliseconds since the Unix epoch) and what was found.
    Checked {
        /// When the verification was recorded, in milliseconds since the Unix epoch.
        at_ms: u64,
        /// What it found (the items it names, at most
        /// [`VERIFY_EXAMPLES`](crate::migrate::VERIFY_EXAMPLES) of each kind).
        report: VerifyReport,
    },
}

impl fmt::Display for Verification {
    /// The note `status` adds to an applied step's line (empty for
    /// [`Verification::NotApplicable`]).
    ///
    /// ```
    /// use dynamo_entity::migrate::{Verification, VerifyReport};
    ///
    /// assert_eq!(Verification::NotVerified.to_string(), "not verified since applied");
    /// let report = VerifyReport {
    ///     entity: "Member".into(),
    ///     scanned: 601,
    ///     drifted: 1,
    ///     drift: vec![("PK=MEMBER#m1 SK=META".into(), "GSI1PK missing".into())],
    ///     ..VerifyReport::default()
    /// };
    /// let checked = Verification::Checked { at_ms: 1_780_000_000_000, report };
    /// assert_eq!(
    ///     checked.to_string(),
    ///     "drift found by verify at 2026-05-28T20:26:40.000Z: 1 of 601 Member items the step would still change \
    ///      (PK=MEMBER#m1 SK=META: GSI1PK missing), 0 undecodable"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verification::NotApplicable => Ok(()),
            Verification::NotVerified => f.write_str("not verified since applied"),
            Verification::Checked { at_ms, report: r } => {
                let at = i64::try_from(*at_ms)
                    .ok()
                    .and_then(|ms| crate::value::time::Timestamp::from_millis(ms).ok())
                    .map_or_else(|| format!("{at_ms} ms"), |t| t.to_string());
                if r.is_clean() {
                    return write!(f, "verified clean at {at}: {} {} items checked", r.scanned, r.entity);
                }
                write!(
                    f,
                    "drift found by verify at {at}: {} of {} {} items the step would still change",
                    r.drifted, r.scanned, r.entity
                )?;
                if let Some((key, why)) = r.drift.first() {
                    write!(f, " ({key}: {why}{})", if r.drifted > 1 { ", ..." } else { "" })?;
                }
                write!(f, ", {} undecodable", r.undecodable)?;
                if let Some((key, why)) = r.undecodable_items.first() {
                    write!(f, " ({key}: {why}{})", if r.undecodable > 1 { ", ..." } else { "" })?;
                }
                Ok(())
            }
        }
    }
}

/// One line of [`Migrations::status`](super::Migrations::status).
#[derive(Debug, Clone, PartialEq)]
pub struct MigrationStatus {
    /// The migration id.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// What it does.
    pub description: String,
    /// Where it stands.
    pub status: Status,
}

impl fmt::Display for MigrationStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let checkpoint = |c: &Option<BackfillReport>| {
            c.as_ref().map_or(String::new(), |r| {
                let done = r.completed;
                format!(
                    " (checkpoint: run {}, {} scanned, {} updated, {} skipped{}{})",
                    r.run,
                    r.scanned,
                    r.updated,
                    r.skipped,
                    if r.failed > 0 { format!(", {} failed", r.failed) } else { String::new() },
                    if done { ", every segment done" } else { "" }
                )
            })
        };
        write!(f, "{:<8} {} [{}] {}", self.status.word(), self.id, self.kind, self.description)?;
        match &self.status {
            Status::Pending => Ok(()),
            Status::Running { worker, checkpoint: c, heartbeat_at_ms, stale_after } => {
                let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
                let age = now.saturating_sub(u128::from(*heartbeat_at_ms));
                write!(
                    f,
                    ": run by {worker}, heartbeat {}.{} s ago (stopped once {} s old){}",
                    age / 1000,
                    age % 1000 / 100,
                    stale_after.as_secs_f64(),
                    checkpoint(c)
                )
            }
            Status::Stopped { error, checkpoint: c } => {
                write!(f, ":{}", checkpoint(c))?;
                if let Some(e) = error {
                    write!(f, " failed: {e}")?;
                }
                Ok(())
            }
            Status::Applied { summary, verified: Verification::NotApplicable, .. } => write!(f, ": {summary}"),
            Status::Applied { summary, verified, .. } => write!(f, ": {summary}; {verified}"),
            Status::Undeclared { recorded, text } => {
                write!(f, ": recorded {recorded}")?;
                if let Some(t) = text {
                    write!(f, ": {t}")?;
                }
                Ok(())
            }
        }
    }
}

impl Status {
    /// `pending`, `running`, `stopped`, `applied` or `undeclared`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Undeclared { .. } => "undeclared",
            Status::Pending => "pending",
            Status::Running { .. } => "running",
            Status::Stopped { .. } => "stopped",
            Status::Applied { .. } => "applied",
        }
    }
}
