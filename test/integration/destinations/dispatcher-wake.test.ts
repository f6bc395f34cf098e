/**
 * serve hands a stored job on at once (issue 44): the store's commit wakes the dispatcher, so a job reaches
 * a webhook destination without waiting for the dispatcher's poll. Here the poll is an hour, so only the
 * wake can deliver; on both store threads (the worker, serve's default, and this thread).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDestinations } from '../../../src/destinations/load-destinations.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { deliver, NOW_S, type ReceiverHarness, startHarness } from '../../helpers/receiver-harness.js';
import { until } from '../../helpers/until.js';
import { signDelivery } from '../../helpers/webhook-signer.js';

const HOUR_MS = 3_600_000;

let consumer: Server;
let consumerUrl: string;
/** The job ids of the bodies the consumer was sent, in order. */
const received: string[] = [];

beforeAll(async () => {
  consumer = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push(/"job_id"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? '?');
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => consumer.listen(0, '127.0.0.1', resolve));
  consumerUrl = `http://127.0.0.1:${(consumer.address() as AddressInfo).port}/hook`;
});

afterAll(() => {
  consumer.closeAllConnections();
  consumer.close();
});

describe.each(['worker', 'main'] as const)('a job stored by the %s thread', (storeThread) => {
  let harness: ReceiverHarness;

  beforeAll(async () => {
    const destinations = await parseDestinations(
      {
        destinations: [
          {
            name: 'onward',
            type: 'webhook',
            url: consumerUrl,
            secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          },
        ],
      },
      {},
      'test',
    );
    harness = await startHarness('sqlite', {
      receiver: { destinations, storeThread, dispatchPollMs: HOUR_MS },
    });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('reaches a webhook destination without waiting for the poll', async () => {
    for (const name of ['company-reveal', 'job-change-moved'] as const) {
      const { text, jobId } = envelopeText(name);
      const token = await signDelivery(text, { key: harness.key, iat: NOW_S, jobId });
      expect((await deliver(harness.url, text, token)).status).toBe(200);
      await until(() => received.includes(jobId), { message: `job ${jobId} reached the destination` });
    }
    expect(received.filter((id) => id === '?')).toEqual([]);
  });
});
