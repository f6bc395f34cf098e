/**
 * Tools of the hostile-client floods (issue 15): large POSTs on node:http that record whatever answer comes
 * back before the server closes the connection, the resident memory of a process sampled from /proc, and
 * the on-disk size of a SQLite database with its WAL.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';

/** How one large POST ended: the status if an answer came, else how the connection ended. */
export interface FloodAnswer {
  status: number | undefined;
  ended: 'answered' | 'reset' | 'timeout';
  ms: number;
}

/** POSTs `body` to `url` with `headers`; never rejects (a reset after the answer still counts the answer). */
export function postBody(
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<FloodAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let status: number | undefined;
    let settled = false;
    const finish = (ended: FloodAnswer['ended']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, ended: status === undefined ? ended : 'answered', ms: performance.now() - started });
    };
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
      agent: false,
    });
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    req.on('response', (response) => {
      status = response.statusCode;
      response.resume();
      response.on('end', () => finish('answered'));
      response.on('error', () => finish('answered'));
    });
    req.on('error', () => finish('reset'));
    req.end(body);
  });
}

/** Resident set size of `pid` in bytes (Linux /proc). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

/** Samples the RSS of `pid` every `everyMs` until stopped; `peak()` is the largest seen. */
export function sampleResident(pid: number, everyMs = 25): { peak(): number; stop(): number } {
  let peak = residentBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, residentBytes(pid));
    } catch {
      // The process exited.
    }
  }, everyMs);
  return {
    peak: () => peak,
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** Bytes of a SQLite database on disk: the file, its WAL and shared-memory file. */
export function sqliteBytes(path: string): number {
  return ['', '-wal', '-shm']
    .map((suffix) => `${path}${suffix}`)
    .filter((file) => existsSync(file))
    .reduce((sum, file) => sum + statSync(file).size, 0);
}
