import { describe } from 'vitest';
import { defineWatchesCrmSuite } from './watches-crm-suite.js';

describe('watch changes into CRM destinations on sqlite', () => defineWatchesCrmSuite('sqlite'));
