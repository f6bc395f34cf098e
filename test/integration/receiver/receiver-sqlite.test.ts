import { describe } from 'vitest';
import { receiverSuite } from './receiver-suite.js';

describe('receiver on SQLite', () => receiverSuite('sqlite'));
