/**
 * `node:sqlite`, fetched when a SQLite store or sink is made rather than imported with the module: importing it
 * fails on Node 22 before 22.13 (and warns on some later versions) for every user of the package, not only those
 * who store anything in SQLite. `who` names the feature in the error.
 */
export function loadSqlite(who: string): typeof import('node:sqlite') {
  let sqlite: typeof import('node:sqlite') | undefined;
  try {
    sqlite = process.getBuiltinModule('node:sqlite');
  } catch {
    sqlite = undefined;
  }
  if (!sqlite?.DatabaseSync) {
    throw new Error(
      `${who} needs node:sqlite, which Node.js ${process.version} does not provide without a flag: use Node.js ` +
        `22.13 or newer.`,
    );
  }
  return sqlite;
}
