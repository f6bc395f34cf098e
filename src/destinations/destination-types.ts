/**
 * The destination types, by the `type` a configuration entry names. A new type (hubspot, issue 18) is one
 * file implementing DestinationType, added here.
 */
import type { DestinationBase, DestinationType } from './destination-type.js';
import { EMAIL_DESTINATION } from './email/email-destination.js';
import { FILE_DESTINATION } from './file-destination.js';
import { HUBSPOT_DESTINATION } from './hubspot/hubspot-destination.js';
import { PIPEDRIVE_DESTINATION } from './pipedrive/pipedrive-destination.js';
import { SALESFORCE_DESTINATION } from './salesforce/salesforce-destination.js';
import { SLACK_DESTINATION } from './slack/slack-destination.js';
import { WEBHOOK_DESTINATION } from './webhook-destination.js';

/** Every known destination type. */
export const DESTINATION_TYPES: Readonly<Record<string, DestinationType<DestinationBase>>> = Object.freeze({
  webhook: WEBHOOK_DESTINATION as unknown as DestinationType<DestinationBase>,
  file: FILE_DESTINATION as unknown as DestinationType<DestinationBase>,
  hubspot: HUBSPOT_DESTINATION as unknown as DestinationType<DestinationBase>,
  salesforce: SALESFORCE_DESTINATION as unknown as DestinationType<DestinationBase>,
  pipedrive: PIPEDRIVE_DESTINATION as unknown as DestinationType<DestinationBase>,
  slack: SLACK_DESTINATION as unknown as DestinationType<DestinationBase>,
  email: EMAIL_DESTINATION as unknown as DestinationType<DestinationBase>,
});
