//! When a call must stop early, and the `truncated` note that says so.

use crate::types::{StopReason, Truncated};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// When a call must stop early: its deadline, or the client's cancellation
/// (`notifications/cancelled`). Checked per file read and between cycles.
#[derive(Clone, Default)]
pub struct Limits {
    deadline: Option<(Instant, u64)>,
    cancel: Option<CancellationToken>,
}

impl Limits {
    pub fn new(deadline_ms: Option<u64>, cancel: Option<CancellationToken>) -> Limits {
        Limits {
            deadline: deadline_ms.map(|ms| (Instant::now() + Duration::from_millis(ms), ms)),
            cancel,
        }
    }

    /// Why the call must stop now, if it must.
    pub fn hit(&self) -> Option<StopReason> {
        if self.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
            Some(StopReason::Cancelled)
        } else if self.deadline.is_some_and(|(at, _)| Instant::now() >= at) {
            Some(StopReason::Deadline)
        } else {
            None
        }
    }

    /// The `truncated` note for stopping for `reason` at `place`.
    pub fn truncated(&self, reason: StopReason, place: String) -> Truncated {
        let what = match (reason, self.deadline) {
            (StopReason::Deadline, Some((_, ms))) => format!("deadline of {ms} ms passed"),
            _ => "cancelled by the client".to_string(),
        };
        Truncated {
            reason,
            detail: format!("{what} {place}; the files are the best found so far"),
        }
    }
}
