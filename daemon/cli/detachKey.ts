// The key that leaves `corral attach`, apart from attach.ts so the help can name it without
// loading the WebSocket client.

export const DETACH_KEY = '\u001d';
export const DETACH_KEY_NAME = 'Ctrl-]';
