#!/usr/bin/env node
/**
 * What a delivery refused before its body is read costs the server, by how the connection is left (issue
 * 29): a stand-in node:http server that answers every POST 429 + Retry-After on the next turn (as the
 * receiver does once the token is checked), in a child process of its own, one policy at a time:
 *
 *   drain      `Connection: close`, request.read(0) + pause, half-close, destroy 2 s later or when the
 *              sender closes (the receiver before this bench: node:http still reads the rest of the body
 *              and drops it, since read(0) does not count as consuming once a chunk is buffered)
 *   stop       `Connection: close`, the receiver's own lingerWithoutReading (loaded from the build's dist/):
 *              the socket stops reading (request.read(), then socket.pause() after node:http's next-tick
 *              resume), half-close, destroy 2 s later, at most 128 lingering (the receiver now)
 *   keepalive  no `Connection: close`: node:http reads and drops the body, the connection is kept
 *   reset      `Connection: close`, destroyed once the answer is written (a reset while the sender sends)
 *
 * and three senders: Node's fetch posting 20 bodies of 16 MiB one after another (does the sender read the
 * 429?), autocannon (50 connections, 520 KB bodies, 8 s: what bench/receiver.mjs does), and the service's
 * retrying sender (50 deliveries of 520 KB in flight with fetch, each retried 1 s after a 429, 8 s).
 *
 *   npm run build && node bench/refusal-modes.mjs [--modes drain,stop,keepalive,reset]
 *     [--senders fetch-large,autocannon,retrying] [--dist DIR (a build to measure instead of this tree's dist/)]
 *
 * Prints a markdown table: what the senders saw, and the server's peaks (RSS, array buffers, sockets open,
 * and the bytes the kernel holds unread in the server's sockets, sampled with `ss -tm` every 250 ms).
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

if (process.argv[2] === '--serve') await serve(process.argv[3], process.argv[4]);
else await main();

async function serve(mode, dist) {
  const { lingerWithoutReading, halfCloseThenLinger } = await import(
    new URL('receiver/linger-without-reading.js', dist).href
  );
  const peaks = { rss: 0, arrayBuffers: 0, heapTotal: 0 };
  let maxOpen = 0;
  let refused = 0;
  let bytesRead = 0;
  const sockets = new Set();
  setInterval(() => {
    const usage = process.memoryUsage();
    for (const name of Object.keys(peaks)) peaks[name] = Math.max(peaks[name], usage[name]);
  }, 20).unref();
  const payload = JSON.stringify({ status: 'error', code: 'BODY_BUDGET', message: 'retry later' });
  const server = createServer((request, response) => {
    refused += 1;
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      'retry-after': 1,
    };
    setImmediate(() => {
      if (mode !== 'keepalive') headers.connection = 'close';
      const socket = request.socket;
      if (mode === 'keepalive') request.resume();
      else if (!request.complete && mode === 'reset') {
        socket.destroySoon = () => socket.destroy();
      } else if (!request.complete && mode === 'stop') {
        lingerWithoutReading(request);
      } else if (!request.complete) {
        request.read(0);
        request.pause();
        halfCloseThenLinger(socket);
      }
      response.writeHead(429, headers).end(payload);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    maxOpen = Math.max(maxOpen, sockets.size);
    socket.on('close', () => {
      sockets.delete(socket);
      bytesRead += socket.bytesRead;
    });
  });
  // What the kernel holds for the server's sockets (their unread receive queues: a container's memory
  // limit counts them too), from `ss -tm`, every 250 ms.
  let kernelPeak = 0;
  const sampleKernel = (port) => {
    execFile('ss', ['-tmnH', 'sport', '=', `:${port}`], { maxBuffer: 64 * 2 ** 20 }, (error, out) => {
      if (error) return;
      let held = 0;
      for (const [, bytes] of out.matchAll(/skmem:\(r(\d+)/g)) held += Number(bytes);
      kernelPeak = Math.max(kernelPeak, held);
    });
  };
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    setInterval(() => sampleKernel(port), 250).unref();
    console.log(JSON.stringify({ port }));
  });
  process.stdin.once('data', () => {
    const cpu = process.cpuUsage();
    for (const socket of sockets) bytesRead += socket.bytesRead;
    console.log(
      JSON.stringify({
        refused,
        maxOpen,
        bytesReadMb: Math.round(bytesRead / 2 ** 20),
        cpuMsPerRefusal: (cpu.user + cpu.system) / 1000 / Math.max(1, refused),
        peaksMb: Object.fromEntries(Object.entries(peaks).map(([k, v]) => [k, Math.round(v / 2 ** 20)])),
        kernelPeakMb: Math.round(kernelPeak / 2 ** 20),
      }),
    );
    process.exit(0);
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      modes: { type: 'string', default: 'drain,stop,keepalive,reset' },
      senders: { type: 'string', default: 'fetch-large,autocannon,retrying' },
      dist: { type: 'string' },
    },
  });
  const dist =
    values.dist === undefined
      ? new URL('../dist/', import.meta.url)
      : pathToFileURL(`${resolve(values.dist)}/`);
  const { default: autocannon } = await import('autocannon');
  const rows = [];
  for (const sender of values.senders.split(',')) {
    for (const mode of values.modes.split(',')) {
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', mode, dist.href], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const [line] = await once(child.stdout, 'data');
      const url = `http://127.0.0.1:${JSON.parse(line).port}/webhooks`;
      const seen = {};
      const count = (what) => {
        seen[what] = (seen[what] ?? 0) + 1;
      };
      const post = async (body) => {
        try {
          const response = await fetch(url, { method: 'POST', body });
          await response.arrayBuffer();
          count(String(response.status));
        } catch (error) {
          count(error.cause?.code ?? error.message);
        }
      };
      if (sender === 'fetch-large') {
        const body = Buffer.alloc(16 * 2 ** 20, 'a');
        for (let i = 0; i < 20; i += 1) await post(body);
      } else if (sender === 'retrying') {
        const body = Buffer.alloc(520_000, 'a');
        const stopAt = performance.now() + 8000;
        await Promise.all(
          Array.from({ length: 50 }, async () => {
            while (performance.now() < stopAt) {
              await post(body);
              await new Promise((resolve) => setTimeout(resolve, 1000));
            }
          }),
        );
      } else {
        const run = autocannon({
          url,
          connections: 50,
          duration: 8,
          method: 'POST',
          body: Buffer.alloc(520_000, 'a'),
        });
        run.on('response', (_client, status) => count(String(status)));
        const result = await run;
        if (result.errors > 0) seen.errors = result.errors;
      }
      child.stdin.write('\n');
      const [report] = await once(child.stdout, 'data');
      const server = JSON.parse(report);
      rows.push({ sender, mode, seen, server });
      console.error(`[refusal-modes] ${sender} ${mode} ${JSON.stringify(seen)} ${report}`.trim());
    }
  }
  console.log(
    '| sender | policy | the sender saw | refusals served | server CPU ms/refusal | body MiB read | sockets open, peak | peak RSS MiB | peak array buffers MiB | peak kernel receive queues MiB |',
  );
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const { sender, mode, seen, server } of rows) {
    console.log(
      `| ${sender} | ${mode} | ${Object.entries(seen)
        .map(([what, n]) => `${what}: ${n}`)
        .join(
          ', ',
        )} | ${server.refused} | ${server.cpuMsPerRefusal.toFixed(2)} | ${server.bytesReadMb} | ${server.maxOpen} | ${server.peaksMb.rss} | ${server.peaksMb.arrayBuffers} | ${server.kernelPeakMb} |`,
    );
  }
}
