/**
 * Bad slack and email configuration: one line naming the destination and the field, never a secret.
 */
import { describe, expect, it } from 'vitest';
import { parseDestinations } from '../../../../src/destinations/load-destinations.js';

const env = {
  SLACK_BOT_TOKEN: 'xoxb-secret',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T1/B1/SECRETPART',
  SMTP_URL: 'smtp://127.0.0.1:2525',
  HUBSPOT_TOKEN: 'pat-secret',
};
const slack = (extra: Record<string, unknown>) => ({
  name: 'sales',
  type: 'slack',
  token: { env: 'SLACK_BOT_TOKEN' },
  routes: [{ channel: '#champions' }],
  ...extra,
});
const problem = async (destinations: unknown[], given: Record<string, string> = env) => {
  try {
    await parseDestinations({ destinations }, given, 'destinations file d.json');
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe('alert destinations configuration', () => {
  it('accepts the forms of issue 38', async () => {
    expect(
      await problem([
        slack({
          routes: [
            { watches: ['champions'], changes: ['moved', 'left'], channel: '#champions' },
            { changes: ['moved'], to: 'owner', fallback_channel: '#unrouted' },
            { changes: ['moved', 'left', 'new_person'], channel: 'C0123456789', digest: '0 0 9 * * 1' },
          ],
          owner_crm: 'crm',
        }),
        { name: 'crm', type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' } },
        { name: 'hook', type: 'slack', webhook_url: { env: 'SLACK_WEBHOOK_URL' } },
        {
          name: 'mail',
          type: 'email',
          smtp_url: { env: 'SMTP_URL' },
          from: 'a@example.com',
          routes: [{ to: 'owner' }],
        },
      ]),
    ).toBeUndefined();
  });

  it.each([
    [
      slack({ routes: [{ chanel: '#x' }] }),
      'destination "sales", field routes[0]: Unrecognized key: "chanel"',
    ],
    [
      slack({ routes: [{ channel: 'general' }] }),
      'destination "sales", field routes[0].channel: must be a channel "#name"',
    ],
    [
      slack({ routes: [{ channel: '#a', to: 'owner' }] }),
      'field routes[0].channel: give either channel or "to": "owner"',
    ],
    [
      slack({ routes: [{ channel: '#a', digest: 'every monday' }] }),
      'field routes[0].digest: must be a cron expression',
    ],
    [slack({ routes: [{ channel: '#a', changes: ['hired'] }] }), 'field routes[0].changes[0]'],
    [
      slack({ token: { env: 'MISSING_TOKEN' } }),
      'destination "sales", field token: environment variable MISSING_TOKEN is not set',
    ],
    [slack({ owner_crm: 'nowhere' }), 'destination "sales", field owner_crm: no destination "nowhere"'],
    [
      slack({ api_url: 'http://slack.example.com/api' }),
      'destination "sales", field api_url: must be https://',
    ],
    [
      {
        name: 'mail',
        type: 'email',
        smtp_url: { env: 'PLAIN' },
        from: 'a@example.com',
        routes: [{ to: ['b@example.com'] }],
      },
      'destination "mail", field smtp_url: PLAIN is plain SMTP to mail.example.com, which is not loopback',
    ],
    [
      {
        name: 'mail',
        type: 'email',
        smtp_url: { env: 'SMTP_URL' },
        from: 'a@example.com',
        routes: [{ to: ['nope'] }],
      },
      'destination "mail", field routes[0].to',
    ],
  ])('refuses %j', async (entry, expected) => {
    const message = await problem([entry], { ...env, PLAIN: 'smtp://user:pw@mail.example.com:25' });
    expect(message).toContain(expected);
    expect(message).not.toContain('secret');
    expect(message).not.toContain('pw@');
  });

  it('accepts STARTTLS or TLS to another host, and plain SMTP to a host allowed by HOOKSYNC_ALLOW_INSECURE_HTTP', async () => {
    const mail = {
      name: 'mail',
      type: 'email',
      smtp_url: { env: 'URL' },
      from: 'a@example.com',
      routes: [{ to: ['b@example.com'] }],
    };
    expect(await problem([mail], { URL: 'smtps://u:p@mail.example.com' })).toBeUndefined();
    expect(
      await problem([mail], { URL: 'smtp://u:p@mail.example.com:587?starttls=required' }),
    ).toBeUndefined();
    expect(
      await problem([mail], {
        URL: 'smtp://mail.example.com',
        HOOKSYNC_ALLOW_INSECURE_HTTP: 'mail.example.com',
      }),
    ).toBeUndefined();
  });

  it('takes owners from a salesforce or pipedrive destination, and refuses one with no owners', async () => {
    const crms = [
      {
        name: 'sf',
        type: 'salesforce',
        login_url: 'https://login.salesforce.com',
        auth: {
          grant: 'client_credentials',
          client_id: { env: 'SF_ID' },
          client_secret: { env: 'SF_SECRET' },
        },
      },
      { name: 'pd', type: 'pipedrive', token: { env: 'PD_TOKEN' }, base_url: 'https://acme.pipedrive.com' },
      { name: 'hook', type: 'slack', webhook_url: { env: 'SLACK_WEBHOOK_URL' } },
    ];
    const given = { ...env, SF_ID: 'id', SF_SECRET: 'secret', PD_TOKEN: 'token' };
    for (const crm of ['sf', 'pd'])
      expect(await problem([slack({ owner_crm: crm }), ...crms], given)).toBeUndefined();
    expect(await problem([slack({ owner_crm: 'hook' }), ...crms], given)).toContain(
      'destination "sales", field owner_crm: destination "hook" is of type slack, which has no owners',
    );
  });

  it('never echoes an incoming webhook URL', async () => {
    const message = await problem([{ name: 'hook', type: 'slack', webhook_url: { env: 'HOOK' } }], {
      HOOK: 'http://hooks.example.com/services/T1/B1/SECRETPART',
    });
    expect(message).toContain('destination "hook", field webhook_url: HOOK must be https://');
    expect(message).not.toContain('SECRETPART');
  });
});
