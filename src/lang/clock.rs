//! The parse budget, and the per-thread CPU clock it is spent on.

/// The CPU time one file may take to parse and run its tags query: 250 ms
/// plus 1 ms per KB (1.25 s for the largest file read, 1 MiB), counted on the
/// parsing thread's own CPU clock ([`ParseClock`]), so a loaded machine does
/// not cap files it would parse when idle (with a wall clock, a bench at load
/// 20 on 2 cores left `sympy/core/expr.py` unparsed and moved ranks).
///
/// Ordinary code is far inside it: across 8,058 files (this crate, the cargo
/// registry's crates, the Python standard library) the slowest took 0.7 s in
/// a debug build (a 631 KB generated Unicode table; parse and query). Some
/// texts make tree-sitter's work superlinear: error recovery over unbalanced
/// brackets builds long chains of hidden nodes, and the query cursor walks
/// such a chain at every step. A 100 KB Python file of 60 `(` a line took
/// 12.5 s and a 900 KB one over 300 s before this budget (probe D4,
/// 2026-12-01). Time rather than a structural limit, because the costly
/// chains are made of hidden nodes the tree's public API does not show, and
/// parser operations do not track the cost (that file takes fewer of them
/// per byte than ordinary code). A limit on bracket depth was measured and
/// not kept (2026-12-06): skipping files nested over 1,000 deep (ordinary
/// code: 89 at the 99.9th percentile of 45,583 source files) made ten
/// 900 KB files of `(` cost 0.04 s instead of 6.7 s and 1 GB, but the same
/// brackets in blocks of 960, under any such limit, still took 1.08 s and
/// 155 MB as Python and 1.67 s (the budget) and 564 MB as Haskell: depth is
/// not what makes the parse costly.
pub fn parse_budget(bytes: usize) -> std::time::Duration {
    std::time::Duration::from_millis(250 + bytes as u64 / 1000)
}

/// The clock [`parse_budget`] is spent on: the calling thread's CPU time
/// (`CLOCK_THREAD_CPUTIME_ID`) where the platform has one, else wall time.
/// Time the thread waits for a core does not count; the call's deadline
/// (wall time, [`crate::limits`]) still bounds the whole call.
pub struct ParseClock {
    start: std::time::Duration,
}

impl ParseClock {
    /// Starts counting now.
    pub fn start() -> ParseClock {
        ParseClock { start: now() }
    }

    /// Time spent since [`ParseClock::start`].
    pub fn elapsed(&self) -> std::time::Duration {
        now().saturating_sub(self.start)
    }
}

#[cfg(unix)]
fn now() -> std::time::Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(not(unix))]
fn now() -> std::time::Duration {
    use std::sync::OnceLock;
    static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
    ORIGIN.get_or_init(std::time::Instant::now).elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_parse_budget_does_not_count_time_spent_waiting() {
        // A thread that waits (for a core, here for a sleep) spends no CPU:
        // on a loaded machine a file is not capped for time it did not run.
        let clock = ParseClock::start();
        std::thread::sleep(parse_budget(0) * 2);
        assert!(clock.elapsed() < parse_budget(0));
        // Work does count: 100 ms of spinning is far more than 5 ms of CPU
        // even on a loaded machine.
        let clock = ParseClock::start();
        let wall = std::time::Instant::now();
        let mut x = 0u64;
        while wall.elapsed() < std::time::Duration::from_millis(100) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(x > 0);
        assert!(clock.elapsed() >= std::time::Duration::from_millis(5));
    }
}
