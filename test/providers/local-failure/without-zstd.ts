import zlib from 'node:zlib';

/**
 * Preloaded (`--import`) to stand for a Node.js older than the package supports: Node before 22.15 has no
 * `zlib.createZstdDecompress`, and undici 8 reads it when it loads (`createZstdDecompress.bind`), so every call
 * through the HTTP client fails with a TypeError on those versions (found on 20, 22.12 and 22.14).
 */
delete (zlib as { createZstdDecompress?: unknown }).createZstdDecompress;
