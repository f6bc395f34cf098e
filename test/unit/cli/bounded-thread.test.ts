import { describe, expect, it } from 'vitest';
import {
  boundedCommand,
  boundedResourceLimits,
  launchAnswerBudgetBytes,
} from '../../../src/cli/bounded-thread.js';
import { PARSED_ANSWER_GROWTH } from '../../../src/client/answer-budget.js';
import { loadClientLimits } from '../../../src/config/load-client-limits.js';
import {
  LAUNCH_HEAP_BASE_MB,
  LAUNCH_YOUNG_GENERATION_MB,
  MEMORY_FLOOR_BYTES,
  memoryBudgets,
  SERVE_HEAP_BASE_MB,
  SERVE_YOUNG_GENERATION_MB,
  serveThreadLimits,
} from '../../../src/server/memory-budgets.js';
import { planMemory } from '../../../src/server/memory-plan.js';

const MIB = 2 ** 20;

describe('which command runs in the bounded thread', () => {
  it.each([
    [['serve'], 'serve'],
    [['serve', '--port', '0', '--unsigned'], 'serve'],
    [['launch', 'reveal', '--from', 'ips.csv'], 'launch'],
    [['watches', 'run', 'nightly'], 'launch'],
    [['export', '--template', 'persons', '--format', 'parquet'], 'export'],
  ])('%j runs in the %s thread', (argv, command) => {
    expect(boundedCommand(argv)).toBe(command);
  });

  it.each([
    [['serve', '--help']],
    [['serve', '-h']],
    [['launch', 'reveal', '--help']],
    [['export', '--help']],
    [['launch']],
    [['watches', 'list']],
    [['reveal', '10.0.0.1']],
    [['jobs', 'list']],
    [['--help']],
    [[]],
  ])('%j runs in the main thread', (argv) => {
    expect(boundedCommand(argv)).toBeUndefined();
  });
});

describe('the serve thread’s limits', () => {
  it('keeps V8’s default old generation without a ceiling, with 4 MiB semi-spaces', () => {
    expect(boundedResourceLimits('serve', { HOOKSYNC_MEMORY_MB: '0' })).toEqual({
      maxYoungGenerationSizeMb: SERVE_YOUNG_GENERATION_MB,
    });
    expect(SERVE_YOUNG_GENERATION_MB).toBe(12);
  });

  it('holds the base, the bodies budget and the answers read at once (parsed) under a ceiling', () => {
    const limits = boundedResourceLimits('serve', { HOOKSYNC_MEMORY_MB: '256' });
    const budgets = memoryBudgets(256 * MIB);
    // Under 256 MiB the answers share is below one 1 MiB answer parsed, which serve must still read.
    const answers = Math.max(budgets.answers, PARSED_ANSWER_GROWTH * MIB);
    expect(limits).toEqual({
      maxYoungGenerationSizeMb: SERVE_YOUNG_GENERATION_MB,
      maxOldGenerationSizeMb: SERVE_HEAP_BASE_MB + Math.ceil((budgets.bodies + answers) / MIB),
    });
  });

  it('agrees with the answer budget serve plans, and follows one set in the environment', () => {
    const plan = planMemory(512 * MIB);
    const planned = serveThreadLimits(512 * MIB).maxOldGenerationSizeMb!;
    expect(planned).toBe(
      SERVE_HEAP_BASE_MB +
        Math.ceil(
          (plan.budgets!.bodies +
            Math.max(plan.budgets!.answers, PARSED_ANSWER_GROWTH * plan.clientLimits.answerBudgetBytes!)) /
            MIB,
        ),
    );
    const set = boundedResourceLimits('serve', {
      HOOKSYNC_MEMORY_MB: '512',
      HOOKSYNC_ANSWER_BUDGET_BYTES: String(4 * MIB),
    });
    expect(set.maxOldGenerationSizeMb).toBe(
      SERVE_HEAP_BASE_MB + Math.ceil((plan.budgets!.bodies + PARSED_ANSWER_GROWTH * 4 * MIB) / MIB),
    );
  });

  it('leaves V8’s defaults on a bad or too small ceiling (serve then refuses it in the thread)', () => {
    const defaults = { maxYoungGenerationSizeMb: SERVE_YOUNG_GENERATION_MB };
    expect(boundedResourceLimits('serve', { HOOKSYNC_MEMORY_MB: 'lots' })).toEqual(defaults);
    expect(serveThreadLimits(undefined)).toEqual(defaults);
    expect(() => serveThreadLimits(MEMORY_FLOOR_BYTES)).toThrow(RangeError);
    expect(boundedResourceLimits('serve', { HOOKSYNC_ANSWER_BUDGET_BYTES: '-1' })).toMatchObject(defaults);
  });
});

describe('the launch thread’s limits', () => {
  it('reads one largest answer at a time by default: 4 MiB, held parsed in 48 + 88 MB of old generation', () => {
    const limits = loadClientLimits({});
    expect(launchAnswerBudgetBytes(limits)).toBe(4 * MIB);
    expect(boundedResourceLimits('launch', {})).toEqual({
      maxYoungGenerationSizeMb: LAUNCH_YOUNG_GENERATION_MB,
      maxOldGenerationSizeMb: LAUNCH_HEAP_BASE_MB + 88,
    });
  });

  it('follows the answer cap when only the cap is set', () => {
    const env = { HOOKSYNC_MAX_ANSWER_BYTES: String(MIB) };
    expect(launchAnswerBudgetBytes(loadClientLimits(env))).toBe(MIB);
    expect(boundedResourceLimits('launch', env).maxOldGenerationSizeMb).toBe(LAUNCH_HEAP_BASE_MB + 22);
  });

  it('grows the old generation with a budget set in the environment, and ignores the memory ceiling', () => {
    const env = { HOOKSYNC_ANSWER_BUDGET_BYTES: String(16 * MIB), HOOKSYNC_MEMORY_MB: '256' };
    expect(launchAnswerBudgetBytes(loadClientLimits(env))).toBe(16 * MIB);
    expect(boundedResourceLimits('launch', env).maxOldGenerationSizeMb).toBe(LAUNCH_HEAP_BASE_MB + 352);
  });
});
