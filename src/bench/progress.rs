//! Progress on stderr: a bar on a terminal, else a line every
//! [`PROGRESS_EVERY`] tasks and at the end; warnings printed above the bar.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// The progress of one run over `total` tasks.
pub(super) struct Progress {
    bar: ProgressBar,
    total: usize,
    /// Tasks done (run or skipped), for the progress lines.
    done: usize,
    started: Instant,
    stderr_is_terminal: bool,
}

impl Progress {
    /// A bar over `total` tasks, started now.
    pub(super) fn new(total: usize) -> Self {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} ({eta} left) {msg}",
            )
            .expect("valid progress template")
            .progress_chars("=> "),
        );
        Progress {
            bar,
            total,
            done: 0,
            started: Instant::now(),
            stderr_is_terminal: std::io::stderr().is_terminal(),
        }
    }

    /// What the run does now, beside the bar.
    pub(super) fn message(&self, msg: String) {
        self.bar.set_message(msg);
    }

    /// `warning: MSG` on stderr, above the bar.
    pub(super) fn warn(&self, msg: &str) {
        self.bar.suspend(|| eprintln!("warning: {msg}"));
    }

    /// One task done: the bar moves, or without a terminal on stderr a
    /// progress line is printed every [`PROGRESS_EVERY`] tasks and at the end.
    pub(super) fn tick(&mut self) {
        self.bar.inc(1);
        self.done += 1;
        if self.stderr_is_terminal {
            return;
        }
        if self.done.is_multiple_of(PROGRESS_EVERY) || self.done == self.total {
            eprintln!(
                "{}",
                progress_line(self.done, self.total, self.started.elapsed().as_secs())
            );
        }
    }

    /// The run is over: the bar goes.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Without a terminal on stderr, a progress line every this many tasks.
const PROGRESS_EVERY: usize = 20;

/// `bench: 120/500 tasks, 3 min`.
fn progress_line(done: usize, total: usize, elapsed_secs: u64) -> String {
    let time = if elapsed_secs < 120 {
        format!("{elapsed_secs} s")
    } else {
        format!("{} min", elapsed_secs / 60)
    };
    format!("bench: {done}/{total} tasks, {time}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_say_tasks_done_and_time() {
        assert_eq!(progress_line(120, 500, 185), "bench: 120/500 tasks, 3 min");
        assert_eq!(progress_line(20, 37, 9), "bench: 20/37 tasks, 9 s");
    }
}
