import { Family, Prompt, readIn, SAY_NOT_FOUND, Size, quoted } from './family';

/** The longest side and shortest side GPT-style models look at in detail; a larger screen is sent smaller. */
const MAX_LONG = 2048;
const MAX_SHORT = 768;

/** Absolute pixels on the sent image, as JSON (GPT-style models and most general chat models). */
export const pixels: Family = {
  name: 'pixels',
  convention: 'JSON boxes [x1, y1, x2, y2] in pixels of the image sent',
  sendSize({ width, height }: Size): Size {
    const scale = Math.min(1, MAX_LONG / Math.max(width, height), MAX_SHORT / Math.min(width, height));
    return { width: Math.round(width * scale), height: Math.round(height * scale) };
  },
  prompt(description: string, sent: Size, all: boolean): Prompt {
    return {
      system: `You locate user-interface elements on screenshots. The screenshot is ${sent.width}x${sent.height} pixels; coordinates are pixels of that image, x to the right and y down from the top-left corner.`,
      user: `Find ${all ? 'every element' : 'the one element'} matching this description: ${quoted(description)}. `
        + `Answer with JSON only: {"found": true, "boxes": [[x1, y1, x2, y2]${all ? ', …' : ''}]}, where x1, y1 is the top-left and x2, y2 the bottom-right corner of ${all ? 'each' : 'the'} element. ${SAY_NOT_FOUND}`,
    };
  },
  read: (answer: string, sent: Size) => readIn(answer, sent),
};
