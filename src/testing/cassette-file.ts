import { readFileSync } from 'node:fs';
import type { CassetteFile, CassetteInteraction, CassetteResponse } from './cassette.ts';

/** A cassette file read from disk, and a stored answer turned back into a `Response`. */

export function load(path: string): CassetteInteraction[] {
  let file: Partial<CassetteFile>;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as Partial<CassetteFile>;
  } catch (error) {
    throw new Error(
      `Cannot replay the cassette ${path}: ${(error as Error).message}. Record it first (mode: 'record' or 'auto').`,
      { cause: error },
    );
  }
  if (file.version !== 1 || !Array.isArray(file.interactions))
    throw new Error(`${path} is not a cassette (expected { "version": 1, "interactions": [...] }).`);
  return file.interactions;
}

export function storedResponse(status: number, headers: Record<string, string>, text: string): CassetteResponse {
  if (/json/i.test(headers['content-type'] ?? '') && text !== '') {
    try {
      return { status, headers, json: JSON.parse(text) };
    } catch {
      // Not valid JSON after all: kept as text.
    }
  }
  return { status, headers, body: text };
}

export function nullBodyStatus(status: number): boolean {
  return status === 101 || status === 204 || status === 205 || status === 304;
}
