/**
 * The client reads every answer under its size cap: an oversized finder answer fails RESPONSE_TOO_LARGE
 * after one request (never retried), and a base URL holding credentials is refused without printing them.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../../src/client/create-client.js';
import { ServiceError } from '../../../src/errors.js';
import { startStreamingUpstream } from '../../helpers/streaming-upstream.js';

const JOB_ID = '0b9c5f7e-1d2a-4c3b-8e4f-5a6b7c8d9e0f';
const MiB = 1024 * 1024;

describe('bounded answers', () => {
  it.each([false, true])(
    'fails RESPONSE_TOO_LARGE once, not retried (Content-Length declared: %s)',
    async (declareLength) => {
      const upstream = await startStreamingUpstream({
        hugeBytes: 200 * MiB,
        isHuge: () => true,
        declareLength,
      });
      try {
        const client = createClient({
          baseUrl: upstream.url,
          apiKey: 'k',
          maxResponseBytes: 2 * MiB,
          rateLimit: { perInterval: 1000, intervalSeconds: 1 },
        });
        const error = await client.jobChange.find(JOB_ID).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ServiceError);
        expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', status: 200 });
        expect((error as Error).message).toMatch(/^GET \/v1\/job\/change is larger than 2097152 bytes/);
        expect(upstream.hugeAnswers()).toBe(1);
      } finally {
        await upstream.close();
      }
    },
  );

  it('refuses a base URL with credentials, without printing them', () => {
    let message = '';
    try {
      createClient({ baseUrl: 'https://user:hunter2@api.example.com', apiKey: 'k' });
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
      message = (error as Error).message;
    }
    expect(message).toBe('baseUrl must not hold a user name or password');
  });
});
