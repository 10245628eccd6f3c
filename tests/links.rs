//! The later cycles bring in what the high files call and what calls them
//! (issue 13 items 3 to 5). The tree: `billing/invoice.py` holds the words of
//! the task, defines `render_invoice_total` (named by the task) and
//! `apply_half_even`, and calls `prorate_monthly_charge`, defined in
//! `billing/proration.py`; `reports/ledger.py` calls `apply_half_even`.
//! Neither of those two files shares a word with the task, so the first
//! cycle's ranking cannot find them.

use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::request::{DispatchRequest, EvaluateRequest, Judgment, RefineRequest};
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::types::{DecisionKind, RetrieveOutput};
use ctxloop::CallOptions;
use std::path::Path;

const TASK: &str = "render_invoice_total rounding is wrong for discounted invoices: \
the invoice total adds the discount twice";

fn tree(dir: &Path) {
    let w = |p: &str, s: &str| {
        let p = dir.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    };
    w(
        "billing/invoice.py",
        "from billing.proration import prorate_monthly_charge\n\n\
def render_invoice_total(invoice, discount):\n    \"\"\"The invoice total with its discount, rounded.\"\"\"\n    \
total = prorate_monthly_charge(invoice.amount, invoice.days)\n    total = total - discount - discount\n    \
return apply_half_even(total)\n\n\ndef apply_half_even(value):\n    return round(value, 2)\n",
    );
    w(
        "billing/proration.py",
        "def prorate_monthly_charge(amount, days):\n    return amount * days / 30\n",
    );
    w(
        "reports/ledger.py",
        "from billing import *\n\ndef ledger_line(x):\n    return apply_half_even(x)\n",
    );
    for i in 0..6 {
        w(
            &format!("misc/note{i}.py"),
            &format!("# layout notes {i}\nVALUE_{i} = {i}\n"),
        );
    }
}

fn paths(files: &[ctxloop::types::File]) -> Vec<&str> {
    files.iter().map(|f| f.path.as_str()).collect()
}

/// A step-wise session's first `dispatch` of the task on `dir`.
fn start(engine: &Engine, dir: &Path) -> ctxloop::types::DispatchOutput {
    engine
        .dispatch(
            DispatchRequest {
                session_id: None,
                start: RetrieveParams {
                    task: TASK.into(),
                    root: Some(dir.to_string_lossy().into_owned()),
                    ..Default::default()
                }
                .into(),
            },
            &CallOptions::PLAIN,
        )
        .unwrap()
}

/// The task's answer after one cycle and after up to three, on `dir`.
fn one_and_three_cycles(dir: &Path) -> (RetrieveOutput, RetrieveOutput) {
    let engine = Engine::new(EngineOptions::default());
    (retrieve_on(&engine, dir, 1), retrieve_on(&engine, dir, 3))
}

/// Enough files with the task's words to fill the first answer's ten
/// slots, each weaker than the invoice module.
fn weaker_notes(dir: &Path) {
    for i in 0..12 {
        let p = dir.join(format!("notes/discount{i}.py"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(
            p,
            format!("# invoices: the discount {i}\nDISCOUNT_{i} = {i}\n"),
        )
        .unwrap();
    }
}

#[test]
fn the_second_cycle_brings_in_the_high_files_callee_and_caller_and_keeps_the_first_answer() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let (one, three) = one_and_three_cycles(dir.path());
    let first = paths(&one.files);
    let full = paths(&three.files);
    assert_eq!(first[0], "billing/invoice.py");
    for linked in ["billing/proration.py", "reports/ledger.py"] {
        assert!(!first.contains(&linked), "{linked} in cycle 1: {first:?}");
        assert!(full.contains(&linked), "{linked} not brought in: {full:?}");
    }
    // The first answer's best files keep their places.
    let top = first.len().min(5);
    let kept: Vec<&str> = first.iter().take(top).copied().collect();
    let full_top: Vec<&str> = full.iter().filter(|p| kept.contains(p)).copied().collect();
    assert_eq!(kept, full_top);
    assert!(three.cycles.len() >= 2, "{:?}", three.cycles);
    let callee = three
        .files
        .iter()
        .find(|f| f.path == "billing/proration.py")
        .unwrap();
    assert!(
        callee.reasons[0]
            .contains("defines `prorate_monthly_charge` used by high file billing/invoice.py"),
        "{:?}",
        callee.reasons
    );
}

#[test]
fn a_judged_high_file_pulls_in_its_neighbours_and_refine_says_why() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let engine = Engine::new(EngineOptions::default());
    let d1 = start(&engine, dir.path());
    let sid = d1.session_id.clone();
    assert!(d1.candidates[0].snippets.iter().any(|s| !s.text.is_empty()));
    // A judge confirms the invoice module and rejects every other file it saw.
    let judgments = d1
        .candidates
        .iter()
        .map(|f| Judgment {
            path: f.path.clone(),
            relevance: if f.path == "billing/invoice.py" {
                0.9
            } else {
                0.2
            },
            missing_context: None,
        })
        .collect();
    engine
        .evaluate(
            EvaluateRequest {
                session_id: sid.clone(),
                judgments,
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    let r = engine
        .refine(
            RefineRequest {
                session_id: sid.clone(),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    assert!(
        r.added
            .candidates
            .iter()
            .any(|c| c.starts_with("billing/proration.py: defines `prorate_monthly_charge`")),
        "{:?}",
        r.added.candidates
    );
    assert!(
        r.added
            .candidates
            .iter()
            .any(|c| c.starts_with("reports/ledger.py: uses `apply_half_even`")),
        "{:?}",
        r.added.candidates
    );
    let d2 = engine
        .dispatch(
            DispatchRequest {
                session_id: Some(sid.clone()),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    let shown = paths(&d2.candidates);
    assert!(shown.contains(&"billing/proration.py"), "{shown:?}");
    let e2 = engine
        .evaluate(
            EvaluateRequest {
                session_id: sid,
                judgments: Vec::new(),
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    // The answer so far is in evaluate's output with its line ranges, the
    // confirmed file first, its callee and caller right below it.
    let ranked = paths(&e2.evaluations);
    assert_eq!(ranked[0], "billing/invoice.py");
    assert!(ranked[1..3].contains(&"billing/proration.py"), "{ranked:?}");
    assert!(ranked[1..3].contains(&"reports/ledger.py"), "{ranked:?}");
    assert!(e2.evaluations[0]
        .snippets
        .iter()
        .any(|s| !s.text.is_empty() && s.start_line >= 1));
}

#[test]
fn files_the_agent_rejected_give_their_places_to_files_it_has_not_seen() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    weaker_notes(dir.path());
    let engine = Engine::new(EngineOptions::default());
    let d1 = start(&engine, dir.path());
    let shown: Vec<String> = d1.candidates.iter().map(|f| f.path.clone()).collect();
    assert_eq!(shown.len(), 10, "the first answer is full: {shown:?}");
    // The agent read all ten and found none of them relevant.
    let judgments = shown
        .iter()
        .map(|p| Judgment {
            path: p.clone(),
            relevance: 0.2,
            missing_context: None,
        })
        .collect();
    let e1 = engine
        .evaluate(
            EvaluateRequest {
                session_id: d1.session_id.clone(),
                judgments,
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    let ranked = paths(&e1.evaluations);
    let unseen: Vec<&str> = ranked
        .iter()
        .copied()
        .filter(|p| !shown.iter().any(|s| s == p))
        .collect();
    assert!(!unseen.is_empty(), "no file beyond the ten: {ranked:?}");
    // Every file it has not seen comes first, though the engine scored each
    // below the rejected ones; the rejected keep the agent's relevance.
    assert_eq!(&ranked[..unseen.len()], &unseen[..], "{ranked:?}");
    for f in &e1.evaluations[unseen.len()..] {
        assert!(shown.contains(&f.path), "{ranked:?}");
        assert_eq!(f.relevance, 0.2, "{}", f.path);
    }
    // Nothing confirmed and the places moved on: the loop goes on.
    assert_eq!(e1.decision, DecisionKind::Refine);
}

#[test]
fn an_unjudged_link_never_pushes_a_file_out_of_the_first_cycles_answer() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    // The invoice module calls nothing of another file (no gap to close):
    // its one link is its caller, `reports/ledger.py`.
    std::fs::write(
        dir.path().join("billing/invoice.py"),
        "def render_invoice_total(invoice, discount):\n    \
         \"\"\"The invoice total with its discount, rounded.\"\"\"\n    \
         total = invoice.amount - discount - discount\n    \
         return apply_half_even(total)\n\n\ndef apply_half_even(value):\n    return round(value, 2)\n",
    )
    .unwrap();
    weaker_notes(dir.path());
    let (one, three) = one_and_three_cycles(dir.path());
    let first = paths(&one.files);
    assert_eq!(first.len(), 10, "cycle 1 fills the answer: {first:?}");
    assert_eq!(first[0], "billing/invoice.py");
    assert!(three.cycles.len() >= 2, "{:?}", three.cycles);
    // The link was found (and fills no empty slot: there is none), and the
    // first answer is the answer.
    let linked = three.cycles[0].decision.contains("link");
    assert!(linked, "{:?}", three.cycles[0].decision);
    assert_eq!(paths(&three.files), first);
}

#[test]
fn a_file_closing_a_gap_never_pushes_a_file_out_of_the_first_cycles_answer() {
    let dir = tempfile::tempdir().unwrap();
    // The invoice module calls `prorate_monthly_charge`, defined in
    // `billing/proration.py`: a gap the later cycles close.
    tree(dir.path());
    weaker_notes(dir.path());
    let (one, three) = one_and_three_cycles(dir.path());
    let first = paths(&one.files);
    assert_eq!(first.len(), 10, "cycle 1 fills the answer: {first:?}");
    assert!(!first.contains(&"billing/proration.py"), "{first:?}");
    let gap = three.cycles[0].gaps.iter().any(|g| {
        g.suggested_paths
            .iter()
            .any(|p| p == "billing/proration.py")
    });
    assert!(gap, "{:?}", three.cycles[0].gaps);
    assert_eq!(paths(&three.files), first);
}

/// A repository where `rates/tax_table.py` (no word of the task, no name
/// shared with the invoice module) changed together with
/// `billing/invoice.py` in three commits, as did a hidden file, an ignored
/// one and the invoice's test; `billing/version.py` changed in every commit.
/// `None` when git is not installed.
fn co_changing_repo(dir: &Path) -> Option<()> {
    use ctxloop::test_support::scratch_git;
    let w = |p: &str, s: &str| {
        let p = dir.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    };
    let commit = |msg: &str| {
        scratch_git(dir, &["add", "-A", "-f"]).unwrap();
        scratch_git(dir, &["commit", "-q", "-m", msg]).unwrap();
    };
    scratch_git(dir, &["init", "-q"])?;
    tree(dir);
    w(".gitignore", "build/\n");
    let invoice = std::fs::read_to_string(dir.join("billing/invoice.py")).unwrap();
    for v in 0..3 {
        w("billing/invoice.py", &format!("{invoice}# v{v}\n"));
        w(
            "rates/tax_table.py",
            &format!("RATES = {{\"eu\": 0.2{v}}}\n\ndef lookup_rate(region):\n    return RATES[region]\n"),
        );
        w(".hidden/rates.py", &format!("SECRET_RATE = {v}\n"));
        w("build/rates_gen.py", &format!("GENERATED_RATE = {v}\n"));
        w(
            "tests/test_invoice.py",
            &format!("def test_total_{v}():\n    assert True\n"),
        );
        w("billing/version.py", &format!("VERSION = \"0.{v}\"\n"));
        commit(&format!("billing change {v}"));
    }
    for i in 0..6 {
        w(
            &format!("misc/note{i}.py"),
            &format!("VALUE_{i} = {i} + 1\n"),
        );
        w("billing/version.py", &format!("VERSION = \"1.{i}\"\n"));
        commit(&format!("notes {i}"));
    }
    Some(())
}

/// The task's answer on `dir` after up to `cycles` cycles.
fn retrieve_on(engine: &Engine, dir: &Path, cycles: usize) -> RetrieveOutput {
    engine
        .retrieve(
            RetrieveParams {
                task: TASK.into(),
                root: Some(dir.to_string_lossy().into_owned()),
                max_cycles: Some(cycles as _),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap()
}

#[test]
fn a_file_that_changes_with_the_high_file_in_the_history_is_brought_in() {
    let dir = tempfile::tempdir().unwrap();
    if co_changing_repo(dir.path()).is_none() {
        return; // git is not installed
    }
    let engine = Engine::new(EngineOptions::default());
    let one = retrieve_on(&engine, dir.path(), 1);
    let three = retrieve_on(&engine, dir.path(), 3);
    let first = paths(&one.files);
    let full = paths(&three.files);
    assert_eq!(first[0], "billing/invoice.py");
    assert!(!first.contains(&"rates/tax_table.py"), "{first:?}");
    let linked = three
        .files
        .iter()
        .find(|f| f.path == "rates/tax_table.py")
        .unwrap_or_else(|| panic!("the co-changed file not brought in: {full:?}"));
    assert_eq!(
        linked.reasons[0],
        "changes with high file billing/invoice.py in 3 commits"
    );
    // Never a hidden, ignored or test file, nor one changed in every
    // commit: the tax table is the only file the history links.
    for never in [".hidden/rates.py", "build/rates_gen.py"] {
        assert!(!full.contains(&never), "{never}: {full:?}");
    }
    let by_history: Vec<&str> = three
        .files
        .iter()
        .filter(|f| f.reasons.iter().any(|r| r.starts_with("changes with")))
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(by_history, ["rates/tax_table.py"], "{:#?}", three.files);
    // The first answer keeps its order.
    let kept: Vec<&str> = full.iter().filter(|p| first.contains(p)).copied().collect();
    assert_eq!(kept, first);

    // No history: no such link, and no error.
    let off = Engine::new(EngineOptions {
        no_history: true,
        ..Default::default()
    });
    let without = retrieve_on(&off, dir.path(), 3);
    assert!(
        !paths(&without.files).contains(&"rates/tax_table.py"),
        "{:#?}",
        without
            .files
            .iter()
            .map(|f| (&f.path, &f.reasons))
            .collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(dir.path().join(".git")).unwrap();
    let no_repo = retrieve_on(&Engine::new(EngineOptions::default()), dir.path(), 3);
    assert!(!paths(&no_repo.files).contains(&"rates/tax_table.py"));
}

#[test]
fn the_second_cycle_lifts_a_file_the_words_found_low_that_the_best_file_links_to() {
    let dir = tempfile::tempdir().unwrap();
    if co_changing_repo(dir.path()).is_none() {
        return; // git is not installed
    }
    weaker_notes(dir.path());
    // The tax table, which changed with the invoice module in three
    // commits, now holds one word of the notes: the first cycle scores it,
    // below the twelve notes.
    std::fs::write(
        dir.path().join("rates/tax_table.py"),
        "RATES = {\"eu\": 0.2}\n\n# no discount\n\
         def lookup_rate(region):\n    return RATES[region]\n",
    )
    .unwrap();
    let (one, three) = one_and_three_cycles(dir.path());
    let first = paths(&one.files);
    let full = paths(&three.files);
    assert_eq!(first.len(), 10, "cycle 1 fills the answer: {first:?}");
    assert_eq!(first[0], "billing/invoice.py");
    assert!(!first.contains(&"rates/tax_table.py"), "{first:?}");
    // Lifted right below the first answer's best five, which keep their
    // places, with its link as its first reason.
    assert_eq!(full[..5], first[..5]);
    assert_eq!(full[5], "rates/tax_table.py", "{full:?}");
    assert_eq!(full.len(), 10);
    assert_eq!(
        three.files[5].reasons[0],
        "changes with high file billing/invoice.py in 3 commits"
    );
    // The first cycle's sixth file keeps a place.
    assert!(full.contains(&first[5]), "{full:?}");
    // The first cycle said why it went on.
    let why = &three.cycles[0].decision;
    assert!(why.contains("wait below the answer"), "{why}");
}
