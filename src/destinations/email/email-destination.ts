/**
 * The `email` destination: a watch's changes e-mailed over SMTP (nodemailer), one message per change and
 * route target (an address, or the contact's owner, else the route's `fallback_to`), or gathered into
 * digests; a plain-text part and a simple HTML part. The owner's e-mail is the target itself.
 */
import type { Transporter } from 'nodemailer';
import { createAlertDestination } from '../alerts/alert-destination.js';
import type { AlertMedium } from '../alerts/alert-medium.js';
import { durationSchema } from '../config-fields.js';
import { type DestinationDeps, defineDestinationType, type OutboxDestination } from '../destination-type.js';
import { DEFAULT_RETRY_SCHEDULE } from '../webhook-destination.js';
import {
  type EmailDestinationConfig,
  emailRoutes,
  emailSchema,
  resolveEmailSecrets,
  smtpSettings,
} from './email-config.js';
import { type EmailMessage, emailChangeMessage, emailDigestMessage } from './email-messages.js';
import { createMailTransport, sendMail } from './send-mail.js';

/** Per-attempt timeout. */
export const DEFAULT_EMAIL_TIMEOUT_MS = 120_000;
/** Events in flight at once. */
export const DEFAULT_EMAIL_CONCURRENCY = 2;

function createEmailDestination(
  config: EmailDestinationConfig,
  secrets: readonly string[],
  deps: DestinationDeps,
): OutboxDestination {
  const variable = config.smtp_url.env;
  let transport: Transporter | undefined;
  const options = { from: config.from, variable, destination: config.name };
  const medium: AlertMedium<EmailMessage> = {
    changeMessage: (change, route) =>
      emailChangeMessage(change, route, {
        subject: config.routes[route.index]?.subject,
        recordUrl: config.record_link,
      }),
    digestMessages: (changes) => [emailDigestMessage(changes)],
    post(target, message) {
      // Built on first use: the URL was checked at load.
      transport ??= createMailTransport(smtpSettings(secrets[0]!, variable));
      return sendMail(transport, options, target, message);
    },
    ownerTarget: async (email) => ({ target: email }),
    describe: (message) => message.subject,
  };
  return createAlertDestination({
    name: config.name,
    routes: emailRoutes(config),
    medium,
    ownerCrm: config.owner_crm,
    deps,
  });
}

/** The `email` destination type. */
export const EMAIL_DESTINATION = defineDestinationType({
  type: 'email',
  schema: emailSchema,
  dispatchSettings: (config) => ({
    timeoutMs: config.timeout ?? DEFAULT_EMAIL_TIMEOUT_MS,
    scheduleMs: config.retry?.schedule ?? DEFAULT_RETRY_SCHEDULE.map((text) => durationSchema.parse(text)),
    concurrency: config.concurrency ?? DEFAULT_EMAIL_CONCURRENCY,
    rate: undefined,
    kinds: config.kinds,
  }),
  create: createEmailDestination,
  resolveSecrets: resolveEmailSecrets,
});
