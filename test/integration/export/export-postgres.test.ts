import { describe } from 'vitest';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { exportSuite } from './export-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('export on Postgres'), () => exportSuite('postgres'));
