/**
 * A vitest reporter that closes the run with why tests were skipped: each reason with its count, read from
 * the note of `ctx.skip(note)` or the "(skipped: …)" a suite title carries (pgSuiteName, chromiumSuiteName).
 * The default reporter only counts them.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** What a skipped test's name or note says about why; undefined when it says nothing. */
export function skipReason(fullName: string, note: string | undefined): string | undefined {
  if (note !== undefined && note.trim() !== '') return note.trim();
  return /\(skipped: ([^)]*)\)/.exec(fullName)?.[1];
}

/** Reasons with their counts, most frequent first; tests skipped without one count as "no reason given". */
export function summarizeSkips(
  skipped: readonly { fullName: string; note?: string | undefined }[],
): string[] {
  const counts = new Map<string, number>();
  for (const test of skipped) {
    const reason = skipReason(test.fullName, test.note) ?? 'no reason given';
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, count]) => `${String(count).padStart(5)} skipped: ${reason}`);
}

export default class SkipReasonsReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped: { fullName: string; note?: string | undefined }[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'skipped') skipped.push({ fullName: test.fullName, note: result.note });
      }
    }
    const lines = summarizeSkips(skipped);
    if (lines.length === 0) return;
    const log = (line: string) => (this.#vitest ? this.#vitest.logger.log(line) : console.log(line));
    log('Skipped tests, and why:');
    for (const line of lines) log(line);
  }
}
