// What a desktop notification may say. An agent's screen gives the words of a "needs you"
// notice (its prompt), and Linux notification daemons render a body's markup (<b>, <a href>,
// <img>): the words are shown as they are, never as markup, and terminal control characters
// and bidi controls (which could reorder what is shown) go.

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g;

/** Plain text, safe in a notification's body on every platform. */
export function notificationText(text: string, markup: boolean): string {
  const plain = text.replace(UNSAFE, ' ');
  return markup ? plain.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : plain;
}

/** Whether this platform's notifications read their body as markup. */
export const notificationsReadMarkup = (platform: string): boolean => platform === 'linux';
