/**
 * The destination types, by the `type` a configuration entry names, each loaded only when a configuration
 * names it: `serve` with no destination, or with a webhook only, never loads a CRM's modules. A new type
 * is one file implementing DestinationType, added here as one line.
 */
import type { DestinationBase, DestinationType } from './destination-type.js';

/** Loads one destination type's module. */
export type DestinationTypeLoader = () => Promise<DestinationType<DestinationBase>>;

/** A type's own config type widened to the registry's (the loader hands it only configs its schema made). */
const widen = <C extends DestinationBase>(type: DestinationType<C>) =>
  type as unknown as DestinationType<DestinationBase>;

/** Every known destination type, by name. */
export const DESTINATION_TYPES: Readonly<Record<string, DestinationTypeLoader>> = Object.freeze({
  webhook: async () => widen((await import('./webhook-destination.js')).WEBHOOK_DESTINATION),
  file: async () => widen((await import('./file-destination.js')).FILE_DESTINATION),
  hubspot: async () => widen((await import('./hubspot/hubspot-destination.js')).HUBSPOT_DESTINATION),
  salesforce: async () =>
    widen((await import('./salesforce/salesforce-destination.js')).SALESFORCE_DESTINATION),
  pipedrive: async () => widen((await import('./pipedrive/pipedrive-destination.js')).PIPEDRIVE_DESTINATION),
  slack: async () => widen((await import('./slack/slack-destination.js')).SLACK_DESTINATION),
  email: async () => widen((await import('./email/email-destination.js')).EMAIL_DESTINATION),
});

/** The type named `name`, loaded; undefined when no type has that name. */
export async function loadDestinationType(
  name: string,
): Promise<DestinationType<DestinationBase> | undefined> {
  const load = Object.hasOwn(DESTINATION_TYPES, name) ? DESTINATION_TYPES[name] : undefined;
  return load === undefined ? undefined : load();
}
