// How the command line (and the MCP server) reach the running daemon of a home: CORRAL_URL
// and CORRAL_TOKEN when set, else the daemon's endpoint file in CORRAL_HOME.

import http from 'node:http';
import type { ErrorShape } from '../contract/errors';
import type { Contract } from '../contract/contract';
import { httpClient, type HttpCall } from '../contract/httpClient';
import { readEndpoint } from '../home/endpoint';
import { ClientError, NoDaemonError } from './clientErrors';

export interface Connection {
  url: string;
  token: string;
}

export function connect(home: string, env: NodeJS.ProcessEnv = process.env): Connection {
  const endpoint = readEndpoint(home);
  const url = env.CORRAL_URL || endpoint?.url;
  if (!url) throw new NoDaemonError(`no Corral daemon is running for ${home} (start one with: corral serve)`);
  const token = env.CORRAL_TOKEN || (endpoint && (!env.CORRAL_URL || env.CORRAL_URL === endpoint.url) ? endpoint.token : '');
  if (!token) throw new NoDaemonError(`no token for ${url}: set CORRAL_TOKEN (make one with: corral token create NAME)`);
  return { url: url.replace(/\/$/, ''), token };
}

/**
 * One HTTP request to the daemon; a refusal is a ClientError with the daemon's error. Through
 * node:http rather than fetch, whose undici takes longer to load than the whole request.
 */
export async function request<T>(conn: Connection, { verb, path, body }: HttpCall): Promise<T> {
  const json = body === undefined ? undefined : JSON.stringify(body);
  let res: { status: number; text: string };
  try {
    res = await send(new URL(conn.url + path), verb, { Authorization: `Bearer ${conn.token}`, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) }, json);
  } catch {
    throw new NoDaemonError(`the Corral daemon at ${conn.url} is not answering (is corral serve running?)`);
  }
  const value = res.text ? JSON.parse(res.text) : undefined;
  if (res.status < 200 || res.status >= 300) {
    const error = (value as { error?: ErrorShape } | undefined)?.error;
    throw new ClientError(error?.message ?? `${verb} ${path} failed with ${res.status}`, res.status, error);
  }
  return value as T;
}

async function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Promise<{ status: number; text: string }> {
  // node:https (and TLS with it) only for a daemon reached over https: loading it is a few ms of every command.
  const transport = url.protocol === 'https:' ? (await import('node:https')).default : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The daemon's contract, for the command line and the MCP server. */
export function daemonApi(conn: Connection): Contract {
  return httpClient((call) => request(conn, call));
}
