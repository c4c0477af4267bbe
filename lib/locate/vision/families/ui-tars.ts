import { actionParser } from '@ui-tars/action-parser';
import type { FamilyName } from '../../../config/vision';
import { notFoundReason } from '../answer';
import { asIs, Family, FracBox, Prompt, Reading, Size, quoted } from './family';

/**
 * UI-TARS answers with actions: `click(start_box='(x,y)')`, a point. Version
 * 1.0 writes it in 0-1000 of the image; 1.5 in pixels of the image as its
 * processor resized it (sides multiples of 28). @ui-tars/action-parser reads
 * the action grammar and knows both conventions.
 */
function uiTars(name: FamilyName, version: '1.0' | '1.5'): Family {
  return {
    name,
    convention: version === '1.0'
      ? "click(start_box='(x,y)') points in 0-1000 of the image"
      : "click(start_box='(x,y)') points in pixels of the model's own resized image (sides multiples of 28)",
    sendSize: asIs,
    prompt(description: string, _sent: Size, all: boolean): Prompt {
      return {
        system: 'You are a GUI agent. You are given a task and a screenshot. Output the next action.\n\n'
          + '## Output Format\n```\nThought: ...\nAction: ...\n```\n\n'
          + "## Action Space\nclick(start_box='<|box_start|>(x1,y1)<|box_end|>')\nfinished(content='xxx') # when the element is not on the screen, say what is there instead.\n",
        user: all
          ? `## User Instruction\nClick every element matching ${quoted(description)}: write one click action per match, separated by a blank line.`
          : `## User Instruction\nClick the element matching ${quoted(description)}.`,
      };
    },
    read(answer: string, sent: Size): Reading {
      // Only the action lines go to the parser: it logs what it cannot read, and prose is no action.
      const actions = answer.split(/Action[:：]/).pop()!.split(/\n\s*\n/).map((a) => a.trim()).filter((a) => /^\w+\(.*\)$/s.test(a));
      const clicks = actions.length
        ? actionParser({ prediction: `Action: ${actions.join('\n\n')}`, factor: [1000, 1000], screenContext: sent, modelVer: version as never }).parsed
        : [];
      const boxes: FracBox[] = [];
      let finished: string | null = null;
      for (const action of clicks) {
        const start = action.action_inputs?.start_box;
        if (action.action_type === 'finished') finished = String(action.action_inputs?.content ?? 'the model finished without a click');
        if (!start) continue;
        const [x1, y1, x2, y2] = JSON.parse(start) as number[];
        const clamp = (v: number) => Math.max(0, Math.min(1, v));
        boxes.push({ x1: clamp(Math.min(x1, x2)), y1: clamp(Math.min(y1, y2)), x2: clamp(Math.max(x1, x2)), y2: clamp(Math.max(y1, y2)), point: x1 === x2 && y1 === y2 });
      }
      if (boxes.length) return { boxes, notFound: null };
      return { boxes: [], notFound: finished ?? notFoundReason(answer) };
    },
  };
}

export const uiTars10 = uiTars('ui-tars-1.0', '1.0');
export const uiTars15 = uiTars('ui-tars-1.5', '1.5');
