// What a host's probe prints, read: what is missing with the one command that installs it (with
// the host's own package manager), the endpoint after the login shell's own lines, and nothing
// taken for an endpoint that is not a loopback address.

import { describe, expect, it } from 'vitest';
import { splitTarget } from '../contract/hosts';
import { missingMessage, probeCommand, readProbe } from '../hosts/probe';
import { hostPath } from '../transports/http/hostProxy';

describe('the probe of a host', () => {
  it('is one sh -c script with no quote or backslash of its own, whatever the login shell', () => {
    const command = probeCommand('~/bin/corral');
    expect(command.startsWith("sh -c '")).toBe(true);
    expect(command.endsWith("'")).toBe(true);
    expect(command.slice(7, -1)).not.toMatch(/['\\]/);
    expect(command).toContain('exec ~/bin/corral endpoint');
  });

  it('names what is missing, with the install command of the package manager found there', () => {
    const found = readProbe('Welcome to devbox\ncorral-probe missing tmux corral pm=dnf\n');
    expect(found).toEqual({
      kind: 'missing',
      missing: [
        { what: 'tmux', install: 'sudo dnf install tmux' },
        { what: 'corral', install: expect.stringContaining('corral hosts add NAME TARGET --corral PATH') },
      ],
    });
    expect(readProbe('corral-probe missing node pm=brew\n')).toEqual({ kind: 'missing', missing: [{ what: 'node', install: 'brew install node' }] });
    // No package manager found: Debian's words.
    const none = readProbe('corral-probe missing tmux pm=\n');
    expect(none.kind === 'missing' && missingMessage('devbox', none.missing)).toBe('tmux is not installed on devbox: sudo apt-get install tmux');
  });

  it('reads the endpoint after what the login shell printed, and only a loopback one', () => {
    expect(readProbe('motd line\ncorral-probe ok\n{"protocol":1,"url":"http://127.0.0.1:4321","token":"crl_x"}\n')).toEqual({ kind: 'endpoint', protocol: 1, url: 'http://127.0.0.1:4321', token: 'crl_x' });
    expect(readProbe('corral-probe ok\n{"protocol":1,"url":"http://evil.example:80","token":"crl_x"}\n').kind).toBe('unreadable');
    expect(readProbe('bash: corral: command not found\n').kind).toBe('unreadable');
  });
});

describe('a host target and the proxy path', () => {
  it('split the port from the ssh destination', () => {
    expect(splitTarget('me@devbox:2222')).toEqual({ destination: 'me@devbox', port: 2222 });
    expect(splitTarget('[::1]:22')).toEqual({ destination: '[::1]', port: 22 });
    expect(splitTarget('devbox')).toEqual({ destination: 'devbox', port: null });
  });

  it('proxies only /api/hosts/NAME/api/… and /healthz', () => {
    expect(hostPath('/api/hosts/devbox/api/sessions/x/stream')).toEqual({ name: 'devbox', path: '/api/sessions/x/stream' });
    expect(hostPath('/api/hosts/devbox/healthz')).toEqual({ name: 'devbox', path: '/healthz' });
    expect(hostPath('/api/hosts/devbox')).toBeNull();
    expect(hostPath('/api/hosts/devbox/index.html')).toBeNull();
    expect(hostPath('/api/hosts/%E0%A4%A/api/sessions')).toBeNull();
  });
});
