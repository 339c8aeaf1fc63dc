// One host's link: the system's `ssh`, with the person's own config, keys and agent (Corral
// stores no password or key). One ssh connection a link (ssh's own ControlMaster, on a control
// socket in this home, ended with the link): through it the link probes the host and has
// `corral endpoint` make sure a daemon serves there (probe.ts), then adds a tunnel from a unix
// socket in this home (mode 0600, no open TCP port) to that daemon's loopback address, and
// checks it through the tunnel. One handshake a connection, not one for the probe and one for
// the tunnel. A connection that drops, or a remote daemon that stops answering, is followed:
// connect again, probe again, new tunnel, retries backing off from 1 s to 30 s. Everything is
// asynchronous and timed out, so a host that never answers slows nothing else.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { splitTarget, type HostView, type MissingPiece } from '../contract/hosts';
import { CorralError } from '../contract/errors';
import { missingMessage, probeCommand, readProbe } from './probe';

export interface LinkOptions {
  name: string;
  target: string;
  corral: string | null;
  /** The folder of the tunnels' sockets (in CORRAL_HOME). */
  socketDir: string;
  /** An ssh_config for `ssh -F` (CORRAL_SSH_CONFIG); else ssh reads the person's own. */
  sshConfig?: string;
  onChange(view: HostView): void;
  now?: () => number;
}

/** Where the proxy sends a host's requests. */
export interface Route {
  socket: string;
  /** The Host header the remote daemon expects (its own loopback address). */
  host: string;
  token: string;
}

const PROBE_TIMEOUT_MS = 40_000;
const TUNNEL_TIMEOUT_MS = 15_000;
const HEALTH_INTERVAL_MS = 2_000;
const HEALTH_TIMEOUT_MS = 5_000;
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;

export class Link {
  private state: HostView['state'] = 'connecting';
  private message: string | null = null;
  private missing: MissingPiece[] | undefined;
  private attempt = 0;
  private nextTryAt: number | undefined;
  private remote: { url: string; port: number; token: string } | null = null;
  /** The connection's ssh (the master): probe and tunnel go through it, and end with it. */
  private tunnel: ChildProcess | null = null;
  /** The ssh command under way through the connection (the probe, or the forward asked for). */
  private command: ChildProcess | null = null;
  private retry: NodeJS.Timeout | null = null;
  private health: NodeJS.Timeout | null = null;
  private checking = false;
  private closed = false;
  /** Proxied connections: they end when the tunnel does. */
  private readonly proxied = new Set<net.Socket>();
  readonly socket: string;
  /** The master's control socket: the probe and the tunnel's forward are asked through it. */
  readonly control: string;

  constructor(private readonly options: LinkOptions) {
    this.socket = path.join(options.socketDir, `${options.name}.sock`);
    this.control = path.join(options.socketDir, `${options.name}.ctl`);
  }

  get name(): string {
    return this.options.name;
  }

  view(): HostView {
    return {
      name: this.options.name,
      target: this.options.target,
      corral: this.options.corral,
      state: this.state,
      message: this.message,
      ...(this.missing ? { missing: this.missing } : {}),
      ...(this.nextTryAt === undefined ? {} : { attempt: this.attempt, nextTryAt: this.nextTryAt }),
    };
  }

  start(): void {
    void this.connect();
  }

  /** Where a proxied request goes; refused, with what the link is doing, while it is not connected. */
  route(): Route {
    if (this.state === 'connected' && this.remote) return { socket: this.socket, host: `127.0.0.1:${this.remote.port}`, token: this.remote.token };
    const doing =
      this.state === 'connecting'
        ? 'connecting'
        : this.state === 'missing'
          ? 'missing what Corral needs there'
          : `${this.state === 'failed' ? 'not reachable' : 'reconnecting'}${this.nextTryAt ? ` (next try in ${Math.max(0, Math.ceil((this.nextTryAt - this.now()) / 1000))} s)` : ''}`;
    throw new CorralError('host_unreachable', `host ${this.options.name} is ${doing}${this.message ? `: ${this.message.split('\n')[0]}` : ''}; nothing was sent`);
  }

  /** A proxied connection, ended with the tunnel it goes through. */
  hold(socket: net.Socket): void {
    this.proxied.add(socket);
    socket.once('close', () => this.proxied.delete(socket));
  }

  /** Checks the tunnel now (a proxied request just failed through it). */
  checkSoon(): void {
    if (this.state === 'connected') void this.checkHealth();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.health) clearInterval(this.health);
    this.command?.kill('SIGKILL');
    await this.endTunnel();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private set(state: HostView['state'], fields: { message?: string | null; missing?: MissingPiece[] } = {}): void {
    this.state = state;
    this.message = fields.message ?? null;
    this.missing = fields.missing;
    if (state === 'connected' || state === 'connecting') this.nextTryAt = undefined;
    this.options.onChange(this.view());
  }

  private sshArgs(): string[] {
    const { destination, port } = splitTarget(this.options.target);
    return [
      ...(this.options.sshConfig ? ['-F', this.options.sshConfig] : []),
      '-o', 'BatchMode=yes',
      '-o', 'ConnectTimeout=10',
      '-o', 'ServerAliveInterval=5',
      '-o', 'ServerAliveCountMax=3',
      ...(port ? ['-p', String(port)] : []),
      '-T',
      '--',
      destination,
    ];
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    this.retry = null;
    if (this.attempt === 0) this.set('connecting');
    const connected = await this.openConnection();
    if (this.closed) return;
    if (connected) return this.fail(connected);
    const ran = await this.runProbe();
    if (this.closed) return;
    if ('error' in ran) return this.fail(ran.error);
    const found = readProbe(ran.stdout);
    if (found.kind === 'missing') return this.fail(missingMessage(this.options.name, found.missing), found.missing);
    if (found.kind === 'unreadable') return this.fail(lastLine(ran.stderr) || `corral endpoint printed no endpoint on ${this.options.name}: ${lastLine(found.output) || 'nothing'}`);
    this.remote = { url: found.url, port: Number(new URL(found.url).port), token: found.token };
    const opened = await this.openTunnel();
    if (this.closed) return;
    if (opened) return this.fail(opened);
    this.attempt = 0;
    this.set('connected');
    this.health = setInterval(() => void this.checkHealth(), HEALTH_INTERVAL_MS);
  }

  /** The probe and `corral endpoint`, one ssh command through the connection: what it printed, or ssh's own error. */
  private async runProbe(): Promise<{ stdout: string; stderr: string } | { error: string }> {
    const { code, stdout, stderr } = await this.sshCommand(['-o', 'ControlMaster=no'], probeCommand(this.options.corral ?? 'corral'));
    // 255: ssh's own failure (connection, authentication); else what the remote command said.
    if (code === 255 || code === null) return { error: lastLine(stderr) || `ssh to ${this.options.target} failed` };
    if (code !== 0 && !stdout.includes('corral-probe')) return { error: lastLine(stderr) || `the probe on ${this.options.name} exited with ${code}` };
    return { stdout, stderr };
  }

  /**
   * One ssh command through the connection's control socket (`options` before the host, a remote
   * `command` after it), ended after PROBE_TIMEOUT_MS: what it printed and its exit code (null when killed).
   */
  private sshCommand(options: string[], command?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn('ssh', ['-S', this.control, ...options, ...this.sshArgs(), ...(command === undefined ? [] : [command])], { stdio: ['ignore', 'pipe', 'pipe'] });
      this.command = child;
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (data: Buffer) => (stdout += data));
      child.stderr!.on('data', (data: Buffer) => (stderr += data));
      const timer = setTimeout(() => {
        stderr += `\nno answer from ${this.options.name} within ${PROBE_TIMEOUT_MS / 1000} s`;
        child.kill('SIGKILL');
      }, PROBE_TIMEOUT_MS);
      child.once('error', (err) => (stderr += `\ncannot run ssh: ${err.message}`));
      child.once('close', (code) => {
        clearTimeout(timer);
        if (this.command === child) this.command = null;
        resolve({ code, stdout, stderr });
      });
    });
  }

  /**
   * Starts the connection, `ssh -N -M -S control` (the person's own config, its ControlMaster and
   * ControlPath aside: this one is the link's own, and ends with it), and waits for its control
   * socket; an error, or null.
   */
  private async openConnection(): Promise<string | null> {
    await this.endTunnel();
    fs.mkdirSync(this.options.socketDir, { recursive: true, mode: 0o700 });
    fs.rmSync(this.socket, { force: true });
    fs.rmSync(this.control, { force: true });
    const child = spawn('ssh', ['-N', '-M', '-S', this.control, '-o', 'ControlPersist=no', '-o', 'StreamLocalBindUnlink=yes', '-o', 'StreamLocalBindMask=0177', ...this.sshArgs()], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.tunnel = child;
    let stderr = '';
    child.stderr!.on('data', (data: Buffer) => (stderr += data));
    child.once('error', (err) => (stderr += `\ncannot run ssh: ${err.message}`));
    child.once('exit', () => {
      if (this.tunnel !== child) return;
      this.tunnel = null;
      if (this.state === 'connected') this.drop(lastLine(stderr) || `the ssh connection to ${this.options.name} ended`);
    });
    const ended = () => child.exitCode !== null || child.signalCode !== null;
    // ssh makes the control socket once it is logged in; ConnectTimeout bounds the handshake.
    const deadline = this.now() + TUNNEL_TIMEOUT_MS;
    for (;;) {
      if (this.closed) return null;
      if (ended() || this.tunnel !== child) return lastLine(stderr) || `ssh to ${this.options.target} failed`;
      if (fs.existsSync(this.control)) return null;
      if (this.now() > deadline) {
        await this.endTunnel();
        return `no answer from ${this.options.name} within ${TUNNEL_TIMEOUT_MS / 1000} s`;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Adds the tunnel, socket to the remote daemon, to the connection and waits until the daemon answers through it; an error, or null. */
  private async openTunnel(): Promise<string | null> {
    const master = this.tunnel;
    if (!master) return `the ssh connection to ${this.options.name} ended`;
    const asked = await this.sshCommand(['-O', 'forward', '-L', `${this.socket}:127.0.0.1:${this.remote!.port}`]);
    if (asked.code !== 0) return lastLine(asked.stderr) || `the tunnel to ${this.options.name} could not be opened`;
    const deadline = this.now() + TUNNEL_TIMEOUT_MS;
    for (;;) {
      if (this.closed) return null;
      if (this.tunnel !== master) return `the ssh connection to ${this.options.name} ended as the tunnel opened`;
      if (fs.existsSync(this.socket) && (await this.healthy())) return null;
      if (this.now() > deadline) return `the tunnel to ${this.options.name} did not answer within ${TUNNEL_TIMEOUT_MS / 1000} s`;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The remote daemon's /healthz, through the tunnel. */
  private healthy(): Promise<boolean> {
    const remote = this.remote;
    if (!remote) return Promise.resolve(false);
    return new Promise((resolve) => {
      const req = http.get({ socketPath: this.socket, path: '/healthz', headers: { Host: `127.0.0.1:${remote.port}` }, timeout: HEALTH_TIMEOUT_MS, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
    });
  }

  private async checkHealth(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const ok = await this.healthy();
      if (!ok && this.state === 'connected' && !this.closed) this.drop(`the Corral daemon on ${this.options.name} stopped answering`);
    } finally {
      this.checking = false;
    }
  }

  /** The link was up and is not: streams through it end, and it reconnects. */
  private drop(why: string): void {
    if (this.health) clearInterval(this.health);
    this.health = null;
    for (const socket of this.proxied) socket.destroy();
    void this.endTunnel();
    this.fail(why);
  }

  private fail(message: string, missing?: MissingPiece[]): void {
    if (this.closed) return;
    // The connection of an attempt that failed ends with it; the next try makes its own.
    void this.endTunnel();
    this.attempt += 1;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (this.attempt - 1));
    this.nextTryAt = this.now() + delay;
    // Once connected, a failure is a reconnection; before, ssh's word (or what is missing) is the state.
    const state = missing ? 'missing' : this.state === 'connected' || this.state === 'reconnecting' ? 'reconnecting' : 'failed';
    this.set(state, { message, ...(missing ? { missing } : {}) });
    this.retry = setTimeout(() => void this.connect(), delay);
  }

  private async endTunnel(): Promise<void> {
    const child = this.tunnel;
    this.tunnel = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    // A connection killed outright leaves its sockets: they go too.
    fs.rmSync(this.socket, { force: true });
    fs.rmSync(this.control, { force: true });
  }
}

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1) ?? ''
  );
}
