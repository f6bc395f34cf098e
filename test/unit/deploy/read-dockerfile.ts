/**
 * Reads a Dockerfile into its instructions (continuation lines joined, comments dropped), each tagged with
 * the index of its build stage, for the deployment consistency test.
 */

/** One instruction. */
export interface DockerInstruction {
  /** Upper-case keyword: FROM, RUN, COPY, ENV, ... */
  readonly keyword: string;
  /** Everything after the keyword, continuation lines joined by spaces. */
  readonly args: string;
  /** 0 for the first FROM's stage, 1 for the second, ... */
  readonly stage: number;
}

/** Splits `text` into instructions. */
export function readDockerfile(text: string): DockerInstruction[] {
  const instructions: DockerInstruction[] = [];
  let pending = '';
  let stage = -1;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (pending !== '' && line.startsWith('#')) continue;
    const continued = line.endsWith('\\');
    pending += `${pending === '' ? '' : ' '}${continued ? line.slice(0, -1).trim() : line}`;
    if (continued) continue;
    const match = /^([A-Za-z]+)\s+([\s\S]*)$/.exec(pending);
    if (match === null) throw new SyntaxError(`not an instruction: ${pending}`);
    const keyword = (match[1] ?? '').toUpperCase();
    if (keyword === 'FROM') stage++;
    instructions.push({ keyword, args: (match[2] ?? '').trim(), stage });
    pending = '';
  }
  if (pending !== '') throw new SyntaxError('the Dockerfile ends inside a continued line');
  return instructions;
}

/** `KEY=value` pairs of an ENV instruction (the `ENV KEY=value KEY2="v 2"` form). */
export function readEnvPairs(args: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const value = match[2] ?? '';
    pairs[match[1] ?? ''] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
  }
  return pairs;
}
