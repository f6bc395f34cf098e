import { describe, expect, it } from 'vitest';
import { assertFaultRates, pickFault } from '../../../src/simulator/delivery-faults.js';
import { tamperBody } from '../../../src/simulator/webhook-dispatcher.js';

describe('pickFault', () => {
  it('lays the rates end to end over [0, 1)', () => {
    const rates = { dropRate: 0.1, duplicateRate: 0.2, tamperRate: 0.3, unsignedRate: 0.1 };
    expect(pickFault(rates, 0)).toBe('drop');
    expect(pickFault(rates, 0.0999)).toBe('drop');
    expect(pickFault(rates, 0.1)).toBe('duplicate');
    expect(pickFault(rates, 0.35)).toBe('tamper');
    expect(pickFault(rates, 0.65)).toBe('unsigned');
    expect(pickFault(rates, 0.71)).toBeNull();
    expect(pickFault({}, 0)).toBeNull();
    expect(pickFault({ tamperRate: 1 }, 0.999999)).toBe('tamper');
  });

  it('refuses rates outside [0, 1] or summing above 1', () => {
    expect(() => assertFaultRates({ dropRate: 1.5 })).toThrow(TypeError);
    expect(() => assertFaultRates({ dropRate: -0.1 })).toThrow(TypeError);
    expect(() => assertFaultRates({ dropRate: Number.NaN })).toThrow(TypeError);
    expect(() => assertFaultRates({ dropRate: 0.6, tamperRate: 0.6 })).toThrow(TypeError);
    expect(() => assertFaultRates({ dropRate: 0.1, duplicateRate: 0.2, tamperRate: 0.7 })).not.toThrow();
  });
});

describe('tamperBody', () => {
  it('changes the bytes but keeps JSON', () => {
    const body = '{"status":"SUCCEEDED"}';
    const tampered = tamperBody(body);
    expect(tampered).not.toBe(body);
    expect(JSON.parse(tampered)).toEqual({ status: 'SUCCEEDED', tampered: true });
  });
});
