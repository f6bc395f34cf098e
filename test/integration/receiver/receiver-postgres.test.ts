import { describe } from 'vitest';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { receiverSuite } from './receiver-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('receiver on Postgres'), () => receiverSuite('postgres'));
