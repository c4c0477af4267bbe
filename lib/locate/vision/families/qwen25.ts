import { Family, Prompt, readIn, SAY_NOT_FOUND, Size, quoted } from './family';
import { SAFE_MAX_PIXELS, smartResize } from './resize';

/**
 * Qwen2.5-VL: `bbox_2d` in pixels of the image as the model resized it
 * (sides in multiples of 28). Glance sends an image already at such a size,
 * within every deployment's pixel ceiling, and still maps through the
 * model's resize, so a server with other bounds reads the same.
 */
export const qwen25: Family = {
  name: 'qwen2.5-vl',
  convention: "JSON [{\"bbox_2d\": [x1, y1, x2, y2]}] in pixels of the model's own resized image (sides multiples of 28)",
  sendSize(source: Size): Size {
    return smartResize(source, SAFE_MAX_PIXELS);
  },
  prompt(description: string, _sent: Size, all: boolean): Prompt {
    return {
      user: `Locate ${all ? 'every element' : 'the one element'} matching ${quoted(description)} in the screenshot, and output ${all ? 'their' : 'its'} bbox coordinates in JSON format: [{"bbox_2d": [x1, y1, x2, y2], "label": "..."}]. ${SAY_NOT_FOUND}`,
    };
  },
  // The model's own resize of the image sent: the grid its pixels count in.
  read: (answer: string, sent: Size) => readIn(answer, smartResize(sent)),
};
