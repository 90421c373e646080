/** An OpenAI images `size` (`1024x1536`) as numbers; `undefined` for anything else (`auto`). */
export function parseImageSize(size: unknown): { width: number; height: number } | undefined {
  const match = /^(\d+)x(\d+)$/.exec(String(size));
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** The aspect ratio of `ratios` (each `W:H`) nearest `width` / `height`, compared on a log scale. */
export function nearestAspectRatio(width: number, height: number, ratios: readonly string[]): string {
  const wanted = Math.log(width / height);
  const distance = (ratio: string) => {
    const [w, h] = ratio.split(':').map(Number);
    return Math.abs(Math.log(w! / h!) - wanted);
  };
  return ratios.reduce((best, candidate) => (distance(candidate) < distance(best) ? candidate : best));
}
