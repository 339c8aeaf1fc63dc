// `corral endpoint`: what a host's link runs over ssh. It makes sure a daemon serves this home
// (starting `corral serve` on loopback, detached, when none answers) and prints one JSON line:
// the protocol, the daemon's address and its local token, for the link's tunnel to use.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { PROTOCOL_VERSION } from '../contract/routes';
import { readEndpoint, type Endpoint } from '../home/endpoint';
import { NoDaemonError } from './clientErrors';

const START_TIMEOUT_MS = 20_000;

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/healthz`, { timeout: 3_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

async function serving(home: string): Promise<Endpoint | null> {
  const endpoint = readEndpoint(home);
  return endpoint && (await answers(endpoint.url)) ? endpoint : null;
}

export async function endpointCommand(home: string, print: (text: string) => number): Promise<number> {
  let endpoint = await serving(home);
  if (!endpoint) {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    // The daemon outlives this command and the ssh connection that ran it: its own session, output to a log.
    const log = fs.openSync(path.join(home, 'serve.log'), 'a', 0o600);
    // ssh passes no locale unless told to; the agents inherit this one, and their terminals are UTF-8.
    const env = process.env.LANG || process.env.LC_ALL || process.env.LC_CTYPE ? process.env : { ...process.env, LANG: 'C.UTF-8' };
    const child = spawn(process.execPath, [process.argv[1]!, 'serve', '--host', '127.0.0.1', '--port', '0', '--home', home], { detached: true, stdio: ['ignore', log, log], env });
    fs.closeSync(log);
    let exited: number | null = null;
    child.once('exit', (code) => (exited = code ?? 1));
    child.unref();
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!endpoint) {
      // A daemon that another start won the home from is fine: that one answers.
      endpoint = await serving(home);
      if (endpoint) break;
      if (exited !== null && !readEndpoint(home)) throw new NoDaemonError(`corral serve exited (${exited}) before it served ${home}: see ${path.join(home, 'serve.log')}`);
      if (Date.now() > deadline) throw new NoDaemonError(`corral serve did not answer within ${START_TIMEOUT_MS / 1000} s: see ${path.join(home, 'serve.log')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return print(JSON.stringify({ protocol: PROTOCOL_VERSION, url: endpoint.url, token: endpoint.token }));
}
