import data from './media-models.json' with { type: 'json' };
import type { MediaModel, MediaModelInfo, Modality } from './media-schema.ts';

const MODELS = data.models as readonly MediaModel[];
const BY_ID = new Map(MODELS.map((model) => [model.id, model]));

/** The media models the catalog lists (image, speech, transcription), optionally those giving one modality. */
export function listMediaModels(filter: { output_modality?: Modality | undefined } = {}): readonly MediaModel[] {
  const wanted = filter.output_modality;
  return wanted === undefined ? MODELS : MODELS.filter((model) => model.modalities.output.includes(wanted));
}

/** A media model of the catalog by its id. */
export function mediaModel(id: string): MediaModel | undefined {
  return BY_ID.get(id);
}

/** The media rows of `listModels()`, in the `/v1/models` shape. */
export function mediaModelRows(output: Modality | undefined): MediaModelInfo[] {
  return listMediaModels({ output_modality: output }).map((model) => ({
    ...model,
    object: 'model',
    owned_by: model.maker,
  }));
}
