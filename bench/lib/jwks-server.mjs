/**
 * A webhook key set on a local socket (GET /.well-known/jwks.json), what the servers under test fetch
 * their verification key from.
 */
import { createServer } from 'node:http';

/** Serves `{ keys }` on 127.0.0.1, a free port. */
export async function startJwksServer(keys) {
  const payload = JSON.stringify({ keys });
  const server = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) })
      .end(payload);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
