/**
 * A retry wait (`retry: { wait }`) that notes each backoff the gateway chose and spends none of it: tests see that
 * a provider's retry-after was honoured as sent, without waiting it out.
 */
export interface RecordingWait {
  /** Each wait asked for, in milliseconds, rounded. */
  readonly waits: number[];
  readonly wait: (milliseconds: number, signal: AbortSignal | undefined) => Promise<void>;
}

export function recordingWait(): RecordingWait {
  const waits: number[] = [];
  return {
    waits,
    wait: async (milliseconds) => {
      waits.push(Math.round(milliseconds));
    },
  };
}
