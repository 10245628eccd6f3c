//! Every row of the language table pulls its weight in ranking: in a tiny tree
//! where one file *defines* a function and two others only call it (more often
//! than the defining file mentions it), `retrieve` ranks the defining file
//! first. Lexically the callers win, so only the tags query's definition can
//! put the defining file on top.

use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::CallOptions;

/// Writes `files` (path, text) into a temporary tree, asks for the bug in
/// `ident` and checks that `defining` comes first.
fn defining_file_ranks_first(ident: &str, defining: &str, files: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    // The setup is what makes the test meaningful: callers mention `ident` more.
    let count = |p: &str| {
        files
            .iter()
            .find(|(f, _)| *f == p)
            .unwrap()
            .1
            .matches(ident)
            .count()
    };
    for (path, _) in files.iter().filter(|(f, _)| *f != defining) {
        assert!(count(path) > count(defining) || count(path) <= 1, "{path}");
    }
    let out = Engine::new(EngineOptions::default())
        .retrieve(
            RetrieveParams {
                task: format!("fix the bug in {ident}"),
                root: Some(dir.path().to_string_lossy().into()),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    let ranking: Vec<(&str, f64, &[String])> = out
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.relevance, f.reasons.as_slice()))
        .collect();
    assert_eq!(
        out.files.first().map(|f| f.path.as_str()),
        Some(defining),
        "{ranking:#?}"
    );
}

#[test]
fn python_defining_file_ranks_first() {
    defining_file_ranks_first(
        "compute_zebra_checksum",
        "billing/ledger.py",
        &[
            (
                "billing/ledger.py",
                "import zlib\n\nSEED = 7\n\n\ndef compute_zebra_checksum(rows):\n    total = SEED\n    for row in rows:\n        total = zlib.crc32(row, total)\n    return total\n",
            ),
            (
                "billing/report.py",
                "from billing.ledger import compute_zebra_checksum\n\n\ndef summary(rows):\n    a = compute_zebra_checksum(rows)\n    b = compute_zebra_checksum(rows[1:])\n    return a ^ b\n",
            ),
            (
                "billing/audit.py",
                "from billing import ledger\n\n\ndef audit(rows):\n    if ledger.compute_zebra_checksum(rows) != ledger.compute_zebra_checksum(rows[::-1]):\n        return ledger.compute_zebra_checksum(rows)\n    return 0\n",
            ),
        ],
    );
}

#[test]
fn rust_defining_file_ranks_first() {
    defining_file_ranks_first(
        "compute_zebra_checksum",
        "src/ledger.rs",
        &[
            (
                "src/ledger.rs",
                "const SEED: u32 = 7;\n\npub fn compute_zebra_checksum(rows: &[u32]) -> u32 {\n    rows.iter().fold(SEED, |acc, r| acc.rotate_left(5) ^ r)\n}\n",
            ),
            (
                "src/report.rs",
                "use crate::ledger::compute_zebra_checksum;\n\npub fn summary(rows: &[u32]) -> u32 {\n    compute_zebra_checksum(rows) ^ compute_zebra_checksum(&rows[1..])\n}\n",
            ),
            (
                "src/audit.rs",
                "use crate::ledger;\n\npub fn audit(rows: &[u32]) -> u32 {\n    if ledger::compute_zebra_checksum(rows) == 0 {\n        return ledger::compute_zebra_checksum(&rows[1..]);\n    }\n    ledger::compute_zebra_checksum(rows)\n}\n",
            ),
        ],
    );
}

/// JavaScript, TypeScript and TSX share the module layout; `ext` picks the row.
fn ecmascript_tree(ext: &str, typed: bool) -> Vec<(String, String)> {
    let ann = |t: &str| {
        if typed {
            format!(": {t}")
        } else {
            String::new()
        }
    };
    vec![
        (
            format!("lib/ledger.{ext}"),
            format!(
                "const SEED = 7;\n\nexport function computeZebraChecksum(rows{rows}){ret} {{\n  return rows.reduce((acc, r) => (acc * 31) ^ r, SEED);\n}}\n",
                rows = ann("number[]"),
                ret = ann("number")
            ),
        ),
        (
            format!("app/report.{ext}"),
            format!(
                "import {{ computeZebraChecksum }} from \"../lib/ledger\";\n\nexport function summary(rows{rows}) {{\n  return computeZebraChecksum(rows) ^ computeZebraChecksum(rows.slice(1));\n}}\n",
                rows = ann("number[]")
            ),
        ),
        (
            format!("app/audit.{ext}"),
            format!(
                "import * as ledger from \"../lib/ledger\";\n\nexport function audit(rows{rows}) {{\n  if (ledger.computeZebraChecksum(rows) === 0) {{\n    return ledger.computeZebraChecksum(rows.slice(1));\n  }}\n  return ledger.computeZebraChecksum(rows);\n}}\n",
                rows = ann("number[]")
            ),
        ),
    ]
}

fn ecmascript_defining_file_ranks_first(ext: &str, typed: bool) {
    let tree = ecmascript_tree(ext, typed);
    let files: Vec<(&str, &str)> = tree.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    defining_file_ranks_first("computeZebraChecksum", files[0].0, &files);
}

#[test]
fn javascript_defining_file_ranks_first() {
    ecmascript_defining_file_ranks_first("js", false);
}

#[test]
fn typescript_defining_file_ranks_first() {
    ecmascript_defining_file_ranks_first("ts", true);
}

#[test]
fn tsx_defining_file_ranks_first() {
    ecmascript_defining_file_ranks_first("tsx", true);
}

#[test]
fn go_defining_file_ranks_first() {
    defining_file_ranks_first(
        "ComputeZebraChecksum",
        "ledger/ledger.go",
        &[
            (
                "ledger/ledger.go",
                "package ledger\n\nconst seed = 7\n\nfunc ComputeZebraChecksum(rows []uint32) uint32 {\n\ttotal := uint32(seed)\n\tfor _, r := range rows {\n\t\ttotal = total*31 ^ r\n\t}\n\treturn total\n}\n",
            ),
            (
                "report/report.go",
                "package report\n\nimport \"example.com/app/ledger\"\n\nfunc Summary(rows []uint32) uint32 {\n\treturn ledger.ComputeZebraChecksum(rows) ^ ledger.ComputeZebraChecksum(rows[1:])\n}\n",
            ),
            (
                "audit/audit.go",
                "package audit\n\nimport \"example.com/app/ledger\"\n\nfunc Audit(rows []uint32) uint32 {\n\tif ledger.ComputeZebraChecksum(rows) == 0 {\n\t\treturn ledger.ComputeZebraChecksum(rows[1:])\n\t}\n\treturn ledger.ComputeZebraChecksum(rows)\n}\n",
            ),
        ],
    );
}

#[test]
fn java_defining_file_ranks_first() {
    defining_file_ranks_first(
        "computeZebraChecksum",
        "src/main/java/app/Ledger.java",
        &[
            (
                "src/main/java/app/Ledger.java",
                "package app;\n\npublic final class Ledger {\n    static final int SEED = 7;\n\n    public static int computeZebraChecksum(int[] rows) {\n        int total = SEED;\n        for (int r : rows) {\n            total = total * 31 ^ r;\n        }\n        return total;\n    }\n}\n",
            ),
            (
                "src/main/java/app/Report.java",
                "package app;\n\nimport static app.Ledger.computeZebraChecksum;\n\npublic class Report {\n    public int summary(int[] rows) {\n        return computeZebraChecksum(rows) ^ computeZebraChecksum(new int[0]);\n    }\n}\n",
            ),
            (
                "src/main/java/app/Audit.java",
                "package app;\n\npublic class Audit {\n    public int audit(int[] rows) {\n        if (Ledger.computeZebraChecksum(rows) == 0) {\n            return Ledger.computeZebraChecksum(new int[0]);\n        }\n        return Ledger.computeZebraChecksum(rows);\n    }\n}\n",
            ),
        ],
    );
}

#[test]
fn c_defining_file_ranks_first() {
    // The header's prototype mentions the name as often as the definition does;
    // only a definition (a body) counts.
    defining_file_ranks_first(
        "compute_zebra_checksum",
        "src/ledger.c",
        &[
            (
                "src/ledger.c",
                "#include \"ledger.h\"\n\n#define SEED 7u\n\nunsigned compute_zebra_checksum(const unsigned *rows, int n) {\n    unsigned total = SEED;\n    for (int i = 0; i < n; i++) {\n        total = total * 31u ^ rows[i];\n    }\n    return total;\n}\n",
            ),
            (
                "src/ledger.h",
                "#ifndef LEDGER_H\n#define LEDGER_H\nunsigned compute_zebra_checksum(const unsigned *rows, int n);\n#endif\n",
            ),
            (
                "src/report.c",
                "#include \"ledger.h\"\n\nunsigned summary(const unsigned *rows, int n) {\n    return compute_zebra_checksum(rows, n) ^ compute_zebra_checksum(rows + 1, n - 1);\n}\n",
            ),
            (
                "src/audit.c",
                "#include \"ledger.h\"\n\nunsigned audit(const unsigned *rows, int n) {\n    if (compute_zebra_checksum(rows, n) == 0) {\n        return compute_zebra_checksum(rows + 1, n - 1);\n    }\n    return compute_zebra_checksum(rows, n);\n}\n",
            ),
        ],
    );
}

#[test]
fn cpp_defining_file_ranks_first() {
    // Defined out of its class (`Ledger::computeZebraChecksum`); the header
    // only declares it.
    defining_file_ranks_first(
        "computeZebraChecksum",
        "src/ledger.cpp",
        &[
            (
                "src/ledger.cpp",
                "#include \"ledger.hpp\"\n\nconstexpr unsigned kSeed = 7;\n\nunsigned Ledger::computeZebraChecksum(const std::vector<unsigned>& rows) const {\n    unsigned total = kSeed;\n    for (unsigned r : rows) total = total * 31u ^ r;\n    return total;\n}\n",
            ),
            (
                "src/ledger.hpp",
                "#pragma once\n#include <vector>\n\nclass Ledger {\n public:\n  unsigned computeZebraChecksum(const std::vector<unsigned>& rows) const;\n};\n",
            ),
            (
                "src/report.cpp",
                "#include \"ledger.hpp\"\n\nunsigned summary(const Ledger& ledger, const std::vector<unsigned>& rows) {\n    return ledger.computeZebraChecksum(rows) ^ ledger.computeZebraChecksum({});\n}\n",
            ),
            (
                "src/audit.cpp",
                "#include \"ledger.hpp\"\n\nunsigned audit(const Ledger& ledger, const std::vector<unsigned>& rows) {\n    if (ledger.computeZebraChecksum(rows) == 0) {\n        return ledger.computeZebraChecksum({});\n    }\n    return ledger.computeZebraChecksum(rows);\n}\n",
            ),
        ],
    );
}

#[test]
fn cpp_inline_implementation_file_ranks_first() {
    // A header-only library: the header declares the template, the `.inl`
    // it includes (glm's layout; Boost's and asio's `.ipp`) defines it.
    defining_file_ranks_first(
        "clampZebraRange",
        "glm/detail/func_common.inl",
        &[
            (
                "glm/detail/func_common.inl",
                "namespace glm {\n\ttemplate<typename T>\n\tinline T clampZebraRange(T x, T lo, T hi) {\n\t\treturn x < lo ? lo : (hi < x ? hi : x);\n\t}\n}\n",
            ),
            (
                "glm/common.hpp",
                "#pragma once\nnamespace glm {\n\ttemplate<typename T>\n\tT clampZebraRange(T x, T lo, T hi);\n}\n#include \"detail/func_common.inl\"\n",
            ),
            (
                "src/report.cpp",
                "#include \"glm/common.hpp\"\n\nfloat summary(float a) {\n    return glm::clampZebraRange(a, 0.f, 1.f) + glm::clampZebraRange(a, 1.f, 2.f);\n}\n",
            ),
            (
                "src/audit.cpp",
                "#include \"glm/common.hpp\"\n\nint audit(int a) {\n    if (glm::clampZebraRange(a, 0, 9) == 0) {\n        return glm::clampZebraRange(a, 1, 2);\n    }\n    return glm::clampZebraRange(a, 2, 3);\n}\n",
            ),
        ],
    );
}

#[test]
fn csharp_defining_file_ranks_first() {
    defining_file_ranks_first(
        "ComputeZebraChecksum",
        "App/Ledger.cs",
        &[
            (
                "App/Ledger.cs",
                "namespace App;\n\npublic static class Ledger\n{\n    public const uint Seed = 7;\n\n    public static uint ComputeZebraChecksum(uint[] rows)\n    {\n        uint total = Seed;\n        foreach (var r in rows) total = total * 31 ^ r;\n        return total;\n    }\n}\n",
            ),
            (
                "App/Report.cs",
                "namespace App;\n\npublic class Report\n{\n    public uint Summary(uint[] rows) =>\n        Ledger.ComputeZebraChecksum(rows) ^ Ledger.ComputeZebraChecksum(rows[1..]);\n}\n",
            ),
            (
                "App/Audit.cs",
                "namespace App;\n\npublic class Audit\n{\n    public uint Check(uint[] rows)\n    {\n        if (Ledger.ComputeZebraChecksum(rows) == 0)\n            return Ledger.ComputeZebraChecksum(rows[1..]);\n        return Ledger.ComputeZebraChecksum(rows);\n    }\n}\n",
            ),
        ],
    );
}

#[test]
fn ruby_defining_file_ranks_first() {
    defining_file_ranks_first(
        "compute_zebra_checksum",
        "lib/ledger.rb",
        &[
            (
                "lib/ledger.rb",
                "module Ledger\n  SEED = 7\n\n  def self.compute_zebra_checksum(rows)\n    rows.reduce(SEED) { |acc, r| (acc * 31) ^ r }\n  end\nend\n",
            ),
            (
                "lib/report.rb",
                "require_relative 'ledger'\n\ndef summary(rows)\n  Ledger.compute_zebra_checksum(rows) ^ Ledger.compute_zebra_checksum(rows.drop(1))\nend\n",
            ),
            (
                "lib/audit.rb",
                "require_relative 'ledger'\n\ndef audit(rows)\n  return Ledger.compute_zebra_checksum(rows.drop(1)) if Ledger.compute_zebra_checksum(rows).zero?\n\n  Ledger.compute_zebra_checksum(rows)\nend\n",
            ),
        ],
    );
}

#[test]
fn php_defining_file_ranks_first() {
    defining_file_ranks_first(
        "computeZebraChecksum",
        "src/Ledger.php",
        &[
            (
                "src/Ledger.php",
                "<?php\nnamespace App;\n\nclass Ledger\n{\n    const SEED = 7;\n\n    public function computeZebraChecksum(array $rows): int\n    {\n        $total = self::SEED;\n        foreach ($rows as $r) {\n            $total = ($total * 31) ^ $r;\n        }\n        return $total;\n    }\n}\n",
            ),
            (
                "src/Report.php",
                "<?php\nnamespace App;\n\nfunction summary(Ledger $ledger, array $rows): int\n{\n    return $ledger->computeZebraChecksum($rows) ^ $ledger->computeZebraChecksum(array_slice($rows, 1));\n}\n",
            ),
            (
                "src/Audit.php",
                "<?php\nnamespace App;\n\nfunction audit(Ledger $ledger, array $rows): int\n{\n    if ($ledger->computeZebraChecksum($rows) === 0) {\n        return $ledger->computeZebraChecksum(array_slice($rows, 1));\n    }\n    return $ledger->computeZebraChecksum($rows);\n}\n",
            ),
        ],
    );
}
