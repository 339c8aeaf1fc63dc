// What a click on a path printed in a terminal shows.

export interface FolderEntry {
  name: string;
  /** Absolute path, to open it in turn. */
  path: string;
  folder: boolean;
}

export type PathPreview =
  | {
      kind: 'text';
      path: string;
      size: number;
      /** At most 256 KiB of it. */
      text: string;
      truncated: boolean;
      /** The line the printed path pointed at (`file.ts:42`), to scroll into view. */
      line: number | null;
      /** Hand it back when saving: a file changed since it was read is not overwritten. */
      version: string;
    }
  | { kind: 'image'; path: string; size: number; mime: string; base64: string }
  | { kind: 'binary'; path: string; size: number }
  | { kind: 'folder'; path: string; entries: FolderEntry[]; truncated: boolean }
  | { kind: 'missing'; path: string }
  | { kind: 'refused'; path: string; reason: string };

/** The folders inside a folder, for picking a session's folder. */
export interface FolderList {
  /** The folder listed: absolute, `~` expanded. */
  path: string;
  /** Its parent, or null at the root. */
  parent: string | null;
  /** The names of the folders in it (hidden ones left out), sorted. */
  folders: string[];
  /** More folders than the list holds. */
  truncated: boolean;
}
