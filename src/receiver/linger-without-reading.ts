/**
 * How a connection is left when a delivery is answered before its body was (wholly) read (issue 29): the
 * receiver (`hooksync serve`) and the express middleware both end that way, through this one function.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection answered before its body was read stays half-open for the sender to read the answer. */
export const LINGER_MS = 2000;

/**
 * For an answer sent before the body was (wholly) read: node:http would read the rest of the body only to
 * drop it, a buffer per chunk (garbage the ceiling would have to hold until V8 collects it, issue 29), and
 * close the socket as soon as the answer is written, which resets a connection whose sender is still
 * sending: the reset can reach the sender before it has read the answer, and only a 429, 500, 502 or 504
 * is retried. Instead the socket stops reading, the connection is half-closed once the answer is out, and
 * the socket is destroyed {@link LINGER_MS} later (it reads nothing more, so it cannot see the sender close).
 * Call it before the answer is written, and send that answer with `Connection: close`.
 */
export function lingerWithoutReading(request: IncomingMessage): void {
  const socket = request.socket;
  // Taking what has arrived counts as consuming the body: node:http then does not drain the rest itself
  // (read(0) does not count once a chunk over the stream's high-water mark is buffered, as it usually is).
  request.read();
  // That restarts the socket's reads on the next tick ('resume'); stopping them after it stops them for good.
  process.nextTick(() => socket.pause());
  halfCloseThenLinger(socket);
}

/**
 * Where node:http would close a connection once its last answer is written (`destroySoon`, which destroys
 * the socket as soon as the answer is flushed): half-close it instead and destroy it {@link LINGER_MS} later,
 * or when it closes first.
 */
export function halfCloseThenLinger(socket: Socket): void {
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
