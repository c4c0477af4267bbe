import { asIs, Family, Prompt, readIn, SAY_NOT_FOUND, Size, quoted, THOUSANDTHS } from './family';

/** Boxes normalised to 0-1000 whatever the image size: Qwen3-VL, Qwen2-VL, GLM-V, Doubao. */
export const norm1000: Family = {
  name: 'norm-1000',
  convention: 'boxes [x1, y1, x2, y2] normalised to 0-1000 of the image',
  sendSize: asIs,
  prompt(description: string, _sent: Size, all: boolean): Prompt {
    return {
      user: `Locate ${all ? 'every element' : 'the one element'} matching ${quoted(description)} in the screenshot. Output ${all ? 'their' : 'its'} bounding box${all ? 'es' : ''} in JSON format: [{"bbox_2d": [x1, y1, x2, y2], "label": "..."}], with coordinates normalised to 0-1000 of the image width and height. ${SAY_NOT_FOUND}`,
    };
  },
  read: (answer: string) => readIn(answer, THOUSANDTHS),
};
