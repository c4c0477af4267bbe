import { coordsIn, notFoundReason } from '../answer';
import { Family, fraction, Prompt, Reading, SAY_NOT_FOUND, Size, quoted } from './family';

const GRID: Size = { width: 1000, height: 1000 };

/** Boxes normalised to 0-1000 whatever the image size: Qwen3-VL, Qwen2-VL, GLM-V, Doubao. */
export const norm1000: Family = {
  name: 'norm-1000',
  convention: 'boxes [x1, y1, x2, y2] normalised to 0-1000 of the image',
  sendSize: (source: Size): Size => ({ ...source }),
  prompt(description: string, _sent: Size, all: boolean): Prompt {
    return {
      user: `Locate ${all ? 'every element' : 'the one element'} matching ${quoted(description)} in the screenshot. Output ${all ? 'their' : 'its'} bounding box${all ? 'es' : ''} in JSON format: [{"bbox_2d": [x1, y1, x2, y2], "label": "..."}], with coordinates normalised to 0-1000 of the image width and height. ${SAY_NOT_FOUND}`,
    };
  },
  read(answer: string): Reading {
    const notFound = notFoundReason(answer);
    if (notFound) return { boxes: [], notFound };
    return { boxes: coordsIn(answer).map((c) => fraction(c.values, GRID)), notFound: null };
  },
};
