/**
 * How a connection is left when a delivery is answered before its body was (wholly) read (issue 29): the
 * receiver (`hooksync serve`) and the express middleware both end that way, through this one function.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection answered before its body was read stays half-open for the sender to read the answer. */
export const LINGER_MS = 2000;

/**
 * Connections lingering at once in this process, beyond which the one that has lingered longest is destroyed
 * (its sender has had the most time to read its answer). Each holds a socket and what the kernel took in
 * unread (up to its receive buffer, ~128 KiB): 128 is at most ~16 MiB. Senders that retry after a pause, as
 * the service does, keep far fewer lingering (bench/RESULTS.md, "Lingering refused connections").
 */
export const MAX_LINGERING = 128;

/** Sockets half-closed and waiting for their timer, oldest first (a Set keeps insertion order). */
const lingering = new Set<Socket>();

/** Connections lingering right now in this process. */
export function lingeringConnections(): number {
  return lingering.size;
}

/**
 * For an answer sent before the body was (wholly) read: node:http would read the rest of the body only to
 * drop it, a buffer per chunk (garbage the ceiling would have to hold until V8 collects it, issue 29), and
 * close the socket as soon as the answer is written, which resets a connection whose sender is still
 * sending: the reset can reach the sender before it has read the answer, and only a 429, 500, 502 or 504
 * is retried. Instead the socket stops reading, the connection is half-closed once the answer is out, and
 * the socket is destroyed {@link LINGER_MS} later (it reads nothing more, so it cannot see the sender close),
 * or sooner when more than `maxLingering` connections linger and it is the oldest.
 * Call it before the answer is written, and send that answer with `Connection: close`.
 */
export function lingerWithoutReading(request: IncomingMessage, maxLingering = MAX_LINGERING): void {
  const socket = request.socket;
  // Taking what has arrived counts as consuming the body: node:http then does not drain the rest itself
  // (read(0) does not count once a chunk over the stream's high-water mark is buffered, as it usually is).
  request.read();
  // That restarts the socket's reads on the next tick ('resume'); stopping them after it stops them for good.
  process.nextTick(() => socket.pause());
  halfCloseThenLinger(socket, maxLingering);
}

/**
 * Before `answer` is written to `request`'s sender: when it closes the connection (`connection: 'close'`)
 * while the body is not wholly read, the connection is left as {@link lingerWithoutReading} leaves it. The
 * one rule for `hooksync serve` and the express middleware.
 */
export function lingerIfUnread(request: IncomingMessage, answer: { readonly connection?: string }): void {
  if (answer.connection === 'close' && !request.complete) lingerWithoutReading(request);
}

/**
 * Where node:http would close a connection once its last answer is written (`destroySoon`, which destroys
 * the socket as soon as the answer is flushed): half-close it instead and destroy it {@link LINGER_MS} later,
 * or when it closes first, or when `maxLingering` newer ones linger.
 */
export function halfCloseThenLinger(socket: Socket, maxLingering = MAX_LINGERING): void {
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    lingering.add(socket);
    socket.once('close', () => {
      clearTimeout(timer);
      lingering.delete(socket);
    });
    for (const oldest of lingering) {
      if (lingering.size <= maxLingering) break;
      lingering.delete(oldest);
      oldest.destroy();
    }
  };
}
