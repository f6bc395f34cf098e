/**
 * bench/RESULTS.md, rewritten section by section: each benchmark owns the text between its markers, so a
 * run of one benchmark replaces its own section and leaves the others as they were.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const PREAMBLE = `# Benchmark results

Written by \`bench/run.mjs\` (\`npm run build && npm run bench\`, or \`npm run bench -- --quick\` for a short pass;
\`--only receiver,startup\` runs some). Each section below is replaced when its benchmark runs again and
says which command produced it, when, and on what machine. Benchmarks run against the built package (dist/).

The reference machine has 2 cores: the load generator (autocannon, its own process) and the server under
test (its own process) share them, and so do any other processes running at the time: the 1-minute load
average printed with each table shows how busy the machine was. Compare rows of one table (same run,
alternating rounds), not figures across tables or machines.
`;

/** Replaces (or appends) the section `name` of the results file with `body`. */
export function writeResultsSection(file, name, body) {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const section = `${start}\n${body.trim()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : PREAMBLE;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from >= 0 && to > from) {
    text = `${text.slice(0, from)}${section}${text.slice(to + end.length)}`;
  } else {
    text = `${text.trimEnd()}\n\n${section}\n`;
  }
  writeFileSync(file, text);
}
