// A viewer's output as text: a backend gives text or UTF-8 bytes (a character may be split
// across two chunks), the engine gives bytes.

/** Turns each chunk of one stream into its text, holding a split character for the next. */
export function outputText(): (data: string | Uint8Array) => string {
  const decoder = new TextDecoder();
  return (data) => (typeof data === 'string' ? data : decoder.decode(data, { stream: true }));
}
