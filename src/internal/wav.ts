/** A WAV file (RIFF, 16-bit PCM, mono) of the given samples, for every runtime. */
export function encodeWav(samples: Int16Array, sampleRate: number): Uint8Array {
  const pcm = new Uint8Array(samples.length * 2);
  const view = new DataView(pcm.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return pcmToWav(pcm, sampleRate);
}

/** A WAV file around 16-bit little-endian mono PCM bytes (an odd trailing byte is left out: half a sample). */
export function pcmToWav(pcm: Uint8Array, sampleRate: number): Uint8Array {
  const length = pcm.length - (pcm.length % 2);
  const out = new Uint8Array(44 + length);
  const view = new DataView(out.buffer);
  const text = (at: number, value: string) => {
    for (let i = 0; i < value.length; i++) out[at + i] = value.charCodeAt(i);
  };
  text(0, 'RIFF');
  view.setUint32(4, 36 + length, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  text(36, 'data');
  view.setUint32(40, length, true);
  out.set(pcm.subarray(0, length), 44);
  return out;
}

/** 96 kHz × 32-bit × 2 channels: no WAV a speech API takes streams more bytes a second. */
const MAX_WAV_BYTE_RATE = 768_000;

/** A WAV file's duration in seconds, from its `fmt ` and `data` chunks; `undefined` for anything else. */
export function wavSeconds(bytes: Uint8Array): number | undefined {
  if (bytes.length < 12 || ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE') return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let byteRate: number | undefined;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = ascii(bytes, at);
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 20 <= bytes.length) byteRate = view.getUint32(at + 16, true);
    if (id === 'data') {
      // A size of 0 (or past the end: a stream's header) is read as the bytes there are, as decoders read it.
      const there = bytes.length - at - 8;
      const length = size === 0 || size > there ? there : size;
      // A rate past any real WAV's (a header the sender wrote to look short) is not believed.
      return byteRate ? length / Math.min(byteRate, MAX_WAV_BYTE_RATE) : undefined;
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}

function ascii(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}
