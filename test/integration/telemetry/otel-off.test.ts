/**
 * OpenTelemetry off is free (issue 40): without an OTLP endpoint, serve loads none of the SDK (only the API
 * package prom-client has always loaded); with one, the SDK is there. The built receiver runs in a process
 * of its own, so that what this test process loaded does not count.
 */
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../helpers/ensure-built.js';
import { runNode } from '../../helpers/run-process.js';

const SCRIPT = join(import.meta.dirname, 'loaded-modules.mjs');

async function loadedPackages(env: Record<string, string>): Promise<string[]> {
  const dist = join(dirname(ensureBuilt()), '..');
  const run = await runNode([SCRIPT, dist], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as string[];
}

describe('the OpenTelemetry SDK', () => {
  it('is not loaded without an OTLP endpoint', async () => {
    expect(await loadedPackages({})).toEqual(['@opentelemetry/api']);
  });

  it('is loaded with one', async () => {
    const loaded = await loadedPackages({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(loaded).toContain('@opentelemetry/sdk-trace-base');
    expect(loaded).toContain('@opentelemetry/exporter-trace-otlp-http');
  });
});
