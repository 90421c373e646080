/** An image a Gemini answer carries inline: its media type and base64 bytes. */
export interface InlineImage {
  mimeType: string;
  data: string;
}

/**
 * The images among a candidate's parts (`inlineData` with an `image/*` type), in order: what Gemini's image models
 * answer with under `responseModalities: ["IMAGE"]`. Parts of other kinds are left to the caller.
 */
export function inlineImagesOf(parts: unknown): InlineImage[] {
  if (!Array.isArray(parts)) return [];
  const images: InlineImage[] = [];
  for (const part of parts) {
    const inline = (part as { inlineData?: { mimeType?: unknown; data?: unknown } } | null)?.inlineData;
    if (typeof inline?.data !== 'string' || typeof inline.mimeType !== 'string') continue;
    if (inline.mimeType.startsWith('image/')) images.push({ mimeType: inline.mimeType, data: inline.data });
  }
  return images;
}
