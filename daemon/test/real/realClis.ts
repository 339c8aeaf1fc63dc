// The real CLIs under test, and what each needs to reach its main screen offline with a
// throwaway HOME (measured on the pinned versions; see scripts/test-real.mjs).

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface RealCli {
  name: string;
  /** A key of this CLI's form that holds no conversation. */
  deadKeyLike(): string;
  /** Its first screen with a new HOME waits for the person (sign-in, trust). */
  asksFirst: boolean;
  /** It picks its own id, which Corral learns once a conversation exists: what its main screen shows when ready. */
  learnsKey?: { ready: string };
}

export const REAL_CLIS: RealCli[] = [
  { name: 'claude', deadKeyLike: () => crypto.randomUUID(), asksFirst: true },
  { name: 'codex', deadKeyLike: () => crypto.randomUUID(), asksFirst: true, learnsKey: { ready: '← for agents' } },
  { name: 'gemini', deadKeyLike: () => crypto.randomUUID(), asksFirst: true },
  { name: 'qwen', deadKeyLike: () => crypto.randomUUID(), asksFirst: true },
  // opencode starts on its main screen with a free model of its own.
  { name: 'opencode', deadKeyLike: () => `ses_${crypto.randomBytes(13).toString('hex')}`, asksFirst: false, learnsKey: { ready: 'Ask anything' } },
];

const DUMMY = {
  anthropic: 'sk-ant-dummy-corral-offline-0123456789abcdefghij',
  openai: 'sk-proj-dummy-corral-offline-0123456789',
  gemini: 'dummy-corral-offline-gemini-key',
};

/** No request leaves the machine: every proxy points at a port nothing listens on. */
export const OFFLINE_ENV: Record<string, string> = {
  HTTPS_PROXY: 'http://127.0.0.1:9',
  HTTP_PROXY: 'http://127.0.0.1:9',
  https_proxy: 'http://127.0.0.1:9',
  http_proxy: 'http://127.0.0.1:9',
  NO_PROXY: '',
  ANTHROPIC_API_KEY: DUMMY.anthropic,
  GEMINI_API_KEY: DUMMY.gemini,
};

/** The least each CLI needs to reach its main screen in `cwd` (signed in with a dummy key, the folder trusted). */
export async function prepareHome(cli: string, { home, cwd, trusted = true }: { home: string; cwd: string; trusted?: boolean }): Promise<void> {
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
    fs.writeFileSync(path.join(home, file), text);
  };
  if (cli === 'claude') {
    write(
      '.claude.json',
      JSON.stringify({
        hasCompletedOnboarding: true,
        customApiKeyResponses: { approved: [DUMMY.anthropic.slice(-20)], rejected: [] },
        projects: { [cwd]: { hasTrustDialogAccepted: trusted } },
      }),
    );
  } else if (cli === 'codex') {
    write('.codex/auth.json', JSON.stringify({ auth_mode: 'apikey', OPENAI_API_KEY: DUMMY.openai }));
    write('.codex/config.toml', `[tui]\nscreen_reader_detection_done = true\n\n[projects.${JSON.stringify(cwd)}]\ntrust_level = "trusted"\n`);
  } else if (cli === 'gemini') {
    write('.gemini/settings.json', JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    write('.gemini/trustedFolders.json', JSON.stringify({ [cwd]: 'TRUST_FOLDER' }));
  } else if (cli === 'qwen') {
    // An OpenAI-compatible provider at a port nothing listens on.
    write('.qwen/settings.json', JSON.stringify({ security: { auth: { selectedType: 'openai', apiKey: 'x', baseUrl: 'http://127.0.0.1:9/v1' } }, model: { name: 'qwen3-coder-plus' } }));
  }
}
