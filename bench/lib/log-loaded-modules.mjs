/**
 * A module hook (registered by bench/serve-modules.mjs with `node --import`): appends the URL of every
 * ES module loaded, by any thread, to the file $HOOKSYNC_BENCH_LOAD_LOG.
 */
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';

// Every thread runs `--import` again and registers the hook for itself.
register(import.meta.url);

/** The loader hook: notes the URL, then loads as usual. */
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.HOOKSYNC_BENCH_LOAD_LOG, `${url}\n`);
  return next(url, context);
}
