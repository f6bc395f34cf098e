/**
 * The `hooksync/simulator` subpath: the local stand-in for the service, for a user's own tests and trials.
 * Kept out of the main entry so that a receiver's import graph never loads the simulator.
 */
export {
  createSimulator,
  type Simulator,
  type WaitForDeliveriesOptions,
} from './simulator/create-simulator.js';
export type { SimJobSummary } from './simulator/sim-job-store.js';
export type { SimulatorOptions } from './simulator/simulator-options.js';
export type { DeliveryRecord } from './simulator/webhook-dispatcher.js';
