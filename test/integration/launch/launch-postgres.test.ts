import { describe, it } from 'vitest';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineLaunchSuite } from './launch-suite.js';

if (TEST_DATABASE_URL) defineLaunchSuite('postgres');
else describe(pgSuiteName('hooksync launch on postgres'), () => it.skip('needs TEST_DATABASE_URL'));
