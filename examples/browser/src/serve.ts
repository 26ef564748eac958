/**
 * Serves the built page (dist/site) on 127.0.0.1 for a person to open: ES modules need http://,
 * not file://. `pnpm --filter @zerda/example-browser start [port]` (default 4173). Any static file
 * server does the same job; the page itself needs no server.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const site = join(dirname(fileURLToPath(import.meta.url)), 'site');
const port = Number(process.argv[2] ?? process.env.PORT ?? 4173);
const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

if (!existsSync(join(site, 'index.html'))) {
  console.error(`${site} is missing: run pnpm --filter @zerda/example-browser build first`);
  process.exit(1);
}

const server = createServer((request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(site, path === '/' ? 'index.html' : path);
  if (!file.startsWith(site) || !existsSync(file) || !statSync(file).isFile()) {
    response.writeHead(404).end('not found');
    return;
  }
  response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(response);
});
server.listen(port, '127.0.0.1', () => console.log(`zerda in the browser: http://127.0.0.1:${port}/ (Ctrl-C stops it)`));
