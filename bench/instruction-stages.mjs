#!/usr/bin/env node
/**
 * Instructions per delivery by stage (issue 42, item 1): splits the callgrind files that `bench/instructions.mjs
 * --keep DIR` keeps (one per build: the load between two dumps, every thread of serve) by the function each
 * instruction ran in, self cost (callgrind_annotate --inclusive=no), charged to the first stage whose pattern
 * matches the function's name. Native code is named (Ed25519's field arithmetic, SHA-256, zlib and brotli,
 * SQLite, V8's JSON parser, its collector and compilers, llhttp and libuv); JavaScript that V8 compiled is not
 * (valgrind sees addresses), so it and V8's builtins (the interpreter, inline caches) are one row: "JS and
 * builtins". Divided by the deliveries the file covers (`--deliveries`, as given to instructions.mjs).
 *
 *   node bench/instructions.mjs --reference DIR --payload reveal --keep /tmp/cg
 *   node bench/instruction-stages.mjs /tmp/cg --deliveries 300 --payload reveal
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatInteger } from './lib/stats.mjs';

/** Stages, first match wins on `file:function [object]`. */
const STAGES = [
  [
    'verify (Ed25519)',
    /\b(fe|ge|sc|x25519|ed25519|ED25519)_\w*|ossl_ed25519|sha512|EVP_DigestVerify|EVP_PKEY|ECX/,
  ],
  ['hash (SHA-256)', /sha256|SHA256/i],
  [
    'compress',
    /deflate|inflate|longest_match|\bslide\b|compress_block|fill_window|_tr_\w+|send_tree|build_tree|pqdownheap|gen_bitlen|gen_codes|adler32|crc32|Brotli|brotli|StoreCommands|CreateBackwardReferences|BuildHistograms|BuildAndStoreHuffmanTree/,
  ],
  ['commit (SQLite)', /sqlite3|better_sqlite3|Statement|fdatasync|fsync|pwrite|pread/],
  ['parse (JSON, UTF-8)', /JsonParser|Utf8Decoder|simdutf|Utf8|utf8|JsonStringifier|StringBuilder|CopyChars/],
  ['thread hops', /ValueSerializer|ValueDeserializer|MessagePort|worker::Message|SerializerContext/],
  [
    'gc',
    /IterateObjectCache|v8::internal::(Heap|Scavenger|Scavenge|MarkCompact|MinorMarkCompact|MarkingVisitor|Marking|Sweeper|Evacuat|ConcurrentMarking|IncrementalMarking|MemoryAllocator|PagedSpace|NewSpace|SemiSpace|LargeObjectSpace|GCTracer|LocalHeap|RecordMigratedSlot|MemoryChunk|Page|SlotSet|RememberedSet|MainMarkingVisitor|ObjectStatsCollector|FreeList|ArrayBufferSweeper|Mark)/,
  ],
  [
    'compile (V8 JIT)',
    /v8::internal::(compiler|maglev|baseline|interpreter::BytecodeGenerator|Parser|Scanner|Compiler|AstNode|Zone|Bytecode)|Turbofan|turboshaft/,
  ],
  ['copies (memcpy, memset)', /memcpy|memmove|memset|__memcpy|__memset|__memmove/],
  [
    'read and answer (HTTP, libuv, sockets)',
    /llhttp|uv_|epoll|\bread\b|\bwrite\b|writev|readv|StreamBase|TCPWrap|LibuvStreamWrap|http_parser|Parser::/,
  ],
  ['JS and builtins', /\?\?\?:0x[0-9a-f]+ \[\?\?\?\]|Builtins_|Runtime_|v8::internal::Runtime/],
];

/** Frames that only wrap others (their "self" figure in a dump taken mid-run is the whole thread's). */
const WRAPPERS =
  /clone\.S:clone|start_thread|SpinEventLoopInternal|Worker::Run|Worker::StartThread|libc_start|below main|:main \[|NodeMainInstance::Run|node::Start\(|ld-linux/;

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    deliveries: { type: 'string', default: '300' },
    payload: { type: 'string', default: 'reveal' },
  },
});
const dir = positionals[0];
if (dir === undefined || !existsSync(dir)) {
  console.error('usage: node bench/instruction-stages.mjs DIR [--deliveries N] [--payload reveal|page]');
  process.exit(2);
}
const deliveries = Number(flags.deliveries);

/** Self instructions by stage in one callgrind file. */
function stagesOf(file) {
  const text = execFileSync('callgrind_annotate', ['--threshold=100', '--inclusive=no', '--auto=no', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const totals = new Map([...STAGES.map(([name]) => [name, 0]), ['other', 0]]);
  let all = 0;
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const [, count, name] = match;
    if (name === 'PROGRAM TOTALS' || WRAPPERS.test(name)) continue;
    const instructions = Number(count.replaceAll(',', ''));
    const stage = STAGES.find(([, pattern]) => pattern.test(name))?.[0] ?? 'other';
    totals.set(stage, totals.get(stage) + instructions);
    all += instructions;
  }
  return { totals, all };
}

const files = readdirSync(dir)
  .filter((name) => name.endsWith(`.${flags.payload}.callgrind`))
  .sort()
  .reverse();
const rows = files.map((name) => ({ build: name.split('.')[0], ...stagesOf(join(dir, name)) }));
const names = [...STAGES.map(([name]) => name), 'other'];
const lines = [
  `| ${flags.payload}: thousand instructions per delivery | ${rows.map((r) => r.build).join(' | ')} |`,
  `|---|${rows.map(() => '---:').join('|')}|`,
];
for (const name of names) {
  lines.push(
    `| ${name} | ${rows.map((r) => formatInteger(r.totals.get(name) / deliveries / 1000)).join(' | ')} |`,
  );
}
lines.push(`| **all** | ${rows.map((r) => `**${formatInteger(r.all / deliveries / 1000)}**`).join(' | ')} |`);
console.log(lines.join('\n'));
