// Secrets that must not outlive a process in a receipt. Each shape keeps a short prefix,
// so a person can still tell what kind of thing was there.

const SHAPES: [RegExp, (match: string) => string][] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, () => '[redacted private key]'],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, () => 'Bearer [redacted]'],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, () => 'sk-[redacted]'],
  [/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, (m) => `${m.slice(0, 4)}[redacted]`],
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, (m) => `${m.slice(0, 4)}[redacted]`],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, (m) => `${m.slice(0, 5)}[redacted]`],
  [/\bcrl_[A-Za-z0-9_-]{16,}/g, () => 'crl_[redacted]'],
  [/\b(api[_-]?key|secret|token|password)(["']?\s*[:=]\s*["']?)[^\s"']{8,}/gi, (m) => m.replace(/([:=]\s*["']?)[^\s"']{8,}$/, '$1[redacted]')],
];

export function redact(text: string): string {
  let out = text;
  for (const [pattern, replace] of SHAPES) out = out.replace(pattern, replace);
  return out;
}

/** The last `maxBytes` of text as UTF-8, cut on a character boundary. */
export function tailBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString('utf8');
}
