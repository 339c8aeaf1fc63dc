// How the command line (and the MCP server) reach the running daemon of a home: CORRAL_URL
// and CORRAL_TOKEN when set, else the daemon's endpoint file in CORRAL_HOME.

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

/** One HTTP request to the daemon; a refusal is a ClientError with the daemon's error. */
export async function request<T>(conn: Connection, { verb, path, body }: HttpCall): Promise<T> {
  let res: Response;
  try {
    res = await fetch(conn.url + path, {
      method: verb,
      headers: { Authorization: `Bearer ${conn.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new NoDaemonError(`the Corral daemon at ${conn.url} is not answering (is corral serve running?)`);
  }
  const text = await res.text();
  const value = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const error = (value as { error?: ErrorShape } | undefined)?.error;
    throw new ClientError(error?.message ?? `${verb} ${path} failed with ${res.status}`, res.status, error);
  }
  return value as T;
}

/** The daemon's contract, for the command line and the MCP server. */
export function daemonApi(conn: Connection): Contract {
  return httpClient((call) => request(conn, call));
}
