import { describe, expect, it } from 'vitest';
import { sessionView as session } from '../../daemon/test/support/sessionView';
import { linkFromArgv, parseDeepLink, sessionLink } from '../deepLink';
import { loginShellEnv, parseEnvOutput } from '../loginShellEnv';
import { notificationText, notificationsReadMarkup } from '../notificationText';
import { trayMenu } from '../trayMenu';
import { restoreWindowState } from '../windowState';

const ID = '6f1209a7-1b90-4c61-97a2-2d6eedeac469';

describe('deep links', () => {
  it('accept exactly corral://session/<id>', () => {
    expect(parseDeepLink(`corral://session/${ID}`)).toEqual({ ok: true, link: { kind: 'session', id: ID } });
    expect(parseDeepLink(`corral://session/${ID}/`)).toEqual({ ok: true, link: { kind: 'session', id: ID } });
    expect(sessionLink(ID)).toBe(`corral://session/${ID}`);
  });

  it('accept corral://session/<host>/<id> for a session on a remote host, local as this machine', () => {
    expect(parseDeepLink(`corral://session/devbox-2/${ID}`)).toEqual({ ok: true, link: { kind: 'session', id: ID, host: 'devbox-2' } });
    expect(parseDeepLink(`corral://session/local/${ID}`)).toEqual({ ok: true, link: { kind: 'session', id: ID } });
    expect(sessionLink(ID, 'devbox')).toBe(`corral://session/devbox/${ID}`);
  });

  it.each([
    ['https://example.com', 'not a Corral link'],
    [`corral://session/${ID}?cmd=rm%20-rf`, 'a Corral link takes no query or fragment'],
    [`corral://session/${ID}#x`, 'a Corral link takes no query or fragment'],
    [`corral://run/${ID}`, 'unknown link kind "run" (expected corral://session/<id>)'],
    ['corral://session/../../etc/passwd', 'the link does not name a session id'],
    [`corral://session/${ID}/extra`, 'the link does not name a session id'],
    [`corral://session/Dev%20Box/${ID}`, 'the link does not name a host'],
    [`corral://session/-oProxyCommand=x/${ID}`, 'the link does not name a host'],
    [`corral://session/me@devbox/${ID}`, 'the link does not name a host'],
    [`corral://session/a/b/${ID}`, 'the link does not name a session id'],
    ['corral://session/not-a-uuid', 'the link does not name a session id'],
    [`corral://user:pw@session/${ID}`, 'a Corral link has no user, password or port'],
    [`corral://session:99/${ID}`, 'a Corral link has no user, password or port'],
    [`corral://session/${ID}${'x'.repeat(300)}`, 'not a Corral link'],
    [42, 'not a Corral link'],
  ])('refuse %s', (link, reason) => {
    expect(parseDeepLink(link)).toEqual({ ok: false, reason });
  });

  it('are found in a command line among other arguments', () => {
    expect(linkFromArgv(['/opt/Corral/corral', '--no-sandbox', `corral://session/${ID}`])).toBe(`corral://session/${ID}`);
    expect(linkFromArgv(['/opt/Corral/corral', '.'])).toBeNull();
  });
});

describe('the tray menu', () => {
  it('lists each session with its state and the one action that fits, then the app items', () => {
    const model = trayMenu(
      [
        session({ id: 'a', name: 'api', needsYou: { source: 'screen', since: 0, detail: 'Do you want to proceed?' } }),
        session({ id: 'b', name: 'docs', state: 'stopped' }),
        session({ id: 'c', name: 'ops', state: 'exited', resumable: false, lastExit: { code: 2, signal: null, at: 0 } }),
        session({ id: 'd', name: 'old', state: 'stopped', archivedAt: 5 }),
        session({ id: 'e', name: 'build', activity: 'working' }),
      ],
    );
    expect(model.items.map((i) => i.label)).toEqual(['api — needs you', 'docs — stopped', 'ops — exited (2)', 'build — working', '', 'New session…', 'Show Corral', 'Stop all…', '', 'Desktop notifications', 'Quit']);
    expect(model.items[0]!.submenu!.map((i) => i.action)).toEqual([{ kind: 'show-session', id: 'a' }, { kind: 'stop', id: 'a' }]);
    expect(model.items[1]!.submenu![1]).toEqual({ label: 'Resume', action: { kind: 'start', id: 'b' } });
    expect(model.items[2]!.submenu![1]).toEqual({ label: 'Start', action: { kind: 'start', id: 'c' } });
    expect(model.attention).toBe(true);
    expect(model.tooltip).toBe('Corral — 2 running, 1 needs you');
  });

  it('with no sessions says so, and Stop all is disabled', () => {
    const model = trayMenu([]);
    expect(model.items[0]).toEqual({ label: 'No sessions', enabled: false });
    expect(model.items.find((i) => i.label === 'Stop all…')?.enabled).toBe(false);
    expect(model.attention).toBe(false);
  });

  it('ticks the notifications setting, which is on unless turned off', () => {
    const toggle = (options: { notifications?: boolean }) => trayMenu([], options).items.find((i) => i.action?.kind === 'toggle-notifications')?.checked;
    expect([toggle({}), toggle({ notifications: true }), toggle({ notifications: false })]).toEqual([true, true, false]);
  });
});

describe('window state', () => {
  const display = { x: 0, y: 0, width: 1920, height: 1080 };
  it('restores size, position and maximised state on a display that is there', () => {
    expect(restoreWindowState({ x: 100, y: 80, width: 1000, height: 700, maximized: true }, [display])).toEqual({ x: 100, y: 80, width: 1000, height: 700, maximized: true });
  });
  it('drops a position on a display that is gone, and junk altogether', () => {
    expect(restoreWindowState({ x: 3000, y: 80, width: 1000, height: 700, maximized: false }, [display])).toEqual({ width: 1000, height: 700, maximized: false });
    expect(restoreWindowState('junk', [display])).toEqual({ width: 1200, height: 800, maximized: false });
    expect(restoreWindowState({ width: 5, height: 5 }, [display])).toEqual({ width: 400, height: 300, maximized: false });
  });
});

describe('the login shell environment', () => {
  it('is read between marks, ignoring what the shell prints at start-up', () => {
    expect(parseEnvOutput('Welcome!\n__CORRAL_ENV__PATH=/opt/bin:/usr/bin\0HOME=/h\0MULTI=a\nb\0__CORRAL_ENV__')).toEqual({ PATH: '/opt/bin:/usr/bin', HOME: '/h', MULTI: 'a\nb' });
    expect(parseEnvOutput('no marks here')).toBeNull();
  });

  it('wins over the thin GUI environment, and a failing shell leaves ours', async () => {
    const ok = await loginShellEnv('/bin/zsh', { PATH: '/usr/bin', KEEP: '1' }, async () => '__CORRAL_ENV__PATH=/Users/me/.local/bin:/usr/bin\0__CORRAL_ENV__');
    expect(ok).toEqual({ env: { PATH: '/Users/me/.local/bin:/usr/bin', KEEP: '1' }, problem: null });
    const failed = await loginShellEnv('/bin/zsh', { PATH: '/usr/bin' }, async () => {
      throw new Error('timed out');
    });
    expect(failed).toEqual({ env: { PATH: '/usr/bin' }, problem: '/bin/zsh failed to give its environment: timed out' });
  });

  it('works against a real shell', async () => {
    const { env, problem } = await loginShellEnv('/bin/sh', { PATH: '/usr/bin:/bin' });
    expect(problem).toBeNull();
    expect(env.PATH).toBeTruthy();
  });
});

describe('notification text', () => {
  it("shows an agent's words as they are, never as markup where the body is markup (Linux)", () => {
    const prompt = 'Allow <b>rm</b> & <a href="https://evil.example">this</a>?';
    expect(notificationText(prompt, true)).toBe('Allow &lt;b&gt;rm&lt;/b&gt; &amp; &lt;a href="https://evil.example"&gt;this&lt;/a&gt;?');
    expect(notificationText(prompt, false)).toBe(prompt);
    expect(notificationsReadMarkup('linux')).toBe(true);
    expect(notificationsReadMarkup('darwin')).toBe(false);
  });
  it('drops terminal and bidi controls', () => {
    expect(notificationText('ok\u001b]0;x\u0007 report\u202efdp.sh', false)).toBe('ok ]0;x  report fdp.sh');
  });
});
