import { z } from 'zod';
import { readableByOthers } from '../internal/private-file.ts';

/** A secret written in the config file, or `{ env: NAME }`: read from that variable, so the file can be shared. */
export const secretSchema = z.union([z.string().min(1), z.strictObject({ env: z.string().min(1) })]);

export type Secret = z.infer<typeof secretSchema>;

/** A value written in the config file that is a secret: an API key, or a connection URL with a password in it. */
export function isSecretText(path: string, value: string): boolean {
  if (path !== 'database' && path !== 'redis') return true;
  try {
    return new URL(value).password !== '';
  } catch {
    return false;
  }
}

/**
 * A config file others can read that holds secrets written in it (not `{ env: NAME }`) is said once, as a process
 * warning naming the file, its mode and where the secrets are (never their values).
 */
export function warnIfReadableWithSecrets(path: string, literalSecrets: readonly string[]): void {
  if (literalSecrets.length === 0) return;
  const mode = readableByOthers(path);
  if (!mode) return;
  process.emitWarning(
    `--config ${path} is readable by other users of this machine (mode ${mode}) and holds secrets written in it ` +
      `(${literalSecrets.join(', ')}): chmod 600 ${path}, or read them from the environment ({ env: NAME }).`,
    { code: 'SWITCHYARD_CONFIG_READABLE' },
  );
}
