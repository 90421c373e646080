import type { GeminiReply } from './gemini-server.ts';

/** Gemini's TTS models speak 24 kHz, 16-bit, mono PCM; its media type says the rate. */
export const SPEECH_RATE = 24_000;
export const SPEECH_MIME_TYPE = `audio/L16;codec=pcm;rate=${SPEECH_RATE}`;
/** Audio tokens a second of speech is counted as. */
const TOKENS_PER_SECOND = 32;

/**
 * What a Gemini TTS model (`…-tts`) answers to `generateContent`: with `responseModalities: ["AUDIO"]` and a prebuilt
 * voice, one `inlineData` part of little-endian PCM (a tone, about 15 characters a second of the prompt), its audio
 * tokens counted under modality AUDIO; asked for anything else, Gemini's 400. `undefined` for other models.
 */
export function speechReply(model: string, body: Record<string, any>): GeminiReply | undefined {
  if (!model.endsWith('-tts')) return undefined;
  const config = body.generationConfig ?? {};
  if (JSON.stringify(config.responseModalities) !== '["AUDIO"]') {
    const message = 'The requested combination of response modalities is not supported by the model.';
    return { error: { status: 400, googleStatus: 'INVALID_ARGUMENT', message } };
  }
  const voice = config.speechConfig?.voiceConfig?.prebuiltVoiceConfig?.voiceName;
  if (voice !== undefined && typeof voice !== 'string') {
    return { error: { status: 400, googleStatus: 'INVALID_ARGUMENT', message: 'Invalid voice name.' } };
  }
  const text = String(body.contents?.[0]?.parts?.[0]?.text ?? '');
  const pcm = speechPcm(text);
  const seconds = pcm.length / 2 / SPEECH_RATE;
  const audioTokens = Math.ceil(seconds * TOKENS_PER_SECOND);
  return {
    parts: [{ inlineData: { mimeType: SPEECH_MIME_TYPE, data: pcm.toString('base64') } }],
    usage: {
      promptTokenCount: Math.ceil(text.length / 4),
      candidatesTokenCount: audioTokens,
      candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: audioTokens }],
    },
  };
}

/** The PCM the fake speaks for a text: a 220 Hz tone as long as the text takes to say. */
export function speechPcm(text: string): Buffer {
  const samples = Math.round(Math.max(0.1, text.length / 15) * SPEECH_RATE);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 220 * i) / SPEECH_RATE) * 6000), i * 2);
  return pcm;
}
