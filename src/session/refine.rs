//! REFINE: target the gaps, focus on the high files' neighbourhood, exclude
//! confidently low candidates, plus what the agent adds.

use super::{Session, CONFIDENTLY_LOW};
use crate::score::FocusWhy;
use crate::types::*;

/// Share of the best raw score given to files next to a high file.
const DIR_FOCUS_BOOST: f64 = 0.05;

/// How `refine` targets a gap (named in `added.focus_areas`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    /// Find the file that defines what a high file uses.
    Dependency,
    /// Find the file that defines a high file's base class or trait.
    Parent,
    /// Find the configuration file a high file names.
    Config,
}

impl Strategy {
    fn as_str(self) -> &'static str {
        match self {
            Strategy::Dependency => "dependency",
            Strategy::Parent => "parent",
            Strategy::Config => "config",
        }
    }
}

impl Session {
    /// REFINE: target the gaps, focus on the high files' neighbourhood, exclude
    /// confidently low candidates, plus what the agent adds.
    pub fn refine(
        &mut self,
        keywords: &[String],
        patterns: &[String],
        excludes: &[String],
    ) -> RefineOutput {
        let mut added = Added::default();
        let mut excluded = Vec::new();
        self.target_gaps(&mut added);
        added.candidates = self
            .lift
            .iter()
            .flat_map(|lift| &lift.files)
            .map(|l| {
                format!(
                    "{}: {} (lifted below the first answer's best five)",
                    l.path, l.link
                )
            })
            .chain(self.links.iter().map(|l| format!("{}: {}", l.path, l.link)))
            .collect();
        self.focus_on_highs(&mut added);
        self.exclude_low(&mut excluded);
        for k in keywords {
            if !k.trim().is_empty() && !self.query.keywords.contains(k) {
                self.query.keywords.push(k.clone());
                added.keywords.push(format!("{k}: from the agent"));
            }
        }
        for p in patterns {
            if !p.trim().is_empty() && !self.query.patterns.contains(p) {
                self.query.patterns.push(p.clone());
                added.patterns.push(format!("{p}: from the agent"));
            }
        }
        for e in excludes {
            if !self.query.excludes.contains(e) {
                self.query.excludes.push(e.clone());
                excluded.push(format!("{e}: from the agent"));
            }
        }
        RefineOutput {
            session_id: self.id.clone(),
            cycle: self.cycle + 1,
            query: self.query.clone(),
            added,
            excluded,
            done: self.done.is_some(),
            stop_reason: self.done,
            files: self
                .ranked()
                .into_iter()
                .take(self.config.limit)
                .map(|(p, k)| Scored {
                    path: p,
                    relevance: k.relevance,
                })
                .collect(),
        }
    }

    /// Each gap's symbol becomes a keyword and the files that close it focus
    /// areas with a relevance floor.
    fn target_gaps(&mut self, added: &mut Added) {
        for g in &self.gaps {
            let strategy = match g.kind {
                GapKind::UndefinedSymbol => Strategy::Dependency,
                GapKind::MissingParent => Strategy::Parent,
                GapKind::ConfigFile => Strategy::Config,
                GapKind::UncoveredConcept | GapKind::AgentReported => continue,
            };
            let Some(sym) = &g.symbol else { continue };
            let from = g.referenced_from.as_deref().unwrap_or("a high file");
            if strategy != Strategy::Config && !self.query.keywords.contains(sym) {
                self.query.keywords.push(sym.clone());
                self.feedback.push(sym.clone());
                added.keywords.push(format!(
                    "{sym}: {} of a high file ({from})",
                    strategy.as_str()
                ));
            }
            for p in &g.suggested_paths {
                if !self.query.focus_areas.contains(p) {
                    self.query.focus_areas.push(p.clone());
                    let (symbol, from) = (sym.clone(), from.to_string());
                    let why = match strategy {
                        Strategy::Dependency => FocusWhy::DefinesUsed { symbol, from },
                        Strategy::Parent => FocusWhy::DefinesParent { symbol, from },
                        Strategy::Config => FocusWhy::ConfigNamed { from },
                    };
                    self.focus
                        .floors
                        .push((p.clone(), self.weights.gap_floor, why.clone()));
                    added
                        .focus_areas
                        .push(format!("{p}: {} — {why}", strategy.as_str()));
                }
            }
        }
    }

    /// The directory of each high file becomes a focus area with a boost.
    fn focus_on_highs(&mut self, added: &mut Added) {
        let threshold = self.config.high_threshold;
        let highs: Vec<String> = self
            .ranked()
            .into_iter()
            .filter(|(_, k)| k.relevance >= threshold)
            .map(|(p, _)| p)
            .collect();
        for h in &highs {
            if let Some((dir, _)) = h.rsplit_once('/') {
                let dir = format!("{dir}/");
                if !self.query.focus_areas.contains(&dir) {
                    self.query.focus_areas.push(dir.clone());
                    self.focus.boosts.push((
                        dir.clone(),
                        DIR_FOCUS_BOOST,
                        FocusWhy::NextTo { high: h.clone() },
                    ));
                    added
                        .focus_areas
                        .push(format!("{dir}: neighbourhood — directory of high file {h}"));
                }
            }
        }
    }

    /// Confidently low candidates (below `CONFIDENTLY_LOW`, at most 10) are
    /// excluded, each by a glob that matches its path and nothing else
    /// ([`crate::walk::literal_glob`]): a file named `old[1.py` is no
    /// character class (as one, it made every later dispatch of the session
    /// fail: "invalid glob … unclosed character class", newcomer probe
    /// 2026-12-06), and `README.md` is the root's, not every README.
    fn exclude_low(&mut self, excluded: &mut Vec<String>) {
        for p in &self.candidates {
            let Some(k) = self.files.get(p) else { continue };
            let wanted = self.query.focus_areas.contains(p);
            let Some(glob) = crate::walk::literal_glob(p) else {
                continue;
            };
            if k.relevance < CONFIDENTLY_LOW
                && !wanted
                && excluded.len() < 10
                && !self.query.excludes.contains(&glob)
            {
                excluded.push(format!("{p}: relevance {:.2}", k.relevance));
                self.query.excludes.push(glob);
            }
        }
    }
}
