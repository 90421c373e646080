/**
 * The server's key stores read scopes and grants from here; the rules that decide with them are `src/access/`'s
 * (`scopes.ts`: what a key may do; `lineage.ts`: what a key it mints may do).
 */
export { childGrant } from '../access/lineage.ts';
export { ADMIN_GRANT, forbidden, isScope, type KeyGrant, SCOPES, type Scope } from '../access/scopes.ts';
