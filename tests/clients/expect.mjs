// Assertion helper for inspector.sh:
//
//   node expect.mjs FILE DESCRIPTION EXPRESSION
//
// Parses FILE as JSON, evaluates EXPRESSION with `r` bound to it, and exits 1
// printing DESCRIPTION and an excerpt of the JSON when the result is falsy, the
// expression throws, or FILE is not JSON.
import { readFileSync } from "node:fs";

const [file, description, expression] = process.argv.slice(2);
if (!expression) {
  console.error("usage: node expect.mjs FILE DESCRIPTION EXPRESSION");
  process.exit(2);
}
const raw = readFileSync(file, "utf8");
let ok = false;
let why = "";
try {
  const r = JSON.parse(raw);
  ok = Boolean(new Function("r", `return (${expression});`)(r));
} catch (e) {
  why = ` (${e.name}: ${e.message})`;
}
if (!ok) {
  console.error(`expected: ${description}${why}`);
  console.error(`  check: ${expression}`);
  console.error(`  got:   ${raw.slice(0, 2000)}`);
  process.exit(1);
}
