/**
 * Request/reply over a child process's IPC channel: the parent calls `channel.call(type, payload)` and
 * the child answers with `serveChannel({ type: handler })`. Failures in the child come back as errors.
 */
import { fork } from 'node:child_process';

/** Forks `script` with IPC; its stdout and stderr go to our stderr (our stdout carries the tables). */
export function forkChild(script, args = [], options = {}) {
  const child = fork(script, args, { stdio: ['ignore', 2, 2, 'ipc'], ...options });
  let nextId = 1;
  const pending = new Map();
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      for (const { reject } of pending.values()) {
        reject(new Error(`${script} exited (code ${code}, signal ${signal}) before answering`));
      }
      pending.clear();
      resolve({ code, signal });
    });
  });
  const listeners = new Map();
  child.on('message', (message) => {
    if (message?.event !== undefined) {
      for (const listener of listeners.get(message.event) ?? []) listener(message.data);
      return;
    }
    const waiter = pending.get(message?.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new Error(`${script}: ${message.error}`));
  });
  return {
    child,
    exited,
    /** Calls `listener(data)` for every `emitEvent(name, data)` of the child. */
    on(name, listener) {
      listeners.set(name, [...(listeners.get(name) ?? []), listener]);
    },
    /** Removes every listener of `name`. */
    off(name) {
      listeners.delete(name);
    },
    /** Sends one request and resolves with the child's result. */
    call(type, payload = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, type, payload });
      });
    },
    /** Asks the child to stop (the `stop` handler), then waits for it to exit; kills it after `timeoutMs`. */
    async stop(timeoutMs = 15_000) {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        if (child.connected) await this.call('stop').catch(() => undefined);
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** In a forked child: tells the parent that `name` happened (see `on`). */
export function emitEvent(name, data = null) {
  process.send({ event: name, data });
}

/** In a forked child: answers the parent's requests; `stop` is answered, then the process exits. */
export function serveChannel(handlers) {
  process.on('message', async (message) => {
    const { id, type, payload } = message ?? {};
    const handler = handlers[type];
    try {
      if (handler === undefined) throw new Error(`no handler for ${type}`);
      const result = await handler(payload);
      // For stop: disconnect only once the answer has left, so that the parent gets it.
      process.send({ id, ok: true, result: result ?? null }, () => {
        if (type === 'stop') process.disconnect();
      });
    } catch (error) {
      process.send({ id, ok: false, error: error?.stack ?? String(error) });
    }
  });
  // The parent went away: do not linger.
  process.on('disconnect', () => setImmediate(() => process.exit(0)));
}
