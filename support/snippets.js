'use strict';
// Snippets for undefined steps that first point at the phrasings Glance
// already has nearby, since a near miss is the usual cause.
const { compiled } = require('../lib/runtime/compiled');
const { editDistance } = compiled('lib/config/closest');
const { variants } = compiled('steps/phrase');

// Importing the steps fills the registry, if the support code has not already.
const registry = () => compiled('steps/index').STEP_REGISTRY;

const ROLE_WORDS = /^(?:buttons?|fields?|links?|check ?box(?:es)?|tabs?|icons?|menu items?|drop ?downs?|radio buttons?)\b\s*/;

/**
 * A phrasing in comparable form: lower case, every argument as `{}` (a
 * description, quoted, and the role word Cucumber left after it are one
 * argument: `the {string} button` → `the {}`).
 */
function comparable(text) {
  const parts = text.toLowerCase().replace(/\{(?:string|quoted|element|direction|word)\}/g, '{}').replace(/\{(?:int|float)\}/g, '{n}').split('{}');
  return parts.map((part, i) => (i > 0 ? part.replace(/^\s*/, ' ').replace(/^ /, '').replace(ROLE_WORDS, '') : part)).join('{} ').replace(/\s+/g, ' ').trim();
}

function distanceTo(phrase, wanted) {
  return Math.min(...variants(phrase).map((v) => editDistance(comparable(v), wanted)));
}

class GlanceSnippetSyntax {
  constructor(snippetInterface) {
    this.snippetInterface = snippetInterface;
  }

  build({ comment, generatedExpressions, functionName, stepParameterNames }) {
    const wanted = comparable(generatedExpressions[0].source);
    const nearest = registry()
      .map((s) => ({ phrase: s.phrase, distance: distanceTo(s.phrase, wanted) }))
      .sort((a, b) => a.distance - b.distance)
      .slice(0, 3);
    const hint = nearest.map((n) => `//   ${n.phrase}`).join('\n');
    const names = generatedExpressions[0].parameterNames.concat(stepParameterNames).join(', ');
    const source = generatedExpressions[0].source.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
    return `// Glance has no step for this. The nearest phrasings it has:\n${hint}\n` +
      `// Or define it:\n${functionName}('${source}', async function (${names}) {\n  // ${comment}\n  return 'pending';\n});`;
  }
}

module.exports = GlanceSnippetSyntax;
