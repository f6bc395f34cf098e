import { describe } from 'vitest';
import { defineCrmSourcesSuite } from './crm-sources-suite.js';

describe('watches over a CRM on sqlite', () => defineCrmSourcesSuite('sqlite'));
