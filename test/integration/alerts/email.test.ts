/**
 * The email destination against a real SMTP server (smtp-server) on 127.0.0.1: one message per change
 * and address (plain text and HTML), the owner's address or the fallback, a digest, 4xx retried, 5xx
 * failing the event with the server's line.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type DestinationsWorld,
  openWorld,
  provisionSqlite,
  until,
} from '../destinations/destinations-context.js';
import { addChange, eventStates } from './alerts-world.js';

interface Received {
  readonly to: string[];
  readonly raw: string;
}

describe('email destination on SQLite', () => {
  let world: DestinationsWorld;
  let server: SMTPServer;
  let url: string;
  const received: Received[] = [];
  /** Replies the next DATA commands get instead of 250 (e.g. 451, 550). */
  const refusals: Array<{ code: number; text: string }> = [];

  beforeAll(async () => {
    server = new SMTPServer({
      secure: false,
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const refusal = refusals.shift();
          if (refusal !== undefined) {
            const error = Object.assign(new Error(refusal.text), { responseCode: refusal.code });
            callback(error);
            return;
          }
          received.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(async () => {
    world = await openWorld(provisionSqlite);
    received.length = 0;
    refusals.length = 0;
  });
  afterEach(async () => world.close());

  const start = async (routes: unknown[]) => {
    const configured = await world.configure(
      {
        destinations: [
          {
            name: 'mail',
            type: 'email',
            smtp_url: { env: 'SMTP_URL' },
            from: 'hooksync <alerts@example.com>',
            retry: { schedule: ['10ms', '10ms'] },
            routes,
          },
        ],
      },
      { SMTP_URL: url },
    );
    return world.dispatcher(configured);
  };

  it('mails each change to each address, the owner or the fallback, in plain text and HTML; digests too', async () => {
    const dispatcher = await start([
      { changes: ['moved'], to: ['revops@example.com', 'cro@example.com'] },
      { changes: ['moved'], to: 'owner', fallback_to: ['unrouted@example.com'] },
      { changes: ['left'], to: ['weekly@example.com'], digest: '0 9 * * 1' },
    ]);
    await addChange(world, { fields: { owner_email: 'rep@example.com' } });
    await addChange(world, { change: 'left', first: 'Bo', last: 'Ray' });
    await addChange(world, { first: 'Al', last: '<b>Tag</b>' });
    await until('delivered', async () =>
      (await eventStates(world, 'mail')).every((event) => event.status === 'delivered'),
    );
    const to = (address: string) => received.filter((mail) => mail.to.includes(address));
    expect(to('revops@example.com')).toHaveLength(2);
    expect(to('cro@example.com')).toHaveLength(2);
    expect(to('rep@example.com')).toHaveLength(1);
    expect(to('unrouted@example.com')).toHaveLength(1);
    const mail = to('rep@example.com')[0]!.raw;
    expect(mail).toContain('Subject: Jane Doe moved from Acme to Globex, now CRO');
    expect(mail).toContain('Content-Type: text/plain');
    expect(mail).toContain('Content-Type: text/html');
    expect(mail).toContain('<strong>Jane Doe</strong>');
    // Values from data are escaped in the HTML part.
    expect(to('unrouted@example.com')[0]!.raw).toContain('&lt;b&gt;Tag&lt;/b&gt;');
    expect(to('weekly@example.com')).toHaveLength(0);
    await dispatcher.deliverOnce();
    expect(to('weekly@example.com')).toHaveLength(1);
    expect(to('weekly@example.com')[0]!.raw).toContain('Subject: Digest: 1 change: 1 left');
  });

  it('retries a 4xx reply and fails the event on a 5xx with the server’s line', async () => {
    await start([{ to: ['revops@example.com'] }]);
    refusals.push({ code: 451, text: 'Try again later' });
    await addChange(world);
    await until(
      'delivered after a 451',
      async () => (await eventStates(world, 'mail'))[0]?.status === 'delivered',
    );
    expect((await eventStates(world, 'mail'))[0]!.attempts).toBe(2);
    refusals.push({ code: 550, text: 'Mailbox unavailable' });
    await addChange(world);
    await until('failed on a 550', async () => (await eventStates(world, 'mail'))[1]?.status === 'failed');
    const failed = (await eventStates(world, 'mail'))[1]!;
    expect(failed.last_error).toContain('550');
    expect(failed.last_error).toContain('Mailbox unavailable');
    expect(received).toHaveLength(1);
  });
});
