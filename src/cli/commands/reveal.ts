/** `hooksync reveal`: launch a company reveal and store its result. */
import type { Command } from 'commander';
import { CONFIG_VARIABLES, type HooksyncConfig } from '../../config/load-config.js';
import { isPlainObject } from '../../contract/custom-fields.js';
import type { LaunchResult } from '../../launch/create-launcher.js';
import { type CliContext, CliError, EXIT_USAGE, writeLine } from '../context.js';
import { createLogger } from '../create-logger.js';
import { loadCliConfig } from '../load-cli-config.js';
import { addDatabaseOption, addJsonOption, addServiceOptions } from '../options.js';

interface RevealFlags {
  webhookUrl?: string;
  customField: string[];
  json?: boolean;
  apiBaseUrl?: string;
  apiKey?: string;
  databaseUrl?: string;
}

/** `k=v` pairs into custom_fields; values stay strings, as typed (the service echoes them unchanged). */
function parseCustomFields(pairs: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`--custom-field must be key=value (got "${pair}")`, EXIT_USAGE);
    fields[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return fields;
}

/** The account settings a launch needs, or a usage error naming the missing variable. */
export function requireService(config: HooksyncConfig): {
  baseUrl: string;
  apiKey: string;
  maxResponseBytes?: number;
  answerBudgetBytes?: number;
} {
  if (config.apiBaseUrl === undefined) {
    throw new CliError(
      `no service configured: set ${CONFIG_VARIABLES.apiBaseUrl} or pass --api-base-url`,
      EXIT_USAGE,
    );
  }
  if (config.apiKey === undefined) {
    throw new CliError(
      `no API key configured: set ${CONFIG_VARIABLES.apiKey} (or pass --api-key)`,
      EXIT_USAGE,
    );
  }
  return { baseUrl: config.apiBaseUrl, apiKey: config.apiKey, ...config.clientLimits };
}

function describeReveal(result: LaunchResult): string[] {
  const output = isPlainObject(result.response.job.output) ? result.response.job.output : {};
  const company = isPlainObject(output.company) ? output.company : {};
  const name = typeof company.name === 'string' ? company.name : '(no company)';
  const domain = typeof company.domain === 'string' ? ` ${company.domain}` : '';
  const confidence = typeof output.confidence_score === 'string' ? output.confidence_score : 'none';
  const stored = result.stored
    ? result.stored.duplicate
      ? 'already stored'
      : 'stored'
    : 'expected (not finished yet)';
  return [
    `job_id      ${result.job_id}`,
    `status      ${result.status}`,
    `company     ${name}${domain}`,
    `confidence  ${confidence}`,
    `hooksync    ${stored}`,
  ];
}

export function registerRevealCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('reveal')
    .description('reveal the company behind an IPv4 address; the result is stored at once')
    .argument('<ip>', 'IPv4 address')
    .option('--webhook-url <url>', 'callback URL for the finished job')
    .option(
      '--custom-field <key=value>',
      'a custom field (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [],
    );
  addJsonOption(command);
  addServiceOptions(command);
  addDatabaseOption(command);
  command.action(async (ip: string, flags: RevealFlags) => {
    const config = loadCliConfig(ctx.env, {
      apiBaseUrl: flags.apiBaseUrl,
      apiKey: flags.apiKey,
      databaseUrl: flags.databaseUrl,
    });
    const service = requireService(config);
    const customFields = parseCustomFields(flags.customField);
    const logger = createLogger(config.logLevel, ctx.stderr);
    const { createClient } = await import('../../client/create-client.js');
    const { createLauncher } = await import('../../launch/create-launcher.js');
    const { createJobStore } = await import('../../storage/job-store/job-store.js');
    const { openMigratedDatabase } = await import('../../storage/open-migrated-database.js');
    const client = createClient({ ...service, logger });
    const database = await openMigratedDatabase(config.databaseUrl, { logger });
    const store = createJobStore({ database, logger });
    try {
      const launcher = createLauncher({ client, store, db: database.db, logger });
      const result = await launcher.companyReveal({
        ip,
        webhook_url: flags.webhookUrl ?? null,
        custom_fields: customFields,
      });
      if (flags.json) writeLine(ctx.stdout, result.response.raw);
      else for (const line of describeReveal(result)) writeLine(ctx.stdout, line);
    } finally {
      await store.close();
      await database.close();
      logger.flush();
    }
  });
}
