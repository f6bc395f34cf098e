#!/usr/bin/env node
/**
 * Where a delivery's time goes, by stage (issue 42): reads the V8 CPU profiles that `bench/receiver.mjs
 * --cpu-prof DIR` writes (one per thread of each hooksync server: the request thread, the store worker)
 * and charges every sample of the timed window to the innermost frame of its stack that belongs to a stage:
 * read (the socket and the body), verify (the token: header, key, Ed25519), hash (the body's SHA-256),
 * parse (the envelope's JSON and its schema), normalize (rows derived from it), compress (the envelope's
 * codec), commit (SQL, SQLite, the group commit), thread hops (messages between threads, their copies),
 * answer (the response), gc, and the rest (HTTP parsing, timers, the event loop; `other`). Times per
 * delivery answered in the window (`<pid>.window.json`).
 *
 *   node bench/receiver.mjs --payloads reveal --variants hooksync --cpu-prof DIR && node bench/stage-profile.mjs DIR
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Stages, first match wins on a frame (`name url`); a sample goes to the innermost frame that matches. */
const STAGES = [
  [
    'thread hops',
    /postMessage|structuredClone|worker-job-store|store-worker|prepareJobForWorker|encodeJob|MessagePort|onMessage \S*worker/,
  ],
  ['compress', /envelope-codec|envelope-dictionary|zlib|deflate|zstd|brotli|compress/i],
  ['normalize', /normaliz|person-texts|normalize-values|write-normalized-rows/i],
  ['hash', /body-hash|bodyHash|createHash|digest|sha256|Hash\b/],
  ['verify', /webhooks\/|jose|verifyToken|verify-token|Ed25519|ed25519|subtle|webcrypto|\bverify\b/],
  [
    'parse',
    /lossless-json|JSON\.parse|\bparse\b \S*contract|contract\/|zod|detectJobKind|job-kind|prepare-job/,
  ],
  [
    'commit',
    /job-store|kysely|better-sqlite3|sqlite|write-jobs|record-outbox|update-ledger|group-committer|row-runner|transaction/i,
  ],
  ['answer', /delivery-answer|writeHead|_http_outgoing|\bend\b node:_http|send \S*express|json \S*express/],
  [
    'read',
    /read-body|_stream_readable|readable|onStreamRead|socketOnData|create-body-budget|handle-delivery|receive-signed/,
  ],
  ['gc', /\(garbage collector\)/],
];

const THREAD_NAMES = { 0: 'main thread', 1: "serve's thread (requests)", 2: 'store worker' };

const dir = process.argv[2];
if (dir === undefined) {
  console.error('usage: node bench/stage-profile.mjs DIR (from bench/receiver.mjs --cpu-prof DIR)');
  process.exit(2);
}
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.cpuprofile'))
  .sort();
const byPid = new Map();
for (const name of files) {
  const pid = basename(name).split('.')[3];
  if (!byPid.has(pid)) byPid.set(pid, []);
  byPid.get(pid).push(join(dir, name));
}
for (const [pid, profiles] of byPid) {
  const windowFile = join(dir, `${pid}.window.json`);
  const window = existsSync(windowFile) ? JSON.parse(readFileSync(windowFile, 'utf8')) : undefined;
  const per = window?.completed ?? 1;
  const [fromUs, toUs] = window?.windowUs ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  const totals = new Map();
  for (const file of profiles) {
    const profile = JSON.parse(readFileSync(file, 'utf8'));
    // Threads by the order they started: in serve, 0 the process's main thread, 1 serve's (the requests),
    // 2 the store worker.
    const index = basename(file).split('.')[4];
    const thread = THREAD_NAMES[index] ?? `thread ${index}`;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const stageOf = new Map();
    const classify = (id) => {
      if (stageOf.has(id)) return stageOf.get(id);
      const { functionName, url } = byId.get(id).callFrame;
      if (functionName === '(idle)') return 'idle';
      const label = `${functionName} ${url}`;
      let stage = STAGES.find(([, pattern]) => pattern.test(label))?.[0];
      if (stage === undefined) stage = parent.has(id) ? classify(parent.get(id)) : 'other';
      stageOf.set(id, stage);
      return stage;
    };
    const row = totals.get(thread) ?? new Map();
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i] ?? 0;
      if (at < fromUs || at > toUs) continue;
      const stage = classify(profile.samples[i]);
      row.set(stage, (row.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
    }
    totals.set(thread, row);
  }
  const names = [...STAGES.map(([name]) => name), 'other'];
  console.log(
    `\n${window?.variant ?? 'server'} (pid ${pid}): µs of CPU per delivery answered (${per} in the window), by stage`,
  );
  console.log(`| thread | ${names.join(' | ')} | busy |`);
  console.log(`|---|${names.map(() => '---:').join('|')}|---:|`);
  for (const [thread, row] of totals) {
    const busy = [...row].filter(([stage]) => stage !== 'idle').reduce((sum, [, us]) => sum + us, 0);
    const cell = (stage) => ((row.get(stage) ?? 0) / per).toFixed(0);
    console.log(`| ${thread} | ${names.map(cell).join(' | ')} | ${(busy / per).toFixed(0)} |`);
  }
}
