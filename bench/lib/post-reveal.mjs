/**
 * One signed, realistic Company Reveal POSTed to a serve's /webhooks, for the benchmarks that deliver one at a
 * time (serve-idle.mjs, onward-latency.mjs).
 */
import { realisticReveal } from './realistic-payloads.mjs';

/** Delivers the reveal of `jobId`; resolves once it is answered 200 (throws on any other status). */
export async function postReveal(url, signer, random, jobId) {
  const body = realisticReveal(random, jobId);
  const token = signer.signBody(body, jobId);
  const response = await fetch(`${url}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': token },
    body,
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`delivery answered ${response.status}`);
}
