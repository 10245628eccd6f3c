//! Priors: multipliers for tests, docs, examples, index files and non-code.

use super::stage::{Pass, ScoreContext};
use super::{Candidate, Scored, Weights};
use crate::query::TaskQuery;

/// Whether a path is a test file: one rule for the engine and the bench's
/// source-only baseline, with each language's conventions
/// ([`crate::lang::is_test_path`]).
pub use crate::lang::is_test_path;
use crate::lang::{is_aside_path, is_test_double_path};

/// Release notes and project-process documents (`CHANGELOG.md`, `NEWS`,
/// `CONTRIBUTING.md`, and the instructions kept for coding agents:
/// `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`) and man pages (`foo.1`, or the
/// template a build fills in, `foo.1.in`: bat's `assets/manual/bat.1.in`
/// was in the top 5 of 6 of its 20 dev-multilang tasks): they
/// mention every feature and name, and a fix never lands in them
/// (Humanizer's `CLAUDE.md` and `AGENTS.md` took ranks 4 and 5 of a
/// dev-multilang task whose fix is in a source generator). A leading `_`
/// marks a partial of one (trpc's `_contributing.mdx`), as it marks a
/// private module; a version after the name is one release's part
/// (vuejs/core's `CHANGELOG-3.2.md`, jackson-databind's `CREDITS-2.x`).
fn is_notes_file(file: &str) -> bool {
    let stem = file.split_once('.').map_or(file, |(s, _)| s);
    let stem = stem.to_ascii_uppercase();
    let stem = stem.trim_matches(['-', '_']);
    // `CHANGELOG-3`, `RELEASE_NOTES_2`: the name before a version.
    let stem = stem
        .match_indices(['-', '_'])
        .find(|(i, _)| stem.as_bytes().get(i + 1).is_some_and(u8::is_ascii_digit))
        .map_or(stem, |(i, _)| &stem[..i]);
    matches!(
        stem,
        "CHANGELOG"
            | "CHANGES"
            | "HISTORY"
            | "NEWS"
            | "RELEASES"
            | "RELEASE_NOTES"
            | "RELEASE-NOTES"
            | "CONTRIBUTING"
            | "AUTHORS"
            | "CONTRIBUTORS"
            | "CREDITS"
            | "CODE_OF_CONDUCT"
            | "SECURITY"
            | "MIGRATING"
            | "UPGRADING"
            | "AGENTS"
            | "CLAUDE"
            | "GEMINI"
    ) || file
        .strip_suffix(".in")
        .unwrap_or(file)
        .rsplit_once('.')
        .is_some_and(|(_, e)| e.len() == 1 && e.as_bytes()[0].is_ascii_digit())
}

/// Directories that hold release notes, one file a release or a change
/// (jackson-databind's `release-notes/VERSION-2.x`, towncrier's
/// `newsfragments/`, `changelog.d/`, Sphinx projects' `whatsnew/`): every
/// file below one is a notes file, whatever its name. Only names no source
/// directory takes (`changes/`, `news/`, `history/`, `releases/` can be code).
const NOTES_DIRS: &[&str] = &[
    "changelog",
    "changelog.d",
    "changelogs",
    "changes.d",
    "news.d",
    "newsfragments",
    "release-notes",
    "release_notes",
    "releasenotes",
    "whatsnew",
];

/// Whether `rel` is a notes file: by its name ([`is_notes_file`]) or
/// below a [`NOTES_DIRS`] directory.
fn is_notes_path(rel: &str, file: &str) -> bool {
    is_notes_file(file)
        || rel
            .rsplit('/')
            .skip(1)
            .any(|d| NOTES_DIRS.iter().any(|n| d.eq_ignore_ascii_case(n)))
}

/// Extensions (without case) of documentation markup: pages a person
/// reads, wherever they lie. Markdown, reStructuredText and plain text
/// (`md`, `rst`, `txt`, the first rule), then formats other ecosystems
/// write their manuals in: R's manual pages and vignettes (`Rd`, `Rmd`,
/// generated or written beside the code in `man/` and `vignettes/`), Quarto
/// (`qmd`), MDX pages (`mdx`, a docs site's or blog's), AsciiDoc (`adoc`,
/// `asciidoc`), Ruby's RDoc (`rdoc`), Perl's POD (`pod`), Texinfo (`texi`,
/// `texinfo`), Org (`org`), Boost's QuickBook (`qbk`) and OCaml's odoc
/// pages (`mld`). They weighed as "not source code" (0.6) before, and a
/// manual page names its function as often as the function's own file does:
/// on the 50 held-out R tasks of `bench/README.md` (dplyr, testthat) a
/// `man/*.Rd` or `vignettes/*.Rmd` file held one of the top 10 places 96
/// times (2026-12-07).
const DOCS_EXTENSIONS: &[&str] = &[
    "md", "rst", "txt", "Rd", "Rmd", "qmd", "mdx", "adoc", "asciidoc", "rdoc", "pod", "texi",
    "texinfo", "org", "qbk", "mld",
];

/// Whether `file` (a file name) is documentation markup by its extension
/// ([`DOCS_EXTENSIONS`]).
fn is_docs_file(file: &str) -> bool {
    file.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && DOCS_EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext))
    })
}

/// Lockfiles by name: what a package manager writes to pin every
/// dependency (besides any `*.lock`).
const LOCKFILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "packages.lock.json",
    "go.sum",
    "go.work.sum",
    "Package.resolved",
    "Cartfile.resolved",
    "gradle.lockfile",
    "bun.lockb",
];

/// A file a tool writes and no one edits by hand, which lists the names of
/// the whole project: a lockfile (`Cargo.lock`, `yarn.lock`,
/// `package-lock.json`, `go.sum`, `Package.resolved`, any `*.lock`), an
/// Xcode project's data (`project.pbxproj`, schemes, anything below a
/// `.xcodeproj` or `.xcworkspace`), or a Kotlin public-API dump (`api/*.api`,
/// written by the binary-compatibility validator). They name every source
/// file, dependency or public declaration, so they matched the words of
/// many tasks: held-out Swift and Kotlin tasks (Alamofire, coil, okhttp)
/// had `project.pbxproj`, `yarn.lock` and `coil-core.api` in their top 5
/// above the source file the fix changed.
fn is_tool_output(rel: &str, file: &str) -> bool {
    let ext = file.rsplit_once('.').map_or("", |(_, e)| e);
    let dirs = rel.rsplit_once('/').map_or("", |(d, _)| d);
    LOCKFILES.contains(&file)
        || matches!(
            ext,
            "lock" | "pbxproj" | "xcscheme" | "xcworkspacedata" | "xcsettings"
        )
        || (ext == "api" && dirs.split('/').any(|d| d == "api"))
        || dirs
            .split('/')
            .any(|d| d.ends_with(".xcodeproj") || d.ends_with(".xcworkspace"))
}

/// A vendored copy of a JavaScript library: a `.js` file whose name carries
/// a version (`jquery-3.6.0.js`, `bootstrap.bundle-5.1.js`), or a large one
/// (over [`VENDORED_JS_BYTES`]) under `static/`, `assets/` or `public/`
/// beside the project's own code.
fn is_vendored_js(rel: &str, file: &str, len: usize) -> bool {
    let Some(stem) = file.strip_suffix(".js") else {
        return false;
    };
    let versioned = stem
        .split(['-', '.', '_'])
        .skip(1)
        .any(|p| p.bytes().next().is_some_and(|b| b.is_ascii_digit()));
    versioned
        || (len > VENDORED_JS_BYTES
            && rel
                .split('/')
                .any(|seg| matches!(seg, "static" | "assets" | "public")))
}

/// A single-file build of the project's own library committed beside its
/// sources (an amalgamation: Catch2's `extras/catch_amalgamated.hpp` and
/// `.cpp`, nlohmann/json's `single_include/`, simdjson's `singleheader/`):
/// a file over [`VENDORED_JS_BYTES`] whose name or directory says
/// "amalgamat…", or under a single-include directory. It holds every name
/// of the library again, so it matched every task as well as the source
/// file the fix changed: Catch2's amalgamation took two of the top 4 places
/// on each of dev-multilang's 6 first Catch2 tasks. The size keeps a small
/// `amalgamated.h` that only lists the headers to bundle (simdjson's, a fix
/// of which is a dev task) as source.
fn is_amalgamation(rel: &str, len: usize) -> bool {
    if len <= VENDORED_JS_BYTES {
        return false;
    }
    let (dirs, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    let says = |seg: &str| seg.to_ascii_lowercase().contains("amalgamat");
    says(file)
        || dirs.split('/').any(|d| {
            says(d)
                || [
                    "single_include",
                    "single-include",
                    "singleheader",
                    "single_header",
                ]
                .iter()
                .any(|n| d.eq_ignore_ascii_case(n))
        })
}

/// Bytes above which a `.js` file under `static/` is taken for a vendored
/// library (jQuery 3, not minified, is 280 KB; a project's own scripts there
/// are rarely a tenth of that).
const VENDORED_JS_BYTES: usize = 100_000;

/// A JavaScript or TypeScript tool's configuration, by the ecosystem's
/// naming convention: `<tool>.config.<ext>` or `<tool>.conf.<ext>`
/// (`rollup.config.js`, `vite.config.ts`, `karma.conf.cjs`,
/// `docusaurus.config.ts`) and the task runners' `gulpfile.js`,
/// `Gruntfile.js`, `Jakefile.js`. Code, but the build's and the tests'
/// settings, not the product: they weigh as "not source code", as
/// `build.gradle.kts` and `Cargo.toml` do. In the runs of 2026-12-07 they
/// held a top-10 place 9 times on the dev and held-out sets (axios's
/// `karma.conf.cjs` at rank 4 twice) and were a gold file of none of
/// their 1,436 tasks; the probe of that day found `rollup.config.js`
/// first (high) for "how does axios decide which adapter to use".
fn is_tool_config(file: &str) -> bool {
    let Some((stem, ext)) = file.rsplit_once('.') else {
        return false;
    };
    if !matches!(ext, "js" | "cjs" | "mjs" | "ts" | "cts" | "mts") {
        return false;
    }
    let task_runner = ["gulpfile", "gruntfile", "jakefile"]
        .iter()
        .any(|n| stem.eq_ignore_ascii_case(n));
    let config = stem.rsplit_once('.').is_some_and(|(tool, kind)| {
        !tool.is_empty() && !tool.contains('.') && matches!(kind, "config" | "conf")
    });
    task_runner || config
}

/// Whether the task names the file's stem as an identifier
/// (`FakeInvokedProcess` for `FakeInvokedProcess.php`).
fn names_stem(q: &TaskQuery, file: &str) -> bool {
    let stem = file.split_once('.').map_or(file, |(s, _)| s);
    q.identifiers.iter().any(|i| i == stem)
}

/// The prior of `c` (a multiplier of its evidence, and its label) for the
/// task `q`.
pub(super) fn prior(c: &Candidate, w: &Weights, q: &TaskQuery) -> (f64, &'static str) {
    let rel = c.rel;
    let file = rel.rsplit('/').next().unwrap_or(rel);
    if is_test_path(rel) {
        (w.test_prior, "test file")
    } else if is_test_double_path(rel) && !names_stem(q, file) {
        (w.test_prior, "test double (a fake or mock)")
    } else if is_notes_path(rel, file) {
        (w.notes_prior, "release notes, process document or man page")
    } else if is_tool_output(rel, file) {
        (
            w.aside_prior,
            "written by a tool (lockfile, Xcode project, API dump)",
        )
    } else if is_aside_path(rel)
        || !rel.contains('.')
        || is_docs_file(file)
        || is_vendored_js(rel, file, c.doc.len())
    {
        (w.aside_prior, "docs, examples or non-code")
    } else if is_amalgamation(rel, c.doc.len()) {
        (
            w.aside_prior,
            "a single-file build of the library (amalgamation)",
        )
    } else if c.doc.source_mapped {
        // A bundle committed beside its sources (Phoenix's
        // `priv/static/phoenix.mjs` holds every module of `assets/js/`):
        // it repeats their names, and fixes land in the sources.
        (w.aside_prior, "build output (links its source map)")
    } else if file == "__init__.py" || file == "mod.rs" || file == "lib.rs" {
        (w.init_prior, "package index file")
    } else if !crate::lang::is_code_path(rel) {
        (w.other_prior, "not source code")
    } else if is_tool_config(file) && !names_stem(q, file) {
        (w.other_prior, "a build or test tool's configuration")
    } else {
        (1.0, "")
    }
}

/// Whether the prior marks the file as not the product's source code
/// (tests, docs, examples, notes, vendored or other non-code files): such a
/// file is high tier only when the task names it.
pub(super) fn is_aside(c: &Candidate, w: &Weights, q: &TaskQuery) -> bool {
    let p = prior(c, w, q).0;
    p < 1.0 && p < w.init_prior
}

/// The prior pass: scales the evidence so far (raw and BM25) of tests,
/// docs, examples, index files and non-code by their prior.
#[derive(Debug, Clone, Copy, Default)]
pub struct Priors;

impl Pass for Priors {
    fn name(&self) -> &str {
        "priors"
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        for s in scored.iter_mut() {
            let prior = prior(&ctx.cands[s.idx], ctx.weights, ctx.query);
            if prior.0 < 1.0 {
                s.raw *= prior.0;
                s.lexical *= prior.0;
                s.prior = prior.0;
                s.prior_label = Some(prior.1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand_prior(rel: &str) -> f64 {
        task_prior(rel, "fix the bug")
    }

    fn task_prior(rel: &str, task: &str) -> f64 {
        prior_of(rel, "x = 1\n", task)
    }

    fn sized_prior(rel: &str, bytes: usize) -> f64 {
        prior_of(rel, &"int x;\n".repeat(bytes / 7 + 1), "fix the bug")
    }

    /// The prior of a file `rel` holding `text`, for `task`.
    fn prior_of(rel: &str, text: &str, task: &str) -> f64 {
        let doc = std::sync::Arc::new(crate::corpus::Doc::for_test(rel, text));
        let c = Candidate {
            rel,
            doc: &doc,
            allowed: true,
        };
        prior(&c, &Weights::default(), &TaskQuery::new(task, &[])).0
    }

    #[test]
    fn documentation_markup_weighs_as_docs_wherever_it_lies() {
        let w = Weights::default();
        for p in [
            "man/reframe.Rd",
            "vignettes/recoding-replacing.Rmd",
            "www/blog/2023-01-14-typescript-performance-lessons.mdx",
            "guide/getting-started.adoc",
            "src/README.MD",
            "lib/perlfunc.pod",
            "manual/index.texi",
            "src/index.mld",
        ] {
            assert_eq!(cand_prior(p), w.aside_prior, "{p}");
        }
        // The code beside them stays source; a name that only ends like
        // one (no extension but the name) is not documentation.
        assert_eq!(cand_prior("R/reframe.R"), 1.0);
        assert_eq!(cand_prior("src/mdx.ts"), 1.0);
        assert_ne!(cand_prior("config/.org"), w.aside_prior);
    }

    #[test]
    fn lockfiles_xcode_projects_and_api_dumps_weigh_as_docs() {
        let w = Weights::default();
        for p in [
            "Cargo.lock",
            "kotlin-js-store/yarn.lock",
            "package-lock.json",
            "go.sum",
            "Package.resolved",
            "Alamofire.xcodeproj/project.pbxproj",
            "App.xcworkspace/contents.xcworkspacedata",
            "coil-core/api/coil-core.api",
            "coil-core/api/jvm/coil-core.klib.api",
        ] {
            assert_eq!(cand_prior(p), w.aside_prior, "{p}");
        }
        // Manifests a person writes stay what they were: build scripts and
        // configuration are "not source code", a Swift manifest is source.
        for p in ["go.mod", "package.json", "Cargo.toml", "build.gradle.kts"] {
            assert_eq!(cand_prior(p), w.other_prior, "{p}");
        }
        assert_eq!(cand_prior("Package.swift"), 1.0);
        assert_eq!(cand_prior("src/api/client.api.ts"), 1.0);
    }

    #[test]
    fn a_javascript_tools_configuration_weighs_as_not_source_code() {
        let w = Weights::default();
        for p in [
            "rollup.config.js",
            "karma.conf.cjs",
            "www/docusaurus.config.ts",
            "extensions/vscode/webpack.config.js",
            "eslint.config.mjs",
            "gulpfile.js",
            "Gruntfile.js",
        ] {
            assert_eq!(cand_prior(p), w.other_prior, "{p}");
        }
        // The product's own modules named for configuration stay source.
        for p in [
            "lib/config/defaults.js",
            "src/config.ts",
            "lib/core/mergeConfig.js",
            "packages/vite/src/node/config.ts",
            "src/app.config.rs",
        ] {
            assert_eq!(cand_prior(p), 1.0, "{p}");
        }
    }

    #[test]
    fn a_single_file_build_of_the_library_weighs_as_docs_but_a_small_include_list_is_source() {
        let w = Weights::default();
        for p in [
            "extras/catch_amalgamated.hpp",
            "extras/catch_amalgamated.cpp",
            "single_include/nlohmann/json.hpp",
            "singleheader/simdjson.h",
            "amalgamation/sqlite3.c",
        ] {
            assert_eq!(sized_prior(p, 400_000), w.aside_prior, "{p}");
        }
        // The list of headers an amalgamation is built from, and sources
        // under a directory of that name's parent, stay source.
        assert_eq!(
            sized_prior("include/simdjson/generic/ondemand/amalgamated.h", 2_000),
            1.0
        );
        assert_eq!(sized_prior("src/catch2/catch_tostring.cpp", 400_000), 1.0);
        assert_eq!(sized_prior("src/singleheader.c", 400_000), 1.0);
    }

    #[test]
    fn test_doubles_beside_the_code_weigh_as_tests_unless_the_task_names_them() {
        let w = Weights::default();
        // Laravel keeps its fakes in `src/`: a task about "process fake
        // assertions" matched `FakeProcessResult.php` and the other doubles
        // above `Process/Factory.php`, which the fix changed.
        let task = "Support array commands in process fake assertions";
        for p in [
            "src/Illuminate/Process/FakeProcessResult.php",
            "src/Illuminate/Support/Testing/Fakes/NotificationFake.php",
            "internal/prompter/prompter_mock.go",
            "pkg/store/mock_store.go",
            "src/poetry/utils/env/mock_env.py",
            "lib/mocks/client.ts",
            "src/main/java/org/x/MockClock.java",
        ] {
            assert_eq!(task_prior(p, task), w.test_prior, "{p}");
        }
        // Named by the task, a double is what it is about.
        assert_eq!(
            task_prior(
                "src/Illuminate/Process/FakeInvokedProcess.php",
                "Add `stop()` and `ensureNotTimedOut()` to `FakeInvokedProcess`"
            ),
            1.0
        );
        // Near misses: words that only start or end like one, a stub that
        // is a code template's command, a bare `mock.py` (a mocking library).
        for p in [
            "src/Illuminate/Process/Factory.php",
            "src/Illuminate/Foundation/Console/StubPublishCommand.php",
            "src/unittest/mock.py",
            "src/faker.rs",
            "lib/mockingbird.js",
            "src/Fakes.md",
        ] {
            assert!(task_prior(p, task) > w.test_prior, "{p}");
        }
    }

    #[test]
    fn notes_vendored_libraries_playgrounds_and_scripts_weigh_less_than_source() {
        let w = Weights::default();
        let src = cand_prior("src/black/linegen.py");
        assert_eq!(src, 1.0);
        for p in [
            "CHANGELOG.md",
            "CONTRIBUTING.md",
            "www/unversioned/_contributing.mdx",
            "doc/bat.1",
            "flask/static/jquery-3.6.0.js",
            "playground/src/App.ts",
            "scripts/release.py",
            "src/pip/_vendor/urllib3/exceptions.py",
            "src/NUnitFramework/benchmarks/nunit.framework.benchmarks/Bench.cs",
        ] {
            assert!(cand_prior(p) < 1.0, "{p}");
        }
        // Release notes under a notes directory or with a version in the
        // name are notes too, whatever the file is called.
        for p in [
            "release-notes/VERSION-2.x",
            "release-notes/CREDITS-2.x",
            "changelogs/CHANGELOG-3.2.md",
            "changelog/change_make_allow_for_alignment_20260809.md",
            "newsfragments/1234.bugfix",
            "doc/whatsnew/v2.1.rst",
            // Instructions for coding agents are process documents too.
            "AGENTS.md",
            "CLAUDE.md",
            "crates/nu-cli/AGENTS.md",
            // A man page, and the template of one.
            "doc/bat.1",
            "assets/manual/bat.1.in",
        ] {
            assert!(cand_prior(p) <= w.notes_prior, "{p}");
        }
        // Not a version: a word after the name (`changes_view.py`), and
        // directories a project's code may take.
        assert_eq!(cand_prior("src/changes_view.py"), 1.0);
        assert_eq!(cand_prior("src/history/git.rs"), 1.0);
        assert_eq!(cand_prior("app/releases/models.py"), 1.0);
        // Release notes mention every feature: below other docs.
        assert!(cand_prior("CHANGELOG.md") < cand_prior("docs/usage.md"));
        // A partial of the contributing guide is a process document too.
        assert!(cand_prior("www/unversioned/_contributing.mdx") < cand_prior("www/guide.mdx"));
        assert!(w.notes_prior < w.aside_prior);
        assert_eq!(cand_prior("src/jquery_plugin.js"), 1.0);
        // A project's own small script under static/ is source.
        assert_eq!(cand_prior("app/static/js/widgets.js"), 1.0);
    }

    #[test]
    fn code_in_a_language_without_a_grammar_is_source_and_its_tests_are_tests() {
        let w = Weights::default();
        // A Clojure or Vue project's sources are its code, not data: they
        // must not weigh like its JSON and YAML (nor do Kotlin's, Swift's,
        // Elixir's or Haskell's, which have grammars now).
        for p in [
            "app/src/main/kotlin/com/acme/SessionStore.kt",
            "Sources/Alamofire/Core/Session.swift",
            "lib/phoenix/router.ex",
            "src/components/LoginForm.vue",
            "src/Main.GROOVY",
            "src/Data/Map/Internal.hs",
            "src/ring/middleware/params.clj",
        ] {
            assert_eq!(cand_prior(p), 1.0, "{p}");
        }
        for p in [
            "config/settings.json",
            "deploy/values.yaml",
            "scripts.sh",
            "Makefile",
        ] {
            assert!(cand_prior(p) <= w.other_prior, "{p}");
        }
        // Their test files by their runners' names, and a `.m`-less dotfile.
        for p in [
            "app/src/jvm/kotlin/SessionStoreTest.kt",
            "Sources/AlamofireTests/SessionTests.swift",
            "lib/phoenix/router_test.exs",
            "src/router_spec.lua",
            "src/RouterSpec.scala",
            "test/Data/MapSpec.hs",
            "src/RouterSpec.groovy",
        ] {
            assert!(cand_prior(p) <= w.test_prior, "{p}");
        }
        assert!(cand_prior(".m") <= w.other_prior);
    }

    #[test]
    fn a_bundle_of_the_projects_own_code_weighs_less_than_its_sources() {
        // axios commits `dist/` (one bundle per module format, each holding
        // every module of `lib/`): the bundles took the top places on
        // dev-multilang's axios tasks, whose fixes land in `lib/`.
        for p in [
            "dist/axios.js",
            "dist/esm/axios.js",
            "dist/browser/axios.cjs",
        ] {
            assert!(cand_prior(p) < 1.0, "{p}");
        }
        assert_eq!(cand_prior("lib/adapters/http.js"), 1.0);
        // Wherever it lies, a bundle's last line links its source map;
        // a bundler's own source only mentions one.
        let bundle = "var Phoenix = (() => {\n})();\n//# sourceMappingURL=phoenix.mjs.map\n\n";
        assert!(prior_of("priv/static/phoenix.mjs", bundle, "fix the bug") < 1.0);
        assert!(prior_of("web/phoenix.mjs", bundle, "fix the bug") < 1.0);
        let css = "a { color: red }\n/*# sourceMappingURL=app.css.map */\n";
        assert!(prior_of("web/app.js", css, "fix the bug") < 1.0);
        let plugin = "const s = `//# sourceMappingURL=${url}`;\nmodule.exports = s;\n";
        assert_eq!(
            prior_of("lib/SourceMapPlugin.js", plugin, "fix the bug"),
            1.0
        );
        assert_eq!(cand_prior("src/distance.py"), 1.0);
        assert_eq!(cand_prior("pkg/distributions/normal.py"), 1.0);
    }
}
