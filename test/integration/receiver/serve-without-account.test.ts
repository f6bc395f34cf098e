/** A serve without the service's account starts, and says once, at start, what will not run. */
import { expect, it } from 'vitest';
import { startHarness } from '../../helpers/receiver-harness.js';

it('says once what will not run without the account, and nothing with it', async () => {
  const bare = await startHarness('sqlite');
  try {
    const lines = bare
      .logs()
      .split('\n')
      .filter((line) => line.includes('serve receives and stores callbacks only'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"level":40');
    expect(lines[0]).toContain('HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY');
  } finally {
    await bare.close();
  }
  const account = await startHarness('sqlite', {
    env: { HOOKSYNC_API_BASE_URL: 'http://127.0.0.1:9', HOOKSYNC_API_KEY: 'key-1' },
  });
  try {
    expect(account.logs()).not.toContain('callbacks only');
  } finally {
    await account.close();
  }
});
