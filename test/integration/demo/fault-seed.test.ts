/**
 * The demo's seed choice rests on how the simulator draws faults: these tests hold the prediction against
 * a real simulator delivering to a real socket, and check the requirements the chosen seed must meet.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  chooseFaultSeed,
  type FaultRequirements,
  meetsFaultRequirements,
  predictFaults,
} from '../../../src/demo/choose-fault-seed.js';
import { DEMO_FAULT_RATES } from '../../../src/demo/demo-plan.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { type HttpStubServer, startHttpStubServer } from '../../helpers/http-stub-server.js';

describe('choosing the demo seed', () => {
  let sim: Simulator | undefined;
  let receiver: HttpStubServer | undefined;
  afterEach(async () => {
    await sim?.close();
    await receiver?.close();
    sim = undefined;
    receiver = undefined;
  });

  it("predicts the simulator's fault for each delivery, in dispatch order", async () => {
    const seed = 'prediction-check';
    const deliveries = 30;
    receiver = await startHttpStubServer(() => ({ status: 200 }));
    sim = await createSimulator({ seed, faults: DEMO_FAULT_RATES, retryBaseMs: 10 });
    const launched: string[] = [];
    for (let i = 0; i < deliveries; i += 1) {
      const response = await fetch(`${sim.url}/v1/company-reveal`, {
        method: 'POST',
        headers: { 'x-api-key': sim.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ ip: `81.2.${i}.10`, webhook_url: `${receiver.url}/webhooks` }),
      });
      launched.push(((await response.json()) as { input: { task: { job_id: string } } }).input.task.job_id);
    }
    const records = await sim.waitForDeliveries();
    const actual = launched.map((jobId) => records.find((r) => r.job_id === jobId)?.fault ?? null);
    const predicted = predictFaults(seed, DEMO_FAULT_RATES, deliveries);
    expect(actual).toEqual(predicted);
    // The check means something only if the run had faults of several kinds.
    expect(new Set(predicted.filter((f) => f !== null)).size).toBeGreaterThan(1);
  });

  it('chooses the first seed that puts every fault on a recoverable delivery and keeps one signed after rotation', () => {
    const requirements: FaultRequirements = {
      deliveries: 26,
      recoverable: Array.from({ length: 14 }, (_, i) => 12 + i),
      afterRotation: Array.from({ length: 8 }, (_, i) => 18 + i),
    };
    const seed = chooseFaultSeed(DEMO_FAULT_RATES, requirements);
    const faults = predictFaults(seed, DEMO_FAULT_RATES, 26);
    const recoverable = new Set(faults.slice(12));
    for (const fault of ['drop', 'duplicate', 'tamper', 'unsigned'] as const)
      expect(recoverable).toContain(fault);
    expect(faults.slice(18).some((f) => f === null || f === 'duplicate')).toBe(true);
    // Deterministic: the same seed every time, and every earlier candidate falls short.
    expect(chooseFaultSeed(DEMO_FAULT_RATES, requirements)).toBe(seed);
    const n = Number(seed.replace(/\D+/g, ''));
    for (let k = 1; k < n; k += 1) {
      expect(
        meetsFaultRequirements(predictFaults(`hooksync-demo-${k}`, DEMO_FAULT_RATES, 26), requirements),
      ).toBe(false);
    }
  });

  it('gives up with a clear error when no candidate can meet the requirements', () => {
    const noDrops = { ...DEMO_FAULT_RATES, dropRate: 0 };
    expect(() =>
      chooseFaultSeed(noDrops, { deliveries: 26, recoverable: [12, 13], afterRotation: [20] }, 50),
    ).toThrow(/no seed among 50 candidates/);
  });
});
