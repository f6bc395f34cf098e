/**
 * The destination types, by the `type` a configuration entry names, each loaded only when a configuration
 * names it: `serve` with no destination, or with a webhook only, never loads a CRM's modules. A new type
 * is one folder whose type is made with defineDestinationType (destination-type.ts), added here as one line.
 */
import type { DestinationType } from './destination-type.js';

/** Loads one destination type's module. */
export type DestinationTypeLoader = () => Promise<DestinationType>;

/** Every known destination type, by name. */
export const DESTINATION_TYPES: Readonly<Record<string, DestinationTypeLoader>> = Object.freeze({
  webhook: async () => (await import('./webhook-destination.js')).WEBHOOK_DESTINATION,
  file: async () => (await import('./file-destination.js')).FILE_DESTINATION,
  hubspot: async () => (await import('./hubspot/hubspot-destination.js')).HUBSPOT_DESTINATION,
  salesforce: async () => (await import('./salesforce/salesforce-destination.js')).SALESFORCE_DESTINATION,
  pipedrive: async () => (await import('./pipedrive/pipedrive-destination.js')).PIPEDRIVE_DESTINATION,
  slack: async () => (await import('./slack/slack-destination.js')).SLACK_DESTINATION,
  email: async () => (await import('./email/email-destination.js')).EMAIL_DESTINATION,
});

/** The type named `name`, loaded; undefined when no type has that name. */
export async function loadDestinationType(name: string): Promise<DestinationType | undefined> {
  const load = Object.hasOwn(DESTINATION_TYPES, name) ? DESTINATION_TYPES[name] : undefined;
  return load === undefined ? undefined : load();
}
