import type { FamilyName } from '../../../config/vision';
import type { Family } from './family';
import { pixels } from './pixels';
import { qwen25 } from './qwen25';
import { norm1000 } from './norm1000';
import { gemini } from './gemini';
import { uiTars10, uiTars15 } from './ui-tars';

export type { Family, FracBox, Reading, Size } from './family';

/** Every family by the name GLANCE_AI_FAMILY takes. */
export const FAMILY_ADAPTERS: Record<FamilyName, Family> = {
  pixels,
  'qwen2.5-vl': qwen25,
  'norm-1000': norm1000,
  gemini,
  'ui-tars-1.0': uiTars10,
  'ui-tars-1.5': uiTars15,
};
