import { MEDIA_MODELS as MODELS } from './media-models.ts';
import type { MediaModel, MediaModelInfo, Modality } from './media-schema.ts';

let byId: Map<string, MediaModel> | undefined;

/** The media models the catalog lists (image, speech, transcription), optionally those giving one modality. */
export function listMediaModels(filter: { output_modality?: Modality | undefined } = {}): readonly MediaModel[] {
  const wanted = filter.output_modality;
  return wanted === undefined ? MODELS : MODELS.filter((model) => model.modalities.output.includes(wanted));
}

/** A media model of the catalog by its id. */
export function mediaModel(id: string): MediaModel | undefined {
  byId ??= new Map(MODELS.map((model) => [model.id, model]));
  return byId.get(id);
}

/** The media rows of `listModels()`, in the `/v1/models` shape. */
export function mediaModelRows(output: Modality | undefined): MediaModelInfo[] {
  return listMediaModels({ output_modality: output }).map((model) => ({
    ...model,
    object: 'model',
    owned_by: model.maker,
  }));
}
