import { describe } from 'vitest';
import { defineWatchesFileChecks, defineWatchesSuite } from './watches-suite.js';

describe('watches on sqlite', () => defineWatchesSuite('sqlite'));
defineWatchesFileChecks();
