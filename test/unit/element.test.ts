import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Element } from '../../lib/sdk';
import type { ElementDetails, ElementHost } from '../../lib/client/element';
import type { LocatedElement } from '../../lib/types/locate';

const host: ElementHost = {
  pointerAt: async () => undefined,
  find: async () => { throw new Error('not used'); },
};

const cache = { hit: false, strategy: 'miss' as const, createdAt: '2024-01-01T00:00:00.000Z', diffPercent: null, imageUrl: null };

function located(over: Partial<LocatedElement>): LocatedElement {
  return { box: { x: 10, y: 20, width: 80, height: 24 }, text: 'Add user', confidence: 0.9, engine: 'ocr', reason: 'read "Add user" at 10,20', selector: null, crop: null, aiResponse: null, ...over };
}

function element(over: Partial<ElementDetails>): Element {
  return new Element(host, {
    description: 'the Add user button', located: null, threshold: 0.01, cache, similarity: null,
    notFound: null, debugScreenshot: null, findOptions: {}, ...over,
  });
}

test('selector is the engine\'s own selector, in the getter and in JSON alike', () => {
  const selector = 'window["Users"] >> role=button[name="Add user"]';
  const button = element({ located: located({ engine: 'a11y', selector, reason: 'role=button name "Add user"' }) });
  assert.equal(button.selector, selector);
  assert.equal(JSON.parse(JSON.stringify(button)).selector, selector);
});

test('selector is null where no engine gave one: OCR, and not found', () => {
  const read = element({ located: located({ engine: 'ocr' }) });
  assert.equal(read.selector, null);
  assert.equal(read.toJSON().selector, null);
  const missing = element({ notFound: "Element not found: 'the Add user button'." });
  assert.equal(missing.selector, null);
  assert.equal(missing.toJSON().selector, null);
});

test('aiResponse is the model\'s answer where a model answered, in the getter and in JSON alike', () => {
  const answer = 'The "Add user" button is at the top right.';
  const found = element({ located: located({ engine: 'vision', aiResponse: answer }), aiResponse: answer });
  assert.equal(found.aiResponse, answer);
  assert.equal(found.toJSON().aiResponse, answer);
  const missing = element({ notFound: "Element not found: 'the Add user button'.", aiResponse: 'There is no such element.' });
  assert.equal(missing.aiResponse, 'There is no such element.');
  assert.equal(missing.toJSON().aiResponse, 'There is no such element.');
});

test('aiResponse without a model is the engine\'s reason, or why nothing was found, in the getter and in JSON alike', () => {
  const read = element({ located: located({ reason: 'read "Add user" at 10,20' }) });
  assert.equal(read.aiResponse, 'read "Add user" at 10,20');
  assert.equal(read.toJSON().aiResponse, read.aiResponse);
  const missing = element({ notFound: "Element not found: 'the Add user button'." });
  assert.equal(missing.aiResponse, "Element not found: 'the Add user button'.");
  assert.equal(missing.toJSON().aiResponse, missing.aiResponse);
});

test('JSON has exactly the spec\'s keys', () => {
  const json = element({ located: located({}) }).toJSON();
  assert.deepEqual(Object.keys(json).sort(), ['aiResponse', 'cache', 'confidence', 'coordinates', 'description', 'found', 'selector', 'similarity', 'threshold', 'x', 'y']);
});
