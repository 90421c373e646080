import { describe, expect, it } from 'vitest';
import { isReadOnlyReply, storageErrorOf } from '../../src/server/shared-state.ts';

/** Redis's replies told apart: an outage (503) from a wrong command (500), in every form Redis words them. */
const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

describe('a Redis reply', () => {
  it('READONLY is an outage, bare or inside a script’s error (Redis 7, and Redis 6’s wrapping)', () => {
    const bare = 'READONLY You can’t write against a read only replica.';
    const script7 = `${bare} script: 88c9, on @user_script:1.`;
    const script6 = `ERR Error running script (call to f_88c9): @user_script:1: -${bare}`;
    for (const message of [bare, script7, script6]) {
      expect(storageErrorOf(reply(message))?.status, message).toBe(503);
      expect(isReadOnlyReply(message), message).toBe(true);
    }
  });

  it('a wrong command, or a key named like a reply, is not', () => {
    for (const message of ['ERR wrong number of arguments', 'WRONGTYPE Operation against a key', 'ERR no READONLYx']) {
      expect(storageErrorOf(reply(message)), message).toBeUndefined();
      expect(isReadOnlyReply(message), message).toBe(false);
    }
  });
});
