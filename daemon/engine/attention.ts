// Whether an agent is waiting for its person: its CLI's attention patterns, matched against
// what its terminal shows now (the last screenful, never the whole history).

export const SCREEN_LINES = 60;

/** The text of the first pattern that matches the screen, or null. */
export function waitingFor(screen: string, patterns: readonly RegExp[]): string | null {
  const visible = screen.split('\n').slice(-SCREEN_LINES).join('\n');
  for (const pattern of patterns) {
    const match = pattern.exec(visible);
    if (match) return match[0];
  }
  return null;
}
