import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { companyRevealOutputSchema } from '../../../../src/contract/resources.js';
import { createSyntheticWorld } from '../../../../src/simulator/data/create-synthetic-world.js';
import { isSpecialPurposeIpv4 } from '../../../../src/simulator/data/reveal-company.js';
import { USAGE } from './world-fixtures.js';

const world = createSyntheticWorld({ seed: 'reveal-test' });
const publicIp = fc
  .tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((octets) => octets.join('.'))
  .filter((ip) => !isSpecialPurposeIpv4(ip));
const anyIp = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((octets) => octets.join('.'));

/** One address in each of `count` distinct /24 blocks, spread over the public space. */
function sampleBlocks(count: number): string[] {
  const ips: string[] = [];
  for (let i = 0; ips.length < count; i += 1) {
    const ip = `${11 + (i % 180)}.${(i * 7) % 256}.${Math.floor(i / 180) % 256}.${(i * 13) % 256}`;
    if (!isSpecialPurposeIpv4(ip)) ips.push(ip);
  }
  return ips;
}

describe('world.revealCompany', () => {
  it('answers a Company Reveal output the contract accepts, for any IPv4 address', () => {
    fc.assert(
      fc.property(anyIp, (ip) => {
        const reveal = world.revealCompany(ip);
        const parsed = companyRevealOutputSchema.safeParse({ ...reveal, usage: USAGE });
        expect(parsed.error?.issues ?? []).toEqual([]);
        expect(reveal.ip).toBe(ip);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it('answers the same for the same address, in this world and in a twin', () => {
    const twin = createSyntheticWorld({ seed: 'reveal-test' });
    fc.assert(
      fc.property(publicIp, (ip) => {
        expect(JSON.stringify(twin.revealCompany(ip))).toBe(JSON.stringify(world.revealCompany(ip)));
        expect(world.revealCompany(ip)).toEqual(world.revealCompany(ip));
      }),
      { seed: 12, numRuns: 100 },
    );
  });

  it('keeps the type, confidence and company consistent with each other', () => {
    const domains = new Set(world.companies.map((c) => c.domain));
    for (const ip of sampleBlocks(600)) {
      const { type, confidence_score, company, ip_geo } = world.revealCompany(ip);
      const isCompany = 'id' in company;
      if (type === 'company') {
        expect(isCompany).toBe(true);
        expect(domains.has((company as { domain: string }).domain)).toBe(true);
        expect(confidence_score).not.toBeNull();
        expect(ip_geo.country).toBe((company as { country: string }).country);
      }
      if (type === 'isp' || type === null) {
        expect(company).toEqual({});
        expect(confidence_score).toBeNull();
      }
      if ((type === 'education' || type === 'government') && isCompany) {
        expect(['high', 'medium']).toContain(confidence_score);
        expect((company as { industry: string }).industry).toBe(
          type === 'education' ? 'Higher Education' : 'Government Administration',
        );
      }
      if (!isCompany) expect(confidence_score).toBeNull();
    }
  });

  it('maps most blocks to a company, in the documented proportions (± 5 points over 1 500 blocks)', () => {
    const ips = sampleBlocks(1500);
    const share = (test: (r: ReturnType<typeof world.revealCompany>) => boolean) =>
      ips.filter((ip) => test(world.revealCompany(ip))).length / ips.length;
    expect(share((r) => r.type === 'company')).toBeCloseTo(0.7, 1);
    expect(Math.abs(share((r) => r.type === 'isp') - 0.1)).toBeLessThan(0.05);
    expect(Math.abs(share((r) => r.type === 'education') - 0.06)).toBeLessThan(0.05);
    expect(Math.abs(share((r) => r.type === 'government') - 0.04)).toBeLessThan(0.05);
    expect(Math.abs(share((r) => r.type === null) - 0.1)).toBeLessThan(0.05);
    for (const score of ['very_high', 'high', 'medium', 'low']) {
      expect(
        share((r) => r.confidence_score === score),
        score,
      ).toBeGreaterThan(0.03);
    }
    expect(share((r) => r.type === 'education' && 'id' in r.company)).toBeGreaterThan(0);
    expect(share((r) => r.type === 'government' && !('id' in r.company))).toBeGreaterThan(0);
  });

  it('reveals one organisation per /24 block', () => {
    const company = (ip: string) =>
      JSON.stringify([world.revealCompany(ip).type, world.revealCompany(ip).company]);
    for (const block of ['23.45.67', '81.2.69', '151.101.1']) {
      expect(company(`${block}.1`)).toBe(company(`${block}.200`));
    }
  });

  it('reveals nothing behind private, loopback and other special-purpose addresses', () => {
    for (const ip of [
      '10.1.2.3',
      '127.0.0.1',
      '192.168.1.10',
      '172.16.0.5',
      '169.254.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      expect(world.revealCompany(ip)).toEqual({
        ip,
        type: null,
        confidence_score: null,
        ip_geo: { city: null, state: null, country: null },
        company: {},
      });
    }
    expect(isSpecialPurposeIpv4('8.8.8.8')).toBe(false);
    expect(isSpecialPurposeIpv4('172.32.0.1')).toBe(false);
  });

  it('refuses what is not a dotted-quad IPv4 address with TypeError', () => {
    for (const bad of ['', '1.2.3', '256.1.1.1', '01.2.3.4', '::1', 'example.com']) {
      expect(() => world.revealCompany(bad)).toThrow(TypeError);
    }
  });
});
