// The web UI's files, served at `/` from the renderer's build. Fenced to that folder.

import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** No remote content, no inline script; xterm.js adds style elements, so styles may be inline. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

/** Serves a file of the UI; false when this is not a UI path (or there is no UI build). */
export function serveStatic(root: string | null, pathname: string, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (!root || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  let file = path.resolve(root, `.${path.posix.normalize(relative)}`);
  if (file !== root && !file.startsWith(root + path.sep)) return false;
  if (relative === '/' || !path.extname(file)) file = path.join(root, 'index.html');
  let body: Buffer;
  try {
    const real = fs.realpathSync(file);
    if (!real.startsWith(fs.realpathSync(root) + path.sep)) return false;
    body = fs.readFileSync(real);
  } catch {
    return false;
  }
  const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': body.length,
    'Cache-Control': file.endsWith('index.html') ? 'no-store' : 'public, max-age=3600',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    ...(type.startsWith('text/html') ? { 'Content-Security-Policy': CSP, 'X-Frame-Options': 'DENY' } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
