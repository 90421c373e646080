import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Files that hold secrets or what callers sent (API keys, prompts and answers): created for the process's user
 * alone. A file that already exists is left as the operator made it; `readableByOthers` says whether to warn.
 */

/** Makes `path`'s directory (0700 when it creates it) and the file itself (0600) when missing. */
export function ensurePrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // `wx` would fail on an existing file; `a` creates it with the mode or opens it unchanged.
  closeSync(openSync(path, 'a', 0o600));
}

/** The file's mode (`"644"`) when its group or other users can read it; `undefined` when not, or not on POSIX. */
export function readableByOthers(path: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    const mode = statSync(path).mode & 0o777;
    return mode & 0o044 ? mode.toString(8) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * For a data file about to be opened: made this user's alone when missing; when it exists and others can read it,
 * the fields of the warning to log (it is left as it is: the operator may share it on purpose).
 */
export function claimPrivateFile(path: string): Record<string, string> | undefined {
  const mode = readableByOthers(path);
  ensurePrivateFile(path);
  if (!mode) return undefined;
  return { path, mode, hint: `chmod 600 ${path}*: it holds the API keys' hashes and every call's prompt and answer` };
}
