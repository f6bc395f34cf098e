import { describe } from 'vitest';
import { definePlaysSuite } from './plays-suite.js';

describe('plays on sqlite', () => definePlaysSuite('sqlite'));
