#!/usr/bin/env node
/**
 * Summarizes V8 CPU profiles (`--cpu-prof`, e.g. from `node bench/receiver.mjs --cpu-prof DIR`): per
 * profile (one per thread: serve's main thread, its store worker), the busy time, then the functions and
 * the source files with the most self time, and the inclusive time of every function whose name matches
 * --focus. When bench/receiver.mjs wrote `<pid>.window.json` beside a profile, only the samples of the
 * timed window count (start-up and warm-up left out) and times are also shown per request answered in it
 * (--per N overrides that count), so two builds' profiles compare per request.
 *
 *   node bench/profile-summary.mjs DIR_OR_FILES… [--top 25] [--per 8145] [--focus 'prepareJob|encode']
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    per: { type: 'string' },
    focus: { type: 'string' },
  },
});
const top = Number(flags.top);
const perFlag = flags.per === undefined ? undefined : Number(flags.per);
const focus = flags.focus === undefined ? undefined : new RegExp(flags.focus);

const files = positionals.flatMap((path) =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith('.cpuprofile'))
        .sort()
        .map((name) => join(path, name))
    : [path],
);
for (const file of files) summarize(file);

function summarize(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile
  const pid = basename(file).split('.')[3];
  const windowFile = join(dirname(file), `${pid}.window.json`);
  const window = existsSync(windowFile) ? JSON.parse(readFileSync(windowFile, 'utf8')) : undefined;
  const per = perFlag ?? window?.completed;
  const [fromUs, toUs] = window?.windowUs ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // Self time per node: each sample is charged its time delta.
  const self = new Map();
  let at = profile.startTime;
  let totalUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < fromUs || at > toUs) continue;
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + delta);
    totalUs += delta;
  }
  let idleUs = 0;
  const byFunction = new Map();
  const byFile = new Map();
  const inclusive = new Map();
  for (const [id, us] of self) {
    const node = byId.get(id);
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') {
      if (functionName === '(idle)') idleUs += us;
    }
    const where = shortUrl(url);
    const key = `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const fileKey = where || functionName;
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
    if (focus) {
      // Charge this sample's time once to every distinct matching function on its stack.
      const seen = new Set();
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at).callFrame;
        const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}`;
        if (focus.test(name) && !seen.has(name)) {
          seen.add(name);
          inclusive.set(name, (inclusive.get(name) ?? 0) + us);
        }
      }
    }
  }
  const busyUs = totalUs - idleUs;
  const ms = (us) => (us / 1000).toFixed(1).padStart(8);
  const perReq = (us) => (per ? `${(us / per).toFixed(1).padStart(7)} µs/req` : '');
  console.log(
    `\n=== ${basename(file)}${window ? ` (${window.variant}, timed window, ${per} answers)` : ''}: ` +
      `${ms(totalUs)} ms profiled, busy ${ms(busyUs)} ms ${perReq(busyUs)}`,
  );
  console.log('--- self time by function');
  for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms(us)} ms ${perReq(us)}  ${key}`);
  }
  console.log('--- self time by file');
  for (const [key, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms(us)} ms ${perReq(us)}  ${key}`);
  }
  if (focus) {
    console.log(`--- inclusive time of functions matching ${focus}`);
    for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1])) {
      console.log(`${ms(us)} ms ${perReq(us)}  ${key}`);
    }
  }
}

function shortUrl(url) {
  if (!url) return '';
  const dist = url.lastIndexOf('/dist/');
  if (dist !== -1) return url.slice(dist + 6);
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) return url.slice(modules + 14);
  return url.replace(/^file:\/\//, '').replace(/^node:/, 'node:');
}
