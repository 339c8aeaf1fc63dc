import path from 'node:path';

/** Whether `file` is `root` or inside it, as paths (no link is followed). */
export function inside(file: string, root: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
