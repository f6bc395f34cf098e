/**
 * Runs once before the tests: builds dist/ when the sources are newer. Worker threads run JavaScript
 * only, so the receiver's store worker (src/storage/store-worker.ts) runs from its build even when the
 * tests run the sources; spawned `hooksync` processes need the build too.
 */
import { ensureBuilt } from './ensure-built.js';

export default function setup(): void {
  ensureBuilt();
}
