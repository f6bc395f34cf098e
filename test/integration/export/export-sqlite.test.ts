import { describe } from 'vitest';
import { exportSuite } from './export-suite.js';

describe('export on SQLite', () => exportSuite('sqlite'));
