/**
 * Runs once before the tests: builds dist/ when the sources are newer. Worker threads run JavaScript
 * only, so tests that start the receiver's store worker pass its build (BUILT_STORE_WORKER) even when
 * they run the sources; spawned `hooksync` processes need the build too.
 */
import { ensureBuilt } from './ensure-built.js';

export default function setup(): void {
  ensureBuilt();
}
