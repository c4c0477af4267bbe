import fs from 'fs';
import type { Box } from '../../lib/types/screen';
import { renderPages } from '../../bench/locate/render';
import { FIXTURES } from '../helpers/glance';
import { testFolder } from '../helpers/test-root';

/**
 * The boxes of fixture elements, straight from the DOM of the page rendered
 * in Chromium at the sandbox's size: what the test vision model answers from.
 */
export interface GroundTruth {
  /** The page as Chromium drew it (a PNG file). */
  screenshot: string;
  /** Description → the boxes of every element its selector matches. */
  targets: Record<string, Box[]>;
}

export async function groundTruth(page: string, described: Record<string, string>): Promise<GroundTruth> {
  const dir = testFolder('truth-');
  const [rendered] = await renderPages(FIXTURES, [{ page, selectors: [...new Set(Object.values(described))] }], dir);
  const targets = Object.fromEntries(Object.entries(described).map(([description, selector]) => [description, rendered.all[selector]]));
  return { screenshot: rendered.screen, targets };
}

/** The descriptions of the studio fixture (features/fixtures/app/studio.html) and the elements they mean. */
export const STUDIO: Record<string, string> = {
  'the gear icon': '#gear',
  'the bell icon': '#bell',
  'the magnifier icon': '#magnifier',
  'the red banner': '#banner',
  'the blue square': '#swatch-blue',
  'the picture of a mountain': '#photo',
  'trash icons': '.trash',
  "the 'Layers' label": '#rotated',
  "the 'Export' button": '#export',
};

export const inside = (point: { x: number; y: number }, box: Box): boolean =>
  point.x >= box.x && point.x < box.x + box.width && point.y >= box.y && point.y < box.y + box.height;
