import { asIs, Family, Prompt, readIn, SAY_NOT_FOUND, Size, quoted, THOUSANDTHS } from './family';

/** y comes first in both of Gemini's forms: [ymin, xmin, ymax, xmax] and [y, x]. */
const xFirst = (v: number[]) => (v.length === 4 ? [v[1], v[0], v[3], v[2]] : [v[1], v[0]]);

/** Gemini: `box_2d` as [ymin, xmin, ymax, xmax], and points as [y, x], normalised to 0-1000. */
export const gemini: Family = {
  name: 'gemini',
  convention: 'JSON [{"box_2d": [ymin, xmin, ymax, xmax]}] normalised to 0-1000 (y first)',
  sendSize: asIs,
  prompt(description: string, _sent: Size, all: boolean): Prompt {
    return {
      user: `Detect ${all ? 'every element' : 'the one element'} matching ${quoted(description)} in the screenshot. Output a JSON list where each entry contains the 2D bounding box in "box_2d" and a text label in "label"; box_2d is [ymin, xmin, ymax, xmax] normalised to 0-1000. ${SAY_NOT_FOUND}`,
    };
  },
  read: (answer: string) => readIn(answer, THOUSANDTHS, xFirst),
};
